/**
 * The order in which an imported catalog lists its resources: the order a guest meets them. Menus with
 * DEFAULT first, then by type; categories as the menus show them; items as the categories show them;
 * modifier groups as the items offer them. Whatever nothing reaches follows, by SKU. The order depends
 * only on the chosen definitions, so imports are deterministic.
 */

import { own, type CategoryResource, type ItemResource, type MenuResource } from "../model.js";
import type { CatalogContext } from "./import-types.js";
import { orderKeys } from "./import-values.js";

/** The chosen definitions of a catalog part, typed. */
export function chosenOf<R>(ctx: CatalogContext, part: string): Record<string, R> {
  return (ctx.chosen[part] ?? {}) as Record<string, R>;
}

/** Menu types: DEFAULT first, then by type. */
export function menuOrder(ctx: CatalogContext): string[] {
  return orderKeys(Object.keys(chosenOf<MenuResource>(ctx, "menus")), ["DEFAULT"]);
}

/** Category SKUs in the order the menus show them. */
export function categoryOrder(ctx: CatalogContext): string[] {
  const menus = chosenOf<MenuResource>(ctx, "menus");
  const shown = menuOrder(ctx).flatMap((type) => menus[type]?.categories.map((c) => c.sku) ?? []);
  return orderKeys(Object.keys(chosenOf<CategoryResource>(ctx, "categories")), shown);
}

/** The given item SKUs in the order the categories show them. */
export function itemOrder(ctx: CatalogContext, skus: Iterable<string>): string[] {
  const categories = chosenOf<CategoryResource>(ctx, "categories");
  const shown = categoryOrder(ctx).flatMap((sku) => categories[sku]?.items ?? []);
  return orderKeys(skus, shown);
}

/**
 * The given modifier group SKUs in the order the items (in `items` order) offer them, each followed,
 * depth first, by the groups its options offer (nested modifiers).
 */
export function groupOrder(
  ctx: CatalogContext,
  items: readonly string[],
  groups: Iterable<string>,
): string[] {
  const defs = chosenOf<ItemResource>(ctx, "items");
  const shown: string[] = [];
  const seen = new Set<string>();
  const visit = (group: string): void => {
    if (seen.has(group)) return;
    seen.add(group);
    shown.push(group);
    for (const option of own(defs, group)?.children ?? [])
      for (const next of own(defs, option)?.children ?? []) visit(next);
  };
  for (const sku of items) for (const group of own(defs, sku)?.children ?? []) visit(group);
  return orderKeys(groups, shown);
}
