/**
 * The pull-request view of a plan: a summary first, then one collapsible section per store, within a
 * size bound so that the comment always fits GitHub's limit of 65,536 characters per comment. What does
 * not fit is left out with a pointer to the full plan (the job summary or an artifact). Pure.
 */

import type { Plan, ResourceChange } from "../plan/types.js";
import { changeLines, changesByStore, plural } from "./lines.js";
import { notes, summaryLine } from "./text.js";

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
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeCell = (s: string) => escapeHtml(s).replace(/\|/g, "\\|");
// A value can never close the fence: runs of backticks are broken up.
const fenceSafe = (s: string) => s.replace(/`{3,}/g, (m) => m.split("").join("\u200b"));

function storeSection(
  name: string,
  key: string,
  changes: ResourceChange[],
  currency: string | undefined,
): string {
  const count = (a: ResourceChange["action"]) => changes.filter((c) => c.action === a).length;
  const lines = [
    `<details><summary><code>${escapeHtml(key || "client")}</code> ${escapeHtml(name)}: ` +
      `+${count("create")} ~${count("update")} -${count("delete")}</summary>`,
    "",
    "```diff",
  ];
  const sign = { create: "+", update: "!", delete: "-" } as const;
  for (const ch of changes) {
    const { head, within, attributes } = changeLines(ch, currency);
    lines.push(fenceSafe(`${sign[ch.action]} ${head}${within ? `  ${within}` : ""}`));
    for (const a of attributes) {
      lines.push(
        fenceSafe(
          a.before === undefined ? `    ${a.label}${a.after}` : `    ${a.label}${a.before} → ${a.after}`,
        ),
      );
    }
  }
  lines.push("```", "", "</details>", "");
  return lines.join("\n");
}

/** Renders a plan as a GitHub-flavoured Markdown comment of at most `maxChars` characters. */
export function renderMarkdown(plan: Plan, options: MarkdownOptions = {}): string {
  const max = Math.min(options.maxChars ?? 60_000, GITHUB_COMMENT_LIMIT);
  const where = options.fullPlanAt ?? "the output of `carte plan`";
  const head: string[] = [`### ${options.title ?? "carte plan"}`, "", `**${summaryLine(plan)}**`, ""];
  for (const n of notes(plan)) head.push(n.startsWith("  - ") ? n.slice(2) : `> ${n}`);
  if (notes(plan).length) head.push("");
  if (plan.changes.length === 0) return head.join("\n");

  const byStore = changesByStore(plan.changes);
  const clientSection = byStore.has("") ? [{ key: "", name: "client settings", storeId: "" }] : [];
  const stores = [...clientSection, ...plan.stores].filter((s) => byStore.has(s.key));
  const table = ["| store | create | update | delete |", "| --- | ---: | ---: | ---: |"];
  const rows = stores.map((s) => {
    const list = byStore.get(s.key)!;
    const n = (a: ResourceChange["action"]) => list.filter((c) => c.action === a).length;
    return `| \`${escapeCell(s.key || "client")}\` ${escapeCell(s.name)} | ${n("create")} | ${n("update")} | ${n("delete")} |`;
  });

  const cutNote = (shown: number, total: number, what: string) =>
    `\n_${plural(total - shown, what)} not shown to keep this comment under ${max.toLocaleString("en")} characters; ` +
    `the full plan is in ${where}._\n`;
  // Reserve room for the note that says what was cut.
  const budget = max - cutNote(0, 10_000_000, "store").length - 1;

  let out = head.join("\n") + "\n";
  let shownRows = 0;
  for (const row of [...table, ...rows]) {
    if (out.length + row.length + 1 > budget / 2) break;
    out += row + "\n";
    shownRows++;
  }
  shownRows -= table.length;
  if (shownRows < rows.length) out += cutNote(Math.max(0, shownRows), rows.length, "store row");
  out += "\n";

  let shownSections = 0;
  for (const s of stores) {
    const section = storeSection(s.name, s.key, byStore.get(s.key)!, plan.currency);
    if (out.length + section.length > budget) break;
    out += section;
    shownSections++;
  }
  if (shownSections < stores.length) out += cutNote(shownSections, stores.length, "store section");
  return out;
}
