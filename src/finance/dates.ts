/**
 * Dates of the finance group. Filters take calendar days `YYYY-MM-DD` (docs/platform-api.md §4.8: a
 * malformed filter is a 400, so carte checks them before any call); date-times are shown as ISO 8601
 * in UTC (docs/finance.md, "Dates").
 */

import { isDay } from "../calendar.js";

const ZONED = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;
const UNZONED = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)$/;

/**
 * A platform date-time as ISO 8601 in UTC, `YYYY-MM-DDTHH:mm:ssZ` (milliseconds only when not zero).
 * A date-time with an offset is converted to UTC; one without an offset is taken as UTC (assumption,
 * docs/finance.md); a bare day `YYYY-MM-DD` stays as it is; anything else is returned unchanged, so an
 * export never fails on a date it cannot read.
 */
export function isoDateTime(value: unknown): string {
  if (typeof value !== "string") return value === undefined || value === null ? "" : String(value);
  const s = value.trim();
  if (isDay(s)) return s;
  let t: number;
  if (ZONED.test(s)) t = Date.parse(s.replace(" ", "T"));
  else {
    const m = UNZONED.exec(s);
    if (!m) return value;
    t = Date.parse(`${m[1]}T${m[2]}Z`);
  }
  if (Number.isNaN(t)) return value;
  return new Date(t).toISOString().replace(/\.000Z$/, "Z");
}

/** The UTC calendar day of a platform date-time (`YYYY-MM-DD`), or `undefined` when it cannot be read. */
export function dayOf(value: unknown): string | undefined {
  const iso = isoDateTime(value);
  const day = iso.slice(0, 10);
  return isDay(day) ? day : undefined;
}
