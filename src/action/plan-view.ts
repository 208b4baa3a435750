/**
 * What a plan comment (or the plan part of the job summary) shows, from one run or from the merged run
 * records of a matrix's shards: the view, its comment's body with the signed record of the reviewed
 * plan, and the run record a plan or drift run writes.
 */

import { ConfigError, ExitCode, type ConfigProblem } from "../errors.js";
import type { BaseSplit } from "../gitops/base.js";
import { writeRecord, type RecordPlatform, type RunRecord } from "../gitops/record.js";
import { completeBinding, encodeReviewed, type ReviewBinding, type ReviewKey } from "../gitops/reviewed.js";
import type { Shard } from "../gitops/shard.js";
import type { StageOutcome } from "../apply/rollout.js";
import type { Plan } from "../plan/types.js";
import { renderError } from "../render/error.js";
import * as core from "@actions/core";
import { describeCalls, type CallCount } from "../platform/call-tally.js";
import { escapeLog, escapeMarkdown } from "../render/escape.js";
import {
  callsMarkdown,
  jointPlan,
  platformCallsLine,
  worstExitCode,
  type PlatformSection,
} from "./platform-view.js";
import {
  contextLine,
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

/** The room of a comment of platforms' sections (GitHub allows 65,536 characters). */
const SECTIONS_CHARS = 60_000;

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
  /**
   * A run of platforms of carte.yaml `platforms:` (src/action/platform-view.ts): each platform's
   * own view, shown as its own section; `plan` is then their joint plan (`jointPlan`), for the outputs
   * and the reviewed-plan record only.
   */
  sections?: PlatformSection<PlanView>[] | undefined;
  /** The run's calls to the platform and those answered 2xx, once a session was open. */
  calls?: CallCount | undefined;
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
  if (view.sections) return sectionsBody(view, view.sections, ctx, options);
  return viewBody(view, ctx, { ...options, context: commentContext(ctx, view.commit) });
}

/** One view's body: {@link planCommentBody} of a run of one platform, or one platform's section. */
function viewBody(
  view: PlanView,
  ctx: ActionContext,
  options: {
    title?: string | undefined;
    record?: { key: ReviewKey | undefined } | undefined;
    context?: CommentContext | undefined;
    maxChars?: number | undefined;
  },
): string {
  const { context, title, maxChars } = options;
  const common = {
    ...(context ? { context } : {}),
    ...(title ? { title } : {}),
    ...(maxChars ? { maxChars } : {}),
  };
  if (view.problems && view.problems.length > 0) return renderProblemsComment(view.problems, common);
  if (view.plan && (view.errors.length === 0 || view.exitCode === ExitCode.unsafe)) {
    return renderPlanComment(view.plan, {
      ...common,
      split: view.split ?? undefined,
      forceHint: FORCE_HINT,
      fullPlanAt: "the job summary of this workflow run",
      target: view.target,
      stages: view.stages,
      preview: view.preview,
      ...(options.record ? recordOfPlan(view.plan, view.commit, ctx, options.record.key) : {}),
    });
  }
  return renderFailureComment(view.errors.join("\n\n") || "unknown error", view.exitCode, common);
}

/**
 * The body of a run of platforms: the heading, the commit, run and time, then each platform's section
 * (its heading one level down, its plan, problems or failure in its own share of the comment's room),
 * and the signed record of their joint plan.
 */
function sectionsBody(
  view: PlanView,
  sections: readonly PlatformSection<PlanView>[],
  ctx: ActionContext,
  options: { title?: string; record?: { key: ReviewKey | undefined } },
): string {
  const context = contextLine(commentContext(ctx, view.commit));
  const head = `### ${escapeMarkdown(options.title ?? "carte plan")}\n\n${context ? `${context}\n\n` : ""}`;
  let end = "";
  if (options.record && view.plan) {
    const record = recordOfPlan(view.plan, view.commit, ctx, options.record.key);
    end =
      "footer" in record
        ? `\n${record.footer}\n`
        : `> [!NOTE]\n> No reviewed-plan record: ${escapeMarkdown(record.noRecord)} The merge applies none of this plan.\n`;
  }
  const share = Math.floor((SECTIONS_CHARS - head.length - end.length) / Math.max(1, sections.length));
  const parts = sections.map((s) =>
    viewBody(s.view, ctx, { title: s.heading, maxChars: share }).replace(/^### /, "#### "),
  );
  return head + parts.join("\n") + end;
}

/**
 * A plan view in the job summary (the comment's body first, then the full text plan) and in the run
 * log (the text plan).
 */
export async function summarizePlan(view: PlanView, ctx: ActionContext, summary: JobSummary): Promise<void> {
  await summary.titled(planCommentBody(view, ctx, { title: summary.title }));
  if (!view.sections) {
    if (view.plan) await showPlan(view.plan, view.target, summary);
    if (view.calls) await summarizeCalls(view.calls, summary);
    return;
  }
  const calls = callsMarkdown(view.sections);
  if (calls) await summary.raw(calls);
  for (const s of view.sections) {
    if (s.calls) core.info(escapeLog(platformCallsLine(s.name, s.calls)));
    if (!s.view.plan) continue;
    await summary.raw(`#### ${escapeMarkdown(s.heading)}`);
    await showPlan(s.view.plan, s.view.target, summary);
  }
}

/**
 * The run's calls and their success rate (`412 calls to the platform, 99.5 % succeeded.`), the
 * measure the platform's terms bound, in the run log and the job summary.
 */
export async function summarizeCalls(calls: CallCount, summary: JobSummary): Promise<void> {
  const line = `${describeCalls(calls)}.`;
  core.info(escapeLog(line));
  await summary.raw(escapeMarkdown(line));
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
    ...(result.calls ? { calls: result.calls } : {}),
  };
}

/**
 * The view of a run of platforms: each platform's view as its section, their joint plan (for the
 * outputs and the reviewed-plan record), the worst exit code. The problems and errors stay in their
 * sections.
 */
export function sectionedView(sections: PlatformSection<PlanView>[], commit: string | undefined): PlanView {
  const plans = sections.flatMap((s) => (s.view.plan ? [s.view.plan] : []));
  return {
    plan: plans.length > 0 ? jointPlan(plans) : null,
    split: null,
    problems: null,
    errors: [],
    exitCode: worstExitCode(sections.map((s) => s.view.exitCode)),
    commit,
    sections,
  };
}

/** Why a run of several platforms writes no run record: a record holds one platform's run. */
export const ONE_PLATFORM_RECORD =
  "a run record (input plan-out or shard) holds one platform's run: set the input platform to one platform " +
  "(a matrix over the platforms: platform: ${{ matrix.platform }}), and merge the records with command: report";

/** The platform of a one-platform run's section, as its run record keeps it. */
export function recordPlatform(section: PlatformSection<PlanView>): RecordPlatform {
  return {
    name: section.name,
    heading: section.heading,
    ...(section.calls ? { calls: { calls: section.calls.calls, succeeded: section.calls.succeeded } } : {}),
  };
}

/** The run record of a plan or drift run (of one platform of carte.yaml `platforms:`, when given). */
export function recordOf(
  command: "plan" | "drift",
  shard: Shard | undefined,
  view: PlanView,
  platform?: RecordPlatform | undefined,
): RunRecord {
  return {
    ...(platform ? { platform } : {}),
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

/**
 * Writes the run record where `plan-out` says, or, with a shard, to `carte-run-K-of-N.json`
 * (`carte-run-NAME-K-of-N.json` for a run of platform NAME).
 */
export async function maybeWriteRecord(inputs: ActionInputs, record: RunRecord): Promise<string | undefined> {
  const platform = record.platform ? `${record.platform.name}-` : "";
  const file =
    inputs.planOut ||
    (inputs.shard ? `carte-run-${platform}${inputs.shard.index}-of-${inputs.shard.count}.json` : "");
  if (!file) return undefined;
  await writeRecord(file, record);
  return file;
}

/** The failure message of a view, for the failed step. */
export function failureOf(view: PlanView): string | undefined {
  if (view.sections) {
    const failed = view.sections.flatMap((s) => {
      const f = failureOf(s.view);
      return f === undefined ? [] : [`platform ${s.name}: ${f}`];
    });
    return failed.length > 0 ? failed.join("\n") : undefined;
  }
  if (view.problems && view.problems.length > 0) return renderError(new ConfigError(view.problems));
  return view.errors.length > 0 ? view.errors.join("\n") : undefined;
}
