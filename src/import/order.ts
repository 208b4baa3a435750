/**
 * The catalog's order in the files an import writes: a store's or a group's prices, titles,
 * descriptions, images, option prices and exclusions come in the order its catalog lists the SKUs
 * (items, then each modifier group and its options, then categories), as a person writes them from
 * the catalog; an item's or option's `option_prices` in the order of the options of its groups. SKUs
 * the catalog does not list come after, by code point. Order only: the values are unchanged.
 */

import type { CatalogFile } from "../generated/config.js";
import { byCodePoint } from "../kinds/import-values.js";

/** The place of each SKU in a catalog (a Map: a SKU is data, whatever it is named). */
export type CatalogRank = ReadonlyMap<string, number>;

/** Where each SKU of the catalogs comes, the first catalog's SKUs first. */
export function catalogRank(catalogs: readonly CatalogFile[]): CatalogRank {
  const rank = new Map<string, number>();
  const add = (sku: string) => {
    if (!rank.has(sku)) rank.set(sku, rank.size);
  };
  for (const catalog of catalogs) {
    for (const i of catalog.items ?? []) add(i.sku);
    for (const g of catalog.modifier_groups ?? []) {
      add(g.sku);
      for (const o of g.options) add(typeof o === "string" ? o : o.sku);
    }
    for (const c of catalog.categories ?? []) add(c.sku);
  }
  return rank;
}

/** SKUs in the catalog's order, those it does not list after, by code point. */
function inOrder(skus: Iterable<string>, rank: CatalogRank): string[] {
  const at = (s: string) => rank.get(s) ?? Number.MAX_SAFE_INTEGER;
  return [...skus].sort((a, b) => at(a) - at(b) || byCodePoint(a, b));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A mapping by SKU with its keys in the catalog's order (`depth` 2: and each value's keys too). */
function ordered(record: Record<string, unknown>, rank: CatalogRank, depth = 1): Record<string, unknown> {
  return Object.fromEntries(
    inOrder(Object.keys(record), rank).map((k) => {
      const v = record[k];
      return [k, depth > 1 && isRecord(v) ? ordered(v, rank, depth - 1) : v];
    }),
  );
}

/** The keys of `overrides:` that map SKUs to values. */
const BY_SKU = ["prices", "titles", "descriptions", "images"];

/**
 * A store file's or a group's `defaults:` sections with `overrides:` in the catalog's order (a new
 * object; the rest as it is).
 */
export function sectionsInCatalogOrder<T extends object>(sections: T, rank: CatalogRank): T {
  const overrides = (sections as Record<string, unknown>).overrides;
  if (!isRecord(overrides)) return sections;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(overrides)) {
    if (BY_SKU.includes(key) && isRecord(value)) out[key] = ordered(value, rank);
    else if (key === "option_prices" && isRecord(value)) out[key] = ordered(value, rank, 2);
    else if (key === "exclude" && Array.isArray(value) && value.every((v) => typeof v === "string"))
      out[key] = inOrder(value as string[], rank);
    else out[key] = value;
  }
  return { ...sections, overrides: out };
}

/** A catalog whose items' and options' `option_prices` list the options in the catalog's order. */
export function catalogInOrder(catalog: CatalogFile): CatalogFile {
  const rank = catalogRank([catalog]);
  const withOrder = <T extends { option_prices?: unknown }>(x: T): T =>
    isRecord(x.option_prices) ? { ...x, option_prices: ordered(x.option_prices, rank) } : x;
  return {
    ...catalog,
    ...(catalog.items ? { items: catalog.items.map(withOrder) } : {}),
    ...(catalog.modifier_groups
      ? {
          modifier_groups: catalog.modifier_groups.map((g) => ({
            ...g,
            options: g.options.map((o) => (typeof o === "string" ? o : withOrder(o))),
          })),
        }
      : {}),
  };
}
