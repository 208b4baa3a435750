/**
 * Client-level webhooks: kind `client_webhook`, keyed by event
 * (`STORE_PROVISIONING_STATUS`, the only client-level event, docs/platform-api.md §4.5), resource
 * `{url}`, addressed `client.client_webhook[EVENT]`. Default ownership `additive`, like the per-store
 * webhooks: one set up by hand is never removed unless the chain asks for `full`.
 *
 * Calls (docs/platform-api.md §2.7, shapes from docs/platform-api.md §4.5), prefix
 * `/api/v2/restaurants-integrations-public-api`:
 * - read: `GET /clients/{clientId}/webhooks` → `[{clientId, event, url, state}]`;
 * - create and update: `POST /clients/{clientId}/webhooks {event, url}` (201 created, 200 replaced);
 *   carte sends no `secret`, so deliveries are unsigned (docs/platform-api.md §4.5) and no secret is ever
 *   returned;
 * - delete: `DELETE /clients/{clientId}/webhooks?event=...` → 204.
 *
 * The path names the client: the reader records the client id in `ids.client_webhook.clientId`.
 * Stages 35 (create or update) and 36 (delete), after the per-store webhooks (src/kinds/store-webhooks.ts).
 */

import { InternalError } from "../errors.js";
import { table } from "../model.js";
import { listClientWebhooks, type ClientWebhook } from "../platform/webhook-calls.js";
import {
  partOf,
  type ClientKind,
  type ClientRead,
  type EndpointParams,
  type EndpointSpec,
} from "./resource-kind.js";
import { webhookView } from "./webhook-view.js";

/** A client-level webhook as carte manages it. */
export interface ClientWebhookSetting {
  url: string;
}

/** Names of the client-level webhook endpoints. */
export const ClientWebhookEndpoint = {
  put: "client_webhook.put",
  delete: "client_webhook.delete",
} as const;

/** What the reader fetched: the client id of the session and its client-level webhooks. */
export interface ClientWebhooksSnapshot {
  clientId: string;
  hooks: ClientWebhook[];
}

const clientId = (params: EndpointParams) => String(params.clientId);

/**
 * `POST /clients/{clientId}/webhooks` (docs/platform-api.md §2.7): creates or replaces one event's webhook.
 */
const put: EndpointSpec = {
  chain: "webhooks",
  synchronous: true,
  name: ClientWebhookEndpoint.put,
  stage: 35,
  route: "POST /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks",
  scope: "client",
  pathParams: (_s, params) => ({ clientId: clientId(params) }),
  // One event per call: params name it.
  body: (elements) => elements[0],
  maxElements: 1,
  // Creates or replaces the event's webhook: repeating it gives the same configuration.
  idempotent: () => true,
};

/** `DELETE /clients/{clientId}/webhooks?event=...` (docs/platform-api.md §2.7). */
const remove: EndpointSpec = {
  chain: "webhooks",
  synchronous: true,
  name: ClientWebhookEndpoint.delete,
  stage: 36,
  route: "DELETE /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks",
  scope: "client",
  pathParams: (_s, params) => ({ clientId: clientId(params) }),
  query: (params) => ({ event: String(params.event) }),
  body: () => undefined,
  maxElements: 1,
  idempotent: () => true,
};

/** `GET /clients/{clientId}/webhooks` (docs/platform-api.md §2.7) of the session's client. */
const clientWebhooksRead: ClientRead<ClientWebhooksSnapshot> = {
  name: "webhooks",
  async fetch(client) {
    const hooks = await listClientWebhooks(client, client.clientId);
    return { clientId: client.clientId, hooks };
  },
};

/** The client-level webhooks kind. */
export const clientWebhooks: ClientKind<ClientWebhookSetting, "client_webhook"> = {
  name: "client_webhook",
  nouns: { client_webhook: ["client webhook", "client webhooks"] },
  // The client's settings come first, apart from every store's.
  view: webhookView("client webhook", 0),
  summary: "integration-wide webhooks (STORE_PROVISIONING_STATUS), in carte.yaml client:",
  reads: [clientWebhooksRead],
  endpoints: [put, remove],
  defaultOwnership: "additive",
  select: (state) => state.webhooks,
  read(snapshot, into, ids) {
    const snap = partOf(snapshot, clientWebhooksRead)!;
    const hooks = table<ClientWebhookSetting>();
    for (const h of [...snap.hooks].sort((a, b) => a.event.localeCompare(b.event))) {
      hooks[h.event] = { url: h.url };
    }
    into.webhooks = hooks;
    ids.client_webhook = { clientId: snap.clientId };
  },
  writes(action, key, _before, after, ids) {
    const id = ids.client_webhook?.clientId;
    if (typeof id !== "string") {
      throw new InternalError(
        "the client id is unknown: plan client webhooks from a state read by fetchCurrent",
      );
    }
    const params = { clientId: id, event: key };
    if (action === "delete") return [{ endpoint: ClientWebhookEndpoint.delete, element: key, params }];
    return [{ endpoint: ClientWebhookEndpoint.put, element: { event: key, url: after!.url }, params }];
  },
};
