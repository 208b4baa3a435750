/** The CLI's view of the outside world, injectable so that tests run the CLI in-process. */

import {
  ApiError,
  CommandLineError,
  ConfigError,
  ConvergenceError,
  FileWriteError,
  GitError,
  PlanFileError,
  StalePlanError,
  StateFileError,
  UnsafePlanError,
  UsageError,
  exitCodeFor,
  formatWarning,
  type Diagnostic,
} from "../errors.js";
import { renderError } from "../render/error.js";
import { escapeLines, escapeTerminal } from "../render/escape.js";

/** Streams and facts the CLI needs. */
export interface CliIo {
  /** Writes to standard output (the plan, reports). */
  out(text: string): void;
  /**
   * Writes pieces of text to standard output as they are taken, each once the stream has room for it
   * (a large plan is never one string, nor all its pieces queued at once). Absent (tests): each piece
   * goes through {@link CliIo.out}. See {@link writeOut}.
   */
  outChunks?(chunks: Iterable<string>): Promise<void>;
  /** Writes to standard error (progress, warnings, errors). */
  err(text: string): void;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  columns?: number | undefined;
  /** The standard error stream itself, for progress bars on a terminal. */
  errStream?: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  /**
   * The script Node was started with (`process.argv[1]`, as given): how carte was run, for the commands
   * a message tells the user to type (src/cli/invocation.ts). Absent when carte runs in-process.
   */
  entry?: string | undefined;
  /** Asks a question on the terminal and returns the answer. */
  prompt?(question: string): Promise<string>;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); used by `carte emulator`. */
  untilSignal?(): Promise<void>;
}

/**
 * Writes pieces of text to standard output in order, with the stream's backpressure when `io` has
 * {@link CliIo.outChunks}, else piece by piece through {@link CliIo.out}.
 */
export async function writeOut(io: CliIo, chunks: Iterable<string>): Promise<void> {
  if (io.outChunks) return io.outChunks(chunks);
  for (const chunk of chunks) io.out(chunk);
}

/** Whether to colour output: `--color`/`--no-color` wins, then `NO_COLOR`, then whether stdout is a terminal. */
export function useColor(flag: boolean | undefined, io: CliIo): boolean {
  if (flag !== undefined) return flag;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== "") return false;
  return io.stdoutIsTTY;
}

/** Prints warnings of the loaded project on standard error, one `Warning: …` line each, escaped. */
export function printWarnings(warnings: readonly Diagnostic[] | undefined, io: CliIo): void {
  for (const w of warnings ?? []) io.err(`${escapeTerminal(formatWarning(w))}\n`);
}

/**
 * The errors whose message says all there is to say: the `--debug` hint is for the others, which
 * carte did not expect.
 */
const EXPECTED = [
  UsageError,
  ConfigError,
  UnsafePlanError,
  StalePlanError,
  ApiError,
  ConvergenceError,
  FileWriteError,
  GitError,
  PlanFileError,
  StateFileError,
];

/**
 * Prints an error the way its type asks for (src/render/error.ts, which escapes every value for a
 * terminal), then a hint by its kind, never by its words: the usage for a {@link CommandLineError}
 * (the command line itself is wrong), `--debug` for an error carte did not expect. Returns its exit
 * code.
 */
export function reportError(err: unknown, io: CliIo, debug: boolean): number {
  io.err(`${renderError(err)}\n`);
  if (err instanceof CommandLineError) io.err("Run `carte --help` for usage.\n");
  else if (!debug && !EXPECTED.some((kind) => err instanceof kind))
    io.err("(run with --debug for details)\n");
  if (debug && err instanceof Error && err.stack) io.err(`${escapeLines(err.stack)}\n`);
  return exitCodeFor(err);
}
