/** The CLI's view of the outside world, injectable so that tests run the CLI in-process. */

import {
  ApiError,
  ConfigError,
  ConvergenceError,
  StalePlanError,
  UnsafePlanError,
  UsageError,
  exitCodeFor,
} from "../errors.js";

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

/** Prints warnings of the loaded project on standard error, one `Warning: …` line each. */
export function printWarnings(warnings: readonly string[] | undefined, io: CliIo): void {
  for (const w of warnings ?? []) io.err(`Warning: ${w}\n`);
}

/** Prints an error the way its type asks for and returns the exit code. */
export function reportError(err: unknown, io: CliIo, debug: boolean): number {
  if (err instanceof ConfigError) {
    io.err(`Error: ${err.message}\n`);
  } else if (err instanceof UnsafePlanError) {
    io.err(`Refused by safety guard ${err.guard}: ${err.message}\n`);
  } else if (err instanceof StalePlanError) {
    io.err(`Error: stale plan: ${err.message}\n`);
  } else if (err instanceof UsageError) {
    io.err(`Error: ${err.message}\nRun \`carte --help\` for usage.\n`);
  } else if (err instanceof ApiError || err instanceof ConvergenceError) {
    io.err(`Error: ${err.message}\n`);
  } else {
    const e = err instanceof Error ? err : new Error(String(err));
    io.err(`Error: ${e.message}\n`);
    if (!debug) io.err("(run with --debug for details)\n");
  }
  if (debug && err instanceof Error && err.stack) io.err(`${err.stack}\n`);
  return exitCodeFor(err);
}
