/**
 * Item availability, v2 API of the emulator (docs/platform-api.md §2.3, prefix
 * `/api/v2/restaurants-integrations-public-api`). Toggles set `suspension_info.is_available` of catalog
 * items, asynchronously like every write (docs/platform-api.md §4.9: "asynchronous").
 */

import { Limits } from "../platform/wire.js";
import type { ItemStatusRequest, StoreItemsToggle, StoreItemsTogglePlatform } from "../generated/platform.js";
import type { ItemStatus } from "../platform/wire.js";
import { HttpError, accepted, badShape, fail, isPosInt } from "./http.js";
import type { Reply, Route, RouteContext } from "./http.js";
import { availableAt, toggled, type ItemRec, type StoreRec } from "./state.js";

/**
 * The one failure answer of `PUT /availability/stores/items[/platform]`: 400 with an ARRAY body
 * `[{"message": "Error updating items"}]` (docs/platform-api.md §4.10). Served for a malformed
 * body, more than 100 items in total (docs/platform-api.md §4.11), an unknown store or an unknown item.
 */
function updateError(): HttpError {
  return new HttpError(400, [{ message: "Error updating items" }]);
}

/**
 * The store of a status read. `store_id` is the platform store id (docs/platform-api.md §2.3); the client's
 * integration id is accepted too (emulator's leniency). Unknown: 404; another client's: 400
 * (docs/platform-api.md §4.2).
 */
function statusStore(ctx: RouteContext, id: string): StoreRec {
  if (!/^\d+$/.test(id)) {
    const s = ctx.state.storeByIntegrationId(id, ctx.clientId);
    if (!s) throw fail(404, `Store ${id} not found`);
    return s;
  }
  return ctx.state.storeForClient(id, ctx.clientId);
}

function statusOf(r: ItemRec): ItemStatus {
  return { item_id: r.id, item_type: "ITEM", stock_out_state: availableAt(r) ? "AVAILABLE" : "UNAVAILABLE" };
}

/**
 * `POST /availability/items/status` (`by: "sku"`) and `/availability/items/platform/status`
 * (`by: "id"`): `{store_id, item_ids}` (an `availability#ItemStatusRequest`, checked by server.ts) →
 * `[{item_id, item_type, stock_out_state}]` from the visible catalog, in the order asked; unknown
 * identifiers are omitted. The one shared schema takes any strings: that a platform id is a number is
 * checked here.
 */
function itemStatus(by: "sku" | "id") {
  return (ctx: RouteContext): Reply => {
    const body = ctx.body as ItemStatusRequest;
    const store = statusStore(ctx, body.store_id);
    const cat = store.visible;
    const out: ItemStatus[] = [];
    const seen = new Set<number>();
    body.item_ids.forEach((v, i) => {
      let rec: ItemRec | undefined;
      if (by === "sku") {
        const id = cat.itemSku.get(v);
        rec = id === undefined ? undefined : cat.items.get(id);
      } else {
        const n = /^\d+$/.test(v) ? Number(v) : NaN;
        if (!isPosInt(n)) throw badShape(`item_ids[${i}] must be a platform item id`);
        rec = cat.items.get(n);
      }
      if (rec && !seen.has(rec.id)) {
        seen.add(rec.id);
        out.push(statusOf(rec));
      }
    });
    return { status: 200, body: out };
  };
}

/**
 * `PUT /availability/stores/items` (`by: "sku"`, SKUs as strings) and `/availability/stores/items/platform`
 * (`by: "id"`, integer ids): body `[{store_integration_id, items: {turn_on?, turn_off?}}]`
 * (docs/platform-api.md §2.3; shape checked by server.ts against the route's schema). Stores are looked up by
 * integration id among the client's stores. Validated against the projected catalog (unknown store or item,
 * more than 100 items in all: the one failure answer); applied after the delay; `turn_off` wins over
 * `turn_on` for the same item. Either list clears the item's `suspend_until` and `suspend_reason` (state.ts
 * `toggled`).
 */
function toggleItems(by: "sku" | "id") {
  return (ctx: RouteContext): Reply => {
    const body = ctx.body as (StoreItemsToggle | StoreItemsTogglePlatform)[];
    let total = 0;
    const plan: { store: StoreRec; on: number[]; off: number[] }[] = [];
    for (const entry of body) {
      const store = ctx.state.storeByIntegrationId(entry.store_integration_id, ctx.clientId);
      if (!store) throw updateError();
      const cat = store.projected;
      const resolve = (list: (string | number)[] | undefined): number[] => {
        if (list === undefined) return [];
        total += list.length;
        if (total > Limits.availabilityItemsPerCall) throw updateError();
        return list.map((v) => {
          const id = by === "sku" ? cat.itemSku.get(v as string) : (v as number);
          if (id === undefined || !cat.items.has(id)) throw updateError();
          return id;
        });
      };
      plan.push({ store, on: resolve(entry.items.turn_on), off: resolve(entry.items.turn_off) });
    }
    for (const p of plan) {
      ctx.state.accept(p.store, (cat) => {
        const set = (id: number, available: boolean): void => {
          const rec = cat.items.get(id);
          const next = rec && toggled(rec, available);
          if (next) cat.items.set(id, next);
        };
        for (const id of p.on) set(id, true);
        for (const id of p.off) set(id, false);
      });
    }
    return accepted();
  };
}

/** Routes of item availability v2 (docs/platform-api.md §2.3). All need an integrations token. */
export const availabilityRoutes: Route[] = [
  {
    route: "POST /api/v2/restaurants-integrations-public-api/availability/items/status",
    handle: itemStatus("sku"),
  },
  {
    route: "POST /api/v2/restaurants-integrations-public-api/availability/items/platform/status",
    handle: itemStatus("id"),
  },
  {
    route: "PUT /api/v2/restaurants-integrations-public-api/availability/stores/items",
    handle: toggleItems("sku"),
    invalidRequest: updateError,
  },
  {
    route: "PUT /api/v2/restaurants-integrations-public-api/availability/stores/items/platform",
    handle: toggleItems("id"),
    invalidRequest: updateError,
  },
];
