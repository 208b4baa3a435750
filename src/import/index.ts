/**
 * `carte import`: the live state of some stores written as carte's files (docs/import.md). Like
 * octoDNS's `dump`, it lets a chain start from what it already has.
 *
 * The pipeline, with I/O only at the ends:
 *
 * ```
 * readLiveStores(client) ─► sanitizeStates ─► factorStores ─► render ─► verifyFiles ─► writeImport
 *                            (what the files    (shared catalogs,  (YAML)  (load again,
 *                             cannot say: notes)  store overrides)          compare)
 * ```
 *
 * Each kind contributes through its part in src/import/registry.ts.
 */

import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";
import { globFiles } from "../config/glob.js";
import { UsageError } from "../errors.js";
import type { ProjectFile } from "../generated/config.js";
import { kinds as registeredKinds } from "../kinds/registry.js";
import type { ResourceKind } from "../kinds/types.js";
import type { StoreIdentity, StoreState } from "../model.js";
import type { PlatformClient } from "../platform/client.js";
import { fetchCurrent } from "../state/current.js";
import { factorStores, type ImportedCatalog } from "./factor.js";
import { importParts } from "./registry.js";
import { catalogText, projectText, storeText } from "./render.js";
import { sanitizeStates, type ImportNote } from "./sanitize.js";
import type { ImportPart } from "./types.js";
import { verifyFiles, type ImportFile } from "./verify.js";

export { factorStores } from "./factor.js";
export type { Factoring, ImportedCatalog, ImportedStore } from "./factor.js";
export { sanitizeStates } from "./sanitize.js";
export type { ImportNote } from "./sanitize.js";
export type { ImportFile } from "./verify.js";
export { importParts } from "./registry.js";

/** Platform store ids: positive decimal integers. */
const STORE_ID = /^[1-9][0-9]*$/;

/**
 * The stores named on the command line. Each argument is a platform store id or, for a store of the
 * loaded carte.yaml, its integration id; comma lists are split. A store of carte.yaml keeps its
 * integration id and name; any other store id gets integration id `store-<id>` and name `Store <id>`
 * (the platform's menu API answers carry neither).
 *
 * @throws {@link UsageError} for an argument that is neither, or when no store is named.
 */
export function resolveStoreArgs(
  args: readonly string[],
  configured: readonly StoreIdentity[],
): StoreIdentity[] {
  const names = args
    .flatMap((a) => a.split(","))
    .map((a) => a.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new UsageError("name the stores to import with --store ID (repeat it or use a comma list)");
  const out = new Map<string, StoreIdentity>();
  for (const name of names) {
    const known = configured.find((s) => s.storeId === name || s.integrationId === name);
    if (known) {
      out.set(known.storeId, known);
      continue;
    }
    if (!STORE_ID.test(name)) {
      throw new UsageError(
        `unknown store "${name}": give a platform store id, or the integration id of a store of carte.yaml`,
      );
    }
    if (!out.has(name))
      out.set(name, {
        key: `store-${name}`,
        storeId: name,
        integrationId: `store-${name}`,
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

/** What an import writes, before it is written. */
export interface ImportResult {
  /** Catalog files, then store files, paths relative to the output folder. */
  files: ImportFile[];
  catalogs: ImportedCatalog[];
  /** What the files cannot express (empty when the import is exact). */
  notes: ImportNote[];
  /** Problems of the written files; always empty unless carte import has a bug. */
  problems: string[];
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
): Promise<ImportResult> {
  const { states: sanitized, notes } = sanitizeStates(states, parts);
  const factoring = factorStores(sanitized, parts);
  const files: ImportFile[] = [
    ...(project ? [{ path: "carte.yaml", text: projectText(project), kind: "project" as const }] : []),
    ...factoring.catalogs.map((c) => ({
      path: `catalogs/${c.name}.yaml`,
      text: catalogText(c.catalog, c.stores),
      kind: "catalog" as const,
    })),
    ...factoring.stores.map((s) => ({
      path: `stores/${s.state.store.integrationId}.yaml`,
      text: storeText(s.file),
      kind: "store" as const,
    })),
  ];
  const byKey = Object.fromEntries(sanitized.map((s) => [s.store.key, s]));
  return { files, catalogs: factoring.catalogs, notes, problems: await verifyFiles(files, byKey, parts) };
}

/** The carte.yaml of an import: the same platform as the one read, the files just written. */
export function projectFor(
  platform: { baseUrl: string; requestsPerSecond?: number } | undefined,
): ProjectFile {
  return {
    version: 1,
    ...(platform
      ? {
          platform: {
            base_url: platform.baseUrl,
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

/** What happened to one file. */
export interface WrittenFile {
  path: string;
  status: "created" | "updated" | "unchanged";
}

/** Writes the files under `outDir` (folders created as needed), leaving identical files untouched. */
export async function writeImport(outDir: string, files: readonly ImportFile[]): Promise<WrittenFile[]> {
  const out: WrittenFile[] = [];
  for (const f of files) {
    const target = path.join(outDir, f.path);
    let before: string | undefined;
    try {
      before = await readFile(target, "utf8");
    } catch {
      before = undefined;
    }
    if (before === f.text) {
      out.push({ path: f.path, status: "unchanged" });
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, f.text);
    out.push({ path: f.path, status: before === undefined ? "created" : "updated" });
  }
  return out;
}

/**
 * The written files that an existing carte.yaml does not pick up with its `stores:` and `catalogs:`
 * patterns (relative to the output folder). Unreadable patterns count as picking up nothing.
 */
export async function filesNotInProject(
  configFile: string,
  files: readonly ImportFile[],
): Promise<ImportFile[]> {
  const root = path.dirname(configFile);
  let data: Record<string, unknown> = {};
  try {
    const parsed: unknown = parse(await readFile(configFile, "utf8"));
    if (parsed && typeof parsed === "object") data = parsed as Record<string, unknown>;
  } catch {
    data = {};
  }
  const matched = new Set<string>();
  for (const key of ["stores", "catalogs"]) {
    const value = data[key];
    const patterns = typeof value === "string" ? [value] : Array.isArray(value) ? value : [];
    for (const p of patterns) {
      if (typeof p !== "string" || p === "") continue;
      for (const f of await globFiles(p, root)) matched.add(path.resolve(f));
    }
  }
  return files.filter((f) => f.kind !== "project" && !matched.has(path.resolve(root, f.path)));
}
