/**
 * Categories: a title and the ordered ITEMs they show (spec §2.2; categories hold only ITEMs).
 * Written through `POST /categories` (upsert by SKU) and `DELETE /categories` with `{ids}`
 * (platform notes, "Store menu API").
 */

import { own, table, type CategoryResource, type StoreState } from "../model.js";
import { categoriesOf, categoriesState, offerWindowInfo } from "./catalog.js";
import type { WireCategory } from "../platform/wire.js";
import { categoriesPart } from "./categories-import.js";
import { storeMenuRead } from "./reads.js";
import { partOf, type EndpointSpec, type ResourceKind } from "./types.js";
import { fromWireSchedules, toWireSchedules, withComparedSchedules } from "./schedules.js";
import { byIndex } from "./util.js";
import { categoryEqual } from "./equal.js";

/** The upsert element of `POST /categories` for a desired category. Item references go by SKU. */
export function toWireCategory(r: CategoryResource): WireCategory {
  return {
    sku: r.sku,
    title: r.title,
    items: r.items.map((sku, index) => ({ sku, index })),
    schedules: toWireSchedules(r.schedules),
  };
}

/**
 * Categories as compared: the state itself when its schedules are canonical (as read and resolved), or,
 * for stores whose schedules go through the utils group, without schedules. See `withComparedSchedules`.
 */
function selectCategories(state: StoreState): Readonly<Record<string, CategoryResource>> {
  return withComparedSchedules(categoriesOf(state), state.schedulesVia === "utils");
}

/** `POST /categories` (spec §4.4): upsert by id, else by SKU; after the items it shows. */
const upsert: EndpointSpec = {
  name: "categories.upsert",
  stage: 2,
  route: "POST /restaurants/menu/v1/stores/{storeId}/categories",
  scope: "store",
  // The categories it creates are what the check of a new store's integration id compares.
  revealsPairing: true,
  body: (elements) => elements,
};

/** `DELETE /categories` with `{ids}` (platform notes "Store menu API": an object, unlike the others). */
const remove: EndpointSpec = {
  name: "categories.delete",
  stage: 5,
  route: "DELETE /restaurants/menu/v1/stores/{storeId}/categories",
  scope: "store",
  body: (ids) => ({ ids }),
};

/** The categories kind. */
export const categories: ResourceKind<CategoryResource, "category"> = {
  name: "category",
  nouns: { category: ["category", "categories"] },
  summary: "categories of the store menu: title, ordered items, schedules",
  endpoints: [upsert, remove],
  importPart: categoriesPart,
  state: categoriesState,
  select: selectCategories,
  // `select` always gives a table: every store has its store menu.
  manages: () => true,
  equal: categoryEqual,
  segment: () => "category",
  // Categories' offer windows with a start or an end still ahead: information, not changes.
  info: (desired) => offerWindowInfo(desired, "category"),
  reads: [storeMenuRead],
  read(snapshot, into, ids) {
    const wire = partOf(snapshot, storeMenuRead)!;
    const skuById = new Map<number, string>();
    for (const w of wire.items) if (w.id !== undefined) skuById.set(w.id, w.sku);
    const read = table<CategoryResource>();
    categoriesState.set(into, read);
    for (const c of [...wire.categories].sort((a, b) => a.sku.localeCompare(b.sku))) {
      const category: CategoryResource = {
        sku: c.sku,
        title: c.title,
        items: byIndex(c.items)
          .map((ref) => ref.sku ?? (ref.id === undefined ? undefined : skuById.get(ref.id)))
          .filter((s): s is string => s !== undefined),
      };
      const schedules = fromWireSchedules(c.schedules);
      if (schedules) category.schedules = schedules;
      read[c.sku] = category;
      if (c.id !== undefined) ids.categories[c.sku] = c.id;
    }
  },
  writes(action, key, _before, after, ctx) {
    if (action === "delete") {
      const id = ctx.ids.categories[key];
      return id === undefined ? [] : [{ endpoint: "categories.delete", element: id }];
    }
    return [
      {
        endpoint: "categories.upsert",
        element: toWireCategory(own(categoriesOf(ctx.desired), key) ?? after!),
      },
    ];
  },
};
