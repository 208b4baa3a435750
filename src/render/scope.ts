/**
 * What a change-scoped plan (`carte plan --scope changed --base REF`, src/gitops/change-scope.ts) says about
 * its scope: its first line, and the notes on the stores no longer in the files and on what was not
 * read. Raw text (the ref and the store keys come from the user and the files): each renderer escapes
 * it for its medium.
 */

import type { Plan } from "../plan/types.js";
import { nounsOf } from "../kinds/registry.js";
import { plural } from "./lines.js";

/** `3 items`, `1 category`; an unknown segment as `segment × 3`. */
function count(segment: string, n: number): string {
  const words = nounsOf(segment);
  return words ? `${n} ${words[n === 1 ? 0 : 1]}` : `${segment} × ${n}`;
}

/**
 * The first line of a scoped plan, e.g. `Plan scoped to the changes since main: 1 of 1000 stores read
 * (menu).`; `undefined` for a plan without a change scope.
 */
export function scopeLine(plan: Plan): string | undefined {
  const scope = plan.targeting?.scope;
  if (!scope) return undefined;
  const n = scope.stores.length;
  let line = `Plan scoped to the changes since ${scope.base}: ${n} of ${plural(scope.of, "store")} read`;
  if (scope.reads.length > 0) line += ` (${scope.reads.join(", ")})`;
  if (scope.removed.length > 0) line += `, ${plural(scope.removed.length, "store")} no longer in the files`;
  if (scope.client.length > 0) line += `, the client-level settings`;
  if (n === 0 && scope.removed.length === 0 && scope.client.length === 0) {
    line += `: the files make no difference to any store`;
  }
  return `${line}.`;
}

/**
 * The notes of a scoped plan: one per store no longer in the files (what the platform keeps there, as
 * read), then that the other stores and kinds were not read. Empty without a change scope.
 */
export function scopeNotes(plan: Plan): string[] {
  const scope = plan.targeting?.scope;
  if (!scope) return [];
  const out: string[] = [];
  for (const r of scope.removed) {
    const left = Object.entries(r.left ?? {})
      .filter(([, n]) => n > 0)
      .map(([segment, n]) => count(segment, n));
    out.push(
      `store[${r.store}] (${r.name}, ${r.storeId}) is no longer in the files: carte stops managing it and ` +
        `changes nothing there; the platform keeps ${left.length > 0 ? left.join(", ") : "nothing carte managed"}.`,
    );
  }
  out.push(
    `Only what the files changed since ${scope.base} was read and planned; drift elsewhere shows in a ` +
      `full plan (carte plan without --scope, the scheduled drift check).`,
  );
  return out;
}
