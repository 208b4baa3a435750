/**
 * The API calls a plan is made of, in the order they must run. Creates and updates come before the
 * resources that reference them (items → categories → menus); deletes run after every upsert and in
 * the reverse order (menus → categories → items), so that nothing is deleted while still referenced.
 * Availability toggles come last: an item must exist before it can be switched off.
 *
 * Sources: platform-spec.md §4.3 (availability v2), §4.4 (store menu API); platform-notes.md
 * "Store menu API" (array bodies, `{ids}` for DELETE /categories) and "Limits" (100 items per
 * availability call).
 */

import { Limits, Paths } from "../platform/wire.js";

/** Name of an endpoint a kind can write to. */
export type EndpointName =
  | "items.upsert"
  | "categories.upsert"
  | "menus.upsert"
  | "menus.delete"
  | "categories.delete"
  | "items.delete"
  | "availability.toggle";

/** How an endpoint is called and where it stands in the order of a plan. */
export interface EndpointSpec {
  name: EndpointName;
  /** Stage of the plan, 1-based; every call of a stage runs before any call of a later stage of the same store. */
  stage: number;
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** `true` when one call serves several stores (the body names the stores). */
  crossStore: boolean;
  /** Path of the call; `storeId` is the platform store id. */
  path(storeId: string): string;
  /** Body of the call from the elements the kinds wrote. */
  body(elements: unknown[]): unknown;
  /** Most elements in one call; more are split across calls. */
  maxElements: number;
  /**
   * Whether repeating the call cannot change the outcome, so that a lost answer may be retried:
   * upserts by SKU, deletes by id and availability toggles are; a menu upsert is only when every menu
   * carries its id (a menu without id is created anew by each call).
   */
  idempotent(elements: unknown[]): boolean;
}

const menuPath = (rest: string) => (storeId: string) => `${Paths.menu}/${storeId}${rest}`;
const asArray = (elements: unknown[]) => elements;
const always = () => true;

/** The endpoints, by name. */
export const Endpoints: Record<EndpointName, EndpointSpec> = {
  "items.upsert": {
    name: "items.upsert",
    stage: 1,
    method: "POST",
    crossStore: false,
    path: menuPath("/items"),
    body: asArray,
    maxElements: Infinity,
    idempotent: always,
  },
  "categories.upsert": {
    name: "categories.upsert",
    stage: 2,
    method: "POST",
    crossStore: false,
    path: menuPath("/categories"),
    body: asArray,
    maxElements: Infinity,
    idempotent: always,
  },
  "menus.upsert": {
    name: "menus.upsert",
    stage: 3,
    method: "POST",
    crossStore: false,
    path: menuPath("/menu"),
    body: asArray,
    maxElements: Infinity,
    idempotent: (elements) => elements.every((m) => typeof (m as { id?: unknown }).id === "number"),
  },
  "menus.delete": {
    name: "menus.delete",
    stage: 4,
    method: "DELETE",
    crossStore: false,
    path: menuPath("/menu"),
    body: asArray,
    maxElements: Infinity,
    idempotent: always,
  },
  "categories.delete": {
    name: "categories.delete",
    stage: 5,
    method: "DELETE",
    crossStore: false,
    path: menuPath("/categories"),
    body: (ids) => ({ ids }),
    maxElements: Infinity,
    idempotent: always,
  },
  "items.delete": {
    name: "items.delete",
    stage: 6,
    method: "DELETE",
    crossStore: false,
    path: menuPath("/items"),
    body: asArray,
    maxElements: Infinity,
    idempotent: always,
  },
  "availability.toggle": {
    name: "availability.toggle",
    stage: 7,
    method: "PUT",
    crossStore: true,
    path: () => `${Paths.availabilityV2}/availability/stores/items`,
    // Built by the batcher, which packs toggles of several stores into calls (see batch.ts).
    body: asArray,
    maxElements: Limits.availabilityItemsPerCall,
    idempotent: always,
  },
};
