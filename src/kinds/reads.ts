/**
 * Reads that several kinds share. `GET /restaurants/menu/v1/stores/{storeId}/store-menu`
 * (docs/platform-api.md §2.4) answers a store's items, modifier groups, categories, menus and item
 * availability in one call: the items, categories, menus, item availability and utils schedule kinds all list
 * this one read, and the reader makes the call once per store whichever of them are managed there; each of
 * the first four then fills its own state from the answer (src/kinds/catalog.ts), and the utils schedule
 * kinds map the utils group's ids to SKUs through it.
 */

import type { RawAnswer } from "../platform/client.js";
import type { WireStoreMenu } from "../platform/wire.js";
import { perStoreRead } from "./resource-kind.js";

/**
 * `GET /store-menu` of each store (docs/platform-api.md §4.3 StoreMenu, §2.4). The answer (hundreds of KB for
 * a big catalog) is taken as received and parsed and checked against its schema after the call's slot is
 * released.
 */
export const storeMenuRead = perStoreRead<WireStoreMenu, RawAnswer>(
  "menu",
  (client, s) =>
    client.fetchAnswer("GET /restaurants/menu/v1/stores/{storeId}/store-menu", { storeId: s.storeId }),
  (answer, client) => client.decode<WireStoreMenu>(answer),
);
