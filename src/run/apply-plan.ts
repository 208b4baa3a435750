/**
 * Step "apply" of the library: the plan's calls made (src/apply/execute.ts) with the checks before a
 * store's first write and before its first call by integration id, then verified
 * (src/run/verify-apply.ts).
 */

import { applyPairingCheck } from "../state/pairings.js";
import { ConvergenceError } from "../errors.js";
import { executePlanFully } from "../apply/execute.js";
import { type ApplyReport } from "../apply/report.js";
import { settleEffect } from "../apply/settle.js";
import { resetSecret } from "../platform/webhook-calls.js";
import { DEFAULT_PARALLELISM } from "../platform/client.js";
import type { Plan } from "../plan/types.js";
import { secretCollector } from "./secrets.js";
import type { Session } from "./session.js";
import { type RunOptions, checkReads } from "./options.js";
import { verifyApplied, earlyVerification } from "./verify-apply.js";

/**
 * Makes the plan's calls, then waits until the platform shows every change whose calls succeeded and
 * no duplicate among the resources the plan changed. A call whose answer was lost is settled by
 * reading its own effect (src/apply/settle.ts); an asynchronous create left unsettled is watched until
 * its effect shows or the wait ends, so that the next plan does not make it again. Failed calls are
 * reported in the result, never thrown. Throws {@link ConvergenceError} only when every call succeeded
 * but the platform did not show the result, or still showed a duplicate, within the wait.
 */
export async function applyPlan(
  plan: Plan,
  session: Session,
  options: RunOptions = {},
): Promise<ApplyReport> {
  const report = await applyPlanReport(plan, session, options);
  if (
    report.failed === 0 &&
    report.skipped === 0 &&
    (report.refused ?? []).length === 0 &&
    (report.pending.length > 0 || (report.duplicates ?? []).length > 0)
  ) {
    throw new ConvergenceError(report.pending, report.waitedMs, report.duplicates);
  }
  return report;
}

/**
 * The apply's check of a store before its first call by integration id ({@link applyPairingCheck}:
 * none for a pairing the plan showed or an earlier run recorded), waiting for the categories the apply
 * creates in the store up to the settle window.
 */
function pairingGuard(plan: Plan, session: Session, options: RunOptions): (store: string) => Promise<void> {
  return applyPairingCheck(
    plan,
    {
      client: session.client,
      record: session.pairings,
      sites: options.identitySites,
      parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
    },
    Math.min(options.settleMs ?? 5_000, Math.max(0, (options.deadline ?? Infinity) - Date.now())),
  );
}

/**
 * {@link applyPlan} without the {@link ConvergenceError}: the changes the platform did not show, and
 * the duplicates it still shows, are in the report (`pending`, `duplicates`) whether or not a call
 * failed. Used by the stages of a rollout, whose report names the stage that did not converge.
 */
export async function applyPlanReport(
  plan: Plan,
  session: Session,
  options: RunOptions = {},
): Promise<ApplyReport> {
  const client = session.client;
  const collector = options.secrets ? secretCollector(options.secrets) : undefined;
  const started = Date.now();
  // Each store whose calls all succeeded is verified as soon as its last call ended, while the calls of
  // later stores go on: the reads have a bound of their own (`checks`) beside the calls'. A store its
  // read does not show complete yet (an asynchronous write still processing) is left to the wait after
  // the last call.
  const checks =
    options.checks ??
    checkReads(
      options.parallelism,
      plan.stores.map((s) => s.key),
    );
  const early = earlyVerification(plan, client, checks);
  const executed = await executePlanFully(plan, client, {
    parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
    onStoreDone: early.storeDone,
    ...(options.settleMs !== undefined ? { settleMs: options.settleMs } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(collector ? { onResponse: collector } : {}),
    ...(options.beforeStore ? { beforeStore: options.beforeStore } : {}),
    beforeByIntegration: pairingGuard(plan, session, options),
    settle: (op, waitMs) => settleEffect(plan, op, client, waitMs),
    // The secret of a create whose answer was lost: rotated, and kept like an answer's.
    recoverSecret: async (op) => {
      const event = String(op.params?.event ?? "");
      const answer = await resetSecret(client, event);
      if (collector) await collector(op, answer);
      return options.secrets ? options.secrets.where(event) : "nowhere (no secrets sink was given)";
    },
  });
  // The pairings the apply showed right, kept once for the next runs (not a write per store).
  await session.pairings?.save();
  // The calls are over: the checks still to make (stores that a call for many stores served, such as
  // an item availability call of up to 100 items, end together with it) may use the calls' connections
  // too. The bound is put back when the apply ends (the stages of a rollout share it).
  const narrow = checks.widen(2 * (options.parallelism ?? DEFAULT_PARALLELISM));
  try {
    return await verifyApplied(plan, client, executed, { early, checks, started, options });
  } finally {
    narrow();
  }
}
