/** Builders of normalized states for planner tests. */

import type { CurrentState, DesiredState, ItemResource, StoreIds, StoreState } from "../../src/model.js";
import type { CategoryResource, KindState, MenuResource } from "../../src/model.js";
import { emptyStore, table } from "../../src/model.js";
import {
  categoriesState,
  itemAvailabilityState,
  itemsState,
  menusState,
  type AvailabilityState,
  type ItemsState,
} from "../../src/kinds/catalog.js";

export function item(sku: string, price: number, extra: Partial<ItemResource> = {}): ItemResource {
  return {
    sku,
    type: "ITEM",
    title: sku.toLowerCase(),
    description: "",
    price,
    images: [],
    children: [],
    min: null,
    max: null,
    modifiersType: null,
    ...extra,
  };
}

export function group(sku: string, options: string[], min = 0, max = 1): ItemResource {
  return {
    sku,
    type: "MODIFIER_GROUP",
    title: sku.toLowerCase(),
    description: "",
    price: null,
    images: [],
    children: options,
    min,
    max,
    modifiersType: "exclusive",
  };
}

/** The states of the catalog kinds of a store as fields (see {@link catalogOf}). */
export interface CatalogFields {
  items: Record<string, ItemResource>;
  upcomingPrices: ItemsState["upcomingPrices"];
  categories: Record<string, CategoryResource>;
  menus: Record<string, MenuResource>;
  unavailable: string[];
  available: AvailabilityState["available"];
  suspensions: AvailabilityState["suspensions"];
}

/**
 * The states of the catalog kinds of a store, read and written as fields, as tests build and inspect
 * them: reading a field creates the kind's empty state when the store has none, so that a test can
 * fill it in place; assigning one sets the kind's state (src/kinds/catalog.ts). `undefined` for no
 * store.
 */
export function catalogOf(s: Pick<StoreState, "kinds">): CatalogFields;
export function catalogOf(s: Pick<StoreState, "kinds"> | undefined): CatalogFields | undefined;
export function catalogOf(s: Pick<StoreState, "kinds"> | undefined): CatalogFields | undefined {
  if (s === undefined) return undefined;
  const slot = <T>(state: KindState<T>, empty: () => T): T => {
    let value = state.get(s);
    if (value === undefined) state.set(s, (value = empty()));
    return value;
  };
  const items = () => slot<ItemsState>(itemsState, () => ({ items: table() }));
  const availability = () => slot<AvailabilityState>(itemAvailabilityState, () => ({ unavailable: [] }));
  return {
    get items() {
      return items().items;
    },
    set items(value) {
      items().items = value;
    },
    get upcomingPrices() {
      return itemsState.get(s)?.upcomingPrices;
    },
    set upcomingPrices(value) {
      if (value === undefined) delete items().upcomingPrices;
      else items().upcomingPrices = value;
    },
    get categories() {
      return slot(categoriesState, () => table());
    },
    set categories(value) {
      categoriesState.set(s, value);
    },
    get menus() {
      return slot(menusState, () => table());
    },
    set menus(value) {
      menusState.set(s, value);
    },
    get unavailable() {
      return availability().unavailable;
    },
    set unavailable(value) {
      availability().unavailable = value;
    },
    get available() {
      return itemAvailabilityState.get(s)?.available;
    },
    set available(value) {
      if (value === undefined) delete availability().available;
      else availability().available = value;
    },
    get suspensions() {
      return itemAvailabilityState.get(s)?.suspensions;
    },
    set suspensions(value) {
      if (value === undefined) delete availability().suspensions;
      else availability().suspensions = value;
    },
  };
}

export function store(key: string, storeId: string, build: (s: StoreState) => void = () => {}): StoreState {
  const s = emptyStore({ key, storeId, integrationId: key, name: `Store ${key}` });
  build(s);
  return s;
}

export function desired(...stores: StoreState[]): DesiredState {
  return { stores: Object.fromEntries(stores.map((s) => [s.store.key, s])) };
}

/** A current state equal to the given stores, with ids 1.. assigned in SKU order. */
export function current(...stores: StoreState[]): CurrentState {
  let next = 1;
  const out: CurrentState = { stores: {} };
  for (const s of stores) {
    const ids: StoreIds = { items: {}, categories: {}, menus: {}, other: {} };
    for (const k of Object.keys(catalogOf(s).items).sort()) ids.items[k] = next++;
    for (const k of Object.keys(catalogOf(s).categories).sort()) ids.categories[k] = next++;
    for (const k of Object.keys(catalogOf(s).menus).sort()) ids.menus[k] = next++;
    out.stores[s.store.key] = { ...structuredClone(s), ids };
  }
  return out;
}
