/**
 * The one wording of an error for people, shared by the CLI (standard error) and the GitHub Action
 * (the failed step and the job summary). Pure. Messages of carte's errors never hold a secret
 * (src/errors.ts); the exit code comes from `exitCodeFor`, not from here.
 */

import { ConfigError, StalePlanError, UnsafePlanError } from "../errors.js";

/**
 * Renders an error as the line(s) carte shows for it, without a trailing newline:
 * `Refused by safety guard GUARD: …` for a safety refusal, `Error: stale plan: …` for a stale saved
 * plan, `Error: N configuration problems:` followed by one `file:line:col: message` line per problem
 * for a configuration error, and `Error: …` for anything else.
 */
export function renderError(err: unknown): string {
  if (err instanceof UnsafePlanError) return `Refused by safety guard ${err.guard}: ${err.message}`;
  if (err instanceof StalePlanError) return `Error: stale plan: ${err.message}`;
  if (err instanceof ConfigError) return `Error: ${err.message}`;
  return `Error: ${err instanceof Error ? err.message : String(err)}`;
}
