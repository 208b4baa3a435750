/**
 * The finance workflows behind `carte finance ...`: which filters a command's options become, the
 * reads, and the reconciliation's reading strategy. The CLI (src/cli/finance.ts) only parses options
 * and renders; this module makes the calls through a {@link FinanceReader}.
 */

import { CommandLineError, type Diagnostic } from "../errors.js";
import { isDay } from "../calendar.js";
import { dayOf } from "./dates.js";
import { isPaymentId, type FinanceFiltersOf, type FinanceReader } from "./reader.js";
import { normalizeReads, type FinanceRecord } from "./export.js";
import {
  DEFAULT_RULE,
  entryWindow,
  reconcile,
  type ReconcileRule,
  type ReconcileScope,
  type Reconciliation,
  type Sourced,
} from "./reconcile.js";
import type { FinanceKind, WireOrder, WirePayment } from "./records.js";

/** The payment date that `--from`/`--to` apply to for payments (and for reconcile). */
export type PaymentDateField = "expected_execution_date" | "confirmed_payment_date";

/** Options common to the finance commands, as the user gave them. Days `YYYY-MM-DD`, inclusive. */
export interface FinanceQuery {
  /** Platform store ids to read. */
  stores: string[];
  from?: string | undefined;
  to?: string | undefined;
  /** Payments only: which date `from`/`to` filter; default `expected_execution_date`. */
  dateField?: PaymentDateField | undefined;
  paymentId?: string | undefined;
  /** `status` of payments, `order_status` of the other reads. */
  status?: string | undefined;
}

/**
 * Checks dates, ids and the status of a query before any call (not the stores: see `store-selection.ts`).
 * @throws CommandLineError listing every problem (each names its option).
 */
export function checkQuery(q: FinanceQuery): void {
  const problems: string[] = [];
  for (const [flag, v] of [
    ["--from", q.from],
    ["--to", q.to],
  ] as const) {
    if (v !== undefined && !isDay(v)) problems.push(`${flag} must be a date YYYY-MM-DD, not "${v}"`);
  }
  if (q.from && q.to && isDay(q.from) && isDay(q.to) && q.from > q.to) {
    problems.push(`--from ${q.from} is after --to ${q.to}`);
  }
  if (q.paymentId !== undefined && !isPaymentId(q.paymentId)) {
    problems.push(`--payment-id must be a whole number, not "${q.paymentId}"`);
  }
  if (q.status !== undefined && q.status.trim() === "") problems.push("--status must not be empty");
  if (problems.length > 0) throw new CommandLineError(problems.join("\n"));
}

/**
 * The server-side filters of a read for a query, and the filter left to carte where the endpoint has
 * none (docs/platform-api.md §2.6): `--status` of payments (no status filter: compared with `status`) and of
 * charged cancellations (compared with `order_status`).
 *
 * `from`/`to` map onto: payments → `expected_execution_date:gte` / `expect_execution_date:lte` (or
 * `confirmed_payment_date:gte/lte` with `dateField`); orders, adjustments, cancellations →
 * `order_date:gte` / `order_date:lte`.
 */
export function filtersFor<K extends FinanceKind>(
  kind: K,
  q: FinanceQuery,
): { filters: FinanceFiltersOf[K]; localStatus: { field: string; value: string } | undefined } {
  const paymentId = q.paymentId;
  if (kind === "payments") {
    const confirmed = q.dateField === "confirmed_payment_date";
    const f: FinanceFiltersOf["payments"] = {
      paymentId,
      ...(confirmed
        ? { confirmedPaymentFrom: q.from, confirmedPaymentTo: q.to }
        : { expectedExecutionFrom: q.from, expectedExecutionTo: q.to }),
    };
    return {
      filters: f as FinanceFiltersOf[K],
      localStatus: q.status === undefined ? undefined : { field: "status", value: q.status },
    };
  }
  if (kind === "cancellations") {
    const f: FinanceFiltersOf["cancellations"] = { paymentId, orderDateFrom: q.from, orderDateTo: q.to };
    return {
      filters: f as FinanceFiltersOf[K],
      localStatus: q.status === undefined ? undefined : { field: "order_status", value: q.status },
    };
  }
  const f: FinanceFiltersOf["orders"] = {
    paymentId,
    orderDateFrom: q.from,
    orderDateTo: q.to,
    orderStatus: q.status,
  };
  return { filters: f as FinanceFiltersOf[K], localStatus: undefined };
}

/** What an export read. */
export interface ExportResult {
  records: FinanceRecord[];
  warnings: Diagnostic[];
}

/**
 * Reads one kind of entry of every store of the query and normalizes it (export.ts).
 * @throws UsageError for bad options (before any call); ApiError when a call fails; MoneyError when an
 *   amount cannot be converted exactly.
 */
export async function exportEntries(
  reader: FinanceReader,
  kind: FinanceKind,
  q: FinanceQuery,
): Promise<ExportResult> {
  checkQuery(q);
  const { filters, localStatus } = filtersFor(kind, q);
  const reads = await reader.readStores(kind, q.stores, filters);
  let records = normalizeReads(kind, reads);
  if (localStatus) records = records.filter((r) => r[localStatus.field] === localStatus.value);
  return { records, warnings: reads.flatMap((r) => r.warnings) };
}

/** What a reconciliation read and found. */
export interface ReconcileRun {
  reconciliation: Reconciliation;
  scope: ReconcileScope;
  warnings: Diagnostic[];
  /** Payments looked at a second time, by `payment_id`, because the first look found a discrepancy. */
  rechecked: number[];
}

/**
 * Reconciles the payments of the query's stores whose `dateField` day (default
 * `expected_execution_date`) falls in `[from, to]` (all payments without bounds).
 *
 * Reading strategy (docs/finance.md): every payment of each store (to tell an orphan from an entry of
 * a payment outside the period); then orders, adjustments and cancellations with `order_date` between
 * the earliest start and the latest end of the selected payments' periods, widened to `[from, to]`;
 * then, for each payment that does not match, its entries again by `payment_id:eq`, so that an entry
 * dated outside its payment's period is still found. `paymentId` and `status` are not used.
 *
 * @throws UsageError for bad options (before any call); ApiError when a call fails.
 */
export async function reconcileStores(
  reader: FinanceReader,
  q: FinanceQuery,
  rule: ReconcileRule = DEFAULT_RULE,
): Promise<ReconcileRun> {
  checkQuery(q);
  const dateField: PaymentDateField = q.dateField ?? "expected_execution_date";
  const warnings: Diagnostic[] = [];
  const paymentReads = await reader.readStores("payments", q.stores, {});
  const all: Sourced<WirePayment>[] = paymentReads.flatMap((r) =>
    r.entries.map((entry) => ({ storeId: r.storeId, entry })),
  );
  warnings.push(...paymentReads.flatMap((r) => r.warnings));
  const inScope = (p: WirePayment): boolean => {
    if (!q.from && !q.to) return true;
    const d = dayOf(p[dateField]);
    return d !== undefined && (!q.from || d >= q.from) && (!q.to || d <= q.to);
  };
  const selected = all.filter((s) => inScope(s.entry));
  const selectedIds = new Set(selected.map((s) => s.entry.id));
  const others = all.filter((s) => !selectedIds.has(s.entry.id)).map((s) => s.entry.id);

  const bounded = Boolean(q.from || q.to);
  const window: { from?: string | undefined; to?: string | undefined } = bounded
    ? entryWindow(
        selected.map((s) => s.entry),
        q.from,
        q.to,
      )
    : {};
  const orderFilter = { orderDateFrom: window.from, orderDateTo: window.to };
  const read = async (
    kind: "orders" | "adjustments" | "cancellations",
    stores: readonly string[],
    filters: FinanceFiltersOf["orders"],
  ): Promise<Sourced<WireOrder>[]> => {
    const reads = await reader.readStores(kind, stores, filters);
    warnings.push(...reads.flatMap((r) => r.warnings));
    return reads.flatMap((r) => r.entries.map((entry) => ({ storeId: r.storeId, entry })));
  };
  const [orders, adjustments, cancellations] = await Promise.all([
    read("orders", q.stores, orderFilter),
    read("adjustments", q.stores, orderFilter),
    read("cancellations", q.stores, orderFilter),
  ]);
  const input = { payments: selected, otherPaymentIds: others, orders, adjustments, cancellations };
  let reconciliation = reconcile(input, rule);

  const rechecked: number[] = [];
  if (bounded) {
    const bad = reconciliation.payments.filter((p) => p.status === "discrepancy");
    const sources = new Map<number, string[]>();
    for (const s of selected) sources.set(s.entry.id, [...(sources.get(s.entry.id) ?? []), s.storeId]);
    await Promise.all(
      bad.map(async (p) => {
        const stores = sources.get(p.paymentId) ?? [];
        const f = { paymentId: p.paymentId };
        const [o, a, c] = await Promise.all([
          read("orders", stores, f),
          read("adjustments", stores, f),
          read("cancellations", stores, f),
        ]);
        orders.push(...o);
        adjustments.push(...a);
        cancellations.push(...c);
        rechecked.push(p.paymentId);
      }),
    );
    if (bad.length > 0) reconciliation = reconcile(input, rule);
  }
  rechecked.sort((a, b) => a - b);
  return {
    reconciliation,
    scope: { stores: [...q.stores], dateField, from: q.from, to: q.to },
    warnings,
    rechecked,
  };
}
