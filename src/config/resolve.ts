/**
 * Turns valid catalog and store files into the normalized desired state of `src/model.ts`: one
 * {@link StoreState} per store file, its catalog with the store's prices, titles, descriptions, images
 * and exclusions applied, and its settings as merged from the layers it inherits.
 * Pure: the caller has already validated and checked the files (see `load.ts`).
 */

import type { CatalogFile, CatalogPrice, InlineOption, StoreFile } from "../generated/config.js";
import { InternalError } from "../errors.js";
import { own, table } from "../model.js";
import type {
  ClientState,
  CategoryResource,
  DesiredState,
  ImageRef,
  ItemResource,
  MenuResource,
  StoreState,
  Suspension,
} from "../model.js";
import { jsonEqual } from "../plain-data.js";
import { storeIdOf } from "./check.js";
import { imageRefs, overridesOfFile } from "./overrides.js";
import type { StoreOverrides, WrittenSchedule } from "./overrides.js";
import type { StoreSettings } from "./settings.js";
import { toSchedules } from "../time/days-and-slots.js";
import { rulePrice } from "./price-rules.js";
import type { StoreWindows } from "./windows.js";
import {
  menusState,
  categoriesState,
  itemsState,
  itemAvailabilityState,
  type AvailabilityState,
  type OfferWindowNote,
} from "../kinds/catalog.js";

/** A valid store file and the valid catalog it names. */
export interface ResolvableStore {
  store: StoreFile;
  catalog: CatalogFile;
  /**
   * The store's settings merged from carte.yaml `defaults:`, its group and its own file (see
   * `mergeSettings` in settings.ts); absent: the store manages no settings.
   */
  settings?: StoreSettings;
  /**
   * The catalog overrides and availability merged from the same layers (src/config/overrides.ts);
   * absent: those the store file writes itself.
   */
  overrides?: StoreOverrides;
  /** The store's time zone (`timezone:` of its layers, an IANA name); absent when none is written. */
  timeZone?: string;
  /**
   * Its catalog's offer windows judged on the store's clock (src/config/windows.ts); absent when the
   * catalog has none: everything is offered.
   */
  windows?: StoreWindows;
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
 *   written in full becomes an ITEM resource whose children are the modifier groups it offers itself
 *   (nested modifiers, none for most options); modifier groups become MODIFIER_GROUP resources (price
 *   `null`) whose children are their options. Record order: items, groups, options.
 * - The catalog's prices (of items, options and options inside a parent) go through the store's price
 *   rules (src/config/price-rules.ts), in order; an explicit price of the overrides wins over them.
 * - The overrides (merged from the layers, highest first: store > group > carte.yaml > catalog) replace
 *   the catalog's prices, titles, descriptions, images, schedules and groups' `min`/`max`. An excluded
 *   SKU is removed with every reference to it (category items, item and option children, group options,
 *   menu categories); an option written in full is kept only while some remaining group offers it. A
 *   group's `max` is lowered to its remaining number of options when exclusions removed some (the checks
 *   guarantee at least `max(min, 1)` remain).
 * - `schedules` of items and categories are canonical (`toSchedules`), and present only when some are
 *   written; `option_prices` of an item or of an option written in full (the catalog's, then the
 *   overrides' `option_prices` of that parent, option by option) become `priceInParent` of each option,
 *   keyed by the parent's SKU, present only when the parent still offers the option after exclusions;
 *   a price written for an ancestor (an item or option two or more levels up) sets it in every parent
 *   under that ancestor, and the nearest written price wins.
 * - Outside their offer windows (`windows`), items are left out of their categories, and categories
 *   (or every category of a menu) are inactive in their menus.
 * - `unavailable` and `available` are sorted and without duplicates, and name only items and options
 *   of the catalog that are not excluded; `available` is present only when some layer writes it.
 *   Settings are copied as given, and only those that are defined.
 *
 * @throws never for inputs that passed validation and the semantic checks.
 */
export function resolveStore({
  store,
  catalog,
  settings,
  overrides,
  timeZone,
  windows,
}: ResolvableStore): StoreState {
  const o = overrides ?? overridesOfFile(store);
  const excluded = o.exclude;
  const keep = (sku: string): boolean => !excluded.has(sku);
  // The override tables are Maps (src/config/overrides.ts) and the tables built here have no
  // prototype: a SKU such as `constructor` or `toString` is never taken for a member of Object.prototype.
  // An explicit price of any layer wins; the catalog's price goes through the store's price rules.
  const priceOf = (sku: string, price: number): number => o.prices.get(sku) ?? rulePrice(price, o.priceRules);
  const titleOf = (sku: string, title: string): string => o.titles.get(sku) ?? title;
  const descriptionOf = (sku: string, description: string | undefined): string =>
    o.descriptions.get(sku) ?? description ?? "";
  const imagesOf = (sku: string, list: readonly unknown[] | undefined): ImageRef[] =>
    o.images.get(sku) ?? catalogImages(list);
  // Without exclusions, a store's lists are the catalog's own: one array for every store.
  const kept = (list: readonly string[] | undefined): string[] =>
    excluded.size === 0 ? unchanged(list) : (list ?? []).filter(keep);
  const schedulesFor = (sku: string, written: readonly WrittenSchedule[] | undefined) =>
    schedulesOf(o.schedules.get(sku) ?? written);

  const items = table<ItemResource>();
  for (const item of catalog.items ?? []) {
    if (!keep(item.sku)) continue;
    items[item.sku] = {
      sku: item.sku,
      type: "ITEM",
      title: titleOf(item.sku, item.title),
      description: descriptionOf(item.sku, item.description),
      price: priceOf(item.sku, amountOf(item.price)),
      images: imagesOf(item.sku, item.images),
      children: kept(item.modifier_groups),
      min: null,
      max: null,
      modifiersType: null,
      ...schedulesFor(item.sku, item.schedules),
    };
  }

  const offered = addModifierGroups(items, catalog, o, keep, titleOf);

  // Options written in full, and the parents of option prices: items, then options, by SKU.
  const parents: OptionPriceParent[] = [
    ...(catalog.items ?? []).map((i) => ({ sku: i.sku, optionPrices: amountsOf(i.option_prices) })),
  ];
  for (const group of catalog.modifier_groups ?? []) {
    for (const option of group.options) {
      if (typeof option === "string" || !offered.has(option.sku) || own(items, option.sku)) continue;
      items[option.sku] = {
        sku: option.sku,
        type: "ITEM",
        title: titleOf(option.sku, option.title),
        description: descriptionOf(option.sku, option.description),
        price: priceOf(option.sku, amountOf(option.price)),
        images: imagesOf(option.sku, option.images),
        children: (option.modifier_groups ?? []).filter((g) => keep(g) && own(items, g) !== undefined),
        min: null,
        max: null,
        modifiersType: null,
      };
      parents.push({ sku: option.sku, optionPrices: amountsOf(option.option_prices) });
    }
  }

  setOptionPrices(items, parents, o, catalog);

  const categories = table<CategoryResource>();
  for (const category of catalog.categories ?? []) {
    if (!keep(category.sku)) continue;
    categories[category.sku] = {
      sku: category.sku,
      title: titleOf(category.sku, category.title),
      // An item outside its offer window is left out of its categories (src/config/windows.ts).
      items: category.items.filter(
        (sku) => keep(sku) && own(items, sku) !== undefined && !windows?.closed.item.has(sku),
      ),
      ...schedulesFor(category.sku, category.schedules),
    };
  }

  const menus = catalogMenus(catalog, categories, windows);
  const availability = availabilityOfStore(catalog, o, keep);
  const storeId = storeIdOf(store.store.id) ?? String(store.store.id);
  const state: StoreState = {
    store: {
      key: store.store.integration_id,
      storeId,
      integrationId: store.store.integration_id,
      name: store.store.name,
      ...(timeZone !== undefined ? { timeZone } : {}),
    },
    kinds: table(),
  };
  itemsState.set(state, { items });
  categoriesState.set(state, categories);
  menusState.set(state, menus);
  itemAvailabilityState.set(state, availability);
  addUpcoming(state, o, availability.unavailable, catalog, windows);
  // Each kind's settings section resolved its own state (the catalog's are set above).
  if (settings?.schedulesVia !== undefined) state.schedulesVia = settings.schedulesVia;
  for (const [kind, value] of Object.entries(settings?.kinds ?? {}))
    if (value !== undefined) state.kinds![kind] = value;
  return state;
}

/**
 * Adds the catalog's modifier groups a store keeps to its items (`MODIFIER_GROUP` resources: title
 * through the overrides, the options not excluded, limits through `o.limits`, a `max` lowered to the
 * options left). Returns the SKUs of the options the kept groups offer.
 */
function addModifierGroups(
  items: Record<string, ItemResource>,
  catalog: CatalogFile,
  o: StoreOverrides,
  keep: (sku: string) => boolean,
  titleOf: (sku: string, title: string) => string,
): Set<string> {
  const offered = new Set<string>();
  for (const group of catalog.modifier_groups ?? []) {
    if (!keep(group.sku)) continue;
    const options = o.exclude.size === 0 ? groupOptionSkus(group) : group.options.map(optionSku).filter(keep);
    for (const option of options) offered.add(option);
    const limits = o.limits.get(group.sku);
    const max = limits?.max ?? group.max;
    items[group.sku] = {
      sku: group.sku,
      type: "MODIFIER_GROUP",
      title: titleOf(group.sku, group.title),
      description: "",
      price: null,
      images: [],
      children: options,
      min: limits?.min ?? group.min,
      max: options.length < group.options.length ? Math.min(max, options.length) : max,
      modifiersType: group.type ?? null,
    };
  }
  return offered;
}

/**
 * The items a store's files switch off and on: sorted, without duplicates, and naming only items and
 * options of the catalog that the store sells (a lower layer may name a SKU another catalog has, or one
 * a higher layer excludes); `available` only when some layer writes it.
 */
function availabilityOfStore(
  catalog: CatalogFile,
  o: StoreOverrides,
  keep: (sku: string) => boolean,
): AvailabilityState {
  const sellable = (sku: string): boolean => keep(sku) && catalogItemSkus(catalog).has(sku);
  const out: AvailabilityState = {
    unavailable: [...new Set(o.unavailable)].filter(sellable).sort(byCodePoint),
  };
  if (o.available) out.available = [...new Set(o.available)].filter(sellable).sort(byCodePoint);
  return out;
}

/** An item or an option written in full, with the option prices its catalog entry writes. */
/**
 * The amount of a catalog price. A load scoped to a platform resolves its catalogs with every price per
 * currency turned into the amount of the platform's currency (src/config/currency-prices.ts), so a
 * mapping here is a mistake of carte's.
 */
function amountOf(price: CatalogPrice): number;
function amountOf(price: CatalogPrice | undefined): number | undefined;
function amountOf(price: CatalogPrice | undefined): number | undefined {
  if (price === undefined || typeof price === "number") return price;
  throw new InternalError("a catalog price per currency reached the resolver unprojected");
}

/** {@link amountOf} of each price of an `option_prices:` mapping. */
function amountsOf(
  prices: Readonly<Record<string, CatalogPrice>> | undefined,
): Record<string, number> | undefined {
  if (prices === undefined) return undefined;
  const out = table<number>();
  for (const [sku, price] of Object.entries(prices)) out[sku] = amountOf(price);
  return out;
}

interface OptionPriceParent {
  sku: string;
  optionPrices: Record<string, number | undefined> | undefined;
}

/** For each option, the items and options whose modifier groups offer it (once per store, for {@link ancestorLevels}). */
export function parentsAbove(items: Readonly<Record<string, ItemResource>>): Map<string, Set<string>> {
  const above = new Map<string, Set<string>>();
  for (const sku of Object.keys(items)) {
    const r = items[sku]!;
    if (r.type !== "ITEM") continue;
    for (const g of r.children)
      for (const option of own(items, g)?.children ?? []) {
        let set = above.get(option);
        if (!set) above.set(option, (set = new Set()));
        set.add(sku);
      }
  }
  return above;
}

/**
 * The items and options above a parent, nearest first: level 0 is the parent itself, level 1 the items
 * and options whose modifier groups offer it, and so on (each SKU at its nearest level, SKUs of a level
 * by code point). `items` is a store's resolved ITEM and MODIFIER_GROUP resources by SKU; nesting is at
 * most 3 levels deep and never circular, so this stays small.
 */
export function ancestorLevels(
  items: Readonly<Record<string, ItemResource>>,
  parentSku: string,
  above: ReadonlyMap<string, ReadonlySet<string>> = parentsAbove(items),
): string[][] {
  const seen = new Set([parentSku]);
  const levels: string[][] = [[parentSku]];
  for (let level = levels[0]!; level.length > 0;) {
    const next = [...new Set(level.flatMap((s) => [...(above.get(s) ?? [])]))].filter((s) => !seen.has(s));
    for (const s of next) seen.add(s);
    next.sort(byCodePoint);
    if (next.length > 0) levels.push(next);
    level = next;
  }
  return levels;
}

/**
 * One parent of option prices in a store's tree: the options its groups offer, and the items and options
 * at or above it, nearest first (level by level, each level by code point: {@link ancestorLevels}).
 */
interface OptionPriceParentTree {
  sku: string;
  ancestors: string[];
  /**
   * The options its modifier groups offer, by code point, each with the first of `ancestors` whose
   * catalog entry writes a price for it (`at`; `ancestors.length` when none does) and that price
   * (before the store's price rules).
   */
  options: { sku: string; at: number; price: number | undefined }[];
}

/**
 * The trees of option-price parents already worked out, by catalog then by the SKUs a store excludes:
 * the tree of items, groups and options, and where the catalog writes each option's price, depend on
 * nothing else, so the stores of a catalog that exclude the same SKUs (most of a chain's) share one, and
 * resolving a store does not walk its ancestors again.
 */
const optionPriceTrees = new WeakMap<CatalogFile, Map<string, OptionPriceParentTree[]>>();

/** At most this many exclusion sets are remembered per catalog (each store may exclude its own). */
const OPTION_PRICE_TREES_PER_CATALOG = 256;

/**
 * The parents of option prices of a store, with their options and ancestors; `items` is the store's
 * resolved items before option prices, `parents` its items and options written in full with the option
 * prices their catalog entries write, `excluded` what it excludes (which, with the catalog, decides the
 * tree).
 */
function optionPriceTree(
  catalog: CatalogFile,
  excluded: ReadonlySet<string>,
  items: Readonly<Record<string, ItemResource>>,
  parents: readonly OptionPriceParent[],
): OptionPriceParentTree[] {
  let byExclusions = optionPriceTrees.get(catalog);
  if (!byExclusions) optionPriceTrees.set(catalog, (byExclusions = new Map()));
  const key = JSON.stringify([...excluded].sort(byCodePoint));
  const known = byExclusions.get(key);
  if (known) return known;
  const written = new Map(parents.map((p) => [p.sku, p.optionPrices]));
  const catalogPrice = (ancestor: string, option: string): number | undefined => {
    const prices = written.get(ancestor);
    return prices && Object.hasOwn(prices, option) ? prices[option] : undefined;
  };
  const above = parentsAbove(items);
  const tree: OptionPriceParentTree[] = [];
  for (const sku of [...written.keys()].sort(byCodePoint)) {
    const parent = own(items, sku);
    if (!parent || parent.type !== "ITEM") continue;
    const offered = [...new Set(parent.children.flatMap((g) => own(items, g)?.children ?? []))];
    if (offered.length === 0) continue;
    const ancestors = ancestorLevels(items, sku, above).flat();
    const options = offered.sort(byCodePoint).map((option) => {
      const at = ancestors.findIndex((a) => catalogPrice(a, option) !== undefined);
      return at < 0
        ? { sku: option, at: ancestors.length, price: undefined }
        : { sku: option, at, price: catalogPrice(ancestors[at]!, option) };
    });
    tree.push({ sku, ancestors, options });
  }
  if (byExclusions.size >= OPTION_PRICE_TREES_PER_CATALOG) byExclusions.clear();
  byExclusions.set(key, tree);
  return tree;
}

/**
 * Sets the prices of options inside a parent (item or option) on the option, keyed by the parent, for
 * every parent that still offers the option. The price may be written for the parent or for any item or
 * option above it (an ancestor: `PIZZA-G` for a topping of a crust of the large pizza); the nearest
 * wins, and at one distance the overrides' `option_prices` of that SKU win over the catalog's (which go
 * through the store's price rules). Ancestors at one distance are tried by SKU.
 */
function setOptionPrices(
  items: Record<string, ItemResource>,
  parents: OptionPriceParent[],
  o: StoreOverrides,
  catalog: CatalogFile,
): void {
  const overrides = o.optionPrices;
  for (const { sku: parentSku, ancestors, options } of optionPriceTree(catalog, o.exclude, items, parents)) {
    for (const { sku, at, price: written } of options) {
      const option = own(items, sku);
      if (!option) continue;
      // An override at the catalog's ancestor or nearer wins; only ancestors the overrides name are looked up.
      let price: number | undefined;
      if (overrides.size > 0)
        for (let i = 0; i <= at && i < ancestors.length && price === undefined; i++)
          price = overrides.get(ancestors[i]!)?.get(sku);
      if (price === undefined && written !== undefined) price = rulePrice(written, o.priceRules);
      if (price === undefined) continue;
      const inParent = option.priceInParent ?? table<number>();
      inParent[parentSku] = price;
      option.priceInParent = inParent;
    }
  }
}

/**
 * The menus of a catalog, each with its categories the store still has (active unless written otherwise,
 * or outside the offer window of the category or of the menu).
 */
function catalogMenus(
  catalog: CatalogFile,
  categories: Record<string, CategoryResource>,
  windows: StoreWindows | undefined,
): Record<string, MenuResource> {
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
        .map((entry) =>
          entry.active && (windows?.closed.menu.has(menu.type) || windows?.closed.category.has(entry.sku))
            ? { ...entry, active: false }
            : entry,
        )
        .filter((entry) => own(categories, entry.sku) !== undefined),
    };
  }
  return menus;
}

/**
 * Adds to a store's state the prices from a date still ahead (information for the plan, not applied
 * yet), the end of the prices that hold until a time, the offer windows with a start or an end ahead,
 * and the items switched off until a time.
 */
function addUpcoming(
  state: StoreState,
  o: StoreOverrides,
  unavailable: readonly string[],
  catalog: CatalogFile,
  windows: StoreWindows | undefined,
): void {
  const mine = itemsState.get(state)!;
  // Prices from a date still ahead: information for the plan, not applied yet.
  for (const [sku, next] of o.upcoming ?? []) {
    const item = own(mine.items, sku);
    if (item && item.price !== next.price) (mine.upcomingPrices ??= table())[sku] = next;
  }
  // Prices until a time: then the lower layers' price comes back, or the catalog's (through the rules).
  for (const [sku, end] of o.ending ?? []) {
    const item = own(mine.items, sku);
    const written = end.then === undefined ? catalogPrice(catalog, sku) : undefined;
    const then = end.then ?? (written === undefined ? undefined : rulePrice(written, o.priceRules));
    if (item?.price != null && then !== undefined && then !== item.price)
      (mine.endingPrices ??= table())[sku] = { price: item.price, until: end.until, then };
  }
  // Offer windows with a start or an end ahead, of what this store has (not what it excludes).
  const has: Record<OfferWindowNote["what"], Readonly<Record<string, unknown>>> = {
    item: mine.items,
    category: categoriesState.get(state)!,
    menu: menusState.get(state)!,
  };
  const notes = windows?.notes.filter((n) => own(has[n.what], n.key) !== undefined) ?? [];
  if (notes.length > 0) mine.offerWindows = notes;
  // Items switched off until a time (`until:`), as the platform's suspend_until (src/kinds/availability.ts).
  const off = itemAvailabilityState.get(state)!;
  for (const sku of unavailable) {
    const until = o.until?.get(sku);
    if (until !== undefined) (off.suspensions ??= table<Suspension>())[sku] = { ...until };
  }
}

/** The catalog's own price of an item or an option written in full; `undefined` when it has none. */
function catalogPrice(catalog: CatalogFile, sku: string): number | undefined {
  const item = (catalog.items ?? []).find((i) => i.sku === sku);
  if (item) return amountOf(item.price);
  for (const g of catalog.modifier_groups ?? [])
    for (const option of g.options)
      if (typeof option !== "string" && option.sku === sku) return amountOf(option.price);
  return undefined;
}

const itemSkusCache = new WeakMap<CatalogFile, Set<string>>();

/** SKUs of the items and options of a catalog (computed once per catalog). */
function catalogItemSkus(catalog: CatalogFile): Set<string> {
  let skus = itemSkusCache.get(catalog);
  if (!skus) {
    skus = new Set((catalog.items ?? []).map((i) => i.sku));
    for (const g of catalog.modifier_groups ?? []) for (const opt of g.options) skus.add(optionSku(opt));
    itemSkusCache.set(catalog, skus);
  }
  return skus;
}

/**
 * The canonical schedules of each `schedules:` list as written, by the parsed list: a catalog's list is
 * one object for every store of the catalog, so it is parsed and put in canonical form once, and every
 * store holds the same (never changed) schedules.
 */
const canonicalOf = new WeakMap<readonly WrittenSchedule[], ReturnType<typeof toSchedules>>();

/** The image references of each catalog list, by list: shared by every store (never changed). */
const catalogImageRefs = new WeakMap<readonly unknown[], ImageRef[]>();
const NO_IMAGES: ImageRef[] = [];

/** The images a catalog entry writes, read once per entry whatever the number of stores. */
function catalogImages(list: readonly unknown[] | undefined): ImageRef[] {
  if (!list) return NO_IMAGES;
  let refs = catalogImageRefs.get(list);
  if (!refs) catalogImageRefs.set(list, (refs = imageRefs(list)));
  return refs;
}

/** The SKUs of each catalog modifier group's options, by group (one array for every store). */
const optionSkusOf = new WeakMap<object, string[]>();

function groupOptionSkus(group: { options: readonly (string | InlineOption)[] }): string[] {
  let skus = optionSkusOf.get(group);
  if (!skus) optionSkusOf.set(group, (skus = group.options.map(optionSku)));
  return skus;
}

/** Copies of catalog lists, by list: the same array for every store that keeps the whole list. */
const unchangedLists = new WeakMap<readonly string[], string[]>();
const NO_SKUS: string[] = [];

/** A catalog list of SKUs as a resource holds it, one copy per list (resolved resources are never changed). */
function unchanged(list: readonly string[] | undefined): string[] {
  if (!list) return NO_SKUS;
  let copy = unchangedLists.get(list);
  if (!copy) unchangedLists.set(list, (copy = [...list]));
  return copy;
}

/** `{ schedules }` when some are written, else nothing (absent means "always"). */
function schedulesOf(written: readonly WrittenSchedule[] | undefined): {
  schedules?: ReturnType<typeof toSchedules>;
} {
  if (!written) return {};
  let schedules = canonicalOf.get(written);
  if (!schedules) canonicalOf.set(written, (schedules = toSchedules(written)));
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
 * with the client-level settings when carte.yaml has any, and the currency it declares. With `share`,
 * stores of one catalog share the resource objects they resolve alike: the result must then never be
 * changed in place.
 */
export function resolveDesired(
  stores: readonly ResolvableStore[],
  client?: ClientState,
  options: { share?: boolean; currency?: string } = {},
): DesiredState {
  const desired: DesiredState = { stores: table() };
  if (options.currency !== undefined) desired.currency = options.currency;
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
    share(itemsState.get(state)!.items, pool.items);
    share(categoriesState.get(state)!, pool.categories);
    share(menusState.get(state)!, pool.menus);
  }
  if (client) desired.client = client;
  return desired;
}
