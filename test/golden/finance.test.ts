import { describe, expect, it } from "vitest";
import { normalizeReads, renderCsv, renderExport, renderTable } from "../../src/finance/export.js";
import { reconcile } from "../../src/finance/reconcile.js";
import {
  renderReconcileCsv,
  renderReconcileMarkdown,
  renderReconcileReport,
} from "../../src/finance/reconciliation-report.js";
import { sampleInput } from "../finance/fixtures.js";
import { currencyOf } from "../../src/money.js";

const scope = {
  stores: ["900101", "900102"],
  dateField: "expected_execution_date",
  from: "2025-01-01",
  to: "2025-02-28",
};

describe("finance reports (golden)", () => {
  it("renders the reconciliation as Markdown", async () => {
    await expect(renderReconcileMarkdown(reconcile(sampleInput()), scope)).toMatchFileSnapshot(
      "./expected/finance-reconcile.md",
    );
  });

  it("renders the reconciliation as CSV", async () => {
    await expect(renderReconcileCsv(reconcile(sampleInput()))).toMatchFileSnapshot(
      "./expected/finance-reconcile.csv",
    );
  });

  it("renders a clean reconciliation as Markdown", async () => {
    const input = sampleInput();
    input.payments = input.payments.filter((p) => [1001, 1006].includes(p.entry.id));
    input.otherPaymentIds = [1000, 1002, 1003, 1004, 1005, 999999];
    await expect(renderReconcileMarkdown(reconcile(input), scope)).toMatchFileSnapshot(
      "./expected/finance-reconcile-clean.md",
    );
  });

  it("renders exports: payments CSV, cancellations CSV and table", async () => {
    const input = sampleInput();
    const payments = normalizeReads("payments", [
      { storeId: "900101", entries: input.payments.slice(0, 2).map((p) => p.entry) },
    ]);
    await expect(renderCsv("payments", payments)).toMatchFileSnapshot("./expected/finance-payments.csv");
    const cancellations = normalizeReads("cancellations", [
      { storeId: "900101", entries: input.cancellations.map((c) => c.entry) },
    ]);
    await expect(renderCsv("cancellations", cancellations)).toMatchFileSnapshot(
      "./expected/finance-cancellations.csv",
    );
    await expect(renderTable("cancellations", cancellations)).toMatchFileSnapshot(
      "./expected/finance-cancellations.txt",
    );
  });

  it("shows amounts for people in the project's currency, and keeps CSV amounts numbers", async () => {
    const brl = currencyOf("BRL")!;
    const r = reconcile(sampleInput());
    const md = renderReconcileMarkdown(r, scope, brl);
    // `$` is escaped: GitHub Markdown reads `$…$` as math.
    expect(md).toContain("| Σ actual (total_amount) | R&#36; ");
    expect(md).not.toMatch(/\| -?\d+\.\d{2} \|/);
    await expect(md).toMatchFileSnapshot("./expected/finance-reconcile-brl.md");
    expect(renderReconcileReport("csv", r, scope, brl)).toBe(renderReconcileCsv(r));
    const input = sampleInput();
    const cancellations = normalizeReads("cancellations", [
      { storeId: "900101", entries: input.cancellations.map((c) => c.entry) },
    ]);
    const table = renderExport("cancellations", "table", cancellations, brl);
    expect(table).toContain("2 charged cancellations, sum of amount: -R$ 5,80\n");
    await expect(table).toMatchFileSnapshot("./expected/finance-cancellations-brl.txt");
    expect(renderExport("cancellations", "csv", cancellations, brl)).toBe(
      renderCsv("cancellations", cancellations),
    );
  });
});
