/**
 * The steps behind `carte plan` and `carte apply`: fetch → plan (pure) → safety → execute → verify.
 * src/run/run.ts sequences them into the one path the CLI and the GitHub Action share. No output here:
 * callers render the results.
 */

import { keptCategoryIds } from "../state/pairing.js";
import { applyPairingCheck, checkPlanPairings, type IdentitySite } from "../state/pairings.js";
import { didYouMean } from "../suggest.js";
import { quote } from "../config/quote.js";
import type { LoadedProject } from "../config/index.js";
import { holidayDates, holidayMisses, holidayMissProblems, type HolidayMiss } from "../config/holidays.js";
import {
  ConfigError,
  ConvergenceError,
  StalePlanError,
  UnsafePlanError,
  UsageError,
  type ConfigProblem,
} from "../errors.js";
import { clientKinds, kinds } from "../kinds/registry.js";
import { address } from "../kinds/util.js";
import type { KindName } from "../kinds/registry.js";
import { own, table, type CurrentState, type DesiredState, type Ownership } from "../model.js";
import { executePlanFully, type ApplyEvent } from "../apply/execute.js";
import { isComplete, type ApplyReport } from "../apply/report.js";
import { settleEffect } from "../apply/settle.js";
import { byStore, verifyRequest, verifyState, waitForPlan } from "../apply/verify.js";
import {
  changesByStage,
  countChanges,
  stageProject,
  storesInScope,
  type StageOutcome,
} from "../apply/rollout.js";
import type { RolloutStage } from "../config/rollout.js";
import { planOnly } from "../gitops/reviewed.js";
import { createPlanner } from "../plan/plan.js";
import { desiredChecksum, digestMemo } from "../plan/checksum.js";
import { changeDifferences, describeDifferences } from "../plan/compare.js";
import { clientDigest, storeDigest } from "../plan/digest.js";
import { findEndpoint, isSynchronous } from "../plan/endpoints.js";
import type { Operation } from "../plan/types.js";
import { resetSecret } from "../platform/webhooks.js";
import { isTargeted, matchAddress, matchStore, type Targeting } from "../plan/target.js";
import { DEFAULT_PARALLELISM } from "../platform/client.js";
import type { Plan } from "../plan/types.js";
import { escapeTerminal } from "../render/escape.js";
import { prepareSecretSink, secretCollector, type SecretSink } from "./secrets.js";
import type { Session } from "./session.js";
import {
  fetchCurrent,
  projectReads,
  readCurrent,
  storeBatcher,
  type CurrentStore,
} from "../state/current.js";
import type { Limit, ResourceKind } from "../kinds/types.js";
import { storeOrderedLimit, type OrderedLimit } from "../platform/limit.js";

export { isComplete, type ApplyReport } from "../apply/report.js";

/** Options shared by planning and applying. */
export interface RunOptions {
  /** Stores read or written at once. Default {@link DEFAULT_PARALLELISM}. */
  parallelism?: number;
  /** Longest wait for the platform to show accepted writes, in milliseconds. Default 60 000. */
  convergenceTimeoutMs?: number;
  /** Longest wait before carte concludes that an unsettled asynchronous create did not happen, in ms. */
  settleMs?: number;
  onEvent?: (e: ApplyEvent) => void;
  /** Progress of the reads: `done` of `total` store reads. */
  onStoreRead?: (done: number, total: number) => void;
  /** Limit planning to some stores, kinds or addresses. */
  targeting?: Targeting;
  /**
   * Compute the plan's checksums (`checksums`, docs/plan-format.md), digesting each store as it is read.
   * Needed to save the plan, show it as JSON, compare it with a saved plan, or apply it (the check of
   * each store before its first write, {@link storeGuard}); without them the plan's `checksums` cannot
   * be read (an `InternalError`). Default true.
   */
  checksums?: boolean;
  /**
   * Keep the whole current state read for the plan and return it from {@link planProject} (the
   * comparison with a base ref, a reviewed plan rebuilt from the same read). Default false: each store's
   * state is dropped once it is planned, so memory holds the desired state and the plan only.
   */
  keepCurrent?: boolean;
  /**
   * Where apply keeps the webhook secrets that calls return (src/run/secrets.ts). Without one they are
   * dropped unseen; the shared path (src/run/run.ts) always gives one.
   */
  secrets?: SecretSink;
  /**
   * Called before a store's first write, when that call is ready; rejects to refuse the store (see
   * {@link storeGuard}).
   * Absent: no check.
   */
  beforeStore?: (store: string) => Promise<void>;
  /**
   * The bound of the reads that check an apply, beside the `parallelism` slots of its calls: the read
   * of a store before its first write ({@link storeGuard}; these go first) and the verification of each
   * store once its calls ended ({@link applyPlanReport}). One bound of `parallelism` reads for both,
   * made by {@link checkReads}; absent, each makes its own.
   */
  checks?: OrderedLimit;
  /**
   * Epoch ms after which the apply stops waiting for the platform (the run's `--timeout`): the waits
   * for accepted writes end there at the latest.
   */
  deadline?: number;
  /**
   * Refuse `--target` patterns that name no resource ({@link unmatchedTargets}). Default true; the
   * stages of a rollout plan part of the stores and leave the check to the plan of them all.
   */
  checkTargets?: boolean;
  /**
   * When this run's own plan read each store (epoch ms by store key, {@link planProject} `readAt`), for
   * an apply that follows its plan without waiting for a person (src/run/run.ts: not for a saved plan, nor
   * after a confirmation): {@link storeGuard} takes a store's plan read, made at most
   * {@link PLAN_READ_REUSE_MS} before the store's first call is ready, as its check instead of reading
   * the store again. Absent: every store is read again.
   */
  planReads?: ReadonlyMap<string, number>;
  /**
   * Where each store file writes its integration id, by store key (`LoadedProject.identitySites`): the
   * apply's check of a store's pairing before its first call by integration id names it there.
   */
  identitySites?: ReadonlyMap<string, IdentitySite> | undefined;
}

/**
 * How old the plan's own read of a store may be, in milliseconds, when its first call is ready, for the
 * optimistic check to take it instead of a read of its own ({@link RunOptions.planReads}): 30 s, about
 * twice as long as the plan of 1,000 stores reads (docs/performance.md), so that an apply that follows
 * its plan reads no store again, while a store whose first call waits longer is read again.
 */
export const PLAN_READ_REUSE_MS = 30_000;

/**
 * The desired state limited to the stores that `--store` patterns name (with the project's currency),
 * and with a change scope (`targeting.scope`, `carte plan --scope changed`) to the stores it lists,
 * with the client-level settings only when the scope lists client-level kinds. Throws
 * {@link UsageError} when patterns are given and match no store (a change scope may list none).
 */
export function scopeDesired(desired: DesiredState, targeting: Targeting | undefined): DesiredState {
  const scope = targeting?.scope;
  if (!targeting || (targeting.stores.length === 0 && !scope)) return desired;
  let keys = Object.keys(desired.stores);
  if (targeting.stores.length > 0) {
    keys = keys.filter((k) => targeting.stores.some((p) => matchStore(p, k)));
    if (keys.length === 0 && !scope) {
      throw new UsageError(
        `no store of the configuration matches --store ${withSuggestions(targeting.stores, Object.keys(desired.stores), quote)}; known stores: ${Object.keys(desired.stores).join(", ")}`,
      );
    }
  }
  if (scope) {
    const inScope = new Set(scope.stores.map((s) => s.store));
    keys = keys.filter((k) => inScope.has(k));
  }
  return {
    stores: Object.fromEntries(keys.map((k) => [k, desired.stores[k]!])),
    ...(desired.currency !== undefined ? { currency: desired.currency } : {}),
    ...(scope && scope.client.length > 0 && desired.client && targeting.stores.length === 0
      ? { client: desired.client }
      : {}),
  };
}

/**
 * Reads the live state of the project's stores in scope (`options.targeting.stores`), limited to the
 * parts the project owns (`ownership:`), `options.parallelism` stores at a time. Throws
 * {@link UsageError} when `--store` patterns match no store, `ApiError` when a read fails.
 */
export async function fetchProjectState(
  project: LoadedProject,
  session: Session,
  options: RunOptions = {},
): Promise<CurrentState> {
  const desired = scopeDesired(project.desired, options.targeting);
  const reads = projectReads(desired, project.ownership, options.targeting);
  return fetchCurrent(session.client, reads.requests, {
    parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
    clientKinds: reads.clientKinds,
    onRead: (done, total) => options.onStoreRead?.(done, total),
  });
}

/**
 * Reads the live state of the project's stores in scope (as {@link fetchProjectState}) and plans each
 * store as soon as it is read (the pure planner, src/plan/plan.ts `createPlanner`), keeping no store's
 * state once it is planned unless `keepCurrent`: memory holds the desired state and the plan. The plan
 * is judged by the project's safety guards but not enforced ({@link enforceSafety}).
 *
 * @returns the plan, with `keepCurrent` the current state it was computed from, and `readAt`: when the
 *   plan's read of each store planned was in (epoch ms, by store key), for {@link RunOptions.planReads}.
 * @throws {@link ConfigError} when the files set hours or a closure on a date the store's holidays on
 *   the platform do not contain (before anything is written); {@link UsageError} when `--store` or
 *   `--target` patterns match nothing; `ApiError` when a read fails after its retries.
 */
export async function planProject(
  project: LoadedProject,
  session: Session,
  options: RunOptions = {},
): Promise<{ plan: Plan; current?: CurrentState; readAt: Map<string, number> }> {
  const desired = scopeDesired(project.desired, options.targeting);
  const planner = createPlanner(desired, {
    safety: project.safety,
    ownership: project.ownership,
    ...(isTargeted(options.targeting) ? { targeting: options.targeting } : {}),
    checksums: options.checksums ?? true,
  });
  const targets = options.targeting?.targets ?? [];
  // What later steps need of each store, kept while the stores stream through the planner: the
  // holiday dates it has, and the whole state only when asked for (or to match `--target` patterns).
  const keep = options.keepCurrent === true || targets.length > 0;
  const kept: CurrentState = { stores: table() };
  const problems: ConfigProblem[] = [];
  const misses: HolidayMiss[] = [];
  const reads = projectReads(desired, project.ownership, options.targeting);
  // Stores a change scope lists as removed from the files: read to show what the platform keeps there.
  const removed = new Map(reads.removed.map((r) => [r.store.key, r.kinds]));
  const left = new Map<string, Record<string, number>>();
  const readAt = new Map<string, number>();
  // A few category ids of each store, to check the pairings of the stores the plan addresses by
  // integration id (src/state/pairings.ts), and which store each of those ids belongs to.
  const categories = new Map<string, number[]>();
  const owners = new Map<number, string>();
  const client = await readCurrent(
    session.client,
    [...reads.requests, ...reads.removed],
    (key, state) => {
      const removedKinds = removed.get(key);
      if (removedKinds) {
        left.set(key, resourceCounts(state, removedKinds));
        return;
      }
      readAt.set(key, Date.now());
      if (keep) kept.stores[key] = state;
      const ids = keptCategoryIds(state.ids.categories);
      categories.set(key, ids);
      for (const id of ids) owners.set(id, key);
      // A holiday date the platform does not have would be planned as nothing: refuse it, located in
      // the files, before any write (the store is then not planned).
      const want = own(desired.stores, key);
      const known = holidayDates(state);
      const found = want ? holidayMisses(project, () => known, { stores: { [key]: want } }) : [];
      if (found.length > 0) misses.push(...found);
      else planner.addStore(key, state);
    },
    {
      parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
      clientKinds: reads.clientKinds,
      onRead: (done, total) => options.onStoreRead?.(done, total),
    },
  );
  if (client) kept.client = client;
  // A date written once for many stores (carte.yaml `defaults:`, a group) is one problem.
  problems.push(...holidayMissProblems(misses));
  if (problems.length > 0) throw new ConfigError(problems);
  const plan = planner.finish(client);
  // Before any write: each store the plan addresses by integration id is the store its file names.
  await checkPlanPairings(
    plan,
    {
      client: session.client,
      record: session.pairings,
      sites: project.identitySites,
      parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
    },
    (key) => categories.get(key) ?? [],
    (id) => owners.get(id),
  );
  // The files the plan was made from, so that a stale saved plan names the ones that changed.
  if ((options.checksums ?? true) && Object.keys(project.fileDigests).length > 0)
    plan.checksums.files = Object.fromEntries(
      Object.entries(project.fileDigests).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  const scope = plan.targeting?.scope;
  if (plan.targeting && scope && scope.removed.length > 0) {
    // A copy: the targeting given (a saved plan's) is left as it is.
    plan.targeting = {
      ...plan.targeting,
      scope: { ...scope, removed: scope.removed.map((r) => ({ ...r, left: left.get(r.store) ?? {} })) },
    };
  }
  if (targets.length > 0 && options.checkTargets !== false) {
    const unmatched = unmatchedTargets(targets, desired, kept, project.ownership);
    if (unmatched.length > 0)
      throw new UsageError(
        `no resource of the configuration or the platform matches --target ${withSuggestions(unmatched, knownAddresses(desired, kept, project.ownership), (a) => quote(a, 200))}; ` +
          `addresses look like store[bog-centro].item[BURGER-CLASSIC] or client.client_webhook[STORE_PROVISIONING_STATUS] (see carte plan)`,
      );
  }
  return options.keepCurrent ? { plan, current: kept, readAt } : { plan, readAt };
}

/**
 * Patterns joined for a message, each without a wildcard followed by the closest known name, shown by
 * `show` (`--store` keys, `--target` addresses).
 */
function withSuggestions(
  patterns: readonly string[],
  known: readonly string[],
  show: (name: string) => string,
): string {
  return patterns.map((t) => t + (/[*?]/.test(t) ? "" : didYouMean(t, known, show))).join(", ");
}

/**
 * How many resources of the given kinds a store's read state holds, by address segment (`item`,
 * `modifier_group`, `menu`…), segments with none left out, and resources that go with another one
 * (`ResourceKind.initial`: item availability) not counted.
 */
function resourceCounts(state: CurrentStore, of: readonly ResourceKind<unknown>[]): Record<string, number> {
  const counts = table<number>();
  for (const kind of of) {
    if (kind.initial) continue; // resources that exist alongside others (item availability)
    for (const value of Object.values(kind.select(state) ?? {})) {
      const segment = kind.segment(value);
      counts[segment] = (own(counts, segment) ?? 0) + 1;
    }
  }
  return counts;
}

/**
 * The `--target` patterns that name no resource: neither one the files describe nor one the platform
 * has, in the stores and kinds planned, nor a store itself. A pattern that names a resource already in
 * its planned state matches (it simply has no change).
 */
export function unmatchedTargets(
  targets: readonly string[],
  desired: DesiredState,
  current: CurrentState,
  ownership: Partial<Record<KindName, Ownership>>,
): string[] {
  const addresses = knownAddresses(desired, current, ownership);
  return targets.filter((t) => !addresses.some((a) => matchAddress(t, a)));
}

/**
 * Every address `--target` may name: the stores, and the resources the files describe or the platform
 * has, in the stores and kinds planned (what "did you mean" compares a misspelled address with).
 */
export function knownAddresses(
  desired: DesiredState,
  current: CurrentState,
  ownership: Partial<Record<KindName, Ownership>>,
): string[] {
  const managed = (k: { name: string; defaultOwnership?: Ownership }): boolean =>
    (ownership[k.name as KindName] ?? k.defaultOwnership ?? "full") !== "ignore";
  const addresses: string[] = [];
  for (const [key, want] of Object.entries(desired.stores)) {
    addresses.push(`store[${key}]`);
    const have = own(current.stores, key);
    for (const kind of kinds.filter(managed))
      for (const state of have ? [want, have] : [want]) {
        const selected = kind.select(state) ?? {};
        for (const [k, value] of Object.entries(selected))
          addresses.push(address(key, kind.segment(value), k));
      }
  }
  for (const kind of clientKinds.filter(managed))
    for (const state of [desired.client ?? {}, current.client ?? { ids: {} }])
      for (const k of Object.keys(kind.select(state) ?? {})) addresses.push(`client.${kind.name}[${k}]`);
  return [...new Set(addresses)];
}

/**
 * The bound of the reads that check an apply ({@link RunOptions.checks}): `parallelism` reads at once
 * (default {@link DEFAULT_PARALLELISM}), the checks before a first write (no store named) first, then
 * the verification reads in the order of `stores`. The session needs `parallelism` connections for
 * them beside the calls' (src/run/run.ts opens twice `parallelism` for an apply); once the calls are over,
 * {@link applyPlanReport} widens it to both shares.
 */
export function checkReads(
  parallelism: number = DEFAULT_PARALLELISM,
  stores: readonly string[] = [],
): OrderedLimit {
  const places = new Map(stores.map((s, i) => [s, i]));
  return storeOrderedLimit(parallelism, (key) => places.get(key) ?? places.size);
}

/**
 * The optimistic check of an apply: a function that reads one store (`""`: the
 * client-level resources) as planning read it and rejects when its digest differs from the plan's
 * `checksums.stores[store]`, so that the
 * executor writes nothing to a store that another apply (on another machine, which the lock of
 * src/run/run.ts cannot reach) or a person changed since the plan was made. `undefined` when the plan
 * carries no store digests.
 *
 * With {@link RunOptions.planReads} (an apply right after its own plan), a store whose plan read was in
 * at most {@link PLAN_READ_REUSE_MS} before the check is asked is not read again: that read is the
 * check (the plan's digest is its digest), and a change made after it is not caught before the first
 * write (the verification after the store's calls still reads it). The client-level resources are
 * always read again (one read).
 */
export function storeGuard(
  plan: Plan,
  project: LoadedProject,
  session: Session,
  options: RunOptions = {},
): ((store: string) => Promise<void>) | undefined {
  const digests = plan.checksums.stores;
  if (!digests) return undefined;
  const targeting = plan.targeting ?? options.targeting;
  const desired = scopeDesired(project.desired, targeting);
  // What to read, worked out for each store read (none when every store's plan read stands for its
  // check): the project's reads limited to that store, or to the client-level resources.
  const readsOf = (store: string | undefined) => {
    const stores = table<DesiredState["stores"][string]>();
    const want = store === undefined ? undefined : own(desired.stores, store);
    if (store !== undefined && want) stores[store] = want;
    return projectReads({ ...desired, stores }, project.ownership, targeting);
  };
  // Ahead of the verification reads sharing the bound: a store's check holds up its calls. Stores
  // checked at the same moment (their first calls became ready together, src/apply/execute.ts) share
  // one read.
  const lane = options.checks ?? checkReads(options.parallelism);
  const limit: Limit = (fn) => lane(fn);
  const readStore = storeBatcher(session.client, { limit });
  const planReads = options.planReads;
  return async (store) => {
    const expected = own(digests, store);
    if (expected === undefined) return;
    const readAt = store === "" ? undefined : planReads?.get(store);
    if (readAt !== undefined && Date.now() - readAt <= PLAN_READ_REUSE_MS) return;
    if (store === "") {
      // The client-level resources (client webhooks).
      const current = await fetchCurrent(session.client, [], {
        limit,
        clientKinds: readsOf(undefined).clientKinds,
      });
      if (clientDigest(current.client) !== expected) {
        throw new StalePlanError(
          "the client-level settings changed on the platform since the plan was made, so none of their " +
            "calls was made; run `carte plan` again and review it",
        );
      }
      return;
    }
    const request = readsOf(store).requests[0];
    if (!request) return;
    if (storeDigest(await readStore(request)) !== expected) {
      throw new StalePlanError(
        "the store changed on the platform since the plan was made (another apply, or an edit), so none " +
          "of its calls was made; run `carte plan` again and review it",
      );
    }
  };
}

/**
 * Refuses a plan that trips a safety guard, unless forced with a reason, which is then recorded in the
 * plan (`safety.override`). Throws {@link UnsafePlanError} (exit code 3).
 */
export function enforceSafety(plan: Plan, force: { reason: string } | undefined): void {
  if (plan.safety.ok || plan.safety.override) return;
  if (force) {
    plan.safety.override = { reason: force.reason };
    return;
  }
  // One line per guard: messages quote store keys and addresses, escaped so that none spans a line.
  const lines = plan.safety.violations.map((v) => escapeTerminal(`  - ${v.guard}: ${v.message}`));
  throw new UnsafePlanError(
    plan.safety.violations[0]!.guard,
    `the plan trips ${lines.length} safety guard${lines.length === 1 ? "" : "s"}:\n${lines.join("\n")}\n` +
      `Nothing was changed. If this is intended, run again with --force --reason "why" ` +
      `(the reason is recorded in the plan), or adjust safety: in carte.yaml.`,
  );
}

/** Stores or files named in full in a stale plan's message; past this many, the first ones and how many more. */
const STORES_NAMED = 5;

/**
 * Names for a message, after their noun (`store`/`stores`): all of them when few, else the first ones
 * and how many more (`stores "a", "b", "c", "d", "e" and 3 more`), each written by `show`.
 */
function namedList(noun: string, names: readonly string[], show: (name: string) => string): string {
  const shown = names.slice(0, STORES_NAMED).map(show);
  const more = names.length - shown.length;
  return `${noun}${names.length === 1 ? "" : "s"} ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

/** A list of store keys for a message ({@link namedList}). */
function storeList(keys: readonly string[]): string {
  return namedList("store", keys, (k) => JSON.stringify(k));
}

/**
 * Which stores changed on the platform between a saved plan and a fresh one, by their digests (the
 * client-level settings under the key ""), in words: `store "pz-sur" changed`.
 */
function changedStores(saved: Plan, fresh: Plan): string {
  const before = saved.checksums.stores ?? {};
  const after = fresh.checksums.stores ?? {};
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const changed = [...keys].filter((k) => k !== "" && own(before, k) !== own(after, k)).sort();
  const client =
    own(before, "") !== own(after, "") && (Object.hasOwn(before, "") || Object.hasOwn(after, ""));
  const parts = [
    ...(changed.length > 0 ? [`${storeList(changed)} changed`] : []),
    ...(client ? ["the client-level settings changed"] : []),
  ];
  return parts.length > 0 ? parts.join("; ") : "another apply or a person edited it";
}

/**
 * Which stores' files changed between a saved plan and the files now, in words, from the per-store
 * digests of the desired state (`checksums.desiredStores`): stores changed, added to or removed from
 * the files; the client-level settings (carte.yaml `client:`) when no store did.
 */
function changedDesired(saved: Plan, project: LoadedProject, targeting: Targeting | undefined): string {
  const before = saved.checksums.desiredStores;
  const desired = scopeDesired(project.desired, targeting);
  if (!before) return "the plan was saved by an earlier carte, which does not say which stores";
  const memo = digestMemo();
  const keys = Object.keys(desired.stores).sort();
  const changed = keys.filter(
    (k) => Object.hasOwn(before, k) && own(before, k) !== storeDigest(own(desired.stores, k), memo),
  );
  const added = keys.filter((k) => !Object.hasOwn(before, k));
  const removed = Object.keys(before)
    .filter((k) => !Object.hasOwn(desired.stores, k))
    .sort();
  const parts = [
    ...(changed.length > 0 ? [`the files of ${storeList(changed)} changed`] : []),
    ...(added.length > 0 ? [`${storeList(added)} added to the files`] : []),
    ...(removed.length > 0 ? [`${storeList(removed)} no longer in the files`] : []),
    ...changedFiles(saved.checksums.files, project.fileDigests),
  ];
  return parts.length > 0 ? parts.join("; ") : `the client-level settings of ${project.configFile} changed`;
}

/**
 * The files that changed, appeared or went since a saved plan was made, in words (`catalogs/menu.yaml
 * changed`), from the plan's file digests and the files read now; nothing when the plan has no digests.
 * Paths are quoted (they come from the files and from the plan file) and at most {@link STORES_NAMED}
 * are named per part.
 */
function changedFiles(
  before: Readonly<Record<string, string>> | undefined,
  now: Readonly<Record<string, string>>,
): string[] {
  if (!before) return [];
  const paths = (list: string[]) => namedList("file", list, (p) => quote(p, 200));
  const mine = Object.keys(now).sort();
  const changed = mine.filter((p) => Object.hasOwn(before, p) && own(before, p) !== own(now, p));
  const added = mine.filter((p) => !Object.hasOwn(before, p));
  const gone = Object.keys(before)
    .filter((p) => !Object.hasOwn(now, p))
    .sort();
  return [
    ...(changed.length > 0 ? [`${paths(changed)} changed`] : []),
    ...(added.length > 0 ? [`${paths(added)} new`] : []),
    ...(gone.length > 0 ? [`${paths(gone)} no longer read`] : []),
  ];
}

/**
 * Plans afresh for a saved plan (`carte apply FILE`) and returns the fresh plan, the one to carry out,
 * when it makes exactly the saved plan's changes; else refuses. The saved plan's operations are never
 * used: a plan file with a valid digest may still have been written by someone else (docs/security.md,
 * "Saved plans"), so what it holds is only compared, change by change ({@link changeDifferences}:
 * addresses, actions, the states before and after). The fresh plan is planned for the saved plan's
 * targeting (its stores, kinds and change scope) and is judged by the safety guards like any plan
 * ({@link enforceSafety}, called by the caller); the saved plan's verdict and override count for nothing.
 *
 * @throws {@link StalePlanError} when the files changed since the plan was saved (before any read), when
 *   the platform did, or when the fresh plan's changes are not the saved plan's (the message names the
 *   first addresses that differ and how); what {@link planProject} throws.
 */
export async function checkSavedPlan(
  saved: Plan,
  project: LoadedProject,
  session: Session,
  options: RunOptions = {},
): Promise<Plan> {
  const targeting = saved.targeting ?? options.targeting;
  if (desiredChecksum(scopeDesired(project.desired, targeting)) !== saved.checksums.desired) {
    throw new StalePlanError(
      `the configuration changed since this plan was saved (${changedDesired(saved, project, targeting)}); ` +
        "nothing was applied. Run `carte plan --out FILE` again and review it",
    );
  }
  const { plan } = await planProject(project, session, {
    ...options,
    ...(targeting ? { targeting } : {}),
    checksums: true,
  });
  const differences = changeDifferences(saved.changes, plan.changes);
  const listed = differences.length > 0 ? `; ${describeDifferences(differences)}` : "";
  if (plan.checksums.current !== saved.checksums.current) {
    // The files are those of the plan and the platform already shows them (the plan was applied, by
    // this run's earlier attempt or another): nothing is left to do, which is not a failure. Terraform
    // refuses such a plan as stale; carte lets a retried CI job end well, and says so.
    if (plan.changes.length === 0 && (plan.rotateSecrets ?? []).length === 0) {
      plan.alreadyApplied = true;
      return plan;
    }
    throw new StalePlanError(
      `the platform changed since this plan was saved (${changedStores(saved, plan)})${listed}; nothing was applied. ` +
        "Run `carte plan --out FILE` again and review it",
    );
  }
  if (differences.length > 0) {
    throw new StalePlanError(
      "the saved plan's changes are not those a fresh plan makes from the same files and platform state " +
        `(edited after carte saved it, or saved by another version of carte)${listed}; nothing was applied. ` +
        "Run `carte plan --out FILE` again and review it",
    );
  }
  return plan;
}

/**
 * Makes the plan's calls, then waits until the platform shows every change whose calls succeeded and
 * no duplicate among the resources the plan changed. A call whose answer was lost is settled by
 * reading its own effect (src/apply/settle.ts); an asynchronous create left unsettled is watched until
 * its effect shows or the wait ends, so that the next plan does not make it again. Failed calls are
 * reported in the result, never thrown. Throws {@link ConvergenceError} only when every call succeeded
 * but the platform did not show the result, or still showed a duplicate, within the wait.
 */
export async function applyPlan(
  plan: Plan,
  session: Session,
  options: RunOptions = {},
): Promise<ApplyReport> {
  const report = await applyPlanReport(plan, session, options);
  if (
    report.failed === 0 &&
    report.skipped === 0 &&
    (report.refused ?? []).length === 0 &&
    (report.pending.length > 0 || (report.duplicates ?? []).length > 0)
  ) {
    throw new ConvergenceError(report.pending, report.waitedMs, report.duplicates);
  }
  return report;
}

/**
 * After the last call of an apply: waits for the asynchronous creates whose answer was lost and which
 * were not made again, so that the apply ends with the platform settled (a next plan made while one is
 * still pending would create it again), and updates their results with what the platform showed. So
 * too for the asynchronous calls that succeeded in stores where another call failed: the verification
 * leaves those stores out, yet the next plan must not run ahead of them. A call made without the
 * entries of some stores is watched for the entries it carried. `until`: the end of the wait for the
 * platform; `started`: when the apply began (for the messages), both in ms since the epoch.
 */
async function settleLostAnswers(
  plan: Plan,
  client: Session["client"],
  executed: Pick<Awaited<ReturnType<typeof executePlanFully>>, "results" | "refused" | "sent">,
  wait: { until: number; started: number; settleMs: number },
): Promise<void> {
  const { results, refused, sent } = executed;
  const { until, started } = wait;
  const opOf = new Map(plan.operations.map((o) => [o.id, o]));
  const sentOf = (id: string): Operation => sent.get(id) ?? opOf.get(id)!;
  const failedStores = new Set(
    results.filter((r) => r.status !== "ok").flatMap((r) => r.failedStores ?? opOf.get(r.id)?.stores ?? []),
  );
  for (const r of refused) failedStores.add(r.store);
  const asynchronous = (op: Operation) => {
    const spec = findEndpoint(op.endpoint);
    return spec !== undefined && !isSynchronous(spec);
  };
  await Promise.all(
    results
      .filter(
        (r) =>
          r.unsettled ||
          (r.status === "ok" &&
            asynchronous(sentOf(r.id)) &&
            sentOf(r.id).stores.some((s) => failedStores.has(s))),
      )
      .map(async (r) => {
        const op = sentOf(r.id);
        // A lost answer is waited for until the end of the wait for the platform; an accepted call in a
        // failed store only for the settle window: its effect may never show (it can refer to a resource
        // whose call failed), and the next plan reads the store anyway.
        const bound = r.unsettled ? until : Math.min(until, Date.now() + wait.settleMs);
        const seen = await settleEffect(plan, op, client, Math.max(0, bound - Date.now())).catch(
          (err: unknown) => `unknown (${err instanceof Error ? err.message : String(err)})`,
        );
        if (!r.unsettled) return;
        delete r.unsettled;
        if (seen === "present") {
          r.status = "ok";
          r.message = `the answer was lost; the platform showed the change ${Date.now() - started} ms after the apply began`;
        } else if (seen !== "absent") {
          r.message = `${r.message}; outcome unknown: ${seen === "partial" ? "the platform showed part of it" : seen}`;
        } else {
          r.message = `${r.message}; the platform still did not show it when the apply ended: the next plan shows whether it arrived`;
        }
      }),
  );
}

/**
 * The apply's check of a store before its first call by integration id: none for a pairing the plan
 * showed (or an earlier run recorded), else {@link applyPairingCheck}, waiting for the categories the
 * apply creates in the store up to the settle window.
 */
function pairingGuard(plan: Plan, session: Session, options: RunOptions): (store: string) => Promise<void> {
  const check = applyPairingCheck(
    plan,
    {
      client: session.client,
      record: session.pairings,
      sites: options.identitySites,
      parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
    },
    Math.min(options.settleMs ?? 5_000, Math.max(0, (options.deadline ?? Infinity) - Date.now())),
  );
  const ids = new Map(plan.stores.map((s) => [s.key, s.storeId]));
  return async (store) => {
    const storeId = ids.get(store);
    if (storeId !== undefined && session.pairings?.has(storeId, store)) return;
    await check(store);
  };
}

/**
 * {@link applyPlan} without the {@link ConvergenceError}: the changes the platform did not show, and
 * the duplicates it still shows, are in the report (`pending`, `duplicates`) whether or not a call
 * failed. Used by the stages of a rollout, whose report names the stage that did not converge.
 */
export async function applyPlanReport(
  plan: Plan,
  session: Session,
  options: RunOptions = {},
): Promise<ApplyReport> {
  const client = session.client;
  const collector = options.secrets ? secretCollector(options.secrets) : undefined;
  const started = Date.now();
  // Each store whose calls all succeeded is verified as soon as its last call ended, while the calls of
  // later stores go on: the reads have a bound of their own (`checks`) beside the calls'. A store its
  // read does not show complete yet (an asynchronous write still processing) is left to the wait after
  // the last call.
  const checks =
    options.checks ??
    checkReads(
      options.parallelism,
      plan.stores.map((s) => s.key),
    );
  const early = earlyVerification(plan, client, checks);
  const executed = await executePlanFully(plan, client, {
    parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
    onStoreDone: early.storeDone,
    ...(options.settleMs !== undefined ? { settleMs: options.settleMs } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(collector ? { onResponse: collector } : {}),
    ...(options.beforeStore ? { beforeStore: options.beforeStore } : {}),
    beforeByIntegration: pairingGuard(plan, session, options),
    settle: (op, waitMs) => settleEffect(plan, op, client, waitMs),
    // The secret of a create whose answer was lost: rotated, and kept like an answer's.
    recoverSecret: async (op) => {
      const event = String(op.params?.event ?? "");
      const answer = await resetSecret(client, event);
      if (collector) await collector(op, answer);
      return options.secrets ? options.secrets.where(event) : "nowhere (no secrets sink was given)";
    },
  });
  // The calls are over: the checks still to make (stores that a call for many stores served, such as
  // an item availability call of up to 100 items, end together with it) may use the calls' connections
  // too. The bound is put back when the apply ends (the stages of a rollout share it).
  const narrow = checks.widen(2 * (options.parallelism ?? DEFAULT_PARALLELISM));
  try {
    return await verifyApplied(plan, client, executed, { early, checks, started, options });
  } finally {
    narrow();
  }
}

/**
 * The end of {@link applyPlanReport} once its calls are made: the wait for the answers that were lost
 * ({@link settleLostAnswers}), the early verification's results, the verification of what is left
 * ({@link waitForPlan}), and the report.
 */
async function verifyApplied(
  plan: Plan,
  client: Session["client"],
  executed: Awaited<ReturnType<typeof executePlanFully>>,
  context: {
    early: ReturnType<typeof earlyVerification>;
    checks: Limit;
    /** When the apply began, ms since the epoch. */
    started: number;
    options: RunOptions;
  },
): Promise<ApplyReport> {
  const { results, refused, sent } = executed;
  const { early, checks, started, options } = context;
  const waitMs = Math.max(
    0,
    Math.min(options.convergenceTimeoutMs ?? 60_000, (options.deadline ?? Infinity) - Date.now()),
  );
  const until = Date.now() + waitMs;
  await settleLostAnswers(plan, client, executed, {
    until,
    started,
    settleMs: options.settleMs ?? 5_000,
  });

  // Verify what the successful calls carried, except in stores where some call failed or was skipped:
  // their state is unknown until the next plan, which shows what is left. Duplicates are looked for in
  // every store the plan changed.
  // A call for several stores that failed for some of them only (made again store by store) carried
  // the others' changes: those stores are verified as after a successful call.
  const carried = new Map<string, Operation>();
  const troubled = new Set<string>();
  const opOf = new Map(plan.operations.map((o) => [o.id, o]));
  for (const r of results) {
    const op = opOf.get(r.id)!;
    if (r.status === "ok") carried.set(r.id, sent.get(r.id) ?? op);
    else if (r.failedStores && sent.has(r.id)) carried.set(r.id, sent.get(r.id)!);
    if (r.status !== "ok") for (const s of r.failedStores ?? op.stores) troubled.add(s);
  }
  for (const r of refused) troubled.add(r.store);
  const shown = await early.results();
  // The addresses the successful calls carried, of the stores still to verify (client-level too).
  const left = (store: string) => !troubled.has(store) && !shown.has(store);
  const applied = new Set(
    [...carried.values()]
      .filter((o) => o.stores.length === 0 || o.stores.some(left))
      .flatMap((o) => o.addresses),
  );
  const toVerify = plan.changes.filter((c) => left(c.store) && applied.has(c.address));
  const verify = await waitForPlan(plan, toVerify, client, {
    timeoutMs: Math.max(0, until - Date.now()),
    limit: checks,
    duplicates: plan.changes.filter((c) => c.store !== "" && !shown.has(c.store)),
  });
  let duplicates = [...verify.duplicates, ...[...shown.values()].flat()];
  const failed = results.filter((r) => r.status !== "ok").length;
  if (verify.pending.length > 0 || failed > 0 || refused.length > 0) {
    // An apply that did not converge says why, duplicates first: a store verified as soon as its calls
    // ended, or whose changes showed in an early round, was read before the copies another apply made
    // at the same moment arrived. Every store the plan changed is read once more for them.
    const again = await waitForPlan(plan, [], client, {
      timeoutMs: 0,
      limit: checks,
      duplicates: plan.changes.filter((c) => c.store !== ""),
      // A read that fails adds nothing: the report says what is left all the same.
    }).catch(() => undefined);
    duplicates = [...duplicates, ...(again?.duplicates ?? [])];
  }
  const report: ApplyReport = {
    operations: results,
    failed: results.filter((r) => r.status === "failed").length,
    skipped: results.filter((r) => r.status === "skipped").length,
    pending: verify.pending,
    duplicates: [...new Set(duplicates)].sort(),
    refused,
    waitedMs: verify.waitedMs,
  };
  return report;
}

/**
 * The verification of each store as soon as its calls ended ({@link applyPlanReport}): `storeDone`
 * (the executor's `onStoreDone`) reads a store whose calls all succeeded once, within `checks`, stores
 * ending within {@link EARLY_BATCH_MS} of each other in one batch (src/state/current.ts
 * `storeBatcher`); `results` waits for those reads and gives, per store whose read showed every change
 * of the plan, the duplicates that read showed (as {@link waitForPlan} would). A store not shown
 * complete, or whose read failed, is not in the result: the wait after the last call reads it again,
 * and reports what it still does not show or the error.
 */
function earlyVerification(
  plan: Plan,
  client: Session["client"],
  checks: Limit,
): { storeDone: (store: string, clean: boolean) => void; results: () => Promise<Map<string, string[]>> } {
  const changes = byStore(plan.changes);
  const entries = new Map(plan.stores.map((s) => [s.key, s]));
  const readStore = storeBatcher(client, { limit: checks, windowMs: EARLY_BATCH_MS });
  const reads: Promise<[string, string[]] | undefined>[] = [];
  return {
    storeDone: (store, clean) => {
      const entry = entries.get(store);
      const own = changes.get(store);
      if (!clean || !entry || !own) return;
      reads.push(
        readStore(verifyRequest(entry, own)).then(
          // The store arrives in its own turn (src/state/current.ts storeBatcher hands each store over
          // as the reader does, one at a time): it is compared in that same turn.
          (state): [string, string[]] | undefined => {
            // Every change of the store: one no call carried (none is expected) keeps the store for
            // the wait after the last call, which verifies only what the calls carried.
            const seen = verifyState(entry, state, own, own);
            return seen.pending.length === 0 ? [store, seen.duplicates] : undefined;
          },
          // Not lost: the store is read again by the wait after the last call, which reports the error.
          () => undefined,
        ),
      );
    },
    results: async () => new Map((await Promise.all(reads)).filter((r) => r !== undefined)),
  };
}

/**
 * How long the verification of a store whose calls ended waits for others to end, in milliseconds,
 * so that their reads are one batch (one webhook list, one store status call per 100 stores).
 */
const EARLY_BATCH_MS = 20;

/** Options of {@link applyStages}. */
export interface StagesOptions extends RunOptions {
  /** Where the webhook secrets the calls return go; each stage proves it can keep its own first. */
  sink: SecretSink;
  /**
   * Apply in each stage only the changes the (whole) plan shows, even when a fresh plan of the stage
   * finds more: set when the plan was limited to reviewed changes (src/gitops/reviewed.ts).
   */
  onlyPlanned?: boolean;
}

/** What {@link applyStages} did. */
export interface StagesResult {
  /** Every stage's calls and verification joined, with {@link ApplyReport.stages}. */
  report: ApplyReport;
  /** Events whose webhook secret the platform made but that could not be kept (src/run/secrets.ts). */
  lostSecrets: string[];
}

/**
 * The canary rollout: applies a plan stage by stage, in the order of carte.yaml
 * `rollout:`, and stops at the first stage that is not complete ({@link isComplete}: a failed or
 * skipped call, a refused store, a change the platform does not show, a duplicate) or that lost a
 * webhook secret; the later stages are reported `not_run` with what they would have changed.
 *
 * Each stage with changes is planned again from a fresh read of its own stores (and, for the first
 * stage, the client-level settings): what the earlier stages did is then known (a webhook event a
 * canary store created is joined, not created again). The plan's own digests of each store
 * (`checksums.stores`, as read for the plan that was shown and confirmed) guard every first write
 * ({@link storeGuard}): a store that changed since that plan is refused, and the rollout stops there.
 * The safety guards judged the whole plan before this is called; the lock of the run covers every
 * stage.
 *
 * @returns the joined report (never a {@link ConvergenceError}: a stage that did not converge is
 *   `failed`), and the secrets lost.
 * @throws what planning the first stage with changes (or preparing the secrets sink for it) throws:
 *   nothing was written then. Once a stage wrote, any error (planning a later stage, preparing its
 *   sink, an error while its calls are made) ends the rollout as a `failed` stage carrying the message.
 */
export async function applyStages(
  plan: Plan,
  project: LoadedProject,
  stages: readonly RolloutStage[],
  session: Session,
  options: StagesOptions,
): Promise<StagesResult> {
  const byStage = changesByStage(plan, stages);
  const outcomes: StageOutcome[] = [];
  const reports: ApplyReport[] = [];
  const lost: string[] = [];
  let stopped = false;
  for (const [i, stage] of stages.entries()) {
    const planned = byStage.get(stage.name) ?? [];
    const base = { name: stage.name, stores: storesInScope(plan, stage) };
    if (planned.length === 0) {
      outcomes.push({ ...base, status: "unchanged", changes: countChanges([]) });
      continue;
    }
    if (stopped) {
      outcomes.push({ ...base, status: "not_run", changes: countChanges(planned) });
      continue;
    }
    const scoped = stageProject(project, stage, i === 0);
    const failed = (err: unknown) => {
      outcomes.push({
        ...base,
        status: "failed",
        changes: countChanges(planned),
        error: err instanceof Error ? err.message : String(err),
      });
      stopped = true;
    };
    let stagePlan: Plan;
    let prepared: Awaited<ReturnType<typeof prepareSecretSink>>;
    let guard: ((store: string) => Promise<void>) | undefined;
    try {
      const targeting = plan.targeting ?? options.targeting;
      const fresh = await planProject(scoped, session, {
        ...options,
        ...(targeting ? { targeting } : {}),
        checksums: true,
        checkTargets: false,
        keepCurrent: options.onlyPlanned === true,
      });
      stagePlan =
        options.onlyPlanned && fresh.current
          ? planOnly(
              scoped,
              fresh.current,
              fresh.plan,
              planned.map((c) => c.address),
            )
          : fresh.plan;
      // The digests of the plan that was shown: a store changed since is refused at its first write.
      if (plan.checksums.stores) stagePlan.checksums.stores = plan.checksums.stores;
      guard = storeGuard(stagePlan, scoped, session, options);
      // Each stage proves, before its first call, that the sink can keep the secrets it will get.
      prepared = await prepareSecretSink(stagePlan, options.sink);
    } catch (err) {
      // Nothing of this stage was written; before any stage wrote, the run ends with the error itself.
      if (reports.length === 0) throw err;
      failed(err);
      continue;
    }
    let report: ApplyReport;
    try {
      report = await applyPlanReport(stagePlan, session, {
        ...options,
        secrets: prepared.sink,
        ...(guard ? { beforeStore: guard } : {}),
      });
    } catch (err) {
      // Some calls of the stage may have been made: the next plan shows what is left.
      failed(err);
      continue;
    }
    const stageLost = await prepared.finish(report.operations);
    lost.push(...stageLost);
    reports.push(report);
    const complete = isComplete(report) && stageLost.length === 0;
    outcomes.push({
      ...base,
      status: complete ? "applied" : "failed",
      changes: countChanges(stagePlan.changes),
      calls: report.operations.length,
    });
    if (!complete) stopped = true;
  }
  const report: ApplyReport = {
    operations: reports.flatMap((r) => r.operations),
    failed: reports.reduce((n, r) => n + r.failed, 0),
    skipped: reports.reduce((n, r) => n + r.skipped, 0),
    pending: reports.flatMap((r) => r.pending),
    duplicates: reports.flatMap((r) => r.duplicates ?? []),
    refused: reports.flatMap((r) => r.refused ?? []),
    waitedMs: reports.reduce((n, r) => n + r.waitedMs, 0),
    stages: outcomes,
  };
  return { report, lostSecrets: [...new Set(lost)] };
}
