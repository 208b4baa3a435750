/**
 * The catalog configuration: typed money (carte.yaml `currency:`), nested modifier groups, and
 * catalog overrides at every layer (carte.yaml defaults, groups, includes, stores).
 */

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject } from "../../src/config/index.js";
import { CATALOG, problemsOf, shown, storeYaml, writeProject } from "./helpers.js";
import { catalogOf } from "../helpers/builders.js";

const PROJECT = "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\ngroups: groups/*.yaml\n";

async function load(files: Record<string, string>) {
  const dir = await writeProject({
    "carte.yaml": PROJECT,
    "catalogs/burgers.yaml": CATALOG,
    // A group no store joins, so that `groups:` matches a file (a pattern matching none is a problem).
    "groups/none.yaml": "name: none\n",
    "stores/a.yaml": storeYaml(1, "a"),
    ...files,
  });
  return { dir, load: () => loadProject(join(dir, "carte.yaml")) };
}

describe("typed money", () => {
  it("refuses 24.900 in a COP project at its line, with a hint, wherever a price is written", async () => {
    const { dir, load: run } = await load({
      "carte.yaml": PROJECT.replace("version: 1\n", "version: 1\ncurrency: COP\n"),
      "catalogs/burgers.yaml": CATALOG.replace("price: 24900", "price: 24.900").replace(
        "price: 2000 }",
        "price: 2000.5 }",
      ),
      "stores/a.yaml": storeYaml(1, "a", "overrides:\n  prices: { FRIES: 9.900 }\n"),
    });
    const f = shown(dir, "catalogs/burgers.yaml");
    expect(await problemsOf(run())).toEqual([
      `${f}:2:42: price 24.900 has 3 decimals, but COP prices have none: if you meant 24900, write it without the thousands separator`,
      `${f}:11:46: price 2000.5 has 1 decimal, but COP prices have none: write whole amounts`,
      `${shown(dir, "stores/a.yaml")}:7:20: price 9.900 has 3 decimals, but COP prices have none: if you meant 9900, write it without the thousands separator`,
    ]);
  });

  it("takes 12.50 in a BRL project, exactly, and refuses a third decimal", async () => {
    const brl = PROJECT.replace("version: 1\n", "version: 1\ncurrency: BRL\n");
    const good = await load({
      "carte.yaml": brl,
      "catalogs/burgers.yaml": CATALOG.replace("price: 24900", "price: 12.50"),
    });
    const project = await good.load();
    expect(project.currency?.code).toBe("BRL");
    expect(project.desired.currency).toBe("BRL");
    expect(catalogOf(project.desired.stores.a)?.items.BURGER?.price).toBe(12.5);

    const bad = await load({
      "carte.yaml": brl,
      "catalogs/burgers.yaml": CATALOG.replace("price: 24900", "price: 12.505"),
    });
    expect(await problemsOf(bad.load())).toEqual([
      `${shown(bad.dir, "catalogs/burgers.yaml")}:2:42: price 12.505 has 3 decimals, but BRL prices have at most 2: round it to 2 decimals (12.51)`,
    ]);
  });

  it("refuses a currency that is not ISO 4217", async () => {
    const { dir, load: run } = await load({ "carte.yaml": PROJECT + "currency: XYZ\n" });
    expect(await problemsOf(run())).toEqual([
      `${shown(dir, "carte.yaml")}:5:11: unknown currency "XYZ": write an ISO 4217 code, for example COP, BRL or MXN`,
    ]);
  });
});

/** A catalog with options that offer modifier groups: size → crust → toppings. */
const NESTED = `items:
  - { sku: PIZZA, title: Pizza, price: 24900, modifier_groups: [SIZE] }
modifier_groups:
  - sku: SIZE
    title: Size
    min: 1
    max: 1
    options:
      - { sku: SIZE-M, title: M, price: 0, modifier_groups: [CRUST] }
      - { sku: SIZE-L, title: L, price: 8000, modifier_groups: [CRUST], option_prices: { STUFFED: 7000 } }
  - sku: CRUST
    title: Crust
    min: 1
    max: 1
    options:
      - { sku: THIN, title: Thin, price: 0, modifier_groups: [TOPPINGS] }
      - { sku: STUFFED, title: Stuffed, price: 5000, modifier_groups: [TOPPINGS] }
  - sku: TOPPINGS
    title: Toppings
    min: 0
    max: 2
    options:
      - { sku: OLIVES, title: Olives, price: 2500 }
      - { sku: CHEESE, title: Cheese, price: 3500 }
categories:
  - { sku: MAIN, title: Main, items: [PIZZA] }
menus:
  - { type: DEFAULT, categories: [MAIN] }
`;

describe("nested modifier groups", () => {
  it("resolves options that offer groups, and option prices inside an option", async () => {
    const { load: run } = await load({
      "catalogs/burgers.yaml": NESTED,
      "stores/a.yaml": storeYaml(1, "a", "overrides:\n  exclude: [THIN]\n"),
    });
    const a = (await run()).desired.stores.a!;
    expect(catalogOf(a).items["SIZE-L"]).toMatchObject({ type: "ITEM", children: ["CRUST"], price: 8000 });
    expect(catalogOf(a).items.CRUST?.children).toEqual(["STUFFED"]);
    expect(catalogOf(a).items.STUFFED).toMatchObject({
      children: ["TOPPINGS"],
      priceInParent: { "SIZE-L": 7000 },
    });
    expect(catalogOf(a).items.THIN).toBeUndefined();
  });

  it("refuses groups nested more than 3 levels deep, at the entry one level too deep", async () => {
    const deep = NESTED.replace(
      "      - { sku: OLIVES, title: Olives, price: 2500 }",
      "      - { sku: OLIVES, title: Olives, price: 2500, modifier_groups: [SAUCE] }",
    ).replace(
      "categories:\n",
      "  - { sku: SAUCE, title: Sauce, min: 0, max: 1, options: [{ sku: PESTO, title: Pesto, price: 0 }] }\ncategories:\n",
    );
    const { dir, load: run } = await load({ "catalogs/burgers.yaml": deep });
    expect(await problemsOf(run())).toEqual([
      `${shown(dir, "catalogs/burgers.yaml")}:23:70: modifier group "SAUCE" nests 4 levels deep under item PIZZA ` +
        "(PIZZA → SIZE → SIZE-M → CRUST → THIN → TOPPINGS → OLIVES → SAUCE); the platform accepts at most 3 levels of modifier groups",
    ]);
  });

  it("refuses nested groups that lead back to themselves", async () => {
    const circle = NESTED.replace(
      "      - { sku: CHEESE, title: Cheese, price: 3500 }",
      "      - { sku: CHEESE, title: Cheese, price: 3500, modifier_groups: [CRUST] }",
    );
    const { dir, load: run } = await load({ "catalogs/burgers.yaml": circle });
    const problems = await problemsOf(run());
    expect(problems).toContain(
      `${shown(dir, "catalogs/burgers.yaml")}:24:70: modifier groups nest in a circle: CRUST → THIN → TOPPINGS → CHEESE → CRUST; an option cannot offer a group that leads back to it`,
    );
  });

  it("checks an option's modifier groups and option prices like an item's", async () => {
    const bad = NESTED.replace(
      "modifier_groups: [TOPPINGS] }",
      "modifier_groups: [TOPPINGS, NOPE] }",
    ).replace("option_prices: { STUFFED: 7000 }", "option_prices: { SIZE-M: 0 }");
    const { dir, load: run } = await load({ "catalogs/burgers.yaml": bad });
    const f = shown(dir, "catalogs/burgers.yaml");
    expect(await problemsOf(run())).toEqual([
      `${f}:10:90: option "SIZE-M" is not offered under SIZE-L (by its modifier groups, or those of the options below it): add its group to the option's modifier_groups, or remove it here`,
      `${f}:16:73: unknown modifier group "NOPE": define it under modifier_groups, or remove it here`,
    ]);
  });
});

describe("overrides at every layer", () => {
  const layered = {
    "carte.yaml":
      PROJECT +
      "defaults:\n  overrides:\n    prices: { BURGER: 20000, FRIES: 8000 }\n    exclude: [BACON]\n" +
      "  availability:\n    unavailable: [FRIES, CHEESE]\n",
    "groups/cali.yaml":
      "defaults:\n  overrides:\n    prices: { BURGER: 21000 }\n    titles: { MAIN: Principal }\n" +
      "    limits: { EXTRAS: { min: 1 } }\n    schedules: { MAIN: [{ days: mon-fri, slots: ['11:00-15:00'] }] }\n" +
      "  availability:\n    available: [FRIES]\n",
    "stores/a.yaml": storeYaml(1, "a", "group: cali\noverrides:\n  prices: { BURGER: 22000 }\n"),
    "stores/b.yaml": storeYaml(2, "b", "group: cali\n"),
    "stores/c.yaml": storeYaml(3, "c"),
  };

  it("takes each value from the highest layer: store > group > carte.yaml > catalog", async () => {
    const { load: run } = await load(layered);
    const { a, b, c } = (await run()).desired.stores;
    expect([a, b, c].map((s) => catalogOf(s!).items.BURGER?.price)).toEqual([22000, 21000, 20000]);
    expect([a, b, c].map((s) => catalogOf(s!).items.FRIES?.price)).toEqual([8000, 8000, 8000]);
    // Exclusions add up; the group's min and title apply to its stores only.
    expect([a, b, c].map((s) => catalogOf(s!).items.EXTRAS?.children)).toEqual([
      ["CHEESE"],
      ["CHEESE"],
      ["CHEESE"],
    ]);
    expect([a, c].map((s) => catalogOf(s!).items.EXTRAS?.min)).toEqual([1, 0]);
    expect([a, c].map((s) => catalogOf(s!).categories.MAIN?.title)).toEqual(["Principal", "Main"]);
    expect(catalogOf(a!).categories.MAIN?.schedules).toEqual([
      { days: "mon,tue,wed,thu,fri", periods: [{ start: "11:00", end: "15:00" }] },
    ]);
    expect(catalogOf(c!).categories.MAIN?.schedules).toBeUndefined();
    // Availability: the group switches FRIES back on over carte.yaml.
    expect([a, c].map((s) => [catalogOf(s!).unavailable, catalogOf(s!).available])).toEqual([
      [["CHEESE"], ["FRIES"]],
      [["CHEESE", "FRIES"], undefined],
    ]);
  });

  it("refuses a value for what a lower layer excludes, and SKUs no inheriting catalog has", async () => {
    const { dir, load: run } = await load({
      ...layered,
      "groups/cali.yaml": layered["groups/cali.yaml"].replace(
        "{ BURGER: 21000 }",
        "{ BURGER: 21000, GHOST: 1 }",
      ),
      "stores/a.yaml": storeYaml(1, "a", "group: cali\noverrides:\n  prices: { BACON: 5000 }\n"),
    });
    const problems = await problemsOf(run());
    expect(problems).toEqual([
      `${shown(dir, "groups/cali.yaml")}:3:30: unknown SKU "GHOST": catalog burgers has no item or option with this SKU`,
      `${shown(dir, "stores/a.yaml")}:8:13: "BACON" is excluded at ${shown(dir, "carte.yaml")}:8:15, so it cannot have a price here`,
    ]);
  });

  it("accepts a chain-wide SKU that only some stores' catalog has", async () => {
    const { load: run } = await load({
      "catalogs/coffee.yaml":
        "items:\n  - { sku: LATTE, title: Latte, price: 7900 }\ncategories:\n  - { sku: HOT, title: Hot, items: [LATTE] }\n",
      "carte.yaml": PROJECT + "defaults:\n  overrides:\n    prices: { LATTE: 8900, BURGER: 25000 }\n",
      "stores/c.yaml": storeYaml(3, "c").replace("catalog: burgers", "catalog: coffee"),
    });
    const { a, c } = (await run()).desired.stores;
    expect(catalogOf(a!).items.BURGER?.price).toBe(25000);
    expect(catalogOf(c!).items.LATTE?.price).toBe(8900);
  });
});
