/**
 * Groups the kinds' writes into the fewest API calls: writes to the same endpoint with the same params
 * share one call, per store for store-scoped endpoints and across stores for client-scoped ones, split
 * only where the platform limits the size of a call (src/plan/endpoints.ts).
 */

import { canonicalJson } from "./checksum.js";
import { callOf, endpoint, isIdempotent, maxElementsOf, type EndpointParams } from "./endpoints.js";
import type { Operation } from "./types.js";

/** A write placed in a store, with the address of the resource it changes. */
export interface PlacedWrite {
  /** Store key; empty for client-level resources. */
  store: string;
  storeId: string;
  endpoint: string;
  element: unknown;
  params: EndpointParams;
  address: string;
}

function chunk<T>(list: T[], size: number): T[][] {
  if (!Number.isFinite(size) || list.length <= size) return [list];
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/**
 * `localeCompare` in English, made once: the same order as `a.localeCompare(b, "en")` (ECMA-402 defines
 * that as this collator's compare) without a collator set up again for each comparison.
 */
const english = new Intl.Collator("en");

/** `localeCompare` in the default locale, made once (the same order, as above). */
const local = new Intl.Collator();

/** Batches writes into operations, sorted by stage, then id. Pure and deterministic. */
export function batchWrites(writes: PlacedWrite[]): Operation[] {
  const groups = new Map<string, PlacedWrite[]>();
  for (const w of writes) {
    const spec = endpoint(w.endpoint);
    const owner = spec.scope === "store" ? w.store : "";
    const key = `${owner}\u0000${w.endpoint}\u0000${canonicalJson(w.params)}`;
    const list = groups.get(key);
    if (list) list.push(w);
    else groups.set(key, [w]);
  }
  // Several groups of one store and endpoint (per-slot calls) are numbered in a stable order.
  const sorted = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const counters = new Map<string, number>();
  const totals = new Map<string, number>();
  const pieces = sorted.map(([, list]) => {
    const first = list[0]!;
    const spec = endpoint(first.endpoint);
    const ordered =
      spec.scope === "client"
        ? [...list].sort((a, b) => local.compare(a.store, b.store) || local.compare(a.address, b.address))
        : list;
    const base = spec.scope === "store" ? `${first.store}:${spec.name}` : spec.name;
    const parts = chunk(ordered, maxElementsOf(spec));
    totals.set(base, (totals.get(base) ?? 0) + parts.length);
    return { first, spec, parts, base };
  });
  const ops: Operation[] = [];
  for (const { first, spec, parts, base } of pieces) {
    for (const part of parts) {
      const n = (counters.get(base) ?? 0) + 1;
      counters.set(base, n);
      const elements = part.map((w) => w.element);
      const stores = [...new Set(part.map((w) => w.store))];
      const { method, path } = callOf(spec, spec.scope === "store" ? first.storeId : "", first.params);
      const body = spec.body(elements, first.params);
      ops.push({
        id: totals.get(base)! > 1 ? `${base}#${n}` : base,
        endpoint: spec.name,
        stage: spec.stage,
        stores: stores.filter((s) => s !== ""),
        method,
        path,
        body,
        idempotent: isIdempotent(spec, elements, body),
        addresses: part.map((w) => w.address),
        ...(spec.scope === "client"
          ? { params: first.params, parts: part.map((w) => ({ store: w.store, element: w.element })) }
          : Object.keys(first.params).length > 0
            ? { params: first.params }
            : {}),
      });
    }
  }
  return ops.sort((a, b) => a.stage - b.stage || english.compare(a.id, b.id));
}
