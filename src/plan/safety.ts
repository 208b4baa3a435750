/**
 * Safety guards: checks on a finished plan that refuse it when it changes too much at once, the way
 * octoDNS refuses plans above its update and delete thresholds. They judge the plan, not the command,
 * so that `plan`, `apply` and the GitHub Action refuse the same plans. A refusal is overridden only
 * with `--force` and a `--reason`, which the plan records.
 *
 * Guards:
 * - `no_stores`: the configuration names no store (a bad `stores:` pattern, a deleted folder).
 * - `max_delete_percent` / `max_update_percent`: a store would lose or change more than the share of
 *   the resources it has now (only for stores with at least `min_existing` resources).
 * - `empties_store`: every item of a store that has items would be deleted (an emptied catalog).
 * - `empties_menu`: a menu would be left with no category, or only with empty categories.
 * - `protected`: a resource matching a protected address pattern would be deleted.
 * - `closes_stores`: a store would be switched from open to closed (it stops taking orders).
 * - `max_price_change_percent`: a price (of an item or option, or of an option inside a parent) would
 *   change by more than the share of its current price (a 10× typo); the items are named. Computed on
 *   exact decimals (src/money.ts).
 *
 * Which changes trip which guard is the kinds' to say (src/kinds/guards.ts `KindGuards`): the
 * percentages compare the changes of the kinds that count (the catalog: items, modifier groups,
 * categories, menus) with the resources of those kinds a store has, store settings (hours, webhooks, …)
 * left out; the guards only one kind's changes can trip are that kind's. This module runs them in the
 * order of the guards and names no kind.
 */

import type { CurrentState } from "../model.js";
import { GUARDS, type SafetyPolicy } from "../safety-policy.js";
import { kindNamed, kinds } from "../kinds/registry.js";
import { matchAddress } from "./target.js";
import type { Plan, ResourceChange, SafetyVerdict, SafetyViolation } from "./types.js";

export { DEFAULT_SAFETY, type SafetyPolicy } from "../safety-policy.js";
export type { SafetyVerdict, SafetyViolation } from "./types.js";

/** The resources of the kinds that count ({@link KindGuards.count}) that a store holds now. */
function countResources(store: CurrentState["stores"][string]): number {
  return kinds.reduce((n, k) => n + (k.guards?.count?.(store) ?? 0), 0);
}

/** Whether a change counts in the percentage guards: its kind counts its resources. */
const counted = (c: ResourceChange) => kindNamed(c.kind)?.guards?.count !== undefined;

function pct(n: number, of: number): string {
  return `${Math.round((n / of) * 1000) / 10} %`;
}

/**
 * The changes of a store that the per-store guards judge: all but those of the kinds the guards leave
 * out (`KindGuards.exempt`).
 */
export function judgedChanges<C extends ResourceChange>(changes: readonly C[]): C[] {
  return changes.filter((c) => kindNamed(c.kind)?.guards?.exempt !== true);
}

/** Evaluates every guard on a plan and the current state it was computed from. Pure. */
export function evaluateSafety(plan: Plan, current: CurrentState, policy: SafetyPolicy): SafetyVerdict {
  const byStore = new Map<string, ResourceChange[]>();
  for (const c of judgedChanges(plan.changes)) {
    const list = byStore.get(c.store);
    if (list) list.push(c);
    else byStore.set(c.store, [c]);
  }
  const perStore: SafetyViolation[] = [];
  for (const [store, changes] of byStore) {
    const have = current.stores[store];
    if (have) perStore.push(...storeViolations(store, changes, have, policy));
  }
  return safetyVerdict(plan, perStore);
}

/**
 * The verdict on a plan given the violations of its stores ({@link storeViolations}, in the order of
 * the stores in the plan): the plan-wide guards (`no_stores`, those one change trips wherever it is:
 * `closes_stores`) first, then the stores'. Pure. The planner judges each store as it plans it, so
 * that it needs no store's state afterwards.
 */
export function safetyVerdict(plan: Plan, perStore: readonly SafetyViolation[]): SafetyVerdict {
  const violations: SafetyViolation[] = [];
  // A change scope may leave every store out (no store's files changed): the files still name stores.
  if (plan.stores.length === 0 && (plan.targeting?.scope?.of ?? 0) === 0) {
    violations.push({
      guard: "no_stores",
      message:
        "the configuration names no store: check the stores: pattern in carte.yaml and that the store files exist",
    });
  }
  for (const c of plan.changes) {
    const tripped = kindNamed(c.kind)?.guards?.change?.(c);
    if (tripped) violations.push(tripped);
  }
  violations.push(...perStore);
  return { ok: violations.length === 0, violations };
}

/** `max_delete_percent` and `max_update_percent` of one store. */
function shareViolations(
  store: string,
  changes: readonly ResourceChange[],
  have: CurrentState["stores"][string],
  policy: SafetyPolicy,
): SafetyViolation[] {
  const violations: SafetyViolation[] = [];
  const existing = countResources(have);
  if (existing < policy.minExisting || existing === 0) return violations;
  const countedChanges = changes.filter(counted);
  const deletes = countedChanges.filter((c) => c.action === "delete").length;
  const updates = countedChanges.filter((c) => c.action === "update").length;
  if ((deletes / existing) * 100 > policy.maxDeletePercent) {
    violations.push({
      guard: "max_delete_percent",
      store,
      message: `store[${store}]: the plan deletes ${deletes} of ${existing} resources (${pct(deletes, existing)}), more than max_delete_percent ${policy.maxDeletePercent} %`,
    });
  }
  if ((updates / existing) * 100 > policy.maxUpdatePercent) {
    violations.push({
      guard: "max_update_percent",
      store,
      message: `store[${store}]: the plan changes ${updates} of ${existing} resources (${pct(updates, existing)}), more than max_update_percent ${policy.maxUpdatePercent} %`,
    });
  }
  return violations;
}

/**
 * The per-store guards (`max_delete_percent`, `max_update_percent`, those of the kinds:
 * `empties_store`, `empties_menu`, `max_price_change_percent`; `protected`) on one store's changes,
 * those the guards leave out apart ({@link judgedChanges}), against its current state, in the order of
 * the guards; `currency` (ISO 4217, carte.yaml `currency:`) formats the prices a message names. Pure.
 */
export function storeViolations(
  store: string,
  changes: readonly ResourceChange[],
  have: CurrentState["stores"][string],
  policy: SafetyPolicy,
  currency?: string,
): SafetyViolation[] {
  const ctx = { store, changes, current: have, policy, ...(currency !== undefined ? { currency } : {}) };
  const violations = [
    ...shareViolations(store, changes, have, policy),
    ...kinds.flatMap((k) => k.guards?.store?.(ctx) ?? []),
  ];
  for (const c of changes) {
    if (c.action === "delete" && policy.protected.some((p) => matchAddress(p, c.address))) {
      violations.push({
        guard: "protected",
        store,
        message: `${c.address} is protected (safety.protected in carte.yaml) and the plan deletes it`,
      });
    }
  }
  // In the order of the guards, whichever kind found them (a stable sort keeps each guard's own order).
  const rank = (v: SafetyViolation) => GUARDS.indexOf(v.guard);
  return violations.sort((a, b) => rank(a) - rank(b));
}
