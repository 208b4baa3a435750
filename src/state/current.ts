/**
 * Reads the current state of the configured stores from the platform. Each managed kind lists the reads
 * of a store's live state it needs (`ResourceKind.reads`); every read is fetched once for the stores
 * that need it, with bounded concurrency and the fewest calls the platform allows (the read decides),
 * and each kind normalizes its resources from the snapshot.
 */

import DataLoader from "dataloader";
import { InternalError, MalformedAnswerError } from "../errors.js";
import { clientKinds as clientRegistry, kinds as registry } from "../kinds/registry.js";
import type {
  ClientKind,
  ClientRead,
  ClientSnapshot,
  Limit,
  ResourceKind,
  StoreRead,
  StoreSnapshot,
} from "../kinds/resource-kind.js";
import type { KindName } from "../kinds/registry.js";
import { Unparsed } from "../kinds/resource-kind.js";
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
import { DEFAULT_PARALLELISM, type PlatformClient } from "../platform/client.js";
import { storeOrderedLimit } from "../platform/limit.js";
import { inTurn } from "../platform/turns.js";
import { scopedKinds, type Targeting } from "../plan/target.js";

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
      // The kind's own cheap check when it has one: a select builds the whole table (every item).
      return own !== "ignore" && (k.manages ? k.manages(s) : k.select(s, own) !== undefined);
    }),
  }));
}

/**
 * The reads of a plan ("project reads"): {@link readRequests} and {@link clientReadKinds} of `desired`,
 * limited by a change scope when there is one (src/plan/target.ts `ChangeScope`, `carte plan --scope
 * changed`): each store then reads the parts of the kinds the scope lists there only (a price change
 * in one store: that store's menu), and the client-level kinds only those of `scope.client`. `desired`
 * is already limited to the stores in scope (src/run/plan-project.ts `scopeDesired`). Stores the scope lists as
 * removed are read too, with their base identity and the kinds the base managed there (`removed`).
 */
export function projectReads(
  desired: DesiredState,
  ownership: Partial<Record<KindName, Ownership>> = {},
  targeting?: Targeting,
): { requests: ReadRequest[]; clientKinds: ClientKind<unknown>[]; removed: ReadRequest[] } {
  const scoped = scopedKinds(targeting);
  const requests = readRequests(desired, ownership);
  const clientKinds = clientReadKinds(desired, ownership);
  const scope = targeting?.scope;
  if (!scoped || !scope) return { requests, clientKinds, removed: [] };
  return {
    requests: requests.map((r) => ({
      store: r.store,
      kinds: r.kinds.filter((k) => scoped.get(r.store.key)?.has(k.name) === true),
    })),
    clientKinds: clientKinds.filter((k) => scope.client.includes(k.name as KindName)),
    removed: scope.removed.map((r) => ({
      store: { key: r.store, storeId: r.storeId, integrationId: r.store, name: r.name },
      kinds: registry.filter((k) => r.kinds.includes(k.name as KindName)),
    })),
  };
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

/** Options of {@link fetchCurrent} and {@link readCurrent}. */
export interface FetchOptions {
  /** Calls in flight at once. Default {@link DEFAULT_PARALLELISM}. */
  parallelism?: number;
  /** Called as reads complete: `done` of `total` store reads. */
  onRead?: (done: number, total: number) => void;
  /** Client-level kinds to read. Default none. */
  clientKinds?: readonly ClientKind<unknown>[];
  /**
   * A bound shared with other reads (an apply's checks, src/run/store-guard.ts and src/run/verify-apply.ts), used instead of one of
   * `parallelism` calls for this read alone.
   */
  limit?: Limit;
}

/** A store's normalised current state, with its platform ids. */
export type CurrentStore = CurrentState["stores"][string];

/**
 * Reads the live state the requests ask for and hands each store over as soon as its reads are in:
 * `onStore` gets the store's normalised state (the platform's answers are dropped then), so that only
 * what `onStore` keeps stays in memory. Calls are made `parallelism` at a time, earlier stores first
 * (the order of `requests`); each read is made once for the stores that need it, with the fewest calls
 * the platform allows. `onStore` runs outside the concurrency bound, once per store, in the order the
 * stores complete; an error it throws ends the read with that error. Resolves to the client-level
 * state when `clientKinds` are given.
 *
 * @throws ApiError of the first read that failed (the other reads in flight are not waited for).
 */
export async function readCurrent(
  client: PlatformClient,
  requests: readonly ReadRequest[],
  onStore: (key: string, state: CurrentStore) => void,
  options: FetchOptions = {},
): Promise<CurrentState["client"]> {
  const places = new Map(requests.map((r, i) => [r.store.key, i]));
  const limit =
    options.limit ??
    storeOrderedLimit(
      options.parallelism ?? DEFAULT_PARALLELISM,
      (key) => places.get(key) ?? requests.length,
    );
  // Reads by name: kinds that share a part share one read object (a second object of the same name
  // is a bug that would fetch the part twice).
  const reads = new Map<string, StoreRead>();
  const storesByPart = new Map<string, StoreIdentity[]>();
  /** Each store's snapshot while its parts come in, and how many are still missing. */
  const pending = new Map<
    string,
    { store: StoreIdentity; snapshot: Record<string, unknown>; missing: number }
  >();
  // A store requested twice is read once, for the kinds of both requests.
  const kindsOf = new Map<string, { store: StoreIdentity; kinds: Set<ResourceKind<unknown>> }>();
  for (const r of requests) {
    const known = kindsOf.get(r.store.key);
    if (known) for (const k of r.kinds) known.kinds.add(k);
    else kindsOf.set(r.store.key, { store: r.store, kinds: new Set(r.kinds) });
  }
  for (const [key, r] of kindsOf) {
    const parts = new Set([...r.kinds].flatMap((k) => k.reads));
    pending.set(key, { store: r.store, snapshot: {}, missing: parts.size });
    for (const read of parts) {
      const seen = reads.get(read.name);
      if (seen && seen !== read) throw new InternalError(`two store reads are named ${read.name}`);
      reads.set(read.name, read);
      const list = storesByPart.get(read.name);
      if (list) list.push(r.store);
      else storesByPart.set(read.name, [r.store]);
    }
  }
  const total = [...storesByPart.values()].reduce((n, l) => n + l.length, 0);
  let done = 0;
  const complete = (key: string) => {
    const entry = pending.get(key)!;
    pending.delete(key);
    // Parts delivered as received are parsed now, and normalised and handed over at once.
    const parts = Object.keys(entry.snapshot);
    for (const part of parts) {
      const value = entry.snapshot[part];
      if (value instanceof Unparsed) entry.snapshot[part] = value.parse();
    }
    const state = normalizeSnapshot(entry.store, entry.snapshot);
    // The snapshot was made with the read's other bookkeeping, long before its store's answers came:
    // by now it lives in the old generation, whose references a collection of the young generation
    // takes as live even once their holder is unreachable. Its parts (a parsed store menu: megabytes
    // of objects) are let go of here, so that they die young instead of being moved to the old
    // generation, which only a full collection frees.
    for (const part of parts) entry.snapshot[part] = undefined;
    onStore(key, state);
  };
  // A store that needs no read (no managed kind reads anything) is complete at once.
  for (const [key, entry] of [...pending]) if (entry.missing === 0) complete(key);

  const clientKinds = options.clientKinds ?? [];
  const clientState = (async () => {
    if (clientKinds.length === 0) return undefined;
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
    return { ...state, ids };
  })();

  await Promise.all([
    ...[...storesByPart].map(([part, stores]) =>
      reads
        .get(part)!
        .fetch(client, stores, limit, async (key, value) => {
          const entry = pending.get(key);
          if (!entry || Object.hasOwn(entry.snapshot, part)) {
            throw new InternalError(`the ${part} read delivered store ${key} twice or unasked`);
          }
          entry.snapshot[part] = value;
          options.onRead?.(++done, total);
          if (--entry.missing > 0) return;
          // The store is parsed, normalised and handed over (planned) once the calls started in its
          // answer's place are on their way, one store at a time, so that this work runs inside their
          // latency.
          await inTurn(() => complete(key));
        })
        .catch((err: unknown) => {
          throw namingStore(err, stores);
        }),
    ),
    clientState,
  ]);
  if (pending.size > 0)
    throw new InternalError(`stores ${[...pending.keys()].join(", ")} were never read in full`);
  return clientState;
}

/**
 * A malformed answer to a call for one of `stores` (its path names the store's platform id), naming the
 * store by its key in the files too: `for store bog-centro (900101)`. Any other error as it is.
 */
function namingStore(err: unknown, stores: readonly StoreIdentity[]): unknown {
  if (!(err instanceof MalformedAnswerError) || err.store !== undefined || err.storeId === undefined) {
    return err;
  }
  const store = stores.find((s) => s.storeId === err.storeId);
  return store === undefined ? err : err.withStore(store.key);
}

/**
 * Reads the live state the requests ask for ({@link readCurrent}) and keeps all of it. Throws the
 * first {@link ApiError} met.
 */
export async function fetchCurrent(
  client: PlatformClient,
  requests: ReadRequest[],
  options: FetchOptions = {},
): Promise<CurrentState> {
  const out: CurrentState = { stores: table() };
  const stores = new Map<string, CurrentStore>();
  const clientState = await readCurrent(client, requests, (key, state) => stores.set(key, state), options);
  // In the order of the requests, whatever the order the stores completed in.
  for (const r of requests) out.stores[r.store.key] = stores.get(r.store.key)!;
  if (clientState) out.client = clientState;
  return out;
}

/** Options of {@link storeBatcher}. */
export interface BatcherOptions {
  /** The bound of the batch's calls (shared with other reads). */
  limit: Limit;
  /** How long a batch collects the stores asked, in milliseconds, from the first. Default 0 (a tick). */
  windowMs?: number;
  /** Most stores in one batch (default 16); stores asked together beyond it go in the next batch. */
  maxBatch?: number;
}

/**
 * A store's state still to come, wrapped so that the batch loader hands the promise itself to the
 * caller rather than waiting for it (a promise given as a value would be adopted).
 */
interface Pending {
  state: Promise<CurrentStore>;
}

/** How a store's {@link Pending} state is settled: with its state (or the promise of a read of its own), or an error. */
interface Settle {
  resolve: (state: CurrentStore | Promise<CurrentStore>) => void;
  reject: (err: unknown) => void;
}

/**
 * Reads stores for callers that ask for one store at a time (an apply's checks: src/run/store-guard.ts
 * `storeGuard` and the verification of each store), batching the stores asked within `windowMs` into
 * one {@link readCurrent}: a read that serves every store at once (the webhook list,
 * docs/platform-api.md §2.7) or up to 100 (store status, docs/platform-api.md §4.11) is made once for the
 * batch, not once per store; the per-store reads are the same. Every call of a batch starts after each of its
 * stores was asked. Each store's promise settles as soon as the reader hands that store over (in its turn,
 * src/platform/turns.ts `inTurn`), not once the whole batch is read, so that a caller's work on it (comparing
 * it with the plan) runs in the same turn and a store checked early waits for none of the others. When a
 * batch's read fails, its stores not yet handed over are read one by one, so that a store gets its own read's
 * error. Batching by dataloader (graphql/dataloader): its per-tick batch scheduling, without its cache.
 *
 * @returns a function resolving to the store's normalised current state; rejects with the
 *   {@link ApiError} of its read.
 */
export function storeBatcher(
  client: PlatformClient,
  options: BatcherOptions,
): (request: ReadRequest) => Promise<CurrentStore> {
  const { limit } = options;
  const read = (requests: readonly ReadRequest[]): Pending[] => {
    // One state per store, settled once: a store asked twice in one batch is read once, and both
    // callers get its state. `open` holds the stores not handed over yet.
    const open = new Map<string, Settle>();
    const states = new Map<string, Promise<CurrentStore>>();
    for (const r of requests) {
      if (states.has(r.store.key)) continue;
      states.set(
        r.store.key,
        new Promise<CurrentStore>((resolve, reject) => open.set(r.store.key, { resolve, reject })),
      );
    }
    const settle = (key: string, how: (s: Settle) => void) => {
      const s = open.get(key);
      open.delete(key);
      if (s) how(s);
    };
    readCurrent(client, requests, (key, state) => settle(key, (s) => s.resolve(state)), { limit }).then(
      () => {
        // readCurrent hands every store over before it resolves; one it did not is a bug.
        for (const key of [...open.keys()])
          settle(key, (s) => s.reject(new InternalError(`store ${key} was read but never handed over`)));
      },
      (err: unknown) => {
        // One store's failed read must not fail the others: each store not handed over is read alone
        // (with every request made for it), and gets what that read gives.
        const alone = states.size === 1;
        for (const key of [...open.keys()])
          settle(key, (s) =>
            alone ? s.reject(err) : s.resolve(read(requests.filter((r) => r.store.key === key))[0]!.state),
          );
      },
    );
    return requests.map((r) => ({ state: states.get(r.store.key)! }));
  };
  const windowMs = options.windowMs ?? 0;
  const loader = new DataLoader<ReadRequest, Pending>(async (requests) => read(requests), {
    cache: false,
    maxBatchSize: options.maxBatch ?? 16,
    batchScheduleFn: (run) => setTimeout(run, windowMs),
  });
  return (request) => loader.load(request).then((p) => p.state);
}
