/**
 * Groups the kinds' writes into the fewest API calls: one call per store and endpoint (split only
 * where the platform limits the size of a call), and availability toggles of every store packed
 * together, at most 100 items per call (platform notes, "Limits").
 */

import type { AvailabilityToggle } from "../kinds/availability.js";
import type { StoreItemsToggle } from "../platform/wire.js";
import { Endpoints, type EndpointName } from "./endpoints.js";
import type { Operation } from "./types.js";

/** A write placed in a store, with the address of the resource it changes. */
export interface PlacedWrite {
  store: string;
  storeId: string;
  endpoint: EndpointName;
  element: unknown;
  address: string;
}

function chunk<T>(list: T[], size: number): T[][] {
  if (!Number.isFinite(size) || list.length <= size) return [list];
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** Batches writes into operations, sorted by stage, then store, then id. Pure and deterministic. */
export function batchWrites(writes: PlacedWrite[]): Operation[] {
  const ops: Operation[] = [];
  const perStore = new Map<string, PlacedWrite[]>();
  const toggles: PlacedWrite[] = [];
  for (const w of writes) {
    if (Endpoints[w.endpoint].crossStore) {
      toggles.push(w);
      continue;
    }
    const k = `${w.store}\u0000${w.endpoint}`;
    const list = perStore.get(k);
    if (list) list.push(w);
    else perStore.set(k, [w]);
  }
  for (const list of perStore.values()) {
    const first = list[0]!;
    const spec = Endpoints[first.endpoint];
    const parts = chunk(list, spec.maxElements);
    parts.forEach((part, i) => {
      ops.push({
        id: `${first.store}:${spec.name}${parts.length > 1 ? `#${i + 1}` : ""}`,
        endpoint: spec.name,
        stage: spec.stage,
        stores: [first.store],
        method: spec.method,
        path: spec.path(first.storeId),
        body: spec.body(part.map((w) => w.element)),
        idempotent: spec.idempotent(part.map((w) => w.element)),
        addresses: part.map((w) => w.address),
      });
    });
  }
  ops.push(...packToggles(toggles));
  return ops.sort((a, b) => a.stage - b.stage || a.id.localeCompare(b.id, "en"));
}

/** Packs availability toggles of many stores into `PUT /availability/stores/items` calls. */
function packToggles(writes: PlacedWrite[]): Operation[] {
  const spec = Endpoints["availability.toggle"];
  const calls: { body: StoreItemsToggle[]; stores: string[]; addresses: string[] }[] = [];
  let current: (typeof calls)[number] | undefined;
  let count = 0;
  const sorted = [...writes].sort(
    (a, b) => a.store.localeCompare(b.store) || a.address.localeCompare(b.address),
  );
  for (const w of sorted) {
    const t = w.element as AvailabilityToggle;
    if (!current || count >= spec.maxElements) {
      current = { body: [], stores: [], addresses: [] };
      calls.push(current);
      count = 0;
    }
    let entry = current.body.find((e) => e.store_integration_id === t.integrationId);
    if (!entry) {
      entry = { store_integration_id: t.integrationId, items: {} };
      current.body.push(entry);
      current.stores.push(w.store);
    }
    const list = t.on ? (entry.items.turn_on ??= []) : (entry.items.turn_off ??= []);
    list.push(t.sku);
    current.addresses.push(w.address);
    count++;
  }
  return calls.map((c, i) => ({
    id: `${spec.name}${calls.length > 1 ? `#${i + 1}` : ""}`,
    endpoint: spec.name,
    stage: spec.stage,
    stores: c.stores,
    method: spec.method,
    path: spec.path(""),
    body: c.body,
    idempotent: true,
    addresses: c.addresses,
  }));
}
