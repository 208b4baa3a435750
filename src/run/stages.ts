/**
 * The canary rollout (carte.yaml `rollout:`): a plan applied stage by stage, each stage planned again
 * from a fresh read of its stores and guarded by the digests of the plan that was shown.
 */

import type { LoadedProject } from "../config/index.js";
import { isComplete, type ApplyReport } from "../apply/report.js";
import {
  changesByStage,
  countChanges,
  stageProject,
  storesInScope,
  type StageOutcome,
} from "../apply/rollout.js";
import type { RolloutStage } from "../config/rollout-stages.js";
import { planOnly } from "../gitops/reviewed.js";
import type { Plan } from "../plan/types.js";
import { prepareSecretSink, type SecretSink } from "./secrets.js";
import type { Session } from "./session.js";
import { type RunOptions } from "./options.js";
import { planProject } from "./plan-project.js";
import { storeGuard } from "./store-guard.js";
import { applyPlanReport } from "./apply-plan.js";

/** Options of {@link applyStages}. */
export interface StagesOptions extends RunOptions {
  /** Where the webhook secrets the calls return go; each stage proves it can keep its own first. */
  sink: SecretSink;
  /**
   * Apply in each stage only the changes the (whole) plan shows, even when a fresh plan of the stage
   * finds more: set when the plan was limited to reviewed changes (src/gitops/reviewed.ts).
   */
  onlyPlanned?: boolean;
}

/** What {@link applyStages} did. */
export interface StagesResult {
  /** Every stage's calls and verification joined, with {@link ApplyReport.stages}. */
  report: ApplyReport;
  /** Events whose webhook secret the platform made but that could not be kept (src/run/secrets.ts). */
  lostSecrets: string[];
}

/**
 * The canary rollout: applies a plan stage by stage, in the order of carte.yaml
 * `rollout:`, and stops at the first stage that is not complete ({@link isComplete}: a failed or
 * skipped call, a refused store, a change the platform does not show, a duplicate) or that lost a
 * webhook secret; the later stages are reported `not_run` with what they would have changed.
 *
 * Each stage with changes is planned again from a fresh read of its own stores (and, for the first
 * stage, the client-level settings): what the earlier stages did is then known (a webhook event a
 * canary store created is joined, not created again). The plan's own digests of each store
 * (`checksums.stores`, as read for the plan that was shown and confirmed) guard every first write
 * ({@link storeGuard}): a store that changed since that plan is refused, and the rollout stops there.
 * The safety guards judged the whole plan before this is called; the lock of the run covers every
 * stage.
 *
 * @returns the joined report (never a `ConvergenceError`: a stage that did not converge is
 *   `failed`), and the secrets lost.
 * @throws what planning the first stage with changes (or preparing the secrets sink for it) throws:
 *   nothing was written then. Once a stage wrote, any error (planning a later stage, preparing its
 *   sink, an error while its calls are made) ends the rollout as a `failed` stage carrying the message.
 */
export async function applyStages(
  plan: Plan,
  project: LoadedProject,
  stages: readonly RolloutStage[],
  session: Session,
  options: StagesOptions,
): Promise<StagesResult> {
  const byStage = changesByStage(plan, stages);
  const outcomes: StageOutcome[] = [];
  const reports: ApplyReport[] = [];
  const lost: string[] = [];
  let stopped = false;
  for (const [i, stage] of stages.entries()) {
    const planned = byStage.get(stage.name) ?? [];
    const base = { name: stage.name, stores: storesInScope(plan, stage) };
    if (planned.length === 0) {
      outcomes.push({ ...base, status: "unchanged", changes: countChanges([]) });
      continue;
    }
    if (stopped) {
      outcomes.push({ ...base, status: "not_run", changes: countChanges(planned) });
      continue;
    }
    const scoped = stageProject(project, stage, i === 0);
    const failed = (err: unknown) => {
      outcomes.push({
        ...base,
        status: "failed",
        changes: countChanges(planned),
        error: err instanceof Error ? err.message : String(err),
      });
      stopped = true;
    };
    let stagePlan: Plan;
    let prepared: Awaited<ReturnType<typeof prepareSecretSink>>;
    let guard: ((store: string) => Promise<void>) | undefined;
    try {
      const targeting = plan.targeting ?? options.targeting;
      const fresh = await planProject(scoped, session, {
        ...options,
        ...(targeting ? { targeting } : {}),
        checksums: true,
        checkTargets: false,
        keepCurrent: options.onlyPlanned === true,
      });
      stagePlan =
        options.onlyPlanned && fresh.current
          ? planOnly(
              scoped,
              fresh.current,
              fresh.plan,
              planned.map((c) => c.address),
            )
          : fresh.plan;
      // The digests of the plan that was shown: a store changed since is refused at its first write.
      if (plan.checksums.stores) stagePlan.checksums.stores = plan.checksums.stores;
      guard = storeGuard(stagePlan, scoped, session, options);
      // Each stage proves, before its first call, that the sink can keep the secrets it will get.
      prepared = await prepareSecretSink(stagePlan, options.sink);
    } catch (err) {
      // Nothing of this stage was written; before any stage wrote, the run ends with the error itself.
      if (reports.length === 0) throw err;
      failed(err);
      continue;
    }
    let report: ApplyReport;
    try {
      report = await applyPlanReport(stagePlan, session, {
        ...options,
        secrets: prepared.sink,
        ...(guard ? { beforeStore: guard } : {}),
      });
    } catch (err) {
      // Some calls of the stage may have been made: the next plan shows what is left.
      failed(err);
      continue;
    }
    const stageLost = await prepared.finish(report.operations);
    lost.push(...stageLost);
    reports.push(report);
    const complete = isComplete(report) && stageLost.length === 0;
    outcomes.push({
      ...base,
      status: complete ? "applied" : "failed",
      changes: countChanges(stagePlan.changes),
      calls: report.operations.length,
    });
    if (!complete) stopped = true;
  }
  const report: ApplyReport = {
    operations: reports.flatMap((r) => r.operations),
    failed: reports.reduce((n, r) => n + r.failed, 0),
    skipped: reports.reduce((n, r) => n + r.skipped, 0),
    pending: reports.flatMap((r) => r.pending),
    duplicates: reports.flatMap((r) => r.duplicates ?? []),
    refused: reports.flatMap((r) => r.refused ?? []),
    waitedMs: reports.reduce((n, r) => n + r.waitedMs, 0),
    stages: outcomes,
  };
  return { report, lostSecrets: [...new Set(lost)] };
}
