/**
 * The canonical form of schedules (of categories and items) in carte's model: days in `mon…sun,hol`
 * order, periods sorted by start, schedules sorted by days then first start. Both sides of a plan are
 * put in it: the files' (src/time/days-and-slots.ts `toSchedules`) and the platform's (src/kinds/schedules.ts
 * `fromWireSchedules`). Here, below the kinds and the loader, which both need it.
 */

import type { Schedule, Slot } from "../model.js";

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
 * THE canonical form of schedules of categories and items, for both sides of a plan: the files'
 * (src/time/days-and-slots.ts `toSchedules`) and the platform's (src/kinds/schedules.ts `fromWireSchedules`).
 * The periods of each day (`mon`…`sun`, `hol`) are collected, sorted and de-duplicated; days with exactly the
 * same periods share one schedule, its days in week order; schedules are sorted by their days in week order,
 * then by first start. So two sets of schedules that open the same periods on the same days compare equal
 * however they are grouped: a platform that keeps one day per schedule and a file that writes `mon-fri`
 * agree. Days without periods are left out; an empty result means "always". Unknown day names (none in the
 * spec) are kept as days of their own, after `hol`.
 */
export function canonicalSchedules(list: readonly Schedule[]): Schedule[] {
  const canonical = canonicalOf(list);
  canonicalLists.add(canonical);
  return canonical;
}

/** Lists of schedules made by {@link canonicalSchedules}, or found equal to what it makes. */
const canonicalLists = new WeakSet<readonly Schedule[]>();

/** The canonical form of other lists, by list: each is worked out once, whatever the stores sharing it. */
const canonicalFormOf = new WeakMap<readonly Schedule[], Schedule[]>();

/**
 * The canonical form of a list of schedules, worked out at most once per list: a list read from the
 * platform or resolved from the files is canonical already (both go through {@link canonicalSchedules})
 * and is returned as it is, without a look; another (a library user's own desired state) is put in
 * canonical form once. Lists are never changed in place once made (states are read-only).
 */
export function canonicalOnce(list: readonly Schedule[]): readonly Schedule[] {
  if (canonicalLists.has(list)) return list;
  let canonical = canonicalFormOf.get(list);
  if (!canonical) {
    canonical = canonicalSchedules(list);
    canonicalFormOf.set(list, canonical);
  }
  return canonical;
}

function canonicalOf(list: readonly Schedule[]): Schedule[] {
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
  return [...groups.values()]
    .map((g) => ({ days: g.days.join(","), periods: g.periods }))
    .sort((a, b) => byDays(a.days, b.days) || bySlot(a.periods[0]!, b.periods[0]!));
}

/** Whether a list of schedules was made by {@link canonicalSchedules} (or found equal to what it makes). */
export function isCanonical(list: readonly Schedule[]): boolean {
  return canonicalLists.has(list);
}
