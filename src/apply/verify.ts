/**
 * Waits until the platform shows what a plan wrote. Writes of the store menu and availability APIs
 * are accepted and applied later (docs/platform-api.md §4.9, §2.4, §4.3), so an apply is done
 * only when a read shows every planned resource in its planned state. The check uses the plan's own
 * `after` values, so it works the same for a fresh plan and for a saved plan file.
 *
 * It also fails while a duplicate remains, so that an apply never ends well with one: in the stores the plan changed, a copy of
 * a resource the plan changed (two menus of one type, two identical slots, a store listed twice on a
 * webhook, two items with one SKU: the kinds' `duplicates`) is reported, whether it was there before
 * (and the plan's removal did not take) or the apply made it (a create accepted twice).
 */

import { clientKinds, kindNamed } from "../kinds/registry.js";
import type { ClientKind, Limit, ResourceKind } from "../kinds/resource-kind.js";
import { address, jsonEqual } from "../plain-data.js";
import { own, type ClientState, type StoreState } from "../model.js";
import { DEFAULT_PARALLELISM, type PlatformClient } from "../platform/client.js";
import type { Plan, ResourceChange } from "../plan/types.js";
import { readCurrent, type CurrentStore, type ReadRequest } from "../state/current.js";
import { InternalError } from "../errors.js";

/** Options of {@link waitForPlan}. */
export interface VerifyOptions {
  /** Longest wait in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** First pause between reads in milliseconds; doubles up to 2 000. Default 100. */
  intervalMs?: number;
  /** Calls in flight at once. */
  parallelism?: number;
  /** A bound shared with other reads, used instead of one of `parallelism` calls. */
  limit?: Limit;
  /**
   * Changes whose stores are checked for duplicates: a duplicate of a resource of one of these changes
   * (same store and kind, the key it copies being a change's key) is reported in
   * {@link VerifyResult.duplicates} as the read that ends the wait shows them (the plan's removals of
   * duplicates are changes: the wait goes on while they do not show). Default none.
   */
  duplicates?: ResourceChange[];
}

/** Result of {@link waitForPlan}: the addresses that still differ and the duplicates (empty when converged). */
export interface VerifyResult {
  pending: string[];
  /** Addresses of the duplicates the platform still shows (see {@link VerifyOptions.duplicates}). */
  duplicates: string[];
  waitedMs: number;
}

/**
 * The duplicates one store's current state shows among the resources of the given changes of that
 * store, as addresses, sorted.
 */
export function duplicatesIn(
  store: string,
  state: StoreState,
  changes: readonly ResourceChange[],
  select: Selector = selector(state),
): string[] {
  const out: string[] = [];
  for (const [kind, ofKind] of byKind(changes)) {
    const copies = Object.entries(kind.duplicates?.(state) ?? {});
    // Most kinds and stores have no copy: no set of keys, no table selected.
    if (copies.length === 0) continue;
    const keys = new Set(ofKind.map((c) => c.key));
    const selected = select(kind) ?? {};
    for (const [key, copied] of copies) {
      if (!keys.has(key) && !keys.has(copied)) continue;
      const resource = own(selected, key);
      out.push(address(store, resource === undefined ? kind.name : kind.segment(resource), key));
    }
  }
  return out.sort();
}

/** Changes grouped by kind, in the order the kinds first appear (each change's kind found once). */
function byKind(changes: readonly ResourceChange[]): Map<ResourceKind<unknown>, ResourceChange[]> {
  const out = new Map<ResourceKind<unknown>, ResourceChange[]>();
  for (const c of changes) {
    const kind = kindOf(c);
    const list = out.get(kind);
    if (list) list.push(c);
    else out.set(kind, [c]);
  }
  return out;
}

/** A kind's resources in one store's state, selected once per kind (`select` copies them). */
export type Selector = (kind: ResourceKind<unknown>) => Record<string, unknown> | undefined;

function selector(state: StoreState): Selector {
  const selected = new Map<ResourceKind<unknown>, Record<string, unknown> | undefined>();
  return (kind) => {
    if (!selected.has(kind)) selected.set(kind, kind.select(state));
    return selected.get(kind);
  };
}

/** Groups store changes by store (client-level changes, store `""`, left out). */
export function byStore(changes: readonly ResourceChange[]): Map<string, ResourceChange[]> {
  const out = new Map<string, ResourceChange[]>();
  for (const c of changes) {
    if (c.store === "") continue;
    const list = out.get(c.store);
    if (list) list.push(c);
    else out.set(c.store, [c]);
  }
  return out;
}

/** Kinds by the names changes give them, found once per name ({@link kindNamed} walks the registry). */
const kindsByName = new Map<string, ResourceKind<unknown>>();

function kindOf(change: ResourceChange): ResourceKind<unknown> {
  let kind = kindsByName.get(change.kind);
  if (kind) return kind;
  kind = kindNamed(change.kind);
  if (!kind) throw new InternalError(`no resource kind named ${change.kind}`);
  kindsByName.set(change.kind, kind);
  return kind;
}

function clientKindOf(change: ResourceChange): ClientKind<unknown> {
  const kind = clientKinds.find((k) => k.name === change.kind);
  if (!kind) throw new InternalError(`no client kind named ${change.kind}`);
  return kind;
}

/**
 * Which of a store's changes its current state does not show yet. Each kind's resources are selected
 * once for the store (not once per change); a kind that looks one resource up (`lookup`: item
 * availability, whose table holds every item of the store where a plan changes a few) is not selected.
 */
function stillPending(
  state: StoreState,
  changes: readonly ResourceChange[],
  select: Selector = selector(state),
): ResourceChange[] {
  return changes.filter((ch) => {
    const kind = kindOf(ch);
    const now = kind.lookup ? kind.lookup(state, ch.key) : own(select(kind), ch.key);
    const initial =
      now === undefined && kind.initial && ch.after !== null ? kind.initial(ch.after) : undefined;
    return !shows(ch, now, initial, kind.equal);
  });
}

/** Which client-level changes the client's current state does not show yet. */
function clientPending(state: ClientState, changes: readonly ResourceChange[]): ResourceChange[] {
  const selected = new Map<ClientKind<unknown>, Record<string, unknown> | undefined>();
  return changes.filter((ch) => {
    const kind = clientKindOf(ch);
    if (!selected.has(kind)) selected.set(kind, kind.select(state));
    return !shows(ch, own(selected.get(kind), ch.key), undefined);
  });
}

/**
 * Whether a resource as read (`now`, or `initial` when a dependent resource is not read) shows a change:
 * the kind's own equality when it declares one (deep equality's verdict, quicker for its shape).
 */
function shows(
  ch: ResourceChange,
  now: unknown,
  initial: unknown,
  equal?: (a: never, b: never) => boolean,
): boolean {
  if (ch.action === "delete") return now === undefined;
  const seen = now ?? initial;
  if (equal && seen !== undefined && ch.after !== null) return equal(seen as never, ch.after as never);
  return jsonEqual(seen, ch.after);
}

/** A store of a plan (`Plan.stores`). */
type PlanStore = Plan["stores"][number];

/** The read that verifies some changes of one store (and looks for duplicates among them). */
export function verifyRequest(store: PlanStore, changes: readonly ResourceChange[]): ReadRequest {
  return {
    store: { key: store.key, storeId: store.storeId, integrationId: store.key, name: store.name },
    kinds: [...new Set(changes.map(kindOf))],
  };
}

/**
 * What one store's current state, read by {@link verifyRequest}, shows: the changes it does not show
 * yet, and the duplicates among the resources of `duplicateScope` (addresses, sorted).
 */
export function verifyState(
  store: PlanStore,
  state: CurrentStore,
  changes: readonly ResourceChange[],
  duplicateScope: readonly ResourceChange[],
): { pending: ResourceChange[]; duplicates: string[] } {
  const read = store.schedulesVia ? { ...state, schedulesVia: store.schedulesVia } : state;
  const select = selector(read);
  return {
    pending: changes.length > 0 ? stillPending(read, changes, select) : [],
    duplicates: duplicateScope.length > 0 ? duplicatesIn(store.key, read, duplicateScope, select) : [],
  };
}

/**
 * Polls the stores of the given changes until each shows its planned state or the time is up. The
 * changes are indexed by store once; each round reads only the stores that still have changes to show
 * (and only the kinds of those changes), and checks each store as soon as it is read.
 */
export async function waitForPlan(
  plan: Pick<Plan, "stores">,
  changes: ResourceChange[],
  client: PlatformClient,
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  let interval = options.intervalMs ?? 100;
  const started = Date.now();
  const planStores = new Map(plan.stores.map((s) => [s.key, s]));
  // Changes by store, indexed once; those of a store outside the plan's scope can never show.
  let pending = byStore(changes);
  let clientChanges = changes.filter((c) => c.store === "");
  // Stores checked for duplicates: each is read until its own changes show, and its duplicates are
  // those of the read that showed them (or of its first read, when it has no change to wait for).
  const dupScope = byStore(options.duplicates ?? []);
  const dupUnread = new Set([...dupScope.keys()].filter((k) => planStores.has(k)));
  const duplicates = new Map<string, string[]>();
  const left = () => {
    const still = new Set([...[...pending.values()].flat(), ...clientChanges]);
    return changes.filter((c) => still.has(c));
  };
  for (;;) {
    const requests: ReadRequest[] = [];
    for (const key of new Set([...pending.keys(), ...dupUnread])) {
      const s = planStores.get(key);
      if (s) requests.push(verifyRequest(s, [...(pending.get(key) ?? []), ...(dupScope.get(key) ?? [])]));
    }
    const next = new Map<string, ResourceChange[]>();
    for (const [key, list] of pending) if (!planStores.has(key)) next.set(key, list);
    const clientState = await readCurrent(
      client,
      requests,
      (key, state) => {
        const scope = dupScope.get(key);
        const seen = verifyState(planStores.get(key)!, state, pending.get(key) ?? [], scope ?? []);
        if (seen.pending.length > 0) next.set(key, seen.pending);
        if (scope) {
          duplicates.set(key, seen.duplicates);
          if (seen.pending.length === 0) dupUnread.delete(key);
        }
      },
      {
        parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
        ...(options.limit ? { limit: options.limit } : {}),
        clientKinds: [...new Set(clientChanges.map(clientKindOf))],
      },
    );
    if (clientChanges.length > 0) clientChanges = clientPending(clientState ?? {}, clientChanges);
    pending = next;
    const waitedMs = Date.now() - started;
    // Once every change shows, a duplicate left is not one this apply is removing (its removals are
    // changes): waiting longer would not make it go.
    if ((pending.size === 0 && clientChanges.length === 0) || waitedMs >= timeoutMs) {
      return {
        // In the order the changes were given.
        pending: left().map((c) => c.address),
        duplicates: [...duplicates.values()].flat().sort(),
        waitedMs,
      };
    }
    await new Promise((r) => setTimeout(r, Math.min(interval, Math.max(0, timeoutMs - waitedMs))));
    interval = Math.min(interval * 2, 2000);
  }
}
