import { describe, expect, it } from "vitest";
import {
  changesByStage,
  countChanges,
  findStage,
  plannedStages,
  stageProject,
} from "../../src/apply/rollout.js";
import type { LoadedProject } from "../../src/config/index.js";
import { UsageError } from "../../src/errors.js";
import { buildPlan } from "../../src/plan/plan.js";
import type { ResourceChange } from "../../src/plan/types.js";
import { current, desired, item, store, catalogOf } from "../helpers/builders.js";

const stages = [
  { name: "canary", stores: ["a"] },
  { name: "middle", stores: ["b"] },
  { name: "rest", stores: ["c", "d"] },
];

const withItems = (key: string, id: string, n: number) =>
  store(key, id, (s) => {
    for (let i = 0; i < n; i++) catalogOf(s).items[`SKU-${i}`] = item(`SKU-${i}`, 100 + i);
  });

/** Stores a (1 item to create), b (nothing), c (2 items), d (1 item to update, 1 to delete). */
function plan() {
  const d = withItems("d", "4", 2);
  const now = current(withItems("a", "1", 0), withItems("b", "2", 1), withItems("c", "3", 0), d);
  catalogOf(now.stores.d!).items["SKU-0"] = item("SKU-0", 999);
  catalogOf(now.stores.d!).items["OLD"] = item("OLD", 1);
  const want = desired(withItems("a", "1", 1), withItems("b", "2", 1), withItems("c", "3", 2), d);
  return buildPlan(want, now);
}

const client = (address: string): ResourceChange => ({
  address,
  store: "",
  kind: "client_webhook",
  key: "STORE_PROVISIONING_STATUS",
  action: "create",
  before: null,
  after: { url: "https://x.example/hook" },
  diff: [],
});

describe("rollout stages of a plan", () => {
  it("puts each store's changes in its stage and client-level changes in the first", () => {
    const p = plan();
    p.changes.push(client("client.client_webhook[STORE_PROVISIONING_STATUS]"));
    const by = changesByStage(p, stages);
    expect([...by.keys()]).toEqual(["canary", "middle", "rest"]);
    expect(by.get("canary")!.map((c) => c.store)).toEqual(["a", ""]);
    expect(by.get("middle")).toEqual([]);
    expect(new Set(by.get("rest")!.map((c) => c.store))).toEqual(new Set(["c", "d"]));
  });

  it("counts what each stage would change, a stage without changes as unchanged", () => {
    const p = plan();
    expect(plannedStages(p, stages)).toEqual([
      {
        name: "canary",
        status: "not_run",
        stores: 1,
        changes: { create: 1, update: 0, delete: 0, stores: 1 },
      },
      {
        name: "middle",
        status: "unchanged",
        stores: 1,
        changes: { create: 0, update: 0, delete: 0, stores: 0 },
      },
      { name: "rest", status: "not_run", stores: 2, changes: { create: 2, update: 1, delete: 1, stores: 2 } },
    ]);
    expect(countChanges([client("client.client_webhook[X]")])).toEqual({
      create: 1,
      update: 0,
      delete: 0,
      stores: 0,
    });
  });

  it("limits a project to one stage, the client-level settings with the first stage only", () => {
    const d = desired(withItems("a", "1", 1), withItems("b", "2", 1), withItems("c", "3", 1));
    const project = {
      desired: { ...d, client: { webhooks: {} }, currency: "COP" },
      rollout: stages,
    } as unknown as LoadedProject;
    const first = stageProject(project, stages[0]!, true);
    expect(Object.keys(first.desired.stores)).toEqual(["a"]);
    expect(first.desired.client).toEqual({ webhooks: {} });
    expect(first.desired.currency).toBe("COP");
    const rest = stageProject(project, stages[2]!, false);
    expect(Object.keys(rest.desired.stores)).toEqual(["c"]);
    expect(rest.desired).not.toHaveProperty("client");

    expect(findStage(project, "middle")).toEqual({ stage: stages[1], first: false });
    expect(() => findStage(project, "constructor")).toThrow(UsageError);
    expect(() => findStage({ ...project, rollout: undefined } as LoadedProject, "canary")).toThrow(
      /carte\.yaml has no rollout: section/,
    );
  });
});
