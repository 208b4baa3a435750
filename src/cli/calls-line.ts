/**
 * The line a command ends with after it called the platform: its calls and their success rate, the
 * measure the platform's terms bound (docs/platform-api.md §1, "Success rate of the calls").
 */
import { describeCalls, type CallCounts } from "../platform/call-tally.js";
import type { CliIo } from "./io.js";

/**
 * Writes "N calls to the platform, R % succeeded." on stderr, so that the plan, report or export on
 * stdout stays as it was; for a platform of carte.yaml `platforms:`, "co: N calls to the platform, R %
 * succeeded.". Nothing with `quiet`.
 */
export function writeCallsLine(calls: CallCounts, io: CliIo, quiet = false, platform?: string): void {
  if (!quiet) io.err(`${describeCalls(calls, platform)}.\n`);
}
