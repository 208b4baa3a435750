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
  return list.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).join(",");
}

/** `HH:MM` from `HH:MM` or `HH:MM:SS`. */
export function hhmm(time: string): string {
  return time.length >= 5 ? time.slice(0, 5) : time;
}

const bySlot = (a: Slot, b: Slot) => a.start.localeCompare(b.start) || a.end.localeCompare(b.end);

const rank = (d: string) => (DAY_ORDER.includes(d) ? DAY_ORDER.indexOf(d) : DAY_ORDER.length);

/** Orders two canonical day lists by their days in week order, day by day (`mon,tue` < `mon,wed` < `tue`). */
function byDays(a: string, b: string): number {
  const x = a.split(",");
  const y = b.split(",");
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = rank(x[i]!) - rank(y[i]!) || x[i]!.localeCompare(y[i]!);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * The lists {@link canonicalSchedules} returned, so that their canonical form costs nothing. Nothing
 * changes a schedule list once made (states are read, never changed, by the planner).
 */
const canonical = new WeakSet<readonly Schedule[]>();

/**
 * THE canonical form of schedules of categories and items, for both sides of a plan: the files'
 * (src/config/slots.ts `toSchedules`) and the platform's (`fromWireSchedules`). The periods of each day
 * (`mon`…`sun`, `hol`) are collected, sorted and de-duplicated; days with exactly the same periods share
 * one schedule, its days in week order; schedules are sorted by their days in week order, then by first
 * start. So two sets of schedules that open the same periods on the same days compare equal however they
 * are grouped: a platform that keeps one day per schedule and a file that writes `mon-fri` agree.
 * Days without periods are left out; an empty result means "always". Unknown day names (none in the
 * spec) are kept as days of their own, after `hol`.
 */
export function canonicalSchedules(list: readonly Schedule[]): Schedule[] {
  // Already canonical (an earlier result, such as a schedule read from the platform, compared again
  // by the planner): the form of a canonical list is itself.
  if (canonical.has(list)) return list as Schedule[];
  const perDay = new Map<string, Slot[]>();
  for (const schedule of list) {
    for (const day of canonicalDays(schedule.days).split(",")) {
      if (day === "") continue;
      const slots = perDay.get(day) ?? [];
      slots.push(...schedule.periods.map((p) => ({ start: p.start, end: p.end })));
      perDay.set(day, slots);
    }
  }
  const groups = new Map<string, { days: string[]; periods: Slot[] }>();
  for (const day of [...perDay.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))) {
    const sorted = perDay.get(day)!.sort(bySlot);
    const periods = sorted.filter((s, i) => i === 0 || bySlot(sorted[i - 1]!, s) !== 0);
    if (periods.length === 0) continue;
    const key = JSON.stringify(periods);
    const group = groups.get(key);
    if (group) group.days.push(day);
    else groups.set(key, { days: [day], periods });
  }
  const out = [...groups.values()]
    .map((g) => ({ days: g.days.join(","), periods: g.periods }))
    .sort((a, b) => byDays(a.days, b.days) || bySlot(a.periods[0]!, b.periods[0]!));
  canonical.add(out);
  return out;
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
