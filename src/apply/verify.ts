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
import type { ClientKind, ResourceKind } from "../kinds/types.js";
import { address, jsonEqual } from "../kinds/util.js";
import type { CurrentState } from "../model.js";
import type { PlatformClient } from "../platform/client.js";
import type { Plan, ResourceChange } from "../plan/types.js";
import { fetchCurrent, type ReadRequest } from "../state/current.js";

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
}

/** Result of {@link waitForPlan}: the addresses that still differ and the duplicates (empty when converged). */
export interface VerifyResult {
  pending: string[];
  /** Addresses of the duplicates the platform still shows (see {@link VerifyOptions.duplicates}). */
  duplicates: string[];
  waitedMs: number;
}

/** The duplicates the current state shows among the resources of the given changes, as addresses. */
export function duplicatesAmong(current: CurrentState, changes: readonly ResourceChange[]): string[] {
  const out: string[] = [];
  const byStore = new Map<string, ResourceChange[]>();
  for (const c of changes) {
    if (c.store === "") continue;
    const list = byStore.get(c.store);
    if (list) list.push(c);
    else byStore.set(c.store, [c]);
  }
  for (const [store, list] of byStore) {
    const state = current.stores[store];
    if (!state) continue;
    for (const kind of new Set(list.map(kindOf))) {
      const copies = kind.duplicates?.(state) ?? {};
      const keys = new Set(list.filter((c) => kindOf(c) === kind).map((c) => c.key));
      const selected = kind.select(state) ?? {};
      for (const [key, copied] of Object.entries(copies)) {
        if (!keys.has(key) && !keys.has(copied)) continue;
        const resource = selected[key];
        out.push(address(store, resource === undefined ? kind.name : kind.segment(resource), key));
      }
    }
  }
  return out.sort();
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

/** Whether the current state shows a change in its planned state. */
function shows(current: CurrentState, ch: ResourceChange, plan: Plan): boolean {
  let now: unknown;
  let initial: unknown;
  if (ch.store === "") {
    now = clientKindOf(ch).select(current.client ?? {})?.[ch.key];
  } else {
    const read = current.stores[ch.store];
    if (!read) return false;
    const via = plan.stores.find((s) => s.key === ch.store)?.schedulesVia;
    const store = via ? { ...read, schedulesVia: via } : read;
    const kind = kindOf(ch);
    now = kind.select(store)?.[ch.key];
    if (now === undefined && kind.initial && ch.after !== null) initial = kind.initial(ch.after);
  }
  if (ch.action === "delete") return now === undefined;
  return jsonEqual(now ?? initial, ch.after);
}

/** Polls the stores of the given changes until each shows its planned state or the time is up. */
export async function waitForPlan(
  plan: Plan,
  changes: ResourceChange[],
  client: PlatformClient,
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  let interval = options.intervalMs ?? 100;
  const started = Date.now();
  const dupScope = options.duplicates ?? [];
  const storeChanges = [...changes, ...dupScope].filter((c) => c.store !== "");
  const requests: ReadRequest[] = plan.stores
    .filter((s) => storeChanges.some((c) => c.store === s.key))
    .map((s) => ({
      store: { key: s.key, storeId: s.storeId, integrationId: s.key, name: s.name },
      kinds: [...new Set(storeChanges.filter((c) => c.store === s.key).map(kindOf))],
    }));
  const clientRead = [...new Set(changes.filter((c) => c.store === "").map(clientKindOf))];
  let pending = changes;
  for (;;) {
    const current = await fetchCurrent(client, requests, {
      parallelism: options.parallelism ?? 8,
      clientKinds: clientRead,
    });
    pending = pending.filter((ch) => !shows(current, ch, plan));
    const duplicates = duplicatesAmong(current, dupScope);
    const waitedMs = Date.now() - started;
    // Once every change shows, a duplicate left is not one this apply is removing (its removals are
    // changes): waiting longer would not make it go.
    if (pending.length === 0 || waitedMs >= timeoutMs) {
      return { pending: pending.map((c) => c.address), duplicates, waitedMs };
    }
    await new Promise((r) => setTimeout(r, Math.min(interval, Math.max(0, timeoutMs - waitedMs))));
    interval = Math.min(interval * 2, 2000);
  }
}
