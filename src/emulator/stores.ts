/**
 * Store availability, v2 API of the emulator (docs/platform-api.md §2.3, prefix
 * `/api/v2/restaurants-integrations-public-api`; shapes from docs/platform-api.md §4.4, §4.11). The state is
 * {@link StoreRec.open} (default true, persisted). Integrations token.
 *
 * - `POST /availability/stores`: a bare array of store ids (numbers or strings), at most
 *   {@link MAX_STATUS_STORES} (more: 400) → `{"<storeId>": true|false}`, keys as sent.
 * - `PUT /availability/stores` (asynchronous) `{turn_on: [ids], turn_off: [ids]}` (each optional, not both
 *   absent) → the accepted message; a store in both lists ends closed.
 * - `PUT /availability/stores/enable/massive` (asynchronous) `{stores: [{store_id, is_enabled}]}` → the
 *   accepted message.
 * - `PUT /availability/stores/enable` (synchronous) the same body, at most {@link MAX_SYNC_STORES} stores
 *   (more: 422 "... use the asynchronous service") → `{results: [{store_id, is_enabled, operation_result,
 *   operation_result_type, operation_result_message, suspended_reason, suspended_at, suspended_time}]}`.
 *
 * Emulator's choices where the platform publishes nothing:
 * - The asynchronous calls check every store first: unknown 404, another client's 400
 *   (docs/platform-api.md §4.2), nothing applied. Once a change takes effect (after the apply delay) the
 *   emulator calls {@link EmulatorState.onStoreConnectivity} for EVERY store of the call, changed or not,
 *   which events.ts delivers as STORE_CONNECTIVITY `{external_store_id, enabled, message}`.
 * - The synchronous call answers per store: `SUCCESS` (changed, `operation_result: true`),
 *   `STORE_ALREADY_IN_STATUS` (`operation_result: false`), `FORBIDDEN` for a store that is unknown or
 *   another client's (`operation_result: false`). `suspended_*` are null (the emulator never suspends a
 *   store). `store_id` is echoed as sent. No STORE_CONNECTIVITY event follows a synchronous call.
 */

import type { StoreEnableRequest, StoreEnableResult, StoreIdList } from "../generated/platform.js";
import { ROUTES } from "../platform/routes.js";
import { accepted, badShape, fail } from "./http.js";
import type { Reply, Route, RouteContext } from "./http.js";
import type { EmulatorState, StoreRec } from "./state.js";
import { storeKey } from "./state.js";

const STATUS = "POST /api/v2/restaurants-integrations-public-api/availability/stores";
const ENABLE_SYNC = "PUT /api/v2/restaurants-integrations-public-api/availability/stores/enable";

/** Stores in one `POST /availability/stores` (docs/platform-api.md §4.11): the route's `maxElements`. */
export const MAX_STATUS_STORES = ROUTES[STATUS].maxElements;
/**
 * Stores in one synchronous `PUT /availability/stores/enable` (docs/platform-api.md §4.11): the route's
 * `maxElements`.
 */
export const MAX_SYNC_STORES = ROUTES[ENABLE_SYNC].maxElements;

/**
 * `operation_result_type` values (docs/platform-api.md §4.4; schema `availability#StoreOperationResultType`).
 */
/**
 * Element of the answer of the synchronous `PUT /availability/stores/enable` (docs/platform-api.md §4.4;
 * schema `availability#StoreEnableResult`). `suspended_time` is in minutes.
 */
/**
 * `POST /availability/stores`. The body is an `availability#StoreIdList` (server.ts checked it); the
 * limit of {@link MAX_STATUS_STORES} is a platform rule answered here.
 */
function storesStatus(ctx: RouteContext): Reply {
  const ids = ctx.body as StoreIdList;
  if (ids.length > MAX_STATUS_STORES) {
    throw badShape(`At most ${MAX_STATUS_STORES} stores can be queried at once; got ${ids.length}`);
  }
  const out: Record<string, boolean> = {};
  for (const id of ids) out[String(id)] = ctx.state.storeForClient(String(id), ctx.clientId).open;
  return { status: 200, body: out };
}

/** Accepts asynchronous store changes: applied after the delay, then one connectivity hook call each. */
function acceptChanges(state: EmulatorState, changes: Map<StoreRec, boolean>): void {
  for (const [store, enabled] of changes) {
    state.accept(
      store,
      (cat) => {
        // Store-level state: changes when the write becomes visible; the state file keeps it at once.
        if (cat !== store.visible) {
          store.openProjected = enabled;
          return;
        }
        const was = store.open;
        store.open = enabled;
        const message =
          was === enabled
            ? `Store already ${enabled ? "enabled" : "disabled"}`
            : `Store ${enabled ? "enabled" : "disabled"} successfully`;
        state.onStoreConnectivity?.(store, enabled, message);
      },
      "store-availability",
    );
  }
}

/** `PUT /availability/stores` `{turn_on, turn_off}` (an `availability#StoreToggle`, at least one list). */
function toggleStores(ctx: RouteContext): Reply {
  // StoreToggle's generated type is an open object (its `anyOf` of `required`s): name the lists here.
  const b = ctx.body as { turn_on?: StoreIdList; turn_off?: StoreIdList };
  const on = (b.turn_on ?? []).map(String);
  const off = (b.turn_off ?? []).map(String);
  const changes = new Map<StoreRec, boolean>();
  for (const id of on) changes.set(ctx.state.storeForClient(id, ctx.clientId), true);
  for (const id of off) changes.set(ctx.state.storeForClient(id, ctx.clientId), false);
  acceptChanges(ctx.state, changes);
  return accepted();
}

/** The stores of an `availability#StoreEnableRequest` (checked by server.ts). */
function parseEnable(body: unknown): { id: string; raw: string | number; enabled: boolean }[] {
  return (body as StoreEnableRequest).stores.map((s) => ({
    id: String(s.store_id),
    raw: s.store_id,
    enabled: s.is_enabled,
  }));
}

/** `PUT /availability/stores/enable/massive` (asynchronous). */
function enableMassive(ctx: RouteContext): Reply {
  const list = parseEnable(ctx.body);
  const changes = new Map<StoreRec, boolean>();
  for (const s of list) changes.set(ctx.state.storeForClient(s.id, ctx.clientId), s.enabled);
  acceptChanges(ctx.state, changes);
  return accepted();
}

/** `PUT /availability/stores/enable` (synchronous). */
function enableSync(ctx: RouteContext): Reply {
  const list = parseEnable(ctx.body);
  if (list.length > MAX_SYNC_STORES) {
    throw fail(
      422,
      `The synchronous service accepts at most ${MAX_SYNC_STORES} stores (got ${list.length}); ` +
        `please use the asynchronous service`,
    );
  }
  let changed = false;
  const results = list.map((s): StoreEnableResult => {
    const key = storeKey(s.id);
    const store = key === undefined ? undefined : ctx.state.stores.get(key);
    const base = {
      store_id: s.raw,
      is_enabled: s.enabled,
      suspended_reason: null,
      suspended_at: null,
      suspended_time: null,
    };
    if (!store || store.client_id !== ctx.clientId) {
      return {
        ...base,
        operation_result: false,
        operation_result_type: "FORBIDDEN",
        operation_result_message: `The store ${s.id} does not belong to the appClient of client id ${ctx.clientId}`,
      };
    }
    if (store.open === s.enabled) {
      return {
        ...base,
        operation_result: false,
        operation_result_type: "STORE_ALREADY_IN_STATUS",
        operation_result_message: `The store is already ${s.enabled ? "enabled" : "disabled"}`,
      };
    }
    store.open = s.enabled;
    store.openProjected = s.enabled;
    changed = true;
    return {
      ...base,
      operation_result: true,
      operation_result_type: "SUCCESS",
      operation_result_message: `The store was ${s.enabled ? "enabled" : "disabled"} successfully`,
    };
  });
  if (changed) ctx.state.requestPersist();
  return { status: 200, body: { results } };
}

/** Routes of store availability v2 (docs/platform-api.md §2.3). All need an integrations token. */
export const storeAvailabilityRoutes: Route[] = [
  {
    route: STATUS,
    handle: storesStatus,
    requestNames: { noun: "store ids", root: "body" },
  },
  { route: "PUT /api/v2/restaurants-integrations-public-api/availability/stores", handle: toggleStores },
  {
    route: "PUT /api/v2/restaurants-integrations-public-api/availability/stores/enable/massive",
    handle: enableMassive,
  },
  { route: ENABLE_SYNC, handle: enableSync },
];
