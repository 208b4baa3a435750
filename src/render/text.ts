/**
 * The human view of a plan: per store, `+` create, `~` update, `-` delete, attribute-level
 * before → after, the API calls in order, and a summary line. A pure function of the plan; colour is
 * injected (off when not a terminal or when `NO_COLOR` is set, decided by the CLI).
 */

import { Chalk } from "chalk";
import type { Plan, ResourceChange } from "../plan/types.js";

/** Options of {@link renderText}. */
export interface TextOptions {
  /** Use ANSI colours. */
  color: boolean;
}

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

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The one-line summary, e.g. `Plan: 3 to create, 1 to update, 0 to delete in 2 stores; 4 API calls.` */
export function summaryLine(plan: Plan): string {
  const s = plan.summary;
  if (plan.changes.length === 0) return "No changes. The platform matches the configuration.";
  return (
    `Plan: ${s.create} to create, ${s.update} to update, ${s.delete} to delete ` +
    `in ${plural(s.stores, "store")}; ${plural(s.operations, "API call")}.`
  );
}

/** Renders a plan as text. */
export function renderText(plan: Plan, options: TextOptions): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  if (plan.changes.length === 0) return c.green(summaryLine(plan)) + "\n";

  const sign = {
    create: c.green("+"),
    update: c.yellow("~"),
    delete: c.red("-"),
  } as const;
  const lines: string[] = ["carte will perform the following actions:", ""];
  const byStore = new Map<string, ResourceChange[]>();
  for (const ch of plan.changes) {
    const list = byStore.get(ch.store);
    if (list) list.push(ch);
    else byStore.set(ch.store, [ch]);
  }
  for (const store of plan.stores) {
    const list = byStore.get(store.key);
    if (!list) continue;
    lines.push(c.bold(`store[${store.key}]`) + c.dim(`  ${store.name} (${store.storeId})`));
    for (const ch of list) {
      lines.push(`  ${sign[ch.action]} ${ch.kind}[${ch.key}]`);
      // On create, the address already says the SKU and the type; blank defaults are noise.
      const shown =
        ch.action === "create"
          ? ch.diff.filter((d) => !isBlank(d.after) && d.attribute !== "sku" && d.attribute !== "type")
          : ch.diff;
      const width = Math.max(0, ...shown.map((d) => d.attribute.length)) + 1;
      for (const d of shown) {
        const label = `${d.attribute}:`.padEnd(width + 1);
        if (ch.action === "create") lines.push(`      ${label}${formatValue(d.after)}`);
        else lines.push(`      ${label}${c.red(formatValue(d.before))} → ${c.green(formatValue(d.after))}`);
      }
    }
    lines.push("");
  }
  lines.push("API calls, in order:");
  const pathWidth = Math.max(...plan.operations.map((op) => op.path.length));
  plan.operations.forEach((op, i) => {
    const n = op.addresses.length;
    lines.push(
      `  ${String(i + 1).padStart(2)}. ${op.method.padEnd(6)} ${op.path.padEnd(pathWidth)}  ${c.dim(
        `${op.stores.join(", ")}: ${plural(n, "change")}`,
      )}`,
    );
  });
  lines.push("", c.bold(summaryLine(plan)));
  return lines.join("\n") + "\n";
}
