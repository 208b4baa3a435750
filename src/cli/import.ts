/**
 * `carte import --store ID... [--out DIR] [--lenient] [--merge]`: writes the live state of stores as
 * carte's files (docs/import.md). It never overwrites a file: into a folder without carte.yaml it
 * writes a project; into a project it refuses unless `--merge`, which adds only what the files do not
 * manage yet and reports conflicts without touching them.
 *
 * Exit codes: 0 the files were written and give exactly the live state; 2 the live state holds
 * something the files cannot express (nothing written unless `--lenient`), or `--merge` left stores as
 * the project has them (conflicts); 1 an error (a file would be overwritten, a project without
 * `--merge`, a platform error).
 */

import { existsSync } from "node:fs";
import path from "node:path";
import type { Argv, CommandModule } from "yargs";
import {
  DEFAULT_APPLY_DELAY_MS,
  loadProject,
  readPlatformNames,
  type LoadedProject,
} from "../config/index.js";
import { DEFAULT_REQUESTS_PER_SECOND } from "../config/load.js";
import { CommandLineError, ExitCode, InternalError, UsageError } from "../errors.js";
import {
  buildImport,
  buildMerge,
  clashingFiles,
  projectFor,
  resolveStoreArgs,
  writeImportedProject,
  writeImport,
  type ImportResult,
} from "../import/index.js";
import {
  EMULATOR_STATE,
  emulatorStateFile,
  samePlatform,
  stateCopyPlan,
} from "../import/emulator-state-copy.js";
import { PLACEHOLDER_NOTE, placeholderIntegrationId } from "../import/render.js";
import { withSchemaLines } from "../import/schema-lines.js";
import { withWrittenYears } from "../import/years.js";
import type { StoreIdentity, StoreState } from "../model.js";
import { DEFAULT_SAFETY } from "../plan/safety.js";
import { escapeTerminal } from "../render/escape.js";
import { DEFAULT_PARALLELISM } from "../platform/client.js";
import { describeTarget, runTarget } from "../run/session.js";
import { printWarnings, type CliIo } from "./io.js";
import { checkParallelism } from "./option-checks.js";
import { plural, printImported, printMergeNotes, readStores, reportUnwritable } from "./import-steps.js";
import { REHEARSAL_REFUSED, runCountriesImport } from "./import-countries.js";
import { platformChoice, platformFlags, type PlatformChoice } from "./platform-sections.js";
import { choosePlatforms } from "../run/each-platform.js";

/** Options of `carte import`; `--platform` chooses the platforms of carte.yaml `platforms:` read. */
export interface ImportCommand extends PlatformChoice {
  config: string;
  /** Whether `--config` was given (a missing default carte.yaml is fine; a missing named one is not). */
  configGiven: boolean;
  stores: string[];
  out: string;
  lenient: boolean;
  /** Add to the project of `--out` only what its files do not manage yet. */
  merge: boolean;
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
    catalogs: new Map(),
    files: [],
    fileDigests: {},
    warnings: [],
  };
}

/**
 * The project whose platform the stores are read from: the one of `--config` when it exists (its
 * warnings printed), else a bare project on the embedded emulator.
 *
 * @throws CommandLineError when `--config` was given and names no file.
 */
async function sourceProject(opts: ImportCommand, io: CliIo): Promise<LoadedProject> {
  if (existsSync(opts.config)) {
    // The project may have no store or catalog files yet: that is what import is for.
    const project = await loadProject(opts.config, { allowUnmatchedPatterns: true });
    printWarnings(project.warnings, io);
    return project;
  }
  if (opts.configGiven) throw new CommandLineError(`the project file ${opts.config} does not exist`);
  return bareProject(opts.config);
}

/** The files of a new project of the stores read from `project`'s platform (src/import/index.ts). */
async function buildNewProject(states: readonly StoreState[], project: LoadedProject): Promise<ImportResult> {
  const platform = project.platform && {
    hosts: project.platform.hosts,
    ...(project.platform.requestsPerSecond === DEFAULT_REQUESTS_PER_SECOND
      ? {}
      : { requestsPerSecond: project.platform.requestsPerSecond }),
  };
  return buildImport(
    states,
    projectFor(platform, project.currency?.code, keptSettings(project)),
    undefined,
    project.currency ? { currency: project.currency } : {},
  );
}

/**
 * What the new carte.yaml keeps of the project read: its `secrets_file:` (the same path relative to
 * carte.yaml, with forward slashes).
 */
function keptSettings(project: LoadedProject): { secretsFile?: string } {
  if (project.secretsFile === undefined) return {};
  return { secretsFile: path.relative(project.root, project.secretsFile).split(path.sep).join("/") };
}

/** `carte import`. */
export async function runImport(opts: ImportCommand, io: CliIo): Promise<number> {
  checkParallelism(opts.parallelism);
  if (opts.rehearsal) throw new UsageError(REHEARSAL_REFUSED);
  // A project of several platforms (carte.yaml `platforms:`) is read platform by platform.
  if (existsSync(opts.config) && (await readPlatformNames(opts.config)).length > 0)
    return runCountriesImport(opts, io);
  // `--platform` of a project without `platforms:` is refused, as by every command.
  if (opts.platforms?.length) {
    if (!existsSync(opts.config))
      throw new CommandLineError(`--platform: ${opts.config} does not exist, and names no platforms`);
    await choosePlatforms(opts.config, opts.platforms, false);
  }
  const project = await sourceProject(opts, io);

  const outDir = path.resolve(opts.out);
  const shown = path.relative(process.cwd(), outDir) || ".";
  const configOut = path.join(outDir, "carte.yaml");
  const intoProject = existsSync(configOut);
  if (intoProject && !opts.merge) {
    throw new UsageError(
      `${path.join(shown, "carte.yaml")} exists: ${shown} is a carte project, and carte import never ` +
        "overwrites its files. Import into an empty folder, or add --merge to add only the stores its files do not manage yet.",
    );
  }
  // A project to merge into must load: its stores and catalogs are what the import must not touch. It
  // may have no store or catalog files yet, like the project read above.
  const target = intoProject ? await loadProject(configOut, { allowUnmatchedPatterns: true }) : undefined;

  const identities: StoreIdentity[] = resolveStoreArgs(
    opts.stores,
    Object.values(project.desired.stores).map((s) => s.store),
  );
  // The platform knows no year of a special day: the project's files give it (src/import/years.ts).
  const states = withWrittenYears(
    await readStores(project, identities, opts.parallelism, io, opts.quiet),
    project.desired.stores,
  );

  const built = target ? await buildMerge(states, target) : await buildNewProject(states, project);
  // Each file starts with the $schema line carte init writes (a comment: the files load the same).
  const result = { ...built, files: await withSchemaLines(outDir, built.files) };
  if (result.problems.length > 0) {
    throw new InternalError(
      `the imported files would not load back exactly:\n  ${result.problems.join("\n  ")}`,
    );
  }
  // The platform the project of --out plans against must be the one read (src/import/emulator-state-copy.ts):
  // from the embedded emulator of another folder, its state is copied along; a new project gets it always, a
  // project merged into when it has no state of its own yet.
  const fromEmbedded = project.platform === undefined && path.resolve(project.root) !== outDir;
  const statePlan = fromEmbedded && !target?.platform ? await stateCopyPlan(project.root, outDir) : undefined;
  const copyState = statePlan === "create" || statePlan === "unchanged";
  if (!target) {
    const clashing = await clashingFiles(outDir, result.files);
    if (statePlan === "clash") clashing.push(EMULATOR_STATE);
    if (clashing.length > 0) {
      throw new UsageError(
        `carte import never overwrites a file, and ${shown} already has ${clashing.length === 1 ? "this file" : "these files"} ` +
          `with other content: ${clashing.join(", ")}. Import into an empty folder.`,
      );
    }
  }
  if (!reportUnwritable(result, opts.lenient, io)) return ExitCode.changes;

  // The copied state belongs to the files' all-or-none set: a copy that fails takes them back.
  const stateFile = statePlan === "create" ? await emulatorStateFile(project.root, outDir) : undefined;
  const companions = stateFile ? [stateFile] : [];
  // A new project gets the .gitignore of carte init: the copied state and secrets stay out of git.
  const written = target
    ? await writeImport(outDir, result.files, companions)
    : await writeImportedProject(outDir, result.files, companions);
  if (statePlan === "unchanged") written.push({ path: EMULATOR_STATE, status: "unchanged" });
  if (!opts.quiet) printImported(io, written, result, { stores: states.length, shown, merged: !!target });
  const placeholders = identities.filter((s) => s.integrationId === placeholderIntegrationId(s.storeId));
  if (placeholders.length > 0) {
    io.err(
      escapeTerminal(
        `Note: the integration_id of ${plural(placeholders.length, "store")} ` +
          `(${placeholders.map((s) => `${s.storeId}: ${s.integrationId}`).join(", ")}) is ${PLACEHOLDER_NOTE}.`,
      ) + "\n",
    );
  }
  if (target) await printMergeNotes(io, shown, configOut, result.files);
  // Whether `carte plan` of the written project compares its files with the platform they were read from.
  const planTarget = target ?? { ...project, root: outDir };
  const samePlatformRead = copyState || samePlatform(project, planTarget);
  if (!samePlatformRead) {
    io.err(
      escapeTerminal(
        `Note: ${path.join(shown, "carte.yaml")} plans against the ${describeTarget(runTarget(planTarget))}, ` +
          `not the ${describeTarget(runTarget(project))} these stores were read from: carte plan there ` +
          "compares the files with that platform.",
      ) + "\n",
    );
  }
  if (!opts.quiet) {
    io.out(
      escapeTerminal(
        `Check it with: carte plan -c ${path.join(shown, "carte.yaml")}` +
          (samePlatformRead ? " (it should show no changes)" : ""),
      ) + "\n",
    );
  }
  return result.notes.length > 0 || result.conflicts.length > 0 ? ExitCode.changes : ExitCode.ok;
}

/** The yargs definition of `carte import`; `setCode` receives the exit code. */
export function importCommand(io: CliIo, setCode: (code: number) => void): CommandModule {
  return {
    command: "import",
    describe: "Write the live state of stores as carte's files (catalogs and store files)",
    builder: (y: Argv) =>
      platformFlags(y)
        .option("rehearsal", {
          type: "boolean",
          default: false,
          describe: "Refused: an import reads the production stores, not a development host's test stores",
        })
        .option("store", {
          type: "string",
          array: true,
          demandOption: "name the stores to import with --store ID",
          describe:
            "Stores to import: platform store ids, or integration ids of stores in carte.yaml; NAME:ID on platform NAME of carte.yaml platforms: (repeat, or a comma list)",
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
        .option("merge", {
          type: "boolean",
          default: false,
          describe:
            "Into an existing project: add only the stores its files do not manage yet, never changing a file",
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
        merge: boolean;
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
            merge: a.merge,
            parallelism: a.parallelism,
            quiet: a.quiet,
            ...platformChoice(args as { platform?: unknown; rehearsal?: unknown }),
          },
          io,
        ),
      );
    },
  };
}
