/**
 * The normalized state shared by the desired side (built from the YAML files) and the current side
 * (read from the platform). Both sides have exactly this shape, with canonical attribute values
 * (defaults filled, server-owned fields such as ids and timestamps removed), so that planning is a
 * plain comparison. Normalization of each resource kind lives in its module under `src/kinds/`.
 */

import type { ModifiersType } from "./generated/platform.js";

/**
 * An image of an item (docs/platform-api.md §4.3 `images_info.images` `{id, path, index, host}`): its path,
 * or its path and the host the platform serves it from. Canonical: a plain path when the platform has no host
 * for it (`host` absent, `null` or empty), so that files without hosts compare as before. The position is the
 * image's `index`; the platform's image `id` is the platform's own, like an item id.
 */
export type ImageRef = string | { path: string; host: string };

/** The path of an image. */
export function imagePath(image: ImageRef): string {
  return typeof image === "string" ? image : image.path;
}

/**
 * A catalog item or modifier group of one store, keyed by SKU. Prices are JSON numbers in the store's
 * currency exactly as the platform's `price_info.price` carries them (docs/platform-api.md §4.3): the number
 * whose shortest text is the price as the files write it. carte never does floating-point arithmetic on them:
 * comparisons, percentages and formatting go through src/money.ts, on exact decimals.
 */
export interface ItemResource {
  sku: string;
  /** `ITEM` (a product or an option) or `MODIFIER_GROUP` (docs/platform-api.md §4.3). */
  type: "ITEM" | "MODIFIER_GROUP";
  title: string;
  /** Empty string when absent. */
  description: string;
  /** Price in the platform's price unit; `null` for modifier groups without a price. */
  price: number | null;
  /** Images, in order (see {@link ImageRef}). */
  images: ImageRef[];
  /**
   * Ordered SKUs of related items: modifier groups of an ITEM (a product, or an option that offers
   * nested modifier groups), options of a MODIFIER_GROUP.
   */
  children: string[];
  /** Minimum options to choose; modifier groups only, `null` for items. */
  min: number | null;
  /** Maximum options to choose; modifier groups only, `null` for items. */
  max: number | null;
  /** Modifier groups only, `null` for items. */
  modifiersType: ModifiersType | null;
  /**
   * When the item is sold (menu API `schedules_info`); absent: always (never an empty list). Canonical
   * (`canonicalSchedules`: days with the same periods together, sorted by days, periods sorted by start
   * and merged), as reading and resolving give it: the planner compares it as it is.
   */
  schedules?: Schedule[];
  /**
   * Price of this item (an option) when chosen inside the parent item named by the key, at any level of
   * nesting (the parent is a product or an option that offers this option through one of its groups;
   * menu API `price_info.overrides` with `override_type: ITEM`, docs/platform-api.md §4.3); absent
   * when none.
   */
  priceInParent?: Record<string, number>;
}

/** A category of one store: a title and the ordered SKUs of the ITEMs it shows. */
export interface CategoryResource {
  sku: string;
  title: string;
  items: string[];
  /**
   * When the category is shown (menu API category `schedules`); absent: always (never an empty list).
   * Canonical, like an item's.
   */
  schedules?: Schedule[];
}

/** One category inside a menu, in order. */
export interface MenuCategoryEntry {
  sku: string;
  /** `is_category_active` of the platform (docs/platform-api.md §4.9). */
  active: boolean;
}

/** A menu of one store, keyed by its `menu_type` (unique per store in carte's model). */
export interface MenuResource {
  type: string;
  categories: MenuCategoryEntry[];
}

/**
 * The identity of a store on the platform (docs/platform-api.md §4.3 `storeId`, §2.3 `store_integration_id`).
 */
export interface StoreIdentity {
  /** carte's key of the store: its integration id. Used in addresses, e.g. `store[bog-centro]`. */
  key: string;
  /** Platform store id (uint64, kept as a decimal string to stay exact). */
  storeId: string;
  /** The merchant's integration id of the store. */
  integrationId: string;
  /** Human name. */
  name: string;
  /**
   * Desired side: the store's time zone (`timezone:` of the files, an IANA name such as
   * `America/Bogota`), in which the files' local times were read; absent when no file gives one.
   */
  timeZone?: string;
}

/**
 * The details of one switched-off item (src/kinds/availability.ts): when the platform switches it back on
 * (`suspension_info.suspend_until`, ISO 8601 with offset, as carte writes it) and, on the current side,
 * whether carte switched it off (`suspension_info.suspend_reason` is carte's marker,
 * {@link CARTE_SUSPEND_REASON}).
 */
export interface Suspension {
  /** ISO 8601 date and time with offset, e.g. `2026-11-25T18:00:00-05:00`. */
  until?: string;
  /**
   * Desired side: `until` as the store's people read it, in its time zone and with its date
   * (`2026-11-26 18:00 GMT-5`, src/time/zone.ts `localText`), for the menu preview; absent when the
   * store has no time zone. No words relative to a day: the desired state's digest must not change
   * from one day to the next for the same instant.
   */
  shown?: string;
  /** Current side: carte switched the item off (its marker is on the platform). */
  byCarte?: boolean;
}

/**
 * The `suspension_info.suspend_reason` carte writes on the items it switches off, so that a later run
 * tells them from items staff switched off (docs/platform-api.md, "Who switched an item off").
 */
export const CARTE_SUSPEND_REASON = "carte";

/** A day of the week as the platform writes it (docs/platform-api.md §4.6, §4.7). */
export type Weekday = "mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun";

/** The days of the week in the platform's order. */
export const WEEKDAYS: readonly Weekday[] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/**
 * A time slot of one day, `start` before `end`, both `HH:MM` in 24-hour store-local time. A slot that
 * crosses midnight is split by the configuration layer before it gets here (docs/platform-api.md §3.6: the
 * platform takes start < end).
 */
export interface Slot {
  start: string;
  end: string;
}

/**
 * A schedule of a category or an item (menu API, docs/platform-api.md §4.3): the days it holds
 * (`mon,…,sun` and `hol` for holidays, canonical order, comma-separated) and its time periods.
 */
export interface Schedule {
  days: string;
  periods: Slot[];
}

/**
 * Who owns a kind of resource: `full` (what the files do not list is deleted), `additive` (never
 * deletes, never takes back), `ignore` (not read, not touched).
 */
export type Ownership = "full" | "additive" | "ignore";

/**
 * Everything carte manages in one store, normalized: the store's identity, the state of each kind
 * under the kind's name in {@link StoreState.kinds}, and what concerns several kinds at once (through
 * which API schedules go, what a read found that no kind can hold).
 */
export interface StoreState {
  store: StoreIdentity;
  /**
   * Through which API the schedules of categories and items are written: the menu API (default) or
   * the older utils group (corridor and product schedules, docs/platform-api.md §2.5). A setting of the files
   * (`schedules_via:`), not platform state: the planner gives the current side the desired side's
   * value. Kept here rather than in one kind's state because it decides between kinds: the items and
   * categories kinds leave schedules out of their comparison under `utils`, and the corridor and
   * product schedule kinds are managed only then; the plan records it per store.
   */
  schedulesVia?: "menu" | "utils";
  /**
   * Current side only: what the platform holds that carte's model does not (per-store `STORE` overrides
   * of an item's blocks, a suspension with an end date…), by address segment and key (`item[PIZZA]`),
   * in words. Planning ignores it; `carte import` lists it as what the files cannot express. Kept here
   * rather than in one kind's state because it is metadata about the read, not state any kind compares,
   * and is keyed by address, so that any kind's read can add what it could not hold and the import
   * lists it in one place.
   */
  unread?: Record<string, string[]>;
  /**
   * The state of every kind, under the kind's name (`item`, `category`, `menu`, `availability`,
   * `store_hours`, `holiday`, `webhook`…): each kind declares its state's type and reads and writes it
   * through its {@link KindState} (the catalog kinds' in src/kinds/catalog.ts, the others' in their
   * modules). A settings kind absent: the files do not manage it in this store (desired side), or it
   * was not read (current side), and carte neither reads nor changes it there; a catalog kind absent:
   * the store has none of its resources (src/kinds/catalog.ts). Absent when no kind has a state. A
   * table without prototype (see {@link table}).
   */
  kinds?: Record<string, unknown>;
}

/**
 * Where a kind keeps its state in a store's state: under its name in {@link StoreState.kinds}, with the
 * type the kind declares (`Record<Weekday, Slot[]>` for store hours). The kind's read writes it on the
 * current side, its settings section on the desired side; the kind's `select`, its import part and
 * whoever needs the kind's state read it through here, never through a field of its own.
 *
 * @typeParam T - the kind's state in one store.
 */
export interface KindState<T> {
  /** The kind's name: the key of its state in {@link StoreState.kinds}. */
  readonly kind: string;
  /** The kind's state in a store, `undefined` when the kind is not managed (or not read) there. */
  get(state: Pick<StoreState, "kinds">): T | undefined;
  /** Sets the kind's state in a store (or in the settings the config loader merges). */
  set(state: Pick<StoreState, "kinds">, value: T): void;
  /** Removes the kind's state from a store: the kind is no longer managed there. */
  clear(state: Pick<StoreState, "kinds">): void;
}

/** The {@link KindState} of the kind named `kind`. */
export function kindState<T>(kind: string): KindState<T> {
  return {
    kind,
    get: (state) =>
      state.kinds !== undefined && Object.hasOwn(state.kinds, kind) ? (state.kinds[kind] as T) : undefined,
    set(state, value) {
      (state.kinds ??= table())[kind] = value;
    },
    clear(state) {
      if (state.kinds !== undefined && Object.hasOwn(state.kinds, kind)) delete state.kinds[kind];
    },
  };
}

/**
 * The settings of one store as the config loader merges them from the layers it inherits (each kind's
 * settings section writes its own state, src/kinds/resource-kind.ts `ConfigSection`).
 */
export type StoreSettings = Partial<Pick<StoreState, "schedulesVia" | "kinds">>;

/** Settings that belong to the client (the integration) rather than to a store. */
export interface ClientState {
  /**
   * Client-level webhooks by event (docs/platform-api.md §2.7 `/clients/{clientId}/webhooks`), e.g.
   * STORE_PROVISIONING_STATUS.
   */
  webhooks?: Record<string, { url: string }>;
}

/**
 * Platform ids of the resources that exist in a store, known only on the current side. Planning needs
 * them to update menus (which have no SKU) and to delete anything (deletes take ids,
 * docs/platform-api.md §2.4).
 */
export interface StoreIds {
  items: Record<string, number>;
  categories: Record<string, number>;
  menus: Record<string, number>;
  /** Ids other kinds need, by kind name, then by resource key (e.g. slot ids of each day). */
  other: Record<string, Record<string, unknown>>;
}

/** The desired state: what the files say, per store key. */
export interface DesiredState {
  stores: Record<string, StoreState>;
  /**
   * ISO 4217 code of the currency of every price (carte.yaml `currency:`), when the files declare
   * one; plans carry it to show prices as people of the currency read them (src/money.ts).
   */
  currency?: string;
  /** Client-level settings, when the files manage any. */
  client?: ClientState;
}

/** The current state: what the platform has, per store key, with the platform ids. */
export interface CurrentState {
  stores: Record<string, StoreState & { ids: StoreIds }>;
  /** Client-level settings as read, when a managed client kind asked for them. */
  client?: ClientState & { ids: Record<string, Record<string, unknown>> };
}

/**
 * An empty table keyed by user input (SKUs, store keys, dates, events): an object without prototype, so
 * that a key such as `constructor`, `toString` or `__proto__` is an ordinary key and never an inherited
 * member of `Object.prototype`. Read such tables with {@link own} when they may have been copied (a
 * spread or `JSON.parse` gives an ordinary object again).
 */
export function table<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/**
 * The value of a table under a key, only when the table has it as its own property: `undefined` for
 * `constructor` in a table without such a key, whatever the table's prototype.
 */
export function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Empty platform ids (tables without prototype, see {@link table}). */
export function emptyIds(): StoreIds {
  return { items: table(), categories: table(), menus: table(), other: table() };
}

/**
 * An empty store state for the given identity: no kind has a state yet (each kind's read, or its
 * settings section, sets its own).
 */
export function emptyStore(store: StoreIdentity): StoreState {
  return { store };
}
