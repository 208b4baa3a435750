/**
 * The conformance table: one row per route of the platform's route table (src/platform/routes.ts),
 * that is per (method, path) of docs/platform-api.md §2, each with a valid request and its answer (status;
 * the response definition of schemas/platform/ is the route's `response`), and at least one invalid
 * request with its status, error definition and message. conformance.test.ts drives every row over real
 * HTTP and checks that the rows cover every route of the table, every route the emulator serves and
 * every row of the spec ({@link SPEC_ROWS}, transcribed from the spec independently of the table).
 *
 * A row names its route; method, path template, token and response definition are the route's, and
 * every request path is filled from the route's template with {@link routePath}.
 *
 * Requests are built by functions of a {@link Fixture} (a seeded emulator with a small catalog), so that
 * each row can create what it needs (a delete creates what it deletes) and rows stay independent.
 */

import type { PlatformSchemaName } from "../../src/generated/platform.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import {
  LOGIN_ROUTES,
  routeMethod,
  routePath,
  routeSpec,
  routeTemplate,
  type HttpMethod,
  type RouteName,
  type RouteParams,
} from "../../src/platform/routes.js";
import { FOREIGN_STORE, STORE, STORE2, call } from "../emulator/helpers.js";

/** Which token a request carries. `utils-on-integrations` etc. are used by invalid requests. */
export type TokenKind = "integrations" | "utils" | "none";

/** A request of a row. `token` overrides the row's. */
export interface Req {
  path: string;
  body?: unknown;
  token?: TokenKind;
}

/** An invalid request and what the emulator must answer. */
export interface Invalid {
  why: string;
  req: Req;
  status: number;
  /** Definition of the error body. */
  error: PlatformSchemaName;
  /** The exact message (or `[{message}]` for `MessageList`), when asserted. */
  message?: string;
}

/** The seeded emulator the requests are built against. */
export interface Fixture {
  emu: RunningEmulator;
  tokens: { integrations: string; utils: string };
  /** Platform ids of the catalog of {@link STORE} by SKU (items, categories) and `menu:DEFAULT`. */
  ids: Record<string, number>;
  /** Sends a request with the given token (default integrations) and returns status and body. */
  send(method: string, req: Req): Promise<{ status: number; body: unknown; headers: Headers }>;
  /** A number unique within the run (for names, dates and times that must not collide). */
  next(): number;
}

/** One route of the table, driven over HTTP. */
export interface Row {
  /** The route (src/platform/routes.ts): its method, template, token surface and response definition. */
  route: RouteName;
  valid(f: Fixture): Promise<Req>;
  /** Expected status(es) of the valid request. */
  status: number | number[];
  invalid: ((f: Fixture) => Promise<Invalid>)[];
}

/** The method of a row: its route's. */
export function rowMethod(r: Row): HttpMethod {
  return routeMethod(r.route);
}

/** The token a row's requests carry unless they say otherwise: the route's surface. */
export function rowToken(r: Row): TokenKind {
  return routeSpec(r.route).surface;
}

/** Definition of the success body of a row: its route's `response`; null: no body (204). */
export function rowResponse(r: Row): PlatformSchemaName | null {
  return routeSpec(r.route).response ?? null;
}

const S = String(STORE);
const S2 = String(STORE2);
const INTEGRATION = "bog-centro";

/** The path of a route for the given parameters, plus an optional query string. */
const at = (route: RouteName, params: RouteParams = {}, query = ""): string =>
  routePath(route, params) + query;

const notFound = (path: string, message: string, token: TokenKind = "integrations"): Invalid => ({
  why: "unknown resource",
  req: { path, token },
  status: 404,
  error: "Message",
  message,
});

const badBody = (path: string, body: unknown, message: string, token?: TokenKind): Invalid => ({
  why: "body that does not match the schema",
  req: { path, body, ...(token ? { token } : {}) },
  status: 400,
  error: "Message",
  message,
});

const foreign = (path: string, token: TokenKind = "integrations"): Invalid => ({
  why: "another client's store",
  req: { path, token },
  status: 400,
  error: "Message",
  message: `The stores ${FOREIGN_STORE} don't belong to the appClient of client id acme`,
});

const wrongToken = (path: string, token: TokenKind): Invalid => ({
  why: token === "none" ? "no token" : "token of the other surface",
  req: { path, token },
  status: 401,
  error: "Message",
  message: "Invalid token",
});

const once = (inv: Invalid) => async (): Promise<Invalid> => inv;

/** Times `HH:mm:ss` of a one-minute slot unique within the run (between 01:00 and 22:59). */
function slot(f: Fixture): { start: string; end: string } {
  const n = f.next();
  const h = 1 + (n % 22);
  const m = Math.floor(n / 22) % 59;
  const t = (mm: number) => `${String(h).padStart(2, "0")}:${String(mm).padStart(2, "0")}:00`;
  return { start: t(m), end: t(m + 1) };
}

const DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/** A day unique enough that no schedule gets more than 6 periods per day group. */
function day(f: Fixture): string {
  return DAYS[f.next() % 7]!;
}

/** `schedule_details` with one new period, on a days group of its own. */
function details(f: Fixture): { days: string; starts_time: string; ends_time: string }[] {
  const s = slot(f);
  return [{ days: `${day(f)},hol`, starts_time: s.start, ends_time: s.end }];
}

// ---- rows by group -------------------------------------------------------------------------------

const auth: Row[] = (["integrations", "utils"] as const).map((surface): Row => {
  const route = LOGIN_ROUTES[surface];
  return {
    route,
    valid: async () => ({ path: at(route), body: { client_id: "acme", client_secret: "s3cret-acme" } }),
    status: 200,
    invalid: [
      once(badBody(at(route), { client_id: "acme" }, "client_secret is required")),
      once({
        why: "wrong credentials",
        req: { path: at(route), body: { client_id: "acme", client_secret: "nope" } },
        status: 401,
        error: "Message",
        message: "Invalid credentials",
      }),
    ],
  };
});

const LEGACY_STATUS_FIELD = { products: "products", toppings: "toppings", items: "items" } as const;

/** The two routes of each legacy resource (docs/platform-api.md §2.2). */
const LEGACY = {
  products: {
    stock: "PATCH /restaurants/menu/v1/stores/{storeId}/products/{identityType}/stock",
    status: "POST /restaurants/menu/v1/stores/{storeId}/products/{identityType}/stock/status",
  },
  toppings: {
    stock: "PATCH /restaurants/menu/v1/stores/{storeId}/toppings/{identityType}/stock",
    status: "POST /restaurants/menu/v1/stores/{storeId}/toppings/{identityType}/stock/status",
  },
  items: {
    stock: "PATCH /restaurants/menu/v1/stores/{storeId}/items/{identityType}/stock",
    status: "POST /restaurants/menu/v1/stores/{storeId}/items/{identityType}/stock/status",
  },
} as const satisfies Record<string, { stock: RouteName; status: RouteName }>;

const legacy: Row[] = (["products", "toppings", "items"] as const).flatMap((res): Row[] => {
  const routes = LEGACY[res];
  const stock = (identityType: string) => at(routes.stock, { storeId: S, identityType });
  const status = (identityType: string, storeId: string | number = S) =>
    at(routes.status, { storeId, identityType });
  const identity = res === "items" ? "PLATFORM" : "SKU";
  const sku = res === "toppings" ? "CHEESE" : "COLA";
  const ident = (f: Fixture): string => (identity === "PLATFORM" ? String(f.ids.COLA) : sku);
  return [
    {
      route: routes.stock,
      valid: async (f) => ({ path: stock(identity), body: { available: [ident(f)], unavailable: [] } }),
      status: 200,
      invalid: [
        once(badBody(stock("SKU"), { available: ["COLA"] }, "unavailable is required (an array of strings)")),
        once(badBody(stock("SKU"), { available: [1], unavailable: [] }, "available[0] must be a string")),
        once({
          why: "unknown identity type",
          req: { path: stock("EAN"), body: { available: [], unavailable: [] } },
          status: 400,
          error: "Message",
          message: 'identityType must be PLATFORM or SKU, not "EAN"',
        }),
      ],
    },
    {
      route: routes.status,
      valid: async (f) => ({
        path: status(identity),
        body: { [LEGACY_STATUS_FIELD[res]]: [ident(f), "999999"] },
      }),
      status: 200,
      invalid: [
        once(
          badBody(
            status("SKU"),
            res === "products" ? { toppings: [] } : { products: [] },
            `${res} is required (an array of strings)`,
          ),
        ),
        once({
          ...foreign(status("SKU", FOREIGN_STORE)),
          req: { path: status("SKU", FOREIGN_STORE), body: { [res]: ["COLA"] } },
        }),
      ],
    },
  ];
});

const ITEM_STATUS = "POST /api/v2/restaurants-integrations-public-api/availability/items/status";
const ITEM_PLATFORM_STATUS =
  "POST /api/v2/restaurants-integrations-public-api/availability/items/platform/status";
const TOGGLE_ITEMS = "PUT /api/v2/restaurants-integrations-public-api/availability/stores/items";
const TOGGLE_ITEMS_PLATFORM =
  "PUT /api/v2/restaurants-integrations-public-api/availability/stores/items/platform";
const STORES_STATUS = "POST /api/v2/restaurants-integrations-public-api/availability/stores";
const STORES_TOGGLE = "PUT /api/v2/restaurants-integrations-public-api/availability/stores";
const STORES_MASSIVE = "PUT /api/v2/restaurants-integrations-public-api/availability/stores/enable/massive";
const STORES_ENABLE = "PUT /api/v2/restaurants-integrations-public-api/availability/stores/enable";

const availabilityV2: Row[] = [
  {
    route: ITEM_STATUS,
    valid: async () => ({ path: at(ITEM_STATUS), body: { store_id: S, item_ids: ["COLA", "NOPE"] } }),
    status: 200,
    invalid: [once(badBody(at(ITEM_STATUS), { item_ids: ["COLA"] }, "store_id is required"))],
  },
  {
    route: ITEM_PLATFORM_STATUS,
    valid: async (f) => ({
      path: at(ITEM_PLATFORM_STATUS),
      body: { store_id: S, item_ids: [String(f.ids.COLA)] },
    }),
    status: 200,
    invalid: [
      once(badBody(at(ITEM_PLATFORM_STATUS), { store_id: STORE, item_ids: [] }, "store_id must be a string")),
    ],
  },
  {
    route: TOGGLE_ITEMS,
    valid: async () => ({
      path: at(TOGGLE_ITEMS),
      body: [{ store_integration_id: INTEGRATION, items: { turn_on: ["COLA"] } }],
    }),
    status: 200,
    invalid: [
      once({
        why: "element without items",
        req: { path: at(TOGGLE_ITEMS), body: [{ store_integration_id: INTEGRATION }] },
        status: 400,
        error: "MessageList",
        message: "Error updating items",
      }),
      once({
        why: "unknown SKU",
        req: {
          path: at(TOGGLE_ITEMS),
          body: [{ store_integration_id: INTEGRATION, items: { turn_off: ["NOPE"] } }],
        },
        status: 400,
        error: "MessageList",
        message: "Error updating items",
      }),
    ],
  },
  {
    route: TOGGLE_ITEMS_PLATFORM,
    valid: async (f) => ({
      path: at(TOGGLE_ITEMS_PLATFORM),
      body: [{ store_integration_id: INTEGRATION, items: { turn_on: [f.ids.COLA] } }],
    }),
    status: 200,
    invalid: [
      once({
        why: "SKUs where platform ids are expected",
        req: {
          path: at(TOGGLE_ITEMS_PLATFORM),
          body: [{ store_integration_id: INTEGRATION, items: { turn_on: ["COLA"] } }],
        },
        status: 400,
        error: "MessageList",
        message: "Error updating items",
      }),
    ],
  },
  {
    route: STORES_STATUS,
    valid: async () => ({ path: at(STORES_STATUS), body: [S, STORE2] }),
    status: 200,
    invalid: [
      once(badBody(at(STORES_STATUS), { stores: [S] }, "body must be an array of store ids")),
      once(
        badBody(
          at(STORES_STATUS),
          Array.from({ length: 101 }, () => S),
          "At most 100 stores can be queried at once; got 101",
        ),
      ),
    ],
  },
  {
    route: STORES_TOGGLE,
    valid: async () => ({ path: at(STORES_TOGGLE), body: { turn_on: [S] } }),
    status: 200,
    invalid: [once(badBody(at(STORES_TOGGLE), {}, "turn_on or turn_off is required"))],
  },
  {
    route: STORES_MASSIVE,
    valid: async () => ({
      path: at(STORES_MASSIVE),
      body: { stores: [{ store_id: S, is_enabled: true }] },
    }),
    status: 200,
    invalid: [
      once(
        badBody(
          at(STORES_MASSIVE),
          { stores: [{ store_id: "x", is_enabled: true }] },
          "stores[0].store_id must be a string matching ^[0-9]+$ or an integer",
        ),
      ),
    ],
  },
  {
    route: STORES_ENABLE,
    valid: async () => ({
      path: at(STORES_ENABLE),
      body: {
        stores: [
          { store_id: S, is_enabled: true },
          { store_id: String(FOREIGN_STORE), is_enabled: true },
        ],
      },
    }),
    status: 200,
    invalid: [
      once(
        badBody(at(STORES_ENABLE), { stores: [{ store_id: S }] }, "stores[0].is_enabled must be a boolean"),
      ),
      once({
        why: "more than 300 stores",
        req: {
          path: at(STORES_ENABLE),
          body: { stores: Array.from({ length: 301 }, () => ({ store_id: S, is_enabled: true })) },
        },
        status: 422,
        error: "Message",
        message:
          "The synchronous service accepts at most 300 stores (got 301); please use the asynchronous service",
      }),
    ],
  },
];

// ---- store menu API ----------------------------------------------------------------------------

const STORE_MENU = "GET /restaurants/menu/v1/stores/{storeId}/store-menu";
const STORE_MENU_POST = "POST /restaurants/menu/v1/stores/{storeId}/store-menu";
const MENUS = "GET /restaurants/menu/v1/stores/{storeId}/menu";
const MENUS_POST = "POST /restaurants/menu/v1/stores/{storeId}/menu";
const MENUS_DELETE = "DELETE /restaurants/menu/v1/stores/{storeId}/menu";
const MENU_ONE = "GET /restaurants/menu/v1/stores/{storeId}/menu/{menuId}";
const CATEGORIES = "GET /restaurants/menu/v1/stores/{storeId}/categories";
const CATEGORIES_POST = "POST /restaurants/menu/v1/stores/{storeId}/categories";
const CATEGORIES_DELETE = "DELETE /restaurants/menu/v1/stores/{storeId}/categories";
const CATEGORY_ONE = "GET /restaurants/menu/v1/stores/{storeId}/categories/{categoryId}";
const ITEMS = "GET /restaurants/menu/v1/stores/{storeId}/items";
const ITEMS_POST = "POST /restaurants/menu/v1/stores/{storeId}/items";
const ITEMS_DELETE = "DELETE /restaurants/menu/v1/stores/{storeId}/items";
const ITEM_ONE = "GET /restaurants/menu/v1/stores/{storeId}/items/{itemId}";

/** A path of the store menu API in {@link STORE}. */
const m = (route: RouteName, params: RouteParams = {}): string => at(route, { storeId: S, ...params });

/** Creates something through a menu write, waits until it is applied and returns its id. */
async function created(
  f: Fixture,
  post: RouteName,
  body: unknown[],
  sku: string,
  list: RouteName,
): Promise<number> {
  const r = await f.send("POST", { path: m(post), body });
  if (r.status !== 200) throw new Error(`setup ${post} failed: ${r.status} ${JSON.stringify(r.body)}`);
  await f.emu.idle();
  const read = await f.send("GET", { path: m(list) });
  const found = (read.body as { id: number; sku?: string; menu_type?: string }[]).find(
    (x) => x.sku === sku || x.menu_type === sku,
  );
  if (!found) throw new Error(`setup: ${sku} not found in ${list}`);
  return found.id;
}

const menu: Row[] = [
  {
    route: STORE_MENU,
    valid: async () => ({ path: m(STORE_MENU) }),
    status: 200,
    invalid: [once(foreign(at(STORE_MENU, { storeId: FOREIGN_STORE })))],
  },
  {
    route: STORE_MENU_POST,
    valid: async () => ({
      path: at(STORE_MENU_POST, { storeId: S2 }),
      body: {
        storeId: STORE2,
        items: [{ sku: "TEA", item_type: "ITEM", title_info: { title: "Tea" }, price_info: { price: 900 } }],
        categories: [{ sku: "HOT", title: "Hot drinks", items: [{ sku: "TEA", index: 0 }] }],
        menus: [{ menu_type: "DEFAULT", categories: [{ sku: "HOT", index: 0, is_category_active: true }] }],
      },
    }),
    status: 200,
    invalid: [
      once(
        badBody(
          at(STORE_MENU_POST, { storeId: S2 }),
          { items: [{ sku: "A" }] },
          "items[0].item_type is required",
        ),
      ),
    ],
  },
  {
    route: MENUS,
    valid: async () => ({ path: m(MENUS) }),
    status: 200,
    invalid: [once(notFound(at(MENUS, { storeId: 424242 }), "Store 424242 not found"))],
  },
  {
    route: MENUS_POST,
    valid: async (f) => ({
      path: m(MENUS_POST),
      body: [
        {
          id: f.ids["menu:DEFAULT"],
          menu_type: "DEFAULT",
          categories: [
            { sku: "DRINKS", index: 0, is_category_active: true },
            { sku: "MAINS", index: 1, is_category_active: true },
          ],
        },
      ],
    }),
    status: 200,
    invalid: [
      once(badBody(m(MENUS_POST), [{ categories: [] }], "menus[0].menu_type is required")),
      once({
        why: "a reference to an unknown category",
        req: {
          path: m(MENUS_POST),
          body: [{ menu_type: "X", categories: [{ sku: "NOPE", index: 0, is_category_active: true }] }],
        },
        status: 400,
        error: "MenuError",
      }),
    ],
  },
  {
    route: MENUS_DELETE,
    valid: async (f) => {
      const type = `TEMP-${f.next()}`;
      const id = await created(f, MENUS_POST, [{ menu_type: type, categories: [] }], type, MENUS);
      return { path: m(MENUS_DELETE), body: [id] };
    },
    status: 200,
    invalid: [once(badBody(m(MENUS_DELETE), ["1"], "[0] must be an integer"))],
  },
  {
    route: MENU_ONE,
    valid: async (f) => ({ path: m(MENU_ONE, { menuId: f.ids["menu:DEFAULT"]! }) }),
    status: 200,
    invalid: [once(notFound(m(MENU_ONE, { menuId: 123456 }), "Menu 123456 not found"))],
  },
  {
    route: CATEGORIES,
    valid: async () => ({ path: m(CATEGORIES) }),
    status: 200,
    invalid: [once(wrongToken(m(CATEGORIES), "none"))],
  },
  {
    route: CATEGORIES_POST,
    valid: async () => ({
      path: m(CATEGORIES_POST),
      body: [
        {
          sku: "DRINKS",
          title: "Drinks",
          items: [
            { sku: "COLA", index: 0 },
            { sku: "1234", index: 1 },
          ],
        },
      ],
    }),
    status: 200,
    invalid: [
      once(
        badBody(
          m(CATEGORIES_POST),
          [{ sku: "C", title: "C" }],
          "categories[0].items is required (an array of objects)",
        ),
      ),
      once({
        why: "a category holding a MODIFIER_GROUP",
        req: {
          path: m(CATEGORIES_POST),
          body: [{ sku: "C", title: "C", items: [{ sku: "EXTRAS", index: 0 }] }],
        },
        status: 400,
        error: "MenuError",
      }),
    ],
  },
  {
    route: CATEGORIES_DELETE,
    valid: async (f) => {
      const sku = `TEMP-CAT-${f.next()}`;
      const id = await created(f, CATEGORIES_POST, [{ sku, title: sku, items: [] }], sku, CATEGORIES);
      return { path: m(CATEGORIES_DELETE), body: { ids: [id] } };
    },
    status: 200,
    invalid: [once(badBody(m(CATEGORIES_DELETE), [1], "body must be an object"))],
  },
  {
    route: CATEGORY_ONE,
    valid: async (f) => ({ path: m(CATEGORY_ONE, { categoryId: f.ids.DRINKS! }) }),
    status: 200,
    invalid: [once(notFound(m(CATEGORY_ONE, { categoryId: 999999 }), "Category 999999 not found"))],
  },
  {
    route: ITEMS,
    valid: async () => ({ path: m(ITEMS) }),
    status: 200,
    invalid: [once(wrongToken(m(ITEMS), "utils"))],
  },
  {
    route: ITEMS_POST,
    valid: async () => ({
      path: m(ITEMS_POST),
      body: [{ sku: "COLA", item_type: "ITEM", title_info: { title: "Cola" }, price_info: { price: 1000 } }],
    }),
    status: 200,
    invalid: [
      once(
        badBody(
          m(ITEMS_POST),
          [{ sku: "X", item_type: "ITEM", title_info: {} }],
          "items[0].title_info.title is required",
        ),
      ),
      once(badBody(m(ITEMS_POST), { sku: "X" }, "body must be an array of items")),
      once({
        why: "ITEM → ITEM relation",
        req: {
          path: m(ITEMS_POST),
          body: [
            {
              sku: "X",
              item_type: "ITEM",
              title_info: { title: "X" },
              items_info: { items: [{ sku: "COLA", index: 0 }] },
            },
          ],
        },
        status: 400,
        error: "MenuError",
      }),
    ],
  },
  {
    route: ITEMS_DELETE,
    valid: async (f) => {
      const sku = `TEMP-${f.next()}`;
      const id = await created(
        f,
        ITEMS_POST,
        [{ sku, item_type: "ITEM", title_info: { title: sku } }],
        sku,
        ITEMS,
      );
      return { path: m(ITEMS_DELETE), body: [id] };
    },
    status: 200,
    invalid: [
      once(badBody(m(ITEMS_DELETE), { ids: [1] }, "body must be an array of item ids")),
      once({
        ...notFound(m(ITEMS_DELETE), "Item 4242424 not found"),
        req: { path: m(ITEMS_DELETE), body: [4242424] },
      }),
    ],
  },
  {
    route: ITEM_ONE,
    valid: async (f) => ({ path: m(ITEM_ONE, { itemId: f.ids.BURGER! }) }),
    status: 200,
    invalid: [once(notFound(m(ITEM_ONE, { itemId: 999999 }), "Item 999999 not found"))],
  },
];

// ---- utils -----------------------------------------------------------------------------------------

/** The four routes of one kind of schedule (docs/platform-api.md §2.5). */
interface ScheduleRoutes {
  get: RouteName;
  post: RouteName;
  put: RouteName;
  delete: RouteName;
}

/**
 * The five operations of one kind of schedule (docs/platform-api.md §2.5): list (when given), get, post, put,
 * delete.
 */
function scheduleRows(opts: {
  list?: { route: RouteName; params: (f: Fixture) => RouteParams; invalid: Invalid };
  routes: ScheduleRoutes;
  /** The path parameters of the schedule in the fixture. */
  params: (f: Fixture) => RouteParams;
  getInvalid: (f: Fixture) => Invalid;
}): Row[] {
  const rows: Row[] = [];
  const { routes } = opts;
  if (opts.list) {
    const list = opts.list;
    rows.push({
      route: list.route,
      valid: async (f) => ({ path: at(list.route, list.params(f)) }),
      status: 200,
      invalid: [once(list.invalid)],
    });
  }
  const path = (f: Fixture, route: RouteName = routes.get): string => at(route, opts.params(f));
  const post = async (f: Fixture): Promise<{ id: number }[]> => {
    const r = await f.send("POST", {
      path: path(f, routes.post),
      body: { schedule_details: details(f) },
      token: "utils",
    });
    if (r.status !== 200)
      throw new Error(`setup POST ${path(f, routes.post)}: ${r.status} ${JSON.stringify(r.body)}`);
    return (r.body as { schedule_details: { id: number }[] }).schedule_details;
  };
  const detail = (f: Fixture, id: number | string): string =>
    at(routes.delete, { ...opts.params(f), corridorProductScheduleId: id });
  rows.push(
    {
      route: routes.get,
      valid: async (f) => ({ path: path(f) }),
      status: 200,
      invalid: [async (f) => opts.getInvalid(f)],
    },
    {
      route: routes.post,
      valid: async (f) => ({ path: path(f, routes.post), body: { schedule_details: details(f) } }),
      status: 200,
      invalid: [async (f) => badBody(path(f, routes.post), {}, "schedule_details must be a non-empty array")],
    },
    {
      route: routes.put,
      valid: async (f) => {
        const list = await post(f);
        const s = slot(f);
        const id = list.at(-1)!.id;
        return {
          path: path(f, routes.put),
          body: { schedule_details: [{ id, days: `${day(f)},hol`, starts_time: s.start, ends_time: s.end }] },
        };
      },
      status: 200,
      invalid: [
        async (f) =>
          badBody(
            path(f, routes.put),
            { schedule_details: [{ days: "mon", starts_time: "10:00:00", ends_time: "11:00:00" }] },
            "schedule_details[0].id is required (a positive integer)",
          ),
        async (f) =>
          badBody(
            path(f, routes.put),
            { schedule_details: [{ id: 1, days: "mon", starts_time: "10:00", ends_time: "11:00:00" }] },
            "schedule_details[0].starts_time must be a time HH:mm:ss",
          ),
      ],
    },
    {
      route: routes.delete,
      valid: async (f) => {
        const list = await post(f);
        return { path: detail(f, list.at(-1)!.id) };
      },
      status: 204,
      invalid: [async (f) => notFound(detail(f, 999999), "Schedule 999999 not found", "utils")],
    },
  );
  return rows;
}

const HOURS = "GET /api/rest-ops-utils/store/schedule/{storeId}";
const HOURS_POST = "POST /api/rest-ops-utils/store/schedule/{storeId}";
const HOLIDAYS = "GET /api/rest-ops-utils/store/schedule/{storeId}/holiday";
const HOLIDAY_SLOTS = "POST /api/rest-ops-utils/store/schedule/{storeId}/holiday/{holidayDayId}";
const SPECIAL = "GET /api/rest-ops-utils/store/schedule/{storeId}/special";
const SPECIAL_POST = "POST /api/rest-ops-utils/store/schedule/{storeId}/special";
const SPECIAL_SLOTS = "POST /api/rest-ops-utils/store/schedule/{storeId}/special/{specialDayId}";
const SPECIAL_DELETE = "DELETE /api/rest-ops-utils/store/schedule/{storeId}/special/{specialDayId}";
const SLOT_PUT = "PUT /api/rest-ops-utils/store/schedule/{storeId}/{storeScheduleId}";
const SLOT_DELETE = "DELETE /api/rest-ops-utils/store/schedule/{storeId}/{storeScheduleId}";
const CORRIDORS = "GET /api/rest-ops-utils/corridor/store/{storeId}";
const CORRIDORS_BY_INTEGRATION = "GET /api/rest-ops-utils/corridor/integration/{integrationId}";
const MENU_STATUS = "GET /api/rest-ops-utils/menu/integration/{integrationId}";

/** A path of store hours in {@link STORE}. */
const h = (route: RouteName, params: RouteParams = {}): string => at(route, { storeId: S, ...params });

/** Creates a regular slot on a day of its own and returns its id. */
async function regularSlot(f: Fixture): Promise<number> {
  const s = slot(f);
  const r = await f.send("POST", {
    path: h(HOURS_POST),
    body: { day: day(f), starts_time: s.start, ends_time: s.end },
    token: "utils",
  });
  if (r.status !== 200) throw new Error(`setup regular slot: ${r.status} ${JSON.stringify(r.body)}`);
  return (r.body as { storeSchedules: { id: number }[] }).storeSchedules[0]!.id;
}

/** Creates a special day on a date of its own and returns its id. */
async function specialDay(f: Fixture): Promise<number> {
  const n = f.next();
  const r = await f.send("POST", {
    path: h(SPECIAL_POST),
    body: { day: 1 + (n % 28), month: 1 + (Math.floor(n / 28) % 12), name: `Special ${n}`, schedules: [] },
    token: "utils",
  });
  if (r.status !== 200) throw new Error(`setup special day: ${r.status} ${JSON.stringify(r.body)}`);
  return (r.body as { id: number }).id;
}

const utils: Row[] = [
  {
    route: CORRIDORS,
    valid: async () => ({ path: at(CORRIDORS, { storeId: S }) }),
    status: 200,
    invalid: [once(notFound(at(CORRIDORS, { storeId: 424242 }), "Store 424242 not found", "utils"))],
  },
  ...scheduleRows({
    routes: {
      get: "GET /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}",
      post: "POST /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}",
      put: "PUT /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}",
      delete:
        "DELETE /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}/{corridorProductScheduleId}",
    },
    params: (f) => ({ corridorId: f.ids.DRINKS!, storeId: S }),
    getInvalid: () =>
      notFound(
        at("GET /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}", {
          corridorId: 999999,
          storeId: S,
        }),
        "Corridor 999999 not found",
        "utils",
      ),
  }),
  {
    route: CORRIDORS_BY_INTEGRATION,
    valid: async () => ({ path: at(CORRIDORS_BY_INTEGRATION, { integrationId: INTEGRATION }) }),
    status: 200,
    invalid: [
      once(
        notFound(
          at(CORRIDORS_BY_INTEGRATION, { integrationId: "nope" }),
          "Integration nope not found",
          "utils",
        ),
      ),
    ],
  },
  ...scheduleRows({
    routes: {
      get: "GET /api/rest-ops-utils/corridor/schedule/{corridorId}/integration/{integrationId}",
      post: "POST /api/rest-ops-utils/corridor/schedule/{corridorId}/integration/{integrationId}",
      put: "PUT /api/rest-ops-utils/corridor/schedule/{corridorId}/integration/{integrationId}",
      delete:
        "DELETE /api/rest-ops-utils/corridor/schedule/{corridorId}/integration/{integrationId}/{corridorProductScheduleId}",
    },
    params: (f) => ({ corridorId: f.ids.MAINS!, integrationId: INTEGRATION }),
    getInvalid: (f) =>
      wrongToken(
        at("GET /api/rest-ops-utils/corridor/schedule/{corridorId}/integration/{integrationId}", {
          corridorId: f.ids.MAINS!,
          integrationId: INTEGRATION,
        }),
        "integrations",
      ),
  }),
  ...scheduleRows({
    list: {
      route: "GET /api/rest-ops-utils/product/corridor/{corridorId}/store/{storeId}",
      params: (f) => ({ corridorId: f.ids.DRINKS!, storeId: S }),
      invalid: foreign(
        at("GET /api/rest-ops-utils/product/corridor/{corridorId}/store/{storeId}", {
          corridorId: 1,
          storeId: FOREIGN_STORE,
        }),
        "utils",
      ),
    },
    routes: {
      get: "GET /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}",
      post: "POST /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}",
      put: "PUT /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}",
      delete:
        "DELETE /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}/{corridorProductScheduleId}",
    },
    params: (f) => ({ productId: f.ids.COLA!, corridorId: f.ids.DRINKS!, storeId: S }),
    getInvalid: (f) =>
      notFound(
        at("GET /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}", {
          productId: f.ids.BURGER!,
          corridorId: f.ids.DRINKS!,
          storeId: S,
        }),
        `Product ${f.ids.BURGER} not found in corridor ${f.ids.DRINKS}`,
        "utils",
      ),
  }),
  ...scheduleRows({
    list: {
      route: "GET /api/rest-ops-utils/sku/corridor/{corridorId}/integration/{integrationId}",
      params: (f) => ({ corridorId: f.ids.DRINKS!, integrationId: INTEGRATION }),
      invalid: notFound(
        at("GET /api/rest-ops-utils/sku/corridor/{corridorId}/integration/{integrationId}", {
          corridorId: 1,
          integrationId: "other-1",
        }),
        "Integration other-1 not found",
        "utils",
      ),
    },
    routes: {
      get: "GET /api/rest-ops-utils/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}",
      post: "POST /api/rest-ops-utils/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}",
      put: "PUT /api/rest-ops-utils/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}",
      delete:
        "DELETE /api/rest-ops-utils/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}/{corridorProductScheduleId}",
    },
    params: (f) => ({ sku: "1234", corridorId: f.ids.DRINKS!, integrationId: INTEGRATION }),
    getInvalid: (f) =>
      notFound(
        at("GET /api/rest-ops-utils/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}", {
          sku: "NOPE",
          corridorId: f.ids.DRINKS!,
          integrationId: INTEGRATION,
        }),
        "Product with sku NOPE not found",
        "utils",
      ),
  }),
  {
    route: HOURS,
    valid: async () => ({ path: h(HOURS) }),
    status: 200,
    invalid: [once(wrongToken(h(HOURS), "integrations"))],
  },
  {
    route: HOLIDAYS,
    valid: async () => ({ path: h(HOLIDAYS) }),
    status: 200,
    invalid: [once(notFound(at(HOLIDAYS, { storeId: 424242 }), "Store 424242 not found", "utils"))],
  },
  {
    route: SPECIAL,
    valid: async () => ({ path: h(SPECIAL) }),
    status: 200,
    invalid: [once(foreign(at(SPECIAL, { storeId: FOREIGN_STORE }), "utils"))],
  },
  {
    route: HOURS_POST,
    valid: async (f) => {
      const s = slot(f);
      return { path: h(HOURS_POST), body: { day: day(f), starts_time: s.start, ends_time: s.end } };
    },
    status: 200,
    invalid: [
      once(
        badBody(
          h(HOURS_POST),
          { day: "hol", starts_time: "11:00:00", ends_time: "15:00:00" },
          "day must be one of mon,tue,wed,thu,fri,sat,sun",
        ),
      ),
      once(
        badBody(
          h(HOURS_POST),
          { day: "mon", starts_time: "23:00:00", ends_time: "02:00:00" },
          "ends_time (02:00:00) must be later than starts_time (23:00:00); split ranges that cross midnight",
        ),
      ),
    ],
  },
  {
    route: HOLIDAY_SLOTS,
    valid: async (f) => {
      const s = slot(f);
      return {
        path: h(HOLIDAY_SLOTS, { holidayDayId: 1225 }),
        body: [{ startsTime: s.start, endsTime: s.end }],
      };
    },
    status: 200,
    invalid: [
      once(
        badBody(
          h(HOLIDAY_SLOTS, { holidayDayId: 101 }),
          [{ startsTime: "12:00:00", endsTime: "25:00:00" }],
          "[0].endsTime must be a time HH:mm:ss",
        ),
      ),
      once({
        ...notFound(h(HOLIDAY_SLOTS, { holidayDayId: 4242 }), "Holiday day 4242 not found", "utils"),
        req: {
          path: h(HOLIDAY_SLOTS, { holidayDayId: 4242 }),
          body: [{ startsTime: "12:00:00", endsTime: "13:00:00" }],
        },
      }),
    ],
  },
  {
    route: SPECIAL_POST,
    valid: async (f) => {
      const n = f.next();
      const s = slot(f);
      return {
        path: h(SPECIAL_POST),
        body: {
          day: 1 + (n % 28),
          month: 1 + (Math.floor(n / 28) % 12),
          name: `Special ${n}`,
          schedules: [{ startsTime: s.start, endsTime: s.end }],
        },
      };
    },
    status: 200,
    invalid: [
      once(
        badBody(h(SPECIAL_POST), { day: 1, month: 13, name: "X" }, "month must be an integer from 1 to 12"),
      ),
      once(badBody(h(SPECIAL_POST), { day: 1, month: 3, schedules: [] }, "name is required")),
    ],
  },
  {
    route: SPECIAL_SLOTS,
    valid: async (f) => {
      const id = await specialDay(f);
      const s = slot(f);
      return { path: h(SPECIAL_SLOTS, { specialDayId: id }), body: { startsTime: s.start, endsTime: s.end } };
    },
    status: 200,
    invalid: [
      async (f) =>
        badBody(
          h(SPECIAL_SLOTS, { specialDayId: await specialDay(f) }),
          "10:00:00",
          "body must be an object or an array",
        ),
    ],
  },
  {
    route: SLOT_PUT,
    valid: async (f) => {
      const id = await regularSlot(f);
      const s = slot(f);
      return { path: h(SLOT_PUT, { storeScheduleId: id }), body: { starts_time: s.start, ends_time: s.end } };
    },
    status: 200,
    invalid: [
      async (f) =>
        badBody(
          h(SLOT_PUT, { storeScheduleId: await regularSlot(f) }),
          { starts_time: 5 },
          "starts_time must be a string",
        ),
      once({
        ...notFound(h(SLOT_PUT, { storeScheduleId: 999999 }), "Store schedule 999999 not found", "utils"),
        req: {
          path: h(SLOT_PUT, { storeScheduleId: 999999 }),
          body: { starts_time: "11:00:00", ends_time: "12:00:00" },
        },
      }),
    ],
  },
  {
    route: SLOT_DELETE,
    valid: async (f) => ({ path: h(SLOT_DELETE, { storeScheduleId: await regularSlot(f) }) }),
    status: 204,
    invalid: [
      once(notFound(h(SLOT_DELETE, { storeScheduleId: 999999 }), "Store schedule 999999 not found", "utils")),
    ],
  },
  {
    route: SPECIAL_DELETE,
    valid: async (f) => ({ path: h(SPECIAL_DELETE, { specialDayId: await specialDay(f) }) }),
    status: 204,
    invalid: [
      once(notFound(h(SPECIAL_DELETE, { specialDayId: 999999 }), "Special day 999999 not found", "utils")),
    ],
  },
  {
    route: MENU_STATUS,
    valid: async () => ({ path: at(MENU_STATUS, { integrationId: INTEGRATION }) }),
    status: 200,
    invalid: [
      once(notFound(at(MENU_STATUS, { integrationId: "nope" }), "Integration nope not found", "utils")),
    ],
  },
];

// ---- finance ---------------------------------------------------------------------------------------

const finance: Row[] = (
  [
    [
      "GET /restaurants/finance/v1/stores/{store_id}/payments",
      "?page_size=5&expected_execution_date:gte=2025-01-01&expect_execution_date:lte=2025-12-31",
    ],
    [
      "GET /restaurants/finance/v1/stores/{store_id}/orders",
      "?page_number=2&page_size=5&order_date:gte=2025-01-01",
    ],
    ["GET /restaurants/finance/v1/stores/{store_id}/order_adjusments", "?order_date:lte=2025-12-31"],
    ["GET /restaurants/finance/v1/stores/{store_id}/charged_cancellations", "?page_size=100"],
  ] as const
).map(([route, query]): Row => ({
  route,
  valid: async () => ({ path: at(route, { store_id: S }, query) }),
  status: 200,
  invalid: [
    once(
      badBody(at(route, { store_id: S }, "?page_size=101"), undefined, "page_size must be between 1 and 100"),
    ),
    once(
      badBody(
        at(route, { store_id: S }, "?order_date:gte=2025-13-01"),
        undefined,
        route.endsWith("/payments")
          ? "unknown query parameter order_date:gte; allowed: page_number, page_size, payment_id:eq, expected_execution_date:gte, expect_execution_date:lte, confirmed_payment_date:gte, confirmed_payment_date:lte"
          : "order_date:gte must be a date YYYY-MM-DD",
      ),
    ),
    once(foreign(at(route, { store_id: FOREIGN_STORE }))),
  ],
}));

// ---- webhooks --------------------------------------------------------------------------------------

const URL_A = "https://hooks.example.test/a";
const URL_B = "https://hooks.example.test/b";

const HOOKS = "GET /api/v2/restaurants-integrations-public-api/webhook";
const HOOKS_POST = "POST /api/v2/restaurants-integrations-public-api/webhook";
const HOOK = "GET /api/v2/restaurants-integrations-public-api/webhook/{event}";
const ADD_STORES = "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/add-stores";
const CHANGE_URL = "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/change-url";
const REMOVE_STORES = "DELETE /api/v2/restaurants-integrations-public-api/webhook/{event}/remove-stores";
const RESET_SECRET = "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/reset-secret";
const CHANGE_STATUS = "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/change-status";
const CLIENT_HOOKS_POST = "POST /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks";
const CLIENT_HOOKS_DELETE = "DELETE /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks";
const CLIENT_HOOKS_GET = "GET /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks";

/** Makes sure NEW_ORDER is configured for both stores of the client. */
async function newOrderHook(f: Fixture): Promise<void> {
  const r = await f.send("POST", {
    path: at(HOOKS_POST),
    body: { event: "NEW_ORDER", data: [{ url: URL_A, stores: [S, S2] }] },
  });
  if (r.status !== 200) throw new Error(`setup webhook: ${r.status} ${JSON.stringify(r.body)}`);
}

const invalidEvent = (path: string, body?: unknown): Invalid => ({
  why: "unknown event name",
  req: { path, body },
  status: 406,
  error: "Message",
  message: "Invalid event NOPE",
});

const CLIENT_HOOKS = { clientId: "acme" };

const webhooks: Row[] = [
  {
    route: HOOKS,
    valid: async (f) => {
      await newOrderHook(f);
      return { path: at(HOOKS) };
    },
    status: 200,
    invalid: [once(wrongToken(at(HOOKS), "none"))],
  },
  {
    route: HOOK,
    valid: async (f) => {
      await newOrderHook(f);
      return { path: at(HOOK, { event: "NEW_ORDER" }) };
    },
    status: 200,
    invalid: [once(invalidEvent(at(HOOK, { event: "NOPE" })))],
  },
  {
    route: ADD_STORES,
    valid: async (f) => {
      await newOrderHook(f);
      return { path: at(ADD_STORES, { event: "NEW_ORDER" }), body: [{ url: URL_B, stores: [S2] }] };
    },
    status: 200,
    invalid: [
      once(
        badBody(
          at(ADD_STORES, { event: "NEW_ORDER" }),
          { url: URL_B, stores: [S2] },
          "body must be an array",
        ),
      ),
      once(invalidEvent(at(ADD_STORES, { event: "NOPE" }), [{ url: URL_B, stores: [S2] }])),
    ],
  },
  {
    route: CHANGE_URL,
    valid: async (f) => {
      await newOrderHook(f);
      return { path: at(CHANGE_URL, { event: "NEW_ORDER" }), body: { url: URL_B, stores: [S] } };
    },
    status: 200,
    invalid: [once(badBody(at(CHANGE_URL, { event: "NEW_ORDER" }), { stores: [S] }, "url is required"))],
  },
  {
    route: HOOKS_POST,
    valid: async () => ({
      path: at(HOOKS_POST),
      body: {
        event: "NEW_ORDER",
        data: [
          { url: URL_A, stores: [S] },
          { url: URL_B, stores: [S2] },
        ],
      },
    }),
    status: 200,
    invalid: [
      once(badBody(at(HOOKS_POST), { event: "NEW_ORDER", data: [] }, "data must be a non-empty array")),
      once(invalidEvent(at(HOOKS_POST), { event: "NOPE", data: [{ url: URL_A }] })),
    ],
  },
  {
    route: REMOVE_STORES,
    valid: async (f) => {
      await newOrderHook(f);
      return { path: at(REMOVE_STORES, { event: "NEW_ORDER" }), body: { stores: [S2] } };
    },
    status: 200,
    invalid: [
      once(
        badBody(at(REMOVE_STORES, { event: "NEW_ORDER" }), { stores: [STORE] }, "stores[0] must be a string"),
      ),
    ],
  },
  {
    route: RESET_SECRET,
    valid: async (f) => {
      await newOrderHook(f);
      return { path: at(RESET_SECRET, { event: "NEW_ORDER" }) };
    },
    status: 200,
    invalid: [
      once(invalidEvent(at(RESET_SECRET, { event: "NOPE" }))),
      once(notFound(at(RESET_SECRET, { event: "PING" }), "Webhook for event PING not found")),
    ],
  },
  {
    route: CHANGE_STATUS,
    valid: async (f) => {
      await newOrderHook(f);
      return {
        path: at(CHANGE_STATUS, { event: "NEW_ORDER" }),
        body: { stores: { disable: [S2], enable: [S] } },
      };
    },
    status: 200,
    invalid: [
      once(
        badBody(
          at(CHANGE_STATUS, { event: "NEW_ORDER" }),
          { stores: {} },
          "stores.enable or stores.disable is required",
        ),
      ),
    ],
  },
  {
    route: CLIENT_HOOKS_POST,
    valid: async () => ({
      path: at(CLIENT_HOOKS_POST, CLIENT_HOOKS),
      body: { event: "STORE_PROVISIONING_STATUS", url: URL_A, secret: "s3cret" },
    }),
    status: [200, 201],
    invalid: [
      once(
        badBody(
          at(CLIENT_HOOKS_POST, CLIENT_HOOKS),
          { event: "STORE_PROVISIONING_STATUS" },
          "url is required",
        ),
      ),
      once(invalidEvent(at(CLIENT_HOOKS_POST, CLIENT_HOOKS), { event: "NOPE", url: URL_A })),
    ],
  },
  {
    route: CLIENT_HOOKS_DELETE,
    valid: async (f) => {
      await f.send("POST", {
        path: at(CLIENT_HOOKS_POST, CLIENT_HOOKS),
        body: { event: "STORE_PROVISIONING_STATUS", url: URL_A },
      });
      return { path: at(CLIENT_HOOKS_DELETE, CLIENT_HOOKS, "?event=STORE_PROVISIONING_STATUS") };
    },
    status: 204,
    invalid: [
      once({
        why: "another client's id",
        req: { path: at(CLIENT_HOOKS_DELETE, { clientId: "other" }, "?event=STORE_PROVISIONING_STATUS") },
        status: 403,
        error: "Message",
        message: "Forbidden",
      }),
    ],
  },
  {
    route: CLIENT_HOOKS_GET,
    valid: async () => ({ path: at(CLIENT_HOOKS_GET, CLIENT_HOOKS) }),
    status: 200,
    invalid: [
      once({
        why: "another client's id",
        req: { path: at(CLIENT_HOOKS_GET, { clientId: "other" }) },
        status: 403,
        error: "Message",
        message: "Forbidden",
      }),
    ],
  },
];

/** Every row, in the order of docs/platform-api.md §2. */
export const ROWS: Row[] = [
  ...auth,
  ...legacy,
  ...availabilityV2,
  ...menu,
  ...utils,
  ...finance,
  ...webhooks,
];

// ---- the spec, transcribed -------------------------------------------------------------------------

/**
 * The prefix each section of docs/platform-api.md §2 names in its title (`### 4.1 Token login (prefix …)`).
 */
const SPEC_PREFIX = {
  "4.1": "/restaurants/auth/v1",
  "4.2": "/restaurants/menu/v1/stores/{storeId}",
  "4.3": "/api/v2/restaurants-integrations-public-api",
  "4.4": "/restaurants/menu/v1/stores/{storeId}",
  "4.5": "/api/rest-ops-utils",
  "4.6": "/restaurants/finance/v1/stores/{store_id}",
  "4.7": "/api/v2/restaurants-integrations-public-api",
} as const;

const P = SPEC_PREFIX;

/**
 * The rows of docs/platform-api.md §2, transcribed from the spec and not from the route table, so that the
 * two can be compared: method and path as the spec's tables write them, prefixed with their section's prefix.
 * The "same operations by integration" and "by SKU" sentences of docs/platform-api.md §2.5 are expanded; the
 * utils-group operation named in §2.4's notes is listed with the utils prefix.
 */
export const SPEC_ROWS: string[] = [
  // 4.1
  `POST ${P["4.1"]}/token/login/integrations`,
  `POST ${P["4.1"]}/token/login/utils`,
  // 4.2
  ...["products", "toppings", "items"].flatMap((r) => [
    `PATCH ${P["4.2"]}/${r}/{identityType}/stock`,
    `POST ${P["4.2"]}/${r}/{identityType}/stock/status`,
  ]),
  // 4.3
  `POST ${P["4.3"]}/availability/items/status`,
  `POST ${P["4.3"]}/availability/items/platform/status`,
  `PUT ${P["4.3"]}/availability/stores/items`,
  `PUT ${P["4.3"]}/availability/stores/items/platform`,
  `POST ${P["4.3"]}/availability/stores`,
  `PUT ${P["4.3"]}/availability/stores`,
  `PUT ${P["4.3"]}/availability/stores/enable/massive`,
  `PUT ${P["4.3"]}/availability/stores/enable`,
  // 4.4
  `GET ${P["4.4"]}/store-menu`,
  `POST ${P["4.4"]}/store-menu`,
  `GET ${P["4.4"]}/menu`,
  `POST ${P["4.4"]}/menu`,
  `DELETE ${P["4.4"]}/menu`,
  `GET ${P["4.4"]}/menu/{menuId}`,
  `GET ${P["4.4"]}/categories`,
  `POST ${P["4.4"]}/categories`,
  `DELETE ${P["4.4"]}/categories`,
  `GET ${P["4.4"]}/categories/{categoryId}`,
  `GET ${P["4.4"]}/items`,
  `POST ${P["4.4"]}/items`,
  `DELETE ${P["4.4"]}/items`,
  `GET ${P["4.4"]}/items/{itemId}`,
  `GET ${P["4.5"]}/menu/integration/{integrationId}`,
  // 4.5 corridors and corridor schedules, by store and by integration
  ...(["store/{storeId}", "integration/{integrationId}"] as const).flatMap((via) => [
    `GET ${P["4.5"]}/corridor/${via}`,
    `GET ${P["4.5"]}/corridor/schedule/{corridorId}/${via}`,
    `POST ${P["4.5"]}/corridor/schedule/{corridorId}/${via}`,
    `PUT ${P["4.5"]}/corridor/schedule/{corridorId}/${via}`,
    `DELETE ${P["4.5"]}/corridor/schedule/{corridorId}/${via}/{corridorProductScheduleId}`,
  ]),
  // 4.5 product schedules by product id
  `GET ${P["4.5"]}/product/corridor/{corridorId}/store/{storeId}`,
  `GET ${P["4.5"]}/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}`,
  `POST ${P["4.5"]}/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}`,
  `PUT ${P["4.5"]}/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}`,
  `DELETE ${P["4.5"]}/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}/{corridorProductScheduleId}`,
  // 4.5 product schedules by SKU
  `GET ${P["4.5"]}/sku/corridor/{corridorId}/integration/{integrationId}`,
  `GET ${P["4.5"]}/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}`,
  `POST ${P["4.5"]}/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}`,
  `PUT ${P["4.5"]}/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}`,
  `DELETE ${P["4.5"]}/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}/{corridorProductScheduleId}`,
  // 4.5 store hours
  `GET ${P["4.5"]}/store/schedule/{storeId}`,
  `GET ${P["4.5"]}/store/schedule/{storeId}/holiday`,
  `GET ${P["4.5"]}/store/schedule/{storeId}/special`,
  `POST ${P["4.5"]}/store/schedule/{storeId}`,
  `POST ${P["4.5"]}/store/schedule/{storeId}/holiday/{holidayDayId}`,
  `POST ${P["4.5"]}/store/schedule/{storeId}/special`,
  `POST ${P["4.5"]}/store/schedule/{storeId}/special/{specialDayId}`,
  `PUT ${P["4.5"]}/store/schedule/{storeId}/{storeScheduleId}`,
  `DELETE ${P["4.5"]}/store/schedule/{storeId}/{storeScheduleId}`,
  `DELETE ${P["4.5"]}/store/schedule/{storeId}/special/{specialDayId}`,
  // 4.6
  ...["payments", "orders", "order_adjusments", "charged_cancellations"].map((p) => `GET ${P["4.6"]}/${p}`),
  // 4.7 (GET /webhook/{event}: `event` is optional, so GET /webhook is a row too)
  `GET ${P["4.7"]}/webhook/{event}`,
  `PUT ${P["4.7"]}/webhook/{event}/add-stores`,
  `PUT ${P["4.7"]}/webhook/{event}/change-url`,
  `POST ${P["4.7"]}/webhook`,
  `DELETE ${P["4.7"]}/webhook/{event}/remove-stores`,
  `PUT ${P["4.7"]}/webhook/{event}/reset-secret`,
  `PUT ${P["4.7"]}/webhook/{event}/change-status`,
  `POST ${P["4.7"]}/clients/{clientId}/webhooks`,
  `DELETE ${P["4.7"]}/clients/{clientId}/webhooks`,
  `GET ${P["4.7"]}/clients/{clientId}/webhooks`,
];

/** `METHOD path` with every path parameter written `{}`: compares spec, table and emulator paths. */
export function routeKey(method: string, path: string): string {
  return `${method} ${path.replace(/\{[^}]+\}|:[A-Za-z_]+/g, "{}")}`;
}

/** {@link routeKey} of a route of the table. */
export function keyOf(route: RouteName): string {
  return routeKey(routeMethod(route), routeTemplate(route));
}

/** Sends requests for a fixture. */
export function sender(emu: RunningEmulator, tokens: Fixture["tokens"]): Fixture["send"] {
  return async (method, req) => {
    const kind = req.token ?? "integrations";
    const token = kind === "none" ? undefined : tokens[kind];
    return call(emu, method, req.path, { ...(token ? { token } : {}), body: req.body });
  };
}
