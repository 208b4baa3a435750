import { describe, expect, it } from "vitest";
import type { LoadedProject } from "../../src/config/index.js";
import { UnsafePlanError, UsageError } from "../../src/errors.js";
import { buildPlan } from "../../src/plan/plan.js";
import type { Plan } from "../../src/plan/types.js";
import { finishPlan, guardPlan, planExitCode } from "../../src/run/step-plan.js";
import { resolveScope, type RunProject } from "../../src/run/step-load.js";
import { verdict } from "../../src/run/step-apply.js";
import { type PlanRequest } from "../../src/run/request.js";
import type { RunTarget } from "../../src/run/session.js";
import type { ApplyReport } from "../../src/apply/report.js";
import { current, desired, item, store, catalogOf } from "../helpers/builders.js";

/** A store with `n` items in one category shown by one menu. */
function shop(n: number): ReturnType<typeof store> {
  return store("shop", "1", (s) => {
    for (let i = 0; i < n; i++) catalogOf(s).items[`I${i}`] = item(`I${i}`, 100 + i);
    catalogOf(s).categories = { ALL: { sku: "ALL", title: "All", items: Object.keys(catalogOf(s).items) } };
    catalogOf(s).menus = { DEFAULT: { type: "DEFAULT", categories: [{ sku: "ALL", active: true }] } };
  });
}

/** A plan that changes one price of twenty items: no guard trips. */
const smallPlan = (): Plan => {
  const want = shop(20);
  catalogOf(want).items.I0!.price = 120;
  return buildPlan(desired(want), current(shop(20)));
};

/** A plan that deletes every item of the store: the guards refuse it. */
const emptyingPlan = (): Plan => buildPlan(desired(shop(0)), current(shop(20)));

/** The run's project as the steps after loading see it: no rollout, no stage. */
const run = (): RunProject => {
  const project = { rollout: undefined } as unknown as LoadedProject;
  return {
    loaded: project,
    project,
    targeting: undefined,
    base: undefined,
    saved: undefined,
    stage: undefined,
  };
};

const planRequest = (extra: Partial<PlanRequest> = {}): PlanRequest => ({
  command: "plan",
  config: "carte.yaml",
  ...extra,
});
const target = { kind: "platform", host: "api.example.test" } as unknown as RunTarget;
const report = (extra: Partial<ApplyReport> = {}): ApplyReport => ({
  operations: [],
  failed: 0,
  skipped: 0,
  pending: [],
  duplicates: [],
  refused: [],
  waitedMs: 0,
  ...extra,
});

describe("the run's steps", () => {
  it("resolve scope: --scope changed without --base is a usage error, before any file is read", async () => {
    const err = await resolveScope(
      planRequest({ scope: "changed", config: "/nonexistent/carte.yaml" }),
      {},
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/--scope changed needs --base REF/);
  });

  it("guard: a refused plan is shown first, then the run ends with the guard's error", async () => {
    const shown: Plan[] = [];
    const plan = emptyingPlan();
    const err = await guardPlan(
      planRequest(),
      run(),
      plan,
      { onPlan: (p) => void shown.push(p) },
      {
        saved: false,
        base: undefined,
        target,
      },
    ).catch((e: unknown) => e);
    expect(shown).toEqual([plan]);
    expect(err).toBeInstanceOf(UnsafePlanError);
    expect((err as UnsafePlanError).message).toMatch(/Nothing was changed/);
  });

  it("guard: --force --reason lets the plan through and records the reason in it", async () => {
    const plan = emptyingPlan();
    await guardPlan(
      planRequest({ force: { reason: "closing the store" } }),
      run(),
      plan,
      {},
      {
        saved: false,
        base: undefined,
        target,
      },
    );
    expect(plan.safety.override).toEqual({ reason: "closing the store" });
  });

  it("plan: a staged run records its stage in the plan it goes on with", () => {
    const staged = { ...run(), stage: "pilot" };
    const plan = finishPlan(planRequest(), staged, {
      plan: smallPlan(),
      current: undefined,
      fromFile: false,
    });
    expect(plan.stage).toBe("pilot");
  });

  it("plan's exit code: 2 for changes only with --detailed-exitcode, 0 without changes", () => {
    expect(planExitCode(planRequest({ detailedExitCode: true }), smallPlan())).toBe(2);
    expect(planExitCode(planRequest(), smallPlan())).toBe(0);
    const none = buildPlan(desired(shop(20)), current(shop(20)));
    expect(planExitCode(planRequest({ detailedExitCode: true }), none)).toBe(0);
  });

  it("verify: an apply exits 0 only when nothing is left undone", () => {
    expect(verdict(report(), [])).toBe(0);
    expect(verdict(report({ failed: 1 }), [])).toBe(1);
    expect(verdict(report({ pending: ["store[shop].item[I0]"] }), [])).toBe(1);
    expect(verdict(report(), ["ORDER_CREATED"])).toBe(1);
  });
});
