/**
 * `carte import` keeps stores whose prices of an option inside a parent differ on one catalog: the
 * catalog holds the price most stores have, each region's group its own (`defaults: overrides:
 * option_prices`), a quirky store its own override; the files plan no change against the states they
 * were imported from, prices are written with the currency's decimals, and the same states give the
 * same bytes in any order. Built states, no platform.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadProject } from "../../src/config/index.js";
import { resolveStore } from "../../src/config/resolve.js";
import type { CatalogFile, StoreFile } from "../../src/generated/config.js";
import { fitsExactly, storeFileFor } from "../../src/import/factor.js";
import { buildImport, projectFor } from "../../src/import/index.js";
import { hoursState } from "../../src/kinds/store-schedule.js";
import { WEEKDAYS, type StoreState, type Weekday } from "../../src/model.js";
import { currencyOf } from "../../src/money.js";
import { buildPlan } from "../../src/plan/plan.js";
import { catalogOf, current, group, item, store } from "../helpers/builders.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Region = "north" | "south";
const BRL = currencyOf("BRL")!;

/**
 * A pizza store: the large pizza offers a stuffed crust and toppings, the crust offers the toppings
 * too (nested). Calabresa costs 6.00 on its own; inside the large pizza 8.25 in the north and 9.00 in
 * the south; inside the cheddar crust 6.50 in the north, 6.00 in the south. Each region has its hours.
 */
function pizzaStore(key: string, id: string, region: Region, quirk?: (s: StoreState) => void): StoreState {
  return store(key, id, (s) => {
    const north = region === "north";
    catalogOf(s).items = {
      "PIZZA-G": item("PIZZA-G", 49.9, { title: "Large pizza", children: ["BORDAS-G", "TOPPINGS"] }),
      "BORDAS-G": group("BORDAS-G", ["BORDA-CHEDDAR"], 0, 1),
      "BORDA-CHEDDAR": item("BORDA-CHEDDAR", 7, { title: "Cheddar crust", children: ["TOPPINGS"] }),
      TOPPINGS: group("TOPPINGS", ["TOP-CALABRESA", "TOP-QUEIJO"], 0, 2),
      "TOP-CALABRESA": item("TOP-CALABRESA", 6, {
        title: "Calabresa",
        priceInParent: { "PIZZA-G": north ? 8.25 : 9, "BORDA-CHEDDAR": north ? 6.5 : 6 },
      }),
      "TOP-QUEIJO": item("TOP-QUEIJO", 5, { title: "Cheese" }),
    };
    catalogOf(s).categories = { PIZZAS: { sku: "PIZZAS", title: "Pizzas", items: ["PIZZA-G"] } };
    catalogOf(s).menus = { DEFAULT: { type: "DEFAULT", categories: [{ sku: "PIZZAS", active: true }] } };
    const day = north ? { start: "11:00", end: "23:00" } : { start: "17:00", end: "23:30" };
    hoursState.set(
      s,
      Object.fromEntries(WEEKDAYS.map((d) => [d, [day]])) as Record<
        Weekday,
        { start: string; end: string }[]
      >,
    );
    quirk?.(s);
  });
}

/** Three stores in the north, three in the south; north-3 charges 7.00 for calabresa in the crust. */
function chain(): StoreState[] {
  return [
    pizzaStore("north-1", "101", "north"),
    pizzaStore("north-2", "102", "north"),
    pizzaStore("north-3", "103", "north", (s) => {
      catalogOf(s).items["TOP-CALABRESA"]!.priceInParent!["BORDA-CHEDDAR"] = 7;
    }),
    pizzaStore("south-1", "201", "south"),
    pizzaStore("south-2", "202", "south"),
    pizzaStore("south-3", "203", "south"),
  ];
}

async function importChain(states: StoreState[]) {
  return buildImport(states, projectFor(undefined, "BRL"), undefined, { currency: BRL });
}

describe("carte import with regional option prices", () => {
  it("writes one catalog, each region's option price in its group, the quirk in its store, and plans no change", async () => {
    const result = await importChain(chain());
    expect(result.problems).toEqual([]);
    expect(result.notes).toEqual([]);
    const texts = new Map(result.files.map((f) => [f.path, f.text]));
    const byPath = new Map(result.files.map((f) => [f.path, parse(f.text) as unknown]));
    expect([...byPath.keys()].sort()).toEqual([
      "carte.yaml",
      "catalogs/shared.yaml",
      "groups/north.yaml",
      "groups/south.yaml",
      "stores/north-1.yaml",
      "stores/north-2.yaml",
      "stores/north-3.yaml",
      "stores/south-1.yaml",
      "stores/south-2.yaml",
      "stores/south-3.yaml",
    ]);
    // The catalog holds what most stores have: 8.25 in the large pizza (a tie, the first store's),
    // 6.00 in the crust (three southern stores against two northern ones and north-3).
    const catalog = byPath.get("catalogs/shared.yaml") as {
      items: { sku: string; option_prices?: Record<string, number> }[];
      modifier_groups: { sku: string; options: ({ sku: string; option_prices?: unknown } | string)[] }[];
    };
    expect(catalog.items.find((i) => i.sku === "PIZZA-G")?.option_prices).toEqual({ "TOP-CALABRESA": 8.25 });
    const crust = catalog.modifier_groups
      .flatMap((g) => g.options)
      .find((o) => typeof o !== "string" && o.sku === "BORDA-CHEDDAR");
    expect(crust).toMatchObject({ option_prices: { "TOP-CALABRESA": 6 } });
    expect(texts.get("catalogs/shared.yaml")).toContain("TOP-CALABRESA: 6.00");

    // Each region's price list is its group's: the north's crust price, the south's large pizza price.
    expect(byPath.get("groups/north.yaml")).toEqual({
      name: "north",
      defaults: {
        overrides: { option_prices: { "BORDA-CHEDDAR": { "TOP-CALABRESA": 6.5 } } },
        hours: { daily: ["11:00-23:00"] },
      },
    });
    expect(byPath.get("groups/south.yaml")).toEqual({
      name: "south",
      defaults: {
        overrides: { option_prices: { "PIZZA-G": { "TOP-CALABRESA": 9 } } },
        hours: { daily: ["17:00-23:30"] },
      },
    });
    // Written as BRL is written.
    expect(texts.get("groups/south.yaml")).toContain("option_prices: {PIZZA-G: {TOP-CALABRESA: 9.00}}");
    expect(texts.get("groups/north.yaml")).toMatch(/BORDA-CHEDDAR: \{TOP-CALABRESA: 6\.50\}/);
    // The other stores say only who they are and where they belong.
    for (const s of chain().filter((s) => s.store.key !== "north-3")) {
      const key = s.store.key;
      expect(byPath.get(`stores/${key}.yaml`)).toEqual({
        store: { id: Number(s.store.storeId), integration_id: key, name: `Store ${key}` },
        catalog: "shared",
        group: key.split("-")[0],
      });
    }
    // The quirky store keeps its region's group and says only its own price.
    expect(byPath.get("stores/north-3.yaml")).toEqual({
      store: { id: 103, integration_id: "north-3", name: "Store north-3" },
      catalog: "shared",
      group: "north",
      overrides: { option_prices: { "BORDA-CHEDDAR": { "TOP-CALABRESA": 7 } } },
    });
    expect(texts.get("stores/north-3.yaml")).toContain("TOP-CALABRESA: 7.00");

    // Loaded as carte plan loads them, the files plan nothing against the states they came from.
    const dir = mkdtempSync(path.join(tmpdir(), "carte-import-option-prices-"));
    dirs.push(dir);
    for (const f of result.files) {
      await mkdir(path.dirname(path.join(dir, f.path)), { recursive: true });
      await writeFile(path.join(dir, f.path), f.text);
    }
    const project = await loadProject(path.join(dir, "carte.yaml"));
    expect(buildPlan(project.desired, current(...chain())).changes).toEqual([]);
    // Against a store whose price moved, the plan shows it: the files do say each store's price.
    const moved = chain();
    const south1 = moved.find((s) => s.store.key === "south-1")!;
    catalogOf(south1).items["TOP-CALABRESA"]!.priceInParent!["PIZZA-G"] = 8.25;
    expect(buildPlan(project.desired, current(...moved)).changes).not.toEqual([]);
  });

  it("gives the same bytes whatever the order of the stores", async () => {
    const one = (await importChain(chain())).files;
    const two = (await importChain(chain().reverse())).files;
    const three = (await importChain([...chain().slice(3), ...chain().slice(0, 3)])).files;
    expect(two).toEqual(one);
    expect(three).toEqual(one);
  });
});

describe("option prices against a catalog that writes them by ancestor", () => {
  // As a person writes it (and `carte import --merge` finds it): the topping's price on the pizza,
  // which sets it inside the crust below.
  const catalog: CatalogFile = {
    name: "pizza",
    items: [
      {
        sku: "PIZZA-G",
        title: "Large pizza",
        price: 49.9,
        modifier_groups: ["BORDAS-G"],
        option_prices: { "TOP-CALABRESA": 8.25 },
      },
    ],
    modifier_groups: [
      {
        sku: "BORDAS-G",
        title: "Crust",
        min: 0,
        max: 1,
        options: [{ sku: "BORDA-CHEDDAR", title: "Cheddar", price: 7, modifier_groups: ["TOPPINGS"] }],
      },
      {
        sku: "TOPPINGS",
        title: "Toppings",
        min: 0,
        max: 1,
        options: [{ sku: "TOP-CALABRESA", title: "Calabresa", price: 6 }],
      },
    ],
  };
  const file = { store: { id: 1, integration_id: "a", name: "A" }, catalog: "pizza" } as StoreFile;

  it("writes no override for the price the ancestor gives, and the store's own price otherwise", () => {
    const state = resolveStore({ store: file, catalog });
    expect(catalogOf(state).items["TOP-CALABRESA"]!.priceInParent).toEqual({ "BORDA-CHEDDAR": 8.25 });
    expect(storeFileFor(state, catalog, "pizza").overrides).toBeUndefined();
    catalogOf(state).items["TOP-CALABRESA"]!.priceInParent!["BORDA-CHEDDAR"] = 9;
    const own = storeFileFor(state, catalog, "pizza");
    expect(own.overrides).toEqual({ option_prices: { "BORDA-CHEDDAR": { "TOP-CALABRESA": 9 } } });
    expect(fitsExactly(state, own, catalog)).toBe(true);
  });
});
