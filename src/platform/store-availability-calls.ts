/**
 * Typed calls of store availability, availability v2 (docs/platform-api.md §2.3, prefix
 * `/api/v2/restaurants-integrations-public-api`), with the shapes and limits of docs/platform-api.md §4.4,
 * §4.11:
 * - `POST /availability/stores`: a bare array of store ids, at most {@link MAX_STATUS_STORES} →
 *   `{"<storeId>": true|false}`, keys as sent;
 * - `PUT /availability/stores/enable` (synchronous), `{stores: [{store_id, is_enabled}]}`, at most
 *   {@link MAX_SYNC_STORES} (more: 422) → `{results: [{store_id, is_enabled, operation_result,
 *   operation_result_type, operation_result_message, …}]}`.
 *
 * Store ids are sent as decimal strings (carte keeps uint64 ids as strings to stay exact; the platform
 * takes a string or an integer, schema `availability#StoreId`).
 */

import type { StoreEnableResponse, StoreEnableResult, StoreStatusMap } from "../generated/platform.js";
import type { PlatformClient } from "./client.js";
import { ROUTES } from "./routes.js";

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
 * `operation_result_type` values of the synchronous call that mean the store is in the asked state
 * (docs/platform-api.md §4.4); every other value (`SUSPENDED`, `FORBIDDEN`, `STORE_NOT_PUBLISHED`,
 * `ERROR_EXTERNAL_SERVICE`) is a failure for that store.
 */
export const ENABLE_OK_RESULTS: ReadonlySet<string> = new Set(["SUCCESS", "STORE_ALREADY_IN_STATUS"]);

/**
 * `POST /availability/stores`: whether each store takes orders. At most {@link MAX_STATUS_STORES} ids
 * per call (the caller batches). A read, hence idempotent.
 */
export async function storesOpen(client: PlatformClient, storeIds: string[]): Promise<Map<string, boolean>> {
  if (storeIds.length > MAX_STATUS_STORES) {
    throw new RangeError(`at most ${MAX_STATUS_STORES} stores per status call, got ${storeIds.length}`);
  }
  const answer = await client.request<StoreStatusMap>(STATUS, {}, storeIds);
  const out = new Map<string, boolean>();
  for (const [id, open] of Object.entries(answer ?? {})) if (typeof open === "boolean") out.set(id, open);
  return out;
}

/** The results of a synchronous enable answer that did not leave the store in the asked state. */
export function failedEnableResults(answer: unknown): StoreEnableResult[] {
  const results = (answer as Partial<StoreEnableResponse> | undefined)?.results;
  if (!Array.isArray(results)) return [];
  return results.filter((r) => !ENABLE_OK_RESULTS.has(r.operation_result_type));
}
