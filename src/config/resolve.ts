/**
 * Turns valid catalog and store files into the normalized desired state of `src/model.ts`: one
 * {@link StoreState} per store file, its catalog with the store's prices and exclusions applied.
 * Pure: the caller has already validated and checked the files (see `load.ts`).
 */

import type { CatalogFile, InlineOption, StoreFile } from "../generated/config.js";
import type { CategoryResource, DesiredState, ItemResource, MenuResource, StoreState } from "../model.js";
import { storeIdOf } from "./check.js";

/** A valid store file and the valid catalog it names. */
export interface ResolvableStore {
  store: StoreFile;
  catalog: CatalogFile;
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function optionSku(option: string | InlineOption): string {
  return typeof option === "string" ? option : option.sku;
}

/**
 * Builds the desired state of one store.
 *
 * - Items of `items:` become ITEM resources whose children are their modifier groups; every option
 *   written in full becomes an ITEM resource without children; modifier groups become MODIFIER_GROUP
 *   resources (price `null`) whose children are their options. Record order: items, groups, options.
 * - Store prices replace catalog prices. An excluded SKU is removed with every reference to it
 *   (category items, item children, group options, menu categories); an option written in full is kept
 *   only while some remaining group offers it. A group's `max` is lowered to its remaining number of
 *   options when exclusions removed some (the checks guarantee at least `max(min, 1)` remain).
 * - `unavailable` is sorted and without duplicates.
 *
 * @throws never for inputs that passed validation and the semantic checks.
 */
export function resolveStore({ store, catalog }: ResolvableStore): StoreState {
  const excluded = new Set(store.overrides?.exclude ?? []);
  const prices = store.overrides?.prices ?? {};
  const keep = (sku: string): boolean => !excluded.has(sku);
  const priceOf = (sku: string, price: number): number => prices[sku] ?? price;

  const items: Record<string, ItemResource> = {};
  for (const item of catalog.items ?? []) {
    if (!keep(item.sku)) continue;
    items[item.sku] = {
      sku: item.sku,
      type: "ITEM",
      title: item.title,
      description: item.description ?? "",
      price: priceOf(item.sku, item.price),
      images: [...(item.images ?? [])],
      children: (item.modifier_groups ?? []).filter(keep),
      min: null,
      max: null,
      modifiersType: null,
    };
  }

  const offered = new Set<string>();
  for (const group of catalog.modifier_groups ?? []) {
    if (!keep(group.sku)) continue;
    const options = group.options.map(optionSku).filter(keep);
    for (const o of options) offered.add(o);
    items[group.sku] = {
      sku: group.sku,
      type: "MODIFIER_GROUP",
      title: group.title,
      description: "",
      price: null,
      images: [],
      children: options,
      min: group.min,
      max: options.length < group.options.length ? Math.min(group.max, options.length) : group.max,
      modifiersType: group.type ?? null,
    };
  }

  for (const group of catalog.modifier_groups ?? []) {
    for (const option of group.options) {
      if (typeof option === "string" || !offered.has(option.sku) || items[option.sku]) continue;
      items[option.sku] = {
        sku: option.sku,
        type: "ITEM",
        title: option.title,
        description: option.description ?? "",
        price: priceOf(option.sku, option.price),
        images: [...(option.images ?? [])],
        children: [],
        min: null,
        max: null,
        modifiersType: null,
      };
    }
  }

  const categories: Record<string, CategoryResource> = {};
  for (const category of catalog.categories ?? []) {
    if (!keep(category.sku)) continue;
    categories[category.sku] = {
      sku: category.sku,
      title: category.title,
      items: category.items.filter((sku) => keep(sku) && items[sku] !== undefined),
    };
  }

  const menus: Record<string, MenuResource> = {};
  for (const menu of catalog.menus ?? []) {
    menus[menu.type] = {
      type: menu.type,
      categories: menu.categories
        .map((entry) =>
          typeof entry === "string"
            ? { sku: entry, active: true }
            : { sku: entry.sku, active: entry.active ?? true },
        )
        .filter((entry) => categories[entry.sku] !== undefined),
    };
  }

  const unavailable = [...new Set(store.availability?.unavailable ?? [])].sort(byCodePoint);
  const storeId = storeIdOf(store.store.id) ?? String(store.store.id);
  return {
    store: {
      key: store.store.integration_id,
      storeId,
      integrationId: store.store.integration_id,
      name: store.store.name,
    },
    items,
    categories,
    menus,
    unavailable,
  };
}

/**
 * Builds the desired state of every store, keyed by integration id, in the order of the store files.
 */
export function resolveDesired(stores: readonly ResolvableStore[]): DesiredState {
  const desired: DesiredState = { stores: {} };
  for (const s of stores) {
    const state = resolveStore(s);
    desired.stores[state.store.key] = state;
  }
  return desired;
}
