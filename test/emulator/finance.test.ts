import { afterEach, describe, expect, it } from "vitest";

import { startEmulator } from "../../src/emulator/index.js";
import type { FinanceSeed, RunningEmulator, Seed } from "../../src/emulator/index.js";
import { generateLedger } from "../../src/emulator/finance-data.js";
import { ConfigError } from "../../src/errors.js";
import { FOREIGN_STORE, SEED, STORE, STORE2, call, login } from "./helpers.js";

const FIN = (store: number = STORE): string => `/restaurants/finance/v1/stores/${store}`;

interface Page<T> {
  page_number: number;
  page_size: number;
  order_by: string;
  order_type: string;
  total_pages: number;
  total_entries: number;
  entries: T[];
}
interface Payment {
  id: number;
  total_amount: number;
  expected_execution_date: string;
  confirmed_payment_date: string;
  period_date_start: string;
  period_date_end: string;
  [k: string]: unknown;
}
interface Entry {
  id: number;
  payment_id: number;
  order_date: string;
  order_status: string;
  amount: number;
  [k: string]: unknown;
}

const open: RunningEmulator[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

async function emulator(finance?: FinanceSeed): Promise<{ emu: RunningEmulator; token: string }> {
  const seed: Seed = finance ? { ...SEED, finance } : SEED;
  const emu = await startEmulator({ seed });
  open.push(emu);
  return { emu, token: await login(emu) };
}

async function page<T>(emu: RunningEmulator, token: string, path: string): Promise<Page<T>> {
  const r = await call(emu, "GET", path, { token });
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as Page<T>;
}

/** Every entry of a read, following the pages. */
async function all<T>(emu: RunningEmulator, token: string, path: string, size = 10): Promise<T[]> {
  const out: T[] = [];
  const sep = path.includes("?") ? "&" : "?";
  const first = await page<T>(emu, token, `${path}${sep}page_size=${size}`);
  out.push(...first.entries);
  for (let p = 2; p <= first.total_pages; p++) {
    out.push(...(await page<T>(emu, token, `${path}${sep}page_size=${size}&page_number=${p}`)).entries);
  }
  expect(out).toHaveLength(first.total_entries);
  return out;
}

const cents = (n: number): number => Math.round(n * 100);

/** Σ entries per payment_id, in cents. */
function sums(...lists: Entry[][]): Map<number, number> {
  const m = new Map<number, number>();
  for (const list of lists)
    for (const e of list) m.set(e.payment_id, (m.get(e.payment_id) ?? 0) + cents(e.amount));
  return m;
}

describe("emulator: finance reads", () => {
  it("pages through every payment and order exactly once, with the spec's envelope and fields", async () => {
    const { emu, token } = await emulator();
    const first = await page<Payment>(emu, token, `${FIN()}/payments`);
    expect(first).toMatchObject({
      page_number: 1,
      page_size: 10,
      order_by: "id",
      order_type: "asc",
      total_pages: 2,
      total_entries: 12,
    });
    expect(first.entries).toHaveLength(10);
    const p = first.entries[0]!;
    for (const k of [
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
    ]) {
      expect(p).toHaveProperty(k);
    }
    expect(p.frequecy_type).toBe("WEEKLY");
    expect(p.bank_account).toMatchObject({ document: { holder_name: "Bogotá Centro" } });
    expect(p.consolidated_stores).toEqual([STORE]);

    for (const size of [1, 5, 7, 100]) {
      const payments = await all<Payment>(emu, token, `${FIN()}/payments`, size);
      expect(new Set(payments.map((x) => x.id)).size).toBe(12);
      expect(payments.map((x) => x.id)).toEqual([...payments.map((x) => x.id)].sort((a, b) => a - b));
    }
    const orders = await all<Entry>(emu, token, `${FIN()}/orders`, 7);
    expect(new Set(orders.map((o) => o.id)).size).toBe(orders.length);
    expect(orders.length).toBeGreaterThan(12 * 5);
    const o = orders[0]!;
    expect(o).toMatchObject({ store_id: STORE, store_name: "Bogotá Centro" });
    expect(Object.keys(o.billing as object).sort()).toEqual(
      [
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
      ].sort(),
    );
    const adjustments = await all<Entry>(emu, token, `${FIN()}/order_adjusments`);
    expect(adjustments.length).toBeGreaterThan(0);
    expect(typeof adjustments[0]!.descriptionAdjustment).toBe("string");
    const cancellations = await all<Entry>(emu, token, `${FIN()}/charged_cancellations`);
    expect(cancellations.length).toBeGreaterThan(0);
    expect(cancellations[0]).toHaveProperty("cancellatioPercentage");
    expect(cancellations[0]).toHaveProperty("descriptionCancellation");

    const past = await page<Payment>(emu, token, `${FIN()}/payments?page_number=3`);
    expect(past.entries).toEqual([]);
    expect(past.total_entries).toBe(12);
  });

  it("adds up: each payment's total_amount is the sum of its orders, adjustments and charged cancellations", async () => {
    const { emu, token } = await emulator();
    for (const store of [STORE, STORE2]) {
      const payments = await all<Payment>(emu, token, `${FIN(store)}/payments`, 100);
      const byPayment = sums(
        await all<Entry>(emu, token, `${FIN(store)}/orders`, 100),
        await all<Entry>(emu, token, `${FIN(store)}/order_adjusments`, 100),
        await all<Entry>(emu, token, `${FIN(store)}/charged_cancellations`, 100),
      );
      expect(byPayment.size).toBe(payments.length);
      for (const p of payments) {
        expect(cents(p.total_amount)).toBe(byPayment.get(p.id));
        expect(p.total_amount).toBeGreaterThan(0);
        expect(cents(p.total_amount) / 100).toBe(p.total_amount); // at most 2 decimals
      }
    }
  });

  it("filters as the spec's table says", async () => {
    const { emu, token } = await emulator();
    const payments = await all<Payment>(emu, token, `${FIN()}/payments`, 100);
    const target = payments[3]!;
    const one = await page<Payment>(emu, token, `${FIN()}/payments?payment_id:eq=${target.id}`);
    expect(one.entries.map((p) => p.id)).toEqual([target.id]);

    const from = payments[2]!.expected_execution_date.slice(0, 10);
    const to = payments[5]!.expected_execution_date.slice(0, 10);
    const window = await all<Payment>(
      emu,
      token,
      `${FIN()}/payments?expected_execution_date:gte=${from}&expect_execution_date:lte=${to}`,
    );
    expect(window.map((p) => p.id)).toEqual(payments.slice(2, 6).map((p) => p.id));
    const confirmed = await all<Payment>(
      emu,
      token,
      `${FIN()}/payments?confirmed_payment_date:gte=${payments[10]!.confirmed_payment_date.slice(0, 10)}`,
    );
    expect(confirmed.map((p) => p.id)).toEqual(payments.slice(10).map((p) => p.id));

    const orders = await all<Entry>(emu, token, `${FIN()}/orders`, 100);
    const ofPayment = await all<Entry>(emu, token, `${FIN()}/orders?payment_id:eq=${target.id}`);
    expect(ofPayment.map((o) => o.id)).toEqual(
      orders.filter((o) => o.payment_id === target.id).map((o) => o.id),
    );
    const day = orders[10]!.order_date.slice(0, 10);
    const ofDay = await all<Entry>(emu, token, `${FIN()}/orders?order_date:gte=${day}&order_date:lte=${day}`);
    expect(ofDay.length).toBeGreaterThan(0);
    expect(ofDay.map((o) => o.id)).toEqual(
      orders.filter((o) => o.order_date.startsWith(day)).map((o) => o.id),
    );
    const delivered = await all<Entry>(emu, token, `${FIN()}/orders?order_status:eq=delivered`);
    expect(delivered.map((o) => o.id)).toEqual(
      orders.filter((o) => o.order_status === "delivered").map((o) => o.id),
    );
    const adjOfPayment = await all<Entry>(emu, token, `${FIN()}/order_adjusments?payment_id:eq=${target.id}`);
    expect(adjOfPayment.every((a) => a.payment_id === target.id)).toBe(true);
    const cancellations = await all<Entry>(
      emu,
      token,
      `${FIN()}/charged_cancellations?order_date:lte=2025-01-31`,
    );
    expect(cancellations.every((c) => c.order_date.slice(0, 10) <= "2025-01-31")).toBe(true);
  });

  it("answers 400 to malformed filters, unknown parameters and bad pages", async () => {
    const { emu, token } = await emulator();
    const bad = [
      `${FIN()}/payments?expected_execution_date:gte=2025-1-6`,
      `${FIN()}/payments?confirmed_payment_date:lte=2025-02-30`,
      `${FIN()}/payments?expected_execution_date:lte=2025-01-06`, // not a spec name
      `${FIN()}/payments?payment_id:eq=abc`,
      `${FIN()}/payments?order_date:gte=2025-01-06`, // not a payments filter
      `${FIN()}/orders?order_date:gte=06/01/2025`,
      `${FIN()}/orders?order_status:eq=`,
      `${FIN()}/orders?sort=id`,
      `${FIN()}/order_adjusments?order_date:lte=yesterday`,
      `${FIN()}/charged_cancellations?order_status:eq=canceled`,
      `${FIN()}/payments?page_number=0`,
      `${FIN()}/payments?page_size=101`,
      `${FIN()}/payments?page_size=ten`,
      `${FIN()}/payments?page_size=5&page_size=6`,
    ];
    for (const path of bad) {
      const r = await call(emu, "GET", path, { token });
      expect([path, r.status]).toEqual([path, 400]);
      expect(r.body).toHaveProperty("message");
    }
    expect((await call(emu, "GET", `${FIN(FOREIGN_STORE)}/payments`, { token })).status).toBe(400);
    expect((await call(emu, "GET", `${FIN(123)}/payments`, { token })).status).toBe(404);
    expect((await call(emu, "GET", `${FIN()}/payments`)).status).toBe(401);
    expect((await call(emu, "GET", `${FIN()}/order_adjustments`, { token })).status).toBe(404);
  });

  it("gives the same data for the same seed, other data for another seed, and honours the period", async () => {
    const a = await emulator();
    const b = await emulator();
    const c = await emulator({ seed: 2 });
    const read = async (x: { emu: RunningEmulator; token: string }): Promise<string> =>
      JSON.stringify([
        await all(x.emu, x.token, `${FIN()}/payments`, 100),
        await all(x.emu, x.token, `${FIN()}/orders`, 100),
        await all(x.emu, x.token, `${FIN()}/order_adjusments`, 100),
        await all(x.emu, x.token, `${FIN()}/charged_cancellations`, 100),
      ]);
    const ra = await read(a);
    expect(await read(b)).toBe(ra);
    expect(await read(c)).not.toBe(ra);
    expect(
      generateLedger(
        { key: "1", name: "x" },
        { seed: 1, from: "2025-01-06", to: "2025-03-30", frequency: "weekly", orders_per_payment: 8 },
      ),
    ).toEqual(
      generateLedger(
        { key: "1", name: "x" },
        { seed: 1, from: "2025-01-06", to: "2025-03-30", frequency: "weekly", orders_per_payment: 8 },
      ),
    );

    const monthly = await emulator({
      from: "2024-01-01",
      to: "2024-12-31",
      frequency: "monthly",
      orders_per_payment: 2,
    });
    const payments = await all<Payment>(monthly.emu, monthly.token, `${FIN()}/payments`, 100);
    expect(payments).toHaveLength(12);
    expect(payments[1]).toMatchObject({
      period_date_start: "2024-02-01T00:00:00Z",
      period_date_end: "2024-02-29T23:59:59Z",
      frequecy_type: "MONTHLY",
    });
  });

  it("injects the discrepancies asked for, from the seed or the control API", async () => {
    const clean = await emulator();
    const cleanPayments = await all<Payment>(clean.emu, clean.token, `${FIN()}/payments`, 100);
    const { emu, token } = await emulator({
      discrepancies: [
        { store_id: STORE, payment_index: 1, kind: "amount", delta: -2.5 },
        { store_id: String(STORE), payment_index: 4, kind: "missing_entry" },
        { store_id: STORE, payment_index: 7, kind: "orphan_entry" },
      ],
    });
    const check = async (): Promise<{ mismatched: number[]; orphans: Entry[] }> => {
      const payments = await all<Payment>(emu, token, `${FIN()}/payments`, 100);
      const orders = await all<Entry>(emu, token, `${FIN()}/orders`, 100);
      const byPayment = sums(
        orders,
        await all<Entry>(emu, token, `${FIN()}/order_adjusments`, 100),
        await all<Entry>(emu, token, `${FIN()}/charged_cancellations`, 100),
      );
      const ids = new Set(payments.map((p) => p.id));
      return {
        mismatched: payments.filter((p) => cents(p.total_amount) !== byPayment.get(p.id)).map((p) => p.id),
        orphans: orders.filter((o) => !ids.has(o.payment_id)),
      };
    };
    const payments = await all<Payment>(emu, token, `${FIN()}/payments`, 100);
    expect(cents(payments[1]!.total_amount)).toBe(cents(cleanPayments[1]!.total_amount) - 250);
    const found = await check();
    expect(found.mismatched).toEqual([payments[1]!.id, payments[4]!.id]);
    expect(found.orphans).toHaveLength(1);
    const orphanDay = found.orphans[0]!.order_date.slice(0, 10);
    expect(orphanDay >= payments[7]!.period_date_start.slice(0, 10)).toBe(true);
    expect(orphanDay <= payments[7]!.period_date_end.slice(0, 10)).toBe(true);
    // The other store is untouched.
    const other = await all<Payment>(emu, token, `${FIN(STORE2)}/payments`, 100);
    expect(other).toEqual(await all<Payment>(clean.emu, clean.token, `${FIN(STORE2)}/payments`, 100));

    // At run time through the control API.
    const put = await call(emu, "PUT", "/__emulator/finance/discrepancies", {
      body: [{ store_id: STORE, payment_index: 0, kind: "amount" }],
    });
    expect(put.status).toBe(200);
    expect((await check()).mismatched).toEqual([payments[0]!.id]);
    expect(
      (
        await call(emu, "PUT", "/__emulator/finance/discrepancies", {
          body: [{ store_id: STORE, kind: "x" }],
        })
      ).status,
    ).toBe(400);
    await call(emu, "POST", "/__emulator/reset");
    expect((await call(emu, "GET", "/__emulator/finance/discrepancies")).body).toHaveLength(3);
  });

  it("checks the finance seed option", async () => {
    await expect(
      startEmulator({
        seed: { ...SEED, finance: { from: "2025-13-01", frequency: "daily" } as unknown as FinanceSeed },
      }),
    ).rejects.toBeInstanceOf(ConfigError);
    await expect(
      startEmulator({ seed: { ...SEED, finance: { from: "2025-03-01", to: "2025-01-01" } } }),
    ).rejects.toBeInstanceOf(ConfigError);
  });
});
