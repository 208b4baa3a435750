/** Category and item schedules and option prices inside a parent item, through the menu API. */

import { afterEach, describe, expect, it } from "vitest";
import { applyPlan, planProject } from "../../src/workflow.js";
import { exampleSession } from "../helpers/session.js";

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
    const category = Object.values(store.categories)[0]!;
    category.schedules = [
      { days: "sat,sun,hol", periods: [{ start: "08:00", end: "12:00" }] },
      { days: "mon,tue,wed,thu,fri", periods: [{ start: "06:00", end: "11:00" }] },
    ];
    const combo = Object.values(store.items).find((i) => i.type === "ITEM" && i.children.length > 0)!;
    const group = store.items[combo.children[0]!]!;
    const option = store.items[group.children[0]!]!;
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
});
