import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { startEmulator } from "../../src/emulator/index.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import type { WireCategory, WireItem, WireStoreMenu } from "../../src/platform/wire.js";
import { MENU, SEED, STORE, call, group, item, login, start } from "./helpers.js";

const U = "/api/rest-ops-utils";
const CHILD = 900125;

let emu: RunningEmulator;
let token: string;
let utils: string;
let ids: Record<string, number>;

async function seedCatalog(e: RunningEmulator, t: string): Promise<Record<string, number>> {
  await call(e, "POST", `${MENU()}/items`, {
    token: t,
    body: [
      item("COLA", { description_info: { description: "Cold" } }),
      item("1234"),
      item("CHEESE"),
      group("EXTRAS", ["CHEESE"]),
      item("BURGER", { items_info: { items: [{ sku: "EXTRAS", index: 0 }] } }),
    ],
  });
  await call(e, "POST", `${MENU()}/categories`, {
    token: t,
    body: [
      {
        sku: "DRINKS",
        title: "Drinks",
        items: [
          { sku: "COLA", index: 0 },
          { sku: "1234", index: 1 },
        ],
      },
      {
        sku: "MAINS",
        title: "Mains",
        items: [{ sku: "BURGER", index: 0 }],
        schedules: [{ days_of_week: "sat,sun", time_periods: [{ start_time: "12:00", end_time: "16:00" }] }],
      },
    ],
  });
  await e.idle();
  const items = (await call(e, "GET", `${MENU()}/items`, { token: t })).body as WireItem[];
  const cats = (await call(e, "GET", `${MENU()}/categories`, { token: t })).body as WireCategory[];
  return Object.fromEntries([...items, ...cats].map((r) => [r.sku, r.id!]));
}

beforeEach(async () => {
  ({ emu, token } = await start({ applyDelayMs: 100 }));
  emu.provision({
    clients: [
      {
        client_id: "acme",
        client_secret: "s3cret-acme",
        stores: [{ id: CHILD, integration_id: "bog-child", name: "Child", parent: STORE }],
      },
    ],
  });
  utils = await login(emu, "acme", "utils");
  ids = await seedCatalog(emu, token);
});
afterEach(async () => {
  await emu.close();
});

const u = (method: string, path: string, body?: unknown) => call(emu, method, path, { token: utils, body });
const category = async (sku: string): Promise<WireCategory> => {
  const menu = (await call(emu, "GET", `${MENU()}/store-menu`, { token })).body as WireStoreMenu;
  return menu.categories.find((c) => c.sku === sku)!;
};

interface Schedule {
  schedule_details: { id: number; days: string; starts_time: string; ends_time: string }[];
}

describe("emulator: one store state behind the menu API and utils", () => {
  it("lists categories as corridors, by store, by integration and for a child store", async () => {
    const byStore = await u("GET", `${U}/corridor/store/${STORE}`);
    expect(byStore).toMatchObject({
      status: 200,
      body: [
        { id: ids.DRINKS, name: "Drinks", description: "", storeId: STORE },
        { id: ids.MAINS, name: "Mains", description: "", storeId: STORE },
      ],
    });
    expect((await u("GET", `${U}/corridor/integration/bog-centro`)).body).toEqual([
      { id: ids.DRINKS, name: "Drinks", description: "", integrationId: "bog-centro" },
      { id: ids.MAINS, name: "Mains", description: "", integrationId: "bog-centro" },
    ]);
    // docs/platform-api.md §4.6: a child store reads its parent's corridors, with the parent's id.
    expect((await u("GET", `${U}/corridor/store/${CHILD}`)).body).toEqual(byStore.body);
    expect((await u("GET", `${U}/corridor/integration/bog-child`)).body).toEqual([
      { id: ids.DRINKS, name: "Drinks", description: "", integrationId: "bog-centro" },
      { id: ids.MAINS, name: "Mains", description: "", integrationId: "bog-centro" },
    ]);
    expect(await u("GET", `${U}/corridor/integration/nope`)).toMatchObject({
      status: 404,
      body: { message: "Integration nope not found" },
    });

    // A category created through POST /categories shows once applied.
    await call(emu, "POST", `${MENU()}/categories`, {
      token,
      body: [{ sku: "SIDES", title: "Sides", items: [] }],
    });
    await emu.idle();
    const names = ((await u("GET", `${U}/corridor/store/${STORE}`)).body as { name: string }[]).map(
      (c) => c.name,
    );
    expect(names).toEqual(["Drinks", "Mains", "Sides"]);
  });

  it("a later utils write of a schedule is not undone when an earlier one's turn comes", async () => {
    const path = `${U}/corridor/schedule/${ids.DRINKS}/store/${STORE}`;
    const posted = await u("POST", path, {
      schedule_details: [
        { days: "mon", starts_time: "11:00:00", ends_time: "15:00:00" },
        { days: "sun", starts_time: "10:00:00", ends_time: "14:00:00" },
      ],
    });
    const [monday, sunday] = (posted.body as Schedule).schedule_details;
    // The DELETE's own turn behind the pending writes comes late; the POST's comes after 100 ms.
    emu.setFaults({ routes: [{ prefix: U, method: "DELETE", pendingMs: 1000 }] });
    expect((await u("DELETE", `${path}/${sunday!.id}`)).status).toBe(204);
    await new Promise((r) => setTimeout(r, 300));
    // The POST's turn came: the schedule is still the one the DELETE left, with its ids.
    expect(((await u("GET", path)).body as Schedule).schedule_details).toEqual([monday]);
    expect((await category("DRINKS")).schedules).toEqual([
      { days_of_week: "mon", time_periods: [{ start_time: "11:00", end_time: "15:00" }] },
    ]);
    emu.setFaults(undefined);
    await emu.idle();
    expect(((await u("GET", path)).body as Schedule).schedule_details).toEqual([monday]);
  });

  it("a corridor schedule posted through utils is the category's schedules, and back", async () => {
    const path = `${U}/corridor/schedule/${ids.DRINKS}/store/${STORE}`;
    expect(await u("GET", path)).toMatchObject({
      status: 200,
      body: { corridor_id: ids.DRINKS, store_id: STORE, schedule_details: [] },
    });
    const posted = await u("POST", path, {
      schedule_details: [
        { days: "mon,tue", starts_time: "11:00:00", ends_time: "15:00:00" },
        { days: "sun", starts_time: "10:00:00", ends_time: "14:00:00" },
        { days: "mon,tue", starts_time: "18:00:00", ends_time: "22:00:00" },
      ],
    });
    expect(posted.status).toBe(200);
    const details = (posted.body as Schedule).schedule_details;
    expect(details.map((d) => [d.days, d.starts_time, d.ends_time])).toEqual([
      ["mon,tue", "11:00:00", "15:00:00"],
      ["mon,tue", "18:00:00", "22:00:00"],
      ["sun", "10:00:00", "14:00:00"],
    ]);
    expect(new Set(details.map((d) => d.id)).size).toBe(3);
    // Synchronous: the menu API shows it at once.
    expect((await category("DRINKS")).schedules).toEqual([
      {
        days_of_week: "mon,tue",
        time_periods: [
          { start_time: "11:00", end_time: "15:00" },
          { start_time: "18:00", end_time: "22:00" },
        ],
      },
      { days_of_week: "sun", time_periods: [{ start_time: "10:00", end_time: "14:00" }] },
    ]);
    // Same ids on every read; the integration view is the same schedule.
    expect((await u("GET", path)).body).toEqual(posted.body);
    expect(
      ((await u("GET", `${U}/corridor/schedule/${ids.DRINKS}/integration/bog-centro`)).body as Schedule)
        .schedule_details,
    ).toEqual(details);

    // PUT keeps the id; DELETE removes one detail.
    const [noon, evening, sunday] = details;
    const put = await u("PUT", path, {
      schedule_details: [
        { id: evening!.id, days: "mon,tue", starts_time: "19:00:00", ends_time: "23:00:00" },
      ],
    });
    expect((put.body as Schedule).schedule_details).toContainEqual({
      id: evening!.id,
      days: "mon,tue",
      starts_time: "19:00:00",
      ends_time: "23:00:00",
    });
    expect((await u("DELETE", `${path}/${sunday!.id}`)).status).toBe(204);
    expect((await category("DRINKS")).schedules).toEqual([
      {
        days_of_week: "mon,tue",
        time_periods: [
          { start_time: "11:00", end_time: "15:00" },
          { start_time: "19:00", end_time: "23:00" },
        ],
      },
    ]);
    expect(((await u("GET", path)).body as Schedule).schedule_details.map((d) => d.id)).toEqual([
      noon!.id,
      evening!.id,
    ]);

    // Menu API → utils: schedules written through POST /categories read as details with stable ids.
    const mains = `${U}/corridor/schedule/${ids.MAINS}/store/${STORE}`;
    const first = (await u("GET", mains)).body as Schedule;
    expect(first.schedule_details).toEqual([
      { id: expect.any(Number), days: "sat,sun", starts_time: "12:00:00", ends_time: "16:00:00" },
    ]);
    expect((await u("GET", mains)).body).toEqual(first);
    await call(emu, "POST", `${MENU()}/categories`, {
      token,
      body: [
        {
          sku: "MAINS",
          title: "Mains",
          items: [{ sku: "BURGER", index: 0 }],
          schedules: [
            {
              days_of_week: "sat,sun",
              time_periods: [
                { start_time: "12:00", end_time: "16:00" },
                { start_time: "18:00", end_time: "21:00" },
              ],
            },
          ],
        },
      ],
    });
    await emu.idle();
    const second = ((await u("GET", mains)).body as Schedule).schedule_details;
    expect(second[0]).toEqual(first.schedule_details[0]); // unchanged period keeps its id
    expect(second[1]).toMatchObject({ days: "sat,sun", starts_time: "18:00:00", ends_time: "21:00:00" });
  });

  it("orders a synchronous utils write after menu writes still pending", async () => {
    // A pending upsert of MAINS (new title, its own schedules) is accepted first...
    await call(emu, "POST", `${MENU()}/categories`, {
      token,
      body: [{ sku: "MAINS", title: "Main dishes", items: [{ sku: "BURGER", index: 0 }], schedules: [] }],
    });
    // ...then a utils schedule write, applied at once to what reads see.
    const path = `${U}/corridor/schedule/${ids.MAINS}/store/${STORE}`;
    const posted = await u("POST", path, {
      schedule_details: [{ days: "fri", starts_time: "18:00:00", ends_time: "23:00:00" }],
    });
    expect((posted.body as Schedule).schedule_details).toHaveLength(1); // built on the projected []
    await emu.idle();
    const mains = await category("MAINS");
    expect(mains.title).toBe("Main dishes");
    expect(mains.schedules).toEqual([
      { days_of_week: "fri", time_periods: [{ start_time: "18:00", end_time: "23:00" }] },
    ]);
    expect((await u("GET", path)).body).toEqual(posted.body);
  });

  it("product schedules by id and by SKU are the item's schedules_info", async () => {
    const list = await u("GET", `${U}/product/corridor/${ids.DRINKS}/store/${STORE}`);
    expect(list.body).toEqual([
      {
        product_id: ids.COLA,
        name: "Title COLA",
        description: "Cold",
        corridor_id: ids.DRINKS,
        store_id: STORE,
      },
      {
        product_id: ids["1234"],
        name: "Title 1234",
        description: "",
        corridor_id: ids.DRINKS,
        store_id: STORE,
      },
    ]);
    expect((await u("GET", `${U}/sku/corridor/${ids.DRINKS}/integration/bog-centro`)).body).toEqual([
      {
        sku: "COLA",
        name: "Title COLA",
        description: "Cold",
        corridor_id: ids.DRINKS,
        integration_id: "bog-centro",
      },
      {
        sku: 1234,
        name: "Title 1234",
        description: "",
        corridor_id: ids.DRINKS,
        integration_id: "bog-centro",
      },
    ]);

    const byId = `${U}/product/schedule/${ids.COLA}/corridor/${ids.DRINKS}/store/${STORE}`;
    const posted = await u("POST", byId, {
      schedule_details: [{ days: "fri,sat", starts_time: "20:00:00", ends_time: "23:59:00" }],
    });
    expect(posted).toMatchObject({
      status: 200,
      body: {
        product_id: ids.COLA,
        corridor_id: ids.DRINKS,
        store_id: STORE,
        schedule_details: [{ days: "fri,sat" }],
      },
    });
    const items = (await call(emu, "GET", `${MENU()}/items`, { token })).body as WireItem[];
    expect(items.find((i) => i.sku === "COLA")!.schedules_info!.schedules).toEqual([
      { days_of_week: "fri,sat", time_periods: [{ start_time: "20:00", end_time: "23:59" }] },
    ]);

    const bySku = `${U}/sku/schedule/COLA/corridor/${ids.DRINKS}/integration/bog-centro`;
    const got = await u("GET", bySku);
    expect(got.body).toEqual({
      sku: "COLA",
      corridor_id: ids.DRINKS,
      integration_id: "bog-centro",
      schedule_details: (posted.body as Schedule).schedule_details,
    });
    // SKU variant POST documents an id: accepted and ignored.
    const more = await u("POST", bySku, {
      schedule_details: [{ id: 1, days: "hol", starts_time: "10:00:00", ends_time: "12:00:00" }],
    });
    const detailIds = (more.body as Schedule).schedule_details.map((d) => d.id);
    expect(detailIds).toHaveLength(2);
    expect(detailIds).not.toContain(1);
    expect((await u("DELETE", `${bySku}/${detailIds[1]}`)).status).toBe(204);
    expect(((await u("GET", byId)).body as Schedule).schedule_details).toHaveLength(1);

    // A product outside the corridor, an unknown SKU, an unknown schedule id: 404.
    expect(
      await u("GET", `${U}/product/schedule/${ids.BURGER}/corridor/${ids.DRINKS}/store/${STORE}`),
    ).toMatchObject({
      status: 404,
      body: { message: `Product ${ids.BURGER} not found in corridor ${ids.DRINKS}` },
    });
    expect(
      await u("GET", `${U}/sku/schedule/NOPE/corridor/${ids.DRINKS}/integration/bog-centro`),
    ).toMatchObject({
      status: 404,
    });
    expect(await u("DELETE", `${byId}/999999`)).toMatchObject({
      status: 404,
      body: { message: "Schedule 999999 not found" },
    });
  });

  it("validates schedule bodies", async () => {
    const path = `${U}/corridor/schedule/${ids.DRINKS}/store/${STORE}`;
    const bad = async (body: unknown, message: string, p = path, method = "POST") =>
      expect(await u(method, p, body)).toMatchObject({ status: 400, body: { message } });
    await bad({}, "schedule_details must be a non-empty array");
    await bad(
      { schedule_details: [{ days: "mon,xyz", starts_time: "10:00:00", ends_time: "11:00:00" }] },
      'schedule_details[0].days: "xyz" is not one of mon,tue,wed,thu,fri,sat,sun,hol',
    );
    await bad(
      { schedule_details: [{ days: "mon", starts_time: "10:00", ends_time: "11:00:00" }] },
      "schedule_details[0].starts_time must be a time HH:mm:ss",
    );
    await bad(
      { schedule_details: [{ days: "mon", starts_time: "12:00:00", ends_time: "11:00:00" }] },
      "schedule_details[0].ends_time (11:00:00) must be later than starts_time (12:00:00); split ranges that cross midnight",
    );
    await bad(
      { schedule_details: [{ days: "mon", starts_time: "10:00:30", ends_time: "11:00:00" }] },
      "schedule_details[0].starts_time (10:00:30) must be on a whole minute (seconds 00)",
    );
    const seven = Array.from({ length: 7 }, (_, h) => ({
      days: "mon",
      starts_time: `1${h}:00:00`,
      ends_time: `1${h}:30:00`,
    }));
    await bad(
      { schedule_details: seven },
      'schedule_details: days "mon" would have 7 time periods; the limit is 6',
    );
    await bad(
      { schedule_details: [{ days: "mon", starts_time: "10:00:00", ends_time: "11:00:00" }] },
      "schedule_details[0].id is required (a positive integer)",
      path,
      "PUT",
    );
    expect(
      await u("PUT", path, {
        schedule_details: [{ id: 999999, days: "mon", starts_time: "10:00:00", ends_time: "11:00:00" }],
      }),
    ).toMatchObject({ status: 404 });
    expect(await u("GET", `${U}/corridor/schedule/999999/store/${STORE}`)).toMatchObject({
      status: 404,
      body: { message: "Corridor 999999 not found" },
    });
    // Nothing was written by the refused calls.
    expect(((await u("GET", path)).body as Schedule).schedule_details).toEqual([]);
  });

  it("serves the menu status of an integration", async () => {
    await call(emu, "POST", `${MENU()}/menu`, {
      token,
      body: [{ menu_type: "DEFAULT", categories: [{ id: ids.DRINKS, index: 0, is_category_active: true }] }],
    });
    await call(emu, "PUT", "/api/v2/restaurants-integrations-public-api/availability/stores/items", {
      token,
      body: [{ store_integration_id: "bog-centro", items: { turn_off: ["CHEESE", "COLA"] } }],
    });
    await emu.idle();
    const r = await u("GET", `${U}/menu/integration/bog-centro`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      corridors: [
        { id: ids.DRINKS, name: "Drinks", description: "", integrationId: "bog-centro" },
        { id: ids.MAINS, name: "Mains", description: "", integrationId: "bog-centro" },
      ],
      products: [
        {
          id: ids.COLA,
          sku: "COLA",
          name: "Title COLA",
          description: "Cold",
          active: true,
          isAvailable: false,
          corridorId: ids.DRINKS,
        },
        {
          id: ids["1234"],
          sku: 1234,
          name: "Title 1234",
          description: "",
          active: true,
          isAvailable: true,
          corridorId: ids.DRINKS,
        },
        {
          id: ids.BURGER,
          sku: "BURGER",
          name: "Title BURGER",
          description: "",
          active: false,
          isAvailable: true,
          corridorId: ids.MAINS,
        },
      ],
      toppingsCategories: [
        {
          id: ids.EXTRAS,
          sku: "EXTRAS",
          description: "Group EXTRAS",
          productId: ids.BURGER,
          toppings: [{ id: ids.CHEESE, sku: "CHEESE", description: "Title CHEESE", activated: false }],
        },
      ],
    });
  });

  it("keeps schedule ids across a restart", async () => {
    const dir = await mkdtemp(join(tmpdir(), "carte-utils-"));
    try {
      const stateFile = join(dir, "state.json");
      const first = await startEmulator({ seed: SEED, stateFile, applyDelayMs: 10 });
      const t = await login(first);
      const ut = await login(first, "acme", "utils");
      const known = await seedCatalog(first, t);
      const path = `${U}/corridor/schedule/${known.MAINS}/store/${STORE}`;
      await call(first, "POST", path, {
        token: ut,
        body: { schedule_details: [{ days: "mon", starts_time: "08:00:00", ends_time: "09:00:00" }] },
      });
      const before = (await call(first, "GET", path, { token: ut })).body;
      await first.close();
      const second = await startEmulator({ seed: SEED, stateFile, applyDelayMs: 10 });
      const ut2 = await login(second, "acme", "utils");
      expect((await call(second, "GET", path, { token: ut2 })).body).toEqual(before);
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
