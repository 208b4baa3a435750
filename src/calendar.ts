/**
 * Calendar days written `YYYY-MM-DD`: dated special days and `from:` dates of the files
 * (src/time/clock.ts), finance filters (src/finance/dates.ts; docs/platform-api.md §4.8).
 */

/** A calendar date as written, `YYYY-MM-DD`. */
export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `year`-`month`-`day` is a real day of the (proleptic Gregorian) calendar. */
export function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A `YYYY-MM-DD` date, or `undefined` when the text is not a valid one (`2025-02-30` is not). */
export function parseCalendarDate(text: string): CalendarDate | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return validDate(year, month, day) ? { year, month, day } : undefined;
}

/** Whether `text` is a real calendar day written `YYYY-MM-DD`. */
export function isDay(text: string): boolean {
  return parseCalendarDate(text) !== undefined;
}
