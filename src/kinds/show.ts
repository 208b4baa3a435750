/**
 * What a kind declares about how its changes are shown: in the plan's text and Markdown views
 * ({@link KindView}, laid out by src/render/view.ts) and on the pages of `carte preview`
 * ({@link KindPreview}, put together by src/render/menu-pages.ts). The renderers ask the kinds, in
 * registry order, and name none: a kind that declares no view is shown by its attributes
 * (`SEGMENT KEY` and the attributes that changed), one that declares no preview is counted on its
 * store's page only.
 */

import type { ImageRef, StoreState } from "../model.js";
import type { Currency } from "../money.js";
import type { Detail, ViewContext, ViewEntry } from "../show/view-model.js";
import type { KindChange } from "./change.js";

/** How the plan's text and Markdown views show a kind's changes. Every member is pure. */
export interface KindView {
  /**
   * The view of one change with its place among the store's changes (src/show/view-model.ts
   * `ViewEntry`), usually one entry; a change may show as several (an option's prices inside parents
   * its path does not name, each under that parent). The first entry gives the place of the change's
   * line when it is counted among many (`+ 42 items: …`).
   */
  change?(change: KindChange, ctx: ViewContext): ViewEntry[];
  /**
   * All the kind's changes of a store as one entry (store hours: one line per run of days with the same
   * change), in place of {@link change}; such changes are never counted among many.
   */
  store?(changes: readonly KindChange[], ctx: ViewContext): ViewEntry;
  /**
   * The words of a change's resource, singular and plural, when they depend on the change (an item a
   * modifier group offers is an `option`); absent or `undefined`: the kind's `nouns` of the change's
   * segment.
   */
  noun?(change: KindChange): readonly [string, string] | undefined;
  /**
   * What a count line of many creates (or deletes) of the kind's resources in a store (`+ 42 items: A,
   * B, … and 39 more`) lists under it, so that a reviewer still reads what matters of each (a new
   * item's price); absent: the count line alone.
   */
  manyDetails?(changes: readonly KindChange[], ctx: ViewContext): Detail[];
  /**
   * Whether the titles of the kind's resources name their keys in the store's other changes (an item's
   * title beside the change of its availability, src/show/view-model.ts `ViewContext.titles`).
   */
  names?: boolean;
}

/**
 * One store's page of `carte preview` as the kinds draw on it: the store's desired state with the
 * plan's changes laid over it. A kind's part reads it, and records the origins of the images it draws.
 */
export interface PreviewPage {
  /** The store's desired state (the files); `undefined`: the page shows the plan's changes alone. */
  readonly state: StoreState | undefined;
  /** The plan's currency (carte.yaml `currency:`), to write prices as people of it read them. */
  readonly currency: Currency | undefined;
  /** The plan's change of a resource of the store, by the name of its kind and its key. */
  change(kind: string, key: string): KindChange | undefined;
  /** The plan's changes of the store's resources of a kind, in plan order. */
  changes(kind: string): readonly KindChange[];
  /**
   * The origins images may come from on this page: those the platform serves the chain's images from
   * ({@link KindPreview.images}); an image from any other origin is never drawn.
   */
  readonly imageHosts: ReadonlySet<string>;
  /** The origins of the images the page draws, which its policy allows: a part adds each it draws. */
  readonly drawn: Set<string>;
}

/**
 * How a kind shows on a store's page of `carte preview` (docs/preview.md): the plan's changes of the
 * kind's resources are drawn there, marked, and no longer counted as changes outside the page. The HTML
 * a part gives is whole elements, every value of the files or the platform escaped
 * (src/show/html.ts). Pure.
 */
export interface KindPreview {
  /**
   * The kind's part of the page, after the plan, in registry order: the menus with their categories,
   * items and modifier groups; a section of the kind's own. Absent for a kind drawn inside another
   * kind's part (a category inside its menu, an item's availability on the item).
   *
   * Given as pieces, written one after the other as they are (none joined to another): a piece is a
   * whole element or a run of them of about one category's or one group's size, so that a page of a big
   * menu is never one text of hundreds of KB while the next is drawn (a preview of a thousand stores
   * writes one such page after another).
   */
  page?(page: PreviewPage): readonly string[];
  /**
   * The images the kind's resources draw: `of` one resource (a change's `before`), `all` of a store's
   * state by key. The origins of the images the platform holds (the resources before the plan) are
   * those a page may draw from (src/render/menu-pages.ts `platformImageHosts`).
   */
  images?: {
    of(resource: unknown): readonly ImageRef[] | undefined;
    all(state: StoreState): Readonly<Record<string, unknown>>;
  };
}
