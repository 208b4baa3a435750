import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { byIndex, jsonEqual } from "../../src/plain-data.js";
import { canonicalOnce, canonicalSchedules } from "../../src/time/canonical-schedules.js";
import { table } from "../../src/model.js";
import { unreadOf } from "../../src/kinds/items.js";
import type { WireItem } from "../../src/platform/wire.js";

describe("jsonEqual", () => {
  it("says equal exactly when the JSON texts with sorted keys are equal", () => {
    const sorted = (v: unknown): string =>
      JSON.stringify(v, (_k, x: unknown) =>
        x && typeof x === "object" && !Array.isArray(x)
          ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
          : x,
      );
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(jsonEqual(a, b)).toBe(sorted(a) === sorted(b));
        expect(jsonEqual(a, structuredClone(a))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("tells objects apart by a key one of them lacks, with or without a prototype", () => {
    const t = table<number>();
    t.a = 1;
    expect(jsonEqual(t, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(jsonEqual({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(jsonEqual({ a: undefined }, {})).toBe(false);
    // An inherited key is no key of the object.
    expect(jsonEqual(Object.create({ b: 2 }) as object, {})).toBe(true);
    expect(jsonEqual([1, 2], { 0: 1, 1: 2 })).toBe(false);
  });
});

describe("byIndex", () => {
  it("orders by index, missing last, ties in their order", () => {
    const list = [{ index: 2, n: "c" }, { n: "x" }, { index: 0, n: "a" }, { index: 2, n: "d" }, { n: "y" }];
    expect(byIndex(list).map((e) => e.n)).toEqual(["a", "c", "d", "x", "y"]);
    expect(list.map((e) => e.n)).toEqual(["c", "x", "a", "d", "y"]);
  });

  it("gives a list already in order as it is", () => {
    const list = [{ index: 0 }, { index: 1 }, { index: 1 }, {}];
    expect(byIndex(list)).toBe(list);
    expect(byIndex(undefined)).toEqual([]);
  });
});

describe("canonicalSchedules", () => {
  it("puts any list in order, and canonicalOnce gives its result back as it is", () => {
    const messy = [
      {
        days: "sun,mon",
        periods: [
          { start: "18:00", end: "22:00" },
          { start: "11:00", end: "15:00" },
        ],
      },
      {
        days: "tue",
        periods: [
          { start: "11:00", end: "15:00" },
          { start: "18:00", end: "22:00" },
        ],
      },
    ];
    const canonical = canonicalSchedules(messy);
    expect(canonical).toEqual([
      {
        days: "mon,tue,sun",
        periods: [
          { start: "11:00", end: "15:00" },
          { start: "18:00", end: "22:00" },
        ],
      },
    ]);
    expect(canonicalOnce(canonical)).toBe(canonical);
    // A copy of a canonical list is worked out again, to the same value.
    expect(canonicalSchedules(structuredClone(canonical))).toEqual(canonical);
    expect(canonicalSchedules(messy.slice().reverse())).toEqual(canonical);
  });
});

describe("unreadOf", () => {
  it("names the overrides an item read keeps no trace of, block by block, and only those", () => {
    const skuOf = (id: number | undefined) => (id === 7 ? "PIZZA" : undefined);
    const wire = {
      sku: "SIZE-L",
      item_type: "ITEM",
      title_info: { title: "L", overrides: [{ override_type: "STORE" }, { override_type: "STORE" }] },
      schedules_info: { schedules: [], overrides: [{ override_type: "MENU" }] },
      price_info: {
        price: 100,
        overrides: [
          { override_type: "ITEM", override_id: 7, price: 150 },
          { override_type: "ITEM", override_id: 8, price: 160 },
          { override_type: "STORE", price: 90 },
        ],
      },
    } as unknown as WireItem;
    expect(unreadOf(wire, skuOf)).toEqual([
      "title_info.overrides (STORE)",
      "schedules_info.overrides (MENU)",
      "price_info.overrides (ITEM, STORE)",
    ]);
    const kept = {
      sku: "X",
      item_type: "ITEM",
      price_info: { price: 1, overrides: [wire.price_info!.overrides![0]!] },
    };
    expect(unreadOf(kept as unknown as WireItem, skuOf)).toEqual([]);
  });
});
