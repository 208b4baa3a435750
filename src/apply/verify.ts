/**
 * Waits until the platform shows what a plan wrote. Writes of the store menu and availability APIs
 * are accepted and applied later (spec §3, §4.4; platform notes "Store menu API"), so an apply is done
 * only when a read shows every planned resource in its planned state. The check uses the plan's own
 * `after` values, so it works the same for a fresh plan and for a saved plan file.
 */

import { clientKinds, kindNamed } from "../kinds/registry.js";
import type { ClientKind, ResourceKind } from "../kinds/types.js";
import { jsonEqual } from "../kinds/util.js";
import type { ClientState, StoreState } from "../model.js";
import { DEFAULT_PARALLELISM, type PlatformClient } from "../platform/client.js";
import type { Plan, ResourceChange } from "../plan/types.js";
import { readCurrent, type ReadRequest } from "../state/current.js";

/** Options of {@link waitForPlan}. */
export interface VerifyOptions {
  /** Longest wait in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** First pause between reads in milliseconds; doubles up to 2 000. Default 100. */
  intervalMs?: number;
  /** Calls in flight at once. */
  parallelism?: number;
}

/** Result of {@link waitForPlan}: the addresses that still differ (empty when converged). */
export interface VerifyResult {
  pending: string[];
  waitedMs: number;
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
function stillPending(state: StoreState, changes: readonly ResourceChange[]): ResourceChange[] {
  const selected = new Map<ResourceKind<unknown>, Record<string, unknown> | undefined>();
  return changes.filter((ch) => {
    const kind = kindOf(ch);
    if (!selected.has(kind)) selected.set(kind, kind.select(state));
    const now = selected.get(kind)?.[ch.key];
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
    return !shows(ch, selected.get(kind)?.[ch.key], undefined);
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
  // Changes by store; those of a store outside the plan's scope can never show.
  let pending = new Map<string, ResourceChange[]>();
  let clientChanges: ResourceChange[] = [];
  for (const ch of changes) {
    if (ch.store === "") clientChanges.push(ch);
    else {
      const list = pending.get(ch.store);
      if (list) list.push(ch);
      else pending.set(ch.store, [ch]);
    }
  }
  const left = () => {
    const still = new Set([...[...pending.values()].flat(), ...clientChanges]);
    return changes.filter((c) => still.has(c));
  };
  for (;;) {
    const requests: ReadRequest[] = [];
    for (const [key, list] of pending) {
      const s = planStores.get(key);
      if (!s) continue;
      requests.push({
        store: { key: s.key, storeId: s.storeId, integrationId: s.key, name: s.name },
        kinds: [...new Set(list.map(kindOf))],
      });
    }
    const next = new Map<string, ResourceChange[]>();
    for (const [key, list] of pending) if (!planStores.has(key)) next.set(key, list);
    const clientState = await readCurrent(
      client,
      requests,
      (key, state) => {
        const via = planStores.get(key)?.schedulesVia;
        const rest = stillPending(via ? { ...state, schedulesVia: via } : state, pending.get(key)!);
        if (rest.length > 0) next.set(key, rest);
      },
      {
        parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
        clientKinds: [...new Set(clientChanges.map(clientKindOf))],
      },
    );
    if (clientChanges.length > 0) clientChanges = clientPending(clientState ?? {}, clientChanges);
    pending = next;
    const waitedMs = Date.now() - started;
    if ((pending.size === 0 && clientChanges.length === 0) || waitedMs >= timeoutMs) {
      // In the order the changes were given.
      return { pending: left().map((c) => c.address), waitedMs };
    }
    await new Promise((r) => setTimeout(r, Math.min(interval, Math.max(0, timeoutMs - waitedMs))));
    interval = Math.min(interval * 2, 2000);
  }
}
