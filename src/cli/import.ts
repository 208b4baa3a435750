/**
 * `carte import --store ID... [--out DIR] [--lenient]`: writes the live state of stores as carte's
 * files (docs/import.md).
 *
 * Exit codes: 0 the files were written and give exactly the live state; 1 an error, or the live state
 * holds something the files cannot express (nothing written unless `--lenient`).
 */

import { existsSync } from "node:fs";
import path from "node:path";
import type { Argv, CommandModule } from "yargs";
import { DEFAULT_APPLY_DELAY_MS, loadProject, type LoadedProject } from "../config/index.js";
import { DEFAULT_REQUESTS_PER_SECOND } from "../config/load.js";
import { ExitCode, InternalError, UsageError } from "../errors.js";
import {
  buildImport,
  filesNotInProject,
  projectFor,
  readLiveStores,
  resolveStoreArgs,
  writeImport,
} from "../import/index.js";
import { emptyStore, type StoreIdentity } from "../model.js";
import { DEFAULT_SAFETY } from "../plan/safety.js";
import { escapeTerminal } from "../render/escape.js";
import { DEFAULT_PARALLELISM } from "../platform/client.js";
import { openSession } from "../session.js";
import { printWarnings, type CliIo } from "./io.js";

/** Options of `carte import`. */
export interface ImportCommand {
  config: string;
  /** Whether `--config` was given (a missing default carte.yaml is fine; a missing named one is not). */
  configGiven: boolean;
  stores: string[];
  out: string;
  lenient: boolean;
  parallelism: number;
  quiet: boolean;
}

/** A project for the session when no carte.yaml exists: the embedded emulator next to `configPath`. */
function bareProject(configPath: string): LoadedProject {
  const configFile = path.resolve(configPath);
  return {
    configFile,
    root: path.dirname(configFile),
    platform: undefined,
    emulator: { applyDelayMs: DEFAULT_APPLY_DELAY_MS },
    ownership: {},
    safety: DEFAULT_SAFETY,
    desired: { stores: {} },
    files: [],
    warnings: [],
  };
}

/** `carte import`. */
export async function runImport(opts: ImportCommand, io: CliIo): Promise<number> {
  if (!Number.isInteger(opts.parallelism) || opts.parallelism < 1 || opts.parallelism > 64) {
    throw new UsageError("--parallelism must be a whole number from 1 to 64");
  }
  let project: LoadedProject;
  if (existsSync(opts.config)) {
    // The project may have no store or catalog files yet: that is what import is for.
    project = await loadProject(opts.config, { allowUnmatchedPatterns: true });
    printWarnings(project.warnings, io);
  } else if (opts.configGiven) throw new UsageError(`the project file ${opts.config} does not exist`);
  else project = bareProject(opts.config);

  const identities: StoreIdentity[] = resolveStoreArgs(
    opts.stores,
    Object.values(project.desired.stores).map((s) => s.store),
  );
  // The embedded emulator must know the stores to answer for them.
  const session = await openSession(
    { ...project, desired: { stores: Object.fromEntries(identities.map((s) => [s.key, emptyStore(s)])) } },
    { env: io.env, connections: opts.parallelism },
  );
  let states;
  try {
    states = await readLiveStores(session.client, identities, { parallelism: opts.parallelism });
  } finally {
    await session.close();
  }

  const outDir = path.resolve(opts.out);
  const configOut = path.join(outDir, "carte.yaml");
  const writeProject = !existsSync(configOut);
  const result = await buildImport(
    states,
    writeProject
      ? projectFor(
          project.platform && {
            baseUrl: project.platform.baseUrl,
            ...(project.platform.requestsPerSecond === DEFAULT_REQUESTS_PER_SECOND
              ? {}
              : { requestsPerSecond: project.platform.requestsPerSecond }),
          },
        )
      : undefined,
  );
  if (result.problems.length > 0) {
    throw new InternalError(
      `the imported files would not load back exactly:\n  ${result.problems.join("\n  ")}`,
    );
  }
  if (result.notes.length > 0) {
    // Addresses and reasons quote SKUs and titles of the live state: one escaped line each.
    const lines = result.notes.map((n) => escapeTerminal(`  ${n.address}: ${n.reason}`));
    io.err(
      `${opts.lenient ? "Warning" : "Error"}: carte's files cannot express ${result.notes.length} ` +
        `thing${result.notes.length === 1 ? "" : "s"} of the live state:\n${lines.join("\n")}\n`,
    );
    if (!opts.lenient) {
      io.err(
        "Nothing was written. Run again with --lenient to write the rest; `carte plan` will then show these as changes.\n",
      );
      return ExitCode.error;
    }
  }

  const written = await writeImport(outDir, result.files);
  const shown = path.relative(process.cwd(), outDir) || ".";
  if (!opts.quiet) {
    const n = identities.length;
    const catalogs = result.catalogs.map((c) => `${c.name} (${c.stores.join(", ")})`).join("; ");
    io.out(
      escapeTerminal(
        `Imported ${n} store${n === 1 ? "" : "s"} into ${result.catalogs.length} catalog` +
          `${result.catalogs.length === 1 ? "" : "s"}: ${catalogs}.`,
      ) + "\n",
    );
    for (const w of written)
      io.out(escapeTerminal(`  ${w.status.padEnd(9)} ${path.join(shown, w.path)}`) + "\n");
  }
  if (!writeProject) {
    const missing = await filesNotInProject(configOut, result.files);
    io.err(escapeTerminal(`${path.join(shown, "carte.yaml")} exists and was left as it is.`) + "\n");
    if (missing.length > 0) {
      io.err(
        `Add these files to its stores: and catalogs: entries:\n${missing.map((f) => `${escapeTerminal(`  ${f.path}`)}\n`).join("")}`,
      );
    }
  }
  if (!opts.quiet) {
    io.out(
      escapeTerminal(
        `Check it with: carte plan -c ${path.join(shown, "carte.yaml")} (it should show no changes)`,
      ) + "\n",
    );
  }
  return ExitCode.ok;
}

/** The yargs definition of `carte import`; `setCode` receives the exit code. */
export function importCommand(io: CliIo, setCode: (code: number) => void): CommandModule {
  return {
    command: "import",
    describe: "Write the live state of stores as carte's files (catalogs and store files)",
    builder: (y: Argv) =>
      y
        .option("store", {
          type: "string",
          array: true,
          demandOption: "name the stores to import with --store ID",
          describe:
            "Stores to import: platform store ids, or integration ids of stores in carte.yaml (repeat, or a comma list)",
        })
        .option("out", {
          type: "string",
          default: ".",
          describe: "Folder to write carte.yaml, catalogs/ and stores/ into",
        })
        .option("lenient", {
          type: "boolean",
          default: false,
          describe: "Write the files even when the live state holds something they cannot express",
        })
        .option("parallelism", {
          type: "number",
          default: DEFAULT_PARALLELISM,
          describe: "Stores read at once",
        })
        .option("quiet", {
          alias: "q",
          type: "boolean",
          default: false,
          describe: "Print only warnings and errors",
        }),
    handler: async (args) => {
      const a = args as unknown as {
        config: string;
        store: string[];
        out: string;
        lenient: boolean;
        parallelism: number;
        quiet: boolean;
      };
      setCode(
        await runImport(
          {
            config: a.config,
            // The default carte.yaml may be absent (then the embedded emulator runs); a named file may not.
            configGiven: a.config !== "carte.yaml",
            stores: a.store,
            out: a.out,
            lenient: a.lenient,
            parallelism: a.parallelism,
            quiet: a.quiet,
          },
          io,
        ),
      );
    },
  };
}
