/**
 * Store hours of the utils group (docs/platform-api.md §4.7, §2.5): regular hours per
 * weekday, slots on holiday days, and special days with their slots. Served under the utils prefix with
 * a utils token; the deprecation headers are added by utils.ts.
 *
 * Shapes (docs/platform-api.md §4.7 where given, emulator's choice where the spec says "not shown"):
 * - `GET /store/schedule/{storeId}` → `{storeScheduleDays: [{day, storeSchedules: [{id, startsTime,
 *   endsTime}]}]}`: only weekdays with at least one slot, mon..sun, slots by start time;
 * - `GET .../holiday` and `.../special` → `{storeSpecialScheduleDays: [{id, name, month, day, cityId,
 *   storeSchedules}]}`, by month and day; a store's holidays are those of its country or of its own
 *   calendar, as the seed gives them (calendars.ts: the API cannot create holiday days, only slots on
 *   them);
 * - `POST /store/schedule/{storeId}` `{day, starts_time, ends_time}` → `{day, storeSchedules: [{id,
 *   starts_time, ends_time}]}` holding the created slot;
 * - `POST .../holiday/{holidayDayId}` an array of slots `[{startsTime, endsTime}]` (a single object is
 *   taken as a one-element array) → the created slots `[{id, startsTime, endsTime}]`;
 * - `POST .../special` `{day, month, name, schedules: [{startsTime, endsTime}]}` → the created special
 *   day; a second special day on the same month and day: 409;
 * - `POST .../special/{specialDayId}` a slot `{startsTime, endsTime}` → `{id, startsTime, endsTime}`
 *   (an array → an array);
 * - `PUT /store/schedule/{storeId}/{storeScheduleId}` `{starts_time, ends_time}` (and, for a regular slot
 *   only, an optional `day` to move it) → `{id, startsTime, endsTime}` (+ `day` for a regular slot); any
 *   slot (regular, holiday or special) is addressed by its id;
 * - `DELETE /store/schedule/{storeId}/{storeScheduleId}` and `.../special/{specialDayId}` → 204.
 * Every slot field is accepted in snake case (`starts_time`) or camel case (`startsTime`)
 * (docs/platform-api.md §4.7).
 *
 * Rules: times `HH:mm:ss`, start before end (a range across midnight is refused), at most
 * {@link Limits.periodsPerSchedule} slots per day (docs/platform-api.md §4.11), overlapping slots allowed
 * (no published rule, docs/platform-api.md §4.11). Writes are synchronous (the answers carry generated ids).
 * Unknown store, day or slot: 404; malformed body: 400 `{message}` naming the field. Shapes, weekdays, time
 * formats and the month are checked by the routes' schemas (server.ts); the handlers keep the rest: one start
 * and one end in either spelling, start before end, the day of the month, the slot limit and the state rules.
 */

import { Limits } from "../platform/wire.js";
import type { RegularSlotCreate, SlotInput, SlotUpdate, SpecialDayCreate } from "../generated/platform.js";
import { badShape, fail } from "./http.js";
import type { Reply, Route, RouteContext } from "./http.js";
import { WEEKDAYS, parseRange, storeHolidays, utilsOf } from "./utils-state.js";
import type { RegularSlotRec, SlotRec, SpecialDayRec, StoreUtilsRec, Weekday } from "./utils-state.js";
import type { StoreRec } from "./state.js";

interface Ctx {
  store: StoreRec;
  data: StoreUtilsRec;
}

function ctxOf(ctx: RouteContext): Ctx {
  const store = ctx.state.storeForClient(ctx.params.storeId!, ctx.clientId);
  return { store, data: utilsOf(ctx.state, store) };
}

function bySlotStart(a: SlotRec, b: SlotRec): number {
  return a.startsTime < b.startsTime ? -1 : a.startsTime > b.startsTime ? 1 : a.id - b.id;
}

function slotOut(s: SlotRec): { id: number; startsTime: string; endsTime: string } {
  return { id: s.id, startsTime: s.startsTime, endsTime: s.endsTime };
}

function specialOut(d: SpecialDayRec): unknown {
  return {
    id: d.id,
    name: d.name,
    month: d.month,
    day: d.day,
    cityId: d.cityId,
    storeSchedules: [...d.slots].sort(bySlotStart).map(slotOut),
  };
}

function holidays({ store, data }: Ctx): SpecialDayRec[] {
  return storeHolidays(store).map((h) => ({ ...h, slots: data.holidaySlots[String(h.id)] ?? [] }));
}

/** A slot body `{starts_time|startsTime, ends_time|endsTime}` (an `utils#SlotInput`). */
function parseSlot(v: SlotInput, at: string): { startsTime: string; endsTime: string } {
  const snake = v.starts_time !== undefined || v.ends_time !== undefined;
  const r = parseRange(
    v.starts_time ?? v.startsTime,
    v.ends_time ?? v.endsTime,
    at,
    snake ? ["starts_time", "ends_time"] : ["startsTime", "endsTime"],
  );
  return { startsTime: r.start, endsTime: r.end };
}

function checkSlotCount(count: number, what: string): void {
  if (count > Limits.periodsPerSchedule) {
    throw badShape(`${what} would have ${count} time slots; the limit is ${Limits.periodsPerSchedule}`);
  }
}

function pathNum(ctx: RouteContext, name: string): number {
  const raw = ctx.params[name]!;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
}

function changed(ctx: RouteContext): void {
  ctx.state.requestPersist();
}

// ---- reads -----------------------------------------------------------------------------------------

function getRegular(ctx: RouteContext): Reply {
  const { data } = ctxOf(ctx);
  const days = WEEKDAYS.flatMap((day) => {
    const slots = data.regular.filter((s) => s.day === day).sort(bySlotStart);
    return slots.length === 0 ? [] : [{ day, storeSchedules: slots.map(slotOut) }];
  });
  return { status: 200, body: { storeScheduleDays: days } };
}

function byDate(a: SpecialDayRec, b: SpecialDayRec): number {
  return a.month - b.month || a.day - b.day || a.id - b.id;
}

function getHolidays(ctx: RouteContext): Reply {
  return {
    status: 200,
    body: { storeSpecialScheduleDays: holidays(ctxOf(ctx)).sort(byDate).map(specialOut) },
  };
}

function getSpecial(ctx: RouteContext): Reply {
  const { data } = ctxOf(ctx);
  return { status: 200, body: { storeSpecialScheduleDays: [...data.special].sort(byDate).map(specialOut) } };
}

// ---- writes ----------------------------------------------------------------------------------------

function postRegular(ctx: RouteContext): Reply {
  const { data } = ctxOf(ctx);
  const b = ctx.body as RegularSlotCreate;
  const day: Weekday = b.day;
  const slot = parseSlot(b, "");
  checkSlotCount(data.regular.filter((s) => s.day === day).length + 1, `day ${day}`);
  const rec: RegularSlotRec = { id: ctx.state.allocateId(), day, ...slot };
  data.regular.push(rec);
  changed(ctx);
  return {
    status: 200,
    body: { day, storeSchedules: [{ id: rec.id, starts_time: rec.startsTime, ends_time: rec.endsTime }] },
  };
}

/** Reads a body that is one slot or a non-empty array of slots (an `utils#SlotInputs`). */
function parseSlots(body: unknown): { list: { startsTime: string; endsTime: string }[]; many: boolean } {
  if (Array.isArray(body)) {
    return { list: (body as SlotInput[]).map((v, i) => parseSlot(v, `[${i}]`)), many: true };
  }
  return { list: [parseSlot(body as SlotInput, "")], many: false };
}

function postHolidaySlots(ctx: RouteContext): Reply {
  const { store, data } = ctxOf(ctx);
  const id = pathNum(ctx, "holidayDayId");
  const day = storeHolidays(store).find((h) => h.id === id);
  if (!day) throw fail(404, `Holiday day ${ctx.params.holidayDayId} not found`);
  const { list } = parseSlots(ctx.body);
  const slots = (data.holidaySlots[String(id)] ??= []);
  checkSlotCount(slots.length + list.length, `holiday day ${id}`);
  const created = list.map((s) => ({ id: ctx.state.allocateId(), ...s }));
  slots.push(...created);
  changed(ctx);
  return { status: 200, body: created.map(slotOut) };
}

const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function postSpecial(ctx: RouteContext): Reply {
  const { data } = ctxOf(ctx);
  const b = ctx.body as SpecialDayCreate;
  const { month, day } = b;
  const last = MONTH_DAYS[month - 1]!;
  if (day > last) throw badShape(`day must be an integer from 1 to ${last} (day of month ${month})`);
  if (b.name.trim() === "") throw badShape("name is required");
  if (b.name.length > Limits.titleLength) {
    throw badShape(`name is ${b.name.length} characters long; the limit is ${Limits.titleLength}`);
  }
  const raw = b.schedules ?? b.store_schedules ?? [];
  const list = raw.map((v, i) => parseSlot(v, `schedules[${i}]`));
  checkSlotCount(list.length, "schedules");
  const dup = data.special.find((d) => d.month === month && d.day === day);
  if (dup) throw fail(409, `A special day on ${month}-${day} already exists (id ${dup.id})`);
  const rec: SpecialDayRec = {
    id: ctx.state.allocateId(),
    name: b.name,
    month,
    day,
    cityId: null,
    slots: list.map((s) => ({ id: ctx.state.allocateId(), ...s })),
  };
  data.special.push(rec);
  changed(ctx);
  return { status: 200, body: specialOut(rec) };
}

function specialDay(ctx: RouteContext, data: StoreUtilsRec): SpecialDayRec {
  const id = pathNum(ctx, "specialDayId");
  const d = data.special.find((s) => s.id === id);
  if (!d) throw fail(404, `Special day ${ctx.params.specialDayId} not found`);
  return d;
}

function postSpecialSlot(ctx: RouteContext): Reply {
  const { data } = ctxOf(ctx);
  const d = specialDay(ctx, data);
  const { list, many } = parseSlots(ctx.body);
  checkSlotCount(d.slots.length + list.length, `special day ${d.id}`);
  const created = list.map((s) => ({ id: ctx.state.allocateId(), ...s }));
  d.slots.push(...created);
  changed(ctx);
  return { status: 200, body: many ? created.map(slotOut) : slotOut(created[0]!) };
}

/** Where a slot id lives: a regular slot, or a slot of a holiday or special day (list + index). */
type Found =
  { kind: "regular"; slot: RegularSlotRec } | { kind: "day"; list: SlotRec[]; index: number; slot: SlotRec };

function findSlot(ctx: RouteContext, { store, data }: Ctx): Found {
  const id = pathNum(ctx, "storeScheduleId");
  const r = data.regular.find((s) => s.id === id);
  if (r) return { kind: "regular", slot: r };
  // The slots of the holiday days the store has now: those of a day its calendar lost stay unseen.
  const holidayLists = storeHolidays(store).flatMap((h) => {
    const list = data.holidaySlots[String(h.id)];
    return list ? [list] : [];
  });
  const lists = [...holidayLists, ...data.special.map((d) => d.slots)];
  for (const list of lists) {
    const index = list.findIndex((s) => s.id === id);
    if (index >= 0) return { kind: "day", list, index, slot: list[index]! };
  }
  throw fail(404, `Store schedule ${ctx.params.storeScheduleId} not found`);
}

function putSlot(ctx: RouteContext): Reply {
  const at = ctxOf(ctx);
  const { data } = at;
  const found = findSlot(ctx, at);
  const b = ctx.body as SlotUpdate;
  const slot = parseSlot(b, "");
  if (found.kind === "regular") {
    const day: Weekday = b.day ?? found.slot.day;
    if (day !== found.slot.day) {
      checkSlotCount(data.regular.filter((s) => s.day === day).length + 1, `day ${day}`);
    }
    const next: RegularSlotRec = { id: found.slot.id, day, ...slot };
    data.regular[data.regular.indexOf(found.slot)] = next;
    changed(ctx);
    return { status: 200, body: { id: next.id, day, startsTime: next.startsTime, endsTime: next.endsTime } };
  }
  if (b.day !== undefined) throw badShape("day can only be changed on a slot of regular hours");
  const next: SlotRec = { id: found.slot.id, ...slot };
  found.list[found.index] = next;
  changed(ctx);
  return { status: 200, body: slotOut(next) };
}

function deleteSlot(ctx: RouteContext): Reply {
  const at = ctxOf(ctx);
  const { data } = at;
  const found = findSlot(ctx, at);
  if (found.kind === "regular") data.regular.splice(data.regular.indexOf(found.slot), 1);
  else found.list.splice(found.index, 1);
  changed(ctx);
  return { status: 204 };
}

function deleteSpecial(ctx: RouteContext): Reply {
  const { data } = ctxOf(ctx);
  const d = specialDay(ctx, data);
  data.special.splice(data.special.indexOf(d), 1);
  changed(ctx);
  return { status: 204 };
}

/** Routes of store hours (docs/platform-api.md §2.5). All need a utils token. */
export function hoursRoutes(): Route[] {
  return [
    { route: "GET /api/rest-ops-utils/store/schedule/{storeId}", handle: getRegular },
    { route: "GET /api/rest-ops-utils/store/schedule/{storeId}/holiday", handle: getHolidays },
    { route: "GET /api/rest-ops-utils/store/schedule/{storeId}/special", handle: getSpecial },
    { route: "POST /api/rest-ops-utils/store/schedule/{storeId}", handle: postRegular },
    {
      route: "POST /api/rest-ops-utils/store/schedule/{storeId}/holiday/{holidayDayId}",
      handle: postHolidaySlots,
    },
    { route: "POST /api/rest-ops-utils/store/schedule/{storeId}/special", handle: postSpecial },
    {
      route: "POST /api/rest-ops-utils/store/schedule/{storeId}/special/{specialDayId}",
      handle: postSpecialSlot,
    },
    { route: "PUT /api/rest-ops-utils/store/schedule/{storeId}/{storeScheduleId}", handle: putSlot },
    { route: "DELETE /api/rest-ops-utils/store/schedule/{storeId}/{storeScheduleId}", handle: deleteSlot },
    {
      route: "DELETE /api/rest-ops-utils/store/schedule/{storeId}/special/{specialDayId}",
      handle: deleteSpecial,
    },
  ];
}
