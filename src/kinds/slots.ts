/**
 * What the store-setting kinds share: time conversion between carte's `HH:MM` and the utils group's
 * `HH:mm:ss` (docs/platform-api.md §4.6, §4.7), canonical slot order, the matching of old and new slots that
 * turns an edit into ONE update by id rather than a delete and a create (the fewest calls), and the per-slot
 * endpoints of `/store/schedule/{storeId}/{storeScheduleId}` used by regular hours, holidays and special days
 * alike (docs/platform-api.md §2.5: any slot is updated and deleted by its id).
 *
 * Stages of the store settings (src/plan/endpoints.ts orders every call by stage; menus use 1–7):
 *
 * | stage | endpoint                      | call                                                          |
 * | ----- | ----------------------------- | ------------------------------------------------------------- |
 * | 10    | `utils.slot.delete`           | `DELETE /store/schedule/{storeId}/{slotId}`                    |
 * | 11    | `special_day.delete`          | `DELETE /store/schedule/{storeId}/special/{specialDayId}`      |
 * | 12    | `utils.slot.shrink`           | `PUT /store/schedule/{storeId}/{slotId}`, new range ⊆ old      |
 * | 13    | `utils.slot.update`           | `PUT /store/schedule/{storeId}/{slotId}`, any other update     |
 * | 14    | `store_hours.create`          | `POST /store/schedule/{storeId}` (one slot per call)           |
 * | 15    | `holiday.slots.create`        | `POST /store/schedule/{storeId}/holiday/{holidayDayId}` (array)|
 * | 16    | `special_day.create`          | `POST /store/schedule/{storeId}/special`                       |
 * | 17    | `special_day.slots.create`    | `POST /store/schedule/{storeId}/special/{specialDayId}` (array)|
 * | 20–22 | `corridor_schedule.*`         | delete, update (one PUT per corridor), create (one POST)       |
 * | 23–25 | `product_schedule.*`          | delete, update (one PUT per product), create (one POST)        |
 * | 50    | `store_availability.enable`   | `PUT /availability/stores/enable`, ≤ 300 stores per call        |
 *
 * Deletes come first and updates that only free time (the new range inside the old one) come before
 * the other updates, and every create comes last, so that the platform never holds two overlapping
 * slots of one day while the plan runs, whatever rule it may have against overlaps
 * (docs/platform-api.md §4.11 publishes none). Updates of one stage run concurrently, so two slots that swap
 * places could still cross for a moment; the emulator, like the published spec, allows overlaps.
 */

import type { Slot } from "../model.js";
import {
  effectOf,
  type EndpointParams,
  type EndpointSpec,
  type ReadState,
  type Write,
} from "./resource-kind.js";

/** A slot as it exists on the platform, with its id (`storeScheduleId`). */
export interface IdSlot extends Slot {
  id: number;
}

/**
 * `HH:MM` → `HH:MM:00` (the utils group's `HH:mm:ss`, docs/platform-api.md §4.6, §4.7); `HH:MM:SS` is kept.
 */
export function toUtilsTime(t: string): string {
  return t.length === 5 ? `${t}:00` : t;
}

/**
 * `HH:mm:ss` → carte's canonical `HH:MM` when the seconds are `00`. A time with other seconds keeps
 * them, so that it differs from every configured time and the plan rewrites it.
 */
export function fromUtilsTime(t: string): string {
  return /^\d\d:\d\d:00$/.test(t) ? t.slice(0, 5) : t;
}

/** Slots in canonical order: by start, then end. */
export function sortSlots<T extends Slot>(slots: readonly T[]): T[] {
  return [...slots].sort((a, b) => a.start.localeCompare(b.start) || a.end.localeCompare(b.end));
}

/** Whether a list of slots holds two equal ones (a duplicate on the platform). */
export function hasEqualSlots(slots: readonly Slot[]): boolean {
  const seen = new Set<string>();
  for (const s of slots) {
    const k = `${s.start}-${s.end}`;
    if (seen.has(k)) return true;
    seen.add(k);
  }
  return false;
}

/**
 * The keys of a kind's resources whose slot lists hold two equal slots, each mapped to itself (see
 * `ResourceKind.duplicates`): the plan's update of that resource deletes the extra slot by id.
 */
export function duplicateSlotKeys(
  byKey: Readonly<Record<string, readonly Slot[]>> | undefined,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(byKey ?? {})
      .filter(([, slots]) => hasEqualSlots(slots))
      .map(([k]) => [k, k]),
  );
}

/**
 * The slot with a platform id among the slots a read found, whatever kind keeps it: regular hours
 * (`ids.other.store_hours[day]`), holidays and special days (`ids.other.holiday|special_day[date].slots`).
 */
export function slotById(state: ReadState, id: number): IdSlot | undefined {
  const o = state.ids.other;
  const lists: (readonly IdSlot[])[] = [
    ...Object.values((o.store_hours ?? {}) as Record<string, IdSlot[]>),
    ...Object.values((o.holiday ?? {}) as Record<string, { slots: IdSlot[] }>).map((d) => d.slots),
    ...Object.values((o.special_day ?? {}) as Record<string, { slots: IdSlot[] }>).map((d) => d.slots),
  ];
  for (const list of lists) {
    const found = list.find((s) => s.id === id);
    if (found) return found;
  }
  return undefined;
}

/**
 * How many of `wanted` a day's slots show, each slot counted once (a created slot never equals one the
 * day kept: equal slots are kept, not created, src/kinds/slots.ts `matchSlots`).
 */
export function slotsShown(have: readonly Slot[], wanted: readonly Slot[]): number {
  const free = [...have];
  let shown = 0;
  for (const w of wanted) {
    const i = free.findIndex((s) => s.start === w.start && s.end === w.end);
    if (i >= 0) {
      free.splice(i, 1);
      shown++;
    }
  }
  return shown;
}

/** A canonical slot list without ids. */
export function plainSlots(slots: readonly Slot[]): Slot[] {
  return sortSlots(slots).map((s) => ({ start: s.start, end: s.end }));
}

/**
 * A slot of the platform's answers (`{id, startsTime, endsTime}`, docs/platform-api.md §4.7) in carte's form.
 */
export function fromWireSlot(s: { id: number; startsTime: string; endsTime: string }): IdSlot {
  return { id: s.id, start: fromUtilsTime(s.startsTime), end: fromUtilsTime(s.endsTime) };
}

/** `MM-DD` key of a month and a day of the month. */
export function dateKey(month: number, day: number): string {
  return `${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

function minutes(t: string): number {
  const [h, m] = t.split(":");
  return Number(h) * 60 + Number(m);
}

/** Minutes two slots share (0 when they do not overlap). */
export function overlap(a: Slot, b: Slot): number {
  return Math.max(0, Math.min(minutes(a.end), minutes(b.end)) - Math.max(minutes(a.start), minutes(b.start)));
}

/** The outcome of matching: what stays, what is rewritten by id, what goes and what is new. */
export interface Matched<O, N> {
  kept: { from: O; to: N }[];
  updates: { from: O; to: N }[];
  deletes: O[];
  creates: N[];
}

/**
 * Matches the old elements of one list (with ids) to the new ones with the fewest calls: equal pairs
 * stay untouched; then the remaining pairs with the highest affinity (e.g. overlapping time) become
 * updates; then what is left pairs by position (both lists in their given, canonical order). Every
 * pairing costs max(old, new) − kept calls; affinity only chooses which old id a new value takes, so
 * that an edit reads as an edit. Pure and deterministic.
 */
export function matchBy<O, N>(
  old: readonly O[],
  next: readonly N[],
  equal: (o: O, n: N) => boolean,
  affinity: (o: O, n: N) => number,
): Matched<O, N> {
  const freeOld = [...old];
  const freeNew: N[] = [];
  const kept: { from: O; to: N }[] = [];
  for (const n of next) {
    const i = freeOld.findIndex((o) => equal(o, n));
    if (i >= 0) kept.push({ from: freeOld.splice(i, 1)[0]!, to: n });
    else freeNew.push(n);
  }
  const updates: { from: O; to: N }[] = [];
  for (;;) {
    let best: { i: number; j: number; score: number } | undefined;
    freeOld.forEach((o, i) =>
      freeNew.forEach((n, j) => {
        const score = affinity(o, n);
        if (score > 0 && (!best || score > best.score)) best = { i, j, score };
      }),
    );
    if (!best) break;
    const { i, j } = best;
    updates.push({ from: freeOld.splice(i, 1)[0]!, to: freeNew.splice(j, 1)[0]! });
  }
  const pairs = Math.min(freeOld.length, freeNew.length);
  for (let k = 0; k < pairs; k++) updates.push({ from: freeOld[k]!, to: freeNew[k]! });
  return { kept, updates, deletes: freeOld.slice(pairs), creates: freeNew.slice(pairs) };
}

/** {@link matchBy} for slots of one day: equal times stay, overlapping slots pair first. */
export function matchSlots(old: readonly IdSlot[], next: readonly Slot[]): Matched<IdSlot, Slot> {
  return matchBy(sortSlots(old), sortSlots(next), (o, n) => o.start === n.start && o.end === n.end, overlap);
}

/** Whether an update only frees time: the new range lies inside the old one. */
export function shrinks(from: Slot, to: Slot): boolean {
  return to.start >= from.start && to.end <= from.end;
}

/** Body of `PUT /store/schedule/{storeId}/{storeScheduleId}` (docs/platform-api.md §2.5, §4.6). */
export interface SlotUpdateBody {
  starts_time: string;
  ends_time: string;
}

/**
 * Deletes and updates by id for a matched day (regular, holiday or special): one
 * `DELETE /store/schedule/{storeId}/{slotId}` per removed slot, one `PUT` per changed slot (stage 12
 * when it only shrinks, else 13). Creates are the caller's: each kind creates slots its own way.
 */
export function slotDeletesAndUpdates(m: Matched<IdSlot, Slot>): Write[] {
  const out: Write[] = [];
  for (const d of m.deletes)
    out.push({ endpoint: "utils.slot.delete", element: d.id, params: { slotId: d.id } });
  for (const u of m.updates) {
    const element: SlotUpdateBody = {
      starts_time: toUtilsTime(u.to.start),
      ends_time: toUtilsTime(u.to.end),
    };
    out.push({
      endpoint: shrinks(u.from, u.to) ? "utils.slot.shrink" : "utils.slot.update",
      element,
      params: { slotId: u.from.id },
    });
  }
  return out;
}

/** The single element of a one-element call. */
const only = (elements: unknown[]) => elements[0];
const always = () => true;

/** A slot write's params (`slotId`) as the route names them. */
const slotParams = (storeId: string, p: EndpointParams) => ({ storeId, storeScheduleId: p.slotId! });

/**
 * `DELETE /store/schedule/{storeId}/{storeScheduleId}` (docs/platform-api.md §2.5): one slot of any kind, by
 * id.
 */
const slotDelete: EndpointSpec = {
  chain: "store_schedule",
  synchronous: true,
  name: "utils.slot.delete",
  stage: 10,
  route: "DELETE /api/rest-ops-utils/store/schedule/{storeId}/{storeScheduleId}",
  scope: "store",
  pathParams: slotParams,
  body: () => undefined,
  maxElements: 1,
  // A repeated delete answers 404 for the slot it already removed; the next plan shows the truth.
  idempotent: always,
  effect: (_body, params, state) => (slotById(state, Number(params.slotId)) ? "absent" : "present"),
};

/**
 * `PUT /store/schedule/{storeId}/{storeScheduleId}` (docs/platform-api.md §2.5): stage 12 frees time, 13 the
 * others.
 */
function slotPut(name: "utils.slot.shrink" | "utils.slot.update", stage: number): EndpointSpec {
  return {
    chain: "store_schedule",
    synchronous: true,
    name,
    stage,
    route: "PUT /api/rest-ops-utils/store/schedule/{storeId}/{storeScheduleId}",
    scope: "store",
    pathParams: slotParams,
    body: only,
    maxElements: 1,
    idempotent: always,
    effect(body, params, state) {
      const b = body as SlotUpdateBody;
      const now = slotById(state, Number(params.slotId));
      return effectOf(
        now && now.start === fromUtilsTime(b.starts_time) && now.end === fromUtilsTime(b.ends_time) ? 1 : 0,
        1,
      );
    },
  };
}

/**
 * The per-slot calls regular hours, holidays and special days share (see the table above): each of
 * those kinds lists them among its endpoints, with the same spec objects.
 */
export const SLOT_ENDPOINTS: readonly EndpointSpec[] = [
  slotDelete,
  slotPut("utils.slot.shrink", 12),
  slotPut("utils.slot.update", 13),
];
