/** Schedules as the planner compares them: canonical once, no per-store copy of a catalog. */

import { describe, expect, it } from "vitest";
import { toSchedules } from "../../src/time/days-and-slots.js";
import { table, type CategoryResource } from "../../src/model.js";
import { fromWireSchedules, withComparedSchedules } from "../../src/kinds/schedules.js";

const category = (sku: string, schedules?: CategoryResource["schedules"]): CategoryResource => ({
  sku,
  title: sku,
  items: [],
  ...(schedules ? { schedules } : {}),
});

describe("schedules as compared", () => {
  it("takes the resolved and the read forms as they are: the store's own table, no copy", () => {
    const resolved = table<CategoryResource>();
    resolved.BREAKFAST = category("BREAKFAST", toSchedules([{ days: "mon-fri", slots: ["06:00-11:00"] }]));
    resolved.ALL_DAY = category("ALL_DAY");
    expect(withComparedSchedules(resolved, false)).toBe(resolved);

    const read = table<CategoryResource>();
    const perDay = ["fri", "mon", "thu", "tue", "wed"].map((d) => ({
      days_of_week: d,
      time_periods: [{ start_time: "06:00:00", end_time: "11:00:00" }],
    }));
    read.BREAKFAST = category("BREAKFAST", fromWireSchedules(perDay));
    expect(withComparedSchedules(read, false)).toBe(read);
    expect(read.BREAKFAST!.schedules).toEqual(resolved.BREAKFAST!.schedules);
  });

  it("gives the same schedules read in several stores as one list, and other times as their own", () => {
    const wire = (end: string) => [
      { days_of_week: "mon,tue", time_periods: [{ start_time: "11:00:00", end_time: end }] },
      { days_of_week: "sat", time_periods: [{ start_time: "12:00", end_time: "16:00" }] },
    ];
    const storeA = fromWireSchedules(wire("15:00:00"));
    const storeB = fromWireSchedules(wire("15:00:00"));
    expect(storeB).toBe(storeA);
    expect(storeA).toEqual([
      { days: "mon,tue", periods: [{ start: "11:00", end: "15:00" }] },
      { days: "sat", periods: [{ start: "12:00", end: "16:00" }] },
    ]);
    const later = fromWireSchedules(wire("15:30:00"));
    expect(later).not.toBe(storeA);
    expect(later![0]!.periods).toEqual([{ start: "11:00", end: "15:30" }]);
    // A day name holding what looks like a separator is a day of its own, not another list's key.
    const odd = fromWireSchedules([
      { days_of_week: 'mon"[', time_periods: [{ start_time: "11:00", end_time: "15:00" }] },
    ]);
    expect(odd).toEqual([{ days: 'mon"[', periods: [{ start: "11:00", end: "15:00" }] }]);
    // Days without a period are "always", read again as such.
    expect(fromWireSchedules([{ days_of_week: "mon", time_periods: [] }])).toBeUndefined();
    expect(fromWireSchedules([{ days_of_week: "mon", time_periods: [] }])).toBeUndefined();
  });

  it("puts a hand-made state in canonical form, once for every store that shares the resource", () => {
    const shared = category("LUNCH", [
      { days: "sat,sun", periods: [{ start: "12:00", end: "15:00" }] },
      { days: "fri,mon", periods: [{ start: "11:00", end: "14:00" }] },
      { days: "hol", periods: [] },
    ]);
    const storeA = table<CategoryResource>();
    const storeB = table<CategoryResource>();
    storeA.LUNCH = storeB.LUNCH = shared;
    const a = withComparedSchedules(storeA, false);
    const b = withComparedSchedules(storeB, false);
    expect(a).not.toBe(storeA);
    expect(a.LUNCH!.schedules).toEqual([
      { days: "mon,fri", periods: [{ start: "11:00", end: "14:00" }] },
      { days: "sat,sun", periods: [{ start: "12:00", end: "15:00" }] },
    ]);
    expect(b.LUNCH).toBe(a.LUNCH);
    expect(shared.schedules).toHaveLength(3);
  });

  it("reads an empty list as always, and leaves schedules out for the utils group", () => {
    const stores = table<CategoryResource>();
    stores.EMPTY = category("EMPTY", []);
    stores.LUNCH = category("LUNCH", toSchedules([{ days: "mon", slots: ["11:00-14:00"] }]));
    const compared = withComparedSchedules(stores, false);
    expect(compared.EMPTY).toEqual(category("EMPTY"));
    expect(compared.LUNCH).toBe(stores.LUNCH);
    const viaUtils = withComparedSchedules(stores, true);
    expect(viaUtils.LUNCH).toEqual(category("LUNCH"));
    expect(fromWireSchedules([{ days_of_week: "mon", time_periods: [] }])).toBeUndefined();
  });
});
