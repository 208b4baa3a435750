/**
 * Steps "read", "plan" and "guard" of a run: the plan made (or a saved plan checked), finished for
 * the shard, the stage and the reviewed changes, the webhook secrets lost by an earlier run found, and
 * the safety guards judged, shown and enforced.
 */

import path from "node:path";
import { type BaseSplit } from "../gitops/base.js";
import { planOnly } from "../gitops/reviewed.js";
import { allowEmptyShard } from "../gitops/shard.js";
import { ExitCode, StalePlanError } from "../errors.js";
import type { CurrentState } from "../model.js";
import { isEmptyPlan } from "../plan/plan.js";
import type { Targeting } from "../plan/target.js";
import type { Plan, SecretRotation } from "../plan/types.js";
import { listWebhooks } from "../platform/webhook-calls.js";
import { findLostSecrets, secretsFileName, type SecretSink } from "./secrets.js";
import { type RunTarget, type Session } from "./session.js";
import { plannedStages, type StageOutcome } from "../apply/rollout.js";
import { checkSavedPlan } from "./saved-plan.js";
import { enforceSafety, planProject } from "./plan-project.js";
import { type RunOptions } from "./options.js";
import { type PlanRequest, type RunRequest, type RunHooks } from "./request.js";
import { type RunProject } from "./step-load.js";

/** The plan as read and planned ({@link readAndPlan}). */
export interface PlannedRun {
  plan: Plan;
  /** The whole current state, when the options kept it (`RunOptions.keepCurrent`). */
  current: CurrentState | undefined;
  /** The plan is the fresh plan that makes exactly a saved plan's changes. */
  fromFile: boolean;
  /**
   * When the plan's read of each store was in (src/run/plan-project.ts `planProject`), for a plan not made for
   * a saved plan file: the optimistic check of an apply that follows at once takes these reads
   * (`RunOptions.planReads`).
   */
  readAt?: Map<string, number>;
}

/**
 * Steps "read" and "plan": the platform read store by store, each store planned as its reads are in
 * (src/run/plan-project.ts `planProject`). A saved plan is applied as the fresh plan that makes exactly its
 * changes (`checkSavedPlan`); when none does, refused, or replaced when asked (`--replan`, `onReplan`).
 *
 * @throws {@link StalePlanError} for a saved plan that no longer holds, without `replan`.
 */
export async function readAndPlan(
  request: RunRequest,
  run: RunProject,
  session: Session,
  options: RunOptions,
  hooks: RunHooks,
): Promise<PlannedRun> {
  if (run.saved) {
    try {
      const plan = await checkSavedPlan(run.saved, run.project, session, options);
      return { plan, current: undefined, fromFile: true };
    } catch (err) {
      if (!(err instanceof StalePlanError) || !(request.command === "apply" && request.replan)) throw err;
      hooks.onReplan?.(err);
    }
  }
  const { plan, current, readAt } = await planProject(run.project, session, options);
  return { plan, current, fromFile: false, readAt };
}

/**
 * Step "plan", its end, pure: the plan of a shard without stores is let through the `no_stores` guard,
 * a staged plan records its stage, and an apply limited by `ApplyRequest.only` (src/run/request.ts) is rebuilt from
 * the same read for the addresses it keeps. Returns the plan the run goes on with.
 */
export function finishPlan(request: RunRequest, run: RunProject, planned: PlannedRun): Plan {
  let plan = planned.plan;
  if (request.shard) allowEmptyShard(plan, run.loaded);
  if (run.stage !== undefined) plan.stage = run.stage;
  // The platform of carte.yaml `platforms:` the plan is of: a saved plan is applied there only.
  const of = run.project.platformOf;
  if (of) {
    plan.platform = of.name;
    if (of.rehearsal) plan.rehearsal = true;
  }
  if (request.command === "apply" && request.only && planned.current) {
    const keep = request.only(plan);
    if (keep) plan = planOnly(run.project, planned.current, plan, keep);
  }
  return plan;
}

/** Webhook secrets found on their way by {@link recoverSecrets}. */
export interface SecretRecovery {
  /** Events of the marker to clear: secrets saved after all, or of webhooks the platform no longer has. */
  forget: string[];
  /** The lost secrets the apply rotates (also in `Plan.rotateSecrets`). */
  rotations: SecretRotation[];
}

/**
 * Step "plan", the secrets: webhook secrets an earlier run had the platform make and never saved, from
 * the marker beside the secrets file (the sink's for an apply, the one the run names for a plan).
 * Those of webhooks the platform has are rotated by the apply (`Plan.rotateSecrets`, set here); the
 * marker's other entries are cleared by it.
 */
export async function recoverSecrets(
  request: RunRequest,
  run: RunProject,
  plan: Plan,
  session: Session,
  sink: SecretSink | undefined,
): Promise<SecretRecovery> {
  const env = request.env ?? process.env;
  const named = secretsFileName({
    file: request.secretsFile,
    configured: run.project.secretsFile,
    env,
    platform: run.project.platformOf,
  });
  const journal = sink ? sink.journal : named && path.resolve(named);
  const journalled = journal ? await findLostSecrets(journal) : undefined;
  const forget = [...(journalled?.saved ?? [])];
  if (journalled && journalled.lost.length > 0 && webhooksTargeted(plan.targeting ?? run.targeting)) {
    const configured = new Set((await listWebhooks(session.client)).map((w) => String(w.event)));
    const rotate = journalled.lost.filter((l) => configured.has(l.event));
    if (rotate.length > 0) plan.rotateSecrets = rotate;
    forget.push(...journalled.lost.filter((l) => !configured.has(l.event)).map((l) => l.event));
  }
  return { forget, rotations: plan.rotateSecrets ?? [] };
}

/** Whether a run limited by `targeting` covers webhooks (no `--kind`, or `--kind webhook`). */
function webhooksTargeted(targeting: Targeting | undefined): boolean {
  return !targeting || targeting.kinds.length === 0 || targeting.kinds.includes("webhook");
}

/**
 * Step "guard": judge, show, then enforce. The safety guards judge the plan (`force` overrides them and
 * is recorded in it); `onPlan` is shown the plan, with the stages of the rollout an apply goes through
 * when the run is not limited to one, also when a guard refuses it; then a refusal ends the run before
 * any write. Returns the planned stages (without `--stage`, for a project with `rollout:`).
 *
 * @throws {@link UnsafePlanError} when a guard refuses the plan and `force` does not override it.
 */
export async function guardPlan(
  request: RunRequest,
  run: RunProject,
  plan: Plan,
  hooks: RunHooks,
  info: { saved: boolean; base: BaseSplit | undefined; target: RunTarget },
): Promise<StageOutcome[] | undefined> {
  let refusal: unknown;
  try {
    enforceSafety(plan, request.force);
  } catch (err) {
    refusal = err;
  }
  const rollout = run.stage === undefined ? run.project.rollout : undefined;
  const stages = rollout ? plannedStages(plan, rollout) : undefined;
  await hooks.onPlan?.(plan, { ...info, ...(stages ? { stages } : {}) });
  if (refusal) throw refusal;
  return stages;
}

/** The exit code of `carte plan`: 2 for a plan with changes under `--detailed-exitcode`, else 0. */
export function planExitCode(request: PlanRequest, plan: Plan): number {
  const nothing = isEmptyPlan(plan) && (plan.rotateSecrets ?? []).length === 0;
  return request.detailedExitCode && !nothing ? ExitCode.changes : ExitCode.ok;
}
