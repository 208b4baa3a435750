/**
 * What an Action command ends with, and how its failures are worded and annotated: the wording of an
 * error (a safety refusal names the `force-reason` input), and diagnostics (configuration problems, the
 * warnings of a load and of a run) as annotations at their file and line.
 */

import path from "node:path";
import * as core from "@actions/core";
import {
  UnsafePlanError,
  diagnosticText,
  formatWarning,
  type ConfigProblem,
  type Diagnostic,
  type SourceRange,
} from "../errors.js";
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

/** A file as the annotations and the comment show it: relative to the workspace, with `/`. */
function workspaceFile(file: string, workspace: string): string {
  return path.relative(workspace, path.resolve(file)).split(path.sep).join("/");
}

/** Where an annotation points: its file, line and column, and its end when known (columns on one line). */
function annotationPlace(range: SourceRange, workspace: string): core.AnnotationProperties {
  const line = range.line !== undefined && range.line > 0 ? range.line : undefined;
  const oneLine = line !== undefined && range.endLine === line;
  return {
    file: workspaceFile(range.file, workspace),
    ...(line !== undefined ? { startLine: line } : {}),
    ...(line !== undefined && range.endLine !== undefined ? { endLine: range.endLine } : {}),
    ...(line !== undefined && range.col !== undefined && range.col > 0 ? { startColumn: range.col } : {}),
    ...(oneLine && range.endCol !== undefined ? { endColumn: range.endCol } : {}),
  };
}

/**
 * Diagnostics as annotations (`::error file=…,line=…,col=…::`, `::warning file=…::`): an error as an
 * error titled "carte configuration problem", a warning as a warning titled "carte warning", each at
 * its file, line and column (and end, when known) with its words; one that concerns no place in a file
 * as a plain warning or error line (`Warning: …`). At most 50, escaped. With `seen` (the runs of
 * several platforms, which find the same problems of shared files), one already made is not repeated.
 */
export function annotate(diagnostics: readonly Diagnostic[], workspace: string, seen?: Set<string>): void {
  for (const d of diagnostics.slice(0, 50)) {
    if (seen) {
      const key = JSON.stringify([d.severity, diagnosticText(d), d.range?.file, d.range?.line, d.range?.col]);
      if (seen.has(key)) continue;
      seen.add(key);
    }
    const say = d.severity === "error" ? core.error : core.warning;
    if (d.range === undefined) {
      say(escapeTerminal(d.severity === "error" ? diagnosticText(d) : formatWarning(d)));
      continue;
    }
    say(escapeTerminal(diagnosticText(d)), {
      title: d.severity === "error" ? "carte configuration problem" : "carte warning",
      ...annotationPlace(d.range, workspace),
    });
  }
}

/** The problems with their file relative to the workspace (as the comment and annotations show them). */
export function relativeProblems(problems: readonly ConfigProblem[], workspace: string): ConfigProblem[] {
  return problems.map((p) => ({ ...p, file: workspaceFile(p.file, workspace) }));
}
