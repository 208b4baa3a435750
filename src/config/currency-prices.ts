/**
 * One catalog for every country: a catalog's prices per currency (`price: {COP: 24900, BRL: 29.90}`)
 * and its titles per language (`translations: {pt: {title: …, description: …}}`), turned into the
 * prices and titles of one platform before anything else reads the catalog (docs/configuration.md
 * "Countries"). The value parsed is never changed (the parse caches share it): a load works on a copy
 * with the platform's amounts and titles, whose positions are still the file's.
 */

import type { ConfigProblem } from "../errors.js";
import { currencyOf, priceTextProblem, type Currency } from "../money.js";
import { isRecord, list, quote, report } from "../source/problems.js";
import type { Site } from "../source/problems.js";
import { scalarSource, toPointer, type YamlFile } from "../source/yaml.js";
import type { MergedOverrides } from "./overrides.js";
import { withData } from "./project-platforms.js";

/** What a load reads the catalogs in: its currency, its language, and the currencies of its platforms. */
export interface CatalogTarget {
  /** The currency of the store's prices: the scoped platform's, else carte.yaml `currency:`. */
  currency: Currency | undefined;
  /** The language of the titles (the scoped platform's `language:`); absent: the titles as written. */
  language: string | undefined;
  /** The currencies of carte.yaml `platforms:`, in the order written (empty without `platforms:`). */
  currencies: readonly string[];
}

/** A catalog price without an amount in the load's currency: an error for the stores that sell it. */
export interface MissingPrice {
  sku: string;
  /** The item or option whose `option_prices` writes it; absent for the SKU's own price. */
  parent?: string;
  site: Site;
}

/** A catalog as one platform reads it. */
export interface ProjectedCatalog {
  parsed: YamlFile;
  missing: MissingPrice[];
}

/** Projections made without a problem, by the value parsed, then by currency and language. */
const projections = new WeakMap<object, Map<string, { data: unknown; missing: MissingPrice[] }>>();

/**
 * The catalog as a load of `target` reads it: each price per currency turned into its amount in the
 * target's currency (0 when it gives none: such a price is kept in `missing`, and {@link MissingPrices}
 * reports it for every store that sells it), each title and description in the target's language
 * where `translations:` gives one. Reports, located: a price per currency without a currency to read
 * it in, an unknown currency code, an amount with more decimals than its own currency has, and a single
 * amount where the project's platforms have several currencies. `parsed` itself when nothing changes.
 */
export function projectCatalog(
  parsed: YamlFile,
  target: CatalogTarget,
  problems: ConfigProblem[],
): ProjectedCatalog {
  const data = parsed.data;
  if (!isRecord(data)) return { parsed, missing: [] };
  const key = `${target.currency?.code ?? ""}\0${target.language ?? ""}\0${target.currencies.join(",")}`;
  const known = projections.get(data)?.get(key);
  if (known)
    return {
      parsed: known.data === data ? parsed : withData(parsed, known.data),
      missing: known.missing.map((m) => ({ ...m, site: { parsed, pointer: m.site.pointer } })),
    };
  const clean = problems.length === 0;
  const walk = new CatalogWalk(parsed, target, problems);
  const projected = walk.catalog(data);
  if (clean && problems.length === 0) {
    let byKey = projections.get(data);
    if (!byKey) projections.set(data, (byKey = new Map()));
    byKey.set(key, { data: projected, missing: walk.missing });
  }
  return { parsed: projected === data ? parsed : withData(parsed, projected), missing: walk.missing };
}

/** One pass over a catalog's value, copying what changes. */
class CatalogWalk {
  readonly missing: MissingPrice[] = [];

  constructor(
    private readonly parsed: YamlFile,
    private readonly target: CatalogTarget,
    private readonly problems: ConfigProblem[],
  ) {}

  catalog(data: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = { ...data };
    let changed = false;
    const each = (
      key: string,
      one: (v: Record<string, unknown>, at: (string | number)[]) => Record<string, unknown>,
    ) => {
      if (!Array.isArray(data[key])) return;
      const values = list(data[key]).map((v, i) => (isRecord(v) ? one(v, [key, i]) : v));
      if (values.some((v, i) => v !== list(data[key])[i])) {
        out[key] = values;
        changed = true;
      }
    };
    each("items", (item, at) => this.priced(item, at, this.translated(item, at)));
    each("categories", (category, at) => this.translated(category, at));
    each("modifier_groups", (group, at) => {
      const titled = this.translated(group, at);
      if (!Array.isArray(group.options)) return titled;
      const options = list(group.options).map((o, i) =>
        isRecord(o) ? this.priced(o, [...at, "options", i], this.translated(o, [...at, "options", i])) : o,
      );
      return options.some((o, i) => o !== list(group.options)[i]) ? { ...titled, options } : titled;
    });
    return changed ? out : data;
  }

  /** An item or option with its price and `option_prices` in the target's currency. */
  private priced(
    value: Record<string, unknown>,
    at: (string | number)[],
    base: Record<string, unknown>,
  ): Record<string, unknown> {
    const sku = typeof value.sku === "string" ? value.sku : "";
    let out = base;
    const price = this.amount(value.price, [...at, "price"], sku, undefined);
    if (price !== value.price) out = { ...out, price };
    if (isRecord(value.option_prices)) {
      const prices: Record<string, unknown> = {};
      let changed = false;
      for (const [option, written] of Object.entries(value.option_prices)) {
        const amount = this.amount(written, [...at, "option_prices", option], option, sku);
        changed ||= amount !== written;
        prices[option] = amount;
      }
      if (changed) out = { ...out, option_prices: prices };
    }
    return out;
  }

  /** A price in the target's currency: the amount written, or its amount for the currency. */
  private amount(
    written: unknown,
    segments: (string | number)[],
    sku: string,
    parent: string | undefined,
  ): unknown {
    const site: Site = { parsed: this.parsed, pointer: toPointer(segments) };
    const { currency, currencies } = this.target;
    if (typeof written === "number") {
      if (currencies.length > 1)
        report(
          this.problems,
          site,
          `the platforms of carte.yaml sell in ${currencies.join(" and ")}: write the price per currency, ` +
            `{${currencies.map((c) => `${c}: …`).join(", ")}}`,
        );
      return written;
    }
    if (!isRecord(written)) return written; // the schema reports it
    for (const [code, value] of Object.entries(written)) this.checkAmount(code, value, [...segments, code]);
    if (!currency) {
      report(
        this.problems,
        site,
        "a price per currency needs to know the store's currency: name it with currency: in carte.yaml, or name the platforms and their currencies under platforms:",
      );
      return 0;
    }
    if (!Object.hasOwn(written, currency.code)) {
      this.missing.push({ sku, ...(parent !== undefined ? { parent } : {}), site });
      return 0;
    }
    const value = written[currency.code];
    if (typeof value !== "number") return value;
    // An amount its currency refuses is reported once, where it is written: the copy keeps a valid one.
    const factor = 10 ** currency.decimals;
    return this.amountProblem(currency, value, [...segments, currency.code])
      ? Math.round(value * factor) / factor
      : value;
  }

  /** Reports an amount of a price per currency that its currency refuses, or an unknown currency. */
  private checkAmount(code: string, value: unknown, segments: (string | number)[]): void {
    if (!/^[A-Z]{3}$/.test(code) || typeof value !== "number") return; // the schema reports it
    const currency = currencyOf(code);
    if (!currency) {
      report(
        this.problems,
        { parsed: this.parsed, pointer: toPointer(segments) },
        `unknown currency ${quote(code)}: write an ISO 4217 code, for example COP or BRL`,
        "key",
      );
      return;
    }
    const why = this.amountProblem(currency, value, segments);
    if (why) report(this.problems, { parsed: this.parsed, pointer: toPointer(segments) }, why);
  }

  private amountProblem(
    currency: Currency,
    value: number,
    segments: (string | number)[],
  ): string | undefined {
    const text = scalarSource(this.parsed, toPointer(segments)) ?? String(value);
    return priceTextProblem(text, currency);
  }

  /** A value with its title and description in the target's language, where `translations:` gives them. */
  private translated(value: Record<string, unknown>, at: (string | number)[]): Record<string, unknown> {
    void at;
    const language = this.target.language;
    if (language === undefined || !isRecord(value.translations)) return value;
    const own = Object.hasOwn(value.translations, language) ? value.translations[language] : undefined;
    if (!isRecord(own)) return value;
    const title = typeof own.title === "string" ? own.title : undefined;
    const description = typeof own.description === "string" ? own.description : undefined;
    if (title === undefined && description === undefined) return value;
    return {
      ...value,
      ...(title !== undefined ? { title } : {}),
      ...(description !== undefined ? { description } : {}),
    };
  }
}

/**
 * Reports the catalog prices without an amount in the load's currency that a store sells: located at
 * the price, naming the stores, their platform and the currency (never another currency's amount is
 * used). A store does not sell a SKU it excludes (`overrides: exclude:`), nor needs the catalog's price
 * of a SKU whose price its overrides write (`overrides: prices:`, `option_prices:`).
 */
export class MissingPrices {
  private readonly byCatalog = new Map<YamlFile, MissingPrice[]>();
  /** The stores that sell each missing price, by its site. */
  private readonly sellers = new Map<string, { price: MissingPrice; stores: string[] }>();

  constructor(
    private readonly problems: ConfigProblem[],
    private readonly platform: string | undefined,
    private readonly currency: Currency | undefined,
  ) {}

  /** The prices of a catalog (its file as projected) without an amount in the currency. */
  add(catalog: YamlFile, missing: readonly MissingPrice[]): void {
    if (missing.length > 0) this.byCatalog.set(catalog, [...missing]);
  }

  /** Notes the missing prices of its catalog (its file as projected) that the store `storeKey` sells. */
  check(merged: MergedOverrides, catalog: YamlFile, storeKey: string): void {
    for (const price of this.byCatalog.get(catalog) ?? []) {
      if (merged.exclude.has(price.sku) || (price.parent !== undefined && merged.exclude.has(price.parent)))
        continue;
      const written =
        price.parent === undefined
          ? merged.prices.has(price.sku)
          : merged.optionPrices.get(price.parent)?.has(price.sku) === true;
      if (written) continue;
      const id = `${price.site.parsed.file}\0${price.site.pointer}`;
      const seen = this.sellers.get(id) ?? { price, stores: [] };
      if (!seen.stores.includes(storeKey)) seen.stores.push(storeKey);
      this.sellers.set(id, seen);
    }
  }

  /** Reports every missing price a store sells. */
  finish(): void {
    const code = this.currency?.code ?? "";
    for (const { price, stores } of this.sellers.values()) {
      const shown = stores.slice(0, 3).map((s) => quote(s));
      const who =
        `${stores.length === 1 ? "store" : "stores"} ${shown.join(", ")}` +
        `${stores.length > 3 ? ` and ${stores.length - 3} more` : ""}`;
      const what =
        price.parent === undefined ? quote(price.sku) : `${quote(price.sku)} inside ${quote(price.parent)}`;
      report(
        this.problems,
        price.site,
        `${what} has no price in ${code}, and ${who} of platform ${quote(this.platform ?? "")} ` +
          `${stores.length === 1 ? "sells" : "sell"} it: write ${code}: … in this price (or the ` +
          `${stores.length === 1 ? "store's" : "stores'"} price under overrides: ${price.parent === undefined ? "prices:" : "option_prices:"}, or exclude it there); ` +
          `another currency's amount is never used`,
      );
    }
  }
}

/**
 * The catalog files as a load reads them ({@link projectCatalog}), and the prices they miss in its
 * currency, for {@link MissingPrices} to check against each store.
 */
export function catalogsFor<F extends { parsed: YamlFile }>(
  files: readonly F[],
  target: CatalogTarget,
  platform: string | undefined,
  problems: ConfigProblem[],
): { catalogFiles: F[]; missingPrices: MissingPrices } {
  const missingPrices = new MissingPrices(problems, platform, target.currency);
  const catalogFiles = files.map((f) => {
    const projected = projectCatalog(f.parsed, target, problems);
    missingPrices.add(projected.parsed, projected.missing);
    return projected.parsed === f.parsed ? f : { ...f, parsed: projected.parsed };
  });
  return { catalogFiles, missingPrices };
}
