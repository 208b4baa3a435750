/**
 * Typed reads of the finance group (docs/platform-api.md §4.8, §2.6):
 * `GET /restaurants/finance/v1/stores/{store_id}/payments | orders | order_adjusments |
 * charged_cancellations`, with every documented filter, walking every page.
 *
 * - Filters are typed objects per read ({@link FinanceFiltersOf}); each field maps onto exactly one
 *   query parameter, spelled as in the spec's table ({@link FILTER_PARAMS}), including the spec's
 *   `expect_execution_date:lte`. They are checked before any call (a malformed filter is a 400).
 * - Pages are 1-based; `page_size` is at most {@link MAX_PAGE_SIZE}. Page 1 of a store tells how many
 *   pages there are; the others are then read concurrently. One limiter bounds the calls in flight
 *   across every page and every store of a {@link FinanceReader} (on top of the platform client's own
 *   rate limit and retries: finance reads are GETs, hence retried on 429, 5xx and timeouts).
 * - Entries are returned in the platform's order (page by page), each once: an id seen on two pages
 *   (the data changed while paging) is kept once and reported in {@link ReadResult.warnings}.
 */

import { routePath } from "../platform/routes.js";
import pLimit, { type LimitFunction } from "p-limit";
import { ApiError, UsageError, warning, type Diagnostic } from "../errors.js";
import type { PlatformClient } from "../platform/client.js";
import { isDay } from "../calendar.js";
import {
  FINANCE_ROUTE,
  FINANCE_SEGMENT,
  type FinanceEntryOf,
  type FinanceKind,
  type FinancePage,
} from "./records.js";

/**
 * Largest `page_size` carte asks for (the emulator's cap; the spec does not give one,
 * docs/platform-api.md §4.11).
 */
export const MAX_PAGE_SIZE = 100;
/** Pages read at once by default, across stores. */
export const DEFAULT_CONCURRENCY = 8;

/** Filters of `/payments` (docs/platform-api.md §2.6). Days are `YYYY-MM-DD`; bounds are inclusive. */
export interface PaymentFilters {
  /** `payment_id:eq`: only this payment. */
  paymentId?: number | string;
  /** `expected_execution_date:gte`. */
  expectedExecutionFrom?: string;
  /**
   * `expect_execution_date:lte` (the spec's name). The spec's description says it filters
   * confirmed_payment_date; its name and the emulator say expected_execution_date (docs/finance.md).
   */
  expectedExecutionTo?: string;
  /** `confirmed_payment_date:gte`. */
  confirmedPaymentFrom?: string;
  /** `confirmed_payment_date:lte`. */
  confirmedPaymentTo?: string;
}

/**
 * Filters of `/orders` and `/order_adjusments` (docs/platform-api.md §2.6). Days are `YYYY-MM-DD`, inclusive.
 */
export interface OrderFilters {
  /** `order_date:gte`. */
  orderDateFrom?: string;
  /** `order_date:lte`. */
  orderDateTo?: string;
  /** `order_status:eq` (a free string, e.g. `finished`). */
  orderStatus?: string;
  /** `payment_id:eq`: only the entries of this payment. */
  paymentId?: number | string;
}

/** Filters of `/charged_cancellations` (docs/platform-api.md §2.6): no status filter. */
export interface CancellationFilters {
  /** `payment_id:eq`. */
  paymentId?: number | string;
  /** `order_date:gte`. */
  orderDateFrom?: string;
  /** `order_date:lte`. */
  orderDateTo?: string;
}

/** The filter object of each read. */
export interface FinanceFiltersOf {
  payments: PaymentFilters;
  orders: OrderFilters;
  adjustments: OrderFilters;
  cancellations: CancellationFilters;
}

/** How each filter field is sent: the query parameter, exactly as docs/platform-api.md §2.6 spells it. */
export const FILTER_PARAMS: { [K in FinanceKind]: Record<keyof FinanceFiltersOf[K], string> } = {
  payments: {
    paymentId: "payment_id:eq",
    expectedExecutionFrom: "expected_execution_date:gte",
    expectedExecutionTo: "expect_execution_date:lte",
    confirmedPaymentFrom: "confirmed_payment_date:gte",
    confirmedPaymentTo: "confirmed_payment_date:lte",
  },
  orders: {
    orderDateFrom: "order_date:gte",
    orderDateTo: "order_date:lte",
    orderStatus: "order_status:eq",
    paymentId: "payment_id:eq",
  },
  adjustments: {
    orderDateFrom: "order_date:gte",
    orderDateTo: "order_date:lte",
    orderStatus: "order_status:eq",
    paymentId: "payment_id:eq",
  },
  cancellations: {
    paymentId: "payment_id:eq",
    orderDateFrom: "order_date:gte",
    orderDateTo: "order_date:lte",
  },
};

/** Whether a platform store id is well formed: a uint64 written in decimal. */
export function isStoreId(s: string): boolean {
  return /^\d{1,20}$/.test(s);
}

/** Whether a payment id is well formed: a positive integer (decimal string or safe integer). */
export function isPaymentId(v: number | string): boolean {
  return typeof v === "number" ? Number.isSafeInteger(v) && v >= 0 : /^\d{1,15}$/.test(v);
}

/** Every problem of a filter object, as sentences naming the query parameter; empty when valid. */
export function filterProblems<K extends FinanceKind>(kind: K, filters: FinanceFiltersOf[K]): string[] {
  const params = FILTER_PARAMS[kind] as Record<string, string>;
  const out: string[] = [];
  for (const [key, value] of Object.entries(filters as Record<string, unknown>)) {
    if (value === undefined) continue;
    const param = params[key];
    if (!param) {
      out.push(`${kind} cannot be filtered by ${key} (filters: ${Object.keys(params).join(", ")})`);
    } else if (key === "paymentId") {
      if (!((typeof value === "number" || typeof value === "string") && isPaymentId(value)))
        out.push(`${param} must be a payment id (a whole number), not ${JSON.stringify(value)}`);
    } else if (key === "orderStatus") {
      if (typeof value !== "string" || value.trim() === "") out.push(`${param} must not be empty`);
    } else if (typeof value !== "string" || !isDay(value)) {
      out.push(`${param} must be a date YYYY-MM-DD, not ${JSON.stringify(value)}`);
    }
  }
  return out;
}

/**
 * The query string of one page of a read: `page_number`, `page_size`, then the filters in the spec's
 * order. Parameter names are sent as written (`:` is allowed in a query); values are URI-encoded.
 * @throws UsageError when a filter is invalid ({@link filterProblems}).
 */
export function financeQuery<K extends FinanceKind>(
  kind: K,
  filters: FinanceFiltersOf[K],
  pageNumber: number,
  pageSize: number,
): string {
  const problems = filterProblems(kind, filters);
  if (problems.length > 0) throw new UsageError(problems.join("; "));
  const parts = [`page_number=${pageNumber}`, `page_size=${pageSize}`];
  const values = filters as Record<string, unknown>;
  for (const [key, param] of Object.entries(FILTER_PARAMS[kind] as Record<string, string>)) {
    const v = values[key];
    if (v !== undefined) parts.push(`${param}=${encodeURIComponent(String(v))}`);
  }
  return parts.join("&");
}

/** Path of a read for a store: `/restaurants/finance/v1/stores/{store_id}/{segment}`. */
export function financePath(kind: FinanceKind, storeId: string): string {
  return routePath(FINANCE_ROUTE[kind], { store_id: storeId });
}

/** Everything one read of one store returned. */
export interface ReadResult<T> {
  kind: FinanceKind;
  /** The store whose path was read. */
  storeId: string;
  /** Every entry, once, in the platform's order. */
  entries: T[];
  /** `total_entries` announced by page 1. */
  totalEntries: number;
  /** Pages read. */
  pages: number;
  /** Inconsistencies met while paging (duplicates, a count that differs from `total_entries`). */
  warnings: Diagnostic[];
}

/** Progress of the reads of a {@link FinanceReader}: pages read and pages known so far (it grows). */
export interface ReadProgress {
  pagesDone: number;
  pagesKnown: number;
  entries: number;
}

/** Options of a {@link FinanceReader}. */
export interface FinanceReaderOptions {
  /** Entries per page, 1..{@link MAX_PAGE_SIZE}; default {@link MAX_PAGE_SIZE} (fewest calls). */
  pageSize?: number;
  /** Calls in flight at once across pages and stores; default {@link DEFAULT_CONCURRENCY}. */
  concurrency?: number;
  /** Called after each page and whenever more pages become known. Must not throw. */
  onProgress?: (p: ReadProgress) => void;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/**
 * Reads finance data of stores with bounded concurrency. One reader shares one limiter and one
 * progress count across all its reads, so that a reconciliation's four reads of many stores stay
 * within `concurrency` calls at once and show one progress bar.
 */
export class FinanceReader {
  readonly pageSize: number;
  private readonly limit: LimitFunction;
  private readonly onProgress: ((p: ReadProgress) => void) | undefined;
  private readonly progress: ReadProgress = { pagesDone: 0, pagesKnown: 0, entries: 0 };

  /**
   * @param client the platform client (only `call` is used).
   * @throws UsageError when `pageSize` or `concurrency` is out of range.
   */
  constructor(
    private readonly client: Pick<PlatformClient, "call">,
    options: FinanceReaderOptions = {},
  ) {
    this.pageSize = options.pageSize ?? MAX_PAGE_SIZE;
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1 || this.pageSize > MAX_PAGE_SIZE) {
      throw new UsageError(`the page size must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    }
    const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
      throw new UsageError("the concurrency must be a whole number from 1 to 64");
    }
    this.limit = pLimit(concurrency);
    this.onProgress = options.onProgress;
  }

  /**
   * Every entry of one read of one store, all pages.
   * @throws UsageError for a malformed store id or filter (before any call).
   * @throws ApiError when a call fails (after the client's retries) or a page is malformed.
   */
  async read<K extends FinanceKind>(
    kind: K,
    storeId: string,
    filters: FinanceFiltersOf[K] = {},
  ): Promise<ReadResult<FinanceEntryOf[K]>> {
    if (!isStoreId(storeId)) throw new UsageError(`"${storeId}" is not a platform store id (digits only)`);
    financeQuery(kind, filters, 1, this.pageSize); // checks the filters before any call
    this.bump(0, 1, 0);
    const first = await this.limit(() => this.page(kind, storeId, filters, 1));
    const total = Math.max(first.total_pages, 1);
    this.bump(1, total - 1, first.entries.length);
    const rest = await Promise.all(
      Array.from({ length: total - 1 }, (_, i) =>
        this.limit(async () => {
          const p = await this.page(kind, storeId, filters, i + 2);
          this.bump(1, 0, p.entries.length);
          return p;
        }),
      ),
    );
    const warnings: Diagnostic[] = [];
    const seen = new Set<number>();
    const entries: FinanceEntryOf[K][] = [];
    let duplicates = 0;
    for (const page of [first, ...rest]) {
      for (const e of page.entries) {
        const id = (e as unknown as { id: number }).id;
        if (seen.has(id)) duplicates++;
        else {
          seen.add(id);
          entries.push(e);
        }
      }
    }
    const where = `${FINANCE_SEGMENT[kind]} of store ${storeId}`;
    if (duplicates > 0) {
      warnings.push(
        warning(`${where}: ${duplicates} entr${duplicates === 1 ? "y" : "ies"} appeared twice (kept once)`),
      );
    }
    if (entries.length !== first.total_entries) {
      warnings.push(
        warning(
          `${where}: the platform announced ${first.total_entries} entries and served ${entries.length}` +
            " (the data may have changed while paging; run again)",
        ),
      );
    }
    return { kind, storeId, entries, totalEntries: first.total_entries, pages: total, warnings };
  }

  /**
   * One read over several stores, concurrently (bounded by the reader's limiter), results in the order
   * of `storeIds`. Throws the first failure, as {@link read} does.
   */
  readStores<K extends FinanceKind>(
    kind: K,
    storeIds: readonly string[],
    filters: FinanceFiltersOf[K] = {},
  ): Promise<ReadResult<FinanceEntryOf[K]>[]> {
    for (const id of storeIds) {
      if (!isStoreId(id)) throw new UsageError(`"${id}" is not a platform store id (digits only)`);
    }
    financeQuery(kind, filters, 1, this.pageSize);
    return Promise.all(storeIds.map((id) => this.read(kind, id, filters)));
  }

  private bump(done: number, known: number, entries: number): void {
    this.progress.pagesDone += done;
    this.progress.pagesKnown += known;
    this.progress.entries += entries;
    this.onProgress?.({ ...this.progress });
  }

  /** One page, its envelope checked. */
  private async page<K extends FinanceKind>(
    kind: K,
    storeId: string,
    filters: FinanceFiltersOf[K],
    pageNumber: number,
  ): Promise<FinancePage<FinanceEntryOf[K]>> {
    const path = `${financePath(kind, storeId)}?${financeQuery(kind, filters, pageNumber, this.pageSize)}`;
    const body = await this.client.call<unknown>("GET", path);
    const bad = (why: string) =>
      new ApiError({ method: "GET", path, status: 200, platformMessage: `malformed finance page: ${why}` });
    if (!isRecord(body)) throw bad("not an object");
    if (!Array.isArray(body.entries)) throw bad("no entries array");
    if (!isCount(body.total_pages) || !isCount(body.total_entries)) {
      throw bad("total_pages and total_entries must be whole numbers");
    }
    for (const e of body.entries as unknown[]) {
      if (!isRecord(e) || typeof e.id !== "number") throw bad("an entry without a numeric id");
    }
    return body as unknown as FinancePage<FinanceEntryOf[K]>;
  }
}
