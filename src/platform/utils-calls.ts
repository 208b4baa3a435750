/**
 * Typed calls of the utils group (docs/platform-api.md §2.5, prefix `/api/rest-ops-utils`, scheduled for
 * removal, §4.12): store hours (regular, holiday and special days, docs/platform-api.md §4.7) and corridor
 * and product schedules by store id (docs/platform-api.md §4.6). Every call needs a utils token, which {@link
 * PlatformClient.request} takes from the route table (routes.ts; docs/platform-api.md §4.2).
 *
 * Wire facts:
 * - times are `HH:mm:ss` (docs/platform-api.md §4.6, §4.7);
 * - `GET /store/schedule/{storeId}` → `{storeScheduleDays: [{day, storeSchedules: [{id, startsTime,
 *   endsTime}]}]}`; `GET .../holiday` and `.../special` → `{storeSpecialScheduleDays: [{id, name, month,
 *   day, cityId, storeSchedules}]}` (docs/platform-api.md §4.7);
 * - corridor and product schedules carry `schedule_details: [{id, days, starts_time, ends_time}]`
 *   (docs/platform-api.md §4.6).
 */

import type {
  CorridorByStore,
  CorridorScheduleByStore,
  ProductByStore,
  ProductScheduleByStore,
  RegularHours,
  SpecialDays,
} from "../generated/platform.js";
import type { PlatformClient } from "./client.js";

/** `GET /store/schedule/{storeId}`: regular hours (docs/platform-api.md §4.7). */
export function getRegularHours(client: PlatformClient, storeId: string): Promise<RegularHours> {
  return client.request("GET /api/rest-ops-utils/store/schedule/{storeId}", { storeId });
}

/**
 * `GET /store/schedule/{storeId}/holiday`: the platform's holiday days and their slots
 * (docs/platform-api.md §4.7).
 */
export function getHolidays(client: PlatformClient, storeId: string): Promise<SpecialDays> {
  return client.request("GET /api/rest-ops-utils/store/schedule/{storeId}/holiday", { storeId });
}

/**
 * `GET /store/schedule/{storeId}/special`: the store's special days and their slots
 * (docs/platform-api.md §4.7).
 */
export function getSpecialDays(client: PlatformClient, storeId: string): Promise<SpecialDays> {
  return client.request("GET /api/rest-ops-utils/store/schedule/{storeId}/special", { storeId });
}

/** `GET /corridor/store/{storeId}`: the corridors (categories) of a store (docs/platform-api.md §4.6). */
export function getCorridors(client: PlatformClient, storeId: string): Promise<CorridorByStore[]> {
  return client.request("GET /api/rest-ops-utils/corridor/store/{storeId}", { storeId });
}

/** `GET /corridor/schedule/{corridorId}/store/{storeId}` (docs/platform-api.md §4.6). */
export function getCorridorSchedule(
  client: PlatformClient,
  corridorId: number,
  storeId: string,
): Promise<CorridorScheduleByStore> {
  return client.request("GET /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}", {
    corridorId,
    storeId,
  });
}

/**
 * `GET /product/corridor/{corridorId}/store/{storeId}`: the products of a corridor
 * (docs/platform-api.md §4.6).
 */
export function getProducts(
  client: PlatformClient,
  corridorId: number,
  storeId: string,
): Promise<ProductByStore[]> {
  return client.request("GET /api/rest-ops-utils/product/corridor/{corridorId}/store/{storeId}", {
    corridorId,
    storeId,
  });
}

/** `GET /product/schedule/{productId}/corridor/{corridorId}/store/{storeId}` (docs/platform-api.md §4.6). */
export function getProductSchedule(
  client: PlatformClient,
  productId: number,
  corridorId: number,
  storeId: string,
): Promise<ProductScheduleByStore> {
  return client.request(
    "GET /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}",
    { productId, corridorId, storeId },
  );
}
