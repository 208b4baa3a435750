/**
 * Wire shapes of the finance group (docs/platform-api.md §4.8, §2.6), field names exactly as the platform
 * spells them (`frequecy_type`, `cancellatioPercentage`, the `order_adjusments` path, ...).
 *
 * These are what the platform sends, before carte touches them: money fields are JSON numbers in the
 * currency's major unit (e.g. `24.90`) and are converted to integer hundredths by `cents.ts` before any
 * arithmetic; date-times are strings. The entry shapes are the types generated from
 * schemas/platform/finance.schema.json, so the schemas stay the one source of truth.
 */

import type { RouteName } from "../platform/routes.js";
import type { Billing, ChargedCancellation, Order, OrderAdjustment, Payment } from "../generated/platform.js";

/** The four finance reads of docs/platform-api.md §2.6, by carte's name. */
export const FINANCE_KINDS = ["payments", "orders", "adjustments", "cancellations"] as const;
export type FinanceKind = (typeof FINANCE_KINDS)[number];

/**
 * Last path segment of each read under `/restaurants/finance/v1/stores/{store_id}`
 * (docs/platform-api.md §2.6).
 */
export const FINANCE_SEGMENT: Record<FinanceKind, string> = {
  payments: "payments",
  orders: "orders",
  // Spelling as in the spec's path.
  adjustments: "order_adjusments",
  cancellations: "charged_cancellations",
};

/** The route of each finance read (docs/platform-api.md §2.6, src/platform/routes.ts). */
export const FINANCE_ROUTE = {
  payments: "GET /restaurants/finance/v1/stores/{store_id}/payments",
  orders: "GET /restaurants/finance/v1/stores/{store_id}/orders",
  adjustments: "GET /restaurants/finance/v1/stores/{store_id}/order_adjusments",
  cancellations: "GET /restaurants/finance/v1/stores/{store_id}/charged_cancellations",
} as const satisfies Record<FinanceKind, RouteName>;

/**
 * Page envelope of every finance read (docs/platform-api.md §4.8). Pages are 1-based
 * (docs/platform-api.md §4.8).
 */
export interface FinancePage<T> {
  page_number: number;
  page_size: number;
  order_by: string;
  order_type: string;
  total_pages: number;
  total_entries: number;
  entries: T[];
}

/**
 * Payment entry (docs/platform-api.md §4.8), generated from schemas/platform/finance.schema.json.
 * `total_amount` is money in the major unit; `status` is a free string (docs/platform-api.md §4.8);
 * date-times are strings.
 */
export type WirePayment = Payment;

/**
 * Names of the `billing` fields in the spec's order (docs/platform-api.md §4.8); every one is money (a
 * number).
 */
export const BILLING_FIELDS = [
  "total_order",
  "comission_product",
  "cofins",
  "pis",
  "iss",
  "income_tax",
  "compensation",
  "discount_by_marketplace_in_cash",
  "total_order_whim",
  "free_shipping",
  "other_discounts",
  "meal_voucher",
  "marketplace_fee_no_cash",
  "global_offer_coupon",
  "paid_by_user",
  "commission_whim",
  "platform_credits_cash_back",
  "service_fee",
  "shipping_partner_no_limit",
  "shipping_partner_limit",
  "marketplace_charge",
] as const;

/** `billing` of an order entry (docs/platform-api.md §4.8): money, major unit. */
export type WireBilling = Billing;

/**
 * Order entry (docs/platform-api.md §4.8), also the base shape of adjustments and charged cancellations.
 * `amount` is money in the major unit; by the emulator's convention it is what the entry adds to its payment
 * (negative for charged cancellations). `order_status`, `store_type`, `payment_method` are free strings.
 */
export type WireOrder = Order;

/** Order adjustment (docs/platform-api.md §4.8): an order entry plus `descriptionAdjustment`. */
export type WireAdjustment = OrderAdjustment;

/**
 * Charged cancellation (docs/platform-api.md §4.8): an order entry plus `cancellatioPercentage` (a string)
 * and `descriptionCancellation`.
 */
export type WireCancellation = ChargedCancellation;

/** The entry type of each read. */
export interface FinanceEntryOf {
  payments: WirePayment;
  orders: WireOrder;
  adjustments: WireAdjustment;
  cancellations: WireCancellation;
}
