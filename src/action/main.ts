/**
 * The GitHub Action: a thin adapter from the Action's inputs to the same library calls as the CLI.
 * `command: plan` on a pull request posts (or updates) one comment with the Markdown plan and writes
 * the full text plan to the job summary; `command: apply` applies and reports in the job summary.
 * Outputs: `has-changes`, `summary` (JSON counts), `exitcode` (the CLI's exit codes).
 */

import { readFileSync } from "node:fs";
import * as core from "@actions/core";
import { loadProject } from "../config/index.js";
import { ExitCode, UnsafePlanError, exitCodeFor } from "../errors.js";
import { renderMarkdown } from "../render/markdown.js";
import { renderText } from "../render/text.js";
import { openSession } from "../session.js";
import { applyPlan, enforceSafety, planProject } from "../workflow.js";
import { upsertComment } from "./comment.js";

/** The Action's inputs (action.yml), read from the environment the runner sets. */
export interface ActionInputs {
  command: "plan" | "apply";
  config: string;
  comment: boolean;
  githubToken: string;
  force: { reason: string } | undefined;
}

/** Reads and checks the inputs. Throws on a bad value. */
export function readInputs(): ActionInputs {
  const command = core.getInput("command") || "plan";
  if (command !== "plan" && command !== "apply")
    throw new Error(`input command must be plan or apply, got ${command}`);
  const reason = core.getInput("force-reason");
  return {
    command,
    config: core.getInput("config") || "carte.yaml",
    comment: (core.getInput("comment") || "true") !== "false",
    githubToken: core.getInput("github-token"),
    force: reason ? { reason } : undefined,
  };
}

/** The pull request number of the event, when the workflow runs for one. */
function pullRequestNumber(env: NodeJS.ProcessEnv): number | undefined {
  if (!env.GITHUB_EVENT_PATH) return undefined;
  try {
    const event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8")) as {
      pull_request?: { number?: number };
      number?: number;
    };
    return event.pull_request?.number ?? undefined;
  } catch {
    return undefined;
  }
}

/** Runs the Action. Returns the exit code (also set as the `exitcode` output). */
export async function runAction(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const inputs = readInputs();
  // The client secret never reaches any output; masking guards the logs as well.
  if (env.CARTE_CLIENT_SECRET) core.setSecret(env.CARTE_CLIENT_SECRET);
  const project = await loadProject(inputs.config);
  for (const w of project.warnings) core.warning(w);
  const session = await openSession(project, { env });
  let code: number = ExitCode.ok;
  try {
    const { plan } = await planProject(project, session);
    let refusal: unknown;
    try {
      enforceSafety(plan, inputs.force);
    } catch (err) {
      if (!(err instanceof UnsafePlanError)) throw err;
      refusal = err;
    }
    const hasChanges = plan.changes.length > 0;
    core.setOutput("has-changes", String(hasChanges));
    core.setOutput("summary", JSON.stringify(plan.summary));
    const text = renderText(plan, { color: false });
    await core.summary
      .addHeading(inputs.command === "apply" ? "carte apply" : "carte plan", 3)
      .addCodeBlock(text.length > 900_000 ? text.slice(0, 900_000) + "\n… (cut)" : text, "text")
      .write();

    if (inputs.command === "plan") {
      const pr = pullRequestNumber(env);
      if (inputs.comment && pr !== undefined && inputs.githubToken && env.GITHUB_REPOSITORY) {
        const body = renderMarkdown(plan, { fullPlanAt: "the job summary of this workflow run" });
        await upsertComment(
          {
            apiUrl: env.GITHUB_API_URL ?? "https://api.github.com",
            repository: env.GITHUB_REPOSITORY,
            number: pr,
            token: inputs.githubToken,
          },
          body,
        );
      }
      code = refusal ? exitCodeFor(refusal) : ExitCode.ok;
      if (refusal) core.setFailed((refusal as Error).message);
    } else {
      if (refusal) {
        code = exitCodeFor(refusal);
        core.setFailed((refusal as Error).message);
      } else if (hasChanges) {
        const report = await applyPlan(plan, session);
        if (report.failed > 0 || report.skipped > 0) {
          code = ExitCode.error;
          const failed = report.operations.filter((o) => o.status !== "ok");
          core.setFailed(
            `apply incomplete: ${failed.map((o) => `${o.status} ${o.method} ${o.path}${o.message ? `: ${o.message}` : ""}`).join("; ")}`,
          );
        }
        await core.summary
          .addRaw(`Applied ${report.operations.filter((o) => o.status === "ok").length} API calls.`, true)
          .write();
      }
    }
  } catch (err) {
    code = exitCodeFor(err);
    core.setFailed(err instanceof Error ? err.message : String(err));
  } finally {
    await session.close();
  }
  core.setOutput("exitcode", String(code));
  return code;
}
