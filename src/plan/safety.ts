/**
 * Safety guards: checks on a finished plan that refuse it when it changes too much at once, the way
 * octoDNS refuses plans above its update and delete thresholds. They judge the plan, not the command,
 * so that `plan`, `apply` and the GitHub Action refuse the same plans. A refusal is overridden only
 * with `--force` and a `--reason`, which the plan records.
 *
 * Guards:
 * - `no_stores`: the configuration names no store (a bad `stores:` pattern, a deleted folder).
 * - `max_delete_percent` / `max_update_percent`: a store would lose or change more than the share of
 *   the resources it has now (only for stores with at least `min_existing` resources).
 * - `empties_store`: every item of a store that has items would be deleted (an emptied catalog).
 * - `empties_menu`: a menu would be left with no category, or only with empty categories.
 * - `protected`: a resource matching a protected address pattern would be deleted.
 * - `closes_stores`: a store would be switched from open to closed (it stops taking orders).
 * - `max_price_change_percent`: a price (of an item or option, or of an option inside a parent) would
 *   change by more than the share of its current price (a 10× typo); the items are named. Computed on
 *   exact decimals (src/money.ts).
 *
 * The percentages compare catalog changes (items, modifier groups, categories, menus) with the catalog
 * resources a store has; store settings (hours, webhooks, …) are not counted in them.
 */

import {
  own,
  type MenuResource,
  type CategoryResource,
  type CurrentState,
  type ItemResource,
} from "../model.js";
import { currencyOf, formatPrice, priceChangeExceeds, priceChangeText } from "../money.js";
import type { SafetyPolicy } from "../config/safety.js";
import { matchAddress } from "./target.js";
import type { Plan, ResourceChange, SafetyVerdict, SafetyViolation } from "./types.js";
import { menusOf, categoriesOf, itemsOf } from "../kinds/catalog.js";

export { DEFAULT_SAFETY, type SafetyPolicy } from "../config/safety.js";
export type { SafetyVerdict, SafetyViolation } from "./types.js";

/** Kinds the percentage guards count: the catalog resources {@link countResources} counts. */
const CATALOG_KINDS: ReadonlySet<string> = new Set(["item", "modifier_group", "category", "menu"]);

function countResources(store: CurrentState["stores"][string]): number {
  return (
    Object.keys(itemsOf(store)).length +
    Object.keys(categoriesOf(store)).length +
    Object.keys(menusOf(store)).length
  );
}

function pct(n: number, of: number): string {
  return `${Math.round((n / of) * 1000) / 10} %`;
}

/** Evaluates every guard on a plan and the current state it was computed from. Pure. */
export function evaluateSafety(plan: Plan, current: CurrentState, policy: SafetyPolicy): SafetyVerdict {
  const byStore = new Map<string, ResourceChange[]>();
  for (const c of plan.changes) {
    if (c.kind === "availability") continue;
    const list = byStore.get(c.store);
    if (list) list.push(c);
    else byStore.set(c.store, [c]);
  }
  const perStore: SafetyViolation[] = [];
  for (const [store, changes] of byStore) {
    const have = current.stores[store];
    if (have) perStore.push(...storeViolations(store, changes, have, policy));
  }
  return safetyVerdict(plan, perStore);
}

/**
 * The verdict on a plan given the violations of its stores ({@link storeViolations}, in the order of
 * the stores in the plan): the plan-wide guards (`no_stores`, `closes_stores`) first, then the stores'.
 * Pure. The planner judges each store as it plans it, so that it needs no store's state afterwards.
 */
export function safetyVerdict(plan: Plan, perStore: readonly SafetyViolation[]): SafetyVerdict {
  const violations: SafetyViolation[] = [];
  // A change scope may leave every store out (no store's files changed): the files still name stores.
  if (plan.stores.length === 0 && (plan.targeting?.scope?.of ?? 0) === 0) {
    violations.push({
      guard: "no_stores",
      message:
        "the configuration names no store: check the stores: pattern in carte.yaml and that the store files exist",
    });
  }
  for (const c of plan.changes) {
    // Store availability (src/kinds/store-availability.ts): `{open}` before and after.
    if (c.kind !== "store_availability" || (c.after as { open?: boolean } | null)?.open !== false) continue;
    if ((c.before as { open?: boolean } | null)?.open === false) continue;
    violations.push({
      guard: "closes_stores",
      store: c.store,
      message: `store[${c.store}]: the plan closes the store (it stops taking orders)`,
    });
  }
  violations.push(...perStore);
  return { ok: violations.length === 0, violations };
}

/**
 * The per-store guards (`max_delete_percent`, `max_update_percent`, `empties_store`, `empties_menu`,
 * `protected`, `max_price_change_percent`) on one store's changes, availability changes left out,
 * against its current state; `currency` (ISO 4217, carte.yaml `currency:`) formats the prices a
 * message names. Pure.
 */
export function storeViolations(
  store: string,
  changes: readonly ResourceChange[],
  have: CurrentState["stores"][string],
  policy: SafetyPolicy,
  currency?: string,
): SafetyViolation[] {
  const violations: SafetyViolation[] = [];
  const existing = countResources(have);
  const counted = changes.filter((c) => CATALOG_KINDS.has(c.kind));
  const deletes = counted.filter((c) => c.action === "delete").length;
  const updates = counted.filter((c) => c.action === "update").length;
  if (existing >= policy.minExisting && existing > 0) {
    if ((deletes / existing) * 100 > policy.maxDeletePercent) {
      violations.push({
        guard: "max_delete_percent",
        store,
        message: `store[${store}]: the plan deletes ${deletes} of ${existing} resources (${pct(deletes, existing)}), more than max_delete_percent ${policy.maxDeletePercent} %`,
      });
    }
    if ((updates / existing) * 100 > policy.maxUpdatePercent) {
      violations.push({
        guard: "max_update_percent",
        store,
        message: `store[${store}]: the plan changes ${updates} of ${existing} resources (${pct(updates, existing)}), more than max_update_percent ${policy.maxUpdatePercent} %`,
      });
    }
  }
  const itemsNow = Object.keys(itemsOf(have)).length;
  const itemDeletes = changes.filter(
    (c) => (c.kind === "item" || c.kind === "modifier_group") && c.action === "delete",
  ).length;
  const itemCreates = changes.filter(
    (c) => (c.kind === "item" || c.kind === "modifier_group") && c.action === "create",
  ).length;
  if (itemsNow > 0 && itemDeletes === itemsNow && itemCreates === 0) {
    violations.push({
      guard: "empties_store",
      store,
      message: `store[${store}]: the plan deletes all ${itemsNow} items and modifier groups of the store (is its catalog empty?)`,
    });
  }
  violations.push(...emptiedMenus(store, [...changes], have));
  const prices = priceJumps(changes, policy.maxPriceChangePercent, currency);
  if (prices)
    violations.push({
      guard: "max_price_change_percent",
      store,
      message: `store[${store}]: ${prices.message}`,
      prices: prices.prices,
    });
  for (const c of changes) {
    if (c.action === "delete" && policy.protected.some((p) => matchAddress(p, c.address))) {
      violations.push({
        guard: "protected",
        store,
        message: `${c.address} is protected (safety.protected in carte.yaml) and the plan deletes it`,
      });
    }
  }
  return violations;
}

function emptiedMenus(
  store: string,
  changes: ResourceChange[],
  have: CurrentState["stores"][string],
): SafetyViolation[] {
  // Categories as they will be after the plan.
  const categories = new Map<string, CategoryResource | null>(Object.entries(categoriesOf(have)));
  for (const c of changes)
    if (c.kind === "category") categories.set(c.key, c.after as CategoryResource | null);
  const out: SafetyViolation[] = [];
  const menusAfter = new Map<string, MenuResource | null>(Object.entries(menusOf(have)));
  const touched = new Set<string>();
  for (const c of changes) {
    if (c.kind === "menu") {
      menusAfter.set(c.key, c.after as MenuResource | null);
      touched.add(c.key);
    }
  }
  // A menu is emptied when a change leaves it, or a category it shows, without anything to sell.
  const changedCategories = new Set(changes.filter((c) => c.kind === "category").map((c) => c.key));
  for (const [key, menu] of menusAfter) {
    if (!menu) continue;
    const relevant = touched.has(key) || menu.categories.some((e) => changedCategories.has(e.sku));
    if (!relevant) continue;
    const before = own(menusOf(have), key);
    const wasSelling = before?.categories.some(
      (e) => e.active && (own(categoriesOf(have), e.sku)?.items.length ?? 0) > 0,
    );
    const sells = menu.categories.some((e) => e.active && (categories.get(e.sku)?.items.length ?? 0) > 0);
    if (!sells && (wasSelling ?? true) && before !== undefined) {
      out.push({
        guard: "empties_menu",
        store,
        message: `store[${store}].menu[${key}]: after the plan the menu shows no active category with items`,
      });
    }
  }
  return out;
}

/** Most items a `max_price_change_percent` message names before it says how many more. */
const PRICES_NAMED = 10;

/**
 * The prices of a store's item updates that change by more than `percent` % of the current price, as
 * one sentence naming them (`item[PIZZA] $24.900 → $249.000 (+900 %)`), or `undefined` when none does.
 * Prices inside a parent (`priceInParent`) count too. A price that was 0 is not judged.
 */
function priceJumps(
  changes: readonly ResourceChange[],
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
