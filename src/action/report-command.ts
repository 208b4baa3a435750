/**
 * `command: report`: merges the run records of a matrix's shards (input `plans`) into the one comment
 * (or drift issue) a single job would have written.
 */

import { glob } from "tinyglobby";
import { PlanFileError, UsageError } from "../errors.js";
import { upsertMarkedComment } from "../gitops/github.js";
import { mergeRecords, readRecord, type MergedRecords, type RunRecord } from "../gitops/record.js";
import type { PlatformSection } from "./platform-view.js";
import { COMMENT_MARKER } from "./comment.js";
import type { ActionContext } from "./context.js";
import { driftOutcome } from "./drift-command.js";
import { gitHub, type ActionInputs } from "./inputs.js";
import type { Outcome } from "./outcome.js";
import { failureOf, planCommentBody, sectionedView, summarizePlan, type PlanView } from "./plan-view.js";
import type { JobSummary } from "./summary.js";

/** The view of merged records. */
function viewOfMerged(merged: MergedRecords): PlanView {
  return {
    plan: merged.plan,
    split: merged.split,
    problems: merged.problems,
    errors: merged.errors,
    exitCode: merged.exitCode,
    commit: merged.commit ?? undefined,
    ...(merged.target !== undefined ? { target: merged.target } : {}),
    ...(merged.preview.length > 0 ? { preview: merged.preview } : {}),
  };
}

/** The records of one run (its shards) as one view. */
function oneView(records: RunRecord[]): { command: "plan" | "drift"; view: PlanView } {
  const merged = mergeRecords(records);
  return { command: merged.command, view: viewOfMerged(merged) };
}

/**
 * The records of a matrix over platforms (each record of one platform, and of one of its shards) as
 * one view of a section per platform, in the order of the platforms' names.
 *
 * @throws PlanFileError when some records are of a platform and others are not, or when the
 *   platforms' records are of different commands or commits.
 */
function platformsView(records: RunRecord[]): { command: "plan" | "drift"; view: PlanView } {
  const groups = new Map<string, RunRecord[]>();
  for (const r of records) {
    if (!r.platform)
      throw new PlanFileError("the run records mix runs of a platform (input platform) with runs of none");
    const list = groups.get(r.platform.name);
    if (list) list.push(r);
    else groups.set(r.platform.name, [r]);
  }
  const sections: PlatformSection<PlanView>[] = [...groups.keys()].sort().map((name) => {
    const group = groups.get(name)!;
    const sum = (k: "calls" | "succeeded") => group.reduce((n, r) => n + (r.platform?.calls?.[k] ?? 0), 0);
    return {
      name,
      heading: group[0]!.platform!.heading,
      view: viewOfMerged(mergeRecords(group)),
      ...(group.some((r) => r.platform?.calls)
        ? { calls: { calls: sum("calls"), succeeded: sum("succeeded") } }
        : {}),
    };
  });
  const first = records[0]!;
  for (const r of records) {
    if (r.command !== first.command) throw new PlanFileError("the run records mix plan and drift runs");
    if (r.commit !== first.commit)
      throw new PlanFileError(`the run records are of different commits (${first.commit} and ${r.commit})`);
  }
  return { command: first.command, view: sectionedView(sections, first.commit ?? undefined) };
}

/** `command: report`: the run records of a matrix's shards merged into one comment or drift issue. */
export async function reportCommand(
  inputs: ActionInputs,
  ctx: ActionContext,
  summary: JobSummary,
): Promise<Outcome> {
  if (inputs.plans.length === 0)
    throw new UsageError("command report needs the input plans (the run records' paths)");
  const files = (await glob(inputs.plans, { cwd: process.cwd(), absolute: true, onlyFiles: true })).sort();
  if (files.length === 0) throw new UsageError(`no run record matches ${inputs.plans.join(", ")}`);
  const records = await Promise.all(files.map((f) => readRecord(f)));
  const { command, view } = records.some((r) => r.platform) ? platformsView(records) : oneView(records);
  if (command === "drift") return driftOutcome(view, inputs, ctx, false, summary);
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
