/**
 * `command: plan`: plans; on a pull request, against the base branch's files too, uploads the menu
 * preview, and posts (or updates) the one plan comment with the signed record of the reviewed plan.
 */

import path from "node:path";
import * as core from "@actions/core";
import type { LoadedProject } from "../config/index.js";
import { problemDiagnostic } from "../errors.js";
import type { BaseSplit } from "../gitops/base.js";
import { fetchCommit, findRepository, resolveCommit, type GitRepository } from "../gitops/git.js";
import { upsertMarkedComment } from "../gitops/github.js";
import type { Plan } from "../plan/types.js";
import { previewPlan } from "../preview-site.js";
import { escapeTerminal } from "../render/escape.js";
import type { PreviewNote } from "../render/markdown.js";
import { runCarte } from "../run/run.js";
import type { RunResult } from "../run/request.js";
import { UsageError } from "../errors.js";
import { platformNamed, platformsToRun, readActionPlatforms, type ActionPlatform } from "./platform-runs.js";
import { sectionHeading } from "./platform-view.js";
import { COMMENT_MARKER } from "./comment.js";
import type { ActionContext } from "./context.js";
import { gitHub, type ActionDeps, type ActionInputs } from "./inputs.js";
import { annotate, relativeProblems, type Outcome } from "./outcome.js";
import {
  failureOf,
  maybeWriteRecord,
  planCommentBody,
  ONE_PLATFORM_RECORD,
  recordOf,
  recordPlatform,
  sectionedView,
  summarizePlan,
  viewOf,
  type PlanView,
} from "./plan-view.js";
import {
  artifactStorageMissing,
  artifactUploader,
  previewArtifactName,
  uploadPreview,
} from "./preview-artifact.js";
import type { JobSummary } from "./summary.js";

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

/** The base of a pull request's plan, resolved once for every platform's run. */
type ResolvedBase = Awaited<ReturnType<typeof resolveBase>>;

/** One run of `plan` (of one platform of carte.yaml `platforms:`, or of a project without them). */
interface PlanRun {
  view: PlanView;
  result: RunResult;
}

/**
 * Plans one platform (`platform` undefined: a project without `platforms:`) and makes its view: the
 * scope's base named as the user knows it, problems relative to the workspace and annotated, the
 * base's unavailability said, and the menu preview of a pull request uploaded.
 */
async function planOne(
  platform: string | undefined,
  inputs: ActionInputs,
  where: {
    ctx: ActionContext;
    env: NodeJS.ProcessEnv;
    deps: ActionDeps;
    base: ResolvedBase;
    scoped: boolean;
    /** The annotations made by the platforms planned before: each is made once. */
    annotated: Set<string>;
  },
): Promise<PlanRun> {
  const { ctx, env, deps, base } = where;
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
      ...(where.scoped ? { scope: "changed" as const } : {}),
      ...(platform !== undefined ? { platform, rehearsal: inputs.rehearsal } : {}),
    },
    {
      onWarning: (w) => annotate([w], ctx.workspace, where.annotated),
      onNote: (message) => core.notice(escapeTerminal(message)),
    },
  );
  // The scope names the base as the user knows it (the base branch), its commit apart.
  const scope = result.plan?.targeting?.scope;
  if (scope && base.name) scope.base = base.name;
  const view = viewOf(result, ctx.pullRequest?.headSha ?? ctx.sha, base.name);
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
  if (view.problems) annotate(view.problems.map(problemDiagnostic), ctx.workspace, where.annotated);
  if (inputs.preview !== "off" && ctx.pullRequest && view.plan && result.project) {
    const note = await planPreview(inputs.preview, view.plan, result.project, view.split, {
      name: previewArtifactName(ctx, inputs.shard, result.stage ?? inputs.stage, platform),
      ctx,
      env,
      deps,
    });
    if (note) view.preview = [note];
  }
  return { view, result };
}

/** `command: plan`. */
export async function planCommand(
  inputs: ActionInputs,
  ctx: ActionContext,
  env: NodeJS.ProcessEnv,
  summary: JobSummary,
  deps: ActionDeps,
): Promise<Outcome> {
  const commit = ctx.pullRequest?.headSha ?? ctx.sha;
  const known = readActionPlatforms(inputs.config);
  const platforms = platformsToRun(inputs.platforms, inputs.rehearsal, known, inputs.config);
  if (platforms.length > 1 && (inputs.planOut || inputs.shard)) throw new UsageError(ONE_PLATFORM_RECORD);
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
  // One platform after the other: a platform that fails (its host down) fails its own section only.
  const runs: (PlanRun & { platform: ActionPlatform })[] = [];
  const annotated = new Set<string>();
  for (const name of platforms) {
    const run = await planOne(name, inputs, { ctx, env, deps, base, scoped, annotated });
    runs.push({ ...run, platform: platformNamed(known, name ?? "") });
  }
  const view =
    platforms[0] === undefined
      ? runs[0]!.view
      : sectionedView(
          runs.map((r) => ({
            name: r.platform.name,
            heading: sectionHeading(r.platform, inputs.rehearsal, r.view.target),
            view: r.view,
            calls: r.result.calls,
          })),
          commit,
        );
  // After the preview: the record carries its link to the report job of a sharded run.
  const section = view.sections?.length === 1 ? view.sections[0] : undefined;
  const recordFile = await maybeWriteRecord(
    inputs,
    recordOf("plan", inputs.shard, section ? section.view : view, section && recordPlatform(section)),
  );
  await summarizePlan(view, ctx, summary);
  // A shard's comment is the report job's: one comment for the whole run. So is the comment of one
  // platform's job of a matrix over platforms (it writes a run record of one of several platforms).
  const gh = gitHub(inputs, ctx);
  const oneOfSeveral = !!recordFile && !!section && known.length > 1;
  if (inputs.comment && !inputs.shard && !oneOfSeveral && ctx.pullRequest && gh) {
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
    // Annotated when every platform that failed failed on problems, each an annotation already.
    annotated:
      runs.some((r) => !!r.view.problems?.length) &&
      runs.every((r) => failureOf(r.view) === undefined || !!r.view.problems?.length),
  };
}
