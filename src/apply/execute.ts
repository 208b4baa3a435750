/**
 * The executor: carries out a plan's operations with bounded concurrency, each after the operations of
 * earlier stages it depends on (same store and chain), so that stores do not wait for each other. An
 * operation whose store had a failed operation in an earlier stage of its chain is skipped (it may
 * depend on what failed); independent operations go on. Never throws for a failed call: the result
 * says what happened to each operation.
 *
 * Exactly once, on a network that loses answers:
 * - a call whose answer was lost (no answer, 500/502/504, or a 2xx answer carte cannot read) is
 *   settled by reading whether ITS OWN effect shows (src/apply/settle.ts, `EndpointSpec.effect`), never
 *   by the final state of its address;
 *   a create is made again only when a read proves it did not happen: at once for synchronous endpoints,
 *   never for asynchronous ones (the platform may still be processing it: the call is reported
 *   `unsettled` and the apply keeps watching it, src/run/verify-apply.ts);
 * - a secret-bearing create whose answer was lost is not sent again once a read shows it: its secret is
 *   rotated with `reset-secret` and kept (`recoverSecret`), and the result says it was rotated;
 * - before a store's first write, `beforeStore` may refuse the store (its state no longer matches
 *   the plan): its operations are then not made.
 */

import { ApiError, MalformedAnswerError, PartlyRefusedError } from "../errors.js";
import type { PlatformClient } from "../platform/client.js";
import { jsonBodies, type JsonBytes } from "../platform/json-body.js";
import { storeOrderedLimit } from "../platform/limit.js";
import type { Operation, Plan } from "../plan/types.js";
import { endpoint, Endpoints, findEndpoint, isSynchronous } from "../plan/endpoints.js";
import type { OperationResult } from "./operation-result.js";
import type { Settled } from "./settle.js";

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
   * webhook secret to the secrets sink (src/run/secrets.ts `secretCollector`). When it rejects, the
   * operation is reported failed with the rejection's message, which must hold no secret.
   */
  onResponse?: (op: Operation, body: unknown) => Promise<void> | void;
  /**
   * Reads the platform and tells whether the operation's own effect shows (src/apply/settle.ts),
   * waiting up to `waitMs` for it to show (asynchronous endpoints). Used to settle a call whose answer
   * was lost. Absent: such a call fails.
   */
  settle?: (op: Operation, waitMs: number) => Promise<Settled>;
  /**
   * For a secret-bearing call whose answer was lost and whose effect a read shows: gets the secret anew
   * (`PUT /webhook/{event}/reset-secret`) and keeps it; returns where it went (for the report, never the
   * secret). Absent: such a call fails, saying the secret was lost.
   */
  recoverSecret?: (op: Operation) => Promise<string>;
  /**
   * Called once per store, before its first write (when that call is ready, before it waits for a
   * slot); rejects to refuse the store (its state no longer matches the plan's checksum for it): the
   * store's operations are then not made. The rejection's message says why.
   */
  beforeStore?: (store: string) => Promise<void>;
  /**
   * Called once per store, before its first call that addresses it by integration id
   * (`EndpointSpec.storesBy`, docs/platform-api.md "Store identity"); rejects to refuse the store (its
   * file's integration id is another store's, or could not be checked): the store is left out of that
   * call and its later calls are not made. The rejection's message says why.
   */
  beforeByIntegration?: (store: string) => Promise<void>;
  /**
   * Called once per store when every call for it has ended, while calls of other stores may still be
   * running; `clean` when each of them succeeded (none failed, was skipped or refused). The apply
   * verifies a clean store then (src/run/apply-plan.ts `applyPlanReport`).
   */
  onStoreDone?: (store: string, clean: boolean) => void;
  /**
   * How long a read may wait for an asynchronous endpoint to show a call whose answer was lost before
   * carte reports it unsettled, in milliseconds. Default 5 000.
   */
  settleMs?: number;
}

/** The options of one call: {@link ExecuteOptions} and the apply's encoder of request bodies. */
interface CallingOptions extends ExecuteOptions {
  encode: (body: unknown) => JsonBytes;
}

/** How many times a call whose answer was lost is made again at most (each lost answer is settled by a read). */
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

/** Failed chains per store: `store\u0000chain`; `store\u0000*` for a refused store. */
class Failures {
  private readonly keys = new Set<string>();
  /** The later calls of the chain of `op` in `stores` (default: all its stores) are skipped. */
  add(op: Operation, stores: readonly string[] = op.stores): void {
    for (const s of stores) this.keys.add(`${s}\u0000${chainOf(op)}`);
  }
  /** Every later call of the store is skipped. */
  refuse(store: string): void {
    this.keys.add(`${store}\u0000*`);
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

/**
 * The refusals of `beforeStore`, asked once per store, before the store's first write: when the first
 * call for the store is ready to be made (every call it depends on ended), before it waits for a call
 * slot; the reads have their own bound and stores asked together are read together (src/run/store-guard.ts
 * `storeGuard`).
 */
class StoreGuard {
  private readonly asked = new Map<string, Promise<string | undefined>>();
  /** Stores refused, with why. */
  readonly refused = new Map<string, string>();
  constructor(private readonly check: ((store: string) => Promise<void>) | undefined) {}
  /** The stores of `stores` that are refused (asking for each store not asked yet). */
  async refusedAmong(stores: readonly string[]): Promise<string[]> {
    const check = this.check;
    if (!check) return [];
    const answers = await Promise.all(
      stores.map((s) => {
        let p = this.asked.get(s);
        if (!p) {
          p = check(s).then(
            () => undefined,
            (err: unknown) => describe(err),
          );
          this.asked.set(s, p);
        }
        return p.then((why) => {
          if (why !== undefined) this.refused.set(s, why);
          return why === undefined ? [] : [s];
        });
      }),
    );
    return answers.flat();
  }
}

/** The result of {@link executePlan}: one result per operation, and the stores refused before any write. */
export interface ExecuteResult {
  results: OperationResult[];
  /** Stores `beforeStore` refused, with why: none of their operations was made. */
  refused: { store: string; reason: string }[];
  /**
   * The calls as they were made, by operation id, where they differ from the plan's: a client-scoped
   * call made without the entries of stores left out (an earlier call for them failed, or they were
   * refused). What a read can show of such a call is the effect of the entries it carried.
   */
  sent: Map<string, Operation>;
}

/** Runs every operation of the plan. */
export async function executePlan(
  plan: Plan,
  client: PlatformClient,
  options: ExecuteOptions = {},
): Promise<OperationResult[]> {
  return (await executePlanFully(plan, client, options)).results;
}

/**
 * When each operation may start: after every operation of an earlier stage that shares one of its
 * stores and chains ({@link chainOf}; a `*` call waits for every chain of its stores). A call for no
 * store (client-level) waits for every earlier call, and every later call waits for it. Within these
 * bounds stores do not wait for each other: a store's hours are created while another store's menu is
 * uploaded, and the first stores finish (and are verified) while the last are still written.
 *
 * `before(op)` gives what an operation must wait for, `register(op, done)` its own completion; both
 * are called for each operation in stage order, `before` first.
 */
function dependencyGates(ops: readonly Operation[]): {
  before: (op: Operation) => Promise<void>;
  register: (op: Operation, done: Promise<unknown>) => void;
} {
  /** The operations of one key: those of stages before the current one, and those of the current. */
  class Gate {
    private stage = -Infinity;
    private earlier: Promise<unknown> = Promise.resolve();
    private current: Promise<unknown>[] = [];
    /** What an operation of `stage` (never lower than the last asked) waits for. */
    before(stage: number): Promise<unknown> {
      if (stage > this.stage) {
        if (this.current.length > 0) this.earlier = Promise.all([this.earlier, ...this.current]);
        this.current = [];
        this.stage = stage;
      }
      return this.earlier;
    }
    add(done: Promise<unknown>): void {
      this.current.push(done);
    }
  }
  // The chains each store's calls use, so that a `*` call can wait for all of them.
  const chainsOf = new Map<string, Set<string>>();
  for (const op of ops) {
    for (const s of op.stores) {
      const set = chainsOf.get(s) ?? new Set<string>();
      set.add(chainOf(op));
      chainsOf.set(s, set);
    }
  }
  const gates = new Map<string, Gate>();
  const gate = (key: string) => {
    let g = gates.get(key);
    if (!g) gates.set(key, (g = new Gate()));
    return g;
  };
  const everything = new Gate(); // every call: what a client-level call waits for
  const clientLevel = new Gate(); // client-level calls: what every later call waits for
  const keysOf = (op: Operation): string[] => {
    const chain = chainOf(op);
    return op.stores.flatMap((s) =>
      chain === "*" ? [...(chainsOf.get(s) ?? [])].map((c) => `${s}\u0000${c}`) : [`${s}\u0000${chain}`],
    );
  };
  return {
    before: (op) => {
      const first = clientLevel.before(op.stage);
      const all = everything.before(op.stage);
      const prior =
        op.stores.length === 0 ? [first, all] : [first, ...keysOf(op).map((k) => gate(k).before(op.stage))];
      return Promise.all(prior).then(() => undefined);
    },
    register: (op, done) => {
      for (const k of keysOf(op)) gate(k).add(done);
      everything.add(done);
      if (op.stores.length === 0) clientLevel.add(done);
    },
  };
}

/**
 * Runs every operation of the plan; also says which stores were refused before their first write.
 * At most `parallelism` calls are in flight, started in the order of their stores (the plan's), each
 * after the calls it depends on ({@link dependencyGates}). The check before a store's first write
 * (`beforeStore`, {@link StoreGuard}) holds no call slot.
 */
export async function executePlanFully(
  plan: Plan,
  client: PlatformClient,
  options: ExecuteOptions = {},
): Promise<ExecuteResult> {
  const parallelism = options.parallelism ?? 8;
  const places = new Map(plan.stores.map((s, i) => [s.key, i]));
  const limit = storeOrderedLimit(parallelism, (key) => places.get(key) ?? places.size);
  const total = plan.operations.length;
  options.onEvent?.({ type: "start", total });
  const failures = new Failures();
  const guard = new StoreGuard(options.beforeStore);
  const pairing = new StoreGuard(options.beforeByIntegration);
  // The stores some call addresses by integration id: their pairing is checked before that call.
  const byIntegration = new Set(
    plan.operations
      .filter((o) => findEndpoint(o.endpoint)?.storesBy === "integration_id")
      .flatMap((o) => o.stores),
  );
  // The calls' bodies, the elements shared by many calls written once (the plan is not changed here).
  const encode = jsonBodies();
  const sent = new Map<string, Operation>();
  // By stage, in the plan's order within a stage (the order of the results).
  const ops = [...plan.operations].sort((a, b) => a.stage - b.stage);
  // Calls left per store, so that `onStoreDone` is told when its last one ended.
  const left = new Map<string, number>();
  for (const op of ops) for (const s of op.stores) left.set(s, (left.get(s) ?? 0) + 1);
  const gates = dependencyGates(ops);
  const troubled = new Set<string>();
  let done = 0;
  const start = (op: Operation): Promise<OperationResult> => {
    const ready = gates.before(op);
    const run = (async () => {
      await ready;
      const r = await runOne(op, client, failures, { guard, pairing }, { ...options, encode }, (fn) =>
        limit(fn, op.stores.length === 0 ? undefined : op.stores[0]),
      );
      if (r.sent) sent.set(r.op.id, r.sent);
      if (r.result.status === "ok" && findEndpoint(op.endpoint)?.revealsPairing)
        // Started now, awaited by the store's first call by integration id (it never rejects).
        for (const s of op.stores) if (byIntegration.has(s)) void pairing.refusedAmong([s]);
      if (r.result.status !== "ok") {
        const stores = r.result.failedStores ?? op.stores;
        failures.add(r.op, stores);
        for (const s of stores) troubled.add(s);
      }
      options.onEvent?.({ type: "operation", result: r.result, done: ++done, total });
      for (const s of op.stores) {
        const n = left.get(s)! - 1;
        left.set(s, n);
        if (n === 0) options.onStoreDone?.(s, !troubled.has(s));
      }
      return r.result;
    })();
    gates.register(op, run);
    return run;
  };
  // The first calls go out while the others are set up: tens of thousands take a noticeable time (0.15
  // s for 15,000), all of it before any call was started when set up in one go.
  const running: Promise<OperationResult>[] = [];
  for (const op of ops) {
    if (running.length > 0 && running.length % SET_UP_AT_ONCE === 0) await new Promise(setImmediate);
    const run = start(op);
    // Awaited below with the others; an error it ends with meanwhile is not an unhandled rejection.
    run.catch(() => undefined);
    running.push(run);
  }
  const results = await Promise.all(running);
  const refused = [...guard.refused, ...pairing.refused].map(([store, reason]) => ({ store, reason }));
  return { results, refused, sent };
}

/** How many of an apply's calls {@link executePlanFully} sets up in one turn of the event loop. */
const SET_UP_AT_ONCE = 500;

/**
 * A failure that leaves open whether the platform made the change: no answer, or a server error that
 * does not prove the request was refused (500, 502, 504; 429 and 503 say nothing was done, RFC 6585 §4,
 * RFC 9110 §15.6.4), or any refusal after an attempt of the same call that got no such answer
 * (`ApiError.earlierAnswerLost`, src/platform/client.ts), or a 2xx answer that carte cannot read
 * ({@link MalformedAnswerError}: the platform took the call, only a read tells what it made).
 */
function unsettled(err: unknown): boolean {
  return (
    err instanceof ApiError &&
    (err instanceof MalformedAnswerError ||
      err.status === 0 ||
      err.status === 500 ||
      err.status === 502 ||
      err.status === 504 ||
      // A refusal after an attempt whose answer was lost: that attempt may have made the change.
      err.earlierAnswerLost)
  );
}

/** The operation with some stores left out (a client-scoped call carries one part per store). */
function without(op: Operation, stores: readonly string[]): Operation {
  const parts = (op.parts ?? []).filter((p) => !stores.includes(p.store));
  const spec = endpoint(op.endpoint);
  const body = spec.body(
    parts.map((p) => p.element),
    op.params ?? {},
  );
  const kept = new Set(parts.map((p) => p.store));
  return {
    ...op,
    body,
    parts,
    stores: op.stores.filter((s) => !stores.includes(s)),
    // The addresses of the stores left out are not this call's any more.
    addresses: op.addresses.filter((a) => [...kept].some((s) => a.startsWith(`store[${s}].`))),
  };
}

/** The checks before a store's writes: its state against the plan's, its pairing before calls by integration id. */
interface Guards {
  guard: StoreGuard;
  pairing: StoreGuard;
}

/** The stores of `op` a guard refuses, with why; `""` stands for the client-level resources. */
async function refusalsOf(op: Operation, guards: Guards): Promise<Map<string, string>> {
  // The optimistic check of each store before its first write (a store checked once is not read
  // again). Its reads hold no call slot.
  const clientLevel = op.stores.length === 0 && op.addresses.some((a) => a.startsWith("client."));
  const why = new Map<string, string>();
  for (const s of await guards.guard.refusedAmong(clientLevel ? [""] : op.stores))
    why.set(s, guards.guard.refused.get(s)!);
  if (findEndpoint(op.endpoint)?.storesBy === "integration_id") {
    const left = op.stores.filter((s) => !why.has(s));
    for (const s of await guards.pairing.refusedAmong(left)) why.set(s, guards.pairing.refused.get(s)!);
  }
  return why;
}

/** `message; note`, or the note alone. */
const withNote = (message: string | undefined, note: string) => (message ? `${message}; ${note}` : note);

async function runOne(
  op: Operation,
  client: PlatformClient,
  failures: Failures,
  guards: Guards,
  options: CallingOptions,
  slot: <T>(fn: () => Promise<T>) => Promise<T>,
): Promise<{ op: Operation; result: OperationResult; sent?: Operation }> {
  const base = { id: op.id, method: op.method, path: op.path };
  const blocked = failures.blocking(op);
  if (blocked.length > 0 && op.parts && blocked.length < op.stores.length) {
    // A call for several stores goes on for the stores whose earlier calls succeeded.
    const inner = await runOne(without(op, blocked), client, failures, guards, options, slot);
    const note = `entries of ${blocked.join(", ")} skipped: an earlier call for them failed`;
    return {
      op,
      sent: inner.sent ?? inner.op,
      result: { ...inner.result, message: withNote(inner.result.message, note) },
    };
  }
  if (blocked.length > 0) {
    return {
      op,
      result: {
        ...base,
        status: "skipped",
        message: `an earlier call for ${blocked.join(", ")} failed`,
        durationMs: 0,
      },
    };
  }
  const refusals = await refusalsOf(op, guards);
  if (refusals.size > 0) {
    const refused = [...refusals.keys()];
    for (const s of refused) failures.refuse(s);
    const why = refused.map((s) => `${s || "client"}: ${refusals.get(s)}`).join("; ");
    if (op.parts && !refused.includes("") && refused.length < op.stores.length) {
      const inner = await runOne(without(op, refused), client, failures, guards, options, slot);
      const note = `entries of ${refused.join(", ")} left out: ${why}`;
      return {
        op,
        sent: inner.sent ?? inner.op,
        result: { ...inner.result, message: withNote(inner.result.message, note) },
      };
    }
    return { op, result: { ...base, status: "failed", message: `refused: ${why}`, durationMs: 0 } };
  }
  // The call itself and the reads that settle a lost answer hold one of the `parallelism` slots.
  const made = await slot(() => callOnce(op, client, options));
  if (!made.refusedWhole || !op.parts || op.stores.length < 2) return made;
  return storeByStore(op, made.result, client, options, slot);
}

/**
 * A call for several stores that the platform refused as a whole (one store's part may be the cause):
 * made again once per store, so that one store's refusal stays its own. The result is the call's: ok
 * when every store's call succeeded, else failed naming the stores that failed
 * (`OperationResult.failedStores`) with the platform's words for each, and what the others got.
 */
async function storeByStore(
  op: Operation,
  whole: OperationResult,
  client: PlatformClient,
  options: CallingOptions,
  slot: <T>(fn: () => Promise<T>) => Promise<T>,
): Promise<{ op: Operation; result: OperationResult; sent?: Operation }> {
  const apart = await Promise.all(
    op.stores.map((store) =>
      slot(() =>
        callOnce(
          without(
            op,
            op.stores.filter((s) => s !== store),
          ),
          client,
          options,
        ),
      ).then((r) => ({ store, r })),
    ),
  );
  const failed = apart.filter((a) => a.r.result.status !== "ok");
  const succeeded = apart.filter((a) => a.r.result.status === "ok").map((a) => a.store);
  const parts = [
    ...failed.map((a) => `failed for ${a.store} (${a.r.result.message ?? "no message"})`),
    ...(succeeded.length > 0 ? [`made for ${succeeded.join(", ")}`] : []),
  ];
  const message = `${whole.message ?? "refused"} as one call for ${op.stores.length} stores; made again store by store: ${parts.join("; ")}`;
  const durationMs = whole.durationMs + Math.max(0, ...apart.map((a) => a.r.result.durationMs));
  const result: OperationResult = {
    id: op.id,
    method: op.method,
    path: op.path,
    status: failed.length === 0 ? "ok" : "failed",
    message,
    durationMs,
    ...(failed.length > 0 ? { failedStores: failed.map((a) => a.store) } : {}),
  };
  const lost = failed.find((a) => a.r.result.lostAnswer !== undefined)?.r.result.lostAnswer;
  if (lost) result.lostAnswer = lost;
  return {
    op,
    result,
    sent: without(
      op,
      failed.map((a) => a.store),
    ),
  };
}

/**
 * Makes one call of the plan and, when its answer is lost, settles it by reading whether its own
 * effect shows (`settle`), making it again only when a read shows it was not made; a webhook secret
 * lost with its answer is rotated (`recoverSecret`). A failed call is reported in the result.
 */
async function callOnce(
  op: Operation,
  client: PlatformClient,
  options: CallingOptions,
): Promise<{ op: Operation; result: OperationResult; sent?: Operation; refusedWhole?: true }> {
  const base = { id: op.id, method: op.method, path: op.path };
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const spec = findEndpoint(op.endpoint);
  const payload = op.body === undefined ? undefined : options.encode(op.body);
  const attempt = async () => {
    const body = await client.call(op.method, op.path, payload, { idempotent: op.idempotent });
    // Some calls answer 2xx with per-element failures in the body (src/plan/endpoints.ts `check`).
    const problem = spec?.check?.(body, op.parts ?? []);
    if (problem !== undefined) throw new PartlyRefusedError(op.method, op.path, problem);
    if (options.onResponse) await options.onResponse(op, body);
  };
  const ok = (message?: string) => ({
    op,
    result: { ...base, status: "ok" as const, ...(message ? { message } : {}), durationMs: elapsed() },
  });
  const failed = (message: string, extra: Pick<OperationResult, "unsettled" | "lostAnswer"> = {}) => ({
    op,
    result: { ...base, status: "failed" as const, message, durationMs: elapsed(), ...extra },
  });
  try {
    await attempt();
    return ok();
  } catch (err) {
    // The answer was lost: settle by reading whether THIS call's effect shows. Synchronous endpoints
    // are read at once; asynchronous ones are given `settleMs` to show accepted writes.
    let last = err;
    const sync = spec !== undefined && isSynchronous(spec);
    const settleMs = options.settleMs ?? 5000;
    // A 404 to an idempotent call may answer a repetition of an attempt whose answer was lost (a delete
    // that already happened): a read tells.
    const gone = (e: unknown) => op.idempotent && e instanceof ApiError && e.status === 404;
    // Every lost answer is settled by a read, also that of the last time the call was made again.
    for (
      let round = 0;
      round <= SETTLE_ROUNDS && options.settle && (unsettled(last) || gone(last));
      round++
    ) {
      let seen: Settled;
      try {
        seen = await options.settle(op, sync ? 0 : settleMs);
      } catch (readErr) {
        return failed(
          `${describe(last)}; outcome unknown: a read to settle whether it was made failed too: ${describe(readErr)}`,
          { lostAnswer: "unknown" },
        );
      }
      if (seen === "present") {
        if (gone(last)) {
          return ok(
            "the platform answered 404, and a read shows the change was made (by an earlier attempt)",
          );
        }
        if (!spec?.secret) return ok("the answer was lost, and a read shows the change was made");
        // The answer carried the event's secret: get a new one rather than make the call again.
        if (!options.recoverSecret) {
          return failed(
            `the answer was lost with the webhook's secret; a read shows the change was made; ` +
              `rotate the secret to get one`,
            { lostAnswer: "made" },
          );
        }
        try {
          const where = await options.recoverSecret(op);
          return ok(
            `the answer was lost with the webhook's secret; a read shows the change was made, so the ` +
              `secret was rotated (PUT reset-secret) and the new one kept in ${where}`,
          );
        } catch (rotateErr) {
          return failed(
            `the answer was lost with the webhook's secret; a read shows the change was made, but ` +
              `rotating the secret failed: ${describe(rotateErr)}`,
            { lostAnswer: "made" },
          );
        }
      }
      if ((seen === "partial" || seen === "unknown") && gone(last)) return failed(describe(last));
      if (seen === "partial" || seen === "unknown") {
        return failed(
          `${describe(last)}; outcome unknown: ${seen === "partial" ? "a read shows part of the call's effect" : "no read can tell whether this call was made"}; the next plan shows what is left`,
          { lostAnswer: "unknown" },
        );
      }
      // Absent. A 404 is the platform's answer to this very call: final.
      if (gone(last)) return failed(describe(last));
      // Asynchronous creates may still be processing: never sent again blindly.
      if (!sync && !op.idempotent) {
        return failed(
          `${describe(last)}; the platform does not show the change after ${settleMs} ms, and the call was ` +
            `not made again: the platform may still be processing it`,
          { unsettled: true, lostAnswer: "unknown" },
        );
      }
      if (round === SETTLE_ROUNDS) {
        return failed(
          `${describe(last)}; a read shows it was not made, after it was made again ${SETTLE_ROUNDS} times`,
        );
      }
      try {
        await attempt();
        return ok("made again after a read showed it had not happened");
      } catch (again) {
        last = again;
      }
    }
    // Out of rounds: an answer lost again leaves open whether the platform made the call.
    if (unsettled(last)) return failed(describe(last), { lostAnswer: "unknown" });
    return refusal(last) ? { ...failed(describe(last)), refusedWhole: true } : failed(describe(last));
  }
}

/**
 * What went wrong, in words. A failure of the call itself is said without repeating its method and path,
 * which the report shows beside it: `HTTP 400: Error updating items`, `no response`.
 */
function describe(err: unknown): string {
  if (err instanceof PartlyRefusedError) return err.problem;
  if (err instanceof ApiError) {
    const prefix = `${err.method} ${err.path} failed (`;
    if (!err.message.startsWith(prefix)) return err.message;
    const rest = err.message.slice(prefix.length);
    const close = rest.indexOf(")");
    return close < 0 ? rest : `${rest.slice(0, close)}${rest.slice(close + 1)}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/**
 * A refusal by the platform of the call as it was sent (a 4xx answer other than 401, 403, 408 and 429,
 * or a 2xx answer with failures inside it): nothing was made, and the same call would be refused again.
 */
function refusal(err: unknown): boolean {
  if (err instanceof PartlyRefusedError) return true;
  if (!(err instanceof ApiError) || err.earlierAnswerLost) return false;
  return err.status >= 400 && err.status < 500 && ![401, 403, 408, 429].includes(err.status);
}
