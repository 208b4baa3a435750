/**
 * Wire shapes of the platform API used by carte's client and served by `carte emulator`.
 *
 * Sources: platform-spec.md §2.2 (store menu model), §2.3 (stock status), §4.1 (token login),
 * §4.3 (availability v2), §4.4 (store menu API), §7 (errors); and platform-notes.md, sections
 * "Authentication", "Errors", "Store menu API" and "Availability", which fill the shapes the spec marks
 * "not shown". Field names and spellings are the platform's, not ours.
 */

/** Path prefixes of the API groups (spec §4.1, §4.3, §4.4). */
export const Paths = {
  auth: "/restaurants/auth/v1",
  menu: "/restaurants/menu/v1/stores",
  availabilityV2: "/api/v2/restaurants-integrations-public-api",
} as const;

/** The message of an accepted asynchronous write (platform notes, "Errors"). */
export const ACCEPTED_MESSAGE = "Your request has been accepted.";

/** Request of both token logins (spec §4.1). */
export interface TokenRequest {
  client_id: string;
  client_secret: string;
}

/** Response of both token logins (spec §2.1, §4.1). `expires_in` is in seconds. */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
}

/** `{message}`: the usual error body and the accepted-write answer (spec §7, platform notes "Errors"). */
export interface MessageBody {
  message: string;
}

/** A menu validation failure (platform notes, "Errors"): 400 with a `type`. */
export interface MenuErrorBody {
  type: string;
  message: string;
}

/** `item_type` of a catalog item (spec §2.2). */
export type ItemType = "ITEM" | "MODIFIER_GROUP";

/** `modifiers_type` of a modifier group (spec §2.2, platform notes). */
export type ModifiersType = "inclusive" | "exclusive";

/**
 * Element of an item block's `overrides` array (platform notes, "Store menu API"):
 * `{override_id, override_sku, override_type, <the block's value field>}`.
 */
export interface WireOverride {
  override_id?: number | null;
  override_sku?: string | null;
  override_type: "STORE" | "ITEM" | "CATEGORY";
  [valueField: string]: unknown;
}

/** Schedule element of categories and `schedules_info` (platform notes): times are `HH:MM`. */
export interface WireSchedule {
  days_of_week: string;
  time_periods: { start_time: string; end_time: string }[];
}

/** Image of an item (spec §2.2). */
export interface WireImage {
  id?: number;
  path: string;
  index: number;
  host?: string;
}

/** Reference to a related item inside `items_info.items` (spec §2.2). Either id or sku identifies it. */
export interface WireItemRef {
  id?: number;
  sku?: string;
  index: number;
}

/**
 * An item as read from `GET /store-menu`, `GET /items` and `GET /items/{itemId}`, and as sent in
 * `POST /items` (spec §2.2; platform notes "Store menu API"). Upserts identify the item by `id` if given,
 * else by `sku`. `price_info.price` is a JSON number in the store currency as the platform writes it.
 */
export interface WireItem {
  id?: number;
  sku: string;
  storeId?: number;
  last_updated?: string;
  item_type: ItemType;
  title_info: { title: string; overrides?: WireOverride[] };
  description_info?: { description: string | null; overrides?: WireOverride[] };
  images_info?: { images: WireImage[]; overrides?: WireOverride[] };
  items_info?: { items: WireItemRef[]; overrides?: WireOverride[] };
  price_info?: { price: number | null; overrides?: WireOverride[] };
  quantity_info?: {
    min_permitted: number | null;
    max_permitted: number | null;
    modifiers_type: ModifiersType | null;
    overrides?: WireOverride[];
  };
  suspension_info?: {
    suspend_until: string | null;
    suspend_reason: string | null;
    is_available: boolean;
    overrides?: WireOverride[];
  };
  schedules_info?: { schedules: WireSchedule[]; overrides?: WireOverride[] };
}

/** Reference from a category to one of its items (platform notes: `{id, sku, index, menu_type}`). */
export interface WireCategoryItemRef {
  id?: number;
  sku?: string;
  index: number;
  menu_type?: string;
  menuId?: number;
  storeId?: number;
}

/**
 * A category as read from `GET /store-menu`, `GET /categories`, `GET /categories/{id}` and as sent in
 * `POST /categories` (spec §2.2, platform notes "Store menu API"). Categories hold only `ITEM`s.
 */
export interface WireCategory {
  id?: number;
  sku: string;
  storeId?: number;
  title: string;
  last_updated?: string;
  items: WireCategoryItemRef[];
  menus?: { id: number; menu_type: string; index: number; is_category_active: boolean; storeId?: number }[];
  schedules?: WireSchedule[];
}

/** Reference from a menu to a category (spec §2.2). */
export interface WireMenuCategoryRef {
  id?: number;
  sku?: string;
  index: number;
  is_category_active: boolean;
  storeId?: number;
}

/**
 * A menu in the form of the `/menu` endpoints (spec §2.2: `store_id`), and as sent in `POST /menu`.
 * A `POST /menu` element without `id` creates a new menu.
 */
export interface WireMenu {
  id?: number;
  store_id?: number;
  super_store_id?: number | null;
  menu_type: string;
  categories: WireMenuCategoryRef[];
}

/** A menu inside `GET /store-menu` (spec §2.2: `storeId`). */
export interface WireStoreMenuMenu {
  id: number;
  storeId: number;
  super_store_id: number | null;
  menu_type: string;
  categories: WireMenuCategoryRef[];
}

/** Response of `GET /store-menu` (spec §2.2 StoreMenu). */
export interface WireStoreMenu {
  storeId: number;
  menus: WireStoreMenuMenu[];
  categories: WireCategory[];
  items: WireItem[];
}

/** Body of `DELETE /categories` (platform notes: an object, unlike the menu and item deletes). */
export interface DeleteCategoriesBody {
  ids: number[];
}

/** `stock_out_state` values (platform notes, "Availability"). */
export type StockOutState = "AVAILABLE" | "UNAVAILABLE" | "UNKNOWN";

/** Body of `POST /availability/items/status` and `/availability/items/platform/status` (spec §4.3). */
export interface ItemStatusRequest {
  store_id: string;
  item_ids: string[];
}

/** Element of the answer of the v2 item status reads (spec §4.3). */
export interface ItemStatus {
  item_id: number;
  item_type: string;
  stock_out_state: StockOutState;
}

/**
 * Element of the body of `PUT /availability/stores/items` (spec §4.3). SKUs as strings;
 * the `/platform` variant takes integer platform ids. At most 100 items turned on or off per call
 * in total (platform notes, "Limits").
 */
export interface StoreItemsToggle {
  store_integration_id: string;
  items: { turn_on?: string[]; turn_off?: string[] };
}

/** Published limits the client and the emulator both respect (platform notes, "Limits"). */
export const Limits = {
  /** Items turned on or off in one availability items call, in total across stores. */
  availabilityItemsPerCall: 100,
  childrenPerItem: 50,
  itemsPerCategory: 50,
  imagesPerItem: 3,
  periodsPerSchedule: 6,
  skuLength: 500,
  titleLength: 1000,
  descriptionLength: 2000,
} as const;
