/**
 * The API calls a plan is made of, in the order they must run. Creates and updates come before the
 * resources that reference them (items → categories → menus); deletes run after every upsert and in
 * the reverse order (menus → categories → items), so that nothing is deleted while still referenced.
 * Availability toggles come after the items exist. Store settings (hours, schedules, webhooks) follow;
 * opening or closing a store comes last, when everything else is in place.
 *
 * An endpoint is `store`-scoped (its path names one store; writes of one store with the same params
 * share a call) or `client`-scoped (one call serves several stores; writes with the same params share
 * a call, up to `maxElements`).
 *
 * Sources: platform-spec.md §4.3 (availability v2), §4.4 (store menu API); platform-notes.md
 * "Store menu API" (array bodies, `{ids}` for DELETE /categories) and "Limits" (100 items per
 * availability call).
 */

import type { AvailabilityToggle } from "../kinds/availability.js";
import { Limits, Paths, type StoreItemsToggle } from "../platform/wire.js";

/** Values a write gives the endpoint besides its element (see `Write.params`). */
export type EndpointParams = Record<string, string | number>;

/** How an endpoint is called and where it stands in the order of a plan. */
export interface EndpointSpec {
  /** Unique name, e.g. `items.upsert`. */
  name: string;
  /** Stage of the plan, 1-based; every call of a stage runs before any call of a later stage. */
  stage: number;
  method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
  /** `store`: the path names one store; `client`: one call serves several stores. */
  scope: "store" | "client";
  /** Path of the call; `storeId` is the platform store id (empty for client-scoped endpoints). */
  path(storeId: string, params: EndpointParams): string;
  /** Body of the call from the elements the kinds wrote (undefined: no body). */
  body(elements: unknown[], params: EndpointParams): unknown;
  /** Most elements in one call; more are split across calls. */
  maxElements: number;
  /**
   * Whether repeating the call cannot change the outcome, so that a lost answer may be retried:
   * upserts by SKU, deletes by id and availability toggles are; a menu upsert is only when every menu
   * carries its id (a menu without id is created anew by each call).
   */
  idempotent(elements: unknown[]): boolean;
  /**
   * The chain of calls this one depends on: a failed call skips the later calls of its chain in the same
   * store, and nothing else. `catalog` (default): items, categories, menus, availability and the utils
   * schedules of categories and items; `store_schedule`: hours, holidays and special days; `webhooks`;
   * `*`: depends on every chain (opening or closing a store comes after everything else succeeded).
   */
  chain?: "catalog" | "store_schedule" | "webhooks" | "*";
  /**
   * Whether the platform applies the call before answering (utils, webhooks, the sync store call), so
   * that a read right after shows its effect. A call that is not idempotent and fails without a usable
   * answer is settled by reading: the change shows (only the answer was lost), or it does not and the call
   * is made once more (it provably did not happen). Asynchronous endpoints are read with a wait.
   */
  synchronous?: boolean;
  /**
   * Checks the body of a 2xx answer for failures the platform reports inside it (a synchronous call
   * that answers one result per element). Returns what went wrong when the call must count as failed,
   * else undefined. Default: a 2xx answer is a success.
   */
  check?(response: unknown, parts: readonly { store: string; element: unknown }[]): string | undefined;
}

const menuPath = (rest: string) => (storeId: string) => `${Paths.menu}/${storeId}${rest}`;
const asArray = (elements: unknown[]) => elements;
const always = () => true;

/** Every endpoint spec, registered by name. Kinds of later issues add theirs with {@link registerEndpoint}. */
export const Endpoints: Record<string, EndpointSpec> = {};

/** Registers an endpoint spec (at module load of the kind that writes to it). */
export function registerEndpoint(spec: EndpointSpec): EndpointSpec {
  Endpoints[spec.name] = spec;
  return spec;
}

/** The spec of an endpoint. Throws when no kind registered it (a bug). */
export function endpoint(name: string): EndpointSpec {
  const spec = Endpoints[name];
  if (!spec) throw new Error(`no endpoint named ${name} is registered`);
  return spec;
}

registerEndpoint({
  name: "items.upsert",
  stage: 1,
  method: "POST",
  scope: "store",
  path: menuPath("/items"),
  body: asArray,
  maxElements: Infinity,
  idempotent: always,
});
registerEndpoint({
  name: "categories.upsert",
  stage: 2,
  method: "POST",
  scope: "store",
  path: menuPath("/categories"),
  body: asArray,
  maxElements: Infinity,
  idempotent: always,
});
registerEndpoint({
  name: "menus.upsert",
  stage: 3,
  method: "POST",
  scope: "store",
  path: menuPath("/menu"),
  body: asArray,
  maxElements: Infinity,
  idempotent: (elements) => elements.every((m) => typeof (m as { id?: unknown }).id === "number"),
});
registerEndpoint({
  name: "menus.delete",
  stage: 4,
  method: "DELETE",
  scope: "store",
  path: menuPath("/menu"),
  body: asArray,
  maxElements: Infinity,
  idempotent: always,
});
registerEndpoint({
  name: "categories.delete",
  stage: 5,
  method: "DELETE",
  scope: "store",
  path: menuPath("/categories"),
  body: (ids) => ({ ids }),
  maxElements: Infinity,
  idempotent: always,
});
registerEndpoint({
  name: "items.delete",
  stage: 6,
  method: "DELETE",
  scope: "store",
  path: menuPath("/items"),
  body: asArray,
  maxElements: Infinity,
  idempotent: always,
});
registerEndpoint({
  name: "availability.toggle",
  stage: 7,
  method: "PUT",
  scope: "client",
  path: () => `${Paths.availabilityV2}/availability/stores/items`,
  // Toggles of several stores merge into one entry per store (spec §4.3).
  body: (elements) => {
    const entries: StoreItemsToggle[] = [];
    for (const t of elements as AvailabilityToggle[]) {
      let entry = entries.find((e) => e.store_integration_id === t.integrationId);
      if (!entry) {
        entry = { store_integration_id: t.integrationId, items: {} };
        entries.push(entry);
      }
      (t.on ? (entry.items.turn_on ??= []) : (entry.items.turn_off ??= [])).push(t.sku);
    }
    return entries;
  },
  maxElements: Limits.availabilityItemsPerCall,
  idempotent: always,
});
