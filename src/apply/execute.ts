/**
 * The executor: carries out a plan's operations in stage order, with bounded concurrency inside a
 * stage. An operation whose store had a failed operation in an earlier stage is skipped (it may depend
 * on what failed); independent operations go on. Never throws for a failed call: the result says what
 * happened to each operation.
 */

import pLimit from "p-limit";
import { ApiError } from "../errors.js";
import type { PlatformClient } from "../platform/client.js";
import type { Operation, Plan } from "../plan/types.js";
import { endpoint, Endpoints, findEndpoint, isSynchronous } from "../plan/endpoints.js";

/** What happened to one operation. */
export interface OperationResult {
  id: string;
  method: string;
  path: string;
  status: "ok" | "failed" | "skipped";
  /** The platform's message, or why it was skipped. Never contains a token. */
  message?: string;
  /** Wall time of the call in milliseconds. */
  durationMs: number;
}

/** Events for progress reporting. */
export type ApplyEvent =
  | { type: "start"; total: number }
  | { type: "operation"; result: OperationResult; done: number; total: number };

/** Options of {@link executePlan}. */
export interface ExecuteOptions {
  /** Calls in flight at once. Default 8. */
  parallelism?: number;
  onEvent?: (e: ApplyEvent) => void;
  /**
   * Called with the answer of each successful call before its result is reported: the one way an
   * answer leaves the executor, which keeps none itself (results carry no bodies). Used to hand a
   * webhook secret to the secrets sink (src/secrets.ts `secretCollector`). When it rejects, the
   * operation is reported failed with the rejection's message, which must hold no secret.
   */
  onResponse?: (op: Operation, body: unknown) => Promise<void> | void;
  /**
   * Reads the platform and tells whether the changes of an operation show (used to settle a failed
   * call that may not be repeated blindly; see `synchronous` in src/plan/endpoints.ts).
   */
  recheck?: (op: Operation, waitMs: number) => Promise<boolean>;
  /**
   * How long a read may wait for an asynchronous endpoint to show an unsettled create before carte
   * concludes it did not happen, in milliseconds. Default 5 000.
   */
  settleMs?: number;
}

/** How many times an unsettled create is read and made again at most. */
const SETTLE_ROUNDS = 2;

/**
 * The chain of an operation (src/plan/endpoints.ts `chain`). Hours, holidays and special days share
 * the utils slot calls but depend only on themselves: their chain is the kind of the resources changed.
 */
function chainOf(op: Operation): string {
  const chain = Endpoints[op.endpoint]?.chain ?? "catalog";
  if (chain !== "store_schedule") return chain;
  const kind = /\.(\w+)\[[^\]]*\]$/.exec(op.addresses[0] ?? "")?.[1];
  return kind ? `store_schedule:${kind}` : chain;
}

/** Failed chains per store: `store\u0000chain`. */
class Failures {
  private readonly keys = new Set<string>();
  add(op: Operation): void {
    for (const s of op.stores) this.keys.add(`${s}\u0000${chainOf(op)}`);
  }
  /** The stores of the operation whose calls it depends on failed. */
  blocking(op: Operation): string[] {
    const chain = chainOf(op);
    return op.stores.filter((s) =>
      chain === "*"
        ? [...this.keys].some((k) => k.startsWith(`${s}\u0000`))
        : this.keys.has(`${s}\u0000${chain}`) || this.keys.has(`${s}\u0000*`),
    );
  }
}

/** Runs every operation of the plan. */
export async function executePlan(
  plan: Plan,
  client: PlatformClient,
  options: ExecuteOptions = {},
): Promise<OperationResult[]> {
  const limit = pLimit(options.parallelism ?? 8);
  const total = plan.operations.length;
  options.onEvent?.({ type: "start", total });
  const failures = new Failures();
  const results: OperationResult[] = [];
  const stages = [...new Set(plan.operations.map((o) => o.stage))].sort((a, b) => a - b);
  for (const stage of stages) {
    const ops = plan.operations.filter((o) => o.stage === stage);
    const stageResults = await Promise.all(
      ops.map((op) => limit(() => runOne(op, client, failures, options))),
    );
    for (const r of stageResults) {
      results.push(r.result);
      if (r.result.status !== "ok") failures.add(r.op);
      options.onEvent?.({ type: "operation", result: r.result, done: results.length, total });
    }
  }
  return results;
}

/** A failure that leaves open whether the platform made the change: no answer, or a server error. */
function unsettled(err: unknown): boolean {
  return err instanceof ApiError && (err.status === 0 || err.status >= 500);
}

async function runOne(
  op: Operation,
  client: PlatformClient,
  failures: Failures,
  options: ExecuteOptions,
): Promise<{ op: Operation; result: OperationResult }> {
  const base = { id: op.id, method: op.method, path: op.path };
  const blocked = failures.blocking(op);
  if (blocked.length > 0 && op.parts && blocked.length < op.stores.length) {
    // A call for several stores goes on for the stores whose earlier calls succeeded.
    const parts = op.parts.filter((p) => !blocked.includes(p.store));
    const spec = endpoint(op.endpoint);
    const body = spec.body(
      parts.map((p) => p.element),
      op.params ?? {},
    );
    const rest = { ...op, body, parts, stores: op.stores.filter((s) => !blocked.includes(s)) };
    const { result } = await runOne(rest, client, failures, options);
    const note = `entries of ${blocked.join(", ")} skipped: an earlier call for them failed`;
    return { op, result: { ...result, message: result.message ? `${result.message}; ${note}` : note } };
  }
  if (blocked.length > 0) {
    return {
      op,
      result: {
        ...base,
        status: "skipped",
        message: `skipped: an earlier call for ${blocked.join(", ")} failed`,
        durationMs: 0,
      },
    };
  }
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const attempt = async () => {
    const body = await client.call(op.method, op.path, op.body, { idempotent: op.idempotent });
    // Some calls answer 2xx with per-element failures in the body (src/plan/endpoints.ts `check`).
    const problem = Endpoints[op.endpoint]?.check?.(body, op.parts ?? []);
    if (problem !== undefined) throw new Error(`${op.method} ${op.path}: ${problem}`);
    if (options.onResponse) await options.onResponse(op, body);
  };
  try {
    await attempt();
    return { op, result: { ...base, status: "ok", durationMs: elapsed() } };
  } catch (err) {
    // A call that may not be repeated blindly (a create): settle it by reading. The platform shows the
    // change (only the answer was lost), or it does not, and then the call provably did not happen and
    // is made once more. Synchronous endpoints are read at once; asynchronous ones are given time to
    // process accepted writes first (`settleMs`).
    let last = err;
    for (
      let round = 0;
      round < SETTLE_ROUNDS && !op.idempotent && options.recheck && unsettled(last);
      round++
    ) {
      try {
        const spec = findEndpoint(op.endpoint);
        const waitMs = spec && isSynchronous(spec) ? 0 : (options.settleMs ?? 5000);
        if (await options.recheck(op, waitMs)) {
          return {
            op,
            result: {
              ...base,
              status: "ok",
              message: "the answer was lost, and a read shows the change was made",
              durationMs: elapsed(),
            },
          };
        }
        await attempt();
        return {
          op,
          result: {
            ...base,
            status: "ok",
            message: "made again after a read showed it had not happened",
            durationMs: elapsed(),
          },
        };
      } catch (again) {
        last = again;
      }
    }
    return { op, result: { ...base, status: "failed", message: describe(last), durationMs: elapsed() } };
  }
}

function describe(err: unknown): string {
  return err instanceof ApiError ? err.message : err instanceof Error ? err.message : String(err);
}
