/**
 * The factoring rule of `carte import` on built states (no platform): which stores share a catalog,
 * what goes into overrides, what the files cannot express, and that the output does not depend on the
 * order of the stores.
 */

import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildImport, projectFor } from "../../src/import/index.js";
import type { StoreState } from "../../src/model.js";
import { group, item, store, catalogOf } from "../helpers/builders.js";

/** A small chain store: two burgers with an extras group, a category and a DEFAULT menu. */
function chainStore(key: string, id: string, tweak: (s: StoreState) => void = () => {}): StoreState {
  return store(key, id, (s) => {
    catalogOf(s).items = {
      BURGER: item("BURGER", 24900, { children: ["EXTRAS"], title: "Burger" }),
      CHEESE: item("CHEESE", 26900, { children: ["EXTRAS"], title: "Cheese burger" }),
      EXTRAS: group("EXTRAS", ["BACON", "EGG", "AVOCADO"], 0, 3),
      BACON: item("BACON", 4500),
      EGG: item("EGG", 2500),
      AVOCADO: item("AVOCADO", 4000),
    };
    catalogOf(s).categories = { BURGERS: { sku: "BURGERS", title: "Burgers", items: ["BURGER", "CHEESE"] } };
    catalogOf(s).menus = { DEFAULT: { type: "DEFAULT", categories: [{ sku: "BURGERS", active: true }] } };
    tweak(s);
  });
}

async function files(states: StoreState[]) {
  const result = await buildImport(states, projectFor(undefined));
  expect(result.problems).toEqual([]);
  return { result, byPath: Object.fromEntries(result.files.map((f) => [f.path, parse(f.text) as unknown])) };
}

describe("factoring imported stores", () => {
  it("shares one catalog across price, exclusion and availability differences", async () => {
    const { result, byPath } = await files([
      chainStore("a", "1"),
      chainStore("b", "2", (s) => {
        catalogOf(s).items.BURGER!.price = 25900;
        // Switched off by carte (its marker): written; staff's switch-offs stay unwritten.
        catalogOf(s).unavailable = ["EGG"];
        catalogOf(s).suspensions = { EGG: { byCarte: true } };
      }),
      chainStore("c", "3", (s) => {
        // Not sold here: an option (the group's max drops to what is left) and an item.
        delete catalogOf(s).items.AVOCADO;
        delete catalogOf(s).items.CHEESE;
        catalogOf(s).items.EXTRAS!.children = ["BACON", "EGG"];
        catalogOf(s).items.EXTRAS!.max = 2;
        catalogOf(s).categories.BURGERS!.items = ["BURGER"];
      }),
    ]);
    expect(result.notes).toEqual([]);
    expect(result.catalogs.map((c) => [c.name, c.stores])).toEqual([["shared", ["a", "b", "c"]]]);
    expect(byPath["stores/a.yaml"]).toEqual({
      store: { id: 1, integration_id: "a", name: "Store a" },
      catalog: "shared",
    });
    expect(byPath["stores/b.yaml"]).toMatchObject({
      overrides: { prices: { BURGER: 25900 } },
      availability: { unavailable: ["EGG"] },
    });
    expect(byPath["stores/c.yaml"]).toMatchObject({ overrides: { exclude: ["CHEESE", "AVOCADO"] } });
    expect(byPath["catalogs/shared.yaml"]).toMatchObject({
      name: "shared",
      modifier_groups: [{ sku: "EXTRAS", min: 0, max: 3 }],
    });
  });

  it("takes the most common values into the catalog, and splits off stores whose relations differ", async () => {
    const { result, byPath } = await files([
      chainStore("a", "1", (s) => void (catalogOf(s).items.BURGER!.price = 1000)),
      chainStore("b", "2"),
      chainStore("c", "3"),
      chainStore("d", "4", (s) => {
        catalogOf(s).items.BURGER!.title = "Hamburguesa";
        catalogOf(s).items.BURGER!.description = "Con queso";
        catalogOf(s).items.BACON!.images = ["img/bacon.jpg"];
        catalogOf(s).categories.BURGERS!.title = "Hamburguesas";
      }),
      // A required extras group: a limit no store file can override.
      chainStore("e", "5", (s) => void (catalogOf(s).items.EXTRAS!.min = 1)),
    ]);
    expect(result.catalogs.map((c) => [c.name, c.stores])).toEqual([
      ["shared", ["a", "b", "c", "d"]],
      ["e", ["e"]],
    ]);
    const first = (path: string) => (byPath[path] as { items: unknown[] }).items[0];
    expect(first("catalogs/shared.yaml")).toMatchObject({ sku: "BURGER", title: "Burger", price: 24900 });
    expect(byPath["stores/a.yaml"]).toMatchObject({
      catalog: "shared",
      overrides: { prices: { BURGER: 1000 } },
    });
    expect(byPath["stores/d.yaml"]).toMatchObject({
      catalog: "shared",
      overrides: {
        titles: { BURGER: "Hamburguesa", BURGERS: "Hamburguesas" },
        descriptions: { BURGER: "Con queso" },
        images: { BACON: ["img/bacon.jpg"] },
      },
    });
    expect(byPath["stores/e.yaml"]).toMatchObject({ catalog: "e" });
    expect(byPath["catalogs/e.yaml"]).toMatchObject({ modifier_groups: [{ sku: "EXTRAS", min: 1 }] });
  });

  it("gives stores without a menu the others have a catalog of their own", async () => {
    const late = (s: StoreState) => {
      catalogOf(s).menus.LATE_NIGHT = { type: "LATE_NIGHT", categories: [{ sku: "BURGERS", active: false }] };
    };
    const { result, byPath } = await files([
      chainStore("a", "1", late),
      chainStore("b", "2", late),
      chainStore("c", "3"),
    ]);
    expect(result.catalogs.map((c) => c.stores)).toEqual([["a", "b"], ["c"]]);
    expect(byPath["catalogs/shared.yaml"]).toMatchObject({
      menus: [
        { type: "DEFAULT", categories: ["BURGERS"] },
        { type: "LATE_NIGHT", categories: [{ sku: "BURGERS", active: false }] },
      ],
    });
  });

  it("writes the same bytes whatever the order of the stores", async () => {
    const states = [
      chainStore("b", "2", (s) => void (catalogOf(s).items.EGG!.price = 3000)),
      chainStore("a", "1"),
      chainStore("c", "3", (s) => void (catalogOf(s).items.BURGER!.description = "Juicy")),
    ];
    const one = (await buildImport(states)).files;
    const two = (await buildImport([...states].reverse())).files;
    expect(two).toEqual(one);
  });

  it("notes what the files cannot express, and still writes loadable files", async () => {
    const { result } = await files([
      chainStore("a", "1", (s) => {
        // An option also sold on its own in a category, and a modifier group with a price.
        catalogOf(s).categories.BURGERS!.items.push("BACON");
        catalogOf(s).items.EXTRAS!.price = 100;
        catalogOf(s).items["BAD SKU"] = item("BAD SKU", 1);
      }),
    ]);
    expect(result.notes.map((n) => n.address)).toEqual([
      "store[a].category[BURGERS]",
      "store[a].item[BAD SKU]",
      "store[a].modifier_group[EXTRAS]",
    ]);
  });
});
