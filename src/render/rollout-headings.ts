/**
 * The stages of a canary rollout (carte.yaml `rollout:`, src/apply/rollout.ts) in the plan's and the
 * apply report's views: one heading line per stage with what it did or would do. Pure. Stage names
 * come from carte.yaml (the schema allows `[a-z][a-z0-9_-]*` only) and are escaped all the same.
 */

import type { StageCounts, StageOutcome } from "../apply/rollout.js";
import type { Plan } from "../plan/types.js";
import { escapeMarkdown, escapeTerminal } from "./escape.js";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `2 to create, 1 to update, 0 to delete in 3 stores` (`done`: `2 created, …`). */
function counts(c: StageCounts, done: boolean): string {
  const [cr, up, de] = done ? ["created", "updated", "deleted"] : ["to create", "to update", "to delete"];
  return `${c.create} ${cr}, ${c.update} ${up}, ${c.delete} ${de} in ${plural(c.stores, "store")}`;
}

/** What one stage did, in words, without its name. */
function verdict(s: StageOutcome): string {
  const calls = s.calls === undefined ? "" : `; ${plural(s.calls, "API call")}`;
  switch (s.status) {
    case "applied":
      return `applied: ${counts(s.changes, true)}${calls}; the platform shows every change`;
    case "failed":
      return s.error !== undefined
        ? `failed: ${s.error}`
        : `failed (its plan: ${counts(s.changes, false)})${calls}; what went wrong is listed below`;
    case "not_run":
      return `not run: it would have changed ${counts(s.changes, false)}`;
    case "unchanged":
      return "no changes";
  }
}

/** The heading of a stage: `Stage canary (1 store)`. */
function heading(s: StageOutcome): string {
  return `Stage ${s.name} (${plural(s.stores, "store")})`;
}

/** The stages that did not run because an earlier one failed, by name. */
export function stagesNotRun(stages: readonly StageOutcome[]): string[] {
  return stages.filter((s) => s.status === "not_run").map((s) => s.name);
}

/**
 * The stages of an apply report as text, one line each (`Stage canary (1 store): applied: …`), then,
 * when some did not run, a line naming them. Each line escaped for the terminal; no trailing newline.
 */
export function renderStagesText(stages: readonly StageOutcome[]): string {
  const lines = stages.map((s) => escapeTerminal(`${heading(s)}: ${verdict(s)}`));
  const skipped = stagesNotRun(stages);
  if (skipped.length > 0) {
    lines.push(
      escapeTerminal(
        `The rollout stopped: ${plural(skipped.length, "stage")} did not run (${skipped.join(", ")}). ` +
          "Fix the cause and run the apply again: it goes on where it stopped.",
      ),
    );
  }
  return lines.join("\n");
}

/**
 * The stages of a plan (before any call) as text: `Rollout in 2 stages, in this order:` then one line
 * per stage with what it would change. No trailing newline.
 */
export function renderPlannedStagesText(stages: readonly StageOutcome[]): string {
  const lines = [`Rollout in ${plural(stages.length, "stage")}, in this order (carte.yaml rollout:):`];
  for (const s of stages) {
    lines.push(
      escapeTerminal(
        `  ${heading(s)}: ${s.status === "unchanged" ? "no changes" : counts(s.changes, false)}`,
      ),
    );
  }
  return lines.join("\n");
}

/**
 * The stages of a plan (before any call) as Markdown, for the plan comment: the order, then one item
 * per stage with what it would change. Ends with a newline.
 */
export function renderPlannedStagesMarkdown(stages: readonly StageOutcome[]): string {
  const out = [`Rollout in ${plural(stages.length, "stage")}, in this order (carte.yaml \`rollout:\`):`, ""];
  for (const s of stages) {
    const what = s.status === "unchanged" ? "no changes" : counts(s.changes, false);
    out.push(`1. ${escapeMarkdown(`${heading(s)}: ${what}`)}`);
  }
  return out.join("\n") + "\n";
}

/** The stages of an apply report as Markdown: a heading per stage and its verdict. Ends with a newline. */
export function renderStagesMarkdown(stages: readonly StageOutcome[]): string {
  const out: string[] = [];
  for (const s of stages) out.push(`#### ${escapeMarkdown(heading(s))}`, "", escapeMarkdown(verdict(s)), "");
  const skipped = stagesNotRun(stages);
  if (skipped.length > 0) {
    out.push(
      `**The rollout stopped**: ${plural(skipped.length, "stage")} did not run (${skipped.map((n) => `<code>${escapeMarkdown(n)}</code>`).join(", ")}).`,
      "",
    );
  }
  return out.join("\n");
}

/**
 * The line that says a plan covers one stage alone (`--stage`, {@link Plan.stage}); undefined for a
 * plan of every stage. No trailing newline.
 */
export function renderStageScopeText(plan: Plan): string | undefined {
  if (plan.stage === undefined) return undefined;
  return escapeTerminal(
    `This plan covers stage ${plan.stage} of rollout: in carte.yaml alone (${plural(plan.stores.length, "store")} in scope).`,
  );
}
