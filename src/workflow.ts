/**
 * The steps behind `carte plan` and `carte apply`: fetch → plan (pure) → safety → execute → verify.
 * src/run.ts sequences them into the one path the CLI and the GitHub Action share. No output here:
 * callers render the results.
 */

import type { LoadedProject } from "./config/index.js";
import { ConvergenceError, StalePlanError, UnsafePlanError, UsageError } from "./errors.js";
import type { CurrentState, DesiredState } from "./model.js";
import { executePlan, type ApplyEvent, type OperationResult } from "./apply/execute.js";
import { waitForPlan } from "./apply/verify.js";
import { createPlanner } from "./plan/plan.js";
import { desiredChecksum } from "./plan/checksum.js";
import { isTargeted, matchStore, type Targeting } from "./plan/target.js";
import { DEFAULT_PARALLELISM } from "./platform/client.js";
import type { Plan, ResourceChange } from "./plan/types.js";
import { secretCollector, type SecretSink } from "./secrets.js";
import type { Session } from "./session.js";
import { clientReadKinds, fetchCurrent, readCurrent, readRequests } from "./state/current.js";

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
   * Needed to save the plan, show it as JSON or compare it with a saved plan; without them the plan's
   * `checksums` cannot be read (an `InternalError`). Default true.
   */
  checksums?: boolean;
  /**
   * Where apply keeps the webhook secrets that calls return (src/secrets.ts). Without one they are
   * dropped unseen; the shared path (src/run.ts) always gives one.
   */
  secrets?: SecretSink;
}

/**
 * The desired state limited to the stores that `--store` patterns name. Throws {@link UsageError} when
 * patterns are given and match no store.
 */
export function scopeDesired(desired: DesiredState, targeting: Targeting | undefined): DesiredState {
  if (!targeting || targeting.stores.length === 0) return desired;
  const keys = Object.keys(desired.stores).filter((k) => targeting.stores.some((p) => matchStore(p, k)));
  if (keys.length === 0) {
    throw new UsageError(
      `no store of the configuration matches --store ${targeting.stores.join(", ")}; known stores: ${Object.keys(desired.stores).join(", ")}`,
    );
  }
  return { stores: Object.fromEntries(keys.map((k) => [k, desired.stores[k]!])) };
}

/**
 * Reads the live state of the project's stores in scope (`options.targeting.stores`), limited to the
 * parts the project owns (`ownership:`), `options.parallelism` stores at a time. Throws
 * {@link UsageError} when `--store` patterns match no store, `ApiError` when a read fails.
 */
export async function fetchProjectState(
  project: LoadedProject,
  session: Session,
  options: RunOptions = {},
): Promise<CurrentState> {
  const desired = scopeDesired(project.desired, options.targeting);
  return fetchCurrent(session.client, readRequests(desired, project.ownership), {
    parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
    clientKinds: clientReadKinds(desired, project.ownership),
    onRead: (done, total) => options.onStoreRead?.(done, total),
  });
}

/**
 * Reads the live state of the project's stores in scope (as {@link fetchProjectState}) and plans each
 * store as soon as it is read (the pure planner, src/plan/plan.ts `createPlanner`), keeping no store's
 * state once it is planned: memory holds the desired state and the plan. The plan is judged by the
 * project's safety guards but not enforced ({@link enforceSafety}). Throws as {@link fetchProjectState}.
 */
export async function planProject(
  project: LoadedProject,
  session: Session,
  options: RunOptions = {},
): Promise<{ plan: Plan }> {
  const desired = scopeDesired(project.desired, options.targeting);
  const planner = createPlanner(desired, {
    safety: project.safety,
    ownership: project.ownership,
    ...(isTargeted(options.targeting) ? { targeting: options.targeting } : {}),
    checksums: options.checksums ?? true,
  });
  const client = await readCurrent(
    session.client,
    readRequests(desired, project.ownership),
    (key, state) => planner.addStore(key, state),
    {
      parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
      clientKinds: clientReadKinds(desired, project.ownership),
      onRead: (done, total) => options.onStoreRead?.(done, total),
    },
  );
  return { plan: planner.finish(client) };
}

/**
 * Refuses a plan that trips a safety guard, unless forced with a reason, which is then recorded in the
 * plan (`safety.override`). Throws {@link UnsafePlanError} (exit code 3).
 */
export function enforceSafety(plan: Plan, force: { reason: string } | undefined): void {
  if (plan.safety.ok || plan.safety.override) return;
  if (force) {
    plan.safety.override = { reason: force.reason };
    return;
  }
  const lines = plan.safety.violations.map((v) => `  - ${v.guard}: ${v.message}`);
  throw new UnsafePlanError(
    plan.safety.violations[0]!.guard,
    `the plan trips ${lines.length} safety guard${lines.length === 1 ? "" : "s"}:\n${lines.join("\n")}\n` +
      `Nothing was changed. If this is intended, run again with --force --reason "why" ` +
      `(the reason is recorded in the plan), or adjust safety: in carte.yaml.`,
  );
}

/**
 * Refuses a saved plan that no longer fits: the files changed since it was made, or the platform did.
 * Throws {@link StalePlanError}.
 */
export async function checkSavedPlan(
  saved: Plan,
  project: LoadedProject,
  session: Session,
  options: RunOptions = {},
): Promise<void> {
  const targeting = saved.targeting ?? options.targeting;
  if (desiredChecksum(scopeDesired(project.desired, targeting)) !== saved.checksums.desired) {
    throw new StalePlanError(
      "the configuration changed since this plan was saved; run `carte plan --out FILE` again and review it",
    );
  }
  const { plan } = await planProject(project, session, {
    ...options,
    ...(targeting ? { targeting } : {}),
    checksums: true,
  });
  if (plan.checksums.current !== saved.checksums.current) {
    throw new StalePlanError(
      "the platform changed since this plan was saved (someone edited a store); run `carte plan --out FILE` again and review it",
    );
  }
}

/** The outcome of an apply (rendered by src/render/report.ts). */
export interface ApplyReport {
  /** One result per operation of the plan, in the plan's order: `ok`, `failed` or `skipped`. */
  operations: OperationResult[];
  /** Operations whose call failed. */
  failed: number;
  /** Operations not attempted because one they depend on failed. */
  skipped: number;
  /** Addresses the platform did not show in their planned state within the wait. */
  pending: string[];
  /** How long carte waited for the platform to show the changes, in milliseconds. */
  waitedMs: number;
}

/**
 * Makes the plan's calls, then waits until the platform shows every change whose calls succeeded.
 * Failed calls are reported in the result, never thrown. Throws {@link ConvergenceError} only when
 * every call succeeded but the platform did not show the result within the wait.
 */
export async function applyPlan(
  plan: Plan,
  session: Session,
  options: RunOptions = {},
): Promise<ApplyReport> {
  // The plan's changes by address, made the first time a call must be settled by reading.
  let byAddress: Map<string, ResourceChange> | undefined;
  const results = await executePlan(plan, session.client, {
    parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
    ...(options.settleMs !== undefined ? { settleMs: options.settleMs } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.secrets ? { onResponse: secretCollector(options.secrets) } : {}),
    // One read of the operation's resources: does the platform show them in their planned state?
    recheck: async (op, waitMs) => {
      byAddress ??= new Map(plan.changes.map((c) => [c.address, c]));
      const changes = op.addresses.flatMap((a) => byAddress?.get(a) ?? []);
      const r = await waitForPlan(plan, changes, session.client, { timeoutMs: waitMs });
      return r.pending.length === 0;
    },
  });
  // Verify what the successful calls carried, except in stores where some call failed or was skipped:
  // their state is unknown until the next plan, which shows what is left.
  const okIds = new Set(results.filter((r) => r.status === "ok").map((r) => r.id));
  const troubled = new Set(plan.operations.filter((o) => !okIds.has(o.id)).flatMap((o) => o.stores));
  const applied = new Set(plan.operations.filter((o) => okIds.has(o.id)).flatMap((o) => o.addresses));
  const toVerify = plan.changes.filter((c) => applied.has(c.address) && !troubled.has(c.store));
  const verify = await waitForPlan(plan, toVerify, session.client, {
    timeoutMs: options.convergenceTimeoutMs ?? 60_000,
    parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
  });
  const report: ApplyReport = {
    operations: results,
    failed: results.filter((r) => r.status === "failed").length,
    skipped: results.filter((r) => r.status === "skipped").length,
    pending: verify.pending,
    waitedMs: verify.waitedMs,
  };
  if (report.failed === 0 && report.pending.length > 0)
    throw new ConvergenceError(report.pending, verify.waitedMs);
  return report;
}
