/** The CLI's view of the outside world, injectable so that tests run the CLI in-process. */

import {
  ApiError,
  ConfigError,
  ConvergenceError,
  InternalError,
  StalePlanError,
  UnsafePlanError,
  UsageError,
  exitCodeFor,
  formatProblem,
} from "../errors.js";
import { escapeLines, escapeTerminal } from "../render/escape.js";

/** Streams and facts the CLI needs. */
export interface CliIo {
  /** Writes to standard output (the plan, reports). */
  out(text: string): void;
  /** Writes to standard error (progress, warnings, errors). */
  err(text: string): void;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  columns?: number | undefined;
  /** The standard error stream itself, for progress bars on a terminal. */
  errStream?: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  /** Asks a question on the terminal and returns the answer. */
  prompt?(question: string): Promise<string>;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); used by `carte emulator`. */
  untilSignal?(): Promise<void>;
}

/** Whether to colour output: `--color`/`--no-color` wins, then `NO_COLOR`, then whether stdout is a terminal. */
export function useColor(flag: boolean | undefined, io: CliIo): boolean {
  if (flag !== undefined) return flag;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== "") return false;
  return io.stdoutIsTTY;
}

/**
 * Prints an error the way its type asks for and returns the exit code. Messages quote store names,
 * SKUs, file names and the platform's words, so every line is escaped for a terminal
 * (src/render/escape.ts): each configuration problem and each message entirely (no value can start a
 * line), except a safety refusal, whose lines carte builds from escaped parts (workflow.ts), and a bug
 * report, which keep their lines.
 */
export function reportError(err: unknown, io: CliIo, debug: boolean): number {
  if (err instanceof ConfigError) {
    const head = err.message.split("\n", 1)[0]!;
    io.err(
      `Error: ${[head, ...err.problems.map((p) => formatProblem(p))].map((l) => escapeTerminal(l)).join("\n")}\n`,
    );
  } else if (err instanceof UnsafePlanError) {
    io.err(`Refused by safety guard ${escapeTerminal(err.guard)}: ${escapeLines(err.message)}\n`);
  } else if (err instanceof StalePlanError) {
    io.err(`Error: stale plan: ${escapeTerminal(err.message)}\n`);
  } else if (err instanceof UsageError) {
    io.err(`Error: ${escapeTerminal(err.message)}\nRun \`carte --help\` for usage.\n`);
  } else if (err instanceof ApiError || err instanceof ConvergenceError) {
    io.err(`Error: ${escapeTerminal(err.message)}\n`);
  } else {
    const e = err instanceof Error ? err : new Error(String(err));
    // A bug report keeps its lines; any other message is one line.
    io.err(`Error: ${e instanceof InternalError ? escapeLines(e.message) : escapeTerminal(e.message)}\n`);
    if (!debug) io.err("(run with --debug for details)\n");
  }
  if (debug && err instanceof Error && err.stack) io.err(`${escapeLines(err.stack)}\n`);
  return exitCodeFor(err);
}
