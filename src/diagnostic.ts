/**
 * Diagnostics: the one shape of what carte tells a person about their files and their run, errors and
 * warnings alike, on the model of Terraform's tfdiags. A diagnostic has a severity, a one-line summary,
 * an optional detail, and, when it concerns a place in a file, its source range. The CLI prints it as
 * compilers do (`file:line:col: summary`); the GitHub Action annotates it at its file and line
 * (src/action/), an error as an error and a warning as a warning.
 *
 * Configuration problems (`ConfigProblem` of src/errors.ts, which re-exports this module) are
 * diagnostics of severity `error` (`problemDiagnostic`); the warnings of a load
 * (`LoadedProject.warnings`, src/config/load.ts) and of a run (`RunHooks.onWarning`) are diagnostics of
 * severity `warning`, located where they arise.
 */

/** How grave a diagnostic is: an error stops the command, a warning is shown and the command goes on. */
export type Severity = "error" | "warning";

/**
 * Where in a file a diagnostic points. Lines and columns are 1-based; the end, when known, is the last
 * position of what is pointed at (GitHub annotations take it as `endLine` and `endColumn`).
 */
export interface SourceRange {
  /** Path of the file as the user named it (relative to the working directory when possible). */
  file: string;
  /** Line of the start; absent when the diagnostic concerns the whole file. */
  line?: number;
  /** Column of the start; absent when unknown. */
  col?: number;
  /** Line of the end, when known. */
  endLine?: number;
  /** Column of the end, when known (with {@link SourceRange.endLine}). */
  endCol?: number;
}

/** One error or warning, for people: what is wrong, more about it, and where. */
export interface Diagnostic {
  /** Whether it stops the command. */
  readonly severity: Severity;
  /** What is wrong, in one line. */
  readonly summary: string;
  /** More about it (what it means, what to do), shown after the summary. */
  readonly detail?: string;
  /** The place in a file it concerns, when it concerns one. */
  readonly range?: SourceRange;
}

/** A warning: shown on every run that finds it, the command goes on. */
export function warning(summary: string, more: { detail?: string; range?: SourceRange } = {}): Diagnostic {
  return {
    severity: "warning",
    summary,
    ...(more.detail === undefined ? {} : { detail: more.detail }),
    ...(more.range === undefined ? {} : { range: more.range }),
  };
}

/** Where a range points, as compilers write it: `file:line:col`, `file:line` or `file`. */
export function formatRange(range: SourceRange): string {
  if (range.line === undefined || range.line <= 0) return range.file;
  return range.col === undefined ? `${range.file}:${range.line}` : `${range.file}:${range.line}:${range.col}`;
}

/** The words of a diagnostic without its place: the summary, then the detail after a colon. */
export function diagnosticText(d: Diagnostic): string {
  return d.detail === undefined ? d.summary : `${d.summary}: ${d.detail}`;
}

/**
 * A diagnostic on one line, the way compilers write it: `file:line:col: summary: detail`, or
 * `summary: detail` when it concerns no place in a file. Not escaped: whoever prints it escapes it for
 * its reader (src/render/escape.ts).
 */
export function formatDiagnostic(d: Diagnostic): string {
  const text = diagnosticText(d);
  return d.range === undefined ? text : `${formatRange(d.range)}: ${text}`;
}

/** A warning as carte prints it on a line of its own: `Warning: file:line:col: summary: detail`. */
export function formatWarning(d: Diagnostic): string {
  return `Warning: ${formatDiagnostic(d)}`;
}
