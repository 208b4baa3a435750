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
 * Outputs, set on every run whatever happens: `exitcode`, `has-changes`, `summary` (JSON counts, `null`
 * when no plan was made), `plan-file` (the run record written, if any), and, when no secrets file is
 * named, `webhook_secret_<EVENT>` (masked) for each webhook secret an apply got.
 */

import path from "node:path";
import { escapeHtml, escapeLines, escapeTerminal } from "../render/escape.js";
import { lostSecretsMessage } from "../secrets.js";
import * as core from "@actions/core";
import { glob } from "tinyglobby";
import { ConfigError, ExitCode, UnsafePlanError, exitCodeFor, type ConfigProblem } from "../errors.js";
import type { BaseSplit } from "../gitops/base.js";
import { fetchCommit, findRepository, resolveCommit, type GitRepository } from "../gitops/git.js";
import { DEFAULT_BOT_LOGIN, GitHubRepo, isCartes, upsertMarkedComment } from "../gitops/github.js";
import { mergeRecords, readRecord, writeRecord, type RunRecord } from "../gitops/record.js";
import { describeRefHolder, lockName } from "../gitops/ref-lock.js";
import { DEFAULT_LOCK_REF, DEFAULT_LOCK_REMOTE, DEFAULT_LOCK_STALE_MINUTES } from "../config/load.js";
import {
  decodeReviewed,
  encodeReviewed,
  judgeReviewed,
  reviewedRecord,
  type ReviewedRecord,
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
} from "../render/markdown.js";
import { renderReportMarkdown } from "../render/report.js";
import { describeTarget } from "../session.js";
import { renderText } from "../render/text.js";
import { runCarte, type RunResult } from "../run.js";
import { stagesNotRun } from "../render/rollout.js";
import type { StageOutcome } from "../apply/rollout.js";
import { COMMENT_MARKER, DRIFT_LABEL, DRIFT_MARKER, applyMarker } from "./comment.js";
import { readContext, type ActionContext } from "./context.js";
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
   * Input `git-lock` (default true): apply under the lock across machines, `refs/carte/lock` of the
   * checkout's `origin` when carte.yaml names no `lock:` (src/gitops/ref-lock.ts); false: none.
   */
  gitLock: boolean;
}

const COMMANDS: readonly ActionCommand[] = ["plan", "apply", "drift", "report"];

/** Reads and checks the inputs. Throws on a bad value. */
export function readInputs(): ActionInputs {
  const command = core.getInput("command") || "plan";
  if (!(COMMANDS as readonly string[]).includes(command))
    throw new Error(`input command must be plan, apply, drift or report, got ${command}`);
  const bool = (name: string, dflt: boolean) => {
    const v = core.getInput(name).trim().toLowerCase();
    if (v === "") return dflt;
    if (v === "true" || v === "false") return v === "true";
    throw new Error(`input ${name} must be true or false, got ${v}`);
  };
  const reason = core.getInput("force-reason");
  const shard = core.getInput("shard").trim();
  const scope = core.getInput("scope").trim().toLowerCase() || "all";
  if (scope !== "all" && scope !== "changed")
    throw new Error(`input scope must be all or changed, got ${scope}`);
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
    gitLock: bool("git-lock", true),
  };
}

/** The most characters of the text plan put in the job summary (GitHub allows 1 MiB per step). */
const SUMMARY_PLAN_CHARS = 900_000;

/** How the Action tells a reader to go past the guards (the CLI says `--force --reason`). */
const FORCE_HINT = "set the Action's `force-reason` input (it is recorded in the plan)";

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

/** Writes a block of text to the job summary, HTML-escaped inside `<pre><code>`. */
async function summaryCode(text: string): Promise<void> {
  const cut = text.length > SUMMARY_PLAN_CHARS ? text.slice(0, SUMMARY_PLAN_CHARS) + "\n… (cut)" : text;
  await core.summary.addCodeBlock(escapeHtml(cut), "text").write();
}

async function summaryRaw(markdown: string): Promise<void> {
  await core.summary.addRaw(markdown, true).write();
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
}

/** The plan comment's body for a view: the plan, the problems, or the failure. */
function planCommentBody(view: PlanView, ctx: ActionContext, withRecord: boolean): string {
  const context = commentContext(ctx, view.commit);
  if (view.problems && view.problems.length > 0) return renderProblemsComment(view.problems, { context });
  if (view.plan && (view.errors.length === 0 || view.exitCode === ExitCode.unsafe)) {
    return renderPlanComment(view.plan, {
      context,
      split: view.split ?? undefined,
      forceHint: FORCE_HINT,
      fullPlanAt: "the job summary of this workflow run",
      target: view.target,
      stages: view.stages,
      ...(withRecord ? { footer: encodeReviewed(reviewedRecord(view.plan, view.commit ?? "unknown")) } : {}),
    });
  }
  return renderFailureComment(view.errors.join("\n\n") || "unknown error", view.exitCode, { context });
}

/** The job summary of a plan view: the comment's body first, then the full text plan. */
async function summarizePlan(view: PlanView, ctx: ActionContext): Promise<void> {
  await summaryRaw(planCommentBody(view, ctx, false));
  if (view.plan) await summaryCode(renderText(view.plan, { color: false, target: view.target }));
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

/** `command: plan`. */
async function planCommand(
  inputs: ActionInputs,
  ctx: ActionContext,
  env: NodeJS.ProcessEnv,
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
  const recordFile = await maybeWriteRecord(inputs, recordOf("plan", inputs.shard, view));
  await summarizePlan(view, ctx);
  // A shard's comment is the report job's: one comment for the whole run.
  const gh = gitHub(inputs, ctx);
  if (inputs.comment && !inputs.shard && ctx.pullRequest && gh) {
    await upsertMarkedComment(
      gh,
      ctx.pullRequest.number,
      COMMENT_MARKER,
      inputs.commentAuthor,
      planCommentBody(view, ctx, true),
    );
  }
  return { exitCode: view.exitCode, plan: view.plan ?? undefined, failure: failureOf(view), recordFile };
}

/** The reviewed plan of the pull request a push merged, or why there is none. */
async function findReviewed(
  gh: GitHubRepo | undefined,
  ctx: ActionContext,
  author: string,
): Promise<{ pr?: number; record?: ReviewedRecord; why?: string }> {
  if (!gh || !ctx.sha) return { why: "No GitHub token or commit to find the reviewed plan with." };
  const pulls = await gh.pullsOfCommit(ctx.sha);
  const merged = pulls.find((p) => p.merged_at);
  if (!merged) {
    return {
      why: `Commit ${ctx.sha.slice(0, 7)} did not come from a merged pull request, so no plan of it was reviewed.`,
    };
  }
  const comment = (await gh.comments(merged.number)).find((c) => isCartes(c, COMMENT_MARKER, author));
  const record = comment?.body ? decodeReviewed(comment.body) : undefined;
  if (!record)
    return { pr: merged.number, why: `Pull request #${merged.number} has no plan from carte to go by.` };
  const head = merged.head?.sha;
  const why =
    head && record.head !== head
      ? `The last plan on pull request #${merged.number} was made for commit ${record.head.slice(0, 7)}, not for its last commit ${head.slice(0, 7)}.`
      : undefined;
  return { pr: merged.number, record, ...(why ? { why } : {}) };
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

/** `command: apply`. */
async function applyCommand(
  inputs: ActionInputs,
  ctx: ActionContext,
  env: NodeJS.ProcessEnv,
): Promise<Outcome> {
  const merge = ctx.eventName === "push";
  const reviewedOnly = merge && !inputs.applyUnreviewed;
  const gh = gitHub(inputs, ctx);
  const lookup = merge ? await findReviewed(gh, ctx, inputs.commentAuthor) : {};
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
      onPlan: async (plan, info) => {
        core.setOutput("has-changes", String(plan.changes.length > 0));
        core.setOutput("summary", JSON.stringify(plan.summary));
        await summaryCode(renderText(plan, { color: false, target: describeTarget(info.target) }));
      },
    },
  );
  const problems =
    result.error instanceof ConfigError ? relativeProblems(result.error.problems, ctx.workspace) : null;
  if (problems) annotate(problems, ctx.workspace);
  const report =
    result.plan && result.report
      ? renderReportMarkdown(result.plan, result.report, {
          target: result.target && describeTarget(result.target),
        })
      : undefined;
  if (report) await summaryRaw(report);

  let exitCode = result.exitCode;
  let failure: string | undefined =
    result.error !== undefined
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
  if (refused.length > 0) {
    const why = lookup.why ? ` ${lookup.why}` : "";
    const refusal =
      `not applied: ${refused.length} change${refused.length === 1 ? "" : "s"} the reviewed plan did not show ` +
      `(${refused
        .slice(0, 10)
        .map((c) => c.address)
        .join(", ")}${refused.length > 10 ? ", …" : ""}).${why} Review them in a pull request, run the ` +
      `workflow with command: apply (workflow_dispatch), or set apply-unreviewed: true.`;
    if (exitCode === ExitCode.ok) exitCode = ExitCode.unsafe;
    failure = failure ? `${failure}\n${refusal}` : refusal;
    await summaryRaw(`**Refused by the reviewed-plan check:** ${escapeHtml(refusal)}`);
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
    );
  }
  return { exitCode, plan: fresh ?? result.plan, failure };
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
): Promise<Outcome> {
  const failure = failureOf(view);
  if (view.plan) await summaryRaw(renderDriftSummary(view.plan, ctx));
  if (failure !== undefined || !view.plan) {
    return {
      exitCode: view.exitCode || ExitCode.error,
      plan: view.plan ?? undefined,
      failure: failure ?? "no plan",
    };
  }
  const gh = gitHub(inputs, ctx);
  if (!sharded) {
    if (!gh)
      throw new Error("command drift needs github-token and GITHUB_REPOSITORY to keep the drift issue");
    await syncDriftIssue(gh, view.plan, ctx, inputs.commentAuthor);
  }
  const drift = view.plan.changes.length > 0;
  if (drift)
    core.warning(`drift: ${view.plan.changes.length} change(s) would make the platform match the files`);
  return { exitCode: drift ? ExitCode.changes : ExitCode.ok, plan: view.plan };
}

function renderDriftSummary(plan: Plan, ctx: ActionContext): string {
  return plan.changes.length === 0
    ? "**No drift**: the platform matches the files.\n"
    : renderDriftIssue(plan, { context: commentContext(ctx, ctx.sha) });
}

/** `command: drift`. */
async function driftCommand(
  inputs: ActionInputs,
  ctx: ActionContext,
  env: NodeJS.ProcessEnv,
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
  const out = await driftOutcome(view, inputs, ctx, inputs.shard !== undefined);
  return { ...out, recordFile };
}

/** `command: report`: the run records of a matrix's shards merged into one comment or drift issue. */
async function reportCommand(inputs: ActionInputs, ctx: ActionContext): Promise<Outcome> {
  if (inputs.plans.length === 0)
    throw new Error("command report needs the input plans (the run records' paths)");
  const files = (await glob(inputs.plans, { cwd: process.cwd(), absolute: true, onlyFiles: true })).sort();
  if (files.length === 0) throw new Error(`no run record matches ${inputs.plans.join(", ")}`);
  const merged = mergeRecords(await Promise.all(files.map((f) => readRecord(f))));
  const view: PlanView = {
    plan: merged.plan,
    split: merged.split,
    problems: merged.problems,
    errors: merged.errors,
    exitCode: merged.exitCode,
    commit: merged.commit ?? undefined,
    ...(merged.target !== undefined ? { target: merged.target } : {}),
  };
  if (merged.command === "drift") return driftOutcome(view, inputs, ctx, false);
  await summarizePlan(view, ctx);
  const gh = gitHub(inputs, ctx);
  if (inputs.comment && ctx.pullRequest && gh) {
    await upsertMarkedComment(
      gh,
      ctx.pullRequest.number,
      COMMENT_MARKER,
      inputs.commentAuthor,
      planCommentBody(view, ctx, true),
    );
  }
  return { exitCode: view.exitCode, plan: view.plan ?? undefined, failure: failureOf(view) };
}

/** Runs the Action. Returns the exit code (also set as the `exitcode` output, whatever happens). */
export async function runAction(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // The client secret never reaches any output; masking guards the logs as well.
  if (env.CARTE_CLIENT_SECRET) core.setSecret(env.CARTE_CLIENT_SECRET);
  const ctx = readContext(env);
  let outcome: Outcome = { exitCode: ExitCode.ok };
  try {
    let inputs: ActionInputs | undefined;
    try {
      inputs = readInputs();
      const shard = inputs.shard ? ` (shard ${inputs.shard.index}/${inputs.shard.count})` : "";
      await core.summary.addHeading(`carte ${inputs.command}${shard}`, 3).write();
      if (inputs.command === "plan") outcome = await planCommand(inputs, ctx, env);
      else if (inputs.command === "apply") outcome = await applyCommand(inputs, ctx, env);
      else if (inputs.command === "drift") outcome = await driftCommand(inputs, ctx, env);
      else outcome = await reportCommand(inputs, ctx);
    } catch (err) {
      // Inputs, git, GitHub's API and run records get here: the shared path returns its errors.
      outcome = { ...outcome, exitCode: exitCodeFor(err) || ExitCode.error, failure: renderError(err) };
      if (!inputs) await core.summary.addHeading("carte", 3).write();
    }
    if (outcome.failure !== undefined) {
      await summaryRaw(`**Failed with exit code ${outcome.exitCode}:**`);
      await summaryCode(outcome.failure);
    }
  } catch (err) {
    // The summary could not be written: the step still fails with the cause.
    outcome = {
      ...outcome,
      exitCode: outcome.exitCode === ExitCode.ok ? ExitCode.error : outcome.exitCode,
      failure: outcome.failure ?? renderError(err),
    };
  }
  const plan = outcome.plan;
  core.setOutput("has-changes", String(!!plan && plan.changes.length > 0));
  core.setOutput("summary", plan ? JSON.stringify(plan.summary) : "null");
  if (outcome.recordFile) core.setOutput("plan-file", outcome.recordFile);
  core.setOutput("exitcode", String(outcome.exitCode));
  if (outcome.failure !== undefined) core.setFailed(outcome.failure);
  return outcome.exitCode;
}
