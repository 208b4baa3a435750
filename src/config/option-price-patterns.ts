/**
 * Option prices by SKU pattern: `option_prices: { PIZZA-*-G: { TOP-CALABRESA: 8.25 } }` in the
 * overrides of any layer sets the topping's price inside every item or option above it whose SKU the
 * pattern matches (src/config/sku-pattern.ts), as if the price were written for each of those SKUs.
 *
 * For each store, the patterns of its layers are expanded against its catalog into the per-SKU option
 * prices of its merged overrides (src/config/overrides.ts `MergedOverrides.optionPrices`), where
 * src/config/resolve.ts turns them into per-parent prices like any other: the nearest SKU above a
 * parent that has a price wins. For one SKU and option, the highest layer wins; in one layer, a price
 * written for the SKU itself wins over a pattern. Two patterns of one layer that match the same SKU
 * with different prices, when that layer writes no price for the SKU itself, are a problem; so is a
 * pattern that matches no item or option above its option in the catalog of any store that inherits it.
 */

import type { ConfigProblem } from "../errors.js";
import { formatPrice, type Currency } from "../money.js";
import { suggester } from "../suggest.js";
import type { CatalogIndex } from "./check.js";
import type { Entry, Layered, MergedOverrides } from "./overrides.js";
import { bare, quote, report, type Site } from "../source/problems.js";
import { skuPattern, type SkuPattern } from "./sku-pattern.js";
import { locate } from "../source/yaml.js";

/** `file:line:col` of the key a site names (the option's SKU in a pattern's prices). */
function whereKey(site: Site): string {
  const { line, col } = locate(site.parsed, site.pointer, "key");
  return `${site.parsed.file}:${line}:${col}`;
}

/** SKUs of items and options shown at most in a message listing those above an option. */
const LISTED = 5;

/** One option price under a pattern, as one layer writes it, followed across the stores that inherit it. */
interface Tracked {
  site: Site;
  pattern: string;
  option: string;
  /** Whether the pattern matched an item or option above the option in some store's catalog. */
  matched: boolean;
  /** The catalogs where it matched nothing, with their indexes (for the message). */
  catalogs: Map<string, CatalogIndex>;
}

/** A price a pattern sets for one SKU and option, from one layer. */
interface Candidate {
  level: number;
  entry: Entry<number>;
}

const aboveCache = new WeakMap<CatalogIndex, Map<string, string[]>>();

/**
 * For each option of a catalog, the items and options written in full whose modifier groups offer it
 * (computed once per catalog).
 */
function parentsOf(catalog: CatalogIndex): Map<string, string[]> {
  let above = aboveCache.get(catalog);
  if (above) return above;
  above = new Map();
  for (const [parent, groups] of catalog.parents)
    for (const g of groups)
      for (const option of catalog.groups.get(g)?.options ?? []) {
        const list = above.get(option);
        if (!list) above.set(option, [parent]);
        else if (!list.includes(parent)) list.push(parent);
      }
  aboveCache.set(catalog, above);
  return above;
}

/**
 * The items and options above an option at any depth, sorted by code point (nesting is at most 3
 * levels deep and never circular: the catalog checks refuse deeper or circular nesting).
 */
function ancestorsOf(catalog: CatalogIndex, option: string): string[] {
  const above = parentsOf(catalog);
  const seen = new Set<string>();
  for (let level = [option]; level.length > 0;) {
    const next: string[] = [];
    for (const s of level)
      for (const p of above.get(s) ?? [])
        if (!seen.has(p) && p !== option) {
          seen.add(p);
          next.push(p);
        }
    level = next;
  }
  return [...seen].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Expands the `option_prices` patterns of stores' layers against their catalogs and checks them. Call
 * {@link expand} for every store, then {@link finish}.
 */
export class OptionPricePatterns {
  private readonly tracked = new Map<string, Tracked>();
  private readonly compiled = new Map<string, SkuPattern>();
  /** Per catalog, `pattern \0 option` → the SKUs above the option that the pattern matches. */
  private readonly matches = new WeakMap<CatalogIndex, Map<string, string[]>>();

  /**
   * @param problems - where problems go (located at the entries of the files).
   * @param currency - carte.yaml `currency:`, to show prices in messages.
   */
  constructor(
    private readonly problems: ConfigProblem[],
    private readonly currency: Currency | undefined,
  ) {}

  /** The SKUs above `option` in `catalog` that `pattern` matches (once per catalog, not per store). */
  private matched(catalog: CatalogIndex, pattern: string, option: string): string[] {
    let byKey = this.matches.get(catalog);
    if (!byKey) this.matches.set(catalog, (byKey = new Map()));
    const key = `${pattern}\0${option}`;
    let found = byKey.get(key);
    if (!found) {
      let p = this.compiled.get(pattern);
      if (!p) this.compiled.set(pattern, (p = skuPattern(pattern)));
      found = ancestorsOf(catalog, option).filter((sku) => p.matches(sku));
      byKey.set(key, found);
    }
    return found;
  }

  /**
   * Adds to a store's merged overrides the option prices its layers' patterns set for the items and
   * options of its catalog, each entry naming its pattern (`Entry.pattern`, for `carte explain`), and
   * reports two patterns of one layer that set one SKU's option price differently.
   *
   * @param merged - the store's overrides merged from its layers; its `optionPrices` are completed in place.
   * @param catalog - the index of the store's catalog.
   */
  expand(merged: MergedOverrides, catalog: CatalogIndex): void {
    // SKU above the option → option → the prices patterns set for it, by layer.
    const found = new Map<string, Map<string, Candidate[]>>();
    merged.layers.forEach((layer, level) => {
      for (const [text, prices] of layer.optionPricePatterns) {
        for (const [option, entry] of prices) {
          const matched = this.matched(catalog, text, option);
          this.track(entry.site, text, option, catalog, matched.length > 0);
          for (const sku of matched) {
            let byOption = found.get(sku);
            if (!byOption) found.set(sku, (byOption = new Map()));
            const list = byOption.get(option) ?? [];
            list.push({ level, entry: { ...entry, pattern: text } });
            byOption.set(option, list);
          }
        }
      }
    });
    for (const [sku, byOption] of found) {
      let inParent = merged.optionPrices.get(sku);
      if (!inParent) merged.optionPrices.set(sku, (inParent = new Map()));
      for (const [option, candidates] of byOption) {
        this.checkAgreement(merged, sku, option, candidates);
        inParent.set(option, withPatterns(inParent.get(option), candidates));
      }
    }
  }

  /**
   * Reports two patterns of one layer that set different prices for `option` inside `sku`, unless that
   * layer writes a price for `sku` itself (which wins over both).
   */
  private checkAgreement(
    merged: MergedOverrides,
    sku: string,
    option: string,
    candidates: Candidate[],
  ): void {
    const byLevel = new Map<number, Candidate[]>();
    for (const c of candidates) byLevel.set(c.level, [...(byLevel.get(c.level) ?? []), c]);
    for (const [level, same] of byLevel) {
      if (same.length < 2 || merged.layers[level]!.optionPrices.get(sku)?.has(option)) continue;
      const first = same[0]!;
      for (const other of same.slice(1)) {
        if (other.entry.value === first.entry.value) continue;
        const price = (c: Candidate) => formatPrice(c.entry.value, this.currency);
        report(
          this.problems,
          other.entry.site,
          `option_prices ${quote(other.entry.pattern)} (${price(other)}) and ${quote(first.entry.pattern)} ` +
            `(${price(first)}) at ${whereKey(first.entry.site)} both match ${bare(sku)} and set different prices ` +
            `for option ${quote(option)} inside it: write ${bare(sku)}: { ${bare(option)}: … } in this ` +
            `option_prices (the SKU itself wins over patterns), or make the two prices agree`,
          "key",
        );
      }
    }
  }

  private track(site: Site, pattern: string, option: string, catalog: CatalogIndex, matched: boolean): void {
    const key = `${site.parsed.file}\0${site.pointer}`;
    let t = this.tracked.get(key);
    if (!t) this.tracked.set(key, (t = { site, pattern, option, matched: false, catalogs: new Map() }));
    if (matched) t.matched = true;
    else t.catalogs.set(catalog.name, catalog);
  }

  /**
   * Reports each pattern entry that matched no item or option above its option in the catalog of any
   * store that inherits it: an unknown option (with the closest SKU), or the SKUs above it.
   */
  finish(): void {
    const didYouMean = suggester();
    for (const t of this.tracked.values()) {
      if (t.matched || t.catalogs.size === 0) continue;
      const indexes = [...t.catalogs.values()];
      const names = indexes.map((c) => bare(c.name));
      const inCatalogs = names.length === 1 ? `catalog ${names[0]!}` : `catalogs ${names.join(", ")}`;
      if (!indexes.some((c) => c.skus.get(t.option)?.kind === "option")) {
        const skus = {
          *[Symbol.iterator]() {
            for (const c of indexes) for (const [sku, s] of c.skus) if (s.kind === "option") yield sku;
          },
        };
        report(
          this.problems,
          t.site,
          `unknown option ${quote(t.option)}${didYouMean(t.option, skus, quote)}: ${inCatalogs} ${names.length === 1 ? "has" : "have"} no option with this SKU`,
          "key",
        );
        continue;
      }
      const above = [...new Set(indexes.flatMap((c) => ancestorsOf(c, t.option)))].sort();
      const listed =
        above.length === 0
          ? "no item or option offers it"
          : `above it: ${above
              .slice(0, LISTED)
              .map((s) => bare(s))
              .join(", ")}${above.length > LISTED ? `, and ${above.length - LISTED} more` : ""}`;
      report(
        this.problems,
        t.site,
        `option_prices ${quote(t.pattern)} matches no item or option above option ${quote(t.option)} in ${inCatalogs} ` +
          `(${listed}): write a pattern or SKU that matches one of them, or remove the entry`,
        "key",
      );
    }
  }
}

/**
 * The merged option price of one SKU and option once the patterns' prices are added: the highest layer
 * wins, and in one layer the price written for the SKU itself wins over patterns (then patterns by
 * their order in the file). The prices it hides follow, the patterns' before the lower layers' prices
 * written for the SKU itself.
 */
function withPatterns(exact: Layered<number> | undefined, candidates: Candidate[]): Layered<number> {
  const ranked: (Candidate & { exact: boolean })[] = [
    ...(exact ? [{ level: exact.level, entry: exact, exact: true }] : []),
    ...candidates.map((c) => ({ ...c, exact: false })),
  ];
  // Stable: patterns of one layer keep their order.
  ranked.sort((a, b) => b.level - a.level || Number(b.exact) - Number(a.exact));
  const [win, ...rest] = ranked;
  const below: Entry<number>[] = rest.map((c) => ({
    value: c.entry.value,
    site: c.entry.site,
    ...(c.entry.pattern !== undefined ? { pattern: c.entry.pattern } : {}),
  }));
  return {
    value: win!.entry.value,
    site: win!.entry.site,
    level: win!.level,
    below: [...below, ...(exact?.below ?? [])],
    ...(win!.entry.pattern !== undefined ? { pattern: win!.entry.pattern } : {}),
  };
}
