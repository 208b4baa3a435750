/**
 * Change-scoped plans (`carte plan --scope changed --base REF`): which stores, and which
 * kinds of each store, the difference between the base's files and the head's can touch. The answer
 * comes from the two desired states, not from the list of changed files: each store's resolved desired
 * state is compared kind by kind (`ResourceKind.select`), so that any layout gives the right scope: a
 * price in one store file touches that store's items; a shared catalog touches the stores that use
 * it; carte.yaml `defaults:`, a group's `defaults:` or an included file touch the stores they reach;
 * `ownership:` touches the kind in every store. What the files' difference cannot touch is neither
 * read nor planned: drift there is left to the full plan (the scheduled drift check).
 */

import { realpathSync } from "node:fs";
import { realpath } from "node:fs/promises";
import path from "node:path";
import {
  loadProject,
  openIdentityCache,
  openParseCache,
  type LoadedProject,
  type LoadOptions,
  type ParsedFiles,
} from "../config/index.js";
import { relativeTo } from "../config/paths.js";
import { ConfigError } from "../errors.js";
import { clientKinds as clientRegistry, kinds as registry, type KindName } from "../kinds/registry.js";
import type { ClientKind, ResourceKind } from "../kinds/resource-kind.js";
import type { DesiredState, Ownership, StoreState } from "../model.js";
import type { ChangeScope } from "../plan/target.js";
import type { BaseOptions, LoadedBase } from "./base.js";
import {
  changedFiles,
  commitTree,
  findRepository,
  GitObjects,
  resolveCommitIn,
  workTreeStatus,
  writeCommitFiles,
} from "./git.js";
import { shardProject } from "./shard.js";

/** One side of the comparison: a project's desired state and ownership (src/config `LoadedProject`). */
export interface ScopeSide {
  desired: DesiredState;
  ownership: Partial<Record<KindName, Ownership>>;
}

/**
 * Deep equality of plain JSON values that remembers the pairs of objects it compared: the stores of a
 * shared catalog hold the same resource objects (the loader's `shareResources`), so a thousand stores
 * compare each catalog entry once.
 */
function memoEqual(): (a: unknown, b: unknown) => boolean {
  const seen = new WeakMap<object, WeakMap<object, boolean>>();
  const equal = (a: unknown, b: unknown): boolean => {
    if (a === b) return true;
    if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
    let row = seen.get(a);
    const known = row?.get(b);
    if (known !== undefined) return known;
    let result: boolean;
    if (Array.isArray(a) || Array.isArray(b)) {
      result =
        Array.isArray(a) &&
        Array.isArray(b) &&
        a.length === b.length &&
        a.every((v, i) => equal(v, (b as unknown[])[i]));
    } else {
      const ka = Object.keys(a);
      const kb = Object.keys(b);
      result =
        ka.length === kb.length &&
        ka.every(
          (k) =>
            Object.hasOwn(b, k) &&
            equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
        );
    }
    if (!row) {
      row = new WeakMap();
      seen.set(a, row);
    }
    row.set(b, result);
    return result;
  };
  return equal;
}

const ownershipOf = (side: ScopeSide, kind: { name: string; defaultOwnership?: Ownership }): Ownership =>
  side.ownership[kind.name as KindName] ?? kind.defaultOwnership ?? "full";

/** The kinds the files manage in a store: not ignored, and selected by the store's desired state. */
function managedKinds(
  side: ScopeSide,
  want: StoreState,
  kinds: readonly ResourceKind<unknown>[],
): KindName[] {
  return kinds
    .filter((k) => {
      const own = ownershipOf(side, k);
      return own !== "ignore" && k.select(want, own) !== undefined;
    })
    .map((k) => k.name as KindName);
}

/** Options of {@link changeScope}. */
export interface ChangeScopeOptions {
  /** The base as named and the commit it resolved to, recorded in the scope. */
  ref: string;
  sha: string;
  /** Store kinds to compare; default every registered kind. */
  kinds?: readonly ResourceKind<unknown>[];
  /** Client-level kinds to compare; default every registered one. */
  clientKinds?: readonly ClientKind<unknown>[];
  /** How many stores the head's files describe; default the stores of `head.desired`. */
  of?: number;
}

/**
 * The change scope of the head's files against the base's: per store of the head, the kinds whose
 * desired resources or ownership differ from the base's (every managed kind of a store the base does
 * not have, or whose platform store id or `schedules_via` changed); the client-level kinds whose
 * desired state differs; and the stores the base has and the head no longer does (`removed`, with the
 * kinds the base managed there). A store whose files make no difference is not in the scope. Pure.
 */
export function changeScope(base: ScopeSide, head: ScopeSide, options: ChangeScopeOptions): ChangeScope {
  const kinds = options.kinds ?? registry;
  const equal = memoEqual();
  const stores: ChangeScope["stores"] = [];
  const currencyChanged = base.desired.currency !== head.desired.currency;
  for (const key of Object.keys(head.desired.stores).sort()) {
    const want = head.desired.stores[key]!;
    const before = Object.hasOwn(base.desired.stores, key) ? base.desired.stores[key] : undefined;
    let changed: KindName[];
    if (
      !before ||
      currencyChanged ||
      before.store.storeId !== want.store.storeId ||
      before.schedulesVia !== want.schedulesVia
    ) {
      // A new store, another platform store, another currency or another schedules API: all of it.
      changed = managedKinds(head, want, kinds);
    } else {
      changed = [];
      for (const kind of kinds) {
        const own = ownershipOf(head, kind);
        if (own === "ignore") continue;
        const after = kind.select(want, own);
        if (after === undefined) continue; // not managed in the head: never read nor planned there
        const ownBefore = ownershipOf(base, kind);
        const was = ownBefore === "ignore" ? undefined : kind.select(before, ownBefore);
        if (was === undefined || ownBefore !== own || !equal(was, after)) changed.push(kind.name as KindName);
      }
    }
    if (changed.length > 0) stores.push({ store: key, kinds: changed });
  }

  const client: KindName[] = [];
  for (const kind of options.clientKinds ?? clientRegistry) {
    const own = ownershipOf(head, kind);
    if (own === "ignore") continue;
    const after = kind.select(head.desired.client ?? {});
    if (after === undefined) continue;
    const ownBefore = ownershipOf(base, kind);
    const was = ownBefore === "ignore" ? undefined : kind.select(base.desired.client ?? {});
    if (was === undefined || ownBefore !== own || !equal(was, after)) client.push(kind.name as KindName);
  }

  const removed: ChangeScope["removed"] = [];
  for (const key of Object.keys(base.desired.stores).sort()) {
    if (Object.hasOwn(head.desired.stores, key)) continue;
    const was = base.desired.stores[key]!;
    removed.push({
      store: key,
      storeId: was.store.storeId,
      name: was.store.name,
      kinds: managedKinds(base, was, kinds),
    });
  }

  const scope: ChangeScope = {
    base: options.ref,
    sha: options.sha,
    of: options.of ?? Object.keys(head.desired.stores).length,
    stores,
    client,
    removed,
    reads: [],
  };
  scope.reads = scopeReads(scope, kinds);
  return scope;
}

/**
 * The names of the reads (parts of a store's live state, `StoreRead.name`: `menu`, `hours`…) the
 * scope makes, over all its stores, in registry order: what the plan's first line lists.
 */
export function scopeReads(scope: ChangeScope, kinds: readonly ResourceKind<unknown>[] = registry): string[] {
  const wanted = new Set<string>([
    ...scope.stores.flatMap((s) => s.kinds),
    ...scope.removed.flatMap((s) => s.kinds),
  ]);
  const names = new Set<string>();
  for (const kind of kinds) if (wanted.has(kind.name)) for (const read of kind.reads) names.add(read.name);
  return [...names];
}

/**
 * The store files (absolute paths) whose bytes are the base commit's and whose stores the difference
 * cannot reach, when that can be told without parsing them: when every file of the project that
 * differs from the base (`changed`, relative to the project folder: git's changes and the files it does
 * not ignore that are new) is a store file, a store file that is not among them, whose target is not
 * either when it is a link, and that the base has, can only resolve as in the base. A difference in any
 * other file (a catalog, a group, an included settings file, a deleted store file) could reach any
 * store: then none is skipped (`undefined`).
 */
function unchangedStores(
  files: readonly string[],
  changed: ReadonlySet<string>,
  inBase: ReadonlySet<string>,
  root: string,
  realOf: (file: string) => string,
): Set<string> | undefined {
  const stores = new Set(files.map((f) => relativeTo(root, f)));
  for (const rel of changed) if (!stores.has(rel)) return undefined;
  const same = (rel: string) => inBase.has(rel) && !changed.has(rel);
  return new Set(files.filter((f) => same(relativeTo(root, f)) && same(realOf(f))));
}

/** The base's files written out, or why they could not be. */
type Written =
  | { tree: Awaited<ReturnType<typeof writeCommitFiles>>; error: undefined }
  | { tree: undefined; error: unknown };

/** What {@link loadChangeScope} gives: the head's project, the base's, and the scope between them. */
export interface ScopedLoad {
  /**
   * The head's project (the work tree), every file read and checked; with a scope, `desired` holds only
   * the stores whose files differ from the base's (the candidates of the scope; `partial` set).
   */
  project: LoadedProject;
  /** The base as loaded (its store files: those of the candidates and the changed ones only). */
  base: LoadedBase;
  /** `undefined` when the base's files do not load (`base.unavailable`): then nothing is scoped. */
  scope: ChangeScope | undefined;
}

/**
 * Where each file leads, relative to the project's real folder `realRoot` (a file that is a symbolic
 * link to another: git sees the target change), asked once per file, or taken from the loader's check
 * (`known`); a file gone since it was read stands for itself (relative to `root`).
 */
function realPaths(
  root: string,
  realRoot: string,
): {
  realOf: (file: string) => string;
  known: (leads: (file: string) => string | undefined) => void;
} {
  const real = new Map<string, string>();
  let found: (file: string) => string | undefined = () => undefined;
  return {
    realOf: (f) => {
      let r = real.get(f);
      if (r === undefined) {
        try {
          r = relativeTo(realRoot, found(f) ?? realpathSync.native(f));
        } catch {
          r = relativeTo(root, f);
        }
        real.set(f, r);
      }
      return r;
    },
    known: (leads) => (found = leads),
  };
}

/**
 * Loads the head's files and the base's as far as the scope needs, and computes the scope
 * ({@link changeScope}). git names the files that differ between the work tree and the base commit
 * ({@link workTreeStatus}, {@link changedFiles}), and any file the base commit does not have counts as changed; a store can only differ when one of the files its desired state comes from
 * (carte.yaml, its catalog, its group, its store file, the files they include) is among them, so only
 * those stores are resolved in the head and read in the base (with the changed store files, for the
 * stores whose file was deleted). A changed carte.yaml can reach every store: everything is loaded.
 * Every file of the head is still read and checked, as for any plan.
 *
 * @param configPath carte.yaml of the work tree.
 * @param ref the base, a git ref of the repository that holds carte.yaml.
 * @throws {@link ConfigError} when the head's files do not load; {@link UsageError} when the ref names
 *   no commit or git cannot be run. A base whose files do not load is not an error: the head is then
 *   loaded in full, and `scope` is `undefined`.
 */
export async function loadChangeScope(
  configPath: string,
  ref: string,
  options: BaseOptions = {},
): Promise<ScopedLoad> {
  const configFile = path.resolve(configPath);
  const realConfig = await realpath(configFile);
  const repo = await findRepository(path.dirname(configFile), { workspace: options.workspace });
  // One git process reads the base commit's objects for the whole load, started before the head's
  // files fill the heap (each process started copies the parent's page tables).
  const objects = new GitObjects(repo, `--base ${ref}`);
  try {
    return await scopedLoad(configFile, realConfig, ref, objects, options);
  } finally {
    objects.close();
  }
}

/**
 * Loads the base side of a scoped load from the base commit's files written out in `tree` (closed
 * here): the store files the head changed or resolved, or every file when carte.yaml changed. When the
 * base's files do not load, the head in full with `base.unavailable` saying why (`full`).
 */
async function loadBaseSide(
  tree: { dir: string; close: () => Promise<void> },
  side: {
    configFile: string;
    realConfig: string;
    ref: string;
    commit: { sha: string; repo: { top: string } };
    head: LoadedProject;
    changed: ReadonlySet<string>;
    root: string;
    load: LoadOptions;
    everything: boolean;
  },
): Promise<{ base: LoadedProject } | { full: ScopedLoad }> {
  const { configFile, realConfig, ref, commit, head, changed, root, load, everything } = side;
  try {
    const baseConfig = path.join(tree.dir, path.relative(commit.repo.top, realConfig));
    const baseRoot = path.dirname(baseConfig);
    const wanted = new Set([...changed, ...(head.partial?.files ?? []).map((f) => relativeTo(root, f))]);
    const base = await loadProject(baseConfig, {
      ...load,
      shareResources: true,
      ...(everything ? {} : { stores: { read: (f: string) => wanted.has(relativeTo(baseRoot, f)) } }),
    });
    return { base };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const n = err.problems.length;
    const unavailable = `the base's files do not load (${n} configuration problem${n === 1 ? "" : "s"}, e.g. ${err.problems[0]?.message ?? "?"})`;
    // Nothing can be scoped: the head in full, for a full plan.
    const full = await loadProject(configFile, {
      ...(load.now ? { now: load.now } : {}),
      ...(load.platform ? { platform: load.platform } : {}),
      shareResources: true,
    });
    return { full: { project: full, base: { ref, sha: commit.sha, unavailable }, scope: undefined } };
  } finally {
    await tree.close();
  }
}

/** The load options both sides share: the run's clock and its platform of carte.yaml `platforms:`. */
function sidesAlike(options: BaseOptions): Pick<LoadOptions, "now" | "platform"> {
  return {
    ...(options.now ? { now: options.now } : {}),
    ...(options.platform ? { platform: options.platform } : {}),
  };
}

/** {@link loadChangeScope} once its git process runs. */
async function scopedLoad(
  configFile: string,
  realConfig: string,
  ref: string,
  objects: GitObjects,
  options: BaseOptions,
): Promise<ScopedLoad> {
  // The run's clock for time-bound entries, and its platform, on both sides alike (src/time/clock.ts).
  const clock = sidesAlike(options);
  // A file of the base with the bytes of the head's (a catalog, a group) is parsed once.
  const parsed: ParsedFiles = new Map();
  const root = path.dirname(configFile);
  const realRoot = path.dirname(realConfig);
  const repo = objects.repo;
  // The project's folder in the commit's tree (`/` separators; "" at the top).
  const folder = path.relative(repo.top, realRoot).split(path.sep).join("/");
  // git looks at the project's folder alone (what lies outside it is never read).
  // `git status` names the files that differ from HEAD and the untracked ones: with a base that is
  // HEAD's commit (a pull request's branch checked out, `--base HEAD`), all that is asked; else
  // `git diff` against the base names the tracked ones.
  const [commit, headCommit, status] = await Promise.all([
    resolveCommitIn(objects, ref),
    objects.read("HEAD^{commit}"),
    workTreeStatus(repo, folder),
  ]);
  const atHead = headCommit?.type === "commit" && headCommit.oid === commit.sha;
  const [changedPaths, baseTree] = await Promise.all([
    atHead ? status.files : changedFiles(commit, status.untracked, folder),
    commitTree(objects, commit.sha, folder),
  ]);
  // Paths relative to the project folder: git names them under the real top folder, the loader under
  // the folder of carte.yaml as given.
  const changed = new Set(
    changedPaths
      .map((f) => relativeTo(realRoot, f))
      .filter((f) => f !== "" && !f.startsWith("..") && !path.isAbsolute(f)),
  );
  const inBase = new Set([...baseTree.keys()].map((f) => f.split("/").join(path.sep)));
  const everything = changed.has(path.basename(realConfig));
  // Big files (the catalog) parsed in earlier runs, kept in .carte/cache/ by content: an entry git knows
  // (committed, in the base or in the changes) came with the files and is never read.
  const cache = openParseCache(root, (rel) => changed.has(rel) || inBase.has(rel));
  // A file the base does not have counts as changed too (one git ignores is not among git's changes).
  const differs = (rel: string) => changed.has(rel) || !inBase.has(rel);
  const { realOf, known } = realPaths(root, realRoot);
  // The store files unchanged since the base, known by their git object from earlier runs: a
  // regular file of the base, at its own path (not reached through a link).
  const identities = cache ? openIdentityCache(cache) : undefined;
  const objectOf = (f: string) => {
    const rel = relativeTo(root, f);
    if (realOf(f) !== rel) return undefined;
    const entry = baseTree.get(rel.split(path.sep).join("/"));
    return entry && (entry.mode === "100644" || entry.mode === "100755") ? entry.oid : undefined;
  };
  const touched = (files: ReadonlySet<string>) => {
    for (const f of files) if (differs(relativeTo(root, f)) || differs(realOf(f))) return true;
    return false;
  };
  // The base's files are written out (read by the git process) while the head loads, as soon
  // as the store files the head reads for their identity alone are known (those are left out); the
  // outcome is held as a value, so that a failure there waits for the head's load to end.
  let writing: Promise<Written> | undefined;
  const writeBase = (leaveOut?: ReadonlySet<string>) => {
    const files = new Set([...(leaveOut ?? [])].map((f) => relativeTo(root, f).split(path.sep).join("/")));
    writing = writeCommitFiles(objects, baseTree, folder, files).then(
      (tree) => ({ tree, error: undefined }),
      (error: unknown) => ({ tree: undefined, error }),
    );
  };
  if (everything) writeBase();
  let head: LoadedProject;
  try {
    head = await loadProject(configFile, {
      ...clock,
      parsed,
      ...(cache ? { cache } : {}),
      shareResources: true,
      stores: {
        resolve: everything ? () => true : touched,
        ...(everything
          ? {}
          : {
              unchanged: (files, leads) => {
                // Where each store file leads, as the loader's check found it: asked once.
                known(leads);
                const same = unchangedStores(files, changed, inBase, root, realOf);
                writeBase(same);
                return same;
              },
              ...(identities ? { known: { objectOf, cache: identities } } : {}),
            }),
      },
    });
  } catch (err) {
    if (writing) await (await writing).tree?.close();
    throw err;
  }
  if (!writing) writeBase();
  await identities?.save();
  const written = await writing!;
  if (!written.tree) throw written.error;
  const loaded = await loadBaseSide(written.tree, {
    configFile,
    realConfig,
    ref,
    commit,
    head,
    changed,
    root,
    load: { ...clock, parsed, ...(cache ? { cache } : {}) },
    everything,
  });
  if ("full" in loaded) return loaded.full;
  const base = options.shard ? shardProject(loaded.base, options.shard) : loaded.base;
  const sharded = options.shard ? shardProject(head, options.shard) : head;
  const of = head.partial?.stores ?? Object.keys(head.desired.stores).length;
  const scope = changeScope(base, sharded, { ref, sha: commit.sha, of });
  return { project: head, base: { ref, sha: commit.sha, project: base }, scope };
}
