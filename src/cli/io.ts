/** The CLI's view of the outside world, injectable so that tests run the CLI in-process. */

import {
  ApiError,
  ConfigError,
  ConvergenceError,
  FileWriteError,
  StalePlanError,
  UnsafePlanError,
  UsageError,
  exitCodeFor,
} from "../errors.js";
import { renderError } from "../render/error.js";
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

/** Prints warnings of the loaded project on standard error, one `Warning: …` line each, escaped. */
export function printWarnings(warnings: readonly string[] | undefined, io: CliIo): void {
  for (const w of warnings ?? []) io.err(`Warning: ${escapeTerminal(w)}\n`);
}

/**
 * Prints an error the way its type asks for (src/render/error.ts, which escapes every value for a
 * terminal, plus a usage hint for a {@link UsageError} of the command line and a `--debug` hint for an unexpected error)
 * and returns its exit code.
 */
export function reportError(err: unknown, io: CliIo, debug: boolean): number {
  io.err(`${renderError(err)}\n`);
  if (err instanceof UsageError) {
    // Only a misused command line is helped by the usage; a plan file or a lock refused is not.
    if (err.commandLine) io.err("Run `carte --help` for usage.\n");
  } else if (
    !(
      err instanceof ConfigError ||
      err instanceof UnsafePlanError ||
      err instanceof StalePlanError ||
      err instanceof ApiError ||
      err instanceof ConvergenceError ||
      err instanceof FileWriteError
    ) &&
    !debug
  ) {
    io.err("(run with --debug for details)\n");
  }
  if (debug && err instanceof Error && err.stack) io.err(`${escapeLines(err.stack)}\n`);
  return exitCodeFor(err);
}
