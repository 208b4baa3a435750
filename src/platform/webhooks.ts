/**
 * Typed calls of the webhook group (spec §4.7, prefix `/api/v2/restaurants-integrations-public-api`,
 * integrations token). The webhooks belong to the authenticated client: per event, a secret and, per
 * store, a URL and a state `ENABLE` or `DISABLE` (spec §2.4, §3). Client-level webhooks
 * (`/clients/{clientId}/webhooks`, event `STORE_PROVISIONING_STATUS` only) are kept apart.
 *
 * Every call names its route of the route table (routes.ts), where the paths and write facts live, so
 * that the resource kinds (src/kinds/webhooks.ts, src/kinds/client-webhooks.ts) and the `carte webhooks`
 * command call the same addresses.
 *
 * Wire facts and their sources:
 * - store ids are strings on this API (spec §2.4 `store_id string`, §4.7 `stores array of string`);
 * - `POST /webhook {event, data: [{url, stores}]}` answers `{event, stores, secret}` (spec §4.7);
 * - `PUT /webhook/{event}/add-stores` takes an array `[{url, stores}]`, `change-url` an object
 *   `{url, stores}` (spec §4.7, platform notes "Webhooks");
 * - `DELETE /webhook/{event}/remove-stores {stores}`, `PUT /webhook/{event}/change-status
 *   {stores: {enable, disable}}`, `PUT /webhook/{event}/reset-secret` (no body) answering
 *   `{event, stores, secret}` (platform notes "Webhooks");
 * - client-level: `POST /clients/{clientId}/webhooks {event, url, secret?}`, `GET` the list,
 *   `DELETE ...?event=` answering 204 (platform notes "Webhooks");
 * - an unknown event name answers 406 (platform notes "Webhooks", "Errors").
 *
 * The answers of `POST /webhook` and `reset-secret` carry the event's secret: callers hand it to a
 * secrets sink (src/run/secrets.ts) and never print it.
 */

import { CLIENT_WEBHOOK_EVENTS, STORE_WEBHOOK_EVENTS } from "./wire.js";
import type {
  ClientWebhook,
  ClientWebhookCreate,
  WebhookAddStores,
  WebhookChangeStatus,
  WebhookChangeUrl,
  WebhookConfig,
  WebhookConfigList,
  WebhookCreate,
  WebhookEvent,
  WebhookRemoveStores,
  WebhookStoresRemoved,
  WebhookWithSecret,
} from "../generated/platform.js";
import type { PlatformClient } from "./client.js";

export type {
  ClientWebhook,
  WebhookConfig,
  WebhookConfigList,
  WebhookEvent,
  WebhookStore,
  WebhookWithSecret,
} from "../generated/platform.js";

/** Event names of per-store webhooks (platform notes "Webhooks"; spec §6 names only `NEW_ORDER`). */
export const WEBHOOK_EVENTS: readonly WebhookEvent[] = STORE_WEBHOOK_EVENTS;

/** The one event of client-level webhooks (platform notes "Webhooks"). */
export { CLIENT_WEBHOOK_EVENTS };

/** Body of `change-status` as carte sends it (platform notes: at least one of the two lists). */
export interface ChangeStatusBody extends WebhookChangeStatus {
  stores: { enable?: string[]; disable?: string[] };
}

/** `GET /webhook` or `GET /webhook/{event}`: the client's webhook configuration (spec §4.7). */
export function listWebhooks(client: PlatformClient, event?: string): Promise<WebhookConfigList> {
  return event === undefined
    ? client.request("GET /api/v2/restaurants-integrations-public-api/webhook", {})
    : client.request("GET /api/v2/restaurants-integrations-public-api/webhook/{event}", { event });
}

/**
 * `POST /webhook`: creates an event's webhook for the listed stores (spec §4.7). The answer carries
 * the event's secret. Not idempotent (spec: a create).
 */
export function createWebhook(client: PlatformClient, body: WebhookCreate): Promise<WebhookWithSecret> {
  return client.request("POST /api/v2/restaurants-integrations-public-api/webhook", {}, body);
}

/** `PUT /webhook/{event}/add-stores` with `[{url, stores}]` (spec §4.7, platform notes). */
export function addStores(
  client: PlatformClient,
  event: string,
  body: WebhookAddStores,
): Promise<WebhookConfig> {
  return client.request(
    "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/add-stores",
    { event },
    body,
  );
}

/** `PUT /webhook/{event}/change-url` with `{url, stores}` (spec §4.7). */
export function changeUrl(
  client: PlatformClient,
  event: string,
  body: WebhookChangeUrl,
): Promise<WebhookConfig> {
  return client.request(
    "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/change-url",
    { event },
    body,
  );
}

/** `DELETE /webhook/{event}/remove-stores` with `{stores}` (platform notes "Webhooks"). */
export function removeStores(
  client: PlatformClient,
  event: string,
  body: WebhookRemoveStores,
): Promise<WebhookStoresRemoved> {
  return client.request(
    "DELETE /api/v2/restaurants-integrations-public-api/webhook/{event}/remove-stores",
    { event },
    body,
  );
}

/** `PUT /webhook/{event}/change-status` with `{stores: {enable, disable}}` (platform notes). */
export function changeStatus(
  client: PlatformClient,
  event: string,
  body: ChangeStatusBody,
): Promise<WebhookConfig> {
  return client.request(
    "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/change-status",
    { event },
    body,
  );
}

/**
 * `PUT /webhook/{event}/reset-secret`, no body (platform notes "Webhooks"): a new secret for the
 * event, returned once. Retried like any PUT: after a lost answer, the repeated reset makes yet another
 * secret, and the answer that arrives carries the one in force.
 */
export function resetSecret(client: PlatformClient, event: string): Promise<WebhookWithSecret> {
  return client.request("PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/reset-secret", {
    event,
  });
}

/** `GET /clients/{clientId}/webhooks` (platform notes "Webhooks"). */
export function listClientWebhooks(client: PlatformClient, clientId: string): Promise<ClientWebhook[]> {
  return client.request("GET /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks", {
    clientId,
  });
}

/**
 * `POST /clients/{clientId}/webhooks {event, url}`: creates (201) or replaces (200) a client-level
 * webhook (platform notes "Webhooks"). Repeating it gives the same configuration, hence idempotent.
 */
export function putClientWebhook(
  client: PlatformClient,
  clientId: string,
  body: ClientWebhookCreate,
): Promise<ClientWebhook> {
  return client.request(
    "POST /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks",
    { clientId },
    body,
  );
}

/** `DELETE /clients/{clientId}/webhooks?event=...`: 204 (platform notes "Webhooks"). */
export function deleteClientWebhook(client: PlatformClient, clientId: string, event: string): Promise<void> {
  return client.request(
    "DELETE /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks",
    { clientId },
    undefined,
    { query: { event } },
  );
}

/**
 * The secret in an answer `{event, secret, ...}` (spec §4.7 `POST /webhook` and
 * `PUT /webhook/{event}/reset-secret`); `undefined` when it holds none.
 */
export function eventSecret(body: unknown): { event: string; secret: string } | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { event, secret } = body as { event?: unknown; secret?: unknown };
  return typeof event === "string" && typeof secret === "string" && secret !== ""
    ? { event, secret }
    : undefined;
}
