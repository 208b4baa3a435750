import { describe, expect, it } from "vitest";
import { DEFAULT_RULE, entryWindow, hasFindings, reconcile } from "../../src/finance/reconcile.js";
import { order, payment, sampleInput } from "./fixtures.js";

const at = <T>(entry: T, storeId = "900101") => ({ storeId, entry });

describe("reconcile (pure)", () => {
  it("matches, finds each kind of discrepancy, orphans, and entries of payments outside the scope", () => {
    const r = reconcile(sampleInput());
    const by = new Map(r.payments.map((p) => [p.paymentId, p]));
    expect(r.payments.map((p) => [p.paymentId, p.status])).toEqual([
      [1001, "matched"],
      [1002, "discrepancy"],
      [1003, "discrepancy"],
      [1004, "discrepancy"],
      [1005, "discrepancy"],
      [1006, "matched"],
    ]);
    expect(by.get(1001)).toMatchObject({ expected: 3030n, actual: 3030n, difference: 0n });
    expect(by.get(1001)!.entries.map((e) => `${e.kind}:${e.id}`)).toEqual([
      "order:1",
      "order:2",
      "adjustment:10",
      "cancellation:11",
    ]);
    expect(by.get(1002)).toMatchObject({ expected: 9750n, actual: 9500n, difference: -250n });
    expect(by.get(1003)).toMatchObject({ expected: 1010n, actual: 2510n, difference: 1500n });
    expect(by.get(1004)!.problems).toEqual(["order 5: amount has more than 2 decimals (5.005)"]);
    expect(by.get(1005)!.problems).toEqual(["no entry names this payment"]);
    expect(by.get(1006)).toMatchObject({ expected: 30n, actual: 30n, storeIds: ["900102"] });
    expect(r.orphans.map((o) => [o.kind, o.id, o.paymentId])).toEqual([["order", 8, 999999]]);
    expect(r.summary).toEqual({
      payments: 6,
      matched: 2,
      discrepancies: 4,
      orphans: 1,
      entries: 10,
      outOfScope: 1,
      expected: 3030n + 9750n + 1010n + 0n + 0n + 30n,
      actual: 3030n + 9500n + 2510n + 500n + 1200n + 30n,
    });
    expect(hasFindings(r)).toBe(true);
  });

  it("does not depend on the order of its input", () => {
    const a = sampleInput();
    const b = sampleInput();
    b.payments = [...b.payments].reverse();
    b.orders = [...b.orders].reverse();
    expect(reconcile(b)).toEqual(reconcile(a));
  });

  it("applies the rule: ignore or subtract cancellations, ignore adjustments, a tolerance", () => {
    const input = {
      payments: [at(payment(1, 97.5, "2025-01-06"))],
      orders: [at(order(1, 1, 100, "2025-01-06T10:00:00Z"))],
      adjustments: [at(order(2, 1, 1.25, "2025-01-06T10:00:00Z"))],
      // A platform that reports the charge as a positive number.
      cancellations: [at(order(3, 1, 3.75, "2025-01-07T10:00:00Z"))],
    };
    expect(reconcile(input).payments[0]).toMatchObject({ status: "discrepancy", expected: 10500n });
    const subtract = reconcile(input, { ...DEFAULT_RULE, cancellations: "subtract" });
    expect(subtract.payments[0]).toMatchObject({ status: "matched", expected: 9750n, difference: 0n });
    const noAdj = reconcile(input, { ...DEFAULT_RULE, cancellations: "subtract", adjustments: "ignore" });
    expect(noAdj.payments[0]).toMatchObject({ status: "discrepancy", expected: 9625n, difference: 125n });
    const tolerant = reconcile(input, {
      ...DEFAULT_RULE,
      cancellations: "subtract",
      adjustments: "ignore",
      tolerance: 125n,
    });
    expect(tolerant.payments[0]).toMatchObject({ status: "matched", difference: 125n });
    const ignore = reconcile(input, { ...DEFAULT_RULE, cancellations: "ignore" });
    expect(ignore.payments[0]!.entries.find((e) => e.kind === "cancellation")!.counted).toBe(0n);
  });

  it("merges a consolidated payment read from two stores, and counts an entry once", () => {
    const p = payment(7, 30, "2025-01-06", { consolidated_stores: [900101, 900102] });
    const r = reconcile({
      payments: [at(p, "900101"), at(p, "900102")],
      orders: [
        at(order(1, 7, 10, "2025-01-06T10:00:00Z", {}, 900101), "900101"),
        at(order(1, 7, 20, "2025-01-06T10:00:00Z", {}, 900102), "900102"),
        at(order(1, 7, 20, "2025-01-06T10:00:00Z", {}, 900102), "900102"),
      ],
      adjustments: [],
      cancellations: [],
    });
    expect(r.payments).toHaveLength(1);
    expect(r.payments[0]).toMatchObject({ status: "matched", storeIds: ["900101", "900102"] });
    expect(r.payments[0]!.entries).toHaveLength(2);
  });

  it("without otherPaymentIds an entry of an unchecked payment is an orphan; no data, no findings", () => {
    const r = reconcile({
      payments: [],
      orders: [at(order(1, 5, 10, "2025-01-06T10:00:00Z"))],
      adjustments: [],
      cancellations: [],
    });
    expect(r.orphans).toHaveLength(1);
    const empty = reconcile({ payments: [], orders: [], adjustments: [], cancellations: [] });
    expect(hasFindings(empty)).toBe(false);
  });

  it("reads entries over the periods of the payments, widened to the asked days", () => {
    const ps = [payment(1, 1, "2025-01-13"), payment(2, 1, "2025-01-06")];
    expect(entryWindow(ps)).toEqual({ from: "2025-01-06", to: "2025-01-19" });
    expect(entryWindow(ps, "2025-01-01", "2025-01-31")).toEqual({ from: "2025-01-01", to: "2025-01-31" });
    expect(entryWindow([], "2025-01-01", undefined)).toEqual({ from: "2025-01-01", to: undefined });
  });
});
