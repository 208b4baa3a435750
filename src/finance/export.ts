/**
 * Exports of finance reads (docs/finance.md, "Exports"): CSV, JSON (one array), NDJSON (one object a
 * line), and a plain table for a terminal. All renderers are pure.
 *
 * Every entry is first normalized ({@link normalizeEntry}): money becomes a fixed two-decimal string
 * converted exactly through integer hundredths (`cents.ts`), date-times become ISO 8601 in UTC
 * (`dates.ts`), and `source_store_id` (the store whose path was read) is put first. Fields the spec does
 * not list are kept as they came in JSON and NDJSON, and left out of CSV, whose columns are fixed
 * ({@link csvColumns}): nested objects (`billing`, `bank_account`) become dotted columns,
 * `consolidated_stores` is joined with `;`, `items` is written as compact JSON.
 */

import { escapeTerminal, jsonSafe } from "../render/escape.js";
import { spreadsheetCsv } from "./csv.js";
import { isoDateTime } from "./dates.js";
import { MoneyError } from "../errors.js";
import { formatCents, parseMoney, showCents, sumCents, type Cents } from "./cents.js";
import { formatAmount, type Currency } from "../money.js";
import { BILLING_FIELDS, FINANCE_SEGMENT, type FinanceKind } from "./records.js";

/** A normalized entry: JSON-ready, money as `"12.34"` strings, dates ISO 8601. */
export type FinanceRecord = Record<string, unknown> & { source_store_id: string; id: number };

/** Output formats of `carte finance <read>`. */
export const EXPORT_FORMATS = ["table", "csv", "json", "ndjson"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const PAYMENT_FIELDS = [
  "id",
  "status",
  "period_date_start",
  "period_date_end",
  "expected_execution_date",
  "confirmed_payment_date",
  "total_amount",
  "payment_reference",
  "frequecy_type",
  "frequecy_type_descripcion",
  "balance_request_id",
  "bank_account",
  "consolidated_stores",
];
const BANK_FIELDS = ["bank_name", "account_number", "bank_code", "account_type", "ispb"];
const DOCUMENT_FIELDS = ["identification_type", "identification_number", "holder_name"];
const ORDER_FIELDS = [
  "id",
  "payment_id",
  "order_date",
  "store_id",
  "store_name",
  "store_type",
  "order_status",
  "payment_method",
  "is_prime",
  "items",
  "amount",
];
/** Fields that only some reads have, in the order they follow `amount`. */
const EXTRA_FIELDS: Record<FinanceKind, string[]> = {
  payments: [],
  orders: [],
  adjustments: ["descriptionAdjustment"],
  cancellations: ["cancellatioPercentage", "descriptionCancellation"],
};
const DATE_FIELDS = new Set([
  "period_date_start",
  "period_date_end",
  "expected_execution_date",
  "confirmed_payment_date",
  "order_date",
]);

/** Singular noun of an entry of each read, for messages. */
export const ENTRY_NOUN: Record<FinanceKind, string> = {
  payments: "payment",
  orders: "order",
  adjustments: "adjustment",
  cancellations: "charged cancellation",
};

/**
 * The CSV columns of a read, in their fixed order: `source_store_id`, the spec's fields
 * (docs/platform-api.md §4.8) with nested objects as dotted names (`bank_account.document.holder_name`,
 * `billing.total_order`), then for adjustments and cancellations their own fields after `amount`.
 */
export function csvColumns(kind: FinanceKind): string[] {
  if (kind === "payments") {
    return [
      "source_store_id",
      ...PAYMENT_FIELDS.flatMap((f) =>
        f === "bank_account"
          ? [
              ...BANK_FIELDS.map((b) => `bank_account.${b}`),
              ...DOCUMENT_FIELDS.map((d) => `bank_account.document.${d}`),
            ]
          : [f],
      ),
    ];
  }
  return [
    "source_store_id",
    ...ORDER_FIELDS,
    ...EXTRA_FIELDS[kind],
    ...BILLING_FIELDS.map((b) => `billing.${b}`),
  ];
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Money as a fixed two-decimal string; `null` when absent.
 * @throws MoneyError naming the entry and field when the value has more than 2 decimals or is no number.
 */
function money(value: unknown, what: string): string | null {
  if (value === undefined || value === null) return null;
  const r = parseMoney(value);
  if (!r.ok) throw new MoneyError(`${what} ${r.reason}; carte does not round money`);
  return formatCents(r.cents);
}

/**
 * One wire entry as a {@link FinanceRecord}: `source_store_id` first, then the spec's fields in the
 * spec's order, money as strings, date-times ISO 8601 UTC, then any field the spec does not list, as is.
 * @param storeId the store whose path the entry was read from.
 * @throws MoneyError when a money field cannot be converted exactly (the message names store, read,
 *   entry id and field).
 */
export function normalizeEntry(kind: FinanceKind, storeId: string, entry: unknown): FinanceRecord {
  const e = isRecord(entry) ? entry : {};
  const where = `${FINANCE_SEGMENT[kind]} of store ${storeId}, entry ${String(e.id)}:`;
  const out: Record<string, unknown> = { source_store_id: storeId };
  const known = kind === "payments" ? PAYMENT_FIELDS : [...ORDER_FIELDS, ...EXTRA_FIELDS[kind], "billing"];
  for (const f of known) {
    const v = e[f];
    if (f === "total_amount" || f === "amount") out[f] = money(v, `${where} ${f}`);
    else if (DATE_FIELDS.has(f)) out[f] = v === undefined || v === null ? null : isoDateTime(v);
    else if (f === "billing" && isRecord(v)) {
      const b: Record<string, unknown> = {};
      for (const k of BILLING_FIELDS) b[k] = money(v[k], `${where} billing.${k}`);
      for (const [k, x] of Object.entries(v)) if (!(k in b)) b[k] = x;
      out[f] = b;
    } else out[f] = v === undefined ? null : v;
  }
  for (const [k, v] of Object.entries(e)) if (!(k in out)) out[k] = v;
  return out as FinanceRecord;
}

/** Normalizes the entries of several reads of one kind, store by store ({@link normalizeEntry}). */
export function normalizeReads(
  kind: FinanceKind,
  reads: readonly { storeId: string; entries: readonly unknown[] }[],
): FinanceRecord[] {
  return reads.flatMap((r) => r.entries.map((e) => normalizeEntry(kind, r.storeId, e)));
}

/** The value of a dotted column in a record, as a CSV cell. */
function cell(record: Record<string, unknown>, column: string): string {
  let v: unknown = record;
  for (const part of column.split(".")) v = isRecord(v) ? v[part] : undefined;
  if (v === undefined || v === null) return "";
  if (Array.isArray(v)) {
    return v.every((x) => typeof x !== "object" || x === null) ? v.join(";") : JSON.stringify(v);
  }
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/**
 * CSV with a header row and the fixed columns of {@link csvColumns} (RFC 4180 quoting, `\n` rows), for
 * a spreadsheet: a cell a spreadsheet would take for a formula is written as text (src/finance/csv.ts).
 */
export function renderCsv(kind: FinanceKind, records: readonly FinanceRecord[]): string {
  const columns = csvColumns(kind);
  return spreadsheetCsv(
    records.map((r) => columns.map((c) => cell(r, c))),
    columns,
  );
}

/** A JSON array of the records, two-space indented, ending with a newline. */
export function renderJsonArray(records: readonly FinanceRecord[]): string {
  return `${jsonSafe(JSON.stringify(records, null, 2))}\n`;
}

/** NDJSON: one compact JSON object per line, each line ending with `\n` (empty for no records). */
export function renderNdjson(records: readonly FinanceRecord[]): string {
  return records.map((r) => `${jsonSafe(JSON.stringify(r))}\n`).join("");
}

interface TableColumn {
  header: string;
  value: (r: FinanceRecord) => string;
  right?: boolean;
}

const day = (v: unknown): string => (typeof v === "string" ? v.slice(0, 10) : "");
const str = (v: unknown): string => (v === undefined || v === null ? "" : String(v));

function tableColumns(kind: FinanceKind, currency: Currency | undefined): TableColumn[] {
  // Amounts are the two-decimal strings of normalizeEntry: shown in the project's currency.
  const amount = (v: unknown): string => (typeof v === "string" ? formatAmount(v, currency) : str(v));
  if (kind === "payments") {
    return [
      { header: "STORE", value: (r) => r.source_store_id },
      { header: "PAYMENT", value: (r) => String(r.id) },
      { header: "STATUS", value: (r) => str(r.status) },
      { header: "PERIOD", value: (r) => `${day(r.period_date_start)}..${day(r.period_date_end)}` },
      { header: "EXPECTED", value: (r) => day(r.expected_execution_date) },
      { header: "CONFIRMED", value: (r) => day(r.confirmed_payment_date) },
      { header: "TOTAL", value: (r) => amount(r.total_amount), right: true },
      { header: "REFERENCE", value: (r) => str(r.payment_reference) },
    ];
  }
  const cols: TableColumn[] = [
    { header: "STORE", value: (r) => r.source_store_id },
    { header: "ID", value: (r) => String(r.id) },
    { header: "PAYMENT", value: (r) => str(r.payment_id) },
    { header: "DATE", value: (r) => str(r.order_date) },
    { header: "STATUS", value: (r) => str(r.order_status) },
    { header: "METHOD", value: (r) => str(r.payment_method) },
    { header: "AMOUNT", value: (r) => amount(r.amount), right: true },
  ];
  if (kind === "adjustments")
    cols.push({ header: "DESCRIPTION", value: (r) => str(r.descriptionAdjustment) });
  if (kind === "cancellations") {
    cols.push(
      { header: "%", value: (r) => str(r.cancellatioPercentage), right: true },
      { header: "DESCRIPTION", value: (r) => str(r.descriptionCancellation) },
    );
  }
  return cols;
}

/** Σ of a money column of normalized records (strings written by {@link normalizeEntry}). */
export function totalOf(records: readonly FinanceRecord[], field: "amount" | "total_amount"): Cents {
  return sumCents(
    records.map((r) => {
      const p = parseMoney(r[field]);
      return p.ok ? p.cents : 0n;
    }),
  );
}

/**
 * A plain-text table for a terminal: the main columns of a read (every column is in CSV and JSON),
 * amounts right-aligned in the project's currency (`$2.865,02`; two-decimal numbers without one), and a
 * last line with the count and the sum of the amounts. No colour.
 */
export function renderTable(
  kind: FinanceKind,
  records: readonly FinanceRecord[],
  currency?: Currency,
): string {
  const noun = ENTRY_NOUN[kind];
  if (records.length === 0) return `No ${noun}s found.\n`;
  const cols = tableColumns(kind, currency);
  // Statuses, references and descriptions come from the platform: escaped for a terminal.
  const rows = records.map((r) => cols.map((c) => escapeTerminal(c.value(r))));
  const widths = cols.map((c, i) => Math.max(c.header.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((v, i) => (cols[i]!.right ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  const field = kind === "payments" ? "total_amount" : "amount";
  const n = records.length;
  return (
    [line(cols.map((c) => c.header)), ...rows.map(line)].join("\n") +
    `\n\n${n} ${noun}${n === 1 ? "" : "s"}, sum of ${field}: ${showCents(totalOf(records, field), currency)}\n`
  );
}

/**
 * Renders records in a format (the table for `table`). Only the table, for people, shows amounts in
 * `currency`; CSV, JSON and NDJSON are for machines and keep two-decimal numbers (docs/finance.md).
 */
export function renderExport(
  kind: FinanceKind,
  format: ExportFormat,
  records: readonly FinanceRecord[],
  currency?: Currency,
): string {
  switch (format) {
    case "csv":
      return renderCsv(kind, records);
    case "json":
      return renderJsonArray(records);
    case "ndjson":
      return renderNdjson(records);
    case "table":
      return renderTable(kind, records, currency);
  }
}
