/**
 * Finance reads of the emulator (docs/platform-api.md §4.8, §2.6), prefix
 * `/restaurants/finance/v1/stores/{store_id}`, integrations token: `GET /payments`, `/orders`,
 * `/order_adjusments` (spelling as the spec writes it), `/charged_cancellations`.
 *
 * Data is generated, never stored: deterministic per store from a seed (mulberry32, no `Math.random`),
 * over a configurable period (seed option `finance`, {@link FinanceSeed}). Generated lazily on the first
 * read of a store and cached.
 *
 * **Amount rule** (emulator's choice, the spec does not give one): for every payment,
 * `total_amount` = Σ `amount` over every entry whose `payment_id` is the payment's id, across orders,
 * order adjustments and charged cancellations. Order amounts are positive (net of commission and fees),
 * adjustments may be negative, charged cancellations are negative (what the store is charged). Every
 * amount has at most 2 decimals and the rule holds exactly in cents. An order's `amount` is
 * `billing.total_order − comission_product − service_fee − iss − income_tax`, its other billing fields are 0
 * except `paid_by_user` (= total_order). A cancellation's `amount` is −`cancellatioPercentage` % of its
 * `billing.total_order` (rounded to cents) and its `billing.marketplace_charge` is −amount. Adjustments carry
 * an all-zero `billing` and name the adjusted order in `descriptionAdjustment`. Ids are unique within a
 * store (entries of one store share one id sequence).
 *
 * **Reads**: pages are 1-based, default `page_size` 10, at most 100 (more: 400); a page past the end
 * answers `entries: []`. Entries are sorted by id ascending (`order_by: "id"`, `order_type: "asc"`).
 * Date filters take `YYYY-MM-DD` and compare the UTC date part of the field. A malformed value, a
 * repeated or unknown query parameter: 400 `{message}`. `expect_execution_date:lte` (the spec's name)
 * filters `expected_execution_date`, like its `:gte` partner, although the spec's description mentions
 * confirmed_payment_date.
 */

import type {
  BankAccount as GenBankAccount,
  Billing as GenBilling,
  ChargedCancellation,
  Order,
  OrderAdjustment,
  Payment,
} from "../generated/platform.js";
import { badShape, ok } from "./http.js";
import type { Reply, Route, RouteContext } from "./http.js";
import { hash32, mulberry32, pick, randInt } from "./prng.js";
import type { Random } from "./prng.js";
import { storeKey } from "./state.js";
import type { EmulatorState, StoreRec } from "./state.js";

/** Payment frequencies seen in the platform's prose (docs/platform-api.md §4.8). */
export const FREQUENCIES = ["weekly", "fortnightly", "monthly"] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/**
 * A deliberate error in the generated data, for tests of reconciliation. `payment_index` is 0-based in
 * chronological order among the store's payments (an index out of range is ignored).
 * - `amount`: the payment's `total_amount` is off by `delta` (default 1.00; at most 2 decimals);
 * - `orphan_entry`: an extra order dated in the payment's period whose `payment_id` names no payment;
 * - `missing_entry`: the payment's first order is left out of `/orders` (the total still counts it).
 */
export interface FinanceDiscrepancy {
  store_id: string | number;
  payment_index: number;
  kind: "amount" | "orphan_entry" | "missing_entry";
  delta?: number;
}

/** Seed option `finance`: how finance data is generated. Every field is optional. */
export interface FinanceSeed {
  /** PRNG seed; default 1. The same seed gives the same data. */
  seed?: number;
  /** First day of the first payment period, `YYYY-MM-DD`; default 2025-01-06 (a Monday). */
  from?: string;
  /** Last day covered, `YYYY-MM-DD`; default 2025-03-30: 12 weekly periods by default. */
  to?: string;
  /** Length of a payment period; default weekly. Monthly periods run to the day before the same date. */
  frequency?: Frequency;
  /** Average orders per payment (each payment has 75 %–125 % of it, at least 1); default 8. */
  orders_per_payment?: number;
  discrepancies?: FinanceDiscrepancy[];
}

/** Defaults of {@link FinanceSeed}: fixed dates so that tests are stable. */
export const FINANCE_DEFAULTS = {
  seed: 1,
  from: "2025-01-06",
  to: "2025-03-30",
  frequency: "weekly" as Frequency,
  orders_per_payment: 8,
};

/** Default and largest `page_size` (docs/platform-api.md §4.8: default 10; the cap is the emulator's). */
export const PAGE_SIZE_DEFAULT = 10;
export const PAGE_SIZE_MAX = 100;

const MAX_PAYMENTS = 1000;
const DAY = 86_400_000;

/** Bank account of a payment (docs/platform-api.md §4.8; schema `finance#BankAccount`). */
export type BankAccount = GenBankAccount;

/**
 * Payment entry (docs/platform-api.md §4.8; schema `finance#Payment`), field names as the spec writes them
 * (`frequecy_type`, ...).
 */
export type PaymentEntry = Payment;

/** `billing` of an order entry (docs/platform-api.md §4.8; schema `finance#Billing`), all numbers. */
export type Billing = GenBilling;

/**
 * Order entry (docs/platform-api.md §4.8; schema `finance#Order`); adjustments add `descriptionAdjustment`
 * (`finance#OrderAdjustment`), cancellations `cancellatioPercentage` and `descriptionCancellation`
 * (`finance#ChargedCancellation`).
 */
export type OrderEntry = Order &
  Partial<Pick<OrderAdjustment, "descriptionAdjustment">> &
  Partial<Pick<ChargedCancellation, "cancellatioPercentage" | "descriptionCancellation">>;

/** Everything one store's finance reads serve, each list sorted by id. */
export interface Ledger {
  payments: PaymentEntry[];
  orders: OrderEntry[];
  adjustments: OrderEntry[];
  cancellations: OrderEntry[];
}

// ---- seed checks ----------------------------------------------------------------------------------

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Epoch ms of a `YYYY-MM-DD` date at 00:00 UTC, or undefined when malformed or not a real date. */
export function parseDay(s: string): number | undefined {
  const m = DATE_RE.exec(s);
  if (!m) return undefined;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return new Date(t).toISOString().slice(0, 10) === s ? t : undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Problems of a discrepancies list (for the seed check and the control API). */
export function discrepancyProblems(value: unknown, at: string): { pointer: string; message: string }[] {
  const out: { pointer: string; message: string }[] = [];
  if (!Array.isArray(value)) return [{ pointer: at, message: "must be an array" }];
  value.forEach((d: unknown, i: number) => {
    const p = `${at}/${i}`;
    if (!isRecord(d))
      return out.push({ pointer: p, message: "must be an object {store_id, payment_index, kind}" });
    const sid = d.store_id;
    if ((typeof sid !== "string" && typeof sid !== "number") || storeKey(sid) === undefined) {
      out.push({ pointer: `${p}/store_id`, message: "must be a store id" });
    }
    if (
      typeof d.payment_index !== "number" ||
      !Number.isSafeInteger(d.payment_index) ||
      d.payment_index < 0
    ) {
      out.push({ pointer: `${p}/payment_index`, message: "must be an integer ≥ 0" });
    }
    if (d.kind !== "amount" && d.kind !== "orphan_entry" && d.kind !== "missing_entry") {
      out.push({ pointer: `${p}/kind`, message: "must be amount, orphan_entry or missing_entry" });
    }
    if (
      d.delta !== undefined &&
      (typeof d.delta !== "number" ||
        !Number.isFinite(d.delta) ||
        Math.round(d.delta * 100) !== d.delta * 100)
    ) {
      out.push({ pointer: `${p}/delta`, message: "must be a number with at most 2 decimals" });
    }
    return undefined;
  });
  return out;
}

/** Problems of the seed option `finance` ({@link FinanceSeed}), with JSON pointers under `at`. */
export function financeSeedProblems(value: unknown, at: string): { pointer: string; message: string }[] {
  if (!isRecord(value)) return [{ pointer: at, message: "must be an object" }];
  const out: { pointer: string; message: string }[] = [];
  const known = ["seed", "from", "to", "frequency", "orders_per_payment", "discrepancies"];
  for (const k of Object.keys(value)) {
    if (!known.includes(k))
      out.push({ pointer: `${at}/${k}`, message: `unknown option (known: ${known.join(", ")})` });
  }
  if (value.seed !== undefined && (typeof value.seed !== "number" || !Number.isSafeInteger(value.seed))) {
    out.push({ pointer: `${at}/seed`, message: "must be an integer" });
  }
  for (const k of ["from", "to"] as const) {
    const v = value[k];
    if (v !== undefined && (typeof v !== "string" || parseDay(v) === undefined)) {
      out.push({ pointer: `${at}/${k}`, message: "must be a date YYYY-MM-DD" });
    }
  }
  if (value.frequency !== undefined && !(FREQUENCIES as readonly unknown[]).includes(value.frequency)) {
    out.push({ pointer: `${at}/frequency`, message: "must be weekly, fortnightly or monthly" });
  }
  const opp = value.orders_per_payment;
  if (opp !== undefined && (typeof opp !== "number" || !Number.isSafeInteger(opp) || opp < 1 || opp > 1000)) {
    out.push({ pointer: `${at}/orders_per_payment`, message: "must be an integer from 1 to 1000" });
  }
  if (value.discrepancies !== undefined)
    out.push(...discrepancyProblems(value.discrepancies, `${at}/discrepancies`));
  if (out.length === 0) {
    const from = parseDay((value.from as string | undefined) ?? FINANCE_DEFAULTS.from)!;
    const to = parseDay((value.to as string | undefined) ?? FINANCE_DEFAULTS.to)!;
    if (from > to) out.push({ pointer: `${at}/from`, message: "must not be after `to`" });
    else if ((to - from) / DAY > MAX_PAYMENTS * 7) {
      out.push({ pointer: `${at}/to`, message: `the period is too long (at most ${MAX_PAYMENTS * 7} days)` });
    }
  }
  return out;
}

// ---- generation -----------------------------------------------------------------------------------

const DISH_NAMES = [
  "Classic burger",
  "Cheese burger",
  "Chicken wrap",
  "Caesar salad",
  "French fries",
  "Onion rings",
  "Lemonade",
  "Chocolate shake",
  "Veggie bowl",
  "Brownie",
];
const PAYMENT_METHODS = ["cc", "cash", "dc", "PSE", "google_pay", "apple_pay", "paypal"];
const ADJUSTMENT_REASONS = [
  "Refund of a missing item",
  "Promotion compensation",
  "Packaging charge",
  "Delivery delay compensation",
  "Price correction",
];
const CANCELLATION_REASONS = [
  "Cancelled by the store: product unavailable",
  "Cancelled by the store: store closed",
  "Cancelled after preparation delay",
];
const FREQUENCY_TEXT: Record<Frequency, [string, string]> = {
  weekly: ["WEEKLY", "Weekly payment"],
  fortnightly: ["FORTNIGHTLY", "Fortnightly payment"],
  monthly: ["MONTHLY", "Monthly payment"],
};

const money = (cents: number): number => cents / 100;
const day = (t: number): string => new Date(t).toISOString().slice(0, 10);
const dateTime = (t: number): string => new Date(t).toISOString().replace(/\.\d{3}Z$/, "Z");

function billing(totalCents: number, parts: Partial<Record<keyof Billing, number>>): Billing {
  const b: Billing = {
    total_order: money(totalCents),
    comission_product: 0,
    cofins: 0,
    pis: 0,
    iss: 0,
    income_tax: 0,
    compensation: 0,
    discount_by_marketplace_in_cash: 0,
    total_order_whim: 0,
    free_shipping: 0,
    other_discounts: 0,
    meal_voucher: 0,
    marketplace_fee_no_cash: 0,
    global_offer_coupon: 0,
    paid_by_user: money(totalCents),
    commission_whim: 0,
    platform_credits_cash_back: 0,
    service_fee: 0,
    shipping_partner_no_limit: 0,
    shipping_partner_limit: 0,
    marketplace_charge: 0,
  };
  for (const [k, cents] of Object.entries(parts)) b[k as keyof Billing] = money(cents);
  return b;
}

/** Payment periods `[start, end]` (epoch ms of days, inclusive) from `from` to `to`. */
function periods(from: number, to: number, frequency: Frequency): [number, number][] {
  const out: [number, number][] = [];
  let start = from;
  while (start <= to && out.length < MAX_PAYMENTS) {
    let next: number;
    if (frequency === "monthly") {
      const d = new Date(start);
      next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
    } else next = start + (frequency === "weekly" ? 7 : 14) * DAY;
    out.push([start, Math.min(next - DAY, to)]);
    start = next;
  }
  return out;
}

interface GenConfig {
  seed: number;
  from: string;
  to: string;
  frequency: Frequency;
  orders_per_payment: number;
}

/** The bank account of a store's payments: made-up numbers from the store's random source. */
function bankAccount(rnd: Random, holder: string): BankAccount {
  const digits = (n: number): string => Array.from({ length: n }, () => String(randInt(rnd, 0, 9))).join("");
  return {
    bank_name: "Emulated Bank",
    account_number: digits(10),
    bank_code: "001",
    account_type: "checking",
    ispb: digits(8),
    document: { identification_type: "NIT", identification_number: digits(9), holder_name: holder },
  };
}

/**
 * Plants the configured discrepancies of a store in its ledger, for `carte finance reconcile` to find:
 * a payment whose amount is off, an order missing from a payment, or an order that belongs to no payment
 * (`extraOrder` makes it, in a payment's period, with a payment id no payment has).
 */
function addDiscrepancies(
  ledger: Ledger,
  key: string,
  discrepancies: readonly FinanceDiscrepancy[],
  extraOrder: (start: number, end: number) => OrderEntry,
): void {
  for (const d of discrepancies) {
    if (storeKey(d.store_id) !== key) continue;
    const p = ledger.payments[d.payment_index];
    if (!p) continue;
    if (d.kind === "amount") {
      p.total_amount = money(Math.round(p.total_amount * 100) + Math.round((d.delta ?? 1) * 100));
    } else if (d.kind === "missing_entry") {
      const i = ledger.orders.findIndex((o) => o.payment_id === p.id);
      if (i >= 0) ledger.orders.splice(i, 1);
    } else {
      const start = Date.parse(p.period_date_start);
      const end = Date.parse(p.period_date_end) - DAY + 1000;
      ledger.orders.push(extraOrder(start, end));
    }
  }
}

/** Generates a store's ledger; the same config and store always give the same ledger. */
export function generateLedger(
  store: Pick<StoreRec, "key" | "name">,
  cfg: GenConfig,
  discrepancies: FinanceDiscrepancy[] = [],
): Ledger {
  const rnd: Random = mulberry32(hash32(`${cfg.seed}:${store.key}`));
  const prefix = 10_000 + (hash32(`ids:${cfg.seed}:${store.key}`) % 90_000);
  let nextEntry = 1;
  const entryId = (): number => prefix * 1_000_000 + nextEntry++;
  const storeId = Number(store.key);
  const [freqType, freqText] = FREQUENCY_TEXT[cfg.frequency];
  const bank = bankAccount(rnd, store.name);
  const ledger: Ledger = { payments: [], orders: [], adjustments: [], cancellations: [] };
  const base = (paymentId: number, at: number, status: string): Omit<OrderEntry, "amount" | "billing"> => ({
    id: entryId(),
    payment_id: paymentId,
    order_date: dateTime(at),
    store_id: storeId,
    store_name: store.name,
    store_type: "RESTAURANT",
    order_status: status,
    payment_method: pick(rnd, PAYMENT_METHODS),
    is_prime: rnd() < 0.3 ? "true" : "false",
    items: Array.from({ length: randInt(rnd, 1, 3) }, () => ({
      name: pick(rnd, DISH_NAMES),
      units: String(randInt(rnd, 1, 3)),
    })),
  });
  const orderAt = (start: number, end: number): number =>
    start +
    randInt(rnd, 0, Math.round((end - start) / DAY)) * DAY +
    randInt(rnd, 10 * 3600, 22 * 3600) * 1000;
  /** A delivered order: net amount in cents. */
  const order = (paymentId: number, start: number, end: number): [OrderEntry, number] => {
    const total = randInt(rnd, 1_500, 90_000);
    const commission = Math.round(total * 0.18);
    const serviceFee = Math.round(total * 0.02);
    const iss = Math.round(total * 0.01);
    const incomeTax = Math.round(total * 0.005);
    const net = total - commission - serviceFee - iss - incomeTax;
    const e: OrderEntry = {
      ...base(paymentId, orderAt(start, end), rnd() < 0.85 ? "finished" : "delivered"),
      amount: money(net),
      billing: billing(total, {
        comission_product: commission,
        service_fee: serviceFee,
        iss,
        income_tax: incomeTax,
      }),
    };
    return [e, net];
  };

  const ps = periods(parseDay(cfg.from)!, parseDay(cfg.to)!, cfg.frequency);
  ps.forEach(([start, end], i) => {
    const paymentId = prefix * 10_000 + i + 1;
    let cents = 0;
    const n = Math.max(1, Math.round(cfg.orders_per_payment * (0.75 + 0.5 * rnd())));
    const orders: OrderEntry[] = [];
    for (let k = 0; k < n; k++) {
      const [e, net] = order(paymentId, start, end);
      orders.push(e);
      cents += net;
    }
    for (let k = randInt(rnd, 0, 2); k > 0; k--) {
      const target = pick(rnd, orders);
      const amt = (rnd() < 0.5 ? -1 : 1) * randInt(rnd, 100, 2_000);
      ledger.adjustments.push({
        ...base(paymentId, Date.parse(target.order_date), "finished"),
        amount: money(amt),
        billing: billing(0, { paid_by_user: 0 }),
        descriptionAdjustment: `${pick(rnd, ADJUSTMENT_REASONS)} (order ${target.id})`,
      });
      cents += amt;
    }
    if (rnd() < 0.4) {
      const total = randInt(rnd, 2_000, 20_000);
      const pct = pick(rnd, [100, 50, 30]);
      const charged = Math.round((total * pct) / 100);
      if (charged * 2 < cents) {
        ledger.cancellations.push({
          ...base(paymentId, orderAt(start, end), "canceled"),
          amount: money(-charged),
          billing: billing(total, { paid_by_user: 0, marketplace_charge: charged }),
          cancellatioPercentage: String(pct),
          descriptionCancellation: pick(rnd, CANCELLATION_REASONS),
        });
        cents -= charged;
      }
    }
    ledger.orders.push(...orders);
    const execution = end + 4 * DAY + 12 * 3600 * 1000;
    ledger.payments.push({
      id: paymentId,
      status: "PAID",
      period_date_start: dateTime(start),
      period_date_end: dateTime(end + DAY - 1000),
      expected_execution_date: dateTime(execution),
      confirmed_payment_date: dateTime(execution + randInt(rnd, 0, 1) * DAY + 3 * 3600 * 1000),
      total_amount: money(cents),
      payment_reference: `PAY-${store.key}-${day(start).replaceAll("-", "")}`,
      frequecy_type: freqType,
      frequecy_type_descripcion: freqText,
      balance_request_id: `BR-${paymentId}`,
      bank_account: bank,
      consolidated_stores: [storeId],
    });
  });

  addDiscrepancies(ledger, store.key, discrepancies, (start, end) => order(prefix * 10_000, start, end)[0]);
  ledger.orders.sort((a, b) => a.id - b.id);
  return ledger;
}

// ---- per-emulator data -------------------------------------------------------------------------------

/** The finance configuration and the cache of generated ledgers of one emulator. */
export class FinanceData {
  private cfg: GenConfig = { ...FINANCE_DEFAULTS };
  private seeded: FinanceDiscrepancy[] = [];
  private current: FinanceDiscrepancy[] = [];
  private readonly cache = new Map<string, Ledger>();

  /** Applies a (checked) seed option; absent fields take {@link FINANCE_DEFAULTS}. */
  configure(seed: FinanceSeed | undefined): void {
    const s = seed ?? {};
    this.cfg = {
      seed: s.seed ?? FINANCE_DEFAULTS.seed,
      from: s.from ?? FINANCE_DEFAULTS.from,
      to: s.to ?? FINANCE_DEFAULTS.to,
      frequency: s.frequency ?? FINANCE_DEFAULTS.frequency,
      orders_per_payment: s.orders_per_payment ?? FINANCE_DEFAULTS.orders_per_payment,
    };
    this.seeded = [...(s.discrepancies ?? [])];
    this.current = [...this.seeded];
    this.cache.clear();
  }

  get discrepancies(): readonly FinanceDiscrepancy[] {
    return this.current;
  }

  /** Replaces the injected discrepancies (control API); the list must be checked. */
  setDiscrepancies(list: FinanceDiscrepancy[]): void {
    this.current = [...list];
    this.cache.clear();
  }

  /** Back to the seed's discrepancies (control reset). */
  reset(): void {
    this.setDiscrepancies(this.seeded);
  }

  ledger(store: StoreRec): Ledger {
    let l = this.cache.get(store.key);
    if (!l) {
      l = generateLedger(store, this.cfg, this.current);
      this.cache.set(store.key, l);
    }
    return l;
  }
}

const finances = new WeakMap<EmulatorState, FinanceData>();

/** The finance data of an emulator state (defaults until configured). */
export function financeOf(state: EmulatorState): FinanceData {
  let f = finances.get(state);
  if (!f) finances.set(state, (f = new FinanceData()));
  return f;
}

// ---- reads ------------------------------------------------------------------------------------------

type Entry = PaymentEntry | OrderEntry;
type Predicate = (e: Entry) => boolean;
type FilterFactory = (raw: string, name: string) => Predicate;

const field = (e: Entry, f: string): unknown => (e as unknown as Record<string, unknown>)[f];

const eqInt =
  (f: string): FilterFactory =>
  (raw, name) => {
    if (!/^\d{1,15}$/.test(raw)) throw badShape(`${name} must be an integer`);
    const n = Number(raw);
    return (e) => field(e, f) === n;
  };

const eqStr =
  (f: string): FilterFactory =>
  (raw, name) => {
    if (raw === "") throw badShape(`${name} must not be empty`);
    return (e) => field(e, f) === raw;
  };

const dateCmp =
  (f: string, op: "gte" | "lte"): FilterFactory =>
  (raw, name) => {
    if (parseDay(raw) === undefined) throw badShape(`${name} must be a date YYYY-MM-DD`);
    return (e) => {
      const d = String(field(e, f)).slice(0, 10);
      return op === "gte" ? d >= raw : d <= raw;
    };
  };

/** Query filters per read, exactly as the spec's table (docs/platform-api.md §2.6). */
const PAYMENT_FILTERS: Record<string, FilterFactory> = {
  "payment_id:eq": eqInt("id"),
  "expected_execution_date:gte": dateCmp("expected_execution_date", "gte"),
  "expect_execution_date:lte": dateCmp("expected_execution_date", "lte"),
  "confirmed_payment_date:gte": dateCmp("confirmed_payment_date", "gte"),
  "confirmed_payment_date:lte": dateCmp("confirmed_payment_date", "lte"),
};
const ORDER_FILTERS: Record<string, FilterFactory> = {
  "order_date:gte": dateCmp("order_date", "gte"),
  "order_date:lte": dateCmp("order_date", "lte"),
  "order_status:eq": eqStr("order_status"),
  "payment_id:eq": eqInt("payment_id"),
};
const CANCELLATION_FILTERS: Record<string, FilterFactory> = {
  "payment_id:eq": eqInt("payment_id"),
  "order_date:gte": dateCmp("order_date", "gte"),
  "order_date:lte": dateCmp("order_date", "lte"),
};

function pageParam(raw: string | undefined, name: string, dflt: number, max: number): number {
  if (raw === undefined) return dflt;
  if (!/^\d{1,9}$/.test(raw)) throw badShape(`${name} must be a positive integer`);
  const n = Number(raw);
  if (n < 1 || n > max) throw badShape(`${name} must be between 1 and ${max}`);
  return n;
}

/**
 * One finance read: the page envelope of docs/platform-api.md §4.8 over `pick(ledger)` filtered by the query.
 */
function read(pickList: (l: Ledger) => Entry[], filters: Record<string, FilterFactory>) {
  return (ctx: RouteContext): Reply => {
    const store = ctx.state.storeForClient(ctx.params.store_id!, ctx.clientId);
    const preds: Predicate[] = [];
    const seen = new Set<string>();
    let pageNumber: string | undefined;
    let pageSize: string | undefined;
    for (const [name, value] of ctx.query) {
      if (seen.has(name)) throw badShape(`query parameter ${name} is given twice`);
      seen.add(name);
      if (name === "page_number") pageNumber = value;
      else if (name === "page_size") pageSize = value;
      else {
        const f = filters[name];
        if (!f) {
          const allowed = ["page_number", "page_size", ...Object.keys(filters)].join(", ");
          throw badShape(`unknown query parameter ${name}; allowed: ${allowed}`);
        }
        preds.push(f(value, name));
      }
    }
    const page = pageParam(pageNumber, "page_number", 1, Number.MAX_SAFE_INTEGER);
    const size = pageParam(pageSize, "page_size", PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX);
    const all = pickList(financeOf(ctx.state).ledger(store));
    const matching = preds.length === 0 ? all : all.filter((e) => preds.every((p) => p(e)));
    const from = (page - 1) * size;
    return ok({
      page_number: page,
      page_size: size,
      order_by: "id",
      order_type: "asc",
      total_pages: Math.ceil(matching.length / size),
      total_entries: matching.length,
      entries: from < matching.length ? matching.slice(from, from + size) : [],
    });
  };
}

/**
 * Routes of the finance group (docs/platform-api.md §2.6): GET only, integrations token
 * (docs/platform-api.md §4.2).
 */
export const financeRoutes: Route[] = [
  {
    route: "GET /restaurants/finance/v1/stores/{store_id}/payments",
    handle: read((l) => l.payments, PAYMENT_FILTERS),
  },
  {
    route: "GET /restaurants/finance/v1/stores/{store_id}/orders",
    handle: read((l) => l.orders, ORDER_FILTERS),
  },
  {
    route: "GET /restaurants/finance/v1/stores/{store_id}/order_adjusments",
    handle: read((l) => l.adjustments, ORDER_FILTERS),
  },
  {
    route: "GET /restaurants/finance/v1/stores/{store_id}/charged_cancellations",
    handle: read((l) => l.cancellations, CANCELLATION_FILTERS),
  },
];
