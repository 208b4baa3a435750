/** Builders of finance wire entries for the pure tests (reconcile, reports, exports). */

import {
  BILLING_FIELDS,
  type WireBilling,
  type WireOrder,
  type WirePayment,
} from "../../src/finance/records.js";
import type { ReconcileInput, Sourced } from "../../src/finance/reconcile.js";

export function billing(parts: Partial<WireBilling> = {}): WireBilling {
  const b = Object.fromEntries(BILLING_FIELDS.map((f) => [f, 0])) as unknown as WireBilling;
  return { ...b, ...parts };
}

export function payment(
  id: number,
  total: number,
  start: string,
  opts: Partial<WirePayment> = {},
  store = 900101,
): WirePayment {
  const startT = Date.parse(`${start}T00:00:00Z`);
  const iso = (t: number) => new Date(t).toISOString().replace(/\.000Z$/, "Z");
  return {
    id,
    status: "PAID",
    period_date_start: iso(startT),
    period_date_end: iso(startT + 7 * 86_400_000 - 1000),
    expected_execution_date: iso(startT + 10 * 86_400_000 + 12 * 3_600_000),
    confirmed_payment_date: iso(startT + 11 * 86_400_000 + 15 * 3_600_000),
    total_amount: total,
    payment_reference: `PAY-${store}-${start.replaceAll("-", "")}`,
    frequecy_type: "WEEKLY",
    frequecy_type_descripcion: "Weekly payment",
    balance_request_id: `BR-${id}`,
    bank_account: {
      bank_name: "Test Bank",
      account_number: "0012345678",
      bank_code: "001",
      account_type: "checking",
      ispb: "12345678",
      document: {
        identification_type: "NIT",
        identification_number: "900123456",
        holder_name: "Bogotá Centro",
      },
    },
    consolidated_stores: [store],
    ...opts,
  };
}

export function order(
  id: number,
  paymentId: number,
  amount: number,
  date: string,
  extra: Record<string, unknown> = {},
  store = 900101,
): WireOrder {
  return {
    id,
    payment_id: paymentId,
    order_date: date,
    store_id: store,
    store_name: "Bogotá Centro",
    store_type: "RESTAURANT",
    order_status: "finished",
    payment_method: "cc",
    is_prime: "false",
    items: [{ name: "Classic burger", units: "2" }],
    amount,
    billing: billing({ total_order: amount, paid_by_user: amount }),
    ...extra,
  } as WireOrder;
}

const at = <T>(entry: T, storeId = "900101"): Sourced<T> => ({ storeId, entry });

/**
 * A small, fixed reconciliation input with one of everything:
 * - 1001: matches (orders, an adjustment and a charged cancellation; 0.1 + 0.2 style amounts);
 * - 1002: total_amount off by 2.50;
 * - 1003: an order missing (the total still counts it);
 * - 1004: an amount with three decimals (unreadable);
 * - 1005: a payment with no entries and a non-zero total;
 * - 1006 (store 900102): matches;
 * - an orphan order (payment 999999) and an entry of 1000, a payment outside the period.
 */
export function sampleInput(): ReconcileInput {
  return {
    payments: [
      at(payment(1001, 30.3, "2025-01-06")),
      at(payment(1002, 95, "2025-01-13")),
      at(payment(1003, 25.1, "2025-01-20")),
      at(payment(1004, 5, "2025-01-27")),
      at(payment(1005, 12, "2025-02-03")),
      at(payment(1006, 0.3, "2025-01-06", { payment_reference: "PAY|PIPE" }, 900102), "900102"),
    ],
    otherPaymentIds: [1000],
    orders: [
      at(order(1, 1001, 10.1, "2025-01-06T12:00:00Z")),
      at(order(2, 1001, 20.2, "2025-01-07T13:30:00Z")),
      at(order(3, 1002, 100, "2025-01-14T19:00:00Z")),
      at(order(4, 1003, 10.1, "2025-01-21T11:00:00Z")),
      at(order(5, 1004, 5.005, "2025-01-28T11:00:00Z")),
      at(order(6, 1006, 0.1, "2025-01-08T10:00:00Z", {}, 900102), "900102"),
      at(order(7, 1006, 0.2, "2025-01-09T10:00:00Z", {}, 900102), "900102"),
      at(order(8, 999999, 42.42, "2025-01-22T20:15:00Z")),
      at(order(9, 1000, 7, "2025-01-05T09:00:00Z")),
      // The same order read twice (e.g. on two pages) counts once.
      at(order(1, 1001, 10.1, "2025-01-06T12:00:00Z")),
    ],
    adjustments: [
      at(
        order(10, 1001, 3.3, "2025-01-07T13:30:00Z", {
          descriptionAdjustment: "Promotion compensation (order 2)",
        }),
      ),
    ],
    cancellations: [
      at(
        order(11, 1001, -3.3, "2025-01-08T18:00:00Z", {
          order_status: "canceled",
          cancellatioPercentage: "50",
          descriptionCancellation: "Cancelled by the store: store closed",
        }),
      ),
      at(
        order(12, 1002, -2.5, "2025-01-15T18:00:00Z", {
          order_status: "canceled",
          cancellatioPercentage: "100",
          descriptionCancellation: "Cancelled | product unavailable",
        }),
      ),
    ],
  };
}
