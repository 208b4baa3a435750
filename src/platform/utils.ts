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
import { routePath } from "./routes.js";

/**
 * Paths of the utils group (spec §4.5), relative to the base address, filled from the route table.
 * @deprecated name the route and use `routePath` (routes.ts) or `client.request`.
 */
export const UtilsPaths = {
  /** `GET` regular hours, `POST` a regular slot `{day, starts_time, ends_time}`. */
  regular: (storeId: string) => routePath("GET /api/rest-ops-utils/store/schedule/{storeId}", { storeId }),
  /** `PUT` / `DELETE` one slot of any kind (regular, holiday, special) by its id. */
  slot: (storeId: string, slotId: string | number) =>
    routePath("PUT /api/rest-ops-utils/store/schedule/{storeId}/{storeScheduleId}", {
      storeId,
      storeScheduleId: slotId,
    }),
  /** `GET` the holiday days with their slots. */
  holidays: (storeId: string) =>
    routePath("GET /api/rest-ops-utils/store/schedule/{storeId}/holiday", { storeId }),
  /** `POST` slots (an array) on one holiday day. */
  holidaySlots: (storeId: string, holidayDayId: string | number) =>
    routePath("POST /api/rest-ops-utils/store/schedule/{storeId}/holiday/{holidayDayId}", {
      storeId,
      holidayDayId,
    }),
  /** `GET` the special days, `POST` a special day `{day, month, name, schedules}`. */
  special: (storeId: string) =>
    routePath("GET /api/rest-ops-utils/store/schedule/{storeId}/special", { storeId }),
  /** `POST` slots on one special day; `DELETE` the special day. */
  specialDay: (storeId: string, specialDayId: string | number) =>
    routePath("POST /api/rest-ops-utils/store/schedule/{storeId}/special/{specialDayId}", {
      storeId,
      specialDayId,
    }),
  /** `GET` the corridors of a store. */
  corridors: (storeId: string) => routePath("GET /api/rest-ops-utils/corridor/store/{storeId}", { storeId }),
  /** `GET` / `POST` / `PUT` a corridor schedule. */
  corridorSchedule: (corridorId: string | number, storeId: string) =>
    routePath("GET /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}", {
      corridorId,
      storeId,
    }),
  /** `GET` the products of a corridor. */
  products: (corridorId: string | number, storeId: string) =>
    routePath("GET /api/rest-ops-utils/product/corridor/{corridorId}/store/{storeId}", {
      corridorId,
      storeId,
    }),
  /** `GET` / `POST` / `PUT` a product schedule. */
  productSchedule: (productId: string | number, corridorId: string | number, storeId: string) =>
    routePath("GET /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}", {
      productId,
      corridorId,
      storeId,
    }),
} as const;

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
