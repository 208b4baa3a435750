/**
 * The human view of a plan: per store, `+` create, `~` update, `-` delete, attribute-level
 * before → after, the API calls in order, and a summary line. A pure function of the plan; colour is
 * injected (off when not a terminal or when `NO_COLOR` is set, decided by the CLI).
 */

import { Chalk } from "chalk";
import type { Plan } from "../plan/types.js";
import { escapeTerminal } from "./escape.js";
import { changeLines, changesByStore, plural } from "./lines.js";
import { scopeLine, scopeNotes } from "./scope.js";
import { isFiltering } from "../plan/target.js";

/** Options of {@link renderText}. */
export interface TextOptions {
  /** Use ANSI colours. */
  color: boolean;
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

/**
 * Warnings that go with a plan: targeting, tripped guards and their override. Raw text (patterns,
 * addresses and the override reason are untrusted): each renderer escapes them for its medium.
 */
export function notes(plan: Plan): string[] {
  const out: string[] = [];
  if (plan.targeting && isFiltering(plan.targeting)) {
    const t = plan.targeting;
    const parts = [
      ...t.stores.map((x) => `--store ${x}`),
      ...t.kinds.map((x) => `--kind ${x}`),
      ...t.targets.map((x) => `--target ${x}`),
    ];
    out.push(`Note: this plan is limited by ${parts.join(" ")}; other changes may be pending.`);
  }
  if (!plan.safety.ok) {
    out.push(
      plan.safety.override
        ? `Safety guards overridden with --force, reason: ${plan.safety.override.reason}`
        : "Safety guards refuse this plan:",
    );
    for (const v of plan.safety.violations) out.push(`  - ${v.guard}: ${v.message}`);
  }
  out.push(...scopeNotes(plan));
  return out;
}

/** Renders a plan as text; a change-scoped plan's first line says what was read (src/render/scope.ts). */
export function renderText(plan: Plan, options: TextOptions): string {
  const scoped = scopeLine(plan);
  const body = renderPlanText(plan, options);
  return scoped === undefined
    ? body
    : `${new Chalk({ level: options.color ? 1 : 0 }).bold(escapeTerminal(scoped))}\n${body}`;
}

function renderPlanText(plan: Plan, options: TextOptions): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  if (plan.changes.length === 0) {
    return (
      [c.green(summaryLine(plan)), ...notes(plan).map((n) => c.yellow(escapeTerminal(n)))].join("\n") + "\n"
    );
  }

  const sign = {
    create: c.green("+"),
    update: c.yellow("~"),
    delete: c.red("-"),
  } as const;
  const lines: string[] = ["carte will perform the following actions:", ""];
  const byStore = changesByStore(plan.changes);
  // Client-level changes (store key "") come first, under their own heading.
  const sections = [{ key: "", name: "", storeId: "" }, ...plan.stores];
  for (const store of sections) {
    const list = byStore.get(store.key);
    if (!list) continue;
    lines.push(
      store.key === ""
        ? c.bold("client") + c.dim("  settings of the integration, for all its stores")
        : c.bold(escapeTerminal(`store[${store.key}]`)) +
            c.dim(escapeTerminal(`  ${store.name} (${store.storeId})`)),
    );
    for (const ch of list) {
      const { head, within, attributes } = changeLines(ch, plan.currency);
      lines.push(`  ${sign[ch.action]} ${head}${within ? c.dim(`  ${within}`) : ""}`);
      for (const a of attributes) {
        if (a.before === undefined) lines.push(`      ${a.label}${a.after}`);
        else lines.push(`      ${a.label}${c.red(a.before)} → ${c.green(a.after)}`);
      }
    }
    lines.push("");
  }
  lines.push("API calls, in order:");
  // Paths hold store ids and event names: escaped like every other value.
  const paths = plan.operations.map((op) => escapeTerminal(op.path));
  const pathWidth = Math.max(...paths.map((p) => p.length));
  plan.operations.forEach((op, i) => {
    const n = op.addresses.length;
    lines.push(
      `  ${String(i + 1).padStart(2)}. ${escapeTerminal(op.method).padEnd(6)} ${paths[i]!.padEnd(pathWidth)}  ${c.dim(
        escapeTerminal(`${op.stores.join(", ")}: ${plural(n, "change")}`),
      )}`,
    );
  });
  lines.push("", c.bold(summaryLine(plan)));
  lines.push(...notes(plan).map((n) => c.yellow(escapeTerminal(n))));
  return lines.join("\n") + "\n";
}
