/**
 * Categories: a title and the ordered ITEMs they show (spec §2.2; categories hold only ITEMs).
 * Written through `POST /categories` (upsert by SKU) and `DELETE /categories` with `{ids}`
 * (platform notes, "Store menu API").
 */

import type { CategoryResource } from "../model.js";
import type { WireCategory } from "../platform/wire.js";
import type { ResourceKind } from "./types.js";
import { byIndex } from "./util.js";

/** The upsert element of `POST /categories` for a desired category. Item references go by SKU. */
export function toWireCategory(r: CategoryResource): WireCategory {
  return { sku: r.sku, title: r.title, items: r.items.map((sku, index) => ({ sku, index })) };
}

/** The categories kind. */
export const categories: ResourceKind<CategoryResource> = {
  name: "category",
  select: (state) => state.categories,
  segment: () => "category",
  reads: ["menu"],
  read(snapshot, into, ids) {
    const wire = snapshot.menu!;
    const skuById = new Map<number, string>();
    for (const w of wire.items) if (w.id !== undefined) skuById.set(w.id, w.sku);
    for (const c of [...wire.categories].sort((a, b) => a.sku.localeCompare(b.sku))) {
      into.categories[c.sku] = {
        sku: c.sku,
        title: c.title,
        items: byIndex(c.items)
          .map((ref) => ref.sku ?? (ref.id === undefined ? undefined : skuById.get(ref.id)))
          .filter((s): s is string => s !== undefined),
      };
      if (c.id !== undefined) ids.categories[c.sku] = c.id;
    }
  },
  writes(action, key, _before, after, ctx) {
    if (action === "delete") {
      const id = ctx.ids.categories[key];
      return id === undefined ? [] : [{ endpoint: "categories.delete", element: id }];
    }
    return [{ endpoint: "categories.upsert", element: toWireCategory(after!) }];
  },
};
