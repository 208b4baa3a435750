/**
 * Conformance of the emulator to the platform API: every route of the
 * route table (src/platform/routes.ts), that is every (method, path) of docs/platform-api.md §2, is driven
 * over real HTTP with a valid request whose answer must match the route's response definition in
 * schemas/platform/, and with invalid requests whose status and error body are checked. The rows
 * (endpoints.ts) must cover every route of the table, every route the emulator serves and every row of
 * the spec.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { listRoutes, platformSchemas, startEmulator } from "../../src/emulator/index.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { ROUTE_NAMES, routePath, routeSpec, type RouteName } from "../../src/platform/routes.js";
import { SEED, STORE, STORE2, call, group, item, login } from "../emulator/helpers.js";
import { ROWS, SPEC_ROWS, keyOf, routeKey, rowMethod, rowResponse, rowToken, sender } from "./endpoints.js";
import type { Fixture, Row } from "./endpoints.js";
import { prismProblems, type Exchange } from "./prism.js";

let emu: RunningEmulator;
let fixture: Fixture;

/** Every request the rows sent and its answer, checked at the end against docs/openapi.yaml by Prism. */
const traffic: Exchange[] = [];

/** `send`, keeping each exchange in {@link traffic}. */
function recording(send: Fixture["send"], tokens: Fixture["tokens"]): Fixture["send"] {
  return async (method, req) => {
    const res = await send(method, req);
    const kind = req.token ?? "integrations";
    const headers: Record<string, string> = {};
    if (kind !== "none") headers["x-authorization"] = `Bearer ${tokens[kind]}`;
    if (req.body !== undefined) headers["content-type"] = "application/json";
    traffic.push({ method, path: req.path, headers, body: req.body, status: res.status, answer: res.body });
    return res;
  };
}

/** Checks a body against a definition of schemas/platform/; the failure names every problem. */
function expectSchema(name: string, body: unknown): void {
  const validate = platformSchemas().validator(name);
  const ok = validate(body);
  const problems = ok ? "" : platformSchemas().ajv.errorsText(validate.errors, { dataVar: "body" });
  expect(problems, `${name}: ${JSON.stringify(body).slice(0, 500)}`).toBe("");
}

async function seedCatalog(): Promise<Record<string, number>> {
  const token = fixture.tokens.integrations;
  const post = async (route: RouteName, body: unknown): Promise<void> => {
    const r = await call(emu, "POST", routePath(route, { storeId: STORE }), { token, body });
    if (r.status !== 200) throw new Error(`seed ${route}: ${r.status} ${JSON.stringify(r.body)}`);
  };
  await post("POST /restaurants/menu/v1/stores/{storeId}/items", [
    item("COLA", { description_info: { description: "Cold" } }),
    item("1234"),
    item("CHEESE"),
    group("EXTRAS", ["CHEESE"]),
    item("BURGER", { items_info: { items: [{ sku: "EXTRAS", index: 0 }] } }),
  ]);
  await post("POST /restaurants/menu/v1/stores/{storeId}/categories", [
    {
      sku: "DRINKS",
      title: "Drinks",
      items: [
        { sku: "COLA", index: 0 },
        { sku: "1234", index: 1 },
      ],
    },
    { sku: "MAINS", title: "Mains", items: [{ sku: "BURGER", index: 0 }] },
  ]);
  await post("POST /restaurants/menu/v1/stores/{storeId}/menu", [
    {
      menu_type: "DEFAULT",
      categories: [
        { sku: "DRINKS", index: 0, is_category_active: true },
        { sku: "MAINS", index: 1, is_category_active: true },
      ],
    },
  ]);
  await emu.idle();
  const menu = (
    await call(
      emu,
      "GET",
      routePath("GET /restaurants/menu/v1/stores/{storeId}/store-menu", { storeId: STORE }),
      {
        token,
      },
    )
  ).body as {
    items: { id: number; sku: string }[];
    categories: { id: number; sku: string }[];
    menus: { id: number; menu_type: string }[];
  };
  const ids: Record<string, number> = {};
  for (const x of [...menu.items, ...menu.categories]) ids[x.sku] = x.id;
  for (const m of menu.menus) ids[`menu:${m.menu_type}`] = m.id;
  return ids;
}

beforeAll(async () => {
  emu = await startEmulator({ port: 0, seed: SEED, applyDelayMs: 0 });
  const tokens = { integrations: await login(emu), utils: await login(emu, "acme", "utils") };
  let n = 0;
  fixture = { emu, tokens, ids: {}, send: recording(sender(emu, tokens), tokens), next: () => n++ };
  fixture.ids = await seedCatalog();
});

afterAll(async () => {
  await emu.close();
});

describe("conformance: the table", () => {
  it("covers every route the emulator registers, once", () => {
    const table = ROWS.map((r) => keyOf(r.route));
    expect(new Set(table).size, "duplicate rows").toBe(table.length);
    const served = listRoutes().map((r) => routeKey(r.method, r.path));
    expect(new Set(served).size).toBe(served.length);
    expect([...table].sort()).toEqual([...served].sort());
    // The emulator takes surface and request schema from the route table.
    for (const r of listRoutes()) {
      expect(r.surface, r.route).toBe(routeSpec(r.route).surface);
      expect(r.requestSchema, r.route).toBe(routeSpec(r.route).request);
    }
  });

  it("covers every route of the route table, once", () => {
    const rows = ROWS.map((r) => r.route);
    expect(new Set(rows).size, "duplicate rows").toBe(rows.length);
    expect([...rows].sort()).toEqual([...ROUTE_NAMES].sort());
  });

  it("covers every row of docs/platform-api.md §2, and the route table holds nothing else", () => {
    const table = new Set(ROWS.map((r) => keyOf(r.route)));
    const spec = SPEC_ROWS.map((r) => {
      const [method, path] = r.split(" ") as [string, string];
      return routeKey(method, path);
    });
    expect(spec.filter((k) => !table.has(k))).toEqual([]);
    // GET /webhook is the spec's GET /webhook/{event} without its optional event: the one extra row.
    const extra = ROUTE_NAMES.filter((n) => !spec.includes(keyOf(n)));
    expect(extra).toEqual(["GET /api/v2/restaurants-integrations-public-api/webhook"]);
    expect(ROWS.length).toBe(SPEC_ROWS.length + 1);
  });

  it("names a schema definition that exists for every response, error and request body", () => {
    const defs = platformSchemas().definitions;
    for (const r of ROWS) {
      const response = rowResponse(r);
      if (response) expect(defs.has(response), response).toBe(true);
      expect(r.invalid.length, `${r.route} has no invalid request`).toBeGreaterThan(0);
    }
    for (const r of listRoutes()) if (r.requestSchema) expect(defs.has(r.requestSchema)).toBe(true);
  });
});

function title(r: Row): string {
  return r.route;
}

describe.each(ROWS.map((r) => [title(r), r] as const))("conformance: %s", (_name, row) => {
  it("answers a valid request with the documented status and shape", async () => {
    const req = await row.valid(fixture);
    const res = await fixture.send(rowMethod(row), { ...req, token: req.token ?? rowToken(row) });
    const statuses = Array.isArray(row.status) ? row.status : [row.status];
    expect(statuses, JSON.stringify(res.body)).toContain(res.status);
    const response = rowResponse(row);
    if (response === null) expect(res.body).toBeUndefined();
    else {
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expectSchema(response, res.body);
    }
    if (rowToken(row) === "utils") {
      expect(res.headers.get("x-platform-api-deprecation-date")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    await emu.idle();
  });

  it("refuses invalid requests with the documented status and error body", async () => {
    for (const make of row.invalid) {
      const inv = await make(fixture);
      const res = await fixture.send(rowMethod(row), { ...inv.req, token: inv.req.token ?? rowToken(row) });
      const where = `${inv.why}: ${JSON.stringify(res.body)}`;
      expect(res.status, where).toBe(inv.status);
      expectSchema(inv.error, res.body);
      if (inv.message !== undefined) {
        const message =
          inv.error === "MessageList" ? (res.body as { message: string }[])[0]?.message : undefined;
        expect(message ?? (res.body as { message: string }).message, where).toBe(inv.message);
      }
      if (rowToken(row) === "utils") {
        expect(res.headers.get("x-platform-api-deprecation-info"), where).toBeTruthy();
      }
    }
    await emu.idle();
  });
});

describe("conformance: docs/platform-api.md §4.9 webhook transitions", () => {
  const ADD_STORES = "PUT /api/v2/restaurants-integrations-public-api/webhook/{event}/add-stores";
  const REMOVE_STORES = "DELETE /api/v2/restaurants-integrations-public-api/webhook/{event}/remove-stores";
  const HOOK = "GET /api/v2/restaurants-integrations-public-api/webhook/{event}";
  const event = { event: "ORDER_OTHER_EVENT" };
  const url = "https://hooks.example.test/other";

  it("add-stores takes a store from no webhook to ENABLE, also after the event's last store was removed", async () => {
    const first = await fixture.send("PUT", {
      path: routePath(ADD_STORES, event),
      body: [{ url, stores: [String(STORE)] }],
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expectSchema("WebhookConfig", first.body);
    expect(first.body).toEqual({
      event: "ORDER_OTHER_EVENT",
      stores: [{ store_id: String(STORE), url, state: "ENABLE" }],
    });

    const removed = await fixture.send("DELETE", {
      path: routePath(REMOVE_STORES, event),
      body: { stores: [String(STORE)] },
    });
    expect(removed.status).toBe(200);
    expect((await fixture.send("GET", { path: routePath(HOOK, event) })).body).toEqual([]);

    const again = await fixture.send("PUT", {
      path: routePath(ADD_STORES, event),
      body: [{ url, stores: [String(STORE2)] }],
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toEqual({
      event: "ORDER_OTHER_EVENT",
      stores: [{ store_id: String(STORE2), url, state: "ENABLE" }],
    });
    expect((await fixture.send("GET", { path: routePath(HOOK, event) })).body).toEqual([again.body]);
  });
});

describe("conformance: the traffic against the published description", () => {
  // Last in the file: it judges every exchange of the rows above (docs/openapi.yaml, read by Prism).
  it("breaks nothing Stoplight Prism's request and answer validators check", async () => {
    expect(traffic.length).toBeGreaterThan(0);
    expect(await prismProblems(traffic)).toEqual([]);
    // The same check bites: an accepted item upsert with a null price, answered with a field too many.
    const upsert = traffic.find(
      (x) => x.method === "POST" && x.path.endsWith("/items") && x.status === 200 && Array.isArray(x.body),
    );
    const body = [{ ...(upsert!.body as object[])[0], price_info: { price: null, overrides: [] } }];
    const problems = await prismProblems([{ ...upsert!, body, answer: { message: "ok", extra: 1 } }]);
    expect(problems).toEqual([
      expect.stringMatching(/request body\.0\.price_info\.price: .*must be number/),
      expect.stringMatching(/answer body: .*additional properties.*extra/),
    ]);
  }, 30_000);
});
