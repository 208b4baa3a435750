/**
 * The GitHub Action: a thin adapter from the Action's inputs and the run's context to the plan/apply
 * path it shares with the CLI (src/run.ts), and from the result to the Action's outputs, job summary,
 * annotations, pull-request comment and drift issue. The GitOps parts (the base-versus-head split, the
 * reviewed plan, the drift issue's calls, sharding and run records) live in src/gitops.
 *
 * Commands (input `command`):
 * - `plan`: plans; on a pull request, against the base branch's files too, and posts (or updates) one
 *   comment: the head commit, the run, the time, "This pull request changes" apart from "Already
 *   different on the platform", and the hidden record of the reviewed plan. Configuration errors become
 *   annotations on the files and replace the comment's body.
 * - `apply`: on a push (a merge), applies only what the merged pull request's reviewed plan showed and
 *   refuses the rest (exit code 3) unless `apply-unreviewed: true`; on any other event
 *   (workflow_dispatch) applies the whole repository, with the safety guards.
 * - `drift`: plans and opens, updates or closes the one issue labelled `carte-drift`; exit code 2 when
 *   the platform differs from the files.
 * - `report`: merges the run records of a matrix's shards (input `plans`) into the one comment (or drift
 *   issue) a single job would have written.
 *
 * Outputs, set once on every run whatever happens: `exitcode`, `has-changes`, `summary` (JSON counts,
 * `null` when no plan was made), `plan-file` (the run record written, if any), and, when no secrets
 * file is named, `webhook_secret_<EVENT>` (masked) for each webhook secret an apply got.
 *
 * The run log tells the story: the text plan (each section of changes in a collapsible group), the
 * apply's outcome, warnings, and every line escaped so that no value becomes a workflow command
 * (src/render/escape.ts `escapeLog`). The job summary has one heading, the command's.
 */

import path from "node:path";
import { appendFile } from "node:fs/promises";
import { escapeHtml, escapeLines, escapeLog, escapeMarkdown, escapeTerminal } from "../render/escape.js";
import { lostSecretsMessage } from "../secrets.js";
import * as core from "@actions/core";
import { glob } from "tinyglobby";
import {
  ConfigError,
  ExitCode,
  UnsafePlanError,
  exitCodeFor,
  type ConfigProblem,
  UsageError,
} from "../errors.js";
import type { BaseSplit } from "../gitops/base.js";
import { fetchCommit, findRepository, resolveCommit, type GitRepository } from "../gitops/git.js";
import {
  DEFAULT_BOT_LOGIN,
  GitHubRepo,
  isCartes,
  upsertMarkedComment,
  type IssueComment,
} from "../gitops/github.js";
import { mergeRecords, readRecord, writeRecord, type RunRecord } from "../gitops/record.js";
import { describeRefHolder, lockName } from "../gitops/ref-lock.js";
import type { LoadedProject } from "../config/index.js";
import { DEFAULT_LOCK_REF, DEFAULT_LOCK_REMOTE, DEFAULT_LOCK_STALE_MINUTES } from "../config/load.js";
import {
  completeBinding,
  encodeReviewed,
  findReviewed,
  judgeReviewed,
  reviewKey,
  type RecordReading,
  type ReviewBinding,
  type ReviewKey,
} from "../gitops/reviewed.js";
import { parseShard, type Shard } from "../gitops/shard.js";
import type { Plan, ResourceChange } from "../plan/types.js";
import { renderError } from "../render/error.js";
import {
  renderApplyComment,
  renderDriftIssue,
  renderFailureComment,
  renderPlanComment,
  renderProblemsComment,
  type CommentContext,
  type PreviewNote,
} from "../render/markdown.js";
import { renderReport, renderReportMarkdown } from "../render/report.js";
import { describeTarget } from "../session.js";
import { joinTextParts, renderTextParts, type TextPart } from "../render/text.js";
import { runCarte, type RunResult } from "../run.js";
import { stagesNotRun } from "../render/rollout.js";
import type { StageOutcome } from "../apply/rollout.js";
import { COMMENT_MARKER, DRIFT_LABEL, DRIFT_MARKER, applyMarker } from "./comment.js";
import { readContext, type ActionContext } from "./context.js";
import { previewPlan } from "../preview.js";
import {
  artifactStorageMissing,
  artifactUploader,
  previewArtifactName,
  uploadPreview,
  type PreviewInput,
  type PreviewUploader,
} from "./preview.js";
import { actionSecretSink, actionSecretsFile } from "./secrets.js";

/** The Action's commands. */
export type ActionCommand = "plan" | "apply" | "drift" | "report";

/** The Action's inputs (action.yml), read from the environment the runner sets. */
export interface ActionInputs {
  command: ActionCommand;
  config: string;
  comment: boolean;
  githubToken: string;
  force: { reason: string } | undefined;
  /** Input `secrets-file`; empty: `CARTE_SECRETS_FILE`, else carte.yaml `secrets_file:`. */
  secretsFile: string;
  /** Input `base`: `auto` (the pull request's base commit), `none`, or a git ref. */
  base: string;
  /** Input `apply-unreviewed`: on a merge, apply what the reviewed plan did not show too. */
  applyUnreviewed: boolean;
  /** Input `shard`: `K/N`. */
  shard: Shard | undefined;
  /** Input `stage`: one stage of carte.yaml `rollout:` alone (src/apply/rollout.ts); empty: every stage. */
  stage: string | undefined;
  /** Input `plan-out`: where `plan` and `drift` write their run record (default with a shard). */
  planOut: string;
  /** Input `plans`: `report`'s run records, glob patterns one per line. */
  plans: string[];
  /** Input `comment-author`: the login whose comments and issues are carte's. */
  commentAuthor: string;
  /**
   * Input `scope` of `plan`: `all` (default) or `changed`: read and plan only what the pull request's
   * files can touch (src/gitops/scope.ts), when there is a base to compare with.
   */
  scope: "all" | "changed";
  /**
   * The key of the reviewed-plan records (src/gitops/reviewed.ts), from input `review-key`, else
   * `CARTE_REVIEW_KEY`; undefined when neither is set (the plan then writes no record, and the merge
   * applies nothing as reviewed).
   */
  reviewKey: ReviewKey | undefined;
  /**
   * Input `git-lock` (default true): apply under the lock across machines, `refs/carte/lock` of the
   * checkout's `origin` when carte.yaml names no `lock:` (src/gitops/ref-lock.ts); false: none.
   */
  gitLock: boolean;
  /**
   * Input `preview` of `plan` on a pull request: `changed` (default) uploads the menu preview of the
   * stores the pull request changes, `all` of every store planned, `off` none (src/action/preview.ts).
   */
  preview: PreviewInput;
}

/** What the Action is given besides its environment: the artifact upload, replaced in tests. */
export interface ActionDeps {
  /** Uploads the menu preview; default GitHub's artifact client (src/action/preview.ts). */
  uploadArtifact?: PreviewUploader;
}

const COMMANDS: readonly ActionCommand[] = ["plan", "apply", "drift", "report"];

/** The review key's secret as the workflow gives it: input `review-key`, else `CARTE_REVIEW_KEY`. */
function reviewSecret(env: NodeJS.ProcessEnv): string {
  return core.getInput("review-key") || env.CARTE_REVIEW_KEY || "";
}

/**
 * Reads and checks the inputs (`INPUT_*`, and `CARTE_REVIEW_KEY` from `env`). Throws on a bad value,
 * never quoting the review key.
 */
export function readInputs(env: NodeJS.ProcessEnv = process.env): ActionInputs {
  const command = core.getInput("command") || "plan";
  if (!(COMMANDS as readonly string[]).includes(command))
    throw new UsageError(`input command must be plan, apply, drift or report, got ${command}`);
  const bool = (name: string, dflt: boolean) => {
    const v = core.getInput(name).trim().toLowerCase();
    if (v === "") return dflt;
    if (v === "true" || v === "false") return v === "true";
    throw new UsageError(`input ${name} must be true or false, got ${v}`);
  };
  const reason = core.getInput("force-reason");
  const shard = core.getInput("shard").trim();
  const scope = core.getInput("scope").trim().toLowerCase() || "all";
  if (scope !== "all" && scope !== "changed")
    throw new UsageError(`input scope must be all or changed, got ${scope}`);
  const preview = core.getInput("preview").trim().toLowerCase() || "changed";
  if (preview !== "changed" && preview !== "all" && preview !== "off")
    throw new UsageError(`input preview must be changed, all or off, got ${preview}`);
  return {
    command: command as ActionCommand,
    config: core.getInput("config") || "carte.yaml",
    comment: bool("comment", true),
    githubToken: core.getInput("github-token"),
    force: reason ? { reason } : undefined,
    secretsFile: core.getInput("secrets-file"),
    base: core.getInput("base").trim() || "auto",
    applyUnreviewed: bool("apply-unreviewed", false),
    shard: shard ? parseShard(shard, "input shard") : undefined,
    stage: core.getInput("stage").trim() || undefined,
    planOut: core.getInput("plan-out").trim(),
    plans: core
      .getInput("plans")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== ""),
    commentAuthor: core.getInput("comment-author").trim() || DEFAULT_BOT_LOGIN,
    scope,
    reviewKey: reviewSecret(env) ? reviewKey(reviewSecret(env)) : undefined,
    gitLock: bool("git-lock", true),
    preview,
  };
}

/** The most characters of the text plan put in the job summary (GitHub allows 1 MiB per step). */
const SUMMARY_PLAN_CHARS = 900_000;

/** How the Action tells a reader to go past the guards (the CLI says `--force --reason`). */
const FORCE_HINT = "set the Action's `force-reason` input (it is recorded in the plan)";

/** How the Action names an override of the guards in the text plan (the CLI says `--force`). */
const OVERRIDDEN_BY = "the force-reason input";

/**
 * The wording of an error in the Action: as the CLI's (src/render/error.ts), except that a safety
 * refusal names the Action's `force-reason` input instead of `--force --reason`.
 */
function describeError(err: unknown, plan: Plan | undefined): string {
  if (!(err instanceof UnsafePlanError) || !plan || plan.safety.violations.length === 0)
    return renderError(err);
  const lines = plan.safety.violations.map(
    (v) => `  - ${escapeTerminal(v.guard)}: ${escapeTerminal(v.message)}`,
  );
  return (
    `Refused by safety guard ${escapeTerminal(err.guard)}: the plan trips ${lines.length} safety guard${lines.length === 1 ? "" : "s"}:\n` +
    `${lines.join("\n")}\nNothing was changed. If this is intended, ${FORCE_HINT}, or adjust safety: in carte.yaml.`
  );
}

/**
 * The job summary of one run, under one heading: the command's (`carte plan`, with the shard). A body
 * rendered with that heading (a plan comment's, the drift issue's) is written as it is, when it comes
 * first; anything else is written under the heading, which comes first.
 *
 * Each write appends to the file GitHub names in `GITHUB_STEP_SUMMARY`, read at that write: one process
 * may run the Action more than once (a library user, the tests), and `@actions/core`'s summary keeps
 * the first path it read for the life of the process. Throws {@link UsageError} when the variable
 * is unset (a runner without job summaries).
 */
class JobSummary {
  private headed = false;

  /** @param title the heading, e.g. `carte plan (shard 1/2)`. */
  constructor(readonly title: string) {}

  /** Markdown that starts with `### {title}` (rendered with {@link title}). */
  async titled(markdown: string): Promise<void> {
    this.headed = true;
    await appendSummary(`${markdown}\n`);
  }

  /** Markdown, under the heading. */
  async raw(markdown: string): Promise<void> {
    await this.head();
    await appendSummary(`${markdown}\n`);
  }

  /** A block of text, HTML-escaped inside `<pre><code>`, under the heading. */
  async code(text: string): Promise<void> {
    await this.head();
    const cut = text.length > SUMMARY_PLAN_CHARS ? text.slice(0, SUMMARY_PLAN_CHARS) + "\n… (cut)" : text;
    await appendSummary(`<pre lang="text"><code>${escapeHtml(cut)}</code></pre>\n`);
  }

  private async head(): Promise<void> {
    if (this.headed) return;
    this.headed = true;
    await appendSummary(`### ${escapeMarkdown(this.title)}\n`);
  }
}

/** Appends to the job summary file of this step (`GITHUB_STEP_SUMMARY`, GitHub's runner sets it). */
async function appendSummary(text: string): Promise<void> {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (!file) throw new UsageError("GITHUB_STEP_SUMMARY is not set: this runner keeps no job summary.");
  await appendFile(file, text, "utf8");
}

/**
 * The text plan in the run log, each line escaped for the log (`escapeLog`): what is said first, each
 * section of changes in a collapsible group named by its heading, then the summary line (which counts
 * the API calls) and the notes. Returns the parts, for the job summary.
 */
function logPlan(plan: Plan, target: string | undefined): TextPart[] {
  // The calls are counted, not listed: the Action has no option to list them.
  const parts = renderTextParts(plan, {
    color: false,
    target,
    overriddenBy: OVERRIDDEN_BY,
    showCallsBy: null,
  });
  for (const part of parts) {
    if (part.group === undefined) {
      for (const line of part.lines) core.info(escapeLog(line));
      continue;
    }
    core.startGroup(escapeLog(part.group));
    for (const line of part.lines.slice(1)) core.info(escapeLog(line));
    core.endGroup();
  }
  return parts;
}

/** A plan in the run log ({@link logPlan}) and, as the same text, in the job summary. */
async function showPlan(plan: Plan, target: string | undefined, summary: JobSummary): Promise<void> {
  await summary.code(joinTextParts(logPlan(plan, target)));
}

/** What a command ends with; the outputs and the step's status come from it. */
interface Outcome {
  exitCode: number;
  /** The plan made (for `has-changes` and `summary`). */
  plan?: Plan | undefined;
  /** Why the step fails, when it does (never holds a secret). */
  failure?: string | undefined;
  /** The run record written. */
  recordFile?: string | undefined;
  /**
   * The failure is configuration problems, each already an annotation at its file and line: the step
   * fails without one more annotation repeating them all.
   */
  annotated?: boolean | undefined;
}

/** The comment's "which commit, which run, when". */
function commentContext(ctx: ActionContext, commit: string | undefined): CommentContext {
  return {
    commit,
    ...(commit && ctx.repository ? { commitUrl: `${ctx.serverUrl}/${ctx.repository}/commit/${commit}` } : {}),
    runUrl: ctx.runUrl,
    at: new Date(),
  };
}

/** The REST client, when there is a token and a repository to call. */
function gitHub(inputs: ActionInputs, ctx: ActionContext): GitHubRepo | undefined {
  if (!inputs.githubToken || !ctx.repository) return undefined;
  return new GitHubRepo({ apiUrl: ctx.apiUrl, repository: ctx.repository, token: inputs.githubToken });
}

/** Configuration problems as annotations on the files (`::error file=…,line=…,col=…::`). */
function annotate(problems: readonly ConfigProblem[], workspace: string): void {
  for (const p of problems.slice(0, 50)) {
    const file = path.relative(workspace, path.resolve(p.file)).split(path.sep).join("/");
    core.error(p.message, {
      title: "carte configuration problem",
      file,
      ...(p.line > 0 ? { startLine: p.line } : {}),
      ...(p.col > 0 ? { startColumn: p.col } : {}),
    });
  }
}

/** The problems with their file relative to the workspace (as the comment and annotations show them). */
function relativeProblems(problems: readonly ConfigProblem[], workspace: string): ConfigProblem[] {
  return problems.map((p) => ({
    ...p,
    file: path.relative(workspace, path.resolve(p.file)).split(path.sep).join("/"),
  }));
}

/**
 * The base to compare a pull request's plan with: input `base` (`auto`: the pull request's base
 * commit; `none`: no comparison). A commit missing from a shallow clone is fetched from `origin`, in
 * the repository that holds `dir` (the folder of carte.yaml), found no higher than the workspace and
 * never among the pull request's folders (src/gitops/safe-git.ts).
 * Returns the ref to plan and the name to show, or why there is none.
 */
async function resolveBase(
  inputs: ActionInputs,
  ctx: ActionContext,
  dir: string,
): Promise<{ ref?: string; name?: string; unavailable?: string }> {
  const v = inputs.base;
  if (v === "none" || v === "false") return {};
  const ref = v === "auto" ? ctx.pullRequest?.baseSha : v;
  if (!ref) return {};
  const name = v === "auto" ? (ctx.pullRequest?.baseRef ?? ref) : v;
  let repo: GitRepository;
  try {
    repo = await findRepository(dir, { workspace: ctx.workspace });
  } catch (err) {
    return { name, unavailable: `the base could not be read (${(err as Error).message})` };
  }
  try {
    await resolveCommit(ref, repo);
    return { ref, name };
  } catch (err) {
    if (/^[0-9a-f]{40}$/.test(ref)) {
      try {
        await fetchCommit(ref, repo);
        await resolveCommit(ref, repo);
        return { ref, name };
      } catch (again) {
        return { name, unavailable: `the base commit could not be read (${(again as Error).message})` };
      }
    }
    return { name, unavailable: `the base could not be read (${(err as Error).message})` };
  }
}

/** What a plan comment (or the plan part of the job summary) shows, from one run or merged shards. */
interface PlanView {
  plan: Plan | null;
  split: BaseSplit | null;
  problems: ConfigProblem[] | null;
  errors: string[];
  exitCode: number;
  commit: string | undefined;
  /** Where the run went, in words (src/session.ts `describeTarget`). */
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
function planCommentBody(
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
async function summarizePlan(view: PlanView, ctx: ActionContext, summary: JobSummary): Promise<void> {
  await summary.titled(planCommentBody(view, ctx, { title: summary.title }));
  if (view.plan) await showPlan(view.plan, view.target, summary);
}

/** A run's result as a view (for the comment), with the split's base named as the user knows it. */
function viewOf(result: RunResult, commit: string | undefined, baseName: string | undefined): PlanView {
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
function recordOf(command: "plan" | "drift", shard: Shard | undefined, view: PlanView): RunRecord {
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
async function maybeWriteRecord(inputs: ActionInputs, record: RunRecord): Promise<string | undefined> {
  const file =
    inputs.planOut || (inputs.shard ? `carte-run-${inputs.shard.index}-of-${inputs.shard.count}.json` : "");
  if (!file) return undefined;
  await writeRecord(file, record);
  return file;
}

/** The failure message of a view, for the failed step. */
function failureOf(view: PlanView): string | undefined {
  if (view.problems && view.problems.length > 0) return renderError(new ConfigError(view.problems));
  return view.errors.length > 0 ? view.errors.join("\n") : undefined;
}

/**
 * The changes that put a store in a `changed` preview: the pull request's own when the plan was split
 * against its base (drift alone does not), else `undefined` (every change of the plan).
 */
function splitChanges(split: BaseSplit | null): readonly string[] | undefined {
  return split && split.unavailable === undefined ? split.changes : undefined;
}

/**
 * The menu preview of a pull request's plan (input `preview`), uploaded as the artifact `where.name`:
 * the note the comment and the job summary show, or `undefined` when no store is selected. Without an
 * uploader given and without artifact storage in this run, nothing is written and the note says why.
 */
async function planPreview(
  select: "changed" | "all",
  plan: Plan,
  project: LoadedProject,
  split: BaseSplit | null,
  where: { name: string; ctx: ActionContext; env: NodeJS.ProcessEnv; deps: ActionDeps },
): Promise<PreviewNote | undefined> {
  const missing = where.deps.uploadArtifact ? undefined : artifactStorageMissing(where.env);
  if (missing !== undefined) {
    // Said in the comment, not warned: nothing is wrong with the pull request.
    const stores = previewPlan(plan, select, splitChanges(split)).stores.length;
    return stores > 0 ? { stores, failure: missing } : undefined;
  }
  const note = await uploadPreview({
    select,
    plan,
    project,
    changes: splitChanges(split),
    name: where.name,
    temp: where.env.RUNNER_TEMP,
    ctx: where.ctx,
    upload: where.deps.uploadArtifact ?? artifactUploader,
  });
  if (note?.failure !== undefined) core.warning(escapeTerminal(note.failure));
  return note;
}

/** `command: plan`. */
async function planCommand(
  inputs: ActionInputs,
  ctx: ActionContext,
  env: NodeJS.ProcessEnv,
  summary: JobSummary,
  deps: ActionDeps,
): Promise<Outcome> {
  const commit = ctx.pullRequest?.headSha ?? ctx.sha;
  const base = await resolveBase(inputs, ctx, path.dirname(path.resolve(inputs.config)));
  // `scope: changed` needs a base; without one the plan reads everything, and says why.
  const scoped = inputs.scope === "changed" && base.ref !== undefined;
  if (inputs.scope === "changed" && !scoped) {
    core.warning(
      escapeTerminal(
        `input scope is changed, but there is no base to compare with (${base.unavailable ?? "input base is none, or this is not a pull request"}): every store is read`,
      ),
    );
  }
  const result = await runCarte(
    {
      command: "plan",
      config: inputs.config,
      env,
      force: inputs.force,
      shard: inputs.shard,
      stage: inputs.stage,
      secretsFile: inputs.secretsFile || undefined,
      base: base.ref,
      workspace: ctx.workspace,
      ...(scoped ? { scope: "changed" as const } : {}),
    },
    { onWarning: (message) => core.warning(escapeTerminal(message)) },
  );
  // The scope names the base as the user knows it (the base branch), its commit apart.
  const scope = result.plan?.targeting?.scope;
  if (scope && base.name) scope.base = base.name;
  const view = viewOf(result, commit, base.name);
  if (view.problems) view.problems = relativeProblems(view.problems, ctx.workspace);
  if (!view.split && base.unavailable && view.plan) {
    view.split = {
      ref: base.name ?? "",
      sha: "",
      changes: view.plan.changes.map((c) => c.address),
      drift: [],
      settled: [],
      unavailable: base.unavailable,
    };
  }
  if (view.problems) annotate(view.problems, ctx.workspace);
  if (inputs.preview !== "off" && ctx.pullRequest && view.plan && result.project) {
    const note = await planPreview(inputs.preview, view.plan, result.project, view.split, {
      name: previewArtifactName(ctx, inputs.shard, result.stage ?? inputs.stage),
      ctx,
      env,
      deps,
    });
    if (note) view.preview = [note];
  }
  // After the preview: the record carries its link to the report job of a sharded run.
  const recordFile = await maybeWriteRecord(inputs, recordOf("plan", inputs.shard, view));
  await summarizePlan(view, ctx, summary);
  // A shard's comment is the report job's: one comment for the whole run.
  const gh = gitHub(inputs, ctx);
  if (inputs.comment && !inputs.shard && ctx.pullRequest && gh) {
    await upsertMarkedComment(
      gh,
      ctx.pullRequest.number,
      COMMENT_MARKER,
      inputs.commentAuthor,
      planCommentBody(view, ctx, { record: { key: inputs.reviewKey } }),
    );
  }
  return {
    exitCode: view.exitCode,
    plan: view.plan ?? undefined,
    failure: failureOf(view),
    recordFile,
    annotated: !!view.problems?.length,
  };
}

/** The merged pull request of a push, its comments (read once), and its reviewed plan or why there is none. */
export type ReviewLookup = RecordReading & { pr?: number; comments?: IssueComment[] };

/**
 * The reviewed plan of the pull request a push merged (src/gitops/reviewed.ts `findReviewed`), bound to
 * that pull request as GitHub says it: its number, its head commit, and its base branch, which must be
 * the branch this push updated (`GITHUB_REF`). Or why there is none, in one sentence. Two calls: the
 * pull requests of the pushed commit, and the merged one's comments (returned, for the apply comment).
 *
 * @throws octokit's error when a call fails.
 */
export async function reviewedPlanOf(
  gh: GitHubRepo | undefined,
  ctx: ActionContext,
  inputs: ActionInputs,
): Promise<ReviewLookup> {
  if (!gh || !ctx.sha) return { why: "No GitHub token or commit to find the reviewed plan with." };
  const pulls = await gh.pullsOfCommit(ctx.sha);
  const merged = pulls.find((p) => p.merged_at);
  if (!merged) {
    return {
      why: `Commit ${ctx.sha.slice(0, 7)} did not come from a merged pull request, so no plan of it was reviewed.`,
    };
  }
  const pr = merged.number;
  const comments = await gh.comments(pr);
  const base = merged.base?.ref;
  const pushed = ctx.ref?.startsWith("refs/heads/") ? ctx.ref.slice("refs/heads/".length) : undefined;
  if (pushed !== undefined && base !== undefined && pushed !== base) {
    return {
      pr,
      comments,
      why: `Pull request #${pr} was merged into ${base}, not into ${pushed}, the branch this push updated.`,
    };
  }
  const binding = { repository: ctx.repository, pullRequest: pr, head: merged.head?.sha, base };
  if (!completeBinding(binding)) {
    return {
      pr,
      comments,
      why: `GitHub did not say the head commit and base branch of pull request #${pr}.`,
    };
  }
  const reading = findReviewed(comments, {
    marker: COMMENT_MARKER,
    author: inputs.commentAuthor,
    binding,
    key: inputs.reviewKey,
  });
  return { pr, comments, ...reading };
}

/** Whether a stage of a rollout failed (the stages after it did not run). */
function stoppedRollout(result: RunResult): boolean {
  return (result.report?.stages ?? []).some((s) => s.status === "failed");
}

/** What a failed rollout says in the Action's failure message: the failed stage and those not run. */
function rolloutFailure(result: RunResult): string {
  const stages = result.report?.stages ?? [];
  const failed = stages.find((s) => s.status === "failed");
  const notRun = stagesNotRun(stages);
  return (
    `stage ${failed?.name ?? "?"} failed${failed?.error ? `: ${failed.error}` : ""}` +
    (notRun.length > 0 ? `; stages not run: ${notRun.join(", ")}` : "")
  );
}

/**
 * Why an apply run failed, for the failed step: its error, the calls that failed or were skipped and
 * the rollout stage that stopped, or the webhook secrets made but not kept; `undefined` when it did
 * not fail. Escaped for a log.
 */
function applyFailure(result: RunResult): string | undefined {
  return result.error !== undefined
    ? describeError(result.error, result.plan)
    : result.report && (result.report.failed > 0 || result.report.skipped > 0 || stoppedRollout(result))
      ? escapeTerminal(
          `apply incomplete: ${result.report.operations
            .filter((o) => o.status !== "ok")
            .map((o) => `${o.status} ${o.method} ${o.path}${o.message ? `: ${o.message}` : ""}`)
            .concat(stoppedRollout(result) ? [rolloutFailure(result)] : [])
            .join("; ")}`,
        )
      : result.lostSecrets
        ? escapeLines(lostSecretsMessage(result.lostSecrets))
        : undefined;
}

/** The refusal of changes the reviewed plan did not show, with what to do about them. */
function reviewRefusal(refused: readonly ResourceChange[], lookupWhy: string | undefined): string {
  const why = lookupWhy ? ` ${lookupWhy}` : "";
  return (
    `not applied: ${refused.length} change${refused.length === 1 ? "" : "s"} the reviewed plan did not show ` +
    `(${refused
      .slice(0, 10)
      .map((c) => c.address)
      .join(", ")}${refused.length > 10 ? ", …" : ""}).${why} Review them in a pull request, run the ` +
    `workflow with command: apply (workflow_dispatch), or set apply-unreviewed: true.`
  );
}

/** `command: apply`. */
async function applyCommand(
  inputs: ActionInputs,
  ctx: ActionContext,
  env: NodeJS.ProcessEnv,
  summary: JobSummary,
): Promise<Outcome> {
  const merge = ctx.eventName === "push";
  const reviewedOnly = merge && !inputs.applyUnreviewed;
  const gh = gitHub(inputs, ctx);
  const lookup: Partial<ReviewLookup> = merge ? await reviewedPlanOf(gh, ctx, inputs) : {};
  let fresh: Plan | undefined;
  let refused: ResourceChange[] = [];
  const secretsInput = inputs.secretsFile;
  const result = await runCarte(
    {
      command: "apply",
      config: inputs.config,
      env,
      force: inputs.force,
      shard: inputs.shard,
      stage: inputs.stage,
      // Two runners apply one after the other (docs/reliability.md): carte.yaml's lock:, else
      // refs/carte/lock of origin, taken where the checkout lets it be.
      refLock: inputs.gitLock
        ? { ref: DEFAULT_LOCK_REF, remote: DEFAULT_LOCK_REMOTE, staleMs: DEFAULT_LOCK_STALE_MINUTES * 60_000 }
        : "off",
      workspace: ctx.workspace,
      ...(ctx.runUrl ? { runUrl: ctx.runUrl } : {}),
      secrets: (project) =>
        actionSecretSink(
          actionSecretsFile({
            input: secretsInput,
            env,
            configured: project.secretsFile,
            projectRoot: project.root,
          }),
          env,
        ),
      ...(reviewedOnly
        ? {
            only: (plan: Plan) => {
              fresh = plan;
              const verdict = judgeReviewed(plan, lookup.record);
              refused = verdict.unreviewed;
              return verdict.reviewed;
            },
          }
        : {}),
    },
    {
      onWarning: (message) => core.warning(escapeTerminal(message)),
      onRefLockWait: (lock, settings) =>
        core.info(
          escapeTerminal(
            `Waiting for another carte apply to release the lock ${lockName(settings)} (${describeRefHolder(lock)})`,
          ),
        ),
      // The outputs are the run's, set once at its end (runAction), from the fresh plan.
      onPlan: (plan, info) => showPlan(plan, describeTarget(info.target), summary),
    },
  );
  const problems =
    result.error instanceof ConfigError ? relativeProblems(result.error.problems, ctx.workspace) : null;
  if (problems) annotate(problems, ctx.workspace);
  const target = result.target && describeTarget(result.target);
  const report =
    result.plan && result.report ? renderReportMarkdown(result.plan, result.report, { target }) : undefined;
  if (result.plan && result.report) {
    core.info(escapeLog(renderReport(result.plan, result.report, result.applyMs ?? 0, target)));
  }
  if (report) await summary.raw(report);

  let exitCode = result.exitCode;
  let failure = applyFailure(result);
  if (refused.length > 0) {
    const refusal = reviewRefusal(refused, lookup.why);
    if (exitCode === ExitCode.ok) exitCode = ExitCode.unsafe;
    failure = failure ? `${failure}\n${refusal}` : refusal;
    await summary.raw(`**Refused by the reviewed-plan check:** ${escapeMarkdown(refusal)}`);
  }
  if (inputs.comment && gh && lookup.pr !== undefined) {
    const body = renderApplyComment({
      plan: fresh ?? result.plan,
      report,
      applied: !!result.report,
      refused,
      refusedWhy: lookup.why,
      ...(result.error !== undefined
        ? { error: { message: describeError(result.error, result.plan), exitCode: result.exitCode } }
        : {}),
      context: commentContext(ctx, ctx.sha),
      ...(inputs.shard || inputs.stage
        ? {
            title: `carte apply (${[
              ...(inputs.shard ? [`shard ${inputs.shard.index}/${inputs.shard.count}`] : []),
              ...(result.stage ? [`stage ${result.stage}`] : []),
            ].join(", ")})`,
          }
        : {}),
    });
    await upsertMarkedComment(
      gh,
      lookup.pr,
      applyMarker(inputs.shard, result.stage),
      inputs.commentAuthor,
      body,
      lookup.comments,
    );
  }
  return { exitCode, plan: fresh ?? result.plan, failure, annotated: problems !== null };
}

/**
 * Opens or updates the one drift issue (label `carte-drift`, by the comment author) when the plan has
 * changes; closes it, with a comment, when it has none.
 */
async function syncDriftIssue(gh: GitHubRepo, plan: Plan, ctx: ActionContext, author: string): Promise<void> {
  const open = (await gh.openIssues(DRIFT_LABEL)).filter((i) => isCartes(i, DRIFT_MARKER, author));
  const issue = open[0];
  const context = commentContext(ctx, ctx.sha);
  if (plan.changes.length > 0) {
    const stores = plan.summary.stores;
    const client = plan.changes.some((c) => c.store === "");
    const title = `carte: the platform differs from the files (${stores} store${stores === 1 ? "" : "s"}${client ? " and client settings" : ""})`;
    const body = `${DRIFT_MARKER}\n${renderDriftIssue(plan, { context })}`;
    if (issue) await gh.updateIssue(issue.number, { title, body });
    else await gh.createIssue({ title, body, labels: [DRIFT_LABEL] });
  } else if (issue) {
    const line = [
      context.runUrl ? `[this run](${context.runUrl})` : "",
      context.commit ? `commit ${context.commit.slice(0, 7)}` : "",
    ]
      .filter(Boolean)
      .join(", ");
    await gh.createComment(
      issue.number,
      `The platform matches the files again${line ? ` (${line})` : ""}. Closing.`,
    );
    await gh.updateIssue(issue.number, { state: "closed", state_reason: "completed" });
  }
}

/** The drift outcome of a view: exit code 2 when the platform differs, the issue kept in step. */
async function driftOutcome(
  view: PlanView,
  inputs: ActionInputs,
  ctx: ActionContext,
  sharded: boolean,
  summary: JobSummary,
): Promise<Outcome> {
  const failure = failureOf(view);
  if (view.plan) {
    await summary.titled(renderDriftSummary(view.plan, ctx, summary.title));
    logPlan(view.plan, view.target);
  }
  if (failure !== undefined || !view.plan) {
    return {
      exitCode: view.exitCode || ExitCode.error,
      plan: view.plan ?? undefined,
      failure: failure ?? "no plan",
      annotated: !!view.problems?.length,
    };
  }
  const gh = gitHub(inputs, ctx);
  if (!sharded) {
    if (!gh)
      throw new UsageError("command drift needs github-token and GITHUB_REPOSITORY to keep the drift issue");
    await syncDriftIssue(gh, view.plan, ctx, inputs.commentAuthor);
  }
  const drift = view.plan.changes.length > 0;
  if (drift)
    core.warning(`drift: ${view.plan.changes.length} change(s) would make the platform match the files`);
  return { exitCode: drift ? ExitCode.changes : ExitCode.ok, plan: view.plan };
}

/** The drift part of the job summary, under the run's heading `title`. */
function renderDriftSummary(plan: Plan, ctx: ActionContext, title: string): string {
  return plan.changes.length === 0
    ? `### ${escapeMarkdown(title)}\n\n**No drift**: the platform matches the files.\n`
    : renderDriftIssue(plan, { title, context: commentContext(ctx, ctx.sha) });
}

/** `command: drift`. */
async function driftCommand(
  inputs: ActionInputs,
  ctx: ActionContext,
  env: NodeJS.ProcessEnv,
  summary: JobSummary,
): Promise<Outcome> {
  const result = await runCarte({
    command: "plan",
    config: inputs.config,
    env,
    force: undefined,
    shard: inputs.shard,
    stage: inputs.stage,
    secretsFile: inputs.secretsFile || undefined,
  });
  const view = viewOf(result, ctx.sha, undefined);
  if (view.problems) {
    view.problems = relativeProblems(view.problems, ctx.workspace);
    annotate(view.problems, ctx.workspace);
  }
  if (view.plan && view.exitCode === ExitCode.ok && view.plan.changes.length > 0)
    view.exitCode = ExitCode.changes;
  const recordFile = await maybeWriteRecord(inputs, recordOf("drift", inputs.shard, view));
  const out = await driftOutcome(view, inputs, ctx, inputs.shard !== undefined, summary);
  return { ...out, recordFile };
}

/** `command: report`: the run records of a matrix's shards merged into one comment or drift issue. */
async function reportCommand(
  inputs: ActionInputs,
  ctx: ActionContext,
  summary: JobSummary,
): Promise<Outcome> {
  if (inputs.plans.length === 0)
    throw new UsageError("command report needs the input plans (the run records' paths)");
  const files = (await glob(inputs.plans, { cwd: process.cwd(), absolute: true, onlyFiles: true })).sort();
  if (files.length === 0) throw new UsageError(`no run record matches ${inputs.plans.join(", ")}`);
  const merged = mergeRecords(await Promise.all(files.map((f) => readRecord(f))));
  const view: PlanView = {
    plan: merged.plan,
    split: merged.split,
    problems: merged.problems,
    errors: merged.errors,
    exitCode: merged.exitCode,
    commit: merged.commit ?? undefined,
    ...(merged.target !== undefined ? { target: merged.target } : {}),
    ...(merged.preview.length > 0 ? { preview: merged.preview } : {}),
  };
  if (merged.command === "drift") return driftOutcome(view, inputs, ctx, false, summary);
  await summarizePlan(view, ctx, summary);
  const gh = gitHub(inputs, ctx);
  if (inputs.comment && ctx.pullRequest && gh) {
    await upsertMarkedComment(
      gh,
      ctx.pullRequest.number,
      COMMENT_MARKER,
      inputs.commentAuthor,
      planCommentBody(view, ctx, { record: { key: inputs.reviewKey } }),
    );
  }
  return { exitCode: view.exitCode, plan: view.plan ?? undefined, failure: failureOf(view) };
}

/** Runs the Action. Returns the exit code (also set as the `exitcode` output, whatever happens). */
export async function runAction(
  env: NodeJS.ProcessEnv = process.env,
  deps: ActionDeps = {},
): Promise<number> {
  // The client secret and the review key never reach any output; masking guards the logs as well.
  if (env.CARTE_CLIENT_SECRET) core.setSecret(env.CARTE_CLIENT_SECRET);
  if (reviewSecret(env)) core.setSecret(reviewSecret(env));
  const ctx = readContext(env);
  let outcome: Outcome = { exitCode: ExitCode.ok };
  let summary = new JobSummary("carte");
  try {
    try {
      const inputs = readInputs(env);
      const shard = inputs.shard ? ` (shard ${inputs.shard.index}/${inputs.shard.count})` : "";
      summary = new JobSummary(`carte ${inputs.command}${shard}`);
      if (inputs.command === "plan") outcome = await planCommand(inputs, ctx, env, summary, deps);
      else if (inputs.command === "apply") outcome = await applyCommand(inputs, ctx, env, summary);
      else if (inputs.command === "drift") outcome = await driftCommand(inputs, ctx, env, summary);
      else outcome = await reportCommand(inputs, ctx, summary);
    } catch (err) {
      // Inputs, git, GitHub's API and run records get here: the shared path returns its errors.
      outcome = { ...outcome, exitCode: exitCodeFor(err) || ExitCode.error, failure: renderError(err) };
    }
    if (outcome.failure !== undefined) {
      await summary.raw(`**Failed with exit code ${outcome.exitCode}:**`);
      await summary.code(outcome.failure);
    }
  } catch (err) {
    // The summary could not be written: the step still fails with the cause.
    outcome = {
      ...outcome,
      exitCode: outcome.exitCode === ExitCode.ok ? ExitCode.error : outcome.exitCode,
      failure: outcome.failure ?? renderError(err),
      annotated: false,
    };
  }
  const plan = outcome.plan;
  core.setOutput("has-changes", String(!!plan && plan.changes.length > 0));
  core.setOutput("summary", plan ? JSON.stringify(plan.summary) : "null");
  if (outcome.recordFile) core.setOutput("plan-file", outcome.recordFile);
  core.setOutput("exitcode", String(outcome.exitCode));
  if (outcome.failure !== undefined) {
    if (outcome.annotated) {
      // Each problem is an annotation at its file and line already: the log lists them once more, as
      // plain lines, and the step fails without an annotation repeating them all.
      core.info(escapeLog(outcome.failure));
      process.exitCode = core.ExitCode.Failure;
    } else core.setFailed(outcome.failure);
  }
  return outcome.exitCode;
}

/**
 * Runs the Action and sets the process's exit code from it: the entry point of the bundle (src/action/
 * index.ts) and of GitHub's local runner of actions, `npx @github/local-action run . src/action/main.ts
 * .env` (docs/github-action.md, "Developing the Action"), which calls the `run()` its entry exports.
 */
export async function run(): Promise<void> {
  try {
    process.exitCode = await runAction();
  } catch (err) {
    process.stderr.write(
      `carte action: ${escapeTerminal(err instanceof Error ? err.message : String(err))}\n`,
    );
    process.exitCode = ExitCode.error;
  }
}
