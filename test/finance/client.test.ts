import { afterEach, describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors.js";
import { FinanceReader, financeQuery, type ReadResult } from "../../src/finance/reader.js";
import { exportEntries, filtersFor } from "../../src/finance/workflows.js";
import { FINANCE_KINDS, type FinanceKind } from "../../src/finance/records.js";
import { STORES, financeProject, type FinanceProject } from "./helpers.js";

let fx: FinanceProject | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const ids = (reads: ReadResult<{ id: number }>[]): number[] =>
  reads.flatMap((r) => r.entries.map((e) => e.id));

describe("finance reads against the emulator", () => {
  it("returns every entry exactly once whatever the page size, with bounded concurrency", async () => {
    fx = await financeProject();
    let inFlight = 0;
    let most = 0;
    const counting = {
      call: async <T>(method: string, path: string): Promise<T> => {
        inFlight++;
        most = Math.max(most, inFlight);
        try {
          return await fx!.client.call<T>(method, path);
        } finally {
          inFlight--;
        }
      },
    };
    for (const kind of FINANCE_KINDS) {
      fx.emu.clearRequests();
      const small = await new FinanceReader(counting, { pageSize: 3, concurrency: 3 }).readStores(
        kind,
        STORES,
      );
      const pagesSmall = fx.emu.requests.filter((r) => r.path.includes("/finance/")).length;
      fx.emu.clearRequests();
      const big = await new FinanceReader(fx.client, { pageSize: 100 }).readStores(kind, STORES);
      const pagesBig = fx.emu.requests.filter((r) => r.path.includes("/finance/")).length;

      const all = ids(small);
      expect(all.length).toBeGreaterThan(0);
      expect(new Set(all).size).toBe(all.length);
      expect(all).toEqual(ids(big));
      for (const r of small) {
        expect(r.entries).toHaveLength(r.totalEntries);
        expect(r.warnings).toEqual([]);
        expect(r.pages).toBe(Math.max(1, Math.ceil(r.totalEntries / 3)));
      }
      expect(pagesSmall).toBe(small.reduce((n, r) => n + r.pages, 0));
      expect(pagesBig).toBe(big.reduce((n, r) => n + r.pages, 0));
      expect(pagesBig).toBeLessThan(pagesSmall);
    }
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(3);
  });

  it("sends the filters as the spec spells them and the emulator applies them", async () => {
    fx = await financeProject();
    const reader = new FinanceReader(fx.client, { pageSize: 100 });
    const [all] = await reader.readStores("payments", ["900101"]);
    const payments = all!.entries;
    expect(payments).toHaveLength(12);
    const from = payments[2]!.expected_execution_date.slice(0, 10);
    const to = payments[5]!.expected_execution_date.slice(0, 10);

    fx.emu.clearRequests();
    const window = await reader.read("payments", "900101", {
      expectedExecutionFrom: from,
      expectedExecutionTo: to,
    });
    expect(window.entries.map((p) => p.id)).toEqual(payments.slice(2, 6).map((p) => p.id));
    expect(fx.emu.requests.find((r) => r.path.endsWith("/payments"))!.query).toBe(
      `page_number=1&page_size=100&expected_execution_date:gte=${from}&expect_execution_date:lte=${to}`,
    );

    const confirmedFrom = payments[10]!.confirmed_payment_date.slice(0, 10);
    const confirmed = await reader.read("payments", "900101", { confirmedPaymentFrom: confirmedFrom });
    expect(confirmed.entries.map((p) => p.id)).toEqual(payments.slice(10).map((p) => p.id));
    const one = await reader.read("payments", "900101", { paymentId: payments[3]!.id });
    expect(one.entries.map((p) => p.id)).toEqual([payments[3]!.id]);

    const orders = (await reader.read("orders", "900101")).entries;
    const target = payments[3]!.id;
    const ofPayment = await reader.read("orders", "900101", { paymentId: target });
    expect(ofPayment.entries.map((o) => o.id)).toEqual(
      orders.filter((o) => o.payment_id === target).map((o) => o.id),
    );
    const delivered = await reader.read("orders", "900101", { orderStatus: "delivered" });
    expect(delivered.entries.length).toBeGreaterThan(0);
    expect(delivered.entries.map((o) => o.id)).toEqual(
      orders.filter((o) => o.order_status === "delivered").map((o) => o.id),
    );
    const day = orders[5]!.order_date.slice(0, 10);
    const ofDay = await reader.read("orders", "900101", { orderDateFrom: day, orderDateTo: day });
    expect(ofDay.entries.map((o) => o.id)).toEqual(
      orders.filter((o) => o.order_date.startsWith(day)).map((o) => o.id),
    );
    const adj = await reader.read("adjustments", "900101", { paymentId: target, orderStatus: "finished" });
    expect(adj.entries.every((a) => a.payment_id === target)).toBe(true);
    const canc = await reader.read("cancellations", "900101", { orderDateTo: "2025-01-31" });
    expect(canc.entries.every((c) => c.order_date.slice(0, 10) <= "2025-01-31")).toBe(true);
  });

  it("filters payments by status and cancellations by order_status in carte, where the endpoint cannot", async () => {
    fx = await financeProject();
    const reader = new FinanceReader(fx.client);
    const paid = await exportEntries(reader, "payments", { stores: STORES, status: "PAID" });
    expect(paid.records).toHaveLength(36);
    expect((await exportEntries(reader, "payments", { stores: STORES, status: "PENDING" })).records).toEqual(
      [],
    );
    const canceled = await exportEntries(reader, "cancellations", { stores: ["900101"], status: "canceled" });
    expect(canceled.records.length).toBeGreaterThan(0);
    // No status parameter was sent to either endpoint (the emulator would answer 400).
    expect(fx.emu.requests.some((r) => r.query.includes("status"))).toBe(false);
  });

  it("checks filters and store ids before any call", async () => {
    fx = await financeProject();
    const reader = new FinanceReader(fx.client);
    fx.emu.clearRequests();
    const bad: [FinanceKind, object][] = [
      ["payments", { expectedExecutionFrom: "2025-1-6" }],
      ["payments", { confirmedPaymentTo: "2025-02-30" }],
      ["payments", { paymentId: "abc" }],
      ["payments", { orderDateFrom: "2025-01-01" }],
      ["orders", { orderStatus: "" }],
      ["cancellations", { orderStatus: "canceled" }],
    ];
    for (const [kind, filters] of bad) {
      await expect(reader.read(kind, "900101", filters)).rejects.toBeInstanceOf(UsageError);
    }
    await expect(reader.read("payments", "bog-centro")).rejects.toThrow("not a platform store id");
    expect(() => new FinanceReader(fx!.client, { pageSize: 101 })).toThrow(UsageError);
    expect(fx.emu.requests).toEqual([]);
  });

  it("maps --from/--to onto each endpoint's date filters", () => {
    const q = { stores: ["1"], from: "2025-01-01", to: "2025-01-31" };
    const query = (kind: FinanceKind, dateField?: "confirmed_payment_date") =>
      financeQuery(kind, filtersFor(kind, { ...q, dateField }).filters, 1, 100);
    expect(query("payments")).toBe(
      "page_number=1&page_size=100&expected_execution_date:gte=2025-01-01&expect_execution_date:lte=2025-01-31",
    );
    expect(query("payments", "confirmed_payment_date")).toBe(
      "page_number=1&page_size=100&confirmed_payment_date:gte=2025-01-01&confirmed_payment_date:lte=2025-01-31",
    );
    for (const kind of ["orders", "adjustments", "cancellations"] as const) {
      expect(query(kind)).toBe(
        "page_number=1&page_size=100&order_date:gte=2025-01-01&order_date:lte=2025-01-31",
      );
    }
    expect(financeQuery("orders", { orderStatus: "a b&c" }, 2, 10)).toBe(
      "page_number=2&page_size=10&order_status:eq=a%20b%26c",
    );
  });
});
