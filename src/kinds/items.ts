/**
 * Items and modifier groups: one kind, because the platform keeps both in one list, keyed by SKU, and
 * writes both through `POST /items` and `DELETE /items` (docs/platform-api.md §4.3, §2.4). The address
 * segment follows the type: `item[SKU]` or `modifier_group[SKU]`; a change of type is an update, not a delete
 * and create.
 */

import { own, table, type ImageRef, type ItemResource, type StoreState } from "../model.js";
import { currencyOf, formatPrice } from "../money.js";
import type { WireItem } from "../platform/wire.js";
import { itemsPart } from "./items-import.js";
import { storeMenuRead } from "./reads.js";
import { partOf, type EndpointSpec, type ResourceKind } from "./resource-kind.js";
import { fromWireSchedules, toWireSchedules, withComparedSchedules } from "./schedules.js";
import { byIndex } from "../plain-data.js";
import { itemEqual } from "./equal.js";
import { itemsOf, itemsState, offerWindowInfo } from "./catalog.js";
import { itemsGuards } from "./items-guards.js";
import { itemsPreview } from "./items-preview.js";
import { ITEM_NOUNS, itemsView } from "./items-view.js";

/**
 * The items of a store as compared by the planner: the state itself when its schedules are canonical,
 * as reading and resolving make them (no per-store copy of the catalog); for a store that writes
 * schedules through the utils group (`schedulesVia: "utils"`), schedules left out (the product-schedule
 * kind owns them there). See `withComparedSchedules`.
 */
function selectItems(state: StoreState): Readonly<Record<string, ItemResource>> {
  return withComparedSchedules(itemsOf(state), state.schedulesVia === "utils");
}

/**
 * The upsert element of `POST /items` for a desired item (docs/platform-api.md §4.3: identity by
 * SKU when no id is sent). Availability (`suspension_info`) is never sent: the platform does not turn a
 * switched-off item back on through a menu upload, and carte manages it through availability v2.
 */
export function toWireItem(r: ItemResource): WireItem {
  const group = r.type === "MODIFIER_GROUP";
  return {
    sku: r.sku,
    item_type: r.type,
    title_info: { title: r.title },
    description_info: { description: r.description },
    // The host of an image is sent back as read (docs/platform-api.md §4.3 `{id, path, index, host}`); the
    // platform's image id is its own and is not sent.
    images_info: {
      images: r.images.map((image, index) =>
        typeof image === "string" ? { path: image, index } : { path: image.path, index, host: image.host },
      ),
    },
    items_info: { items: r.children.map((sku, index) => ({ sku, index })) },
    price_info: {
      // The spec types the price as a number (docs/platform-api.md §4.3 `price number`), never null: a
      // modifier group, which has no price of its own in carte's files, is sent with 0 (docs/platform-api.md,
      // assumptions).
      price: r.price ?? 0,
      // The price of this option inside a given parent item (docs/platform-api.md §4.3: override_type ITEM).
      overrides: Object.keys(r.priceInParent ?? {})
        .sort()
        .map((parent) => ({
          override_type: "ITEM" as const,
          override_sku: parent,
          price: r.priceInParent![parent],
        })),
    },
    quantity_info: {
      min_permitted: group ? r.min : null,
      max_permitted: group ? r.max : null,
      modifiers_type: group ? r.modifiersType : null,
    },
    schedules_info: { schedules: toWireSchedules(r.schedules) },
  };
}

/** Normalizes an item read from the platform. `skuOf` maps platform ids to SKUs for references without a SKU. */
export function fromWireItem(
  w: WireItem,
  skuOf: (id: number | undefined) => string | undefined,
): ItemResource {
  const group = w.item_type === "MODIFIER_GROUP";
  const q = w.quantity_info;
  // Loops rather than chains of map and filter: every store's read normalises its whole menu, and each
  // chain would build a list per item only to throw it away.
  const images: ImageRef[] = [];
  for (const i of byIndex(w.images_info?.images))
    images.push(typeof i.host === "string" && i.host !== "" ? { path: i.path, host: i.host } : i.path);
  const children: string[] = [];
  for (const ref of byIndex(w.items_info?.items)) {
    const sku = ref.sku ?? skuOf(ref.id);
    if (sku !== undefined) children.push(sku);
  }
  const out: ItemResource = {
    sku: w.sku,
    type: group ? "MODIFIER_GROUP" : "ITEM",
    title: w.title_info?.title ?? "",
    description: w.description_info?.description ?? "",
    // A modifier group's 0 is the "no price" carte sends for it (`toWireItem`), read back as no price.
    price: group && w.price_info?.price === 0 ? null : (w.price_info?.price ?? null),
    images,
    children,
    min: group ? (q?.min_permitted ?? null) : null,
    max: group ? (q?.max_permitted ?? null) : null,
    modifiersType: group ? (q?.modifiers_type ?? null) : null,
  };
  const schedules = fromWireSchedules(w.schedules_info?.schedules);
  if (schedules) out.schedules = schedules;
  const overrides = w.price_info?.overrides;
  if (overrides && overrides.length > 0) {
    const inParent = table<number>();
    let any = false;
    for (const o of overrides) {
      const parent = o.override_sku ?? skuOf(o.override_id ?? undefined);
      if (o.override_type === "ITEM" && parent && typeof o.price === "number") {
        inParent[parent] = o.price;
        any = true;
      }
    }
    if (any) {
      out.priceInParent = Object.fromEntries(
        Object.keys(inParent)
          .sort()
          .map((k) => [k, inParent[k]!]),
      );
    }
  }
  return out;
}

/** The collation of `String.prototype.localeCompare` (the default locale and options), made once. */
const collator = new Intl.Collator();

/** The order items are read in: by SKU (collated), then by platform id (none last). */
const byReadOrder = (a: WireItem, b: WireItem): number =>
  collator.compare(a.sku, b.sku) || (a.id ?? Infinity) - (b.id ?? Infinity);

/**
 * The SKUs of the last list {@link inReadOrder} found in read order with every SKU collated before the
 * next (none equal to another): a list of the same SKUs in the same order is in read order too, which
 * string comparisons tell without collating (the stores of a chain share their catalog).
 */
let lastInOrder: readonly string[] = [];

/**
 * The items of a store menu in the order they are read in ({@link byReadOrder}): the list as it is when
 * the platform sent it in that order already (no copy), else a sorted copy.
 */
function inReadOrder(items: readonly WireItem[]): readonly WireItem[] {
  if (items.length === lastInOrder.length && items.every((w, i) => w.sku === lastInOrder[i])) return items;
  let distinct = true;
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1]!;
    const b = items[i]!;
    const bySku = collator.compare(a.sku, b.sku);
    if (bySku > 0 || (bySku === 0 && (a.id ?? Infinity) - (b.id ?? Infinity) > 0))
      return [...items].sort(byReadOrder);
    if (bySku === 0) distinct = false;
  }
  if (distinct) lastInOrder = items.map((w) => w.sku);
  return items;
}

/** Parents of each item of a store (groups of an option, items and options of a group), by SKU. */
const parentsCache = new WeakMap<Readonly<Record<string, ItemResource>>, Map<string, string[]>>();

/**
 * The parents last worked out from a list of items, by its first item: the stores of one catalog hold
 * tables of their own of the same item objects, and a plan that changes an option in every store would
 * otherwise work the same parents out again for each store.
 */
const parentsByItems = new WeakMap<ItemResource, { items: ItemResource[]; parents: Map<string, string[]> }>();

function parentsOf(items: Readonly<Record<string, ItemResource>>): Map<string, string[]> {
  let parents = parentsCache.get(items);
  if (parents) return parents;
  // The keys, then each value (Object.values goes a slower way through a large table).
  const keys = Object.keys(items);
  const first = keys.length === 0 ? undefined : items[keys[0]!];
  const known = first === undefined ? undefined : parentsByItems.get(first);
  if (known && sameObjects(known.items, items, keys)) parents = known.parents;
  else {
    const values = keys.map((k) => items[k]!);
    parents = new Map();
    for (const r of [...values].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0)))
      for (const c of r.children) {
        const list = parents.get(c);
        if (list) list.push(r.sku);
        else parents.set(c, [r.sku]);
      }
    if (first !== undefined) parentsByItems.set(first, { items: values, parents });
  }
  parentsCache.set(items, parents);
  return parents;
}

/** Whether a table holds, under `keys` in order, the objects of a list in its order. */
function sameObjects(
  list: readonly ItemResource[],
  items: Readonly<Record<string, ItemResource>>,
  keys: readonly string[],
): boolean {
  if (list.length !== keys.length) return false;
  for (let i = 0; i < keys.length; i++) if (list[i] !== items[keys[i]!]) return false;
  return true;
}

/**
 * The modifier group an option is listed under in the plan's views: the first, in SKU order, of the
 * groups that offer it; `undefined` for an item no group offers, and for modifier groups.
 */
export function groupOf(state: StoreState, sku: string): string | undefined {
  const all = itemsOf(state);
  const typeOf = (k: string) => own(all, k)?.type;
  if (typeOf(sku) !== "ITEM") return undefined;
  return parentsOf(all)
    .get(sku)
    ?.find((p) => typeOf(p) === "MODIFIER_GROUP");
}

/**
 * The path from a top-level item down to the parent of a nested resource: an option of a group that an
 * option offers, or such a group (`["PIZZA", "SIZE", "SIZE-L", "CRUST"]` for an option of the crust
 * group of a large pizza). The shortest path, ties by SKU; `undefined` for items, their groups and
 * their groups' options (not nested), and for what no item reaches.
 */
export function nestedWithin(state: StoreState, sku: string): string[] | undefined {
  const parents = parentsOf(itemsOf(state));
  // Breadth-first upwards, so that the first top-level item found is the nearest.
  const previous = new Map<string, string | null>([[sku, null]]);
  let frontier = [sku];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const node of frontier) {
      const up = parents.get(node);
      if (!up) {
        if (node === sku) return undefined;
        const path: string[] = [];
        for (let n = previous.get(node); n !== undefined && n !== null; n = previous.get(n)) path.push(n);
        const within = [node, ...path.slice(0, -1)];
        // item → group → option: one level; nested means at least item → group → option → group.
        return within.length >= 3 ? within : undefined;
      }
      for (const p of up)
        if (!previous.has(p)) {
          previous.set(p, node);
          next.push(p);
        }
    }
    frontier = next;
  }
  return undefined;
}

/**
 * What an item read from the platform holds that {@link fromWireItem} does not keep: override entries
 * of its blocks other than an option's price inside a parent (`override_type: ITEM`). In words, for
 * `carte import` to list (`StoreState.unread`).
 */
export function unreadOf(w: WireItem, skuOf: (id: number | undefined) => string | undefined): string[] {
  const out: string[] = [];
  const blocks = w as unknown as Record<
    string,
    { overrides?: { override_type?: string | null }[] } | undefined
  >;
  for (const name of OVERRIDABLE_BLOCKS) {
    const overrides = blocks[name]?.overrides ?? [];
    if (overrides.length > 0)
      out.push(
        `${name}.overrides (${[...new Set(overrides.map((o) => o.override_type ?? "?"))].join(", ")})`,
      );
  }
  const unkept = (o: NonNullable<NonNullable<WireItem["price_info"]>["overrides"]>[number]) =>
    !(
      o.override_type === "ITEM" &&
      typeof o.price === "number" &&
      (o.override_sku ?? skuOf(o.override_id ?? undefined)) !== undefined
    );
  // Most items have no override that is not kept: they cost no list.
  const all = w.price_info?.overrides;
  if (all && all.some(unkept)) {
    const prices = all.filter(unkept);
    out.push(`price_info.overrides (${[...new Set(prices.map((o) => o.override_type ?? "?"))].join(", ")})`);
  }
  // A suspension with an end date is read by the availability kind (`until:` in the files).
  return out;
}

/** The blocks of a wire item whose `overrides` {@link unreadOf} names, in the order it names them. */
const OVERRIDABLE_BLOCKS = [
  "title_info",
  "description_info",
  "images_info",
  "items_info",
  "quantity_info",
  "schedules_info",
  "suspension_info",
] as const;

/**
 * `POST /items` (docs/platform-api.md §2.4): upsert by id, else by SKU (docs/platform-api.md §4.3);
 * asynchronous.
 */
const upsert: EndpointSpec = {
  name: "items.upsert",
  stage: 1,
  route: "POST /restaurants/menu/v1/stores/{storeId}/items",
  scope: "store",
  body: (elements) => elements,
};

/**
 * `DELETE /items` with a bare array of item ids (docs/platform-api.md §2.4); after categories and menus let
 * go.
 */
const remove: EndpointSpec = {
  name: "items.delete",
  stage: 6,
  route: "DELETE /restaurants/menu/v1/stores/{storeId}/items",
  scope: "store",
  body: (elements) => elements,
};

/** The items-and-modifier-groups kind. */
export const items: ResourceKind<ItemResource, "item", "modifier_group"> = {
  name: "item",
  nouns: ITEM_NOUNS,
  summary: "items (products and options) and modifier groups of the store menu, by SKU",
  segments: ["modifier_group"],
  endpoints: [upsert, remove],
  importPart: itemsPart,
  state: itemsState,
  select: selectItems,
  // `select` always gives a table: every store has its store menu.
  manages: () => true,
  equal: itemEqual,
  segment: (r) => (r.type === "MODIFIER_GROUP" ? "modifier_group" : "item"),
  within: nestedWithin,
  group: groupOf,
  view: itemsView,
  preview: itemsPreview,
  guards: itemsGuards,
  catalogEntries: [
    {
      name: "item",
      a: "an item",
      plural: "items",
      overrides: [
        "exclude",
        "prices",
        "option_prices",
        "titles",
        "descriptions",
        "images",
        "schedules",
        "available",
        "availability",
      ],
    },
    {
      name: "option",
      a: "an option",
      plural: "options",
      overrides: ["exclude", "prices", "option_prices", "titles", "descriptions", "images", "availability"],
    },
    {
      name: "modifier group",
      a: "a modifier group",
      plural: "modifier groups",
      overrides: ["exclude", "titles", "limits"],
    },
  ],
  // Prices from a date still ahead, the end of prices until a date, items' offer windows: information,
  // not changes, until that date.
  info(desired, current, _ownership, code) {
    const state = itemsState.get(desired);
    const upcoming = state?.upcomingPrices ?? {};
    const ending = state?.endingPrices ?? {};
    const currency = code === undefined ? undefined : currencyOf(code);
    const starts = Object.keys(upcoming)
      .sort()
      .map((sku) => {
        const next = upcoming[sku]!;
        const now = own(itemsOf(current), sku)?.price;
        return (
          `upcoming price of ${sku}: ${formatPrice(next.price, currency)} from ${next.from}` +
          (next.until === undefined ? "" : ` until ${next.until}`) +
          (now === undefined || now === null ? "" : ` (now ${formatPrice(now, currency)})`) +
          "; a run from that date changes it"
        );
      });
    const ends = Object.keys(ending)
      .sort()
      .map((sku) => {
        const e = ending[sku]!;
        return (
          `upcoming end of the price of ${sku}: ${formatPrice(e.price, currency)} until ${e.until} ` +
          `(then ${formatPrice(e.then, currency)}); a run from then on changes it back`
        );
      });
    return [...starts, ...ends, ...offerWindowInfo(desired, "item")];
  },
  reads: [storeMenuRead],
  read(snapshot, into, ids) {
    const wire = partOf(snapshot, storeMenuRead)!;
    // SKUs by platform id, made the first time a reference comes without its SKU (the platform sends
    // the SKUs, so most stores never need it).
    let skuById: Map<number, string> | undefined;
    const skuOf = (id: number | undefined) => {
      if (id === undefined) return undefined;
      if (!skuById) {
        skuById = new Map();
        for (const w of wire.items) if (w.id !== undefined) skuById.set(w.id, w.sku);
      }
      return skuById.get(id);
    };
    const read = table<ItemResource>();
    itemsState.set(into, { items: read });
    for (const w of inReadOrder(wire.items)) {
      // A second item with a SKU already read (the lowest id keeps the SKU) is a duplicate: read under
      // `SKU#id`, the plan deletes it by id.
      const key = read[w.sku] && w.id !== undefined ? `${w.sku}#${w.id}` : w.sku;
      read[key] = fromWireItem(w, skuOf);
      if (w.id !== undefined) ids.items[key] = w.id;
      const unread = unreadOf(w, skuOf);
      if (unread.length > 0)
        (into.unread ??= {})[`${w.item_type === "MODIFIER_GROUP" ? "modifier_group" : "item"}[${key}]`] =
          unread;
    }
  },
  duplicates(state) {
    // Read under `SKU#id` (see `read`); a loop without copies, since every store of a plan asks.
    const all = itemsOf(state);
    const out = table<string>();
    for (const key of Object.keys(all)) {
      const sku = all[key]!.sku;
      if (key !== sku) out[key] = sku;
    }
    return out;
  },
  writes(action, key, _before, after, ctx) {
    if (action === "delete") {
      const id = ctx.ids.items[key];
      return id === undefined ? [] : [{ endpoint: "items.delete", element: id }];
    }
    // The upsert replaces the whole item: send the full desired item, schedules included, even where
    // the comparison leaves them to the utils group.
    const item = own(itemsOf(ctx.desired), key) ?? after!;
    let element = ctx.elements?.get(item) as WireItem | undefined;
    if (!element) {
      element = toWireItem(item);
      ctx.elements?.set(item, element);
    }
    return [{ endpoint: "items.upsert", element }];
  },
};
