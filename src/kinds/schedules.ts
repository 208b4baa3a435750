/**
 * Schedules of categories and items in the menu API's form (docs/platform-api.md §4.3:
 * `{days_of_week: "mon,tue,...,sun,hol", time_periods: [{start_time: "HH:MM", end_time: "HH:MM"}]}`),
 * read into their canonical form in carte's model (src/time/canonical-schedules.ts), and the resources as the
 * planner compares their schedules.
 */

import { table, type Schedule } from "../model.js";
import type { WireSchedule } from "../platform/wire.js";
import { canonicalOnce, canonicalSchedules, hhmm, isCanonical } from "../time/canonical-schedules.js";

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
    if (!viaUtils && resource.schedules.length > 0 && isCanonical(resource.schedules)) continue;
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
