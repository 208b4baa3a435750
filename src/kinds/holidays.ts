/**
 * Slots of the platform's holiday days: one resource per holiday with slots, keyed `MM-DD`,
 * `store[KEY].holiday[12-25]`, value `{date, slots}` (slots sorted, `HH:MM`). Managed where the files
 * give `holidays`; default ownership `full`.
 *
 * Wire (docs/platform-api.md §4.7, §2.5):
 * - read: `GET /api/rest-ops-utils/store/schedule/{storeId}/holiday` → `{storeSpecialScheduleDays: [{id,
 *   name, month, day, cityId, storeSchedules: [{id, startsTime, endsTime}]}]}`;
 * - add slots: `POST /store/schedule/{storeId}/holiday/{holidayDayId}` with an array of slots
 *   `[{startsTime, endsTime}]` (one call per holiday for all its new slots);
 * - change or remove a slot: `PUT` / `DELETE /store/schedule/{storeId}/{storeScheduleId}`.
 *
 * The platform provides the holiday days; the API cannot create one (docs/platform-api.md §2.5 has no such
 * call). So:
 * - a holiday with no slot is not a resource: `12-25: []` and leaving 12-25 out both mean "no slots on
 *   that holiday" (under `full` ownership slots of an unlisted holiday are deleted; under `additive`
 *   carte never removes any);
 * - a configured `MM-DD` that is not a holiday of the store on the platform stops planning with a
 *   {@link PlanningError} naming the store and the date (write such dates as special days).
 *
 * Minimal calls as for regular hours (src/kinds/slots.ts); ids kept in `ids.other.holiday[MM-DD]`.
 * Stages: 10 (slot deletes), 12–13 (updates), 15 (new slots).
 */

import { PlanningError } from "../errors.js";
import type { Slot } from "../model.js";
import { holidaysState } from "./store-schedule.js";
import type { SpecialDays } from "../generated/platform.js";
import { getHolidays } from "../platform/utils-calls.js";
import type { ConfigProblem } from "../errors.js";
import { report } from "../source/problems.js";
import { parseMonthDay } from "../time/days-and-slots.js";
import type { KindImportPart } from "./import-types.js";
import { daySlotText } from "./import-schedules.js";
import { sortedKeys } from "./import-values.js";
import {
  HOLIDAY_OVERNIGHT,
  checkOverlaps,
  checkSlotCount,
  datePieces,
  readSlots,
  sortedSlots,
  type DayEntry,
} from "../time/written-slots.js";
import {
  SLOT_ENDPOINTS,
  dateKey,
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
} from "./resource-kind.js";
import { address, sortedRecord } from "../plain-data.js";
import { fieldOf, type ChangeView } from "../show/view-model.js";
import { slotsText } from "../show/words.js";
import type { KindView } from "./show.js";

/** The slots of one holiday. */
export interface HolidayHours {
  /** `MM-DD`. */
  date: string;
  slots: Slot[];
}

/** A platform holiday day as read: its id and its slots with their ids. */
interface HolidayIds {
  dayId: number;
  name: string;
  slots: IdSlot[];
}

/**
 * A slot as sent to `POST .../holiday/{holidayDayId}` and `POST .../special[/{id}]`
 * (docs/platform-api.md §4.7).
 */
export interface SlotBody {
  startsTime: string;
  endsTime: string;
}

/** A slot in the body form of the holiday and special day calls. */
export function slotBody(s: Slot): SlotBody {
  return { startsTime: toUtilsTime(s.start), endsTime: toUtilsTime(s.end) };
}

/** A slot of the body form of the holiday and special day calls in carte's form. */
export function fromSlotBody(b: SlotBody): Slot {
  return { start: fromUtilsTime(b.startsTime), end: fromUtilsTime(b.endsTime) };
}

/** `GET /store/schedule/{storeId}/holiday` of each store (docs/platform-api.md §2.5). */
const holidaysRead = perStoreRead<SpecialDays>("holidays", (client, s) => getHolidays(client, s.storeId));

/**
 * `POST /store/schedule/{storeId}/holiday/{holidayDayId}` (docs/platform-api.md §2.5): a holiday's new slots.
 */
const slotsCreate: EndpointSpec = {
  chain: "store_schedule",
  synchronous: true,
  name: "holiday.slots.create",
  stage: 15,
  route: "POST /api/rest-ops-utils/store/schedule/{storeId}/holiday/{holidayDayId}",
  scope: "store",
  body: (elements) => elements,
  idempotent: () => false,
  effect(body, params, state) {
    const wanted = (body as SlotBody[]).map(fromSlotBody);
    const day = Object.values((state.ids.other.holiday ?? {}) as Record<string, HolidayIds>).find(
      (d) => d.dayId === Number(params.holidayDayId),
    );
    return effectOf(slotsShown(day?.slots ?? [], wanted), wanted.length);
  },
};

/**
 * `holidays:` of a settings layer: `MM-DD` → slots (`[]`: closed that holiday); slots stay within their
 * date. Merged date by date.
 */
const holidaysSection: ConfigSection<Record<string, DayEntry>> = {
  key: "holidays",
  read(value: unknown, ctx: SectionContext, problems: ConfigProblem[]) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    const out: Record<string, DayEntry> = {};
    for (const [date, slotsValue] of Object.entries(value)) {
      const site = ctx.at("holidays", date);
      const parsedDate = parseMonthDay(date);
      if (!parsedDate.ok) {
        report(problems, site, `holiday ${parsedDate.error}`, "key");
        continue;
      }
      const slots = readSlots(
        ctx.parsed,
        [...ctx.base, "holidays", date],
        slotsValue,
        problems,
        HOLIDAY_OVERNIGHT,
      );
      checkOverlaps(datePieces(slots), problems);
      checkSlotCount(slots.length, `holiday ${date}`, site, problems);
      out[date] = { slots, site };
    }
    return out;
  },
  merge: (lower, upper) => ({ ...lower, ...upper }),
  resolve(merged, into) {
    holidaysState.set(
      into,
      sortedRecord(
        Object.fromEntries(
          Object.entries(merged).map(([date, entry]) => [date, sortedSlots(datePieces(entry.slots))]),
        ),
      ),
    );
  },
};

/** The import part of holiday hours: `holidays:` of each store file, the holidays that have slots. */
const holidaysPart: KindImportPart = {
  store: {
    name: "holidays",
    sections(state) {
      const hours = holidaysState.get(state);
      if (!hours) return undefined;
      const out: Record<string, string[]> = {};
      for (const date of sortedKeys(hours)) {
        const slots = hours[date] ?? [];
        if (slots.length > 0) out[date] = slots.map(daySlotText);
      }
      return Object.keys(out).length > 0 ? { holidays: out } : undefined;
    },
  },
};

/** Where holidays come in a store's changes: after the hours. */
const HOLIDAYS_ORDER = 8;

/**
 * The view of a change of a holiday's hours. A holiday with no slot is not a resource: the store is
 * closed that day, so deleting one says `closed on 12-25`.
 */
const view: KindView = {
  change(ch) {
    const before = fieldOf(ch.before, "slots");
    const after = fieldOf(ch.after, "slots");
    const base = { action: ch.action, details: [] };
    const view: ChangeView =
      ch.action === "delete"
        ? { ...base, head: `closed on ${ch.key}`, summary: `was open ${slotsText(before)}` }
        : ch.action === "create"
          ? { ...base, head: `open again on ${ch.key}`, summary: slotsText(after) }
          : { ...base, head: `hours on ${ch.key}`, summary: `${slotsText(before)} → ${slotsText(after)}` };
    return [{ order: HOLIDAYS_ORDER, sort: ch.key, view }];
  },
};

/** The holidays kind. */
export const holidays: ResourceKind<HolidayHours, "holiday"> = {
  name: "holiday",
  summary: "slots of the platform's holiday days of a store, by date MM-DD",
  reads: [holidaysRead],
  endpoints: [...SLOT_ENDPOINTS, slotsCreate],
  nouns: { holiday: ["holiday", "holidays"] },
  view,
  state: holidaysState,
  importPart: holidaysPart,
  config: holidaysSection as ConfigSection<unknown>,
  defaultOwnership: "full",
  manages: (state) => holidaysState.get(state) !== undefined,
  select(state) {
    const hours = holidaysState.get(state);
    if (hours === undefined) return undefined;
    const out: Record<string, HolidayHours> = {};
    for (const [key, list] of Object.entries(hours)) {
      // `MM-DD`, zero-padded as the platform's dates are read (`1-1` → `01-01`).
      const m = /^(\d{1,2})-(\d{1,2})$/.exec(key);
      const date = m ? dateKey(Number(m[1]), Number(m[2])) : key;
      const slots = plainSlots(list ?? []);
      if (slots.length > 0) out[date] = { date, slots };
    }
    return Object.fromEntries(
      Object.keys(out)
        .sort()
        .map((k) => [k, out[k]!]),
    );
  },
  segment: () => "holiday",
  duplicates: (state) => duplicateSlotKeys(holidaysState.get(state)),
  read(snapshot, into, ids) {
    const wire = partOf(snapshot, holidaysRead)!;
    const byDate: Record<string, HolidayIds> = {};
    const hours: Record<string, Slot[]> = {};
    for (const d of wire.storeSpecialScheduleDays ?? []) {
      const date = dateKey(d.month, d.day);
      if (byDate[date]) continue; // one holiday per date; the platform lists none twice
      const slots = sortSlots((d.storeSchedules ?? []).map(fromWireSlot));
      byDate[date] = { dayId: d.id, name: d.name, slots };
      hours[date] = plainSlots(slots);
    }
    holidaysState.set(into, hours);
    ids.other.holiday = byDate;
  },
  writes(_action, key, _before, after, ctx) {
    const known = (ctx.ids.other.holiday ?? {}) as Record<string, HolidayIds>;
    const day = known[key];
    if (!day) {
      const list = Object.keys(known).sort().join(", ") || "none";
      throw new PlanningError(
        address(ctx.desired.store.key, "holiday", key),
        `${key} is not a holiday of this store on the platform (its holidays: ${list}); ` +
          `slots can only be set on the platform's holidays: write other dates as special days`,
      );
    }
    const m = matchSlots(day.slots, after?.slots ?? []);
    return [
      ...slotDeletesAndUpdates(m),
      ...m.creates.map((s) => ({
        endpoint: "holiday.slots.create",
        element: slotBody(s),
        params: { holidayDayId: day.dayId },
      })),
    ];
  },
};
