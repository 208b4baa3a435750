/**
 * Waits until the platform shows what a plan wrote. Writes of the store menu and availability APIs
 * are accepted and applied later (spec §3, §4.4; platform notes "Store menu API"), so an apply is done
 * only when a read shows every planned resource in its planned state. The check uses the plan's own
 * `after` values, so it works the same for a fresh plan and for a saved plan file.
 */

import { kinds } from "../kinds/registry.js";
import type { ResourceKind } from "../kinds/types.js";
import { jsonEqual } from "../kinds/util.js";
import type { StoreIdentity } from "../model.js";
import type { PlatformClient } from "../platform/client.js";
import type { Plan, ResourceChange } from "../plan/types.js";
import { fetchCurrent } from "../state/current.js";

/** Options of {@link waitForPlan}. */
export interface VerifyOptions {
  /** Longest wait in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** First pause between reads in milliseconds; doubles up to 2 000. Default 100. */
  intervalMs?: number;
  /** Stores read at once. */
  parallelism?: number;
}

/** Result of {@link waitForPlan}: the addresses that still differ (empty when converged). */
export interface VerifyResult {
  pending: string[];
  waitedMs: number;
}

function kindOf(change: ResourceChange): ResourceKind<unknown> {
  const name = change.kind === "modifier_group" ? "item" : change.kind;
  const kind = kinds.find((k) => k.name === name);
  if (!kind) throw new Error(`no resource kind named ${change.kind}`);
  return kind;
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
  const storeKeys = new Set(changes.map((c) => c.store));
  const stores: StoreIdentity[] = plan.stores
    .filter((s) => storeKeys.has(s.key))
    .map((s) => ({ key: s.key, storeId: s.storeId, integrationId: s.key, name: s.name }));
  let pending = changes;
  for (;;) {
    const current = await fetchCurrent(client, stores, { parallelism: options.parallelism ?? 8 });
    pending = pending.filter((ch) => {
      const store = current.stores[ch.store];
      if (!store) return true;
      const kind = kindOf(ch);
      const now = kind.select(store)[ch.key];
      if (ch.action === "delete") return now !== undefined;
      return !jsonEqual(now ?? (kind.initial ? kind.initial(ch.after) : undefined), ch.after);
    });
    const waitedMs = Date.now() - started;
    if (pending.length === 0 || waitedMs >= timeoutMs) {
      return { pending: pending.map((c) => c.address), waitedMs };
    }
    await new Promise((r) => setTimeout(r, Math.min(interval, Math.max(0, timeoutMs - waitedMs))));
    interval = Math.min(interval * 2, 2000);
  }
}
