/**
 * Import of item availability (the `availability` kind): the ITEMs carte switched off in a store (its
 * marker is on them, docs/platform-api.md "Who switched an item off") are written to its file as
 * `availability.unavailable`. Items switched on need nothing: that is how the platform creates them.
 * Items switched off by someone else (no marker) are not written either: the default `additive`
 * ownership leaves unlisted items alone, so they stay off and staff keep them; listing them would make
 * carte take them over (a listed item is marked as carte's), which an import must not do unasked.
 */

import { own, type StoreState } from "../model.js";
import { parseInstant } from "../time/clock.js";
import type { KindImportPart, Note, StorePart } from "./import-types.js";
import { byCodePoint } from "./import-values.js";
import { availabilityOf, itemAvailabilityState, itemsOf, type AvailabilityState } from "./catalog.js";

/**
 * Keeps only the switched-off SKUs that are ITEMs of the store (the others cannot be written) and that
 * carte switched off (the others stay staff's, see the module comment).
 */
export function sanitizeAvailability(state: StoreState, _note: Note): void {
  // Availability is read from the items themselves, so an item dropped by the items part drops its
  // availability with it; the loss is already noted there.
  const off = itemAvailabilityState.get(state);
  if (!off) return;
  off.unavailable = off.unavailable
    .filter((sku) => own(itemsOf(state), sku)?.type === "ITEM" && own(off.suspensions, sku)?.byCarte === true)
    .sort(byCodePoint);
  if (off.suspensions === undefined) return;
  const kept = Object.create(null) as NonNullable<AvailabilityState["suspensions"]>;
  for (const sku of off.unavailable) {
    const s = own(off.suspensions, sku);
    if (s !== undefined) kept[sku] = s;
  }
  off.suspensions = kept;
}

/**
 * An `unavailable:` entry: the SKU, or `{sku, until}` when the platform switches the item back on at a
 * time (`suspension_info.suspend_until`) that is written as the files take it (ISO 8601 with offset).
 */
function entry(state: StoreState, sku: string): string | { sku: string; until: string } {
  const until = own(availabilityOf(state).suspensions, sku)?.until;
  return until !== undefined && parseInstant(until).ok ? { sku, until } : sku;
}

/** The store part of item availability. */
export const availabilityStore: StorePart = {
  name: "availability",
  sections(state) {
    const { unavailable } = availabilityOf(state);
    return unavailable.length > 0
      ? { availability: { unavailable: unavailable.map((sku) => entry(state, sku)) } }
      : undefined;
  },
};

/** The import part of the `availability` kind. */
export const availabilityPart: KindImportPart = {
  sanitize: sanitizeAvailability,
  store: availabilityStore,
};
