/**
 * Audits of what the emulator received against what carte planned and reported (each call made once), for
 * the fault suite (test/faults) and the fault benchmark (scripts/bench-faults.mjs). The emulator records
 * every request, with the status its handler answered even when the client never got the answer
 * (`fault: "lost" | "hold"`, src/emulator/server.ts), so it knows what was really processed:
 *
 * - {@link acceptedTwice}: creates the platform accepted more than once, by what they create (a menu of a
 *   type in a store, a slot of a day, a store on a webhook event…): each is a duplicate or a secret lost;
 * - {@link writesOutside}: writes that no operation of the plans carries;
 * - {@link reportMismatches}: operations the apply report names wrongly: reported `ok` but never
 *   processed, `skipped` but sent, `failed` but processed (unless the report says the outcome is
 *   unknown);
 * - {@link lostMarkers}: items the files hold off that the platform shows off without carte's marker
 *   (carte could no longer tell its switch-off from staff's);
 * - {@link lostSecrets}: webhooks the platform has whose secret the secrets file lacks, and a marker of
 *   secrets on their way in (`FILE.pending`) left behind.
 *
 * Not part of the emulator's server: nothing here runs while it serves.
 */

import { access } from "node:fs/promises";
import type { OperationResult } from "../apply/operation-result.js";
import type { CurrentState, DesiredState } from "../model.js";
import { own } from "../model.js";
import { canonicalJson } from "../plan/checksum.js";
import { endpoint } from "../plan/endpoints.js";
import type { Operation, Plan } from "../plan/types.js";
import type { PlatformClient } from "../platform/client.js";
import { routeIdempotent, routeOfPath } from "../platform/routes.js";
import { listWebhooks } from "../platform/webhook-calls.js";
import { pendingFileOf, readSecretsFile } from "../run/secrets.js";
import type { RecordedRequest } from "./deps.js";
import { itemsOf, availabilityOf } from "../kinds/catalog.js";

/** Whether the platform processed a recorded request: its handler answered 2xx (lost answers included). */
export function processed(r: RecordedRequest): boolean {
  return (
    r.status >= 200 && r.status <= 299 && (r.fault === undefined || r.fault === "lost" || r.fault === "hold")
  );
}

/**
 * Whether a recorded request may change the platform: not a GET, not a token login, and not one of the
 * reads the platform makes with POST (store status, item status; docs/platform-api.md §4.4).
 */
export function isWriteRequest(r: RecordedRequest): boolean {
  return isWriteCall(r.method, r.path);
}

/** {@link isWriteRequest} of a call known by its method and path (no query string). */
export function isWriteCall(method: string, path: string): boolean {
  if (method === "GET" || path.includes("/token/login/")) return false;
  return !(method === "POST" && (path.endsWith("/availability/stores") || path.endsWith("/status")));
}

/** The path of a recorded request with its query string, as an operation writes it. */
function fullPath(r: RecordedRequest): string {
  return r.query ? `${r.path}?${r.query}` : r.path;
}

/**
 * What a create request makes, one key per element: `POST /menu` elements without an id, the slots of
 * the slot creates, the details of the schedule creates, each store of `POST /webhook`. Empty for a
 * request that creates nothing (an idempotent call by its route).
 */
export function createdBy(r: RecordedRequest): string[] {
  const route = routeOfPath(r.method, r.path);
  if (route === undefined || routeIdempotent(route, r.body)) return [];
  const body = r.body as unknown;
  let elements: unknown[];
  if (route === "POST /api/v2/restaurants-integrations-public-api/webhook") {
    const b = body as { event?: string; data?: { stores?: string[] }[] };
    return (b.data ?? []).flatMap((d) => (d.stores ?? []).map((s) => `${r.path} ${b.event} ${s}`));
  } else if (Array.isArray(body)) {
    elements = body.filter((e) => (e as { id?: unknown } | null)?.id === undefined);
  } else if (body && typeof body === "object" && "schedule_details" in body) {
    elements = (body as { schedule_details: unknown[] }).schedule_details;
  } else {
    elements = [body];
  }
  return elements.map((e) => `${r.path} ${canonicalJson(e)}`);
}

/** What the platform accepted more than once, by {@link createdBy} key, with the count. */
export function acceptedTwice(requests: readonly RecordedRequest[]): { key: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const r of requests) {
    if (!processed(r)) continue;
    for (const key of createdBy(r)) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts]
    .filter(([, n]) => n > 1)
    .map(([key, count]) => ({ key, count }))
    .sort((a, b) => a.key.localeCompare(b.key));
}

/** Every subset of a list (for the calls that serve several stores: up to 2^8 subsets). */
function subsets<T>(list: readonly T[]): T[][] {
  if (list.length > 8) return [[...list]];
  const out: T[][] = [];
  for (let mask = 1; mask < 1 << list.length; mask++) out.push(list.filter((_, i) => mask & (1 << i)));
  return out;
}

/**
 * The bodies an operation may be sent with, as canonical JSON: its own, or, for a call serving several
 * stores, the body of any subset of its stores (a store whose earlier call failed is left out).
 */
export function bodiesOf(op: Operation): Set<string | undefined> {
  const out = new Set<string | undefined>([canonicalJson(op.body)]);
  if (op.parts && op.parts.length > 1) {
    const spec = endpoint(op.endpoint);
    const stores = [...new Set(op.parts.map((p) => p.store))];
    for (const keep of subsets(stores)) {
      const parts = op.parts.filter((p) => keep.includes(p.store));
      out.add(
        canonicalJson(
          spec.body(
            parts.map((p) => p.element),
            op.params ?? {},
          ),
        ),
      );
    }
  }
  return out;
}

/**
 * What a store's part looks like inside a body: the body of that store alone, unwrapped while it is an
 * array of one element or an object of one member (`[{store_integration_id, items}]` → the entry,
 * `{stores: ["1"]}` → `"1"`), as canonical JSON.
 */
function partMark(body: unknown): string {
  let v = body;
  for (;;) {
    if (Array.isArray(v) && v.length === 1) v = v[0];
    else if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 1) {
      v = Object.values(v)[0];
    } else return canonicalJson(v);
  }
}

/**
 * For a call serving more stores than {@link subsets} enumerates: the body of the stores whose part
 * ({@link partMark}) appears in `sent` (canonical JSON), as canonical JSON. The caller compares it
 * whole with `sent`: this finds which stores a body was sent for, and never accepts another body.
 */
function bodyOfStoresIn(op: Operation, sent: string): string | undefined {
  if (!op.parts || op.parts.length <= 1) return undefined;
  const spec = endpoint(op.endpoint);
  const params = op.params ?? {};
  const stores = [...new Set(op.parts.map((p) => p.store))];
  const elementsOf = (keep: readonly string[]) =>
    op.parts!.filter((p) => keep.includes(p.store)).map((p) => p.element);
  const keep = stores.filter((store) => sent.includes(partMark(spec.body(elementsOf([store]), params))));
  return keep.length === 0 ? undefined : canonicalJson(spec.body(elementsOf(keep), params));
}

/** Whether a recorded request is a sending of the operation. */
export function sends(op: Operation, r: RecordedRequest, bodies = bodiesOf(op)): boolean {
  if (r.method !== op.method || fullPath(r) !== op.path) return false;
  const sent = canonicalJson(r.body);
  return bodies.has(sent) || (sent !== undefined && bodyOfStoresIn(op, sent) === sent);
}

/**
 * The writes among `requests` that no operation of the plans carries. A `reset-secret` of an event the
 * plans create a webhook for is allowed (a create whose answer was lost has its secret rotated). A
 * request the platform never received whole (`fault: "incomplete"`, its connection cut on the way in)
 * is not a write: nothing of it was processed, and its body is unknown.
 */
export function writesOutside(
  plans: readonly Plan[],
  requests: readonly RecordedRequest[],
): RecordedRequest[] {
  const ops = plans.flatMap((p) => p.operations).map((op) => ({ op, bodies: bodiesOf(op) }));
  const created = new Set(
    plans.flatMap((p) =>
      p.operations.filter((o) => o.endpoint === "webhook.create").map((o) => o.params?.event),
    ),
  );
  return requests.filter((r) => {
    if (!isWriteRequest(r) || r.fault === "incomplete") return false;
    if (ops.some(({ op, bodies }) => sends(op, r, bodies))) return false;
    const reset = /\/webhook\/([^/]+)\/reset-secret$/.exec(r.path);
    return !(r.method === "PUT" && reset && created.has(decodeURIComponent(reset[1]!)));
  });
}

/**
 * The operations whose result in an apply report does not match what the platform received in
 * `requests` (the requests of that apply): `ok` never processed, `skipped` sent, `failed` processed
 * (allowed when the result says the outcome is unknown, or that the call was made but rotating its
 * secret failed). One line per mismatch.
 */
export function reportMismatches(
  plan: Plan,
  results: readonly OperationResult[],
  requests: readonly RecordedRequest[],
): string[] {
  const out: string[] = [];
  for (const result of results) {
    const op = plan.operations.find((o) => o.id === result.id);
    if (!op) {
      out.push(`${result.id}: not an operation of the plan`);
      continue;
    }
    const bodies = bodiesOf(op);
    const sent = requests.filter((r) => sends(op, r, bodies));
    const made = sent.some(processed);
    const msg = result.message ?? "";
    if (result.status === "skipped" && sent.length > 0) out.push(`${op.id}: reported skipped, but sent`);
    if (result.status === "ok" && !made)
      out.push(`${op.id}: reported ok, but the platform never processed it`);
    if (
      result.status === "failed" &&
      made &&
      !msg.includes("outcome unknown") &&
      !msg.includes("rotating the secret failed")
    ) {
      out.push(`${op.id}: reported failed (${msg}), but the platform processed it`);
    }
  }
  return out;
}

/**
 * The items the files hold off (`unavailable:`) that `current` shows off without carte's marker
 * (`suspend_reason: "carte"`), as `store SKU`: after a converged apply each is a marker lost, an item
 * carte would leave off, as if staff had switched it off, once the files list it again. Items the
 * platform shows on are not counted (a plan still switches them off).
 */
export function lostMarkers(desired: DesiredState, current: CurrentState): string[] {
  const out: string[] = [];
  for (const store of Object.keys(desired.stores).sort()) {
    const want = desired.stores[store]!;
    const have = own(current.stores, store);
    if (!have) continue;
    const off = new Set(availabilityOf(have).unavailable);
    for (const sku of availabilityOf(want).unavailable) {
      if (own(itemsOf(want), sku)?.type !== "ITEM" || !off.has(sku)) continue;
      if (own(availabilityOf(have).suspensions, sku)?.byCarte !== true) out.push(`${store} ${sku}`);
    }
  }
  return out;
}

/**
 * Webhook secrets lost, as lines: each per-store event the platform has configured whose secret the
 * secrets file `file` does not hold, and the marker beside the file (`FILE.pending`, src/run/secrets.ts)
 * when one is left (a secret said to be on its way in, never settled).
 *
 * @throws the error of {@link readSecretsFile} when the file cannot be read or is not a map of secrets;
 *   `ApiError` when the webhooks cannot be listed.
 */
export async function lostSecrets(client: PlatformClient, file: string): Promise<string[]> {
  const saved = await readSecretsFile(file);
  const out: string[] = [];
  for (const hook of await listWebhooks(client)) {
    const event = String(hook.event);
    if (hook.stores.length > 0 && !Object.hasOwn(saved, event)) out.push(`${event}: no secret saved`);
  }
  const pending = pendingFileOf(file);
  const left = await access(pending).then(
    () => true,
    () => false,
  );
  if (left) out.push(`${pending} left behind`);
  return out.sort();
}
