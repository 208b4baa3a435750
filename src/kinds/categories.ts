/**
 * Categories: a title and the ordered ITEMs they show (docs/platform-api.md §4.3; categories hold only
 * ITEMs). Written through `POST /categories` (upsert by SKU) and `DELETE /categories` with `{ids}`
 * (docs/platform-api.md §4.3).
 */

import { own, table, type CategoryResource, type StoreState } from "../model.js";
import { categoriesOf, categoriesState, offerWindowInfo } from "./catalog.js";
import type { WireCategory } from "../platform/wire.js";
import { categoriesPart } from "./categories-import.js";
import { storeMenuRead } from "./reads.js";
import { partOf, type EndpointSpec, type ResourceKind } from "./resource-kind.js";
import { fromWireSchedules, toWireSchedules, withComparedSchedules } from "./schedules.js";
import { byIndex } from "../plain-data.js";
import { categoryEqual } from "./equal.js";
import { attr, escapeHtmlText as t } from "../show/html.js";
import {
  afterPlan,
  classes,
  field,
  headingBadge,
  idPart,
  mark,
  merged,
  pageSchedulesText,
  valueOr,
} from "../show/page.js";
import { titledView } from "../show/view-model.js";
import { attributeDetails, isBlank, listDetails, schedulesText, valueDetail } from "../show/words.js";
import { renderItem } from "./items-preview.js";
import type { KindView, PreviewPage } from "./show.js";

/** The upsert element of `POST /categories` for a desired category. Item references go by SKU. */
export function toWireCategory(r: CategoryResource): WireCategory {
  return {
    sku: r.sku,
    title: r.title,
    items: r.items.map((sku, index) => ({ sku, index })),
    schedules: toWireSchedules(r.schedules),
  };
}

/**
 * Categories as compared: the state itself when its schedules are canonical (as read and resolved), or,
 * for stores whose schedules go through the utils group, without schedules. See `withComparedSchedules`.
 */
function selectCategories(state: StoreState): Readonly<Record<string, CategoryResource>> {
  return withComparedSchedules(categoriesOf(state), state.schedulesVia === "utils");
}

/** `POST /categories` (docs/platform-api.md §2.4): upsert by id, else by SKU; after the items it shows. */
const upsert: EndpointSpec = {
  name: "categories.upsert",
  stage: 2,
  route: "POST /restaurants/menu/v1/stores/{storeId}/categories",
  scope: "store",
  // The categories it creates are what the check of a new store's integration id compares.
  revealsPairing: true,
  body: (elements) => elements,
};

/** `DELETE /categories` with `{ids}` (docs/platform-api.md §4.3: an object, unlike the others). */
const remove: EndpointSpec = {
  name: "categories.delete",
  stage: 5,
  route: "DELETE /restaurants/menu/v1/stores/{storeId}/categories",
  scope: "store",
  body: (ids) => ({ ids }),
};

/** Where categories come in a store's changes: after the items and the modifier groups. */
const CATEGORIES_ORDER = 3;

/** The view of a change of a category: its items as moves, its schedules, its other attributes. */
const view: KindView = {
  change(ch, ctx) {
    const create = ch.action === "create";
    const view = titledView(ch, ctx, `category ${ch.key}`);
    for (const d of ch.diff) {
      if (d.attribute === "sku" || (d.attribute === "title" && create) || (create && isBlank(d.after)))
        continue;
      if (d.attribute === "items") view.details.push(...listDetails("items", d.before, d.after, create));
      else if (d.attribute === "schedules")
        view.details.push(valueDetail("schedules", schedulesText, d.before, d.after, create));
      else view.details.push(...attributeDetails(d.attribute, d.before, d.after, create));
    }
    return [{ order: CATEGORIES_ORDER, sort: ch.key, view }];
  },
  names: true,
};

/**
 * A category's section inside its menu on a preview's page (src/kinds/show.ts `KindPreview`): its
 * title, when it is shown, and its items (`placed`: the mark the menu's list gives it; `active`:
 * whether the menu shows it). As pieces, an item each (src/kinds/show.ts `KindPreview.page`).
 */
export function renderCategory(
  v: PreviewPage,
  menu: string,
  sku: string,
  active: boolean,
  placed: string | undefined,
): string[] {
  const c = v.change("category", sku);
  const category = afterPlan(c, v.state ? own(categoriesOf(v.state), sku) : undefined);
  const m = placed ?? mark(c);
  // A category may be in several menus: its id names the menu too.
  const id = `category-${idPart(menu)}__${idPart(sku)}`;
  if (!category)
    return [`<section${classes("entry category", m)}${attr("data-sku", sku)}><h3>${t(sku)}</h3></section>`];
  const before = c?.action === "update" ? (c.before as CategoryResource).items : undefined;
  const items = merged(category.items, before).map(
    ({ sku: i, gone, new: fresh }, n) =>
      `${n > 0 ? "\n" : ""}${renderItem(v, i, gone ? "removed" : fresh ? "added" : undefined)}`,
  );
  const schedules = valueOr(
    field<CategoryResource>("schedules", c, (r) => r.schedules ?? [], pageSchedulesText),
    t(pageSchedulesText(category.schedules)),
  );
  return [
    `<section${classes("entry category", m)}${attr("id", id)}${attr("data-sku", sku)}${active ? "" : ' data-inactive="true"'}>` +
      `<h3>${valueOr(
        field<CategoryResource>("title", c, (r) => r.title, String),
        t(category.title),
      )}${headingBadge(m)}${active ? "" : ' <span class="badge">Not active</span>'}</h3>` +
      (schedules !== "always" ? `<p class="meta">Shown: ${schedules}</p>` : "") +
      `<ul${attr("aria-label", `Items of ${category.title}`)}>\n`,
    ...items,
    "\n</ul></section>",
  ];
}

/** The categories kind. */
export const categories: ResourceKind<CategoryResource, "category"> = {
  name: "category",
  nouns: { category: ["category", "categories"] },
  summary: "categories of the store menu: title, ordered items, schedules",
  endpoints: [upsert, remove],
  importPart: categoriesPart,
  state: categoriesState,
  select: selectCategories,
  // `select` always gives a table: every store has its store menu.
  manages: () => true,
  equal: categoryEqual,
  segment: () => "category",
  view,
  // Drawn inside their menus (src/kinds/menus.ts).
  preview: {},
  guards: { count: (current) => Object.keys(categoriesOf(current)).length },
  catalogEntries: [
    {
      name: "category",
      a: "a category",
      plural: "categories",
      overrides: ["exclude", "titles", "schedules", "available"],
    },
  ],
  // Categories' offer windows with a start or an end still ahead: information, not changes.
  info: (desired) => offerWindowInfo(desired, "category"),
  reads: [storeMenuRead],
  read(snapshot, into, ids) {
    const wire = partOf(snapshot, storeMenuRead)!;
    const skuById = new Map<number, string>();
    for (const w of wire.items) if (w.id !== undefined) skuById.set(w.id, w.sku);
    const read = table<CategoryResource>();
    categoriesState.set(into, read);
    for (const c of [...wire.categories].sort((a, b) => a.sku.localeCompare(b.sku))) {
      const category: CategoryResource = {
        sku: c.sku,
        title: c.title,
        items: byIndex(c.items)
          .map((ref) => ref.sku ?? (ref.id === undefined ? undefined : skuById.get(ref.id)))
          .filter((s): s is string => s !== undefined),
      };
      const schedules = fromWireSchedules(c.schedules);
      if (schedules) category.schedules = schedules;
      read[c.sku] = category;
      if (c.id !== undefined) ids.categories[c.sku] = c.id;
    }
  },
  writes(action, key, _before, after, ctx) {
    if (action === "delete") {
      const id = ctx.ids.categories[key];
      return id === undefined ? [] : [{ endpoint: "categories.delete", element: id }];
    }
    return [
      {
        endpoint: "categories.upsert",
        element: toWireCategory(own(categoriesOf(ctx.desired), key) ?? after!),
      },
    ];
  },
};
