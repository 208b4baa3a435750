/** Builders of normalized states for planner tests. */

import type { CurrentState, DesiredState, ItemResource, StoreIds, StoreState } from "../../src/model.js";
import type { CategoryResource, KindState, MenuResource } from "../../src/model.js";
import { emptyStore, table } from "../../src/model.js";
import { categoriesState, menusState } from "../../src/kinds/catalog.js";

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

/**
 * The states of the catalog kinds of a store, read and written as fields, as tests build and inspect
 * them: reading a field creates the kind's empty state when the store has none, so that a test can
 * fill it in place; assigning one sets the kind's state (src/kinds/catalog.ts).
 */
export function catalogOf(s: Pick<StoreState, "kinds">) {
  const slot = <T>(state: KindState<T>, empty: () => T): T => {
    let value = state.get(s);
    if (value === undefined) state.set(s, (value = empty()));
    return value;
  };
  return {
    get categories(): Record<string, CategoryResource> {
      return slot(categoriesState, () => table());
    },
    set categories(value: Record<string, CategoryResource>) {
      categoriesState.set(s, value);
    },
    get menus(): Record<string, MenuResource> {
      return slot(menusState, () => table());
    },
    set menus(value: Record<string, MenuResource>) {
      menusState.set(s, value);
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
    for (const k of Object.keys(s.items).sort()) ids.items[k] = next++;
    for (const k of Object.keys(catalogOf(s).categories).sort()) ids.categories[k] = next++;
    for (const k of Object.keys(catalogOf(s).menus).sort()) ids.menus[k] = next++;
    out.stores[s.store.key] = { ...structuredClone(s), ids };
  }
  return out;
}
