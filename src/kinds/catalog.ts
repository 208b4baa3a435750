/**
 * The states of the kinds of the store menu: items, categories, menus and item availability. Each is
 * kept, like every kind's, under the kind's name in `StoreState.kinds` through its {@link KindState};
 * they are declared here, below the kinds and their import parts, because those, the config loader
 * (src/config/resolve.ts builds them from a catalog and its overrides), the planner and the importer
 * all read them.
 *
 * One platform read gives the four (`GET /store-menu`, src/kinds/reads.ts `storeMenuRead`): on the
 * current side each kind's `read` fills its own slot from that one answer. The utils schedule kinds
 * keep no state of their own: their resources are the schedules of the items and categories seen
 * through the utils group, and their read completes those two kinds' states (src/kinds/utils-schedules.ts).
 *
 * The catalog is always managed: a store whose state has no slot for one of these kinds (a store not
 * read, or read for other kinds only) has an empty one, which is what the `…Of` readers give. Their
 * answers are read-only; a read writes its kind's slot with `set`.
 */

import {
  kindState,
  table,
  type CategoryResource,
  type ItemResource,
  type MenuResource,
  type StoreState,
  type Suspension,
} from "../model.js";

/** A price the files set from a date still ahead (`{price, from}` overrides): `from` is `YYYY-MM-DD`. */
export interface UpcomingPrice {
  price: number;
  from: string;
}

/** The state of the items kind (`item`) in one store. */
export interface ItemsState {
  /** Items and modifier groups by SKU (a duplicate on the platform under `SKU#id`). */
  items: Record<string, ItemResource>;
  /**
   * Desired side only: prices the files set from a date still ahead at the run's clock, by SKU, that
   * would change the item's price. Not applied: the plan lists them as upcoming information
   * (src/kinds/items.ts `info`). Absent when none.
   */
  upcomingPrices?: Record<string, UpcomingPrice>;
}

/**
 * The state of the item availability kind (`availability`) in one store.
 */
export interface AvailabilityState {
  /**
   * SKUs of the ITEMs that are switched off in the store (platform `suspension_info.is_available: false`,
   * availability v2 `turn_off`). Sorted.
   */
  unavailable: string[];
  /**
   * SKUs of ITEMs the files say must be switched on. Under the default `additive` ownership of item
   * availability only these are turned back on; under `full` every ITEM not in `unavailable` is.
   */
  available?: string[];
  /**
   * Details of switched-off items (SKUs of `unavailable`), by SKU; a SKU without an entry is switched off
   * until switched on again, by whoever (current side) or by carte (desired side). Absent when no item
   * has details. See {@link Suspension}.
   */
  suspensions?: Record<string, Suspension>;
}

/** Where the items kind keeps its state: under `item`. */
export const itemsState = kindState<ItemsState>("item");

/** Where the categories kind keeps its state (categories by SKU): under `category`. */
export const categoriesState = kindState<Record<string, CategoryResource>>("category");

/** Where the menus kind keeps its state (menus by menu type): under `menu`. */
export const menusState = kindState<Record<string, MenuResource>>("menu");

/** Where the item availability kind keeps its state: under `availability`. */
export const itemAvailabilityState = kindState<AvailabilityState>("availability");

const NO_ITEMS = Object.freeze(table<ItemResource>());
const NO_CATEGORIES = Object.freeze(table<CategoryResource>());
const NO_MENUS = Object.freeze(table<MenuResource>());
const NO_AVAILABILITY: Readonly<AvailabilityState> = Object.freeze({
  unavailable: Object.freeze([]) as unknown as string[],
});

/** The items and modifier groups of a store, by SKU (empty when it has none). */
export function itemsOf(state: Pick<StoreState, "kinds">): Readonly<Record<string, ItemResource>> {
  return itemsState.get(state)?.items ?? NO_ITEMS;
}

/** The categories of a store, by SKU (empty when it has none). */
export function categoriesOf(state: Pick<StoreState, "kinds">): Readonly<Record<string, CategoryResource>> {
  return categoriesState.get(state) ?? NO_CATEGORIES;
}

/** The menus of a store, by menu type (empty when it has none). */
export function menusOf(state: Pick<StoreState, "kinds">): Readonly<Record<string, MenuResource>> {
  return menusState.get(state) ?? NO_MENUS;
}

/** The availability of a store's items (nothing switched off when it has none). */
export function availabilityOf(state: Pick<StoreState, "kinds">): Readonly<AvailabilityState> {
  return itemAvailabilityState.get(state) ?? NO_AVAILABILITY;
}
