/**
 * Steps "apply" and "verify" of a run: the confirmation, the lost webhook secrets rotated, the plan
 * applied at once or stage by stage, and the verdict that gives the apply's exit code.
 */

import { ExitCode, warning } from "../errors.js";
import { isEmptyPlan } from "../plan/plan.js";
import type { Plan } from "../plan/types.js";
import {
  prepareEvents,
  prepareSecretSink,
  rotateLostSecrets,
  type Rotations,
  type SecretSink,
} from "./secrets.js";
import { type Session } from "./session.js";
import { countChanges, type StageOutcome } from "../apply/rollout.js";
import { applyPlan } from "./apply-plan.js";
import { applyStages } from "./stages.js";
import { isComplete, type ApplyReport } from "../apply/report.js";
import { storeGuard } from "./store-guard.js";
import { type RunOptions } from "./options.js";
import { type ApplyRequest, type RunHooks } from "./request.js";
import { type RunProject } from "./step-load.js";
import { type SecretRecovery } from "./step-plan.js";

/** What an apply did ({@link applyRun}). */
export interface AppliedRun {
  /** The calls' outcomes and the verification's, the rotations of lost secrets first. */
  report: ApplyReport;
  /** How long the calls and the verification took, in milliseconds. */
  applyMs: number;
  /** Events whose webhook secret the platform made but that could not be kept. */
  lostSecrets: string[];
}

/**
 * Steps "apply" and "verify" of an apply: nothing for a plan without changes (`undefined`); else the
 * confirmation (`confirm`, not for a saved plan: it was reviewed; `"cancelled"` when declined), the
 * lost secrets rotated, then the plan applied, stage by stage with `rollout:` (each stage verified
 * before the next; the first not complete stops the rest) or at once, each store checked against the
 * plan before its first write and verified after its last call (src/run/apply-plan.ts, src/run/verify-apply.ts).
 */
export async function applyRun(
  request: ApplyRequest,
  run: RunProject,
  plan: Plan,
  fromFile: boolean,
  session: Session,
  options: RunOptions,
  sink: SecretSink,
  recovery: SecretRecovery,
  hooks: RunHooks,
): Promise<AppliedRun | "cancelled" | undefined> {
  const { rotations } = recovery;
  if (isEmptyPlan(plan) && rotations.length === 0) {
    await forgetSecrets(sink, recovery.forget, hooks);
    return undefined;
  }
  // The plan's own reads stand for the check before each store's first write only when the apply
  // follows its plan at once (src/run/store-guard.ts): not after a person was asked, nor in the
  // stages of a rollout (each is planned again).
  let guarded: RunOptions = options;
  if (!fromFile && hooks.confirm) {
    if (!(await hooks.confirm(plan))) return "cancelled";
    guarded = withoutPlanReads(options);
  }
  await forgetSecrets(sink, recovery.forget, hooks);
  // Lost secrets first, each rotated and saved once the sink proved it can keep it.
  let rotated: Rotations | undefined;
  if (rotations.length > 0) {
    await prepareEvents(
      sink,
      rotations.map((r) => r.event),
    );
    rotated = await rotateLostSecrets(rotations, session.client, sink);
  }
  const stages = run.stage === undefined ? run.project.rollout : undefined;
  if (stages) {
    const started = Date.now();
    const staged = isEmptyPlan(plan)
      ? { report: emptyReport(), lostSecrets: [] }
      : await applyStages(plan, run.project, stages, session, {
          ...withoutPlanReads(options),
          sink,
          ...(request.only ? { onlyPlanned: true } : {}),
        });
    return {
      report: withRotations(staged.report, rotated),
      applyMs: Date.now() - started,
      lostSecrets: staged.lostSecrets,
    };
  }
  // Before any call, the sink proves it can keep the secrets the plan's calls will return, or the
  // apply is refused (src/run/secrets.ts prepareSecretSink); afterwards, secrets made but not kept.
  const prepared = await prepareSecretSink(plan, sink);
  const started = Date.now();
  const guard = storeGuard(plan, run.project, session, guarded);
  const report = isEmptyPlan(plan)
    ? emptyReport()
    : await applyPlan(plan, session, {
        ...options,
        secrets: prepared.sink,
        ...(guard ? { beforeStore: guard } : {}),
      });
  const applyMs = Date.now() - started;
  const lostSecrets = await prepared.finish(report.operations);
  const staged =
    run.stage === undefined ? report : { ...report, stages: [stageOutcome(plan, run.stage, report)] };
  return { report: withRotations(staged, rotated), applyMs, lostSecrets };
}

/** The options without {@link RunOptions.planReads}: every store is read again before its first write. */
function withoutPlanReads(options: RunOptions): RunOptions {
  const { planReads: _reused, ...rest } = options;
  return rest;
}

/**
 * Step "verify", its verdict: the exit code of an apply. Never 0 while something is left: a failed or
 * skipped call, a refused store, a change not shown, a duplicate, a webhook secret made but not kept.
 */
export function verdict(report: ApplyReport, lostSecrets: readonly string[]): number {
  return isComplete(report) && lostSecrets.length === 0 ? ExitCode.ok : ExitCode.error;
}

/** Clears the marker's entries of secrets saved after all, or never made; a failure is a warning. */
async function forgetSecrets(sink: SecretSink, forget: readonly string[], hooks: RunHooks): Promise<void> {
  if (forget.length === 0 || !sink.release) return;
  try {
    await sink.release([...forget]);
  } catch (err) {
    hooks.onWarning?.(
      warning(
        `could not clear ${forget.join(", ")} from the marker of webhook secrets on their way: ` +
          `${err instanceof Error ? err.message : String(err)}`,
      ),
    );
  }
}

/** The report of an apply that made no call of the plan (it had only secrets to rotate). */
function emptyReport(): ApplyReport {
  return { operations: [], failed: 0, skipped: 0, pending: [], duplicates: [], refused: [], waitedMs: 0 };
}

/** A report with the rotations of lost secrets made before the plan's calls, first. */
function withRotations(report: ApplyReport, rotations: Rotations | undefined): ApplyReport {
  if (!rotations) return report;
  return {
    ...report,
    operations: [...rotations.results, ...report.operations],
    failed: report.failed + rotations.results.filter((r) => r.status === "failed").length,
    ...(rotations.rotated.length > 0 ? { rotated: rotations.rotated } : {}),
  };
}

/** What the one stage of a `--stage` apply did. */
function stageOutcome(plan: Plan, name: string, report: ApplyReport): StageOutcome {
  return {
    name,
    status: isComplete(report) ? "applied" : "failed",
    stores: plan.stores.length,
    changes: countChanges(plan.changes),
    calls: report.operations.length,
  };
}
