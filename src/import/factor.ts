/**
 * Factoring imported stores into shared catalogs and store files.
 *
 * The rule (docs/import.md, "How stores share a catalog"):
 *
 * 1. Start with every store in one group. For each resource of a catalog part (item, modifier group,
 *    option, category, menu), the catalog takes the definition that fits the most stores of the group
 *    (ties: the first store by integration id); "fits" ignores what a store file can override (prices)
 *    and what a store lacks (it is excluded). The catalog price of an item is its most common price,
 *    and so is the price of an option inside a parent. Menus are in the catalog when at least half
 *    the stores of the group have them.
 * 2. Each store's file names the catalog and says what differs: `overrides` (prices, option prices
 *    inside a parent, titles, descriptions, images; `exclude` for every catalog SKU it lacks) and its
 *    own sections (availability, hours, webhooks...). Titles, descriptions, images and prices in the
 *    catalog are the most common values among the group's stores (ties: the first store by key).
 * 3. Every store is verified: its file resolved against the catalog (src/config/resolve.ts) must give
 *    exactly its live state. The stores that fail leave the group, and the group is factored again
 *    without them; they are then factored among themselves the same way. A store that fits no group
 *    gets a catalog of its own, which always fits (states are sanitized first).
 *
 * Stores that differ only in prices (an option's inside a parent too), titles, descriptions, images,
 * left-out items and their own settings therefore share one catalog; stores whose relations (an item's
 * groups, a group's options, a category's items, a menu's categories), group limits, schedules, or
 * which parents price an option at all, differ get a catalog per group of stores that agree.
 */

import type { CatalogFile, StoreFile } from "../generated/config.js";
import { resolveStore } from "../config/resolve.js";
import { kindNamed } from "../kinds/registry.js";
import { jsonEqual } from "../plain-data.js";
import { table, type StoreState } from "../model.js";
import { importParts } from "./parts.js";
import type { CatalogContext, CatalogPart, ImportPart } from "../kinds/import-types.js";
import { byCodePoint, sortRecord } from "../kinds/import-values.js";

/** A catalog of the import and the stores that use it. */
export interface ImportedCatalog {
  /** Catalog name (also its file name, `catalogs/<name>.yaml`). */
  name: string;
  catalog: CatalogFile;
  /** Keys of its stores, in key order. */
  stores: string[];
}

/** A store of the import and its file. */
export interface ImportedStore {
  state: StoreState;
  file: StoreFile;
}

/** The result of {@link factorStores}. */
export interface Factoring {
  catalogs: ImportedCatalog[];
  stores: ImportedStore[];
}

function catalogParts(parts: readonly ImportPart[]): CatalogPart<unknown>[] {
  return parts.flatMap((p) => (p.catalog ? [p.catalog] : []));
}

/** Whether a store sells a SKU (as an item, group, option or category: whatever can be excluded). */
function seller(state: StoreState, parts: readonly ImportPart[]): (sku: string) => boolean {
  const records = catalogParts(parts)
    .filter((p) => p.excludable)
    .map((p) => p.resources(state));
  return (sku) => records.some((r) => Object.prototype.hasOwnProperty.call(r, sku));
}

/** Builds the catalog of a group of stores (without its name). */
export function buildCatalog(
  members: readonly StoreState[],
  parts: readonly ImportPart[] = importParts,
): CatalogFile {
  const chosen: CatalogContext["chosen"] = table();
  const sellers = members.map((s) => seller(s, parts));
  for (const part of catalogParts(parts)) {
    const out = table<unknown>();
    const all = members.map((s) => part.resources(s));
    const keys = [...new Set(all.flatMap((r) => Object.keys(r)))].sort(byCodePoint);
    for (const key of keys) {
      const holders = all.flatMap((r, i) => (Object.prototype.hasOwnProperty.call(r, key) ? [i] : []));
      if (!part.excludable && holders.length * 2 < members.length) continue;
      let best: { def: unknown; votes: number } | undefined;
      const tried: unknown[] = [];
      for (const h of holders) {
        const def = all[h]![key];
        if (tried.some((t) => jsonEqual(t, def))) continue;
        tried.push(def);
        const votes = holders.filter((i) => part.fits(def, all[i]![key], sellers[i]!)).length;
        if (!best || votes > best.votes) best = { def, votes };
      }
      out[key] = best!.def;
    }
    chosen[part.name] = out;
  }
  const catalog: CatalogFile = {};
  const ctx: CatalogContext = { chosen, members };
  for (const part of catalogParts(parts)) part.write(catalog, ctx);
  return catalog;
}

/** Every SKU a catalog defines or names (items, groups, options, categories). */
export function catalogSkus(catalog: CatalogFile): string[] {
  const out = new Set<string>();
  for (const i of catalog.items ?? []) out.add(i.sku);
  for (const g of catalog.modifier_groups ?? []) {
    out.add(g.sku);
    for (const o of g.options) out.add(typeof o === "string" ? o : o.sku);
  }
  for (const c of catalog.categories ?? []) out.add(c.sku);
  return [...out].sort(byCodePoint);
}

/** The platform store id as carte's files write it: a number when exact, else a quoted decimal. */
function storeIdValue(storeId: string): number | string {
  const n = Number(storeId);
  return Number.isSafeInteger(n) && String(n) === storeId ? n : storeId;
}

/** The keys of a store file's `overrides:`, in the order they are written (before `exclude`). */
const OVERRIDE_ORDER = ["prices", "option_prices", "titles", "descriptions", "images"];

/** Merges sections one level deep: `{availability: {unavailable}}` and `{availability: {open}}`. */
function mergeSections(into: Record<string, unknown>, sections: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(sections)) {
    const prev = into[key];
    const isObj = (v: unknown): v is Record<string, unknown> =>
      v !== null && typeof v === "object" && !Array.isArray(v);
    into[key] = isObj(prev) && isObj(value) ? { ...prev, ...value } : value;
  }
}

/** The file of one store using the given catalog. */
export function storeFileFor(
  state: StoreState,
  catalog: CatalogFile,
  catalogName: string,
  parts: readonly ImportPart[] = importParts,
): StoreFile {
  const sells = seller(state, parts);
  const exclude = catalogSkus(catalog).filter((sku) => !sells(sku));
  const found = table<Record<string, unknown>>();
  for (const part of catalogParts(parts)) {
    for (const [key, values] of Object.entries(part.overrides?.(state, catalog) ?? {}))
      found[key] = { ...found[key], ...values };
  }
  const overrides: Record<string, unknown> = {};
  for (const key of OVERRIDE_ORDER) {
    const values = found[key];
    if (values && Object.keys(values).length > 0) overrides[key] = sortRecord(values);
  }
  if (exclude.length > 0) overrides.exclude = exclude;
  const file: Record<string, unknown> = {
    store: {
      id: storeIdValue(state.store.storeId),
      integration_id: state.store.integrationId,
      name: state.store.name,
    },
    catalog: catalogName,
    // The time zone the project read gives the store (the platform's menu API tells none).
    ...(state.store.timeZone !== undefined ? { timezone: state.store.timeZone } : {}),
    ...(Object.keys(overrides).length > 0 ? { overrides } : {}),
  };
  for (const part of parts) {
    const sections = part.store?.sections(state, catalog);
    if (sections) mergeSections(file, sections);
  }
  return file as unknown as StoreFile;
}

/**
 * The kinds on which a state built from files (`desired`) and an imported state (`live`) disagree, as
 * the planner sees them with full ownership (the strictest comparison): a kind the files leave
 * unmanaged agrees only when the live state has none of it.
 */
export function differingKinds(
  desired: StoreState,
  live: StoreState,
  parts: readonly ImportPart[] = importParts,
): string[] {
  const out: string[] = [];
  for (const name of parts.flatMap((p) => p.kinds)) {
    const kind = kindNamed(name);
    if (!kind) continue;
    const want = kind.select(desired, "full");
    const have = kind.select(live, "full");
    const same =
      want === undefined ? have === undefined || Object.keys(have).length === 0 : jsonEqual(want, have);
    if (!same) out.push(name);
  }
  return out;
}

/**
 * Whether a store file, resolved against its catalog, gives exactly the store's state, and passes the
 * rule of src/config/check.ts that a store keeps enough options of each group it does not exclude.
 */
export function fitsExactly(
  state: StoreState,
  file: StoreFile,
  catalog: CatalogFile,
  parts: readonly ImportPart[] = importParts,
): boolean {
  const excluded = new Set(file.overrides?.exclude ?? []);
  for (const g of catalog.modifier_groups ?? []) {
    if (excluded.has(g.sku)) continue;
    const kept = g.options.filter((o) => !excluded.has(typeof o === "string" ? o : o.sku)).length;
    if (kept < g.options.length && kept < Math.max(1, g.min)) return false;
  }
  // Only the catalog's kinds: the store's own sections are written from its own state.
  const catalogKinds = parts.filter((p) => p.catalog);
  return differingKinds(resolveStore({ store: file, catalog }), state, catalogKinds).length === 0;
}

/**
 * Splits stores into groups that share a catalog, and writes every catalog and store file (the rule
 * is in this module's comment). Deterministic: the result depends only on the states, taken in
 * integration id order. The states must be sanitized (src/import/sanitize.ts).
 */
export function factorStores(
  states: readonly StoreState[],
  parts: readonly ImportPart[] = importParts,
  taken: ReadonlySet<string> = new Set(),
): Factoring {
  const sorted = [...states].sort((a, b) => byCodePoint(a.store.key, b.store.key));
  const groups: { members: StoreState[]; catalog: CatalogFile }[] = [];
  let pending = sorted;
  while (pending.length > 0) {
    let members = pending;
    let catalog = buildCatalog(members, parts);
    for (;;) {
      const built = catalog;
      const failing = new Set(
        members.filter((s) => !fitsExactly(s, storeFileFor(s, built, "_", parts), built, parts)),
      );
      if (failing.size === 0) break;
      // No store fits a catalog voted by all: the first store takes a catalog of its own.
      members = failing.size === members.length ? [members[0]!] : members.filter((s) => !failing.has(s));
      catalog = buildCatalog(members, parts);
      if (members.length === 1) break;
    }
    groups.push({ members, catalog });
    const taken = new Set(members);
    pending = pending.filter((s) => !taken.has(s));
  }

  // Catalog names already in use (an existing project's, for `carte import --merge`) are avoided.
  const used = new Set<string>(taken);
  const named = (base: string) => {
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}-${n}`;
    used.add(name);
    return name;
  };
  // Stores alone in a catalog lend it their integration id; shared catalogs are "shared", "shared-2"...
  const alone = (g: (typeof groups)[number]) =>
    groups.length > 1 && g.members.length === 1 && !taken.has(g.members[0]!.store.key);
  for (const g of groups) if (alone(g)) used.add(g.members[0]!.store.key);
  const catalogs: ImportedCatalog[] = [];
  const stores: ImportedStore[] = [];
  for (const g of groups) {
    const name = alone(g) ? g.members[0]!.store.key : named("shared");
    catalogs.push({ name, catalog: { name, ...g.catalog }, stores: g.members.map((s) => s.store.key) });
    for (const s of g.members) stores.push({ state: s, file: storeFileFor(s, g.catalog, name, parts) });
  }
  stores.sort((a, b) => byCodePoint(a.state.store.key, b.state.store.key));
  return { catalogs, stores };
}
