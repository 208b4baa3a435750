/**
 * Reports of a reconciliation (docs/finance.md, "Reconciliation"): Markdown for people and pull
 * requests, CSV for spreadsheets. Pure functions of a {@link Reconciliation} and its scope; money is
 * rendered from integer hundredths: in the project's currency in Markdown, as plans show prices
 * (`$2.865,02`), and as fixed two-decimal numbers in CSV, whose amount columns spreadsheets and tools
 * read as numbers (docs/finance.md).
 */

import { escapeMarkdown } from "../render/escape.js";
import { spreadsheetCsv } from "./csv.js";
import type { Currency } from "../money.js";
import { formatCents, showCents, type Cents } from "./cents.js";
import type { EntryLine, PaymentResult, ReconcileRule, ReconcileScope, Reconciliation } from "./reconcile.js";

/** Formats of `carte finance reconcile`. */
export const REPORT_FORMATS = ["markdown", "csv"] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** An amount for the Markdown report: in the currency, escaped (`$` starts math in GitHub Markdown). */
const amount = (c: Cents, currency: Currency | undefined): string => escapeMarkdown(showCents(c, currency));
const money = (c: Cents | null, currency: Currency | undefined): string =>
  c === null ? "unreadable" : amount(c, currency);
const day = (iso: string): string => iso.slice(0, 10);
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * The rule in words: `Σ orders.amount + Σ adjustments.amount + Σ cancellations.amount (as signed)`, and
 * the tolerance as `show` writes an amount (default: a two-decimal number).
 */
export function describeRule(rule: ReconcileRule, show: (c: Cents) => string = formatCents): string {
  const terms: string[] = [];
  if (rule.orders === "amount") terms.push("Σ orders.amount");
  if (rule.adjustments === "amount") terms.push("Σ adjustments.amount");
  if (rule.cancellations === "amount") terms.push("Σ cancellations.amount (as signed)");
  if (rule.cancellations === "subtract") terms.push("− Σ |cancellations.amount|");
  const sum = terms.length === 0 ? "0" : terms.join(" + ").replace("+ −", "−");
  return `total_amount = ${sum}; tolerance ${show(rule.tolerance)}`;
}

/** The period in words: `expected_execution_date from 2025-01-01 to 2025-03-31`. */
export function describeScope(scope: ReconcileScope): string {
  if (!scope.from && !scope.to) return "all payments";
  return [
    scope.dateField,
    scope.from ? `from ${scope.from}` : undefined,
    scope.to ? `to ${scope.to}` : undefined,
  ]
    .filter(Boolean)
    .join(" ");
}

/**
 * Escapes platform text (references, descriptions) and problems quoting it for Markdown: a table cell
 * or a line that no value can break, link, mention or format (src/render/escape.ts).
 */
const md = (s: string): string => escapeMarkdown(s.replace(/\r?\n/g, " "));

function entryTable(
  entries: readonly EntryLine[],
  withPayment: boolean,
  currency: Currency | undefined,
): string[] {
  const head = withPayment
    ? [
        "| kind | id | store | date | payment_id | amount | note |",
        "| --- | ---: | ---: | --- | ---: | ---: | --- |",
      ]
    : [
        "| kind | id | store | date | amount | counted | note |",
        "| --- | ---: | ---: | --- | ---: | ---: | --- |",
      ];
  return [
    ...head,
    ...entries.map((e) => {
      const note = md([e.problem, e.description].filter(Boolean).join("; "));
      return withPayment
        ? `| ${e.kind} | ${e.id} | ${e.storeId} | ${e.date} | ${e.paymentId ?? "none"} | ${money(e.amount, currency)} | ${note} |`
        : `| ${e.kind} | ${e.id} | ${e.storeId} | ${e.date} | ${money(e.amount, currency)} | ${amount(e.counted, currency)} | ${note} |`;
    }),
  ];
}

function discrepancySection(p: PaymentResult, currency: Currency | undefined): string[] {
  const out = [
    `### Payment ${p.paymentId} (store ${p.storeIds.join(", ")}): difference ${money(p.difference, currency)}`,
    "",
    `expected **${amount(p.expected, currency)}** (Σ of ${plural(p.entries.length, "entry", "entries")}), ` +
      `actual total_amount **${money(p.actual, currency)}**, difference **${money(p.difference, currency)}**; ` +
      `reference ${md(p.reference) || "none"}, period ${day(p.periodStart)} to ${day(p.periodEnd)}.`,
  ];
  for (const pr of p.problems) out.push("", `- ${md(pr)}`);
  if (p.entries.length > 0) out.push("", ...entryTable(p.entries, false, currency));
  return out;
}

/**
 * The Markdown report: a verdict line, the scope and rule, each discrepancy with its entries, the
 * orphan entries, and the matched payments in a collapsed table. Amounts in `currency` (carte.yaml
 * `currency:`), as plans show prices; two-decimal numbers without one.
 */
export function renderReconcileMarkdown(
  r: Reconciliation,
  scope: ReconcileScope,
  currency?: Currency,
): string {
  const s = r.summary;
  const verdict =
    s.discrepancies === 0 && s.orphans === 0
      ? `**All ${plural(s.payments, "payment")} match** their entries.`
      : `**${plural(s.discrepancies, "discrepancy", "discrepancies")}** in ${plural(s.payments, "payment")} ` +
        `(${s.matched} matched), **${plural(s.orphans, "orphan entry", "orphan entries")}**.`;
  const out = [
    "# Finance reconciliation",
    "",
    verdict,
    "",
    "| | |",
    "| --- | --- |",
    `| stores | ${scope.stores.join(", ") || "none"} |`,
    // carte's own words (dates and the rule come from checked flags): no value of the platform.
    `| payments | ${describeScope(scope)} |`,
    `| rule | ${describeRule(r.rule, (c) => amount(c, currency))} |`,
    `| entries checked | ${s.entries} (${s.outOfScope} more ${s.outOfScope === 1 ? "belongs" : "belong"} to payments outside the period) |`,
    `| Σ expected (entries) | ${amount(s.expected, currency)} |`,
    `| Σ actual (total_amount) | ${amount(s.actual, currency)} |`,
    `| Σ difference | ${amount(s.actual - s.expected, currency)} |`,
  ];
  const bad = r.payments.filter((p) => p.status === "discrepancy");
  if (bad.length > 0) {
    out.push("", "## Discrepancies", "", "difference = actual − expected.");
    for (const p of bad) out.push("", ...discrepancySection(p, currency));
  }
  if (r.orphans.length > 0) {
    out.push(
      "",
      "## Entries that belong to no payment",
      "",
      "Their `payment_id` names no payment of the stores read.",
      "",
      ...entryTable(r.orphans, true, currency),
    );
  }
  const good = r.payments.filter((p) => p.status === "matched");
  if (good.length > 0) {
    out.push(
      "",
      "## Matched payments",
      "",
      `<details><summary>${plural(good.length, "matched payment")}</summary>`,
      "",
      "| payment | store | reference | period | total_amount | entries |",
      "| ---: | ---: | --- | --- | ---: | ---: |",
      ...good.map(
        (p) =>
          `| ${p.paymentId} | ${p.storeIds.join(", ")} | ${md(p.reference)} | ${day(p.periodStart)} to ${day(
            p.periodEnd,
          )} | ${money(p.actual, currency)} | ${p.entries.length} |`,
      ),
      "",
      "</details>",
    );
  }
  return out.join("\n") + "\n";
}

/** Columns of the CSV report, in order. */
export const REPORT_CSV_COLUMNS = [
  "record",
  "status",
  "payment_id",
  "store_ids",
  "payment_reference",
  "period_start",
  "period_end",
  "expected",
  "actual",
  "difference",
  "entry_kind",
  "entry_id",
  "entry_store_id",
  "entry_date",
  "entry_amount",
  "entry_counted",
  "note",
] as const;

type Row = Partial<Record<(typeof REPORT_CSV_COLUMNS)[number], string>>;

const entryRow = (record: string, status: string, e: EntryLine): Row => ({
  record,
  status,
  payment_id: e.paymentId === null ? "" : String(e.paymentId),
  entry_kind: e.kind,
  entry_id: String(e.id),
  entry_store_id: e.storeId,
  entry_date: e.date,
  entry_amount: e.amount === null ? "" : formatCents(e.amount),
  // An orphan counts towards nothing.
  entry_counted: record === "orphan" ? "" : formatCents(e.counted),
  note: [e.problem, e.description].filter(Boolean).join("; "),
});

/**
 * The CSV report, one row per fact ({@link REPORT_CSV_COLUMNS}): `record=payment` for every payment
 * (`status` matched or discrepancy, with expected, actual, difference); after each discrepancy, one
 * `record=entry` row per entry involved; then one `record=orphan` row per orphan entry. Money as
 * two-decimal strings; store ids joined with `;`; a cell a spreadsheet would take for a formula written
 * as text (src/finance/csv.ts).
 */
export function renderReconcileCsv(r: Reconciliation): string {
  const rows: Row[] = [];
  for (const p of r.payments) {
    rows.push({
      record: "payment",
      status: p.status,
      payment_id: String(p.paymentId),
      store_ids: p.storeIds.join(";"),
      payment_reference: p.reference,
      period_start: p.periodStart,
      period_end: p.periodEnd,
      expected: formatCents(p.expected),
      actual: p.actual === null ? "" : formatCents(p.actual),
      difference: p.difference === null ? "" : formatCents(p.difference),
      note: p.problems.join("; "),
    });
    if (p.status === "discrepancy") for (const e of p.entries) rows.push(entryRow("entry", p.status, e));
  }
  for (const o of r.orphans) rows.push(entryRow("orphan", "orphan", o));
  return spreadsheetCsv(
    rows.map((row) => REPORT_CSV_COLUMNS.map((c) => row[c] ?? "")),
    REPORT_CSV_COLUMNS,
  );
}

/**
 * Renders a report in a format: Markdown for people, amounts in `currency`; CSV for spreadsheets and
 * tools, amounts as two-decimal numbers whatever the currency.
 */
export function renderReconcileReport(
  format: ReportFormat,
  r: Reconciliation,
  scope: ReconcileScope,
  currency?: Currency,
): string {
  return format === "csv" ? renderReconcileCsv(r) : renderReconcileMarkdown(r, scope, currency);
}
