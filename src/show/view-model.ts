/**
 * The presentation model of a plan's changes: what each kind's view makes of one change (src/kinds/
 * show.ts `KindView`) and what the text and Markdown renderers lay out (src/render/view.ts gathers the
 * changes of a plan into it, src/render/text.ts and src/render/markdown.ts lay it out). Here, below the
 * kinds and the renderers, so that a kind shows its own changes without importing a renderer.
 *
 * Every string of the model is raw: it holds SKUs, titles, URLs and names from the files or the
 * platform, and each renderer escapes it for its medium (src/render/escape.ts).
 */

import type { Currency } from "../money.js";

/**
 * One line under a change: `label: before → after` (both set), `label: value` (`after` only), or the
 * bare `label` (`closed`).
 */
export interface Detail {
  label: string;
  before?: string;
  after?: string;
}

/** One change as people read it, in one store or in several. */
export interface ChangeView {
  action: "create" | "update" | "delete";
  /** What is changed and which: `item BURGER-DOUBLE`, `hours`, `closed on 12-25`, `42 items: …`. */
  head: string;
  /** The title of the resource, shown beside its key; absent when unknown or when stores differ. */
  title?: string;
  /** What happens, on the same line after the title: `switched off`, `11:00-18:00`. */
  summary?: string;
  /** Where a nested resource sits: `PIZZA › SIZE › SIZE-L › CRUST`. */
  within?: string;
  /**
   * The key of the resource this one is listed under when the change of that resource comes right
   * before it (an option under its modifier group); elsewhere it is said as where it sits.
   */
  under?: string;
  /** The key whose changes {@link under} lists under this one: a modifier group's SKU. */
  lists?: string;
  /** Listed under the change before it: an option right after its modifier group's change. */
  nested?: boolean;
  details: Detail[];
}

/**
 * A change's view with its place among a store's changes: `order` first, in the order of the files'
 * sections (each kind gives its own: items 1, modifier groups and options 2, categories 3… a kind
 * without a view of its own comes last, {@link LAST_ORDER}), then `sort` within it.
 */
export interface ViewEntry {
  order: number;
  sort: string;
  view: ChangeView;
}

/** Where the changes of a kind without a view of its own come in a store's changes: last. */
export const LAST_ORDER = 12;

/** What a kind's view may need to describe a change of a store. */
export interface ViewContext {
  /** The plan's currency (carte.yaml `currency:`), to write prices as people of it read them. */
  money: Currency | undefined;
  /**
   * Titles of the SKUs of the store's changes, from the changes of the kinds that name them (items,
   * modifier groups, categories): shown beside the key of a change whose resource has no title.
   */
  titles: ReadonlyMap<string, string>;
  /** The store's time zone as the plan names it, when known and valid (`PlanStore.timeZone`). */
  zone: string | undefined;
  /** When the view is read, in ms since the epoch: what `today` means. */
  now: number;
}

/** A detail as one line: `label: before → after`, `label: value` or `label`. */
export function detailText(d: Detail): string {
  if (d.before !== undefined) return `${d.label}: ${d.before} → ${d.after ?? "(none)"}`;
  return d.after !== undefined ? `${d.label}: ${d.after}` : d.label;
}

/** The head of a change with its title and summary: `item FRIES (Papas): switched off`. */
export function headText(c: ChangeView): string {
  return `${c.head}${c.title ? ` (${c.title})` : ""}${c.summary !== undefined ? `: ${c.summary}` : ""}`;
}

/** The title of a change's resource: its own (or its owner's), else the store's title of its key. */
export function titleOf(
  ch: { key: string; title?: string; before: unknown; after: unknown },
  ctx: ViewContext,
): string | undefined {
  const t = ch.title ?? fieldOf(ch.after, "title") ?? fieldOf(ch.before, "title");
  if (typeof t === "string" && t !== "") return t;
  return ctx.titles.get(ch.key);
}

/**
 * The view of a change that names its resource by `head` (`item FRIES`), with the resource's title and
 * where it sits when they are known, and no detail yet.
 */
export function titledView(
  ch: {
    action: ChangeView["action"];
    key: string;
    title?: string;
    before: unknown;
    after: unknown;
    within?: string[];
  },
  ctx: ViewContext,
  head: string,
): ChangeView {
  const title = titleOf(ch, ctx);
  return {
    action: ch.action,
    details: [],
    head,
    ...(title ? { title } : {}),
    ...(ch.within?.length ? { within: ch.within.join(" › ") } : {}),
  };
}

/** A field of a resource (a plain object) as written, `undefined` when it has none. */
export function fieldOf(r: unknown, key: string): unknown {
  return typeof r === "object" && r !== null && !Array.isArray(r) && Object.hasOwn(r, key)
    ? (r as Record<string, unknown>)[key]
    : undefined;
}
