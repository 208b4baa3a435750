/**
 * `command: apply`: on a push (a merge), applies only what the merged pull request's reviewed plan
 * showed and refuses the rest unless `apply-unreviewed: true`; on any other event applies the whole
 * repository, with the safety guards. Comments on the merged pull request with the apply's report.
 */

import * as core from "@actions/core";
import { DEFAULT_LOCK_REF, DEFAULT_LOCK_REMOTE, DEFAULT_LOCK_STALE_MINUTES } from "../config/load.js";
import { ConfigError, ExitCode, problemDiagnostic } from "../errors.js";
import { upsertMarkedComment, type GitHubRepo, type IssueComment } from "../gitops/github.js";
import { describeRefHolder, lockName } from "../gitops/ref-lock.js";
import { completeBinding, findReviewed, judgeReviewed, type RecordReading } from "../gitops/reviewed.js";
import type { Plan, ResourceChange } from "../plan/types.js";
import { escapeLines, escapeLog, escapeMarkdown, escapeTerminal } from "../render/escape.js";
import { renderApplyComment } from "../render/markdown.js";
import { renderReport, renderReportMarkdown } from "../render/apply-report.js";
import { stagesNotRun } from "../render/rollout-headings.js";
import { runCarte } from "../run/run.js";
import { type RunResult } from "../run/request.js";
import { lostSecretsMessage } from "../run/secrets.js";
import { describeTarget } from "../run/session.js";
import { COMMENT_MARKER, applyMarker } from "./comment.js";
import type { ActionContext } from "./context.js";
import { gitHub, type ActionInputs } from "./inputs.js";
import { annotate, describeError, relativeProblems, type Outcome } from "./outcome.js";
import { commentContext, summarizeCalls } from "./plan-view.js";
import { actionSecretSink, actionSecretsFile } from "./masked-secrets.js";
import { showPlan, type JobSummary } from "./summary.js";
import type { CallCount } from "../platform/call-tally.js";
import { platformNamed, platformsToRun, readActionPlatforms } from "./platform-runs.js";
import { jointPlan, platformCallsLine, sectionHeading, worstExitCode } from "./platform-view.js";

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

/**
 * The refusal of changes the reviewed plan did not show, with its cause and what to do about them:
 * with `lookupWhy` (no reviewed plan could be used: none on the pull request, another pull request's,
 * a signature that does not verify, no review key…) the cause is the record, and the changes may be
 * the pull request's own; without it, a verified record did not show them (drift since the review, a
 * change merged meanwhile).
 */
function reviewRefusal(refused: readonly ResourceChange[], lookupWhy: string | undefined): string {
  const addresses = `(${refused
    .slice(0, 10)
    .map((c) => c.address)
    .join(", ")}${refused.length > 10 ? ", …" : ""})`;
  const n = `${refused.length} change${refused.length === 1 ? "" : "s"}`;
  const cause = lookupWhy
    ? `not applied: ${n} ${addresses}, because no reviewed plan could be used: ${lookupWhy}`
    : `not applied: ${n} the reviewed plan did not show ${addresses}. They are drift that appeared since ` +
      `the review, or a change merged meanwhile.`;
  return (
    `${cause} The platform does not match the configuration. Review them in a pull request, run the ` +
    `workflow with command: apply (workflow_dispatch), or set apply-unreviewed: true.`
  );
}

/**
 * What the log and the job summary show in place of the plan when the reviewed-plan check refused
 * every change: never "No changes", since the platform differs by all that was refused.
 */
async function showAllRefused(
  refused: readonly ResourceChange[],
  lookupWhy: string | undefined,
  target: string | undefined,
  summary: JobSummary,
): Promise<void> {
  const text =
    `${target ? `Target: ${target}\n` : ""}Nothing to apply of what was reviewed: the reviewed-plan check ` +
    `refused all ${refused.length} change${refused.length === 1 ? "" : "s"} of the plan, and the platform does not ` +
    `match the configuration.\n${reviewRefusal(refused, lookupWhy)}`;
  core.info(escapeLog(text));
  await summary.code(text);
}

/** `command: apply`: on each platform the inputs name (every platform of carte.yaml by default) in turn. */
export async function applyCommand(
  inputs: ActionInputs,
  ctx: ActionContext,
  env: NodeJS.ProcessEnv,
  summary: JobSummary,
): Promise<Outcome> {
  const known = readActionPlatforms(inputs.config);
  const platforms = platformsToRun(inputs.platforms, inputs.rehearsal, known, inputs.config);
  const gh = gitHub(inputs, ctx);
  // One reviewed plan for the merge: its record lists the changes of every platform's section.
  const lookup: Partial<ReviewLookup> = ctx.eventName === "push" ? await reviewedPlanOf(gh, ctx, inputs) : {};
  if (platforms[0] === undefined) {
    const out = await applyOne(undefined, inputs, { ctx, env, summary, gh, lookup });
    if (out.calls) await summarizeCalls(out.calls, summary);
    return out;
  }
  const outs: { name: string; out: Outcome & { calls?: CallCount | undefined } }[] = [];
  // One platform after the other: a platform that fails (its host down) does not keep the next from
  // being applied; the step fails with the worst exit code.
  for (const name of platforms as string[]) {
    const platform = platformNamed(known, name);
    await summary.raw(`#### ${escapeMarkdown(sectionHeading(platform, inputs.rehearsal, undefined))}`);
    const out = await applyOne(name, inputs, { ctx, env, summary, gh, lookup });
    if (out.calls) {
      core.info(escapeLog(platformCallsLine(name, out.calls)));
      await summary.raw(escapeMarkdown(platformCallsLine(name, out.calls)));
    }
    outs.push({ name, out });
  }
  const plans = outs.flatMap((o) => (o.out.plan ? [o.out.plan] : []));
  const failures = outs.flatMap((o) => (o.out.failure ? [`platform ${o.name}: ${o.out.failure}`] : []));
  return {
    exitCode: worstExitCode(outs.map((o) => o.out.exitCode)),
    plan: plans.length > 0 ? jointPlan(plans) : undefined,
    failure: failures.length > 0 ? failures.join("\n") : undefined,
    annotated: outs.every((o) => o.out.failure === undefined || o.out.annotated === true),
  };
}

/** What {@link applyOne} is given besides the platform and the inputs. */
interface ApplyWhere {
  ctx: ActionContext;
  env: NodeJS.ProcessEnv;
  summary: JobSummary;
  gh: GitHubRepo | undefined;
  lookup: Partial<ReviewLookup>;
}

/**
 * The apply of one platform (`platform` undefined: a project without `platforms:`): its plan and
 * report in the job summary, the changes the reviewed plan did not show refused on a merge, and its
 * comment on the merged pull request (one per platform, shard and stage).
 */
async function applyOne(
  platform: string | undefined,
  inputs: ActionInputs,
  where: ApplyWhere,
): Promise<Outcome & { calls?: CallCount | undefined }> {
  const { ctx, env, summary, gh, lookup } = where;
  const merge = ctx.eventName === "push";
  const reviewedOnly = merge && !inputs.applyUnreviewed;
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
      ...(platform !== undefined ? { platform, rehearsal: inputs.rehearsal } : {}),
      secrets: (project) =>
        actionSecretSink(
          actionSecretsFile({
            input: secretsInput,
            env,
            configured: project.secretsFile,
            projectRoot: project.root,
            platform: project.platformOf,
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
      onWarning: (w) => annotate([w], ctx.workspace),
      onNote: (message) => core.notice(escapeTerminal(message)),
      onRefLockWait: (lock, settings) =>
        core.info(
          escapeTerminal(
            `Waiting for another carte apply to release the lock ${lockName(settings)} (${describeRefHolder(lock)})`,
          ),
        ),
      // The outputs are the run's, set once at its end (runAction), from the fresh plan.
      onPlan: (plan, info) =>
        refused.length > 0 && plan.changes.length === 0
          ? showAllRefused(refused, lookup.why, describeTarget(info.target), summary)
          : showPlan(plan, describeTarget(info.target), summary),
    },
  );
  const problems =
    result.error instanceof ConfigError ? relativeProblems(result.error.problems, ctx.workspace) : null;
  if (problems) annotate(problems.map(problemDiagnostic), ctx.workspace);
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
      ...(inputs.shard || inputs.stage || platform !== undefined
        ? {
            title: `carte apply (${[
              ...(platform !== undefined
                ? [`platform ${platform}${inputs.rehearsal ? ", rehearsal" : ""}`]
                : []),
              ...(inputs.shard ? [`shard ${inputs.shard.index}/${inputs.shard.count}`] : []),
              ...(result.stage ? [`stage ${result.stage}`] : []),
            ].join(", ")})`,
          }
        : {}),
    });
    await upsertMarkedComment(
      gh,
      lookup.pr,
      applyMarker(inputs.shard, result.stage, platform, inputs.rehearsal),
      inputs.commentAuthor,
      body,
      lookup.comments,
    );
  }
  return { exitCode, plan: fresh ?? result.plan, failure, annotated: problems !== null, calls: result.calls };
}
