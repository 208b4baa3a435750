/** Checks of command-line option values that several commands share. */

import { CommandLineError } from "../errors.js";

/** The most calls in flight at once that `--parallelism` accepts. */
export const MAX_PARALLELISM = 64;

/**
 * Refuses a `--parallelism` that is not a whole number from 1 to {@link MAX_PARALLELISM}.
 * @throws CommandLineError naming the option and its range (the CLI exits 1 with it).
 */
export function checkParallelism(parallelism: number): void {
  if (!Number.isInteger(parallelism) || parallelism < 1 || parallelism > MAX_PARALLELISM) {
    throw new CommandLineError(`--parallelism must be a whole number from 1 to ${MAX_PARALLELISM}`);
  }
}
