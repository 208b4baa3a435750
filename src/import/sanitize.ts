/**
 * Makes live states expressible in carte's files before they are factored: each part drops or
 * rewrites, in a copy, what its file format cannot say, and notes it. The notes are what `carte plan`
 * would show as changes after the import, which is why `carte import` refuses to write anything with
 * notes unless `--lenient` is given.
 */

import type { StoreState } from "../model.js";
import { importParts } from "./parts.js";
import type { ImportContext, ImportPart } from "../kinds/import-types.js";
import { byCodePoint } from "../kinds/import-values.js";

/** Something of a store's live state that the written files do not express. */
export interface ImportNote {
  /** Address of the resource, e.g. `store[bog-centro].item[FRIES]`. */
  address: string;
  reason: string;
}

/** Sanitized copies of the states, in the given order, and the notes of what was lost. */
export function sanitizeStates(
  states: readonly StoreState[],
  parts: readonly ImportPart[] = importParts,
  ctx: ImportContext = {},
): { states: StoreState[]; notes: ImportNote[] } {
  const notes: ImportNote[] = [];
  const out = states.map((s) => {
    const copy = structuredClone(s);
    for (const part of parts)
      part.sanitize?.(copy, (address, reason) => notes.push({ address, reason }), ctx);
    return copy;
  });
  notes.sort((a, b) => byCodePoint(a.address, b.address) || byCodePoint(a.reason, b.reason));
  return { states: out, notes };
}
