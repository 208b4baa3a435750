/**
 * The safety guards' settings (carte.yaml `safety:`), their defaults, and what a guard reports: read by
 * the loader (src/config/load.ts), judged by the planner's guards (src/plan/safety.ts) and by the kinds
 * whose changes trip them (src/kinds/guards.ts). Here, below all three, so that the loader depends on
 * no part of the planner and no kind on the loader.
 */

/** The guards' settings (carte.yaml `safety:`). Percentages are 0–100. */
export interface SafetyPolicy {
  maxDeletePercent: number;
  maxUpdatePercent: number;
  minExisting: number;
  protected: string[];
  /** Largest change of one price, in percent of its current price (0 excluded). */
  maxPriceChangePercent: number;
}

/** Defaults of {@link SafetyPolicy}, as documented in schemas/config/project.schema.json. */
export const DEFAULT_SAFETY: SafetyPolicy = {
  maxDeletePercent: 30,
  maxUpdatePercent: 30,
  minExisting: 10,
  protected: [],
  maxPriceChangePercent: 50,
};

/**
 * The guards, in the order a plan lists what they found: the plan-wide ones first, then, per store,
 * those of one store (src/plan/safety.ts).
 */
export const GUARDS = [
  "no_stores",
  "closes_stores",
  "max_delete_percent",
  "max_update_percent",
  "empties_store",
  "empties_menu",
  "max_price_change_percent",
  "protected",
] as const;

/** A guard's name, as plans and messages write it. */
export type GuardName = (typeof GUARDS)[number];

/** What one guard found: part of a plan's verdict (docs/plan-format.md). */
export interface SafetyViolation {
  guard: GuardName;
  /** Store key, when the guard concerns one store. */
  store?: string;
  /** What tripped, with the numbers. */
  message: string;
  /**
   * `max_price_change_percent`: the prices that jump, by item SKU, and the parent it is priced inside
   * for an option's price in a parent; so that the CLI can name where each is written (file:line:col).
   */
  prices?: { sku: string; parent?: string }[];
}
