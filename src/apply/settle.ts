/**
 * Settling a call whose answer was lost: a fresh read of the stores the call wrote
 * tells whether THIS call's effect shows, not whether its addresses reached their final planned state.
 * Several calls of one plan can change one address (the creates of one day's slots run together; a
 * webhook create is followed by a change of status), so the final state cannot prove that one of them
 * did not happen: the read "proved" it and the call was made again, a duplicate.
 *
 * Each endpoint says how its effect shows (`EndpointSpec.effect`, src/kinds/resource-kind.ts): the slot it
 * created, the store it added to a webhook, the menu of its type. An endpoint without one is settled by
 * the planned final state of its addresses, and only when no other call of the plan changes them;
 * otherwise the outcome is `unknown`, and the call is reported failed with that word rather than made
 * again.
 */

import { kinds as registry } from "../kinds/registry.js";
import type { Effect, ResourceKind } from "../kinds/resource-kind.js";
import type { PlatformClient } from "../platform/client.js";
import { findEndpoint } from "../plan/endpoints.js";
import type { Operation, Plan } from "../plan/types.js";
import { fetchCurrent, type ReadRequest } from "../state/current.js";
import { waitForPlan } from "./verify.js";
import { InternalError } from "../errors.js";

/** What a read tells of a call: its {@link Effect}, or `unknown` when no read can tell. */
export type Settled = Effect | "unknown";

/** The kinds that write through an endpoint (their reads show its effect). */
function kindsWriting(name: string): ResourceKind<unknown>[] {
  return registry.filter((k) => k.endpoints.some((e) => e.name === name));
}

/** The stores of the operation whose state a read must give. */
function storesOf(op: Operation): string[] {
  return op.parts ? [...new Set(op.parts.map((p) => p.store))] : op.stores;
}

/** Combines the effects of the parts of one call. */
function combine(effects: readonly Effect[]): Effect {
  if (effects.every((e) => e === "present")) return "present";
  if (effects.every((e) => e === "absent")) return "absent";
  return "partial";
}

/**
 * What a settle looks up in its plan, built once per plan: the plan's stores by key, how many operations
 * write each address, and the changes of each address. A settle without it looked through every
 * operation and change of the plan, so that the settles of an apply cost the square of the plan
 * (151,539 calls and 6.3 million changes at 10,000 stores).
 */
interface PlanIndex {
  readonly stores: ReadonlyMap<string, Plan["stores"][number]>;
  /** Address → the number of operations that write it. */
  readonly writers: ReadonlyMap<string, number>;
  readonly changes: ReadonlyMap<string, Plan["changes"][number][]>;
}

const indexes = new WeakMap<Plan, PlanIndex>();

function indexOf(plan: Plan): PlanIndex {
  const known = indexes.get(plan);
  if (known) return known;
  const stores = new Map(plan.stores.map((s) => [s.key, s] as const));
  const writers = new Map<string, number>();
  for (const o of plan.operations) {
    for (const a of new Set(o.addresses)) writers.set(a, (writers.get(a) ?? 0) + 1);
  }
  const changes = new Map<string, Plan["changes"][number][]>();
  for (const c of plan.changes) {
    const list = changes.get(c.address);
    if (list) list.push(c);
    else changes.set(c.address, [c]);
  }
  const index = { stores, writers, changes };
  indexes.set(plan, index);
  return index;
}

/**
 * Reads the platform once and tells whether the operation's own effect shows. Throws the `ApiError` of
 * a failed read.
 */
export async function readEffect(plan: Plan, op: Operation, client: PlatformClient): Promise<Settled> {
  const spec = findEndpoint(op.endpoint);
  const stores = storesOf(op);
  const effect = spec?.effect;
  const writers = kindsWriting(op.endpoint);
  const index = indexOf(plan);
  if (effect && writers.length > 0 && stores.length > 0) {
    const requests: ReadRequest[] = stores
      .map((key) => index.stores.get(key))
      .filter((s) => s !== undefined)
      .map((s) => ({
        store: { key: s.key, storeId: s.storeId, integrationId: s.key, name: s.name },
        kinds: writers,
      }));
    const current = await fetchCurrent(client, requests, { parallelism: 8 });
    const params = op.params ?? {};
    const stateOf = (store: string) => {
      const read = current.stores[store];
      if (!read) throw new InternalError(`the platform did not show store ${store}`);
      const via = index.stores.get(store)?.schedulesVia;
      return via ? { ...read, schedulesVia: via } : read;
    };
    if (op.parts) {
      return combine(op.parts.map((p) => effect(spec.body([p.element], params), params, stateOf(p.store))));
    }
    return effect(op.body, params, stateOf(op.stores[0]!));
  }
  // No effect of its own: the final state of its addresses, when no other call of the plan changes them.
  const mine = [...new Set(op.addresses)];
  if (mine.some((a) => (index.writers.get(a) ?? 0) > 1)) return "unknown";
  const changes = mine.flatMap((a) => index.changes.get(a) ?? []);
  if (changes.length === 0) return "unknown";
  const own = [...new Set(changes.map((c) => c.store))].map((key) => index.stores.get(key));
  const r = await waitForPlan({ stores: own.filter((s) => s !== undefined) }, changes, client, {
    timeoutMs: 0,
  });
  return r.pending.length === 0 ? "present" : r.pending.length === changes.length ? "absent" : "partial";
}

/**
 * Reads until the operation's effect shows or `waitMs` passed (asynchronous endpoints apply accepted
 * writes later), pausing 100 ms, doubling up to 1 s, between reads. Returns the last answer.
 */
export async function settleEffect(
  plan: Plan,
  op: Operation,
  client: PlatformClient,
  waitMs: number,
): Promise<Settled> {
  const started = Date.now();
  let pause = 100;
  for (;;) {
    const seen = await readEffect(plan, op, client);
    const waited = Date.now() - started;
    if (seen === "present" || seen === "unknown" || waited >= waitMs) return seen;
    await new Promise((r) => setTimeout(r, Math.min(pause, waitMs - waited)));
    pause = Math.min(pause * 2, 1000);
  }
}
