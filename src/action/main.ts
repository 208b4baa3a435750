/**
 * The GitHub Action: a thin adapter from the Action's inputs to the plan/apply path it shares with the
 * CLI (src/run.ts), and from the run's result to the Action's outputs, job summary and comment.
 * `command: plan` on a pull request posts (or updates) one comment with the Markdown plan and writes
 * the full text plan to the job summary; `command: apply` applies and reports in the job summary.
 * Outputs: `has-changes`, `summary` (JSON counts), `exitcode` (the CLI's exit codes, set on every run,
 * errors included), and `webhook_secret_<EVENT>` (masked) for each webhook secret an apply got.
 */

import { escapeHtml, escapeLines, escapeTerminal } from "../render/escape.js";
import { lostSecretsMessage } from "../secrets.js";
import { readFileSync } from "node:fs";
import * as core from "@actions/core";
import { ExitCode, exitCodeFor } from "../errors.js";
import { renderError } from "../render/error.js";
import { renderMarkdown } from "../render/markdown.js";
import { renderReportMarkdown } from "../render/report.js";
import { renderText } from "../render/text.js";
import { runCarte, type RunRequest, type RunResult } from "../run.js";
import { upsertComment } from "./comment.js";
import { actionSecretSink, actionSecretsFile } from "./secrets.js";

/** The Action's inputs (action.yml), read from the environment the runner sets. */
export interface ActionInputs {
  command: "plan" | "apply";
  config: string;
  comment: boolean;
  githubToken: string;
  force: { reason: string } | undefined;
  /** Input `secrets-file`; empty: `CARTE_SECRETS_FILE`, else carte.yaml `secrets_file:`. */
  secretsFile: string;
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
    secretsFile: core.getInput("secrets-file"),
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

/** The most characters of the text plan put in the job summary (GitHub allows 1 MiB per step). */
const SUMMARY_PLAN_CHARS = 900_000;

/** Writes a block of text to the job summary, HTML-escaped inside `<pre><code>`. */
async function summaryCode(text: string): Promise<void> {
  const cut = text.length > SUMMARY_PLAN_CHARS ? text.slice(0, SUMMARY_PLAN_CHARS) + "\n… (cut)" : text;
  await core.summary.addCodeBlock(escapeHtml(cut), "text").write();
}

/** Runs the Action. Returns the exit code (also set as the `exitcode` output, whatever happens). */
export async function runAction(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // The client secret never reaches any output; masking guards the logs as well.
  if (env.CARTE_CLIENT_SECRET) core.setSecret(env.CARTE_CLIENT_SECRET);
  let inputs: ActionInputs | undefined;
  let result: RunResult = { exitCode: ExitCode.ok };
  let headed = false;
  const heading = async () => {
    if (headed) return;
    headed = true;
    await core.summary.addHeading(inputs?.command === "apply" ? "carte apply" : "carte plan", 3).write();
  };
  try {
    inputs = readInputs();
    const base = { config: inputs.config, env, force: inputs.force };
    const secretsInput = inputs.secretsFile;
    const request: RunRequest =
      inputs.command === "apply"
        ? {
            ...base,
            command: "apply",
            secrets: (project) =>
              actionSecretSink(
                actionSecretsFile({ input: secretsInput, env, configured: project.secretsFile }),
              ),
          }
        : { ...base, command: "plan" };
    result = await runCarte(request, {
      onWarning: (message) => core.warning(escapeTerminal(message)),
      onPlan: async (plan) => {
        core.setOutput("has-changes", String(plan.changes.length > 0));
        core.setOutput("summary", JSON.stringify(plan.summary));
        await heading();
        await summaryCode(renderText(plan, { color: false }));
      },
    });
    if (inputs.command === "plan" && result.plan) {
      const pr = pullRequestNumber(env);
      if (inputs.comment && pr !== undefined && inputs.githubToken && env.GITHUB_REPOSITORY) {
        const body = renderMarkdown(result.plan, { fullPlanAt: "the job summary of this workflow run" });
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
    }
  } catch (err) {
    // Only the inputs and the comment get here: the shared path returns its errors.
    result = { ...result, exitCode: exitCodeFor(err), error: err };
  }

  let code = result.exitCode;
  try {
    if (result.plan && result.report) {
      await heading();
      await core.summary.addRaw(renderReportMarkdown(result.plan, result.report), true).write();
    }
    if (result.error !== undefined) {
      const message = renderError(result.error);
      await heading();
      await core.summary.addRaw(`**Failed with exit code ${result.exitCode}:**`, true).write();
      await summaryCode(message);
      core.setFailed(message);
    } else if (result.report && (result.report.failed > 0 || result.report.skipped > 0)) {
      const failed = result.report.operations.filter((o) => o.status !== "ok");
      core.setFailed(
        escapeTerminal(
          `apply incomplete: ${failed.map((o) => `${o.status} ${o.method} ${o.path}${o.message ? `: ${o.message}` : ""}`).join("; ")}`,
        ),
      );
    }
    if (result.lostSecrets) core.setFailed(escapeLines(lostSecretsMessage(result.lostSecrets)));
  } catch (err) {
    // The summary could not be written: the step still fails with the cause.
    code = code === ExitCode.ok ? ExitCode.error : code;
    core.setFailed(renderError(result.error ?? err));
  }
  core.setOutput("exitcode", String(code));
  return code;
}
