import { describe, expect, it } from "vitest";
import { buildPlan } from "../../src/plan/plan.js";
import { scopeDesired } from "../../src/run/plan-project.js";
import { current, desired, group, item, store, catalogOf } from "../helpers/builders.js";

function chain(price = 100) {
  return store("bog-centro", "900101", (s) => {
    catalogOf(s).items = {
      BURGER: item("BURGER", price, { children: ["SIZE"] }),
      FRIES: item("FRIES", 50),
      SIZE: group("SIZE", ["SMALL", "LARGE"], 1, 1),
      SMALL: item("SMALL", 0),
      LARGE: item("LARGE", 20),
    };
    catalogOf(s).categories = { MAINS: { sku: "MAINS", title: "Mains", items: ["BURGER", "FRIES"] } };
    catalogOf(s).menus = { DEFAULT: { type: "DEFAULT", categories: [{ sku: "MAINS", active: true }] } };
  });
}

describe("buildPlan", () => {
  it("keeps the project's currency when --store limits the plan", () => {
    const d = { ...desired(chain(200), store("med-poblado", "900201")), currency: "COP" };
    const scoped = scopeDesired(d, { stores: ["bog-*"], kinds: [], targets: [] });
    expect(Object.keys(scoped.stores)).toEqual(["bog-centro"]);
    const plan = buildPlan(scoped, current(chain()));
    expect(plan.currency).toBe("COP");
  });

  it("plans nothing when desired and current are equal", () => {
    const s = chain();
    const plan = buildPlan(desired(s), current(s));
    expect(plan.changes).toEqual([]);
    expect(plan.operations).toEqual([]);
    expect(plan.summary).toMatchObject({ create: 0, update: 0, delete: 0, operations: 0 });
  });

  it("a plan from empty holds each attribute of equal created resources once, whichever store", () => {
    // Two stores whose items are equal but distinct objects, shallow copies as the items kind's select
    // makes of a scheduled item for each store: the diffs are each store's, their entries are shared.
    const fries = item("FRIES", 50);
    const plan = buildPlan(
      desired(
        store("bog-centro", "900101", (s) => void (catalogOf(s).items = { FRIES: fries })),
        store("med-poblado", "900201", (s) => void (catalogOf(s).items = { FRIES: { ...fries } })),
      ),
      { stores: {} },
    );
    const created = plan.changes.filter((c) => c.key === "FRIES");
    expect(created.map((c) => c.store)).toEqual(["bog-centro", "med-poblado"]);
    expect(created[0]!.after).not.toBe(created[1]!.after);
    expect(created[0]!.diff).toEqual(
      Object.entries(fries).map(([attribute, after]) => ({ attribute, after })),
    );
    expect(created[1]!.diff).not.toBe(created[0]!.diff);
    created[0]!.diff.forEach((entry, i) => expect(created[1]!.diff[i]).toBe(entry));
  });

  it("creates a store from scratch with one call per endpoint, items before categories before menus", () => {
    const plan = buildPlan(desired(chain()), { stores: {} });
    expect(plan.summary).toMatchObject({ create: 7, update: 0, delete: 0, operations: 3 });
    expect(plan.operations.map((o) => `${o.method} ${o.path}`)).toEqual([
      "POST /restaurants/menu/v1/stores/900101/items",
      "POST /restaurants/menu/v1/stores/900101/categories",
      "POST /restaurants/menu/v1/stores/900101/menu",
    ]);
    const menuBody = plan.operations[2]!.body as { id?: number; menu_type: string }[];
    expect(menuBody[0]).not.toHaveProperty("id");
  });

  it("updates only the changed item, attribute by attribute", () => {
    const plan = buildPlan(desired(chain(120)), current(chain(100)));
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]).toMatchObject({
      address: "store[bog-centro].item[BURGER]",
      action: "update",
      diff: [{ attribute: "price", before: 100, after: 120 }],
    });
    expect(plan.operations).toHaveLength(1);
    expect((plan.operations[0]!.body as { sku: string }[]).map((b) => b.sku)).toEqual(["BURGER"]);
  });

  it("removes an item from its category before deleting it, by id", () => {
    const before = chain();
    const after = chain();
    delete catalogOf(after).items.FRIES;
    catalogOf(after).categories.MAINS!.items = ["BURGER"];
    const cur = current(before);
    const plan = buildPlan(desired(after), cur);
    expect(plan.operations.map((o) => o.endpoint)).toEqual(["categories.upsert", "items.delete"]);
    expect(plan.operations[1]!.body).toEqual([cur.stores["bog-centro"]!.ids.items.FRIES]);
    expect(plan.summary).toMatchObject({ update: 1, delete: 1 });
  });

  it("updates a menu by its platform id and deletes a duplicate menu of the same type", () => {
    const s = chain();
    const cur = current(s);
    catalogOf(cur.stores["bog-centro"]!).menus["DEFAULT#99"] = { type: "DEFAULT", categories: [] };
    cur.stores["bog-centro"]!.ids.menus["DEFAULT#99"] = 99;
    const want = chain();
    catalogOf(want).menus.DEFAULT!.categories[0]!.active = false;
    const plan = buildPlan(desired(want), cur);
    const upsert = plan.operations.find((o) => o.endpoint === "menus.upsert")!;
    expect((upsert.body as { id: number }[])[0]!.id).toBe(cur.stores["bog-centro"]!.ids.menus.DEFAULT);
    const del = plan.operations.find((o) => o.endpoint === "menus.delete")!;
    expect(del.body).toEqual([99]);
  });

  it("batches availability toggles of several stores into one call", () => {
    const keys = ["a", "b", "c"];
    const want = keys.map((k, i) =>
      store(k, String(900 + i), (s) => {
        catalogOf(s).items = { FRIES: item("FRIES", 50), COLA: item("COLA", 30) };
        catalogOf(s).unavailable = ["FRIES"];
      }),
    );
    const have = keys.map((k, i) =>
      store(k, String(900 + i), (s) => {
        catalogOf(s).items = { FRIES: item("FRIES", 50), COLA: item("COLA", 30) };
      }),
    );
    const plan = buildPlan(desired(...want), current(...have));
    // One toggle for every store, then carte's marker on the item in each store (its own upsert).
    expect(plan.operations.map((o) => `${o.endpoint} ${o.stores.join(",")}`)).toEqual([
      "availability.toggle a,b,c",
      "availability.mark a",
      "availability.mark b",
      "availability.mark c",
    ]);
    expect(plan.operations[0]!.body).toEqual([
      { store_integration_id: "a", items: { turn_off: ["FRIES"] } },
      { store_integration_id: "b", items: { turn_off: ["FRIES"] } },
      { store_integration_id: "c", items: { turn_off: ["FRIES"] } },
    ]);
  });

  it("splits availability toggles at 100 items per call", () => {
    const skus = Array.from({ length: 150 }, (_, i) => `SKU-${String(i).padStart(3, "0")}`);
    const want = store("a", "1", (s) => {
      for (const k of skus) catalogOf(s).items[k] = item(k, 1);
      catalogOf(s).unavailable = [...skus];
    });
    const have = store("a", "1", (s) => {
      for (const k of skus) catalogOf(s).items[k] = item(k, 1);
    });
    const plan = buildPlan(desired(want), current(have));
    const toggles = plan.operations.filter((o) => o.endpoint === "availability.toggle");
    const sizes = toggles.map((o) =>
      (o.body as { items: { turn_off?: string[] } }[]).reduce(
        (n, e) => n + (e.items.turn_off?.length ?? 0),
        0,
      ),
    );
    expect(sizes).toEqual([100, 50]);
  });

  it("switches off a new item after creating it, and does not plan availability for available new items", () => {
    const want = store("a", "1", (s) => {
      catalogOf(s).items = { FRIES: item("FRIES", 50), COLA: item("COLA", 30) };
      catalogOf(s).unavailable = ["COLA"];
    });
    const plan = buildPlan(desired(want), { stores: {} });
    expect(plan.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      "create store[a].item[COLA]",
      "create store[a].item[FRIES]",
      "update store[a].availability[COLA]",
    ]);
    expect(plan.operations.map((o) => o.endpoint)).toEqual([
      "items.upsert",
      "availability.toggle",
      "availability.mark",
    ]);
  });

  it("is deterministic, and its checksums follow the states", () => {
    const a = buildPlan(desired(chain(120)), current(chain(100)));
    const b = buildPlan(desired(chain(120)), current(chain(100)));
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const c = buildPlan(desired(chain(120)), current(chain(110)));
    expect(c.checksums.current).not.toBe(a.checksums.current);
    expect(c.checksums.desired).toBe(a.checksums.desired);
  });

  it("leaves stores that the files do not name alone", () => {
    const plan = buildPlan(
      desired(chain()),
      current(
        chain(),
        store("other", "5", (s) => (catalogOf(s).items = { X: item("X", 1) })),
      ),
    );
    expect(plan.changes).toEqual([]);
  });
});

describe("schedules and option prices (menu API)", () => {
  const withSchedule = (periods: { start: string; end: string }[]) =>
    store("s", "1", (s) => {
      catalogOf(s).items = {
        COMBO: item("COMBO", 300, { children: ["SIDE"] }),
        SIDE: group("SIDE", ["FRIES"], 1, 1),
        FRIES: item("FRIES", 50, { priceInParent: { COMBO: 0 } }),
      };
      catalogOf(s).categories = {
        BREAKFAST: {
          sku: "BREAKFAST",
          title: "Breakfast",
          items: ["COMBO"],
          schedules: [{ days: "mon,tue", periods }],
        },
      };
    });

  it("plans a changed category schedule as one category upsert carrying the schedule", () => {
    const plan = buildPlan(
      desired(withSchedule([{ start: "06:00", end: "11:00" }])),
      current(withSchedule([{ start: "07:00", end: "11:00" }])),
    );
    expect(plan.changes.map((c) => c.address)).toEqual(["store[s].category[BREAKFAST]"]);
    expect(plan.operations[0]!.body).toEqual([
      {
        sku: "BREAKFAST",
        title: "Breakfast",
        items: [{ sku: "COMBO", index: 0 }],
        schedules: [{ days_of_week: "mon,tue", time_periods: [{ start_time: "06:00", end_time: "11:00" }] }],
      },
    ]);
  });

  it("sends an option's price inside its parent as an ITEM override", () => {
    const plan = buildPlan(desired(withSchedule([])), { stores: {} });
    const upsert = plan.operations.find((o) => o.endpoint === "items.upsert")!;
    const fries = (upsert.body as { sku: string; price_info: unknown }[]).find((b) => b.sku === "FRIES")!;
    expect(fries.price_info).toEqual({
      price: 50,
      overrides: [{ override_type: "ITEM", override_sku: "COMBO", price: 0 }],
    });
  });

  it("leaves schedules to the utils group for stores that write them there", () => {
    const want = withSchedule([{ start: "06:00", end: "11:00" }]);
    want.schedulesVia = "utils";
    const plan = buildPlan(desired(want), current(withSchedule([{ start: "07:00", end: "11:00" }])));
    expect(plan.changes.filter((c) => c.kind === "category")).toEqual([]);
  });
});
