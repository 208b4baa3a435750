/**
 * Schedules of categories and items in the menu API's form (platform notes "Store menu API":
 * `{days_of_week: "mon,tue,...,sun,hol", time_periods: [{start_time: "HH:MM", end_time: "HH:MM"}]}`),
 * and their canonical form in carte's model: days in `mon…sun,hol` order, periods sorted by start,
 * schedules sorted by days then first start.
 */

import type { Schedule, Slot } from "../model.js";
import type { WireSchedule } from "../platform/wire.js";

const DAY_ORDER = ["mon", "tue", "wed", "thu", "fri", "sat", "sun", "hol"];

/** Days in canonical order, without repeats: `"sun,mon"` → `"mon,sun"`. Unknown names go last, sorted. */
export function canonicalDays(days: string): string {
  const list = [
    ...new Set(
      days
        .split(",")
        .map((d) => d.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  const rank = (d: string) => (DAY_ORDER.includes(d) ? DAY_ORDER.indexOf(d) : DAY_ORDER.length);
  return list.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).join(",");
}

/** `HH:MM` from `HH:MM` or `HH:MM:SS`. */
export function hhmm(time: string): string {
  return time.length >= 5 ? time.slice(0, 5) : time;
}

const bySlot = (a: Slot, b: Slot) => a.start.localeCompare(b.start) || a.end.localeCompare(b.end);

const firstStart = (s: Schedule) => s.periods[0]?.start ?? "";

/** Sorts schedules and their periods into the canonical form. */
export function canonicalSchedules(list: readonly Schedule[]): Schedule[] {
  return list
    .map((s) => ({ days: canonicalDays(s.days), periods: [...s.periods].sort(bySlot) }))
    .sort((a, b) => a.days.localeCompare(b.days) || firstStart(a).localeCompare(firstStart(b)));
}

/** Reads schedules from the wire; `undefined` when there are none (the canonical "always"). */
export function fromWireSchedules(list: readonly WireSchedule[] | undefined): Schedule[] | undefined {
  if (!list || list.length === 0) return undefined;
  return canonicalSchedules(
    list.map((s) => ({
      days: s.days_of_week,
      periods: (s.time_periods ?? []).map((p) => ({ start: hhmm(p.start_time), end: hhmm(p.end_time) })),
    })),
  );
}

/** Writes schedules in the wire form. */
export function toWireSchedules(list: readonly Schedule[] | undefined): WireSchedule[] {
  return (list ?? []).map((s) => ({
    days_of_week: s.days,
    time_periods: s.periods.map((p) => ({ start_time: p.start, end_time: p.end })),
  }));
}
