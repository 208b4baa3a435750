/**
 * The text view of a plan split against a base (`carte plan --base REF`, src/gitops/base.ts): after
 * the plan, the changes this branch makes apart from those already different on the platform, with
 * counts for each. Pure.
 */

import { Chalk } from "chalk";
import type { Plan, ResourceChange } from "../plan/types.js";
import { plural } from "./lines.js";
import type { SplitView } from "./markdown.js";

/** `N to create, N to update, N to delete in N stores`. */
function counts(changes: readonly ResourceChange[]): string {
  const n = (a: ResourceChange["action"]) => changes.filter((c) => c.action === a).length;
  const stores = new Set(changes.map((c) => c.store).filter((k) => k !== "")).size;
  const client = changes.some((c) => c.store === "") ? " and the client settings" : "";
  return `${n("create")} to create, ${n("update")} to update, ${n("delete")} to delete in ${plural(stores, "store")}${client}`;
}

/**
 * Renders the split as text: a line naming the base, then "This branch changes" and "Already
 * different on the platform", each with its counts and one line per change (`+`, `~`, `-` and the
 * address), and the addresses the branch leaves as they are. Ends with a newline.
 */
export function renderSplitText(plan: Plan, split: SplitView, options: { color: boolean }): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const sign = { create: c.green("+"), update: c.yellow("~"), delete: c.red("-") } as const;
  const at = (list: string[]) => {
    const set = new Set(list);
    return plan.changes.filter((ch) => set.has(ch.address));
  };
  const own = at(split.changes);
  const drift = at(split.drift);
  const sha = /^[0-9a-f]{7,}$/.test(split.sha) ? ` (${split.sha.slice(0, 7)})` : "";
  const lines = ["", c.bold(`Compared with ${split.ref}${sha}:`)];
  if (split.unavailable) lines.push(c.yellow(`  Not compared: ${split.unavailable}.`));
  lines.push(`  This branch changes: ${own.length === 0 ? "nothing" : counts(own)}`);
  for (const ch of own) lines.push(`    ${sign[ch.action]} ${ch.address}`);
  lines.push(`  Already different on the platform: ${drift.length === 0 ? "nothing" : counts(drift)}`);
  if (drift.length > 0) {
    lines.push(
      c.dim(
        `    (the base's files would make these changes too: edits on the platform, or changes not applied)`,
      ),
    );
  }
  for (const ch of drift) lines.push(`    ${sign[ch.action]} ${ch.address}`);
  if (split.settled.length > 0) {
    lines.push(
      `  Left as they are on the platform by this branch (the base's files would change them): ${split.settled.length}`,
    );
    for (const a of split.settled) lines.push(`    = ${a}`);
  }
  return lines.join("\n") + "\n";
}
