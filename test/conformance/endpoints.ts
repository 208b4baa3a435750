/**
 * The conformance table: one row per (method, path) of platform-spec.md §4, each with a valid request
 * and its answer (status, response definition of schemas/platform/), and at least one invalid request
 * with its status, error definition and message. conformance.test.ts drives every row over real HTTP
 * and checks that the table covers every route of the emulator and every row of the spec.
 *
 * Requests are built by functions of a {@link Fixture} (a seeded emulator with a small catalog), so that
 * each row can create what it needs (a delete creates what it deletes) and rows stay independent.
 */

import type { PlatformSchemaName } from "../../src/generated/platform.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { FOREIGN_STORE, STORE, STORE2, call } from "../emulator/helpers.js";

export const AUTH = "/restaurants/auth/v1";
export const MENU = "/restaurants/menu/v1/stores";
export const V2 = "/api/v2/restaurants-integrations-public-api";
export const UTILS = "/api/rest-ops-utils";
export const FINANCE = "/restaurants/finance/v1/stores";

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

/** One row of spec §4. */
export interface Row {
  spec: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** The path as the spec writes it, prefix included, `{name}` parameters. */
  template: string;
  token: TokenKind;
  valid(f: Fixture): Promise<Req>;
  /** Expected status(es) of the valid request. */
  status: number | number[];
  /** Definition of the success body; null: no body (204). */
  response: PlatformSchemaName | null;
  invalid: ((f: Fixture) => Promise<Invalid>)[];
}

const S = String(STORE);
const S2 = String(STORE2);
const INTEGRATION = "bog-centro";

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

const auth: Row[] = (["integrations", "utils"] as const).map((surface): Row => ({
  spec: "4.1",
  method: "POST",
  template: `${AUTH}/token/login/${surface}`,
  token: "none",
  valid: async () => ({
    path: `${AUTH}/token/login/${surface}`,
    body: { client_id: "acme", client_secret: "s3cret-acme" },
  }),
  status: 200,
  response: "TokenResponse",
  invalid: [
    once(badBody(`${AUTH}/token/login/${surface}`, { client_id: "acme" }, "client_secret is required")),
    once({
      why: "wrong credentials",
      req: { path: `${AUTH}/token/login/${surface}`, body: { client_id: "acme", client_secret: "nope" } },
      status: 401,
      error: "Message",
      message: "Invalid credentials",
    }),
  ],
}));

const LEGACY_STATUS_FIELD = { products: "products", toppings: "toppings", items: "items" } as const;

const legacy: Row[] = (["products", "toppings", "items"] as const).flatMap((res): Row[] => {
  const base = `${MENU}/${S}/${res}`;
  const identity = res === "items" ? "PLATFORM" : "SKU";
  const sku = res === "toppings" ? "CHEESE" : "COLA";
  const ident = (f: Fixture): string => (identity === "PLATFORM" ? String(f.ids.COLA) : sku);
  return [
    {
      spec: "4.2",
      method: "PATCH",
      template: `${MENU}/{storeId}/${res}/{identityType}/stock`,
      token: "integrations",
      valid: async (f) => ({
        path: `${base}/${identity}/stock`,
        body: { available: [ident(f)], unavailable: [] },
      }),
      status: 200,
      response: "Message",
      invalid: [
        once(
          badBody(
            `${base}/SKU/stock`,
            { available: ["COLA"] },
            "unavailable is required (an array of strings)",
          ),
        ),
        once(
          badBody(`${base}/SKU/stock`, { available: [1], unavailable: [] }, "available[0] must be a string"),
        ),
        once({
          why: "unknown identity type",
          req: { path: `${base}/EAN/stock`, body: { available: [], unavailable: [] } },
          status: 400,
          error: "Message",
          message: 'identityType must be PLATFORM or SKU, not "EAN"',
        }),
      ],
    },
    {
      spec: "4.2",
      method: "POST",
      template: `${MENU}/{storeId}/${res}/{identityType}/stock/status`,
      token: "integrations",
      valid: async (f) => ({
        path: `${base}/${identity}/stock/status`,
        body: { [LEGACY_STATUS_FIELD[res]]: [ident(f), "999999"] },
      }),
      status: 200,
      response: "StockStatusList",
      invalid: [
        once(
          badBody(
            `${base}/SKU/stock/status`,
            res === "products" ? { toppings: [] } : { products: [] },
            `${res} is required (an array of strings)`,
          ),
        ),
        once({
          ...foreign(`${MENU}/${FOREIGN_STORE}/${res}/SKU/stock/status`),
          req: { path: `${MENU}/${FOREIGN_STORE}/${res}/SKU/stock/status`, body: { [res]: ["COLA"] } },
        }),
      ],
    },
  ];
});

const AV = `${V2}/availability`;

const availabilityV2: Row[] = [
  {
    spec: "4.3",
    method: "POST",
    template: `${V2}/availability/items/status`,
    token: "integrations",
    valid: async () => ({ path: `${AV}/items/status`, body: { store_id: S, item_ids: ["COLA", "NOPE"] } }),
    status: 200,
    response: "ItemStatusList",
    invalid: [once(badBody(`${AV}/items/status`, { item_ids: ["COLA"] }, "store_id is required"))],
  },
  {
    spec: "4.3",
    method: "POST",
    template: `${V2}/availability/items/platform/status`,
    token: "integrations",
    valid: async (f) => ({
      path: `${AV}/items/platform/status`,
      body: { store_id: S, item_ids: [String(f.ids.COLA)] },
    }),
    status: 200,
    response: "ItemStatusList",
    invalid: [
      once(
        badBody(
          `${AV}/items/platform/status`,
          { store_id: STORE, item_ids: [] },
          "store_id must be a string",
        ),
      ),
    ],
  },
  {
    spec: "4.3",
    method: "PUT",
    template: `${V2}/availability/stores/items`,
    token: "integrations",
    valid: async () => ({
      path: `${AV}/stores/items`,
      body: [{ store_integration_id: INTEGRATION, items: { turn_on: ["COLA"] } }],
    }),
    status: 200,
    response: "Message",
    invalid: [
      once({
        why: "element without items",
        req: { path: `${AV}/stores/items`, body: [{ store_integration_id: INTEGRATION }] },
        status: 400,
        error: "MessageList",
        message: "Error updating items",
      }),
      once({
        why: "unknown SKU",
        req: {
          path: `${AV}/stores/items`,
          body: [{ store_integration_id: INTEGRATION, items: { turn_off: ["NOPE"] } }],
        },
        status: 400,
        error: "MessageList",
        message: "Error updating items",
      }),
    ],
  },
  {
    spec: "4.3",
    method: "PUT",
    template: `${V2}/availability/stores/items/platform`,
    token: "integrations",
    valid: async (f) => ({
      path: `${AV}/stores/items/platform`,
      body: [{ store_integration_id: INTEGRATION, items: { turn_on: [f.ids.COLA] } }],
    }),
    status: 200,
    response: "Message",
    invalid: [
      once({
        why: "SKUs where platform ids are expected",
        req: {
          path: `${AV}/stores/items/platform`,
          body: [{ store_integration_id: INTEGRATION, items: { turn_on: ["COLA"] } }],
        },
        status: 400,
        error: "MessageList",
        message: "Error updating items",
      }),
    ],
  },
  {
    spec: "4.3",
    method: "POST",
    template: `${V2}/availability/stores`,
    token: "integrations",
    valid: async () => ({ path: `${AV}/stores`, body: [S, STORE2] }),
    status: 200,
    response: "StoreStatusMap",
    invalid: [
      once(badBody(`${AV}/stores`, { stores: [S] }, "body must be an array of store ids")),
      once(
        badBody(
          `${AV}/stores`,
          Array.from({ length: 101 }, () => S),
          "At most 100 stores can be queried at once; got 101",
        ),
      ),
    ],
  },
  {
    spec: "4.3",
    method: "PUT",
    template: `${V2}/availability/stores`,
    token: "integrations",
    valid: async () => ({ path: `${AV}/stores`, body: { turn_on: [S] } }),
    status: 200,
    response: "Message",
    invalid: [once(badBody(`${AV}/stores`, {}, "turn_on or turn_off is required"))],
  },
  {
    spec: "4.3",
    method: "PUT",
    template: `${V2}/availability/stores/enable/massive`,
    token: "integrations",
    valid: async () => ({
      path: `${AV}/stores/enable/massive`,
      body: { stores: [{ store_id: S, is_enabled: true }] },
    }),
    status: 200,
    response: "Message",
    invalid: [
      once(
        badBody(
          `${AV}/stores/enable/massive`,
          { stores: [{ store_id: "x", is_enabled: true }] },
          "stores[0].store_id must be a string matching ^[0-9]+$ or an integer",
        ),
      ),
    ],
  },
  {
    spec: "4.3",
    method: "PUT",
    template: `${V2}/availability/stores/enable`,
    token: "integrations",
    valid: async () => ({
      path: `${AV}/stores/enable`,
      body: {
        stores: [
          { store_id: S, is_enabled: true },
          { store_id: String(FOREIGN_STORE), is_enabled: true },
        ],
      },
    }),
    status: 200,
    response: "StoreEnableResponse",
    invalid: [
      once(
        badBody(
          `${AV}/stores/enable`,
          { stores: [{ store_id: S }] },
          "stores[0].is_enabled must be a boolean",
        ),
      ),
      once({
        why: "more than 300 stores",
        req: {
          path: `${AV}/stores/enable`,
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

const M = `${MENU}/${S}`;

/** Creates something through a menu write, waits until it is applied and returns its id. */
async function created(
  f: Fixture,
  path: string,
  body: unknown[],
  sku: string,
  list: string,
): Promise<number> {
  const r = await f.send("POST", { path: `${M}${path}`, body });
  if (r.status !== 200) throw new Error(`setup ${path} failed: ${r.status} ${JSON.stringify(r.body)}`);
  await f.emu.idle();
  const read = await f.send("GET", { path: `${M}/${list}` });
  const found = (read.body as { id: number; sku?: string; menu_type?: string }[]).find(
    (x) => x.sku === sku || x.menu_type === sku,
  );
  if (!found) throw new Error(`setup: ${sku} not found in ${list}`);
  return found.id;
}

const menu: Row[] = [
  {
    spec: "4.4",
    method: "GET",
    template: `${MENU}/{storeId}/store-menu`,
    token: "integrations",
    valid: async () => ({ path: `${M}/store-menu` }),
    status: 200,
    response: "StoreMenu",
    invalid: [once(foreign(`${MENU}/${FOREIGN_STORE}/store-menu`))],
  },
  {
    spec: "4.4",
    method: "POST",
    template: `${MENU}/{storeId}/store-menu`,
    token: "integrations",
    valid: async () => ({
      path: `${MENU}/${S2}/store-menu`,
      body: {
        storeId: STORE2,
        items: [{ sku: "TEA", item_type: "ITEM", title_info: { title: "Tea" }, price_info: { price: 900 } }],
        categories: [{ sku: "HOT", title: "Hot drinks", items: [{ sku: "TEA", index: 0 }] }],
        menus: [{ menu_type: "DEFAULT", categories: [{ sku: "HOT", index: 0, is_category_active: true }] }],
      },
    }),
    status: 200,
    response: "Message",
    invalid: [
      once(badBody(`${MENU}/${S2}/store-menu`, { items: [{ sku: "A" }] }, "items[0].item_type is required")),
    ],
  },
  {
    spec: "4.4",
    method: "GET",
    template: `${MENU}/{storeId}/menu`,
    token: "integrations",
    valid: async () => ({ path: `${M}/menu` }),
    status: 200,
    response: "MenuList",
    invalid: [once(notFound(`${MENU}/424242/menu`, "Store 424242 not found"))],
  },
  {
    spec: "4.4",
    method: "POST",
    template: `${MENU}/{storeId}/menu`,
    token: "integrations",
    valid: async (f) => ({
      path: `${M}/menu`,
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
    response: "Message",
    invalid: [
      once(badBody(`${M}/menu`, [{ categories: [] }], "menus[0].menu_type is required")),
      once({
        why: "a reference to an unknown category",
        req: {
          path: `${M}/menu`,
          body: [{ menu_type: "X", categories: [{ sku: "NOPE", index: 0, is_category_active: true }] }],
        },
        status: 400,
        error: "MenuError",
      }),
    ],
  },
  {
    spec: "4.4",
    method: "DELETE",
    template: `${MENU}/{storeId}/menu`,
    token: "integrations",
    valid: async (f) => {
      const type = `TEMP-${f.next()}`;
      const id = await created(f, "/menu", [{ menu_type: type, categories: [] }], type, "menu");
      return { path: `${M}/menu`, body: [id] };
    },
    status: 200,
    response: "Message",
    invalid: [once(badBody(`${M}/menu`, ["1"], "[0] must be an integer"))],
  },
  {
    spec: "4.4",
    method: "GET",
    template: `${MENU}/{storeId}/menu/{menuId}`,
    token: "integrations",
    valid: async (f) => ({ path: `${M}/menu/${f.ids["menu:DEFAULT"]}` }),
    status: 200,
    response: "Menu",
    invalid: [once(notFound(`${M}/menu/123456`, "Menu 123456 not found"))],
  },
  {
    spec: "4.4",
    method: "GET",
    template: `${MENU}/{storeId}/categories`,
    token: "integrations",
    valid: async () => ({ path: `${M}/categories` }),
    status: 200,
    response: "CategoryList",
    invalid: [once(wrongToken(`${M}/categories`, "none"))],
  },
  {
    spec: "4.4",
    method: "POST",
    template: `${MENU}/{storeId}/categories`,
    token: "integrations",
    valid: async () => ({
      path: `${M}/categories`,
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
    response: "Message",
    invalid: [
      once(
        badBody(
          `${M}/categories`,
          [{ sku: "C", title: "C" }],
          "categories[0].items is required (an array of objects)",
        ),
      ),
      once({
        why: "a category holding a MODIFIER_GROUP",
        req: {
          path: `${M}/categories`,
          body: [{ sku: "C", title: "C", items: [{ sku: "EXTRAS", index: 0 }] }],
        },
        status: 400,
        error: "MenuError",
      }),
    ],
  },
  {
    spec: "4.4",
    method: "DELETE",
    template: `${MENU}/{storeId}/categories`,
    token: "integrations",
    valid: async (f) => {
      const sku = `TEMP-CAT-${f.next()}`;
      const id = await created(f, "/categories", [{ sku, title: sku, items: [] }], sku, "categories");
      return { path: `${M}/categories`, body: { ids: [id] } };
    },
    status: 200,
    response: "Message",
    invalid: [once(badBody(`${M}/categories`, [1], "body must be an object"))],
  },
  {
    spec: "4.4",
    method: "GET",
    template: `${MENU}/{storeId}/categories/{categoryId}`,
    token: "integrations",
    valid: async (f) => ({ path: `${M}/categories/${f.ids.DRINKS}` }),
    status: 200,
    response: "Category",
    invalid: [once(notFound(`${M}/categories/999999`, "Category 999999 not found"))],
  },
  {
    spec: "4.4",
    method: "GET",
    template: `${MENU}/{storeId}/items`,
    token: "integrations",
    valid: async () => ({ path: `${M}/items` }),
    status: 200,
    response: "ItemList",
    invalid: [once(wrongToken(`${M}/items`, "utils"))],
  },
  {
    spec: "4.4",
    method: "POST",
    template: `${MENU}/{storeId}/items`,
    token: "integrations",
    valid: async () => ({
      path: `${M}/items`,
      body: [{ sku: "COLA", item_type: "ITEM", title_info: { title: "Cola" }, price_info: { price: 1000 } }],
    }),
    status: 200,
    response: "Message",
    invalid: [
      once(
        badBody(
          `${M}/items`,
          [{ sku: "X", item_type: "ITEM", title_info: {} }],
          "items[0].title_info.title is required",
        ),
      ),
      once(badBody(`${M}/items`, { sku: "X" }, "body must be an array of items")),
      once({
        why: "ITEM → ITEM relation",
        req: {
          path: `${M}/items`,
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
    spec: "4.4",
    method: "DELETE",
    template: `${MENU}/{storeId}/items`,
    token: "integrations",
    valid: async (f) => {
      const sku = `TEMP-${f.next()}`;
      const id = await created(
        f,
        "/items",
        [{ sku, item_type: "ITEM", title_info: { title: sku } }],
        sku,
        "items",
      );
      return { path: `${M}/items`, body: [id] };
    },
    status: 200,
    response: "Message",
    invalid: [
      once(badBody(`${M}/items`, { ids: [1] }, "body must be an array of item ids")),
      once({
        ...notFound(`${M}/items`, "Item 4242424 not found"),
        req: { path: `${M}/items`, body: [4242424] },
      }),
    ],
  },
  {
    spec: "4.4",
    method: "GET",
    template: `${MENU}/{storeId}/items/{itemId}`,
    token: "integrations",
    valid: async (f) => ({ path: `${M}/items/${f.ids.BURGER}` }),
    status: 200,
    response: "Item",
    invalid: [once(notFound(`${M}/items/999999`, "Item 999999 not found"))],
  },
];

// ---- utils -----------------------------------------------------------------------------------------

/** The five operations of one kind of schedule (spec §4.5): list (when given), get, post, put, delete. */
function scheduleRows(opts: {
  listTemplate?: string;
  list?: (f: Fixture) => string;
  listResponse?: PlatformSchemaName;
  listInvalid?: Invalid;
  template: string;
  path: (f: Fixture) => string;
  response: PlatformSchemaName;
  getInvalid: (f: Fixture) => Invalid;
}): Row[] {
  const rows: Row[] = [];
  if (opts.listTemplate && opts.list && opts.listResponse && opts.listInvalid) {
    const list = opts.list;
    rows.push({
      spec: "4.5",
      method: "GET",
      template: opts.listTemplate,
      token: "utils",
      valid: async (f) => ({ path: list(f) }),
      status: 200,
      response: opts.listResponse,
      invalid: [once(opts.listInvalid)],
    });
  }
  const post = async (f: Fixture): Promise<{ id: number }[]> => {
    const r = await f.send("POST", {
      path: opts.path(f),
      body: { schedule_details: details(f) },
      token: "utils",
    });
    if (r.status !== 200)
      throw new Error(`setup POST ${opts.path(f)}: ${r.status} ${JSON.stringify(r.body)}`);
    return (r.body as { schedule_details: { id: number }[] }).schedule_details;
  };
  rows.push(
    {
      spec: "4.5",
      method: "GET",
      template: opts.template,
      token: "utils",
      valid: async (f) => ({ path: opts.path(f) }),
      status: 200,
      response: opts.response,
      invalid: [async (f) => opts.getInvalid(f)],
    },
    {
      spec: "4.5",
      method: "POST",
      template: opts.template,
      token: "utils",
      valid: async (f) => ({ path: opts.path(f), body: { schedule_details: details(f) } }),
      status: 200,
      response: opts.response,
      invalid: [async (f) => badBody(opts.path(f), {}, "schedule_details must be a non-empty array")],
    },
    {
      spec: "4.5",
      method: "PUT",
      template: opts.template,
      token: "utils",
      valid: async (f) => {
        const list = await post(f);
        const s = slot(f);
        const id = list.at(-1)!.id;
        return {
          path: opts.path(f),
          body: { schedule_details: [{ id, days: `${day(f)},hol`, starts_time: s.start, ends_time: s.end }] },
        };
      },
      status: 200,
      response: opts.response,
      invalid: [
        async (f) =>
          badBody(
            opts.path(f),
            { schedule_details: [{ days: "mon", starts_time: "10:00:00", ends_time: "11:00:00" }] },
            "schedule_details[0].id is required (a positive integer)",
          ),
        async (f) =>
          badBody(
            opts.path(f),
            { schedule_details: [{ id: 1, days: "mon", starts_time: "10:00", ends_time: "11:00:00" }] },
            "schedule_details[0].starts_time must be a time HH:mm:ss",
          ),
      ],
    },
    {
      spec: "4.5",
      method: "DELETE",
      template: `${opts.template}/{corridorProductScheduleId}`,
      token: "utils",
      valid: async (f) => {
        const list = await post(f);
        return { path: `${opts.path(f)}/${list.at(-1)!.id}` };
      },
      status: 204,
      response: null,
      invalid: [async (f) => notFound(`${opts.path(f)}/999999`, "Schedule 999999 not found", "utils")],
    },
  );
  return rows;
}

const H = `${UTILS}/store/schedule`;

/** Creates a regular slot on a day of its own and returns its id. */
async function regularSlot(f: Fixture): Promise<number> {
  const s = slot(f);
  const r = await f.send("POST", {
    path: `${H}/${S}`,
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
    path: `${H}/${S}/special`,
    body: { day: 1 + (n % 28), month: 1 + (Math.floor(n / 28) % 12), name: `Special ${n}`, schedules: [] },
    token: "utils",
  });
  if (r.status !== 200) throw new Error(`setup special day: ${r.status} ${JSON.stringify(r.body)}`);
  return (r.body as { id: number }).id;
}

const utils: Row[] = [
  {
    spec: "4.5",
    method: "GET",
    template: `${UTILS}/corridor/store/{storeId}`,
    token: "utils",
    valid: async () => ({ path: `${UTILS}/corridor/store/${S}` }),
    status: 200,
    response: "CorridorByStoreList",
    invalid: [once(notFound(`${UTILS}/corridor/store/424242`, "Store 424242 not found", "utils"))],
  },
  ...scheduleRows({
    template: `${UTILS}/corridor/schedule/{corridorId}/store/{storeId}`,
    path: (f) => `${UTILS}/corridor/schedule/${f.ids.DRINKS}/store/${S}`,
    response: "CorridorScheduleByStore",
    getInvalid: () =>
      notFound(`${UTILS}/corridor/schedule/999999/store/${S}`, "Corridor 999999 not found", "utils"),
  }),
  {
    spec: "4.5",
    method: "GET",
    template: `${UTILS}/corridor/integration/{integrationId}`,
    token: "utils",
    valid: async () => ({ path: `${UTILS}/corridor/integration/${INTEGRATION}` }),
    status: 200,
    response: "CorridorByIntegrationList",
    invalid: [once(notFound(`${UTILS}/corridor/integration/nope`, "Integration nope not found", "utils"))],
  },
  ...scheduleRows({
    template: `${UTILS}/corridor/schedule/{corridorId}/integration/{integrationId}`,
    path: (f) => `${UTILS}/corridor/schedule/${f.ids.MAINS}/integration/${INTEGRATION}`,
    response: "CorridorScheduleByIntegration",
    getInvalid: (f) =>
      wrongToken(`${UTILS}/corridor/schedule/${f.ids.MAINS}/integration/${INTEGRATION}`, "integrations"),
  }),
  ...scheduleRows({
    listTemplate: `${UTILS}/product/corridor/{corridorId}/store/{storeId}`,
    list: (f) => `${UTILS}/product/corridor/${f.ids.DRINKS}/store/${S}`,
    listResponse: "ProductByStoreList",
    listInvalid: foreign(`${UTILS}/product/corridor/1/store/${FOREIGN_STORE}`, "utils"),
    template: `${UTILS}/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}`,
    path: (f) => `${UTILS}/product/schedule/${f.ids.COLA}/corridor/${f.ids.DRINKS}/store/${S}`,
    response: "ProductScheduleByStore",
    getInvalid: (f) =>
      notFound(
        `${UTILS}/product/schedule/${f.ids.BURGER}/corridor/${f.ids.DRINKS}/store/${S}`,
        `Product ${f.ids.BURGER} not found in corridor ${f.ids.DRINKS}`,
        "utils",
      ),
  }),
  ...scheduleRows({
    listTemplate: `${UTILS}/sku/corridor/{corridorId}/integration/{integrationId}`,
    list: (f) => `${UTILS}/sku/corridor/${f.ids.DRINKS}/integration/${INTEGRATION}`,
    listResponse: "ProductBySkuList",
    listInvalid: notFound(
      `${UTILS}/sku/corridor/1/integration/other-1`,
      "Integration other-1 not found",
      "utils",
    ),
    template: `${UTILS}/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}`,
    path: (f) => `${UTILS}/sku/schedule/1234/corridor/${f.ids.DRINKS}/integration/${INTEGRATION}`,
    response: "ProductScheduleBySku",
    getInvalid: (f) =>
      notFound(
        `${UTILS}/sku/schedule/NOPE/corridor/${f.ids.DRINKS}/integration/${INTEGRATION}`,
        "Product with sku NOPE not found",
        "utils",
      ),
  }),
  {
    spec: "4.5",
    method: "GET",
    template: `${UTILS}/store/schedule/{storeId}`,
    token: "utils",
    valid: async () => ({ path: `${H}/${S}` }),
    status: 200,
    response: "RegularHours",
    invalid: [once(wrongToken(`${H}/${S}`, "integrations"))],
  },
  {
    spec: "4.5",
    method: "GET",
    template: `${UTILS}/store/schedule/{storeId}/holiday`,
    token: "utils",
    valid: async () => ({ path: `${H}/${S}/holiday` }),
    status: 200,
    response: "SpecialDays",
    invalid: [once(notFound(`${H}/424242/holiday`, "Store 424242 not found", "utils"))],
  },
  {
    spec: "4.5",
    method: "GET",
    template: `${UTILS}/store/schedule/{storeId}/special`,
    token: "utils",
    valid: async () => ({ path: `${H}/${S}/special` }),
    status: 200,
    response: "SpecialDays",
    invalid: [once(foreign(`${H}/${FOREIGN_STORE}/special`, "utils"))],
  },
  {
    spec: "4.5",
    method: "POST",
    template: `${UTILS}/store/schedule/{storeId}`,
    token: "utils",
    valid: async (f) => {
      const s = slot(f);
      return { path: `${H}/${S}`, body: { day: day(f), starts_time: s.start, ends_time: s.end } };
    },
    status: 200,
    response: "RegularSlotCreated",
    invalid: [
      once(
        badBody(
          `${H}/${S}`,
          { day: "hol", starts_time: "11:00:00", ends_time: "15:00:00" },
          "day must be one of mon,tue,wed,thu,fri,sat,sun",
        ),
      ),
      once(
        badBody(
          `${H}/${S}`,
          { day: "mon", starts_time: "23:00:00", ends_time: "02:00:00" },
          "ends_time (02:00:00) must be later than starts_time (23:00:00); split ranges that cross midnight",
        ),
      ),
    ],
  },
  {
    spec: "4.5",
    method: "POST",
    template: `${UTILS}/store/schedule/{storeId}/holiday/{holidayDayId}`,
    token: "utils",
    valid: async (f) => {
      const s = slot(f);
      return { path: `${H}/${S}/holiday/1225`, body: [{ startsTime: s.start, endsTime: s.end }] };
    },
    status: 200,
    response: "SlotCreated",
    invalid: [
      once(
        badBody(
          `${H}/${S}/holiday/101`,
          [{ startsTime: "12:00:00", endsTime: "25:00:00" }],
          "[0].endsTime must be a time HH:mm:ss",
        ),
      ),
      once({
        ...notFound(`${H}/${S}/holiday/4242`, "Holiday day 4242 not found", "utils"),
        req: { path: `${H}/${S}/holiday/4242`, body: [{ startsTime: "12:00:00", endsTime: "13:00:00" }] },
      }),
    ],
  },
  {
    spec: "4.5",
    method: "POST",
    template: `${UTILS}/store/schedule/{storeId}/special`,
    token: "utils",
    valid: async (f) => {
      const n = f.next();
      const s = slot(f);
      return {
        path: `${H}/${S}/special`,
        body: {
          day: 1 + (n % 28),
          month: 1 + (Math.floor(n / 28) % 12),
          name: `Special ${n}`,
          schedules: [{ startsTime: s.start, endsTime: s.end }],
        },
      };
    },
    status: 200,
    response: "SpecialDay",
    invalid: [
      once(
        badBody(
          `${H}/${S}/special`,
          { day: 1, month: 13, name: "X" },
          "month must be an integer from 1 to 12",
        ),
      ),
      once(badBody(`${H}/${S}/special`, { day: 1, month: 3, schedules: [] }, "name is required")),
    ],
  },
  {
    spec: "4.5",
    method: "POST",
    template: `${UTILS}/store/schedule/{storeId}/special/{specialDayId}`,
    token: "utils",
    valid: async (f) => {
      const id = await specialDay(f);
      const s = slot(f);
      return { path: `${H}/${S}/special/${id}`, body: { startsTime: s.start, endsTime: s.end } };
    },
    status: 200,
    response: "SlotCreated",
    invalid: [
      async (f) =>
        badBody(`${H}/${S}/special/${await specialDay(f)}`, "10:00:00", "body must be an object or an array"),
    ],
  },
  {
    spec: "4.5",
    method: "PUT",
    template: `${UTILS}/store/schedule/{storeId}/{storeScheduleId}`,
    token: "utils",
    valid: async (f) => {
      const id = await regularSlot(f);
      const s = slot(f);
      return { path: `${H}/${S}/${id}`, body: { starts_time: s.start, ends_time: s.end } };
    },
    status: 200,
    response: "SlotUpdated",
    invalid: [
      async (f) =>
        badBody(`${H}/${S}/${await regularSlot(f)}`, { starts_time: 5 }, "starts_time must be a string"),
      once({
        ...notFound(`${H}/${S}/999999`, "Store schedule 999999 not found", "utils"),
        req: { path: `${H}/${S}/999999`, body: { starts_time: "11:00:00", ends_time: "12:00:00" } },
      }),
    ],
  },
  {
    spec: "4.5",
    method: "DELETE",
    template: `${UTILS}/store/schedule/{storeId}/{storeScheduleId}`,
    token: "utils",
    valid: async (f) => ({ path: `${H}/${S}/${await regularSlot(f)}` }),
    status: 204,
    response: null,
    invalid: [once(notFound(`${H}/${S}/999999`, "Store schedule 999999 not found", "utils"))],
  },
  {
    spec: "4.5",
    method: "DELETE",
    template: `${UTILS}/store/schedule/{storeId}/special/{specialDayId}`,
    token: "utils",
    valid: async (f) => ({ path: `${H}/${S}/special/${await specialDay(f)}` }),
    status: 204,
    response: null,
    invalid: [once(notFound(`${H}/${S}/special/999999`, "Special day 999999 not found", "utils"))],
  },
  {
    spec: "4.4",
    method: "GET",
    template: `${UTILS}/menu/integration/{integrationId}`,
    token: "utils",
    valid: async () => ({ path: `${UTILS}/menu/integration/${INTEGRATION}` }),
    status: 200,
    response: "MenuStatus",
    invalid: [once(notFound(`${UTILS}/menu/integration/nope`, "Integration nope not found", "utils"))],
  },
];

// ---- finance ---------------------------------------------------------------------------------------

const FIN = `${FINANCE}/${S}`;

const finance: Row[] = (
  [
    [
      "payments",
      "PaymentPage",
      "?page_size=5&expected_execution_date:gte=2025-01-01&expect_execution_date:lte=2025-12-31",
    ],
    ["orders", "OrderPage", "?page_number=2&page_size=5&order_date:gte=2025-01-01"],
    ["order_adjusments", "OrderAdjustmentPage", "?order_date:lte=2025-12-31"],
    ["charged_cancellations", "ChargedCancellationPage", "?page_size=100"],
  ] as const
).map(([path, response, query]): Row => ({
  spec: "4.6",
  method: "GET",
  template: `${FINANCE}/{store_id}/${path}`,
  token: "integrations",
  valid: async () => ({ path: `${FIN}/${path}${query}` }),
  status: 200,
  response,
  invalid: [
    once(badBody(`${FIN}/${path}?page_size=101`, undefined, "page_size must be between 1 and 100")),
    once(
      badBody(
        `${FIN}/${path}?order_date:gte=2025-13-01`,
        undefined,
        path === "payments"
          ? "unknown query parameter order_date:gte; allowed: page_number, page_size, payment_id:eq, expected_execution_date:gte, expect_execution_date:lte, confirmed_payment_date:gte, confirmed_payment_date:lte"
          : "order_date:gte must be a date YYYY-MM-DD",
      ),
    ),
    once(foreign(`${FINANCE}/${FOREIGN_STORE}/${path}`)),
  ],
}));

// ---- webhooks --------------------------------------------------------------------------------------

const URL_A = "https://hooks.example.test/a";
const URL_B = "https://hooks.example.test/b";

/** Makes sure NEW_ORDER is configured for both stores of the client. */
async function newOrderHook(f: Fixture): Promise<void> {
  const r = await f.send("POST", {
    path: `${V2}/webhook`,
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

const CLIENT_HOOKS = `${V2}/clients/acme/webhooks`;

const webhooks: Row[] = [
  {
    spec: "4.7",
    method: "GET",
    template: `${V2}/webhook`,
    token: "integrations",
    valid: async (f) => {
      await newOrderHook(f);
      return { path: `${V2}/webhook` };
    },
    status: 200,
    response: "WebhookConfigList",
    invalid: [once(wrongToken(`${V2}/webhook`, "none"))],
  },
  {
    spec: "4.7",
    method: "GET",
    template: `${V2}/webhook/{event}`,
    token: "integrations",
    valid: async (f) => {
      await newOrderHook(f);
      return { path: `${V2}/webhook/NEW_ORDER` };
    },
    status: 200,
    response: "WebhookConfigList",
    invalid: [once(invalidEvent(`${V2}/webhook/NOPE`))],
  },
  {
    spec: "4.7",
    method: "PUT",
    template: `${V2}/webhook/{event}/add-stores`,
    token: "integrations",
    valid: async (f) => {
      await newOrderHook(f);
      return { path: `${V2}/webhook/NEW_ORDER/add-stores`, body: [{ url: URL_B, stores: [S2] }] };
    },
    status: 200,
    response: "WebhookConfig",
    invalid: [
      once(
        badBody(`${V2}/webhook/NEW_ORDER/add-stores`, { url: URL_B, stores: [S2] }, "body must be an array"),
      ),
      once(invalidEvent(`${V2}/webhook/NOPE/add-stores`, [{ url: URL_B, stores: [S2] }])),
    ],
  },
  {
    spec: "4.7",
    method: "PUT",
    template: `${V2}/webhook/{event}/change-url`,
    token: "integrations",
    valid: async (f) => {
      await newOrderHook(f);
      return { path: `${V2}/webhook/NEW_ORDER/change-url`, body: { url: URL_B, stores: [S] } };
    },
    status: 200,
    response: "WebhookConfig",
    invalid: [once(badBody(`${V2}/webhook/NEW_ORDER/change-url`, { stores: [S] }, "url is required"))],
  },
  {
    spec: "4.7",
    method: "POST",
    template: `${V2}/webhook`,
    token: "integrations",
    valid: async () => ({
      path: `${V2}/webhook`,
      body: {
        event: "NEW_ORDER",
        data: [
          { url: URL_A, stores: [S] },
          { url: URL_B, stores: [S2] },
        ],
      },
    }),
    status: 200,
    response: "WebhookWithSecret",
    invalid: [
      once(badBody(`${V2}/webhook`, { event: "NEW_ORDER", data: [] }, "data must be a non-empty array")),
      once(invalidEvent(`${V2}/webhook`, { event: "NOPE", data: [{ url: URL_A }] })),
    ],
  },
  {
    spec: "4.7",
    method: "DELETE",
    template: `${V2}/webhook/{event}/remove-stores`,
    token: "integrations",
    valid: async (f) => {
      await newOrderHook(f);
      return { path: `${V2}/webhook/NEW_ORDER/remove-stores`, body: { stores: [S2] } };
    },
    status: 200,
    response: "WebhookStoresRemoved",
    invalid: [
      once(
        badBody(`${V2}/webhook/NEW_ORDER/remove-stores`, { stores: [STORE] }, "stores[0] must be a string"),
      ),
    ],
  },
  {
    spec: "4.7",
    method: "PUT",
    template: `${V2}/webhook/{event}/reset-secret`,
    token: "integrations",
    valid: async (f) => {
      await newOrderHook(f);
      return { path: `${V2}/webhook/NEW_ORDER/reset-secret` };
    },
    status: 200,
    response: "WebhookWithSecret",
    invalid: [
      once(invalidEvent(`${V2}/webhook/NOPE/reset-secret`)),
      once(notFound(`${V2}/webhook/PING/reset-secret`, "Webhook for event PING not found")),
    ],
  },
  {
    spec: "4.7",
    method: "PUT",
    template: `${V2}/webhook/{event}/change-status`,
    token: "integrations",
    valid: async (f) => {
      await newOrderHook(f);
      return {
        path: `${V2}/webhook/NEW_ORDER/change-status`,
        body: { stores: { disable: [S2], enable: [S] } },
      };
    },
    status: 200,
    response: "WebhookConfig",
    invalid: [
      once(
        badBody(
          `${V2}/webhook/NEW_ORDER/change-status`,
          { stores: {} },
          "stores.enable or stores.disable is required",
        ),
      ),
    ],
  },
  {
    spec: "4.7",
    method: "POST",
    template: `${V2}/clients/{clientId}/webhooks`,
    token: "integrations",
    valid: async () => ({
      path: CLIENT_HOOKS,
      body: { event: "STORE_PROVISIONING_STATUS", url: URL_A, secret: "s3cret" },
    }),
    status: [200, 201],
    response: "ClientWebhook",
    invalid: [
      once(badBody(CLIENT_HOOKS, { event: "STORE_PROVISIONING_STATUS" }, "url is required")),
      once(invalidEvent(CLIENT_HOOKS, { event: "NOPE", url: URL_A })),
    ],
  },
  {
    spec: "4.7",
    method: "DELETE",
    template: `${V2}/clients/{clientId}/webhooks`,
    token: "integrations",
    valid: async (f) => {
      await f.send("POST", { path: CLIENT_HOOKS, body: { event: "STORE_PROVISIONING_STATUS", url: URL_A } });
      return { path: `${CLIENT_HOOKS}?event=STORE_PROVISIONING_STATUS` };
    },
    status: 204,
    response: null,
    invalid: [
      once({
        why: "another client's id",
        req: { path: `${V2}/clients/other/webhooks?event=STORE_PROVISIONING_STATUS` },
        status: 403,
        error: "Message",
        message: "Forbidden",
      }),
    ],
  },
  {
    spec: "4.7",
    method: "GET",
    template: `${V2}/clients/{clientId}/webhooks`,
    token: "integrations",
    valid: async () => ({ path: CLIENT_HOOKS }),
    status: 200,
    response: "ClientWebhookList",
    invalid: [
      once({
        why: "another client's id",
        req: { path: `${V2}/clients/other/webhooks` },
        status: 403,
        error: "Message",
        message: "Forbidden",
      }),
    ],
  },
];

/** Every row, in the order of spec §4. */
export const ROWS: Row[] = [
  ...auth,
  ...legacy,
  ...availabilityV2,
  ...menu,
  ...utils,
  ...finance,
  ...webhooks,
];

/**
 * The rows of spec §4, transcribed: method and path (prefix included) exactly as the spec's tables
 * write them. The "same operations by integration" and "by SKU" sentences of §4.5 are expanded.
 */
export const SPEC_ROWS: string[] = [
  // 4.1
  `POST ${AUTH}/token/login/integrations`,
  `POST ${AUTH}/token/login/utils`,
  // 4.2
  ...["products", "toppings", "items"].flatMap((r) => [
    `PATCH ${MENU}/{storeId}/${r}/{identityType}/stock`,
    `POST ${MENU}/{storeId}/${r}/{identityType}/stock/status`,
  ]),
  // 4.3
  `POST ${V2}/availability/items/status`,
  `POST ${V2}/availability/items/platform/status`,
  `PUT ${V2}/availability/stores/items`,
  `PUT ${V2}/availability/stores/items/platform`,
  `POST ${V2}/availability/stores`,
  `PUT ${V2}/availability/stores`,
  `PUT ${V2}/availability/stores/enable/massive`,
  `PUT ${V2}/availability/stores/enable`,
  // 4.4
  `GET ${MENU}/{storeId}/store-menu`,
  `POST ${MENU}/{storeId}/store-menu`,
  `GET ${MENU}/{storeId}/menu`,
  `POST ${MENU}/{storeId}/menu`,
  `DELETE ${MENU}/{storeId}/menu`,
  `GET ${MENU}/{storeId}/menu/{menuId}`,
  `GET ${MENU}/{storeId}/categories`,
  `POST ${MENU}/{storeId}/categories`,
  `DELETE ${MENU}/{storeId}/categories`,
  `GET ${MENU}/{storeId}/categories/{categoryId}`,
  `GET ${MENU}/{storeId}/items`,
  `POST ${MENU}/{storeId}/items`,
  `DELETE ${MENU}/{storeId}/items`,
  `GET ${MENU}/{storeId}/items/{itemId}`,
  `GET ${UTILS}/menu/integration/{integrationId}`,
  // 4.5 corridors and corridor schedules, by store and by integration
  ...(["store/{storeId}", "integration/{integrationId}"] as const).flatMap((via) => [
    `GET ${UTILS}/corridor/${via}`,
    `GET ${UTILS}/corridor/schedule/{corridorId}/${via}`,
    `POST ${UTILS}/corridor/schedule/{corridorId}/${via}`,
    `PUT ${UTILS}/corridor/schedule/{corridorId}/${via}`,
    `DELETE ${UTILS}/corridor/schedule/{corridorId}/${via}/{corridorProductScheduleId}`,
  ]),
  // 4.5 product schedules by product id
  `GET ${UTILS}/product/corridor/{corridorId}/store/{storeId}`,
  `GET ${UTILS}/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}`,
  `POST ${UTILS}/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}`,
  `PUT ${UTILS}/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}`,
  `DELETE ${UTILS}/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}/{corridorProductScheduleId}`,
  // 4.5 product schedules by SKU
  `GET ${UTILS}/sku/corridor/{corridorId}/integration/{integrationId}`,
  `GET ${UTILS}/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}`,
  `POST ${UTILS}/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}`,
  `PUT ${UTILS}/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}`,
  `DELETE ${UTILS}/sku/schedule/{sku}/corridor/{corridorId}/integration/{integrationId}/{corridorProductScheduleId}`,
  // 4.5 store hours
  `GET ${UTILS}/store/schedule/{storeId}`,
  `GET ${UTILS}/store/schedule/{storeId}/holiday`,
  `GET ${UTILS}/store/schedule/{storeId}/special`,
  `POST ${UTILS}/store/schedule/{storeId}`,
  `POST ${UTILS}/store/schedule/{storeId}/holiday/{holidayDayId}`,
  `POST ${UTILS}/store/schedule/{storeId}/special`,
  `POST ${UTILS}/store/schedule/{storeId}/special/{specialDayId}`,
  `PUT ${UTILS}/store/schedule/{storeId}/{storeScheduleId}`,
  `DELETE ${UTILS}/store/schedule/{storeId}/{storeScheduleId}`,
  `DELETE ${UTILS}/store/schedule/{storeId}/special/{specialDayId}`,
  // 4.6
  ...["payments", "orders", "order_adjusments", "charged_cancellations"].map(
    (p) => `GET ${FINANCE}/{store_id}/${p}`,
  ),
  // 4.7 (GET /webhook/{event}: `event` is optional, so GET /webhook is a row too)
  `GET ${V2}/webhook/{event}`,
  `PUT ${V2}/webhook/{event}/add-stores`,
  `PUT ${V2}/webhook/{event}/change-url`,
  `POST ${V2}/webhook`,
  `DELETE ${V2}/webhook/{event}/remove-stores`,
  `PUT ${V2}/webhook/{event}/reset-secret`,
  `PUT ${V2}/webhook/{event}/change-status`,
  `POST ${V2}/clients/{clientId}/webhooks`,
  `DELETE ${V2}/clients/{clientId}/webhooks`,
  `GET ${V2}/clients/{clientId}/webhooks`,
];

/** `METHOD path` with every path parameter written `{}`: compares spec, table and emulator paths. */
export function routeKey(method: string, path: string): string {
  return `${method} ${path.replace(/\{[^}]+\}|:[A-Za-z_]+/g, "{}")}`;
}

/** Sends requests for a fixture. */
export function sender(emu: RunningEmulator, tokens: Fixture["tokens"]): Fixture["send"] {
  return async (method, req) => {
    const kind = req.token ?? "integrations";
    const token = kind === "none" ? undefined : tokens[kind];
    return call(emu, method, req.path, { ...(token ? { token } : {}), body: req.body });
  };
}
