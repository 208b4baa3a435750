/**
 * The Action's job summary (one heading, the command's) and the text plan in the run log, each line
 * escaped so that no value becomes a workflow command (src/render/escape.ts `escapeLog`).
 */

import { appendFile } from "node:fs/promises";
import * as core from "@actions/core";
import { UsageError } from "../errors.js";
import type { Plan } from "../plan/types.js";
import { escapeHtml, escapeLog, escapeMarkdown } from "../render/escape.js";
import { joinTextParts, renderTextParts, type TextPart } from "../render/text.js";

/** The most characters of the text plan put in the job summary (GitHub allows 1 MiB per step). */
const SUMMARY_PLAN_CHARS = 900_000;

/** How the Action names an override of the guards in the text plan (the CLI says `--force`). */
const OVERRIDDEN_BY = "the force-reason input";

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
export class JobSummary {
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
export function logPlan(plan: Plan, target: string | undefined): TextPart[] {
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
export async function showPlan(plan: Plan, target: string | undefined, summary: JobSummary): Promise<void> {
  await summary.code(joinTextParts(logPlan(plan, target)));
}
