import Big from "big.js";

/**
 * Prices of the store menu as exact decimals, in the currency carte.yaml declares (`currency:`, an
 * ISO 4217 code).
 *
 * The platform carries an item's price as a JSON number in the store's currency, in its major unit, as
 * the store shows it (docs/platform-api.md §4.3 `price_info.price`: `24900` for 24.900 Colombian pesos,
 * `12.5` for R$ 12,50; docs/platform-api.md, client assumption 6). carte keeps that number as the model's
 * value, but never computes with it in floating point: every price is read from the **text** the file writes
 * (so that `24.900` is seen as three decimals, not as the number 24.9), checked against the currency's
 * decimals, and every comparison, percentage and formatted value is computed on an exact decimal (big.js,
 * {@link Decimal}). A number read back from the platform is turned into the same exact decimal from its
 * shortest text (`String(24.9)` is `"24.9"`), which is the text the platform wrote for every price of at most
 * {@link MAX_SIGNIFICANT_DIGITS} significant digits; carte refuses to write prices with more.
 *
 * The arithmetic is big.js's (a small, dependency-free, long-maintained exact decimal library); carte's
 * own code only reads the text of a price and formats it for the currency.
 */

/** How a currency's prices are written and shown. */
export interface Currency {
  /** ISO 4217 code, e.g. `COP`. */
  code: string;
  /** Decimals prices are written with in the country (`0` for COP: whole pesos). */
  decimals: number;
  /** Symbol shown before the amount, e.g. `$`, `R$`. */
  symbol: string;
  /** Whether a space separates the symbol and the amount (`R$ 12,50`, but `$24.900`). */
  space: boolean;
  /** Thousands separator. */
  thousands: string;
  /** Decimal separator. */
  decimal: string;
}

/**
 * The currencies of the countries the platform serves, written as their stores write them. COP is
 * written in whole pesos (ISO 4217 gives it two minor digits, but no centavo is in use and the platform
 * shows none); CLP has none in ISO 4217 either. Other ISO 4217 codes are accepted with their ISO minor
 * digits and shown as `CODE 1,234.50`.
 */
const KNOWN: Readonly<Record<string, Omit<Currency, "code">>> = {
  ARS: { decimals: 2, symbol: "$", space: true, thousands: ".", decimal: "," },
  BRL: { decimals: 2, symbol: "R$", space: true, thousands: ".", decimal: "," },
  CLP: { decimals: 0, symbol: "$", space: false, thousands: ".", decimal: "," },
  COP: { decimals: 0, symbol: "$", space: false, thousands: ".", decimal: "," },
  MXN: { decimals: 2, symbol: "$", space: false, thousands: ",", decimal: "." },
  PEN: { decimals: 2, symbol: "S/", space: true, thousands: ",", decimal: "." },
  USD: { decimals: 2, symbol: "$", space: false, thousands: ",", decimal: "." },
  UYU: { decimals: 2, symbol: "$", space: true, thousands: ".", decimal: "," },
};

/** Most significant digits of a price: more cannot be carried exactly by a JSON number. */
export const MAX_SIGNIFICANT_DIGITS = 15;

/** Decimals allowed when carte.yaml declares no currency (the platform's published precision). */
export const DEFAULT_DECIMALS = 2;

let isoCodes: ReadonlySet<string> | undefined;

/** ISO 4217 codes this Node.js knows (full ICU). */
function knownCodes(): ReadonlySet<string> {
  isoCodes ??= new Set(Intl.supportedValuesOf("currency"));
  return isoCodes;
}

/**
 * The currency of an ISO 4217 code, or `undefined` when the code is not one.
 *
 * @example currencyOf("COP") // { code: "COP", decimals: 0, symbol: "$", ... }
 */
export function currencyOf(code: string): Currency | undefined {
  if (!/^[A-Z]{3}$/.test(code)) return undefined;
  const known = Object.hasOwn(KNOWN, code) ? KNOWN[code] : undefined;
  if (known) return { code, ...known };
  if (!knownCodes().has(code)) return undefined;
  const decimals = new Intl.NumberFormat("en", { style: "currency", currency: code }).resolvedOptions()
    .maximumFractionDigits;
  return { code, decimals: decimals ?? 2, symbol: code, space: true, thousands: ",", decimal: "." };
}

/**
 * The decimal type prices are computed with: big.js, in strict mode so that it is only ever built from
 * text (a JSON number's float is never read as a decimal), with enough decimals for a percentage's
 * quotient. A constructor of its own, so that no other module's settings change it.
 */
const Exact = Big();
Exact.strict = true;
Exact.DP = 30;
Exact.RM = Big.roundHalfUp;

/** An exact decimal as written: its value and how it was written. Non-negative for prices. */
export interface Decimal {
  /** The exact value (big.js). */
  value: Big;
  /** Number of decimals written (trailing zeros included: `12.50` has scale 2). */
  scale: number;
  /** Significant digits written (leading zeros excluded, trailing zeros of the whole part included). */
  significant: number;
}

const PLAIN = /^([+-])?(\d+)(?:\.(\d+))?$/;

/**
 * Reads the text of a price as written in a file: plain decimal digits with an optional fraction
 * (`24900`, `12.50`). `undefined` for anything else (`1e3`, `0x10`, `24_900`).
 */
export function parsePriceText(text: string): Decimal | undefined {
  const m = PLAIN.exec(text.trim());
  if (!m) return undefined;
  const whole = m[2]!;
  const fraction = m[3] ?? "";
  const value = new Exact(`${m[1] === "-" ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`);
  return { value, scale: fraction.length, significant: (whole + fraction).replace(/^0+/, "").length };
}

/**
 * The exact decimal of a JSON number, from its shortest text (see the module comment): `24.9` is
 * read from `"24.9"`, `1e21` from `"1e+21"`.
 *
 * @throws RangeError for `NaN` and infinities.
 */
export function decimalOfNumber(value: number): Decimal {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${String(value)}`);
  const exact = new Exact(String(value));
  const plain = exact.abs().toFixed();
  const point = plain.indexOf(".");
  const scale = point < 0 ? 0 : plain.length - point - 1;
  return { value: exact, scale, significant: plain.replace(".", "").replace(/^0+/, "").length };
}

/** True when a price has at most 2 decimals (a price of files that name no currency). */
export function hasAtMostTwoDecimals(price: number): boolean {
  return Number(price.toFixed(2)) === price;
}

/** Decimals of a currency, or {@link DEFAULT_DECIMALS} without one. */
export function decimalsOf(currency: Currency | undefined): number {
  return currency?.decimals ?? DEFAULT_DECIMALS;
}

/**
 * Why the text of a price cannot be written in the currency, or `undefined` when it can: not plain
 * decimal digits, more decimals than the currency has (with a hint when the text reads like a thousands
 * separator: `24.900` in COP), or more significant digits than a JSON number carries exactly.
 *
 * @param text - the price as the file writes it (the YAML scalar's source).
 */
export function priceTextProblem(text: string, currency: Currency): string | undefined {
  const d = parsePriceText(text);
  if (!d)
    return `price ${shown(text)} is not written as a plain decimal number: write digits with an optional decimal point, for example ${example(currency)}`;
  if (d.scale > currency.decimals) {
    const has = currency.decimals === 0 ? "none" : `at most ${currency.decimals}`;
    const written = text.trim();
    const grouped = /^\d{1,3}(\.\d{3})+$/.test(written);
    // `24.900` in a currency without decimals is a thousands separator; in one with decimals it is a
    // price with a decimal too many (never read as 1000 times the price: 6.905 in BRL is R$ 6,91).
    const hint =
      grouped && currency.decimals === 0
        ? `: if you meant ${shown(written.replace(/\./g, ""))}, write it without the thousands separator`
        : currency.decimals === 0
          ? ": write whole amounts"
          : `: round it to ${currency.decimals} decimals (${d.value.round(currency.decimals, Big.roundHalfUp).toFixed(currency.decimals)})`;
    return `price ${shown(text.trim())} has ${d.scale} decimal${d.scale === 1 ? "" : "s"}, but ${currency.code} prices have ${has}${hint}`;
  }
  if (d.significant > MAX_SIGNIFICANT_DIGITS)
    return `price ${shown(text.trim())} has more than ${MAX_SIGNIFICANT_DIGITS} significant digits, more than the platform's JSON number carries exactly`;
  return undefined;
}

/**
 * What to say of a price written with a comma, which YAML reads as text (`25,900`, `6,90`), or
 * `undefined` when the value is not such a text. A comma that groups thousands (`25,900`,
 * `1,234.50`) is dropped when the currency has no decimals or groups with a comma; otherwise the comma
 * is read as the decimal mark (`6,90` → 6.90, `25,900` in BRL → 25.90), rounded to the currency's
 * decimals: a hint never multiplies a price by 1000.
 *
 * @param value - the value the file holds where a price was expected.
 * @param currency - carte.yaml's currency, when it declares one.
 */
export function commaPriceProblem(value: unknown, currency: Currency | undefined): string | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (!/^[+-]?\d[\d,]*(\.\d+)?$/.test(text) || !text.includes(",")) return undefined;
  const decimals = decimalsOf(currency);
  const grouping = /^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/.test(text);
  const start = `price "${shown(text)}" is written with a comma, which YAML reads as text`;
  if (grouping && currency === undefined && !text.includes("."))
    return `${start}: write ${shown(text.replace(/,/g, ""))} if the comma separates thousands, or ${shown(new Exact(text.replace(/,/g, ".").replace(/\.(?=.*\.)/g, "")).round(2, Big.roundHalfUp).toFixed(2))} if it is the decimal mark`;
  if (grouping && (decimals === 0 || currency?.thousands === "," || text.includes(".")))
    return `${start}: write ${shown(text.replace(/,/g, ""))}, without the thousands separator`;
  const decimal = /^[+-]?\d+,\d+$/.test(text) ? text.replace(",", ".") : undefined;
  if (decimal === undefined)
    return `${start}: write digits with an optional decimal point, for example ${currency ? example(currency) : "12.50"}`;
  const rounded = new Exact(decimal).round(decimals, Big.roundHalfUp).toFixed(decimals);
  const sep = grouping ? " (prices in files have no thousands separator)" : "";
  return `${start}: write ${rounded}, with a decimal point${sep}`;
}

/** Most characters of a price's text a message quotes (as src/source/quote.ts quotes values). */
const PRICE_TEXT_SHOWN = 40;

/** The text of a price for a message: a hostile file's 100,000-digit number is cut, marked `…`. */
function shown(text: string): string {
  return text.length > PRICE_TEXT_SHOWN ? `${text.slice(0, PRICE_TEXT_SHOWN)}…` : text;
}

/** An example price of the currency, as it is written in files: `24900`, `12.50`. */
function example(currency: Currency): string {
  return currency.decimals === 0 ? "24900" : `12.${"5".padEnd(currency.decimals, "0")}`;
}

/** Groups the digits of a whole number by thousands. */
function group(digits: string, separator: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, separator);
}

/**
 * A price as people of the currency read it: `$24.900` (COP), `R$ 12,50` (BRL), `$1,234.50` (MXN).
 * Shown with the currency's decimals, or with more when the value has more (never rounded). Without a
 * currency, the number as the platform writes it (`24900`, `12.5`).
 */
export function formatPrice(value: number, currency: Currency | undefined): string {
  if (!currency || !Number.isFinite(value)) return String(value);
  const d = decimalOfNumber(value);
  return formatDecimal(d.value, Math.max(d.scale, currency.decimals), currency);
}

/** `value` with `decimals` decimals (enough for it: never rounded) as the currency writes it. */
function formatDecimal(value: Big, decimals: number, currency: Currency): string {
  const fixed = value.abs().toFixed(decimals);
  const [whole = "0", fraction = ""] = fixed.split(".");
  const amount = group(whole, currency.thousands) + (fraction ? currency.decimal + fraction : "");
  return `${value.lt("0") ? "-" : ""}${currency.symbol}${currency.space ? " " : ""}${amount}`;
}

/**
 * An amount of money given as exact decimal text (`"2865.02"`, `"-3.50"`, the finance reports'
 * hundredths) as people of the currency read it, as plans show prices: `$2.865,02` (COP), `R$ 2.865,02`
 * (BRL), `-$3.50` (USD). With the currency's decimals, or two when the amount has cents the currency
 * does not write (`$30,30` in COP, `$95` for 95.00): never rounded. Without a currency, or for text that
 * is not a plain decimal, the text as given.
 */
export function formatAmount(text: string, currency: Currency | undefined): string {
  const d = currency === undefined ? undefined : parsePriceText(text);
  if (currency === undefined || d === undefined) return text;
  // The decimals the amount needs once trailing zeros are dropped (`95.00` needs none).
  const plain = d.value.abs().toFixed();
  const needed = plain.includes(".") ? plain.length - plain.indexOf(".") - 1 : 0;
  const decimals = needed <= currency.decimals ? currency.decimals : Math.max(needed, 2);
  return formatDecimal(d.value, decimals, currency);
}

/**
 * Whether a price change is larger than `percent` % of the old price, exactly (no floating point):
 * `|after − before| × 100 > percent × before`. A price that was 0 has no share to change by: `false`.
 */
export function priceChangeExceeds(before: number, after: number, percent: number): boolean {
  // Whole numbers whose products stay below 2^53 are exact in floating point: no decimals needed (a
  // catalog change is judged in every store).
  if (Number.isSafeInteger(before) && Number.isSafeInteger(after) && Number.isSafeInteger(percent)) {
    const change = Math.abs(after - before) * 100;
    const limit = percent * before;
    if (Number.isSafeInteger(change) && Number.isSafeInteger(limit)) return before > 0 && change > limit;
  }
  const b = decimalOfNumber(before).value;
  if (b.lte("0")) return false;
  const change = decimalOfNumber(after).value.minus(b).abs().times("100");
  return change.gt(decimalOfNumber(percent).value.times(b));
}

/**
 * The change of a price in percent of the old price, rounded half away from zero to one decimal for
 * people (`+900 %`, `-12.5 %`). Display only: decisions use {@link priceChangeExceeds}.
 */
export function priceChangeText(before: number, after: number): string {
  const b = decimalOfNumber(before).value;
  if (b.eq("0")) return "from 0";
  const change = decimalOfNumber(after).value.minus(b).times("100").div(b).round(1, Big.roundHalfUp);
  return `${change.lt("0") ? "-" : "+"}${change.abs().toString()} %`;
}

/**
 * How a price rule rounds a marked-up price: to the next (`up`) or the nearest (`nearest`, halves up)
 * amount that is `ending` more than a multiple of `modulus` (`ending` 0.90 and modulus 1: 32.90; ending
 * 0 and modulus 100, a step of 100: 32.900). Both are exact decimal texts; `0 ≤ ending < modulus`.
 */
export interface PriceRounding {
  modulus: string;
  ending: string;
  round: "up" | "nearest";
}

/** One price rule's effect on one price: the exact texts of each step, for `carte explain`. */
export interface RuledPrice {
  /** The price after the markup, exact (`32.89` for 29.90 + 10 %). */
  marked: string;
  /** The price after the rounding (the currency's decimals when the rule writes none), exact. */
  price: string;
}

/**
 * Applies a markup in percent (negative for a discount) and a rounding to a price, exactly:
 * `price × (100 + percent) / 100`, then rounded as `rounding` says, or, without one, half up to
 * `decimals` (the currency's). `percent` is exact decimal text (read from the file's text).
 *
 * @param price - the catalog price, a JSON number (read from its shortest text, see the module comment).
 * @returns the exact texts of the marked-up and the rounded price; the rounded price is never negative
 *   when `percent ≥ -100` (rounding up or to the nearest amount of an ending goes to the next one above
 *   zero when the one below would be negative).
 */
export function applyPriceRule(
  price: number,
  percent: string,
  rounding: PriceRounding | undefined,
  decimals: number,
): RuledPrice {
  const marked = decimalOfNumber(price)
    .value.times(new Exact("100").plus(new Exact(percent)))
    .div("100");
  if (!rounding)
    return { marked: marked.toFixed(), price: marked.round(decimals, Big.roundHalfUp).toFixed() };
  const modulus = new Exact(rounding.modulus);
  const ending = new Exact(rounding.ending);
  // The amount of the ending at or below the marked price: floor((marked − ending) / modulus).
  const t = marked.minus(ending).div(modulus);
  let q = t.round(0, Big.roundDown);
  if (q.gt(t)) q = q.minus("1");
  const below = q.times(modulus).plus(ending);
  const above = below.eq(marked) ? below : below.plus(modulus);
  let out = above;
  if (rounding.round === "nearest" && below.gte("0") && marked.minus(below).lt(above.minus(marked)))
    out = below;
  return { marked: marked.toFixed(), price: out.toFixed() };
}
