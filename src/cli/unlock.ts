/**
 * `carte force-unlock ID`: removes the apply lock across machines (carte.yaml `lock:`, or the GitHub
 * Action's default `refs/carte/lock` of `origin`; src/gitops/ref-lock.ts) that an apply killed
 * mid-way left behind, as Terraform's `force-unlock` does. Only the lock whose id is ID goes (the id a
 * waiting or refused apply names), leased on the commit read: a lock another apply took meanwhile is
 * left alone. Asks on a terminal unless `--force`.
 */

import type { Argv, CommandModule } from "yargs";
import { loadProject, readPlatformNames } from "../config/index.js";
import { DEFAULT_LOCK_REF, DEFAULT_LOCK_REMOTE, DEFAULT_LOCK_STALE_MINUTES } from "../config/load.js";
import { CommandLineError, ExitCode } from "../errors.js";
import { describeRefHolder, forceUnlock, lockName } from "../gitops/ref-lock.js";
import { lockRefProblem } from "../gitops/ref-name.js";
import { findRepository } from "../gitops/safe-git.js";
import { DEFAULT_RUN_TIMEOUT_MS } from "../run/request.js";
import { escapeTerminal } from "../render/escape.js";
import { printWarnings, type CliIo } from "./io.js";

/** Options of `carte force-unlock`. */
export interface ForceUnlockCommand {
  config: string;
  id: string;
  force: boolean;
  /** `--ref REF`: the lock's ref, when not carte.yaml's (a shard's: `refs/carte/lock-shard-1-of-4`). */
  ref?: string | undefined;
}

/** `carte force-unlock ID`: the exit code. */
export async function runForceUnlock(opts: ForceUnlockCommand, io: CliIo): Promise<number> {
  // carte.yaml `lock:` is the whole project's: of a project of several platforms, the first one's load.
  const [first] = await readPlatformNames(opts.config);
  const project = await loadProject(opts.config, first === undefined ? {} : { platform: { name: first } });
  printWarnings(project.warnings, io);
  const configured = project.lock ?? {
    ref: DEFAULT_LOCK_REF,
    remote: DEFAULT_LOCK_REMOTE,
    staleMs: DEFAULT_LOCK_STALE_MINUTES * 60_000,
  };
  // Judged by git's own rules first (git would refuse `refs/carte/../heads/main` only once asked).
  const refProblem = opts.ref === undefined ? undefined : lockRefProblem(opts.ref);
  if (refProblem !== undefined) {
    throw new CommandLineError(
      `--ref ${opts.ref} is not the ref of a lock: ${refProblem} (name it as a waiting apply does, refs/carte/lock-shard-1-of-4)`,
    );
  }
  const settings = opts.ref === undefined ? configured : { ...configured, ref: opts.ref };
  if (!/^[0-9a-f]{8,64}$/.test(opts.id)) {
    throw new CommandLineError(
      `${opts.id} is not a lock id: a waiting or refused apply names it (lock 1a2b3c4d5e6f)`,
    );
  }
  if (!opts.force) {
    if (!io.stdinIsTTY || !io.prompt) {
      throw new CommandLineError(
        "force-unlock asks for confirmation on a terminal; pass --force to remove the lock without asking",
      );
    }
    io.err(
      `Removing the lock ${lockName(settings)} of another apply lets a second apply run beside it if it still ` +
        "runs: do it only when that apply is known to have ended.\n",
    );
    const answer = await io.prompt(`Remove lock ${opts.id}? Only 'yes' will be accepted: `);
    if (answer.trim() !== "yes") {
      io.err("Nothing was removed.\n");
      return ExitCode.error;
    }
  }
  const repo = await findRepository(project.root);
  // A remote that never answers stops git at the limit an apply has by default, not never.
  const removed = await forceUnlock(repo, settings, opts.id, {
    at: Date.now() + DEFAULT_RUN_TIMEOUT_MS,
    limit: `the ${DEFAULT_RUN_TIMEOUT_MS / 60_000} minutes force-unlock is given`,
  });
  io.out(
    escapeTerminal(`Removed the apply lock ${lockName(settings)}: ${describeRefHolder(removed)}.`) + "\n",
  );
  return ExitCode.ok;
}

/** The `force-unlock` command, for yargs; `setCode` receives the exit code. */
export function forceUnlockCommand<T extends { config: string }>(
  io: CliIo,
  setCode: (code: number) => void,
): CommandModule<T, T & { id: string; force: boolean; ref: string | undefined }> {
  return {
    command: "force-unlock <id>",
    describe: "Remove the apply lock across machines (lock:) that a killed apply left, by its id",
    builder: (y: Argv<T>) =>
      y
        .positional("id", {
          type: "string",
          demandOption: true,
          describe: "The lock's id, as an apply names it",
        })
        .option("force", {
          type: "boolean",
          default: false,
          describe: "Do not ask for confirmation",
        })
        .option("ref", {
          type: "string",
          describe: "The lock's ref, when not carte.yaml's lock: (a shard's, as the waiting apply names it)",
        }) as unknown as Argv<T & { id: string; force: boolean; ref: string | undefined }>,
    handler: async (args) => {
      setCode(
        await runForceUnlock({ config: args.config, id: args.id, force: args.force, ref: args.ref }, io),
      );
    },
  };
}
