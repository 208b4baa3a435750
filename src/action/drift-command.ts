/**
 * `command: drift`: plans and opens, updates or closes the one issue labelled `carte-drift`; exit code
 * 2 when the platform differs from the files.
 */

import * as core from "@actions/core";
import { ExitCode, UsageError, problemDiagnostic } from "../errors.js";
import { isCartes, type GitHubRepo } from "../gitops/github.js";
import type { Plan } from "../plan/types.js";
import { escapeMarkdown } from "../render/escape.js";
import { contextLine, renderDriftIssue } from "../render/markdown.js";
import { runCarte } from "../run/run.js";
import { DRIFT_LABEL, DRIFT_MARKER } from "./comment.js";
import type { ActionContext } from "./context.js";
import { gitHub, type ActionInputs } from "./inputs.js";
import { annotate, relativeProblems, type Outcome } from "./outcome.js";
import {
  commentContext,
  failureOf,
  maybeWriteRecord,
  ONE_PLATFORM_RECORD,
  recordOf,
  recordPlatform,
  sectionedView,
  viewOf,
  type PlanView,
} from "./plan-view.js";
import { platformNamed, platformsToRun, readActionPlatforms } from "./platform-runs.js";
import { sectionHeading, type PlatformSection } from "./platform-view.js";
import { logPlan, type JobSummary } from "./summary.js";

/**
 * Opens or updates the one drift issue (label `carte-drift`, by the comment author) when the plan has
 * changes; closes it, with a comment, when it has none.
 */
async function syncDriftIssue(
  gh: GitHubRepo,
  view: PlanView & { plan: Plan },
  ctx: ActionContext,
  author: string,
): Promise<void> {
  const plan = view.plan;
  const open = (await gh.openIssues(DRIFT_LABEL)).filter((i) => isCartes(i, DRIFT_MARKER, author));
  const issue = open[0];
  const context = commentContext(ctx, ctx.sha);
  if (plan.changes.length > 0) {
    const stores = plan.summary.stores;
    const client = plan.changes.some((c) => c.store === "");
    const title = `carte: the platform differs from the files (${stores} store${stores === 1 ? "" : "s"}${client ? " and client settings" : ""})`;
    const body = `${DRIFT_MARKER}\n${driftBody(view, ctx, undefined)}`;
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
export async function driftOutcome(
  view: PlanView,
  inputs: ActionInputs,
  ctx: ActionContext,
  sharded: boolean,
  summary: JobSummary,
): Promise<Outcome> {
  const failure = failureOf(view);
  if (view.plan) {
    await summary.titled(renderDriftSummary({ ...view, plan: view.plan }, ctx, summary.title));
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
    await syncDriftIssue(gh, { ...view, plan: view.plan }, ctx, inputs.commentAuthor);
  }
  const drift = view.plan.changes.length > 0;
  if (drift)
    core.warning(`drift: ${view.plan.changes.length} change(s) would make the platform match the files`);
  return { exitCode: drift ? ExitCode.changes : ExitCode.ok, plan: view.plan };
}

/** The drift part of the job summary, under the run's heading `title`. */
function renderDriftSummary(view: PlanView & { plan: Plan }, ctx: ActionContext, title: string): string {
  return view.plan.changes.length === 0
    ? `### ${escapeMarkdown(title)}\n\n**No drift**: the platform matches the files.\n`
    : driftBody(view, ctx, title);
}

/**
 * The drift issue's body (under `title`, default "carte drift"): for a run of platforms, a section per
 * platform, each in its own currency, the platforms without drift saying so.
 */
function driftBody(view: PlanView & { plan: Plan }, ctx: ActionContext, title: string | undefined): string {
  const context = commentContext(ctx, ctx.sha);
  if (!view.sections) return renderDriftIssue(view.plan, { context, ...(title ? { title } : {}) });
  const line = contextLine(context);
  const head = `### ${escapeMarkdown(title ?? "carte drift")}\n\n${line ? `${line}\n\n` : ""}`;
  const share = Math.floor((DRIFT_CHARS - head.length) / Math.max(1, view.sections.length));
  const parts = view.sections.map((s) =>
    s.view.plan && s.view.plan.changes.length > 0
      ? renderDriftIssue(s.view.plan, { title: s.heading, maxChars: share }).replace(/^### /, "#### ")
      : `#### ${escapeMarkdown(s.heading)}\n\n**No drift**: the platform matches the files.\n`,
  );
  return head + parts.join("\n");
}

/** The room of a drift issue of platforms' sections (GitHub allows 65,536 characters). */
const DRIFT_CHARS = 60_000;

/** `command: drift`. */
export async function driftCommand(
  inputs: ActionInputs,
  ctx: ActionContext,
  env: NodeJS.ProcessEnv,
  summary: JobSummary,
): Promise<Outcome> {
  const known = readActionPlatforms(inputs.config);
  const platforms = platformsToRun(inputs.platforms, inputs.rehearsal, known, inputs.config);
  if (platforms.length > 1 && (inputs.planOut || inputs.shard)) throw new UsageError(ONE_PLATFORM_RECORD);
  const sections: PlatformSection<PlanView>[] = [];
  const annotated = new Set<string>();
  for (const name of platforms) {
    const result = await runCarte({
      command: "plan",
      config: inputs.config,
      env,
      force: undefined,
      shard: inputs.shard,
      stage: inputs.stage,
      secretsFile: inputs.secretsFile || undefined,
      ...(name !== undefined ? { platform: name, rehearsal: inputs.rehearsal } : {}),
    });
    const one = viewOf(result, ctx.sha, undefined);
    if (one.problems) {
      one.problems = relativeProblems(one.problems, ctx.workspace);
      annotate(one.problems.map(problemDiagnostic), ctx.workspace, annotated);
    }
    if (one.plan && one.exitCode === ExitCode.ok && one.plan.changes.length > 0)
      one.exitCode = ExitCode.changes;
    const platform = platformNamed(known, name ?? "");
    sections.push({
      name: platform.name,
      heading: sectionHeading(platform, inputs.rehearsal, one.target),
      view: one,
      calls: result.calls,
    });
  }
  const view = platforms[0] === undefined ? sections[0]!.view : sectionedView(sections, ctx.sha);
  const section = view.sections?.length === 1 ? view.sections[0] : undefined;
  const recordFile = await maybeWriteRecord(
    inputs,
    recordOf("drift", inputs.shard, section ? section.view : view, section && recordPlatform(section)),
  );
  const out = await driftOutcome(view, inputs, ctx, inputs.shard !== undefined, summary);
  return { ...out, recordFile };
}
