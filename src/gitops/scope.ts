/**
 * Change-scoped plans (`carte plan --scope changed --base REF`, issue 15 item 5): which stores, and which
 * kinds of each store, the difference between the base's files and the head's can touch. The answer
 * comes from the two desired states, not from the list of changed files: each store's resolved desired
 * state is compared kind by kind (`ResourceKind.select`), so that any layout gives the right scope: a
 * price in one store file touches that store's items; a shared catalog touches the stores that use
 * it; carte.yaml `defaults:`, a group's `defaults:` or an included file touch the stores they reach;
 * `ownership:` touches the kind in every store. What the files' difference cannot touch is neither
 * read nor planned: drift there is left to the full plan (the scheduled drift check).
 */

import { clientKinds as clientRegistry, kinds as registry, type KindName } from "../kinds/registry.js";
import type { ClientKind, ResourceKind } from "../kinds/types.js";
import type { DesiredState, Ownership, StoreState } from "../model.js";
import type { ChangeScope } from "../plan/target.js";

/** One side of the comparison: a project's desired state and ownership (src/config `LoadedProject`). */
export interface ScopeSide {
  desired: DesiredState;
  ownership: Partial<Record<KindName, Ownership>>;
}

/**
 * Deep equality of plain JSON values that remembers the pairs of objects it compared: the stores of a
 * shared catalog hold the same resource objects (the loader's `shareResources`), so a thousand stores
 * compare each catalog entry once.
 */
function memoEqual(): (a: unknown, b: unknown) => boolean {
  const seen = new WeakMap<object, WeakMap<object, boolean>>();
  const equal = (a: unknown, b: unknown): boolean => {
    if (a === b) return true;
    if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
    let row = seen.get(a);
    const known = row?.get(b);
    if (known !== undefined) return known;
    let result: boolean;
    if (Array.isArray(a) || Array.isArray(b)) {
      result =
        Array.isArray(a) &&
        Array.isArray(b) &&
        a.length === b.length &&
        a.every((v, i) => equal(v, (b as unknown[])[i]));
    } else {
      const ka = Object.keys(a);
      const kb = Object.keys(b);
      result =
        ka.length === kb.length &&
        ka.every(
          (k) =>
            Object.hasOwn(b, k) &&
            equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
        );
    }
    if (!row) {
      row = new WeakMap();
      seen.set(a, row);
    }
    row.set(b, result);
    return result;
  };
  return equal;
}

const ownershipOf = (side: ScopeSide, kind: { name: string; defaultOwnership?: Ownership }): Ownership =>
  side.ownership[kind.name as KindName] ?? kind.defaultOwnership ?? "full";

/** The kinds the files manage in a store: not ignored, and selected by the store's desired state. */
function managedKinds(
  side: ScopeSide,
  want: StoreState,
  kinds: readonly ResourceKind<unknown>[],
): KindName[] {
  return kinds
    .filter((k) => {
      const own = ownershipOf(side, k);
      return own !== "ignore" && k.select(want, own) !== undefined;
    })
    .map((k) => k.name as KindName);
}

/** Options of {@link changeScope}. */
export interface ChangeScopeOptions {
  /** The base as named and the commit it resolved to, recorded in the scope. */
  ref: string;
  sha: string;
  /** Store kinds to compare; default every registered kind. */
  kinds?: readonly ResourceKind<unknown>[];
  /** Client-level kinds to compare; default every registered one. */
  clientKinds?: readonly ClientKind<unknown>[];
}

/**
 * The change scope of the head's files against the base's: per store of the head, the kinds whose
 * desired resources or ownership differ from the base's (every managed kind of a store the base does
 * not have, or whose platform store id or `schedules_via` changed); the client-level kinds whose
 * desired state differs; and the stores the base has and the head no longer does (`removed`, with the
 * kinds the base managed there). A store whose files make no difference is not in the scope. Pure.
 */
export function changeScope(base: ScopeSide, head: ScopeSide, options: ChangeScopeOptions): ChangeScope {
  const kinds = options.kinds ?? registry;
  const equal = memoEqual();
  const stores: ChangeScope["stores"] = [];
  const currencyChanged = base.desired.currency !== head.desired.currency;
  for (const key of Object.keys(head.desired.stores).sort()) {
    const want = head.desired.stores[key]!;
    const before = Object.hasOwn(base.desired.stores, key) ? base.desired.stores[key] : undefined;
    let changed: KindName[];
    if (
      !before ||
      currencyChanged ||
      before.store.storeId !== want.store.storeId ||
      before.schedulesVia !== want.schedulesVia
    ) {
      // A new store, another platform store, another currency or another schedules API: all of it.
      changed = managedKinds(head, want, kinds);
    } else {
      changed = [];
      for (const kind of kinds) {
        const own = ownershipOf(head, kind);
        if (own === "ignore") continue;
        const after = kind.select(want, own);
        if (after === undefined) continue; // not managed in the head: never read nor planned there
        const ownBefore = ownershipOf(base, kind);
        const was = ownBefore === "ignore" ? undefined : kind.select(before, ownBefore);
        if (was === undefined || ownBefore !== own || !equal(was, after)) changed.push(kind.name as KindName);
      }
    }
    if (changed.length > 0) stores.push({ store: key, kinds: changed });
  }

  const client: KindName[] = [];
  for (const kind of options.clientKinds ?? clientRegistry) {
    const own = ownershipOf(head, kind);
    if (own === "ignore") continue;
    const after = kind.select(head.desired.client ?? {});
    if (after === undefined) continue;
    const ownBefore = ownershipOf(base, kind);
    const was = ownBefore === "ignore" ? undefined : kind.select(base.desired.client ?? {});
    if (was === undefined || ownBefore !== own || !equal(was, after)) client.push(kind.name as KindName);
  }

  const removed: ChangeScope["removed"] = [];
  for (const key of Object.keys(base.desired.stores).sort()) {
    if (Object.hasOwn(head.desired.stores, key)) continue;
    const was = base.desired.stores[key]!;
    removed.push({
      store: key,
      storeId: was.store.storeId,
      name: was.store.name,
      kinds: managedKinds(base, was, kinds),
    });
  }

  const scope: ChangeScope = {
    base: options.ref,
    sha: options.sha,
    of: Object.keys(head.desired.stores).length,
    stores,
    client,
    removed,
    reads: [],
  };
  scope.reads = scopeReads(scope, kinds);
  return scope;
}

/**
 * The names of the reads (parts of a store's live state, `StoreRead.name`: `menu`, `hours`…) the
 * scope makes, over all its stores, in registry order: what the plan's first line lists.
 */
export function scopeReads(scope: ChangeScope, kinds: readonly ResourceKind<unknown>[] = registry): string[] {
  const wanted = new Set<string>([
    ...scope.stores.flatMap((s) => s.kinds),
    ...scope.removed.flatMap((s) => s.kinds),
  ]);
  const names = new Set<string>();
  for (const kind of kinds) if (wanted.has(kind.name)) for (const read of kind.reads) names.add(read.name);
  return [...names];
}
