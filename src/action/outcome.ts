/**
 * What an Action command ends with, and how its failures are worded and annotated: the wording of an
 * error (a safety refusal names the `force-reason` input) and configuration problems as annotations at
 * their file and line.
 */

import path from "node:path";
import * as core from "@actions/core";
import { UnsafePlanError, type ConfigProblem } from "../errors.js";
import type { Plan } from "../plan/types.js";
import { renderError } from "../render/error.js";
import { escapeTerminal } from "../render/escape.js";

/** How the Action tells a reader to go past the guards (the CLI says `--force --reason`). */
export const FORCE_HINT = "set the Action's `force-reason` input (it is recorded in the plan)";

/**
 * The wording of an error in the Action: as the CLI's (src/render/error.ts), except that a safety
 * refusal names the Action's `force-reason` input instead of `--force --reason`.
 */
export function describeError(err: unknown, plan: Plan | undefined): string {
  if (!(err instanceof UnsafePlanError) || !plan || plan.safety.violations.length === 0)
    return renderError(err);
  const lines = plan.safety.violations.map(
    (v) => `  - ${escapeTerminal(v.guard)}: ${escapeTerminal(v.message)}`,
  );
  return (
    `Refused by safety guard ${escapeTerminal(err.guard)}: the plan trips ${lines.length} safety guard${lines.length === 1 ? "" : "s"}:\n` +
    `${lines.join("\n")}\nNothing was changed. If this is intended, ${FORCE_HINT}, or adjust safety: in carte.yaml.`
  );
}

/** What a command ends with; the outputs and the step's status come from it. */
export interface Outcome {
  exitCode: number;
  /** The plan made (for `has-changes` and `summary`). */
  plan?: Plan | undefined;
  /** Why the step fails, when it does (never holds a secret). */
  failure?: string | undefined;
  /** The run record written. */
  recordFile?: string | undefined;
  /**
   * The failure is configuration problems, each already an annotation at its file and line: the step
   * fails without one more annotation repeating them all.
   */
  annotated?: boolean | undefined;
}

/** Configuration problems as annotations on the files (`::error file=…,line=…,col=…::`). */
export function annotate(problems: readonly ConfigProblem[], workspace: string): void {
  for (const p of problems.slice(0, 50)) {
    const file = path.relative(workspace, path.resolve(p.file)).split(path.sep).join("/");
    core.error(p.message, {
      title: "carte configuration problem",
      file,
      ...(p.line > 0 ? { startLine: p.line } : {}),
      ...(p.col > 0 ? { startColumn: p.col } : {}),
    });
  }
}

/** The problems with their file relative to the workspace (as the comment and annotations show them). */
export function relativeProblems(problems: readonly ConfigProblem[], workspace: string): ConfigProblem[] {
  return problems.map((p) => ({
    ...p,
    file: path.relative(workspace, path.resolve(p.file)).split(path.sep).join("/"),
  }));
}
