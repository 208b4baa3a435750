/**
 * The parts of `carte import`, in the order they run. Exporting a new kind means writing its part
 * (src/import/<kind>.ts, see {@link ImportPart}) and listing it here; the reader reads exactly the
 * registered kinds these parts name.
 */

import { availabilityPart } from "./availability.js";
import { categoriesPart } from "./categories.js";
import { itemsPart } from "./items.js";
import { menusPart } from "./menus.js";
import { holidaysPart, hoursPart, openPart, specialDaysPart, webhooksPart } from "./settings.js";
import type { ImportPart } from "./types.js";

/** Every import part. Items come first: the others build on what the items part keeps. */
export const importParts: readonly ImportPart[] = [
  itemsPart,
  categoriesPart,
  menusPart,
  availabilityPart,
  hoursPart,
  holidaysPart,
  specialDaysPart,
  openPart,
  webhooksPart,
];
