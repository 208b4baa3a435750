/**
 * Semantic rules of the configuration: what JSON Schema cannot say (references between SKUs, unique
 * names across files, price precision, relations between items and modifier groups and their cycles,
 * option prices inside an item, schedules of categories and items, store overrides and availability,
 * groups). Store settings (hours, holidays, webhooks…) are checked in settings.ts. The checks run on
 * every file, including files the schema rejected, so that the user sees every problem at once; they
 * therefore read the data defensively and only judge values that have the right shape (a wrong shape is
 * the schema's problem to report).
 */

import { basename, extname } from "node:path";
import type { ConfigProblem } from "../errors.js";
import { bare, isRecord, list, quote, Reporter, where } from "./report.js";
import type { Site } from "./report.js";
import { checkSchedules } from "./settings.js";
import { toPointer } from "./yaml.js";
import type { YamlFile } from "./yaml.js";

export { where } from "./report.js";
export type { Site } from "./report.js";

/** What a SKU of a catalog names. */
export type SkuKind = "item" | "modifier group" | "option";

/** What a catalog defines, for the checks of the stores that use it. */
export interface CatalogIndex {
  /** The catalog's name (its `name`, or the file name without extension). */
  name: string;
  /** Where the name comes from. */
  site: Site;
  /** Items, modifier groups and inline options by SKU (the first definition wins). */
  skus: Map<string, { kind: SkuKind; site: Site }>;
  /** Category SKUs. */
  categories: Set<string>;
  /** Modifier groups: their option SKUs (inline and referenced) and their `min`. */
  groups: Map<string, { options: string[]; min: number }>;
}

/** True when a price has at most 2 decimals. */
export function hasAtMostTwoDecimals(price: number): boolean {
  return Number(price.toFixed(2)) === price;
}

function checkPrice(r: Reporter, segments: (string | number)[], price: unknown): void {
  if (typeof price === "number" && Number.isFinite(price) && !hasAtMostTwoDecimals(price)) {
    r.at(
      segments,
      `price ${price} has more than 2 decimals: round it to at most 2, as the platform stores it`,
    );
  }
}

function a(kind: SkuKind): string {
  return kind === "item" ? "an item" : kind === "option" ? "an option" : "a modifier group";
}

/** The default catalog name of a file: its name without extension. */
export function defaultCatalogName(file: string): string {
  return basename(file, extname(file));
}

/**
 * Checks one catalog file.
 *
 * @param parsed - the parsed catalog (possibly rejected by the schema).
 * @param problems - receives the located problems.
 * @returns what the catalog defines, for checking the stores.
 */
export function checkCatalog(parsed: YamlFile, problems: ConfigProblem[]): CatalogIndex {
  const r = new Reporter(parsed, problems);
  const data = isRecord(parsed.data) ? parsed.data : {};
  const name = typeof data.name === "string" ? data.name : defaultCatalogName(parsed.file);
  const index: CatalogIndex = {
    name,
    site: { parsed, pointer: typeof data.name === "string" ? "/name" : "" },
    skus: new Map(),
    categories: new Set(),
    groups: new Map(),
  };

  const define = (sku: unknown, kind: SkuKind, segments: (string | number)[]): void => {
    if (typeof sku !== "string") return;
    const first = index.skus.get(sku);
    if (first) {
      r.at(
        segments,
        `duplicate SKU ${quote(sku)}: already used by ${a(first.kind)} at ${where(first.site)}; SKUs must be unique in a catalog`,
      );
      return;
    }
    index.skus.set(sku, { kind, site: { parsed, pointer: toPointer(segments) } });
  };

  // 1. Definitions: items, modifier groups, inline options.
  const items = list(data.items);
  const groups = list(data.modifier_groups);
  items.forEach((item, i) => {
    if (isRecord(item)) define(item.sku, "item", ["items", i, "sku"]);
  });
  groups.forEach((group, g) => {
    if (isRecord(group)) define(group.sku, "modifier group", ["modifier_groups", g, "sku"]);
  });
  groups.forEach((group, g) => {
    if (!isRecord(group)) return;
    list(group.options).forEach((option, o) => {
      if (isRecord(option)) define(option.sku, "option", ["modifier_groups", g, "options", o, "sku"]);
    });
  });

  // 2. Items: prices and their modifier groups.
  items.forEach((item, i) => {
    if (!isRecord(item)) return;
    checkPrice(r, ["items", i, "price"], item.price);
    const seen = new Set<string>();
    list(item.modifier_groups).forEach((ref, k) => {
      if (typeof ref !== "string") return;
      const at = ["items", i, "modifier_groups", k];
      const def = index.skus.get(ref);
      if (!def)
        r.at(at, `unknown modifier group ${quote(ref)}: define it under modifier_groups, or remove it here`);
      else if (def.kind !== "modifier group")
        r.at(
          at,
          `${quote(ref)} is ${a(def.kind)}, not a modifier group: an item's modifier_groups lists groups only`,
        );
      else if (seen.has(ref)) r.at(at, `modifier group ${quote(ref)} is listed twice for this item`);
      seen.add(ref);
    });
  });

  // 3. Modifier groups: options, min and max.
  const groupRefs: { from: string; to: string; at: (string | number)[] }[] = [];
  groups.forEach((group, g) => {
    if (!isRecord(group)) return;
    const options: string[] = [];
    list(group.options).forEach((option, o) => {
      const at = ["modifier_groups", g, "options", o];
      let sku: string | undefined;
      if (typeof option === "string") {
        sku = option;
        const def = index.skus.get(option);
        if (!def)
          r.at(
            at,
            `unknown option ${quote(option)}: write it in full ({sku, title, price}) here or in another group of this catalog`,
          );
        else if (def.kind === "item")
          r.at(
            at,
            `${quote(option)} is an item of items:, not an option: write the option in full ({sku, title, price}) with its own SKU`,
          );
        else if (def.kind === "modifier group" && typeof group.sku === "string")
          groupRefs.push({ from: group.sku, to: option, at });
        else if (def.kind === "modifier group")
          r.at(at, `${quote(option)} is a modifier group: a group's options must be options, not groups`);
      } else if (isRecord(option)) {
        if (typeof option.sku === "string") sku = option.sku;
        checkPrice(r, [...at, "price"], option.price);
      }
      if (sku === undefined) return;
      if (options.includes(sku)) r.at(at, `option ${quote(sku)} is listed twice in this group`);
      else options.push(sku);
    });
    const { min, max } = group;
    if (
      typeof min === "number" &&
      typeof max === "number" &&
      Number.isInteger(min) &&
      Number.isInteger(max)
    ) {
      if (min > max)
        r.at(["modifier_groups", g, "min"], `min (${min}) is more than max (${max}): lower min or raise max`);
      if (options.length > 0 && max > options.length)
        r.at(
          ["modifier_groups", g, "max"],
          `max (${max}) is more than the ${options.length} option${options.length === 1 ? "" : "s"} of the group: lower max or add options`,
        );
    }
    if (typeof group.sku === "string" && !index.groups.has(group.sku)) {
      index.groups.set(group.sku, { options, min: typeof min === "number" ? min : 0 });
    }
  });

  // A group listing a group is wrong anyway; when the references go round in a circle, say so.
  for (const ref of groupRefs) {
    const cycle = groupCycle(groupRefs, ref);
    r.at(
      ref.at,
      cycle
        ? `modifier groups form a cycle: ${cycle.join(" → ")}; a group's options must be options, not groups`
        : `${quote(ref.to)} is a modifier group: a group's options must be options, not groups`,
    );
  }

  // 3b. Items: schedules, and prices of options inside the item.
  items.forEach((item, i) => {
    if (!isRecord(item)) return;
    const name = typeof item.sku === "string" ? item.sku : `#${i + 1}`;
    checkSchedules(parsed, ["items", i, "schedules"], item.schedules, `item ${bare(name)}`, problems);
    if (!isRecord(item.option_prices)) return;
    const offered = new Set(
      list(item.modifier_groups).flatMap((g) =>
        typeof g === "string" ? (index.groups.get(g)?.options ?? []) : [],
      ),
    );
    for (const [sku, price] of Object.entries(item.option_prices)) {
      const at = ["items", i, "option_prices", sku];
      const def = index.skus.get(sku);
      if (!def)
        r.at(
          at,
          `unknown option ${quote(sku)}: option_prices lists options of this item's modifier groups`,
          "key",
        );
      else if (def.kind !== "option")
        r.at(
          at,
          `${quote(sku)} is ${a(def.kind)}, not an option: option_prices lists options of this item's modifier groups`,
          "key",
        );
      else if (!offered.has(sku))
        r.at(
          at,
          `option ${quote(sku)} is not offered by any modifier group of ${bare(name)}: add its group to the item's modifier_groups, or remove it here`,
          "key",
        );
      checkPrice(r, at, price);
    }
  });

  // 4. Categories.
  const categoryFirst = new Map<string, Site>();
  list(data.categories).forEach((category, c) => {
    if (!isRecord(category)) return;
    if (typeof category.sku === "string") {
      const first = categoryFirst.get(category.sku);
      if (first)
        r.at(
          ["categories", c, "sku"],
          `duplicate category ${quote(category.sku)}: already defined at ${where(first)}`,
        );
      else categoryFirst.set(category.sku, { parsed, pointer: toPointer(["categories", c, "sku"]) });
      index.categories.add(category.sku);
    }
    const title = typeof category.sku === "string" ? category.sku : `#${c + 1}`;
    checkSchedules(
      parsed,
      ["categories", c, "schedules"],
      category.schedules,
      `category ${bare(title)}`,
      problems,
    );
    const seen = new Set<string>();
    list(category.items).forEach((ref, k) => {
      if (typeof ref !== "string") return;
      const at = ["categories", c, "items", k];
      const def = index.skus.get(ref);
      if (!def)
        r.at(
          at,
          `unknown item ${quote(ref)} in category ${bare(title)}: add it under items:, or remove it from the category`,
        );
      else if (def.kind !== "item") r.at(at, `${quote(ref)} is ${a(def.kind)}, categories hold only items`);
      else if (seen.has(ref)) r.at(at, `item ${quote(ref)} is listed twice in category ${bare(title)}`);
      seen.add(ref);
    });
  });

  // 5. Menus.
  const menuFirst = new Map<string, Site>();
  list(data.menus).forEach((menu, m) => {
    if (!isRecord(menu)) return;
    if (typeof menu.type === "string") {
      const first = menuFirst.get(menu.type);
      if (first)
        r.at(
          ["menus", m, "type"],
          `duplicate menu type ${quote(menu.type)}: already used at ${where(first)}; each menu of a catalog needs its own type`,
        );
      else menuFirst.set(menu.type, { parsed, pointer: toPointer(["menus", m, "type"]) });
    }
    const seen = new Set<string>();
    list(menu.categories).forEach((entry, k) => {
      const sku = typeof entry === "string" ? entry : isRecord(entry) ? entry.sku : undefined;
      if (typeof sku !== "string") return;
      const at =
        typeof entry === "string" ? ["menus", m, "categories", k] : ["menus", m, "categories", k, "sku"];
      if (!index.categories.has(sku)) {
        const def = index.skus.get(sku);
        r.at(
          at,
          def
            ? `${quote(sku)} is ${a(def.kind)}, menus hold only categories`
            : `unknown category ${quote(sku)}: define it under categories, or remove it from the menu`,
        );
      } else if (seen.has(sku)) r.at(at, `category ${quote(sku)} is listed twice in this menu`);
      seen.add(sku);
    });
  });

  return index;
}

/**
 * The cycle a reference between modifier groups closes, as group SKUs from its start back to it, or
 * `undefined` when following the references from its target never leads back.
 */
function groupCycle(
  refs: readonly { from: string; to: string }[],
  ref: { from: string; to: string },
): string[] | undefined {
  // Breadth-first from the target, looking for the way back to the source.
  const previous = new Map<string, string | null>([[ref.to, null]]);
  const queue = [ref.to];
  while (queue.length > 0) {
    const node = queue.shift()!;
    if (node === ref.from) {
      const path: string[] = [];
      for (let n: string | null | undefined = node; n != null; n = previous.get(n)) path.unshift(n);
      return [ref.from, ...path];
    }
    for (const e of refs)
      if (e.from === node && !previous.has(e.to)) {
        previous.set(e.to, node);
        queue.push(e.to);
      }
  }
  return undefined;
}

/**
 * Checks that catalog names are unique.
 *
 * @returns the catalogs by name (the first of each name).
 */
export function checkCatalogNames(
  catalogs: CatalogIndex[],
  problems: ConfigProblem[],
): Map<string, CatalogIndex> {
  const byName = new Map<string, CatalogIndex>();
  for (const catalog of catalogs) {
    const first = byName.get(catalog.name);
    if (!first) {
      byName.set(catalog.name, catalog);
      continue;
    }
    const r = new Reporter(catalog.site.parsed, problems);
    const message =
      `duplicate catalog name ${quote(catalog.name)}: ${first.site.parsed.file} already has it; ` +
      `give one of them a different name: (the default name is the file name)`;
    if (catalog.site.pointer === "") r.file(message);
    else r.at(["name"], message);
  }
  return byName;
}

/** What the store checks remember across store files. */
export interface StoreRegistry {
  ids: Map<string, Site>;
  integrationIds: Map<string, Site>;
}

/**
 * The platform store id of a store file as a decimal string, or undefined when it is not a valid id.
 * Numbers beyond 2^53 are not exact in YAML: they must be written in quotes (reported by
 * {@link checkStore}).
 */
export function storeIdOf(id: unknown): string | undefined {
  if (typeof id === "number" && Number.isSafeInteger(id) && id > 0) return String(id);
  if (typeof id === "string" && /^[1-9][0-9]*$/.test(id)) return id;
  return undefined;
}

/**
 * Checks one store file against the catalogs and the stores seen before it.
 *
 * @param catalogs - catalogs by name (also those whose files have problems: their SKUs are known as far
 *   as they could be read, so that a store is not blamed for its catalog's mistakes).
 * @param registry - ids and integration ids of the store files checked before; updated.
 * @param problems - receives the located problems.
 */
export function checkStore(
  parsed: YamlFile,
  catalogs: Map<string, CatalogIndex>,
  registry: StoreRegistry,
  problems: ConfigProblem[],
): void {
  const r = new Reporter(parsed, problems);
  const data = isRecord(parsed.data) ? parsed.data : {};
  const store = isRecord(data.store) ? data.store : {};

  // Identity, unique across store files.
  if (typeof store.id === "number" && Number.isInteger(store.id) && !Number.isSafeInteger(store.id)) {
    r.at(
      ["store", "id"],
      `store id ${store.id} is too long to be read exactly as a number: write it in quotes`,
    );
  }
  const id = storeIdOf(store.id);
  if (id !== undefined) {
    const first = registry.ids.get(id);
    if (first)
      r.at(["store", "id"], `duplicate store id ${id}: already used by the store at ${where(first)}`);
    else registry.ids.set(id, { parsed, pointer: "/store/id" });
  }
  if (typeof store.integration_id === "string") {
    const first = registry.integrationIds.get(store.integration_id);
    if (first)
      r.at(
        ["store", "integration_id"],
        `duplicate integration_id ${quote(store.integration_id)}: already used by the store at ${where(first)}`,
      );
    else registry.integrationIds.set(store.integration_id, { parsed, pointer: "/store/integration_id" });
  }

  // The catalog and the SKUs the store names.
  if (typeof data.catalog !== "string") return;
  const catalog = catalogs.get(data.catalog);
  if (!catalog) {
    const known = [...catalogs.keys()];
    r.at(
      ["catalog"],
      known.length === 0
        ? `unknown catalog ${quote(data.catalog)}: no catalog files were found (see catalogs: in carte.yaml)`
        : `unknown catalog ${quote(data.catalog)} (known: ${known.map((k) => bare(k)).join(", ")})`,
    );
    return;
  }
  const known = (sku: string): SkuKind | "category" | undefined =>
    catalog.skus.get(sku)?.kind ?? (catalog.categories.has(sku) ? "category" : undefined);
  const an = (kind: SkuKind | "category"): string => (kind === "category" ? "a category" : a(kind));

  const overrides = isRecord(data.overrides) ? data.overrides : {};
  const excluded = new Set<string>();
  list(overrides.exclude).forEach((sku, k) => {
    if (typeof sku !== "string") return;
    if (known(sku) === undefined)
      r.at(
        ["overrides", "exclude", k],
        `unknown SKU ${quote(sku)}: catalog ${bare(catalog.name)} has no such item, option, group or category`,
      );
    excluded.add(sku);
  });

  if (isRecord(overrides.prices)) {
    for (const [sku, price] of Object.entries(overrides.prices)) {
      const at = ["overrides", "prices", sku];
      const kind = known(sku);
      if (kind === undefined)
        r.at(
          at,
          `unknown SKU ${quote(sku)}: catalog ${bare(catalog.name)} has no item or option with this SKU`,
          "key",
        );
      else if (kind === "modifier group" || kind === "category")
        r.at(at, `${quote(sku)} is ${an(kind)}, which has no price: prices are for items and options`, "key");
      else if (excluded.has(sku))
        r.at(
          at,
          `${quote(sku)} is excluded from this store (overrides.exclude), so it cannot have a price here`,
          "key",
        );
      checkPrice(r, at, price);
    }
  }

  // A group must keep enough options once exclusions are applied.
  for (const [sku, group] of catalog.groups) {
    if (excluded.has(sku)) continue;
    const remaining = group.options.filter((o) => !excluded.has(o)).length;
    const needed = Math.max(1, group.min);
    if (remaining < needed && remaining < group.options.length) {
      r.at(
        ["overrides", "exclude"],
        `excluding options leaves modifier group ${quote(sku)} with ${remaining} option${remaining === 1 ? "" : "s"}, ` +
          `but it needs at least ${needed}: exclude the group too, or keep more of its options`,
      );
    }
  }

  // Titles, descriptions and images of this store.
  const perSku = (
    key: "titles" | "descriptions" | "images",
    what: string,
    allowed: (SkuKind | "category")[],
  ) => {
    const values = overrides[key];
    if (!isRecord(values)) return;
    for (const sku of Object.keys(values)) {
      const at = ["overrides", key, sku];
      const kind = known(sku);
      if (kind === undefined)
        r.at(
          at,
          `unknown SKU ${quote(sku)}: catalog ${bare(catalog.name)} has no ${allowed.slice(0, -1).join(", ")} or ${allowed.at(-1)} with this SKU`,
          "key",
        );
      else if (!allowed.includes(kind))
        r.at(
          at,
          `${quote(sku)} is ${an(kind)}, which has no ${what}: ${key} are for ${allowed.map((k) => `${k}s`).join(" and ")}`,
          "key",
        );
      else if (excluded.has(sku))
        r.at(
          at,
          `${quote(sku)} is excluded from this store (overrides.exclude), so it cannot have a ${what} here`,
          "key",
        );
    }
  };
  perSku("titles", "title", ["item", "option", "modifier group", "category"]);
  perSku("descriptions", "description", ["item", "option"]);
  perSku("images", "image", ["item", "option"]);

  const availability = isRecord(data.availability) ? data.availability : {};
  const off = new Set(list(availability.unavailable).filter((s): s is string => typeof s === "string"));
  for (const key of ["unavailable", "available"] as const) {
    const verb = key === "unavailable" ? "switched off" : "switched on";
    list(availability[key]).forEach((sku, k) => {
      if (typeof sku !== "string") return;
      const at = ["availability", key, k];
      const kind = known(sku);
      if (kind === undefined)
        r.at(
          at,
          `unknown SKU ${quote(sku)}: catalog ${bare(catalog.name)} has no item or option with this SKU`,
        );
      else if (kind === "modifier group" || kind === "category")
        r.at(at, `${quote(sku)} is ${an(kind)}: only items and options can be ${verb}`);
      else if (excluded.has(sku))
        r.at(
          at,
          `${quote(sku)} is excluded from this store (overrides.exclude), so it cannot be ${verb} here`,
        );
      else if (key === "available" && off.has(sku))
        r.at(at, `${quote(sku)} is listed as both unavailable and available: keep it in one list`);
    });
  }
}

/** A group file's name: its `name`, or the file name without extension. */
export function groupName(parsed: YamlFile): string {
  const data = isRecord(parsed.data) ? parsed.data : {};
  return typeof data.name === "string" ? data.name : defaultCatalogName(parsed.file);
}

/**
 * Checks that group names are unique.
 *
 * @returns the group files by name (the first of each name).
 */
export function checkGroupNames(
  groups: readonly YamlFile[],
  problems: ConfigProblem[],
): Map<string, YamlFile> {
  const byName = new Map<string, YamlFile>();
  for (const parsed of groups) {
    const name = groupName(parsed);
    const first = byName.get(name);
    if (!first) {
      byName.set(name, parsed);
      continue;
    }
    const r = new Reporter(parsed, problems);
    const message =
      `duplicate group name ${quote(name)}: ${first.file} already has it; ` +
      `give one of them a different name: (the default name is the file name)`;
    if (isRecord(parsed.data) && typeof parsed.data.name === "string") r.at(["name"], message);
    else r.file(message);
  }
  return byName;
}

/** Checks that the group a store names exists. */
export function checkStoreGroup(
  parsed: YamlFile,
  groups: ReadonlyMap<string, unknown>,
  problems: ConfigProblem[],
): void {
  const data = isRecord(parsed.data) ? parsed.data : {};
  if (typeof data.group !== "string" || groups.has(data.group)) return;
  const known = [...groups.keys()];
  new Reporter(parsed, problems).at(
    ["group"],
    known.length === 0
      ? `unknown group ${quote(data.group)}: no group files were found (see groups: in carte.yaml)`
      : `unknown group ${quote(data.group)} (known: ${known.map((k) => bare(k)).join(", ")})`,
  );
}
