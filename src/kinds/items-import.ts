/**
 * Import of items, modifier groups and options (the `item` kind) into catalogs.
 *
 * carte's catalog format (schemas/config/catalog.schema.json) knows three roles for the platform's two
 * item types: an item (an ITEM under `items:`, with its modifier groups), a modifier group, and an
 * option (an ITEM offered by a group, written in full inside the first group that offers it and by SKU
 * in the others, with the modifier groups it offers itself: nested modifiers). An ITEM offered by some
 * group is imported as an option; everything else is an item. What the format cannot say is dropped by
 * {@link sanitizeItems} and reported.
 *
 * Titles, descriptions, images, prices and the price of an option inside a parent (item or option)
 * take the value most stores have; the others get store overrides (`overrides.titles`, `descriptions`,
 * `images`, `prices`, `option_prices: {PARENT: {OPTION: price}}`). Relations, group limits, schedules,
 * and which parents price an option at all, have no store override: stores that differ there get
 * another catalog (src/import/factor.ts).
 */

import type {
  CatalogFile,
  CatalogItem,
  CatalogPrice,
  InlineOption,
  ModifierGroup,
} from "../generated/config.js";
import { hasAtMostTwoDecimals } from "../money.js";
import { jsonEqual, address } from "../plain-data.js";
import { own, table, type ImageRef, type ItemResource, type StoreState } from "../model.js";
import { decimalOfNumber, type Currency } from "../money.js";
import { Limits } from "../platform/wire.js";
import { chosenOf, groupOrder, itemOrder } from "./import-order.js";
import { schedulesText } from "./import-schedules.js";
import type { CatalogContext, CatalogPart, ImportContext, KindImportPart, Note } from "./import-types.js";
import { byCodePoint, mostCommon, sortRecord, unique, writableSku } from "./import-values.js";
import { itemsOf, itemsState } from "./catalog.js";

/** Largest number of modifier groups of an item and of options of a group (docs/platform-api.md §4.11). */
const MAX_CHILDREN = 50;
/** Largest number of images of an item (catalog schema `Images`). */
const MAX_IMAGES = 3;

const segment = (r: ItemResource) => (r.type === "MODIFIER_GROUP" ? "modifier_group" : "item");

/** SKUs of the ITEMs offered by some modifier group: the options. */
export function optionSkus(items: Record<string, ItemResource>): Set<string> {
  const out = new Set<string>();
  for (const r of Object.values(items)) {
    if (r.type !== "MODIFIER_GROUP") continue;
    for (const c of r.children) if (items[c]?.type === "ITEM") out.add(c);
  }
  return out;
}

/** SKUs of the ITEMs a catalog lists under `items:` (ITEMs that no group offers). */
export function plainItemSkus(items: Record<string, ItemResource>): Set<string> {
  const options = optionSkus(items);
  return new Set(
    Object.values(items)
      .filter((r) => r.type === "ITEM" && !options.has(r.sku))
      .map((r) => r.sku),
  );
}

/** Whether a price can be written in the currency (at most its decimals; 2 without one). */
function writablePrice(price: number, currency: Currency | undefined): boolean {
  if (!currency) return hasAtMostTwoDecimals(price);
  return decimalOfNumber(price).scale <= currency.decimals;
}

/** A price rounded to the currency's decimals (2 without one), for `--lenient` files. */
function roundedPrice(price: number, currency: Currency | undefined): number {
  return Number(price.toFixed(currency?.decimals ?? 2));
}

/**
 * Cuts nested modifier groups that carte's files cannot hold, in place, noting each cut: a group that
 * an option offers and that leads back to the option (a circle), and groups deeper than
 * {@link Limits.modifierGroupDepth} levels under an item (the platform refuses both).
 */
function cutNesting(
  items: Record<string, ItemResource>,
  options: ReadonlySet<string>,
  note: Note,
  at: (r: ItemResource) => string,
): void {
  const max = Limits.modifierGroupDepth;
  const cut = (option: ItemResource, group: string, why: string) => {
    option.children = option.children.filter((g) => g !== group);
    note(at(option), why);
  };
  // Circles: depth-first over group → option → group, with an explicit stack (the platform may chain
  // thousands of groups, deeper than the call stack goes).
  const state = new Map<string, "open" | "done">();
  const visit = (root: string): void => {
    // The edges of a group as the walk reaches them (an option's children as they are then).
    function* edges(group: string): Generator<{ option: ItemResource; next: string }> {
      for (const o of own(items, group)?.children ?? []) {
        const option = own(items, o);
        if (!option) continue;
        for (const next of [...option.children]) yield { option, next };
      }
    }
    const frames = [{ group: root, edges: edges(root) }];
    state.set(root, "open");
    while (frames.length > 0) {
      const frame = frames.at(-1)!;
      const edge = frame.edges.next();
      if (edge.done) {
        state.set(frame.group, "done");
        frames.pop();
        continue;
      }
      const { option, next } = edge.value;
      if (state.get(next) === "open")
        cut(
          option,
          next,
          `its modifier group ${next} leads back to it: a circle of modifier groups cannot be written`,
        );
      else if (!state.has(next)) {
        state.set(next, "open");
        frames.push({ group: next, edges: edges(next) });
      }
    }
  };
  for (const r of Object.values(items)) if (r.type === "MODIFIER_GROUP" && !state.has(r.sku)) visit(r.sku);
  // Depth, from every item no group offers.
  const walk = (group: string, level: number): void => {
    for (const o of own(items, group)?.children ?? []) {
      const option = own(items, o);
      if (!option) continue;
      for (const next of [...option.children]) {
        if (level + 1 > max)
          cut(
            option,
            next,
            `its modifier group ${next} is more than ${max} levels deep: the platform accepts at most ${max}`,
          );
        else walk(next, level + 1);
      }
    }
  };
  for (const r of Object.values(items))
    if (r.type === "ITEM" && !options.has(r.sku)) for (const g of r.children) walk(g, 1);
}

/**
 * Makes a store's items expressible in a catalog, in place: SKUs the files cannot hold are dropped with
 * every reference to them; relations keep only ITEM → MODIFIER_GROUP → ITEM, without repeats, at most
 * 50; a group without options is dropped; nested modifier groups go at most
 * {@link Limits.modifierGroupDepth} levels deep and never round in a circle; a group has no price,
 * description or images and valid `min`/`max`; an item has a price with at most the currency's
 * decimals, a title and at most 3 images; only items have schedules (not options or groups); an
 * option's price inside a parent needs a parent (item or option) that offers it through one of its
 * groups.
 */
export function sanitizeItems(state: StoreState, note: Note, ctx: ImportContext = {}): void {
  const at = (r: ItemResource) => address(state.store.key, segment(r), r.sku);
  const items = itemsState.get(state)?.items ?? table<ItemResource>();
  // What the read found and the model does not hold (per-store overrides, a dated suspension).
  for (const [key, what] of Object.entries(state.unread ?? {}))
    for (const w of what) note(`store[${state.store.key}].${key}`, `${w} cannot be written in carte's files`);
  delete state.unread;
  const drop = (sku: string) => {
    delete items[sku];
    for (const r of Object.values(items)) r.children = r.children.filter((c) => c !== sku);
  };
  for (const r of Object.values(items)) {
    if (!writableSku(r.sku)) {
      note(at(r), `the SKU "${r.sku}" cannot be written in carte's files (letters, digits, . _ - only)`);
      drop(r.sku);
    }
  }
  for (const r of Object.values(items)) {
    const want = r.type === "ITEM" ? "MODIFIER_GROUP" : "ITEM";
    const children = unique(r.children.filter((c) => items[c]?.type === want)).slice(0, MAX_CHILDREN);
    if (!jsonEqual(children, r.children)) {
      note(
        at(r),
        `only ${r.type === "ITEM" ? "modifier groups" : "options"} can be children here, once each`,
      );
      r.children = children;
    }
  }
  for (const r of Object.values(items)) {
    if (r.type === "MODIFIER_GROUP" && r.children.length === 0) {
      note(at(r), "a modifier group without options cannot be written in carte's files");
      drop(r.sku);
    }
  }
  const options = optionSkus(items);
  cutNesting(items, options, note, at);
  for (const r of Object.values(items)) {
    if (r.schedules !== undefined && (r.type === "MODIFIER_GROUP" || options.has(r.sku))) {
      note(at(r), "only items have schedules in carte's files, not options or modifier groups");
      delete r.schedules;
    }
    if (r.priceInParent !== undefined) {
      const kept = table<number>();
      for (const [parent, price] of Object.entries(r.priceInParent)) {
        const p = own(items, parent);
        const offers = p?.type === "ITEM" && p.children.some((g) => own(items, g)?.children.includes(r.sku));
        if (offers && writablePrice(price, ctx.currency)) kept[parent] = price;
        else
          note(
            at(r),
            offers
              ? `its price ${String(price)} inside ${parent} has more decimals than ${ctx.currency?.code ?? "2"} allows`
              : `its price inside ${parent} cannot be written (the parent must offer it through a group)`,
          );
      }
      if (Object.keys(kept).length > 0) r.priceInParent = kept;
      else delete r.priceInParent;
    }
    if (r.type === "MODIFIER_GROUP") {
      if (r.price !== null || r.description !== "" || r.images.length > 0) {
        note(at(r), "a modifier group has no price, description or images in carte's files");
        r.price = null;
        r.description = "";
        r.images = [];
      }
      const max = Math.min(Math.max(r.max ?? r.children.length, 1), r.children.length);
      const min = Math.min(Math.max(r.min ?? 0, 0), max);
      if (min !== r.min || max !== r.max) {
        note(at(r), `min ${String(r.min)} and max ${String(r.max)} become ${min} and ${max}`);
        r.min = min;
        r.max = max;
      }
      continue;
    }
    if (r.price === null || !writablePrice(r.price, ctx.currency)) {
      const price = r.price === null ? 0 : roundedPrice(r.price, ctx.currency);
      note(at(r), `the price ${String(r.price)} is written as ${price}`);
      r.price = price;
    }
    if (r.title === "") {
      note(at(r), "an empty title is written as the SKU");
      r.title = r.sku;
    }
    if (r.images.length > MAX_IMAGES) {
      note(at(r), `only the first ${MAX_IMAGES} images are kept`);
      r.images = r.images.slice(0, MAX_IMAGES);
    }
  }
}

/** The options of a group a store keeps, and the `max` resolve.ts gives the group then. */
function keptOptions(
  def: ItemResource,
  has: (sku: string) => boolean,
): { kept: string[]; max: number | null } {
  const kept = def.children.filter(has);
  const max =
    kept.length < def.children.length && def.max !== null ? Math.min(def.max, kept.length) : def.max;
  return { kept, max };
}

/**
 * The price a catalog gives an option inside a parent (item or option), before any override: written
 * in the parent's `option_prices`, else in those of the nearest item or option above it (an ancestor;
 * at one distance, by SKU), as src/config/resolve.ts gives it. A catalog of an existing project
 * (`carte import --merge`) may write prices by ancestor; the import's own catalogs write them in the
 * parent.
 */
/**
 * The one amount of a catalog price; `undefined` for a price per currency ({COP: 24900, BRL: 29.90}),
 * which names no amount without the store's currency.
 */
function oneAmount(price: CatalogPrice | undefined): number | undefined {
  return typeof price === "number" ? price : undefined;
}

/** The one-amount prices of an `option_prices:` mapping (see {@link oneAmount}). */
function oneAmounts(prices: Readonly<Record<string, CatalogPrice>>): Record<string, number> {
  const out = table<number>();
  for (const [sku, price] of Object.entries(prices)) {
    const amount = oneAmount(price);
    if (amount !== undefined) out[sku] = amount;
  }
  return out;
}

function catalogOptionPrices(catalog: CatalogFile): (parent: string, option: string) => number | undefined {
  const written = new Map<string, Readonly<Record<string, number>>>();
  const groupsOf = new Map<string, readonly string[]>();
  for (const i of catalog.items ?? []) {
    if (i.option_prices) written.set(i.sku, oneAmounts(i.option_prices));
    groupsOf.set(i.sku, i.modifier_groups ?? []);
  }
  const optionsOf = new Map<string, string[]>();
  for (const g of catalog.modifier_groups ?? []) {
    optionsOf.set(
      g.sku,
      g.options.map((o) => (typeof o === "string" ? o : o.sku)),
    );
    for (const o of g.options) {
      if (typeof o === "string") continue;
      if (o.option_prices) written.set(o.sku, oneAmounts(o.option_prices));
      groupsOf.set(o.sku, o.modifier_groups ?? []);
    }
  }
  // The items and options directly above each option (whose groups offer it).
  const above = new Map<string, Set<string>>();
  for (const [parent, groups] of groupsOf)
    for (const g of groups)
      for (const o of optionsOf.get(g) ?? []) above.set(o, (above.get(o) ?? new Set()).add(parent));
  return (parent, option) => {
    const seen = new Set([parent]);
    for (let level = [parent]; level.length > 0;) {
      for (const sku of level) {
        const prices = written.get(sku);
        if (prices && Object.hasOwn(prices, option)) return prices[option];
      }
      level = [...new Set(level.flatMap((s) => [...(above.get(s) ?? [])]))]
        .filter((s) => !seen.has(s))
        .sort(byCodePoint);
      for (const s of level) seen.add(s);
    }
    return undefined;
  };
}

/** The catalog part of items, modifier groups and options. */
export const itemsCatalog: CatalogPart<ItemResource> = {
  name: "items",
  excludable: true,
  resources: (state) => itemsOf(state),
  fits(def, actual, has) {
    // Titles, descriptions, images and prices are store overrides: not compared.
    if (def.type !== actual.type || def.min !== actual.min || def.modifiersType !== actual.modifiersType)
      return false;
    if (!jsonEqual(def.schedules, actual.schedules)) return false;
    // Which parents price the option inside them, not at what price (a store's `option_prices`
    // override gives its own price; none can take a parent's price away).
    const inParent = Object.keys(def.priceInParent ?? {})
      .filter((p) => has(p))
      .sort(byCodePoint);
    if (!jsonEqual(inParent, Object.keys(actual.priceInParent ?? {}).sort(byCodePoint))) return false;
    const { kept, max } = keptOptions(def, has);
    if (!jsonEqual(kept, actual.children) || max !== actual.max) return false;
    // A store must keep enough options of a group (the checks of src/config/check.ts).
    return (
      def.type === "ITEM" || kept.length === def.children.length || kept.length >= Math.max(1, def.min ?? 0)
    );
  },
  write(catalog: CatalogFile, ctx: CatalogContext) {
    const defs = chosenOf<ItemResource>(ctx, "items");
    const groupSkus = Object.keys(defs).filter((k) => defs[k]!.type === "MODIFIER_GROUP");
    const options = optionSkus(defs);
    // The value most stores have (ties: the first store by key); the others get overrides.
    const common = <T>(sku: string, pick: (r: ItemResource) => T): T => {
      const seen = ctx.members.flatMap((s) => {
        const r = own(itemsOf(s), sku);
        return r ? [pick(r)] : [];
      });
      return seen.length > 0 ? mostCommon(seen) : pick(defs[sku]!);
    };
    const describe = (def: ItemResource) => {
      const description = common(def.sku, (r) => r.description);
      const images = common(def.sku, (r) => r.images);
      return {
        sku: def.sku,
        title: common(def.sku, (r) => r.title),
        ...(description ? { description } : {}),
        price: common(def.sku, (r) => r.price) ?? 0,
        ...(images.length > 0 ? { images: [...images] } : {}),
      };
    };

    const itemSkus = itemOrder(ctx, plainItemSkus(defs));
    /** The groups a parent (item or option) offers, and the prices of their options inside it. */
    const nested = (def: ItemResource, offeredBy: (g: string) => string[] | undefined) => {
      const offered = def.children.filter((c) => offeredBy(c) !== undefined);
      const optionPrices = table<number>();
      for (const o of offered.flatMap((g) => offeredBy(g)!)) {
        if (own(own(defs, o)?.priceInParent, def.sku) === undefined) continue;
        // The price most of the stores that price the option inside this parent have.
        const seen = ctx.members.flatMap((s) => {
          const price = own(own(itemsOf(s), o)?.priceInParent, def.sku);
          return price === undefined ? [] : [price];
        });
        optionPrices[o] = seen.length > 0 ? mostCommon(seen) : own(defs[o]!.priceInParent, def.sku)!;
      }
      return {
        ...(offered.length > 0 ? { modifier_groups: offered } : {}),
        ...(def.schedules?.length ? { schedules: schedulesText(def.schedules) } : {}),
        ...(Object.keys(optionPrices).length > 0 ? { option_prices: sortRecord(optionPrices) } : {}),
      };
    };
    const groupOptions = new Map<string, string[]>();
    for (const sku of groupSkus) {
      const opts = defs[sku]!.children.filter((c) => options.has(c));
      // Only when stores disagree on what a SKU is; the stores that need the group fail verification.
      if (opts.length > 0) groupOptions.set(sku, opts);
    }
    const offeredBy = (g: string) => groupOptions.get(g);
    const written = new Set<string>();
    const groups: ModifierGroup[] = [];
    for (const sku of groupOrder(ctx, itemSkus, groupSkus)) {
      const def = defs[sku]!;
      const opts = groupOptions.get(sku);
      if (!opts) continue;
      const max = Math.min(Math.max(def.max ?? opts.length, 1), opts.length);
      groups.push({
        sku,
        title: common(sku, (r) => r.title),
        min: Math.min(def.min ?? 0, max),
        max,
        ...(def.modifiersType ? { type: def.modifiersType } : {}),
        options: opts.map((o): string | InlineOption => {
          if (written.has(o)) return o;
          written.add(o);
          return { ...describe(defs[o]!), ...nested(defs[o]!, offeredBy) };
        }),
      });
    }
    const items: CatalogItem[] = itemSkus.map((sku) => {
      const def = defs[sku]!;
      return { ...describe(def), ...nested(def, offeredBy) };
    });
    if (items.length > 0) catalog.items = items;
    if (groups.length > 0) catalog.modifier_groups = groups;
  },
  overrides(state, catalog) {
    const base = new Map<
      string,
      { title: string; description?: string; images?: readonly unknown[]; price?: number }
    >();
    const withAmount = (i: CatalogItem | InlineOption) => {
      const { price, ...rest } = i;
      const amount = oneAmount(price);
      return amount === undefined ? rest : { ...rest, price: amount };
    };
    for (const i of catalog.items ?? []) base.set(i.sku, withAmount(i));
    for (const g of catalog.modifier_groups ?? []) {
      base.set(g.sku, { title: g.title });
      for (const o of g.options) if (typeof o !== "string") base.set(o.sku, withAmount(o));
    }
    const catalogPrice = catalogOptionPrices(catalog);
    const prices = table<number>();
    const optionPrices = table<Record<string, number>>();
    const titles = table<string>();
    const descriptions = table<string>();
    const images = table<ImageRef[]>();
    for (const [sku, r] of Object.entries(itemsOf(state))) {
      const b = base.get(sku);
      if (!b) continue;
      if (r.title !== b.title) titles[sku] = r.title;
      if (r.type !== "ITEM") continue;
      if (r.price !== null && r.price !== b.price) prices[sku] = r.price;
      for (const [parent, price] of Object.entries(r.priceInParent ?? {})) {
        if (catalogPrice(parent, sku) === price) continue;
        optionPrices[parent] = sortRecord({ ...optionPrices[parent], [sku]: price });
      }
      if (r.description !== (b.description ?? "")) descriptions[sku] = r.description;
      if (!jsonEqual(r.images, b.images ?? []))
        images[sku] = r.images.map((i) => (typeof i === "string" ? i : { ...i }));
    }
    return { prices, option_prices: sortRecord(optionPrices), titles, descriptions, images };
  },
};

/** The import part of the `item` kind. */
export const itemsPart: KindImportPart = {
  sanitize: sanitizeItems,
  catalog: itemsCatalog as CatalogPart<unknown>,
};
