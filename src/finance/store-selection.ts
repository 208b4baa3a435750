/**
 * Which stores a finance command reads: all stores of the configuration, or those named by `--store`.
 */

import { CommandLineError } from "../errors.js";
import type { DesiredState } from "../model.js";
import { matchStore } from "../plan/target.js";
import { isStoreId } from "./reader.js";

/** A store to read: its platform id and, when the configuration knows it, its integration id and name. */
export interface FinanceStore {
  storeId: string;
  /** carte's key (integration id); `undefined` for a bare platform id not in the configuration. */
  key: string | undefined;
  name: string | undefined;
}

/**
 * Resolves `--store` values. Each value is a platform store id, an integration id, or an integration-id
 * pattern with `*` and `?` (as for `carte plan --store`). A platform id that no store file names is
 * read all the same (the configuration need not list every store of the account). No values: every
 * store of the configuration, in the order of the store files. Duplicates are removed.
 * @throws CommandLineError naming every value that matches no store, before any call.
 */
export function selectStores(desired: DesiredState, patterns: readonly string[]): FinanceStore[] {
  const all = Object.values(desired.stores).map((s): FinanceStore => ({
    storeId: s.store.storeId,
    key: s.store.key,
    name: s.store.name,
  }));
  if (patterns.length === 0) return all;
  const out = new Map<string, FinanceStore>();
  const unknown: string[] = [];
  for (const p of patterns) {
    const hits = all.filter((s) => s.storeId === p || (s.key !== undefined && matchStore(p, s.key)));
    if (hits.length > 0) for (const h of hits) out.set(h.storeId, h);
    else if (isStoreId(p)) out.set(p, { storeId: p, key: undefined, name: undefined });
    else unknown.push(p);
  }
  if (unknown.length > 0) {
    const known = all.map((s) => s.key).join(", ");
    throw new CommandLineError(
      `--store ${unknown.map((u) => `"${u}"`).join(", ")} matches no store of the configuration ` +
        `(give a platform store id or one of: ${known || "none"})`,
    );
  }
  return [...out.values()];
}
