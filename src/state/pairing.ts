/**
 * Store identity: whether the integration id a store file gives is the platform's integration id of
 * that very store. Item availability (v2) addresses stores by integration id, every other write by
 * store id (docs/platform-api.md, "Store identity"): a copy-paste slip that swaps two files' integration
 * ids would switch items off in the other store. So before any call that addresses a store by its
 * integration id, the pairing is checked against what the platform shows through both addresses:
 *
 * - `GET /api/rest-ops-utils/corridor/integration/{integrationId}`: the corridors (categories) of the
 *   store with that integration id; 404 when the client has no such store;
 * - the store's own categories by store id, from the plan's read of its menu (or, in an apply,
 *   `GET /api/rest-ops-utils/corridor/store/{storeId}`).
 *
 * Category ids are the platform's, unique across stores: one category seen through both addresses
 * proves they name one store (a child store reads its parent's catalog both ways). Neither side having
 * a category (a new store) proves nothing yet; one side having categories the other lacks proves they
 * name two stores.
 */

import { ApiError } from "../errors.js";
import type { CorridorByIntegration, CorridorByStore } from "../generated/platform.js";
import type { PlatformClient } from "../platform/client.js";

/** How many of a store's category ids a plan keeps to compare (the smallest). */
export const KEPT_CATEGORY_IDS = 4;

/** What the platform shows of one pairing of store id and integration id. */
export type PairingVerdict =
  /** One category is seen through both addresses: the integration id is the store's. */
  | { state: "verified" }
  /** Neither address shows a category yet: nothing to compare (a new store). */
  | { state: "unverifiable" }
  /** The client has no store with this integration id (404). */
  | { state: "unknown" }
  /**
   * The integration id names another store: `categoryIds` are (some of) the categories the platform
   * shows through the integration id, to name that store when the run knows it.
   */
  | { state: "mismatch"; categoryIds: number[] };

/**
 * The categories the platform shows through an integration id (docs/platform-api.md, "Store
 * identity"), or `undefined` when the client has no store with it (404 `Integration <id> not found`).
 *
 * @throws `ApiError` for any other failure of the read.
 */
export async function categoriesByIntegration(
  client: PlatformClient,
  integrationId: string,
): Promise<number[] | undefined> {
  try {
    const list = await client.request<CorridorByIntegration[]>(
      "GET /api/rest-ops-utils/corridor/integration/{integrationId}",
      { integrationId },
    );
    return list.map((c) => c.id);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

/**
 * The categories the platform shows through a store id (`GET /corridor/store/{storeId}`).
 *
 * @throws `ApiError` when the read fails.
 */
export async function categoriesByStore(client: PlatformClient, storeId: string): Promise<number[]> {
  const list = await client.request<CorridorByStore[]>("GET /api/rest-ops-utils/corridor/store/{storeId}", {
    storeId,
  });
  return list.map((c) => c.id);
}

/**
 * Reads what the platform shows of one pairing now: the categories through the store id and through
 * the integration id, compared ({@link judgePairing}). Two reads, made together.
 *
 * @throws `ApiError` when a read fails (other than a 404 for the integration id: `unknown`).
 */
export async function readPairing(
  client: PlatformClient,
  storeId: string,
  integrationId: string,
): Promise<{ verdict: PairingVerdict; byStore: number[]; byIntegration: number[] | undefined }> {
  const [byStore, byIntegration] = await Promise.all([
    categoriesByStore(client, storeId),
    categoriesByIntegration(client, integrationId),
  ]);
  return { verdict: judgePairing(byStore, byIntegration), byStore, byIntegration };
}

/**
 * Compares the categories seen through the store id with those seen through the integration id
 * (`undefined`: the integration id is unknown). Pure.
 *
 * @param byStore - category ids of the store (all, or the smallest {@link KEPT_CATEGORY_IDS}).
 * @param byIntegration - every category id the integration id shows.
 */
export function judgePairing(
  byStore: readonly number[],
  byIntegration: readonly number[] | undefined,
): PairingVerdict {
  if (byIntegration === undefined) return { state: "unknown" };
  if (byStore.length === 0 && byIntegration.length === 0) return { state: "unverifiable" };
  const seen = new Set(byIntegration);
  if (byStore.some((id) => seen.has(id))) return { state: "verified" };
  return { state: "mismatch", categoryIds: [...byIntegration].sort((a, b) => a - b).slice(0, 16) };
}

/** The smallest {@link KEPT_CATEGORY_IDS} of a store's category ids (by SKU, as read). */
export function keptCategoryIds(categories: Readonly<Record<string, number>>): number[] {
  return Object.values(categories)
    .sort((a, b) => a - b)
    .slice(0, KEPT_CATEGORY_IDS);
}
