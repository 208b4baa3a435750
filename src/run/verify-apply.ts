/**
 * Step "verify" of the library: the answers that were lost settled by their own effect, each store
 * read as soon as its calls ended, then, after the last call, the wait until the platform shows every
 * change left and no duplicate; the apply's report.
 */

import { executePlanFully } from "../apply/execute.js";
import { type ApplyReport } from "../apply/report.js";
import { settleEffect } from "../apply/settle.js";
import { byStore, verifyRequest, verifyState, waitForPlan } from "../apply/verify.js";
import { findEndpoint, isSynchronous } from "../plan/endpoints.js";
import type { Operation } from "../plan/types.js";
import type { Plan } from "../plan/types.js";
import type { Session } from "./session.js";
import { storeBatcher } from "../state/current.js";
import type { Limit } from "../kinds/resource-kind.js";
import { type RunOptions } from "./options.js";

/**
 * The end of `applyPlanReport` (src/run/apply-plan.ts) once its calls are made: the wait for the answers that were lost
 * ({@link settleLostAnswers}), the early verification's results, the verification of what is left
 * ({@link waitForPlan}), and the report.
 */
export async function verifyApplied(
  plan: Plan,
  client: Session["client"],
  executed: Awaited<ReturnType<typeof executePlanFully>>,
  context: {
    early: ReturnType<typeof earlyVerification>;
    checks: Limit;
    /** When the apply began, ms since the epoch. */
    started: number;
    options: RunOptions;
  },
): Promise<ApplyReport> {
  const { results, refused, sent } = executed;
  const { early, checks, started, options } = context;
  const waitMs = Math.max(
    0,
    Math.min(options.convergenceTimeoutMs ?? 60_000, (options.deadline ?? Infinity) - Date.now()),
  );
  const until = Date.now() + waitMs;
  await settleLostAnswers(plan, client, executed, {
    until,
    started,
    settleMs: options.settleMs ?? 5_000,
  });

  // Verify what the successful calls carried, except in stores where some call failed or was skipped:
  // their state is unknown until the next plan, which shows what is left. Duplicates are looked for in
  // every store the plan changed.
  // A call for several stores that failed for some of them only (made again store by store) carried
  // the others' changes: those stores are verified as after a successful call.
  const carried = new Map<string, Operation>();
  const troubled = new Set<string>();
  const opOf = new Map(plan.operations.map((o) => [o.id, o]));
  for (const r of results) {
    const op = opOf.get(r.id)!;
    if (r.status === "ok") carried.set(r.id, sent.get(r.id) ?? op);
    else if (r.failedStores && sent.has(r.id)) carried.set(r.id, sent.get(r.id)!);
    if (r.status !== "ok") for (const s of r.failedStores ?? op.stores) troubled.add(s);
  }
  for (const r of refused) troubled.add(r.store);
  const shown = await early.results();
  // The addresses the successful calls carried, of the stores still to verify (client-level too).
  const left = (store: string) => !troubled.has(store) && !shown.has(store);
  const applied = new Set(
    [...carried.values()]
      .filter((o) => o.stores.length === 0 || o.stores.some(left))
      .flatMap((o) => o.addresses),
  );
  const toVerify = plan.changes.filter((c) => left(c.store) && applied.has(c.address));
  const verify = await waitForPlan(plan, toVerify, client, {
    timeoutMs: Math.max(0, until - Date.now()),
    limit: checks,
    duplicates: plan.changes.filter((c) => c.store !== "" && !shown.has(c.store)),
  });
  let duplicates = [...verify.duplicates, ...[...shown.values()].flat()];
  const failed = results.filter((r) => r.status !== "ok").length;
  if (verify.pending.length > 0 || failed > 0 || refused.length > 0) {
    // An apply that did not converge says why, duplicates first: a store verified as soon as its calls
    // ended, or whose changes showed in an early round, was read before the copies another apply made
    // at the same moment arrived. Every store the plan changed is read once more for them.
    const again = await waitForPlan(plan, [], client, {
      timeoutMs: 0,
      limit: checks,
      duplicates: plan.changes.filter((c) => c.store !== ""),
      // A read that fails adds nothing: the report says what is left all the same.
    }).catch(() => undefined);
    duplicates = [...duplicates, ...(again?.duplicates ?? [])];
  }
  const report: ApplyReport = {
    operations: results,
    failed: results.filter((r) => r.status === "failed").length,
    skipped: results.filter((r) => r.status === "skipped").length,
    pending: verify.pending,
    duplicates: [...new Set(duplicates)].sort(),
    refused,
    waitedMs: verify.waitedMs,
  };
  return report;
}

/**
 * After the last call of an apply: waits for the asynchronous creates whose answer was lost and which
 * were not made again, so that the apply ends with the platform settled (a next plan made while one is
 * still pending would create it again), and updates their results with what the platform showed. So
 * too for the asynchronous calls that succeeded in stores where another call failed: the verification
 * leaves those stores out, yet the next plan must not run ahead of them. A call made without the
 * entries of some stores is watched for the entries it carried. `until`: the end of the wait for the
 * platform; `started`: when the apply began (for the messages), both in ms since the epoch.
 */
async function settleLostAnswers(
  plan: Plan,
  client: Session["client"],
  executed: Pick<Awaited<ReturnType<typeof executePlanFully>>, "results" | "refused" | "sent">,
  wait: { until: number; started: number; settleMs: number },
): Promise<void> {
  const { results, refused, sent } = executed;
  const { until, started } = wait;
  const opOf = new Map(plan.operations.map((o) => [o.id, o]));
  const sentOf = (id: string): Operation => sent.get(id) ?? opOf.get(id)!;
  const failedStores = new Set(
    results.filter((r) => r.status !== "ok").flatMap((r) => r.failedStores ?? opOf.get(r.id)?.stores ?? []),
  );
  for (const r of refused) failedStores.add(r.store);
  const asynchronous = (op: Operation) => {
    const spec = findEndpoint(op.endpoint);
    return spec !== undefined && !isSynchronous(spec);
  };
  await Promise.all(
    results
      .filter(
        (r) =>
          r.unsettled ||
          (r.status === "ok" &&
            asynchronous(sentOf(r.id)) &&
            sentOf(r.id).stores.some((s) => failedStores.has(s))),
      )
      .map(async (r) => {
        const op = sentOf(r.id);
        // A lost answer is waited for until the end of the wait for the platform; an accepted call in a
        // failed store only for the settle window: its effect may never show (it can refer to a resource
        // whose call failed), and the next plan reads the store anyway.
        const bound = r.unsettled ? until : Math.min(until, Date.now() + wait.settleMs);
        const seen = await settleEffect(plan, op, client, Math.max(0, bound - Date.now())).catch(
          (err: unknown) => `unknown (${err instanceof Error ? err.message : String(err)})`,
        );
        if (!r.unsettled) return;
        delete r.unsettled;
        if (seen === "present") {
          r.status = "ok";
          r.message = `the answer was lost; the platform showed the change ${Date.now() - started} ms after the apply began`;
        } else if (seen !== "absent") {
          r.message = `${r.message}; outcome unknown: ${seen === "partial" ? "the platform showed part of it" : seen}`;
        } else {
          r.message = `${r.message}; the platform still did not show it when the apply ended: the next plan shows whether it arrived`;
        }
      }),
  );
}

/**
 * The verification of each store as soon as its calls ended (`applyPlanReport` (src/run/apply-plan.ts)): `storeDone`
 * (the executor's `onStoreDone`) reads a store whose calls all succeeded once, within `checks`, stores
 * ending within {@link EARLY_BATCH_MS} of each other in one batch (src/state/current.ts
 * `storeBatcher`); `results` waits for those reads and gives, per store whose read showed every change
 * of the plan, the duplicates that read showed (as {@link waitForPlan} would). A store not shown
 * complete, or whose read failed, is not in the result: the wait after the last call reads it again,
 * and reports what it still does not show or the error.
 */
export function earlyVerification(
  plan: Plan,
  client: Session["client"],
  checks: Limit,
): { storeDone: (store: string, clean: boolean) => void; results: () => Promise<Map<string, string[]>> } {
  const changes = byStore(plan.changes);
  const entries = new Map(plan.stores.map((s) => [s.key, s]));
  const readStore = storeBatcher(client, { limit: checks, windowMs: EARLY_BATCH_MS });
  const reads: Promise<[string, string[]] | undefined>[] = [];
  return {
    storeDone: (store, clean) => {
      const entry = entries.get(store);
      const own = changes.get(store);
      if (!clean || !entry || !own) return;
      reads.push(
        readStore(verifyRequest(entry, own)).then(
          // The store arrives in its own turn (src/state/current.ts storeBatcher hands each store over
          // as the reader does, one at a time): it is compared in that same turn.
          (state): [string, string[]] | undefined => {
            // Every change of the store: one no call carried (none is expected) keeps the store for
            // the wait after the last call, which verifies only what the calls carried.
            const seen = verifyState(entry, state, own, own);
            return seen.pending.length === 0 ? [store, seen.duplicates] : undefined;
          },
          // Not lost: the store is read again by the wait after the last call, which reports the error.
          () => undefined,
        ),
      );
    },
    results: async () => new Map((await Promise.all(reads)).filter((r) => r !== undefined)),
  };
}

/**
 * How long the verification of a store whose calls ended waits for others to end, in milliseconds,
 * so that their reads are one batch (one webhook list, one store status call per 100 stores).
 */
const EARLY_BATCH_MS = 20;
