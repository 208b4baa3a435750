/**
 * Where each value of a store's catalog resource comes from (`carte explain ADDRESS`): the catalog
 * definition, or an override of carte.yaml `defaults:`, a group, an included file or the store file,
 * with the values that override hides. Precedence: store > group > carte.yaml > catalog
 * (docs/configuration.md, "Overrides at every layer").
 *
 * Pure: it reads what `loadProject(path, { explain: true })` kept (the catalog file with its positions
 * and the store's merged overrides with their sites) and the store's resolved state.
 */

import { own, type ItemResource, type MenuResource, type StoreState } from "../model.js";
import type { Layered, MergedOverrides } from "./overrides.js";
import { isRecord, list, where } from "../source/problems.js";
import type { Site } from "../source/problems.js";
import { toPointer } from "../source/yaml.js";
import type { YamlFile } from "../source/yaml.js";
import { menusOf, categoriesOf, itemsOf, availabilityOf } from "../kinds/catalog.js";
import type { Currency } from "../money.js";
import { ruleLines } from "./price-rules.js";
import { ancestorLevels } from "./resolve.js";

/** What the loader keeps of one store for `carte explain`. */
export interface StoreSources {
  /** The store file. */
  storeFile: YamlFile;
  /** The catalog the store sells. */
  catalog: { name: string; parsed: YamlFile };
  /** The store's overrides merged from its layers, with their sites. */
  overrides: MergedOverrides;
}

/** One place a value is written: `file:line:col` and the value written there. */
export interface Origin {
  at: string;
  value: unknown;
}

/** One attribute of a resource: its value in the store and where it comes from. */
export interface AttributeOrigin {
  attribute: string;
  /** The value in the store's desired state. */
  value: unknown;
  /** Where it is written (the winning place first), then the places it overrides, highest first. */
  from: Origin[];
  /** Exclusions that removed something from the value (children, options, items, categories). */
  removed?: Origin[];
  /**
   * How the store's price rules made the price from the catalog's, one line per rule
   * (src/config/price-rules.ts `ruleLines`), or why they did not (an explicit price wins); prices only.
   */
  rules?: string[];
}

/** The explanation of one resource of one store. */
export interface Explanation {
  address: string;
  /** `undefined` when the store does not have the resource; `reason` says why. */
  attributes?: AttributeOrigin[];
  reason?: string;
}

/** A catalog definition: its pointer segments in the catalog file. */
interface Definition {
  at: (string | number)[];
  data: Record<string, unknown>;
}

function definitions(parsed: YamlFile): {
  items: Map<string, Definition>;
  categories: Map<string, Definition>;
  menus: Map<string, Definition>;
} {
  const data = isRecord(parsed.data) ? parsed.data : {};
  const items = new Map<string, Definition>();
  const categories = new Map<string, Definition>();
  const menus = new Map<string, Definition>();
  const add = (into: Map<string, Definition>, key: unknown, def: Definition) => {
    if (typeof key === "string" && !into.has(key)) into.set(key, def);
  };
  list(data.items).forEach((item, i) => {
    if (isRecord(item)) add(items, item.sku, { at: ["items", i], data: item });
  });
  list(data.modifier_groups).forEach((group, g) => {
    if (isRecord(group)) add(items, group.sku, { at: ["modifier_groups", g], data: group });
  });
  list(data.modifier_groups).forEach((group, g) => {
    if (!isRecord(group)) return;
    list(group.options).forEach((option, o) => {
      if (isRecord(option))
        add(items, option.sku, { at: ["modifier_groups", g, "options", o], data: option });
    });
  });
  list(data.categories).forEach((c, i) => {
    if (isRecord(c)) add(categories, c.sku, { at: ["categories", i], data: c });
  });
  list(data.menus).forEach((m, i) => {
    if (isRecord(m)) add(menus, m.type, { at: ["menus", i], data: m });
  });
  return { items, categories, menus };
}

const siteText = (site: Site): string => where(site);

/**
 * The attributes `available` (and `until`, when switched off until a time) of an item of a store, with
 * the override entries that decide them, the winning one first.
 */
function availabilityAttributes(state: StoreState, o: MergedOverrides, key: string): AttributeOrigin[] {
  const a = o.availability.get(key);
  const { unavailable, available, suspensions } = availabilityOf(state);
  const value = unavailable.includes(key) ? false : available?.includes(key) ? true : undefined;
  return [
    {
      attribute: "available",
      value: value ?? "(not managed: on if carte switched it off, else as staff set it)",
      from: a ? [a, ...a.below].map((e) => ({ at: siteText(e.site), value: e.value })) : [],
    },
    // Switched off until a time (`until:`), from the winning entry.
    ...(own(suspensions, key)?.until !== undefined
      ? [
          {
            attribute: "until",
            value: own(suspensions, key)!.until!,
            from: a ? [{ at: siteText(a.site), value: own(suspensions, key)!.until! }] : [],
          },
        ]
      : []),
  ];
}

/**
 * The prices of an item as an option inside each parent that sets one (`priceInParent.<parent>`): the
 * nearest SKU at or above the parent that writes a price for the option (the parent itself, or an
 * ancestor, as src/config/resolve.ts picks it), with that SKU's overrides' `option_prices` entries, the
 * winning one first, then the catalog's; a line names the ancestor when the price was written there.
 */
function optionPriceAttributes(
  r: ItemResource,
  key: string,
  o: MergedOverrides,
  items: Map<string, Definition>,
  parsed: YamlFile,
  currency: Currency | undefined,
  resolved: Readonly<Record<string, ItemResource>>,
): AttributeOrigin[] {
  const out: AttributeOrigin[] = [];
  for (const [parent, price] of Object.entries(r.priceInParent ?? {})) {
    const from: Origin[] = [];
    let over: Layered<number> | undefined;
    let catalogPrice: unknown;
    let writer = parent;
    for (const level of ancestorLevels(resolved, parent)) {
      for (const ancestor of level) {
        if (from.length > 0) break;
        over = o.optionPrices.get(ancestor)?.get(key);
        if (over) for (const e of [over, ...over.below]) from.push({ at: siteText(e.site), value: e.value });
        const p = items.get(ancestor);
        catalogPrice = undefined;
        if (p && isRecord(p.data.option_prices) && Object.hasOwn(p.data.option_prices, key)) {
          catalogPrice = p.data.option_prices[key];
          from.push({
            at: siteText({ parsed, pointer: toPointer([...p.at, "option_prices", key]) }),
            value: catalogPrice,
          });
        }
        if (from.length > 0) writer = ancestor;
      }
      if (from.length > 0) break;
    }
    const lines = rulesOf(o, over !== undefined, catalogPrice, currency) ?? [];
    const above = writer !== parent ? `, above ${parent}` : "";
    // Set by a pattern (`PIZZA-*-G`, src/config/option-price-patterns.ts): the pattern and the SKU it matched.
    if (over?.pattern !== undefined)
      lines.unshift(`in ${parent}, from option_prices ${over.pattern} (matching ${writer}${above})`);
    else if (writer !== parent)
      lines.unshift(`in ${parent}, from option_prices ${writer} (an item or option above ${parent})`);
    out.push({
      attribute: `priceInParent.${parent}`,
      value: price,
      from,
      ...(lines.length > 0 ? { rules: lines } : {}),
    });
  }
  return out;
}

/**
 * The lines saying how the store's price rules set a catalog price, or that an explicit price won over
 * them; `undefined` when the store has no rules or the catalog writes no price.
 */
function rulesOf(
  o: MergedOverrides,
  explicit: boolean,
  catalogPrice: unknown,
  currency: Currency | undefined,
): string[] | undefined {
  const rules = o.priceRules;
  if (!rules || rules.value.length === 0 || typeof catalogPrice !== "number") return undefined;
  if (explicit) return [`price_rules of ${siteText(rules.site)} do not apply: an explicit price wins`];
  return ruleLines(catalogPrice, rules.value, currency);
}

/** Where a menu's categories come from: the catalog's list, and the exclusions that removed some. */
function menuCategories(
  value: MenuResource["categories"],
  def: Definition,
  catalogAt: (def: Definition, ...segments: (string | number)[]) => string,
  removedFrom: (skus: readonly unknown[]) => Origin[],
): AttributeOrigin {
  const categories: AttributeOrigin = {
    attribute: "categories",
    value,
    from: [{ at: catalogAt(def, "categories"), value: def.data.categories }],
  };
  const removed = removedFrom(list(def.data.categories).map((e) => (isRecord(e) ? e.sku : e)));
  if (removed.length > 0) categories.removed = removed;
  return categories;
}

/**
 * Explains one catalog resource of a store: `segment` is `item`, `modifier_group`, `category`, `menu`
 * or `availability`, `key` its SKU (menu type for menus); `currency` (carte.yaml `currency:`) formats
 * the prices of the price rules' lines.
 */
export function explainResource(
  state: StoreState,
  sources: StoreSources,
  segment: string,
  key: string,
  currency?: Currency,
): Explanation {
  const address = `store[${state.store.key}].${segment}[${key}]`;
  const { parsed } = sources.catalog;
  const defs = definitions(parsed);
  const o = sources.overrides;
  const catalogAt = (def: Definition, ...segments: (string | number)[]): string =>
    siteText({ parsed, pointer: toPointer([...def.at, ...segments]) });
  /** An attribute from an override (and what it hides), else from the catalog definition. */
  const layered = <T>(
    attribute: string,
    value: unknown,
    override: Layered<T> | undefined,
    def: Definition | undefined,
    field: string,
  ): AttributeOrigin => {
    const from: Origin[] = [];
    if (override) {
      from.push({ at: siteText(override.site), value: override.value });
      for (const b of override.below) from.push({ at: siteText(b.site), value: b.value });
    }
    if (def) {
      const written = Object.hasOwn(def.data, field);
      from.push({
        at: catalogAt(def, ...(written ? [field] : [])),
        value: written ? def.data[field] : undefined,
      });
    }
    return { attribute, value, from };
  };
  const removedFrom = (skus: readonly unknown[]): Origin[] =>
    skus.flatMap((s) =>
      typeof s === "string" && o.exclude.has(s)
        ? o.exclude.get(s)!.map((e) => ({ at: siteText(e.site), value: e.value }))
        : [],
    );
  const excluded = o.exclude.get(key);
  const missing = (what: string): Explanation => ({
    address,
    reason: excluded
      ? `${what} is excluded here: ${excluded.map((e) => siteText(e.site)).join(", ")}`
      : `catalog ${sources.catalog.name} (${parsed.file}) has no ${what}`,
  });

  if (segment === "item" || segment === "modifier_group" || segment === "availability") {
    const r = own(itemsOf(state), key);
    const def = defs.items.get(key);
    if (!r || !def) return missing(`${segment === "modifier_group" ? "modifier group" : "item"} ${key}`);
    if (segment === "availability") return { address, attributes: availabilityAttributes(state, o, key) };
    const group = r.type === "MODIFIER_GROUP";
    const attributes: AttributeOrigin[] = [layered("title", r.title, o.titles.get(key), def, "title")];
    if (!group) {
      attributes.push(layered("description", r.description, o.descriptions.get(key), def, "description"));
      const price = layered("price", r.price, o.prices.get(key), def, "price");
      const rules = rulesOf(o, o.prices.has(key), def.data.price, currency);
      attributes.push(rules ? { ...price, rules } : price);
      attributes.push(layered("images", r.images, o.images.get(key), def, "images"));
    }
    const childField = group ? "options" : "modifier_groups";
    const written = list(def.data[childField]).map((c) => (isRecord(c) ? c.sku : c));
    const children: AttributeOrigin = {
      attribute: "children",
      value: r.children,
      from: [
        { at: catalogAt(def, ...(Object.hasOwn(def.data, childField) ? [childField] : [])), value: written },
      ],
    };
    const removed = removedFrom(written);
    if (removed.length > 0) children.removed = removed;
    attributes.push(children);
    if (group) {
      const limits = o.limits.get(key);
      attributes.push(layered("min", r.min, limits?.min, def, "min"));
      attributes.push(layered("max", r.max, limits?.max, def, "max"));
      if (removed.length > 0 && r.max !== (limits?.max?.value ?? def.data.max))
        attributes.at(-1)!.removed = removed;
    } else if (Object.hasOwn(def.data, "schedules") || o.schedules.has(key)) {
      attributes.push(layered("schedules", r.schedules ?? [], o.schedules.get(key), def, "schedules"));
    }
    attributes.push(...optionPriceAttributes(r, key, o, defs.items, parsed, currency, itemsOf(state)));
    return { address, attributes };
  }

  if (segment === "category") {
    const c = own(categoriesOf(state), key);
    const def = defs.categories.get(key);
    if (!c || !def) return missing(`category ${key}`);
    const items: AttributeOrigin = {
      attribute: "items",
      value: c.items,
      from: [{ at: catalogAt(def, "items"), value: def.data.items }],
    };
    const removed = removedFrom(list(def.data.items));
    if (removed.length > 0) items.removed = removed;
    const attributes = [layered("title", c.title, o.titles.get(key), def, "title"), items];
    if (Object.hasOwn(def.data, "schedules") || o.schedules.has(key))
      attributes.push(layered("schedules", c.schedules ?? [], o.schedules.get(key), def, "schedules"));
    return { address, attributes };
  }

  if (segment === "menu") {
    const m = own(menusOf(state), key);
    const def = defs.menus.get(key);
    if (!m || !def) return missing(`menu ${key}`);
    return { address, attributes: [menuCategories(m.categories, def, catalogAt, removedFrom)] };
  }
  return {
    address,
    reason: `carte explain shows items, modifier groups, categories, menus and availability, not ${segment}`,
  };
}
