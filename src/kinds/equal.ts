/**
 * Equality of the catalog's resources as the planner compares them, field by field. Each function gives
 * exactly the verdict of {@link jsonEqual} (the same own enumerable keys, with deeply equal values), and
 * is several times quicker on the resources planning compares by the hundred thousand: every item and
 * category of every store, each against its desired version. `jsonEqual` walks the keys of any object
 * and looks each one up in the other; these read the fields a resource has by name, so each read is
 * one check of the object's layout, and count the keys only to make sure there is no other.
 *
 * Whatever does not have the expected shape (another prototype, a field of another type, a key the
 * resource does not define) is handed to `jsonEqual`: the fast path only ever answers for resources
 * it has read whole.
 */

import type { CategoryResource, ItemResource, Schedule } from "../model.js";
import { jsonEqual } from "../plain-data.js";

const OBJECT = Object.prototype;

/**
 * Whether `o` is an object made as a literal (or by JSON.parse, structuredClone): its keys are its
 * own, so `key in o` says whether it has `key`, and counting `for … in` counts its own keys.
 */
function plain(o: unknown): o is Record<string, unknown> {
  return typeof o === "object" && o !== null && Object.getPrototypeOf(o) === OBJECT;
}

/** How many keys `for … in` lists on a plain object: its own enumerable keys. */
function keyCount(o: object): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}

/** Equality of two lists element by element with `same` (deep equality's verdict for anything else). */
function sameElements(a: unknown, b: unknown, same: (x: unknown, y: unknown) => boolean): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b)) return jsonEqual(a, b);
  const n = a.length;
  if (n !== b.length) return false;
  for (let i = 0; i < n; i++) {
    const x: unknown = a[i];
    const y: unknown = b[i];
    if (x !== y && !same(x, y)) return false;
  }
  return true;
}

/** Equality of two lists whose elements are mostly strings (SKUs, image paths). */
function sameList(a: unknown, b: unknown): boolean {
  return sameElements(a, b, jsonEqual);
}

/** Equality of two lists of schedules (`{days, periods: [{start, end}]}`, src/model.ts `Schedule`). */
function sameSchedules(a: unknown, b: unknown): boolean {
  return sameElements(a, b, sameSchedule);
}

/** Equality of two schedules (`{days, periods}`). */
function sameSchedule(x: unknown, y: unknown): boolean {
  if (!plain(x) || !plain(y)) return jsonEqual(x, y);
  const s = x as unknown as Schedule;
  const t = y as unknown as Schedule;
  if (
    s.days !== t.days ||
    keyCount(s) !== 2 ||
    keyCount(t) !== 2 ||
    !("days" in s && "periods" in s && "days" in t && "periods" in t)
  )
    return jsonEqual(x, y);
  return sameElements(s.periods, t.periods, samePeriod);
}

/** Equality of two periods of a schedule (`{start, end}`). */
function samePeriod(u: unknown, v: unknown): boolean {
  if (!plain(u) || !plain(v)) return jsonEqual(u, v);
  if (
    u.start !== v.start ||
    u.end !== v.end ||
    keyCount(u) !== 2 ||
    keyCount(v) !== 2 ||
    !("start" in u && "end" in u && "start" in v && "end" in v)
  )
    return jsonEqual(u, v);
  return true;
}

/** The fields every item has (src/model.ts `ItemResource`), beside `schedules` and `priceInParent`. */
const ITEM_FIELDS = 10;

/**
 * Whether two items (or modifier groups) are equal: {@link jsonEqual}'s verdict, field by field.
 *
 * @param a - an item as the planner compares it (src/model.ts `ItemResource`); anything else is
 *   compared by `jsonEqual`.
 */
export function itemEqual(a: ItemResource, b: ItemResource): boolean {
  if (a === b) return true;
  if (!plain(a) || !plain(b)) return jsonEqual(a, b);
  // Fields that differ make the items differ (whatever their keys); `jsonEqual` says how for values of
  // other types than the model's.
  if (
    a.sku !== b.sku ||
    a.type !== b.type ||
    a.title !== b.title ||
    a.description !== b.description ||
    a.price !== b.price ||
    a.min !== b.min ||
    a.max !== b.max ||
    a.modifiersType !== b.modifiersType
  )
    return jsonEqual(a, b);
  if (
    !sameList(a.children, b.children) ||
    !sameList(a.images, b.images) ||
    !sameSchedules(a.schedules, b.schedules) ||
    (a.priceInParent !== b.priceInParent && !jsonEqual(a.priceInParent, b.priceInParent))
  )
    return false;
  // Every field is equal: the items are when both have the same keys, and no other.
  const keys = ITEM_FIELDS + ("schedules" in a ? 1 : 0) + ("priceInParent" in a ? 1 : 0);
  if (
    keyCount(a) !== keys ||
    keyCount(b) !== keys ||
    !("schedules" in a === "schedules" in b) ||
    !("priceInParent" in a === "priceInParent" in b) ||
    !("sku" in a && "type" in a && "title" in a && "description" in a && "price" in a) ||
    !("images" in a && "children" in a && "min" in a && "max" in a && "modifiersType" in a) ||
    !("sku" in b && "type" in b && "title" in b && "description" in b && "price" in b) ||
    !("images" in b && "children" in b && "min" in b && "max" in b && "modifiersType" in b)
  )
    return jsonEqual(a, b);
  return true;
}

/** The fields every category has (src/model.ts `CategoryResource`), beside `schedules`. */
const CATEGORY_FIELDS = 3;

/**
 * Whether two categories are equal: {@link jsonEqual}'s verdict, field by field.
 *
 * @param a - a category as the planner compares it (src/model.ts `CategoryResource`); anything else is
 *   compared by `jsonEqual`.
 */
export function categoryEqual(a: CategoryResource, b: CategoryResource): boolean {
  if (a === b) return true;
  if (!plain(a) || !plain(b)) return jsonEqual(a, b);
  if (a.sku !== b.sku || a.title !== b.title) return jsonEqual(a, b);
  if (!sameList(a.items, b.items) || !sameSchedules(a.schedules, b.schedules)) return false;
  const keys = CATEGORY_FIELDS + ("schedules" in a ? 1 : 0);
  if (
    keyCount(a) !== keys ||
    keyCount(b) !== keys ||
    !("schedules" in a === "schedules" in b) ||
    !("sku" in a && "title" in a && "items" in a && "sku" in b && "title" in b && "items" in b)
  )
    return jsonEqual(a, b);
  return true;
}
