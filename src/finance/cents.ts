/**
 * Money without floating-point drift (docs/finance.md, "Money").
 *
 * The platform sends money as JSON numbers in the currency's major unit (`24.9`, `-3.5`;
 * docs/platform-api.md §4.8). carte never adds those numbers: each one is converted, exactly, to a `bigint`
 * count of **hundredths** ("cents") from its decimal text, all sums are made on those integers, and amounts
 * are shown again as fixed two-decimal strings (`"24.90"`, `"-3.50"`).
 *
 * Why this is exact: `JSON.parse` turns the text `24.9` into the double nearest to 24.9, and
 * `String(double)` gives back the shortest decimal text that parses to the same double. For every
 * decimal with at most 15 significant digits that text is the one the platform wrote, so reading its
 * digits loses nothing, provided that the amount is below 2^53 hundredths (about 90 trillion in the
 * major unit); larger amounts are refused because a double cannot tell them apart from their
 * neighbours. An amount with a non-zero third decimal is refused too: carte does not round money.
 */

import { MoneyError } from "../errors.js";
import { formatAmount, type Currency } from "../money.js";

/** Hundredths of the currency's major unit. */
export type Cents = bigint;

/** Outcome of {@link parseMoney}. */
export type MoneyParse = { ok: true; cents: Cents } | { ok: false; reason: string };

/** The largest magnitude, in the major unit, that a JSON number can carry exactly with two decimals. */
export const MAX_EXACT_MONEY = Number.MAX_SAFE_INTEGER / 100;

const DECIMAL = /^([+-])?(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * Reads a money value: a JSON number, or a string of decimal digits (some platforms send strings),
 * optionally signed, with an optional fraction and exponent. Returns hundredths, or why it cannot.
 * Never throws.
 *
 * @example parseMoney(0.29) // { ok: true, cents: 29n }   (0.29 * 100 is 28.999999999999996 in doubles)
 * @example parseMoney(1.005) // { ok: false, reason: "has more than 2 decimals (1.005)" }
 */
export function parseMoney(value: unknown): MoneyParse {
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return { ok: false, reason: `is not a finite number (${String(value)})` };
    if (Math.abs(value) > MAX_EXACT_MONEY) {
      return { ok: false, reason: `is too large to be exact in a JSON number (${String(value)})` };
    }
    text = String(value);
  } else if (typeof value === "string") {
    text = value.trim();
  } else {
    return {
      ok: false,
      reason: `is not a number (${value === undefined ? "missing" : JSON.stringify(value)})`,
    };
  }
  const m = DECIMAL.exec(text);
  if (!m) return { ok: false, reason: `is not a decimal number (${text})` };
  const negative = m[1] === "-";
  let digits = m[2]! + (m[3] ?? "");
  // Position of the decimal point counted from the right of `digits`, after the exponent.
  let scale = (m[3] ?? "").length - Number(m[4] ?? "0");
  if (scale < 0) {
    digits += "0".repeat(-scale);
    scale = 0;
  }
  if (scale > 2) {
    const dropped = digits.slice(digits.length - (scale - 2));
    if (/[^0]/.test(dropped)) return { ok: false, reason: `has more than 2 decimals (${text})` };
    digits = digits.slice(0, digits.length - (scale - 2));
    scale = 2;
  }
  digits += "0".repeat(2 - scale);
  const cents = BigInt(digits);
  return { ok: true, cents: negative ? -cents : cents };
}

/**
 * Like {@link parseMoney} but throws.
 * @param what names the value in the error, e.g. `payment 123 total_amount`.
 * @throws MoneyError when the value is not a number, has more than 2 decimals or is too large.
 */
export function toCents(value: unknown, what = "amount"): Cents {
  const r = parseMoney(value);
  if (!r.ok) throw new MoneyError(`${what} ${r.reason}`);
  return r.cents;
}

/** Renders hundredths as a fixed two-decimal string with a leading `-` when negative: `-1234n` → `"-12.34"`. */
export function formatCents(cents: Cents): string {
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  const units = abs / 100n;
  const rest = abs % 100n;
  return `${negative ? "-" : ""}${units.toString()}.${rest.toString().padStart(2, "0")}`;
}

/**
 * Hundredths as people of the project's currency read them, as plans show prices (src/money.ts
 * `formatAmount`): `-1234n` → `-R$ 12,34` (BRL), `-$12,34` (COP); without a currency, `-12.34`. For the
 * reports people read; files for machines keep {@link formatCents}.
 */
export function showCents(cents: Cents, currency: Currency | undefined): string {
  return formatAmount(formatCents(cents), currency);
}

/** Σ of hundredths. */
export function sumCents(values: Iterable<Cents>): Cents {
  let s = 0n;
  for (const v of values) s += v;
  return s;
}

/** Absolute value of hundredths. */
export function absCents(c: Cents): Cents {
  return c < 0n ? -c : c;
}
