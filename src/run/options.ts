/**
 * The options of the run's steps (planning, the check before a store's first write, applying and
 * verifying, the stages of a rollout), and the one bound of the reads that check an apply.
 */

import { type IdentitySite } from "../state/pairings.js";
import { type ApplyEvent } from "../apply/execute.js";
import { type Targeting } from "../plan/target.js";
import { DEFAULT_PARALLELISM } from "../platform/client.js";
import { type SecretSink } from "./secrets.js";
import { storeOrderedLimit, type OrderedLimit } from "../platform/limit.js";

/** Options shared by planning and applying. */
export interface RunOptions {
  /** Stores read or written at once. Default {@link DEFAULT_PARALLELISM}. */
  parallelism?: number;
  /** Longest wait for the platform to show accepted writes, in milliseconds. Default 60 000. */
  convergenceTimeoutMs?: number;
  /** Longest wait before carte concludes that an unsettled asynchronous create did not happen, in ms. */
  settleMs?: number;
  onEvent?: (e: ApplyEvent) => void;
  /** Progress of the reads: `done` of `total` store reads. */
  onStoreRead?: (done: number, total: number) => void;
  /** Limit planning to some stores, kinds or addresses. */
  targeting?: Targeting;
  /**
   * Compute the plan's checksums (`checksums`, docs/plan-format.md), digesting each store as it is read.
   * Needed to save the plan, show it as JSON, compare it with a saved plan, or apply it (the check of
   * each store before its first write, `storeGuard` (src/run/store-guard.ts)); without them the plan's `checksums` cannot
   * be read (an `InternalError`). Default true.
   */
  checksums?: boolean;
  /**
   * Keep the whole current state read for the plan and return it from `planProject` (src/run/plan-project.ts) (the
   * comparison with a base ref, a reviewed plan rebuilt from the same read). Default false: each store's
   * state is dropped once it is planned, so memory holds the desired state and the plan only.
   */
  keepCurrent?: boolean;
  /**
   * Where apply keeps the webhook secrets that calls return (src/run/secrets.ts). Without one they are
   * dropped unseen; the shared path (src/run/run.ts) always gives one.
   */
  secrets?: SecretSink;
  /**
   * Called before a store's first write, when that call is ready; rejects to refuse the store (see
   * `storeGuard` (src/run/store-guard.ts)).
   * Absent: no check.
   */
  beforeStore?: (store: string) => Promise<void>;
  /**
   * The bound of the reads that check an apply, beside the `parallelism` slots of its calls: the read
   * of a store before its first write (`storeGuard` (src/run/store-guard.ts); these go first) and the verification of each
   * store once its calls ended (`applyPlanReport` (src/run/apply-plan.ts)). One bound of `parallelism` reads for both,
   * made by {@link checkReads}; absent, each makes its own.
   */
  checks?: OrderedLimit;
  /**
   * Epoch ms after which the apply stops waiting for the platform (the run's `--timeout`): the waits
   * for accepted writes end there at the latest.
   */
  deadline?: number;
  /**
   * Refuse `--target` patterns that name no resource (`unmatchedTargets` (src/run/plan-project.ts)). Default true; the
   * stages of a rollout plan part of the stores and leave the check to the plan of them all.
   */
  checkTargets?: boolean;
  /**
   * When this run's own plan read each store (epoch ms by store key, `planProject` (src/run/plan-project.ts) `readAt`), for
   * an apply that follows its plan without waiting for a person (src/run/run.ts: not for a saved plan, nor
   * after a confirmation): `storeGuard` (src/run/store-guard.ts) takes a store's plan read, made at most
   * `PLAN_READ_REUSE_MS` (src/run/store-guard.ts) before the store's first call is ready, as its check instead of reading
   * the store again. Absent: every store is read again.
   */
  planReads?: ReadonlyMap<string, number>;
  /**
   * Where each store file writes its integration id, by store key (`LoadedProject.identitySites`): the
   * apply's check of a store's pairing before its first call by integration id names it there.
   */
  identitySites?: ReadonlyMap<string, IdentitySite> | undefined;
}

/**
 * The bound of the reads that check an apply ({@link RunOptions.checks}): `parallelism` reads at once
 * (default {@link DEFAULT_PARALLELISM}), the checks before a first write (no store named) first, then
 * the verification reads in the order of `stores`. The session needs `parallelism` connections for
 * them beside the calls' (src/run/run.ts opens twice `parallelism` for an apply); once the calls are over,
 * `applyPlanReport` (src/run/apply-plan.ts) widens it to both shares.
 */
export function checkReads(
  parallelism: number = DEFAULT_PARALLELISM,
  stores: readonly string[] = [],
): OrderedLimit {
  const places = new Map(stores.map((s, i) => [s, i]));
  return storeOrderedLimit(parallelism, (key) => places.get(key) ?? places.size);
}
