/**
 * The small interface through which each resource kind contributes to `carte import`. A kind's part
 * says which registered kinds it covers (so that the importer reads them), how to make a store's live
 * state expressible in carte's files (noting what cannot be kept), and what it writes: catalog parts
 * (items, categories, menus) are factored across stores into shared catalogs; store parts (item
 * availability, and the store settings as their kinds arrive) write sections of each store file.
 */

import type { CatalogFile } from "../generated/config.js";
// Kind names are plain strings here: the registry (src/kinds/registry.ts) is the list of them.
import type { StoreState } from "../model.js";
import type { Currency } from "../money.js";

/** Records something of a store's live state that carte's files cannot express. */
export type Note = (address: string, reason: string) => void;

/** What the files are written for: the project's currency (carte.yaml `currency:`), when known. */
export interface ImportContext {
  currency?: Currency;
}

/**
 * What the catalog writers of one group of stores share: the definition chosen for every resource of
 * every catalog part, and the stores of the group (for majority prices).
 */
export interface CatalogContext {
  /** Chosen definitions, by catalog part name, then by resource key. */
  chosen: Record<string, Record<string, unknown>>;
  /** The stores that share the catalog, in key order. */
  members: readonly StoreState[];
}

/**
 * A catalog part: resources that a catalog defines once for many stores. The factoring engine
 * (src/import/factor.ts) picks, per key, the definition that fits the most stores of a group, then
 * asks the part to write the chosen definitions into the catalog file.
 */
export interface CatalogPart<R> {
  /** Name of the part (also its key in {@link CatalogContext.chosen}). */
  readonly name: string;
  /** The part's resources in a store, by key. */
  resources(state: StoreState): Record<string, R>;
  /**
   * Whether a store may lack a resource of the catalog (through `overrides.exclude`). When false, a
   * store of the group must have every resource of the catalog (menus).
   */
  readonly excludable: boolean;
  /**
   * Whether `actual` (a store's resource) is what the catalog definition `def` gives that store once
   * the store's exclusions are applied. `has(sku)`: the store sells this item, group, option or
   * category (a missing SKU is excluded). Attributes a store file overrides (prices) are not compared.
   * Must agree with src/config/resolve.ts; the engine verifies every store anyway.
   */
  fits(def: R, actual: R, has: (sku: string) => boolean): boolean;
  /** Writes the chosen definitions into the catalog file. */
  write(catalog: CatalogFile, ctx: CatalogContext): void;
  /**
   * Store-file overrides of one store against the written catalog, by `overrides:` key (`prices`,
   * `titles`, ...), each by SKU. `exclude` is computed by the engine from the excludable parts.
   */
  overrides?(state: StoreState, catalog: CatalogFile): Record<string, Record<string, unknown>>;
}

/** A store part: a section (or more) of each store file, written from the store's own state. */
export interface StorePart {
  readonly name: string;
  /**
   * The sections this part writes in one store's file, e.g. `{ availability: { unavailable: [...] } }`;
   * sections of several parts under the same top-level key are merged one level deep. `undefined` or
   * `{}` when the store has nothing to write for this part.
   */
  sections(state: StoreState, catalog: CatalogFile): Record<string, unknown> | undefined;
}

/** One kind's contribution to `carte import`. */
export interface ImportPart {
  /** The registered resource kinds (src/kinds/registry.ts) this part exports, read by the importer. */
  readonly kinds: readonly string[];
  /**
   * Makes a store's state expressible in carte's files, in place, calling `note` for every loss. Parts
   * run in registry order; later parts see what earlier parts left.
   */
  sanitize?(state: StoreState, note: Note, ctx?: ImportContext): void;
  /** Set for a part that writes into shared catalogs. */
  readonly catalog?: CatalogPart<unknown>;
  /** Set for a part that writes sections of the store files. */
  readonly store?: StorePart;
}

/** An import part as a kind declares it (`ResourceKind.importPart`): the registry adds `kinds`. */
export type KindImportPart = Omit<ImportPart, "kinds">;
