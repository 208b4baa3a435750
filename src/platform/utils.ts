/**
 * Typed calls of the utils group (spec §4.5, prefix `/api/rest-ops-utils`, scheduled for removal, §9):
 * store hours (regular, holiday and special days, spec §2.6) and corridor and product schedules by
 * store id (spec §2.5). Every call needs a utils token, which {@link PlatformClient.request} takes from
 * the route table (routes.ts; platform notes "Authentication").
 *
 * Wire facts:
 * - times are `HH:mm:ss` (spec §2.5, §2.6);
 * - `GET /store/schedule/{storeId}` → `{storeScheduleDays: [{day, storeSchedules: [{id, startsTime,
 *   endsTime}]}]}`; `GET .../holiday` and `.../special` → `{storeSpecialScheduleDays: [{id, name, month,
 *   day, cityId, storeSchedules}]}` (platform notes "Utils");
 * - corridor and product schedules carry `schedule_details: [{id, days, starts_time, ends_time}]`
 *   (spec §2.5).
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

/** `GET /store/schedule/{storeId}`: regular hours (spec §2.6). */
export function getRegularHours(client: PlatformClient, storeId: string): Promise<RegularHours> {
  return client.request("GET /api/rest-ops-utils/store/schedule/{storeId}", { storeId });
}

/** `GET /store/schedule/{storeId}/holiday`: the platform's holiday days and their slots (spec §2.6). */
export function getHolidays(client: PlatformClient, storeId: string): Promise<SpecialDays> {
  return client.request("GET /api/rest-ops-utils/store/schedule/{storeId}/holiday", { storeId });
}

/** `GET /store/schedule/{storeId}/special`: the store's special days and their slots (spec §2.6). */
export function getSpecialDays(client: PlatformClient, storeId: string): Promise<SpecialDays> {
  return client.request("GET /api/rest-ops-utils/store/schedule/{storeId}/special", { storeId });
}

/** `GET /corridor/store/{storeId}`: the corridors (categories) of a store (spec §2.5). */
export function getCorridors(client: PlatformClient, storeId: string): Promise<CorridorByStore[]> {
  return client.request("GET /api/rest-ops-utils/corridor/store/{storeId}", { storeId });
}

/** `GET /corridor/schedule/{corridorId}/store/{storeId}` (spec §2.5). */
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

/** `GET /product/corridor/{corridorId}/store/{storeId}`: the products of a corridor (spec §2.5). */
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

/** `GET /product/schedule/{productId}/corridor/{corridorId}/store/{storeId}` (spec §2.5). */
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
