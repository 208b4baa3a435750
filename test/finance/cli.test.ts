import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FinanceReader } from "../../src/finance/reader.js";
import { csvColumns } from "../../src/finance/export.js";
import type { WireOrder, WirePayment } from "../../src/finance/records.js";
import { carte } from "../helpers/project.js";
import { STORES, financeProject, parseCsv, type FinanceProject } from "./helpers.js";

let fx: FinanceProject | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const financeCalls = (f: FinanceProject) => f.emu.requests.filter((r) => r.path.includes("/finance/"));

describe("carte finance exports", () => {
  it("exports every entry once in CSV, JSON and NDJSON, the same whatever the page size", async () => {
    fx = await financeProject();
    for (const kind of ["payments", "orders", "adjustments", "cancellations"] as const) {
      const json = await carte(["finance", kind, "-c", fx.config, "--format", "json", "--page-size", "100"]);
      expect(json.code).toBe(0);
      const small = await carte([
        "finance",
        kind,
        "-c",
        fx.config,
        "--format",
        "json",
        "--page-size",
        "3",
        "-q",
      ]);
      expect(small.out).toBe(json.out);
      const records = JSON.parse(json.out) as { id: number; source_store_id: string }[];
      expect(records.length).toBeGreaterThan(0);
      expect(new Set(records.map((r) => `${r.source_store_id}:${r.id}`)).size).toBe(records.length);
      expect(new Set(records.map((r) => r.source_store_id))).toEqual(new Set(STORES));

      const ndjson = await carte(["finance", kind, "-c", fx.config, "--format", "ndjson"]);
      const lines = ndjson.out.trimEnd().split("\n");
      expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(records);

      const out = path.join(fx.dir, `${kind}.csv`);
      const csv = await carte(["finance", kind, "-c", fx.config, "--out", out]);
      expect(csv.code).toBe(0);
      expect(csv.err).toContain(`to ${out}`);
      // The export ends with its calls' success rate.
      expect(csv.err).toMatch(/^\d+ calls to the platform, 100\.0 % succeeded\.$/m);
      const text = readFileSync(out, "utf8");
      expect(text.split("\n")[0]).toBe(csvColumns(kind).join(","));
      const rows = parseCsv(text);
      expect(rows.map((r) => Number(r.id))).toEqual(records.map((r) => r.id));
      // Money and nested fields, flattened.
      const money = kind === "payments" ? "total_amount" : "amount";
      for (const [row, rec] of rows.map((r, i) => [r, records[i] as Record<string, unknown>] as const)) {
        expect(row[money]).toMatch(/^-?\d+\.\d{2}$/);
        expect(row[money]).toBe(rec[money]);
        if (kind === "payments") {
          expect(row["bank_account.document.holder_name"]).toBe(
            ((rec.bank_account as Record<string, unknown>).document as Record<string, string>).holder_name,
          );
        } else {
          expect(row["billing.total_order"]).toBe((rec.billing as Record<string, string>).total_order);
          expect(JSON.parse(row.items!)).toEqual(rec.items);
        }
      }
    }
  });

  it("filters by store, dates, payment and status, and shows a table by default", async () => {
    fx = await financeProject();
    const reader = new FinanceReader(fx.client);
    const [p] = await reader.readStores("payments", ["900102"]);
    const payment = p!.entries[4]!;
    const run = await carte([
      "finance",
      "orders",
      "-c",
      fx.config,
      "--store",
      "bog-chapinero",
      "--payment-id",
      String(payment.id),
      "--format",
      "json",
    ]);
    const orders = JSON.parse(run.out) as WireOrder[];
    expect(orders.length).toBeGreaterThan(0);
    expect(orders.every((o) => o.payment_id === payment.id && String(o.store_id) === "900102")).toBe(true);

    const from = payment.period_date_start.slice(0, 10);
    const to = payment.period_date_end.slice(0, 10);
    fx.emu.clearRequests();
    const table = await carte([
      "finance",
      "orders",
      "-c",
      fx.config,
      "--store",
      "900102",
      "--from",
      from,
      "--to",
      to,
    ]);
    expect(table.code).toBe(0);
    expect(financeCalls(fx).map((r) => r.query)).toEqual([
      `page_number=1&page_size=100&order_date:gte=${from}&order_date:lte=${to}`,
    ]);
    expect(table.out.split("\n")[0]).toMatch(/^STORE\s+ID\s+PAYMENT\s+DATE\s+STATUS\s+METHOD\s+AMOUNT$/);
    // In the project's currency (COP), as plans show prices.
    expect(table.out).toMatch(/\n\d+ orders, sum of amount: \$\d{1,3}(\.\d{3})*(,\d{2})?\n$/);

    const payments = await carte([
      "finance",
      "payments",
      "-c",
      fx.config,
      "--store",
      "bog-*",
      "--from",
      payment.expected_execution_date.slice(0, 10),
      "--to",
      payment.expected_execution_date.slice(0, 10),
      "--format",
      "json",
    ]);
    const got = JSON.parse(payments.out) as { source_store_id: string; id: number }[];
    expect(got.map((g) => g.source_store_id)).toEqual(["900101", "900102"]);
    expect(got[1]!.id).toBe(payment.id);
    const confirmed = await carte([
      "finance",
      "payments",
      "-c",
      fx.config,
      "--date-field",
      "confirmed_payment_date",
      "--from",
      "2099-01-01",
    ]);
    expect(confirmed.out).toBe("No payments found.\n");
  });

  it("refuses bad dates, ids and stores before any call", async () => {
    fx = await financeProject();
    fx.emu.clearRequests();
    const cases: [string[], string][] = [
      [["finance", "payments", "--from", "2025-02-30"], '--from must be a date YYYY-MM-DD, not "2025-02-30"'],
      [["finance", "orders", "--to", "31/01/2025"], "--to must be a date YYYY-MM-DD"],
      [
        ["finance", "orders", "--from", "2025-03-01", "--to", "2025-02-01"],
        "--from 2025-03-01 is after --to",
      ],
      [["finance", "adjustments", "--payment-id", "12x"], "--payment-id must be a whole number"],
      [["finance", "cancellations", "--store", "nowhere"], '--store "nowhere" matches no store'],
      [
        ["finance", "orders", "--date-field", "confirmed_payment_date"],
        "--date-field applies to payments only",
      ],
      [["finance", "payments", "--page-size", "500"], "--page-size must be a whole number from 1 to 100"],
      [["finance", "reconcile", "--tolerance", "0.001"], "--tolerance must be an amount"],
      [["finance", "reconcile", "--from", "yesterday"], "--from must be a date"],
      [["finance"], "Name a finance command"],
    ];
    for (const [args, message] of cases) {
      const r = await carte([...args, "-c", fx.config]);
      expect([args.join(" "), r.code]).toEqual([args.join(" "), 1]);
      expect(r.err).toContain(message);
    }
    expect(financeCalls(fx)).toEqual([]);
  });
});

describe("carte finance reconcile", () => {
  it("reports zero discrepancies on consistent data (exit 0)", async () => {
    fx = await financeProject();
    const md = await carte(["finance", "reconcile", "-c", fx.config]);
    expect(md.code).toBe(0);
    expect(md.out).toContain("**All 36 payments match** their entries.");
    expect(md.out).not.toContain("## Discrepancies");
    expect(md.err).toContain("Reconciled 36 payments: 36 matched, 0 with a discrepancy, 0 orphan entries.");

    const out = path.join(fx.dir, "report.csv");
    const csv = await carte(["finance", "reconcile", "-c", fx.config, "--format", "csv", "--out", out, "-q"]);
    expect(csv.code).toBe(0);
    const rows = parseCsv(readFileSync(out, "utf8"));
    expect(rows).toHaveLength(36);
    expect(
      rows.every((r) => r.record === "payment" && r.status === "matched" && r.difference === "0.00"),
    ).toBe(true);

    // A period: only the payments executed in it, entries read over their periods.
    const feb = await carte([
      "finance",
      "reconcile",
      "-c",
      fx.config,
      "--from",
      "2025-02-01",
      "--to",
      "2025-02-28",
    ]);
    expect(feb.code).toBe(0);
    expect(feb.out).toContain("**All 12 payments match** their entries.");
  });

  it("finds each injected discrepancy, naming the payment and the entries (exit 2)", async () => {
    fx = await financeProject({
      discrepancies: [
        { store_id: 900101, payment_index: 1, kind: "amount", delta: -2.5 },
        { store_id: 900101, payment_index: 4, kind: "missing_entry" },
        { store_id: 900102, payment_index: 7, kind: "orphan_entry" },
      ],
    });
    const reader = new FinanceReader(fx.client);
    const [p1, p2] = await reader.readStores("payments", ["900101", "900102"]);
    const payments1 = p1!.entries as WirePayment[];
    const amountOff = payments1[1]!;
    const missing = payments1[4]!;
    const [orders1, orders2] = await reader.readStores("orders", ["900101", "900102"]);
    const known = new Set(p2!.entries.map((p) => p.id));
    const orphan = orders2!.entries.find((o) => !known.has(o.payment_id))!;
    expect(orphan).toBeDefined();

    const md = await carte(["finance", "reconcile", "-c", fx.config]);
    expect(md.code).toBe(2);
    expect(md.out).toContain("**2 discrepancies** in 36 payments (34 matched), **1 orphan entry**.");
    // Amounts in COP, `$` escaped for Markdown; the CSV below keeps numbers.
    expect(md.out).toContain(`### Payment ${amountOff.id} (store 900101): difference -&#36;2,50`);
    expect(md.out).toMatch(
      new RegExp(`### Payment ${missing.id} \\(store 900101\\): difference &#36;\\d[\\d.]*(,\\d{2})?\n`),
    );
    // The entries involved are listed under their payment.
    for (const o of orders1!.entries.filter((x) => x.payment_id === missing.id)) {
      expect(md.out).toContain(`| order | ${o.id} | 900101 |`);
    }
    expect(md.out).toContain("## Entries that belong to no payment");
    expect(md.out).toContain(
      `| order | ${orphan.id} | 900102 | ${orphan.order_date} | ${orphan.payment_id} |`,
    );

    const csv = await carte(["finance", "reconcile", "-c", fx.config, "--format", "csv"]);
    expect(csv.code).toBe(2);
    const rows = parseCsv(csv.out);
    const bad = rows.filter((r) => r.record === "payment" && r.status === "discrepancy");
    expect(bad.map((r) => Number(r.payment_id))).toEqual([amountOff.id, missing.id]);
    expect(bad[0]).toMatchObject({ store_ids: "900101", difference: "-2.50" });
    const missingOrders = orders1!.entries
      .filter((x) => x.payment_id === missing.id)
      .map((o) => String(o.id));
    expect(
      rows
        .filter(
          (r) => r.record === "entry" && r.payment_id === String(missing.id) && r.entry_kind === "order",
        )
        .map((r) => r.entry_id)
        .sort(),
    ).toEqual(missingOrders.sort());
    expect(rows.filter((r) => r.record === "orphan").map((r) => r.entry_id)).toEqual([String(orphan.id)]);

    // Limited to the stores and period without findings: exit 0.
    const other = await carte(["finance", "reconcile", "-c", fx.config, "--store", "med-poblado"]);
    expect(other.code).toBe(0);
    // A period holding only the orphan's payment period finds the orphan.
    const p7 = p2!.entries[7]!;
    const day = p7.expected_execution_date.slice(0, 10);
    const narrow = await carte([
      "finance",
      "reconcile",
      "-c",
      fx.config,
      "--store",
      "900102",
      "--from",
      day,
      "--to",
      day,
    ]);
    expect(narrow.code).toBe(2);
    expect(narrow.out).toContain("**0 discrepancies** in 1 payment (1 matched), **1 orphan entry**.");
  });

  it("finds an entry dated outside its payment's period by looking again by payment_id", async () => {
    fx = await financeProject({
      discrepancies: [{ store_id: 900101, payment_index: 2, kind: "amount", delta: 1 }],
    });
    const reader = new FinanceReader(fx.client);
    const [p] = await reader.readStores("payments", ["900101"]);
    const target = p!.entries[2]!;
    const day = target.expected_execution_date.slice(0, 10);
    fx.emu.clearRequests();
    const r = await carte([
      "finance",
      "reconcile",
      "-c",
      fx.config,
      "--store",
      "900101",
      "--from",
      day,
      "--to",
      day,
    ]);
    expect(r.code).toBe(2);
    expect(r.out).toContain(`### Payment ${target.id} (store 900101): difference &#36;1\n`);
    const second = financeCalls(fx).filter((c) => c.query.includes(`payment_id:eq=${target.id}`));
    expect(second.map((c) => c.path.split("/").pop()).sort()).toEqual([
      "charged_cancellations",
      "order_adjusments",
      "orders",
    ]);
  });

  it("applies the rule given by flags", async () => {
    fx = await financeProject();
    const r = await carte([
      "finance",
      "reconcile",
      "-c",
      fx.config,
      "--store",
      "900101",
      "--cancellations",
      "ignore",
    ]);
    // Some payments of the seeded data have a charged cancellation: ignoring it breaks them.
    expect(r.code).toBe(2);
    expect(r.out).toContain("total_amount = Σ orders.amount + Σ adjustments.amount; tolerance &#36;0 |");
    const tolerant = await carte([
      "finance",
      "reconcile",
      "-c",
      fx.config,
      "--store",
      "900101",
      "--adjustments",
      "ignore",
      "--tolerance",
      "100000",
    ]);
    expect(tolerant.code).toBe(0);
  });
});
