/**
 * The one wording of an error for people, shared by the CLI (standard error) and the GitHub Action
 * (the failed step and the job summary). Pure. Messages of carte's errors never hold a secret
 * (src/errors.ts); the exit code comes from `exitCodeFor`, not from here.
 */

import { ConfigError, InternalError, StalePlanError, UnsafePlanError, formatProblem } from "../errors.js";
import { escapeLines, escapeTerminal } from "./escape.js";

/**
 * Renders an error as the line(s) carte shows for it, without a trailing newline:
 * `Refused by safety guard GUARD: …` for a safety refusal, `Error: stale plan: …` for a stale saved
 * plan, `Error: N configuration problems:` followed by one `file:line:col: message` line per problem
 * for a configuration error, and `Error: …` for anything else.
 *
 * Messages quote store names, SKUs, file names and the platform's words, so every line is escaped for
 * a terminal (src/render/escape.ts): each configuration problem and each message entirely (no value can
 * start a line of its own), except a safety refusal, whose lines carte builds from escaped parts
 * (src/run/plan-project.ts `enforceSafety`), and a bug report, which keep their lines.
 */
export function renderError(err: unknown): string {
  if (err instanceof UnsafePlanError)
    return `Refused by safety guard ${escapeTerminal(err.guard)}: ${escapeLines(err.message)}`;
  if (err instanceof StalePlanError) return `Error: stale plan: ${escapeTerminal(err.message)}`;
  if (err instanceof ConfigError) {
    const head = err.message.split("\n", 1)[0]!;
    return `Error: ${[head, ...err.problems.map((p) => formatProblem(p))].map((l) => escapeTerminal(l)).join("\n")}`;
  }
  const e = err instanceof Error ? err : new Error(String(err));
  // A bug report keeps its lines; any other message is one line.
  return `Error: ${e instanceof InternalError ? escapeLines(e.message) : escapeTerminal(e.message)}`;
}
