import { describe, expect, it } from "vitest";
import { buildPlan } from "../../src/plan/plan.js";
import { DEFAULT_SAFETY } from "../../src/plan/safety.js";
import { matchAddress, selectChanges } from "../../src/plan/target.js";
import { current, desired, item, store, catalogOf } from "../helpers/builders.js";

/** A store with `n` items in one category shown by one menu. */
function shop(n: number, build: (s: ReturnType<typeof store>) => void = () => {}) {
  return store("shop", "1", (s) => {
    for (let i = 0; i < n; i++) catalogOf(s).items[`I${i}`] = item(`I${i}`, 100 + i);
    catalogOf(s).categories = { ALL: { sku: "ALL", title: "All", items: Object.keys(catalogOf(s).items) } };
    catalogOf(s).menus = { DEFAULT: { type: "DEFAULT", categories: [{ sku: "ALL", active: true }] } };
    build(s);
  });
}

describe("safety guards", () => {
  it("pass a small change", () => {
    // A price moved by a fifth: within max_price_change_percent (50).
    const plan = buildPlan(desired(shop(20, (s) => (catalogOf(s).items.I0!.price = 120))), current(shop(20)));
    expect(plan.safety).toEqual({ ok: true, violations: [] });
  });

  it("refuse deleting more than max_delete_percent of a store, with the numbers", () => {
    const want = shop(20, (s) => {
      for (let i = 0; i < 10; i++) delete catalogOf(s).items[`I${i}`];
      catalogOf(s).categories.ALL!.items = Object.keys(catalogOf(s).items);
    });
    const plan = buildPlan(desired(want), current(shop(20)));
    expect(plan.safety.ok).toBe(false);
    expect(plan.safety.violations).toEqual([
      {
        guard: "max_delete_percent",
        store: "shop",
        message:
          "store[shop]: the plan deletes 10 of 22 resources (45.5 %), more than max_delete_percent 30 %",
      },
    ]);
  });

  it("let small stores change completely (below min_existing)", () => {
    const plan = buildPlan(desired(shop(3, (s) => (catalogOf(s).items = {}))), current(shop(3)), {
      safety: { ...DEFAULT_SAFETY, minExisting: 10 },
    });
    expect(plan.safety.violations.map((v) => v.guard)).not.toContain("max_delete_percent");
  });

  it("refuse an emptied catalog: every item deleted and the menu left with nothing to sell", () => {
    const want = shop(0);
    const plan = buildPlan(desired(want), current(shop(20)));
    expect(plan.safety.violations.map((v) => v.guard).sort()).toEqual([
      "empties_menu",
      "empties_store",
      "max_delete_percent",
    ]);
  });

  it("refuse a configuration with no store", () => {
    const plan = buildPlan(desired(), current(shop(5)));
    expect(plan.safety.violations.map((v) => v.guard)).toEqual(["no_stores"]);
  });

  it("refuse deleting a protected resource", () => {
    const want = shop(20, (s) => {
      delete catalogOf(s).items.I7;
      catalogOf(s).categories.ALL!.items = Object.keys(catalogOf(s).items);
    });
    const plan = buildPlan(desired(want), current(shop(20)), {
      safety: { ...DEFAULT_SAFETY, protected: ["store[*].item[I7]"] },
    });
    expect(plan.safety.violations).toEqual([
      {
        guard: "protected",
        store: "shop",
        message: expect.stringContaining("store[shop].item[I7] is protected"),
      },
    ]);
  });
});

describe("targeting", () => {
  it("matches addresses with wildcards and prefixes", () => {
    expect(matchAddress("store[bog-*].item[COMBO-*]", "store[bog-centro].item[COMBO-1]")).toBe(true);
    expect(matchAddress("store[bog-*].item[COMBO-*]", "store[med-poblado].item[COMBO-1]")).toBe(false);
    expect(matchAddress("store[bog-*].item[COMBO-*]", "store[bog-centro].modifier_group[COMBO-1]")).toBe(
      false,
    );
    expect(matchAddress("store[bog-centro]", "store[bog-centro].category[X]")).toBe(true);
    expect(matchAddress("store[bog]", "store[bog-centro].category[X]")).toBe(false);
    expect(matchAddress("store[*].item[A.B]", "store[x].item[AxB]")).toBe(false);
  });

  it("keeps the creation of what a targeted change starts to reference", () => {
    const want = shop(2, (s) => {
      catalogOf(s).items.NEW = item("NEW", 5);
      catalogOf(s).categories.ALL!.items.push("NEW");
      catalogOf(s).items.I0!.price = 1;
    });
    const plan = buildPlan(desired(want), current(shop(2)), {
      targeting: { stores: [], kinds: [], targets: ["store[shop].category[ALL]"] },
    });
    expect(plan.changes.map((c) => c.address)).toEqual([
      "store[shop].item[NEW]",
      "store[shop].category[ALL]",
    ]);
    expect(plan.operations.map((o) => o.endpoint)).toEqual(["items.upsert", "categories.upsert"]);
  });

  it("keeps the removal of references to what a targeted change deletes", () => {
    const want = shop(3, (s) => {
      delete catalogOf(s).items.I2;
      catalogOf(s).categories.ALL!.items = ["I0", "I1"];
    });
    const all = buildPlan(desired(want), current(shop(3))).changes;
    const picked = selectChanges(all, { stores: [], kinds: ["item"], targets: [] });
    expect(picked.map((c) => c.address)).toEqual(["store[shop].item[I2]", "store[shop].category[ALL]"]);
  });
});

describe("max_price_change_percent", () => {
  it("refuses a 10× price and a price inside a parent cut by more than half, naming them in the currency", () => {
    const want = shop(20, (s) => {
      catalogOf(s).items.I0!.price = 1000;
      catalogOf(s).items.I1!.priceInParent = { I2: 10 };
      catalogOf(s).items.I3!.price = 150; // +45.6 %: within the default 50 %
    });
    const have = current(shop(20, (s) => (catalogOf(s).items.I1!.priceInParent = { I2: 30 })));
    const plan = buildPlan({ ...desired(want), currency: "COP" }, have);
    expect(plan.safety.violations).toEqual([
      {
        guard: "max_price_change_percent",
        store: "shop",
        message:
          "store[shop]: the plan changes 2 prices by more than max_price_change_percent 50 %: " +
          "item[I0] $100 → $1.000 (+900 %), item[I1] inside I2 $30 → $10 (-66.7 %)",
        prices: [{ sku: "I0" }, { sku: "I1", parent: "I2" }],
      },
    ]);
  });

  it("follows carte.yaml's share, and leaves prices that were 0 alone", () => {
    const want = shop(20, (s) => {
      catalogOf(s).items.I0!.price = 200;
      catalogOf(s).items.I1!.price = 500;
    });
    const have = current(shop(20, (s) => (catalogOf(s).items.I1!.price = 0)));
    const loose = buildPlan(desired(want), have, {
      safety: { ...DEFAULT_SAFETY, maxPriceChangePercent: 100 },
    });
    expect(loose.safety.ok).toBe(true);
    const strict = buildPlan(desired(want), have, {
      safety: { ...DEFAULT_SAFETY, maxPriceChangePercent: 99 },
    });
    expect(strict.safety.violations.map((v) => v.message)).toEqual([
      "store[shop]: the plan changes 1 price by more than max_price_change_percent 99 %: item[I0] 100 → 200 (+100 %)",
    ]);
  });
});
