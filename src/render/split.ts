/**
 * The text view of a plan split against a base (`carte plan --base REF`, src/gitops/base.ts): after
 * the plan, the changes this branch makes apart from those already different on the platform, with
 * counts for each. Pure.
 */

import { Chalk } from "chalk";
import type { Plan } from "../plan/types.js";
import { escapeTerminal } from "./escape.js";
import { countsOf } from "./lines.js";
import type { SplitView } from "./markdown.js";

/**
 * Renders the split as text: a line naming the base, then "This branch changes" and "Already
 * different on the platform", each with its counts and one line per change (`+`, `~`, `-` and the
 * address), and the addresses the branch leaves as they are. Every name from the files, the platform
 * or the command line (the ref, addresses) is escaped for the terminal. Ends with a newline.
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
  const e = (text: string) => escapeTerminal(text);
  const lines = ["", c.bold(`Compared with ${e(split.ref)}${sha}:`)];
  if (split.unavailable) lines.push(c.yellow(`  Not compared: ${e(split.unavailable)}.`));
  lines.push(`  This branch changes: ${own.length === 0 ? "nothing" : countsOf(own)}`);
  for (const ch of own) lines.push(`    ${sign[ch.action]} ${e(ch.address)}`);
  lines.push(`  Already different on the platform: ${drift.length === 0 ? "nothing" : countsOf(drift)}`);
  if (drift.length > 0) {
    lines.push(
      c.dim(
        `    (the base's files would make these changes too: edits on the platform, or changes not applied)`,
      ),
    );
  }
  for (const ch of drift) lines.push(`    ${sign[ch.action]} ${e(ch.address)}`);
  if (split.settled.length > 0) {
    lines.push(
      `  Left as they are on the platform by this branch (the base's files would change them): ${split.settled.length}`,
    );
    for (const a of split.settled) lines.push(`    = ${e(a)}`);
  }
  return lines.join("\n") + "\n";
}
