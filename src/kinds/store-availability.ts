/**
 * Store availability: whether a store takes orders. One resource per store, `store[KEY].
 * store_availability[open]`, value `{open}`; managed where the files give `open`. Default ownership
 * `full` (it is managed only where the files say it, so there is nothing to take away elsewhere).
 *
 * Wire (docs/platform-api.md §2.3, §4.4, §4.11):
 * - read: `POST /api/v2/restaurants-integrations-public-api/availability/stores`, a bare array of at most
 *   100 store ids → `{"<storeId>": true|false}`; the reader asks for 100 stores per call (the part
 *   fetcher below), not one call per store;
 * - write: the SYNCHRONOUS `PUT /availability/stores/enable` `{stores: [{store_id, is_enabled}]}`, at most
 *   300 stores per call, shared by every store of the plan (client-scoped endpoint, stage 50: last, once
 *   every other setting of the store is in place). The answer lists `operation_result_type` per store:
 *   `SUCCESS` and `STORE_ALREADY_IN_STATUS` leave the store as asked; any other (`SUSPENDED`, `FORBIDDEN`,
 *   `STORE_NOT_PUBLISHED`, `ERROR_EXTERNAL_SERVICE`) makes the call fail, with a message naming each
 *   store that failed and why (the executor reports a failed call; src/plan/endpoints.ts `check`).
 *
 * Closing a store (open → closed) trips the `closes_stores` safety guard (src/plan/safety.ts).
 */

import type { StoreEnable } from "../generated/platform.js";
import { failedEnableResults, MAX_STATUS_STORES, storesOpen } from "../platform/store-availability-calls.js";
import { kindState } from "../model.js";
import type { KindImportPart } from "./import-types.js";
import type { ConfigSection, EndpointSpec, ResourceKind, StoreRead } from "./resource-kind.js";
import { partOf } from "./resource-kind.js";
import type { SafetyViolation } from "../safety-policy.js";
import { fieldOf } from "../show/view-model.js";
import { plain } from "../show/words.js";
import type { KindChange } from "./change.js";
import type { KindView } from "./show.js";

/** Whether a store takes orders. */
export interface StoreOpen {
  open: boolean;
}

/** The store availability kind's state in a store: whether it takes orders. */
export const openState = kindState<boolean>("store_availability");

/** The one key of the kind in a store. */
const OPEN_KEY = "open";

// Reads 100 stores per call (docs/platform-api.md §4.11), each batch under the reader's concurrency bound.
const openRead: StoreRead<boolean> = {
  name: "open",
  async fetch(client, stores, limit, deliver) {
    const batches: (typeof stores)[] = [];
    for (let i = 0; i < stores.length; i += MAX_STATUS_STORES)
      batches.push(stores.slice(i, i + MAX_STATUS_STORES));
    await Promise.all(
      batches.map(async (batch) => {
        const answer = await limit(
          () =>
            storesOpen(
              client,
              batch.map((s) => s.storeId),
            ),
          batch[0]!.key,
        );
        await Promise.all(batch.map((s) => deliver(s.key, answer.get(s.storeId))));
      }),
    );
  },
};

/** `PUT /availability/stores/enable` (docs/platform-api.md §4.4): synchronous, ≤ 300 stores a call. */
const enable: EndpointSpec = {
  chain: "*",
  synchronous: true,
  name: "store_availability.enable",
  stage: 50,
  route: "PUT /api/v2/restaurants-integrations-public-api/availability/stores/enable",
  scope: "client",
  body: (elements) => ({ stores: elements as StoreEnable[] }),
  // Sets a state: repeating it leaves the same state (answering STORE_ALREADY_IN_STATUS).
  idempotent: () => true,
  check(response, parts) {
    const failed = failedEnableResults(response);
    if (failed.length === 0) return undefined;
    const keyOf = new Map(parts.map((p) => [String((p.element as StoreEnable).store_id), p.store]));
    return failed
      .map((r) => {
        const key = keyOf.get(String(r.store_id));
        const who = key ? `store[${key}] (${r.store_id})` : `store ${r.store_id}`;
        const what = r.is_enabled ? "open" : "close";
        return `${who} could not ${what}: ${r.operation_result_type}${r.operation_result_message ? ` (${r.operation_result_message})` : ""}`;
      })
      .join("; ");
  },
};

/** `open:` of a settings layer: whether the store takes orders; the highest layer that writes it wins. */
const openSection: ConfigSection<boolean> = {
  key: "open",
  read: (value) => (typeof value === "boolean" ? value : undefined),
  resolve(merged, into) {
    openState.set(into, merged);
  },
};

/** The import part of store availability: `open:` of each store file, from the store's own state. */
const openPart: KindImportPart = {
  store: {
    name: "open",
    sections: (state) => {
      const open = openState.get(state);
      return open === undefined ? undefined : { open };
    },
  },
};

/** Where opening or closing a store comes in its changes: after its days and before its webhooks. */
const OPEN_ORDER = 10;

/** The view of opening or closing a store: `open: false (takes no orders)`. */
const view: KindView = {
  change(ch) {
    const b = fieldOf(ch.before, "open");
    const a = fieldOf(ch.after, "open");
    const says = (v: unknown) =>
      v === true ? "true (takes orders)" : v === false ? "false (takes no orders)" : plain(v);
    const summary = ch.action === "update" ? `${says(b)} → ${says(a)}` : says(a ?? b);
    return [
      { order: OPEN_ORDER, sort: ch.key, view: { action: ch.action, details: [], head: "open", summary } },
    ];
  },
};

/**
 * `closes_stores`: a change that switches a store from open to closed, whose store then takes no
 * orders, wherever it is in the plan.
 */
function closes(c: KindChange): SafetyViolation | undefined {
  if ((c.after as Partial<StoreOpen> | null)?.open !== false) return undefined;
  if ((c.before as Partial<StoreOpen> | null)?.open === false) return undefined;
  return {
    guard: "closes_stores",
    store: c.store,
    message: `store[${c.store}]: the plan closes the store (it stops taking orders)`,
  };
}

/** The store availability kind. */
export const storeAvailability: ResourceKind<StoreOpen, "store_availability"> = {
  name: "store_availability",
  summary: "whether a store takes orders (open or closed)",
  reads: [openRead],
  endpoints: [enable],
  nouns: { store_availability: ["open/closed setting", "open/closed settings"] },
  view,
  guards: { change: closes },
  state: openState,
  importPart: openPart,
  config: openSection as ConfigSection<unknown>,
  defaultOwnership: "full",
  select: (state) => {
    const open = openState.get(state);
    return open === undefined ? undefined : { [OPEN_KEY]: { open } };
  },
  segment: () => "store_availability",
  read(snapshot, into) {
    const open = partOf(snapshot, openRead);
    if (typeof open === "boolean") openState.set(into, open);
  },
  writes(action, _key, _before, after, ctx) {
    // The files stop managing a store's availability: it stays as it is.
    if (action === "delete" || !after) return [];
    const element: StoreEnable = { store_id: ctx.desired.store.storeId, is_enabled: after.open };
    return [{ endpoint: "store_availability.enable", element }];
  },
  // Closing is not a retreat: under `additive` a store is still opened and closed as the files say.
  retreats: (action) => action === "delete",
};
