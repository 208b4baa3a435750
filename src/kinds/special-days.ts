/**
 * Special days of a store (a name, a date and its slots; an empty slot list: closed that day): one
 * resource per date, keyed `MM-DD`, `store[KEY].special_day[12-24]`, value {@link SpecialDay} (slots
 * sorted, `HH:MM`). Managed where the files give `specialDays`; default ownership `full`.
 *
 * Wire (docs/platform-api.md §4.7, §2.5):
 * - read: `GET /api/rest-ops-utils/store/schedule/{storeId}/special` → `{storeSpecialScheduleDays: [{id,
 *   name, month, day, cityId, storeSchedules: [{id, startsTime, endsTime}]}]}`;
 * - create: `POST /store/schedule/{storeId}/special` `{day, month, name, schedules: [{startsTime,
 *   endsTime}]}` (one call with every slot);
 * - delete: `DELETE /store/schedule/{storeId}/special/{specialDayId}` (the day and its slots);
 * - add slots: `POST /store/schedule/{storeId}/special/{specialDayId}` with an array of slots (one call
 *   per day for all its new slots);
 * - change or remove a slot: `PUT` / `DELETE /store/schedule/{storeId}/{storeScheduleId}`.
 *
 * A change of name: the API has no call that renames a special day, so the smallest correct sequence is
 * two calls: delete the day (stage 11), then create it with the new name and all its slots (stage 16).
 * Deleting first matters: the platform refuses a second special day on the same date (the emulator
 * answers 409). A change of slots only is matched slot by slot (src/kinds/slots.ts): stages 10
 * (deletes), 12–13 (updates), 17 (new slots). Ids kept in `ids.other.special_day[MM-DD]`.
 */

import { specialDaysState, type SpecialDay } from "./store-schedule.js";
import type { SpecialDays } from "../generated/platform.js";
import { getSpecialDays } from "../platform/utils-calls.js";
import type { ConfigProblem } from "../errors.js";
import { report, where, type Site } from "../source/problems.js";
import { monthDayKey, parseMonthDay } from "../time/days-and-slots.js";
import { quote } from "../source/quote.js";
import { parseCalendarDate } from "../calendar.js";
import { dayWindow, type StoreClock } from "../time/clock.js";
import type { KindImportPart } from "./import-types.js";
import { daySlotText } from "./import-schedules.js";
import { byCodePoint } from "./import-values.js";
import {
  HOLIDAY_OVERNIGHT,
  checkOverlaps,
  checkSlotCount,
  datePieces,
  readSlots,
  sortedSlots,
  type DayEntry,
} from "../time/written-slots.js";
import { fromSlotBody, slotBody, type SlotBody } from "./holidays.js";
import {
  SLOT_ENDPOINTS,
  dateKey,
  duplicateSlotKeys,
  fromWireSlot,
  matchSlots,
  plainSlots,
  slotDeletesAndUpdates,
  slotsShown,
  sortSlots,
  type IdSlot,
} from "./slots.js";
import {
  effectOf,
  partOf,
  perStoreRead,
  type ConfigSection,
  type EndpointSpec,
  type ReadState,
  type ResourceKind,
  type SectionContext,
  type Write,
} from "./resource-kind.js";
import { sortedRecord } from "../plain-data.js";
import { fieldOf, type ChangeView } from "../show/view-model.js";
import { attributeDetails, plain, slotsText } from "../show/words.js";
import type { KindView } from "./show.js";

/** Body of `POST /store/schedule/{storeId}/special` (docs/platform-api.md §4.6). */
export interface SpecialDayBody {
  day: number;
  month: number;
  name: string;
  schedules: SlotBody[];
}

/** A special day as read: its id and its slots with their ids. */
interface SpecialIds {
  id: number;
  slots: IdSlot[];
}

/** The special day with a platform id, as read. */
function dayById(state: ReadState, id: number): SpecialIds | undefined {
  return Object.values((state.ids.other.special_day ?? {}) as Record<string, SpecialIds>).find(
    (d) => d.id === id,
  );
}

/** `GET /store/schedule/{storeId}/special` of each store (docs/platform-api.md §2.5). */
const specialRead = perStoreRead<SpecialDays>("special", (client, s) => getSpecialDays(client, s.storeId));

/** `DELETE /store/schedule/{storeId}/special/{specialDayId}` (docs/platform-api.md §2.5). */
const dayDelete: EndpointSpec = {
  chain: "store_schedule",
  synchronous: true,
  name: "special_day.delete",
  stage: 11,
  route: "DELETE /api/rest-ops-utils/store/schedule/{storeId}/special/{specialDayId}",
  scope: "store",
  body: () => undefined,
  maxElements: 1,
  idempotent: () => true,
  effect: (_body, params, state) => (dayById(state, Number(params.specialDayId)) ? "absent" : "present"),
};
/** `POST /store/schedule/{storeId}/special` (docs/platform-api.md §2.5): a special day with its slots. */
const dayCreate: EndpointSpec = {
  chain: "store_schedule",
  synchronous: true,
  name: "special_day.create",
  stage: 16,
  route: "POST /api/rest-ops-utils/store/schedule/{storeId}/special",
  scope: "store",
  body: (elements) => elements[0],
  maxElements: 1,
  // Repeated after a lost answer, the second create is refused (one special day per date).
  idempotent: () => false,
  // Its effect: a special day of that date and name (the plan creates one only where the date has none,
  // or after deleting the day of another name).
  effect(body, _params, state) {
    const b = body as SpecialDayBody;
    const made = Object.values(specialDaysState.get(state) ?? {}).some(
      (d) => d.month === b.month && d.day === b.day && d.name === b.name,
    );
    return made ? "present" : "absent";
  },
};
/**
 * `POST /store/schedule/{storeId}/special/{specialDayId}` (docs/platform-api.md §2.5): new slots of a special
 * day.
 */
const slotsCreate: EndpointSpec = {
  chain: "store_schedule",
  synchronous: true,
  name: "special_day.slots.create",
  stage: 17,
  route: "POST /api/rest-ops-utils/store/schedule/{storeId}/special/{specialDayId}",
  scope: "store",
  body: (elements) => elements,
  idempotent: () => false,
  effect(body, params, state) {
    const wanted = (body as SlotBody[]).map(fromSlotBody);
    return effectOf(
      slotsShown(dayById(state, Number(params.specialDayId))?.slots ?? [], wanted),
      wanted.length,
    );
  },
};

function canonical(d: SpecialDay): SpecialDay {
  return { name: d.name, month: d.month, day: d.day, slots: plainSlots(d.slots) };
}

function createWrite(d: SpecialDay): Write {
  const element: SpecialDayBody = {
    day: d.day,
    month: d.month,
    name: d.name,
    schedules: d.slots.map(slotBody),
  };
  return { endpoint: "special_day.create", element };
}

/** One special day as a layer writes it; `year` and `written` for a date of one year (`2026-12-24`). */
type SpecialEntry = DayEntry & {
  name: string;
  month: number;
  day: number;
  site: Site;
  year?: number;
  written?: string;
  /** For a date of one year: what the lower layers write on the same `MM-DD`, used once it is not applied. */
  below?: SpecialEntry;
};

/** The special days one layer writes, by `MM-DD`. */
type SpecialLayer = Record<string, SpecialEntry>;

/** The text of a special day's date the files accept, in words, for messages. */
const DATE_FORMS =
  'write month and day, "12-24" (every year, in quotes), or a full date, 2026-12-24 (that year only)';

/**
 * `special_days:` of a settings layer: a list of `{name, date: MM-DD, slots}`, each date once; slots stay
 * within their date. Merged date by date. A full date (`2026-12-24`, one year only) is judged per store,
 * at its local midnight in the store's time zone (src/time/clock.ts `dayWindow`): kept as its `MM-DD`
 * once the same day of the year before has ended (the platform repeats special days every year), left
 * out when it is further ahead, and left out with a warning once it is over: the plan then removes it
 * from the platform. Left out, it lets what the lower layers write on that `MM-DD` apply.
 */
const specialDaysSection: ConfigSection<SpecialLayer> = {
  key: "special_days",
  read(value: unknown, ctx: SectionContext, problems: ConfigProblem[]) {
    if (!Array.isArray(value)) return undefined;
    const out: SpecialLayer = {};
    value.forEach((entry: unknown, i) => {
      if (typeof entry !== "object" || entry === null) return;
      const e = entry as { date?: unknown; name?: unknown; slots?: unknown };
      if (typeof e.date !== "string" || typeof e.name !== "string") return;
      const site = ctx.at("special_days", i, "date");
      let text = e.date;
      let year: number | undefined;
      if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text)) {
        // A day of one year: judged per store, in its time zone (resolve).
        const full = parseCalendarDate(text);
        if (!full) return report(problems, site, `special day ${quote(text)} is not a date: ${DATE_FORMS}`);
        year = full.year;
        text = text.slice(5);
      }
      if (!/^[0-9]{2}-[0-9]{2}$/.test(text))
        return report(problems, site, `special day date ${quote(e.date)} is not a date: ${DATE_FORMS}`);
      const parsedDate = parseMonthDay(text);
      if (!parsedDate.ok) return report(problems, site, `special day ${parsedDate.error}`);
      const key = monthDayKey(parsedDate.value.month, parsedDate.value.day);
      const first = out[key];
      if (first)
        return report(
          problems,
          site,
          `special day ${key} is already written at ${where(first.site)}: each date appears once`,
        );
      const slots = readSlots(
        ctx.parsed,
        [...ctx.base, "special_days", i, "slots"],
        e.slots,
        problems,
        HOLIDAY_OVERNIGHT,
      );
      checkOverlaps(datePieces(slots), problems);
      checkSlotCount(slots.length, `special day ${key}`, ctx.at("special_days", i, "slots"), problems);
      out[key] = {
        name: e.name,
        ...parsedDate.value,
        slots,
        site,
        ...(year !== undefined ? { year, written: e.date } : {}),
      };
    });
    return out;
  },
  merge: (lower, upper) => {
    const out = { ...lower };
    for (const [key, entry] of Object.entries(upper))
      out[key] = entry.year !== undefined && lower[key] ? { ...entry, below: lower[key] } : entry;
    return out;
  },
  resolve(merged, into, _problems, clock) {
    const days: [string, SpecialDay][] = [];
    for (const [key, written] of Object.entries(merged)) {
      const d = clock ? applied(written, clock) : written.year === undefined ? written : undefined;
      if (d)
        days.push([
          key,
          {
            name: d.name,
            month: d.month,
            day: d.day,
            slots: sortedSlots(datePieces(d.slots)),
            ...(d.year === undefined ? {} : { year: d.year }),
          },
        ]);
    }
    specialDaysState.set(into, sortedRecord(Object.fromEntries(days)));
  },
};

/**
 * The special day a store applies on one `MM-DD`: a day of every year as written; a day of one year
 * when near enough and not over in the store's time zone (else what the lower layers write there).
 */
function applied(d: SpecialEntry, clock: StoreClock): SpecialEntry | undefined {
  if (d.year === undefined) return d;
  const window = dayWindow({ year: d.year, month: d.month, day: d.day }, d.written!, d.site, clock);
  if (window?.over)
    clock.time.warn(
      d.site,
      `special day ${quote(d.name)} of ${d.written!} has passed: it is ignored, and removed from the platform ` +
        "where it is still there; remove it from the file",
    );
  if (window && !window.over && window.near) return d;
  return d.below && applied(d.below, clock);
}

const pad = (n: number) => String(n).padStart(2, "0");

/** The import part of special days: `special_days:` of each store file, in date order. */
const specialDaysPart: KindImportPart = {
  store: {
    name: "special_days",
    sections(state) {
      const days = Object.values(specialDaysState.get(state) ?? {});
      if (days.length === 0) return undefined;
      const list = days
        .map((d) => ({
          name: d.name,
          // A day the project read dates fully keeps its year (src/import/years.ts); the platform has none.
          date: `${d.year === undefined ? "" : `${d.year}-`}${pad(d.month)}-${pad(d.day)}`,
          slots: d.slots.map(daySlotText),
        }))
        .sort((a, b) => byCodePoint(a.date, b.date));
      return { special_days: list };
    },
  },
};

/** Where special days come in a store's changes: after the holidays. */
const SPECIAL_DAYS_ORDER = 9;

/** The view of a change of a special day: its name and hours. */
const view: KindView = {
  change(ch) {
    const name = fieldOf(ch.after ?? ch.before, "name");
    const view: ChangeView = {
      action: ch.action,
      details: [],
      // A day the files date fully keeps its year (`2026-12-24`); a day of every year is `12-24`.
      head: `special day ${typeof ch.label === "string" ? ch.label : ch.key}`,
      ...(typeof name === "string" && name !== "" ? { title: name } : {}),
    };
    if (ch.action === "create") view.summary = slotsText(fieldOf(ch.after, "slots"));
    else if (ch.action === "update") {
      for (const d of ch.diff) {
        if (d.attribute === "slots")
          view.details.push({ label: "hours", before: slotsText(d.before), after: slotsText(d.after) });
        else if (d.attribute === "name")
          view.details.push({ label: "name", before: plain(d.before), after: plain(d.after) });
        else if (d.attribute !== "month" && d.attribute !== "day")
          view.details.push(...attributeDetails(d.attribute, d.before, d.after, false));
      }
    }
    return [{ order: SPECIAL_DAYS_ORDER, sort: ch.key, view }];
  },
};

/** The special days kind. */
export const specialDays: ResourceKind<SpecialDay, "special_day"> = {
  name: "special_day",
  summary: "special days of a store (a name, a date MM-DD and its slots)",
  reads: [specialRead],
  endpoints: [...SLOT_ENDPOINTS, dayDelete, dayCreate, slotsCreate],
  nouns: { special_day: ["special day", "special days"] },
  view,
  state: specialDaysState,
  importPart: specialDaysPart,
  config: specialDaysSection as ConfigSection<unknown>,
  defaultOwnership: "full",
  manages: (state) => specialDaysState.get(state) !== undefined,
  select(state) {
    const days = specialDaysState.get(state);
    if (days === undefined) return undefined;
    // Keyed by the date itself, as the platform's days are read, whatever key the files used; a second
    // day of a date on the platform keeps its key `MM-DD#id` (a duplicate, deleted by the plan).
    const out: Record<string, SpecialDay> = {};
    for (const [key, d] of Object.entries(days)) {
      out[key.includes("#") ? key : dateKey(d.month, d.day)] = canonical(d);
    }
    return Object.fromEntries(
      Object.keys(out)
        .sort()
        .map((k) => [k, out[k]!]),
    );
  },
  segment: () => "special_day",
  // A day the files date fully is shown with its year (`2026-12-24`), though keyed and compared `12-24`.
  label(state, key) {
    const year = Object.hasOwn(specialDaysState.get(state) ?? {}, key)
      ? specialDaysState.get(state)![key]!.year
      : undefined;
    return year === undefined ? undefined : `${year}-${key}`;
  },
  duplicates(state) {
    const days = specialDaysState.get(state) ?? {};
    return {
      ...duplicateSlotKeys(Object.fromEntries(Object.entries(days).map(([k, d]) => [k, d.slots]))),
      ...Object.fromEntries(
        Object.entries(days)
          .filter(([key]) => key.includes("#"))
          .map(([key, d]) => [key, dateKey(d.month, d.day)]),
      ),
    };
  },
  read(snapshot, into, ids) {
    const wire = partOf(snapshot, specialRead)!;
    const days: Record<string, SpecialDay> = {};
    const byDate: Record<string, SpecialIds> = {};
    const list = [...(wire.storeSpecialScheduleDays ?? [])].sort((a, b) => a.id - b.id);
    for (const d of list) {
      // The platform keeps one special day per date; a second one (the higher id) is a duplicate.
      const key = byDate[dateKey(d.month, d.day)]
        ? `${dateKey(d.month, d.day)}#${d.id}`
        : dateKey(d.month, d.day);
      const slots = sortSlots((d.storeSchedules ?? []).map(fromWireSlot));
      days[key] = { name: d.name, month: d.month, day: d.day, slots: plainSlots(slots) };
      byDate[key] = { id: d.id, slots };
    }
    specialDaysState.set(into, days);
    ids.other.special_day = byDate;
  },
  writes(action, key, before, after, ctx) {
    const known = (ctx.ids.other.special_day ?? {}) as Record<string, SpecialIds>;
    const have = known[key];
    const remove = (): Write[] =>
      have ? [{ endpoint: "special_day.delete", element: have.id, params: { specialDayId: have.id } }] : [];
    if (action === "delete") return remove();
    if (action === "create" || !have || !before) return [createWrite(after!)];
    if (before.name !== after!.name || before.month !== after!.month || before.day !== after!.day) {
      // No call renames a special day: delete it, then create it anew (2 calls).
      return [...remove(), createWrite(after!)];
    }
    const m = matchSlots(have.slots, after!.slots);
    return [
      ...slotDeletesAndUpdates(m),
      ...m.creates.map((s) => ({
        endpoint: "special_day.slots.create",
        element: slotBody(s),
        params: { specialDayId: have.id },
      })),
    ];
  },
};
