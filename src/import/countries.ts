/**
 * `carte import` of a project of several platforms (carte.yaml `platforms:`, one per country): the
 * stores of every platform written as ONE project (docs/import.md, "Across countries").
 *
 * - One catalog for every country: the stores of all platforms are factored together
 *   (src/import/factor.ts), so that an item is the same SKU wherever it is sold; only its structure
 *   decides which stores share a catalog, as for one country.
 * - Prices per currency: when the project has more than one currency, every catalog price is written
 *   `{COP: 24900, BRL: 29.90}`, each amount the one most of that currency's stores have; a store's
 *   `overrides.prices` are in its platform's currency.
 * - Titles per language: the catalog's titles and descriptions are those of the stores of the first
 *   platform's language (or of the platforms without `language:`); another language's, where they
 *   differ, are written under `translations: {pt: {title, description}}`.
 * - Groups per country and region: each platform's stores are grouped among themselves
 *   (src/import/groups.ts); a group names its platform in `defaults: platform:`, and a store in no
 *   group names it in its own file (`platform:`).
 *
 * The files are verified as for one country, loaded once per platform exactly as `carte plan` loads
 * them for it (src/import/round-trip.ts).
 */

import type { CatalogFile, GroupFile, ProjectFile, StoreFile } from "../generated/config.js";
import type { StoreState } from "../model.js";
import type { Currency } from "../money.js";
import { categoriesOf, itemsOf } from "../kinds/catalog.js";
import type { ImportPart } from "../kinds/import-types.js";
import { byCodePoint, mostCommon } from "../kinds/import-values.js";
import { factorStores, storeFileFor, type ImportedCatalog, type ImportedStore } from "./factor.js";
import { factorGroups, type ImportedGroup } from "./groups.js";
import { importParts } from "./parts.js";
import { catalogInOrder, catalogRank, sectionsInCatalogOrder } from "./order.js";
import { catalogText, groupText, projectText, storeText } from "./render.js";
import type { ImportResult } from "./result.js";
import { verifyFiles, type ImportFile } from "./round-trip.js";
import { sanitizeStates, type ImportNote } from "./sanitize.js";

/** The stores of one platform of carte.yaml `platforms:`, as read from it. */
export interface CountryStores {
  /** The platform's name in carte.yaml (`co`). */
  name: string;
  /** Its currency: the one its stores' prices are in. */
  currency: Currency;
  /** Its language (`pt`), absent: the titles as written. */
  language?: string | undefined;
  /** Its stores' live states (keys unique across every platform of the import). */
  states: readonly StoreState[];
}

/** A plain object of a catalog file, as the import rewrites it. */
type Entry = Record<string, unknown>;

/** A platform of the project: its currency and language, whether or not stores of it are imported. */
export type ProjectCountry = Pick<CountryStores, "currency" | "language">;

/** The language whose titles a catalog writes as its own: none (as written) when a platform names none. */
function primaryLanguage(countries: readonly ProjectCountry[]): string | undefined {
  return countries.some((c) => c.language === undefined) ? undefined : countries[0]?.language;
}

/**
 * The stores of a catalog split by a property of their platform (its currency, its language), in the
 * order of `order` (the project's platforms'), so that a price map and the translations are written
 * in the order carte.yaml names the platforms.
 */
function split(
  members: readonly StoreState[],
  platformOf: ReadonlyMap<string, CountryStores>,
  by: (c: ProjectCountry) => string | undefined,
  order: readonly ProjectCountry[],
): Map<string | undefined, StoreState[]> {
  const out = new Map<string | undefined, StoreState[]>(order.map((c) => [by(c), []]));
  for (const s of members) out.get(by(platformOf.get(s.store.key)!))?.push(s);
  for (const [key, stores] of out) if (stores.length === 0) out.delete(key);
  return out;
}

/** The value most of the stores have (ties: the first by key), `undefined` when none has one. */
function common<T>(stores: readonly StoreState[], pick: (s: StoreState) => T | undefined): T | undefined {
  const seen = stores.flatMap((s) => {
    const v = pick(s);
    return v === undefined ? [] : [v];
  });
  return seen.length > 0 ? mostCommon(seen) : undefined;
}

/** How one catalog of the import is written across countries. */
interface CrossContext {
  /** The stores of each currency, by currency code (only when the project has more than one). */
  currencies?: Map<string | undefined, StoreState[]>;
  /** The stores of each language: `undefined` the catalog's own titles, else a translation's. */
  languages: Map<string | undefined, StoreState[]>;
}

/** The title and description of a SKU (an item's, a group's, an option's or a category's) in a store. */
type Texts = (s: StoreState) => { title: string; description: string } | undefined;

const itemTexts =
  (sku: string): Texts =>
  (s) => {
    const r = Object.hasOwn(itemsOf(s), sku) ? itemsOf(s)[sku] : undefined;
    return r && { title: r.title, description: r.description };
  };

const categoryTexts =
  (sku: string): Texts =>
  (s) => {
    const c = Object.hasOwn(categoriesOf(s), sku) ? categoriesOf(s)[sku] : undefined;
    return c && { title: c.title, description: "" };
  };

/**
 * An entry's title and description in the catalog's language, followed by `translations:` of the other
 * languages where they differ; the entry's other keys after them, in their order.
 */
function withTexts(entry: Entry, texts: Texts, ctx: CrossContext, describes: boolean): Entry {
  const own = ctx.languages.get(undefined) ?? [];
  const title = common(own, (s) => texts(s)?.title) ?? (entry.title as string);
  const description = describes
    ? (common(own, (s) => texts(s)?.description) ?? (entry.description as string | undefined) ?? "")
    : "";
  const translations: Entry = {};
  for (const [language, stores] of [...ctx.languages].filter(([l]) => l !== undefined)) {
    const t = common(stores, (s) => texts(s)?.title);
    const d = describes ? common(stores, (s) => texts(s)?.description) : undefined;
    const given: Entry = {
      ...(t !== undefined && t !== title ? { title: t } : {}),
      // An empty description is a store override: a translation gives a text, never takes one away.
      ...(d !== undefined && d !== "" && d !== description ? { description: d } : {}),
    };
    if (Object.keys(given).length > 0) translations[language!] = given;
  }
  const { title: _t, description: _d, translations: _x, sku, ...rest } = entry;
  return {
    sku,
    title,
    ...(description !== "" ? { description } : {}),
    ...(Object.keys(translations).length > 0 ? { translations } : {}),
    ...rest,
  };
}

/** An item's or option's price per currency, and its options' prices inside it per currency. */
function withPrices(entry: Entry, ctx: CrossContext): Entry {
  if (!ctx.currencies) return entry;
  const sku = entry.sku as string;
  const out: Entry = { ...entry };
  const price: Entry = {};
  for (const [code, stores] of ctx.currencies) {
    const p = common(stores, (s) =>
      Object.hasOwn(itemsOf(s), sku) ? (itemsOf(s)[sku]!.price ?? undefined) : undefined,
    );
    if (p !== undefined) price[code!] = p;
  }
  if (Object.keys(price).length > 0) out.price = price;
  const written = entry.option_prices as Record<string, unknown> | undefined;
  if (written) {
    const optionPrices: Entry = {};
    for (const option of Object.keys(written)) {
      const each: Entry = {};
      for (const [code, stores] of ctx.currencies) {
        const p = common(stores, (s) => {
          const r = Object.hasOwn(itemsOf(s), option) ? itemsOf(s)[option] : undefined;
          return r?.priceInParent && Object.hasOwn(r.priceInParent, sku) ? r.priceInParent[sku] : undefined;
        });
        if (p !== undefined) each[code!] = p;
      }
      if (Object.keys(each).length > 0) optionPrices[option] = each;
    }
    out.option_prices = optionPrices;
  }
  return out;
}

/** A catalog written for every country: prices per currency, titles per language. */
function crossCatalog(catalog: CatalogFile, ctx: CrossContext): CatalogFile {
  const c = structuredClone(catalog) as unknown as Entry;
  const sellable = (e: Entry) => withPrices(withTexts(e, itemTexts(e.sku as string), ctx, true), ctx);
  if (Array.isArray(c.items)) c.items = (c.items as Entry[]).map(sellable);
  if (Array.isArray(c.modifier_groups)) {
    c.modifier_groups = (c.modifier_groups as Entry[]).map((g) => {
      const group = withTexts(g, itemTexts(g.sku as string), ctx, false);
      const options = (group.options as (string | Entry)[]).map((o) =>
        typeof o === "string" ? o : sellable(o),
      );
      return { ...group, options };
    });
  }
  if (Array.isArray(c.categories))
    c.categories = (c.categories as Entry[]).map((k) =>
      withTexts(k, categoryTexts(k.sku as string), ctx, false),
    );
  return c as unknown as CatalogFile;
}

/** An amount of a price as one currency reads it: a bare number, or its currency's in a price map. */
function amountIn(price: unknown, code: string): unknown {
  if (price === null || typeof price !== "object") return price;
  return Object.hasOwn(price, code) ? (price as Entry)[code] : undefined;
}

/** An entry as the stores of one currency and language read it (`price` and `translations` resolved). */
function viewEntry(entry: Entry, code: string, language: string | undefined): Entry {
  const { translations, ...out } = entry;
  const mine = language !== undefined && translations && Object.hasOwn(translations, language);
  if (mine) Object.assign(out, (translations as Record<string, Entry>)[language]);
  if (Object.hasOwn(out, "price")) {
    const amount = amountIn(out.price, code);
    if (amount === undefined) delete out.price;
    else out.price = amount;
  }
  if (out.option_prices && typeof out.option_prices === "object") {
    const prices: Entry = {};
    for (const [option, price] of Object.entries(out.option_prices as Entry)) {
      const amount = amountIn(price, code);
      if (amount !== undefined) prices[option] = amount;
    }
    out.option_prices = prices;
  }
  if (Array.isArray(out.options))
    out.options = (out.options as (string | Entry)[]).map((o) =>
      typeof o === "string" ? o : viewEntry(o, code, language),
    );
  return out;
}

/**
 * The catalog as the stores of one platform read it, as a load scoped to that platform resolves it:
 * each price in its currency, titles and descriptions in its language.
 */
export function catalogFor(catalog: CatalogFile, code: string, language: string | undefined): CatalogFile {
  const c = { ...(catalog as unknown as Entry) };
  for (const key of ["items", "modifier_groups", "categories"])
    if (Array.isArray(c[key])) c[key] = (c[key] as Entry[]).map((e) => viewEntry(e, code, language));
  return c as unknown as CatalogFile;
}

/**
 * Whether a catalog lacks an amount in `code` that a store selling `sells` would need: a price of an
 * item or option it sells, or the price of an option it sells inside a parent it sells. Such a store
 * cannot use the catalog (the loader refuses a price a store's currency does not have).
 */
export function lacksAmounts(catalog: CatalogFile, code: string, sells: (sku: string) => boolean): boolean {
  const missing = (price: unknown) =>
    price !== null && typeof price === "object" && !Object.hasOwn(price, code);
  const lacks = (e: Entry): boolean => {
    if (!sells(e.sku as string)) return false;
    if (missing(e.price)) return true;
    const inParent = (e.option_prices ?? {}) as Entry;
    if (Object.entries(inParent).some(([option, price]) => sells(option) && missing(price))) return true;
    return (
      Array.isArray(e.options) &&
      (e.options as (string | Entry)[]).some((o) => typeof o !== "string" && lacks(o))
    );
  };
  const c = catalog as unknown as Entry;
  return [
    ...((c.items as Entry[] | undefined) ?? []),
    ...((c.modifier_groups as Entry[] | undefined) ?? []),
  ].some((e) =>
    e.options ? (e.options as (string | Entry)[]).some((o) => typeof o !== "string" && lacks(o)) : lacks(e),
  );
}

/** A store file naming its platform, right after its identity. */
export function withPlatform(file: StoreFile, platform: string): StoreFile {
  const { store, ...rest } = file;
  return { store, platform, ...rest } as unknown as StoreFile;
}

/** A group name made of no name at all: the placeholder integration ids' `store`, or `group`. */
const NAMELESS_GROUP = /^(?:group|store)(?:-[0-9]+)?$/;

/**
 * Groups per platform: each group's `defaults: platform:`, and the platform in the file of a store in
 * none. A group whose stores' integration ids share no name is named after its platform (`co`, `co-2`).
 */
function groupsPerPlatform(
  stores: readonly ImportedStore[],
  countries: readonly CountryStores[],
  platformOf: ReadonlyMap<string, CountryStores>,
): { groups: (ImportedGroup & { platform: CountryStores })[]; stores: ImportedStore[] } {
  const used = new Set<string>();
  const groups: (ImportedGroup & { platform: CountryStores })[] = [];
  const out: ImportedStore[] = [];
  for (const country of countries) {
    const mine = stores.filter((s) => platformOf.get(s.state.store.key) === country);
    const found = factorGroups(mine, { taken: used });
    const given = new Set(found.groups.map((g) => g.name));
    const renamed = new Map<string, string>();
    for (const g of found.groups) {
      let name = g.name;
      if (NAMELESS_GROUP.test(name)) {
        name = country.name;
        for (let n = 2; used.has(name) || given.has(name); n++) name = `${country.name}-${n}`;
      }
      used.add(name);
      renamed.set(g.name, name);
      const { name: _n, defaults, ...rest } = g.file as unknown as Entry;
      const file = { name, ...rest, defaults: { platform: country.name, ...(defaults as Entry) } };
      groups.push({ ...g, name, file: file as unknown as GroupFile, platform: country });
    }
    for (const s of found.stores) {
      const group = s.file.group === undefined ? undefined : renamed.get(s.file.group);
      out.push({
        state: s.state,
        file: group === undefined ? withPlatform(s.file, country.name) : { ...s.file, group },
      });
    }
  }
  out.sort((a, b) => byCodePoint(a.state.store.key, b.state.store.key));
  return { groups, stores: out };
}

/** Sanitizes each platform's states in its currency; the notes of all, in order. */
export function sanitizeCountries(
  countries: readonly CountryStores[],
  parts: readonly ImportPart[],
): { states: StoreState[]; notes: ImportNote[]; platformOf: Map<string, CountryStores> } {
  const states: StoreState[] = [];
  const notes: ImportNote[] = [];
  const platformOf = new Map<string, CountryStores>();
  for (const country of countries) {
    const done = sanitizeStates(country.states, parts, { currency: country.currency });
    states.push(...done.states);
    notes.push(...done.notes);
    for (const s of done.states) platformOf.set(s.store.key, country);
  }
  notes.sort((a, b) => byCodePoint(a.address, b.address) || byCodePoint(a.reason, b.reason));
  return { states, notes, platformOf };
}

/** How a set of platforms writes its catalogs: the currencies of its prices and its languages. */
export interface CountriesWriting {
  /** Every currency of the project, by code, in carte.yaml's order. */
  currencies: Map<string, Currency>;
  /** The language of a platform's titles, `undefined` for the catalog's own (the first platform's). */
  languageOf: (c: ProjectCountry) => string | undefined;
}

/** How the catalogs of a project of the platforms `all` are written (carte.yaml's order). */
export function countriesWriting(all: readonly ProjectCountry[]): CountriesWriting {
  const primary = primaryLanguage(all);
  return {
    currencies: new Map(all.map((c) => [c.currency.code, c.currency])),
    languageOf: (c) => (c.language === primary ? undefined : c.language),
  };
}

/**
 * The stores of every platform factored into catalogs written for every country (prices per currency,
 * titles per language), and each store's file against its catalog as its platform reads it.
 *
 * @param taken - catalog names not to use (an existing project's, for `--merge`).
 */
export function factorCountries(
  states: readonly StoreState[],
  platformOf: ReadonlyMap<string, CountryStores>,
  all: readonly ProjectCountry[],
  parts: readonly ImportPart[] = importParts,
  taken: ReadonlySet<string> = new Set(),
): { catalogs: ImportedCatalog[]; stores: ImportedStore[] } {
  const factoring = factorStores(states, parts, taken);
  const { currencies, languageOf } = countriesWriting(all);
  const catalogs: ImportedCatalog[] = factoring.catalogs.map((c) => {
    // In key order, as the factoring takes them: a tie goes to the first store by integration id.
    const members = states
      .filter((s) => c.stores.includes(s.store.key))
      .sort((a, b) => byCodePoint(a.store.key, b.store.key));
    const ctx: CrossContext = {
      ...(currencies.size > 1 ? { currencies: split(members, platformOf, (p) => p.currency.code, all) } : {}),
      languages: split(members, platformOf, languageOf, all),
    };
    return { ...c, catalog: crossCatalog(c.catalog, ctx) };
  });
  const catalogNamed = new Map(catalogs.map((c) => [c.name, c.catalog]));
  const stores = factoring.stores.map((s): ImportedStore => {
    const country = platformOf.get(s.state.store.key)!;
    const view = catalogFor(catalogNamed.get(s.file.catalog)!, country.currency.code, languageOf(country));
    return { state: s.state, file: storeFileFor(s.state, view, s.file.catalog, parts) };
  });
  return { catalogs, stores };
}

/** The text of a catalog of a project of several platforms: prices per currency when it has several. */
export function countriesCatalogText(c: ImportedCatalog, writing: CountriesWriting): string {
  return writing.currencies.size > 1
    ? catalogText(c.catalog, c.stores, undefined, writing.currencies)
    : catalogText(c.catalog, c.stores, [...writing.currencies.values()][0]);
}

/**
 * The files of an import across countries (this module's comment), proved to load back exactly, once
 * per platform. Deterministic: the same states give the same texts.
 *
 * @param countries - the platforms read, in carte.yaml's order, each with its stores' live states.
 * @param project - the carte.yaml to write (with `platforms:` as the project read gives it).
 * @param all - every platform of the project in carte.yaml's order (default: those read): prices are
 *   written per currency when they have more than one currency, and titles in the first one's language.
 */
export async function buildCountriesImport(
  countries: readonly CountryStores[],
  project: ProjectFile,
  all: readonly ProjectCountry[] = countries,
  parts: readonly ImportPart[] = importParts,
): Promise<ImportResult> {
  const { states, notes, platformOf } = sanitizeCountries(countries, parts);
  const { catalogs, stores: files } = factorCountries(states, platformOf, all, parts);
  const writing = countriesWriting(all);
  const grouping = groupsPerPlatform(files, countries, platformOf);
  // Prices and exclusions in the catalog's order, as a person writes them (src/import/order.ts).
  const ranks = new Map(catalogs.map((c) => [c.name, catalogRank([c.catalog])]));
  const rankOf = (catalog: string | undefined) => ranks.get(catalog ?? "") ?? catalogRank([]);
  const catalogOfStore = new Map(grouping.stores.map((s) => [s.state.store.key, s.file.catalog]));
  const written: ImportFile[] = [
    {
      path: "carte.yaml",
      text: projectText({ ...project, ...(grouping.groups.length > 0 ? { groups: "groups/*.yaml" } : {}) }),
      kind: "project",
    },
    ...catalogs.map((c) => ({
      path: `catalogs/${c.name}.yaml`,
      text: countriesCatalogText({ ...c, catalog: catalogInOrder(c.catalog) }, writing),
      kind: "catalog" as const,
    })),
    ...grouping.groups.map((g) => ({
      path: `groups/${g.name}.yaml`,
      text: groupText(
        {
          ...g.file,
          ...(g.file.defaults
            ? { defaults: sectionsInCatalogOrder(g.file.defaults, rankOf(catalogOfStore.get(g.stores[0]!))) }
            : {}),
        },
        g.stores,
        g.platform.currency,
      ),
      kind: "group" as const,
    })),
    ...grouping.stores.map((s) => {
      const country = platformOf.get(s.state.store.key)!;
      return {
        path: `stores/${s.state.store.integrationId}.yaml`,
        text: storeText(
          sectionsInCatalogOrder(s.file, rankOf(s.file.catalog)),
          country.currency,
          country.name,
        ),
        kind: "store" as const,
      };
    }),
  ];
  const byKey = Object.fromEntries(states.map((s) => [s.store.key, s]));
  const scopes = countries.map((c) => ({ name: c.name, stores: c.states.map((s) => s.store.key) }));
  return {
    files: written,
    catalogs,
    groups: grouping.groups.map(({ platform: _p, ...g }) => g),
    notes,
    conflicts: [],
    problems: await verifyFiles(written, byKey, parts, scopes),
  };
}
