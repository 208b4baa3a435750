/** Small pure helpers of `carte import`. */

import { InternalError } from "../errors.js";

/** SKUs and category codes carte's files accept (schemas/config/catalog.schema.json `Sku`). */
const SKU = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Whether a SKU can be written in carte's files. */
export function writableSku(sku: string): boolean {
  return sku.length <= 500 && SKU.test(sku);
}

/** Compares strings by code point (locale-independent, hence deterministic everywhere). */
export function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The keys of a record sorted by code point. */
export function sortedKeys(record: Record<string, unknown>): string[] {
  return Object.keys(record).sort(byCodePoint);
}

/** A record with the same entries, keys sorted by code point (for deterministic output). */
export function sortRecord<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(sortedKeys(record).map((k) => [k, record[k] as T]));
}

/** The list without repeats, first occurrences kept. */
export function unique<T>(list: readonly T[]): T[] {
  return [...new Set(list)];
}

/**
 * The most common value of a list, compared by `key`; ties go to the value seen first, so that the
 * result depends only on the order of the list.
 */
export function mostCommon<T>(values: readonly T[], key: (v: T) => string = (v) => JSON.stringify(v)): T {
  if (values.length === 0) throw new InternalError("mostCommon of an empty list");
  const counts = new Map<string, { value: T; count: number; first: number }>();
  values.forEach((value, i) => {
    const k = key(value);
    const entry = counts.get(k);
    if (entry) entry.count++;
    else counts.set(k, { value, count: 1, first: i });
  });
  let best: { value: T; count: number; first: number } | undefined;
  for (const entry of counts.values()) {
    if (!best || entry.count > best.count || (entry.count === best.count && entry.first < best.first))
      best = entry;
  }
  return best!.value;
}

/** Orders keys: first those listed in `preferred` (in that order, once), then the rest by code point. */
export function orderKeys(keys: Iterable<string>, preferred: readonly string[]): string[] {
  const all = new Set(keys);
  const head = unique(preferred.filter((k) => all.has(k)));
  const seen = new Set(head);
  return [...head, ...[...all].filter((k) => !seen.has(k)).sort(byCodePoint)];
}
