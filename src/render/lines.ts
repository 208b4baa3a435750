/**
 * The lines that describe one resource change, shared by the text and Markdown renderers: a head
 * (`item[BURGER]`) and one line per attribute shown. Pure formatting; the plan already holds the diff.
 */

import { currencyOf, formatPrice, type Currency } from "../money.js";
import type { ResourceChange } from "../plan/types.js";
import { escapeTerminal } from "./escape.js";

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

function isBlank(v: unknown): boolean {
  return v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0);
}

/**
 * Formats the value of one attribute: prices (`price`, and `priceInParent` by parent) for the plan's
 * currency (`$24.900`, `R$ 12,50`; the bare number without one), an item's availability `state` as its
 * words, anything else by {@link formatValue}.
 */
export function formatAttribute(attribute: string, v: unknown, currency: Currency | undefined): string {
  if (attribute === "price" && typeof v === "number") return formatPrice(v, currency);
  // An item's availability in words (`on`, `off until 18:00 (…)`, src/kinds/availability.ts).
  if (attribute === "state" && typeof v === "string") return v;
  if (attribute === "priceInParent" && v && typeof v === "object" && !Array.isArray(v)) {
    return `{ ${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${k}: ${typeof x === "number" ? formatPrice(x, currency) : formatValue(x)}`)
      .join(", ")} }`;
  }
  return formatValue(v);
}

/** One attribute line: a padded label and the value (create) or the values before and after (update). */
export interface AttributeLine {
  label: string;
  before?: string;
  after: string;
}

/**
 * The head and attribute lines of a change, and where a nested resource sits (`in PIZZA › SIZE ›
 * SIZE-L › CRUST`). Prices are formatted for `currency` (the plan's `currency`, an ISO 4217 code).
 * Every part is escaped for a terminal ({@link escapeTerminal}): SKUs, event names, values and the
 * currency come from the files, the platform or a saved plan.
 */
export function changeLines(
  ch: ResourceChange,
  currency?: string,
): { head: string; within?: string; attributes: AttributeLine[] } {
  const money = currency === undefined ? undefined : currencyOf(currency);
  // On create, the address already says the SKU and the type; blank defaults are noise.
  const shown =
    ch.action === "create"
      ? ch.diff.filter((d) => !isBlank(d.after) && d.attribute !== "sku" && d.attribute !== "type")
      : ch.diff;
  const width = Math.max(0, ...shown.map((d) => d.attribute.length)) + 1;
  return {
    head: escapeTerminal(`${ch.kind}[${ch.key}]`),
    ...(ch.within?.length ? { within: escapeTerminal(`in ${ch.within.join(" › ")}`) } : {}),
    attributes: shown.map((d) => ({
      label: escapeTerminal(`${d.attribute}:`.padEnd(width + 1)),
      ...(ch.action === "create"
        ? {}
        : { before: escapeTerminal(formatAttribute(d.attribute, d.before, money)) }),
      after: escapeTerminal(formatAttribute(d.attribute, d.after, money)),
    })),
  };
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
