/**
 * Small formatting helpers shared by the renderers: attribute values (`carte explain`), counts, and
 * changes by store. The plan's changes themselves are described by src/render/view.ts.
 */

import { formatPrice, type Currency } from "../money.js";
import type { ResourceChange } from "../plan/types.js";

/** Formats one attribute value compactly: strings quoted, lists in brackets. */
export function formatValue(v: unknown): string {
  if (v === undefined) return "(none)";
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(formatValue).join(", ")}]`;
  if (v && typeof v === "object") {
    return `{ ${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${k}: ${formatValue(x)}`)
      .join(", ")} }`;
  }
  return String(v);
}

/**
 * Formats the value of one attribute for `carte explain`: a price (`price`) for the plan's currency
 * (`$24.900`, `R$ 12,50`; the bare number without one), anything else by {@link formatValue}.
 */
export function formatAttribute(attribute: string, v: unknown, currency: Currency | undefined): string {
  if (attribute === "price" && typeof v === "number") return formatPrice(v, currency);
  return formatValue(v);
}

/** `n word` or `n words`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** Changes grouped by store key, in plan order. */
export function changesByStore(changes: ResourceChange[]): Map<string, ResourceChange[]> {
  const byStore = new Map<string, ResourceChange[]>();
  for (const ch of changes) {
    const list = byStore.get(ch.store);
    if (list) list.push(ch);
    else byStore.set(ch.store, [ch]);
  }
  return byStore;
}

/** `N to create, N to update, N to delete in N stores` (and the client settings), for a set of changes. */
export function countsOf(changes: readonly ResourceChange[]): string {
  const n = (a: ResourceChange["action"]) => changes.filter((c) => c.action === a).length;
  const stores = new Set(changes.map((c) => c.store).filter((k) => k !== "")).size;
  const client = changes.some((c) => c.store === "") ? " and the client settings" : "";
  return `${n("create")} to create, ${n("update")} to update, ${n("delete")} to delete in ${plural(stores, "store")}${client}`;
}
