/**
 * Days and time slots as people write them in the configuration (`mon-fri`, `sat,sun`, `hol`,
 * `"11:00-15:00"`, `"22:00-02:00"`), and their canonical form in the model (`src/model.ts`): days in the
 * platform's order `mon,…,sun,hol`, slots `HH:MM` with start before end, sorted by start.
 *
 * The platform takes only slots inside one day, `HH:MM` with start < end (docs/platform-api.md §3.6; the
 * emulator refuses anything else). A slot that crosses midnight is therefore split: `fri 22:00-02:00` becomes
 * `fri 22:00-23:59` and `sat 00:00-02:00` (Sunday wraps to Monday). The platform has no `24:00`, so the end
 * of a day is written `23:59`; the same holds for a slot written `…-24:00`.
 *
 * Pure functions only: parsing reports what is wrong in words, for the checks to locate.
 */

import { canonicalSchedules } from "./canonical-schedules.js";
import { WEEKDAYS } from "../model.js";
import type { Schedule, Slot, Weekday } from "../model.js";
import { quote } from "../source/quote.js";

/** A day a schedule can name: a weekday, or `hol` for the platform's holidays. */
export type ScheduleDay = Weekday | "hol";

/** Every day a schedule can name, in the platform's order. */
export const SCHEDULE_DAYS: readonly ScheduleDay[] = [...WEEKDAYS, "hol"];

/** Minutes in a day; the end of a day, written `24:00`. */
export const DAY_MINUTES = 24 * 60;

/** The latest time the platform accepts, `23:59`: carte's end of a day. */
export const LAST_MINUTE = DAY_MINUTES - 1;

/** The strict form of a slot the schemas accept: `H:MM-HH:MM`, 24-hour clock. */
export const SLOT_PATTERN = /^([0-9]{1,2}):([0-9]{2})-([0-9]{1,2}):([0-9]{2})$/;

/** A parsed slot in minutes since midnight. `end <= start` means the slot runs past midnight. */
export interface MinuteSlot {
  start: number;
  end: number;
}

/** A result or the reason why there is none. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(error: string): Parsed<T> => ({ ok: false, error });

/** Formats minutes since midnight as `HH:MM`. */
export function formatMinutes(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`;
}

function checkTime(hours: number, minutes: number, text: string, isEnd: boolean): string | undefined {
  if (minutes > 59) return `${quote(text)} is not a time of day: minutes go from 00 to 59`;
  if (hours === 24 && minutes === 0 && isEnd) return undefined;
  if (hours > 23)
    return `${quote(text)} is not a time of day: hours go from 00 to 23 (24:00 only as the end of a slot)`;
  return undefined;
}

/**
 * Parses a slot `"11:00-15:00"`. A slot whose end is at or before its start runs past midnight
 * (`"22:00-02:00"`); `24:00` is accepted as an end and means the end of the day.
 *
 * @returns the slot in minutes (`end` is 1440 for `24:00`), or why it is not a slot. A slot of zero
 *   length (`"11:00-11:00"`, `"00:00-24:00"` counts as a whole day) is refused.
 */
export function parseSlot(text: string): Parsed<MinuteSlot> {
  const m = SLOT_PATTERN.exec(text);
  if (!m) return fail(`${quote(text)} is not a slot: write start-end in 24-hour time, e.g. 11:00-15:00`);
  const [sh, sm, eh, em] = [m[1], m[2], m[3], m[4]].map(Number) as [number, number, number, number];
  const [startText, endText] = text.split("-") as [string, string];
  const bad = checkTime(sh, sm, startText, false) ?? checkTime(eh, em, endText, true);
  if (bad) return fail(bad);
  const start = sh * 60 + sm;
  const end = eh * 60 + em;
  if (start === end) return fail(`slot ${quote(text)} is empty: its start and end are the same time`);
  return ok({ start, end });
}

/** True when a slot (as parsed) runs past midnight into the next day. */
export function crossesMidnight(slot: MinuteSlot): boolean {
  return slot.end < slot.start && slot.end > 0;
}

/**
 * The pieces of a slot in the platform's form: one piece on its own day, and one on the next day when
 * it runs past midnight. Ends at midnight become `23:59` (the platform has no `24:00`). Pieces of zero
 * length (`23:59-…`) are dropped.
 */
export function splitSlot(slot: MinuteSlot): { sameDay?: Slot; nextDay?: Slot } {
  const out: { sameDay?: Slot; nextDay?: Slot } = {};
  const sameDayEnd = slot.end > slot.start ? Math.min(slot.end, LAST_MINUTE) : LAST_MINUTE;
  if (sameDayEnd > slot.start)
    out.sameDay = { start: formatMinutes(slot.start), end: formatMinutes(sameDayEnd) };
  if (crossesMidnight(slot)) out.nextDay = { start: formatMinutes(0), end: formatMinutes(slot.end) };
  return out;
}

/** The day after a weekday; Sunday wraps to Monday. */
export function nextWeekday(day: Weekday): Weekday {
  return WEEKDAYS[(WEEKDAYS.indexOf(day) + 1) % WEEKDAYS.length] ?? "mon";
}

/** Day names as written, to days. A Map: a key such as `constructor` or `__proto__` names no day. */
const DAY_NAMES: ReadonlyMap<string, ScheduleDay> = new Map(SCHEDULE_DAYS.map((d) => [d, d]));

/**
 * Parses a day spec: comma-separated parts, each a day (`mon`), a range (`mon-fri`; `fri-mon` wraps
 * over the weekend), `daily` (every day of the week), or `hol` (the platform's holidays) when
 * `allowHolidays`. Case and spaces around parts are ignored.
 *
 * @returns the days in the platform's order, or why the spec is wrong (an unknown day, a day named twice).
 */
export function parseDays(spec: string, allowHolidays: boolean): Parsed<ScheduleDay[]> {
  const days = new Set<ScheduleDay>();
  const parts = spec.toLowerCase().split(",");
  const known = allowHolidays ? "mon, tue, wed, thu, fri, sat, sun, hol or daily" : "mon … sun or daily";
  for (const raw of parts) {
    const part = raw.trim();
    if (part === "") return fail(`days ${quote(spec)} has an empty part: write e.g. mon-fri or sat,sun`);
    let named: ScheduleDay[];
    if (part === "daily") named = [...WEEKDAYS];
    else if (part.includes("-")) {
      const [a = "", b = "", ...rest] = part.split("-").map((s) => s.trim());
      const from = DAY_NAMES.get(a);
      const to = DAY_NAMES.get(b);
      if (rest.length > 0 || from === undefined || to === undefined) {
        const unknown = [a, b, ...rest].find((d) => !DAY_NAMES.has(d)) ?? part;
        return fail(`days ${quote(spec)}: ${quote(unknown)} is not a day (use ${known})`);
      }
      if (from === "hol" || to === "hol")
        return fail(
          `days ${quote(spec)}: hol cannot be part of a range, write it on its own (e.g. mon-fri,hol)`,
        );
      const i = WEEKDAYS.indexOf(from);
      const n = ((WEEKDAYS.indexOf(to) - i + 7) % 7) + 1;
      named = Array.from({ length: n }, (_, k) => WEEKDAYS[(i + k) % 7] as Weekday);
    } else {
      const day = DAY_NAMES.get(part);
      if (day === undefined) return fail(`days ${quote(spec)}: ${quote(part)} is not a day (use ${known})`);
      named = [day];
    }
    for (const day of named) {
      if (day === "hol" && !allowHolidays)
        return fail(
          `days ${quote(spec)}: hol is not a day of regular hours; write holiday hours under holidays:`,
        );
      if (days.has(day)) return fail(`days ${quote(spec)} names ${day} twice`);
      days.add(day);
    }
  }
  return ok(SCHEDULE_DAYS.filter((d) => days.has(d)));
}

/** A holiday or special-day date `MM-DD`: a real day of some year (29 February included). */
export function parseMonthDay(text: string): Parsed<{ month: number; day: number }> {
  const m = /^([0-9]{2})-([0-9]{2})$/.exec(text);
  if (!m) return fail(`${quote(text)} is not a date: write MM-DD, e.g. 12-25 for 25 December`);
  const month = Number(m[1]);
  const day = Number(m[2]);
  if (month < 1 || month > 12) return fail(`${quote(text)} is not a date: the month (MM) goes from 01 to 12`);
  const days = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 31;
  if (day < 1 || day > days)
    return fail(
      `${quote(text)} is not a date: month ${m[1]} has days 01 to ${String(days).padStart(2, "0")}`,
    );
  return ok({ month, day });
}

/** `MM-DD` of a month and a day. */
export function monthDayKey(month: number, day: number): string {
  return `${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** Compares slots by start, then end. */
export function compareSlots(a: Slot, b: Slot): number {
  return a.start < b.start ? -1 : a.start > b.start ? 1 : a.end < b.end ? -1 : a.end > b.end ? 1 : 0;
}

/** The one canonical form of schedules, shared with the read side (src/kinds/schedules.ts). */
export { canonicalSchedules };

/**
 * The canonical schedules of `schedules:` entries as written (`{days: "mon-fri", slots: ["06:00-11:00"]}`):
 * days parsed, slots split at midnight (a weekday's overnight part goes to the next weekday; `hol` has
 * no next day and keeps only its part before midnight), then {@link canonicalSchedules}. Entries that do
 * not parse are skipped: the checks report them before this is called.
 */
export function toSchedules(entries: readonly { days: string; slots: readonly string[] }[]): Schedule[] {
  const perDay: Schedule[] = [];
  for (const entry of entries) {
    const days = parseDays(entry.days, true);
    if (!days.ok) continue;
    for (const text of entry.slots) {
      const slot = parseSlot(text);
      if (!slot.ok) continue;
      const { sameDay, nextDay } = splitSlot(slot.value);
      for (const day of days.value) {
        if (sameDay) perDay.push({ days: day, periods: [sameDay] });
        if (nextDay && day !== "hol") perDay.push({ days: nextWeekday(day), periods: [nextDay] });
      }
    }
  }
  return canonicalSchedules(perDay);
}
