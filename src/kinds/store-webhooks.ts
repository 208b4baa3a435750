/**
 * Per-event, per-store webhooks: kind `webhook`, keyed by event name, resource
 * `{url, enabled}`, addressed `store[KEY].webhook[EVENT]`. Default ownership `additive`: carte adds and
 * changes webhooks but never removes one it does not list (webhooks set up by hand are left alone);
 * `full` removes them.
 *
 * Reading: the client's whole configuration comes from ONE `GET /webhook` (docs/platform-api.md §2.7: the
 * webhooks belong to the authenticated client), and every store takes its entries from that same list.
 *
 * Writing with the narrowest call (docs/platform-api.md §2.7, §4.5), grouping stores across the
 * plan (the endpoints are client-scoped, src/plan/batch.ts: writes with the same endpoint and params
 * share one call):
 *
 * | change                              | call                                              | params         |
 * |-------------------------------------|---------------------------------------------------|----------------|
 * | a store joins an event that no store has yet | `POST /webhook {event, data: [{url, stores}]}` | `{event}`  |
 * | a store joins an event that exists  | `PUT /webhook/{event}/add-stores [{url, stores}]` | `{event}`      |
 * | a store's URL changes               | `PUT /webhook/{event}/change-url {url, stores}`   | `{event, url}` |
 * | a store is enabled or disabled      | `PUT /webhook/{event}/change-status {stores: {enable, disable}}` | `{event}` |
 * | a store leaves the event            | `DELETE /webhook/{event}/remove-stores {stores}`  | `{event}`      |
 *
 * `POST` and `add-stores` take a list of `{url, stores}`, so one call per event serves every URL.
 * Whether an event already exists for the client is a fact of the current state: the reader keeps the
 * client's configured events in `ids.other.webhook` (planning stays per store and pure). A create or
 * an add-stores leaves the store `ENABLE` (docs/platform-api.md §4.9), so a store wanted disabled also gets a
 * change-status in a later stage.
 *
 * Stages (src/plan/endpoints.ts order: after the menus, availability and other store settings):
 * 29 remove a duplicated store, 30 create, 31 add-stores, 32 change-url, 33 change-status,
 * 34 remove-stores.
 *
 * Duplicates: a store the platform lists more than once on an event (in one configuration or in two
 * configurations of the event) is read with `copies: N`, so the comparison sees drift; the plan takes
 * the store off the event (`remove-stores`, stage 29) and adds it back once (`add-stores`, or `POST
 * /webhook` when no other store stays on the event), with its status.
 *
 * Settling a lost answer (src/apply/settle.ts): each endpoint says how a fresh read shows its own
 * effect for one store (`effect`): listed, with the URL, with the status, or gone. add-stores runs before
 * remove-stores because removing an event's last store drops the event (docs/platform-api.md §3.8),
 * after which add-stores would answer 404.
 *
 * Store ids are strings on this API (docs/platform-api.md §4.5). `POST /webhook` answers the event's secret:
 * the endpoint is registered as secret-bearing (src/run/secrets.ts), so the executor hands it to the secrets
 * sink and nowhere else.
 */

import { didYouMean } from "../suggest.js";
import { kindState, table, type StoreState } from "../model.js";
import type { ConfigProblem } from "../errors.js";
import { quote, report, type Site } from "../source/problems.js";
import { webhookUrlProblem } from "../source/url.js";
import { CLIENT_WEBHOOK_EVENTS, STORE_WEBHOOK_EVENTS } from "../platform/wire.js";
import type { KindImportPart, Note } from "./import-types.js";
import { sortedKeys } from "./import-values.js";
import { address, sortedRecord } from "../plain-data.js";
import { webhookView } from "./webhook-view.js";
import {
  eventSecret,
  listWebhooks,
  type ChangeStatusBody,
  type WebhookConfigList,
} from "../platform/webhook-calls.js";
import {
  partOf,
  type ConfigSection,
  type Effect,
  type EndpointParams,
  type EndpointSpec,
  type ReadState,
  type ResourceKind,
  type StoreRead,
  type Write,
} from "./resource-kind.js";

/** The URL and state of one event's webhook for one store (docs/platform-api.md §4.5, §2.7). */
export interface WebhookSetting {
  url: string;
  /** `ENABLE` (true) or `DISABLE` (false) on the platform. */
  enabled: boolean;
  /**
   * Current side only: how many times the platform lists the store on the event, when more than once
   * (a duplicate; the plan removes the store and adds it back once, src/kinds/store-webhooks.ts).
   */
  copies?: number;
}

/** The webhook kind's state in a store: its webhooks by event name. */
export const webhooksState = kindState<Record<string, WebhookSetting>>("webhook");

/** Events a store webhook can carry (docs/platform-api.md §4.5). */
export const STORE_EVENTS: readonly string[] = STORE_WEBHOOK_EVENTS;

/** Events of client-level (integration-wide) webhooks. */
export const CLIENT_EVENTS: readonly string[] = CLIENT_WEBHOOK_EVENTS;

/** Names of the webhook endpoints. */
export const WebhookEndpoint = {
  create: "webhook.create",
  addStores: "webhook.add-stores",
  changeUrl: "webhook.change-url",
  changeStatus: "webhook.change-status",
  removeStores: "webhook.remove-stores",
  dedupe: "webhook.remove-duplicated",
} as const;

/** Key of `ids.other` under which the reader keeps the client's configured events (event → true). */
export const EVENTS_IDS = "webhook";

/**
 * Key of `ids.other` under which the reader keeps the events that some store is listed on exactly once
 * (event → true): such an event stays configured after its duplicated stores are taken off it.
 */
export const KEEPS_IDS = "webhook_keeps";

/** Element of `create` and `add-stores`: a store and its URL. */
export interface StoreUrl {
  store: string;
  url: string;
}

/** Element of `change-status`: a store and whether it is enabled. */
export interface StoreStatus {
  store: string;
  enable: boolean;
}

/** `[{url, stores}]`, one entry per URL (sorted), stores in the order given. */
export function groupByUrl(elements: readonly StoreUrl[]): { url: string; stores: string[] }[] {
  const byUrl = new Map<string, string[]>();
  for (const e of elements) {
    const list = byUrl.get(e.url);
    if (list) list.push(e.store);
    else byUrl.set(e.url, [e.store]);
  }
  return [...byUrl.keys()].sort().map((url) => ({ url, stores: byUrl.get(url)! }));
}

const event = (params: EndpointParams) => String(params.event);
const always = () => true;

/** The store's webhook of the call's event, as read now. */
const hookOf = (state: ReadState, params: EndpointParams) => webhooksState.get(state)?.[event(params)];

/** The effect of a call that takes the store off the event: it is not listed any more. */
const goneEffect = (_body: unknown, params: EndpointParams, state: ReadState): Effect =>
  hookOf(state, params) === undefined ? "present" : "absent";

/** `POST /webhook` (docs/platform-api.md §2.7): the event's first configuration; answers its secret. */
const create: EndpointSpec = {
  chain: "webhooks",
  synchronous: true,
  name: WebhookEndpoint.create,
  stage: 30,
  route: "POST /api/v2/restaurants-integrations-public-api/webhook",
  scope: "client",
  body: (elements, params) => ({ event: event(params), data: groupByUrl(elements as StoreUrl[]) }),
  maxElements: Infinity,
  // A create: repeating it after a lost answer may be refused or may make another configuration.
  idempotent: () => false,
  secret: eventSecret,
  // Its effect for one store: the store is listed on the event.
  effect: (_body, params, state) => (hookOf(state, params) ? "present" : "absent"),
};
/** `PUT /webhook/{event}/add-stores` (docs/platform-api.md §2.7). */
const addStores: EndpointSpec = {
  chain: "webhooks",
  synchronous: true,
  name: WebhookEndpoint.addStores,
  stage: 31,
  route: "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/add-stores",
  scope: "client",
  pathParams: (_s, params) => ({ event: event(params) }),
  body: (elements) => groupByUrl(elements as StoreUrl[]),
  maxElements: Infinity,
  idempotent: always,
  effect(body, params, state) {
    const url = (body as { url: string }[])[0]?.url;
    return hookOf(state, params)?.url === url ? "present" : "absent";
  },
};
/** `PUT /webhook/{event}/change-url` (docs/platform-api.md §2.7). */
const changeUrl: EndpointSpec = {
  chain: "webhooks",
  synchronous: true,
  name: WebhookEndpoint.changeUrl,
  stage: 32,
  route: "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/change-url",
  scope: "client",
  pathParams: (_s, params) => ({ event: event(params) }),
  body: (elements, params) => ({ url: String(params.url), stores: elements as string[] }),
  maxElements: Infinity,
  idempotent: always,
  effect: (_body, params, state) =>
    hookOf(state, params)?.url === String(params.url) ? "present" : "absent",
};
/** `PUT /webhook/{event}/change-status` (docs/platform-api.md §2.7). */
const changeStatus: EndpointSpec = {
  chain: "webhooks",
  synchronous: true,
  name: WebhookEndpoint.changeStatus,
  stage: 33,
  route: "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/change-status",
  scope: "client",
  pathParams: (_s, params) => ({ event: event(params) }),
  body: (elements): ChangeStatusBody => {
    const list = elements as StoreStatus[];
    const enable = list.filter((e) => e.enable).map((e) => e.store);
    const disable = list.filter((e) => !e.enable).map((e) => e.store);
    return {
      stores: { ...(enable.length ? { enable } : {}), ...(disable.length ? { disable } : {}) },
    };
  },
  maxElements: Infinity,
  idempotent: always,
  effect(body, params, state) {
    const enable = ((body as ChangeStatusBody).stores.enable ?? []).length > 0;
    return hookOf(state, params)?.enabled === enable ? "present" : "absent";
  },
};
/** `DELETE /webhook/{event}/remove-stores` (docs/platform-api.md §2.7). */
const removeStores: EndpointSpec = {
  chain: "webhooks",
  synchronous: true,
  name: WebhookEndpoint.removeStores,
  stage: 34,
  route: "DELETE /api/v2/restaurants-integrations-public-api/webhook/{event}/remove-stores",
  scope: "client",
  pathParams: (_s, params) => ({ event: event(params) }),
  body: (elements) => ({ stores: elements as string[] }),
  maxElements: Infinity,
  // Repeating it after a lost answer changes nothing more (the platform may answer 404 then).
  idempotent: always,
  effect: goneEffect,
};
/**
 * `DELETE /webhook/{event}/remove-stores` (docs/platform-api.md §2.7) for a store the platform lists more
 * than once: before the creates, so that the store is added back once in the same plan.
 */
const removeDuplicated: EndpointSpec = {
  ...removeStores,
  name: WebhookEndpoint.dedupe,
  stage: 29,
};

/**
 * One `GET /webhook` for every store that reads webhooks (docs/platform-api.md §2.7: the client's whole
 * configuration).
 */
const webhooksRead: StoreRead<WebhookConfigList> = {
  name: "webhooks",
  async fetch(client, stores, limit, deliver) {
    const list = await limit(() => listWebhooks(client));
    await Promise.all(stores.map((s) => deliver(s.key, list)));
  },
};

/** What a webhook list says, for {@link listIndex}. */
interface ListIndex {
  /** The events configured with at least one store. */
  events: Record<string, true>;
  /** The events with a store listed once (the event stays when a store listed twice is removed). */
  keeps: Record<string, true>;
  /**
   * Per store id, per event: its first listing (in the list's order) and how many times it is listed
   * (an event may appear in several configurations).
   */
  byStore: Map<string, Map<string, { setting: WebhookSetting; copies: number }>>;
}

/** The index of each webhook list read, made once for all the stores it was delivered to. */
const listIndexes = new WeakMap<WebhookConfigList, ListIndex>();

/**
 * The webhook list by store: one `GET /webhook` answers every store's webhooks (docs/platform-api.md §2.7),
 * and each store's read looks its own up here instead of walking the whole list (quadratic in the stores).
 */
function listIndex(list: WebhookConfigList): ListIndex {
  const known = listIndexes.get(list);
  if (known) return known;
  const index: ListIndex = { events: table<true>(), keeps: table<true>(), byStore: new Map() };
  const counts = new Map<string, Map<string, number>>();
  for (const cfg of list) {
    if (cfg.stores.length > 0) index.events[cfg.event] = true;
    let perStore = counts.get(cfg.event);
    if (!perStore) counts.set(cfg.event, (perStore = new Map()));
    for (const s of cfg.stores) {
      const id = String(s.store_id);
      perStore.set(id, (perStore.get(id) ?? 0) + 1);
      let events = index.byStore.get(id);
      if (!events) index.byStore.set(id, (events = new Map()));
      const seen = events.get(cfg.event);
      if (seen) seen.copies++;
      else events.set(cfg.event, { setting: { url: s.url, enabled: s.state === "ENABLE" }, copies: 1 });
    }
  }
  for (const [ev, perStore] of counts) {
    for (const n of perStore.values()) {
      if (n === 1) {
        index.keeps[ev] = true;
        break;
      }
    }
  }
  listIndexes.set(list, index);
  return index;
}

/** What one layer writes for each event: the keys it gives, and where. */
type WebhooksLayer = Record<string, { url?: string; enabled?: boolean; site: Site }>;

/**
 * `webhooks:` of a settings layer: event → URL, or `{url, enabled}`. Merged event by event, and within an
 * event key by key; an event left without a URL once merged is an error.
 */
const webhooksSection: ConfigSection<WebhooksLayer> = {
  key: "webhooks",
  read(value, ctx, problems: ConfigProblem[]) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    const out: WebhooksLayer = {};
    for (const [event, target] of Object.entries(value)) {
      const site = ctx.at("webhooks", event);
      if (CLIENT_EVENTS.includes(event)) {
        report(
          problems,
          site,
          `${event} is an integration-wide event: write it under client: webhooks: in carte.yaml`,
          "key",
        );
        continue;
      }
      if (!STORE_EVENTS.includes(event)) {
        report(
          problems,
          site,
          `unknown webhook event ${quote(event)}${didYouMean(event, STORE_EVENTS, quote)} (events: ${STORE_EVENTS.join(", ")})`,
          "key",
        );
        continue;
      }
      const given =
        typeof target === "string"
          ? { url: target }
          : typeof target === "object" && target !== null && !Array.isArray(target)
            ? (target as { url?: unknown; enabled?: unknown })
            : undefined;
      if (!given) continue;
      const hook: { url?: string; enabled?: boolean; site: Site } = { site };
      if (typeof given.url === "string") {
        hook.url = given.url;
        const why = webhookUrlProblem(given.url);
        if (why) report(problems, typeof target === "string" ? site : ctx.at("webhooks", event, "url"), why);
      }
      if (typeof given.enabled === "boolean") hook.enabled = given.enabled;
      out[event] = hook;
    }
    return out;
  },
  merge(lower, upper) {
    const out: WebhooksLayer = { ...lower };
    for (const [event, hook] of Object.entries(upper)) {
      out[event] = {
        ...out[event],
        ...(hook.url !== undefined ? { url: hook.url } : {}),
        ...(hook.enabled !== undefined ? { enabled: hook.enabled } : {}),
        site: hook.site,
      };
    }
    return out;
  },
  resolve(merged, into, problems) {
    const settings = table<WebhookSetting>();
    for (const [event, hook] of Object.entries(merged)) {
      if (hook.url === undefined) {
        report(
          problems,
          hook.site,
          `webhook ${event} has no url here nor in the defaults it inherits: add url: https://…`,
          "key",
        );
        continue;
      }
      settings[event] = { url: hook.url, enabled: hook.enabled ?? true };
    }
    webhooksState.set(into, sortedRecord(settings));
  },
};

// ---- carte import -----------------------------------------------------------------------------

/** Keeps the webhooks the files can hold: store events, https addresses (http only for localhost). */
export function sanitizeWebhooks(state: StoreState, note: Note): void {
  const hooks = webhooksState.get(state);
  if (!hooks) return;
  for (const [event, hook] of Object.entries(hooks)) {
    const why = !STORE_EVENTS.includes(event) ? `unknown event ${event}` : webhookUrlProblem(hook.url);
    if (why) {
      note(address(state.store.key, "webhook", event), why);
      delete hooks[event];
    }
  }
}

/**
 * The import part of the store's webhooks, a section of each store file written from the store's own
 * state (docs/import.md): `EVENT: url`, or `{url, enabled: false}` when switched off.
 */
const webhooksPart: KindImportPart = {
  sanitize: sanitizeWebhooks,
  store: {
    name: "webhooks",
    sections(state) {
      const hooks = webhooksState.get(state) ?? {};
      if (Object.keys(hooks).length === 0) return undefined;
      return {
        webhooks: Object.fromEntries(
          sortedKeys(hooks).map((event) => {
            const h = hooks[event]!;
            return [event, h.enabled ? h.url : { url: h.url, enabled: false }];
          }),
        ),
      };
    },
  },
};

/** The webhooks kind. */
export const webhooks: ResourceKind<WebhookSetting, "webhook"> = {
  name: "webhook",
  summary: "per-store webhooks by event: URL and whether enabled",
  reads: [webhooksRead],
  endpoints: [removeDuplicated, create, addStores, changeUrl, changeStatus, removeStores],
  nouns: { webhook: ["webhook", "webhooks"] },
  // After everything else of a store, as the files write them last.
  view: webhookView("webhook", 11),
  state: webhooksState,
  importPart: webhooksPart,
  config: webhooksSection as ConfigSection<unknown>,
  defaultOwnership: "additive",
  select: (state) => webhooksState.get(state),
  segment: () => "webhook",
  duplicates(state) {
    return Object.fromEntries(
      Object.entries(webhooksState.get(state) ?? {})
        .filter(([, hook]) => (hook.copies ?? 1) > 1)
        .map(([event]) => [event, event]),
    );
  },
  read(snapshot, into, ids) {
    const { events, keeps, byStore } = listIndex(partOf(snapshot, webhooksRead) ?? []);
    const mine = table<WebhookSetting>();
    for (const [ev, { setting, copies }] of byStore.get(into.store.storeId) ?? []) {
      mine[ev] = copies > 1 ? { ...setting, copies } : setting;
    }
    webhooksState.set(
      into,
      Object.fromEntries(
        Object.keys(mine)
          .sort()
          .map((k) => [k, mine[k]!]),
      ),
    );
    // Each store's own tables, as before the index: a caller may change them.
    ids.other[EVENTS_IDS] = Object.assign(table<true>(), events);
    ids.other[KEEPS_IDS] = Object.assign(table<true>(), keeps);
  },
  writes(action, key, before, after, ctx) {
    const store = ctx.desired.store.storeId;
    if (action === "delete") {
      return [{ endpoint: WebhookEndpoint.removeStores, element: store, params: { event: key } }];
    }
    const out: Write[] = [];
    if (action === "update" && (before!.copies ?? 1) > 1) {
      // Listed more than once: off the event, then back once (the event stays configured when another
      // store is listed on it once; else it is created anew), with its status.
      const keeps = ctx.ids.other[KEEPS_IDS]?.[key] === true;
      out.push(
        { endpoint: WebhookEndpoint.dedupe, element: store, params: { event: key } },
        {
          endpoint: keeps ? WebhookEndpoint.addStores : WebhookEndpoint.create,
          element: { store, url: after!.url } satisfies StoreUrl,
          params: { event: key },
        },
      );
      if (!after!.enabled) out.push(status(store, key, false));
      return out;
    }
    if (action === "create") {
      const exists = ctx.ids.other[EVENTS_IDS]?.[key] === true;
      const element: StoreUrl = { store, url: after!.url };
      out.push({
        endpoint: exists ? WebhookEndpoint.addStores : WebhookEndpoint.create,
        element,
        params: { event: key },
      });
      // Created webhooks are ENABLE (docs/platform-api.md §4.9).
      if (!after!.enabled) out.push(status(store, key, false));
      return out;
    }
    if (before!.url !== after!.url) {
      out.push({
        endpoint: WebhookEndpoint.changeUrl,
        element: store,
        params: { event: key, url: after!.url },
      });
    }
    if (before!.enabled !== after!.enabled) out.push(status(store, key, after!.enabled));
    return out;
  },
};

function status(store: string, event: string, enable: boolean): Write {
  const element: StoreStatus = { store, enable };
  return { endpoint: WebhookEndpoint.changeStatus, element, params: { event } };
}
