/**
 * `carte import` of a project whose carte.yaml names `platforms:` (one per country): each platform's
 * stores read with that platform's credentials and hosts (or its own embedded emulator), written as ONE
 * project (src/import/countries.ts, docs/import.md "Across countries").
 */

import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";
import { loadEachPlatform, type LoadedProject } from "../config/index.js";
import { CommandLineError, ExitCode, InternalError, UsageError } from "../errors.js";
import type { ProjectFile } from "../generated/config.js";
import {
  clashingFiles,
  resolveStoreArgs,
  storeArgNames,
  writeImport,
  writeImportedProject,
} from "../import/index.js";
import { buildCountriesImport, type CountryStores, type ProjectCountry } from "../import/countries.js";
import { buildCountriesMerge } from "../import/countries-merge.js";
import {
  emulatorStateFile,
  platformEmulatorState,
  samePlatform,
  stateCopyPlan,
} from "../import/emulator-state-copy.js";
import type { CompanionFile } from "../import/emulator-state-copy.js";
import { PLACEHOLDER_NOTE, placeholderIntegrationId } from "../import/render.js";
import type { StoreIdentity } from "../model.js";
import { escapeTerminal } from "../render/escape.js";
import { bare, quote } from "../source/quote.js";
import { choosePlatforms } from "../run/each-platform.js";
import { printWarnings, type CliIo } from "./io.js";
import { plural, printImported, printMergeNotes, readStores, reportUnwritable } from "./import-steps.js";
import { withSchemaLines } from "../import/schema-lines.js";
import { withWrittenYears } from "../import/years.js";

/** What `carte import` of a project of several platforms is asked (`ImportCommand` of src/cli/import.ts). */
export interface CountriesImportOptions {
  config: string;
  stores: string[];
  out: string;
  lenient: boolean;
  merge: boolean;
  parallelism: number;
  quiet: boolean;
  /** `--platform NAME` (repeatable): read the stores of these platforms only; none: of every one. */
  platforms?: readonly string[] | undefined;
  /** `--rehearsal`: refused, an import reads the production stores. */
  rehearsal?: boolean | undefined;
}

/** Why `carte import --rehearsal` is refused. */
export const REHEARSAL_REFUSED =
  "carte import reads the production stores: run it without --rehearsal (the test stores of the " +
  "development host are named in carte.yaml platforms: NAME: development: stores:)";

/** One platform of the project read, loaded scoped to it. */
interface Scoped {
  name: string;
  project: LoadedProject;
}

/** `NAME:ID`: a store of one platform, by store id or integration id. */
const PLATFORM_STORE = /^([a-z][a-z0-9-]{0,30}):(.+)$/;

/**
 * The platform a `--store` argument names: its `NAME:` prefix, else the one whose files list it.
 *
 * @param left - the platforms of carte.yaml that `--platform` leaves out.
 */
function platformOfArg(
  arg: string,
  scoped: readonly Scoped[],
  left: readonly string[],
): { platform: Scoped; store: string } {
  const prefixed = PLATFORM_STORE.exec(arg);
  const named = prefixed && scoped.find((s) => s.name === prefixed[1]);
  if (named) return { platform: named, store: prefixed[2]! };
  if (prefixed && left.includes(prefixed[1]!))
    throw new CommandLineError(
      `store ${quote(arg, 40)}: platform ${prefixed[1]!} is not among those --platform names (${scoped.map((s) => s.name).join(", ")})`,
    );
  const listing = scoped.filter((s) =>
    Object.values(s.project.desired.stores).some(
      (d) => d.store.storeId === arg || d.store.integrationId === arg,
    ),
  );
  if (listing.length === 1) return { platform: listing[0]!, store: arg };
  if (listing.length === 0 && scoped.length === 1) return { platform: scoped[0]!, store: arg };
  const names = scoped.map((s) => s.name);
  throw new CommandLineError(
    `store ${quote(arg, 40)}: ${listing.length > 1 ? "more than one platform lists it" : "no platform's files list it"}; ` +
      `name its platform as ${names.map((n) => `${n}:${bare(arg, 40)}`).join(" or ")} (platforms of carte.yaml: ${names.join(", ")})`,
  );
}

/**
 * The stores to read on each platform. A store id that two platforms both have gets the placeholder
 * integration id `store-<platform>-<id>` on each, so that every store file has a name of its own.
 *
 * @param left - the platforms of carte.yaml that `--platform` leaves out (a store of one is refused).
 * @throws {@link CommandLineError} for an argument no platform can be found for, or two stores of one
 *   integration id.
 */
export function storesPerPlatform(
  args: readonly string[],
  scoped: readonly Scoped[],
  left: readonly string[] = [],
): Map<string, StoreIdentity[]> {
  const names = storeArgNames(args);
  const wanted = new Map<string, string[]>();
  for (const arg of names) {
    const { platform, store } = platformOfArg(arg, scoped, left);
    wanted.set(platform.name, [...(wanted.get(platform.name) ?? []), store]);
  }
  const out = new Map<string, StoreIdentity[]>();
  for (const s of scoped) {
    const mine = wanted.get(s.name);
    if (mine)
      out.set(
        s.name,
        resolveStoreArgs(
          mine,
          Object.values(s.project.desired.stores).map((d) => d.store),
        ),
      );
  }
  const placeholders = [...out.values()]
    .flat()
    .filter((i) => i.integrationId === placeholderIntegrationId(i.storeId));
  const shared = new Set(
    placeholders.filter((i) => placeholders.filter((j) => j.storeId === i.storeId).length > 1),
  );
  for (const [name, ids] of out) {
    out.set(
      name,
      ids.map((i) => {
        if (!shared.has(i)) return i;
        const key = placeholderIntegrationId(i.storeId, name);
        return { ...i, key, integrationId: key };
      }),
    );
  }
  const keys = [...out.values()].flat().map((i) => i.key);
  const twice = keys.find((k, i) => keys.indexOf(k) !== i);
  if (twice !== undefined)
    throw new CommandLineError(
      `two stores of the import have the integration id "${twice}": import them apart`,
    );
  return out;
}

/** The carte.yaml of the import: `platforms:` as the project read gives it, and the files written. */
async function projectOf(config: string): Promise<ProjectFile> {
  const given = parse(await readFile(config, "utf8")) as { platforms?: unknown };
  return {
    version: 1,
    platforms: given.platforms,
    stores: "stores/*.yaml",
    catalogs: "catalogs/*.yaml",
  } as unknown as ProjectFile;
}

/**
 * The copies of each embedded emulator's state (a platform without hosts) into the new project, so that
 * it plans against what was read, platform by platform (src/import/emulator-state-copy.ts).
 */
async function stateCopies(
  read: readonly Scoped[],
  outDir: string,
): Promise<{ companions: CompanionFile[]; clashing: string[] }> {
  const companions: CompanionFile[] = [];
  const clashing: string[] = [];
  for (const { name, project } of read) {
    if (project.platform !== undefined || path.resolve(project.root) === outDir) continue;
    const state = platformEmulatorState(name);
    const plan = await stateCopyPlan(project.root, outDir, state);
    if (plan === "clash") clashing.push(state);
    if (plan === "create") companions.push((await emulatorStateFile(project.root, outDir, state))!);
  }
  return { companions, clashing };
}

/** Loads the project once per platform, each load scoped to it, its warnings printed. */
async function loadPlatforms(config: string, io: CliIo): Promise<Scoped[]> {
  // The project may have no store or catalog files yet: that is what import is for.
  const loaded = await loadEachPlatform(config, { allowUnmatchedPatterns: true });
  const scoped: Scoped[] = [];
  for (const { name, project } of loaded) {
    printWarnings(project.warnings, io);
    if (name !== undefined) scoped.push({ name, project });
  }
  return scoped;
}

/** Reads the stores of each platform, with its credentials, from its hosts or its embedded emulator. */
async function readCountries(
  scoped: readonly Scoped[],
  wanted: ReadonlyMap<string, StoreIdentity[]>,
  opts: CountriesImportOptions,
  io: CliIo,
): Promise<{ countries: CountryStores[]; read: Scoped[] }> {
  const countries: CountryStores[] = [];
  const read: Scoped[] = [];
  for (const s of scoped) {
    const identities = wanted.get(s.name);
    if (!identities) continue;
    const currency = s.project.currency;
    // A platform of carte.yaml `platforms:` always names its currency (the loader refuses one without).
    if (!currency) throw new InternalError(`platform ${s.name} was loaded without its currency`);
    const states = await readStores(s.project, identities, opts.parallelism, io, opts.quiet, s.name).catch(
      (err: unknown) => {
        // One project of every country, or none: a platform that cannot be read stops the import.
        io.err(`Platform ${s.name} could not be read: nothing was written.\n`);
        throw err;
      },
    );
    // The platform knows no year of a special day: the project's files give it (src/import/years.ts).
    const dated = withWrittenYears(states, s.project.desired.stores);
    countries.push({ name: s.name, currency, language: s.project.platformOf?.language, states: dated });
    read.push(s);
  }
  return { countries, read };
}

/** Where an import writes: the `--out` folder, as shown, and its carte.yaml. */
interface OutPlace {
  outDir: string;
  shown: string;
  configOut: string;
}

/** Tells on stderr which stores got a placeholder integration id. */
function printPlaceholders(wanted: ReadonlyMap<string, StoreIdentity[]>, io: CliIo): void {
  const placeholders = [...wanted].flatMap(([name, ids]) =>
    ids.filter((s) =>
      [placeholderIntegrationId(s.storeId), placeholderIntegrationId(s.storeId, name)].includes(
        s.integrationId,
      ),
    ),
  );
  if (placeholders.length > 0)
    io.err(
      escapeTerminal(
        `Note: the integration_id of ${plural(placeholders.length, "store")} ` +
          `(${placeholders.map((s) => `${s.storeId}: ${s.integrationId}`).join(", ")}) is ${PLACEHOLDER_NOTE}.`,
      ) + "\n",
    );
}

/** The platforms of a loaded project: their currency and language, in carte.yaml's order. */
function countriesOf(scoped: readonly Scoped[]): ProjectCountry[] {
  return scoped.flatMap(({ project }) =>
    project.currency ? [{ currency: project.currency, language: project.platformOf?.language }] : [],
  );
}

/** Writes a new project of the platforms read (`--out` has no carte.yaml). */
async function writeCountries(
  opts: CountriesImportOptions,
  io: CliIo,
  at: OutPlace,
  scoped: readonly Scoped[],
  read: { countries: CountryStores[]; read: Scoped[]; wanted: ReadonlyMap<string, StoreIdentity[]> },
): Promise<number> {
  const { outDir, shown } = at;
  const { countries } = read;
  const built = await buildCountriesImport(countries, await projectOf(opts.config), countriesOf(scoped));
  // Each file starts with the $schema line carte init writes (a comment: the files load the same).
  const result = { ...built, files: await withSchemaLines(outDir, built.files) };
  if (result.problems.length > 0)
    throw new InternalError(
      `the imported files would not load back exactly:\n  ${result.problems.join("\n  ")}`,
    );
  const copies = await stateCopies(read.read, outDir);
  const clashing = [...(await clashingFiles(outDir, result.files)), ...copies.clashing];
  if (clashing.length > 0)
    throw new UsageError(
      `carte import never overwrites a file, and ${shown} already has ${clashing.length === 1 ? "this file" : "these files"} ` +
        `with other content: ${clashing.join(", ")}. Import into an empty folder.`,
    );
  if (!reportUnwritable(result, opts.lenient, io)) return ExitCode.changes;
  const written = await writeImportedProject(outDir, result.files, copies.companions);
  const stores = countries.reduce((n, c) => n + c.states.length, 0);
  if (!opts.quiet) printImported(io, written, result, { stores, shown, merged: false });
  printPlaceholders(read.wanted, io);
  if (!opts.quiet)
    io.out(
      escapeTerminal(
        `Check it with: carte plan -c ${path.join(shown, "carte.yaml")} (it should show no changes on ` +
          `${plural(countries.length, "platform")}: ${countries.map((c) => c.name).join(", ")})`,
      ) + "\n",
    );
  return result.notes.length > 0 ? ExitCode.changes : ExitCode.ok;
}

/**
 * Adds the stores read to the project of `--out`, a project of the same platforms (`--merge`): its
 * files left as they are (src/import/countries-merge.ts). A platform read from the embedded emulator
 * whose emulator in the project has no state yet gets a copy of it, as for one platform.
 */
async function mergeCountries(
  opts: CountriesImportOptions,
  io: CliIo,
  at: OutPlace,
  targets: readonly Scoped[],
  read: { countries: CountryStores[]; read: Scoped[]; wanted: ReadonlyMap<string, StoreIdentity[]> },
): Promise<number> {
  const { outDir, shown, configOut } = at;
  const byName = new Map(targets.map((t) => [t.name, t.project]));
  const merged = await buildCountriesMerge(read.countries, byName, countriesOf(targets));
  const result = { ...merged, files: await withSchemaLines(outDir, merged.files) };
  if (result.problems.length > 0)
    throw new InternalError(
      `the imported files would not load back exactly:\n  ${result.problems.join("\n  ")}`,
    );
  if (!reportUnwritable(result, opts.lenient, io)) return ExitCode.changes;
  const copied = read.read.filter(
    (r) => r.project.platform === undefined && byName.get(r.name)!.platform === undefined,
  );
  const companions: CompanionFile[] = [];
  const planned = new Set<string>();
  for (const r of copied) {
    if (path.resolve(r.project.root) === outDir) continue;
    const state = platformEmulatorState(r.name);
    const plan = await stateCopyPlan(r.project.root, outDir, state);
    if (plan === "create") companions.push((await emulatorStateFile(r.project.root, outDir, state))!);
    if (plan !== "clash") planned.add(r.name);
  }
  const written = await writeImport(outDir, result.files, companions);
  const stores = read.countries.reduce((n, c) => n + c.states.length, 0);
  if (!opts.quiet) printImported(io, written, result, { stores, shown, merged: true });
  printPlaceholders(read.wanted, io);
  await printMergeNotes(io, shown, configOut, result.files);
  const elsewhere = read.read.filter(
    (r) => !planned.has(r.name) && !samePlatform(r.project, byName.get(r.name)!),
  );
  for (const r of elsewhere)
    io.err(
      escapeTerminal(
        `Note: platform ${r.name} of ${path.join(shown, "carte.yaml")} is not the one these stores were read from: ` +
          `carte plan --platform ${r.name} there compares the files with its own.`,
      ) + "\n",
    );
  return result.notes.length > 0 || result.conflicts.length > 0 ? ExitCode.changes : ExitCode.ok;
}

/** Loads the project of `--out` once per platform; it must name platforms, as the project read does. */
async function loadTargets(configOut: string, shown: string, io: CliIo): Promise<Scoped[]> {
  // It may have no store or catalog files yet, like the project read.
  const loaded = await loadEachPlatform(configOut, { allowUnmatchedPatterns: true });
  const targets: Scoped[] = [];
  for (const { name, project } of loaded) {
    printWarnings(project.warnings, io);
    if (name !== undefined) targets.push({ name, project });
  }
  if (targets.length === 0)
    throw new UsageError(
      `${path.join(shown, "carte.yaml")} names no platforms: carte import --merge of a project of several ` +
        "platforms adds stores to a project of the same platforms (carte.yaml platforms:)",
    );
  return targets;
}

/**
 * `carte import` of a project of several platforms (carte.yaml `platforms:`): the stores named on the
 * command line (`NAME:ID`, or the ids of its store files) read from each platform, written into a new
 * project of the same platforms, or, with `--merge`, added to the project of `--out`.
 */
export async function runCountriesImport(opts: CountriesImportOptions, io: CliIo): Promise<number> {
  if (opts.rehearsal) throw new UsageError(REHEARSAL_REFUSED);
  const outDir = path.resolve(opts.out);
  const shown = path.relative(process.cwd(), outDir) || ".";
  const configOut = path.join(outDir, "carte.yaml");
  const intoProject = existsSync(configOut);
  if (intoProject && !opts.merge)
    throw new UsageError(
      `${path.join(shown, "carte.yaml")} exists: ${shown} is a carte project, and carte import never ` +
        "overwrites its files. Import into an empty folder, or add --merge to add only the stores its files do not manage yet.",
    );
  // A project to merge into must load: its stores and catalogs are what the import must not touch.
  const targets = intoProject ? await loadTargets(configOut, shown, io) : undefined;
  const scoped = await loadPlatforms(opts.config, io);
  // The platforms asked (`--platform`, each checked against carte.yaml's): the stores are theirs.
  const asked = new Set(await choosePlatforms(opts.config, opts.platforms, false));
  const wanted = storesPerPlatform(
    opts.stores,
    scoped.filter((s) => asked.has(s.name)),
    scoped.filter((s) => !asked.has(s.name)).map((s) => s.name),
  );
  // Before any call: a merge adds each platform's stores to the project's platform of the same name.
  const missing = [...wanted.keys()].filter((n) => targets && !targets.some((t) => t.name === n));
  if (missing.length > 0)
    throw new UsageError(
      `${path.join(shown, "carte.yaml")} names no platform ${missing.join(", ")} under platforms:: ` +
        "carte import --merge adds stores to the platforms of the project, named alike",
    );
  const read = { ...(await readCountries(scoped, wanted, opts, io)), wanted };
  const at = { outDir, shown, configOut };
  return targets ? mergeCountries(opts, io, at, targets, read) : writeCountries(opts, io, at, scoped, read);
}
