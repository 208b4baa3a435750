/**
 * The registry of resource kinds, in planning order. Adding a kind means writing its module and
 * listing it here; the planner, the renderers and the reader need no change.
 */

import { availability } from "./availability.js";
import { categories } from "./categories.js";
import { items } from "./items.js";
import { menus } from "./menus.js";
import type { ResourceKind } from "./types.js";

/** Every resource kind carte manages. */
export const kinds: readonly ResourceKind<unknown>[] = [
  items as ResourceKind<unknown>,
  categories as ResourceKind<unknown>,
  menus as ResourceKind<unknown>,
  availability as ResourceKind<unknown>,
];
