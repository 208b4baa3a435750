/**
 * Legacy bulk availability of the emulator (docs/platform-api.md §2.2, prefix
 * `/restaurants/menu/v1/stores/{storeId}`; docs/platform-api.md §4.4): stock of products, toppings and items
 * by platform id (`PLATFORM`) or merchant SKU (`SKU`). Integrations token.
 *
 * One store state: the stock state IS `suspension_info.is_available` of the catalog items, the same state
 * availability v2 (item-availability.ts) reads and writes. What each resource addresses (emulator's reading
 * of docs/platform-api.md §2.2 "items = products and toppings"):
 * - `products`: ITEMs that are in at least one category (sold as products);
 * - `toppings`: ITEMs that are options of at least one MODIFIER_GROUP;
 * - `items`: every ITEM of the catalog (products, toppings, and ITEMs that are neither yet).
 * MODIFIER_GROUPs have no stock. An identifier that does not name an item of the resource is "unknown".
 *
 * - `PATCH .../stock` `{available: [...], unavailable: [...]}` (both required arrays of strings) → 200
 *   `{"message": "Your request has been accepted"}` (no final period, docs/platform-api.md §4.10), applied
 *   after the delay like every write (docs/platform-api.md §4.9); unknown identifiers are ignored (the answer
 *   only acknowledges acceptance, docs/platform-api.md §4.9); an identifier in both lists ends unavailable.
 * - `POST .../stock/status` `{"products": [...]}` / `{"toppings": [...]}` / `{"items": [...]}`
 *   (docs/platform-api.md §4.4) → `[{item_id, item_sku, item_type, stock_out_state}]` from the visible
 *   catalog, one entry per distinct identifier asked, in order. `item_type` is the resource asked (`PRODUCT`,
 *   `TOPPING`, `ITEM`). An unknown identifier is left out (docs/platform-api.md §4.4 types `item_id` integer
 *   and `item_sku` string: a record of an item the platform does not know has neither).
 * - `identityType` other than `PLATFORM` or `SKU`: 400. No batch limit is published for these calls
 *   (docs/platform-api.md §4.11), none is enforced.
 * Bodies are checked by server.ts against the route's schema (identifiers are strings, also for
 * `PLATFORM`); the handlers keep the path's identity type and the store rules.
 */

import type { StockPatch, StockStatus } from "../generated/platform.js";
import type { RouteName } from "../platform/routes.js";
import { badShape } from "./http.js";
import type { Reply, Route, RouteContext } from "./http.js";
import { availableAt, toggled, type Catalog, type ItemRec } from "./state.js";

/**
 * The answer text of the stock PATCH: the accepted message WITHOUT its final period
 * (docs/platform-api.md §4.10).
 */
export const STOCK_ACCEPTED_MESSAGE = "Your request has been accepted";

/**
 * Resources of the legacy API (docs/platform-api.md §2.2) and the `item_type` each answers
 * (docs/platform-api.md §4.4).
 */
const RESOURCES = {
  products: "PRODUCT",
  toppings: "TOPPING",
  items: "ITEM",
} as const;
type Resource = keyof typeof RESOURCES;

/** Stock status record of the legacy API (docs/platform-api.md §4.4; schema `availability#StockStatus`). */
export type LegacyStockStatus = StockStatus;

type Identity = "PLATFORM" | "SKU";

function identityOf(ctx: RouteContext): Identity {
  const t = ctx.params.identityType;
  if (t !== "PLATFORM" && t !== "SKU") {
    throw badShape(`identityType must be PLATFORM or SKU, not "${t ?? ""}"`);
  }
  return t;
}

/** Ids of the ITEMs a resource addresses in a catalog. */
function members(cat: Catalog, res: Resource): (item: ItemRec) => boolean {
  if (res === "items") return (it) => it.item_type === "ITEM";
  const ids = new Set<number>();
  if (res === "products") {
    for (const c of cat.categories.values()) for (const r of c.items) ids.add(r.id);
  } else {
    for (const g of cat.items.values()) {
      if (g.item_type === "MODIFIER_GROUP") for (const r of g.children) ids.add(r.id);
    }
  }
  return (it) => it.item_type === "ITEM" && ids.has(it.id);
}

/** The item an identifier names, if it is one of the resource's. */
function resolve(
  cat: Catalog,
  identity: Identity,
  isMember: (it: ItemRec) => boolean,
  v: string,
): ItemRec | undefined {
  const id = identity === "SKU" ? cat.itemSku.get(v) : /^\d{1,15}$/.test(v) ? Number(v) : undefined;
  const it = id === undefined ? undefined : cat.items.get(id);
  return it && isMember(it) ? it : undefined;
}

/** `PATCH /{resource}/{identityType}/stock` (docs/platform-api.md §2.2, §4.9). */
function patchStock(res: Resource) {
  return (ctx: RouteContext): Reply => {
    const store = ctx.state.storeForClient(ctx.params.storeId!, ctx.clientId);
    const identity = identityOf(ctx);
    const { available: on, unavailable: off } = ctx.body as StockPatch;
    const cat = store.projected;
    const isMember = members(cat, res);
    const ids = (list: string[]): number[] =>
      list.flatMap((v) => {
        const it = resolve(cat, identity, isMember, v);
        return it ? [it.id] : [];
      });
    const onIds = ids(on);
    const offIds = ids(off);
    ctx.state.accept(
      store,
      (c) => {
        const set = (id: number, available: boolean): void => {
          const rec = c.items.get(id);
          const next = rec && toggled(rec, available);
          if (next) c.items.set(id, next);
        };
        for (const id of onIds) set(id, true);
        for (const id of offIds) set(id, false);
      },
      "stock",
    );
    return { status: 200, body: { message: STOCK_ACCEPTED_MESSAGE } };
  };
}

/** `POST /{resource}/{identityType}/stock/status` (docs/platform-api.md §2.2, §4.4). */
function stockStatus(res: Resource) {
  return (ctx: RouteContext): Reply => {
    const store = ctx.state.storeForClient(ctx.params.storeId!, ctx.clientId);
    const identity = identityOf(ctx);
    // `{products|toppings|items: [...]}`, the field named after the resource (the route's schema).
    const asked = (ctx.body as Record<Resource, string[]>)[res];
    const cat = store.visible;
    const isMember = members(cat, res);
    const item_type = RESOURCES[res];
    const out: LegacyStockStatus[] = [];
    for (const v of new Set(asked)) {
      const it = resolve(cat, identity, isMember, v);
      if (it) {
        out.push({
          item_id: it.id,
          item_sku: it.sku,
          item_type,
          stock_out_state: availableAt(it) ? "AVAILABLE" : "UNAVAILABLE",
        });
      }
      // An unknown identifier is left out: docs/platform-api.md §4.4 types item_id integer and item_sku
      // string, so a record without them cannot be written (as the v2 status reads do).
    }
    return { status: 200, body: out };
  };
}

/** The two routes of each resource (docs/platform-api.md §2.2). */
const RESOURCE_ROUTES = {
  products: {
    stock: "PATCH /restaurants/menu/v1/stores/{storeId}/products/{identityType}/stock",
    status: "POST /restaurants/menu/v1/stores/{storeId}/products/{identityType}/stock/status",
  },
  toppings: {
    stock: "PATCH /restaurants/menu/v1/stores/{storeId}/toppings/{identityType}/stock",
    status: "POST /restaurants/menu/v1/stores/{storeId}/toppings/{identityType}/stock/status",
  },
  items: {
    stock: "PATCH /restaurants/menu/v1/stores/{storeId}/items/{identityType}/stock",
    status: "POST /restaurants/menu/v1/stores/{storeId}/items/{identityType}/stock/status",
  },
} as const satisfies Record<Resource, { stock: RouteName; status: RouteName }>;

/** Routes of the legacy bulk availability API (docs/platform-api.md §2.2). All need an integrations token. */
export const legacyRoutes: Route[] = (Object.keys(RESOURCES) as Resource[]).flatMap((res): Route[] => [
  { route: RESOURCE_ROUTES[res].stock, handle: patchStock(res) },
  { route: RESOURCE_ROUTES[res].status, handle: stockStatus(res) },
]);
