/** Category and item schedules and option prices inside a parent item, through the menu API. */

import { afterEach, describe, expect, it } from "vitest";
import { toWireCategory } from "../../src/kinds/categories.js";
import type { WireStoreMenu } from "../../src/platform/wire.js";
import { applyPlan } from "../../src/run/apply-plan.js";
import { planProject } from "../../src/run/plan-project.js";
import { exampleSession } from "../helpers/session.js";
import { catalogOf } from "../helpers/builders.js";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe("menu API schedules and ITEM overrides", () => {
  it("applies a category schedule and an option price inside a combo, then plans nothing", async () => {
    const fx = await exampleSession();
    cleanup = fx.close;
    const { project, session, emu } = fx;
    expect((await applyPlan((await planProject(project, session)).plan, session)).failed).toBe(0);

    const store = Object.values(project.desired.stores)[0]!;
    const category = Object.values(catalogOf(store).categories)[0]!;
    category.schedules = [
      { days: "sat,sun,hol", periods: [{ start: "08:00", end: "12:00" }] },
      { days: "mon,tue,wed,thu,fri", periods: [{ start: "06:00", end: "11:00" }] },
    ];
    const combo = Object.values(catalogOf(store).items).find(
      (i) => i.type === "ITEM" && i.children.length > 0,
    )!;
    const group = catalogOf(store).items[combo.children[0]!]!;
    const option = catalogOf(store).items[group.children[0]!]!;
    option.priceInParent = { [combo.sku]: 0 };

    emu.clearRequests();
    const { plan } = await planProject(project, session);
    expect(plan.changes.map((c) => `${c.action} ${c.address}`).sort()).toEqual(
      [
        `update store[${store.store.key}].category[${category.sku}]`,
        `update store[${store.store.key}].item[${option.sku}]`,
      ].sort(),
    );
    expect(plan.operations.map((o) => o.endpoint)).toEqual(["items.upsert", "categories.upsert"]);
    const report = await applyPlan(plan, session);
    expect(report.failed).toBe(0);
    expect(report.pending).toEqual([]);
    expect((await planProject(project, session)).plan.changes).toEqual([]);
  });

  it("plans nothing when the platform keeps one day per schedule and the files group the days", async () => {
    const fx = await exampleSession();
    cleanup = fx.close;
    const { project, session } = fx;
    const store = Object.values(project.desired.stores)[0]!;
    const category = Object.values(catalogOf(store).categories)[0]!;
    // The files group the days (as src/time/days-and-slots.ts `toSchedules` writes them).
    category.schedules = [
      { days: "mon,tue,wed,thu,fri", periods: [{ start: "06:00", end: "11:00" }] },
      { days: "sat,sun", periods: [{ start: "08:00", end: "12:00" }] },
    ];
    expect((await applyPlan((await planProject(project, session)).plan, session)).failed).toBe(0);
    expect((await planProject(project, session)).plan.changes).toEqual([]);

    // Someone rewrites the same opening times on the platform one day per schedule, in another order.
    const perDay = [
      ...["sun", "sat"].map((d) => ({ days: d, periods: [{ start: "08:00", end: "12:00" }] })),
      ...["fri", "thu", "wed", "tue", "mon"].map((d) => ({
        days: d,
        periods: [{ start: "06:00", end: "11:00" }],
      })),
    ];
    const path = `/restaurants/menu/v1/stores/${store.store.storeId}`;
    await session.client.call("POST", `${path}/categories`, [
      toWireCategory({ ...category, schedules: perDay }),
    ]);
    let live: WireStoreMenu | undefined;
    for (let i = 0; i < 200; i++) {
      live = await session.client.call<WireStoreMenu>("GET", `${path}/store-menu`);
      if (live.categories.find((c) => c.sku === category.sku)?.schedules?.length === 7) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(live!.categories.find((c) => c.sku === category.sku)?.schedules).toHaveLength(7);

    // Both sides normalise alike: the same times, grouped differently, are no change.
    expect((await planProject(project, session)).plan.changes).toEqual([]);
  });
});
