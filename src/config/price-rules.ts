/**
 * Price rules (`price_rules:`), written beside `overrides:` under carte.yaml `defaults:`, under a
 * group's `defaults:`, in an included file or in a store file: how a store's prices follow from the
 * catalog's, as price lists are made: a markup in percent (negative for a discount), then a rounding
 * to an ending (`ending: "0.90"`: 32.90, 33.90…) or to a step (`step: 100`: 32.900, 33.000…), up to the
 * next such amount (the default) or to the nearest one (`round: nearest`).
 *
 * The highest layer that writes `price_rules:` gives the store's rules (an empty list writes none);
 * they apply, in the order written, to every catalog price of the store (items, options, and an
 * option's price inside its parent) but 0 (free stays free), and an explicit price of `overrides:` at any layer still wins
 * (docs/configuration.md, "Price rules"). The arithmetic is exact (src/money.ts `applyPriceRule`).
 */

import type { ConfigProblem } from "../errors.js";
import {
  applyPriceRule,
  decimalsOf,
  formatPrice,
  parsePriceText,
  type Currency,
  type PriceRounding,
} from "../money.js";
import { isRecord, list, Reporter, where } from "../source/problems.js";
import type { Site } from "../source/problems.js";
import { scalarSource, toPointer } from "../source/yaml.js";
import type { YamlFile } from "../source/yaml.js";

/** One price rule as read from a layer. */
export interface PriceRule {
  /** The markup in percent, exact decimal text as written (`"10"`, `"-12.5"`); `"0"` when not written. */
  percent: string;
  /** The rounding after the markup; absent: half up to the currency's decimals. */
  rounding?: PriceRounding;
  /** The rounding as written, for `carte explain`: `step 100`, `ending 0.90`. */
  roundingText?: string;
  /** Decimals of the project's currency (2 without one). */
  decimals: number;
  /** Where the rule is written. */
  site: Site;
}

/** Most rules one layer may write (a chain's price list has a few; the bound keeps a hostile file small). */
export const MAX_PRICE_RULES = 20;

/**
 * Largest markup a rule may write, in percent: a price list marks up by a few percent, and the bound
 * keeps a rule's prices within the digits a JSON number carries exactly.
 */
export const MAX_MARKUP_PERCENT = 1000;

/** Most decimals of a markup (`12.5` %, `7.25` %). */
export const MAX_PERCENT_DECIMALS = 4;

/** The exact text of a number or string written at `segments`: the file's own text for a number. */
function writtenText(
  parsed: YamlFile,
  segments: readonly (string | number)[],
  value: unknown,
): string | undefined {
  if (typeof value === "string") return value.trim();
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  return scalarSource(parsed, toPointer([...segments])) ?? String(value);
}

/** An amount of a rule as written in plain decimals: `"0.90"`, the form the rule schema gives text. */
const AMOUNT_TEXT = /^[0-9]+(\.[0-9]+)?$/;

/**
 * Whether a rule's value has a form schemas/config/settings.schema.json accepts (`PriceRule`): a
 * finite number for `percent:`; a finite number of zero or more, or a plain decimal as text, for an
 * amount (`ending:`, `step:`, each amount of a per-currency one). A value of any other form is the
 * schema's problem, reported at its place, and a non-finite number the loader's.
 */
function schemaForm(key: string, value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value) && (key === "percent" || value >= 0);
  return key !== "percent" && typeof value === "string" && AMOUNT_TEXT.test(value);
}

/** An amount of a rule (`percent:`, `ending:`, `step:`) as written, and its exact value. */
interface RuleAmount {
  text: string;
  value: ReturnType<typeof parsePriceText>;
}

/**
 * The amount a rule writes under `key`, for the stores' currency when it is written per currency
 * (`{COP: 100, BRL: "0.10"}`): `undefined` when the rule does not write it, `false` when it cannot be
 * read (reported at its place, here or by the schema).
 *
 * @param here - pointer segments of the rule.
 */
function ruleAmount(
  r: Reporter,
  rule: Record<string, unknown>,
  here: readonly (string | number)[],
  key: string,
  currency: Currency | undefined,
): RuleAmount | undefined | false {
  if (!Object.hasOwn(rule, key)) return undefined;
  const perCurrency =
    key !== "percent" && isRecord(rule[key]) ? (rule[key] as Record<string, unknown>) : undefined;
  if (perCurrency && (!currency || !Object.hasOwn(perCurrency, currency.code))) {
    r.at(
      [...here, key],
      currency
        ? `${key} gives no amount in ${currency.code}, the currency of the stores this rule applies to: write ${currency.code}: … in it`
        : `${key} per currency needs to know the stores' currency: name it with currency: in carte.yaml, or the platforms' under platforms:`,
    );
    return false;
  }
  const path = perCurrency ? [...here, key, currency!.code] : [...here, key];
  const raw = perCurrency ? perCurrency[currency!.code] : rule[key];
  // A value the schema refuses (`percent: 8%`, `ending: "0,90"`) is reported there, at this place, in
  // the form it asks for: not a second time here.
  if (!schemaForm(key, raw)) return false;
  const text = writtenText(r.parsed, path, raw);
  const value = text === undefined ? undefined : parsePriceText(text);
  if (text === undefined || value === undefined) {
    r.at(
      path,
      `${key} must be a plain decimal number, for example ${key === "percent" ? "10" : key === "step" ? "100" : '"0.90"'}`,
    );
    return false;
  }
  return { text, value };
}

/**
 * Reads the `price_rules:` of one layer, checking each rule: a markup that is a plain decimal of at
 * least -100 % (a larger discount makes every price negative), at most {@link MAX_MARKUP_PERCENT} %
 * and with at most {@link MAX_PERCENT_DECIMALS} decimals, an ending or step with at most the
 * currency's decimals, a step above zero, an ending below its step. Problems are located at the value
 * they are about. `undefined` when the layer writes no `price_rules:`.
 *
 * @param base - pointer segments of the layer's settings object in the file.
 * @param data - the settings object.
 */
export function readPriceRules(
  parsed: YamlFile,
  base: readonly (string | number)[],
  data: unknown,
  problems: ConfigProblem[],
  currency: Currency | undefined,
): { value: PriceRule[]; site: Site } | undefined {
  if (!isRecord(data) || !Object.hasOwn(data, "price_rules")) return undefined;
  const r = new Reporter(parsed, problems);
  const decimals = decimalsOf(currency);
  const code = currency?.code ?? "the project's";
  const at = [...base, "price_rules"];
  const written = list(data.price_rules);
  if (written.length > MAX_PRICE_RULES)
    r.at(at, `${written.length} price rules: write at most ${MAX_PRICE_RULES}`);
  const rules: PriceRule[] = [];
  written.slice(0, MAX_PRICE_RULES).forEach((rule, i) => {
    if (!isRecord(rule)) return; // the schema reports it
    const here = [...at, i];
    let ok = true;
    const amount = (key: string): RuleAmount | undefined => {
      const read = ruleAmount(r, rule, here, key, currency);
      if (read === false) ok = false;
      return read || undefined;
    };
    const percent = amount("percent");
    if (percent && percent.value!.value.gt(String(MAX_MARKUP_PERCENT))) {
      r.at(
        [...here, "percent"],
        `a markup of ${percent.text} % is more than ${MAX_MARKUP_PERCENT} %: write the price list's markup, for example 10`,
      );
      ok = false;
    } else if (percent && percent.value!.scale > MAX_PERCENT_DECIMALS) {
      r.at(
        [...here, "percent"],
        `a markup of ${percent.text} % has more than ${MAX_PERCENT_DECIMALS} decimals`,
      );
      ok = false;
    } else if (percent && percent.value!.value.lt("-100")) {
      r.at(
        [...here, "percent"],
        `a markup of ${percent.text} % makes every price below zero: a discount is at most -100 %`,
      );
      ok = false;
    }
    const ending = amount("ending");
    const step = amount("step");
    for (const [key, v] of [
      ["ending", ending],
      ["step", step],
    ] as const) {
      if (!v) continue;
      if (v.value!.value.lt("0") || (key === "step" && v.value!.value.eq("0"))) {
        r.at([...here, key], `${key} ${v.text} must be ${key === "step" ? "above zero" : "zero or more"}`);
        ok = false;
      } else if (v.value!.scale > decimals) {
        r.at(
          [...here, key],
          `${key} ${v.text} has ${v.value!.scale} decimal${v.value!.scale === 1 ? "" : "s"}, but ${code} prices have ${decimals === 0 ? "none" : `at most ${decimals}`}: a rule cannot round to a price the currency does not write`,
        );
        ok = false;
      }
    }
    if (ending && step && ok && !ending.value!.value.lt(step.value!.value)) {
      r.at([...here, "ending"], `ending ${ending.text} must be below the step ${step.text} it ends`);
      ok = false;
    }
    if (Object.hasOwn(rule, "round") && !ending && !step && ok) {
      r.at([...here, "round"], "round: says how to round to an ending or a step: write ending: or step: too");
      ok = false;
    }
    if (!ok) return;
    const round = rule.round === "nearest" ? "nearest" : "up";
    const rounding = step ?? ending;
    rules.push({
      percent: percent?.value!.value.toFixed() ?? "0",
      ...(rounding
        ? {
            rounding: {
              modulus: step ? step.value!.value.toFixed() : powerOfTenAbove(ending!.value!.value.toFixed()),
              ending: ending ? ending.value!.value.toFixed() : "0",
              round,
            },
            roundingText: [
              ...(ending ? [`ending ${ending.text}`] : []),
              ...(step ? [`step ${step.text}`] : []),
            ].join(" and "),
          }
        : {}),
      decimals,
      site: r.site(here),
    });
  });
  return { value: rules, site: r.site(at) };
}

/**
 * The smallest power of ten above a non-negative decimal (its text): what an ending without a step
 * repeats by. `0.90` → `1` (every unit: 32.90, 33.90), `9.90` → `10`, `900` → `1000`, `0` → `1`.
 */
function powerOfTenAbove(text: string): string {
  const whole = text.split(".")[0]!.replace(/^0+/, "");
  return `1${"0".repeat(whole.length)}`;
}

/**
 * A catalog price after the store's price rules, in order (the price itself without rules). A price of
 * 0 stays 0: what the catalog gives away (an extra free inside a combo) is not priced by a markup.
 */
export function rulePrice(price: number, rules: readonly PriceRule[] | undefined): number {
  // Free stays free: a rounding up to an ending would otherwise give a free extra a price.
  if (price === 0) return 0;
  let out = price;
  for (const rule of rules ?? [])
    out = Number(applyPriceRule(out, rule.percent, rule.rounding, rule.decimals).price);
  return out;
}

/**
 * How the rules made a price from the catalog's, one line per rule, as `carte explain` shows it:
 * `$29.900 + 10 % = $32.890 → $32.900, rounded up to step 100 (price_rules of groups/rj.yaml:4:5)`.
 */
export function ruleLines(
  price: number,
  rules: readonly PriceRule[],
  currency: Currency | undefined,
): string[] {
  if (price === 0) return [`price_rules of ${where(rules[0]!.site)} leave a price of 0 as it is`];
  const lines: string[] = [];
  let now = price;
  for (const rule of rules) {
    const step = applyPriceRule(now, rule.percent, rule.rounding, rule.decimals);
    const pct = rule.percent.startsWith("-") ? `- ${rule.percent.slice(1)}` : `+ ${rule.percent}`;
    const show = (text: string) => formatPrice(Number(text), currency);
    const rounded = rule.rounding
      ? `, rounded ${rule.rounding.round === "up" ? "up" : "to the nearest"} to ${rule.roundingText}`
      : step.price === step.marked
        ? ""
        : `, rounded half up to ${rule.decimals} decimals`;
    const result = step.price === step.marked && !rule.rounding ? "" : ` → ${show(step.price)}`;
    lines.push(
      `${show(String(now))} ${pct} % = ${show(step.marked)}${result}${rounded} (price_rules of ${where(rule.site)})`,
    );
    now = Number(step.price);
  }
  return lines;
}
