/**
 * Typed calls of the webhook group (docs/platform-api.md §2.7, prefix
 * `/api/v2/restaurants-integrations-public-api`, integrations token). The webhooks belong to the
 * authenticated client: per event, a secret and, per store, a URL and a state `ENABLE` or `DISABLE`
 * (docs/platform-api.md §4.5, §4.9). Client-level webhooks (`/clients/{clientId}/webhooks`, event
 * `STORE_PROVISIONING_STATUS` only) are kept apart.
 *
 * Every call names its route of the route table (routes.ts), where the paths and write facts live. The
 * plan's writes (create, add-stores, change-url, change-status, the client-level webhooks) are not
 * here: they are the endpoints of the kinds (src/kinds/store-webhooks.ts, src/kinds/client-webhooks.ts), sent
 * by the executor through the same table. Here are the reads, the removal of a duplicate's stores and
 * the rotation of a secret (`carte webhooks rotate-secret`, a secret whose answer was lost).
 *
 * Wire facts and their sources:
 * - store ids are strings on this API (docs/platform-api.md §4.5 `store_id string`, §2.7 `stores array of
 *   string`);
 * - `POST /webhook {event, data: [{url, stores}]}` answers `{event, stores, secret}`
 *   (docs/platform-api.md §2.7);
 * - `PUT /webhook/{event}/add-stores` takes an array `[{url, stores}]`, `change-url` an object
 *   `{url, stores}` (docs/platform-api.md §2.7, §4.5);
 * - `DELETE /webhook/{event}/remove-stores {stores}`, `PUT /webhook/{event}/change-status
 *   {stores: {enable, disable}}`, `PUT /webhook/{event}/reset-secret` (no body) answering
 *   `{event, stores, secret}` (docs/platform-api.md §4.5);
 * - client-level: `POST /clients/{clientId}/webhooks {event, url, secret?}`, `GET` the list,
 *   `DELETE ...?event=` answering 204 (docs/platform-api.md §4.5);
 * - an unknown event name answers 406 (docs/platform-api.md §4.5, §4.10).
 *
 * The answers of `POST /webhook` and `reset-secret` carry the event's secret: callers hand it to a
 * secrets sink (src/run/secrets.ts) and never print it.
 */

import type {
  ClientWebhook,
  WebhookChangeStatus,
  WebhookConfigList,
  WebhookRemoveStores,
  WebhookStoresRemoved,
  WebhookWithSecret,
} from "../generated/platform.js";
import type { PlatformClient } from "./client.js";

export type { ClientWebhook, WebhookConfigList, WebhookWithSecret } from "../generated/platform.js";

/** Body of `change-status` as carte sends it (docs/platform-api.md §4.5: at least one of the two lists). */
export interface ChangeStatusBody extends WebhookChangeStatus {
  stores: { enable?: string[]; disable?: string[] };
}

/**
 * `GET /webhook` or `GET /webhook/{event}`: the client's webhook configuration (docs/platform-api.md §2.7).
 */
export function listWebhooks(client: PlatformClient, event?: string): Promise<WebhookConfigList> {
  return event === undefined
    ? client.request("GET /api/v2/restaurants-integrations-public-api/webhook", {})
    : client.request("GET /api/v2/restaurants-integrations-public-api/webhook/{event}", { event });
}

/** `DELETE /webhook/{event}/remove-stores` with `{stores}` (docs/platform-api.md §4.5). */
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

/**
 * `PUT /webhook/{event}/reset-secret`, no body (docs/platform-api.md §4.5): a new secret for the
 * event, returned once. Retried like any PUT: after a lost answer, the repeated reset makes yet another
 * secret, and the answer that arrives carries the one in force.
 */
export function resetSecret(client: PlatformClient, event: string): Promise<WebhookWithSecret> {
  return client.request("PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/reset-secret", {
    event,
  });
}

/** `GET /clients/{clientId}/webhooks` (docs/platform-api.md §4.5). */
export function listClientWebhooks(client: PlatformClient, clientId: string): Promise<ClientWebhook[]> {
  return client.request("GET /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks", {
    clientId,
  });
}

/**
 * The secret in an answer `{event, secret, ...}` (docs/platform-api.md §2.7 `POST /webhook` and
 * `PUT /webhook/{event}/reset-secret`); `undefined` when it holds none.
 */
export function eventSecret(body: unknown): { event: string; secret: string } | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { event, secret } = body as { event?: unknown; secret?: unknown };
  return typeof event === "string" && typeof secret === "string" && secret !== ""
    ? { event, secret }
    : undefined;
}
