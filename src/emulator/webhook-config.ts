/**
 * Webhook configuration of the emulator (docs/platform-api.md §4.5, §4.9, §2.7), prefix
 * `/api/v2/restaurants-integrations-public-api`, integrations token. Webhooks belong to the
 * authenticated client: per event, a secret and, per store, a URL and a state (ENABLE or DISABLE).
 * Client-level webhooks (self-onboarding, event `STORE_PROVISIONING_STATUS` only) are kept apart.
 *
 * The configuration is saved in the state file (part `webhooks`) and emptied by the control reset.
 * Deliveries are sent by events.ts.
 *
 * Emulator's choices where the spec says "not shown" (listed in docs/platform-api.md §3.8):
 * - `POST /webhook` answers 200; posting an event again keeps its secret and upserts the listed stores.
 * - add-stores takes the listed stores to ENABLE whether or not the event has a configuration
 *   (docs/platform-api.md §4.9: a store goes from no webhook to ENABLE by POST webhook or PUT add-stores);
 *   for an event with none (never created, or its last store removed) it creates one with a new secret, which
 *   its answer does not carry (`reset-secret` tells it). It (re)enables a store already present.
 * - The other narrow calls (change-url, remove-stores, reset-secret, change-status) on an event without
 *   configuration answer 404; change-url, remove-stores and change-status also answer 404 for a store
 *   that is not in the event's configuration.
 * - Removing the last store of an event drops the event's configuration and its secret.
 * - `stores` in answers are sorted by store id; `remove-stores` answers the removed ids.
 * - Store ids are strings on this API (docs/platform-api.md §4.5); numbers are refused (400).
 * - Client-level webhooks live under the same prefix: `/clients/{clientId}/webhooks`.
 */

import { CLIENT_WEBHOOK_EVENTS, STORE_WEBHOOK_EVENTS } from "../platform/wire.js";
import { randomBytes } from "node:crypto";

import type {
  ClientWebhookCreate,
  WebhookAddStores,
  WebhookChangeUrl,
  WebhookCreate,
  WebhookRemoveStores,
  WebhookState,
  WebhookStore,
} from "../generated/platform.js";
import { HttpError, badShape, fail, ok } from "./http.js";
import type { Reply, Route, RouteContext } from "./http.js";
import type { EmulatorState, StatePart, StoreRec } from "./state.js";
import { jsonParts, type JsonParts } from "./json-parts.js";

/** Event names of per-store webhooks (docs/platform-api.md §4.5). */
export const STORE_EVENTS = STORE_WEBHOOK_EVENTS;

/** A per-store event name. */
export type StoreEvent = (typeof STORE_EVENTS)[number];

/** The only event of client-level webhooks (docs/platform-api.md §4.5). */
export const CLIENT_EVENTS = CLIENT_WEBHOOK_EVENTS;

/** A client-level event name. */
export type ClientEvent = (typeof CLIENT_EVENTS)[number];

/** Answer of `DELETE /webhook/{event}/remove-stores` (docs/platform-api.md §4.5). */
export const REMOVED_MESSAGE = "Store settings removed successfully.";

/** State of a store's webhook (docs/platform-api.md §4.5, §4.9; schema `webhooks#WebhookState`). */
export type HookState = WebhookState;

/** A store's entry in an event configuration. */
export interface StoreHook {
  url: string;
  state: HookState;
}

/**
 * One client's configuration of one per-store event: its secret and its stores by store key. `secret`
 * is `""` while it is still sealed in a loaded state file (the client has not logged in since).
 */
export interface EventConfig {
  secret: string;
  stores: Map<string, StoreHook>;
  /** The secret as sealed in the state file (credentials.ts), and which secret that seal holds. */
  sealed?: { value: string; of: string } | undefined;
}

/**
 * A client-level webhook. `secret: null`: created without one, delivered unsigned
 * (docs/platform-api.md §4.5); `""` while still sealed in a loaded state file.
 */
export interface ClientHook {
  event: ClientEvent;
  url: string;
  secret: string | null;
  sealed?: { value: string; of: string } | undefined;
}

/**
 * Body of `change-status`: `{stores: {enable?, disable?}}`, at least one list (schema
 * `webhooks#WebhookChangeStatus`, whose generated `stores` is an open object because of its `anyOf`).
 */
interface ChangeStatusBody {
  stores: { enable?: string[]; disable?: string[] };
}

/** Wire element of `stores` (docs/platform-api.md §4.5; schema `webhooks#WebhookStore`). */
export type WireStoreHook = WebhookStore;

/**
 * The registry in the state file. Secrets are sealed with the owning client's secret (`sealed`,
 * credentials.ts); files of older versions carry `secret` in clear, still read and sealed at the next
 * write.
 */
interface Snapshot {
  events: { client_id: string; event: string; secret?: string; sealed?: string; stores: WireStoreHook[] }[];
  clientHooks: {
    client_id: string;
    event: ClientEvent;
    url: string;
    secret?: string | null;
    sealed?: string;
  }[];
}

/** Orders decimal store keys numerically. */
export function byStoreKey(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function newSecret(): string {
  return randomBytes(24).toString("hex");
}

/** Every client's webhook configuration; a {@link StatePart} named `webhooks`. */
export class WebhookRegistry implements StatePart {
  /** client id → event → configuration. */
  readonly events = new Map<string, Map<string, EventConfig>>();
  /** client id → event → client-level webhook. */
  readonly clientHooks = new Map<string, Map<string, ClientHook>>();
  private readonly state: EmulatorState;

  constructor(state: EmulatorState) {
    this.state = state;
    state.onClientUnlocked((client) => this.unseal(client.client_id));
  }

  /** Opens the sealed secrets of a client whose secret just became known. */
  private unseal(clientId: string): void {
    const secret = this.state.clients.get(clientId)?.secret;
    if (!secret?.known) return;
    const open = (sealed: { value: string; of: string } | undefined): string | undefined => {
      if (!sealed) return undefined;
      // A seal of another secret (the client's secret changed): the webhook secret is lost, as it
      // would be on a platform whose client was re-created; a new one is made.
      return secret.open(sealed.value) ?? newSecret();
    };
    for (const cfg of this.events.get(clientId)?.values() ?? []) {
      if (cfg.secret === "") cfg.secret = open(cfg.sealed) ?? newSecret();
    }
    for (const hook of this.clientHooks.get(clientId)?.values() ?? []) {
      if (hook.secret === "") hook.secret = open(hook.sealed) ?? null;
    }
  }

  /** A secret as the state file keeps it: sealed with the client's secret, never in clear. */
  private sealFor(
    clientId: string,
    holder: { secret: string | null; sealed?: { value: string; of: string } | undefined },
  ): string | undefined {
    const secret = holder.secret;
    if (secret === null) return undefined;
    // Still sealed, or sealed already: the same seal.
    if (secret === "" || holder.sealed?.of === secret) return holder.sealed?.value;
    const client = this.state.clients.get(clientId)?.secret;
    if (!client?.known) return undefined; // cannot happen for a client that made the webhook; kept nowhere
    holder.sealed = { value: client.seal(secret), of: secret };
    return holder.sealed.value;
  }

  config(clientId: string, event: string): EventConfig | undefined {
    return this.events.get(clientId)?.get(event);
  }

  /** The configuration of an event, created with a new secret when missing. */
  ensure(clientId: string, event: string): EventConfig {
    let byEvent = this.events.get(clientId);
    if (!byEvent) this.events.set(clientId, (byEvent = new Map()));
    let cfg = byEvent.get(event);
    if (!cfg) byEvent.set(event, (cfg = { secret: newSecret(), stores: new Map() }));
    return cfg;
  }

  drop(clientId: string, event: string): void {
    this.events.get(clientId)?.delete(event);
  }

  resetSecret(cfg: EventConfig): string {
    cfg.secret = newSecret();
    return cfg.secret;
  }

  /** Changes so far: a rendered list of webhooks ({@link listAnswer}) is good while it stays the same. */
  private version = 0;
  /** Rendered webhook lists by client and event asked, with the {@link version} they show. */
  private readonly lists = new Map<string, { version: number; json: JsonParts }>();

  /** Call after every change: schedules a write of the state file. */
  changed(): void {
    this.version++;
    this.state.requestPersist();
  }

  /**
   * The answer of a webhook list read (`key`: the client and the event asked), rendered by `build`
   * (which checks it) once for each state of the webhooks: every store of a chain lists the same
   * webhooks, and the reads that verify an apply read them once per batch of stores.
   */
  listAnswer(key: string, build: () => JsonParts): JsonParts {
    const seen = this.lists.get(key);
    if (seen && seen.version === this.version) return seen.json;
    const json = build();
    this.lists.set(key, { version: this.version, json });
    return json;
  }

  /** Where an event for a store goes: its URL and secret when the store's webhook is ENABLE. */
  /**
   * Where an event for a store goes: its URL and secret when the store's webhook is ENABLE (and its
   * secret is open: after a restart, once the client has logged in).
   */
  target(store: StoreRec, event: string): { url: string; secret: string } | undefined {
    const cfg = this.config(store.client_id, event);
    const hook = cfg?.stores.get(store.key);
    return cfg && hook && hook.state === "ENABLE" && cfg.secret !== ""
      ? { url: hook.url, secret: cfg.secret }
      : undefined;
  }

  save(): Snapshot {
    const snap: Snapshot = { events: [], clientHooks: [] };
    for (const [client_id, byEvent] of this.events) {
      for (const [event, cfg] of byEvent) {
        const sealed = this.sealFor(client_id, cfg);
        snap.events.push({ client_id, event, ...(sealed ? { sealed } : {}), stores: renderStores(cfg) });
      }
    }
    for (const [client_id, byEvent] of this.clientHooks) {
      for (const h of byEvent.values()) {
        const sealed = this.sealFor(client_id, h);
        snap.clientHooks.push({
          client_id,
          event: h.event,
          url: h.url,
          ...(sealed ? { sealed } : { secret: null }),
        });
      }
    }
    return snap;
  }

  load(data: unknown): void {
    this.version++;
    const snap = data as Partial<Snapshot> | null;
    let clear = false;
    for (const e of snap?.events ?? []) {
      const cfg = this.ensure(e.client_id, e.event);
      if (typeof e.secret === "string") {
        cfg.secret = e.secret;
        clear = true;
      } else if (typeof e.sealed === "string") {
        cfg.secret = "";
        cfg.sealed = { value: e.sealed, of: "" };
      }
      for (const s of e.stores) cfg.stores.set(s.store_id, { url: s.url, state: s.state });
    }
    for (const h of snap?.clientHooks ?? []) {
      let byEvent = this.clientHooks.get(h.client_id);
      if (!byEvent) this.clientHooks.set(h.client_id, (byEvent = new Map()));
      const hook: ClientHook = { event: h.event, url: h.url, secret: h.secret ?? null };
      if (typeof h.sealed === "string") {
        hook.secret = "";
        hook.sealed = { value: h.sealed, of: "" };
      } else if (typeof h.secret === "string") clear = true;
      byEvent.set(h.event, hook);
    }
    // Clients already known in clear (an older state file) open theirs at once.
    for (const clientId of new Set([...this.events.keys(), ...this.clientHooks.keys()]))
      this.unseal(clientId);
    // A file of an older version with secrets in clear: sealed at once.
    if (clear) this.state.requestPersist();
  }

  reset(): void {
    this.version++;
    this.events.clear();
    this.clientHooks.clear();
  }
}

const registries = new WeakMap<EmulatorState, WebhookRegistry>();

/** The webhook registry of an emulator state, created (and registered for persistence) on first use. */
export function webhooksOf(state: EmulatorState): WebhookRegistry {
  let reg = registries.get(state);
  if (!reg) {
    reg = new WebhookRegistry(state);
    registries.set(state, reg);
    state.registerPart("webhooks", reg);
  }
  return reg;
}

/** `stores` of a configuration as served (docs/platform-api.md §4.5), sorted by store id. */
export function renderStores(cfg: EventConfig): WireStoreHook[] {
  return [...cfg.stores.keys()].sort(byStoreKey).map((store_id) => {
    const h = cfg.stores.get(store_id)!;
    return { store_id, url: h.url, state: h.state };
  });
}

// ---- platform rules --------------------------------------------------------------------------------
//
// Bodies reach the handlers checked against the route's schema (server.ts: `webhooks#WebhookCreate`,
// `#WebhookAddStores`, `#WebhookChangeUrl`, `#WebhookRemoveStores`, `#WebhookChangeStatus`,
// `#ClientWebhookCreate`): required fields, types, non-empty store lists. What is left here: event names
// (406, not 400, so the schemas keep them plain strings), absolute http(s) URLs, store ownership, a store
// in both lists of change-status, and the state of the configuration.

/** An unknown or misplaced event name: 406 `{message}` (docs/platform-api.md §4.10, §4.5). */
function badEvent(event: string): HttpError {
  return fail(406, `Invalid event ${event}`);
}

/** An event name of the path or of a checked body (never empty). */
function storeEvent(raw: string): StoreEvent {
  if (!(STORE_EVENTS as readonly string[]).includes(raw)) throw badEvent(raw);
  return raw as StoreEvent;
}

/** A client-level event name of a checked body, or of the `event` query parameter (400 when absent). */
function clientEvent(raw: string): ClientEvent {
  if (raw === "") throw badShape("event is required");
  if (!(CLIENT_EVENTS as readonly string[]).includes(raw)) throw badEvent(raw);
  return raw as ClientEvent;
}

/** A webhook URL (a non-empty string, checked by the schema): an absolute http or https URL. */
export function checkUrl(raw: string, where: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw badShape(`${where} must be an absolute http or https URL`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw badShape(`${where} must be an absolute http or https URL`);
  }
  return raw;
}

/**
 * The stores of a non-empty list of store ids (strings, docs/platform-api.md §4.5; checked by the schema),
 * each a store of the authenticated client: unknown → 404, another client's → 400 with the usual message
 * (docs/platform-api.md §4.2).
 */
function storeList(ctx: RouteContext, ids: string[]): StoreRec[] {
  return ids.map((v) => ctx.state.storeForClient(v, ctx.clientId));
}

function configOf(ctx: RouteContext, event: string): EventConfig {
  const cfg = webhooksOf(ctx.state).config(ctx.clientId, event);
  if (!cfg) throw fail(404, `Webhook for event ${event} not found`);
  return cfg;
}

function configured(cfg: EventConfig, stores: StoreRec[], event: string): void {
  const missing = stores.filter((s) => !cfg.stores.has(s.key)).map((s) => s.key);
  if (missing.length > 0) {
    throw fail(404, `The stores ${missing.join(", ")} are not configured for webhook ${event}`);
  }
}

// ---- per-store webhooks --------------------------------------------------------------------------

/**
 * `GET /webhook` and `GET /webhook/{event}` (docs/platform-api.md §2.7): `[{event, stores}]`; `[]` when not
 * configured.
 */
function listWebhooks(ctx: RouteContext): Reply {
  const reg = webhooksOf(ctx.state);
  const events = ctx.params.event === undefined ? STORE_EVENTS : [storeEvent(ctx.params.event)];
  const key = `${ctx.clientId}\u0000${ctx.params.event ?? ""}`;
  const json = reg.listAnswer(key, () => {
    const out: { event: string; stores: WireStoreHook[] }[] = [];
    for (const event of events) {
      const cfg = reg.config(ctx.clientId, event);
      if (cfg && cfg.stores.size > 0) out.push({ event, stores: renderStores(cfg) });
    }
    // The strict emulator checks a list once, when it is rendered.
    ctx.checkAnswer?.(out);
    return jsonParts(out);
  });
  return { status: 200, json, checked: true };
}

/**
 * `POST /webhook` (docs/platform-api.md §2.7): `{event, data: [{url, stores?}]}`; `stores` omitted → every
 * store of the client. Listed stores get the URL and state ENABLE (docs/platform-api.md §4.9). Answers
 * `{event, stores: [{url, store_id, state}], secret}` with the stores of this call.
 */
function createWebhook(ctx: RouteContext): Reply {
  const b = ctx.body as WebhookCreate;
  const event = storeEvent(b.event);
  const assign = new Map<string, string>();
  b.data.forEach((d, i) => {
    const url = checkUrl(d.url, `data[${i}].url`);
    const keys =
      d.stores === undefined
        ? [...(ctx.state.clients.get(ctx.clientId)?.stores ?? [])]
        : storeList(ctx, d.stores).map((s) => s.key);
    for (const k of keys) assign.set(k, url);
  });
  const reg = webhooksOf(ctx.state);
  const cfg = reg.ensure(ctx.clientId, event);
  for (const [k, url] of assign) cfg.stores.set(k, { url, state: "ENABLE" });
  if (cfg.stores.size === 0) reg.drop(ctx.clientId, event);
  reg.changed();
  const stores = [...assign.keys()]
    .sort(byStoreKey)
    .map((store_id) => ({ url: assign.get(store_id)!, store_id, state: "ENABLE" as const }));
  return ok({ event, stores, secret: cfg.secret });
}

/**
 * `PUT /webhook/{event}/add-stores` (docs/platform-api.md §4.5): `[{url, stores}]` → `{event, stores}`. The
 * listed stores go to ENABLE (docs/platform-api.md §4.9), also when the event has no configuration yet
 * (created, new secret).
 */
function addStores(ctx: RouteContext): Reply {
  const event = storeEvent(ctx.params.event!);
  const assign: [string, string][] = [];
  (ctx.body as WebhookAddStores).forEach((d, i) => {
    const url = checkUrl(d.url, `[${i}].url`);
    for (const s of storeList(ctx, d.stores)) assign.push([s.key, url]);
  });
  const reg = webhooksOf(ctx.state);
  const cfg = reg.ensure(ctx.clientId, event);
  for (const [k, url] of assign) cfg.stores.set(k, { url, state: "ENABLE" });
  reg.changed();
  return ok({ event, stores: renderStores(cfg) });
}

/**
 * `PUT /webhook/{event}/change-url` (docs/platform-api.md §4.5): `{url, stores}` → `{event, stores}`; state
 * kept.
 */
function changeUrl(ctx: RouteContext): Reply {
  const event = storeEvent(ctx.params.event!);
  const b = ctx.body as WebhookChangeUrl;
  const url = checkUrl(b.url, "url");
  const stores = storeList(ctx, b.stores);
  const cfg = configOf(ctx, event);
  configured(cfg, stores, event);
  for (const s of stores) cfg.stores.set(s.key, { ...cfg.stores.get(s.key)!, url });
  webhooksOf(ctx.state).changed();
  return ok({ event, stores: renderStores(cfg) });
}

/**
 * `DELETE /webhook/{event}/remove-stores` (docs/platform-api.md §4.5): `{stores: ["1000"]}` →
 * `{stores, message: "Store settings removed successfully."}` with the removed ids.
 */
function removeStores(ctx: RouteContext): Reply {
  const event = storeEvent(ctx.params.event!);
  const stores = storeList(ctx, (ctx.body as WebhookRemoveStores).stores);
  const reg = webhooksOf(ctx.state);
  const cfg = configOf(ctx, event);
  configured(cfg, stores, event);
  for (const s of stores) cfg.stores.delete(s.key);
  if (cfg.stores.size === 0) reg.drop(ctx.clientId, event);
  reg.changed();
  const removed = [...new Set(stores.map((s) => s.key))].sort(byStoreKey);
  return ok({ stores: removed, message: REMOVED_MESSAGE });
}

/**
 * `PUT /webhook/{event}/reset-secret` (docs/platform-api.md §4.5): no body → `{event, stores, secret}` (new
 * secret).
 */
function resetSecret(ctx: RouteContext): Reply {
  const event = storeEvent(ctx.params.event!);
  const reg = webhooksOf(ctx.state);
  const cfg = configOf(ctx, event);
  const secret = reg.resetSecret(cfg);
  reg.changed();
  return ok({ event, stores: renderStores(cfg), secret });
}

/**
 * `PUT /webhook/{event}/change-status` (docs/platform-api.md §4.5): `{stores: {enable?: [...], disable?:
 * [...]}}`, at least one list; a store in both lists: 400. → `{event, stores}` (docs/platform-api.md §4.9:
 * ENABLE ⇄ DISABLE).
 */
function changeStatus(ctx: RouteContext): Reply {
  const event = storeEvent(ctx.params.event!);
  const { enable, disable } = (ctx.body as ChangeStatusBody).stores;
  const on = enable === undefined ? [] : storeList(ctx, enable);
  const off = disable === undefined ? [] : storeList(ctx, disable);
  const offKeys = new Set(off.map((s) => s.key));
  const both = on.find((s) => offKeys.has(s.key));
  if (both) throw badShape(`store ${both.key} is both in stores.enable and stores.disable`);
  const cfg = configOf(ctx, event);
  configured(cfg, [...on, ...off], event);
  for (const s of on) cfg.stores.set(s.key, { ...cfg.stores.get(s.key)!, state: "ENABLE" });
  for (const s of off) cfg.stores.set(s.key, { ...cfg.stores.get(s.key)!, state: "DISABLE" });
  webhooksOf(ctx.state).changed();
  return ok({ event, stores: renderStores(cfg) });
}

// ---- client-level webhooks ------------------------------------------------------------------------

/** Answer element of the client-level calls (docs/platform-api.md §4.5): `state` is a boolean here. */
function renderClientHook(clientId: string, h: ClientHook): Record<string, unknown> {
  return { clientId, event: h.event, url: h.url, state: true };
}

/** The `{clientId}` of the path must be the authenticated client: otherwise 403. */
function ownClient(ctx: RouteContext): string {
  if (ctx.params.clientId !== ctx.clientId) throw fail(403, "Forbidden");
  return ctx.clientId;
}

/**
 * `POST /clients/{clientId}/webhooks` (docs/platform-api.md §4.5): `{event: "STORE_PROVISIONING_STATUS", url,
 * secret?}` → 201 `{clientId, event, url, state: true}`, 200 when it replaced an existing one.
 */
function putClientHook(ctx: RouteContext): Reply {
  const clientId = ownClient(ctx);
  const b = ctx.body as ClientWebhookCreate;
  const event = clientEvent(b.event);
  const url = checkUrl(b.url, "url");
  if (b.secret === "") throw badShape("secret must be a non-empty string");
  const reg = webhooksOf(ctx.state);
  let byEvent = reg.clientHooks.get(clientId);
  if (!byEvent) reg.clientHooks.set(clientId, (byEvent = new Map()));
  const existed = byEvent.has(event);
  const hook: ClientHook = { event, url, secret: typeof b.secret === "string" ? b.secret : null };
  byEvent.set(event, hook);
  reg.changed();
  return { status: existed ? 200 : 201, body: renderClientHook(clientId, hook) };
}

/**
 * `GET /clients/{clientId}/webhooks` (docs/platform-api.md §4.5): array of `{clientId, event, url, state}`.
 */
function listClientHooks(ctx: RouteContext): Reply {
  const clientId = ownClient(ctx);
  const byEvent = webhooksOf(ctx.state).clientHooks.get(clientId);
  return ok([...(byEvent?.values() ?? [])].map((h) => renderClientHook(clientId, h)));
}

/** `DELETE /clients/{clientId}/webhooks?event=...` (docs/platform-api.md §4.5) → 204; not configured: 404. */
function deleteClientHook(ctx: RouteContext): Reply {
  const clientId = ownClient(ctx);
  const event = clientEvent(ctx.query.get("event") ?? "");
  const reg = webhooksOf(ctx.state);
  if (!reg.clientHooks.get(clientId)?.delete(event)) {
    throw fail(404, `Webhook for event ${event} not found`);
  }
  reg.changed();
  return { status: 204 };
}

/** Routes of the webhook group (docs/platform-api.md §2.7, §4.5). All need an integrations token. */
export const webhookRoutes: Route[] = [
  { route: "GET /api/v2/restaurants-integrations-public-api/webhook", handle: listWebhooks },
  { route: "POST /api/v2/restaurants-integrations-public-api/webhook", handle: createWebhook },
  { route: "GET /api/v2/restaurants-integrations-public-api/webhook/{event}", handle: listWebhooks },
  { route: "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/add-stores", handle: addStores },
  { route: "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/change-url", handle: changeUrl },
  {
    route: "DELETE /api/v2/restaurants-integrations-public-api/webhook/{event}/remove-stores",
    handle: removeStores,
  },
  {
    route: "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/reset-secret",
    handle: resetSecret,
  },
  {
    route: "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/change-status",
    handle: changeStatus,
  },
  {
    route: "POST /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks",
    handle: putClientHook,
  },
  {
    route: "GET /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks",
    handle: listClientHooks,
  },
  {
    route: "DELETE /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks",
    handle: deleteClientHook,
  },
];
