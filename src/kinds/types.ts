/**
 * The small interface every resource kind implements. A kind knows which parts of a store's live state
 * it reads, how to pick its resources out of a normalized {@link StoreState}, how to read them from
 * the platform's answers, and which element of which API call creates, updates or deletes one of them.
 * It never decides how calls are grouped: the planner batches the kinds' writes (src/plan/batch.ts).
 */

import type { ClientState, Ownership, StoreIds, StoreState } from "../model.js";
import type { WireStoreMenu } from "../platform/wire.js";

/** Names of the resource kinds, as they appear in addresses: `store[bog-centro].item[BURGER]`. */
export type KindName =
  | "item"
  | "modifier_group"
  | "category"
  | "menu"
  | "availability"
  | "store_hours"
  | "holiday"
  | "special_day"
  | "store_availability"
  | "webhook"
  | "corridor_schedule"
  | "product_schedule"
  | "client_webhook";

/** What a change does to a resource. */
export type ChangeAction = "create" | "update" | "delete";

/** One attribute that differs, with its value before and after. `before` is absent on create. */
export interface AttributeDiff {
  attribute: string;
  before?: unknown;
  after?: unknown;
}

/**
 * What the reader fetched for one store: each part is present when a kind managed in that store reads
 * it (see src/state/parts.ts for how each part is fetched).
 */
export interface StoreSnapshot {
  /** `GET /store-menu` (spec §4.4). */
  menu?: WireStoreMenu;
  /** `GET /store/schedule/{storeId}` (spec §4.5, utils). */
  hours?: unknown;
  /** `GET /store/schedule/{storeId}/holiday`. */
  holidays?: unknown;
  /** `GET /store/schedule/{storeId}/special`. */
  special?: unknown;
  /** `POST /availability/stores` (v2): whether the store is open. */
  open?: boolean;
  /** The client's per-store webhooks, `GET /webhook` (spec §4.7): the same list for every store. */
  webhooks?: unknown;
  /** Corridors and their schedules through the utils group, when the store writes schedules there. */
  utilsSchedules?: unknown;
}

/** A part of a store's live state that a kind can ask for. */
export type ReadPart = keyof StoreSnapshot;

/** What the reader fetched for the client: `GET /clients/{clientId}/webhooks` (spec §4.7). */
export interface ClientSnapshot {
  webhooks?: unknown;
}

/** A part of the client's live state. */
export type ClientReadPart = keyof ClientSnapshot;

/** One element of one API call, contributed by a kind for one resource change. */
export interface Write {
  /** Name of a registered endpoint (src/plan/endpoints.ts). */
  endpoint: string;
  /** The element the call carries for this change: an upsert object, an id, a slot, a store id… */
  element: unknown;
  /**
   * Values the endpoint's path and body need besides the elements (a slot id, an event name, a URL).
   * Writes to the same endpoint with the same params (and the same store, for store-scoped endpoints)
   * share one call, up to the endpoint's limit.
   */
  params?: Record<string, string | number>;
}

/** Everything a kind needs to turn one change into writes. */
export interface WriteContext {
  /** The desired state of the store (for creates and updates). */
  desired: StoreState;
  /** Platform ids of what exists in the store now (for updates by id and for deletes). */
  ids: StoreIds;
}

/**
 * A resource kind. `R` is its normalized resource: plain JSON, canonical, comparable with deep equality.
 * Implementations must be pure.
 */
export interface ResourceKind<R> {
  /** The kind's own name (a kind may address some resources with another segment, see `segment`). */
  readonly name: KindName;
  /** The parts of a store's live state the kind reads. */
  readonly reads: readonly ReadPart[];
  /** Ownership when carte.yaml says nothing; documented per kind. Default `full`. */
  readonly defaultOwnership?: Ownership;
  /**
   * Resources of this kind in a store, by key (SKU, menu type, day…); `undefined` when the files do not
   * manage this kind in the store (then carte neither reads nor changes it there). `ownership` is given
   * on the desired side, for kinds whose desired resources depend on it (item availability).
   */
  select(state: StoreState, ownership?: Ownership): Record<string, R> | undefined;
  /**
   * Reads this kind's resources from a store's snapshot into a normalized current state: canonical
   * values, ids moved to `ids`. Called only when the snapshot holds the parts in `reads`.
   */
  read(snapshot: StoreSnapshot, into: StoreState, ids: StoreIds): void;
  /** Address segment of a resource, e.g. `item` or `modifier_group`. */
  segment(resource: R): KindName;
  /**
   * Compares two resources of the same key. Returns the attributes that differ (empty when equal).
   * The default in the planner compares every top-level attribute with deep equality.
   */
  diff?(before: R, after: R): AttributeDiff[];
  /**
   * For resources that exist only alongside another one (an item's availability): the state the
   * platform gives the resource when it creates its owner. When set, a resource missing on the current
   * side is compared with `initial(after)` (and yields no change when equal), and a resource missing on
   * the desired side yields no change (it goes with its owner).
   */
  initial?(after: R): R;
  /**
   * Whether a change only takes something away, so that `additive` ownership skips it. Default: the
   * change is a delete. (Turning an item back on is such a change for item availability.)
   */
  retreats?(action: ChangeAction, before: R | undefined, after: R | undefined): boolean;
  /** Writes that carry out one change. */
  writes(
    action: ChangeAction,
    key: string,
    before: R | undefined,
    after: R | undefined,
    ctx: WriteContext,
  ): Write[];
}

/**
 * A kind of client-level resource (not tied to a store), addressed `client.SEGMENT[KEY]`, e.g.
 * `client.client_webhook[STORE_PROVISIONING_STATUS]`.
 */
export interface ClientKind<R> {
  readonly name: KindName;
  readonly reads: readonly ClientReadPart[];
  readonly defaultOwnership?: Ownership;
  /** Resources by key; `undefined` when the files do not manage this kind. */
  select(state: ClientState): Record<string, R> | undefined;
  read(snapshot: ClientSnapshot, into: ClientState, ids: Record<string, Record<string, unknown>>): void;
  diff?(before: R, after: R): AttributeDiff[];
  retreats?(action: ChangeAction, before: R | undefined, after: R | undefined): boolean;
  writes(
    action: ChangeAction,
    key: string,
    before: R | undefined,
    after: R | undefined,
    ids: Record<string, Record<string, unknown>>,
  ): Write[];
}
