/**
 * The small interface every resource kind implements. A kind knows how to pick its resources out of a
 * normalized {@link StoreState}, how to read them from the platform's wire shapes, and which element
 * of which API call creates, updates or deletes one of them. It never decides how calls are grouped:
 * the planner batches the kinds' writes by store and endpoint (src/plan/batch.ts).
 */

import type { StoreIds, StoreState } from "../model.js";
import type { EndpointName } from "../plan/endpoints.js";
import type { WireStoreMenu } from "../platform/wire.js";

/** Names of the resource kinds, as they appear in addresses: `store[bog-centro].item[BURGER]`. */
export type KindName = "item" | "modifier_group" | "category" | "menu" | "availability";

/** What a change does to a resource. */
export type ChangeAction = "create" | "update" | "delete";

/** One attribute that differs, with its value before and after. `before` is absent on create. */
export interface AttributeDiff {
  attribute: string;
  before?: unknown;
  after?: unknown;
}

/** One element of one API call, contributed by a kind for one resource change. */
export interface Write {
  endpoint: EndpointName;
  /** The element the call carries for this change: an upsert object, an id, or an availability toggle. */
  element: unknown;
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
  /** Resources of this kind in a store, by key (SKU or menu type). */
  select(state: StoreState): Record<string, R>;
  /**
   * Reads this kind's resources from the store's complete menu (`GET /store-menu`, spec §2.2) into a
   * normalized current state: canonical values, ids moved to `ids`.
   */
  read(wire: WireStoreMenu, into: StoreState, ids: StoreIds): void;
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
  /** Writes that carry out one change. */
  writes(
    action: ChangeAction,
    key: string,
    before: R | undefined,
    after: R | undefined,
    ctx: WriteContext,
  ): Write[];
}
