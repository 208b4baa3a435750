/**
 * The ends of time-bound entries, judged at an injected clock on the store's clock (America/Bogota,
 * GMT-5, here): a price `until:` a date (a promotion; the lower layers' or the catalog's price comes
 * back), and offer windows `available: {from, until}` of items, categories and menus (seasonal offers).
 */

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject } from "../../src/config/index.js";
import { itemsState } from "../../src/kinds/catalog.js";
import { buildPlan } from "../../src/plan/plan.js";
import { catalogOf, current } from "../helpers/builders.js";
import { CATALOG, problemsOf, storeYaml, writeProject } from "./helpers.js";

const PROJECT =
  "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\ngroups: groups/*.yaml\ndefaults:\n  timezone: America/Bogota\n";
/** Noon in Bogotá, a month before the end of the year. */
const NOW = new Date("2026-11-30T12:00:00-05:00");

async function load(files: Record<string, string>, now = NOW) {
  const dir = await writeProject({
    "carte.yaml": PROJECT,
    "catalogs/burgers.yaml": CATALOG,
    "groups/north.yaml": "name: north\ndefaults:\n  overrides:\n    prices:\n      FRIES: 9500\n",
    ...files,
  });
  return { dir, project: await loadProject(join(dir, "carte.yaml"), { now }) };
}

describe("a price until a date", () => {
  const files = {
    "stores/a.yaml": storeYaml(
      1,
      "a",
      "group: north\noverrides:\n  prices:\n" +
        "    BURGER: { price: 19900, until: 2026-12-31 }\n" +
        "    FRIES: { price: 7900, from: 2026-12-01, until: 2026-12-24 }\n",
    ),
  };

  it("holds until its date, and the plan lists its end and the price that comes back", async () => {
    const { project } = await load(files);
    const a = project.desired.stores.a!;
    expect(catalogOf(a).items.BURGER!.price).toBe(19900);
    // Its from: is still ahead: the group's price holds, the promotion is upcoming with its end.
    expect(catalogOf(a).items.FRIES!.price).toBe(9500);
    expect(catalogOf(a).upcomingPrices).toEqual({
      FRIES: { price: 7900, from: "2026-12-01", until: "2026-12-24" },
    });
    expect(itemsState.get(a)!.endingPrices).toEqual({
      BURGER: { price: 19900, until: "2026-12-31", then: 24900 },
    });
    const plan = buildPlan({ ...project.desired, currency: "COP" }, current(a));
    expect(plan.changes).toEqual([]);
    expect(plan.info?.map((i) => i.message)).toEqual([
      "upcoming price of FRIES: $7.900 from 2026-12-01 until 2026-12-24 (now $9.500); a run from that date changes it",
      "upcoming end of the price of BURGER: $19.900 until 2026-12-31 (then $24.900); a run from then on changes it back",
    ]);
  });

  it("counts a date in full: the lower layer's price comes back at the store's next midnight", async () => {
    // 23:59 on the 24th in Bogotá: still the promotion; its end (the group's price) is listed.
    const late = (await load(files, new Date("2026-12-24T23:59:00-05:00"))).project.desired.stores.a!;
    expect(catalogOf(late).items.FRIES!.price).toBe(7900);
    expect(itemsState.get(late)!.endingPrices!.FRIES).toEqual({
      price: 7900,
      until: "2026-12-24",
      then: 9500,
    });
    // Midnight in Bogotá is 05:00 UTC: from then on the group's price holds, and nothing is upcoming.
    const after = (await load(files, new Date("2026-12-25T05:00:00Z"))).project.desired.stores.a!;
    expect(catalogOf(after).items.FRIES!.price).toBe(9500);
    expect(itemsState.get(after)!.endingPrices?.FRIES).toBeUndefined();
    const plan = buildPlan({ stores: { a: after } }, current(late));
    expect(plan.changes.map((c) => [c.address, c.diff])).toEqual([
      ["store[a].item[FRIES]", [{ attribute: "price", before: 7900, after: 9500 }]],
    ]);
  });

  it("refuses an until: not after its from:, or that is not a date, where it is written", async () => {
    const problems = await problemsOf(
      load({
        "stores/a.yaml": storeYaml(
          1,
          "a",
          "overrides:\n  prices:\n" +
            "    BURGER: { price: 19900, from: 2026-12-31, until: 2026-12-30 }\n" +
            "    FRIES: { price: 7900, until: next week }\n",
        ),
      }),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /stores\/a\.yaml:8:54: until: "2026-12-30" is not after from: "2026-12-31": write an end after the start/,
      ),
      expect.stringMatching(
        /stores\/a\.yaml:9:34: until: "next week" is not a date: write a date, 2026-12-31/,
      ),
    ]);
  });

  it("judges a local until: against a from: with its offset on the store's clock", async () => {
    const problems = await problemsOf(
      load({
        "stores/a.yaml": storeYaml(
          1,
          "a",
          "overrides:\n  prices:\n    BURGER: { price: 19900, from: 2026-12-02T06:00:00-05:00, until: 2026-12-02 05:00 }\n",
        ),
      }),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/stores\/a\.yaml:8:69: until: "2026-12-02 05:00" is not after from:/);
  });
});

describe("offer windows of items, categories and menus", () => {
  const seasonal = CATALOG.replace(
    "  - { sku: FRIES, title: Fries, price: 8900 }\n",
    "  - { sku: FRIES, title: Fries, price: 8900 }\n" +
      "  - { sku: NOG, title: Eggnog, price: 9900, available: { from: 2026-12-01, until: 2026-12-31 } }\n",
  )
    .replace(
      "  - { sku: MAIN, title: Main, items: [BURGER, FRIES] }\n",
      "  - { sku: MAIN, title: Main, items: [BURGER, FRIES, NOG] }\n" +
        "  - { sku: SUMMER, title: Summer, items: [FRIES], available: { until: 2026-11-30 } }\n",
    )
    .replace(
      "  - { type: DEFAULT, categories: [MAIN] }\n",
      "  - { type: DEFAULT, categories: [MAIN, SUMMER] }\n" +
        "  - { type: XMAS, categories: [MAIN], available: { from: 2026-12-24, until: 2026-12-25 } }\n",
    );
  const files = { "catalogs/burgers.yaml": seasonal, "stores/a.yaml": storeYaml(1, "a") };

  it("before its start an item is left out of its categories, and the plan lists every start and end ahead", async () => {
    const { project } = await load(files);
    const a = project.desired.stores.a!;
    // The item stays in the store's catalog: only its categories leave it out.
    expect(catalogOf(a).items.NOG!.price).toBe(9900);
    expect(catalogOf(a).categories.MAIN!.items).toEqual(["BURGER", "FRIES"]);
    expect(catalogOf(a).menus.DEFAULT!.categories).toEqual([
      { sku: "MAIN", active: true },
      { sku: "SUMMER", active: true },
    ]);
    expect(catalogOf(a).menus.XMAS!.categories).toEqual([{ sku: "MAIN", active: false }]);
    const plan = buildPlan(project.desired, current(a));
    expect(plan.changes).toEqual([]);
    expect(plan.info?.map((i) => [i.kind, i.message])).toEqual([
      [
        "item",
        "upcoming item NOG: offered from 2026-12-01 until 2026-12-31; not offered now, a run from that date offers it",
      ],
      [
        "category",
        "upcoming end of category SUMMER: offered until 2026-11-30; a run from then on stops offering it",
      ],
      [
        "menu",
        "upcoming menu XMAS: offered from 2026-12-24 until 2026-12-25; not offered now, a run from that date offers it",
      ],
    ]);
  });

  it("inside its window the item is offered; past a category's end, it is hidden in its menus", async () => {
    const before = (await load(files)).project.desired.stores.a!;
    // Midnight of December 1st in Bogotá (05:00 UTC).
    const { project } = await load(files, new Date("2026-12-01T05:00:00Z"));
    const a = project.desired.stores.a!;
    expect(catalogOf(a).categories.MAIN!.items).toEqual(["BURGER", "FRIES", "NOG"]);
    expect(catalogOf(a).menus.DEFAULT!.categories).toEqual([
      { sku: "MAIN", active: true },
      { sku: "SUMMER", active: false },
    ]);
    const plan = buildPlan(project.desired, current(before));
    expect(plan.changes.map((c) => c.address)).toEqual(["store[a].category[MAIN]", "store[a].menu[DEFAULT]"]);
    expect(plan.info?.map((i) => i.message)).toEqual([
      "upcoming end of item NOG: offered until 2026-12-31; a run from then on stops offering it",
      "upcoming menu XMAS: offered from 2026-12-24 until 2026-12-25; not offered now, a run from that date offers it",
    ]);
    // The same window a day later: the same state, nothing to change.
    const again = (await load(files, new Date("2026-12-02T12:00:00-05:00"))).project.desired;
    expect(buildPlan(again, current(a)).changes).toEqual([]);
  });

  it("refuses a window whose until: is not after its from:, or a bound that is not a time, where written", async () => {
    const problems = await problemsOf(
      load({
        "catalogs/burgers.yaml": seasonal
          .replace(
            "available: { from: 2026-12-01, until: 2026-12-31 }",
            "available: { from: 2026-12-01, until: 2026-11-01 }",
          )
          .replace("available: { until: 2026-11-30 }", "available: { until: 2026-13-01 }"),
        "stores/a.yaml": storeYaml(1, "a"),
      }),
    );
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(
      /catalogs\/burgers\.yaml:4:83: until: "2026-11-01" is not after from: "2026-12-01": write an end after the start/,
    );
    expect(problems[1]).toMatch(/catalogs\/burgers\.yaml:16:71: until: "2026-13-01" is not a date/);
  });

  it("takes a layer's window of a SKU (overrides: available:) in place of the catalog's", async () => {
    const { project } = await load({
      ...files,
      "groups/north.yaml":
        "name: north\ndefaults:\n  overrides:\n    available:\n      NOG: { until: 2027-01-06 }\n",
      "stores/a.yaml": storeYaml(1, "a", "group: north\n"),
      "stores/b.yaml": storeYaml(2, "b"),
      "stores/c.yaml": storeYaml(3, "c", "overrides:\n  exclude: [NOG]\n"),
    });
    // In the group, the eggnog has no start and a later end: offered now; elsewhere the catalog's holds.
    const { a, b } = project.desired.stores;
    expect(catalogOf(a!).categories.MAIN!.items).toEqual(["BURGER", "FRIES", "NOG"]);
    expect(itemsState.get(a!)!.offerWindows?.[0]).toEqual({
      what: "item",
      key: "NOG",
      offered: true,
      until: "2027-01-06",
    });
    expect(catalogOf(b!).categories.MAIN!.items).toEqual(["BURGER", "FRIES"]);
    // A store that does not sell it hears nothing of its window.
    const c = project.desired.stores.c!;
    expect(itemsState.get(c)!.offerWindows!.map((n) => n.key)).toEqual(["SUMMER", "XMAS"]);
    const problems = await problemsOf(
      load({
        ...files,
        "stores/a.yaml": storeYaml(1, "a", "overrides:\n  available:\n    CHEESE: { from: 2026-12-01 }\n"),
      }),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /stores\/a\.yaml:8:5: "CHEESE" is an option, which has no time window: time windows are for items and categories/,
      ),
    ]);
  });

  it("needs the store's time zone for a local date", async () => {
    const dir = await writeProject({
      "carte.yaml": "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n",
      "catalogs/burgers.yaml": seasonal,
      "stores/a.yaml": storeYaml(1, "a"),
    });
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml"), { now: NOW }));
    expect(problems[0]).toMatch(
      /catalogs\/burgers\.yaml:4:64: "2026-12-01" is read on the store's clock, and store "a" has no time zone/,
    );
  });
});

describe("until: close on a holiday", () => {
  // 2027-01-01 is a Friday; the store opens 10:00-22:00 Monday to Friday.
  const newYear = new Date("2027-01-01T12:00:00-05:00");
  const store = (holidays: string) =>
    storeYaml(
      1,
      "a",
      'hours:\n  mon-fri: ["10:00-22:00"]\n' +
        `holidays:\n${holidays}` +
        "availability:\n  unavailable:\n    - { sku: FRIES, until: close }\n",
    );

  it("is a problem, where it is written, on a holiday the files close", async () => {
    const problems = await problemsOf(load({ "stores/a.yaml": store('  "01-01": []\n') }, newYear));
    expect(problems).toEqual([
      expect.stringMatching(
        /stores\/a\.yaml:12:28: until: close is the end of today's opening hours, and store "a" is closed today: write a time instead/,
      ),
    ]);
  });

  it("is the end of the holiday's own hours when the files shorten them", async () => {
    const { project } = await load({ "stores/a.yaml": store('  "01-01": ["10:00-15:00"]\n') }, newYear);
    expect(catalogOf(project.desired.stores.a!).suspensions).toEqual({
      FRIES: { until: "2027-01-01T15:00:00-05:00", shown: "2027-01-01 15:00 GMT-5" },
    });
    // A holiday the files write hours for, on another date, leaves today's regular close.
    const other = await load({ "stores/a.yaml": store('  "12-25": []\n') }, newYear);
    expect(catalogOf(other.project.desired.stores.a!).suspensions).toEqual({
      FRIES: { until: "2027-01-01T22:00:00-05:00", shown: "2027-01-01 22:00 GMT-5" },
    });
  });
});
