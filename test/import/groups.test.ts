/**
 * `carte import` finds the chain: stores of two regions and one quirky store come back as one catalog,
 * a group per region (its prices, what it does not sell, its hours) and the quirk as the one store's
 * overrides; the files plan no change against the states they were imported from, and the same
 * states give the same bytes in any order. Built states, no platform.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadProject } from "../../src/config/index.js";
import { buildImport, projectFor } from "../../src/import/index.js";
import { hoursState } from "../../src/kinds/store-schedule.js";
import { openState } from "../../src/kinds/store-availability.js";
import { WEEKDAYS, type StoreState, type Weekday } from "../../src/model.js";
import { buildPlan } from "../../src/plan/plan.js";
import { catalogOf, current, item, store } from "../helpers/builders.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Region = "north" | "south";

/** A store of the chain: four items; north does not sell the shake; each region has its hours. */
function chainStore(key: string, id: string, region: Region, quirk?: (s: StoreState) => void): StoreState {
  return store(key, id, (s) => {
    catalogOf(s).items = {
      BURGER: item("BURGER", region === "north" ? 25900 : 23900, { title: "Burger" }),
      CHEESE: item("CHEESE", 26900, { title: "Cheese burger" }),
      FRIES: item("FRIES", 8900, { title: "Fries" }),
      ...(region === "south" ? { SHAKE: item("SHAKE", 12900, { title: "Shake" }) } : {}),
    };
    const skus = Object.keys(catalogOf(s).items);
    catalogOf(s).categories = { MAIN: { sku: "MAIN", title: "Main", items: skus } };
    catalogOf(s).menus = { DEFAULT: { type: "DEFAULT", categories: [{ sku: "MAIN", active: true }] } };
    const day = region === "north" ? { start: "11:00", end: "22:00" } : { start: "10:00", end: "21:00" };
    hoursState.set(
      s,
      Object.fromEntries(WEEKDAYS.map((d) => [d, region === "south" && d === "sun" ? [] : [day]])) as Record<
        Weekday,
        { start: string; end: string }[]
      >,
    );
    openState.set(s, true);
    quirk?.(s);
  });
}

/** Three stores in the north, three in the south, one of which has its own prices and Sunday. */
function chain(): StoreState[] {
  return [
    chainStore("north-1", "101", "north"),
    chainStore("north-2", "102", "north"),
    chainStore("north-3", "103", "north"),
    chainStore("south-1", "201", "south"),
    chainStore("south-2", "202", "south"),
    chainStore("south-3", "203", "south", (s) => {
      catalogOf(s).items.BURGER!.price = 22900;
      catalogOf(s).items.FRIES!.price = 9900;
      hoursState.get(s)!.sun = [{ start: "12:00", end: "18:00" }];
    }),
  ];
}

describe("carte import finds the chain", () => {
  it("writes one catalog, a group per region and the quirky store's overrides, and plans no change", async () => {
    const states = chain();
    const result = await buildImport(states, projectFor(undefined));
    expect(result.problems).toEqual([]);
    expect(result.notes).toEqual([]);
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
    // What every store has alike is written once, in carte.yaml, not once per group.
    expect(byPath.get("carte.yaml")).toMatchObject({ groups: "groups/*.yaml", defaults: { open: true } });
    // The catalog's burger is the north's price (a tie, the first store's); the south's is its group's.
    expect(byPath.get("groups/north.yaml")).toEqual({
      name: "north",
      defaults: { overrides: { exclude: ["SHAKE"] }, hours: { daily: ["11:00-22:00"] } },
    });
    expect(byPath.get("groups/south.yaml")).toEqual({
      name: "south",
      defaults: {
        overrides: { prices: { BURGER: 23900 } },
        hours: { "mon-sat": ["10:00-21:00"], sun: [] },
      },
    });
    // The other stores say only who they are and where they belong.
    for (const s of states.filter((s) => s.store.key !== "south-3")) {
      const key = s.store.key;
      expect(byPath.get(`stores/${key}.yaml`)).toEqual({
        store: { id: Number(s.store.storeId), integration_id: key, name: `Store ${key}` },
        catalog: "shared",
        group: key.split("-")[0],
      });
    }
    // Only what differs from its region: its own burger and fries prices, its Sunday.
    expect(byPath.get("stores/south-3.yaml")).toEqual({
      store: { id: 203, integration_id: "south-3", name: "Store south-3" },
      catalog: "shared",
      group: "south",
      overrides: { prices: { BURGER: 22900, FRIES: 9900 } },
      hours: { sun: ["12:00-18:00"] },
    });

    // Loaded as carte plan loads them, the files plan nothing against the states they came from.
    const dir = mkdtempSync(path.join(tmpdir(), "carte-import-groups-"));
    dirs.push(dir);
    for (const f of result.files) {
      await mkdir(path.dirname(path.join(dir, f.path)), { recursive: true });
      await writeFile(path.join(dir, f.path), f.text);
    }
    const project = await loadProject(path.join(dir, "carte.yaml"));
    expect(buildPlan(project.desired, current(...chain())).changes).toEqual([]);
  });

  it("gives the same bytes whatever the order of the stores", async () => {
    const one = (await buildImport(chain(), projectFor(undefined))).files;
    const two = (await buildImport(chain().reverse(), projectFor(undefined))).files;
    expect(two).toEqual(one);
  });
});

describe("group names and keys from the platform", () => {
  it("names a group from its stores' shared id, and keeps a SKU that plain objects treat specially as data", async () => {
    // A region price on an item whose SKU is a name plain objects treat specially.
    const proto = (key: string, id: string, region: Region, price: number) =>
      chainStore(key, id, region, (s) => {
        catalogOf(s).items["constructor"] = item("constructor", price, { title: "Constructor" });
        catalogOf(s).categories.MAIN!.items.push("constructor");
      });
    const states = [
      proto("a-1", "1", "north", 2000),
      proto("b-1", "2", "north", 2000),
      proto("sur-01", "3", "south", 3000),
      proto("sur-02", "4", "south", 3000),
      proto("sur-03", "5", "south", 3000),
    ];
    const result = await buildImport(states, projectFor(undefined));
    expect(result.problems).toEqual([]);
    // Ids that share no part give the group a plain name.
    expect(result.groups?.map((g) => [g.name, g.stores])).toEqual([
      ["group", ["a-1", "b-1"]],
      ["sur", ["sur-01", "sur-02", "sur-03"]],
    ]);
    const group = parse(result.files.find((f) => f.path === "groups/group.yaml")!.text) as {
      defaults: { overrides: { prices: Record<string, number> } };
    };
    expect(result.notes).toEqual([]);
    expect(Object.hasOwn(group.defaults.overrides.prices, "constructor")).toBe(true);
    expect(group.defaults.overrides.prices.constructor).toBe(2000);
  });
});
