/**
 * Turns valid catalog and store files into the normalized desired state of `src/model.ts`: one
 * {@link StoreState} per store file, its catalog with the store's prices, titles, descriptions, images
 * and exclusions applied, and its settings as merged from the layers it inherits.
 * Pure: the caller has already validated and checked the files (see `load.ts`).
 */

import type { CatalogFile, InlineOption, StoreFile } from "../generated/config.js";
import { own, table } from "../model.js";
import type {
  ClientState,
  CategoryResource,
  DesiredState,
  ItemResource,
  MenuResource,
  StoreState,
} from "../model.js";
import { jsonEqual } from "../kinds/util.js";
import { storeIdOf } from "./check.js";
import type { StoreSettings } from "./settings.js";
import { toSchedules } from "./slots.js";

/** A valid store file and the valid catalog it names. */
export interface ResolvableStore {
  store: StoreFile;
  catalog: CatalogFile;
  /**
   * The store's settings merged from carte.yaml `defaults:`, its group and its own file (see
   * `mergeSettings` in settings.ts); absent: the store manages no settings.
   */
  settings?: StoreSettings;
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
 * - Store titles, descriptions and images replace the catalog's.
 * - `schedules` of items and categories are canonical (`toSchedules`), and present only when some are
 *   written; `option_prices` of an item become `priceInParent` of each option, keyed by the item's SKU,
 *   present only when some remain after exclusions.
 * - `unavailable` and `available` are sorted and without duplicates; `available` is present only when
 *   the store file writes it. Settings are copied as given, and only those that are defined.
 *
 * @throws never for inputs that passed validation and the semantic checks.
 */
export function resolveStore({ store, catalog, settings }: ResolvableStore): StoreState {
  const excluded = new Set(store.overrides?.exclude ?? []);
  const prices = store.overrides?.prices ?? {};
  const titles = store.overrides?.titles ?? {};
  const descriptions = store.overrides?.descriptions ?? {};
  const images = store.overrides?.images ?? {};
  const keep = (sku: string): boolean => !excluded.has(sku);
  // The override tables come from YAML mappings: read only their own keys, so that a SKU such as
  // `constructor` or `toString` is not taken for a member of Object.prototype.
  const priceOf = (sku: string, price: number): number => own(prices, sku) ?? price;
  const titleOf = (sku: string, title: string): string => own(titles, sku) ?? title;
  const descriptionOf = (sku: string, description: string | undefined): string =>
    own(descriptions, sku) ?? description ?? "";
  const imagesOf = (sku: string, list: string[] | undefined): string[] => [
    ...(own(images, sku) ?? list ?? []),
  ];

  const items = table<ItemResource>();
  for (const item of catalog.items ?? []) {
    if (!keep(item.sku)) continue;
    items[item.sku] = {
      sku: item.sku,
      type: "ITEM",
      title: titleOf(item.sku, item.title),
      description: descriptionOf(item.sku, item.description),
      price: priceOf(item.sku, item.price),
      images: imagesOf(item.sku, item.images),
      children: (item.modifier_groups ?? []).filter(keep),
      min: null,
      max: null,
      modifiersType: null,
      ...schedulesOf(item.schedules),
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
      title: titleOf(group.sku, group.title),
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
      if (typeof option === "string" || !offered.has(option.sku) || own(items, option.sku)) continue;
      items[option.sku] = {
        sku: option.sku,
        type: "ITEM",
        title: titleOf(option.sku, option.title),
        description: descriptionOf(option.sku, option.description),
        price: priceOf(option.sku, option.price),
        images: imagesOf(option.sku, option.images),
        children: [],
        min: null,
        max: null,
        modifiersType: null,
      };
    }
  }

  // Prices of options inside a parent item, on the option, keyed by the parent (sorted).
  for (const item of [...(catalog.items ?? [])].sort((a, b) => byCodePoint(a.sku, b.sku))) {
    const parent = own(items, item.sku);
    if (!parent) continue;
    for (const [sku, price] of Object.entries(item.option_prices ?? {}).sort(([a], [b]) =>
      byCodePoint(a, b),
    )) {
      const option = own(items, sku);
      if (!option || !parent.children.some((g) => own(items, g)?.children.includes(sku))) continue;
      const inParent = option.priceInParent ?? table<number>();
      inParent[item.sku] = price;
      option.priceInParent = inParent;
    }
  }

  const categories = table<CategoryResource>();
  for (const category of catalog.categories ?? []) {
    if (!keep(category.sku)) continue;
    categories[category.sku] = {
      sku: category.sku,
      title: titleOf(category.sku, category.title),
      items: category.items.filter((sku) => keep(sku) && own(items, sku) !== undefined),
      ...schedulesOf(category.schedules),
    };
  }

  const menus = table<MenuResource>();
  for (const menu of catalog.menus ?? []) {
    menus[menu.type] = {
      type: menu.type,
      categories: menu.categories
        .map((entry) =>
          typeof entry === "string"
            ? { sku: entry, active: true }
            : { sku: entry.sku, active: entry.active ?? true },
        )
        .filter((entry) => own(categories, entry.sku) !== undefined),
    };
  }

  const unavailable = [...new Set(store.availability?.unavailable ?? [])].sort(byCodePoint);
  const available = store.availability?.available;
  const storeId = storeIdOf(store.store.id) ?? String(store.store.id);
  const state: StoreState = {
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
  if (available) state.available = [...new Set(available)].sort(byCodePoint);
  for (const [key, value] of Object.entries(settings ?? {}) as [keyof StoreSettings, unknown][])
    if (value !== undefined) (state as unknown as Record<string, unknown>)[key] = value;
  return state;
}

/** `{ schedules }` when some are written, else nothing (absent means "always"). */
function schedulesOf(written: readonly { days: string; slots: readonly string[] }[] | undefined): {
  schedules?: ReturnType<typeof toSchedules>;
} {
  const schedules = toSchedules(written ?? []);
  return schedules.length > 0 ? { schedules } : {};
}

/** Versions of a resource kept per SKU for sharing: a store's own prices make versions nobody shares. */
const SHARED_VERSIONS = 4;

/** Resources of one catalog already resolved for some store, by SKU, for {@link share}. */
type Pool<R> = Map<string, R[]>;

/**
 * Replaces each resource of `resources` that equals one already resolved for another store of the same
 * catalog by that object, so that the stores of a shared catalog hold one copy of what they have in
 * common (memory flat in the number of stores; the planner's checksums write a shared resource once).
 * Resolved resources are never changed afterwards.
 */
function share<R>(resources: Record<string, R>, pool: Pool<R>): void {
  for (const key of Object.keys(resources)) {
    const r = resources[key]!;
    const versions = pool.get(key);
    if (!versions) {
      pool.set(key, [r]);
      continue;
    }
    const same = versions.find((v) => jsonEqual(v, r));
    if (same !== undefined) resources[key] = same;
    else if (versions.length < SHARED_VERSIONS) versions.push(r);
  }
}

/**
 * Builds the desired state of every store, keyed by integration id, in the order of the store files,
 * with the client-level settings when carte.yaml has any. With `share`, stores of one catalog share
 * the resource objects they resolve alike: the result must then never be changed in place.
 */
export function resolveDesired(
  stores: readonly ResolvableStore[],
  client?: ClientState,
  options: { share?: boolean } = {},
): DesiredState {
  const desired: DesiredState = { stores: table() };
  const pools = new Map<
    CatalogFile,
    { items: Pool<ItemResource>; categories: Pool<CategoryResource>; menus: Pool<MenuResource> }
  >();
  for (const s of stores) {
    const state = resolveStore(s);
    desired.stores[state.store.key] = state;
    if (!options.share) continue;
    let pool = pools.get(s.catalog);
    if (!pool) {
      pool = { items: new Map(), categories: new Map(), menus: new Map() };
      pools.set(s.catalog, pool);
    }
    share(state.items, pool.items);
    share(state.categories, pool.categories);
    share(state.menus, pool.menus);
  }
  if (client) desired.client = client;
  return desired;
}
