/**
 * Store menu API of the emulator (docs/platform-api.md §2.4, prefix `/restaurants/menu/v1/stores/{storeId}`):
 * reads of the visible catalog, and upserts/deletes validated synchronously against the projected catalog
 * before they are accepted (see state.ts).
 *
 * Validation answers (the platform publishes no rules; docs/platform-api.md §2.4, §4.10 give the form):
 * - a malformed body: 400 `{message}` naming what and where, e.g. `items[3].title_info.title is required`;
 * - a menu rule: 400 `{type, message}` with `type` one of {@link RuleType}.
 * The whole call is refused; nothing of it is applied.
 */

import { Limits } from "../platform/wire.js";
import type {
  Category,
  CategoryUpsert,
  DeleteCategoriesBody,
  IdList,
  Item,
  ItemType,
  ItemUpsert,
  Menu,
  MenuCategory,
  MenuUpsert,
  Image as WireImage,
  Override as WireOverride,
  Schedule as WireSchedule,
  StoreMenu,
  StoreMenuMenu,
  StoreMenuUpload,
} from "../generated/platform.js";
import { accepted, badShape, fail, isPosInt, menuRule } from "./http.js";
import type { Reply, Route, RouteContext } from "./http.js";
import { jsonParts } from "./json-parts.js";
import { availableAt, catalogFrom, keepSuspension, nextSuspensionEnd } from "./state.js";
import type { Catalog, CategoryRec, ItemRec, MenuRec, StoreRec } from "./state.js";

/**
 * `type` of a menu validation failure. `item_data_conflict` and `invalid_item_depth` are the platform's
 * (docs/platform-api.md §4.10); `invalid_item_data` and `limit_exceeded` are the emulator's choice for
 * the rules whose type the platform does not publish.
 */
export const RuleType = {
  /** A reference to nothing, a duplicate SKU, a delete of something still used, an unknown id. */
  conflict: "item_data_conflict",
  /**
   * A relation other than ITEM → MODIFIER_GROUP, MODIFIER_GROUP → ITEM, a category holding a group,
   * modifier groups nested deeper than `Limits.modifierGroupDepth` levels under an item, or nested
   * groups that lead back to themselves.
   */
  depth: "invalid_item_depth",
  /** Missing `quantity_info.min_permitted`/`max_permitted` on a MODIFIER_GROUP, or min > max. */
  data: "invalid_item_data",
  /** A published limit (docs/platform-api.md §4.11) is exceeded. */
  limit: "limit_exceeded",
} as const;

const DAYS = new Set(["mon", "tue", "wed", "thu", "fri", "sat", "sun", "hol"]);

// ---- reading request elements ----------------------------------------------------------------------
//
// Bodies reach the handlers checked against the route's schema (server.ts: `menu#ItemUpsertList`,
// `CategoryUpsertList`, `MenuUpsertList`, `StoreMenuUpload`, `IdList`, `DeleteCategoriesBody`): types,
// required fields, enums, formats and ranges are the schemas'. What is left here are the rules a schema
// does not express: the published limits (`limit_exceeded`), references by id or SKU, the days of a
// schedule, and the rules across fields of an item (`invalid_item_data`).

/** A string within a published length limit (docs/platform-api.md §4.11): `limit_exceeded` otherwise. */
function limited(v: string, at: string, max: number): string {
  if (v.length > max)
    throw menuRule(RuleType.limit, `${at} is ${v.length} characters long; the limit is ${max}`);
  return v;
}

/** A list within a published count limit: `limit_exceeded` `<at> has N <what>; the limit is M` otherwise. */
function counted<T>(list: T[], at: string, what: string, max: number): T[] {
  if (list.length > max) {
    throw menuRule(RuleType.limit, `${at} has ${list.length} ${what}; the limit is ${max}`);
  }
  return list;
}

/**
 * Schedule elements (docs/platform-api.md §4.3): `{days_of_week: "mon,...,sun,hol",
 * time_periods: [{start_time: "HH:MM", end_time: "HH:MM"}]}` (shape and `HH:MM` by the schema). Left
 * here: the day names of `days_of_week` and at most 6 periods (docs/platform-api.md §4.11).
 */
function schedules(list: WireSchedule[] | undefined, at: string): WireSchedule[] {
  if (!list) return [];
  return list.map((s, i) => {
    const sat = `${at}[${i}]`;
    for (const d of s.days_of_week.split(",")) {
      if (!DAYS.has(d.trim())) {
        throw badShape(`${sat}.days_of_week: "${d}" is not one of mon,tue,wed,thu,fri,sat,sun,hol`);
      }
    }
    counted(s.time_periods, `${sat}.time_periods`, "periods", Limits.periodsPerSchedule);
    const time_periods = s.time_periods.map((p) => ({ start_time: p.start_time, end_time: p.end_time }));
    return { days_of_week: s.days_of_week, time_periods };
  });
}

/**
 * The one empty list that the records of every store's catalog hold wherever they hold an empty list
 * (frozen: no code adds to a record's list in place; a record is replaced whole). An item of an apply
 * from empty held ten empty lists of its own (overrides, images, schedules, the options of an option):
 * a thousand stores' catalogs, kept for the emulator's life, were millions of them, each copied by the
 * collections of the young generation before it settled.
 */
const NONE: readonly never[] = Object.freeze([]);

/** `list`, or {@link NONE} when it is missing or empty. */
function listOf<T>(list: T[] | undefined): T[] {
  return list === undefined || list.length === 0 ? (NONE as never[]) : list;
}

/**
 * The blocks of an item that hold nothing (no description, image, quantity bounds or schedule, no
 * overrides), one frozen object each that every record holding such a block shares, as
 * {@link NONE} is shared: most options of a catalog are such items.
 */
const EMPTY = {
  description: Object.freeze({ description: "", overrides: NONE }) as unknown as ItemRec["description_info"],
  images: Object.freeze({ images: NONE, overrides: NONE }) as unknown as ItemRec["images_info"],
  quantity: Object.freeze({
    min_permitted: null,
    max_permitted: null,
    modifiers_type: null,
    overrides: NONE,
  }) as unknown as ItemRec["quantity_info"],
  schedules: Object.freeze({ schedules: NONE, overrides: NONE }) as unknown as ItemRec["schedules_info"],
};

/** A block of an item as given, or `empty` when each of its lists is empty and its other fields equal `empty`'s. */
function blockOr<T extends object>(block: T, empty: T): T {
  for (const [k, v] of Object.entries(block)) {
    const e = (empty as Record<string, unknown>)[k];
    if (v !== e && !(Array.isArray(v) && v.length === 0 && e === NONE)) return block;
  }
  return empty;
}

/** A reference as sent: `{id?, sku?, index}`; `id` wins when both are given (docs/platform-api.md §4.3). */
interface RawRef {
  id?: number | undefined;
  sku?: string | undefined;
  index: number;
  at: string;
}

/** References (`items_info.items`, category items, menu categories): each needs an id or a SKU. */
function refs(list: { id?: number; sku?: string; index: number }[] | undefined, at: string): RawRef[] {
  if (!list) return [];
  return list.map((r, i) => {
    const rat = `${at}[${i}]`;
    if (r.id === undefined && (r.sku === undefined || r.sku === ""))
      throw badShape(`${rat} needs an id or a sku`);
    return { id: r.id, sku: r.sku, index: r.index, at: rat };
  });
}

function describeRef(r: RawRef): string {
  return r.id !== undefined ? `id ${r.id}` : `sku "${r.sku}"`;
}

interface ParsedItem {
  at: string;
  id: number | undefined;
  sku: string;
  item_type: ItemType;
  title_info: ItemRec["title_info"];
  description_info: ItemRec["description_info"];
  images_info: { images: WireImage[]; overrides: ItemRec["images_info"]["overrides"] };
  children: RawRef[];
  children_overrides: WireOverride[];
  price_info: ItemRec["price_info"];
  quantity_info: ItemRec["quantity_info"];
  schedules_info: ItemRec["schedules_info"];
  /** `suspension_info.suspend_until` / `suspend_reason` when the element sends `suspension_info`. */
  suspension: { until: string | null; reason: string | null } | undefined;
}

/** One `POST /items` element (docs/platform-api.md §4.3 Item, §4.11). */
function parseItem(v: ItemUpsert, at: string): ParsedItem {
  const sku = limited(v.sku, `${at}.sku`, Limits.skuLength);
  const t = v.title_info;
  const title = limited(t.title, `${at}.title_info.title`, Limits.titleLength);

  const d = v.description_info;
  // An item written without a description holds "": the spec types it as a string
  // (docs/platform-api.md §4.3), never null.
  const description =
    d?.description === undefined
      ? ""
      : limited(d.description, `${at}.description_info.description`, Limits.descriptionLength);

  const im = v.images_info;
  const imageList = counted(im?.images ?? [], `${at}.images_info.images`, "images", Limits.imagesPerItem);
  const images: WireImage[] = imageList.map((img, i) => {
    const iat = `${at}.images_info.images[${i}]`;
    const out: WireImage = { path: limited(img.path, `${iat}.path`, 2048), index: img.index };
    if (img.id !== undefined) out.id = img.id;
    if (img.host !== undefined) out.host = img.host;
    return out;
  });
  images.sort((a, b) => a.index - b.index);

  const ii = v.items_info;
  const children = counted(
    refs(ii?.items, `${at}.items_info.items`),
    `${at}.items_info.items`,
    "items",
    Limits.childrenPerItem,
  );

  const p = v.price_info;
  const q = v.quantity_info;
  const qat = `${at}.quantity_info`;
  const min = q?.min_permitted ?? null;
  const max = q?.max_permitted ?? null;
  if (v.item_type === "MODIFIER_GROUP") {
    // docs/platform-api.md §4.3: min_permitted and max_permitted are required for MODIFIER_GROUP.
    if (min === null) throw menuRule(RuleType.data, `${qat}.min_permitted is required for a MODIFIER_GROUP`);
    if (max === null) throw menuRule(RuleType.data, `${qat}.max_permitted is required for a MODIFIER_GROUP`);
  }
  if (min !== null && max !== null && min > max) {
    throw menuRule(RuleType.data, `${qat}.min_permitted (${min}) is greater than max_permitted (${max})`);
  }

  const s = v.schedules_info;
  const si = v.suspension_info;
  let suspension: ParsedItem["suspension"];
  if (si) {
    const until = si.suspend_until ?? null;
    if (until !== null && !Number.isFinite(Date.parse(until)))
      throw menuRule(RuleType.data, `${at}.suspension_info.suspend_until is not a date and time`);
    const reason = si.suspend_reason ?? null;
    suspension = {
      until: until === null ? null : limited(until, `${at}.suspension_info.suspend_until`, 64),
      reason:
        reason === null ? null : limited(reason, `${at}.suspension_info.suspend_reason`, Limits.titleLength),
    };
  }
  return {
    at,
    suspension,
    id: v.id,
    sku,
    item_type: v.item_type,
    title_info: { title, overrides: listOf(t.overrides) },
    description_info: blockOr({ description, overrides: listOf(d?.overrides) }, EMPTY.description),
    images_info: { images: listOf(images), overrides: listOf(im?.overrides) },
    children,
    children_overrides: listOf(ii?.overrides),
    // An item written without a price is served with 0: the spec types the price as a number
    // (docs/platform-api.md §4.3).
    price_info: { price: p?.price ?? 0, overrides: listOf(p?.overrides) },
    quantity_info: blockOr(
      {
        min_permitted: min,
        max_permitted: max,
        modifiers_type: q?.modifiers_type ?? null,
        overrides: listOf(q?.overrides),
      },
      EMPTY.quantity,
    ),
    schedules_info: blockOr(
      {
        schedules: listOf(schedules(s?.schedules, `${at}.schedules_info.schedules`)),
        overrides: listOf(s?.overrides),
      },
      EMPTY.schedules,
    ),
  };
}

interface ParsedCategory {
  at: string;
  id: number | undefined;
  sku: string;
  title: string;
  items: RawRef[];
  schedules: WireSchedule[];
}

/** One `POST /categories` element (docs/platform-api.md §4.3). `menus` is ignored: derived. */
function parseCategory(v: CategoryUpsert, at: string): ParsedCategory {
  const sku = limited(v.sku, `${at}.sku`, Limits.skuLength);
  const title = limited(v.title, `${at}.title`, Limits.titleLength);
  const items = counted(refs(v.items, `${at}.items`), `${at}.items`, "items", Limits.itemsPerCategory);
  return { at, id: v.id, sku, title, items, schedules: schedules(v.schedules, `${at}.schedules`) };
}

interface ParsedMenu {
  at: string;
  id: number | undefined;
  menu_type: string;
  super_store_id: number;
  categories: (RawRef & { is_category_active: boolean })[];
}

/** One `POST /menu` element (docs/platform-api.md §2.4). */
function parseMenu(v: MenuUpsert, at: string): ParsedMenu {
  const menu_type = limited(v.menu_type, `${at}.menu_type`, Limits.titleLength);
  const categories = refs(v.categories, `${at}.categories`).map((r, i) => ({
    ...r,
    is_category_active: v.categories[i]!.is_category_active,
  }));
  return { at, id: v.id, menu_type, super_store_id: v.super_store_id ?? 0, categories };
}

/** The elements of an upsert body, each read by `parse` at `<what>[i]`. */
function parseArray<E, T>(body: unknown, what: string, parse: (v: E, at: string) => T): T[] {
  return (body as E[]).map((v, i) => parse(v, `${what}[${i}]`));
}

/** The distinct ids of a delete body (`menu#IdList`). */
function distinctIds(ids: unknown): number[] {
  return [...new Set(ids as IdList)];
}

// ---- identity and references -----------------------------------------------------------------------

/**
 * `upsert`: `POST /items|/categories|/menu` — identity by `id` (must exist in the store) else `sku`;
 * references resolve against the batch, then the projected store.
 * `replace`: `POST /store-menu` — the sent catalog replaces the store's; an `id` or `sku` already in the
 * store keeps its platform id, anything else gets a new one; references resolve within the body only.
 */
type Mode = "upsert" | "replace";

interface Keyed {
  at: string;
  id: number | undefined;
  sku: string;
}

/**
 * Resolves the platform id each element will have (`undefined`: new). Identity (docs/platform-api.md §4.3):
 * only `id` → by id; only `sku` → by SKU; both → `id` wins.
 */
function resolveIdentity(
  batch: Keyed[],
  byId: Map<number, { sku: string }>,
  bySku: Map<string, number>,
  mode: Mode,
  kind: string,
  storeKey: string,
): (number | undefined)[] {
  const seenSku = new Map<string, string>();
  const seenId = new Map<number, string>();
  return batch.map((e) => {
    const dupSku = seenSku.get(e.sku);
    if (dupSku !== undefined) {
      throw menuRule(RuleType.conflict, `duplicate sku "${e.sku}" in ${dupSku} and ${e.at}`);
    }
    seenSku.set(e.sku, e.at);
    let target: number | undefined;
    if (e.id !== undefined) {
      if (byId.has(e.id)) target = e.id;
      else if (mode === "upsert") {
        throw menuRule(RuleType.conflict, `${e.at}.id ${e.id} is not a ${kind} of store ${storeKey}`);
      }
    }
    const skuOwner = bySku.get(e.sku);
    if (target === undefined) target = skuOwner;
    else if (mode === "upsert" && skuOwner !== undefined && skuOwner !== target) {
      throw menuRule(RuleType.conflict, `${e.at}.sku "${e.sku}" already belongs to ${kind} ${skuOwner}`);
    }
    if (target !== undefined) {
      const dup = seenId.get(target);
      if (dup !== undefined)
        throw menuRule(RuleType.conflict, `${dup} and ${e.at} both write ${kind} ${target}`);
      seenId.set(target, e.at);
    }
    return target;
  });
}

function checkNoDuplicateRefs(list: { id: number; sku: string }[], at: string): void {
  const seen = new Set<number>();
  for (const r of list) {
    if (seen.has(r.id)) throw menuRule(RuleType.conflict, `${at} lists "${r.sku}" more than once`);
    seen.add(r.id);
  }
}

/**
 * Refuses an upsert that changes the type of an existing item where the store already uses it in a
 * way the new type cannot take: a category holding a future MODIFIER_GROUP, or a parent of the same
 * type (relations go only ITEM → MODIFIER_GROUP and MODIFIER_GROUP → ITEM; `invalid_item_depth`).
 * Parents in the batch are left out: their new children were checked with the batch.
 */
function checkTypeChanges(
  cat: StoreRec["projected"],
  parsed: ParsedItem[],
  targets: (number | undefined)[],
  batchById: ReadonlyMap<number, number>,
): void {
  parsed.forEach((p, i) => {
    const t = targets[i];
    const old = t === undefined ? undefined : cat.items.get(t);
    if (!old || old.item_type === p.item_type) return;
    if (p.item_type === "MODIFIER_GROUP") {
      for (const c of cat.categories.values()) {
        if (c.items.some((r) => r.id === old.id)) {
          throw menuRule(
            RuleType.depth,
            `${p.at} cannot become a MODIFIER_GROUP: category "${c.sku}" contains it and categories hold only ITEMs`,
          );
        }
      }
    }
    for (const parent of cat.items.values()) {
      if (batchById.has(parent.id)) continue; // its new children were checked above
      if (parent.item_type === p.item_type && parent.children.some((r) => r.id === old.id)) {
        throw menuRule(
          RuleType.depth,
          `${p.at} cannot become a ${p.item_type}: ${parent.item_type} "${parent.sku}" contains it ` +
            `(relations go only ITEM → MODIFIER_GROUP and MODIFIER_GROUP → ITEM)`,
        );
      }
    }
  });
}

/**
 * Validates a batch of items and builds their records (ids allocated only when the batch is valid).
 * Rules: relations only ITEM → MODIFIER_GROUP and MODIFIER_GROUP → ITEM (docs/platform-api.md §4.3,
 * `invalid_item_depth`); a reference must exist in the batch or the store (`item_data_conflict`).
 */
function buildItems(
  ctx: RouteContext,
  store: StoreRec,
  parsed: ParsedItem[],
  mode: Mode,
  now: string,
): ItemRec[] {
  const cat = store.projected;
  const targets = resolveIdentity(parsed, cat.items, cat.itemSku, mode, "item", store.key);
  const batchBySku = new Map<string, number>();
  const batchById = new Map<number, number>();
  parsed.forEach((p, i) => {
    batchBySku.set(p.sku, i);
    const t = targets[i];
    if (t !== undefined) batchById.set(t, i);
    if (p.id !== undefined && !batchById.has(p.id)) batchById.set(p.id, i);
  });

  // Resolve children to a batch index or a store id.
  type Ref = { batch: number } | { store: ItemRec };
  const resolveRef = (r: RawRef): Ref | undefined => {
    if (r.id !== undefined) {
      const b = batchById.get(r.id);
      if (b !== undefined) return { batch: b };
      const s = mode === "upsert" ? cat.items.get(r.id) : undefined;
      return s ? { store: s } : undefined;
    }
    const b = batchBySku.get(r.sku!);
    if (b !== undefined) return { batch: b };
    const sid = mode === "upsert" ? cat.itemSku.get(r.sku!) : undefined;
    const s = sid === undefined ? undefined : cat.items.get(sid);
    return s ? { store: s } : undefined;
  };
  const where = mode === "upsert" ? `neither in store ${store.key} nor in this request` : "in this request";
  const childRefs = parsed.map((p) =>
    p.children.map((r) => {
      const ref = resolveRef(r);
      if (!ref)
        throw menuRule(RuleType.conflict, `${r.at} refers to item ${describeRef(r)}, which exists ${where}`);
      const child = "batch" in ref ? parsed[ref.batch]! : ref.store;
      if (child.item_type === p.item_type) {
        throw menuRule(
          RuleType.depth,
          `${p.at} (${p.item_type} "${p.sku}") cannot contain ${child.item_type} "${child.sku}": ` +
            `relations go only ITEM → MODIFIER_GROUP and MODIFIER_GROUP → ITEM`,
        );
      }
      return { ref, index: r.index, sku: child.sku };
    }),
  );

  // An existing item that changes type must still fit where the store already uses it.
  if (mode === "upsert") checkTypeChanges(cat, parsed, targets, batchById);

  // Nesting of the catalog as it will be: every item with its children, the batch over the store.
  const nodes = new Map<string, { type: ItemType; children: string[] }>();
  if (mode === "upsert")
    for (const r of cat.items.values())
      nodes.set(r.sku, { type: r.item_type, children: r.children.map((c) => itemSku(cat, c.id)) });
  parsed.forEach((p, i) => {
    const t = targets[i];
    const old = t === undefined ? undefined : cat.items.get(t);
    if (old && old.sku !== p.sku) nodes.delete(old.sku);
    nodes.set(p.sku, { type: p.item_type, children: childRefs[i]!.map((c) => c.sku) });
  });
  checkNesting(nodes);

  const ids = targets.map((t) => t ?? ctx.state.allocateId());
  return parsed.map((p, i) => {
    const children = childRefs[i]!.map((c) => ({
      id: "batch" in c.ref ? ids[c.ref.batch]! : c.ref.store.id,
      sku: c.sku,
      index: c.index,
    }));
    checkNoDuplicateRefs(children, `${p.at}.items_info.items`);
    return {
      id: ids[i]!,
      sku: p.sku,
      item_type: p.item_type,
      last_updated: now,
      title_info: p.title_info,
      description_info: p.description_info,
      // Images as read carry an id and a host (docs/platform-api.md §4.3 `{id, path, index, host}`): the id
      // sent, else a new platform id; the host sent, else "" (no host).
      images_info: blockOr(
        {
          images: listOf(
            p.images_info.images.map((img) => ({
              id: img.id ?? ctx.state.allocateId(),
              path: img.path,
              index: img.index,
              host: img.host ?? "",
            })),
          ),
          overrides: p.images_info.overrides,
        },
        EMPTY.images,
      ),
      children: sortByIndex(children.map((c) => ({ id: c.id, index: c.index }))),
      children_overrides: p.children_overrides,
      price_info: p.price_info,
      quantity_info: p.quantity_info,
      schedules_info: p.schedules_info,
      available: true, // replaced by the stored value when the item exists (see upsertItems)
      ...(p.suspension?.until ? { suspend_until: p.suspension.until } : {}),
      ...(p.suspension?.reason ? { suspend_reason: p.suspension.reason } : {}),
    };
  });
}

/**
 * Refuses nested modifier groups the platform does not take (`invalid_item_depth`): groups more than
 * `Limits.modifierGroupDepth` levels deep under an item that no group offers (ITEM → MODIFIER_GROUP →
 * ITEM → MODIFIER_GROUP…, docs/platform-api.md §4.3; the limit is carte's reading, assumption 15 of that
 * page), and groups whose options lead back to them.
 */
function checkNesting(nodes: ReadonlyMap<string, { type: ItemType; children: string[] }>): void {
  const max = Limits.modifierGroupDepth;
  const height = new Map<string, number>();
  /** The groups the options of a group offer. */
  const nextOf = (group: string): string[] =>
    (nodes.get(group)?.children ?? []).flatMap((option) => nodes.get(option)?.children ?? []);
  // Depth first with an explicit stack: a body may chain thousands of groups, deeper than the call
  // stack goes. A group met again while it is open closes a circle.
  const heightOf = (root: string): number => {
    const known = height.get(root);
    if (known !== undefined) return known;
    const path: string[] = [];
    const onPath = new Map<string, number>();
    const frames: { group: string; next: string[]; i: number }[] = [];
    const enter = (group: string) => {
      onPath.set(group, path.length);
      path.push(group);
      frames.push({ group, next: nextOf(group), i: 0 });
    };
    enter(root);
    while (frames.length > 0) {
      const frame = frames.at(-1)!;
      const next = frame.next[frame.i++];
      if (next !== undefined) {
        if (height.has(next)) continue;
        const from = onPath.get(next);
        if (from !== undefined)
          throw menuRule(
            RuleType.depth,
            `modifier groups nest in a circle: ${chainText([...path.slice(from), next])}`,
          );
        enter(next);
        continue;
      }
      height.set(frame.group, 1 + frame.next.reduce((m, n) => Math.max(m, height.get(n) ?? 0), 0));
      frames.pop();
      path.pop();
      onPath.delete(frame.group);
    }
    return height.get(root)!;
  };
  const offered = new Set<string>();
  for (const n of nodes.values()) if (n.type === "MODIFIER_GROUP") for (const c of n.children) offered.add(c);
  for (const [sku, n] of nodes) {
    if (n.type === "MODIFIER_GROUP") heightOf(sku);
    if (n.type !== "ITEM" || offered.has(sku)) continue;
    for (const top of n.children) {
      const levels = heightOf(top);
      if (levels <= max) continue;
      // The deepest way down, named as far as one level past the limit.
      const path = [sku];
      let group: string | undefined = top;
      for (let level = 1; group !== undefined; level++) {
        if (level > max + 1) {
          path.push("…");
          break;
        }
        path.push(group);
        let best: { option: string; next: string } | undefined;
        for (const option of nodes.get(group)?.children ?? [])
          for (const next of nodes.get(option)?.children ?? [])
            if (!best || heightOf(next) > heightOf(best.next)) best = { option, next };
        if (best) path.push(best.option);
        group = best?.next;
      }
      throw menuRule(
        RuleType.depth,
        `item "${sku}" nests modifier groups ${levels} levels deep (${path.join(" → ")}); ` +
          `the platform accepts at most ${max}`,
      );
    }
  }
}

/** The most SKUs a message names along a circle; a longer one shows its two ends. */
const CHAIN_SHOWN = 12;

/** SKUs joined by arrows, a long chain cut in the middle so that the message stays short. */
function chainText(skus: readonly string[]): string {
  if (skus.length <= CHAIN_SHOWN) return skus.join(" → ");
  const half = CHAIN_SHOWN / 2;
  return [...skus.slice(0, half), `… ${skus.length - CHAIN_SHOWN} more …`, ...skus.slice(-half)].join(" → ");
}

interface ItemLookup {
  byId(id: number): ItemRec | undefined;
  bySku(sku: string): ItemRec | undefined;
}

function catalogItems(cat: Catalog): ItemLookup {
  return {
    byId: (id) => cat.items.get(id),
    bySku: (sku) => {
      const id = cat.itemSku.get(sku);
      return id === undefined ? undefined : cat.items.get(id);
    },
  };
}

/**
 * Validates categories: they hold only existing ITEMs (docs/platform-api.md §4.3), at most 50
 * (docs/platform-api.md §4.11).
 */
function buildCategories(
  ctx: RouteContext,
  store: StoreRec,
  parsed: ParsedCategory[],
  mode: Mode,
  items: ItemLookup,
  where: string,
  now: string,
): CategoryRec[] {
  const cat = store.projected;
  const targets = resolveIdentity(parsed, cat.categories, cat.categorySku, mode, "category", store.key);
  const resolved = parsed.map((p) => {
    const list = p.items.map((r) => {
      const it = r.id !== undefined ? items.byId(r.id) : items.bySku(r.sku!);
      if (!it)
        throw menuRule(RuleType.conflict, `${r.at} refers to item ${describeRef(r)}, which exists ${where}`);
      if (it.item_type !== "ITEM") {
        throw menuRule(
          RuleType.depth,
          `${p.at} (category "${p.sku}") cannot contain MODIFIER_GROUP "${it.sku}": categories hold only ITEMs`,
        );
      }
      return { id: it.id, sku: it.sku, index: r.index };
    });
    checkNoDuplicateRefs(list, `${p.at}.items`);
    return list;
  });
  const ids = targets.map((t) => t ?? ctx.state.allocateId());
  return parsed.map((p, i) => ({
    id: ids[i]!,
    sku: p.sku,
    title: p.title,
    last_updated: now,
    items: sortByIndex(resolved[i]!.map((r) => ({ id: r.id, index: r.index }))),
    schedules: p.schedules,
  }));
}

interface CategoryLookup {
  byId(id: number): CategoryRec | undefined;
  bySku(sku: string): CategoryRec | undefined;
}

/**
 * Validates menus: their categories must exist. A menu without `id` is a new menu
 * (docs/platform-api.md §2.4).
 */
function buildMenus(
  ctx: RouteContext,
  store: StoreRec,
  parsed: ParsedMenu[],
  mode: Mode,
  categories: CategoryLookup,
  where: string,
  now: string,
): MenuRec[] {
  const cat = store.projected;
  const seen = new Map<number, string>();
  const targets = parsed.map((p) => {
    if (p.id === undefined) return undefined;
    if (!cat.menus.has(p.id)) {
      if (mode === "upsert") {
        throw menuRule(RuleType.conflict, `${p.at}.id ${p.id} is not a menu of store ${store.key}`);
      }
      return undefined;
    }
    const dup = seen.get(p.id);
    if (dup !== undefined) throw menuRule(RuleType.conflict, `${dup} and ${p.at} both write menu ${p.id}`);
    seen.set(p.id, p.at);
    return p.id;
  });
  const resolved = parsed.map((p) => {
    const list = p.categories.map((r) => {
      const c = r.id !== undefined ? categories.byId(r.id) : categories.bySku(r.sku!);
      if (!c)
        throw menuRule(
          RuleType.conflict,
          `${r.at} refers to category ${describeRef(r)}, which exists ${where}`,
        );
      return { id: c.id, sku: c.sku, index: r.index, is_category_active: r.is_category_active };
    });
    checkNoDuplicateRefs(list, `${p.at}.categories`);
    return list;
  });
  const ids = targets.map((t) => t ?? ctx.state.allocateId());
  return parsed.map((p, i) => ({
    id: ids[i]!,
    menu_type: p.menu_type,
    super_store_id: p.super_store_id,
    last_updated: now,
    categories: sortByIndex(
      resolved[i]!.map((r) => ({ id: r.id, index: r.index, is_category_active: r.is_category_active })),
    ),
  }));
}

/**
 * `list` by `index`, equal indexes in the order sent; the list itself when it is in order already (a
 * client usually sends it so), else a sorted copy (`Array.prototype.sort` is stable).
 */
function sortByIndex<T extends { index: number }>(list: T[]): T[] {
  if (list.length === 0) return listOf(list);
  for (let i = 1; i < list.length; i++) {
    if (list[i - 1]!.index > list[i]!.index) return [...list].sort((a, b) => a.index - b.index);
  }
  return list;
}

// ---- writes applied to a catalog -------------------------------------------------------------------

/**
 * Upserts never change availability (docs/platform-api.md §4.3: a turned-off item is not turned back on);
 * they change `suspend_until` / `suspend_reason` only when they send `suspension_info` (`sent`).
 */
function putItem(cat: Catalog, rec: ItemRec, sent: ParsedItem["suspension"]): void {
  const prev = cat.items.get(rec.id);
  if (prev && prev.sku !== rec.sku && cat.itemSku.get(prev.sku) === rec.id) cat.itemSku.delete(prev.sku);
  cat.items.set(rec.id, keepSuspension(rec, prev, sent));
  cat.itemSku.set(rec.sku, rec.id);
}

function putCategory(cat: Catalog, rec: CategoryRec): void {
  const prev = cat.categories.get(rec.id);
  if (prev && prev.sku !== rec.sku && cat.categorySku.get(prev.sku) === rec.id)
    cat.categorySku.delete(prev.sku);
  cat.categories.set(rec.id, rec);
  cat.categorySku.set(rec.sku, rec.id);
}

// ---- rendering -------------------------------------------------------------------------------------

function itemSku(cat: Catalog, id: number): string {
  return cat.items.get(id)?.sku ?? "";
}

/**
 * An item as read (docs/platform-api.md §4.3 Item): every block filled; `items_info.items` refs carry `{id,
 * sku, index}`.
 */
export function renderItem(store: StoreRec, cat: Catalog, r: ItemRec): Item {
  return {
    id: r.id,
    sku: r.sku,
    storeId: Number(store.key),
    last_updated: r.last_updated,
    item_type: r.item_type,
    title_info: r.title_info,
    description_info: r.description_info,
    images_info: r.images_info,
    items_info: {
      items: r.children.map((c) => ({ id: c.id, sku: itemSku(cat, c.id), index: c.index })),
      overrides: r.children_overrides,
    },
    price_info: r.price_info,
    quantity_info: r.quantity_info,
    // A suspension whose time has passed is over (availableAt): the item reads as switched on.
    suspension_info: availableAt(r)
      ? { suspend_until: null, suspend_reason: null, is_available: true, overrides: [] }
      : {
          suspend_until: r.suspend_until ?? null,
          suspend_reason: r.suspend_reason ?? null,
          is_available: false,
          overrides: [],
        },
    schedules_info: r.schedules_info,
  };
}

type CategoryMenuRef = Category["menus"][number];

/** Category → menus that hold it, derived from the menus (docs/platform-api.md §4.3 Category `menus`). */
function menusByCategory(store: StoreRec, cat: Catalog): Map<number, CategoryMenuRef[]> {
  const out = new Map<number, CategoryMenuRef[]>();
  for (const m of sortById(cat.menus)) {
    for (const c of m.categories) {
      let list = out.get(c.id);
      if (!list) out.set(c.id, (list = []));
      list.push({
        id: m.id,
        menu_type: m.menu_type,
        index: c.index,
        is_category_active: c.is_category_active,
        storeId: Number(store.key),
      });
    }
  }
  return out;
}

/**
 * A category as read: menus derived; item refs `{id, sku, index, menuId, menu_type, storeId}` (spec
 * docs/platform-api.md §4.3), `menuId`/`menu_type` of the first menu (lowest id) holding the category, 0 and
 * "" when none holds it (the spec gives them no null).
 */
function renderCategory(
  store: StoreRec,
  cat: Catalog,
  r: CategoryRec,
  menus: Map<number, CategoryMenuRef[]>,
): Category {
  const held = menus.get(r.id) ?? [];
  const storeId = Number(store.key);
  const first = held[0];
  return {
    id: r.id,
    sku: r.sku,
    storeId,
    title: r.title,
    last_updated: r.last_updated,
    items: r.items.map((c) => ({
      id: c.id,
      sku: itemSku(cat, c.id),
      index: c.index,
      menuId: first?.id ?? 0,
      menu_type: first?.menu_type ?? "",
      storeId,
    })),
    menus: held,
    schedules: r.schedules,
  };
}

function menuCategories(cat: Catalog, m: MenuRec): MenuCategory[] {
  return m.categories.map((c) => ({
    id: c.id,
    sku: cat.categories.get(c.id)?.sku ?? "",
    index: c.index,
    is_category_active: c.is_category_active,
  }));
}

/** A menu in the `/menu` endpoints' form (docs/platform-api.md §4.3: `store_id`). */
function renderMenu(store: StoreRec, cat: Catalog, m: MenuRec): Menu {
  return {
    id: m.id,
    store_id: Number(store.key),
    super_store_id: m.super_store_id,
    menu_type: m.menu_type,
    categories: menuCategories(cat, m),
  };
}

/**
 * A menu inside `GET /store-menu` (docs/platform-api.md §4.3: `storeId`, on the menu and on its category
 * refs).
 */
function renderStoreMenuMenu(store: StoreRec, cat: Catalog, m: MenuRec): StoreMenuMenu {
  const storeId = Number(store.key);
  return {
    id: m.id,
    storeId,
    super_store_id: m.super_store_id,
    menu_type: m.menu_type,
    categories: menuCategories(cat, m).map((c) => ({ ...c, storeId })),
  };
}

function sortById<T extends { id: number }>(map: Map<number, T>): T[] {
  return [...map.values()].sort((a, b) => a.id - b.id);
}

/**
 * Serves a list read from the store's render cache (invalidated whenever the visible catalog changes,
 * and when a suspension of it ends: the item then reads as switched on, `StoreRec.renderUntil`), as its
 * JSON text, written once (in pieces: http.ts `jsonParts`).
 * The strict emulator checks an answer once, when it is rendered, not at every read of the cache.
 */
function cached(ctx: RouteContext, store: StoreRec, key: string, build: () => unknown): Reply {
  const now = Date.now();
  if (now >= (store.renderUntil ?? Infinity)) store.renderCache.clear();
  if (store.renderCache.size === 0) store.renderUntil = nextSuspensionEnd(store.visible, now);
  let json = store.renderCache.get(key);
  if (json === undefined) {
    const body = build();
    ctx.checkAnswer?.(body);
    json = jsonParts(body);
    store.renderCache.set(key, json);
  }
  return { status: 200, json, checked: true };
}

// ---- handlers --------------------------------------------------------------------------------------

function storeOf(ctx: RouteContext): StoreRec {
  return ctx.state.storeForClient(ctx.params.storeId!, ctx.clientId);
}

function pathId(ctx: RouteContext, name: string, what: string): number {
  const raw = ctx.params[name]!;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!isPosInt(n)) throw fail(404, `${what} ${raw} not found`);
  return n;
}

function getStoreMenu(ctx: RouteContext): Reply {
  const store = storeOf(ctx);
  return cached(ctx, store, "store-menu", (): StoreMenu => {
    const cat = store.visible;
    const menus = menusByCategory(store, cat);
    return {
      storeId: Number(store.key),
      menus: sortById(cat.menus).map((m) => renderStoreMenuMenu(store, cat, m)),
      categories: sortById(cat.categories).map((c) => renderCategory(store, cat, c, menus)),
      items: sortById(cat.items).map((i) => renderItem(store, cat, i)),
    };
  });
}

/**
 * `POST /store-menu` (docs/platform-api.md §2.4, §4.3): the same shape as `GET /store-menu`; replaces the
 * store's whole catalog, asynchronously. Items that stay (same id or SKU) keep their availability.
 */
function postStoreMenu(ctx: RouteContext): Reply {
  const store = storeOf(ctx);
  const body = ctx.body as StoreMenuUpload;
  if (body.storeId !== undefined && String(body.storeId) !== store.key) {
    throw badShape(`storeId ${String(body.storeId)} does not match the store of the path (${store.key})`);
  }
  const pItems = parseArray(body.items ?? [], "items", parseItem);
  const pCats = parseArray(body.categories ?? [], "categories", parseCategory);
  const pMenus = parseArray(body.menus ?? [], "menus", parseMenu);
  const now = new Date().toISOString();

  const items = buildItems(ctx, store, pItems, "replace", now);
  const itemById = new Map<number, ItemRec>();
  const itemBySku = new Map<string, ItemRec>();
  items.forEach((r, i) => {
    itemById.set(r.id, r);
    const raw = pItems[i]!.id;
    if (raw !== undefined && !itemById.has(raw)) itemById.set(raw, r);
    itemBySku.set(r.sku, r);
  });
  const where = "in this request";
  const cats = buildCategories(
    ctx,
    store,
    pCats,
    "replace",
    { byId: (id) => itemById.get(id), bySku: (s) => itemBySku.get(s) },
    where,
    now,
  );
  const catById = new Map<number, CategoryRec>();
  const catBySku = new Map<string, CategoryRec>();
  cats.forEach((c, i) => {
    catById.set(c.id, c);
    const raw = pCats[i]!.id;
    if (raw !== undefined && !catById.has(raw)) catById.set(raw, c);
    catBySku.set(c.sku, c);
  });
  const menus = buildMenus(
    ctx,
    store,
    pMenus,
    "replace",
    { byId: (id) => catById.get(id), bySku: (s) => catBySku.get(s) },
    where,
    now,
  );

  // As for POST /items: the pending write holds what it applies, not the parsed elements.
  const sent = pItems.map((p) => p.suspension);
  ctx.state.accept(
    store,
    (cat) => {
      const next = catalogFrom(
        items.map((r, i) => keepSuspension(r, cat.items.get(r.id), sent[i])),
        cats,
        menus,
      );
      Object.assign(cat, next);
    },
    "store-menu",
  );
  return accepted();
}

function getMenus(ctx: RouteContext): Reply {
  const store = storeOf(ctx);
  return cached(ctx, store, "menu", () =>
    sortById(store.visible.menus).map((m) => renderMenu(store, store.visible, m)),
  );
}

function getMenu(ctx: RouteContext): Reply {
  const store = storeOf(ctx);
  const id = pathId(ctx, "menuId", "Menu");
  const m = store.visible.menus.get(id);
  if (!m) throw fail(404, `Menu ${id} not found`);
  return { status: 200, body: renderMenu(store, store.visible, m) };
}

function postMenus(ctx: RouteContext): Reply {
  const store = storeOf(ctx);
  const parsed = parseArray(ctx.body, "menus", parseMenu);
  const cat = store.projected;
  const lookup: CategoryLookup = {
    byId: (id) => cat.categories.get(id),
    bySku: (sku) => {
      const id = cat.categorySku.get(sku);
      return id === undefined ? undefined : cat.categories.get(id);
    },
  };
  const recs = buildMenus(
    ctx,
    store,
    parsed,
    "upsert",
    lookup,
    `in store ${store.key}`,
    new Date().toISOString(),
  );
  ctx.state.accept(
    store,
    (c) => {
      for (const r of recs) c.menus.set(r.id, r);
    },
    "menu",
  );
  return accepted();
}

/** `DELETE /menu`: a bare array of menu ids (docs/platform-api.md §4.3). Unknown id: 404. */
function deleteMenus(ctx: RouteContext): Reply {
  const store = storeOf(ctx);
  const ids = distinctIds(ctx.body);
  for (const id of ids) if (!store.projected.menus.has(id)) throw fail(404, `Menu ${id} not found`);
  ctx.state.accept(store, (c) => {
    for (const id of ids) c.menus.delete(id);
  });
  return accepted();
}

function getCategories(ctx: RouteContext): Reply {
  const store = storeOf(ctx);
  return cached(ctx, store, "categories", () => {
    const menus = menusByCategory(store, store.visible);
    return sortById(store.visible.categories).map((c) => renderCategory(store, store.visible, c, menus));
  });
}

function getCategory(ctx: RouteContext): Reply {
  const store = storeOf(ctx);
  const id = pathId(ctx, "categoryId", "Category");
  const c = store.visible.categories.get(id);
  if (!c) throw fail(404, `Category ${id} not found`);
  return {
    status: 200,
    body: renderCategory(store, store.visible, c, menusByCategory(store, store.visible)),
  };
}

function postCategories(ctx: RouteContext): Reply {
  const store = storeOf(ctx);
  const parsed = parseArray(ctx.body, "categories", parseCategory);
  const recs = buildCategories(
    ctx,
    store,
    parsed,
    "upsert",
    catalogItems(store.projected),
    `in store ${store.key}`,
    new Date().toISOString(),
  );
  ctx.state.accept(
    store,
    (c) => {
      for (const r of recs) putCategory(c, r);
    },
    "categories",
  );
  return accepted();
}

/**
 * `DELETE /categories`: `{ids: [...]}` (docs/platform-api.md §4.3). Unknown id: 404. A category still in a
 * menu is refused (`item_data_conflict`), the same rule the platform applies to items (emulator's choice).
 */
function deleteCategories(ctx: RouteContext): Reply {
  const store = storeOf(ctx);
  const ids = distinctIds((ctx.body as DeleteCategoriesBody).ids);
  const cat = store.projected;
  for (const id of ids) if (!cat.categories.has(id)) throw fail(404, `Category ${id} not found`);
  const gone = new Set(ids);
  for (const m of sortById(cat.menus)) {
    const used = m.categories.find((r) => gone.has(r.id));
    if (used) {
      const sku = cat.categories.get(used.id)?.sku ?? "";
      throw menuRule(
        RuleType.conflict,
        `category ${used.id} ("${sku}") is still in menu ${m.id} (${m.menu_type}); remove it from the menu first`,
      );
    }
  }
  ctx.state.accept(store, (c) => {
    for (const id of ids) {
      const prev = c.categories.get(id);
      if (!prev) continue;
      c.categories.delete(id);
      if (c.categorySku.get(prev.sku) === id) c.categorySku.delete(prev.sku);
    }
  });
  return accepted();
}

function getItems(ctx: RouteContext): Reply {
  const store = storeOf(ctx);
  return cached(ctx, store, "items", () =>
    sortById(store.visible.items).map((i) => renderItem(store, store.visible, i)),
  );
}

function getItem(ctx: RouteContext): Reply {
  const store = storeOf(ctx);
  const id = pathId(ctx, "itemId", "Item");
  const r = store.visible.items.get(id);
  if (!r) throw fail(404, `Item ${id} not found`);
  return { status: 200, body: renderItem(store, store.visible, r) };
}

function postItems(ctx: RouteContext): Reply {
  const store = storeOf(ctx);
  const parsed = parseArray(ctx.body, "items", parseItem);
  const recs = buildItems(ctx, store, parsed, "upsert", new Date().toISOString());
  // The write keeps what it applies, not the parsed elements (their references and located names):
  // it waits until it becomes visible, and what it holds meanwhile survives collections.
  const sent = parsed.map((p) => p.suspension);
  ctx.state.accept(
    store,
    (c) => {
      recs.forEach((r, i) => putItem(c, r, sent[i]));
    },
    "items",
  );
  return accepted();
}

/**
 * `DELETE /items`: a bare array of item ids (docs/platform-api.md §4.3). Unknown id: 404. An item still
 * referenced by a category or by another item that is not deleted in the same call: `item_data_conflict`
 * naming the user.
 */
function deleteItems(ctx: RouteContext): Reply {
  const store = storeOf(ctx);
  const ids = distinctIds(ctx.body);
  const cat = store.projected;
  for (const id of ids) if (!cat.items.has(id)) throw fail(404, `Item ${id} not found`);
  const gone = new Set(ids);
  const name = (id: number): string => `item ${id} ("${itemSku(cat, id)}")`;
  for (const c of sortById(cat.categories)) {
    const used = c.items.find((r) => gone.has(r.id));
    if (used) {
      throw menuRule(
        RuleType.conflict,
        `${name(used.id)} is still in category ${c.id} ("${c.sku}"); remove it from the category first`,
      );
    }
  }
  for (const parent of sortById(cat.items)) {
    if (gone.has(parent.id)) continue;
    const used = parent.children.find((r) => gone.has(r.id));
    if (used) {
      throw menuRule(
        RuleType.conflict,
        `${name(used.id)} is still in items_info of ${name(parent.id)}; remove it from that item first`,
      );
    }
  }
  ctx.state.accept(store, (c) => {
    for (const id of ids) {
      const prev = c.items.get(id);
      if (!prev) continue;
      c.items.delete(id);
      if (c.itemSku.get(prev.sku) === id) c.itemSku.delete(prev.sku);
    }
  });
  return accepted();
}

/**
 * Routes of the store menu API (docs/platform-api.md §2.4). All need an integrations token. Bodies are
 * checked against schemas/platform/menu.schema.json first (server.ts); the parsers above keep the platform
 * rules.
 */
export const menuRoutes: Route[] = [
  { route: "GET /restaurants/menu/v1/stores/{storeId}/store-menu", handle: getStoreMenu },
  { route: "POST /restaurants/menu/v1/stores/{storeId}/store-menu", handle: postStoreMenu },
  { route: "GET /restaurants/menu/v1/stores/{storeId}/menu", handle: getMenus },
  {
    route: "POST /restaurants/menu/v1/stores/{storeId}/menu",
    handle: postMenus,
    requestNames: { noun: "menus", root: "menus" },
  },
  {
    route: "DELETE /restaurants/menu/v1/stores/{storeId}/menu",
    handle: deleteMenus,
    requestNames: { noun: "menu ids" },
  },
  { route: "GET /restaurants/menu/v1/stores/{storeId}/menu/{menuId}", handle: getMenu },
  { route: "GET /restaurants/menu/v1/stores/{storeId}/categories", handle: getCategories },
  {
    route: "POST /restaurants/menu/v1/stores/{storeId}/categories",
    handle: postCategories,
    requestNames: { noun: "categories", root: "categories" },
  },
  { route: "DELETE /restaurants/menu/v1/stores/{storeId}/categories", handle: deleteCategories },
  { route: "GET /restaurants/menu/v1/stores/{storeId}/categories/{categoryId}", handle: getCategory },
  { route: "GET /restaurants/menu/v1/stores/{storeId}/items", handle: getItems },
  {
    route: "POST /restaurants/menu/v1/stores/{storeId}/items",
    handle: postItems,
    requestNames: { noun: "items", root: "items" },
  },
  {
    route: "DELETE /restaurants/menu/v1/stores/{storeId}/items",
    handle: deleteItems,
    requestNames: { noun: "item ids" },
  },
  { route: "GET /restaurants/menu/v1/stores/{storeId}/items/{itemId}", handle: getItem },
];
