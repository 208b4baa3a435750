/**
 * The settings of the safety guards (carte.yaml `safety:`) and their defaults, read by the loader
 * (src/config/load.ts) and judged by the guards (src/plan/safety.ts). Here, below both, so that the
 * loader depends on no part of the planner.
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
