/**
 * The safety guards the changes of items and modifier groups trip (src/kinds/guards.ts): they count
 * in the catalog's share of `max_delete_percent` and `max_update_percent`; `empties_store` when a store
 * would lose every item and group it has and get none; `max_price_change_percent` when a price, of an
 * item or option or of an option inside a parent, would change by more than the share of its current
 * price (a 10× typo), computed on exact decimals (src/money.ts) and naming the items.
 */

import { own, type ItemResource } from "../model.js";
import { currencyOf, formatPrice, priceChangeExceeds, priceChangeText } from "../money.js";
import type { SafetyViolation } from "../safety-policy.js";
import { itemsOf } from "./catalog.js";
import type { KindChange } from "./change.js";
import type { KindGuards, StoreGuardContext } from "./guards.js";

/** Most items a `max_price_change_percent` message names before it says how many more. */
const PRICES_NAMED = 10;

/** Whether a change is of the items kind: an item (or option) or a modifier group. */
const isItemsChange = (c: KindChange) => c.kind === "item" || c.kind === "modifier_group";

/**
 * The prices of a store's item updates that change by more than `percent` % of the current price, as
 * one sentence naming them (`item[PIZZA] $24.900 → $249.000 (+900 %)`), or `undefined` when none does.
 * Prices inside a parent (`priceInParent`) count too. A price that was 0 is not judged.
 */
function priceJumps(
  changes: readonly KindChange[],
  percent: number,
  code: string | undefined,
): { message: string; prices: { sku: string; parent?: string }[] } | undefined {
  const currency = code === undefined ? undefined : currencyOf(code);
  const jumps: string[] = [];
  const prices: { sku: string; parent?: string }[] = [];
  const judge = (
    address: string,
    before: number | null | undefined,
    after: number | null | undefined,
    which: { sku: string; parent?: string },
  ) => {
    if (typeof before !== "number" || typeof after !== "number" || before === after) return;
    if (!priceChangeExceeds(before, after, percent)) return;
    prices.push(which);
    jumps.push(
      `${address} ${formatPrice(before, currency)} → ${formatPrice(after, currency)} (${priceChangeText(before, after)})`,
    );
  };
  for (const c of changes) {
    if (c.kind !== "item" || c.action !== "update") continue;
    const before = c.before as ItemResource;
    const after = c.after as ItemResource;
    judge(`item[${c.key}]`, before.price, after.price, { sku: c.key });
    for (const [parent, price] of Object.entries(after.priceInParent ?? {}))
      judge(`item[${c.key}] inside ${parent}`, own(before.priceInParent, parent), price, {
        sku: c.key,
        parent,
      });
  }
  if (jumps.length === 0) return undefined;
  const named = jumps.slice(0, PRICES_NAMED).join(", ");
  const more = jumps.length > PRICES_NAMED ? ` and ${jumps.length - PRICES_NAMED} more` : "";
  return {
    message:
      `the plan changes ${jumps.length} price${jumps.length === 1 ? "" : "s"} by more than ` +
      `max_price_change_percent ${percent} %: ${named}${more}`,
    prices,
  };
}

/** `empties_store` and `max_price_change_percent` of one store. */
function storeGuards({ store, changes, current, policy, currency }: StoreGuardContext): SafetyViolation[] {
  const violations: SafetyViolation[] = [];
  const itemsNow = Object.keys(itemsOf(current)).length;
  const ours = changes.filter(isItemsChange);
  const deletes = ours.filter((c) => c.action === "delete").length;
  const creates = ours.filter((c) => c.action === "create").length;
  if (itemsNow > 0 && deletes === itemsNow && creates === 0) {
    violations.push({
      guard: "empties_store",
      store,
      message: `store[${store}]: the plan deletes all ${itemsNow} items and modifier groups of the store (is its catalog empty?)`,
    });
  }
  const prices = priceJumps(changes, policy.maxPriceChangePercent, currency);
  if (prices)
    violations.push({
      guard: "max_price_change_percent",
      store,
      message: `store[${store}]: ${prices.message}`,
      prices: prices.prices,
    });
  return violations;
}

/** The guards of the items kind. */
export const itemsGuards: KindGuards = {
  count: (current) => Object.keys(itemsOf(current)).length,
  store: storeGuards,
};
