/**
 * Regular opening hours of a store: one resource per weekday, `store[KEY].store_hours[mon]` …
 * `[sun]`, value `{day, slots}` (slots sorted, `HH:MM`; an empty list: closed that day). Managed where
 * the files give `hours` (then all seven days are, an unlisted day is closed); default ownership `full`.
 *
 * Wire (docs/platform-api.md §4.7, §2.5):
 * - read: `GET /api/rest-ops-utils/store/schedule/{storeId}` → `{storeScheduleDays: [{day,
 *   storeSchedules: [{id, startsTime, endsTime}]}]}`, times `HH:mm:ss`; a day not listed has no slot;
 * - create: `POST /store/schedule/{storeId}` `{day, starts_time, ends_time}`, one slot per call;
 * - update: `PUT /store/schedule/{storeId}/{storeScheduleId}` `{starts_time, ends_time}`;
 * - delete: `DELETE /store/schedule/{storeId}/{storeScheduleId}`.
 *
 * Minimal calls: the old and new slots of a day are matched (src/kinds/slots.ts `matchSlots`), so an
 * edited slot is one update by id. The slot ids of each day are kept in `ids.other.store_hours[day]`.
 * Order: stages 10 (deletes), 12–13 (updates), 14 (creates), see src/kinds/slots.ts.
 * Slots are not moved from one day to another (a `PUT` with another `day`, which the emulator allows
 * but the spec does not show): each day is its own resource.
 */

import { WEEKDAYS, type Slot, type Weekday } from "../model.js";
import { hoursState } from "./store-schedule.js";
import type { RegularHours } from "../generated/platform.js";
import { getRegularHours } from "../platform/utils-calls.js";
import type { ConfigProblem } from "../errors.js";
import { quote, report, where } from "../source/problems.js";
import { parseDays } from "../time/days-and-slots.js";
import type { KindImportPart } from "./import-types.js";
import { daysText, weekSlotsText } from "./import-schedules.js";
import { fieldOf, type Detail } from "../show/view-model.js";
import { slotsText } from "../show/words.js";
import type { KindView } from "./show.js";
import {
  checkOverlaps,
  checkSlotCount,
  readSlots,
  sortedSlots,
  splitWeek,
  type DayEntry,
} from "../time/written-slots.js";
import {
  SLOT_ENDPOINTS,
  duplicateSlotKeys,
  fromUtilsTime,
  fromWireSlot,
  matchSlots,
  plainSlots,
  slotDeletesAndUpdates,
  slotsShown,
  sortSlots,
  toUtilsTime,
  type IdSlot,
} from "./slots.js";
import {
  effectOf,
  partOf,
  perStoreRead,
  type ConfigSection,
  type EndpointSpec,
  type ResourceKind,
  type SectionContext,
  type Write,
} from "./resource-kind.js";

/** The hours of one weekday. */
export interface DayHours {
  day: Weekday;
  slots: Slot[];
}

/** Body of `POST /store/schedule/{storeId}` (docs/platform-api.md §2.5). */
export interface RegularSlotBody {
  day: Weekday;
  starts_time: string;
  ends_time: string;
}

/** `GET /store/schedule/{storeId}` of each store (docs/platform-api.md §2.5). */
const hoursRead = perStoreRead<RegularHours>("hours", (client, s) => getRegularHours(client, s.storeId));

/**
 * `POST /store/schedule/{storeId}` (docs/platform-api.md §2.5): one new slot per call, after every slot
 * update.
 */
const create: EndpointSpec = {
  chain: "store_schedule",
  synchronous: true,
  name: "store_hours.create",
  stage: 14,
  route: "POST /api/rest-ops-utils/store/schedule/{storeId}",
  scope: "store",
  body: (elements) => elements[0],
  maxElements: 1,
  // A create: repeated after a lost answer it would add the slot twice.
  idempotent: () => false,
  // Its effect: the day shows the slot (several creates of one day run in the same stage).
  effect(body, _params, state) {
    const b = body as RegularSlotBody;
    const slot = { start: fromUtilsTime(b.starts_time), end: fromUtilsTime(b.ends_time) };
    return effectOf(slotsShown(hoursState.get(state)?.[b.day] ?? [], [slot]), 1);
  },
};

/** The canonical week of the model from the slots given per weekday, reporting overlaps. */
export function hoursOf(
  days: Partial<Record<Weekday, DayEntry>>,
  problems: ConfigProblem[],
): Record<Weekday, Slot[]> {
  const pieces = splitWeek(Object.fromEntries(WEEKDAYS.map((d) => [d, days[d]?.slots ?? []])));
  const hours = {} as Record<Weekday, Slot[]>;
  for (const day of WEEKDAYS) {
    checkOverlaps(pieces[day], problems);
    const site = days[day]?.site ?? pieces[day][0]?.entry.site;
    if (site) checkSlotCount(pieces[day].length, day, site, problems);
    hours[day] = sortedSlots(pieces[day]);
  }
  return hours;
}

/** The days one layer writes under `hours:`, each with its slots and the site of the key naming it. */
type HoursLayer = Partial<Record<Weekday, DayEntry>>;

/**
 * `hours:` of a settings layer: keys are day specs (`mon-fri`, `sat,sun`, `daily`), values slot lists;
 * a slot may run past midnight (split onto the next day). Merged day by day; once any layer writes
 * `hours`, a day no layer names is closed.
 */
const hoursSection: ConfigSection<HoursLayer> = {
  key: "hours",
  read(value: unknown, ctx: SectionContext, problems: ConfigProblem[]) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    const hours: HoursLayer = {};
    const namedBy = new Map<Weekday, string>();
    for (const [spec, slotsValue] of Object.entries(value)) {
      const keySite = ctx.at("hours", spec);
      const days = parseDays(spec, false);
      if (!days.ok) {
        report(problems, keySite, days.error, "key");
        continue;
      }
      const slots = readSlots(ctx.parsed, [...ctx.base, "hours", spec], slotsValue, problems, {
        allowed: true,
      });
      const again = new Map<string, Weekday[]>();
      for (const day of days.value as Weekday[]) {
        const first = namedBy.get(day);
        if (first !== undefined) again.set(first, [...(again.get(first) ?? []), day]);
        else {
          namedBy.set(day, spec);
          hours[day] = { slots, site: keySite };
        }
      }
      for (const [first, repeated] of again)
        report(
          problems,
          keySite,
          `${quote(spec)} names ${repeated.join(", ")} again, already given by ${quote(first)} at ${where(ctx.at("hours", first))}: each day may be named by one key only`,
          "key",
        );
    }
    // Overlaps within this layer; inherited combinations are checked again once merged.
    hoursOf(hours, problems);
    return hours;
  },
  merge: (lower, upper) => ({ ...lower, ...upper }),
  resolve(merged, into, problems) {
    hoursState.set(into, hoursOf(merged, problems));
  },
};

/** The slot ids of each weekday as read, by day. */
type HoursIds = Partial<Record<Weekday, IdSlot[]>>;

/**
 * The week as the files write it: days with the same slots share a key (`mon-fri`, `sat,sun`, `daily`);
 * every day is written, closed days as `[]`, so that nothing is inherited by accident; a slot past
 * midnight is written once, on the day it starts (`fri,sat: ["11:00-01:00"]`), and the end of a day as
 * `24:00`.
 */
export function hoursText(hours: Record<string, Slot[]>): Record<string, string[]> {
  const groups = new Map<string, string[]>();
  const written = weekSlotsText(hours);
  for (const day of WEEKDAYS) {
    const key = JSON.stringify(written[day] ?? []);
    groups.set(key, [...(groups.get(key) ?? []), day]);
  }
  const out: Record<string, string[]> = {};
  for (const [slots, days] of groups) out[daysText(days)] = JSON.parse(slots) as string[];
  return out;
}

/** The import part of regular hours: `hours:` of each store file, from the store's own state. */
const hoursPart: KindImportPart = {
  store: {
    name: "hours",
    sections: (state) => {
      const hours = hoursState.get(state);
      return hours ? { hours: hoursText(hours) } : undefined;
    },
  },
};

/** Where a store's hours come in its changes: after the utils schedules, before the holidays. */
const HOURS_ORDER = 7;

/**
 * The hours of a store as one change: one line per run of consecutive weekdays with the same change,
 * in weekday order (`mon-thu: closed → 11:00-22:00`).
 */
const view: KindView = {
  store(changes) {
    const byDay = new Map(changes.map((c) => [c.key, c]));
    const details: Detail[] = [];
    let run: { first: string; last: string; before: string; after: string } | undefined;
    const flush = () => {
      if (!run) return;
      const days = run.first === run.last ? run.first : `${run.first}-${run.last}`;
      details.push({ label: days, before: run.before, after: run.after });
      run = undefined;
    };
    for (const day of WEEKDAYS) {
      const ch = byDay.get(day);
      if (!ch) {
        flush();
        continue;
      }
      const before = ch.before === null ? "(not managed)" : slotsText(fieldOf(ch.before, "slots"));
      const after = ch.after === null ? "(not managed)" : slotsText(fieldOf(ch.after, "slots"));
      if (run && run.before === before && run.after === after) run.last = day;
      else {
        flush();
        run = { first: day, last: day, before, after };
      }
    }
    flush();
    // Days the model does not know (none today) keep their own line.
    for (const ch of changes)
      if (!WEEKDAYS.includes(ch.key as never))
        details.push({
          label: ch.key,
          before: slotsText(fieldOf(ch.before, "slots")),
          after: slotsText(fieldOf(ch.after, "slots")),
        });
    return { order: HOURS_ORDER, sort: "", view: { action: "update", head: "hours", details } };
  },
};

/** The store hours kind. */
export const storeHours: ResourceKind<DayHours, "store_hours"> = {
  name: "store_hours",
  summary: "regular opening hours of a store, one resource per weekday",
  reads: [hoursRead],
  endpoints: [...SLOT_ENDPOINTS, create],
  nouns: { store_hours: ["day of hours", "days of hours"] },
  view,
  state: hoursState,
  importPart: hoursPart,
  config: hoursSection as ConfigSection<unknown>,
  defaultOwnership: "full",
  manages: (state) => hoursState.get(state) !== undefined,
  select(state) {
    const hours = hoursState.get(state);
    if (hours === undefined) return undefined;
    return Object.fromEntries(WEEKDAYS.map((day) => [day, { day, slots: plainSlots(hours[day] ?? []) }]));
  },
  segment: () => "store_hours",
  duplicates: (state) => duplicateSlotKeys(hoursState.get(state)),
  read(snapshot, into, ids) {
    const wire = partOf(snapshot, hoursRead)!;
    const byDay: HoursIds = {};
    for (const d of wire.storeScheduleDays ?? []) {
      if (!(WEEKDAYS as readonly string[]).includes(d.day)) continue;
      byDay[d.day] = sortSlots([...(byDay[d.day] ?? []), ...(d.storeSchedules ?? []).map(fromWireSlot)]);
    }
    hoursState.set(
      into,
      Object.fromEntries(WEEKDAYS.map((day) => [day, plainSlots(byDay[day] ?? [])])) as Record<
        Weekday,
        Slot[]
      >,
    );
    ids.other.store_hours = byDay;
  },
  writes(_action, key, _before, after, ctx) {
    const day = key as Weekday;
    const old = (ctx.ids.other.store_hours as HoursIds | undefined)?.[day] ?? [];
    return dayWrites(day, old, after?.slots ?? []);
  },
};

/** Writes for one day: deletes and updates by id, then one `POST` per new slot. */
function dayWrites(day: Weekday, old: IdSlot[], next: Slot[]): Write[] {
  const m = matchSlots(old, next);
  const creates = m.creates.map((s): Write => ({
    endpoint: "store_hours.create",
    element: {
      day,
      starts_time: toUtilsTime(s.start),
      ends_time: toUtilsTime(s.end),
    } satisfies RegularSlotBody,
  }));
  return [...slotDeletesAndUpdates(m), ...creates];
}
