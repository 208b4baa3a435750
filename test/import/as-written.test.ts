/**
 * `carte import` writes what a person would write: `24:00` for a slot that ends at midnight, `daily`
 * for a week of the same hours, a slot past midnight as one slot (`fri,sat: ["11:00-01:00"]`, not its
 * two platform halves under three keys), slots in quotes, an `option_prices` that fits a line on one
 * line, and prices, option prices and exclusions in the catalog's order. The files still give the
 * states they were imported from exactly. Built states, no platform.
 */

import { describe, expect, it } from "vitest";
import type { StoreFile } from "../../src/generated/config.js";
import { buildImport, projectFor } from "../../src/import/index.js";
import { storeText } from "../../src/import/render.js";
import { hoursState } from "../../src/kinds/store-schedule.js";
import { WEEKDAYS, type Slot, type StoreState, type Weekday } from "../../src/model.js";
import { catalogOf, group, item, store } from "../helpers/builders.js";

type Region = "north" | "south";

const slot = (start: string, end: string): Slot => ({ start, end });

/** Hours of the north: every day until midnight. Of the south: Friday and Saturday until 01:00. */
function hoursOf(region: Region): Record<Weekday, Slot[]> {
  if (region === "north")
    return Object.fromEntries(WEEKDAYS.map((d) => [d, [slot("10:00", "23:59")]])) as Record<Weekday, Slot[]>;
  return {
    mon: [slot("11:00", "22:00")],
    tue: [slot("11:00", "22:00")],
    wed: [slot("11:00", "22:00")],
    thu: [slot("11:00", "22:00")],
    fri: [slot("11:00", "23:59")],
    sat: [slot("00:00", "01:00"), slot("11:00", "23:59")],
    sun: [slot("00:00", "01:00"), slot("12:00", "21:00")],
  };
}

/**
 * A store: the burger offers cheese and bacon, each priced inside it; the category lists ZUCCHINI
 * before APPLE-PIE and TEA before COFFEE. The north sells neither TEA nor COFFEE; the south has its own
 * prices of ZUCCHINI and APPLE-PIE.
 */
function shop(key: string, id: string, region: Region): StoreState {
  return store(key, id, (s) => {
    const north = region === "north";
    const items = ["ZUCCHINI", "BURGER", "APPLE-PIE", ...(north ? [] : ["TEA", "COFFEE"])];
    catalogOf(s).items = {
      ZUCCHINI: item("ZUCCHINI", north ? 9000 : 9500),
      BURGER: item("BURGER", 25000, { children: ["EXTRAS"] }),
      EXTRAS: group("EXTRAS", ["CHEESE", "BACON"], 0, 2),
      CHEESE: item("CHEESE", 3000, { priceInParent: { BURGER: 2000 } }),
      BACON: item("BACON", 4000, { priceInParent: { BURGER: 3500 } }),
      "APPLE-PIE": item("APPLE-PIE", north ? 7000 : 7500),
      ...(north ? {} : { TEA: item("TEA", 4000), COFFEE: item("COFFEE", 4500) }),
    };
    catalogOf(s).categories = { MAIN: { sku: "MAIN", title: "Main", items } };
    catalogOf(s).menus = { DEFAULT: { type: "DEFAULT", categories: [{ sku: "MAIN", active: true }] } };
    hoursState.set(s, hoursOf(region));
  });
}

const chain = () => [
  shop("north-1", "101", "north"),
  shop("north-2", "102", "north"),
  shop("south-1", "201", "south"),
  shop("south-2", "202", "south"),
];

/** The text of the written file at `path`. */
async function textOf(path: string): Promise<string> {
  const result = await buildImport(chain(), projectFor(undefined));
  expect(result.problems).toEqual([]);
  expect(result.notes).toEqual([]);
  return result.files.find((f) => f.path === path)!.text;
}

describe("carte import writes hours as people write them", () => {
  it("writes 24:00 and daily for a week open until midnight, with the slot in quotes", async () => {
    const north = await textOf("groups/north.yaml");
    expect(north).toContain('daily: ["10:00-24:00"]');
    expect(north).not.toContain("23:59");
  });

  it("writes a slot past midnight once, under one key for the days it starts on", async () => {
    const south = await textOf("groups/south.yaml");
    expect(south).toContain('mon-thu: ["11:00-22:00"]');
    expect(south).toContain('fri,sat: ["11:00-01:00"]');
    expect(south).toContain('sun: ["12:00-21:00"]');
    expect(south).not.toContain("00:00-01:00");
  });
});

describe("carte import keeps the catalog's order", () => {
  it("writes a catalog's option prices on one line, in the order of the group's options", async () => {
    const catalog = await textOf("catalogs/shared.yaml");
    expect(catalog).toContain("option_prices: {CHEESE: 2000, BACON: 3500}");
  });

  it("writes a group's prices and exclusions in the catalog's order", async () => {
    const south = await textOf("groups/south.yaml");
    const prices = south.slice(south.indexOf("prices:"));
    expect(prices.indexOf("ZUCCHINI")).toBeLessThan(prices.indexOf("APPLE-PIE"));
    const north = await textOf("groups/north.yaml");
    expect(north).toContain("exclude: [TEA, COFFEE]");
  });
});

describe("carte import's header comments", () => {
  it("name a few stores and count the rest, on a short line", async () => {
    const many = Array.from({ length: 40 }, (_, i) =>
      shop(`north-${String(i).padStart(4, "0")}`, String(1000 + i), i % 2 === 0 ? "north" : "south"),
    );
    const result = await buildImport(many, projectFor(undefined));
    expect(result.problems).toEqual([]);
    const catalog = result.files.find((f) => f.path === "catalogs/shared.yaml")!.text;
    const first = catalog.split("\n")[0]!;
    expect(first).toBe(
      "# Imported by carte import: the catalog of stores north-0000, north-0001, north-0002 and 37 more.",
    );
    for (const f of result.files)
      for (const line of f.text.split("\n")) expect(line.length).toBeLessThan(120);
  });
});

describe("carte import's store files", () => {
  it("are written without blank lines, a special day on one line", async () => {
    const text = storeText({
      store: { id: 1, integration_id: "north-1", name: "North 1" },
      catalog: "shared",
      special_days: [{ name: "Aniversario", date: "10-15", slots: ["12:00-22:00"] }],
    } as StoreFile);
    expect(text).toBe(
      [
        "# Imported by carte import: store north-1.",
        "",
        "store:",
        "  id: 1",
        "  integration_id: north-1",
        "  name: North 1",
        "catalog: shared",
        'special_days:\n  - {name: Aniversario, date: "10-15", slots: ["12:00-22:00"]}',
        "",
      ].join("\n"),
    );
  });
});
