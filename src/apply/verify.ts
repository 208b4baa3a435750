/**
 * Waits until the platform shows what a plan wrote. Writes of the store menu and availability APIs
 * are accepted and applied later (spec §3, §4.4; platform notes "Store menu API"), so an apply is done
 * only when a read shows every planned resource in its planned state. The check uses the plan's own
 * `after` values, so it works the same for a fresh plan and for a saved plan file.
 *
 * It also fails while a duplicate remains (issue 11, item 2): in the stores the plan changed, a copy of
 * a resource the plan changed (two menus of one type, two identical slots, a store listed twice on a
 * webhook, two items with one SKU: the kinds' `duplicates`) is reported, whether it was there before
 * (and the plan's removal did not take) or the apply made it (a create accepted twice).
 */

import { clientKinds, kindNamed } from "../kinds/registry.js";
import type { ClientKind, Limit, ResourceKind } from "../kinds/types.js";
import { address, jsonEqual } from "../kinds/util.js";
import { own, type ClientState, type StoreState } from "../model.js";
import { DEFAULT_PARALLELISM, type PlatformClient } from "../platform/client.js";
import type { Operation, Plan, ResourceChange } from "../plan/types.js";
import type { StageDone } from "./execute.js";
import { readCurrent, type ReadRequest } from "../state/current.js";

/** Options of {@link waitForPlan}. */
export interface VerifyOptions {
  /** Longest wait in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** First pause between reads in milliseconds; doubles up to 2 000. Default 100. */
  intervalMs?: number;
  /** Calls in flight at once. */
  parallelism?: number;
  /**
   * Changes whose stores are checked for duplicates: a duplicate of a resource of one of these changes
   * (same store and kind, the key it copies being a change's key) is reported in
   * {@link VerifyResult.duplicates} as the read that ends the wait shows them (the plan's removals of
   * duplicates are changes: the wait goes on while they do not show). Default none.
   */
  duplicates?: ResourceChange[];
  /**
   * What an earlier read showed ({@link EarlyVerifier}), by store: the kinds all of whose changes (of
   * the plan, in that store) it showed, and the duplicates it showed among those kinds. Those kinds'
   * changes are not waited for again, nor read for duplicates: their duplicates are these. Default none.
   */
  shown?: ReadonlyMap<string, EarlyShown>;
}

/** What an early read of one store showed: see {@link VerifyOptions.shown}. */
export interface EarlyShown {
  kinds: ReadonlySet<ResourceKind<unknown>>;
  duplicates: string[];
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
  for (const kind of new Set(changes.map(kindOf))) {
    const copies = kind.duplicates?.(state) ?? {};
    const keys = new Set(changes.filter((c) => kindOf(c) === kind).map((c) => c.key));
    const selected = select(kind) ?? {};
    for (const [key, copied] of Object.entries(copies)) {
      if (!keys.has(key) && !keys.has(copied)) continue;
      const resource = own(selected, key);
      out.push(address(store, resource === undefined ? kind.name : kind.segment(resource), key));
    }
  }
  return out.sort();
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

/** A store's state as read, with how the plan reaches its schedules (not a read's business). */
function asPlanned(planned: Plan["stores"][number] | undefined, state: StoreState): StoreState {
  const via = planned?.schedulesVia;
  return via ? { ...state, schedulesVia: via } : state;
}

/** Groups store changes by store (client-level changes, store `""`, left out). */
function byStore(changes: readonly ResourceChange[]): Map<string, ResourceChange[]> {
  const out = new Map<string, ResourceChange[]>();
  for (const c of changes) {
    if (c.store === "") continue;
    const list = out.get(c.store);
    if (list) list.push(c);
    else out.set(c.store, [c]);
  }
  return out;
}

function kindOf(change: ResourceChange): ResourceKind<unknown> {
  const kind = kindNamed(change.kind);
  if (!kind) throw new Error(`no resource kind named ${change.kind}`);
  return kind;
}

function clientKindOf(change: ResourceChange): ClientKind<unknown> {
  const kind = clientKinds.find((k) => k.name === change.kind);
  if (!kind) throw new Error(`no client kind named ${change.kind}`);
  return kind;
}

/**
 * Which of a store's changes its current state does not show yet. Each kind's resources are selected
 * once for the store (not once per change).
 */
function stillPending(
  state: StoreState,
  changes: readonly ResourceChange[],
  select: Selector = selector(state),
): ResourceChange[] {
  return changes.filter((ch) => {
    const kind = kindOf(ch);
    const now = own(select(kind), ch.key);
    const initial =
      now === undefined && kind.initial && ch.after !== null ? kind.initial(ch.after) : undefined;
    return !shows(ch, now, initial);
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

/** Whether a resource as read (`now`, or `initial` when a dependent resource is not read) shows a change. */
function shows(ch: ResourceChange, now: unknown, initial: unknown): boolean {
  if (ch.action === "delete") return now === undefined;
  return jsonEqual(now ?? initial, ch.after);
}

/**
 * Polls the stores of the given changes until each shows its planned state or the time is up. The
 * changes are indexed by store once; each round reads only the stores that still have changes to show
 * (and only the kinds of those changes), and checks each store as soon as it is read.
 */
export async function waitForPlan(
  plan: Plan,
  changes: ResourceChange[],
  client: PlatformClient,
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  let interval = options.intervalMs ?? 100;
  const started = Date.now();
  const planStores = new Map(plan.stores.map((s) => [s.key, s]));
  // Changes by store, indexed once; those of a store outside the plan's scope can never show.
  // The kinds an earlier read showed in full are left out of both (their duplicates are that read's).
  const shown = options.shown ?? new Map<string, EarlyShown>();
  const unshown = (c: ResourceChange) => shown.get(c.store)?.kinds.has(kindOf(c)) !== true;
  let pending = byStore(changes.filter(unshown));
  let clientChanges = changes.filter((c) => c.store === "");
  // Stores checked for duplicates: each is read until its own changes show, and its duplicates are
  // those of the read that showed them (or of its first read, when it has no change to wait for).
  const dupScope = byStore((options.duplicates ?? []).filter(unshown));
  const dupUnread = new Set([...dupScope.keys()].filter((k) => planStores.has(k)));
  const duplicates = new Map<string, string[]>();
  const earlyDuplicates = [...shown.values()].flatMap((s) => s.duplicates);
  const left = () => {
    const still = new Set([...[...pending.values()].flat(), ...clientChanges]);
    return changes.filter((c) => still.has(c));
  };
  for (;;) {
    const requests: ReadRequest[] = [];
    for (const key of new Set([...pending.keys(), ...dupUnread])) {
      const s = planStores.get(key);
      if (!s) continue;
      const kinds = [...(pending.get(key) ?? []), ...(dupScope.get(key) ?? [])].map(kindOf);
      requests.push({
        store: { key: s.key, storeId: s.storeId, integrationId: s.key, name: s.name },
        kinds: [...new Set(kinds)],
      });
    }
    const next = new Map<string, ResourceChange[]>();
    for (const [key, list] of pending) if (!planStores.has(key)) next.set(key, list);
    const clientState = await readCurrent(
      client,
      requests,
      (key, state) => {
        const read = asPlanned(planStores.get(key), state);
        const list = pending.get(key);
        const select = selector(read);
        const rest = list ? stillPending(read, list, select) : [];
        if (rest.length > 0) next.set(key, rest);
        const scope = dupScope.get(key);
        if (scope) {
          duplicates.set(key, duplicatesIn(key, read, scope, select));
          if (rest.length === 0) dupUnread.delete(key);
        }
      },
      {
        parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
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
        duplicates: [...earlyDuplicates, ...[...duplicates.values()].flat()].sort(),
        waitedMs,
      };
    }
    await new Promise((r) => setTimeout(r, Math.min(interval, Math.max(0, timeoutMs - waitedMs))));
    interval = Math.min(interval * 2, 2000);
  }
}

/** Options of {@link EarlyVerifier}. */
export interface EarlyOptions {
  /** The concurrency bound the reads share with the executor's calls. */
  limit: Limit;
  /** The changes whose duplicates are looked for, as {@link VerifyOptions.duplicates}. */
  duplicates: readonly ResourceChange[];
}

/**
 * Verifies the parts of a store as soon as every call that touches them has been made, while the
 * executor goes on with later stages (the store menu of every store, once the catalog stages are done,
 * while the schedules, webhooks and store availability are written), sharing the executor's
 * concurrency bound. What such a read shows is handed to {@link waitForPlan} (`shown`), which then
 * reads only the rest.
 *
 * A part of a store (a {@link StoreRead}: the store menu, the hours…) is ready once every operation of
 * the plan that touches it in that store (an address of the store of a kind reading that part; an
 * operation naming the store without an address there: every part) has finished, made for that store
 * (`ok` and carrying its entries). A store one of whose operations finished otherwise is never read
 * early (the verification after the apply decides what to do with it, as without this). A kind is
 * checked early once all its reads are ready, the store has operations still to come, and some
 * change of the plan in the store is of that kind; the early read counts only when it shows every
 * change of the plan of the kinds it read in the store: else the verification after the apply reads
 * them again, as without this.
 */
export class EarlyVerifier {
  /** Operations not yet finished, by store and part. */
  private readonly open = new Map<string, Map<string, number>>();
  /** Operations not yet finished, by store. */
  private readonly left = new Map<string, number>();
  /** Touches (store → part names) of each operation, by id. */
  private readonly touches = new Map<string, Map<string, Set<string>>>();
  private readonly poisoned = new Set<string>();
  private readonly checked = new Map<string, Set<ResourceKind<unknown>>>();
  private readonly changes: Map<string, ResourceChange[]>;
  private readonly dupScope: Map<string, ResourceChange[]>;
  private readonly planStores: Map<string, Plan["stores"][number]>;
  private readonly results = new Map<string, EarlyShown>();
  private readonly reads: Promise<void>[] = [];
  /** Whether an early read failed (its stores are then verified after the apply only). */
  failed = false;

  constructor(
    private readonly plan: Plan,
    private readonly client: PlatformClient,
    private readonly options: EarlyOptions,
  ) {
    this.changes = byStore(plan.changes);
    this.dupScope = byStore(options.duplicates);
    this.planStores = new Map(plan.stores.map((s) => [s.key, s]));
    const byAddress = new Map(plan.changes.map((c) => [c.address, c]));
    const allParts = [...new Set([...this.changes.values()].flat().flatMap((c) => kindOf(c).reads))];
    for (const op of plan.operations) {
      const touched = this.touchesOf(
        op,
        byAddress,
        allParts.map((r) => r.name),
      );
      this.touches.set(op.id, touched);
      for (const [store, parts] of touched) {
        this.left.set(store, (this.left.get(store) ?? 0) + 1);
        let open = this.open.get(store);
        if (!open) this.open.set(store, (open = new Map()));
        for (const p of parts) open.set(p, (open.get(p) ?? 0) + 1);
      }
    }
  }

  /** The parts each store of the operation it touches (every part for a store it names without an address there). */
  private touchesOf(
    op: Operation,
    byAddress: ReadonlyMap<string, ResourceChange>,
    allParts: readonly string[],
  ): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    const add = (store: string, parts: readonly string[]) => {
      let set = out.get(store);
      if (!set) out.set(store, (set = new Set()));
      for (const p of parts) set.add(p);
    };
    for (const a of op.addresses) {
      const c = byAddress.get(a);
      if (!c) {
        // An address no change names: the operation counts as touching every part of its stores.
        for (const s of op.stores) add(s, allParts);
      } else if (c.store !== "") {
        add(
          c.store,
          kindOf(c).reads.map((r) => r.name),
        );
      }
    }
    for (const s of op.stores) if (!out.has(s)) add(s, allParts);
    return out;
  }

  /** To be called after each stage ({@link ExecuteOptions.afterStage}): starts the reads that are due. */
  afterStage(done: readonly StageDone[]): void {
    for (const { op, result, sent } of done) {
      for (const [store, parts] of this.touches.get(op.id) ?? []) {
        if (result.status !== "ok" || !sent.stores.includes(store)) this.poisoned.add(store);
        this.left.set(store, (this.left.get(store) ?? 1) - 1);
        const open = this.open.get(store)!;
        for (const p of parts) open.set(p, open.get(p)! - 1);
      }
    }
    const requests: ReadRequest[] = [];
    for (const [store, changes] of this.changes) {
      const planned = this.planStores.get(store);
      // A store whose calls are all made is verified after the apply, as it would be now anyway.
      if (!planned || this.poisoned.has(store) || (this.left.get(store) ?? 0) === 0) continue;
      const open = this.open.get(store);
      const checked = this.checked.get(store) ?? new Set();
      const kinds = new Set(
        changes
          .map(kindOf)
          .filter((k) => !checked.has(k) && k.reads.every((r) => (open?.get(r.name) ?? 0) === 0)),
      );
      if (kinds.size === 0) continue;
      for (const k of kinds) checked.add(k);
      this.checked.set(store, checked);
      requests.push({
        store: { key: planned.key, storeId: planned.storeId, integrationId: planned.key, name: planned.name },
        kinds: [...kinds],
      });
    }
    if (requests.length === 0) return;
    const kindsOf = new Map(requests.map((r) => [r.store.key, new Set(r.kinds)]));
    const reading = readCurrent(
      this.client,
      requests,
      (key, state) => {
        const kinds = kindsOf.get(key)!;
        const read = asPlanned(this.planStores.get(key), state);
        const select = selector(read);
        const mine = (c: ResourceChange) => kinds.has(kindOf(c));
        // Counts only when every change of the plan of these kinds in the store shows.
        if (stillPending(read, (this.changes.get(key) ?? []).filter(mine), select).length > 0) return;
        const dups = duplicatesIn(key, read, (this.dupScope.get(key) ?? []).filter(mine), select);
        const before = this.results.get(key);
        this.results.set(key, {
          kinds: new Set([...(before?.kinds ?? []), ...kinds]),
          duplicates: [...(before?.duplicates ?? []), ...dups],
        });
      },
      { limit: this.options.limit },
    );
    // A failed read leaves its stores to the verification after the apply, which reads them again
    // (and fails as it always did if the platform still cannot be read): no store counts as shown
    // without a read that showed it.
    this.reads.push(
      reading.then(
        () => undefined,
        () => {
          this.failed = true;
        },
      ),
    );
  }

  /**
   * Waits for the early reads; resolves to what they showed, by store ({@link VerifyOptions.shown}): a
   * copy, which reads still in flight after a failed one no longer change.
   */
  async shown(): Promise<Map<string, EarlyShown>> {
    await Promise.all(this.reads);
    return new Map(this.results);
  }
}
