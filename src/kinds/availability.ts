/**
 * Item availability: whether an ITEM of a store is switched on or off. Read from the items'
 * `suspension_info.is_available` (spec §2.2) in the store menu that planning reads anyway; written
 * with availability v2 `PUT /availability/stores/items` (spec §4.3), batched across stores by the
 * planner, at most 100 items per call (platform notes, "Limits").
 *
 * Every ITEM has an availability resource; a new item starts available on the platform, so only an item
 * that must be off, or whose state differs, yields a change.
 */

import type { Ownership, StoreState } from "../model.js";
import { availabilityPart } from "../import/availability.js";
import type { StoreItemsToggle } from "../platform/wire.js";
import { storeMenuRead } from "./reads.js";
import { partOf, type EndpointSpec, type ResourceKind } from "./types.js";

/** The normalized availability of one item. */
export interface AvailabilityResource {
  sku: string;
  available: boolean;
}

/** An availability toggle for the batcher: one SKU of one store, on or off. */
export interface AvailabilityToggle {
  integrationId: string;
  sku: string;
  on: boolean;
}

/**
 * Under `full` ownership every ITEM is wanted on unless listed unavailable; under `additive` (the
 * default) only the items the files name are: listed unavailable → off, listed available → on, and an
 * item that staff switched off during service stays off.
 */
function select(state: StoreState, ownership: Ownership = "full"): Record<string, AvailabilityResource> {
  const off = new Set(state.unavailable);
  const on = new Set(state.available ?? []);
  const out: Record<string, AvailabilityResource> = {};
  for (const sku in state.items) {
    if (state.items[sku]!.type !== "ITEM") continue;
    if (off.has(sku)) out[sku] = resource(sku, false);
    else if (ownership === "full" || on.has(sku)) out[sku] = resource(sku, true);
  }
  return out;
}

/**
 * The availability resources of every SKU seen, frozen and shared by all stores: the planner selects
 * one per ITEM of every store on both sides, and equal objects compare at once.
 */
const resources = new Map<string, readonly [AvailabilityResource, AvailabilityResource]>();

function resource(sku: string, available: boolean): AvailabilityResource {
  let pair = resources.get(sku);
  if (!pair) {
    pair = [Object.freeze({ sku, available: false }), Object.freeze({ sku, available: true })];
    resources.set(sku, pair);
  }
  return pair[available ? 1 : 0];
}

/**
 * `PUT /availability/stores/items` (spec §4.3): toggles of several stores merge into one entry per
 * store, at most 100 items per call in total (platform notes "Limits"); after the items exist.
 */
const toggle: EndpointSpec = {
  name: "availability.toggle",
  stage: 7,
  route: "PUT /api/v2/restaurants-integrations-public-api/availability/stores/items",
  scope: "client",
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
};

/** The item availability kind. */
export const availability: ResourceKind<AvailabilityResource, "availability"> = {
  name: "availability",
  summary: "whether each item of a store is switched on or off (availability v2)",
  endpoints: [toggle],
  importPart: availabilityPart,
  reads: [storeMenuRead],
  defaultOwnership: "additive",
  select,
  segment: () => "availability",
  title: (state, key) => (Object.hasOwn(state.items, key) ? state.items[key]!.title : undefined),
  // A new item is created available (platform notes, "Store menu API").
  initial: (after) => ({ sku: after.sku, available: true }),
  read(snapshot, into) {
    const wire = partOf(snapshot, storeMenuRead)!;
    into.unavailable = wire.items
      .filter((w) => w.item_type !== "MODIFIER_GROUP" && w.suspension_info?.is_available === false)
      .map((w) => w.sku)
      .sort();
  },
  writes(action, key, _before, after, ctx) {
    // Deleting an item removes its availability with it; nothing to call.
    if (action === "delete" || !after) return [];
    const toggle: AvailabilityToggle = {
      integrationId: ctx.desired.store.integrationId,
      sku: key,
      on: after.available,
    };
    return [{ endpoint: "availability.toggle", element: toggle }];
  },
};
