/**
 * What a plan comment (or the plan part of the job summary) shows, from one run or from the merged run
 * records of a matrix's shards: the view, its comment's body with the signed record of the reviewed
 * plan, and the run record a plan or drift run writes.
 */

import { ConfigError, ExitCode, type ConfigProblem } from "../errors.js";
import type { BaseSplit } from "../gitops/base.js";
import { writeRecord, type RunRecord } from "../gitops/record.js";
import { completeBinding, encodeReviewed, type ReviewBinding, type ReviewKey } from "../gitops/reviewed.js";
import type { Shard } from "../gitops/shard.js";
import type { StageOutcome } from "../apply/rollout.js";
import type { Plan } from "../plan/types.js";
import { renderError } from "../render/error.js";
import {
  renderFailureComment,
  renderPlanComment,
  renderProblemsComment,
  type CommentContext,
  type PreviewNote,
} from "../render/markdown.js";
import type { RunResult } from "../run/request.js";
import { describeTarget } from "../run/session.js";
import type { ActionContext } from "./context.js";
import type { ActionInputs } from "./inputs.js";
import { FORCE_HINT, describeError } from "./outcome.js";
import { showPlan, type JobSummary } from "./summary.js";

/** The comment's "which commit, which run, when". */
export function commentContext(ctx: ActionContext, commit: string | undefined): CommentContext {
  return {
    commit,
    ...(commit && ctx.repository ? { commitUrl: `${ctx.serverUrl}/${ctx.repository}/commit/${commit}` } : {}),
    runUrl: ctx.runUrl,
    at: new Date(),
  };
}

/** What a plan comment (or the plan part of the job summary) shows, from one run or merged shards. */
export interface PlanView {
  plan: Plan | null;
  split: BaseSplit | null;
  problems: ConfigProblem[] | null;
  errors: string[];
  exitCode: number;
  commit: string | undefined;
  /** Where the run went, in words (src/run/session.ts `describeTarget`). */
  target?: string | undefined;
  /** The rollout's stages and what each would change (`RunResult.plannedStages`). */
  stages?: StageOutcome[] | undefined;
  /** The menu previews uploaded for this plan (one per shard of a merged run), or why they could not be. */
  preview?: PreviewNote[] | undefined;
}

/** What the plan comment's record is bound to: this pull request, its head commit and base branch. */
function planBinding(ctx: ActionContext): Partial<ReviewBinding> {
  return {
    repository: ctx.repository,
    pullRequest: ctx.pullRequest?.number,
    head: ctx.pullRequest?.headSha,
    base: ctx.pullRequest?.baseRef,
  };
}

/**
 * The end of the plan comment: the signed record of `plan` for this pull request's head (src/gitops/
 * reviewed.ts), or why there is none.
 */
function recordOfPlan(
  plan: Plan,
  commit: string | undefined,
  ctx: ActionContext,
  key: ReviewKey | undefined,
): { footer: string } | { noRecord: string } {
  if (!key) return { noRecord: "no review key is set (input review-key or CARTE_REVIEW_KEY)." };
  const binding = planBinding(ctx);
  if (!completeBinding(binding)) {
    return { noRecord: "this run has no pull request (number, head commit and base branch) to sign it for." };
  }
  if (commit !== binding.head) {
    return {
      noRecord: `the plan was made for commit ${(commit ?? "unknown").slice(0, 7)}, not the pull request's head ${binding.head.slice(0, 7)}.`,
    };
  }
  return { footer: encodeReviewed(plan, binding, key) };
}

/**
 * The plan comment's body for a view: the plan, the problems, or the failure, under `title` (default
 * "carte plan"). `record`: end a plan with its signed record, made with this key (the pull request's
 * comment); absent, no record nor a word about it (the job summary).
 */
export function planCommentBody(
  view: PlanView,
  ctx: ActionContext,
  options: { title?: string; record?: { key: ReviewKey | undefined } } = {},
): string {
  const context = commentContext(ctx, view.commit);
  const title = options.title;
  if (view.problems && view.problems.length > 0)
    return renderProblemsComment(view.problems, { context, ...(title ? { title } : {}) });
  if (view.plan && (view.errors.length === 0 || view.exitCode === ExitCode.unsafe)) {
    return renderPlanComment(view.plan, {
      ...(title ? { title } : {}),
      context,
      split: view.split ?? undefined,
      forceHint: FORCE_HINT,
      fullPlanAt: "the job summary of this workflow run",
      target: view.target,
      stages: view.stages,
      preview: view.preview,
      ...(options.record ? recordOfPlan(view.plan, view.commit, ctx, options.record.key) : {}),
    });
  }
  return renderFailureComment(view.errors.join("\n\n") || "unknown error", view.exitCode, {
    context,
    ...(title ? { title } : {}),
  });
}

/**
 * A plan view in the job summary (the comment's body first, then the full text plan) and in the run
 * log (the text plan).
 */
export async function summarizePlan(view: PlanView, ctx: ActionContext, summary: JobSummary): Promise<void> {
  await summary.titled(planCommentBody(view, ctx, { title: summary.title }));
  if (view.plan) await showPlan(view.plan, view.target, summary);
}

/** A run's result as a view (for the comment), with the split's base named as the user knows it. */
export function viewOf(
  result: RunResult,
  commit: string | undefined,
  baseName: string | undefined,
): PlanView {
  const problems = result.error instanceof ConfigError ? result.error.problems : null;
  const split = result.base ? { ...result.base, ...(baseName ? { ref: baseName } : {}) } : null;
  return {
    plan: result.plan ?? null,
    split,
    problems,
    errors: result.error !== undefined && !problems ? [describeError(result.error, result.plan)] : [],
    exitCode: result.exitCode,
    commit,
    ...(result.target ? { target: describeTarget(result.target) } : {}),
    ...(result.plannedStages ? { stages: result.plannedStages } : {}),
  };
}

/** The run record of a plan or drift run. */
export function recordOf(command: "plan" | "drift", shard: Shard | undefined, view: PlanView): RunRecord {
  return {
    carte: "run-record",
    version: 1,
    command,
    shard: shard ?? null,
    commit: view.commit ?? null,
    exitCode: view.exitCode,
    plan: view.plan,
    split: view.split,
    problems: view.problems,
    error: view.errors.length > 0 ? view.errors.join("\n") : null,
    ...(view.target !== undefined ? { target: view.target } : {}),
    ...(view.preview?.length === 1 ? { preview: view.preview[0]! } : {}),
  };
}

/** Writes the run record where `plan-out` says, or, with a shard, to `carte-run-K-of-N.json`. */
export async function maybeWriteRecord(inputs: ActionInputs, record: RunRecord): Promise<string | undefined> {
  const file =
    inputs.planOut || (inputs.shard ? `carte-run-${inputs.shard.index}-of-${inputs.shard.count}.json` : "");
  if (!file) return undefined;
  await writeRecord(file, record);
  return file;
}

/** The failure message of a view, for the failed step. */
export function failureOf(view: PlanView): string | undefined {
  if (view.problems && view.problems.length > 0) return renderError(new ConfigError(view.problems));
  return view.errors.length > 0 ? view.errors.join("\n") : undefined;
}
