/**
 * `carte import --merge`: the live state of some stores added to an existing project without touching
 * any of its files (docs/import.md, "Into an existing project").
 *
 * - A store the project's files already manage (by platform store id) is left as it is: when the
 *   platform differs from what its files say, it is reported as a conflict (`carte plan` shows the
 *   differences), never rewritten.
 * - A new store gets a store file that names one of the project's catalogs when that catalog gives its
 *   live state exactly; the others are factored among themselves into new catalogs whose names and
 *   files the project does not use yet.
 * - The project with the new files is loaded in a scratch folder, exactly as `carte plan` loads it
 *   (carte.yaml `defaults:`, includes and all): a new store that the project's defaults would change is
 *   a conflict and is not written either.
 */

import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseDocument } from "yaml";
import { writeFailure, writeFileAtomic } from "../atomic.js";
import { loadProject, type LoadedProject } from "../config/load.js";
import { ConfigError, formatProblem } from "../errors.js";
import { kindNamed } from "../kinds/registry.js";
import { jsonEqual } from "../plain-data.js";
import type { StoreState } from "../model.js";
import type { Currency } from "../money.js";
import type { ImportResult } from "./result.js";
import { differingKinds, factorStores, fitsExactly, storeFileFor, type ImportedCatalog } from "./factor.js";
import { filesNotInProject } from "./patterns.js";
import { importParts } from "./parts.js";
import { catalogText, storeText } from "./render.js";
import { sanitizeStates, type ImportNote } from "./sanitize.js";
import type { ImportPart } from "../kinds/import-types.js";
import type { ImportFile } from "./round-trip.js";

/**
 * The kinds on which a store's files and its live state disagree, among the kinds the files manage
 * there (a setting no layer writes is not managed, and is no conflict).
 */
export function managedDifferences(
  desired: StoreState,
  live: StoreState,
  parts: readonly ImportPart[],
): string[] {
  return parts
    .flatMap((p) => p.kinds)
    .filter((name) => {
      const kind = kindNamed(name);
      const want = kind?.select(desired, "full");
      return want !== undefined && !jsonEqual(want, kind!.select(live, "full") ?? {});
    });
}

/**
 * The new stores the merged project gives back as imported; each store the project's defaults, group
 * or included files would change (`differing`: its key → the kinds that differ, from
 * {@link verifyMerged}) is left out and added to `conflicts` with why.
 */
export function withoutDiffering<S extends { state: StoreState }>(
  written: readonly S[],
  differing: ReadonlyMap<string, readonly string[]>,
  conflicts: { address: string; reason: string }[],
): S[] {
  return written.filter((s) => {
    const differ = differing.get(s.state.store.key);
    if (!differ) return true;
    conflicts.push({
      address: `store[${s.state.store.key}]`,
      reason:
        `the project's defaults, group or includes would change its ${differ.join(", ")}; ` +
        "it is not written (write its file by hand, or import it into an empty folder)",
    });
    return false;
  });
}

/**
 * Plans the files `carte import --merge` adds to the project of `target` for the live `states`, and
 * proves that the project, with them, loads and gives the new stores exactly. Writes nothing.
 */
export async function buildMerge(
  states: readonly StoreState[],
  target: LoadedProject,
  parts: readonly ImportPart[] = importParts,
): Promise<ImportResult> {
  const { states: sanitized, notes } = sanitizeStates(
    states,
    parts,
    target.currency ? { currency: target.currency } : {},
  );
  const conflicts: ImportNote[] = [];
  const managed = new Map(Object.values(target.desired.stores).map((s) => [s.store.storeId, s]));
  const keys = new Set(Object.keys(target.desired.stores));
  const fresh: StoreState[] = [];
  for (const s of sanitized) {
    const known = managed.get(s.store.storeId);
    if (known) {
      const differ = managedDifferences(known, s, parts);
      if (differ.length > 0)
        conflicts.push({
          address: `store[${known.store.key}]`,
          reason:
            `the project's files already manage this store and the platform differs in ${differ.join(", ")}; ` +
            "its files are left as they are (carte plan shows the differences)",
        });
      continue;
    }
    if (keys.has(s.store.key)) {
      conflicts.push({
        address: `store[${s.store.key}]`,
        reason: `another store of the project has integration id ${s.store.key}; store ${s.store.storeId} is not written`,
      });
      continue;
    }
    fresh.push(s);
  }

  // New stores the project's catalogs already give exactly name them; the others get new catalogs.
  const stores: { state: StoreState; file: ImportFile; catalog: string }[] = [];
  const reused = new Map<string, string[]>();
  const rest: StoreState[] = [];
  for (const s of fresh) {
    const hit = [...target.catalogs].find(([name, c]) =>
      fitsExactly(s, storeFileFor(s, c.catalog, name, parts), c.catalog, parts),
    );
    if (!hit) {
      rest.push(s);
      continue;
    }
    const [name, c] = hit;
    stores.push({
      state: s,
      catalog: name,
      file: storeFile(storeFileFor(s, c.catalog, name, parts), target.currency),
    });
    reused.set(name, [...(reused.get(name) ?? []), s.store.key]);
  }
  const taken = new Set(target.catalogs.keys());
  for (const name of await catalogFileNames(target.root)) taken.add(name);
  const factoring = factorStores(rest, parts, taken);
  const catalogs = factoring.catalogs;
  for (const s of factoring.stores) {
    const catalog = catalogs.find((c) => c.stores.includes(s.state.store.key))!;
    stores.push({ state: s.state, catalog: catalog.name, file: storeFile(s.file, target.currency) });
  }

  // A store file that would overwrite one of the project's is a conflict.
  const written = stores.filter((s) => {
    if (!existsSync(path.join(target.root, s.file.path))) return true;
    conflicts.push({
      address: `store[${s.state.store.key}]`,
      reason: `${s.file.path} exists in the project; store ${s.state.store.storeId} is not written`,
    });
    return false;
  });

  // Load the project with the new files, as carte plan will; stores it would change are conflicts.
  const files = filesOf(catalogs, written, target.currency);
  const byKey = new Map(written.map((s) => [s.state.store.key, s.state]));
  const { problems, differing } = await verifyMerged(target, files, byKey, parts);
  const kept = withoutDiffering(written, differing, conflicts);
  const used = new Set(kept.map((s) => s.catalog));
  const keptCatalogs = catalogs.filter((c) => used.has(c.name));
  conflicts.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return {
    files: filesOf(keptCatalogs, kept, target.currency),
    catalogs: keptCatalogs.map((c) => ({
      ...c,
      stores: c.stores.filter((k) => kept.some((s) => s.state.store.key === k)),
    })),
    reused: [...reused]
      .map(([name, list]) => ({
        name,
        stores: list.filter((k) => kept.some((s) => s.state.store.key === k)),
      }))
      .filter((r) => r.stores.length > 0),
    notes,
    conflicts,
    problems,
  };
}

function storeFile(file: Parameters<typeof storeText>[0], currency: Currency | undefined): ImportFile {
  return {
    path: `stores/${file.store.integration_id}.yaml`,
    text: storeText(file, currency),
    kind: "store",
  };
}

function filesOf(
  catalogs: readonly ImportedCatalog[],
  stores: readonly { file: ImportFile }[],
  currency: Currency | undefined,
): ImportFile[] {
  return [
    ...catalogs.map((c) => ({
      path: `catalogs/${c.name}.yaml`,
      text: catalogText(c.catalog, c.stores, currency),
      kind: "catalog" as const,
    })),
    ...stores.map((s) => s.file),
  ];
}

/** Names of the files of `catalogs/` (without `.yaml`) of the project folder, so that none is reused. */
export async function catalogFileNames(root: string): Promise<string[]> {
  const names = await readdir(path.join(root, "catalogs")).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith(".yaml")).map((n) => n.slice(0, -".yaml".length));
}

/**
 * Copies the project's files (every file it reads) and the new files into a scratch folder, loads it
 * as `carte plan` does, and compares each new store with its live state, kind by kind.
 *
 * @param platform - for a project of several platforms: the platform `target` is a load of, whose
 *   stores `states` are; the scratch project is loaded scoped to it.
 * @returns the problems of the load (a bug of carte import if any), and the kinds on which each new
 *   store that does not come out exactly differs.
 */
export async function verifyMerged(
  target: LoadedProject,
  files: readonly ImportFile[],
  states: ReadonlyMap<string, StoreState>,
  parts: readonly ImportPart[],
  platform?: string,
): Promise<{ problems: string[]; differing: Map<string, string[]> }> {
  const differing = new Map<string, string[]>();
  if (files.length === 0) return { problems: [], differing };
  const scratchDir = path.join(tmpdir(), "carte-import-merge-");
  const dir = await mkdtemp(scratchDir).catch((err: unknown) => {
    throw writeFailure(scratchDir, { root: tmpdir(), purpose: "make a scratch folder" }, err);
  });
  try {
    // The project's files keep their places relative to the folder that holds all of them.
    const sources = target.files.map((f) => path.resolve(f));
    const base = commonFolder(target.root, sources);
    const at = (absolute: string) => path.join(dir, path.relative(base, absolute));
    // Scratch copies, thrown away after the check: written under its folder (a file name the
    // platform shaped cannot leave it), without fsync.
    const scratch = { root: dir, purpose: "write a scratch copy of", durable: false };
    for (const source of sources) await writeFileAtomic(at(source), await readFile(source), scratch);
    for (const f of files) await writeFileAtomic(at(path.join(target.root, f.path)), f.text, scratch);
    // Files the project's patterns do not pick up are named in the scratch carte.yaml, as the user is
    // told to add them.
    const config = at(target.configFile);
    const missing = await filesNotInProject(config, files);
    if (missing.length > 0) {
      const doc = parseDocument(await readFile(config, "utf8"), { logLevel: "silent" });
      for (const key of ["stores", "catalogs"] as const) {
        const add = missing.filter((f) => f.kind === key.slice(0, -1)).map((f) => f.path);
        if (add.length === 0) continue;
        const value: unknown = doc.toJS()?.[key];
        const list = typeof value === "string" ? [value] : Array.isArray(value) ? value : [];
        doc.set(key, [...list, ...add]);
      }
      await writeFileAtomic(config, doc.toString(), scratch);
    }
    let desired;
    try {
      // Patterns of the project that match no file yet are its own affair (the user is told which
      // entries to extend): they do not stop the check of the new stores.
      desired = (
        await loadProject(config, {
          allowUnmatchedPatterns: true,
          ...(platform !== undefined ? { platform: { name: platform } } : {}),
        })
      ).desired;
    } catch (err) {
      if (err instanceof ConfigError) return { problems: err.problems.map(formatProblem), differing };
      throw err;
    }
    for (const [key, live] of states) {
      const got = desired.stores[key];
      const differ = got ? differingKinds(got, live, parts) : ["store"];
      if (differ.length > 0) differing.set(key, differ);
    }
    return { problems: [], differing };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The deepest folder that holds `folder` and every given path. */
function commonFolder(folder: string, paths: readonly string[]): string {
  let common = folder;
  for (const p of paths) {
    while (path.relative(common, p).startsWith("..")) common = path.dirname(common);
  }
  return common;
}
