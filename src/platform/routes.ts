/**
 * The route table of the platform API: every endpoint, once, keyed `"METHOD /path"` exactly as
 * docs/platform-api.md §2 writes it (group prefix included, `{name}` path parameters), with the facts carte
 * needs to call it and the emulator needs to serve it. It is the one place a path of the platform is
 * written: the client (`PlatformClient.request`, `call`), the typed calls of src/platform/, the
 * emulator's router (src/emulator/) and the conformance suite (test/conformance/) all read it.
 *
 * Octokit's habit (`"POST /repos/{owner}/{repo}/issues"`): a route is named by its spec line, and the
 * path is filled from it with {@link routePath}.
 *
 * What a row says ({@link RouteSpec}):
 * - `group`: the API group of the route ({@link API_GROUPS}), whose address the call goes to;
 * - `surface`: which token the call needs (docs/platform-api.md §4.2: a utils token for
 *   everything under `/api/rest-ops-utils`, an integrations token for everything else; `none` for the
 *   logins themselves, docs/platform-api.md §2.1);
 * - `idempotent`: whether sending the call twice has the same outcome as sending it once, so that a call
 *   whose answer was lost may be repeated (a function of the body where that depends on the body);
 * - `request`, `response`, `query`: names of definitions of schemas/platform/ (`PlatformSchemaName`);
 *   `response` absent: the answer has no body (204). The client checks every 2xx answer against its
 *   `response` before using it (`PlatformClient.decode`, src/platform/schemas.ts), and the emulator
 *   and the conformance suite hold the emulator's answers to the same definition;
 * - `secret`: the answer carries a secret (a token, a webhook secret), so that a malformed one is
 *   described without quoting any of it;
 * - `maxElements`: the most elements one call may carry (docs/platform-api.md §4.11), where published;
 * - `synchronous` (writes only): whether the platform applies the write before it answers (utils,
 *   webhooks, the synchronous store call), rather than accepting it for later processing;
 * - `maxResponseBytes`: the most bytes carte reads of an answer (any status); absent, 1 MiB;
 * - `section`: the section of docs/platform-api.md that lists the endpoint (§2.1 to §2.7);
 * - `statuses`: the 2xx statuses of a success, where not 200 (204 without `response`);
 * - `errors`: statuses of failures whose body is not, or not only, the usual `Message`, or that only
 *   this route answers (a 406 for an unknown event); every other failure answers `Message`;
 * - `assumptions`: choices carte makes about the route where the spec is silent ({@link ASSUMPTIONS}),
 *   marked `x-carte-assumption` in the published description, docs/openapi.yaml.
 *
 * Adding an endpoint: one row here (and its schema definitions in schemas/platform/, `npm run gen`);
 * the emulator serves it when a route of src/emulator/ names the row.
 */

import { InternalError } from "../errors.js";
import type { PlatformSchemaName } from "../generated/platform.js";

/**
 * Which token a call needs (docs/platform-api.md §4.2): tokens are per surface, a utils token is
 * refused by the integrations endpoints and vice versa. `none`: no token (the logins,
 * docs/platform-api.md §2.1). The one `Surface` type of carte: the client and the emulator both use it.
 */
export type Surface = "integrations" | "utils" | "none";

/**
 * A surface that has a token: what `POST /restaurants/auth/v1/token/login/{surface}` issues
 * (docs/platform-api.md §2.1).
 */
export type TokenSurface = Exclude<Surface, "none">;

/**
 * The API groups of the platform, in the order of docs/platform-api.md §2: token login (§2.1), the store menu
 * API with the legacy stock calls under its prefix (§2.2, §2.4), finance (§2.6), availability v2 (§2.3),
 * webhooks (§2.7) and utils (§2.5). Each group may live at an address of its own (docs/platform-api.md §4.13:
 * the newer groups auth, menu and finance on one host of a country, the older availability v2, webhooks and
 * utils on another), so that every call goes to its group's address.
 */
export const API_GROUPS = ["auth", "menu", "finance", "availability", "webhooks", "utils"] as const;

/** One of {@link API_GROUPS}. */
export type ApiGroup = (typeof API_GROUPS)[number];

/**
 * The token the calls of each group carry (docs/platform-api.md §4.2: a utils token for
 * everything under `/api/rest-ops-utils`, an integrations token for everything else; none for the
 * logins, docs/platform-api.md §2.1). A route's `surface` is its group's, which the route table's tests hold.
 */
export const GROUP_SURFACE: Readonly<Record<ApiGroup, Surface>> = {
  auth: "none",
  menu: "integrations",
  finance: "integrations",
  availability: "integrations",
  webhooks: "integrations",
  utils: "utils",
};

/**
 * The base address of each API group of the platform ({@link API_GROUPS}), e.g. the menu group's
 * `https://menu.example.test`: every call goes to the address of its route's group
 * (docs/platform-api.md §4.13).
 */
export type PlatformHosts = Readonly<Record<ApiGroup, string>>;

/** The same address for every API group: the one-address case. */
export function oneHost(baseUrl: string): PlatformHosts {
  return Object.fromEntries(API_GROUPS.map((g) => [g, baseUrl])) as Record<ApiGroup, string>;
}

/** The HTTP methods of the platform API (docs/platform-api.md §2). */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One row of {@link ROUTES}. */
export interface RouteSpec {
  /**
   * The API group the route belongs to: the address the call goes to (a project may give each group
   * its own, src/platform/client.ts) and, through {@link GROUP_SURFACE}, the token it carries.
   */
  readonly group: ApiGroup;
  /** The token the call needs: its group's ({@link GROUP_SURFACE}). */
  readonly surface: Surface;
  /**
   * Whether repeating the call cannot change its outcome, so that a call whose answer was lost may be
   * sent again. A function when it depends on the body: see {@link routeIdempotent}.
   */
  readonly idempotent: boolean | ((body: unknown) => boolean);
  /** Definition of schemas/platform/ of the request body; absent: no body. */
  readonly request?: PlatformSchemaName;
  /**
   * Definition of schemas/platform/ of a 2xx answer's body; absent: no body (204). Every answer is
   * checked against it before use (`PlatformClient.decode`).
   */
  readonly response?: PlatformSchemaName;
  /**
   * The answer carries a secret (an access token, a webhook secret): a malformed answer is described by
   * where it is wrong only, never quoted (no excerpt, no value).
   */
  readonly secret?: true;
  /**
   * Definition of schemas/platform/ listing the query parameters (finance reads, docs/platform-api.md §2.6).
   */
  readonly query?: PlatformSchemaName;
  /** Most elements one call may carry (docs/platform-api.md §4.11); absent: no published limit. */
  readonly maxElements?: number;
  /**
   * The most bytes carte reads of one answer of this route, whatever its status, counted as they arrive:
   * a longer answer is cut off there and the call fails (src/platform/client.ts). Absent:
   * {@link DEFAULT_ANSWER_BYTES}. The figures and why: docs/platform-api.md "Bounds of an answer".
   */
  readonly maxResponseBytes?: number;
  /**
   * Writes only: `true` when the platform applies the write before it answers (a read right after
   * shows it), `false` when it accepts the write and processes it later. Absent on reads.
   */
  readonly synchronous?: boolean;
  /** The section of docs/platform-api.md that lists the endpoint, e.g. `§2.4`. */
  readonly section: `§2.${number}`;
  /** The statuses of a success, where not `[200]` (`[204]` when the route has no `response`). */
  readonly statuses?: readonly number[];
  /**
   * Failures of this route beyond the usual ones, or whose body is not only `Message`
   * (docs/platform-api.md §4.10): status → the definitions of schemas/platform/ its body may match.
   */
  readonly errors?: Readonly<Record<number, readonly PlatformSchemaName[]>>;
  /** Choices carte makes about this route where the spec is silent: texts of {@link ASSUMPTIONS}. */
  readonly assumptions?: readonly string[];
}

/**
 * The choices carte makes about single routes where the platform's documentation is silent,
 * each marked `x-carte-assumption` on its routes in docs/openapi.yaml and listed, word for word, in
 * docs/platform-api.md ("Assumptions the description marks"); choices about shapes are marked in the
 * schemas of schemas/platform/ (`x-carte-assumption`).
 */
export const ASSUMPTIONS = {
  accepted:
    "An accepted asynchronous write answers 200 with the accepted message (the availability guide also says 202); reads show the write once the platform has processed it.",
  legacyAccepted:
    'The legacy stock PATCH answers {"message": "Your request has been accepted"}, without the final period.',
  login: 'Wrong credentials at login answer 401 {"message": "Invalid credentials"} (some sources say 403).',
  deprecation:
    "Every answer of the utils group carries x-platform-api-deprecation-date and x-platform-api-deprecation-info; the date is a placeholder, since the removal date is not published.",
  webhookCreate:
    "POST /webhook answers 200 (not 201); posting an event again keeps its secret and adds the listed stores.",
  webhookSync: "Webhook writes are applied before the answer: a read right after shows them.",
  clientWebhooks:
    "Client-level webhooks live under the v2 prefix (/clients/{clientId}/webhooks); another client's id answers 403.",
  expectExecution:
    "expect_execution_date:lte (the spec's name) filters expected_execution_date, like its :gte partner.",
} as const;

const MIB = 1024 * 1024;

/**
 * The cap of an answer whose route names none: messages, tokens, one slot or webhook, the status of at
 * most a few hundred stores (docs/platform-api.md §4.11). A few KiB each in practice.
 */
export const DEFAULT_ANSWER_BYTES = 1 * MIB;

/**
 * The cap of a read of one store's records (its items, categories, menus, statuses, schedules, a page
 * of finance entries, the webhook configurations): half the cap of a whole catalog, of which each of
 * these is a part.
 */
export const READ_ANSWER_BYTES = 8 * MIB;

/**
 * The cap of a store's whole catalog (`GET /store-menu`): 35 times the 473 KB menu of the benchmark
 * chain (docs/performance.md), and small enough that the worst answer under it, `[{},{},…]`, parses in
 * about 0.6 GB (docs/platform-api.md "Bounds of an answer").
 */
export const STORE_MENU_ANSWER_BYTES = 16 * MIB;

/** `POST /menu` is idempotent only when every menu names its id: a menu without one is created anew. */
function everyMenuHasId(menus: unknown): boolean {
  return Array.isArray(menus) && menus.every((m) => typeof (m as { id?: unknown } | null)?.id === "number");
}

/**
 * `POST /store-menu` (docs/platform-api.md §2.4): repeated, it replaces the catalog with the same one, unless
 * a menu lacks its id.
 */
function storeMenuIsIdempotent(body: unknown): boolean {
  const menus = (body as { menus?: unknown } | null)?.menus;
  return menus === undefined || everyMenuHasId(menus);
}

/**
 * A utils schedule (corridor or product, docs/platform-api.md §2.5): get, create (appends), update, delete a
 * detail.
 */
const utilsRead = { surface: "utils", group: "utils", idempotent: true, section: "§2.5" } as const;
const utilsCreate = {
  surface: "utils",
  group: "utils",
  idempotent: false,
  synchronous: true,
  section: "§2.5",
} as const;
const utilsChange = {
  surface: "utils",
  group: "utils",
  idempotent: true,
  synchronous: true,
  section: "§2.5",
} as const;

/**
 * A webhook write (docs/platform-api.md §2.7): applied before the answer (emulator assumption,
 * docs/platform-api.md §3.8).
 */
const hookWrite = {
  surface: "integrations",
  group: "webhooks",
  idempotent: true,
  synchronous: true,
  section: "§2.7",
} as const;

/**
 * Every endpoint of the platform (docs/platform-api.md §2), keyed as the spec writes it. See the module
 * comment for what a row says.
 */
export const ROUTES = {
  // ---- docs/platform-api.md §2.1 token login: no token; a login has no effect beyond issuing a token, hence
  // idempotent.
  "POST /restaurants/auth/v1/token/login/integrations": {
    surface: "none",
    group: "auth",
    idempotent: true,
    request: "TokenRequest",
    response: "TokenResponse",
    secret: true,
    section: "§2.1",
    assumptions: [ASSUMPTIONS.login],
  },
  "POST /restaurants/auth/v1/token/login/utils": {
    surface: "none",
    group: "auth",
    idempotent: true,
    request: "TokenRequest",
    response: "TokenResponse",
    secret: true,
    section: "§2.1",
    assumptions: [ASSUMPTIONS.login],
  },

  // ---- docs/platform-api.md §2.2 legacy bulk availability: a PATCH sets states (idempotent), applied
  // asynchronously (§4.9).
  "PATCH /restaurants/menu/v1/stores/{storeId}/products/{identityType}/stock": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    request: "StockPatch",
    response: "Message",
    synchronous: false,
    section: "§2.2",
    assumptions: [ASSUMPTIONS.legacyAccepted],
  },
  "POST /restaurants/menu/v1/stores/{storeId}/products/{identityType}/stock/status": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    request: "ProductsStockStatusRequest",
    response: "StockStatusList",
    maxResponseBytes: READ_ANSWER_BYTES,
    section: "§2.2",
  },
  "PATCH /restaurants/menu/v1/stores/{storeId}/toppings/{identityType}/stock": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    request: "StockPatch",
    response: "Message",
    synchronous: false,
    section: "§2.2",
    assumptions: [ASSUMPTIONS.legacyAccepted],
  },
  "POST /restaurants/menu/v1/stores/{storeId}/toppings/{identityType}/stock/status": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    request: "ToppingsStockStatusRequest",
    response: "StockStatusList",
    maxResponseBytes: READ_ANSWER_BYTES,
    section: "§2.2",
  },
  "PATCH /restaurants/menu/v1/stores/{storeId}/items/{identityType}/stock": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    request: "StockPatch",
    response: "Message",
    synchronous: false,
    section: "§2.2",
    assumptions: [ASSUMPTIONS.legacyAccepted],
  },
  "POST /restaurants/menu/v1/stores/{storeId}/items/{identityType}/stock/status": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    request: "ItemsStockStatusRequest",
    response: "StockStatusList",
    maxResponseBytes: READ_ANSWER_BYTES,
    section: "§2.2",
  },

  // ---- docs/platform-api.md §2.3 availability v2: status reads are POSTs (idempotent); toggles set states,
  // asynchronously.
  "POST /api/v2/restaurants-integrations-public-api/availability/items/status": {
    surface: "integrations",
    group: "availability",
    idempotent: true,
    request: "ItemStatusRequest",
    response: "ItemStatusList",
    maxResponseBytes: READ_ANSWER_BYTES,
    section: "§2.3",
  },
  "POST /api/v2/restaurants-integrations-public-api/availability/items/platform/status": {
    surface: "integrations",
    group: "availability",
    idempotent: true,
    request: "ItemStatusRequest",
    response: "ItemStatusList",
    maxResponseBytes: READ_ANSWER_BYTES,
    section: "§2.3",
  },
  /**
   * Items turned on or off: at most 100 in total across the stores of one call (docs/platform-api.md §4.11).
   */
  "PUT /api/v2/restaurants-integrations-public-api/availability/stores/items": {
    surface: "integrations",
    group: "availability",
    idempotent: true,
    request: "StoreItemsToggleList",
    response: "Message",
    maxElements: 100,
    synchronous: false,
    section: "§2.3",
    errors: { 400: ["MessageList"] },
  },
  "PUT /api/v2/restaurants-integrations-public-api/availability/stores/items/platform": {
    surface: "integrations",
    group: "availability",
    idempotent: true,
    request: "StoreItemsTogglePlatformList",
    response: "Message",
    maxElements: 100,
    synchronous: false,
    section: "§2.3",
    errors: { 400: ["MessageList"] },
  },
  /** Whether stores take orders: at most 100 store ids per call (docs/platform-api.md §4.11). */
  "POST /api/v2/restaurants-integrations-public-api/availability/stores": {
    surface: "integrations",
    group: "availability",
    idempotent: true,
    request: "StoreIdList",
    response: "StoreStatusMap",
    maxElements: 100,
    section: "§2.3",
  },
  "PUT /api/v2/restaurants-integrations-public-api/availability/stores": {
    surface: "integrations",
    group: "availability",
    idempotent: true,
    request: "StoreToggle",
    response: "Message",
    synchronous: false,
    section: "§2.3",
  },
  "PUT /api/v2/restaurants-integrations-public-api/availability/stores/enable/massive": {
    surface: "integrations",
    group: "availability",
    idempotent: true,
    request: "StoreEnableRequest",
    response: "Message",
    synchronous: false,
    section: "§2.3",
  },
  /** The synchronous store call: at most 300 stores (more: 422, docs/platform-api.md §4.11). */
  "PUT /api/v2/restaurants-integrations-public-api/availability/stores/enable": {
    surface: "integrations",
    group: "availability",
    idempotent: true,
    request: "StoreEnableRequest",
    response: "StoreEnableResponse",
    maxElements: 300,
    synchronous: true,
    section: "§2.3",
    errors: { 422: ["Message"] },
  },

  // ---- docs/platform-api.md §2.4 store menu API: upserts by id, else by SKU (docs/platform-api.md §4.3),
  // processed asynchronously.
  "GET /restaurants/menu/v1/stores/{storeId}/store-menu": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    response: "StoreMenu",
    maxResponseBytes: STORE_MENU_ANSWER_BYTES,
    section: "§2.4",
  },
  "POST /restaurants/menu/v1/stores/{storeId}/store-menu": {
    surface: "integrations",
    group: "menu",
    idempotent: storeMenuIsIdempotent,
    request: "StoreMenuUpload",
    response: "Message",
    synchronous: false,
    section: "§2.4",
    errors: { 400: ["Message", "MenuError"] },
  },
  "GET /restaurants/menu/v1/stores/{storeId}/menu": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    response: "MenuList",
    maxResponseBytes: READ_ANSWER_BYTES,
    section: "§2.4",
  },
  /** Idempotent only when every menu carries its id: a menu without one is created by each call. */
  "POST /restaurants/menu/v1/stores/{storeId}/menu": {
    surface: "integrations",
    group: "menu",
    idempotent: everyMenuHasId,
    request: "MenuUpsertList",
    response: "Message",
    synchronous: false,
    section: "§2.4",
    errors: { 400: ["Message", "MenuError"] },
  },
  "DELETE /restaurants/menu/v1/stores/{storeId}/menu": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    request: "IdList",
    response: "Message",
    synchronous: false,
    section: "§2.4",
  },
  "GET /restaurants/menu/v1/stores/{storeId}/menu/{menuId}": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    response: "Menu",
    maxResponseBytes: READ_ANSWER_BYTES,
    section: "§2.4",
  },
  "GET /restaurants/menu/v1/stores/{storeId}/categories": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    response: "CategoryList",
    maxResponseBytes: READ_ANSWER_BYTES,
    section: "§2.4",
  },
  "POST /restaurants/menu/v1/stores/{storeId}/categories": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    request: "CategoryUpsertList",
    response: "Message",
    synchronous: false,
    section: "§2.4",
    errors: { 400: ["Message", "MenuError"] },
  },
  "DELETE /restaurants/menu/v1/stores/{storeId}/categories": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    request: "DeleteCategoriesBody",
    response: "Message",
    synchronous: false,
    section: "§2.4",
    errors: { 400: ["Message", "MenuError"] },
  },
  "GET /restaurants/menu/v1/stores/{storeId}/categories/{categoryId}": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    response: "Category",
    maxResponseBytes: READ_ANSWER_BYTES,
    section: "§2.4",
  },
  "GET /restaurants/menu/v1/stores/{storeId}/items": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    response: "ItemList",
    maxResponseBytes: READ_ANSWER_BYTES,
    section: "§2.4",
  },
  "POST /restaurants/menu/v1/stores/{storeId}/items": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    request: "ItemUpsertList",
    response: "Message",
    synchronous: false,
    section: "§2.4",
    errors: { 400: ["Message", "MenuError"] },
  },
  "DELETE /restaurants/menu/v1/stores/{storeId}/items": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    request: "IdList",
    response: "Message",
    synchronous: false,
    section: "§2.4",
    errors: { 400: ["Message", "MenuError"] },
  },
  "GET /restaurants/menu/v1/stores/{storeId}/items/{itemId}": {
    surface: "integrations",
    group: "menu",
    idempotent: true,
    response: "Item",
    maxResponseBytes: READ_ANSWER_BYTES,
    section: "§2.4",
  },
  /** Named in docs/platform-api.md §2.4 but part of the utils group (utils token). */
  "GET /api/rest-ops-utils/menu/integration/{integrationId}": {
    surface: "utils",
    group: "utils",
    idempotent: true,
    response: "MenuStatus",
    section: "§2.4",
  },

  // ---- docs/platform-api.md §2.5 utils: corridors and corridor schedules, by store and by integration.
  // Writes are synchronous (spec: "with generated ids"); a POST appends details, hence not idempotent.
  "GET /api/rest-ops-utils/corridor/store/{storeId}": {
    ...utilsRead,
    response: "CorridorByStoreList",
    maxResponseBytes: READ_ANSWER_BYTES,
  },
  "GET /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}": {
    ...utilsRead,
    response: "CorridorScheduleByStore",
    maxResponseBytes: READ_ANSWER_BYTES,
  },
  "POST /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}": {
    ...utilsCreate,
    request: "ScheduleCreate",
    response: "CorridorScheduleByStore",
  },
  "PUT /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}": {
    ...utilsChange,
    request: "ScheduleUpdate",
    response: "CorridorScheduleByStore",
  },
  "DELETE /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}/{corridorProductScheduleId}": {
    ...utilsChange,
  },
  "GET /api/rest-ops-utils/corridor/integration/{integrationId}": {
    ...utilsRead,
    response: "CorridorByIntegrationList",
    maxResponseBytes: READ_ANSWER_BYTES,
  },
  "GET /api/rest-ops-utils/corridor/schedule/{corridorId}/integration/{integrationId}": {
    ...utilsRead,
    response: "CorridorScheduleByIntegration",
    maxResponseBytes: READ_ANSWER_BYTES,
  },
  "POST /api/rest-ops-utils/corridor/schedule/{corridorId}/integration/{integrationId}": {
    ...utilsCreate,
    request: "ScheduleCreate",
    response: "CorridorScheduleByIntegration",
  },
  "PUT /api/rest-ops-utils/corridor/schedule/{corridorId}/integration/{integrationId}": {
    ...utilsChange,
    request: "ScheduleUpdate",
    response: "CorridorScheduleByIntegration",
  },
  "DELETE /api/rest-ops-utils/corridor/schedule/{corridorId}/integration/{integrationId}/{corridorProductScheduleId}":
    { ...utilsChange },

  // ---- docs/platform-api.md §2.5 product schedules by product id.
  "GET /api/rest-ops-utils/product/corridor/{corridorId}/store/{storeId}": {
    ...utilsRead,
    response: "ProductByStoreList",
    maxResponseBytes: READ_ANSWER_BYTES,
  },
  "GET /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}": {
    ...utilsRead,
    response: "ProductScheduleByStore",
    maxResponseBytes: READ_ANSWER_BYTES,
  },
  "POST /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}": {
    ...utilsCreate,
    request: "ScheduleCreate",
    response: "ProductScheduleByStore",
  },
  "PUT /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}": {
    ...utilsChange,
    request: "ScheduleUpdate",
    response: "ProductScheduleByStore",
  },
  "DELETE /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}/{corridorProductScheduleId}":
    { ...utilsChange },

  // ---- docs/platform-api.md §2.5 product schedules by SKU.
  "GET /api/rest-ops-utils/sku/corridor/{corridorId}/integration/{integrationId}": {
    ...utilsRead,
    response: "ProductBySkuList",
    maxResponseBytes: READ_ANSWER_BYTES,
  },
  "GET /api/rest-ops-utils/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}": {
    ...utilsRead,
    response: "ProductScheduleBySku",
    maxResponseBytes: READ_ANSWER_BYTES,
  },
  "POST /api/rest-ops-utils/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}": {
    ...utilsCreate,
    request: "ScheduleCreate",
    response: "ProductScheduleBySku",
  },
  "PUT /api/rest-ops-utils/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}": {
    ...utilsChange,
    request: "ScheduleUpdate",
    response: "ProductScheduleBySku",
  },
  "DELETE /api/rest-ops-utils/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}/{corridorProductScheduleId}":
    { ...utilsChange },

  // ---- docs/platform-api.md §2.5 store hours (docs/platform-api.md §4.7). Creates allocate new slot ids,
  // hence not idempotent.
  "GET /api/rest-ops-utils/store/schedule/{storeId}": {
    ...utilsRead,
    response: "RegularHours",
  },
  "GET /api/rest-ops-utils/store/schedule/{storeId}/holiday": {
    ...utilsRead,
    response: "SpecialDays",
    maxResponseBytes: READ_ANSWER_BYTES,
  },
  "GET /api/rest-ops-utils/store/schedule/{storeId}/special": {
    ...utilsRead,
    response: "SpecialDays",
    maxResponseBytes: READ_ANSWER_BYTES,
  },
  "POST /api/rest-ops-utils/store/schedule/{storeId}": {
    ...utilsCreate,
    request: "RegularSlotCreate",
    response: "RegularSlotCreated",
  },
  "POST /api/rest-ops-utils/store/schedule/{storeId}/holiday/{holidayDayId}": {
    ...utilsCreate,
    request: "SlotInputs",
    response: "SlotCreated",
  },
  "POST /api/rest-ops-utils/store/schedule/{storeId}/special": {
    ...utilsCreate,
    request: "SpecialDayCreate",
    response: "SpecialDay",
    errors: { 409: ["Message"] },
  },
  "POST /api/rest-ops-utils/store/schedule/{storeId}/special/{specialDayId}": {
    ...utilsCreate,
    request: "SlotInputs",
    response: "SlotCreated",
  },
  "PUT /api/rest-ops-utils/store/schedule/{storeId}/{storeScheduleId}": {
    ...utilsChange,
    request: "SlotUpdate",
    response: "SlotUpdated",
  },
  "DELETE /api/rest-ops-utils/store/schedule/{storeId}/{storeScheduleId}": {
    ...utilsChange,
  },
  "DELETE /api/rest-ops-utils/store/schedule/{storeId}/special/{specialDayId}": {
    ...utilsChange,
  },

  // ---- docs/platform-api.md §2.6 finance: paginated reads, filters in the query (schemas `*Query`).
  "GET /restaurants/finance/v1/stores/{store_id}/payments": {
    surface: "integrations",
    group: "finance",
    idempotent: true,
    response: "PaymentPage",
    maxResponseBytes: READ_ANSWER_BYTES,
    query: "PaymentsQuery",
    section: "§2.6",
    assumptions: [ASSUMPTIONS.expectExecution],
  },
  "GET /restaurants/finance/v1/stores/{store_id}/orders": {
    surface: "integrations",
    group: "finance",
    idempotent: true,
    response: "OrderPage",
    maxResponseBytes: READ_ANSWER_BYTES,
    query: "OrdersQuery",
    section: "§2.6",
  },
  "GET /restaurants/finance/v1/stores/{store_id}/order_adjusments": {
    surface: "integrations",
    group: "finance",
    idempotent: true,
    response: "OrderAdjustmentPage",
    maxResponseBytes: READ_ANSWER_BYTES,
    query: "OrdersQuery",
    section: "§2.6",
  },
  "GET /restaurants/finance/v1/stores/{store_id}/charged_cancellations": {
    surface: "integrations",
    group: "finance",
    idempotent: true,
    response: "ChargedCancellationPage",
    maxResponseBytes: READ_ANSWER_BYTES,
    query: "ChargedCancellationsQuery",
    section: "§2.6",
  },

  // ---- docs/platform-api.md §2.7 webhooks. `GET /webhook/{event}` has an optional `event`: without it, `GET
  // /webhook` (every event) is a route of its own. `reset-secret` is retried like the other PUTs: a repeated
  // reset makes yet another secret, and the answer that arrives carries the one in force.
  "GET /api/v2/restaurants-integrations-public-api/webhook": {
    surface: "integrations",
    group: "webhooks",
    idempotent: true,
    response: "WebhookConfigList",
    maxResponseBytes: READ_ANSWER_BYTES,
    section: "§2.7",
  },
  "GET /api/v2/restaurants-integrations-public-api/webhook/{event}": {
    surface: "integrations",
    group: "webhooks",
    idempotent: true,
    response: "WebhookConfigList",
    maxResponseBytes: READ_ANSWER_BYTES,
    section: "§2.7",
    errors: { 406: ["Message"] },
  },
  "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/add-stores": {
    ...hookWrite,
    request: "WebhookAddStores",
    response: "WebhookConfig",
    errors: { 406: ["Message"] },
    assumptions: [ASSUMPTIONS.webhookSync],
  },
  "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/change-url": {
    ...hookWrite,
    request: "WebhookChangeUrl",
    response: "WebhookConfig",
    errors: { 406: ["Message"] },
    assumptions: [ASSUMPTIONS.webhookSync],
  },
  /** A create: not repeated blindly after a lost answer. */
  "POST /api/v2/restaurants-integrations-public-api/webhook": {
    ...hookWrite,
    idempotent: false,
    request: "WebhookCreate",
    response: "WebhookWithSecret",
    secret: true,
    assumptions: [ASSUMPTIONS.webhookCreate, ASSUMPTIONS.webhookSync],
  },
  "DELETE /api/v2/restaurants-integrations-public-api/webhook/{event}/remove-stores": {
    ...hookWrite,
    request: "WebhookRemoveStores",
    response: "WebhookStoresRemoved",
    errors: { 406: ["Message"] },
    assumptions: [ASSUMPTIONS.webhookSync],
  },
  "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/reset-secret": {
    ...hookWrite,
    response: "WebhookWithSecret",
    secret: true,
    errors: { 406: ["Message"] },
    assumptions: [ASSUMPTIONS.webhookSync],
  },
  "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/change-status": {
    ...hookWrite,
    request: "WebhookChangeStatus",
    response: "WebhookConfig",
    errors: { 406: ["Message"] },
    assumptions: [ASSUMPTIONS.webhookSync],
  },
  /** Creates (201) or replaces (200) the client-level webhook: repeating it gives the same configuration. */
  "POST /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks": {
    ...hookWrite,
    request: "ClientWebhookCreate",
    response: "ClientWebhook",
    statuses: [201, 200],
    errors: { 403: ["Message"], 406: ["Message"] },
    assumptions: [ASSUMPTIONS.clientWebhooks, ASSUMPTIONS.webhookSync],
  },
  /** Query `event=...`; answers 204. */
  "DELETE /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks": {
    ...hookWrite,
    errors: { 403: ["Message"], 404: ["Message"], 406: ["Message"] },
    assumptions: [ASSUMPTIONS.clientWebhooks, ASSUMPTIONS.webhookSync],
  },
  "GET /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks": {
    surface: "integrations",
    group: "webhooks",
    idempotent: true,
    response: "ClientWebhookList",
    maxResponseBytes: READ_ANSWER_BYTES,
    section: "§2.7",
    errors: { 403: ["Message"] },
    assumptions: [ASSUMPTIONS.clientWebhooks],
  },
} as const satisfies Record<string, RouteSpec>;

/**
 * The name of an endpoint: its key in {@link ROUTES}, `"METHOD /path"` as docs/platform-api.md §2 writes it.
 */
export type RouteName = keyof typeof ROUTES;

/** Values of a route's `{name}` path parameters (extra keys are ignored). */
export type RouteParams = Record<string, string | number>;

/** Every route name, in the order of docs/platform-api.md §2. */
export const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];

/** The token login of each surface (docs/platform-api.md §2.1). */
export const LOGIN_ROUTES = {
  integrations: "POST /restaurants/auth/v1/token/login/integrations",
  utils: "POST /restaurants/auth/v1/token/login/utils",
} as const satisfies Record<TokenSurface, RouteName>;

/** The method of a route: the word before the space of its name. */
export function routeMethod(name: RouteName): HttpMethod {
  return name.slice(0, name.indexOf(" ")) as HttpMethod;
}

/** The path template of a route, prefix included, with `{name}` parameters. */
export function routeTemplate(name: RouteName): string {
  return name.slice(name.indexOf(" ") + 1);
}

/** The row of a route. */
export function routeSpec(name: RouteName): RouteSpec {
  return ROUTES[name];
}

/** The API group of a route ({@link RouteSpec.group}): the address its calls go to. */
export function routeGroup(name: RouteName): ApiGroup {
  return routeSpec(name).group;
}

/**
 * Whether a call of the route with this body may be repeated (see {@link RouteSpec.idempotent}); e.g.
 * `POST /menu` only when every menu names its id.
 */
export function routeIdempotent(name: RouteName, body: unknown): boolean {
  const i = routeSpec(name).idempotent;
  return typeof i === "function" ? i(body) : i;
}

/** The statuses of a success of the route: its `statuses`, else 200, or 204 for a route without `response`. */
export function routeStatuses(name: RouteName): readonly number[] {
  const spec: RouteSpec = routeSpec(name);
  return spec.statuses ?? (spec.response ? [200] : [204]);
}

/**
 * The choices carte makes about a route where the spec is silent: the row's `assumptions`, plus the
 * accepted answer of every asynchronous write and the deprecation headers of the utils group.
 *
 * @public Read from the build by the writer of the published description (scripts/lib/openapi.mjs).
 */
export function routeAssumptions(name: RouteName): string[] {
  const spec: RouteSpec = routeSpec(name);
  const out = [...(spec.assumptions ?? [])];
  if (spec.synchronous === false) out.unshift(ASSUMPTIONS.accepted);
  if (spec.surface === "utils") out.push(ASSUMPTIONS.deprecation);
  return out;
}

/** The most bytes carte reads of an answer of the route ({@link RouteSpec.maxResponseBytes}). */
export function routeMaxResponseBytes(name: RouteName): number {
  const spec: RouteSpec = routeSpec(name);
  return spec.maxResponseBytes ?? DEFAULT_ANSWER_BYTES;
}

/** The names of a template's `{name}` path parameters, in order. */
export function routeParamNames(name: RouteName): string[] {
  return [...routeTemplate(name).matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}

/**
 * The path of a call: the route's template with every `{x}` replaced by
 * `encodeURIComponent(String(params.x))`. Keys of `params` the template does not name are ignored.
 * @throws InternalError when a parameter of the template is missing or empty (a bug of the caller).
 */
export function routePath(name: RouteName, params: RouteParams = {}): string {
  return routeTemplate(name).replace(/\{([^}]+)\}/g, (_, key: string) => {
    const v = params[key];
    if (v === undefined || v === null || String(v) === "") {
      throw new InternalError(`path parameter ${key} of "${name}" is missing`);
    }
    return encodeURIComponent(String(v));
  });
}

// ---- matching a path ------------------------------------------------------------------------------

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A route that matched a path, with its decoded path parameters. */
export interface PathMatch<T> {
  name: RouteName;
  method: HttpMethod;
  value: T;
  params: Record<string, string>;
}

/**
 * Matches concrete paths (no query string) against a list of routes, in the list's order: literal
 * segments must be equal, a `{name}` segment takes any non-empty segment (URI-decoded). The emulator
 * routes with it; the client finds a path's surface with it.
 */
export class RouteMatcher<T> {
  private readonly byLength = new Map<
    number,
    { name: RouteName; method: HttpMethod; segments: string[]; value: T }[]
  >();

  /** `entries`: each route name with the value a match returns (e.g. the emulator's handler). */
  constructor(entries: Iterable<readonly [RouteName, T]>) {
    for (const [name, value] of entries) {
      const segments = routeTemplate(name).split("/").slice(1);
      let list = this.byLength.get(segments.length);
      if (!list) this.byLength.set(segments.length, (list = []));
      list.push({ name, method: routeMethod(name), segments, value });
    }
  }

  /** Every route whose template matches `path`, whatever its method, in the order given. */
  matchPath(path: string): PathMatch<T>[] {
    const parts = path.split("/").slice(1);
    const out: PathMatch<T>[] = [];
    for (const c of this.byLength.get(parts.length) ?? []) {
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const seg = c.segments[i]!;
        const part = parts[i]!;
        if (seg.startsWith("{")) {
          if (part === "") {
            ok = false;
            break;
          }
          params[seg.slice(1, -1)] = safeDecode(part);
        } else if (seg !== part) {
          ok = false;
          break;
        }
      }
      if (ok) out.push({ name: c.name, method: c.method, value: c.value, params });
    }
    return out;
  }

  /**
   * The first route of `method` whose template matches `path`; else the methods the path allows (for a
   * 405), or undefined when no template matches (404).
   */
  match(method: string, path: string): PathMatch<T> | { allow: HttpMethod[] } | undefined {
    const all = this.matchPath(path);
    const hit = all.find((m) => m.method === method);
    if (hit) return hit;
    return all.length > 0 ? { allow: all.map((m) => m.method) } : undefined;
  }
}

/** Every route of {@link ROUTES}. */
const ALL = new RouteMatcher(ROUTE_NAMES.map((n) => [n, n] as const));

/**
 * The route a concrete call addresses (`path` may carry a query string), with the path's parameters:
 * the route of that method when there is one, else the first route of another method on the same path
 * (same group, same surface; its `method` then differs from the call's). Undefined when no route of the
 * table has this path.
 */
export function matchRoute(method: string, path: string): PathMatch<RouteName> | undefined {
  const q = path.indexOf("?");
  const all = ALL.matchPath(q >= 0 ? path.slice(0, q) : path);
  return all.find((m) => m.method === method) ?? all[0];
}

/** The name of the route {@link matchRoute} finds for a concrete call. */
export function routeOfPath(method: string, path: string): RouteName | undefined {
  return matchRoute(method, path)?.name;
}
