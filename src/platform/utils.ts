/**
 * Typed calls of the utils group (spec §4.5, prefix `/api/rest-ops-utils`, scheduled for removal, §9):
 * store hours (regular, holiday and special days, spec §2.6) and corridor and product schedules by
 * store id (spec §2.5). Every call needs a utils token, which {@link PlatformClient.call} picks by the
 * path prefix (platform notes "Authentication").
 *
 * The paths are built here, and only here, so that the resource kinds' endpoints (src/kinds/) and these
 * reads agree. Wire facts:
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

/** Prefix of the utils group (spec §4.5). */
export const UTILS_PREFIX = "/api/rest-ops-utils";

const seg = (v: string | number) => encodeURIComponent(String(v));

/** Paths of the utils group (spec §4.5), relative to the base address. */
export const UtilsPaths = {
  /** `GET` regular hours, `POST` a regular slot `{day, starts_time, ends_time}`. */
  regular: (storeId: string) => `${UTILS_PREFIX}/store/schedule/${seg(storeId)}`,
  /** `PUT` / `DELETE` one slot of any kind (regular, holiday, special) by its id. */
  slot: (storeId: string, slotId: string | number) =>
    `${UTILS_PREFIX}/store/schedule/${seg(storeId)}/${seg(slotId)}`,
  /** `GET` the holiday days with their slots. */
  holidays: (storeId: string) => `${UTILS_PREFIX}/store/schedule/${seg(storeId)}/holiday`,
  /** `POST` slots (an array) on one holiday day. */
  holidaySlots: (storeId: string, holidayDayId: string | number) =>
    `${UTILS_PREFIX}/store/schedule/${seg(storeId)}/holiday/${seg(holidayDayId)}`,
  /** `GET` the special days, `POST` a special day `{day, month, name, schedules}`. */
  special: (storeId: string) => `${UTILS_PREFIX}/store/schedule/${seg(storeId)}/special`,
  /** `POST` slots on one special day; `DELETE` the special day. */
  specialDay: (storeId: string, specialDayId: string | number) =>
    `${UTILS_PREFIX}/store/schedule/${seg(storeId)}/special/${seg(specialDayId)}`,
  /** `GET` the corridors of a store. */
  corridors: (storeId: string) => `${UTILS_PREFIX}/corridor/store/${seg(storeId)}`,
  /** `GET` / `POST` / `PUT` a corridor schedule. */
  corridorSchedule: (corridorId: string | number, storeId: string) =>
    `${UTILS_PREFIX}/corridor/schedule/${seg(corridorId)}/store/${seg(storeId)}`,
  /** `GET` the products of a corridor. */
  products: (corridorId: string | number, storeId: string) =>
    `${UTILS_PREFIX}/product/corridor/${seg(corridorId)}/store/${seg(storeId)}`,
  /** `GET` / `POST` / `PUT` a product schedule. */
  productSchedule: (productId: string | number, corridorId: string | number, storeId: string) =>
    `${UTILS_PREFIX}/product/schedule/${seg(productId)}/corridor/${seg(corridorId)}/store/${seg(storeId)}`,
} as const;

/** `GET /store/schedule/{storeId}`: regular hours (spec §2.6). */
export function getRegularHours(client: PlatformClient, storeId: string): Promise<RegularHours> {
  return client.call("GET", UtilsPaths.regular(storeId));
}

/** `GET /store/schedule/{storeId}/holiday`: the platform's holiday days and their slots (spec §2.6). */
export function getHolidays(client: PlatformClient, storeId: string): Promise<SpecialDays> {
  return client.call("GET", UtilsPaths.holidays(storeId));
}

/** `GET /store/schedule/{storeId}/special`: the store's special days and their slots (spec §2.6). */
export function getSpecialDays(client: PlatformClient, storeId: string): Promise<SpecialDays> {
  return client.call("GET", UtilsPaths.special(storeId));
}

/** `GET /corridor/store/{storeId}`: the corridors (categories) of a store (spec §2.5). */
export function getCorridors(client: PlatformClient, storeId: string): Promise<CorridorByStore[]> {
  return client.call("GET", UtilsPaths.corridors(storeId));
}

/** `GET /corridor/schedule/{corridorId}/store/{storeId}` (spec §2.5). */
export function getCorridorSchedule(
  client: PlatformClient,
  corridorId: number,
  storeId: string,
): Promise<CorridorScheduleByStore> {
  return client.call("GET", UtilsPaths.corridorSchedule(corridorId, storeId));
}

/** `GET /product/corridor/{corridorId}/store/{storeId}`: the products of a corridor (spec §2.5). */
export function getProducts(
  client: PlatformClient,
  corridorId: number,
  storeId: string,
): Promise<ProductByStore[]> {
  return client.call("GET", UtilsPaths.products(corridorId, storeId));
}

/** `GET /product/schedule/{productId}/corridor/{corridorId}/store/{storeId}` (spec §2.5). */
export function getProductSchedule(
  client: PlatformClient,
  productId: number,
  corridorId: number,
  storeId: string,
): Promise<ProductScheduleByStore> {
  return client.call("GET", UtilsPaths.productSchedule(productId, corridorId, storeId));
}
