/**
 * Targeting: limiting a plan to some stores, kinds or addresses (`--store`, `--kind`, `--target`),
 * as Terraform's `-target`. Patterns use `*` (any characters inside one bracket or segment) and `?`
 * (one character); a pattern that names a store or a resource also matches everything below it.
 */

import type { ResourceChange, Targeting } from "./types.js";

export type { ChangeScope, Targeting } from "./types.js";

function toRegExp(pattern: string): RegExp {
  let src = "";
  for (const ch of pattern) {
    if (ch === "*") src += "[^\\]]*";
    else if (ch === "?") src += "[^\\]]";
    else src += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${src}(?:\\..*)?$`);
}

const cache = new Map<string, RegExp>();

/**
 * Whether an address such as `store[bog-centro].item[COMBO-1]` matches a pattern such as
 * `store[bog-*].item[COMBO-*]` or `store[bog-centro]`.
 */
export function matchAddress(pattern: string, address: string): boolean {
  let re = cache.get(pattern);
  if (!re) {
    re = toRegExp(pattern);
    cache.set(pattern, re);
  }
  return re.test(address);
}

/** Whether a store key matches a `--store` pattern (`*` and `?` wildcards). */
export function matchStore(pattern: string, key: string): boolean {
  return matchAddress(`store[${pattern}]`, `store[${key}]`);
}

/** Whether targeting limits anything (patterns or a change scope). */
export function isTargeted(t: Targeting | undefined): t is Targeting {
  return !!t && (isFiltering(t) || t.scope !== undefined);
}

/** Whether targeting filters changes by patterns (`--store`, `--kind`, `--target`). */
export function isFiltering(t: Targeting | undefined): boolean {
  return !!t && (t.stores.length > 0 || t.kinds.length > 0 || t.targets.length > 0);
}

/**
 * The kinds a change scope reads and plans, by store key (a store not in the map: nothing); `undefined`
 * when the targeting has no scope (every managed kind of every store).
 */
export function scopedKinds(t: Targeting | undefined): ReadonlyMap<string, ReadonlySet<string>> | undefined {
  if (!t?.scope) return undefined;
  return new Map(t.scope.stores.map((s) => [s.store, new Set<string>(s.kinds)]));
}

/** Whether a change falls inside the targeting, before dependencies are added. */
export function inTarget(t: Targeting, change: ResourceChange): boolean {
  if (t.stores.length > 0 && !t.stores.some((p) => matchStore(p, change.store))) return false;
  if (t.kinds.length > 0) {
    const kind = change.kind === "modifier_group" ? "item" : change.kind;
    if (!t.kinds.some((k) => k === change.kind || k === kind)) return false;
  }
  if (t.targets.length > 0 && !t.targets.some((p) => matchAddress(p, change.address))) return false;
  return true;
}

/** SKUs a resource refers to: children of items, items of categories, categories of menus. */
function references(value: unknown): string[] {
  if (!value || typeof value !== "object") return [];
  const v = value as { children?: string[]; items?: string[]; categories?: { sku: string }[] };
  return [...(v.children ?? []), ...(v.items ?? []), ...(v.categories ?? []).map((c) => c.sku)];
}

/**
 * Selects the changes inside the targeting, plus those they cannot go without: the creation of
 * anything a selected change starts to reference, and the removal of references to anything a selected
 * change deletes. Returns the selected changes in their original order.
 */
export function selectChanges(all: ResourceChange[], t: Targeting): ResourceChange[] {
  const keep = new Set(all.filter((c) => inTarget(t, c)));
  let grew = true;
  while (grew) {
    grew = false;
    for (const c of [...keep]) {
      const needed = all.filter((o) => {
        if (keep.has(o) || o.store !== c.store) return false;
        // c references o's key and o creates it.
        if (o.action === "create" && references(c.after).includes(o.key)) return true;
        // c deletes something o stops referencing.
        if (
          c.action === "delete" &&
          references(o.before).includes(c.key) &&
          !references(o.after).includes(c.key)
        )
          return true;
        // An item's availability needs the item to exist.
        if (c.kind === "availability" && o.key === c.key && o.action === "create") return true;
        return false;
      });
      for (const n of needed) {
        keep.add(n);
        grew = true;
      }
    }
  }
  return all.filter((c) => keep.has(c));
}
