/**
 * What a kind declares about the safety guards its changes trip (src/plan/safety.ts runs them, docs/
 * configuration.md "Safety"): whether its resources count in the shares the percentage guards compare,
 * the guards only its changes can trip (an emptied store, an emptied menu, a price that jumps, a store
 * that closes), and whether the per-store guards leave it out. The guards' names and settings are the
 * planner's (src/safety-policy.ts); which change trips one is the kind's.
 */

import type { StoreState } from "../model.js";
import type { SafetyPolicy, SafetyViolation } from "../safety-policy.js";
import type { KindChange } from "./change.js";

/** What a kind's per-store guards judge: one store's changes, against the store as it is now. */
export interface StoreGuardContext {
  /** The store's key. */
  store: string;
  /** Every change of the store that the per-store guards judge, of every kind, in plan order. */
  changes: readonly KindChange[];
  /** The store's current state, as read for the plan. */
  current: StoreState;
  policy: SafetyPolicy;
  /** ISO 4217 code of the project's prices (carte.yaml `currency:`), to write the prices a message names. */
  currency?: string;
}

/** The safety guards a kind's changes trip. Every member is pure. */
export interface KindGuards {
  /**
   * How many of the kind's resources a store holds now: the share `max_delete_percent` and
   * `max_update_percent` compare a store's deletes and updates with is that of the resources of the
   * kinds that count, and only those kinds' changes are counted in it (the catalog: items, modifier
   * groups, categories, menus). Absent: the kind neither counts nor is counted.
   */
  count?(current: StoreState): number;
  /**
   * The guards a store's changes trip because of this kind (`empties_store` when every item goes,
   * `max_price_change_percent`…), each with a message naming the store. The planner lists them in the
   * order of the guards (src/safety-policy.ts `GUARDS`), whatever the kind.
   */
  store?(ctx: StoreGuardContext): SafetyViolation[];
  /** The plan-wide guard one change of the kind trips wherever it is made (`closes_stores`), if any. */
  change?(change: KindChange): SafetyViolation | undefined;
  /**
   * The per-store guards leave the kind's changes out, `protected` included: items switched on and off
   * are the daily work of a store, not a change of its menu.
   */
  exempt?: boolean;
}
