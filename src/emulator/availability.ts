/**
 * Item availability, v2 API of the emulator (spec §4.3, prefix
 * `/api/v2/restaurants-integrations-public-api`). Toggles set `suspension_info.is_available` of catalog
 * items, asynchronously like every write (spec §3: "asynchronous").
 */

import { Limits } from "../platform/wire.js";
import type { ItemStatus } from "../platform/wire.js";
import { HttpError, accepted, badShape, fail, isObj, isPosInt } from "./http.js";
import type { Reply, Route, RouteContext } from "./http.js";
import type { ItemRec, StoreRec } from "./state.js";

/**
 * The one failure answer of `PUT /availability/stores/items[/platform]`: 400 with an ARRAY body
 * `[{"message": "Error updating items"}]` (spec §7.2, platform notes "Errors"). Served for a malformed
 * body, more than 100 items in total (platform notes "Limits"), an unknown store or an unknown item.
 */
function updateError(): HttpError {
  return new HttpError(400, [{ message: "Error updating items" }]);
}

/**
 * The store of a status read. `store_id` is the platform store id (spec §4.3); the client's integration
 * id is accepted too (emulator's leniency). Unknown: 404; another client's: 400 (platform notes).
 */
function statusStore(ctx: RouteContext, raw: unknown): StoreRec {
  if (typeof raw !== "string" && typeof raw !== "number") throw badShape("store_id is required");
  const id = String(raw);
  if (!/^\d+$/.test(id)) {
    const s = ctx.state.storeByIntegrationId(id, ctx.clientId);
    if (!s) throw fail(404, `Store ${id} not found`);
    return s;
  }
  return ctx.state.storeForClient(id, ctx.clientId);
}

function statusOf(r: ItemRec): ItemStatus {
  return { item_id: r.id, item_type: "ITEM", stock_out_state: r.available ? "AVAILABLE" : "UNAVAILABLE" };
}

/**
 * `POST /availability/items/status` (`by: "sku"`) and `/availability/items/platform/status`
 * (`by: "id"`): `{store_id, item_ids}` → `[{item_id, item_type, stock_out_state}]` from the visible
 * catalog, in the order asked; unknown identifiers are omitted.
 */
function itemStatus(by: "sku" | "id") {
  return (ctx: RouteContext): Reply => {
    const body = ctx.body;
    if (!isObj(body)) throw badShape("body must be an object {store_id, item_ids}");
    const store = statusStore(ctx, body.store_id);
    if (!Array.isArray(body.item_ids)) throw badShape("item_ids must be an array");
    const cat = store.visible;
    const out: ItemStatus[] = [];
    const seen = new Set<number>();
    body.item_ids.forEach((v, i) => {
      let rec: ItemRec | undefined;
      if (by === "sku") {
        if (typeof v !== "string") throw badShape(`item_ids[${i}] must be a string`);
        const id = cat.itemSku.get(v);
        rec = id === undefined ? undefined : cat.items.get(id);
      } else {
        const n = typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v;
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
 * (`by: "id"`, integer ids): body `[{store_integration_id, items: {turn_on?, turn_off?}}]` (spec §4.3).
 * Stores are looked up by integration id among the client's stores. Validated against the projected
 * catalog; applied after the delay; `turn_off` wins over `turn_on` for the same item.
 */
function toggleItems(by: "sku" | "id") {
  return (ctx: RouteContext): Reply => {
    const body = ctx.body;
    if (!Array.isArray(body)) throw updateError();
    let total = 0;
    const plan: { store: StoreRec; on: number[]; off: number[] }[] = [];
    for (const entry of body) {
      if (!isObj(entry) || typeof entry.store_integration_id !== "string" || !isObj(entry.items)) {
        throw updateError();
      }
      const store = ctx.state.storeByIntegrationId(entry.store_integration_id, ctx.clientId);
      if (!store) throw updateError();
      const cat = store.projected;
      const resolve = (list: unknown): number[] => {
        if (list === undefined || list === null) return [];
        if (!Array.isArray(list)) throw updateError();
        total += list.length;
        if (total > Limits.availabilityItemsPerCall) throw updateError();
        return list.map((v) => {
          const id = by === "sku" ? (typeof v === "string" ? cat.itemSku.get(v) : undefined) : v;
          if (!isPosInt(id) || !cat.items.has(id)) throw updateError();
          return id;
        });
      };
      plan.push({ store, on: resolve(entry.items.turn_on), off: resolve(entry.items.turn_off) });
    }
    for (const p of plan) {
      ctx.state.accept(p.store, (cat) => {
        const set = (id: number, available: boolean): void => {
          const rec = cat.items.get(id);
          if (rec && rec.available !== available) cat.items.set(id, { ...rec, available });
        };
        for (const id of p.on) set(id, true);
        for (const id of p.off) set(id, false);
      });
    }
    return accepted();
  };
}

/** Routes of item availability v2 (spec §4.3). All need an integrations token. */
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
