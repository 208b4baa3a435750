/**
 * Menus: ordered categories with an active flag each (docs/platform-api.md §4.3, §4.9). Menus have no SKU:
 * carte keys them by `menu_type`, updates them by the platform id it read, and creates them by sending no id
 * (docs/platform-api.md §2.4 `POST /menu` "creates or updates"). A second menu of a type already seen on the
 * platform is keyed `TYPE#id`, so that the plan deletes the duplicate.
 */

import { own, table, type CategoryResource, type MenuResource } from "../model.js";
import type { SafetyViolation } from "../safety-policy.js";
import { attr, escapeHtmlText as t } from "../show/html.js";
import { afterPlan, classes, headingBadge, idPart, mark, merged } from "../show/page.js";
import { fieldOf, type ChangeView } from "../show/view-model.js";
import { listDetails, onOff } from "../show/words.js";
import { categoriesOf, menusOf, menusState, offerWindowInfo } from "./catalog.js";
import { renderCategory } from "./categories.js";
import type { StoreGuardContext } from "./guards.js";
import { renderGroups, renderUpcoming } from "./items-preview.js";
import type { KindPreview, KindView, PreviewPage } from "./show.js";
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
} from "./resource-kind.js";
import { byIndex, jsonEqual } from "../plain-data.js";

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

/**
 * `POST /menu` (docs/platform-api.md §2.4): creates a menu sent without id, updates one with; after its
 * categories.
 */
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

/** `DELETE /menu` with a bare array of menu ids (docs/platform-api.md §2.4); the first of the deletes. */
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

/** Where menus come in a store's changes: after the categories. */
const MENUS_ORDER = 4;

/** A menu's categories as a view reads them from a resource: SKU and whether it is active. */
function entries(r: unknown): { sku: string; active: boolean }[] {
  const list = fieldOf(r, "categories");
  return (Array.isArray(list) ? (list as unknown[]) : []).map((c) => ({
    sku: String(fieldOf(c, "sku")),
    active: fieldOf(c, "active") !== false,
  }));
}

/** The view of a change of a menu: its categories, and those switched on or off. */
const view: KindView = {
  change(ch) {
    const view: ChangeView = { action: ch.action, details: [], head: `menu ${ch.key}` };
    const b = entries(ch.before);
    const a = entries(ch.after);
    if (ch.action === "create") {
      view.details.push({
        label: "categories",
        after: a.map((c) => (c.active ? c.sku : `${c.sku} (inactive)`)).join(", "),
      });
    } else if (ch.action === "update") {
      const skus = (list: { sku: string }[]) => list.map((c) => c.sku);
      view.details.push(...listDetails("categories", skus(b), skus(a), false));
      const was = new Map(b.map((c) => [c.sku, c.active]));
      for (const c of a) {
        const before = was.get(c.sku);
        if (before !== undefined && before !== c.active)
          view.details.push({ label: `categories: ${c.sku}`, before: onOff(before), after: onOff(c.active) });
      }
    }
    return [{ order: MENUS_ORDER, sort: ch.key, view }];
  },
};

/**
 * A menu's section on a preview's page: its categories in order, those it drops struck through. As
 * pieces (src/kinds/show.ts `KindPreview.page`).
 */
function renderMenu(v: PreviewPage, type: string): string[] {
  const c = v.change("menu", type);
  const menu = afterPlan<MenuResource>(c, v.state ? own(menusOf(v.state), type) : undefined)!;
  const before = c?.action === "update" ? (c.before as MenuResource).categories : undefined;
  const active = new Map(menu.categories.map((e) => [e.sku, e.active]));
  for (const e of before ?? []) if (!active.has(e.sku)) active.set(e.sku, e.active);
  const parts = [
    `<section${classes("entry menu", mark(c))}${attr("id", `menu-${idPart(type)}`)}${attr("data-menu", type)}>` +
      `<h2>Menu ${t(type)}${headingBadge(mark(c))}</h2>\n`,
  ];
  merged(
    menu.categories.map((e) => e.sku),
    before?.map((e) => e.sku),
  ).forEach(({ sku, gone, new: fresh }, n) => {
    if (n > 0) parts.push("\n");
    const placed = gone ? "removed" : fresh ? "added" : undefined;
    for (const piece of renderCategory(v, type, sku, active.get(sku) ?? true, placed)) parts.push(piece);
  });
  parts.push("\n</section>");
  return parts;
}

/** Whether the menu `type` shows an active category after the plan. */
function showsActive(v: PreviewPage, type: string): boolean {
  const menu = afterPlan<MenuResource>(
    v.change("menu", type),
    v.state ? own(menusOf(v.state), type) : undefined,
  );
  return menu?.categories.some((e) => e.active) ?? false;
}

/**
 * The menus on a store's page of `carte preview`: what is upcoming on a date, each menu with its
 * categories and their items, then the "Modifier groups" section the items link to.
 */
const preview: KindPreview = {
  page(v) {
    const types = new Set(v.state ? Object.keys(menusOf(v.state)) : []);
    for (const c of v.changes("menu")) types.add(c.key);
    // The menus customers see first: those that show an active category, then the others (an
    // inactive catering menu), each set by type.
    const order = [...types].sort().sort((a, b) => Number(showsActive(v, b)) - Number(showsActive(v, a)));
    const parts = [renderUpcoming(v)];
    if (order.length === 0) parts.push("<p>This store has no menu.</p>");
    order.forEach((type, n) => {
      if (n > 0) parts.push("\n");
      for (const piece of renderMenu(v, type)) parts.push(piece);
    });
    parts.push("\n");
    // After the menus, which ask for the groups they link to.
    for (const piece of renderGroups(v)) parts.push(piece);
    return parts;
  },
};

/**
 * `empties_menu`: a change leaves a menu, or a category it shows, without anything to sell (no active
 * category with items), where it sold something before.
 */
function emptiedMenus({ store, changes, current }: StoreGuardContext): SafetyViolation[] {
  // Categories as they will be after the plan.
  const categories = new Map<string, CategoryResource | null>(Object.entries(categoriesOf(current)));
  for (const c of changes)
    if (c.kind === "category") categories.set(c.key, c.after as CategoryResource | null);
  const out: SafetyViolation[] = [];
  const menusAfter = new Map<string, MenuResource | null>(Object.entries(menusOf(current)));
  const touched = new Set<string>();
  for (const c of changes) {
    if (c.kind === "menu") {
      menusAfter.set(c.key, c.after as MenuResource | null);
      touched.add(c.key);
    }
  }
  const changedCategories = new Set(changes.filter((c) => c.kind === "category").map((c) => c.key));
  for (const [key, menu] of menusAfter) {
    if (!menu) continue;
    const relevant = touched.has(key) || menu.categories.some((e) => changedCategories.has(e.sku));
    if (!relevant) continue;
    const before = own(menusOf(current), key);
    const wasSelling = before?.categories.some(
      (e) => e.active && (own(categoriesOf(current), e.sku)?.items.length ?? 0) > 0,
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
  view,
  preview,
  guards: { count: (current) => Object.keys(menusOf(current)).length, store: emptiedMenus },
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
