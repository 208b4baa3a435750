/**
 * Import of menus (the `menu` kind) into catalogs: each menu type with its categories, in order, and
 * whether each is shown. A catalog's menus are those of every store that uses it (a store file cannot
 * leave out a menu), so stores with different menu types get different catalogs.
 */

import type { CatalogFile, MenuCategory } from "../generated/config.js";
import { address, jsonEqual } from "../plain-data.js";
import { own, type MenuResource, type StoreState } from "../model.js";
import { menusOf, menusState, categoriesOf } from "./catalog.js";
import { chosenOf, menuOrder } from "./import-order.js";
import type { CatalogContext, CatalogPart, KindImportPart, Note } from "./import-types.js";

/** Menu types carte's files accept (catalog schema `Menu.type`). */
const MENU_TYPE = /^[A-Z][A-Z0-9_]*$/;

/**
 * Makes a store's menus expressible, in place: a second menu of a type already seen (read as
 * `TYPE#id`) and menu types the files cannot hold are dropped; a menu keeps only categories that
 * exist, once each.
 */
export function sanitizeMenus(state: StoreState, note: Note): void {
  const menus = menusState.get(state) ?? {};
  for (const [key, m] of Object.entries(menus)) {
    const at = address(state.store.key, "menu", key);
    if (key !== m.type || !MENU_TYPE.test(m.type) || m.type.length > 100) {
      note(
        at,
        key !== m.type
          ? `a second menu of type ${m.type} cannot be written in carte's files (one menu per type)`
          : `the menu type "${m.type}" cannot be written in carte's files (capitals, digits and _ only)`,
      );
      delete menus[key];
      continue;
    }
    const seen = new Set<string>();
    const categories = m.categories.filter((c) => {
      if (!own(categoriesOf(state), c.sku) || seen.has(c.sku)) return false;
      seen.add(c.sku);
      return true;
    });
    if (categories.length !== m.categories.length) {
      note(at, "a menu lists only existing categories, once each");
      m.categories = categories;
    }
  }
}

/** The catalog part of menus. */
export const menusCatalog: CatalogPart<MenuResource> = {
  name: "menus",
  excludable: false,
  resources: (state) => menusOf(state),
  fits: (def, actual, has) =>
    jsonEqual(
      def.categories.filter((c) => has(c.sku)),
      actual.categories,
    ),
  write(catalog: CatalogFile, ctx: CatalogContext) {
    const defs = chosenOf<MenuResource>(ctx, "menus");
    const known = new Set((catalog.categories ?? []).map((c) => c.sku));
    const menus = menuOrder(ctx).map((type) => ({
      type,
      categories: defs[type]!.categories.filter((c) => known.has(c.sku)).map((c): string | MenuCategory =>
        c.active ? c.sku : { sku: c.sku, active: false },
      ),
    }));
    if (menus.length > 0) catalog.menus = menus;
  },
};

/** The import part of the `menu` kind. */
export const menusPart: KindImportPart = {
  sanitize: sanitizeMenus,
  catalog: menusCatalog as CatalogPart<unknown>,
};
