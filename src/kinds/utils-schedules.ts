/**
 * Schedules of categories (corridors) and items (products) written through the utils group, for stores
 * whose files say `schedulesVia: "utils"` (the items and categories kinds leave `schedules` out of
 * their comparison there). Two kinds:
 * - `corridor_schedule`, keyed by category SKU: `store[KEY].corridor_schedule[BURGERS]`;
 * - `product_schedule`, keyed by item SKU (ITEMs that are in at least one category: products live in
 *   corridors): `store[KEY].product_schedule[BURGER-CLASSIC]`.
 * Value `{schedules}` in carte's canonical {@link Schedule} form (days `mon…sun,hol`, one schedule per
 * set of days, periods sorted, `HH:MM`); `[]`: always.
 *
 * Wire (docs/platform-api.md §4.6, §2.5):
 * - read: `GET /api/rest-ops-utils/corridor/store/{storeId}` (corridors), then per corridor
 *   `GET /corridor/schedule/{corridorId}/store/{storeId}` and `GET /product/corridor/{corridorId}/store/
 *   {storeId}` (products), then per product `GET /product/schedule/{productId}/corridor/{corridorId}/
 *   store/{storeId}`: 1 + 2 × corridors + products calls per store, under the reader's concurrency
 *   bound (the utils group has no bulk read). A product in several corridors is read once: its schedule
 *   is the item's, whatever the corridor;
 * - `schedule_details: [{id, days, starts_time, ends_time}]`, one element per (days, period), times
 *   `HH:mm:ss`;
 * - delete one detail: `DELETE /corridor/schedule/{corridorId}/store/{storeId}/{corridorProductScheduleId}`
 *   (products: `/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}/{id}`);
 * - update details by id: ONE `PUT` per corridor or product `{schedule_details: [{id, days, starts_time,
 *   ends_time}]}`; add details: ONE `POST` `{schedule_details: [{days, starts_time, ends_time}]}`.
 *
 * Minimal calls: old and new details are matched (src/kinds/slots.ts `matchBy`: equal ones stay, then
 * same days or overlapping times pair up as updates), so an edit is one element of the one `PUT`.
 * Stages 20–22 (corridors: delete, update, create) and 23–25 (products), after every menu write.
 *
 * Identity: corridors ARE the store's categories and products its items (docs/platform-api.md §4.6: one
 * store state, two views); carte maps a corridor id to a category SKU and a product id to an item SKU
 * through the ids of `GET /store-menu` (the corridor and product lists carry no SKU). Ids are kept in
 * `ids.other.corridor_schedule[SKU]` / `ids.other.product_schedule[SKU]`.
 *
 * Going with the owner: a new category or item is created through the menu API with its schedules (the
 * upsert element carries them), and so is an existing one the menu API rewrites in the same plan (its
 * upsert sends the whole desired category or item, schedules included). For those the kinds yield no
 * utils call: a change of schedules alone goes through the utils group, by id. (A change listed with no
 * call of its own is carried by the `items.upsert` / `categories.upsert` call of the same resource.)
 * An item that joins its first category in a plan has no product id in a corridor yet: its schedule is
 * compared from the next plan on.
 */

import type { ScheduleDetail } from "../generated/platform.js";
import {
  own,
  table,
  type CategoryResource,
  type ItemResource,
  type Schedule,
  type StoreState,
} from "../model.js";
import { categoriesOf, categoriesState, itemsOf, itemsState } from "./catalog.js";
import {
  getCorridors,
  getCorridorSchedule,
  getProducts,
  getProductSchedule,
} from "../platform/utils-calls.js";
import type { RouteName } from "../platform/routes.js";
import type { WireStoreMenu } from "../platform/wire.js";
import { categories } from "./categories.js";
import { items } from "./items.js";
import { canonicalDays } from "../time/canonical-schedules.js";
import { fromUtilsTime, matchBy, overlap, toUtilsTime } from "./slots.js";
import { storeMenuRead } from "./reads.js";
import {
  effectOf,
  partOf,
  type EndpointParams,
  type EndpointSpec,
  type ReadState,
  type ResourceKind,
  type StoreRead,
  type Write,
  type WriteContext,
} from "./resource-kind.js";
import { jsonEqual } from "../plain-data.js";
import { fieldOf, titledView } from "../show/view-model.js";
import { schedulesText } from "../show/words.js";
import type { KindView } from "./show.js";

/** The schedules of a corridor or a product. */
export interface UtilsSchedule {
  schedules: Schedule[];
}

/** What the reader fetched through the utils group for one store (snapshot part `utilsSchedules`). */
export interface UtilsSchedulesSnapshot {
  corridors: { id: number; details: ScheduleDetail[] }[];
  products: { id: number; corridorId: number; details: ScheduleDetail[] }[];
}

/** One detail in carte's form: canonical days, `HH:MM` times; `id` when it exists on the platform. */
export interface Detail {
  id?: number;
  days: string;
  start: string;
  end: string;
}

/** Ids of one corridor or product schedule, and the menu API view of its owner (see `upsertCarries`). */
interface ScheduleIds {
  /** Corridor id, or the product id for products. */
  ownerId: number;
  corridorId: number;
  details: Detail[];
  /** The owner as the categories or items kind compares it (schedules left out), when it was read. */
  view?: unknown;
}

/** Details of the wire in carte's form. */
export function fromWireDetails(list: readonly ScheduleDetail[]): Detail[] {
  return list.map((d) => ({
    id: d.id,
    days: canonicalDays(d.days),
    start: fromUtilsTime(d.starts_time),
    end: fromUtilsTime(d.ends_time),
  }));
}

const byDetail = (a: Detail, b: Detail) =>
  a.days.localeCompare(b.days) || a.start.localeCompare(b.start) || a.end.localeCompare(b.end);

/** Schedules flattened to details (one per days and period), in canonical order. */
export function toDetails(schedules: readonly Schedule[]): Detail[] {
  return schedules
    .flatMap((s) => s.periods.map((p) => ({ days: canonicalDays(s.days), start: p.start, end: p.end })))
    .sort(byDetail);
}

/** Details grouped into canonical schedules: one per set of days, periods sorted. */
export function toSchedules(details: readonly Detail[]): Schedule[] {
  const groups = new Map<string, Detail[]>();
  for (const d of [...details].sort(byDetail)) {
    const g = groups.get(d.days);
    if (g) g.push(d);
    else groups.set(d.days, [d]);
  }
  return [...groups].map(([days, list]) => ({
    days,
    periods: list.map((d) => ({ start: d.start, end: d.end })),
  }));
}

/** The canonical form of configured or read schedules. */
export function canonicalUtilsSchedules(schedules: readonly Schedule[] | undefined): Schedule[] {
  return toSchedules(toDetails(schedules ?? []));
}

// ---- reading ---------------------------------------------------------------------------------------

/**
 * The corridors of each store, their schedules, their products and the products' schedules through the
 * utils group (docs/platform-api.md §4.6, §2.5): one call for the corridors, one per corridor for its
 * schedule and its products, one per product for its schedule.
 */
const utilsSchedulesRead: StoreRead<UtilsSchedulesSnapshot> = {
  name: "utilsSchedules",
  async fetch(client, stores, limit, deliver) {
    await Promise.all(
      stores.map(async (s) => {
        const corridors = [...(await limit(() => getCorridors(client, s.storeId), s.key))].sort(
          (a, b) => a.id - b.id,
        );
        const [schedules, productLists] = await Promise.all([
          Promise.all(corridors.map((c) => limit(() => getCorridorSchedule(client, c.id, s.storeId), s.key))),
          Promise.all(corridors.map((c) => limit(() => getProducts(client, c.id, s.storeId), s.key))),
        ]);
        // A product's schedule is the item's own: read it once, through the first corridor that lists it.
        const corridorOf = new Map<number, number>();
        corridors.forEach((c, i) => {
          for (const p of productLists[i] ?? [])
            if (!corridorOf.has(p.product_id)) corridorOf.set(p.product_id, c.id);
        });
        const products = await Promise.all(
          [...corridorOf]
            .sort(([a], [b]) => a - b)
            .map(([id, corridorId]) =>
              limit(
                async () => ({
                  id,
                  corridorId,
                  details:
                    (await getProductSchedule(client, id, corridorId, s.storeId)).schedule_details ?? [],
                }),
                s.key,
              ),
            ),
        );
        const snapshot: UtilsSchedulesSnapshot = {
          corridors: corridors.map((c, i) => ({ id: c.id, details: schedules[i]?.schedule_details ?? [] })),
          products,
        };
        await deliver(s.key, snapshot);
      }),
    );
  },
};

/**
 * The category `sku` as the categories kind compares it for a utils store (schedules left out), or
 * `undefined` when the store has none.
 */
function categoryView(state: StoreState, sku: string): unknown {
  const c = own(categoriesOf(state), sku);
  if (!c) return undefined;
  const probe: StoreState = { store: state.store, schedulesVia: "utils" };
  const one = table<CategoryResource>();
  one[sku] = c;
  categoriesState.set(probe, one);
  return categories.select(probe)?.[sku];
}

/** The item `sku` as the items kind compares it for a utils store (schedules left out). */
function itemView(state: StoreState, sku: string): unknown {
  const it = own(itemsOf(state), sku);
  if (!it) return undefined;
  const probe: StoreState = { store: state.store, schedulesVia: "utils" };
  const one = table<ItemResource>();
  one[sku] = it;
  itemsState.set(probe, { items: one });
  return items.select(probe)?.[sku];
}

// ---- writing ---------------------------------------------------------------------------------------

/** Element of `schedule_details` in a POST (docs/platform-api.md §2.5). */
export interface DetailInput {
  days: string;
  starts_time: string;
  ends_time: string;
}

/** Element of `schedule_details` in a PUT (docs/platform-api.md §2.5). */
export interface DetailUpdate extends DetailInput {
  id: number;
}

function detailInput(d: Detail): DetailInput {
  return { days: d.days, starts_time: toUtilsTime(d.start), ends_time: toUtilsTime(d.end) };
}

/** Same days weigh more than overlapping time when pairing an old detail with a new one. */
function affinity(o: Detail, n: Detail): number {
  return (o.days === n.days ? 100_000 : 0) + overlap(o, n);
}

/** Matches old details (with ids) to new ones: deletes, one PUT's elements, one POST's elements. */
export function detailWrites(
  prefix: string,
  old: readonly Detail[],
  next: readonly Detail[],
  params: EndpointParams,
): Write[] {
  const m = matchBy(
    [...old].sort(byDetail),
    [...next].sort(byDetail),
    (o, n) => o.days === n.days && o.start === n.start && o.end === n.end,
    affinity,
  );
  return [
    ...m.deletes.map((d) => ({
      endpoint: `${prefix}.delete`,
      element: d.id,
      params: { ...params, scheduleId: d.id! },
    })),
    ...m.updates.map((u) => ({
      endpoint: `${prefix}.update`,
      element: { id: u.from.id!, ...detailInput(u.to) } satisfies DetailUpdate,
      params,
    })),
    ...m.creates.map((d) => ({ endpoint: `${prefix}.create`, element: detailInput(d), params })),
  ];
}

/**
 * The routes of a corridor or a product schedule (docs/platform-api.md §2.5): create, update and delete a
 * detail.
 */
interface ScheduleRoutes {
  create: RouteName;
  update: RouteName;
  delete: RouteName;
}

/** The details of the corridor or product a call names, as read now (ids of the kind `prefix`). */
function detailsOf(prefix: string, params: EndpointParams, state: ReadState): Detail[] {
  const owner = Number(params.productId ?? params.corridorId);
  const stash = (state.ids.other[prefix] ?? {}) as Record<string, ScheduleIds>;
  return Object.values(stash).find((s) => s.ownerId === owner)?.details ?? [];
}

/** Whether a detail as sent (`days`, `HH:mm:ss` times) equals one in carte's form. */
function sameDetail(d: Detail, sent: DetailInput): boolean {
  return (
    d.days === canonicalDays(sent.days) &&
    d.start === fromUtilsTime(sent.starts_time) &&
    d.end === fromUtilsTime(sent.ends_time)
  );
}

/**
 * The three calls of a corridor or product schedule (docs/platform-api.md §2.5): delete one detail, update
 * details (one PUT), create details (one POST), at stages `first` to `first + 2`. Each says how a fresh read
 * shows its own effect (the detail gone; the details as sent, by id; the new details there).
 */
function scheduleEndpoints(prefix: string, first: number, routes: ScheduleRoutes): EndpointSpec[] {
  return [
    {
      chain: "catalog",
      name: `${prefix}.delete`,
      stage: first,
      route: routes.delete,
      scope: "store",
      pathParams: (storeId, p) => ({ storeId, ...p, corridorProductScheduleId: p.scheduleId! }),
      body: () => undefined,
      maxElements: 1,
      effect: (_b, params, state) =>
        detailsOf(prefix, params, state).some((d) => d.id === Number(params.scheduleId))
          ? "absent"
          : "present",
    },
    {
      chain: "catalog",
      name: `${prefix}.update`,
      stage: first + 1,
      route: routes.update,
      scope: "store",
      body: (elements) => ({ schedule_details: elements }),
      effect(body, params, state) {
        const sent = (body as { schedule_details: DetailUpdate[] }).schedule_details;
        const now = detailsOf(prefix, params, state);
        const shown = sent.filter((u) => now.some((d) => d.id === u.id && sameDetail(d, u))).length;
        return effectOf(shown, sent.length);
      },
    },
    {
      chain: "catalog",
      name: `${prefix}.create`,
      stage: first + 2,
      route: routes.create,
      scope: "store",
      body: (elements) => ({ schedule_details: elements }),
      // Each POST appends details: repeated after a lost answer it would add them twice (the route says so).
      // Its effect: the new details are there (equal details are kept, never created, `detailWrites`).
      effect(body, params, state) {
        const sent = (body as { schedule_details: DetailInput[] }).schedule_details;
        const free = [...detailsOf(prefix, params, state)];
        let shown = 0;
        for (const d of sent) {
          const i = free.findIndex((x) => sameDetail(x, d));
          if (i >= 0) {
            free.splice(i, 1);
            shown++;
          }
        }
        return effectOf(shown, sent.length);
      },
    },
  ];
}

// ---- the kinds -------------------------------------------------------------------------------------

/** What owns a utils schedule: a category (a corridor) or an item (a product). */
type Owner = CategoryResource | ItemResource;

/** What differs between the corridor and the product kind. */
interface Flavour<N extends string> {
  name: N;
  summary: string;
  nouns: Readonly<Record<string, readonly [string, string]>>;
  endpoints: EndpointSpec[];
  /**
   * The owners of the schedules in a store (its categories or its items, the state of their kind), by
   * SKU.
   */
  ownersOf(state: StoreState): Readonly<Record<string, Owner>>;
  /** The owners as a read writes them: their kind's state, `undefined` when that kind was not read. */
  ownersIn(into: StoreState): Record<string, Owner> | undefined;
  /** An owner as its kind compares it for a utils store (schedules left out; see `upsertCarries`). */
  view(state: StoreState, sku: string): unknown;
  /** The owners in the store menu's answer, whose ids the utils group names them by. */
  inMenu(menu: WireStoreMenu): readonly { id?: number; sku: string }[];
  /** SKUs of the owners in a store that have a utils schedule. */
  owners(state: StoreState): string[];
  /** The wire list of the snapshot and the menu id of each entry. */
  entries(snapshot: UtilsSchedulesSnapshot): { id: number; corridorId: number; details: ScheduleDetail[] }[];
  /** Params of a write: the ids in the path. */
  params(ids: ScheduleIds, key: string, ctx: WriteContext): EndpointParams;
}

/** Where the utils schedules come in a store's changes: after the catalog, before the hours. */
const SCHEDULES_ORDER = 6;

/** The view of a change of a utils schedule: `category schedule BURGERS` and its schedules. */
function schedulesView(noun: string): KindView {
  return {
    change(ch, ctx) {
      const view = titledView(ch, ctx, `${noun} ${ch.key}`);
      const show = (r: unknown) => schedulesText(fieldOf(r, "schedules"));
      view.details.push(
        ch.action === "update"
          ? { label: "schedules", before: show(ch.before), after: show(ch.after) }
          : { label: "schedules", after: show(ch.after ?? ch.before) },
      );
      return [{ order: SCHEDULES_ORDER, sort: `${ch.kind}\u0000${ch.key}`, view }];
    },
  };
}

function utilsScheduleKind<N extends string>(f: Flavour<N>): ResourceKind<UtilsSchedule, N> {
  return {
    name: f.name,
    summary: f.summary,
    nouns: f.nouns,
    view: schedulesView(f.nouns[f.name]![0]),
    endpoints: f.endpoints,
    reads: [storeMenuRead, utilsSchedulesRead],
    defaultOwnership: "full",
    select(state) {
      if (state.schedulesVia !== "utils") return undefined;
      const out = table<UtilsSchedule>();
      for (const sku of f.owners(state).sort()) {
        out[sku] = { schedules: canonicalUtilsSchedules(own(f.ownersOf(state), sku)?.schedules) };
      }
      return out;
    },
    manages: (state) => state.schedulesVia === "utils",
    segment: () => f.name,
    title: (state, key) => own(f.ownersOf(state), key)?.title,
    // A new owner is created with its schedules through the menu API; a deleted one takes them along.
    initial: (after) => after,
    read(snapshot, into, ids) {
      const menu = partOf(snapshot, storeMenuRead)!;
      const skuOf = new Map<number, string>();
      for (const w of f.inMenu(menu)) {
        if (w.id !== undefined) skuOf.set(w.id, w.sku);
      }
      const stash = table<ScheduleIds>();
      const owners = f.ownersIn(into);
      for (const e of f.entries(partOf(snapshot, utilsSchedulesRead)!)) {
        const sku = skuOf.get(e.id);
        const owner = sku === undefined || !owners ? undefined : owners[sku];
        if (sku === undefined || !owner) continue;
        const details = fromWireDetails(e.details);
        const schedules = toSchedules(details);
        const { schedules: _drop, ...rest } = owner;
        // The utils view is the truth for this kind (same platform state as the menu API's, with ids).
        owners![sku] = schedules.length ? { ...rest, schedules } : rest;
        stash[sku] = { ownerId: e.id, corridorId: e.corridorId, details, view: f.view(into, sku) };
      }
      ids.other[f.name] = stash;
    },
    writes(_action, key, _before, after, ctx) {
      const info = (ctx.ids.other[f.name] as Record<string, ScheduleIds> | undefined)?.[key];
      if (!info || !after) return [];
      // The menu API rewrites the owner in this plan with its desired schedules: nothing to add.
      if (!jsonEqual(f.view(ctx.desired, key), info.view)) return [];
      return detailWrites(f.name, info.details, toDetails(after.schedules), f.params(info, key, ctx));
    },
  };
}

/** Corridor (category) schedules through the utils group. */
export const corridorSchedules = utilsScheduleKind({
  name: "corridor_schedule",
  nouns: { corridor_schedule: ["category schedule", "category schedules"] },
  summary: "corridor (category) schedules through the utils group, for stores with schedules_via: utils",
  endpoints: scheduleEndpoints("corridor_schedule", 20, {
    create: "POST /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}",
    update: "PUT /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}",
    delete:
      "DELETE /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}/{corridorProductScheduleId}",
  }),
  ownersOf: categoriesOf,
  ownersIn: (into) => categoriesState.get(into),
  view: categoryView,
  inMenu: (menu) => menu.categories,
  owners: (state) => Object.keys(categoriesOf(state)),
  entries: (s) => s.corridors.map((c) => ({ id: c.id, corridorId: c.id, details: c.details })),
  params: (ids) => ({ corridorId: ids.corridorId }),
});

/** Product (item) schedules through the utils group. */
export const productSchedules = utilsScheduleKind({
  name: "product_schedule",
  nouns: { product_schedule: ["item schedule", "item schedules"] },
  summary: "product (item) schedules through the utils group, for stores with schedules_via: utils",
  endpoints: scheduleEndpoints("product_schedule", 23, {
    create: "POST /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}",
    update: "PUT /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}",
    delete:
      "DELETE /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}/{corridorProductScheduleId}",
  }),
  ownersOf: itemsOf,
  ownersIn: (into) => itemsState.get(into)?.items,
  view: itemView,
  inMenu: (menu) => menu.items,
  owners(state) {
    const inCategory = new Set(Object.values(categoriesOf(state)).flatMap((c) => c.items));
    const all = itemsOf(state);
    return Object.keys(all).filter((sku) => all[sku]!.type === "ITEM" && inCategory.has(sku));
  },
  entries: (s) => s.products,
  // The corridor in the path must hold the product when the call runs (after the menu writes): keep the
  // one read if the item stays in it, else take a desired category that exists and will hold it.
  params(ids, key, ctx) {
    const categoriesNow = Object.entries(ctx.ids.categories);
    const readSku = categoriesNow.find(([, id]) => id === ids.corridorId)?.[0];
    let corridorId = ids.corridorId;
    const wanted = categoriesOf(ctx.desired);
    if (readSku === undefined || !own(wanted, readSku)?.items.includes(key)) {
      const other = Object.keys(wanted)
        .sort()
        .find((sku) => wanted[sku]!.items.includes(key) && ctx.ids.categories[sku] !== undefined);
      if (other !== undefined) corridorId = ctx.ids.categories[other]!;
    }
    return { productId: ids.ownerId, corridorId };
  },
});
