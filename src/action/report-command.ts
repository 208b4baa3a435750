/**
 * `command: report`: merges the run records of a matrix's shards (input `plans`) into the one comment
 * (or drift issue) a single job would have written.
 */

import { glob } from "tinyglobby";
import { UsageError } from "../errors.js";
import { upsertMarkedComment } from "../gitops/github.js";
import { mergeRecords, readRecord } from "../gitops/record.js";
import { COMMENT_MARKER } from "./comment.js";
import type { ActionContext } from "./context.js";
import { driftOutcome } from "./drift-command.js";
import { gitHub, type ActionInputs } from "./inputs.js";
import type { Outcome } from "./outcome.js";
import { failureOf, planCommentBody, summarizePlan, type PlanView } from "./plan-view.js";
import type { JobSummary } from "./summary.js";

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
