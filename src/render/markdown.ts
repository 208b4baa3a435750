/**
 * The pull-request view of a plan: a summary first, then one collapsible section per store, within a
 * size bound so that the comment always fits GitHub's limit of 65,536 characters per comment. What does
 * not fit is left out with a pointer to the full plan (the job summary or an artifact). Pure.
 */

import type { Plan, ResourceChange } from "../plan/types.js";
import { codeSpan, escapeFence, escapeMarkdown, escapeTerminal } from "./escape.js";
import { changesByStore, countsOf, plural } from "./lines.js";
import {
  buildView,
  detailText,
  headText,
  infoNotes,
  storesText,
  type ChangeView,
  type RunStores,
} from "./view.js";
import { notes, summaryLine, targetLine } from "./text.js";
import { scopeLine, scopeNotes } from "./scope.js";
import { isFiltering } from "../plan/target.js";
import type { StageOutcome } from "../apply/rollout.js";
import { renderPlannedStagesMarkdown } from "./rollout-headings.js";

/** GitHub's limit on the size of one issue or pull-request comment, in characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;

/** Options of {@link renderMarkdown}. */
export interface MarkdownOptions {
  /** Most characters of the result. Default 60 000, safely under {@link GITHUB_COMMENT_LIMIT}. */
  maxChars?: number;
  /** Where the full plan can be read when the comment is cut, e.g. "the job summary". */
  fullPlanAt?: string;
  /** Heading of the comment. Default "carte plan". */
  title?: string;
  /** Where the run goes, in words (src/run/session.ts `describeTarget`), named under the heading. */
  target?: string | undefined;
  /** The rollout's stages and what each would change (`RunResult.plannedStages`), under the counts. */
  stages?: readonly StageOutcome[] | undefined;
  /**
   * When the plan is read (ms since the epoch or a date; default: the system's clock): instants are
   * said relative to that day on each store's clock (`18:00 GMT-5 (today)`).
   */
  now?: number | Date | undefined;
}

/** The lines of changes inside a ```diff fence: `+` create, `!` update, `-` delete (src/render/view.ts). */
function fenceLines(
  changes: readonly { change: ChangeView; stores?: readonly string[] }[],
  run: RunStores,
): string[] {
  const sign = { create: "+", update: "!", delete: "-" } as const;
  const lines: string[] = [];
  for (const { change: ch, stores } of changes) {
    const pad = ch.nested ? "  " : "";
    const where = [ch.within ? `in ${ch.within}` : "", stores ? storesText(stores, run) : ""]
      .filter((x) => x !== "")
      .join("  ");
    // One line each (escapeTerminal shows a line feed as `\n`), then made safe inside the fence.
    lines.push(
      escapeFence(escapeTerminal(`${pad}${sign[ch.action]} ${headText(ch)}${where ? `  ${where}` : ""}`)),
    );
    for (const d of ch.details) lines.push(escapeFence(escapeTerminal(`${pad}    ${detailText(d)}`)));
  }
  return lines;
}

/** A collapsible section: a summary line (already escaped) and the changes in a ```diff fence. */
function section(
  summary: string,
  changes: readonly { change: ChangeView; stores?: readonly string[] }[],
  run: RunStores,
): string {
  return [
    `<details><summary>${summary}</summary>`,
    "",
    "```diff",
    ...fenceLines(changes, run),
    "```",
    "",
    "</details>",
    "",
  ].join("\n");
}

/** One collapsible section of changes, and what it holds (for the note that says what was left out). */
interface Section {
  kind: "client" | "shared" | "store";
  text: string;
}

/**
 * The sections of a set of changes, in order: the client settings, the changes the same in several
 * stores (one section), then one per store with what is left for it. Each is complete Markdown.
 */
function sectionsOf(plan: Plan, changes: ResourceChange[], now: number | Date | undefined): Section[] {
  const view = buildView(plan, changes, now === undefined ? undefined : Number(now));
  const out: Section[] = [];
  const counts = (list: readonly ChangeView[]) => {
    const n = (a: ResourceChange["action"]) => list.filter((c) => c.action === a).length;
    return `+${n("create")} ~${n("update")} -${n("delete")}`;
  };
  const stores = view.stores.map((s) => ({
    s,
    text: section(
      `<code>${escapeMarkdown(s.key || "client")}</code> ${escapeMarkdown(s.key === "" ? "client settings" : s.name)}: ${counts(s.changes)}`,
      s.changes.map((change) => ({ change })),
      view.run,
    ),
  }));
  out.push(...stores.filter((x) => x.s.key === "").map((x) => ({ kind: "client" as const, text: x.text })));
  if (view.shared.length > 0) {
    out.push({
      kind: "shared",
      text: section(
        `The same in several stores: ${counts(view.shared.map((x) => x.change))}`,
        view.shared.map((x) => ({ change: x.change, stores: x.stores })),
        view.run,
      ),
    });
  }
  out.push(...stores.filter((x) => x.s.key !== "").map((x) => ({ kind: "store" as const, text: x.text })));
  return out;
}

/**
 * What a cut comment left out, named as the reader sees the sections: `3 store sections`, `The client
 * settings section, the "same in several stores" section and 3 store sections`.
 */
function leftOut(cut: { client: boolean; shared: boolean; stores: number }): string {
  const parts: string[] = [];
  if (cut.client) parts.push("the client settings section");
  if (cut.shared) parts.push('the "same in several stores" section');
  if (cut.stores > 0) parts.push(plural(cut.stores, "store section"));
  const text = parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)!}` : (parts[0] ?? "");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** {@link leftOut} of sections that were not shown. */
function leftOutOf(sections: readonly Section[]): string {
  return leftOut({
    client: sections.some((s) => s.kind === "client"),
    shared: sections.some((s) => s.kind === "shared"),
    stores: sections.filter((s) => s.kind === "store").length,
  });
}

/** The longest {@link leftOut} text: the room a note is given before the sections are laid out. */
const LONGEST_LEFT_OUT = leftOut({ client: true, shared: true, stores: 10_000_000 });

/** The plan's information about stores (`Plan.info`, not changes), at most 20 lines, as a quote. */
function infoBlock(plan: Plan): string {
  const info = infoNotes(plan);
  if (info.length === 0) return "";
  const lines = info
    .slice(0, 20)
    .map(
      (i) =>
        `> ${escapeMd(i.stores.length === 1 ? `${i.where}: ${i.message}` : `${i.message} (${i.where})`)}`,
    );
  if (info.length > 20) lines.push(`> … and ${info.length - 20} more notes (see \`carte plan\`)`);
  return `${lines.join("\n")}\n\n`;
}

/** Renders a plan as a GitHub-flavoured Markdown comment of at most `maxChars` characters. */
export function renderMarkdown(plan: Plan, options: MarkdownOptions = {}): string {
  const max = Math.min(options.maxChars ?? 60_000, GITHUB_COMMENT_LIMIT);
  const where = options.fullPlanAt ?? "the output of `carte plan`";
  const scoped = scopeLine(plan);
  const head: string[] = [
    `### ${options.title ?? "carte plan"}`,
    "",
    ...(options.target === undefined ? [] : [escapeMarkdown(targetLine(options.target)), ""]),
    ...(scoped === undefined ? [] : [`> ${escapeMarkdown(scoped)}`, ""]),
    `**${summaryLine(plan)}**`,
    "",
  ];
  const noted = notes(plan);
  for (const n of noted) {
    head.push(n.startsWith("  - ") ? `- ${escapeMarkdown(n.slice(4))}` : `> ${escapeMarkdown(n)}`);
  }
  if (noted.length) head.push("");
  if (plan.changes.length === 0) return head.join("\n");

  const byStore = changesByStore(plan.changes);
  const clientSection = byStore.has("") ? [{ key: "", name: "client settings", storeId: "" }] : [];
  const stores = [...clientSection, ...plan.stores].filter((s) => byStore.has(s.key));
  const table = ["| store | create | update | delete |", "| --- | ---: | ---: | ---: |"];
  const rows = stores.map((s) => {
    const list = byStore.get(s.key)!;
    const n = (a: ResourceChange["action"]) => list.filter((c) => c.action === a).length;
    return `| ${codeSpan(s.key || "client")} ${escapeMarkdown(s.name)} | ${n("create")} | ${n("update")} | ${n("delete")} |`;
  });

  const cutNote = (what: string) =>
    `\n_${what} not shown to keep this comment under ${max.toLocaleString("en")} characters; ` +
    `the full plan is in ${where}._\n`;
  // Reserve room for the note that says what was cut.
  const budget = max - cutNote(LONGEST_LEFT_OUT).length - 1;

  let out = head.join("\n") + "\n";
  let shownRows = 0;
  for (const row of [...table, ...rows]) {
    if (out.length + row.length + 1 > budget / 2) break;
    out += row + "\n";
    shownRows++;
  }
  shownRows -= table.length;
  if (shownRows < rows.length) out += cutNote(plural(rows.length - Math.max(0, shownRows), "store row"));
  out += "\n";

  const sections = sectionsOf(plan, plan.changes, options.now);
  let shownSections = 0;
  for (const section of sections) {
    if (out.length + section.text.length > budget) break;
    out += section.text;
    shownSections++;
  }
  if (shownSections < sections.length) out += cutNote(leftOutOf(sections.slice(shownSections)));
  return out;
}

// ── The GitHub Action's comments ─────────────────────────────────────────────────────────────────────

/** Text from the files or the inputs, shown as plain text in Markdown (src/render/escape.ts). */
const escapeMd = (s: string) => escapeMarkdown(s);
/** A value in `<code>`, escaped, on one line (src/render/escape.ts). */
const code = (s: string) => `<code>${escapeMarkdown(s)}</code>`;

/** Where and when a comment was made: the commit, the workflow run and the time. */
export interface CommentContext {
  /** The commit the run is for (a pull request's head commit). */
  commit?: string | undefined;
  /** Link to the commit. */
  commitUrl?: string | undefined;
  /** Link to the workflow run. */
  runUrl?: string | undefined;
  /** When the comment was made. */
  at?: Date | undefined;
}

/** The line that says which commit, which run and when: `Commit abc1234 · workflow run · 2025-… UTC`. */
export function contextLine(ctx: CommentContext | undefined): string {
  if (!ctx) return "";
  const parts: string[] = [];
  if (ctx.commit) {
    const short = code(ctx.commit.slice(0, 7));
    parts.push(`Commit ${ctx.commitUrl ? `[${short}](${encodeURI(ctx.commitUrl)})` : short}`);
  }
  if (ctx.runUrl) parts.push(`[workflow run](${encodeURI(ctx.runUrl)})`);
  if (ctx.at) parts.push(`${ctx.at.toISOString().slice(0, 16).replace("T", " ")} UTC`);
  return parts.join(" · ");
}

/** The split of a plan against a base, as src/gitops/base.ts computes it (addresses of the plan's changes). */
export interface SplitView {
  /** The base's ref and commit. */
  ref: string;
  sha: string;
  /** Addresses of this branch's changes. */
  changes: string[];
  /** Addresses of the changes already different on the platform. */
  drift: string[];
  /** Addresses the base would change that this branch leaves as they are. */
  settled: string[];
  /** Why the base could not be planned, if it could not. */
  unavailable?: string | undefined;
}

/** Options of {@link renderPlanComment}. */
export interface PlanCommentOptions {
  /** Heading. Default "carte plan". */
  title?: string;
  context?: CommentContext;
  /** The split against the base; without it, one list of changes. */
  split?: SplitView | undefined;
  /** What the branch is called in headings: "pull request" (default) or "branch". */
  subject?: string;
  /** How to go past the safety guards, e.g. "set the Action's `force-reason` input". */
  forceHint?: string;
  /** Hidden lines appended at the end (the reviewed plan's record); counted in the size. */
  footer?: string;
  /**
   * Why the comment carries no reviewed-plan record (no review key, not a pull request): said at the
   * end, in place of the record, so that reviewers know the merge will apply none of the plan.
   */
  noRecord?: string | undefined;
  /** Most characters of the result. Default 60 000, safely under {@link GITHUB_COMMENT_LIMIT}. */
  maxChars?: number;
  /** Where the full plan can be read when the comment is cut. */
  fullPlanAt?: string;
  /** Where the run goes, in words (src/run/session.ts `describeTarget`), named under the heading. */
  target?: string | undefined;
  /** The rollout's stages and what each would change (`RunResult.plannedStages`), under the counts. */
  stages?: readonly StageOutcome[] | undefined;
  /**
   * The menu previews of the plan's stores (the Action's artifacts: one per job, so one per shard of a
   * merged run), linked under the counts.
   */
  preview?: readonly PreviewNote[] | undefined;
  /**
   * When the plan is read (ms since the epoch or a date; default: the system's clock): instants are
   * said relative to that day on each store's clock (`18:00 GMT-5 (today)`).
   */
  now?: number | Date | undefined;
}

/** Where the menu preview of a plan can be seen, or why it cannot (src/action/preview-artifact.ts). */
export interface PreviewNote {
  /** The stores the preview shows. */
  stores: number;
  /** The address of the preview (the workflow artifact's page), once uploaded. */
  url?: string | undefined;
  /** Why there is no preview to see: a sentence part, shown escaped. */
  failure?: string | undefined;
}

/** A URL as the target of a Markdown link: encoded, with the parentheses that would end it encoded too. */
function linkTarget(url: string): string {
  return encodeURI(url).replace(/[()]/g, (c) => (c === "(" ? "%28" : "%29"));
}

/**
 * The line that points at the menu previews: `Preview of the menus: [3 stores](url)`, or why it could
 * not be uploaded. Several previews (the shards of one run) are linked one after the other; when none
 * was uploaded, for one reason, the line is the one a single job writes, with the stores summed.
 */
export function previewLine(notes: readonly PreviewNote[]): string {
  const failures = new Set(
    notes.map((n) =>
      n.url !== undefined && n.failure === undefined ? undefined : (n.failure ?? "no address"),
    ),
  );
  const stores = notes.reduce((sum, n) => sum + n.stores, 0);
  if (failures.size === 1 && !failures.has(undefined))
    return `Preview of the menus (${plural(stores, "store")}): not available, ${escapeMarkdown([...failures][0]!)}.`;
  const parts = notes.map((n) =>
    n.url !== undefined && n.failure === undefined
      ? `[${plural(n.stores, "store")}](${linkTarget(n.url)})`
      : `${plural(n.stores, "store")} not available (${escapeMarkdown(n.failure ?? "no address")})`,
  );
  return `Preview of the menus: ${parts.join(", ")}`;
}

/**
 * A table of stores and one collapsed section per store for `changes`, within `budget` characters;
 * what does not fit is counted in a note pointing at `where`.
 */
function changeList(
  plan: Plan,
  changes: ResourceChange[],
  budget: number,
  where: string,
  now?: number | Date,
): string {
  const byStore = changesByStore(changes);
  const clientSection = byStore.has("") ? [{ key: "", name: "client settings", storeId: "" }] : [];
  const stores = [...plan.stores, ...clientSection].filter((s) => byStore.has(s.key));
  const cutNote = (what: string) =>
    `\n_${what} not shown to keep this comment short; the full plan is in ${where}._\n`;
  const reserve = cutNote(LONGEST_LEFT_OUT).length * 2 + 2;
  let out = "";
  const rows = stores.map((s) => {
    const list = byStore.get(s.key)!;
    const n = (a: ResourceChange["action"]) => list.filter((c) => c.action === a).length;
    return `| ${code(s.key || "client")} ${escapeMarkdown(s.name)} | ${n("create")} | ${n("update")} | ${n("delete")} |`;
  });
  let shownRows = 0;
  for (const row of ["| store | create | update | delete |", "| --- | ---: | ---: | ---: |", ...rows]) {
    if (out.length + row.length + 1 > (budget - reserve) / 2) break;
    out += row + "\n";
    shownRows++;
  }
  shownRows -= 2;
  if (shownRows < rows.length) out += cutNote(plural(rows.length - Math.max(0, shownRows), "store row"));
  out += "\n";
  const sections = sectionsOf(plan, changes, now);
  let shown = 0;
  for (const section of sections) {
    if (out.length + section.text.length > budget - reserve) break;
    out += section.text;
    shown++;
  }
  if (shown < sections.length) out += cutNote(leftOutOf(sections.slice(shown)));
  // A blank line ends the last HTML block: what follows is Markdown again.
  return out + "\n";
}

/**
 * The safety verdict as a callout: the guards that refuse the plan (at most 20 of their refusals) and how
 * to go past them.
 */
function safetyBlock(plan: Plan, forceHint: string | undefined): string {
  if (plan.safety.ok) return "";
  const lines = plan.safety.override
    ? [`> [!WARNING]`, `> Safety guards overridden, reason: ${escapeMd(plan.safety.override.reason)}`]
    : [
        `> [!CAUTION]`,
        `> **Refused by the safety guards**: nothing is applied while they refuse the plan.` +
          (forceHint ? ` If it is intended, ${forceHint}, or adjust \`safety:\` in carte.yaml.` : ""),
      ];
  // At most 20, like the notes: a guard tripped in every store of a large chain must not push the
  // comment past GitHub's limit (the job summary's text plan lists them all).
  const shown = plan.safety.violations.slice(0, 20);
  for (const v of shown) lines.push(`> - ${code(v.guard)}: ${escapeMd(v.message)}`);
  const more = plan.safety.violations.length - shown.length;
  if (more > 0) lines.push(`> - and ${plural(more, "more refusal")}`);
  return lines.join("\n") + "\n\n";
}

/**
 * The plan comment of the GitHub Action (and `carte plan --format markdown --base REF`): the heading,
 * the commit, run and time; the counts first; the safety verdict; then either one list of changes or,
 * with a split, "This pull request changes" and "Already different on the platform", each with its
 * counts, a table of stores and one collapsed section per store. At most `maxChars` characters, the
 * footer included. Pure.
 */
export function renderPlanComment(plan: Plan, options: PlanCommentOptions = {}): string {
  const max = Math.min(options.maxChars ?? 60_000, GITHUB_COMMENT_LIMIT);
  const where = options.fullPlanAt ?? "the output of `carte plan`";
  const subject = options.subject ?? "pull request";
  const footer = options.footer
    ? `\n${options.footer}\n`
    : options.noRecord
      ? `> [!NOTE]\n> No reviewed-plan record: ${escapeMd(options.noRecord)} The merge applies none of this plan.\n`
      : "";
  const context = contextLine(options.context);
  let out = `### ${escapeMd(options.title ?? "carte plan")}\n\n${context ? `${context}\n\n` : ""}`;
  if (options.target !== undefined) out += `${escapeMd(targetLine(options.target))}\n\n`;
  const scoped = scopeLine(plan);
  if (scoped !== undefined) out += `> ${escapeMd(scoped)}\n\n`;
  out +=
    plan.changes.length === 0
      ? `**No changes.** The platform matches the configuration.\n\n`
      : `**Plan: ${countsOf(plan.changes)}.**\n\n`;
  if (options.stages && options.stages.length > 0 && plan.changes.length > 0) {
    out += `${renderPlannedStagesMarkdown(options.stages)}\n`;
  }
  if (options.preview && options.preview.length > 0) out += `${previewLine(options.preview)}\n\n`;
  out += safetyBlock(plan, options.forceHint);
  if (plan.targeting && isFiltering(plan.targeting)) out += `> ${escapeMd(notes(plan)[0] ?? "")}\n\n`;
  out += infoBlock(plan);
  for (const n of scopeNotes(plan)) out += `> ${escapeMd(n)}\n\n`;

  const budget = () => max - out.length - footer.length;
  const split = options.split;
  if (!split) {
    if (plan.changes.length > 0) out += changeList(plan, plan.changes, budget(), where, options.now);
    return out + footer;
  }
  const at = (list: string[]) => {
    const set = new Set(list);
    return plan.changes.filter((c) => set.has(c.address));
  };
  const own = at(split.changes);
  const drift = at(split.drift);
  const base = `${code(split.ref)}${/^[0-9a-f]{7,}$/.test(split.sha) ? ` (${code(split.sha.slice(0, 7))})` : ""}`;
  if (split.unavailable) out += `> Not compared with the base ${base}: ${escapeMd(split.unavailable)}.\n\n`;

  out += `#### This ${subject} changes: ${own.length === 0 ? "nothing" : countsOf(own)}\n\n`;
  if (own.length > 0) {
    // This part matters most: it gets the room it needs, the drift what is left.
    out += changeList(plan, own, budget() - (drift.length > 0 ? 2_000 : 0), where, options.now);
  } else if (split.unavailable === undefined) {
    out += `_The base's files would make the same changes._\n\n`;
  }
  if (drift.length > 0) {
    out += `#### Already different on the platform: ${countsOf(drift)}\n\n`;
    out +=
      `_The files of the base ${base} would make these changes too: edits made on the platform, ` +
      `or changes merged but not applied yet. Applying this ${subject} applies them as well._\n\n`;
    out += changeList(plan, drift, budget(), where, options.now);
  }
  if (split.settled.length > 0) {
    const shown = split.settled.slice(0, 20).map(code).join(", ");
    const more = split.settled.length > 20 ? `, and ${split.settled.length - 20} more` : "";
    const line = `_This ${subject} leaves ${plural(split.settled.length, "resource")} as they are on the platform, which the base's files would change: ${shown}${more}._\n\n`;
    if (line.length < budget()) out += line;
  }
  return out + footer;
}

/** One located configuration problem, as {@link renderProblemsComment} lists it. */
export interface ProblemView {
  file: string;
  line: number;
  col: number;
  message: string;
}

/**
 * The comment that replaces the plan when the files do not load: the heading, the commit, run and
 * time, and the problems, each `file:line:col`, within `maxChars` (default 60 000). Pure.
 */
export function renderProblemsComment(
  problems: readonly ProblemView[],
  options: { title?: string; context?: CommentContext; maxChars?: number } = {},
): string {
  const max = Math.min(options.maxChars ?? 60_000, GITHUB_COMMENT_LIMIT);
  const context = contextLine(options.context);
  let out =
    `### ${escapeMd(options.title ?? "carte plan")}\n\n${context ? `${context}\n\n` : ""}` +
    `**The files have ${plural(problems.length, "configuration problem")}**: nothing was planned. ` +
    `Each is annotated on its file.\n\n`;
  let shown = 0;
  for (const p of problems) {
    const where = p.line > 0 ? `${p.file}:${p.line}:${p.col}` : p.file;
    const line = `- ${code(where)}: ${escapeMd(p.message)}\n`;
    if (out.length + line.length + 80 > max) break;
    out += line;
    shown++;
  }
  if (shown < problems.length) out += `\n_${problems.length - shown} more in the job summary._\n`;
  return out;
}

/**
 * The comment that replaces the plan when a run fails for another reason (the platform, git, an
 * input): the heading, the commit, run and time, the exit code and the message. Pure.
 */
export function renderFailureComment(
  message: string,
  exitCode: number,
  options: { title?: string; context?: CommentContext; maxChars?: number } = {},
): string {
  const max = Math.min(options.maxChars ?? 60_000, GITHUB_COMMENT_LIMIT);
  const context = contextLine(options.context);
  const head = `### ${escapeMd(options.title ?? "carte plan")}\n\n${context ? `${context}\n\n` : ""}**Failed with exit code ${exitCode}**; no plan to show.\n\n`;
  const body = escapeFence(
    message.length > max - head.length - 40
      ? message.slice(0, max - head.length - 60) + "\n… (cut)"
      : message,
  );
  return `${head}\`\`\`text\n${body}\n\`\`\`\n`;
}

/**
 * The body of the drift issue (`command: drift`): the heading (default "carte drift"), the commit, run
 * and time, the counts, what to do, and the changes per store (collapsed), within `maxChars` (default
 * 60 000). Pure.
 */
export function renderDriftIssue(
  plan: Plan,
  options: { title?: string; context?: CommentContext; maxChars?: number; fullPlanAt?: string } = {},
): string {
  const max = Math.min(options.maxChars ?? 60_000, GITHUB_COMMENT_LIMIT);
  const context = contextLine(options.context);
  let out =
    `### ${escapeMd(options.title ?? "carte drift")}\n\n${context ? `${context}\n\n` : ""}` +
    `**The platform differs from the files: ${countsOf(plan.changes)}.**\n\n` +
    `Either apply the files (run the workflow with \`command: apply\`), or change the files to match ` +
    `the platform in a pull request. This issue is updated by every drift check and closed when the ` +
    `platform matches the files again.\n\n`;
  out += safetyBlock(plan, undefined);
  out += changeList(plan, plan.changes, max - out.length, options.fullPlanAt ?? "the job summary of the run");
  return out;
}

/** What {@link renderApplyComment} shows. */
export interface ApplyCommentInput {
  /** The fresh plan, every change (for the refused changes' stores). */
  plan?: Plan | undefined;
  /** The apply's report, rendered (src/render/apply-report.ts `renderReportMarkdown`). */
  report?: string | undefined;
  /** Whether a plan with changes was applied (false: nothing to do). */
  applied: boolean;
  /** Changes not applied because they were not reviewed. */
  refused: ResourceChange[];
  /** Why they count as not reviewed (no record found, a different commit…), one sentence. */
  refusedWhy?: string | undefined;
  /** The rendered error that ended the run, if any, with the exit code. */
  error?: { message: string; exitCode: number } | undefined;
  context?: CommentContext;
  title?: string;
  maxChars?: number;
}

/**
 * The comment of an apply on merge (on the merged pull request): the heading, the commit, run and time,
 * the outcome of the apply, the changes refused because they were not reviewed and how to apply them,
 * and the error that ended the run, within `maxChars` (default 60 000). Pure.
 */
export function renderApplyComment(input: ApplyCommentInput): string {
  const max = Math.min(input.maxChars ?? 60_000, GITHUB_COMMENT_LIMIT);
  const context = contextLine(input.context);
  let out = `### ${escapeMd(input.title ?? "carte apply")}\n\n${context ? `${context}\n\n` : ""}`;
  if (input.report) out += input.report + "\n";
  else if (!input.error && !input.applied) out += `**Nothing to apply** of what was reviewed.\n\n`;
  if (input.refused.length > 0) {
    out +=
      `> [!CAUTION]\n> **Not applied: ${plural(input.refused.length, "change")} that the plan reviewed on the pull request did not show** ` +
      `(${countsOf(input.refused)}). ` +
      // The cause: the record (none could be used, and the changes may be the pull request's own), or
      // a verified record that did not show them.
      (input.refusedWhy
        ? `No reviewed plan could be used: ${escapeMd(input.refusedWhy)} `
        : `They are drift that appeared since the review, or a change merged meanwhile. `) +
      `The platform does not match the configuration. Review them in a pull request, ` +
      `or apply everything with the guards by running the workflow with \`command: apply\` (workflow_dispatch), ` +
      `or set \`apply-unreviewed: true\`.\n\n`;
    if (input.plan)
      out += changeList(input.plan, input.refused, max - out.length - 2_000, "the job summary of the run");
  }
  if (input.error) {
    const body = escapeFence(input.error.message.slice(0, Math.max(200, max - out.length - 200)));
    out += `**Failed with exit code ${input.error.exitCode}:**\n\n\`\`\`text\n${body}\n\`\`\`\n`;
  }
  return out;
}
