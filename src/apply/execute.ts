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
import { endpoint } from "../plan/endpoints.js";

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
  const failedStores = new Set<string>();
  const results: OperationResult[] = [];
  const stages = [...new Set(plan.operations.map((o) => o.stage))].sort((a, b) => a - b);
  for (const stage of stages) {
    const ops = plan.operations.filter((o) => o.stage === stage);
    const stageResults = await Promise.all(ops.map((op) => limit(() => runOne(op, client, failedStores))));
    for (const r of stageResults) {
      results.push(r.result);
      if (r.result.status !== "ok") for (const s of r.op.stores) failedStores.add(s);
      options.onEvent?.({ type: "operation", result: r.result, done: results.length, total });
    }
  }
  return results;
}

async function runOne(
  op: Operation,
  client: PlatformClient,
  failedStores: Set<string>,
): Promise<{ op: Operation; result: OperationResult }> {
  const base = { id: op.id, method: op.method, path: op.path };
  const blocked = op.stores.filter((s) => failedStores.has(s));
  if (blocked.length > 0 && op.parts && blocked.length < op.stores.length) {
    // A call for several stores goes on for the stores whose earlier calls succeeded.
    const parts = op.parts.filter((p) => !blocked.includes(p.store));
    const spec = endpoint(op.endpoint);
    const body = spec.body(
      parts.map((p) => p.element),
      op.params ?? {},
    );
    const { result } = await runOne(
      { ...op, body, parts, stores: op.stores.filter((s) => !blocked.includes(s)) },
      client,
      failedStores,
    );
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
  try {
    await client.call(op.method, op.path, op.body, { idempotent: op.idempotent });
    return { op, result: { ...base, status: "ok", durationMs: Math.round(performance.now() - started) } };
  } catch (err) {
    const message = err instanceof ApiError ? err.message : err instanceof Error ? err.message : String(err);
    return {
      op,
      result: { ...base, status: "failed", message, durationMs: Math.round(performance.now() - started) },
    };
  }
}
