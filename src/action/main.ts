/**
 * The GitHub Action: a thin adapter from the Action's inputs and the run's context to the plan/apply
 * path it shares with the CLI (src/run/run.ts), and from the result to the Action's outputs, job summary,
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
 *
 * The parts: the inputs (inputs.ts), the job summary and run log (summary.ts), what a command ends
 * with and how its failures read (outcome.ts), the plan comment's view and the run records
 * (plan-view.ts), and one module per command (plan-command.ts, apply-command.ts, drift-command.ts,
 * report-command.ts). This module runs the command the inputs name and turns its outcome, or any error,
 * into the outputs and the step's exit code.
 */

import * as core from "@actions/core";
import { ExitCode, exitCodeFor } from "../errors.js";
import { renderError } from "../render/error.js";
import { escapeLog, escapeTerminal } from "../render/escape.js";
import { applyCommand } from "./apply-command.js";
import { readContext } from "./context.js";
import { driftCommand } from "./drift-command.js";
import { readInputs, reviewSecret, type ActionDeps } from "./inputs.js";
import type { Outcome } from "./outcome.js";
import { planCommand } from "./plan-command.js";
import { maskCredentials, readActionPlatforms } from "./platform-runs.js";
import { reportCommand } from "./report-command.js";
import { JobSummary } from "./summary.js";

/** Runs the Action. Returns the exit code (also set as the `exitcode` output, whatever happens). */
export async function runAction(
  env: NodeJS.ProcessEnv = process.env,
  deps: ActionDeps = {},
): Promise<number> {
  // The credentials of every platform and the review key never reach any output; masking guards the
  // logs as well, before anything is written to them.
  maskCredentials(env, readActionPlatforms(core.getInput("config") || "carte.yaml"));
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
