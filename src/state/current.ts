/**
 * Reads the current state of the configured stores from the platform. Each managed kind lists the reads
 * of a store's live state it needs (`ResourceKind.reads`); every read is fetched once for the stores
 * that need it, with bounded concurrency and the fewest calls the platform allows (the read decides),
 * and each kind normalizes its resources from the snapshot.
 */

import pLimit from "p-limit";
import { clientKinds as clientRegistry, kinds as registry } from "../kinds/registry.js";
import type {
  ClientKind,
  ClientRead,
  ClientSnapshot,
  ResourceKind,
  StoreRead,
  StoreSnapshot,
} from "../kinds/types.js";
import type { KindName } from "../kinds/registry.js";
import {
  emptyIds,
  emptyStore,
  table,
  type ClientState,
  type CurrentState,
  type DesiredState,
  type Ownership,
  type StoreIdentity,
  type StoreIds,
  type StoreState,
} from "../model.js";
import type { PlatformClient } from "../platform/client.js";

/** What to read in one store: the kinds whose resources are wanted. */
export interface ReadRequest {
  store: StoreIdentity;
  kinds: readonly ResourceKind<unknown>[];
}

/**
 * Normalizes a store's snapshot into carte's state shape, with the platform ids apart. Every kind whose
 * parts the snapshot holds reads from it (some kinds build on what others read: item availability on
 * the items), whichever kinds asked for the parts.
 */
export function normalizeSnapshot(
  identity: StoreIdentity,
  snapshot: StoreSnapshot,
  kinds: readonly ResourceKind<unknown>[] = registry,
): StoreState & { ids: StoreIds } {
  const state = emptyStore(identity);
  const ids = emptyIds();
  for (const kind of kinds) {
    if (kind.reads.every((r) => snapshot[r.name] !== undefined)) kind.read(snapshot, state, ids);
  }
  return { ...state, ids };
}

/**
 * The kinds to read in each store of a desired state: those the files manage there and whose ownership
 * is not `ignore`.
 */
export function readRequests(
  desired: DesiredState,
  ownership: Partial<Record<KindName, Ownership>> = {},
  kinds: readonly ResourceKind<unknown>[] = registry,
): ReadRequest[] {
  return Object.values(desired.stores).map((s) => ({
    store: s.store,
    kinds: kinds.filter((k) => {
      const own = ownership[k.name as KindName] ?? k.defaultOwnership ?? "full";
      return own !== "ignore" && k.select(s, own) !== undefined;
    }),
  }));
}

/** The client-level kinds the files manage. */
export function clientReadKinds(
  desired: DesiredState,
  ownership: Partial<Record<KindName, Ownership>> = {},
  kinds: readonly ClientKind<unknown>[] = clientRegistry,
): ClientKind<unknown>[] {
  return kinds.filter(
    (k) =>
      (ownership[k.name as KindName] ?? k.defaultOwnership ?? "full") !== "ignore" &&
      k.select(desired.client ?? {}) !== undefined,
  );
}

/** Options of {@link fetchCurrent}. */
export interface FetchOptions {
  /** Calls in flight at once. Default 8. */
  parallelism?: number;
  /** Called as reads complete: `done` of `total` store reads. */
  onRead?: (done: number, total: number) => void;
  /** Client-level kinds to read. Default none. */
  clientKinds?: readonly ClientKind<unknown>[];
}

/** Reads the live state the requests ask for. Throws the first {@link ApiError} met. */
export async function fetchCurrent(
  client: PlatformClient,
  requests: ReadRequest[],
  options: FetchOptions = {},
): Promise<CurrentState> {
  const limit = pLimit(options.parallelism ?? 8);
  // Reads by name: kinds that share a part share one read object (a second object of the same name
  // is a bug that would fetch the part twice).
  const reads = new Map<string, StoreRead>();
  const storesByPart = new Map<string, StoreIdentity[]>();
  for (const r of requests) {
    for (const read of new Set(r.kinds.flatMap((k) => k.reads))) {
      const known = reads.get(read.name);
      if (known && known !== read) throw new Error(`two store reads are named ${read.name}`);
      reads.set(read.name, read);
      const list = storesByPart.get(read.name);
      if (list) {
        if (!list.includes(r.store)) list.push(r.store);
      } else storesByPart.set(read.name, [r.store]);
    }
  }
  const total = [...storesByPart.values()].reduce((n, l) => n + l.length, 0);
  let done = 0;
  const tick = () => options.onRead?.(++done, total);
  const snapshots = new Map<string, StoreSnapshot>(requests.map((r) => [r.store.key, {}]));
  await Promise.all(
    [...storesByPart].map(async ([part, stores]) => {
      const values = await reads.get(part)!.fetch(client, stores, limit, tick);
      for (const [key, value] of values) (snapshots.get(key) as Record<string, unknown>)[part] = value;
    }),
  );
  const out: CurrentState = { stores: table() };
  for (const r of requests) out.stores[r.store.key] = normalizeSnapshot(r.store, snapshots.get(r.store.key)!);

  const clientKinds = options.clientKinds ?? [];
  if (clientKinds.length > 0) {
    const snapshot: ClientSnapshot = {};
    const parts: ClientRead[] = [...new Set(clientKinds.flatMap((k) => k.reads))];
    await Promise.all(
      parts.map(async (p) => {
        (snapshot as Record<string, unknown>)[p.name] = await limit(() => p.fetch(client));
      }),
    );
    const state: ClientState = {};
    const ids: Record<string, Record<string, unknown>> = {};
    for (const k of clientKinds) k.read(snapshot, state, ids);
    out.client = { ...state, ids };
  }
  return out;
}
