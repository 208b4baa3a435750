/**
 * How the plan's views show a change of an item, an option or a modifier group (src/kinds/show.ts
 * `KindView`): in the files' terms (`modifier_groups`, `options`, `type`, `price in PARENT`), never the
 * platform's field names (`children`, `modifiersType`, `priceInParent`), which only the JSON plan
 * holds; lists as moves, prices in the plan's currency, an option under the modifier group it is
 * listed in.
 */

import diff from "microdiff";
import { formatPrice } from "../money.js";
import { fieldOf, titledView, type Detail, type ViewContext, type ViewEntry } from "../show/view-model.js";
import {
  attributeDetails,
  imageText,
  isBlank,
  isRecord,
  listDetails,
  plain,
  schedulesText,
  valueDetail,
} from "../show/words.js";
import type { KindChange } from "./change.js";
import type { KindView } from "./show.js";

/** Where items, then modifier groups with the options listed under them, come in a store's changes. */
const ITEMS_ORDER = 1;
const GROUPS_ORDER = 2;

/** The words of the items kind's resources, by segment; `option` is an item a modifier group offers. */
export const ITEM_NOUNS = {
  item: ["item", "items"],
  modifier_group: ["modifier group", "modifier groups"],
  option: ["option", "options"],
} as const satisfies Record<string, readonly [string, string]>;

/** The words of a change: `option` for an item listed under a modifier group. */
function nounOf(ch: KindChange): readonly [string, string] {
  if (ch.kind === "modifier_group") return ITEM_NOUNS.modifier_group;
  return ch.group !== undefined ? ITEM_NOUNS.option : ITEM_NOUNS.item;
}

/** The option prices inside parents (`priceInParent`) that changed, as `price in PARENT` details. */
function parentPrices(
  before: unknown,
  after: unknown,
  create: boolean,
  price: (v: unknown) => string,
): Detail[] {
  // On the option; the files write it on the parent (`option_prices:`): shown as `price in PARENT`.
  const out: Detail[] = [];
  for (const step of diff(isRecord(before) ? before : {}, isRecord(after) ? after : {})) {
    const label = `price in ${String(step.path[0])}`;
    if (step.type === "CREATE")
      out.push(
        create
          ? { label, after: price(step.value) }
          : { label, before: "its own price", after: price(step.value) },
      );
    else if (step.type === "REMOVE")
      out.push({ label, before: price(step.oldValue), after: `its own price` });
    else out.push({ label, before: price(step.oldValue), after: price(step.value) });
  }
  return out;
}

/** An attribute of an item or modifier group, in the files' terms. */
function itemDetails(ch: KindChange, ctx: ViewContext): Detail[] {
  const create = ch.action === "create";
  const isGroup = fieldOf(ch.after ?? ch.before, "type") === "MODIFIER_GROUP";
  const price = (v: unknown) => (typeof v === "number" ? formatPrice(v, ctx.money) : plain(v));
  const out: Detail[] = [];
  for (const d of ch.diff) {
    const { before, after } = d;
    if (create && isBlank(after)) continue;
    const value = (show: (v: unknown) => string, label: string): Detail =>
      valueDetail(label, show, before, after, create);
    switch (d.attribute) {
      case "sku":
      case "title":
        // The title is beside the SKU; a change of title is a line of its own.
        if (!create && d.attribute === "title") out.push(value(plain, "title"));
        break;
      case "type":
        if (!create) {
          const kind = (v: unknown) => (v === "MODIFIER_GROUP" ? "modifier group" : "item");
          out.push({ label: "kind", before: kind(before), after: kind(after) });
        }
        break;
      case "price":
        out.push(value(price, "price"));
        break;
      case "children":
        out.push(...listDetails(isGroup ? "options" : "modifier_groups", before, after, create));
        break;
      case "images":
        out.push(
          ...listDetails(
            "images",
            Array.isArray(before) ? before.map(imageText) : [],
            Array.isArray(after) ? after.map(imageText) : [],
            create,
          ),
        );
        break;
      case "modifiersType":
        out.push(value((v) => (typeof v === "string" ? v : "(none)"), "type"));
        break;
      case "schedules":
        out.push(value(schedulesText, "schedules"));
        break;
      case "priceInParent":
        out.push(...parentPrices(before, after, create, price));
        break;
      default:
        out.push(...attributeDetails(d.attribute, before, after, create));
    }
  }
  return out;
}

/**
 * An option's change whose prices in a parent (`price in P`) name another parent than its path (the
 * kind gives one path, the shortest, when the option's group sits under several parents): each such
 * parent's prices as a change of their own, under `P › GROUP`, so that the path names the parent the
 * price is for. What is not a parent's price stays under the path; the path is kept when it names P.
 */
function byParent(entry: ViewEntry, ch: KindChange): ViewEntry[] {
  const path = ch.within;
  const view = entry.view;
  if (path === undefined || path.length < 2 || ch.kind === "modifier_group") return [entry];
  const [parent, group] = [path[path.length - 2]!, path[path.length - 1]!];
  const priced = (d: Detail) =>
    d.label.startsWith("price in ") ? d.label.slice("price in ".length) : undefined;
  const elsewhere = new Map<string, Detail[]>();
  const kept: Detail[] = [];
  for (const d of view.details) {
    const p = priced(d);
    if (p === undefined || p === parent) kept.push(d);
    else elsewhere.set(p, [...(elsewhere.get(p) ?? []), d]);
  }
  if (elsewhere.size === 0) return [entry];
  const out: ViewEntry[] =
    kept.length > 0 || view.action !== "update" ? [{ ...entry, view: { ...view, details: kept } }] : [];
  for (const [p, details] of elsewhere) {
    // Never listed under its group's line, whose path may go through another parent.
    const { under: _under, ...rest } = view;
    out.push({
      ...entry,
      sort: `${entry.sort}\u0000${p}`,
      view: { ...rest, within: `${p} › ${group}`, details },
    });
  }
  return out;
}

/** The view of a change of an item, an option or a modifier group. */
function itemEntry(ch: KindChange, ctx: ViewContext): ViewEntry {
  const view = titledView(ch, ctx, `${nounOf(ch)[0]} ${ch.key}`);
  view.details = itemDetails(ch, ctx);
  if (ch.kind === "modifier_group") {
    // Its options are listed under it when their changes come right after it.
    view.lists = ch.key;
    return { order: GROUPS_ORDER, sort: `${ch.key}\u0000`, view };
  }
  if (ch.group !== undefined) {
    view.under = ch.group;
    return { order: GROUPS_ORDER, sort: `${ch.group}\u0000${ch.key}`, view };
  }
  return { order: ITEMS_ORDER, sort: ch.key, view };
}

/**
 * Under a count line of many new (or deleted) items or options, their prices, those of one price on one
 * line, cheapest first: `$24.900: BURGER-CLASSIC, BURGER-COSTENA`; those without a price (a modifier
 * group) are not listed. A deletion lists the prices they had.
 */
function manyPrices(changes: readonly KindChange[], ctx: ViewContext): Detail[] {
  const byPrice = new Map<number, string[]>();
  for (const c of changes) {
    const price = fieldOf(c.action === "delete" ? c.before : c.after, "price");
    if (typeof price !== "number") continue;
    byPrice.set(price, [...(byPrice.get(price) ?? []), c.key]);
  }
  return [...byPrice]
    .sort(([a], [b]) => a - b)
    .map(([price, skus]) => ({ label: formatPrice(price, ctx.money), after: skus.join(", ") }));
}

/** The items kind's view: items, then each modifier group with the options it offers. */
export const itemsView: KindView = {
  change: (ch, ctx) => byParent(itemEntry(ch, ctx), ch),
  manyDetails: manyPrices,
  noun: nounOf,
  names: true,
};
