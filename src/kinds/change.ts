/**
 * One change of one resource, as the planner makes it from a kind's `diff` and as the kind's own views
 * (src/kinds/show.ts) and guards (src/kinds/guards.ts) read it again. Here, below the kinds and the
 * planner, so that a kind can show and judge its changes without importing the plan (the plan's
 * `ResourceChange`, src/plan/types.ts, is this with the address segments the registry knows).
 */

/** What a change does to a resource. */
export type ChangeAction = "create" | "update" | "delete";

/** One attribute that differs, with its value before and after. `before` is absent on create. */
export interface AttributeDiff {
  attribute: string;
  before?: unknown;
  after?: unknown;
}

/**
 * One resource that the plan creates, updates or deletes.
 *
 * @typeParam K - its address segment (`item`, `modifier_group`, `store_hours`…).
 */
export interface KindChange<K extends string = string> {
  /** `store[KEY].SEGMENT[KEY]`, e.g. `store[bog-centro].item[BURGER-CLASSIC]`. */
  address: string;
  /** Store key (integration id); `""` for a client-level resource. */
  store: string;
  /** Address segment of the resource. */
  kind: K;
  /** SKU, or menu type for menus. */
  key: string;
  action: ChangeAction;
  /** Normalized resource before the change; `null` on create. */
  before: unknown;
  /** Normalized resource after the change; `null` on delete. */
  after: unknown;
  /** Attributes that change (on update), or every attribute set (on create). Empty on delete. */
  diff: AttributeDiff[];
  /**
   * Where the resource sits, for people, when it is nested: the SKUs from an item down to its parent,
   * e.g. `["PIZZA", "SIZE", "SIZE-L", "CRUST"]` for an option of the crust group of a large pizza
   * (the first such path; src/kinds/resource-kind.ts `ResourceKind.within`). Absent for top-level resources.
   */
  within?: string[];
  /**
   * For an option (an item that a modifier group offers): the SKU of the modifier group it is shown
   * under, the first in SKU order that offers it (src/kinds/resource-kind.ts `ResourceKind.group`). Absent
   * for everything else. Added after version 1 was published; readers must not require it.
   */
  group?: string;
  /**
   * For people: the title of what the resource belongs to, when its `before`/`after` do not hold it (the
   * item whose availability changes; src/kinds/resource-kind.ts `ResourceKind.title`). Added after version 1
   * was published; readers must not require it.
   */
  title?: string;
  /**
   * For people: how the files name the resource when its key says less, e.g. `2026-12-24` for the
   * special day keyed `12-24` that the files date fully (src/kinds/resource-kind.ts `ResourceKind.label`).
   * Added after version 1 was published; readers must not require it.
   */
  label?: string;
}
