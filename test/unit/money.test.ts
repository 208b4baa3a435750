import { describe, expect, it } from "vitest";
import {
  currencyOf,
  formatAmount,
  formatPrice,
  parsePriceText,
  priceChangeExceeds,
  priceChangeText,
  priceTextProblem,
} from "../../src/money.js";

const COP = currencyOf("COP")!;
const BRL = currencyOf("BRL")!;

describe("currencies", () => {
  it("knows ISO 4217 codes and refuses others", () => {
    expect(COP).toMatchObject({ code: "COP", decimals: 0, symbol: "$" });
    expect(BRL).toMatchObject({ code: "BRL", decimals: 2, symbol: "R$" });
    expect(currencyOf("JPY")).toMatchObject({ code: "JPY", decimals: 0 });
    expect(currencyOf("XYZ")).toBeUndefined();
    expect(currencyOf("cop")).toBeUndefined();
    expect(currencyOf("toString")).toBeUndefined();
  });
});

describe("formatAmount", () => {
  it("writes a finance amount's two-decimal text as plans write prices, never rounding", () => {
    expect(formatAmount("2865.02", BRL)).toBe("R$ 2.865,02");
    expect(formatAmount("-3.50", BRL)).toBe("-R$ 3,50");
    expect(formatAmount("2865.00", COP)).toBe("$2.865");
    expect(formatAmount("30.30", COP)).toBe("$30,30");
    expect(formatAmount("0.00", currencyOf("MXN"))).toBe("$0.00");
    expect(formatAmount("1234567.50", currencyOf("MXN"))).toBe("$1,234,567.50");
  });

  it("keeps the text without a currency, or when it is not a plain decimal", () => {
    expect(formatAmount("2865.02", undefined)).toBe("2865.02");
    expect(formatAmount("unreadable", BRL)).toBe("unreadable");
  });
});

describe("formatPrice", () => {
  it("writes prices as people of the currency read them", () => {
    expect(formatPrice(24900, COP)).toBe("$24.900");
    expect(formatPrice(1249000, COP)).toBe("$1.249.000");
    expect(formatPrice(0, COP)).toBe("$0");
    expect(formatPrice(12.5, BRL)).toBe("R$ 12,50");
    expect(formatPrice(1234.05, BRL)).toBe("R$ 1.234,05");
    expect(formatPrice(0.1, BRL)).toBe("R$ 0,10");
    expect(formatPrice(1234567.5, currencyOf("MXN"))).toBe("$1,234,567.50");
    expect(formatPrice(5, currencyOf("EUR"))).toBe("EUR 5.00");
  });

  it("never rounds: a value with more decimals than the currency shows them", () => {
    expect(formatPrice(24.9, COP)).toBe("$24,9");
  });

  it("writes the bare number without a currency", () => {
    expect(formatPrice(24900, undefined)).toBe("24900");
    expect(formatPrice(12.5, undefined)).toBe("12.5");
  });
});

describe("price texts", () => {
  it("reads plain decimals exactly, trailing zeros counted", () => {
    expect(parsePriceText("12.50")).toMatchObject({ scale: 2, significant: 4 });
    expect(parsePriceText("12.50")?.value.toString()).toBe("12.5");
    expect(parsePriceText("24900")).toMatchObject({ scale: 0, significant: 5 });
    expect(parsePriceText("24900")?.value.toFixed()).toBe("24900");
    expect(parsePriceText("1e3")).toBeUndefined();
    expect(parsePriceText("0x10")).toBeUndefined();
  });

  it("refuses more decimals than the currency has, with a hint for thousands separators", () => {
    expect(priceTextProblem("24.900", COP)).toBe(
      "price 24.900 has 3 decimals, but COP prices have none: if you meant 24900, write it without the thousands separator",
    );
    expect(priceTextProblem("24.9", COP)).toBe(
      "price 24.9 has 1 decimal, but COP prices have none: write whole amounts",
    );
    expect(priceTextProblem("12.505", BRL)).toBe(
      "price 12.505 has 3 decimals, but BRL prices have at most 2: round it to 2 decimals (12.51)",
    );
    expect(priceTextProblem("12.505", currencyOf("MXN")!)).toBe(
      "price 12.505 has 3 decimals, but MXN prices have at most 2: round it to 2 decimals (12.51)",
    );
    expect(priceTextProblem("12.5051", BRL)).toBe(
      "price 12.5051 has 4 decimals, but BRL prices have at most 2: round it to 2 decimals (12.51)",
    );
    expect(priceTextProblem("24900", COP)).toBeUndefined();
    expect(priceTextProblem("12.50", BRL)).toBeUndefined();
    expect(priceTextProblem("1234567890123456", COP)).toContain("more than 15 significant digits");
    expect(priceTextProblem("0x10", BRL)).toContain("is not written as a plain decimal number");
  });
});

describe("price changes", () => {
  it("compares the change with a share of the old price exactly", () => {
    expect(priceChangeExceeds(24900, 249000, 50)).toBe(true);
    expect(priceChangeExceeds(100, 150, 50)).toBe(false);
    expect(priceChangeExceeds(100, 150.01, 50)).toBe(true);
    expect(priceChangeExceeds(0.1, 0.15, 50)).toBe(false); // 0.15 - 0.1 is 0.04999… in floating point
    expect(priceChangeExceeds(0.1, 0.16, 50)).toBe(true);
    expect(priceChangeExceeds(100, 49, 50)).toBe(true);
    expect(priceChangeExceeds(0, 1000, 50)).toBe(false);
    expect(priceChangeExceeds(100, 112.5, 12.5)).toBe(false);
  });

  it("judges whole prices exactly, at the edge of the percentage and beyond 2^53", () => {
    // |after − before| × 100 > percent × before, in whole numbers (BigInt): the reference.
    const exceeds = (b: number, a: number, p: number) =>
      b > 0 &&
      (BigInt(a) - BigInt(b) < 0n ? BigInt(b) - BigInt(a) : BigInt(a) - BigInt(b)) * 100n >
        BigInt(p) * BigInt(b);
    const cases: [number, number, number][] = [
      [20000, 30000, 50],
      [20000, 30001, 50],
      [20000, 9999, 50],
      [20000, 10000, 50],
      [-5, 100, 50],
      [2 ** 52, 2 ** 53 - 1, 99],
      [2 ** 50, 2 ** 50 + 2 ** 44, 1],
      [2 ** 50, 2 ** 50 + 2 ** 44 + 1, 1],
      [Number.MAX_SAFE_INTEGER, 1, 99],
      [Number.MAX_SAFE_INTEGER - 1, Number.MAX_SAFE_INTEGER, 0],
    ];
    for (const [b, a, p] of cases)
      expect(priceChangeExceeds(b, a, p), `${b} → ${a} at ${p} %`).toBe(exceeds(b, a, p));
  });

  it("shows the change in percent", () => {
    expect(priceChangeText(24900, 249000)).toBe("+900 %");
    expect(priceChangeText(100, 87.5)).toBe("-12.5 %");
    expect(priceChangeText(3, 1)).toBe("-66.7 %");
  });
});

describe("numbers the platform writes in exponent form", () => {
  it("reads them exactly, never through the float's binary value", () => {
    expect(formatPrice(1e-7, BRL)).toBe("R$ 0,0000001");
    expect(formatPrice(1e21, COP)).toBe("$1.000.000.000.000.000.000.000");
    expect(priceChangeExceeds(0.1, 0.15, 50)).toBe(false);
    expect(priceChangeExceeds(0.1, 0.1500001, 50)).toBe(true);
    expect(priceChangeText(3, 4)).toBe("+33.3 %");
  });
});
