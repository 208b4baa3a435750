/**
 * Menus: ordered categories with an active flag each (spec §2.2, §3). Menus have no SKU: carte keys
 * them by `menu_type`, updates them by the platform id it read, and creates them by sending no id
 * (spec §4.4 `POST /menu` "creates or updates"). A second menu of a type already seen on the platform
 * is keyed `TYPE#id`, so that the plan deletes the duplicate.
 */

import { own, table, type MenuResource } from "../model.js";
import { menusOf, menusState, offerWindowInfo } from "./catalog.js";
import type { WireMenu } from "../platform/wire.js";
import { menusPart } from "./menus-import.js";
import { storeMenuRead } from "./reads.js";
import {
  effectOf,
  partOf,
  type AttributeDiff,
  type EndpointSpec,
  type ReadState,
  type ResourceKind,
} from "./types.js";
import { byIndex, jsonEqual } from "./util.js";

/** A menu's categories as a reviewer reads them: `["BURGERS", "DESSERTS (inactive)"]`. */
function categoryList(r: MenuResource): string[] {
  return r.categories.map((c) => (c.active ? c.sku : `${c.sku} (inactive)`));
}

/** The upsert element of `POST /menu`. `id` is the platform id of an existing menu, absent to create. */
export function toWireMenu(r: MenuResource, id: number | undefined): WireMenu {
  return {
    ...(id === undefined ? {} : { id }),
    menu_type: r.type,
    categories: r.categories.map((c, index) => ({ sku: c.sku, index, is_category_active: c.active })),
  };
}

/** Whether the store shows what one `POST /menu` element writes. */
function shows(state: ReadState, m: WireMenu): boolean {
  const categories = byIndex(m.categories).map((c) => ({ sku: c.sku ?? "", active: c.is_category_active }));
  if (m.id === undefined) {
    // A create: the plan creates a menu only for a type the store had none of.
    return Object.values(menusOf(state)).some((r) => r.type === m.menu_type);
  }
  const key = Object.keys(state.ids.menus).find((k) => state.ids.menus[k] === m.id);
  const now = key === undefined ? undefined : own(menusOf(state), key);
  return now !== undefined && now.type === m.menu_type && jsonEqual(now.categories, categories);
}

/** `POST /menu` (spec §4.4): creates a menu sent without id, updates one with; after its categories. */
const upsert: EndpointSpec = {
  name: "menus.upsert",
  stage: 3,
  route: "POST /restaurants/menu/v1/stores/{storeId}/menu",
  scope: "store",
  body: (elements) => elements,
  effect(body, _params, state) {
    const list = body as WireMenu[];
    return effectOf(list.filter((m) => shows(state, m)).length, list.length);
  },
};

/** `DELETE /menu` with a bare array of menu ids (spec §4.4); the first of the deletes. */
const remove: EndpointSpec = {
  name: "menus.delete",
  stage: 4,
  route: "DELETE /restaurants/menu/v1/stores/{storeId}/menu",
  scope: "store",
  body: (elements) => elements,
  effect(body, _params, state) {
    const ids = new Set(Object.values(state.ids.menus));
    const list = body as number[];
    return effectOf(list.filter((id) => !ids.has(id)).length, list.length);
  },
};

/** The menus kind. */
export const menus: ResourceKind<MenuResource, "menu"> = {
  name: "menu",
  nouns: { menu: ["menu", "menus"] },
  summary: "menus of the store, by menu type: ordered categories and whether each is active",
  endpoints: [upsert, remove],
  importPart: menusPart,
  state: menusState,
  select: (state) => menusOf(state),
  manages: () => true,
  segment: () => "menu",
  // Menus' offer windows with a start or an end still ahead: information, not changes.
  info: (desired) => offerWindowInfo(desired, "menu"),
  // A second menu of a type is read under `TYPE#id`.
  duplicates(state) {
    return Object.fromEntries(
      Object.entries(menusOf(state))
        .filter(([key, m]) => key !== m.type)
        .map(([key, m]) => [key, m.type]),
    );
  },
  diff(before, after): AttributeDiff[] {
    const out: AttributeDiff[] = [];
    if (before.type !== after.type) out.push({ attribute: "type", before: before.type, after: after.type });
    if (!jsonEqual(before.categories, after.categories)) {
      out.push({ attribute: "categories", before: categoryList(before), after: categoryList(after) });
    }
    return out;
  },
  reads: [storeMenuRead],
  read(snapshot, into, ids) {
    const wire = partOf(snapshot, storeMenuRead)!;
    const skuById = new Map<number, string>();
    for (const c of wire.categories) if (c.id !== undefined) skuById.set(c.id, c.sku);
    const menus = table<MenuResource>();
    menusState.set(into, menus);
    for (const m of [...wire.menus].sort((a, b) => a.id - b.id)) {
      const key = menus[m.menu_type] ? `${m.menu_type}#${m.id}` : m.menu_type;
      menus[key] = {
        type: m.menu_type,
        categories: byIndex(m.categories)
          .map((ref) => ({
            sku: ref.sku ?? (ref.id === undefined ? "" : (skuById.get(ref.id) ?? "")),
            active: ref.is_category_active,
          }))
          .filter((c) => c.sku !== ""),
      };
      ids.menus[key] = m.id;
    }
  },
  writes(action, key, _before, after, ctx) {
    if (action === "delete") {
      const id = ctx.ids.menus[key];
      return id === undefined ? [] : [{ endpoint: "menus.delete", element: id }];
    }
    return [{ endpoint: "menus.upsert", element: toWireMenu(after!, ctx.ids.menus[key]) }];
  },
};
