/**
 * State the utils group (docs/platform-api.md §2.5, prefix `/api/rest-ops-utils`) keeps outside the catalogs,
 * and the conversion between its schedule form and the menu API's.
 *
 * One store state, several views (docs/platform-api.md §4.7): corridor and product schedules ARE the
 * category `schedules` and item `schedules_info.schedules` of the menu API. The two forms:
 * - utils (docs/platform-api.md §4.6): `schedule_details: [{id, days: "mon,tue", starts_time: "HH:mm:ss",
 *   ends_time}]`, one element per time range, each with an id;
 * - menu API (docs/platform-api.md §4.3): `[{days_of_week: "mon,tue", time_periods:
 *   [{start_time: "HH:MM", end_time}]}]`, no ids.
 * A utils detail is one `(days_of_week, time_period)` pair. Details with the same `days` are grouped into
 * one menu schedule, in order of first appearance.
 *
 * Stable ids: the menu API has none, so the emulator keeps, per store, a map from the content of a period
 * (`owner`, days, start, end, and its occurrence number among equal periods) to its id. A period keeps its
 * id as long as it exists; a utils PUT keeps the id of the detail it rewrites; a change through the menu
 * API is a new period with a new id. Ids come from the emulator's one id counter.
 *
 * Store hours (docs/platform-api.md §4.7) live here too: they have no menu API view.
 */

import type { ScheduleCreate, ScheduleUpdate } from "../generated/platform.js";
import type { WireSchedule } from "../platform/wire.js";
import { Limits } from "../platform/wire.js";
import { holidayDays } from "./calendars.js";
import { badShape, fail, isObj } from "./http.js";
import type { Catalog, EmulatorState, StatePart, StoreRec } from "./state.js";

// ---- store hours data ------------------------------------------------------------------------------

/** Weekdays of regular hours (docs/platform-api.md §4.7: `day` is one of mon..sun). */
export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A time slot of store hours (docs/platform-api.md §4.7); times are `HH:mm:ss`. */
export interface SlotRec {
  id: number;
  startsTime: string;
  endsTime: string;
}

/** A slot of regular hours on one weekday. */
export interface RegularSlotRec extends SlotRec {
  day: Weekday;
}

/** A holiday or special day (docs/platform-api.md §4.7 `storeSpecialScheduleDays` element) with its slots. */
export interface SpecialDayRec {
  id: number;
  name: string;
  month: number;
  day: number;
  cityId: number | null;
  slots: SlotRec[];
}

/** The holiday days of a store: its country's, or its own calendar's (calendars.ts). */
export function storeHolidays(store: StoreRec): readonly Omit<SpecialDayRec, "slots">[] {
  return holidayDays(store.country, store.holidays);
}

/** Per-store data of the utils group, persisted in the state file under `parts.utils`. */
export interface StoreUtilsRec {
  regular: RegularSlotRec[];
  /**
   * Slots of the store's holiday days ({@link storeHolidays}), by holiday day id (decimal string). A day
   * its calendar no longer has keeps its slots, unseen, until the calendar has it again.
   */
  holidaySlots: Record<string, SlotRec[]>;
  special: SpecialDayRec[];
  /** Stable schedule ids: owner (`category:<id>` / `item:<id>`) → content key → id. */
  scheduleIds: Record<string, Record<string, number>>;
}

function emptyStoreUtils(): StoreUtilsRec {
  return { regular: [], holidaySlots: {}, special: [], scheduleIds: {} };
}

/** Name of the {@link StatePart} holding the utils data. */
export const UTILS_PART = "utils";

const parts = new WeakMap<EmulatorState, Map<string, StoreUtilsRec>>();

/**
 * Registers the utils part of `state` (idempotent). Called by the emulator at start; route handlers
 * call it through {@link utilsOf} too, so a state without it still works.
 */
export function registerUtilsPart(state: EmulatorState): Map<string, StoreUtilsRec> {
  let data = parts.get(state);
  if (data) return data;
  const map = new Map<string, StoreUtilsRec>();
  data = map;
  parts.set(state, map);
  const part: StatePart = {
    save: () => Object.fromEntries(map),
    load: (snapshot) => {
      if (!isObj(snapshot)) return;
      for (const [key, v] of Object.entries(snapshot)) {
        if (isObj(v)) map.set(key, { ...emptyStoreUtils(), ...(v as Partial<StoreUtilsRec>) });
      }
    },
    reset: () => map.clear(),
  };
  state.registerPart(UTILS_PART, part);
  return map;
}

/** The utils data of a store, created empty on first use. */
export function utilsOf(state: EmulatorState, store: StoreRec): StoreUtilsRec {
  const map = registerUtilsPart(state);
  let rec = map.get(store.key);
  if (!rec) map.set(store.key, (rec = emptyStoreUtils()));
  return rec;
}

// ---- time and day rules ----------------------------------------------------------------------------

const DAYS = new Set<string>([...WEEKDAYS, "hol"]);

/**
 * A time range of a request whose times the route's schema has checked (`HH:mm:ss`,
 * docs/platform-api.md §4.6, §4.7): both present (a slot may spell them in snake or camel case, so the
 * schemas leave them optional) and `start < end`. `at` prefixes the field names ("": none). A range crossing
 * midnight (end ≤ start) is refused with 400 (emulator's choice; the platform publishes no rule,
 * docs/platform-api.md §4.11): split it in two.
 */
export function parseRange(
  start: unknown,
  end: unknown,
  at: string,
  names: [string, string],
): { start: string; end: string } {
  const pre = at === "" ? "" : `${at}.`;
  if (typeof start !== "string") throw badShape(`${pre}${names[0]} is required`);
  if (typeof end !== "string") throw badShape(`${pre}${names[1]} is required`);
  const s = start;
  const e = end;
  if (e <= s) {
    throw badShape(
      `${pre}${names[1]} (${e}) must be later than ${names[0]} (${s}); split ranges that cross midnight`,
    );
  }
  return { start: s, end: e };
}

/**
 * `days` of a schedule detail (docs/platform-api.md §4.6): a comma-separated list of
 * `mon,tue,wed,thu,fri,sat,sun` and/or `hol`, no repeats. Spaces around names are dropped.
 */
export function parseDays(v: string, at: string): string {
  if (v.trim() === "") throw badShape(`${at} is required`);
  const seen = new Set<string>();
  for (const raw of v.split(",")) {
    const d = raw.trim();
    if (!DAYS.has(d)) throw badShape(`${at}: "${raw}" is not one of mon,tue,wed,thu,fri,sat,sun,hol`);
    if (seen.has(d)) throw badShape(`${at}: "${d}" is listed twice`);
    seen.add(d);
  }
  return [...seen].join(",");
}

// ---- corridor and product schedules ----------------------------------------------------------------

/** One element of `schedule_details` (docs/platform-api.md §4.6). */
export interface ScheduleDetail {
  id: number;
  days: string;
  starts_time: string;
  ends_time: string;
}

/** A detail without its id yet. */
type Period = Omit<ScheduleDetail, "id">;

/** `HH:MM` (menu API) → `HH:MM:00` (utils). */
function toUtilsTime(t: string): string {
  return t.length === 5 ? `${t}:00` : t;
}

/** Menu schedules flattened to periods in order, times in the utils form. */
function flatten(schedules: WireSchedule[]): Period[] {
  const out: Period[] = [];
  for (const s of schedules) {
    const days = s.days_of_week
      .split(",")
      .map((d) => d.trim())
      .join(",");
    for (const p of s.time_periods) {
      out.push({ days, starts_time: toUtilsTime(p.start_time), ends_time: toUtilsTime(p.end_time) });
    }
  }
  return out;
}

/** Content keys of periods in order: equal periods are told apart by their occurrence number. */
function contentKeys(periods: Period[]): string[] {
  const count = new Map<string, number>();
  return periods.map((p) => {
    const base = `${p.days}|${p.starts_time}|${p.ends_time}`;
    const n = count.get(base) ?? 0;
    count.set(base, n + 1);
    return `${base}#${n}`;
  });
}

/**
 * What a corridor or product schedule is stored on: a category (corridor) or an item (product) of a
 * catalog. `owner` names it in the stable-id map.
 */
export interface ScheduleOwner {
  owner: string;
  read(cat: Catalog): WireSchedule[] | undefined;
  write(cat: Catalog, schedules: WireSchedule[], now: string): void;
}

/** The schedules of a category (corridor, docs/platform-api.md §4.6). */
export function categoryOwner(id: number): ScheduleOwner {
  return {
    owner: `category:${id}`,
    read: (cat) => cat.categories.get(id)?.schedules,
    write: (cat, schedules, now) => {
      const rec = cat.categories.get(id);
      if (rec) cat.categories.set(id, { ...rec, schedules, last_updated: now });
    },
  };
}

/**
 * The schedules of an item (product, docs/platform-api.md §4.6): `schedules_info.schedules`; overrides
 * untouched.
 */
export function itemOwner(id: number): ScheduleOwner {
  return {
    owner: `item:${id}`,
    read: (cat) => cat.items.get(id)?.schedules_info.schedules,
    write: (cat, schedules, now) => {
      const rec = cat.items.get(id);
      if (rec) {
        cat.items.set(id, {
          ...rec,
          schedules_info: { ...rec.schedules_info, schedules },
          last_updated: now,
        });
      }
    },
  };
}

/**
 * The `schedule_details` of a schedule as stored, with their stable ids. Periods seen for the first time
 * get a new id (a read may thus write the id map; it is persisted).
 */
export function detailsOf(
  state: EmulatorState,
  store: StoreRec,
  owner: string,
  schedules: WireSchedule[],
): ScheduleDetail[] {
  const periods = flatten(schedules);
  const ids = (utilsOf(state, store).scheduleIds[owner] ??= {});
  let added = false;
  const out = contentKeys(periods).map((k, i) => {
    let id = ids[k];
    if (id === undefined) {
      ids[k] = id = state.allocateId();
      added = true;
    }
    return { id, ...periods[i]! };
  });
  if (added) state.requestPersist();
  return out;
}

/**
 * Turns details (the whole new schedule) into menu schedules: grouped by `days`, in order of first
 * appearance, times `HH:MM`. Pure: validates only. At most {@link Limits.periodsPerSchedule} periods per
 * group (docs/platform-api.md §4.11): 400 otherwise. Seconds must be `00`: the menu API keeps minutes
 * (emulator's choice, one state for both views). Returns the details in stored order.
 */
export function buildSchedules(
  details: ScheduleDetail[],
  at: string,
): { schedules: WireSchedule[]; details: ScheduleDetail[] } {
  const groups = new Map<string, ScheduleDetail[]>();
  details.forEach((d, i) => {
    for (const [k, t] of [
      ["starts_time", d.starts_time],
      ["ends_time", d.ends_time],
    ] as const) {
      if (!t.endsWith(":00")) {
        throw badShape(`${at}[${i}].${k} (${t}) must be on a whole minute (seconds 00)`);
      }
    }
    let g = groups.get(d.days);
    if (!g) groups.set(d.days, (g = []));
    g.push(d);
  });
  const ordered: ScheduleDetail[] = [];
  const schedules: WireSchedule[] = [];
  for (const [days, list] of groups) {
    if (list.length > Limits.periodsPerSchedule) {
      throw badShape(
        `${at}: days "${days}" would have ${list.length} time periods; the limit is ${Limits.periodsPerSchedule}`,
      );
    }
    ordered.push(...list);
    schedules.push({
      days_of_week: days,
      time_periods: list.map((d) => ({
        start_time: d.starts_time.slice(0, 5),
        end_time: d.ends_time.slice(0, 5),
      })),
    });
  }
  return { schedules, details: ordered };
}

/** Records the ids of an owner's details (in stored order) as its stable ids, replacing the old ones. */
export function rememberIds(
  state: EmulatorState,
  store: StoreRec,
  owner: string,
  details: ScheduleDetail[],
): void {
  const ids: Record<string, number> = {};
  contentKeys(details).forEach((k, i) => (ids[k] = details[i]!.id));
  utilsOf(state, store).scheduleIds[owner] = ids;
  state.requestPersist();
}

/**
 * Reads `schedule_details` of a POST (`withId: false`: ids ignored, fresh ones allocated only once the
 * whole body is valid) or a PUT (`withId: true`: the `id` the schema requires). The shape (every field
 * required, times `HH:mm:ss`, ids positive) is the route's schema's (`utils#ScheduleCreate`,
 * `#ScheduleUpdate`, checked by server.ts); left here are the day names and the time order.
 */
export function parseDetails(
  body: unknown,
  withId: boolean,
): { id: number | undefined; period: Period; at: string }[] {
  const list = (body as ScheduleCreate | ScheduleUpdate).schedule_details;
  return list.map((d, i) => {
    const at = `schedule_details[${i}]`;
    const id = withId ? d.id : undefined;
    const days = parseDays(d.days, `${at}.days`);
    const r = parseRange(d.starts_time, d.ends_time, at, ["starts_time", "ends_time"]);
    return { id, period: { days, starts_time: r.start, ends_time: r.end }, at };
  });
}

/** 404 for an unknown schedule detail id. */
export function unknownSchedule(id: number | string): never {
  throw fail(404, `Schedule ${id} not found`);
}
