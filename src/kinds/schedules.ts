/**
 * Schedules of categories and items in the menu API's form (platform notes "Store menu API":
 * `{days_of_week: "mon,tue,...,sun,hol", time_periods: [{start_time: "HH:MM", end_time: "HH:MM"}]}`),
 * and their canonical form in carte's model: days in `mon…sun,hol` order, periods sorted by start,
 * schedules sorted by days then first start.
 */

import { table, type Schedule, type Slot } from "../model.js";
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

/** Resources as compared, by the resource: without schedules, or with their canonical form. */
const unscheduled = new WeakMap<object, object>();
const canonicalized = new WeakMap<object, object>();

/**
 * A store's items or categories as the planner compares them, without a copy when nothing differs: each
 * resource's schedules in canonical form ({@link canonicalOnce}; none when the canonical form is empty,
 * "always"), or left out when the store writes schedules through the utils group (`viaUtils`: the
 * corridor and product-schedule kinds own them there). A resource that needs another form is copied
 * once, whatever the number of stores that share it; the table is copied only when some resource is.
 */
export function withComparedSchedules<R extends { schedules?: Schedule[] }>(
  all: Readonly<Record<string, R>>,
  viaUtils: boolean,
): Readonly<Record<string, R>> {
  let out: Record<string, R> | undefined;
  for (const key of Object.keys(all)) {
    const resource = all[key]!;
    if (resource.schedules === undefined) continue;
    // Schedules read or resolved are canonical already (one look-up, the common case).
    if (!viaUtils && resource.schedules.length > 0 && canonicalLists.has(resource.schedules)) continue;
    const cache = viaUtils ? unscheduled : canonicalized;
    let compared = cache.get(resource) as R | undefined;
    if (!compared) {
      const canonical = viaUtils ? [] : canonicalOnce(resource.schedules);
      if (canonical === resource.schedules && canonical.length > 0) continue;
      const { schedules: _schedules, ...rest } = resource;
      compared = (canonical.length > 0 ? { ...rest, schedules: canonical } : rest) as R;
      cache.set(resource, compared);
    }
    out ??= Object.assign(table<R>(), all);
    out[key] = compared;
  }
  return out ?? all;
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

/**
 * Reads schedules from the wire in canonical form ({@link canonicalSchedules}), once, when the store is
 * read, so that the planner compares them as they are; `undefined` when there are none, or none with a
 * period (the canonical "always", as resolving the files gives it: never an empty list). The same
 * schedules read again (another item, another store) give the same list, worked out once
 * ({@link readSchedules}): a chain's stores share their menus' few schedules, and reading each store
 * must not make its own copies. The list is read-only, as every state is.
 */
export function fromWireSchedules(list: readonly WireSchedule[] | undefined): Schedule[] | undefined {
  if (!list || list.length === 0) return undefined;
  const key = wireKey(list);
  if (readSchedules.has(key)) return readSchedules.get(key);
  const canonical = canonicalSchedules(
    list.map((s) => ({
      days: s.days_of_week,
      periods: (s.time_periods ?? []).map((p) => ({ start: hhmm(p.start_time), end: hhmm(p.end_time) })),
    })),
  );
  const out = canonical.length > 0 ? canonical : undefined;
  // Bounded: past the bound (a platform that sends ever new schedules) a list is worked out each time.
  if (readSchedules.size < MAX_READ_SCHEDULES) readSchedules.set(key, out);
  return out;
}

/** Canonical forms of the schedules read so far, by {@link wireKey}: at most {@link MAX_READ_SCHEDULES}. */
const readSchedules = new Map<string, Schedule[] | undefined>();
const MAX_READ_SCHEDULES = 4096;

/**
 * A key of wire schedules that differs whenever one of their days or times does: each field in JSON
 * (quoted and escaped, so that no value can pass for a separator), in the list's order.
 */
function wireKey(list: readonly WireSchedule[]): string {
  let key = "";
  for (const s of list) {
    key += JSON.stringify(s.days_of_week) + "[";
    for (const p of s.time_periods ?? []) key += JSON.stringify(p.start_time) + JSON.stringify(p.end_time);
    key += "]";
  }
  return key;
}

/** Writes schedules in the wire form. */
export function toWireSchedules(list: readonly Schedule[] | undefined): WireSchedule[] {
  return (list ?? []).map((s) => ({
    days_of_week: s.days,
    time_periods: s.periods.map((p) => ({ start_time: p.start, end_time: p.end })),
  }));
}
