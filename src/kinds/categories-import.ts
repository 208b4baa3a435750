/**
 * Import of categories (the `category` kind) into catalogs: a title and the ITEMs it shows, in order.
 * A category may hold only items of the catalog's `items:` list, not options or modifier groups. The
 * title most stores have goes into the catalog, the others into `overrides.titles`; schedules and
 * items are part of the definition.
 */

import type { CatalogFile } from "../generated/config.js";
import { address, jsonEqual } from "../plain-data.js";
import { own, table, type CategoryResource, type ItemResource, type StoreState } from "../model.js";
import { optionSkus, plainItemSkus } from "./items-import.js";
import { categoryOrder, chosenOf } from "./import-order.js";
import { schedulesText } from "./import-schedules.js";
import type { CatalogContext, CatalogPart, KindImportPart, Note } from "./import-types.js";
import { mostCommon, unique, writableSku } from "./import-values.js";
import { categoriesOf, categoriesState, itemsOf } from "./catalog.js";

/** Largest number of items of a category (docs/platform-api.md §4.11). */
const MAX_ITEMS = 50;

/**
 * Makes a store's categories expressible, in place: categories whose SKU the files cannot hold are
 * dropped; a category keeps only items that exist and that no modifier group offers (an option cannot
 * be listed in a category in carte's files), once each, at most 50.
 */
export function sanitizeCategories(state: StoreState, note: Note): void {
  const all = itemsOf(state);
  const options = optionSkus(all);
  const categories = categoriesState.get(state) ?? {};
  for (const [sku, c] of Object.entries(categories)) {
    const at = address(state.store.key, "category", sku);
    if (!writableSku(sku)) {
      note(at, `the SKU "${sku}" cannot be written in carte's files (letters, digits, . _ - only)`);
      delete categories[sku];
      continue;
    }
    const items = unique(c.items.filter((i) => own(all, i)?.type === "ITEM" && !options.has(i))).slice(
      0,
      MAX_ITEMS,
    );
    if (!jsonEqual(items, c.items)) {
      note(at, "a category lists only items (not options or modifier groups), once each, at most 50");
      c.items = items;
    }
    if (c.title === "") {
      note(at, "an empty title is written as the SKU");
      c.title = sku;
    }
  }
}

/** The catalog part of categories. */
export const categoriesCatalog: CatalogPart<CategoryResource> = {
  name: "categories",
  excludable: true,
  resources: (state) => categoriesOf(state),
  // Titles are store overrides: not compared.
  fits: (def, actual, has) =>
    jsonEqual(def.schedules, actual.schedules) && jsonEqual(def.items.filter(has), actual.items),
  write(catalog: CatalogFile, ctx: CatalogContext) {
    const defs = chosenOf<CategoryResource>(ctx, "categories");
    const items = plainItemSkus(chosenOf<ItemResource>(ctx, "items"));
    const categories = categoryOrder(ctx).map((sku) => {
      const titles = ctx.members.flatMap((s) => {
        const c = own(categoriesOf(s), sku);
        return c ? [c.title] : [];
      });
      const schedules = defs[sku]!.schedules;
      return {
        sku,
        title: titles.length > 0 ? mostCommon(titles) : defs[sku]!.title,
        items: defs[sku]!.items.filter((i) => items.has(i)),
        ...(schedules?.length ? { schedules: schedulesText(schedules) } : {}),
      };
    });
    if (categories.length > 0) catalog.categories = categories;
  },
  overrides(state, catalog) {
    const titles = table<string>();
    for (const c of catalog.categories ?? []) {
      const mine = own(categoriesOf(state), c.sku);
      if (mine && mine.title !== c.title) titles[c.sku] = mine.title;
    }
    return { titles };
  },
};

/** The import part of the `category` kind. */
export const categoriesPart: KindImportPart = {
  sanitize: sanitizeCategories,
  catalog: categoriesCatalog as CatalogPart<unknown>,
};
