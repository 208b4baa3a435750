/**
 * A change apart from drift (`carte plan --base REF`, the Action on a pull request): the base's files
 * (read from git, src/gitops/git.ts) and the head's files are planned against the same live read, and
 * every change of the head's plan is put on one side:
 *
 * - **this change** (`changes`): the base's files would not make it, or would make it differently; it
 *   is what the branch (the pull request) adds;
 * - **already different on the platform** (`drift`): the base's files would make the very same change
 *   (same action, same state before and after): edits made on the platform by hand, or changes merged
 *   but not applied. Applying the head applies them too.
 *
 * Changes the base's files would make but the head's would not are `settled`: the branch brings the
 * files in line with the platform there.
 */

import { realpath } from "node:fs/promises";
import path from "node:path";
import { loadProject, type LoadedProject } from "../config/index.js";
import { ConfigError } from "../errors.js";
import type { CurrentState } from "../model.js";
import { canonicalJson } from "../plan/checksum.js";
import { buildPlan } from "../plan/plan.js";
import { inTarget } from "../plan/target.js";
import type { Plan, ResourceChange } from "../plan/types.js";
import { projectReads } from "../state/current.js";
import {
  commitTree,
  findRepository,
  GitObjects,
  resolveCommitIn,
  writeCommitFiles,
  type GitCommit,
} from "./git.js";
import { shardProject, type Shard } from "./shard.js";

/** How a plan's changes split against a base (see the module comment). Addresses in plan order. */
export interface BaseSplit {
  /** The base as named (`--base REF`, the pull request's base branch). */
  ref: string;
  /** The commit the ref resolved to. */
  sha: string;
  /** Addresses of the changes this branch makes: the base's files would not make them. */
  changes: string[];
  /** Addresses of the changes the base's files would make too, identically: drift or unapplied changes. */
  drift: string[];
  /** Addresses the base's files would change but this branch leaves as they are on the platform. */
  settled: string[];
  /**
   * Why the base's files could not be planned (they do not load: e.g. the branch adds carte, or the
   * base is broken); every change then counts as this branch's.
   */
  unavailable?: string;
}

/** Options of {@link loadBase} and {@link compareWithBase}. */
export interface BaseOptions {
  /** Limit the base's project to this shard. */
  shard?: Shard | undefined;
  /** The run's clock (time-bound entries, src/time/clock.ts). */
  now?: Date | undefined;
  /** The top of the search for the git repository (src/gitops/safe-git.ts `findRepository`). */
  workspace?: string | undefined;
  /** The one platform of carte.yaml `platforms:` the run is scoped to, on both sides (`LoadOptions.platform`). */
  platform?: { name: string; rehearsal?: boolean } | undefined;
}

/** The base's project as loaded from its commit, or why it could not be. */
export type LoadedBase =
  | { ref: string; sha: string; project: LoadedProject; unavailable?: undefined }
  | { ref: string; sha: string; project?: undefined; unavailable: string };

/**
 * Loads the files of a git ref as a project (read with git, no checkout; src/gitops/git.ts), limited to
 * the shard when one is given. A base whose files do not load is not an error: `unavailable` says why.
 *
 * @param project the head's project (its carte.yaml names the same file in the base's commit).
 * @throws {@link UsageError} when the ref names no commit or git cannot be run.
 */
export async function loadBase(
  project: LoadedProject,
  ref: string,
  options: BaseOptions = {},
): Promise<LoadedBase> {
  const configFile = await realpath(project.configFile);
  const repo = await findRepository(project.root, { workspace: options.workspace });
  // One git process reads the commit, its trees and its files: those of the project's folder only.
  const objects = new GitObjects(repo, `--base ${ref}`);
  let commit: GitCommit;
  let tree: Awaited<ReturnType<typeof writeCommitFiles>>;
  try {
    commit = await resolveCommitIn(objects, ref);
    const folder = path.relative(repo.top, path.dirname(configFile)).split(path.sep).join("/");
    tree = await writeCommitFiles(objects, await commitTree(objects, commit.sha, folder), folder);
  } finally {
    objects.close();
  }
  let base: LoadedProject;
  try {
    base = await loadProject(path.join(tree.dir, path.relative(repo.top, configFile)), {
      // The run's clock, as the head's (time-bound entries, src/time/clock.ts).
      ...(options.now ? { now: options.now } : {}),
      ...(options.platform ? { platform: options.platform } : {}),
      shareResources: true,
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const n = err.problems.length;
    return {
      ref,
      sha: commit.sha,
      unavailable: `the base's files do not load (${n} configuration problem${n === 1 ? "" : "s"}, e.g. ${err.problems[0]?.message ?? "?"})`,
    };
  } finally {
    await tree.close();
  }
  return { ref, sha: commit.sha, project: options.shard ? shardProject(base, options.shard) : base };
}

/** The identity of a change for the comparison: the action and the states before and after. */
const sameChange = (c: ResourceChange) => canonicalJson([c.action, c.before, c.after]);

/**
 * Splits a plan's changes into this branch's and those already different on the platform, by planning
 * the base's files against `current`, the same live read the plan was made from, store by store with
 * the kinds that read covered (so that the base is never compared with a part of a store that was not
 * read).
 *
 * @param project the head's project as planned (already limited to a shard, when sharded).
 * @param plan the head's plan.
 * @param current the live state the plan was computed from.
 * @param ref a git ref of the repository that holds carte.yaml, or the base already loaded
 *   ({@link loadBase}: `carte plan --scope changed` loads it once for the scope and the split).
 * @throws {@link UsageError} when the ref names no commit or git cannot be run; a base whose files do
 *   not load is not an error (see {@link BaseSplit.unavailable}).
 */
export async function compareWithBase(
  project: LoadedProject,
  plan: Plan,
  current: CurrentState,
  ref: string | LoadedBase,
  options: BaseOptions = {},
): Promise<BaseSplit> {
  const loaded = typeof ref === "string" ? await loadBase(project, ref, options) : ref;
  if (loaded.unavailable !== undefined) {
    return {
      ref: loaded.ref,
      sha: loaded.sha,
      changes: plan.changes.map((c) => c.address),
      drift: [],
      settled: [],
      unavailable: loaded.unavailable,
    };
  }
  const base = loaded.project;

  const inScope = new Set(plan.stores.map((s) => s.key));
  const head = {
    stores: Object.fromEntries(Object.entries(project.desired.stores).filter(([k]) => inScope.has(k))),
    ...(project.desired.client ? { client: project.desired.client } : {}),
  };
  // The kinds the plan read in each store (with a change scope, those it lists there).
  const reads = projectReads(head, project.ownership, plan.targeting);
  const kindsOf = new Map(reads.requests.map((r) => [r.store.key, r.kinds]));
  const baseChanges: ResourceChange[] = [];
  for (const key of inScope) {
    const want = base.desired.stores[key];
    if (!want) continue; // a store the branch adds: every change there is its own
    const partial = buildPlan({ stores: { [key]: want } }, current, {
      kinds: kindsOf.get(key) ?? [],
      clientKinds: [],
      ownership: base.ownership,
    });
    baseChanges.push(...partial.changes);
  }
  const clientKinds = reads.clientKinds;
  if (clientKinds.length > 0) {
    const partial = buildPlan({ stores: {}, client: base.desired.client ?? {} }, current, {
      kinds: [],
      clientKinds,
      ownership: base.ownership,
    });
    baseChanges.push(...partial.changes);
  }
  const targeted = plan.targeting;
  const relevant = targeted ? baseChanges.filter((c) => inTarget(targeted, c)) : baseChanges;

  const baseByAddress = new Map(relevant.map((c) => [c.address, sameChange(c)]));
  const headAddresses = new Set(plan.changes.map((c) => c.address));
  const split: BaseSplit = { ref: loaded.ref, sha: loaded.sha, changes: [], drift: [], settled: [] };
  for (const c of plan.changes) {
    (baseByAddress.get(c.address) === sameChange(c) ? split.drift : split.changes).push(c.address);
  }
  split.settled = relevant.filter((c) => !headAddresses.has(c.address)).map((c) => c.address);
  return split;
}
