/**
 * Utils group of the emulator (docs/platform-api.md §2.5, prefix `/api/rest-ops-utils`, no version segment,
 * §4.12): corridors, corridor schedules, products and product schedules by store, by integration and by SKU,
 * store hours (hours.ts) and `GET /menu/integration/{integrationId}`. Every route needs a utils token
 * (docs/platform-api.md §4.2; enforced by server.ts through `surface: "utils"`).
 *
 * One store state (docs/platform-api.md §4.7): a corridor IS a category of the store's catalog (corridor id =
 * category id, name = title, description ""), a product IS an ITEM of that category (product id = item
 * id), and their schedules ARE the category `schedules` / item `schedules_info.schedules` of the menu API,
 * converted by utils-state.ts. A child store (docs/platform-api.md §4.6) reads and writes the corridors of
 * its parent, and the answers carry the parent's store id / integration id.
 *
 * Writes are SYNCHRONOUS (emulator's reading of docs/platform-api.md §2.5: POST answers the "corridor
 * schedule with generated ids"): the change is visible to reads of both APIs at once. To stay ordered with
 * menu API writes still pending, the same (idempotent) write is also queued behind them (see {@link
 * writeNow}).
 *
 * Answers (emulator's choices where the spec says "not shown"): GET, POST and PUT of a schedule answer the
 * whole schedule `{corridor_id, store_id | integration_id, [product_id | sku,] schedule_details}`; POST
 * appends its details to the existing ones; PUT rewrites the listed details by `id` and keeps the others;
 * DELETE answers 204. Unknown corridor, product, SKU, schedule id, store or integration id: 404
 * `{message}`; a malformed body: 400 `{message}` naming the field.
 *
 * Every response of the group carries the deprecation headers {@link DEPRECATION_HEADERS}
 * (docs/platform-api.md §4.10), errors of the handlers included.
 */

import type { RouteName } from "../platform/routes.js";
import { fail, isPosInt } from "./http.js";
import type { Reply, Route, RouteContext } from "./http.js";
import { hoursRoutes } from "./hours.js";
import {
  buildSchedules,
  categoryOwner,
  detailsOf,
  itemOwner,
  parseDetails,
  rememberIds,
  unknownSchedule,
} from "./utils-state.js";
import type { ScheduleDetail, ScheduleOwner } from "./utils-state.js";
import { availableAt } from "./state.js";
import type { Catalog, CatalogWrite, EmulatorState, ItemRec, StoreRec } from "./state.js";

/**
 * Headers on every utils response (docs/platform-api.md §4.10: the utils group is scheduled for removal,
 * docs/platform-api.md §4.1, §4.12). The removal date is not published (docs/platform-api.md §4.12): the
 * value is the emulator's placeholder.
 */
export const DEPRECATION_HEADERS: Readonly<Record<string, string>> = {
  "x-platform-api-deprecation-date": "2026-06-30",
  "x-platform-api-deprecation-info":
    "The utils endpoints are deprecated and will be removed; use the store menu API /restaurants/menu/v1/stores/{storeId}",
};

/**
 * Adds {@link DEPRECATION_HEADERS} to every answer of a route, errors included (token and body checks
 * too: server.ts adds {@link Route.headers} once the path matched).
 */
export function deprecated(route: Route): Route {
  return { ...route, headers: { ...DEPRECATION_HEADERS, ...route.headers } };
}

/** The number of utils writes made so far to each value (`owner`) of a store. */
const utilsWrites = new WeakMap<StoreRec, Map<string, number>>();

/**
 * A write that takes effect now (utils writes are synchronous): applied to the visible catalog at once,
 * and through {@link EmulatorState.accept} to the projected catalog now and, once more, to the visible one
 * after the writes already pending (the write must be idempotent: it sets the value of `owner`, e.g. a
 * category's schedules). That second time is left out when a later utils write of the same `owner` was
 * made meanwhile: it would put back an older value until the later write's own turn (a schedule read
 * in between showed a deleted period again, with new ids). Kind `utils` for
 * {@link EmulatorState.onApplied}.
 */
export function writeNow(state: EmulatorState, store: StoreRec, owner: string, write: CatalogWrite): void {
  write(store.visible);
  store.renderCache.clear();
  let writes = utilsWrites.get(store);
  if (!writes) utilsWrites.set(store, (writes = new Map()));
  const made = (writes.get(owner) ?? 0) + 1;
  writes.set(owner, made);
  state.accept(
    store,
    (cat) => {
      if (cat === store.visible && writes.get(owner) !== made) return;
      write(cat);
    },
    "utils",
  );
  state.requestPersist();
}

// ---- resolving the path ----------------------------------------------------------------------------

/** Where a utils call addresses a store: its id (`/store/{storeId}`) or its integration id. */
type Via = "store" | "integration";

interface Scope {
  via: Via;
  /** The store that holds the corridors: the parent for a child store (docs/platform-api.md §4.6). */
  store: StoreRec;
}

function scopeOf(ctx: RouteContext, via: Via): Scope {
  let store: StoreRec;
  if (via === "store") store = ctx.state.storeForClient(ctx.params.storeId!, ctx.clientId);
  else {
    const iid = ctx.params.integrationId!;
    const s = ctx.state.storeByIntegrationId(iid, ctx.clientId);
    if (!s) throw fail(404, `Integration ${iid} not found`);
    store = s;
  }
  if (store.parent !== undefined) store = ctx.state.stores.get(store.parent) ?? store;
  return { via, store };
}

/** The store-identifying field of an answer: `store_id` (integer) or `integration_id` (string). */
function scopeField(scope: Scope, camel = false): Record<string, string | number> {
  if (scope.via === "store") return { [camel ? "storeId" : "store_id"]: Number(scope.store.key) };
  return { [camel ? "integrationId" : "integration_id"]: scope.store.integration_id };
}

function numParam(ctx: RouteContext, name: string, what: string): number {
  const raw = ctx.params[name]!;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!isPosInt(n)) throw fail(404, `${what} ${raw} not found`);
  return n;
}

function corridorOf(ctx: RouteContext, cat: Catalog): number {
  const id = numParam(ctx, "corridorId", "Corridor");
  if (!cat.categories.has(id)) throw fail(404, `Corridor ${id} not found`);
  return id;
}

/** The product of the path: an ITEM of the corridor, by platform id or (`bySku`) by merchant SKU. */
function productOf(ctx: RouteContext, cat: Catalog, corridorId: number, bySku: boolean): ItemRec {
  let item: ItemRec | undefined;
  if (bySku) {
    const sku = ctx.params.sku!;
    const id = cat.itemSku.get(sku);
    item = id === undefined ? undefined : cat.items.get(id);
    if (!item) throw fail(404, `Product with sku ${sku} not found`);
  } else {
    const id = numParam(ctx, "productId", "Product");
    item = cat.items.get(id);
    if (!item) throw fail(404, `Product ${id} not found`);
  }
  const inCorridor = cat.categories.get(corridorId)!.items.some((r) => r.id === item.id);
  if (!inCorridor || item.item_type !== "ITEM") {
    throw fail(404, `Product ${bySku ? item.sku : item.id} not found in corridor ${corridorId}`);
  }
  return item;
}

/**
 * `sku` as the utils group writes it (docs/platform-api.md §4.6: an integer): a SKU of decimal digits that
 * fits a safe integer is answered as a number, any other SKU as the string (merchant SKUs are strings in the
 * menu API).
 */
function wireSku(sku: string): string | number {
  return /^\d{1,15}$/.test(sku) ? Number(sku) : sku;
}

// ---- corridor and product lists --------------------------------------------------------------------

/**
 * `GET /corridor/store/{storeId}` and `/corridor/integration/{integrationId}` (docs/platform-api.md §4.6,
 * §2.5).
 */
function listCorridors(via: Via) {
  return (ctx: RouteContext): Reply => {
    const scope = scopeOf(ctx, via);
    const cats = [...scope.store.visible.categories.values()].sort((a, b) => a.id - b.id);
    return {
      status: 200,
      body: cats.map((c) => ({ id: c.id, name: c.title, description: "", ...scopeField(scope, true) })),
    };
  };
}

/** Items of a corridor in category order, ITEMs only. */
function corridorItems(cat: Catalog, corridorId: number): ItemRec[] {
  const out: ItemRec[] = [];
  for (const r of cat.categories.get(corridorId)!.items) {
    const it = cat.items.get(r.id);
    if (it && it.item_type === "ITEM") out.push(it);
  }
  return out;
}

/**
 * `GET /product/corridor/{corridorId}/store/{storeId}` → `[{product_id, name, description, corridor_id,
 * store_id}]`; `GET /sku/corridor/{corridorId}/integration/{integrationId}` → `[{sku, name, description,
 * corridor_id, integration_id}]` (docs/platform-api.md §4.6).
 */
function listProducts(via: Via, bySku: boolean) {
  return (ctx: RouteContext): Reply => {
    const scope = scopeOf(ctx, via);
    const cat = scope.store.visible;
    const corridorId = corridorOf(ctx, cat);
    return {
      status: 200,
      body: corridorItems(cat, corridorId).map((it) => ({
        ...(bySku ? { sku: wireSku(it.sku) } : { product_id: it.id }),
        name: it.title_info.title,
        description: it.description_info.description ?? "",
        corridor_id: corridorId,
        ...scopeField(scope),
      })),
    };
  };
}

// ---- schedules -------------------------------------------------------------------------------------

interface ScheduleTarget {
  owner: ScheduleOwner;
  /** The answer's fields besides `schedule_details`. */
  head: Record<string, string | number>;
}

type TargetOf = (ctx: RouteContext, scope: Scope, cat: Catalog) => ScheduleTarget;

const corridorTarget: TargetOf = (ctx, scope, cat) => {
  const corridorId = corridorOf(ctx, cat);
  return { owner: categoryOwner(corridorId), head: { corridor_id: corridorId, ...scopeField(scope) } };
};

function productTarget(bySku: boolean): TargetOf {
  return (ctx, scope, cat) => {
    const corridorId = corridorOf(ctx, cat);
    const item = productOf(ctx, cat, corridorId, bySku);
    return {
      owner: itemOwner(item.id),
      head: {
        ...(bySku ? { sku: wireSku(item.sku) } : { product_id: item.id }),
        corridor_id: corridorId,
        ...scopeField(scope),
      },
    };
  };
}

function answer(t: ScheduleTarget, details: ScheduleDetail[]): Reply {
  return { status: 200, body: { ...t.head, schedule_details: details } };
}

/** The current details of a target in a catalog, with their stable ids. */
function current(ctx: RouteContext, scope: Scope, t: ScheduleTarget, cat: Catalog): ScheduleDetail[] {
  return detailsOf(ctx.state, scope.store, t.owner.owner, t.owner.read(cat) ?? []);
}

/** Stores new details on the target (synchronously, both views) and answers the whole schedule. */
function commit(ctx: RouteContext, scope: Scope, t: ScheduleTarget, details: ScheduleDetail[]): Reply {
  const built = buildSchedules(details, "schedule_details");
  rememberIds(ctx.state, scope.store, t.owner.owner, built.details);
  const now = new Date().toISOString();
  writeNow(ctx.state, scope.store, t.owner.owner, (cat) => t.owner.write(cat, built.schedules, now));
  return answer(t, built.details);
}

/** GET of a corridor or product schedule: from the visible catalog. */
function getSchedule(via: Via, target: TargetOf) {
  return (ctx: RouteContext): Reply => {
    const scope = scopeOf(ctx, via);
    const t = target(ctx, scope, scope.store.visible);
    return answer(t, current(ctx, scope, t, scope.store.visible));
  };
}

/**
 * POST: appends `schedule_details` (each `{days, starts_time, ends_time}`; an `id` sent, as the SKU variant
 * documents, is ignored) with fresh ids. Validated against the projected catalog before ids are allocated.
 */
function postSchedule(via: Via, target: TargetOf) {
  return (ctx: RouteContext): Reply => {
    const scope = scopeOf(ctx, via);
    const cat = scope.store.projected;
    const t = target(ctx, scope, cat);
    const parsed = parseDetails(ctx.body, false);
    const existing = current(ctx, scope, t, cat);
    buildSchedules([...existing, ...parsed.map((p) => ({ id: 0, ...p.period }))], "schedule_details");
    const added = parsed.map((p) => ({ id: ctx.state.allocateId(), ...p.period }));
    return commit(ctx, scope, t, [...existing, ...added]);
  };
}

/** PUT: rewrites the listed details by `id` (each must be a detail of this schedule), keeps the others. */
function putSchedule(via: Via, target: TargetOf) {
  return (ctx: RouteContext): Reply => {
    const scope = scopeOf(ctx, via);
    const cat = scope.store.projected;
    const t = target(ctx, scope, cat);
    const parsed = parseDetails(ctx.body, true);
    const details = current(ctx, scope, t, cat);
    const seen = new Set<number>();
    for (const p of parsed) {
      const i = details.findIndex((d) => d.id === p.id);
      if (i < 0) unknownSchedule(p.id!);
      if (seen.has(p.id!)) throw fail(400, `${p.at}.id ${p.id} is listed twice`);
      seen.add(p.id!);
      details[i] = { id: p.id!, ...p.period };
    }
    return commit(ctx, scope, t, details);
  };
}

/** DELETE `.../{corridorProductScheduleId}`: removes one detail; 204. */
function deleteSchedule(via: Via, target: TargetOf) {
  return (ctx: RouteContext): Reply => {
    const scope = scopeOf(ctx, via);
    const cat = scope.store.projected;
    const t = target(ctx, scope, cat);
    const raw = ctx.params.corridorProductScheduleId!;
    const id = /^\d+$/.test(raw) ? Number(raw) : NaN;
    const details = current(ctx, scope, t, cat);
    const rest = details.filter((d) => d.id !== id);
    if (rest.length === details.length) unknownSchedule(raw);
    commit(ctx, scope, t, rest);
    return { status: 204 };
  };
}

// ---- menu status -----------------------------------------------------------------------------------

/**
 * `GET /menu/integration/{integrationId}` (docs/platform-api.md §4.6) → `{corridors, products,
 * toppingsCategories}` of the visible catalog:
 * - `corridors`: as `GET /corridor/integration/{integrationId}`;
 * - `products`: one entry per (corridor, ITEM) `{id, sku, name, description, active, isAvailable,
 *   corridorId}`; `isAvailable` is `suspension_info.is_available`; `active` (emulator's reading) is true
 *   when the corridor is active (`is_category_active`) in at least one menu;
 * - `toppingsCategories`: one entry per (modifier group, product) `{id, sku, description, productId,
 *   toppings: [{id, sku, description, activated}]}`; `description` is the title, `activated` the option's
 *   `is_available`.
 */
function menuStatus(ctx: RouteContext): Reply {
  const scope = scopeOf(ctx, "integration");
  const cat = scope.store.visible;
  const active = new Set<number>();
  for (const m of cat.menus.values())
    for (const c of m.categories) if (c.is_category_active) active.add(c.id);
  const cats = [...cat.categories.values()].sort((a, b) => a.id - b.id);
  const products: unknown[] = [];
  const toppingsCategories: unknown[] = [];
  const seen = new Set<string>();
  for (const c of cats) {
    for (const it of corridorItems(cat, c.id)) {
      products.push({
        id: it.id,
        sku: wireSku(it.sku),
        name: it.title_info.title,
        description: it.description_info.description ?? "",
        active: active.has(c.id),
        isAvailable: availableAt(it),
        corridorId: c.id,
      });
      for (const ref of it.children) {
        const g = cat.items.get(ref.id);
        if (!g || g.item_type !== "MODIFIER_GROUP" || seen.has(`${g.id}/${it.id}`)) continue;
        seen.add(`${g.id}/${it.id}`);
        toppingsCategories.push({
          id: g.id,
          sku: wireSku(g.sku),
          description: g.title_info.title,
          productId: it.id,
          toppings: g.children.flatMap((o) => {
            const t = cat.items.get(o.id);
            return t
              ? [
                  {
                    id: t.id,
                    sku: wireSku(t.sku),
                    description: t.title_info.title,
                    activated: availableAt(t),
                  },
                ]
              : [];
          }),
        });
      }
    }
  }
  return {
    status: 200,
    body: {
      corridors: cats.map((c) => ({ id: c.id, name: c.title, description: "", ...scopeField(scope, true) })),
      products,
      toppingsCategories,
    },
  };
}

// ---- route table -----------------------------------------------------------------------------------

/**
 * The four routes of one kind of schedule (docs/platform-api.md §2.5): GET, POST, PUT and DELETE of a detail.
 */
interface ScheduleRouteNames {
  get: RouteName;
  post: RouteName;
  put: RouteName;
  delete: RouteName;
}

/** GET, POST, PUT of a schedule and DELETE of one of its details (docs/platform-api.md §2.5). */
function scheduleRoutes(names: ScheduleRouteNames, via: Via, target: TargetOf): Route[] {
  return [
    { route: names.get, handle: getSchedule(via, target) },
    { route: names.post, handle: postSchedule(via, target) },
    { route: names.put, handle: putSchedule(via, target) },
    { route: names.delete, handle: deleteSchedule(via, target) },
  ];
}

const routes: Route[] = [
  { route: "GET /api/rest-ops-utils/corridor/store/{storeId}", handle: listCorridors("store") },
  {
    route: "GET /api/rest-ops-utils/corridor/integration/{integrationId}",
    handle: listCorridors("integration"),
  },
  ...scheduleRoutes(
    {
      get: "GET /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}",
      post: "POST /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}",
      put: "PUT /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}",
      delete:
        "DELETE /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}/{corridorProductScheduleId}",
    },
    "store",
    corridorTarget,
  ),
  ...scheduleRoutes(
    {
      get: "GET /api/rest-ops-utils/corridor/schedule/{corridorId}/integration/{integrationId}",
      post: "POST /api/rest-ops-utils/corridor/schedule/{corridorId}/integration/{integrationId}",
      put: "PUT /api/rest-ops-utils/corridor/schedule/{corridorId}/integration/{integrationId}",
      delete:
        "DELETE /api/rest-ops-utils/corridor/schedule/{corridorId}/integration/{integrationId}/{corridorProductScheduleId}",
    },
    "integration",
    corridorTarget,
  ),
  {
    route: "GET /api/rest-ops-utils/product/corridor/{corridorId}/store/{storeId}",
    handle: listProducts("store", false),
  },
  ...scheduleRoutes(
    {
      get: "GET /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}",
      post: "POST /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}",
      put: "PUT /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}",
      delete:
        "DELETE /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}/{corridorProductScheduleId}",
    },
    "store",
    productTarget(false),
  ),
  {
    route: "GET /api/rest-ops-utils/sku/corridor/{corridorId}/integration/{integrationId}",
    handle: listProducts("integration", true),
  },
  ...scheduleRoutes(
    {
      get: "GET /api/rest-ops-utils/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}",
      post: "POST /api/rest-ops-utils/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}",
      put: "PUT /api/rest-ops-utils/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}",
      delete:
        "DELETE /api/rest-ops-utils/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}/{corridorProductScheduleId}",
    },
    "integration",
    productTarget(true),
  ),
  { route: "GET /api/rest-ops-utils/menu/integration/{integrationId}", handle: menuStatus },
  ...hoursRoutes(),
];

/**
 * Every route of the utils group (docs/platform-api.md §2.5) with the exact paths, store hours included, each
 * with the deprecation headers.
 */
export const utilsRoutes: Route[] = routes.map(deprecated);
