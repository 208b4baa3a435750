/**
 * Offer windows of the store menu: `available: { from, until }` on an item, a category or a menu of a
 * catalog (a seasonal burger, a Christmas menu), or per SKU of an item or category in the overrides of a
 * layer (`overrides: available:`, the highest layer's winning over the catalog's). A window is read once per catalog, with located
 * problems (a time that is not one, an `until` not after its `from`), and judged for each store on its
 * own clock (its `timezone:`, src/time/clock.ts `StoreClock`) at the run's clock, when the files load:
 * the desired state says what is offered at that instant, and planning stays pure.
 *
 * What "not offered" is on the wire (docs/platform-api.md §4.3, "A menu groups categories; categories contain
 * only items of type ITEM"; §4.9, "Category in a menu: active or inactive, moved by POST menu with
 * `is_category_active`"):
 * - an item outside its window is left out of the `items` of its categories (`POST /categories`): it
 *   stays in the store's catalog with its platform id, price and availability, so that its return is
 *   the same one write, and a switch-off by staff is left alone;
 * - a category outside its window is kept in its menus, written inactive (`is_category_active: false`,
 *   `POST /menu`);
 * - a menu outside its window keeps its categories, each written inactive.
 * Re-running inside the same window resolves the same state: the plan has nothing to do.
 */

import type { ConfigProblem } from "../errors.js";
import type { OfferWindowNote } from "../kinds/catalog.js";
import { isRecord, report, type Site } from "../source/problems.js";
import {
  endsAfter,
  parseEnd,
  parseFrom,
  untilNotAfter,
  type StoreClock,
  type WrittenAt,
} from "../time/clock.js";
import { toPointer, type YamlFile } from "../source/yaml.js";

/** The offer window of one item, category or menu of a catalog, as written (one bound at least). */
export interface OfferWindow extends WindowBounds {
  what: OfferWindowNote["what"];
  /** The SKU, or the menu's type. */
  key: string;
}

/** The bounds of an offer window as written: one at least. */
export interface WindowBounds {
  start?: WrittenAt;
  end?: WrittenAt;
}

/**
 * Reads the bounds `{from, until}` of an offer window, or of a dated price (`{price, from, until}`, its
 * price left alone), at `segments` of the file, reporting (at `from:` or `until:`) a time that is not
 * one, and an `until` not after its `from` when the file alone can tell (both local, or both with an
 * offset; otherwise each store's clock judges, `StoreClock.span`). `undefined` when it is not an
 * object, writes neither bound, or a wrong one.
 *
 * @param segments - pointer segments of the object (`available:`, or the price) in the file.
 */
export function readBounds(
  parsed: YamlFile,
  problems: ConfigProblem[],
  segments: readonly (string | number)[],
  written: unknown,
): WindowBounds | undefined {
  if (!isRecord(written)) return undefined;
  const out: WindowBounds = {};
  let ok = true;
  for (const bound of ["from", "until"] as const) {
    const text = written[bound];
    if (typeof text !== "string") continue;
    const site: Site = { parsed, pointer: toPointer([...segments, bound]) };
    const parsedTime = bound === "from" ? parseFrom(text) : parseEnd(text);
    if (!parsedTime.ok) {
      report(problems, site, parsedTime.error);
      ok = false;
    } else out[bound === "from" ? "start" : "end"] = { time: parsedTime.value, text, site };
  }
  if (!ok || (!out.start && !out.end)) return undefined;
  if (out.start && out.end && endsAfter(out.start.time, out.end.time) === false) {
    report(problems, out.end.site, untilNotAfter(out.start.text, out.end.text));
    return undefined;
  }
  return out;
}

/**
 * A store's offer windows: its catalog's, with those its overrides write per SKU (`overrides:
 * available:`, the highest layer's) in place of the catalog's window of that item or category, or
 * added. `kindOf` tells whether a SKU is an item or a category of the catalog (the overrides' checks
 * report any other).
 */
export function withOverridden(
  catalog: readonly OfferWindow[],
  overridden: ReadonlyMap<string, { value: WindowBounds }>,
  kindOf: (sku: string) => "item" | "category" | undefined,
): readonly OfferWindow[] {
  if (overridden.size === 0) return catalog;
  // In the catalog's order: an overridden window in place of the catalog's, a new one after them.
  const own = (w: OfferWindow) => w.what !== "menu" && kindOf(w.key) === w.what && overridden.has(w.key);
  const out = catalog.map((w) =>
    own(w) ? { what: w.what, key: w.key, ...overridden.get(w.key)!.value } : w,
  );
  const placed = new Set(catalog.filter(own).map((w) => w.key));
  for (const [key, e] of overridden) {
    const what = kindOf(key);
    if (what && !placed.has(key)) out.push({ what, key, ...e.value });
  }
  return out;
}

/** What a store's clock makes of its catalog's offer windows at the run's clock. */
export interface StoreWindows {
  /** Items, categories (by SKU) and menus (by type) outside their window: not offered now. */
  closed: { item: Set<string>; category: Set<string>; menu: Set<string> };
  /** The windows with a start or an end still ahead, in the catalog's order, for the plan. */
  notes: OfferWindowNote[];
}

/**
 * Judges a catalog's offer windows for one store at the run's clock: before `from` or from `until` on,
 * not offered; a start or end still ahead is noted for the plan. `undefined` when the catalog has none.
 * A window whose times the store's clock cannot tell (a local time and no `timezone:`) is reported once
 * at its site and left open.
 */
export function windowsAt(windows: readonly OfferWindow[], clock: StoreClock): StoreWindows | undefined {
  if (windows.length === 0) return undefined;
  const out: StoreWindows = { closed: { item: new Set(), category: new Set(), menu: new Set() }, notes: [] };
  for (const w of windows) {
    const span = clock.span(w.start, w.end);
    if (span === undefined) continue;
    const now = clock.now;
    const offered = span.start <= now && now < span.end;
    if (!offered) out.closed[w.what].add(w.key);
    // A start still ahead, or an end still ahead: the plan tells what a later run will change.
    if (span.start > now || (offered && span.end !== Infinity))
      out.notes.push({
        what: w.what,
        key: w.key,
        offered,
        ...(w.start && span.start > now ? { from: w.start.text } : {}),
        ...(w.end ? { until: w.end.text } : {}),
      });
  }
  return out;
}
