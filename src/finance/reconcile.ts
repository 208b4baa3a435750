/**
 * Reconciliation of payments with the entries behind them (docs/platform-api.md §4.8, §2.6;
 * docs/finance.md, "Reconciliation"). Pure: the reads happen elsewhere (`workflows.ts`).
 *
 * For every payment in scope, the entries whose `payment_id` is the payment's id (orders, order
 * adjustments, charged cancellations) are collected and summed under a {@link ReconcileRule}; the sum is
 * the **expected** amount, the payment's `total_amount` the **actual** one, and
 * `difference = actual − expected`. A payment matches when `|difference| ≤ tolerance` and every amount
 * involved could be read exactly. An entry whose `payment_id` names no known payment is an **orphan**.
 *
 * The default rule is the emulator's (src/emulator/finance-data.ts): `total_amount` = Σ `amount` of every
 * linked entry, cancellations counted with their own (negative) sign. The spec gives no rule; this is an
 * assumption, and the reason the rule is configurable.
 *
 * All money is integer hundredths ({@link Cents}, `cents.ts`).
 */

import { parseMoney, absCents, type Cents } from "./cents.js";
import { dayOf, isoDateTime } from "./dates.js";
import type { WireOrder, WirePayment } from "./records.js";

/** Kinds of entries that make up a payment. */
export type EntryKind = "order" | "adjustment" | "cancellation";

/**
 * Which amounts count towards a payment, and how.
 * - `orders`, `adjustments`: `"amount"` adds the entry's `amount` as given; `"ignore"` leaves it out.
 * - `cancellations`: `"amount"` adds `amount` as given (negative for a charge, the emulator's
 *   convention); `"subtract"` subtracts `|amount|` whatever its sign (for a platform that reports
 *   charges as positive numbers); `"ignore"` leaves them out.
 * - `tolerance`: the largest `|difference|`, in hundredths, still counted as a match. Default 0.
 */
export interface ReconcileRule {
  orders: "amount" | "ignore";
  adjustments: "amount" | "ignore";
  cancellations: "amount" | "subtract" | "ignore";
  tolerance: Cents;
}

/** The emulator's rule: Σ `amount` of every linked entry as signed, no tolerance. */
export const DEFAULT_RULE: ReconcileRule = {
  orders: "amount",
  adjustments: "amount",
  cancellations: "amount",
  tolerance: 0n,
};

/** A value read from a store's path. */
export interface Sourced<T> {
  /** The store whose path it was read from. */
  storeId: string;
  entry: T;
}

/** What to reconcile. */
export interface ReconcileInput {
  /** The payments to check (read from each store; a payment read from two stores is merged). */
  payments: readonly Sourced<WirePayment>[];
  /**
   * Ids of payments that exist but are outside the scope (e.g. outside the period): their entries are
   * neither checked nor orphans. Optional; without it every entry of an unchecked payment is an orphan.
   */
  otherPaymentIds?: Iterable<number>;
  orders: readonly Sourced<WireOrder>[];
  adjustments: readonly Sourced<WireOrder>[];
  cancellations: readonly Sourced<WireOrder>[];
}

/** Scope of a reconciliation, echoed in the reports. Days `YYYY-MM-DD`, inclusive. */
export interface ReconcileScope {
  stores: string[];
  /** The payment date the period applies to, e.g. `expected_execution_date`. */
  dateField: string;
  from?: string | undefined;
  to?: string | undefined;
}

/** One entry as the reports show it. Money in hundredths. */
export interface EntryLine {
  kind: EntryKind;
  id: number;
  /** The entry's `store_id`, else the store it was read from. */
  storeId: string;
  /** The entry's `payment_id`, `null` when absent. */
  paymentId: number | null;
  /** `order_date`, ISO 8601 UTC. */
  date: string;
  /** `amount` as read; `null` when it could not be read exactly (see `problem`). */
  amount: Cents | null;
  /** What the entry adds to its payment under the rule (0 when ignored or unreadable). */
  counted: Cents;
  /** Why the amount could not be read, when it could not. */
  problem?: string;
  /** `descriptionAdjustment` or `descriptionCancellation`, when present. */
  description?: string;
}

/** The check of one payment. Money in hundredths. */
export interface PaymentResult {
  paymentId: number;
  /** Stores it was read from, then those of `consolidated_stores`, without duplicates. */
  storeIds: string[];
  reference: string;
  /** `period_date_start` and `period_date_end`, ISO 8601 UTC. */
  periodStart: string;
  periodEnd: string;
  status: "matched" | "discrepancy";
  /** Σ counted amounts of the linked entries. */
  expected: Cents;
  /** `total_amount`; `null` when unreadable. */
  actual: Cents | null;
  /** `actual − expected`; `null` when `actual` is. */
  difference: Cents | null;
  /** Every linked entry (kind, then date, then id). */
  entries: EntryLine[];
  /** Unreadable amounts and other reasons for a discrepancy beyond the difference. */
  problems: string[];
}

/** The outcome of {@link reconcile}. */
export interface Reconciliation {
  rule: ReconcileRule;
  /** Payments by store, period start, id. */
  payments: PaymentResult[];
  /** Entries whose `payment_id` names no known payment (store, date, id). */
  orphans: EntryLine[];
  summary: {
    payments: number;
    matched: number;
    discrepancies: number;
    orphans: number;
    /** Entries linked to the checked payments. */
    entries: number;
    /** Entries linked to known payments outside the scope (not checked). */
    outOfScope: number;
    /** Σ expected and Σ actual over the checked payments (unreadable totals count 0). */
    expected: Cents;
    actual: Cents;
  };
}

const KIND_ORDER: Record<EntryKind, number> = { order: 0, adjustment: 1, cancellation: 2 };

/** Compares decimal id strings numerically (shorter first), then as text. */
const byDecimal = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

function counted(kind: EntryKind, amount: Cents, rule: ReconcileRule): Cents {
  if (kind === "order") return rule.orders === "amount" ? amount : 0n;
  if (kind === "adjustment") return rule.adjustments === "amount" ? amount : 0n;
  if (rule.cancellations === "amount") return amount;
  if (rule.cancellations === "subtract") return -absCents(amount);
  return 0n;
}

function ignored(kind: EntryKind, rule: ReconcileRule): boolean {
  if (kind === "order") return rule.orders === "ignore";
  if (kind === "adjustment") return rule.adjustments === "ignore";
  return rule.cancellations === "ignore";
}

function line(kind: EntryKind, s: Sourced<WireOrder>, rule: ReconcileRule): EntryLine {
  const e = s.entry as unknown as Record<string, unknown>;
  const amount = parseMoney(e.amount);
  const pid = e.payment_id;
  const description = e.descriptionAdjustment ?? e.descriptionCancellation;
  const out: EntryLine = {
    kind,
    id: Number(e.id),
    storeId: e.store_id === undefined || e.store_id === null ? s.storeId : String(e.store_id),
    paymentId: typeof pid === "number" && Number.isFinite(pid) ? pid : null,
    date: isoDateTime(e.order_date),
    amount: amount.ok ? amount.cents : null,
    counted: amount.ok ? counted(kind, amount.cents, rule) : 0n,
  };
  if (!amount.ok) out.problem = `amount ${amount.reason}`;
  if (typeof description === "string") out.description = description;
  return out;
}

const compareLines = (a: EntryLine, b: EntryLine): number =>
  KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
  (a.date < b.date ? -1 : a.date > b.date ? 1 : 0) ||
  byDecimal(a.storeId, b.storeId) ||
  a.id - b.id;

/**
 * Checks every payment against its entries. Pure and deterministic: the same input gives the same
 * result whatever the order of the input lists. Never throws on bad data: unreadable amounts make
 * the payment a discrepancy with a `problems` line.
 */
export function reconcile(input: ReconcileInput, rule: ReconcileRule = DEFAULT_RULE): Reconciliation {
  // Payments, merged by id (a consolidated payment may be read from each of its stores).
  const payments = new Map<number, { p: WirePayment; stores: string[] }>();
  for (const { storeId, entry } of input.payments) {
    const known = payments.get(entry.id);
    if (known) {
      if (!known.stores.includes(storeId)) known.stores.push(storeId);
    } else payments.set(entry.id, { p: entry, stores: [storeId] });
  }
  const others = new Set<number>(input.otherPaymentIds ?? []);

  // Entries, each once (by kind, store and id), grouped by payment.
  const seen = new Set<string>();
  const linked = new Map<number, EntryLine[]>();
  const orphans: EntryLine[] = [];
  let outOfScope = 0;
  const lists: [EntryKind, readonly Sourced<WireOrder>[]][] = [
    ["order", input.orders],
    ["adjustment", input.adjustments],
    ["cancellation", input.cancellations],
  ];
  for (const [kind, list] of lists) {
    for (const s of list) {
      const l = line(kind, s, rule);
      const key = `${kind}:${l.storeId}:${l.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (l.paymentId !== null && payments.has(l.paymentId)) {
        const group = linked.get(l.paymentId);
        if (group) group.push(l);
        else linked.set(l.paymentId, [l]);
      } else if (l.paymentId !== null && others.has(l.paymentId)) outOfScope++;
      else orphans.push(l);
    }
  }

  const results: PaymentResult[] = [];
  let expectedSum = 0n;
  let actualSum = 0n;
  let entryCount = 0;
  for (const [id, { p, stores }] of payments) {
    const entries = (linked.get(id) ?? []).sort(compareLines);
    entryCount += entries.length;
    const problems: string[] = [];
    for (const e of entries) {
      if (e.problem && !ignored(e.kind, rule)) problems.push(`${e.kind} ${e.id}: ${e.problem}`);
    }
    const total = parseMoney((p as unknown as Record<string, unknown>).total_amount);
    if (!total.ok) problems.push(`total_amount ${total.reason}`);
    const expected = entries.reduce((s, e) => s + e.counted, 0n);
    const actual = total.ok ? total.cents : null;
    const difference = actual === null ? null : actual - expected;
    if (entries.length === 0 && actual !== 0n) problems.push("no entry names this payment");
    // Any problem (an unreadable amount, a payment without entries) is a discrepancy on its own.
    const ok = difference !== null && absCents(difference) <= rule.tolerance && problems.length === 0;
    expectedSum += expected;
    actualSum += actual ?? 0n;
    const consolidated = Array.isArray(p.consolidated_stores) ? p.consolidated_stores.map(String) : [];
    results.push({
      paymentId: id,
      storeIds: [...stores, ...consolidated.filter((c) => !stores.includes(c))],
      reference: typeof p.payment_reference === "string" ? p.payment_reference : "",
      periodStart: isoDateTime(p.period_date_start),
      periodEnd: isoDateTime(p.period_date_end),
      status: ok ? "matched" : "discrepancy",
      expected,
      actual,
      difference,
      entries,
      problems,
    });
  }
  results.sort(
    (a, b) =>
      byDecimal(a.storeIds[0] ?? "", b.storeIds[0] ?? "") ||
      (a.periodStart < b.periodStart ? -1 : a.periodStart > b.periodStart ? 1 : 0) ||
      a.paymentId - b.paymentId,
  );
  orphans.sort(
    (a, b) =>
      byDecimal(a.storeId, b.storeId) || (a.date < b.date ? -1 : a.date > b.date ? 1 : 0) || a.id - b.id,
  );
  const discrepancies = results.filter((r) => r.status === "discrepancy").length;
  return {
    rule,
    payments: results,
    orphans,
    summary: {
      payments: results.length,
      matched: results.length - discrepancies,
      discrepancies,
      orphans: orphans.length,
      entries: entryCount,
      outOfScope,
      expected: expectedSum,
      actual: actualSum,
    },
  };
}

/** Whether a reconciliation found anything to look at: a discrepancy or an orphan (exit code 2). */
export function hasFindings(r: Reconciliation): boolean {
  return r.summary.discrepancies > 0 || r.summary.orphans > 0;
}

/**
 * The day window of entries to read for a set of payments: from the earliest `period_date_start` to
 * the latest `period_date_end` (UTC days), widened to `[from, to]` when given. `undefined` bounds mean
 * "no bound". Assumption (docs/finance.md): a payment's entries are dated within its period.
 */
export function entryWindow(
  payments: readonly WirePayment[],
  from?: string,
  to?: string,
): { from: string | undefined; to: string | undefined } {
  let lo = from;
  let hi = to;
  for (const p of payments) {
    const s = dayOf(p.period_date_start);
    const e = dayOf(p.period_date_end);
    if (s && (lo === undefined || s < lo)) lo = s;
    if (e && (hi === undefined || e > hi)) hi = e;
  }
  return { from: lo, to: hi };
}
