/**
 * Webhook deliveries of the emulator (docs/platform-api.md §4.5): real HTTP POSTs of a JSON
 * body to the URL configured for the event and store (webhook-config.ts), signed
 * `Platform-Signature: t=<unix seconds>,sign=<hex HMAC-SHA256 keyed with the secret over "<t>." + body>`.
 *
 * Deliveries go only to URLs a client configured. They are fire-and-forget: never awaited on the request
 * path, one attempt with a short timeout (default 2 s), no retries (the platform's retry policy is not
 * documented; the emulator does not invent one). Each attempt is recorded in a bounded log (last 1000)
 * with its HTTP status or error, readable from `GET /__emulator/deliveries`.
 *
 * What triggers a delivery:
 * - an accepted menu write (`POST /store-menu`, `/menu`, `/categories`, `/items`) when it becomes visible:
 *   MENU_APPROVED `{store_id, message: "Menu Approved"}` (docs/platform-api.md §4.3). Menu writes
 *   are validated when accepted, so the emulator never sends MENU_REJECTED on its own;
 * - an asynchronous store availability change: STORE_CONNECTIVITY `{external_store_id, enabled, message}`
 *   through {@link EmulatorState.onStoreConnectivity};
 * - on demand: `POST /__emulator/webhooks/trigger` or `RunningEmulator.trigger` (e.g. PING `{store_id}`).
 */

import { createHmac } from "node:crypto";

import { Agent, request } from "undici";

import { fail } from "./http.js";
import type { EmulatorState, StoreRec } from "./state.js";
import { CLIENT_EVENTS, STORE_EVENTS, webhooksOf } from "./webhook-config.js";

/** Header carrying the signature (docs/platform-api.md §4.5). */
export const SIGNATURE_HEADER = "Platform-Signature";

/** `message` of MENU_APPROVED (docs/platform-api.md §4.3). */
export const MENU_APPROVED_MESSAGE = "Menu Approved";

/** Write kinds (see {@link EmulatorState.accept}) whose processing ends with MENU_APPROVED. */
const MENU_KINDS = new Set(["store-menu", "menu", "categories", "items"]);

/** One delivery attempt. */
export interface DeliveryRecord {
  /** Sequence number, from 1. */
  id: number;
  /** When it was sent, ms since the epoch. */
  at: number;
  event: string;
  client_id: string;
  /** The store the event is about; null for client-level events without a store. */
  store_id: string | null;
  url: string;
  /** The JSON body sent. */
  body: unknown;
  /** Whether a `Platform-Signature` header was sent. */
  signed: boolean;
  /** HTTP status of the receiver's answer, once received. */
  status?: number;
  /** Why no answer was received (timeout, connection refused, ...). */
  error?: string;
  /** Duration, once finished. */
  ms?: number;
}

/** Options of the deliveries. */
export interface EventOptions {
  /** Timeout of one delivery (connect to end of answer); default 2000 ms. */
  timeoutMs?: number;
  /** Size of the deliveries log; default 1000. */
  maxLog?: number;
  log?: ((line: string) => void) | undefined;
}

/** `sign` of `Platform-Signature`: hex HMAC-SHA256 keyed with `secret` over `"<t>." + body`. */
export function signature(secret: string, t: number, body: string): string {
  return createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
}

/** Value of the `Platform-Signature` header (docs/platform-api.md §4.5). */
export function signatureHeader(secret: string, t: number, body: string): string {
  return `t=${t},sign=${signature(secret, t, body)}`;
}

/**
 * Default payload of an event for a store (docs/platform-api.md §4.5). Store ids are strings as
 * elsewhere on this API; `external_store_id` is the store's integration id. Events whose payload is not
 * documented (orders, RT tracking, provisioning) get `{event, store_id}` (emulator's choice).
 */
export function defaultPayload(event: string, store: StoreRec | undefined, clientId: string): unknown {
  const store_id = store?.key ?? null;
  switch (event) {
    case "PING":
    case "MENU_REJECTED":
      return { store_id };
    case "MENU_APPROVED":
      return { store_id, message: MENU_APPROVED_MESSAGE };
    case "STORE_CONNECTIVITY":
      return { external_store_id: store?.integration_id ?? null, enabled: true, message: "Store enabled" };
    case "ORDER_EVENT_CANCEL":
      return { event, order_id: 1, store_id };
    case "STORE_PROVISIONING_STATUS":
      return { event, client_id: clientId, store_id };
    default:
      return { event, store_id };
  }
}

/** Sends and records webhook deliveries of one emulator. */
export class EventBus {
  /** The deliveries log, oldest first (same array for the emulator's life). */
  readonly deliveries: DeliveryRecord[] = [];
  private readonly state: EmulatorState;
  private readonly timeoutMs: number;
  private readonly maxLog: number;
  private readonly log: ((line: string) => void) | undefined;
  private readonly agent: Agent;
  private readonly inflight = new Set<Promise<void>>();
  private nextId = 1;

  constructor(state: EmulatorState, opts: EventOptions = {}) {
    this.state = state;
    this.timeoutMs = opts.timeoutMs ?? 2000;
    this.maxLog = opts.maxLog ?? 1000;
    this.log = opts.log;
    this.agent = new Agent({ keepAliveTimeout: 1000, connect: { timeout: this.timeoutMs } });
  }

  /** Delivers a per-store event to the store's ENABLE webhook, if any. Never rejects. */
  emit(store: StoreRec, event: string, payload: unknown): Promise<DeliveryRecord[]> {
    const target = webhooksOf(this.state).target(store, event);
    if (!target) return Promise.resolve([]);
    return this.send(event, store.client_id, store.key, target.url, target.secret, payload).then((r) => [r]);
  }

  /** Delivers a client-level event (unsigned when the webhook has no secret). Never rejects. */
  emitClient(clientId: string, event: string, payload: unknown): Promise<DeliveryRecord[]> {
    const hook = webhooksOf(this.state).clientHooks.get(clientId)?.get(event);
    // "": its secret is still sealed in a loaded state file (the client has not logged in since).
    if (!hook || hook.secret === "") return Promise.resolve([]);
    const storeId = (payload as { store_id?: unknown } | null)?.store_id;
    return this.send(
      event,
      clientId,
      typeof storeId === "string" ? storeId : null,
      hook.url,
      hook.secret,
      payload,
    ).then((r) => [r]);
  }

  /**
   * Sends an event on demand (control API). Per-store events need `storeId`; STORE_PROVISIONING_STATUS
   * needs `clientId` (or a store, whose client is used). `payload` replaces {@link defaultPayload}.
   * Resolves with the deliveries made (none when no ENABLE webhook matches). Throws an
   * `HttpError` (400/404) on a bad event or store.
   */
  trigger(
    event: string,
    target: { storeId?: string | number | undefined; clientId?: string | undefined },
    payload?: unknown,
  ): Promise<DeliveryRecord[]> {
    const store = target.storeId === undefined ? undefined : this.state.stores.get(String(target.storeId));
    if (target.storeId !== undefined && !store) throw fail(404, `Store ${String(target.storeId)} not found`);
    if ((CLIENT_EVENTS as readonly string[]).includes(event)) {
      const clientId = target.clientId ?? store?.client_id;
      if (clientId === undefined) throw fail(400, "client_id or store_id is required");
      return this.emitClient(clientId, event, payload ?? defaultPayload(event, store, clientId));
    }
    if (!(STORE_EVENTS as readonly string[]).includes(event)) throw fail(400, `Unknown event ${event}`);
    if (!store) throw fail(400, "store_id is required");
    return this.emit(store, event, payload ?? defaultPayload(event, store, store.client_id));
  }

  /** Resolves once every delivery under way has finished. */
  async settled(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  /** Empties the deliveries log. */
  clear(): void {
    this.deliveries.length = 0;
  }

  /** Waits for deliveries under way (each bounded by the timeout), then closes the connections. */
  async close(): Promise<void> {
    await this.settled();
    await this.agent.close();
  }

  private send(
    event: string,
    clientId: string,
    storeId: string | null,
    url: string,
    secret: string | null,
    payload: unknown,
  ): Promise<DeliveryRecord> {
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "carte-emulator",
    };
    if (secret !== null)
      headers[SIGNATURE_HEADER] = signatureHeader(secret, Math.floor(Date.now() / 1000), body);
    const rec: DeliveryRecord = {
      id: this.nextId++,
      at: Date.now(),
      event,
      client_id: clientId,
      store_id: storeId,
      url,
      body: payload,
      signed: secret !== null,
    };
    this.deliveries.push(rec);
    if (this.deliveries.length > this.maxLog) this.deliveries.splice(0, this.deliveries.length - this.maxLog);
    const started = Date.now();
    const done = (async () => {
      try {
        const res = await request(url, {
          method: "POST",
          headers,
          body,
          dispatcher: this.agent,
          signal: AbortSignal.timeout(this.timeoutMs),
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
        });
        await res.body.dump();
        rec.status = res.statusCode;
      } catch (e) {
        const err = e as Error & { cause?: Error };
        rec.error = err.name === "TimeoutError" ? "timeout" : (err.cause?.message ?? err.message);
      }
      rec.ms = Date.now() - started;
      this.log?.(`webhook ${event} -> ${url} ${rec.status ?? rec.error ?? ""} ${rec.ms}ms`);
    })();
    this.inflight.add(done);
    void done.finally(() => this.inflight.delete(done));
    return done.then(() => rec);
  }
}

const buses = new WeakMap<EmulatorState, EventBus>();

/**
 * Creates the deliveries of an emulator state and hooks them to its events: MENU_APPROVED after an
 * applied menu write ({@link EmulatorState.onApplied}) and STORE_CONNECTIVITY after an asynchronous
 * store availability change ({@link EmulatorState.onStoreConnectivity}).
 */
export function attachEvents(state: EmulatorState, opts: EventOptions = {}): EventBus {
  const bus = new EventBus(state, opts);
  buses.set(state, bus);
  webhooksOf(state);
  state.onApplied = (store, kind) => {
    if (kind !== undefined && MENU_KINDS.has(kind)) {
      void bus.emit(store, "MENU_APPROVED", { store_id: store.key, message: MENU_APPROVED_MESSAGE });
    }
  };
  state.onStoreConnectivity = (store, enabled, message) => {
    void bus.emit(store, "STORE_CONNECTIVITY", {
      external_store_id: store.integration_id,
      enabled,
      message: message ?? (enabled ? "Store enabled" : "Store disabled"),
    });
  };
  return bus;
}

/** The deliveries of an emulator state, if {@link attachEvents} was called. */
export function eventsOf(state: EmulatorState): EventBus | undefined {
  return buses.get(state);
}
