/**
 * The views of an apply's outcome (an {@link ApplyReport}), like the plan's views next to it: text for
 * the terminal (`carte apply`), Markdown for the GitHub Action's job summary, JSON for machines
 * (`carte apply --json`). Pure: `(plan, report, …) => string`. No secret can appear: reports hold
 * calls (method, path, status, the platform's redacted message), never response bodies.
 */

import type { Plan } from "../plan/types.js";
import type { CallCount } from "../platform/call-tally.js";
import { escapeMarkdown, escapeTerminal, jsonSafe } from "./escape.js";
import { isComplete, type ApplyReport } from "../apply/report.js";
import { renderStagesMarkdown, renderStagesText } from "./rollout-headings.js";

/** The API calls of a report that succeeded. */
function succeeded(report: ApplyReport): number {
  return report.operations.filter((o) => o.status === "ok").length;
}

/**
 * Renders the outcome of an apply as the text `carte apply` prints after the plan: one line when every
 * call succeeded and the platform shows every change, else the calls that failed or were skipped and the
 * addresses not yet shown. Starts with an empty line and ends with a newline.
 *
 * @param ms how long the apply took, in milliseconds (shown in seconds, one decimal).
 * @param target where the run went, in words (src/run/session.ts `describeTarget`): the closing line names
 *   it (`The embedded emulator (state in …) shows every change.`, `Apply incomplete against the platform
 *   at HOST: …`); absent: "The platform".
 */
export function renderReport(plan: Plan, report: ApplyReport, ms: number, target?: string): string {
  const s = plan.summary;
  const lines: string[] = [];
  const done = succeeded(report);
  // A rollout (carte.yaml rollout:, --stage): what each stage did, in order, first.
  if (report.stages && report.stages.length > 0) lines.push(`\n${renderStagesText(report.stages)}`);
  if (isComplete(report)) {
    lines.push(
      `\nApply complete: ${s.create} created, ${s.update} updated, ${s.delete} deleted; ` +
        `${done} API call${done === 1 ? "" : "s"} in ${(ms / 1000).toFixed(1)} s. ` +
        escapeTerminal(`The ${target ?? "platform"} shows every change.`),
    );
  } else {
    const against = target === undefined ? "" : escapeTerminal(` against the ${target}`);
    lines.push(`\nApply incomplete${against}: ${done} of ${report.operations.length} API calls succeeded.`);
    for (const o of report.operations.filter((x) => x.status !== "ok")) {
      lines.push(escapeTerminal(`  ${o.status}: ${o.method} ${o.path}${o.message ? `: ${o.message}` : ""}`));
    }
    for (const r of report.refused ?? [])
      lines.push(escapeTerminal(`  refused store ${r.store}: ${r.reason}`));
    if (report.pending.length > 0) {
      lines.push(escapeTerminal(`  not yet shown by the platform: ${report.pending.join(", ")}`));
    }
    if ((report.duplicates ?? []).length > 0) {
      lines.push(escapeTerminal(`  duplicates still on the platform: ${report.duplicates!.join(", ")}`));
    }
    lines.push("Run `carte apply` again once the cause is fixed: it applies only what is left.");
  }
  for (const r of report.rotated ?? []) lines.push(escapeTerminal(rotatedLine(r)));
  if (plan.safety.override)
    lines.push(escapeTerminal(`Safety guards were overridden, reason: ${plan.safety.override.reason}`));
  return lines.join("\n") + "\n";
}

/** The line of a webhook secret an earlier run never saved that the apply rotated. Raw text. */
function rotatedLine(r: { event: string; where: string }): string {
  return `Rotated the secret of the ${r.event} webhook, which an earlier run never saved; the new one is in ${r.where}.`;
}

/**
 * A value inside a table cell or `<code>` (src/render/escape.ts): Markdown and HTML special characters,
 * the cell separator, mentions and references made inert, on one line.
 */
const cell = (s: string) => escapeMarkdown(s);

/** Options of {@link renderReportMarkdown}. */
export interface ReportMarkdownOptions {
  /** Most calls listed in the table of failed and skipped calls. Default 100; the rest are counted. */
  maxRows?: number;
  /** Where the run went, in words (src/run/session.ts `describeTarget`); absent: "the platform". */
  target?: string | undefined;
}

/**
 * Renders the outcome of an apply as GitHub-flavoured Markdown (the GitHub Action's job summary):
 * a bold verdict, the sentence `Applied N API calls.`, then, when some calls failed or were skipped, a
 * table of them (status, call, the platform's message) and the addresses the platform does not show
 * yet. Values are HTML-escaped and cannot break out of the table. Ends with a newline.
 */
export function renderReportMarkdown(
  plan: Plan,
  report: ApplyReport,
  options: ReportMarkdownOptions = {},
): string {
  const s = plan.summary;
  const done = succeeded(report);
  const calls = `${done} API call${done === 1 ? "" : "s"}`;
  const lines: string[] = [];
  // A rollout (carte.yaml rollout:, --stage): a heading per stage, in order, first.
  if (report.stages && report.stages.length > 0) lines.push(renderStagesMarkdown(report.stages));
  if (isComplete(report)) {
    lines.push(
      `**Apply complete**: ${s.create} created, ${s.update} updated, ${s.delete} deleted. ` +
        `Applied ${calls}. ${cell(`The ${options.target ?? "platform"} shows every change.`)}`,
    );
  } else {
    lines.push(
      `**Apply incomplete**${options.target === undefined ? "" : ` against the ${cell(options.target)}`}: ` +
        `Applied ${calls} of ${report.operations.length}; ` +
        `${report.failed} failed, ${report.skipped} skipped.`,
      "",
      "| status | call | message |",
      "| --- | --- | --- |",
    );
    const troubled = report.operations.filter((x) => x.status !== "ok");
    const max = options.maxRows ?? 100;
    for (const o of troubled.slice(0, max)) {
      lines.push(
        `| ${o.status} | <code>${cell(`${o.method} ${o.path}`)}</code> | ${cell(o.message ?? "")} |`,
      );
    }
    if (troubled.length > max) lines.push("", `_${troubled.length - max} more not shown._`);
    for (const r of report.refused ?? []) {
      lines.push("", `Refused store <code>${cell(r.store)}</code>: ${cell(r.reason)}`);
    }
    if ((report.duplicates ?? []).length > 0) {
      lines.push(
        "",
        `Duplicates still on the platform: ${report.duplicates!.map((p) => `<code>${cell(p)}</code>`).join(", ")}`,
      );
    }
    if (report.pending.length > 0) {
      lines.push(
        "",
        `Not yet shown by the platform: ${report.pending.map((p) => `<code>${cell(p)}</code>`).join(", ")}`,
      );
    }
    lines.push("", "Run the apply again once the cause is fixed: it applies only what is left.");
  }
  for (const r of report.rotated ?? []) lines.push("", cell(rotatedLine(r)));
  if (plan.safety.override) {
    lines.push("", `Safety guards were overridden, reason: ${cell(plan.safety.override.reason)}`);
  }
  return lines.join("\n") + "\n";
}

/**
 * Renders the outcome of an apply as pretty-printed JSON (`carte apply --json`), ending with a newline:
 * `{summary, safety, operations, failed, skipped, pending, waitedMs}` (`rotated` when lost webhook
 * secrets were rotated; and `stages`, in order, for a
 * rollout: src/apply/rollout.ts `StageOutcome`); for a plan with no changes,
 * where nothing was applied, `{summary, operations: [], pending: []}`. With `calls`, both end with
 * `calls: {made, succeeded}`: the run's HTTP calls to the platform and those answered 2xx
 * (docs/platform-api.md §1, the success rate the platform's terms bound).
 */
export function renderReportJson(plan: Plan, report: ApplyReport | undefined, calls?: CallCount): string {
  const made = calls === undefined ? {} : { calls: { made: calls.calls, succeeded: calls.succeeded } };
  const body = report
    ? { summary: plan.summary, safety: plan.safety, ...report, ...made }
    : { summary: plan.summary, operations: [], pending: [], ...made };
  return jsonSafe(JSON.stringify(body, null, 2)) + "\n";
}
