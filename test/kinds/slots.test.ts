/** Slot matching of the store-setting kinds: an edit is one update by id, never a delete and a create. */

import { describe, expect, it } from "vitest";
import { holidays } from "../../src/kinds/holidays.js";
import { PlanningError } from "../../src/errors.js";
import { matchSlots, type IdSlot } from "../../src/kinds/slots.js";
import { specialDays } from "../../src/kinds/special-days.js";
import { storeHours } from "../../src/kinds/store-hours.js";
import type { WriteContext } from "../../src/kinds/resource-kind.js";
import { detailWrites } from "../../src/kinds/utils-schedules.js";
import { emptyIds, emptyStore, type Slot } from "../../src/model.js";
import type { SpecialDay } from "../../src/kinds/store-schedule.js";

const identity = { key: "bog-centro", storeId: "900101", integrationId: "bog-centro", name: "Bogotá Centro" };

function ctx(other: Record<string, Record<string, unknown>>): WriteContext {
  return { desired: emptyStore(identity), ids: { ...emptyIds(), other } };
}

const s = (start: string, end: string): Slot => ({ start, end });
const id = (n: number, start: string, end: string): IdSlot => ({ id: n, start, end });

function hoursWrites(old: IdSlot[], next: Slot[]) {
  return storeHours.writes(
    "update",
    "mon",
    { day: "mon", slots: old.map(({ start, end }) => ({ start, end })) },
    { day: "mon", slots: next },
    ctx({ store_hours: { mon: old } }),
  );
}

describe("matchSlots", () => {
  it("keeps equal slots, pairs overlapping ones, and deletes or creates the rest", () => {
    const m = matchSlots(
      [id(1, "09:00", "12:00"), id(2, "14:00", "18:00"), id(3, "19:00", "20:00")],
      [s("09:00", "12:00"), s("15:00", "22:00")],
    );
    expect(m.kept.map((k) => k.from.id)).toEqual([1]);
    expect(m.updates).toEqual([{ from: id(2, "14:00", "18:00"), to: s("15:00", "22:00") }]);
    expect(m.deletes.map((d) => d.id)).toEqual([3]);
    expect(m.creates).toEqual([]);
  });

  it("pairs by position what does not overlap", () => {
    const m = matchSlots([id(7, "06:00", "07:00")], [s("20:00", "21:00"), s("22:00", "23:00")]);
    expect(m.updates).toEqual([{ from: id(7, "06:00", "07:00"), to: s("20:00", "21:00") }]);
    expect(m.creates).toEqual([s("22:00", "23:00")]);
  });
});

describe("store hours writes", () => {
  const old = [id(11, "11:00", "15:00"), id(12, "18:00", "22:00")];

  it("an edited slot is one PUT by id", () => {
    expect(hoursWrites(old, [s("11:00", "15:00"), s("18:00", "23:00")])).toEqual([
      {
        endpoint: "utils.slot.update",
        element: { starts_time: "18:00:00", ends_time: "23:00:00" },
        params: { slotId: 12 },
      },
    ]);
  });

  it("a shortened slot is a PUT in the earlier stage that frees time", () => {
    expect(hoursWrites(old, [s("12:00", "15:00"), s("18:00", "22:00")])).toEqual([
      {
        endpoint: "utils.slot.shrink",
        element: { starts_time: "12:00:00", ends_time: "15:00:00" },
        params: { slotId: 11 },
      },
    ]);
  });

  it("an added slot is one POST", () => {
    expect(hoursWrites(old, [s("07:00", "09:00"), ...old.map(({ start, end }) => s(start, end))])).toEqual([
      {
        endpoint: "store_hours.create",
        element: { day: "mon", starts_time: "07:00:00", ends_time: "09:00:00" },
      },
    ]);
  });

  it("a removed slot is one DELETE", () => {
    expect(hoursWrites(old, [s("11:00", "15:00")])).toEqual([
      { endpoint: "utils.slot.delete", element: 12, params: { slotId: 12 } },
    ]);
  });

  it("an emptied day is deletes only", () => {
    expect(hoursWrites(old, [])).toEqual([
      { endpoint: "utils.slot.delete", element: 11, params: { slotId: 11 } },
      { endpoint: "utils.slot.delete", element: 12, params: { slotId: 12 } },
    ]);
  });

  it("a day without slots gets one POST per new slot", () => {
    expect(hoursWrites([], [s("08:00", "10:00"), s("12:00", "14:00")]).map((w) => w.endpoint)).toEqual([
      "store_hours.create",
      "store_hours.create",
    ]);
  });
});

describe("holiday writes", () => {
  const known = { "12-25": { dayId: 1225, name: "Christmas Day", slots: [id(5, "10:00", "14:00")] } };

  it("adds the new slots of a holiday in one POST to that holiday, edits by id", () => {
    const writes = holidays.writes(
      "update",
      "12-25",
      { date: "12-25", slots: [s("10:00", "14:00")] },
      { date: "12-25", slots: [s("10:00", "13:00"), s("16:00", "18:00")] },
      ctx({ holiday: known }),
    );
    expect(writes).toEqual([
      {
        endpoint: "utils.slot.shrink",
        element: { starts_time: "10:00:00", ends_time: "13:00:00" },
        params: { slotId: 5 },
      },
      {
        endpoint: "holiday.slots.create",
        element: { startsTime: "16:00:00", endsTime: "18:00:00" },
        params: { holidayDayId: 1225 },
      },
    ]);
  });

  it("refuses a date that is not a holiday of the platform, naming the store and the date", () => {
    const run = () =>
      holidays.writes(
        "create",
        "04-01",
        undefined,
        { date: "04-01", slots: [s("10:00", "12:00")] },
        ctx({ holiday: known }),
      );
    expect(run).toThrow(PlanningError);
    expect(run).toThrow(/store\[bog-centro\]\.holiday\[04-01\]: 04-01 is not a holiday .*12-25/);
  });
});

describe("special day writes", () => {
  const day = (name: string, slots: Slot[]): SpecialDay => ({ name, month: 12, day: 24, slots });
  const known = { "12-24": { id: 77, slots: [id(8, "10:00", "16:00")] } };

  it("creates a day with its slots in one call", () => {
    expect(
      specialDays.writes("create", "12-24", undefined, day("Eve", [s("10:00", "16:00")]), ctx({})),
    ).toEqual([
      {
        endpoint: "special_day.create",
        element: {
          day: 24,
          month: 12,
          name: "Eve",
          schedules: [{ startsTime: "10:00:00", endsTime: "16:00:00" }],
        },
      },
    ]);
  });

  it("a change of slots only goes slot by slot", () => {
    const writes = specialDays.writes(
      "update",
      "12-24",
      day("Eve", [s("10:00", "16:00")]),
      day("Eve", [s("10:00", "17:00")]),
      ctx({ special_day: known }),
    );
    expect(writes).toEqual([
      {
        endpoint: "utils.slot.update",
        element: { starts_time: "10:00:00", ends_time: "17:00:00" },
        params: { slotId: 8 },
      },
    ]);
  });

  it("a new name is a delete and a create: the API cannot rename a special day", () => {
    const writes = specialDays.writes(
      "update",
      "12-24",
      day("Eve", [s("10:00", "16:00")]),
      day("Christmas Eve", [s("10:00", "16:00")]),
      ctx({ special_day: known }),
    );
    expect(writes.map((w) => w.endpoint)).toEqual(["special_day.delete", "special_day.create"]);
  });

  it("a deleted day is one call", () => {
    expect(
      specialDays.writes("delete", "12-24", day("Eve", []), undefined, ctx({ special_day: known })),
    ).toEqual([{ endpoint: "special_day.delete", element: 77, params: { specialDayId: 77 } }]);
  });
});

describe("corridor and product schedule writes", () => {
  const old = [
    { id: 1, days: "mon,tue,wed,thu,fri", start: "06:00", end: "11:00" },
    { id: 2, days: "sat,sun,hol", start: "08:00", end: "12:00" },
  ];

  it("an edited detail is one element of one PUT, added ones share one POST", () => {
    const writes = detailWrites(
      "corridor_schedule",
      old,
      [
        { days: "mon,tue,wed,thu,fri", start: "06:00", end: "11:00" },
        { days: "sat,sun,hol", start: "09:00", end: "13:00" },
        { days: "sat,sun,hol", start: "18:00", end: "22:00" },
      ],
      { corridorId: 40 },
    );
    expect(writes).toEqual([
      {
        endpoint: "corridor_schedule.update",
        element: { id: 2, days: "sat,sun,hol", starts_time: "09:00:00", ends_time: "13:00:00" },
        params: { corridorId: 40 },
      },
      {
        endpoint: "corridor_schedule.create",
        element: { days: "sat,sun,hol", starts_time: "18:00:00", ends_time: "22:00:00" },
        params: { corridorId: 40 },
      },
    ]);
  });

  it("a removed detail is one DELETE by id; an emptied schedule is deletes only", () => {
    expect(detailWrites("product_schedule", old, [], { productId: 3, corridorId: 40 })).toEqual([
      {
        endpoint: "product_schedule.delete",
        element: 1,
        params: { productId: 3, corridorId: 40, scheduleId: 1 },
      },
      {
        endpoint: "product_schedule.delete",
        element: 2,
        params: { productId: 3, corridorId: 40, scheduleId: 2 },
      },
    ]);
  });
});
