/**
 * Conformance of the emulator to the platform API (issue 3, "How we will know"): every (method, path) of
 * platform-spec.md §4 is driven over real HTTP with a valid request whose answer must match its
 * definition in schemas/platform/, and with invalid requests whose status and error body are checked.
 * The table (endpoints.ts) must cover every route the emulator registers and every row of the spec.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { listRoutes, platformSchemas, startEmulator } from "../../src/emulator/index.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { SEED, STORE, call, group, item, login } from "../emulator/helpers.js";
import { MENU, ROWS, SPEC_ROWS, UTILS, routeKey, sender } from "./endpoints.js";
import type { Fixture, Row } from "./endpoints.js";

let emu: RunningEmulator;
let fixture: Fixture;

/** Checks a body against a definition of schemas/platform/; the failure names every problem. */
function expectSchema(name: string, body: unknown): void {
  const validate = platformSchemas().validator(name);
  const ok = validate(body);
  const problems = ok ? "" : platformSchemas().ajv.errorsText(validate.errors, { dataVar: "body" });
  expect(problems, `${name}: ${JSON.stringify(body).slice(0, 500)}`).toBe("");
}

async function seedCatalog(): Promise<Record<string, number>> {
  const token = fixture.tokens.integrations;
  const post = async (path: string, body: unknown): Promise<void> => {
    const r = await call(emu, "POST", `${MENU}/${STORE}${path}`, { token, body });
    if (r.status !== 200) throw new Error(`seed ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  };
  await post("/items", [
    item("COLA", { description_info: { description: "Cold" } }),
    item("1234"),
    item("CHEESE"),
    group("EXTRAS", ["CHEESE"]),
    item("BURGER", { items_info: { items: [{ sku: "EXTRAS", index: 0 }] } }),
  ]);
  await post("/categories", [
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
  await post("/menu", [
    {
      menu_type: "DEFAULT",
      categories: [
        { sku: "DRINKS", index: 0, is_category_active: true },
        { sku: "MAINS", index: 1, is_category_active: true },
      ],
    },
  ]);
  await emu.idle();
  const menu = (await call(emu, "GET", `${MENU}/${STORE}/store-menu`, { token })).body as {
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
  fixture = { emu, tokens, ids: {}, send: sender(emu, tokens), next: () => n++ };
  fixture.ids = await seedCatalog();
});

afterAll(async () => {
  await emu.close();
});

describe("conformance: the table", () => {
  it("covers every route the emulator registers, once", () => {
    const table = ROWS.map((r) => routeKey(r.method, r.template));
    expect(new Set(table).size, "duplicate rows").toBe(table.length);
    const served = listRoutes().map((r) => routeKey(r.method, r.path));
    expect(new Set(served).size).toBe(served.length);
    expect([...table].sort()).toEqual([...served].sort());
  });

  it("covers every row of spec §4", () => {
    const table = new Set(ROWS.map((r) => routeKey(r.method, r.template)));
    const missing = SPEC_ROWS.map((r) => {
      const [method, path] = r.split(" ") as [string, string];
      return routeKey(method, path);
    }).filter((k) => !table.has(k));
    expect(missing).toEqual([]);
    // GET /webhook is the spec's GET /webhook/{event} without its optional event: the one extra row.
    expect(ROWS.length).toBe(SPEC_ROWS.length + 1);
  });

  it("names a schema definition that exists for every response, error and request body", () => {
    const defs = platformSchemas().definitions;
    for (const r of ROWS) {
      if (r.response) expect(defs.has(r.response), r.response).toBe(true);
      expect(r.invalid.length, `${r.method} ${r.template} has no invalid request`).toBeGreaterThan(0);
    }
    for (const r of listRoutes()) if (r.requestSchema) expect(defs.has(r.requestSchema)).toBe(true);
  });
});

function title(r: Row): string {
  return `${r.method} ${r.template}`;
}

describe.each(ROWS.map((r) => [title(r), r] as const))("conformance: %s", (_name, row) => {
  it("answers a valid request with the documented status and shape", async () => {
    const req = await row.valid(fixture);
    const res = await fixture.send(row.method, { ...req, token: req.token ?? row.token });
    const statuses = Array.isArray(row.status) ? row.status : [row.status];
    expect(statuses, JSON.stringify(res.body)).toContain(res.status);
    if (row.response === null) expect(res.body).toBeUndefined();
    else {
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expectSchema(row.response, res.body);
    }
    if (row.template.startsWith(UTILS)) {
      expect(res.headers.get("x-platform-api-deprecation-date")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    await emu.idle();
  });

  it("refuses invalid requests with the documented status and error body", async () => {
    for (const make of row.invalid) {
      const inv = await make(fixture);
      const res = await fixture.send(row.method, { ...inv.req, token: inv.req.token ?? row.token });
      const where = `${inv.why}: ${JSON.stringify(res.body)}`;
      expect(res.status, where).toBe(inv.status);
      expectSchema(inv.error, res.body);
      if (inv.message !== undefined) {
        const message =
          inv.error === "MessageList" ? (res.body as { message: string }[])[0]?.message : undefined;
        expect(message ?? (res.body as { message: string }).message, where).toBe(inv.message);
      }
      if (row.template.startsWith(UTILS)) {
        expect(res.headers.get("x-platform-api-deprecation-info"), where).toBeTruthy();
      }
    }
    await emu.idle();
  });
});
