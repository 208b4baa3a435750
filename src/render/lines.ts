/**
 * The lines that describe one resource change, shared by the text and Markdown renderers: a head
 * (`item[BURGER]`) and one line per attribute shown. Pure formatting; the plan already holds the diff.
 */

import type { ResourceChange } from "../plan/types.js";
import { escapeTerminal } from "./escape.js";

/** Formats one attribute value compactly: strings quoted, lists in brackets. */
export function formatValue(v: unknown): string {
  if (v === undefined) return "(none)";
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(formatValue).join(", ")}]`;
  if (v && typeof v === "object") {
    return `{ ${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${k}: ${formatValue(x)}`)
      .join(", ")} }`;
  }
  return String(v);
}

function isBlank(v: unknown): boolean {
  return v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0);
}

/** One attribute line: a padded label and the value (create) or the values before and after (update). */
export interface AttributeLine {
  label: string;
  before?: string;
  after: string;
}

/**
 * The head and attribute lines of a change. Every part is escaped for a terminal
 * ({@link escapeTerminal}): SKUs, event names and values come from the files or the platform.
 */
export function changeLines(ch: ResourceChange): { head: string; attributes: AttributeLine[] } {
  // On create, the address already says the SKU and the type; blank defaults are noise.
  const shown =
    ch.action === "create"
      ? ch.diff.filter((d) => !isBlank(d.after) && d.attribute !== "sku" && d.attribute !== "type")
      : ch.diff;
  const width = Math.max(0, ...shown.map((d) => d.attribute.length)) + 1;
  return {
    head: escapeTerminal(`${ch.kind}[${ch.key}]`),
    attributes: shown.map((d) => ({
      label: escapeTerminal(`${d.attribute}:`.padEnd(width + 1)),
      ...(ch.action === "create" ? {} : { before: escapeTerminal(formatValue(d.before)) }),
      after: escapeTerminal(formatValue(d.after)),
    })),
  };
}

/** `n word` or `n words`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** Changes grouped by store key, in plan order. */
export function changesByStore(changes: ResourceChange[]): Map<string, ResourceChange[]> {
  const byStore = new Map<string, ResourceChange[]>();
  for (const ch of changes) {
    const list = byStore.get(ch.store);
    if (list) list.push(ch);
    else byStore.set(ch.store, [ch]);
  }
  return byStore;
}
