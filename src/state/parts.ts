/**
 * How each part of a store's live state is fetched. A part is fetched only for the stores where a
 * managed kind reads it (src/state/current.ts), with the fewest calls the platform allows: one call per
 * store where the API is per store, batched calls where it takes many stores, one call for all stores
 * where the answer covers the whole client.
 */

import type { ClientReadPart, ReadPart } from "../kinds/types.js";
import type { StoreIdentity } from "../model.js";
import type { PlatformClient } from "../platform/client.js";

/** Runs an async task under the reader's concurrency bound. */
export type Limit = <T>(fn: () => Promise<T>) => Promise<T>;

/**
 * Fetches one part for some stores. Returns the part of each store by store key; calls `done(key)`
 * once per store as its part arrives (progress).
 */
export type StorePartFetcher = (
  client: PlatformClient,
  stores: StoreIdentity[],
  limit: Limit,
  done: (key: string) => void,
) => Promise<Map<string, unknown>>;

/** Fetches one part of the client's live state. */
export type ClientPartFetcher = (client: PlatformClient) => Promise<unknown>;

/** A fetcher that makes one call per store. */
export function perStore(
  fetch: (client: PlatformClient, store: StoreIdentity) => Promise<unknown>,
): StorePartFetcher {
  return async (client, stores, limit, done) => {
    const entries = await Promise.all(
      stores.map((s) =>
        limit(async () => {
          const value = await fetch(client, s);
          done(s.key);
          return [s.key, value] as const;
        }),
      ),
    );
    return new Map(entries);
  };
}

const storeFetchers: Partial<Record<ReadPart, StorePartFetcher>> = {
  // GET /store-menu: items, categories, menus and availability in one call (spec §4.4).
  menu: perStore((client, s) => client.getStoreMenu(s.storeId)),
};

const clientFetchers: Partial<Record<ClientReadPart, ClientPartFetcher>> = {};

/** Registers how a store part is fetched (called by the module that owns the part). */
export function registerStorePart(part: ReadPart, fetcher: StorePartFetcher): void {
  storeFetchers[part] = fetcher;
}

/** Registers how a client part is fetched. */
export function registerClientPart(part: ClientReadPart, fetcher: ClientPartFetcher): void {
  clientFetchers[part] = fetcher;
}

/** The fetcher of a store part. Throws when none is registered (a bug). */
export function storeFetcher(part: ReadPart): StorePartFetcher {
  const f = storeFetchers[part];
  if (!f) throw new Error(`no reader is registered for the store part ${part}`);
  return f;
}

/** The fetcher of a client part. Throws when none is registered (a bug). */
export function clientFetcher(part: ClientReadPart): ClientPartFetcher {
  const f = clientFetchers[part];
  if (!f) throw new Error(`no reader is registered for the client part ${part}`);
  return f;
}
