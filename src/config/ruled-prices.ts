/**
 * The prices the price rules make, checked as a written price is: at most
 * {@link MAX_SIGNIFICANT_DIGITS} significant digits, what the platform's JSON number carries exactly
 * (src/money.ts). A rule's arithmetic is exact, but its result travels as a JSON number: a catalog
 * price of 999999999999999 with a markup of 1000 % is 10999999999999989, which a number holds as
 * 10999999999999988, so the store would be sent a price no file says. Such a result is a problem at
 * the rule that makes it, naming the SKU, the catalog price and where it is written, and the stores.
 *
 * A store's rules are the list of one layer (src/config/overrides.ts `MergedOverrides.priceRules`),
 * shared by every store that inherits it: the catalog's prices go through one list once, and each
 * store only drops what it does not use (a SKU it excludes, a price an explicit one replaces).
 */

import type { ConfigProblem } from "../errors.js";
import { applyPriceRule, MAX_SIGNIFICANT_DIGITS, parsePriceText } from "../money.js";
import type { CatalogIndex, CatalogPrice } from "./check.js";
import type { MergedOverrides } from "./overrides.js";
import type { PriceRule } from "./price-rules.js";
import { bare, quote, report, where } from "../source/problems.js";

/** Most stores a problem names; the others are counted. */
const STORES_NAMED = 5;

/** A catalog price that a list of rules takes past the exact range, and the rule that does. */
interface Overflow {
  price: CatalogPrice;
  rule: PriceRule;
  /** The rule's result, exact. */
  result: string;
}

/**
 * The catalog prices of `catalog` that `rules`, applied in order, take past
 * {@link MAX_SIGNIFICANT_DIGITS} significant digits, each with the first rule that does.
 */
function overflows(rules: readonly PriceRule[], catalog: CatalogIndex): Overflow[] {
  const out: Overflow[] = [];
  for (const price of catalog.prices) {
    let now = price.price;
    for (const rule of rules) {
      const result = applyPriceRule(now, rule.percent, rule.rounding, rule.decimals).price;
      if (parsePriceText(result)!.significant > MAX_SIGNIFICANT_DIGITS) {
        out.push({ price, rule, result });
        break;
      }
      now = Number(result);
    }
  }
  return out;
}

/** Whether a store uses the catalog's price through its rules (a SKU it keeps, with no explicit price). */
function usesCatalogPrice(merged: MergedOverrides, price: CatalogPrice): boolean {
  const { sku, parent } = price;
  if (merged.exclude.has(sku) || (parent !== undefined && merged.exclude.has(parent))) return false;
  if (parent !== undefined) return !merged.optionPrices.get(parent)?.has(sku);
  // A price until a time gives back the catalog's (through the rules) once it ends.
  const ending = merged.ending.get(sku);
  return !merged.prices.has(sku) || (ending !== undefined && ending.then === undefined);
}

/**
 * Checks the prices the stores' price rules make from their catalogs' prices. Call {@link check} for
 * every store, then {@link finish}, which reports each rule and price once with the stores concerned.
 */
export class RuledPrices {
  private readonly byRules = new WeakMap<readonly PriceRule[], WeakMap<CatalogIndex, Overflow[]>>();
  private readonly found = new Map<Overflow, string[]>();

  constructor(private readonly problems: ConfigProblem[]) {}

  /**
   * Checks one store: the prices its rules take past the exact range among those of its catalog it
   * uses.
   *
   * @param merged - the store's merged overrides (option prices of patterns expanded).
   * @param store - the store's key, for the message.
   */
  check(merged: MergedOverrides, catalog: CatalogIndex, store: string): void {
    const rules = merged.priceRules?.value;
    if (!rules || rules.length === 0 || catalog.prices.length === 0) return;
    let byCatalog = this.byRules.get(rules);
    if (!byCatalog) this.byRules.set(rules, (byCatalog = new WeakMap()));
    let list = byCatalog.get(catalog);
    if (!list) byCatalog.set(catalog, (list = overflows(rules, catalog)));
    for (const o of list) {
      if (!usesCatalogPrice(merged, o.price)) continue;
      const stores = this.found.get(o) ?? [];
      if (!stores.includes(store)) stores.push(store);
      this.found.set(o, stores);
    }
  }

  /** Reports every price found, at the rule that makes it. */
  finish(): void {
    for (const [{ price, rule, result }, stores] of this.found) {
      const named = stores.slice(0, STORES_NAMED).map((s) => quote(s));
      const more = stores.length > STORES_NAMED ? ` and ${stores.length - STORES_NAMED} more` : "";
      const whose = `${stores.length === 1 ? "store" : "stores"} ${named.join(", ")}${more}`;
      const sku =
        price.parent === undefined ? bare(price.sku) : `${bare(price.sku)} inside ${bare(price.parent)}`;
      const section = price.parent === undefined ? "prices:" : "option_prices:";
      report(
        this.problems,
        rule.site,
        `this price rule gives ${price.parent === undefined ? "" : "option "}${sku} a price of ${result} ` +
          `(from ${String(price.price)} at ${where(price.site)}), more than ${MAX_SIGNIFICANT_DIGITS} ` +
          `significant digits, more than the platform's JSON number carries exactly (${whose}): lower the ` +
          `markup, or write the price of ${sku} under overrides: ${section}`,
      );
    }
  }
}
