/**
 * Wire shapes of the platform API used by carte's client and served by `carte emulator`.
 *
 * The shapes are defined once, as JSON Schemas in `schemas/platform/*.schema.json` (the source of
 * truth), and generated into `src/generated/platform.ts` by `npm run gen`. This module gives them the
 * names the client, the resource kinds and the emulator use (`WireItem`, `WireStoreMenu`, ...), and holds
 * the constants that are neither shapes nor routes (messages, limits). Paths live in routes.ts. Every type of the token login, store menu
 * and availability groups is an alias of a generated type; the utils, finance and webhook shapes are used
 * by their generated names (`import type { PaymentPage } from "../generated/platform.js"`).
 *
 * Request types (`*Upsert`, aliased `WireItem`, `WireCategory`, `WireMenu`) are what an integration
 * sends: ids optional, read-only fields accepted. Read types (`Item`, `Category`, `Menu`, `StoreMenu`)
 * have every field the platform answers. A read item is assignable to `WireItem`, so reads can be
 * normalized with the same code.
 *
 * Sources: docs/platform-api.md §4.3 (store menu model), §4.4 (stock status), §2.1 (token login),
 * §2.3 (availability v2), §2.4 (store menu API), §4.10 (errors); and docs/platform-api.md §4.2, §4.10, §4.3,
 * §4.4, which fill the shapes the spec marks "not shown". Field names and spellings are the platform's, not
 * ours.
 */

import type {
  CategoryUpsert,
  Image,
  ItemUpsert,
  MenuUpsert,
  Override,
  Schedule,
  StoreMenu,
} from "../generated/platform.js";
import { ROUTES } from "./routes.js";

export type {
  Item as WireItemRead,
  ItemStatus,
  ItemType,
  ModifiersType,
  StoreItemsToggle,
  TokenRequest,
  TokenResponse,
} from "../generated/platform.js";

/** The message of an accepted asynchronous write (docs/platform-api.md §4.10). */
export const ACCEPTED_MESSAGE = "Your request has been accepted.";

/** Element of an item block's `overrides` array (schema `menu#/definitions/Override`). */
export type WireOverride = Override;

/** Schedule element of categories and `schedules_info`, times `HH:MM` (schema `menu#/definitions/Schedule`). */
export type WireSchedule = Schedule;

/** Image of an item (schema `menu#/definitions/Image`). */
export type WireImage = Image;

/**
 * An item as sent in `POST /items` (schema `menu#/definitions/ItemUpsert`), and the type the client
 * reads items into (a read `Item` is assignable to it). Upserts identify the item by `id` if given, else
 * by `sku`. `price_info.price` is a JSON number in the store currency as the platform writes it.
 */
export type WireItem = ItemUpsert;

/** A category as sent in `POST /categories` (schema `menu#/definitions/CategoryUpsert`). Only `ITEM`s. */
export type WireCategory = CategoryUpsert;

/**
 * A menu as sent in `POST /menu` (schema `menu#/definitions/MenuUpsert`); without `id` it creates a
 * new menu. Reads of `GET /menu` are `WireMenuRead`.
 */
export type WireMenu = MenuUpsert;

/** Response of `GET /store-menu` (schema `menu#/definitions/StoreMenu`). */
export type WireStoreMenu = StoreMenu;

/**
 * Published limits the client and the emulator both respect (docs/platform-api.md §4.11). Limits of the
 * number of elements of one call are the `maxElements` of their route (routes.ts); the others are here.
 */
export const Limits = {
  /** Items turned on or off in one availability items call, in total across stores (the route's `maxElements`). */
  availabilityItemsPerCall:
    ROUTES["PUT /api/v2/restaurants-integrations-public-api/availability/stores/items"].maxElements,
  childrenPerItem: 50,
  /**
   * Levels of modifier groups under an item: an item's groups are level 1, the groups of one of their
   * options level 2, and so on (ITEM → MODIFIER_GROUP → ITEM → MODIFIER_GROUP, docs/platform-api.md §4.3).
   * Deeper menus are refused with `invalid_item_depth`. The platform publishes no number; 3 is carte's
   * reading (docs/platform-api.md, "Nested modifier groups"): size → crust → toppings.
   */
  modifierGroupDepth: 3,
  itemsPerCategory: 50,
  imagesPerItem: 3,
  /** Time periods (slots) of one schedule, per day or days group: the one copy of this limit. */
  periodsPerSchedule: 6,
  skuLength: 500,
  titleLength: 1000,
  descriptionLength: 2000,
} as const;

/**
 * Event names of per-store webhooks (docs/platform-api.md §4.5 names only `NEW_ORDER`). The
 * one list of them: the configuration checks, the client and the emulator all use it.
 */
export const STORE_WEBHOOK_EVENTS = [
  "NEW_ORDER",
  "NEW_ORDER_SCHEDULED",
  "NEW_ORDER_SCHEDULED_CANCELLED",
  "ORDER_EVENT_CANCEL",
  "ORDER_OTHER_EVENT",
  "MENU_APPROVED",
  "MENU_REJECTED",
  "PING",
  "STORE_CONNECTIVITY",
  "ORDER_RT_TRACKING",
] as const;

/** Events of client-level webhooks (`/clients/{clientId}/webhooks`, docs/platform-api.md §4.5). */
export const CLIENT_WEBHOOK_EVENTS = ["STORE_PROVISIONING_STATUS"] as const;
