import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MoneyError } from "../../src/errors.js";
import { formatCents, parseMoney, sumCents, toCents } from "../../src/finance/cents.js";

const cents = (v: unknown): bigint => toCents(v);

describe("money: exact hundredths", () => {
  it("reads JSON numbers exactly where float arithmetic drifts", () => {
    expect(0.1 + 0.2).not.toBe(0.3); // the trap
    expect(cents(0.1) + cents(0.2)).toBe(cents(0.3));
    expect(formatCents(cents(0.1) + cents(0.2))).toBe("0.30");
    expect(0.29 * 100).not.toBe(29); // 28.999999999999996
    expect(cents(0.29)).toBe(29n);
    expect(cents(1.15)).toBe(115n); // 114.99999999999999 in doubles
    expect(cents(4.35)).toBe(435n);
    // Ten thousand times 0.01 adds up to exactly 100.00.
    expect(formatCents(sumCents(Array.from({ length: 10_000 }, () => cents(0.01))))).toBe("100.00");
  });

  it("reads integers, one and two decimals, negatives, zero and strings", () => {
    expect(cents(0)).toBe(0n);
    expect(cents(-0)).toBe(0n);
    expect(cents(42)).toBe(4200n);
    expect(cents(24.9)).toBe(2490n);
    expect(cents(24.99)).toBe(2499n);
    expect(cents(-81.24)).toBe(-8124n);
    expect(cents(-0.05)).toBe(-5n);
    expect(cents("12.5")).toBe(1250n);
    expect(cents(" -3.10 ")).toBe(-310n);
    expect(cents("+7")).toBe(700n);
    expect(cents("1.500")).toBe(150n); // trailing zeros lose nothing
    expect(cents("1.5e2")).toBe(15000n);
    expect(cents(1e-2)).toBe(1n);
    expect(cents(123456789012.34)).toBe(12345678901234n);
  });

  it("refuses more than two decimals, non-numbers and amounts too large to be exact", () => {
    for (const bad of [1.005, "0.001", 0.30000000000000004, "12.345", 1e-7]) {
      const r = parseMoney(bad);
      expect(r.ok).toBe(false);
      expect(r.ok ? "" : r.reason).toContain("more than 2 decimals");
    }
    for (const bad of ["", "abc", "1,50", ".5", "1.2.3", null, undefined, true, {}, Number.NaN, Infinity]) {
      expect(parseMoney(bad).ok).toBe(false);
    }
    expect(parseMoney(1e14).ok).toBe(false); // above 2^53 hundredths
    expect(() => toCents(1.005, "payment 7 total_amount")).toThrow(MoneyError);
    expect(() => toCents(1.005, "payment 7 total_amount")).toThrow(
      "payment 7 total_amount has more than 2 decimals (1.005)",
    );
  });

  it("renders fixed two-decimal strings", () => {
    expect(formatCents(0n)).toBe("0.00");
    expect(formatCents(5n)).toBe("0.05");
    expect(formatCents(-5n)).toBe("-0.05");
    expect(formatCents(-123456n)).toBe("-1234.56");
    expect(formatCents(100n)).toBe("1.00");
  });

  it("round-trips every two-decimal amount (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: -9_000_000_000_000, max: 9_000_000_000_000 }), (n) => {
        const text = formatCents(BigInt(n));
        expect(cents(Number(text))).toBe(BigInt(n));
        expect(cents(text)).toBe(BigInt(n));
      }),
    );
  });
});
