/**
 * The normalized state shared by the desired side (built from the YAML files) and the current side
 * (read from the platform). Both sides have exactly this shape, with canonical attribute values
 * (defaults filled, server-owned fields such as ids and timestamps removed), so that planning is a
 * plain comparison. Normalization of each resource kind lives in its module under `src/kinds/`.
 */

import type { ModifiersType } from "./platform/wire.js";

/**
 * A catalog item or modifier group of one store, keyed by SKU. Prices are JSON numbers in the store's
 * currency exactly as the platform's `price_info.price` carries them (spec §2.2); carte never does
 * arithmetic on them, so no floating-point drift can enter.
 */
export interface ItemResource {
  sku: string;
  /** `ITEM` (a product or an option) or `MODIFIER_GROUP` (spec §2.2). */
  type: "ITEM" | "MODIFIER_GROUP";
  title: string;
  /** Empty string when absent. */
  description: string;
  /** Price in the platform's price unit; `null` for modifier groups without a price. */
  price: number | null;
  /** Image paths, in order. */
  images: string[];
  /** Ordered SKUs of related items: modifier groups of an ITEM, options of a MODIFIER_GROUP. */
  children: string[];
  /** Minimum options to choose; modifier groups only, `null` for items. */
  min: number | null;
  /** Maximum options to choose; modifier groups only, `null` for items. */
  max: number | null;
  /** Modifier groups only, `null` for items. */
  modifiersType: ModifiersType | null;
}

/** A category of one store: a title and the ordered SKUs of the ITEMs it shows. */
export interface CategoryResource {
  sku: string;
  title: string;
  items: string[];
}

/** One category inside a menu, in order. */
export interface MenuCategoryEntry {
  sku: string;
  /** `is_category_active` of the platform (spec §3). */
  active: boolean;
}

/** A menu of one store, keyed by its `menu_type` (unique per store in carte's model). */
export interface MenuResource {
  type: string;
  categories: MenuCategoryEntry[];
}

/** The identity of a store on the platform (spec §2.2 `storeId`, §4.3 `store_integration_id`). */
export interface StoreIdentity {
  /** carte's key of the store: its integration id. Used in addresses, e.g. `store[bog-centro]`. */
  key: string;
  /** Platform store id (uint64, kept as a decimal string to stay exact). */
  storeId: string;
  /** The merchant's integration id of the store. */
  integrationId: string;
  /** Human name. */
  name: string;
}

/** Everything carte manages in one store, normalized. */
export interface StoreState {
  store: StoreIdentity;
  /** Items and modifier groups by SKU. */
  items: Record<string, ItemResource>;
  /** Categories by SKU. */
  categories: Record<string, CategoryResource>;
  /** Menus by menu type. */
  menus: Record<string, MenuResource>;
  /**
   * SKUs of the ITEMs that are switched off in the store (platform `suspension_info.is_available: false`,
   * availability v2 `turn_off`). Sorted.
   */
  unavailable: string[];
}

/**
 * Platform ids of the resources that exist in a store, known only on the current side. Planning needs
 * them to update menus (which have no SKU) and to delete anything (deletes take ids, spec §4.4).
 */
export interface StoreIds {
  items: Record<string, number>;
  categories: Record<string, number>;
  menus: Record<string, number>;
}

/** The desired state: what the files say, per store key. */
export interface DesiredState {
  stores: Record<string, StoreState>;
}

/** The current state: what the platform has, per store key, with the platform ids. */
export interface CurrentState {
  stores: Record<string, StoreState & { ids: StoreIds }>;
}

/** An empty store state for the given identity. */
export function emptyStore(store: StoreIdentity): StoreState {
  return { store, items: {}, categories: {}, menus: {}, unavailable: [] };
}
