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

/**
 * The overrides of the files that may name an entry of a catalog, as they are written
 * (docs/configuration.md "Overrides at every layer"): `available` is `overrides: available:` (the offer
 * windows), `availability` the lists of `availability:` (switched off, switched on).
 */
export type CatalogOverride =
  | "exclude"
  | "prices"
  | "option_prices"
  | "titles"
  | "descriptions"
  | "images"
  | "schedules"
  | "available"
  | "limits"
  | "availability";

/**
 * One kind of entry of a catalog, declared by the kind whose resources such entries are (the items
 * kind: items, options, modifier groups; the categories kind: categories), with what the overrides may
 * say of it: the config loader checks each SKU an override names against these (src/config/overrides.ts).
 */
export interface CatalogEntry {
  /** Its name as the catalog's index and messages say it: `item`, `option`, `modifier group`. */
  name: string;
  /** Its name with its article, for messages: `an item`. */
  a: string;
  /** Its plural, for messages: `items`. */
  plural: string;
  /** The overrides that may name an entry of this kind. */
  overrides: readonly CatalogOverride[];
}

/**
 * A price the files set from a date still ahead (`{price, from}` overrides), `from` as written
 * (`2026-12-01`, a local date and time, or one with its offset), with `until` when it also ends.
 */
export interface UpcomingPrice {
  price: number;
  from: string;
  until?: string;
}

/**
 * A price the files set until a time still ahead (`{price, until}` overrides, a promotion): the price
 * now, `until` as written, and `then`, the price that comes back at that time (the lower layers' or the
 * catalog's).
 */
export interface EndingPrice {
  price: number;
  until: string;
  then: number;
}

/**
 * An offer window of the store menu (`available: {from, until}` of an item, a category or a menu of the
 * catalog) with a start or an end still ahead at the run's clock: `offered` tells whether it is offered
 * now; `from` and `until` as written. A window that is over leaves no note (the resource is simply not
 * offered).
 */
export interface OfferWindowNote {
  /** What the window belongs to. */
  what: "item" | "category" | "menu";
  /** Its SKU, or the menu's type. */
  key: string;
  offered: boolean;
  from?: string;
  until?: string;
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
  /**
   * Desired side only: prices that hold now until a time still ahead, by SKU, where the price that comes
   * back then differs (src/kinds/items.ts `info` lists their end). Absent when none.
   */
  endingPrices?: Record<string, EndingPrice>;
  /**
   * Desired side only: the offer windows of the store menu's items, categories and menus with a start or
   * an end still ahead, by kind then key; kept here, beside the upcoming prices, because the categories'
   * and menus' states are their resources alone. Each kind's `info` lists its own. Absent when none.
   */
  offerWindows?: OfferWindowNote[];
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

/**
 * What the plan tells of the offer windows of one kind of the store menu (`what`) with a start or an
 * end still ahead in a desired store: not changes, information, each in the order of the catalog.
 */
export function offerWindowInfo(desired: Pick<StoreState, "kinds">, what: OfferWindowNote["what"]): string[] {
  const notes = itemsState.get(desired)?.offerWindows ?? [];
  return notes
    .filter((n) => n.what === what)
    .map((n) =>
      n.offered
        ? `upcoming end of ${what} ${n.key}: offered until ${n.until}; a run from then on stops offering it`
        : `upcoming ${what} ${n.key}: offered from ${n.from}${n.until === undefined ? "" : ` until ${n.until}`}` +
          "; not offered now, a run from that date offers it",
    );
}
