/**
 * Steps "read" and "plan" of the library: the project's stores in scope read from the platform and
 * each planned as soon as it is read (the pure planner, src/plan/plan.ts), the `--store` and `--target`
 * patterns checked against what the files and the platform hold, and the safety guards enforced. No
 * output here: callers render the results.
 */

import { keptCategoryIds } from "../state/pairing.js";
import { checkPlanPairings } from "../state/pairings.js";
import { didYouMean } from "../suggest.js";
import { quote } from "../source/quote.js";
import type { LoadedProject } from "../config/index.js";
import {
  holidayDates,
  holidayMisses,
  holidayMissProblems,
  type HolidayMiss,
} from "../config/holiday-dates.js";
import { CommandLineError, ConfigError, UnsafePlanError, type ConfigProblem } from "../errors.js";
import { clientKinds, kinds } from "../kinds/registry.js";
import { address } from "../plain-data.js";
import type { KindName } from "../kinds/registry.js";
import { own, table, type CurrentState, type DesiredState, type Ownership } from "../model.js";
import { createPlanner } from "../plan/plan.js";
import { isTargeted, matchAddress, matchStore, type Targeting } from "../plan/target.js";
import { DEFAULT_PARALLELISM } from "../platform/client.js";
import type { Plan } from "../plan/types.js";
import { escapeTerminal } from "../render/escape.js";
import type { Session } from "./session.js";
import { fetchCurrent, projectReads, readCurrent, type CurrentStore } from "../state/current.js";
import type { ResourceKind } from "../kinds/resource-kind.js";
import { type RunOptions } from "./options.js";

/**
 * The desired state limited to the stores that `--store` patterns name (with the project's currency),
 * and with a change scope (`targeting.scope`, `carte plan --scope changed`) to the stores it lists,
 * with the client-level settings only when the scope lists client-level kinds. Throws
 * {@link CommandLineError} when patterns are given and match no store (a change scope may list none).
 */
export function scopeDesired(desired: DesiredState, targeting: Targeting | undefined): DesiredState {
  const scope = targeting?.scope;
  if (!targeting || (targeting.stores.length === 0 && !scope)) return desired;
  let keys = Object.keys(desired.stores);
  if (targeting.stores.length > 0) {
    keys = keys.filter((k) => targeting.stores.some((p) => matchStore(p, k)));
    if (keys.length === 0 && !scope) {
      throw new CommandLineError(
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
 * {@link CommandLineError} when `--store` patterns match no store, `ApiError` when a read fails.
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
 *   the platform do not contain (before anything is written); {@link CommandLineError} when `--store`
 *   or `--target` patterns match nothing; `ApiError` when a read fails after its retries.
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
      const found = want
        ? holidayMisses(project, () => known, { stores: { [key]: want } }, session.countryOf)
        : [];
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
      throw new CommandLineError(
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
