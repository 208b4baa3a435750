/**
 * Reads the current state of the configured stores from the platform: one `GET /store-menu` per store
 * (spec §4.4), with bounded concurrency, normalized by each kind.
 */

import pLimit from "p-limit";
import { kinds } from "../kinds/registry.js";
import {
  emptyStore,
  type CurrentState,
  type StoreIdentity,
  type StoreIds,
  type StoreState,
} from "../model.js";
import type { PlatformClient } from "../platform/client.js";
import type { WireStoreMenu } from "../platform/wire.js";

/** Normalizes a store's complete menu into carte's state shape, with the platform ids apart. */
export function normalizeStoreMenu(
  identity: StoreIdentity,
  wire: WireStoreMenu,
): StoreState & { ids: StoreIds } {
  const state = emptyStore(identity);
  const ids: StoreIds = { items: {}, categories: {}, menus: {} };
  for (const kind of kinds) kind.read(wire, state, ids);
  return { ...state, ids };
}

/** Options of {@link fetchCurrent}. */
export interface FetchOptions {
  /** Stores read at once. Default 8. */
  parallelism?: number;
  /** Called after each store is read (progress). */
  onStore?: (key: string) => void;
}

/** Reads every given store. Throws the first {@link ApiError} met. */
export async function fetchCurrent(
  client: PlatformClient,
  stores: StoreIdentity[],
  options: FetchOptions = {},
): Promise<CurrentState> {
  const limit = pLimit(options.parallelism ?? 8);
  const entries = await Promise.all(
    stores.map((s) =>
      limit(async () => {
        const wire = await client.getStoreMenu(s.storeId);
        options.onStore?.(s.key);
        return [s.key, normalizeStoreMenu(s, wire)] as const;
      }),
    ),
  );
  return { stores: Object.fromEntries(entries) };
}
