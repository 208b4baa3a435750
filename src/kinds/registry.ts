/**
 * The registry of resource kinds, in planning order. Adding a kind means writing its module and
 * listing it here; the planner, the renderers and the reader need no change.
 */

import { availability } from "./availability.js";
import { categories } from "./categories.js";
import { clientWebhooks } from "./client-webhooks.js";
import { holidays } from "./holidays.js";
import { items } from "./items.js";
import { menus } from "./menus.js";
import { specialDays } from "./special-days.js";
import { storeAvailability } from "./store-availability.js";
import { storeHours } from "./store-hours.js";
import type { ClientKind, ResourceKind } from "./types.js";
import { corridorSchedules, productSchedules } from "./utils-schedules.js";
import { webhooks } from "./webhooks.js";

/** Every resource kind carte manages. */
export const kinds: readonly ResourceKind<unknown>[] = [
  items as ResourceKind<unknown>,
  categories as ResourceKind<unknown>,
  menus as ResourceKind<unknown>,
  availability as ResourceKind<unknown>,
  webhooks as ResourceKind<unknown>,
  // Store settings (src/kinds/slots.ts has their stages). The utils schedules read after the items and
  // categories kinds, whose normalized resources they complete.
  storeHours as ResourceKind<unknown>,
  holidays as ResourceKind<unknown>,
  specialDays as ResourceKind<unknown>,
  corridorSchedules as ResourceKind<unknown>,
  productSchedules as ResourceKind<unknown>,
  storeAvailability as ResourceKind<unknown>,
];

/** Every client-level kind carte manages. */
export const clientKinds: readonly ClientKind<unknown>[] = [clientWebhooks as ClientKind<unknown>];

/** A resource kind by name (`modifier_group` resolves to the items kind). */
export function kindNamed(name: string): ResourceKind<unknown> | undefined {
  const n = name === "modifier_group" ? "item" : name;
  return kinds.find((k) => k.name === n);
}
