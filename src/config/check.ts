/**
 * Semantic rules of the configuration: what JSON Schema cannot say (references between SKUs, unique
 * names across files, prices as written in the project's currency, relations between items and
 * modifier groups, their cycles and nesting depth, option prices inside an item or option, schedules of
 * categories and items, groups). Store settings (hours, holidays, webhooks…) are checked in
 * settings.ts; catalog overrides and availability of every layer in overrides.ts. The checks run on
 * every file, including files the schema rejected, so that the user sees every problem at once; they
 * therefore read the data defensively and only judge values that have the right shape (a wrong shape is
 * the schema's problem to report).
 */

import { didYouMean, suggester } from "../suggest.js";
import { basename, extname } from "node:path";
import type { ConfigProblem } from "../errors.js";
import { bare, isRecord, list, quote, Reporter, where } from "../source/problems.js";
import type { Site } from "../source/problems.js";
import { checkSchedules } from "../time/written-slots.js";
import { type Currency, hasAtMostTwoDecimals, priceTextProblem } from "../money.js";
import { Limits } from "../platform/wire.js";
import { scalarSource, toPointer } from "../source/yaml.js";
import { readBounds, type OfferWindow } from "./windows.js";
import type { YamlFile } from "../source/yaml.js";

export type { Site } from "../source/problems.js";

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
  /** Modifier groups: their option SKUs (inline and referenced), their `min` and `max`. */
  groups: Map<string, { options: string[]; min: number; max: number }>;
  /** Items and options written in full: the modifier groups they offer (nested for options). */
  parents: Map<string, string[]>;
  /** The offer windows (`available:`) of its items, categories and menus (src/config/windows.ts). */
  windows: OfferWindow[];
  /**
   * Its prices above zero, which a store's price rules apply to (src/config/ruled-prices.ts): of items
   * and options written in full, and of options inside a parent (`option_prices`), each with where it
   * is written.
   */
  prices: CatalogPrice[];
}

/**
 * What a SKU names in a catalog: an item, an option or a modifier group (its `skus`), a category, or
 * `undefined` when the catalog has none of that SKU.
 */
export function entryKind(catalog: CatalogIndex, sku: string): SkuKind | "category" | undefined {
  return catalog.skus.get(sku)?.kind ?? (catalog.categories.has(sku) ? "category" : undefined);
}

/** A price the catalog writes: of an item or an option, or of an option inside a parent. */
export interface CatalogPrice {
  sku: string;
  /** The item or option whose `option_prices` writes it; absent for the SKU's own price. */
  parent?: string;
  price: number;
  site: Site;
}

/**
 * Checks a price as the file writes it. With a currency (carte.yaml `currency:`), the text of the value
 * (`24.900`, not the number 24.9) must have at most the currency's decimals (src/money.ts); without one,
 * the value at most 2 decimals.
 */
export function checkPrice(
  r: Reporter,
  segments: (string | number)[],
  price: unknown,
  currency?: Currency,
): void {
  if (typeof price !== "number" || !Number.isFinite(price)) return; // the schema reports it
  if (currency) {
    const text = scalarSource(r.parsed, toPointer(segments)) ?? String(price);
    const why = priceTextProblem(text, currency);
    if (why) r.at(segments, why);
    return;
  }
  if (!hasAtMostTwoDecimals(price)) {
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
 * The catalog checks made without a problem, by the parsed value checked, then by the currency and the
 * name the file's path would give (the two other things a check depends on): the loads of one run that
 * share parsed values (a scoped plan's head and base, src/config/load.ts `LoadOptions.parsed`) check a
 * catalog of the same bytes once. Only a value no loader changes is ever a key.
 */
const checkedCatalogs = new WeakMap<object, Map<string, CatalogIndex>>();

/**
 * {@link checkCatalog}, once per parsed value shared between loads: a value checked before without a
 * problem gives the index found then, every site in it placed in `parsed` (the same bytes, perhaps
 * under another path: the problems the stores' checks locate there name this file). A check made
 * while `problems` held some, or that found some, is never kept: each load reports its own.
 */
export function checkSharedCatalog(
  parsed: YamlFile,
  problems: ConfigProblem[],
  currency?: Currency,
): CatalogIndex {
  const data = parsed.data;
  if (data === null || typeof data !== "object") return checkCatalog(parsed, problems, currency);
  const key = `${currency?.code ?? ""}\0${defaultCatalogName(parsed.file)}`;
  const known = checkedCatalogs.get(data)?.get(key);
  if (known) return placedIn(known, parsed);
  // Kept only when the list was empty and stays so: then the check found nothing (none was merged
  // into an equal one, none left out of a full list).
  const clean = problems.length === 0;
  const index = checkCatalog(parsed, problems, currency);
  if (clean && problems.length === 0) {
    let byKey = checkedCatalogs.get(data);
    if (!byKey) checkedCatalogs.set(data, (byKey = new Map()));
    byKey.set(key, index);
  }
  return index;
}

/** A catalog's index with every site in `parsed` (the same value, perhaps shown under another path). */
function placedIn(index: CatalogIndex, parsed: YamlFile): CatalogIndex {
  if (index.site.parsed === parsed) return index;
  const at = (site: Site): Site => ({ parsed, pointer: site.pointer });
  const skus = new Map<string, { kind: SkuKind; site: Site }>();
  for (const [sku, d] of index.skus) skus.set(sku, { kind: d.kind, site: at(d.site) });
  return {
    ...index,
    site: at(index.site),
    skus,
    prices: index.prices.map((p) => ({ ...p, site: at(p.site) })),
    windows: index.windows.map((w) => ({
      ...w,
      ...(w.start ? { start: { ...w.start, site: at(w.start.site) } } : {}),
      ...(w.end ? { end: { ...w.end, site: at(w.end.site) } } : {}),
    })),
  };
}

/**
 * Checks one catalog file.
 *
 * @param parsed - the parsed catalog (possibly rejected by the schema).
 * @param problems - receives the located problems.
 * @returns what the catalog defines, for checking the stores.
 */
export function checkCatalog(parsed: YamlFile, problems: ConfigProblem[], currency?: Currency): CatalogIndex {
  const r = new Reporter(parsed, problems);
  const data = isRecord(parsed.data) ? parsed.data : {};
  const name = typeof data.name === "string" ? data.name : defaultCatalogName(parsed.file);
  const index: CatalogIndex = {
    name,
    site: { parsed, pointer: typeof data.name === "string" ? "/name" : "" },
    skus: new Map(),
    categories: new Set(),
    groups: new Map(),
    parents: new Map(),
    windows: [],
    prices: [],
  };
  /** The SKUs of one kind (what "did you mean" compares a misspelled SKU with), listed once. */
  const byKind = new Map<SkuKind, string[]>();
  const kindsOf = (kind: SkuKind): string[] => {
    let skus = byKind.get(kind);
    if (!skus)
      byKind.set(kind, (skus = [...index.skus].flatMap(([sku, d]) => (d.kind === kind ? [sku] : []))));
    return skus;
  };
  const ctx: CatalogCheck = { r, parsed, problems, currency, index, kindsOf, didYouMean: suggester() };

  // 1. Definitions: items, modifier groups, inline options.
  const items = list(data.items);
  const groups = list(data.modifier_groups);
  items.forEach((item, i) => {
    if (isRecord(item)) defineSku(ctx, item.sku, "item", ["items", i, "sku"]);
  });
  groups.forEach((group, g) => {
    if (isRecord(group)) defineSku(ctx, group.sku, "modifier group", ["modifier_groups", g, "sku"]);
  });
  groups.forEach((group, g) => {
    if (!isRecord(group)) return;
    list(group.options).forEach((option, o) => {
      if (isRecord(option)) defineSku(ctx, option.sku, "option", ["modifier_groups", g, "options", o, "sku"]);
    });
  });

  // 2. Items: prices and their modifier groups.
  items.forEach((item, i) => {
    if (!isRecord(item)) return;
    checkPrice(r, ["items", i, "price"], item.price, currency);
    addPrice(ctx, item.sku, undefined, item.price, ["items", i, "price"]);
    checkGroupsOf(ctx, "item", item.sku, item.modifier_groups, ["items", i, "modifier_groups"]);
  });

  // 3. Modifier groups: options, min and max.
  const { optionDefs, groupRefs } = checkModifierGroups(ctx, groups);
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

  // 3a. Options written in full: the modifier groups they offer (nested modifiers).
  for (const [sku, def] of optionDefs)
    checkGroupsOf(ctx, "option", sku, def.data.modifier_groups, [...def.at, "modifier_groups"]);

  // 3b. Items: schedules; items and options: prices of options inside them.
  items.forEach((item, i) => {
    if (!isRecord(item)) return;
    const name = typeof item.sku === "string" ? item.sku : `#${i + 1}`;
    checkSchedules(parsed, ["items", i, "schedules"], item.schedules, `item ${bare(name)}`, problems);
    checkOptionPrices(ctx, "item", name, item, ["items", i]);
  });
  for (const [sku, def] of optionDefs) checkOptionPrices(ctx, "option", sku, def.data, def.at);

  // 3c. Nesting: no option may lead back to a group that offers it; at most MAX_DEPTH levels of groups.
  checkNesting(r, items, index, optionDefs);

  checkCategories(ctx, list(data.categories));
  checkMenus(ctx, list(data.menus));
  readBoundss(ctx, data);
  return index;
}

/** 4. Offer windows (`available: {from, until}`) of items, categories and menus, into the index. */
function readBoundss(ctx: CatalogCheck, data: Record<string, unknown>): void {
  const sections = [
    ["items", "item", "sku"],
    ["categories", "category", "sku"],
    ["menus", "menu", "type"],
  ] as const;
  for (const [section, what, id] of sections)
    list(data[section]).forEach((entry, i) => {
      if (!isRecord(entry) || typeof entry[id] !== "string") return;
      const bounds = readBounds(ctx.parsed, ctx.problems, [section, i, "available"], entry.available);
      if (bounds) ctx.index.windows.push({ what, key: entry[id], ...bounds });
    });
}

/** What the steps of {@link checkCatalog} share: the file, where problems go, and what it defines. */
interface CatalogCheck {
  r: Reporter;
  parsed: YamlFile;
  problems: ConfigProblem[];
  currency: Currency | undefined;
  index: CatalogIndex;
  /** The SKUs of one kind defined so far (for "did you mean"). */
  kindsOf: (kind: SkuKind) => string[];
  didYouMean: ReturnType<typeof suggester>;
}

/** Options written in full in a group, by SKU (the first writing of each), with where. */
type OptionDefs = Map<string, { data: Record<string, unknown>; at: (string | number)[] }>;
/** A group listed among the options of a group. */
interface GroupRef {
  from: string;
  to: string;
  at: (string | number)[];
}

/** Records a SKU's definition; a SKU defined twice in the catalog is a problem at the second. */
function defineSku(ctx: CatalogCheck, sku: unknown, kind: SkuKind, segments: (string | number)[]): void {
  const { r, parsed, index } = ctx;
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
}

/** Checks the `modifier_groups` of an item or of an option written in full, and records them. */
function checkGroupsOf(
  ctx: CatalogCheck,
  owner: "item" | "option",
  sku: unknown,
  refs: unknown,
  at: (string | number)[],
): void {
  const { r, index, kindsOf, didYouMean } = ctx;
  const seen = new Set<string>();
  list(refs).forEach((ref, k) => {
    if (typeof ref !== "string") return;
    const here = [...at, k];
    const def = index.skus.get(ref);
    if (!def)
      r.at(
        here,
        `unknown modifier group ${quote(ref)}${didYouMean(ref, kindsOf("modifier group"), quote)}: define it under modifier_groups, or remove it here`,
      );
    else if (def.kind !== "modifier group")
      r.at(
        here,
        `${quote(ref)} is ${a(def.kind)}, not a modifier group: an ${owner}'s modifier_groups lists groups only`,
      );
    else if (seen.has(ref)) r.at(here, `modifier group ${quote(ref)} is listed twice for this ${owner}`);
    seen.add(ref);
  });
  if (typeof sku === "string" && !index.parents.has(sku))
    index.parents.set(
      sku,
      [...seen].filter((g) => index.skus.get(g)?.kind === "modifier group"),
    );
}

/**
 * Checks the modifier groups (their options, min and max) and records them in the index. Returns the
 * options written in full, and the groups listed as options (always a problem, reported by the caller).
 */
function checkModifierGroups(
  ctx: CatalogCheck,
  groups: unknown[],
): { optionDefs: OptionDefs; groupRefs: GroupRef[] } {
  const { r, currency, index, kindsOf, didYouMean } = ctx;
  const optionDefs: OptionDefs = new Map();
  const groupRefs: GroupRef[] = [];
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
            `unknown option ${quote(option)}${didYouMean(option, kindsOf("option"), quote)}: write it in full ({sku, title, price}) here or in another group of this catalog`,
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
        checkPrice(r, [...at, "price"], option.price, currency);
        if (typeof option.sku === "string" && !optionDefs.has(option.sku)) {
          optionDefs.set(option.sku, { data: option, at });
          addPrice(ctx, option.sku, undefined, option.price, [...at, "price"]);
        }
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
      index.groups.set(group.sku, {
        options,
        min: typeof min === "number" ? min : 0,
        max: typeof max === "number" ? max : options.length,
      });
    }
  });
  return { optionDefs, groupRefs };
}

/** Checks the `option_prices` of an item or of an option written in full. */
function checkOptionPrices(
  ctx: CatalogCheck,
  owner: "item" | "option",
  name: string,
  data: Record<string, unknown>,
  at: (string | number)[],
): void {
  const { r, currency, index, kindsOf, didYouMean } = ctx;
  if (!isRecord(data.option_prices)) return;
  // The options under this item or option at any depth: a price may be set for any of them here.
  const offered = new Set<string>();
  let level = list(data.modifier_groups).flatMap((g) =>
    typeof g === "string" ? (index.groups.get(g)?.options ?? []) : [],
  );
  while (level.length > 0) {
    const next = level.filter((s) => !offered.has(s));
    for (const s of next) offered.add(s);
    level = next
      .flatMap((s) => index.parents.get(s) ?? [])
      .flatMap((g) => index.groups.get(g)?.options ?? []);
  }
  for (const [sku, price] of Object.entries(data.option_prices)) {
    const here = [...at, "option_prices", sku];
    const def = index.skus.get(sku);
    if (!def)
      r.at(
        here,
        `unknown option ${quote(sku)}${didYouMean(sku, kindsOf("option"), quote)}: option_prices lists options of this ${owner}'s modifier groups`,
        "key",
      );
    else if (def.kind !== "option")
      r.at(
        here,
        `${quote(sku)} is ${a(def.kind)}, not an option: option_prices lists options of this ${owner}'s modifier groups`,
        "key",
      );
    else if (!offered.has(sku))
      r.at(
        here,
        `option ${quote(sku)} is not offered under ${bare(name)} (by its modifier groups, or those of the options below it): add its group to the ${owner}'s modifier_groups, or remove it here`,
        "key",
      );
    checkPrice(r, here, price, currency);
    addPrice(ctx, sku, name, price, here);
  }
}

/** Records a price above zero in the index, for the checks of the price rules that apply to it. */
function addPrice(
  ctx: CatalogCheck,
  sku: unknown,
  parent: string | undefined,
  price: unknown,
  at: (string | number)[],
): void {
  if (typeof sku !== "string" || typeof price !== "number" || !Number.isFinite(price) || price <= 0) return;
  ctx.index.prices.push({
    sku,
    ...(parent !== undefined ? { parent } : {}),
    price,
    site: { parsed: ctx.parsed, pointer: toPointer(at) },
  });
}

/** Checks the categories: unique SKUs, schedules, and items that exist, each listed once. */
function checkCategories(ctx: CatalogCheck, categories: unknown[]): void {
  const { r, parsed, problems, index, kindsOf, didYouMean } = ctx;
  const categoryFirst = new Map<string, Site>();
  categories.forEach((category, c) => {
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
          `unknown item ${quote(ref)}${didYouMean(ref, kindsOf("item"), quote)} in category ${bare(title)}: add it under items:, or remove it from the category`,
        );
      else if (def.kind !== "item") r.at(at, `${quote(ref)} is ${a(def.kind)}, categories hold only items`);
      else if (seen.has(ref)) r.at(at, `item ${quote(ref)} is listed twice in category ${bare(title)}`);
      seen.add(ref);
    });
  });
}

/** Checks the menus: unique types, and categories that exist, each listed once. */
function checkMenus(ctx: CatalogCheck, menus: unknown[]): void {
  const { r, parsed, index, didYouMean } = ctx;
  const menuFirst = new Map<string, Site>();
  menus.forEach((menu, m) => {
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
            : `unknown category ${quote(sku)}${didYouMean(sku, index.categories, quote)}: define it under categories, or remove it from the menu`,
        );
      } else if (seen.has(sku)) r.at(at, `category ${quote(sku)} is listed twice in this menu`);
      seen.add(sku);
    });
  });
}

/**
 * Most levels of modifier groups under an item (docs/platform-api.md §4.11: the platform publishes none;
 * carte's reading is assumption 15 of that page).
 */
export const MAX_MODIFIER_DEPTH = Limits.modifierGroupDepth;

/** The most SKUs a message names along a circle of groups; a longer one shows its two ends. */
const CHAIN_SHOWN = 12;

/**
 * The `length` SKUs of a chain (`at(k)` the k-th) joined by arrows for a message, each escaped
 * ({@link bare}); a long chain shows its two ends, so that the message stays short.
 */
function chainText(length: number, at: (k: number) => string): string {
  const keys =
    length <= CHAIN_SHOWN
      ? [...Array(length).keys()]
      : [
          ...[...Array(CHAIN_SHOWN / 2).keys()],
          -1,
          ...[...Array(CHAIN_SHOWN / 2).keys()].map((k) => length - CHAIN_SHOWN / 2 + k),
        ];
  return keys.map((k) => (k < 0 ? `… ${length - CHAIN_SHOWN} more …` : bare(at(k)))).join(" → ");
}

/**
 * Reports nested modifier groups that go round in a circle (a group's option offers a group that leads
 * back to the first) and items whose groups nest deeper than {@link MAX_MODIFIER_DEPTH} levels: the
 * platform refuses both (`invalid_item_depth`). Each is reported once, at the option's `modifier_groups`
 * entry that closes the circle or goes one level too deep.
 */
function checkNesting(
  r: Reporter,
  items: unknown[],
  index: CatalogIndex,
  optionDefs: ReadonlyMap<string, { at: (string | number)[] }>,
): void {
  const groupsOf = (sku: string): string[] => index.parents.get(sku) ?? [];
  const optionsOf = (group: string): string[] => index.groups.get(group)?.options ?? [];
  const entryOf = (option: string, group: string): (string | number)[] | undefined => {
    const def = optionDefs.get(option);
    const k = groupsOf(option).indexOf(group);
    if (!def || k < 0) return undefined;
    return [...def.at, "modifier_groups", k];
  };
  const reported = new Set<string>();
  const once = (at: (string | number)[] | undefined, message: string) => {
    if (!at) return;
    const key = at.join("/");
    if (reported.has(key)) return;
    reported.add(key);
    r.at(at, message);
  };

  // The edges group → option → group, in the order written.
  const edgesOf = (group: string): { option: string; next: string }[] =>
    optionsOf(group).flatMap((option) => groupsOf(option).map((next) => ({ option, next })));

  // Cycles: depth-first over group → option → group, from every group. Iterative, with an explicit
  // stack: a hostile catalog may chain thousands of groups, deeper than the call stack goes.
  const state = new Map<string, "visiting" | "done">();
  const path: string[] = [];
  const onPath = new Map<string, number>();
  const visit = (root: string): void => {
    const frames: { group: string; edges: { option: string; next: string }[]; i: number }[] = [];
    const enter = (group: string) => {
      state.set(group, "visiting");
      onPath.set(group, path.length);
      path.push(group);
      frames.push({ group, edges: edgesOf(group), i: 0 });
    };
    enter(root);
    while (frames.length > 0) {
      const frame = frames.at(-1)!;
      const edge = frame.edges[frame.i++];
      if (!edge) {
        frames.pop();
        path.pop();
        onPath.delete(frame.group);
        state.set(frame.group, "done");
        continue;
      }
      const { option, next } = edge;
      if (state.get(next) === "visiting") {
        // The circle group, option, group… back to `next`; only the SKUs a message shows are looked up.
        const from = onPath.get(next)!;
        const length = 2 * (path.length - from) + 1;
        const at = (k: number): string => {
          if (k === length - 1) return next;
          const g = path[from + Math.floor(k / 2)]!;
          if (k % 2 === 0) return g;
          const i = from + (k - 1) / 2 + 1;
          return i < path.length ? viaOption(path[i]!, g) : option;
        };
        once(
          entryOf(option, next),
          `modifier groups nest in a circle: ${chainText(length, at)}; an option cannot offer a group that leads back to it`,
        );
      } else if (!state.has(next)) enter(next);
    }
  };
  const viaOption = (to: string, from: string): string =>
    optionsOf(from).find((o) => groupsOf(o).includes(to)) ?? "?";
  for (const group of index.groups.keys()) if (!state.has(group)) visit(group);

  // Depth: the levels of groups at and below each group (memoized, a circle cut where it closes), then
  // from every item whose groups go too deep, one path down to the entry one level too deep. Iterative
  // like the cycles.
  const heightOf = groupHeights(edgesOf);
  for (const item of items) {
    if (!isRecord(item) || typeof item.sku !== "string") continue;
    for (const top of groupsOf(item.sku)) {
      if (heightOf(top) <= MAX_MODIFIER_DEPTH) continue;
      const trail: string[] = [item.sku];
      let group = top;
      for (let level = 1; level <= MAX_MODIFIER_DEPTH; level++) {
        // An option of this group whose group reaches deepest.
        let best: { option: string; next: string } | undefined;
        for (const option of optionsOf(group))
          for (const next of groupsOf(option))
            if (!best || heightOf(next) > heightOf(best.next)) best = { option, next };
        if (!best) break;
        trail.push(group, best.option);
        if (level === MAX_MODIFIER_DEPTH) {
          once(
            entryOf(best.option, best.next),
            `modifier group ${quote(best.next)} nests ${level + 1} levels deep under item ${bare(item.sku)} ` +
              `(${[...trail, best.next].map((s) => bare(s)).join(" → ")}); the platform accepts at most ${MAX_MODIFIER_DEPTH} levels of modifier groups`,
          );
        }
        group = best.next;
      }
    }
  }
}

/**
 * The levels of modifier groups at and below each group, memoized: one level for the group, plus the
 * deepest of the groups its options offer. A circle is cut where it closes (the group still open below
 * counts 0). Iterative, with an explicit stack, like the search for circles.
 */
function groupHeights(
  edgesOf: (group: string) => { option: string; next: string }[],
): (group: string) => number {
  const height = new Map<string, number>();
  const open = new Set<string>();
  return (root: string): number => {
    const known = height.get(root);
    if (known !== undefined) return known;
    if (open.has(root)) return 0;
    const frames: { group: string; edges: { option: string; next: string }[]; i: number }[] = [];
    const enter = (group: string) => {
      open.add(group);
      frames.push({ group, edges: edgesOf(group), i: 0 });
    };
    enter(root);
    while (frames.length > 0) {
      const frame = frames.at(-1)!;
      const edge = frame.edges[frame.i++];
      if (edge) {
        if (!height.has(edge.next) && !open.has(edge.next)) enter(edge.next);
        continue;
      }
      // A group still open below is a circle, cut where it closes: it counts 0.
      const below = frame.edges.reduce((m, e) => Math.max(m, height.get(e.next) ?? 0), 0);
      frames.pop();
      open.delete(frame.group);
      height.set(frame.group, below + 1);
    }
    return height.get(root)!;
  };
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
 * Checks one store file's identity against the stores seen before it, and that its catalog exists.
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
        : `unknown catalog ${quote(data.catalog)}${didYouMean(data.catalog, known, quote)} (known: ${known.map((k) => bare(k)).join(", ")})`,
    );
    return;
  }
  // The SKUs the store names (overrides, availability) are checked with those of the layers it
  // inherits, once they are merged: src/config/overrides.ts.
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
      : `unknown group ${quote(data.group)}${didYouMean(data.group, known, quote)} (known: ${known.map((k) => bare(k)).join(", ")})`,
  );
}
