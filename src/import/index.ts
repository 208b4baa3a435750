/**
 * `carte import`: the live state of some stores written as carte's files (docs/import.md). Like
 * octoDNS's `dump`, it lets a chain start from what it already has.
 *
 * The pipeline, with I/O only at the ends:
 *
 * ```
 * readLiveStores(client) ─► sanitizeStates ─► factorStores ─► factorGroups ─► render ─► verifyFiles ─► writeImport
 *                            (what the files    (shared catalogs,  (groups, chain  (YAML)  (load again,
 *                             cannot say: notes)  store overrides)   defaults)              compare)
 * ```
 *
 * Each kind contributes through its part in src/import/parts.ts.
 */

import { readFile } from "node:fs/promises";
import path from "node:path";
import {
  checkWritable,
  removeFile,
  SHARED_DIR_MODE,
  SHARED_FILE_MODE,
  writeFileAtomic,
  writeFileSet,
  type WriteTarget,
} from "../atomic.js";
import { CommandLineError, UsageError } from "../errors.js";
import { GITIGNORE } from "../init.js";
import type { ProjectFile } from "../generated/config.js";
import { API_GROUPS, type ApiGroup, type PlatformHosts } from "../platform/routes.js";
import { kinds as registeredKinds } from "../kinds/registry.js";
import type { ResourceKind } from "../kinds/resource-kind.js";
import type { StoreIdentity, StoreState } from "../model.js";
import type { PlatformClient } from "../platform/client.js";
import { fetchCurrent } from "../state/current.js";
import { factorStores } from "./factor.js";
import { factorGroups } from "./groups.js";
import { importParts } from "./parts.js";
import { catalogText, groupText, placeholderIntegrationId, projectText, storeText } from "./render.js";
import { catalogInOrder, catalogRank, sectionsInCatalogOrder } from "./order.js";
import { sanitizeStates } from "./sanitize.js";
import type { ImportContext, ImportPart } from "../kinds/import-types.js";
import type { CompanionFile } from "./emulator-state-copy.js";
import { verifyFiles, type ImportFile } from "./round-trip.js";

export type { ImportFile } from "./round-trip.js";
export { buildMerge } from "./merge.js";
export type { ImportResult } from "./result.js";
import type { ImportResult } from "./result.js";
export { filesNotInProject } from "./patterns.js";

/** Platform store ids: positive decimal integers. */
const STORE_ID = /^[1-9][0-9]*$/;

/**
 * The names `--store` gives, each argument split at commas, trimmed, empty ones dropped.
 *
 * @throws {@link CommandLineError} when no store is named.
 */
export function storeArgNames(args: readonly string[]): string[] {
  const names = args
    .flatMap((a) => a.split(","))
    .map((a) => a.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new CommandLineError("name the stores to import with --store ID (repeat it or use a comma list)");
  return names;
}

/**
 * The stores named on the command line. Each argument is a platform store id or, for a store of the
 * loaded carte.yaml, its integration id; comma lists are split. A store of carte.yaml keeps its
 * integration id and name; any other store id gets the placeholder integration id `store-<id>`
 * ({@link placeholderIntegrationId}) and name `Store <id>` (the platform's menu API answers carry neither).
 *
 * @throws {@link CommandLineError} for an argument that is neither, or when no store is named.
 */
export function resolveStoreArgs(
  args: readonly string[],
  configured: readonly StoreIdentity[],
): StoreIdentity[] {
  const names = storeArgNames(args);
  const out = new Map<string, StoreIdentity>();
  for (const name of names) {
    const known = configured.find((s) => s.storeId === name || s.integrationId === name);
    if (known) {
      out.set(known.storeId, known);
      continue;
    }
    if (!STORE_ID.test(name)) {
      throw new CommandLineError(
        `unknown store "${name}": give a platform store id, or the integration id of a store of carte.yaml`,
      );
    }
    if (!out.has(name))
      out.set(name, {
        key: placeholderIntegrationId(name),
        storeId: name,
        integrationId: placeholderIntegrationId(name),
        name: `Store ${name}`,
      });
  }
  return [...out.values()];
}

/** The registered kinds the import parts export and the reader can fetch. */
export function importKinds(parts: readonly ImportPart[] = importParts): ResourceKind<unknown>[] {
  const wanted = new Set(parts.flatMap((p) => p.kinds));
  return registeredKinds.filter((k) => wanted.has(k.name));
}

/** Options of {@link readLiveStores}. */
export interface ReadOptions {
  /** Calls in flight at once. Default `DEFAULT_PARALLELISM` (src/platform/client.ts). */
  parallelism?: number;
  /** Called as reads complete. */
  onRead?: (done: number, total: number) => void;
}

/** Reads the live state of the stores (every kind the import exports), without the platform ids. */
export async function readLiveStores(
  client: PlatformClient,
  stores: readonly StoreIdentity[],
  options: ReadOptions = {},
  parts: readonly ImportPart[] = importParts,
): Promise<StoreState[]> {
  const kinds = importKinds(parts);
  const current = await fetchCurrent(
    client,
    stores.map((store) => ({ store, kinds })),
    {
      ...(options.parallelism ? { parallelism: options.parallelism } : {}),
      ...(options.onRead ? { onRead: options.onRead } : {}),
    },
  );
  return stores.map((s) => {
    const { ids: _ids, ...state } = current.stores[s.key]!;
    return state;
  });
}

/**
 * Turns live states into carte's files, and proves they load back exactly (in a scratch folder).
 * Deterministic: the same states give the same texts.
 *
 * @param project - carte.yaml to write along (when the output folder has none), verified with the rest.
 */
export async function buildImport(
  states: readonly StoreState[],
  project?: ProjectFile,
  parts: readonly ImportPart[] = importParts,
  ctx: ImportContext = {},
): Promise<ImportResult> {
  const { states: sanitized, notes } = sanitizeStates(states, parts, ctx);
  const factoring = factorStores(sanitized, parts);
  // What sets of stores share beyond the catalog goes into group files (src/import/groups.ts).
  const grouping = factorGroups(factoring.stores, { chainDefaults: project !== undefined });
  // Prices and exclusions in the catalog's order, as a person writes them (src/import/order.ts).
  const ranks = new Map(factoring.catalogs.map((c) => [c.name, catalogRank([c.catalog])]));
  const rankOf = (catalog: string) => ranks.get(catalog) ?? catalogRank([]);
  const catalogOfStore = new Map(grouping.stores.map((s) => [s.state.store.key, s.file.catalog]));
  // Keys in the schema's order: `secrets_file:` after `defaults:`.
  const { secrets_file: secretsFile, ...head } = project ?? ({} as Partial<ProjectFile>);
  const withGroups: ProjectFile | undefined = project && {
    ...(head as ProjectFile),
    ...(grouping.groups.length > 0 ? { groups: "groups/*.yaml" } : {}),
    ...(grouping.defaults
      ? {
          defaults: sectionsInCatalogOrder(
            grouping.defaults,
            catalogRank(factoring.catalogs.map((c) => c.catalog)),
          ) as ProjectFile["defaults"],
        }
      : {}),
    ...(secretsFile !== undefined ? { secrets_file: secretsFile } : {}),
  };
  const files: ImportFile[] = [
    ...(withGroups ? [{ path: "carte.yaml", text: projectText(withGroups), kind: "project" as const }] : []),
    ...factoring.catalogs.map((c) => ({
      path: `catalogs/${c.name}.yaml`,
      text: catalogText(catalogInOrder(c.catalog), c.stores, ctx.currency),
      kind: "catalog" as const,
    })),
    ...grouping.groups.map((g) => {
      const rank = rankOf(catalogOfStore.get(g.stores[0]!) ?? "");
      const defaults = g.file.defaults && sectionsInCatalogOrder(g.file.defaults, rank);
      return {
        path: `groups/${g.name}.yaml`,
        text: groupText({ ...g.file, ...(defaults ? { defaults } : {}) }, g.stores, ctx.currency),
        kind: "group" as const,
      };
    }),
    ...grouping.stores.map((s) => ({
      path: `stores/${s.state.store.integrationId}.yaml`,
      text: storeText(sectionsInCatalogOrder(s.file, rankOf(s.file.catalog)), ctx.currency),
      kind: "store" as const,
    })),
  ];
  const byKey = Object.fromEntries(sanitized.map((s) => [s.store.key, s]));
  return {
    files,
    catalogs: factoring.catalogs,
    groups: grouping.groups,
    notes,
    conflicts: [],
    problems: await verifyFiles(files, byKey, parts),
  };
}

/**
 * The `platform:` addresses of a project: `base_url` when every API group has the same one, else
 * each group's under `hosts:`.
 */
function platformAddresses(hosts: PlatformHosts): { base_url: string } | { hosts: PlatformHosts } {
  const first = hosts[API_GROUPS[0]];
  return API_GROUPS.every((g) => hosts[g] === first)
    ? { base_url: first }
    : { hosts: Object.fromEntries(API_GROUPS.map((g) => [g, hosts[g]])) as Record<ApiGroup, string> };
}

/**
 * The carte.yaml of an import: the currency of the project read (when it declares one), its
 * `secrets_file:` (`kept.secretsFile`, relative to carte.yaml as written there), the same platform as
 * the one read (the same address of every API group), the files just written.
 */
export function projectFor(
  platform: { hosts: PlatformHosts; requestsPerSecond?: number } | undefined,
  currency?: string,
  kept: { secretsFile?: string } = {},
): ProjectFile {
  return {
    version: 1,
    ...(currency !== undefined ? { currency } : {}),
    ...(kept.secretsFile !== undefined ? { secrets_file: kept.secretsFile } : {}),
    ...(platform
      ? {
          platform: {
            ...platformAddresses(platform.hosts),
            ...(platform.requestsPerSecond !== undefined
              ? { requests_per_second: platform.requestsPerSecond }
              : {}),
          },
        }
      : {}),
    stores: "stores/*.yaml",
    catalogs: "catalogs/*.yaml",
  };
}

/** What happened to one file: written, already there as it would be, or there with other content. */
export interface WrittenFile {
  path: string;
  status: "created" | "unchanged" | "kept";
}

/**
 * Writes carte init's `.gitignore` into a project folder that has none (src/init.ts {@link GITIGNORE}):
 * the embedded emulator's state, secrets files and saved plans stay out of git.
 *
 * @returns `"created"`, `"unchanged"`, or `"kept"` when the folder has a `.gitignore` of its own (left
 *   as it is).
 */
export async function writeGitignore(outDir: string): Promise<WrittenFile["status"]> {
  const target = path.join(outDir, ".gitignore");
  const written = await writeFileAtomic(target, GITIGNORE, {
    root: outDir,
    purpose: "write the imported project's .gitignore to",
    overwrite: false,
    mode: SHARED_FILE_MODE,
    dirMode: SHARED_DIR_MODE,
  });
  if (written) return "created";
  return (await readFile(target, "utf8").catch(() => undefined)) === GITIGNORE ? "unchanged" : "kept";
}

/**
 * The files that already exist under `outDir` with other content: `carte import` never overwrites a
 * file, so it refuses to write any of them (identical files are fine: nothing to write).
 */
export async function clashingFiles(outDir: string, files: readonly ImportFile[]): Promise<string[]> {
  const out: string[] = [];
  for (const f of files) {
    // A link on the way is refused here already, before any file is read or written.
    if (!(await checkWritable(path.join(outDir, f.path), importTarget(outDir)))) continue;
    const before = await readFile(path.join(outDir, f.path), "utf8").catch(() => undefined);
    if (before !== undefined && before !== f.text) out.push(f.path);
  }
  return out;
}

/** Where imported files go: under the `--out` folder (the project's, for `--merge`). */
function importTarget(outDir: string): WriteTarget {
  return { root: outDir, purpose: "write the imported file" };
}

/**
 * Writes the imported files of a new project under `outDir` with carte init's `.gitignore`
 * ({@link writeGitignore}) first, so that the state and secrets carte keeps next to it never reach
 * git: when the files cannot all be written ({@link writeImport}), a `.gitignore` this call created is
 * removed with them, leaving the folder as it was.
 *
 * @param companions - files written in the same set, before carte.yaml ({@link writeImport}).
 * @returns what happened to each file, the `.gitignore` last.
 * @throws what {@link writeImport} throws.
 */
export async function writeImportedProject(
  outDir: string,
  files: readonly ImportFile[],
  companions: readonly CompanionFile[] = [],
): Promise<WrittenFile[]> {
  const gitignore = await writeGitignore(outDir);
  try {
    return [...(await writeImport(outDir, files, companions)), { path: ".gitignore", status: gitignore }];
  } catch (err) {
    if (gitignore === "created") {
      await removeFile(path.join(outDir, ".gitignore"), { ...importTarget(outDir), purpose: "remove again" });
    }
    throw err;
  }
}

/**
 * Writes the files under `outDir` (folders created as needed), never overwriting one: an identical file
 * is left as it is, any other existing file makes the write fail (checked again at the moment of
 * writing, so that a file created meanwhile is not lost either). Each file is written atomically and
 * never through a link (src/atomic.ts): a link in place of a file or of a folder under `outDir`
 * (`catalogs -> /elsewhere`) refuses the import before its first file is written. The companions (the
 * copy of the embedded emulator's state, src/import/emulator-state-copy.ts), checked by their caller, come
 * after the imported files and before carte.yaml, which is written last; the files go all or none
 * (src/atomic.ts `writeFileSet`): when one cannot be written (a full disk) or was made meanwhile, those
 * written before it are removed again, with the folders made for them, so that no carte.yaml ever names a
 * catalog or store file, or plans against a state, that is not there, and the same import can run again.
 *
 * @param companions - files to write in the same set, each new (its caller checked that none is there).
 * @throws {@link UsageError} naming a file that exists with other content.
 * @throws `FileWriteError` (src/errors.ts) naming a link or a file in a folder's place, or a file that could not
 *   be written and the cause (and the files removed again).
 */
export async function writeImport(
  outDir: string,
  files: readonly ImportFile[],
  companions: readonly CompanionFile[] = [],
): Promise<WrittenFile[]> {
  const target = importTarget(outDir);
  const existing = new Set<string>();
  for (const f of files) if (await checkWritable(path.join(outDir, f.path), target)) existing.add(f.path);
  const unchanged = new Set<string>();
  for (const f of files) {
    if (!existing.has(f.path)) continue;
    const before = await readFile(path.join(outDir, f.path), "utf8").catch(() => undefined);
    if (before === f.text) unchanged.add(f.path);
  }
  const shared = { purpose: target.purpose, mode: SHARED_FILE_MODE, dirMode: SHARED_DIR_MODE };
  const asEntry = (f: ImportFile): CompanionFile => ({ path: f.path, text: f.text, options: shared });
  // carte.yaml last, and all or none (a full disk): never a carte.yaml naming files that are not there.
  const toWrite = [
    ...files.filter((f) => !unchanged.has(f.path) && f.kind !== "project").map(asEntry),
    ...companions,
    ...files.filter((f) => !unchanged.has(f.path) && f.kind === "project").map(asEntry),
  ];
  const written = await writeFileSet(
    toWrite.map((f) => ({
      file: path.join(outDir, f.path),
      data: f.text,
      options: { ...target, ...f.options, overwrite: false },
    })),
  );
  const kept = toWrite.filter((_, i) => !written[i]);
  if (kept.length > 0) {
    // Made meanwhile: the files written by this call are taken back, as on a failure.
    for (const [i, f] of toWrite.entries()) {
      if (written[i]) await removeFile(path.join(outDir, f.path), { ...target, purpose: "remove again" });
    }
    throw new UsageError(
      `${kept[0]!.path} exists: carte import never overwrites a file; the files it had written were removed again`,
    );
  }
  return [
    ...files.map((f) => ({ path: f.path, status: unchanged.has(f.path) ? "unchanged" : "created" }) as const),
    ...companions.map((f) => ({ path: f.path, status: "created" }) as const),
  ];
}
