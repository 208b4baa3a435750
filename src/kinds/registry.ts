/**
 * The registry of resource kinds, in planning order. Adding a kind means writing its module and
 * listing it here; the planner, the renderers and the reader need no change.
 */

import { availability } from "./availability.js";
import { categories } from "./categories.js";
import { items } from "./items.js";
import { menus } from "./menus.js";
import type { ClientKind, ResourceKind } from "./types.js";

/** Every resource kind carte manages. */
export const kinds: readonly ResourceKind<unknown>[] = [
  items as ResourceKind<unknown>,
  categories as ResourceKind<unknown>,
  menus as ResourceKind<unknown>,
  availability as ResourceKind<unknown>,
];

/** Every client-level kind carte manages. */
export const clientKinds: readonly ClientKind<unknown>[] = [];

/** A resource kind by name (`modifier_group` resolves to the items kind). */
export function kindNamed(name: string): ResourceKind<unknown> | undefined {
  const n = name === "modifier_group" ? "item" : name;
  return kinds.find((k) => k.name === n);
}
