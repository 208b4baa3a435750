import { afterEach, beforeEach, describe, expect, it } from "vitest";

import type { RunningEmulator } from "../../src/emulator/index.js";
import type { WireCategory, WireItem, WireMenu, WireStoreMenu } from "../../src/platform/wire.js";
import { MENU, STORE, call, group, item, start } from "./helpers.js";

const ACCEPTED = { message: "Your request has been accepted." };

let emu: RunningEmulator;
let token: string;
beforeEach(async () => {
  ({ emu, token } = await start({ applyDelayMs: 200 }));
});
afterEach(async () => {
  await emu.close();
});

const get = async <T>(path: string): Promise<T> => {
  const r = await call(emu, "GET", `${MENU()}${path}`, { token });
  expect(r.status).toBe(200);
  return r.body as T;
};
const post = (path: string, body: unknown) => call(emu, "POST", `${MENU()}${path}`, { token, body });
const del = (path: string, body: unknown) => call(emu, "DELETE", `${MENU()}${path}`, { token, body });

/** Seeds a small catalog: BURGER → EXTRAS → (CHEESE, BACON), category BURGERS, menu DEFAULT. */
async function seedCatalog(): Promise<void> {
  expect(
    await post("/items", [
      item("BURGER", { items_info: { items: [{ sku: "EXTRAS", index: 0 }] } }),
      group("EXTRAS", ["CHEESE", "BACON"]),
      item("CHEESE"),
      item("BACON"),
    ]),
  ).toMatchObject({ status: 200, body: ACCEPTED });
  // References the items accepted a moment ago, before they are visible.
  expect(
    await post("/categories", [{ sku: "BURGERS", title: "Burgers", items: [{ sku: "BURGER", index: 0 }] }]),
  ).toMatchObject({
    status: 200,
  });
  expect(
    await post("/menu", [
      { menu_type: "DEFAULT", categories: [{ sku: "BURGERS", index: 0, is_category_active: true }] },
    ]),
  ).toMatchObject({ status: 200, body: ACCEPTED });
}

describe("emulator: store menu API", () => {
  it("accepts writes and shows them only after the delay, with derived refs", async () => {
    // Three writes and a read must fit in the delay even on a loaded machine: a longer one than the
    // other tests need. The strict emulator compiles its check of an answer at the route's first
    // answer: done before the writes.
    await emu.close();
    ({ emu, token } = await start({ applyDelayMs: 400 }));
    expect(await get<WireItem[]>("/items")).toEqual([]);
    await seedCatalog();
    expect(await get<WireItem[]>("/items")).toEqual([]); // not yet visible
    await emu.idle();

    const items = await get<WireItem[]>("/items");
    expect(items.map((i) => i.sku)).toEqual(["BURGER", "EXTRAS", "CHEESE", "BACON"]);
    const ids = Object.fromEntries(items.map((i) => [i.sku, i.id!]));
    expect(new Set(Object.values(ids)).size).toBe(4);
    const burger = items[0]!;
    expect(burger).toMatchObject({
      storeId: STORE,
      item_type: "ITEM",
      items_info: { items: [{ id: ids.EXTRAS, sku: "EXTRAS", index: 0 }] },
      suspension_info: { suspend_until: null, suspend_reason: null, is_available: true },
    });
    expect(typeof burger.last_updated).toBe("string");
    expect(items[1]!.items_info!.items).toEqual([
      { id: ids.CHEESE, sku: "CHEESE", index: 0 },
      { id: ids.BACON, sku: "BACON", index: 1 },
    ]);

    const [menu] = await get<WireMenu[]>("/menu");
    const [category] = await get<WireCategory[]>("/categories");
    expect(category).toMatchObject({
      sku: "BURGERS",
      title: "Burgers",
      storeId: STORE,
      // docs/platform-api.md §4.3 Category: items "References: id, sku, index, menuId, menu_type, storeId",
      // menus "References: id, index, is_category_active, menu_type, storeId".
      items: [
        { id: ids.BURGER, sku: "BURGER", index: 0, menuId: menu!.id, menu_type: "DEFAULT", storeId: STORE },
      ],
      menus: [{ id: menu!.id, menu_type: "DEFAULT", index: 0, is_category_active: true, storeId: STORE }],
    });
    expect(menu).toEqual({
      id: menu!.id,
      store_id: STORE,
      // docs/platform-api.md §4.3 "super_store_id | uint64": no null; a menu of no super store holds 0.
      super_store_id: 0,
      menu_type: "DEFAULT",
      categories: [{ id: category!.id, sku: "BURGERS", index: 0, is_category_active: true }],
    });
    expect(await get<WireMenu>(`/menu/${menu!.id}`)).toEqual(menu);
    expect(await get<WireCategory>(`/categories/${category!.id}`)).toEqual(category);
    expect(await get<WireItem>(`/items/${ids.BURGER}`)).toEqual(burger);

    const sm = await get<WireStoreMenu>("/store-menu");
    expect(sm.storeId).toBe(STORE);
    expect(sm.menus[0]).toMatchObject({ id: menu!.id, storeId: STORE, menu_type: "DEFAULT" });
    expect(sm.menus[0]).not.toHaveProperty("store_id");
    // docs/platform-api.md §4.3: inside the store menu, a menu's category references carry storeId too.
    expect(sm.menus[0]!.categories).toEqual([
      { id: category!.id, sku: "BURGERS", index: 0, is_category_active: true, storeId: STORE },
    ]);
    expect(sm.items).toEqual(items);
    expect(sm.categories).toEqual([category]);

    expect(await call(emu, "GET", `${MENU()}/items/999999`, { token })).toMatchObject({
      status: 404,
      body: { message: "Item 999999 not found" },
    });
  });

  it("upserts by sku in place, keeps the id, and by id renames", async () => {
    await post("/items", [item("FRIES")]);
    await emu.idle();
    const [before] = await get<WireItem[]>("/items");
    await post("/items", [
      item("FRIES", { title_info: { title: "Crispy fries" }, price_info: { price: 1500 } }),
    ]);
    await emu.idle();
    const after = await get<WireItem[]>("/items");
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      id: before!.id,
      title_info: { title: "Crispy fries" },
      price_info: { price: 1500 },
    });

    await post("/items", [item("FRIES-L", { id: before!.id })]);
    await emu.idle();
    expect((await get<WireItem[]>("/items")).map((i) => [i.id, i.sku])).toEqual([[before!.id, "FRIES-L"]]);
  });

  it("creates a new menu for each element without id and updates by id", async () => {
    await post("/categories", [{ sku: "EMPTY", title: "Empty", items: [] }]);
    await post("/menu", [
      { menu_type: "DEFAULT", categories: [] },
      { menu_type: "NIGHT", categories: [] },
    ]);
    await emu.idle();
    const menus = await get<WireMenu[]>("/menu");
    expect(menus.map((m) => m.menu_type)).toEqual(["DEFAULT", "NIGHT"]);
    await post("/menu", [
      {
        id: menus[1]!.id,
        menu_type: "NIGHT",
        categories: [{ sku: "EMPTY", index: 0, is_category_active: false }],
      },
    ]);
    await emu.idle();
    const updated = await get<WireMenu[]>("/menu");
    expect(updated).toHaveLength(2);
    expect(updated[1]!.categories).toEqual([
      expect.objectContaining({ sku: "EMPTY", is_category_active: false }),
    ]);
    expect(await del("/menu", [menus[0]!.id])).toMatchObject({ status: 200, body: ACCEPTED });
    await emu.idle();
    expect((await get<WireMenu[]>("/menu")).map((m) => m.id)).toEqual([menus[1]!.id]);
    expect(await del("/menu", [123456])).toMatchObject({
      status: 404,
      body: { message: "Menu 123456 not found" },
    });
  });

  describe("validation (nothing is applied)", () => {
    const expectRefused = async (
      path: string,
      body: unknown,
      status: number,
      expected: Record<string, unknown>,
    ) => {
      const r = await post(path, body);
      expect(r.status).toBe(status);
      expect(r.body).toMatchObject(expected);
      await emu.idle();
      return r;
    };

    it("names the missing field and where", async () => {
      await expectRefused(
        "/items",
        [item("A"), item("B"), item("C"), { sku: "D", item_type: "ITEM", title_info: {} }],
        400,
        {
          message: "items[3].title_info.title is required",
        },
      );
      await expectRefused("/items", [{ sku: "X", title_info: { title: "x" } }], 400, {
        message: "items[0].item_type is required",
      });
      await expectRefused("/items", { sku: "X" }, 400, { message: "body must be an array of items" });
      await expectRefused("/menu", [{ categories: [] }], 400, { message: "menus[0].menu_type is required" });
      expect(await get<WireItem[]>("/items")).toEqual([]);
    });

    it("refuses a null price: docs/platform-api.md §4.3 types it `price number`", async () => {
      const r = await expectRefused(
        "/items",
        [item("CHEESE"), group("EXTRAS", ["CHEESE"], { price_info: { price: null, overrides: [] } })],
        400,
        {},
      );
      expect((r.body as { message: string }).message).toContain("items[1].price_info.price");
      expect(await get<WireItem[]>("/items")).toEqual([]);
    });

    it('serves a description written without one as "" and refuses a null one: docs/platform-api.md §4.3 types it a string', async () => {
      const r = await expectRefused(
        "/items",
        [item("A", { description_info: { description: null } })],
        400,
        {},
      );
      expect((r.body as { message: string }).message).toContain("items[0].description_info.description");
      await post("/items", [item("B")]);
      await emu.idle();
      const [b] = await get<WireItem[]>("/items");
      expect(b?.description_info?.description).toBe("");
    });

    it("refuses a null super_store_id in POST /store-menu: docs/platform-api.md §4.3 types it uint64", async () => {
      const r = await expectRefused(
        "/store-menu",
        {
          storeId: STORE,
          items: [item("BURGER")],
          categories: [{ sku: "MAINS", title: "Mains", items: [{ sku: "BURGER", index: 0 }] }],
          menus: [
            {
              menu_type: "DEFAULT",
              super_store_id: null,
              categories: [{ sku: "MAINS", index: 0, is_category_active: true }],
            },
          ],
        },
        400,
        {},
      );
      expect((r.body as { message: string }).message).toContain("super_store_id");
      expect(await get<WireItem[]>("/items")).toEqual([]);
    });

    it("refuses a category holding a MODIFIER_GROUP", async () => {
      await post("/items", [item("CHEESE"), group("EXTRAS", ["CHEESE"])]);
      const r = await expectRefused(
        "/categories",
        [{ sku: "CAT", title: "Cat", items: [{ sku: "EXTRAS", index: 0 }] }],
        400,
        { type: "invalid_item_depth" },
      );
      expect((r.body as { message: string }).message).toContain("EXTRAS");
      expect(await get<WireCategory[]>("/categories")).toEqual([]);
    });

    it("refuses ITEM → ITEM relations", async () => {
      await expectRefused(
        "/items",
        [item("A", { items_info: { items: [{ sku: "B", index: 0 }] } }), item("B")],
        400,
        {
          type: "invalid_item_depth",
        },
      );
    });

    it("refuses a reference to nothing", async () => {
      const r = await expectRefused(
        "/items",
        [item("OK"), item("BURGER", { items_info: { items: [{ sku: "GHOST", index: 0 }] } })],
        400,
        { type: "item_data_conflict" },
      );
      expect((r.body as { message: string }).message).toMatch(/items\[1\]\.items_info\.items\[0\].*GHOST/);
      await expectRefused("/categories", [{ sku: "C", title: "C", items: [{ id: 987654, index: 0 }] }], 400, {
        type: "item_data_conflict",
      });
      await expectRefused(
        "/menu",
        [{ menu_type: "DEFAULT", categories: [{ sku: "NOPE", index: 0, is_category_active: true }] }],
        400,
        {
          type: "item_data_conflict",
        },
      );
      expect(await get<WireItem[]>("/items")).toEqual([]); // OK was not applied either
    });

    it("refuses a type change that breaks an existing relation", async () => {
      await seedCatalog();
      await emu.idle();
      // BURGER is in category BURGERS: it cannot become a MODIFIER_GROUP.
      await expectRefused("/items", [group("BURGER", ["CHEESE"])], 400, { type: "invalid_item_depth" });
      // CHEESE is an option of EXTRAS: it cannot become a MODIFIER_GROUP either.
      await expectRefused("/items", [group("CHEESE", [])], 400, { type: "invalid_item_depth" });
    });

    it("refuses duplicate skus in one batch", async () => {
      await expectRefused("/items", [item("A"), item("A")], 400, {
        type: "item_data_conflict",
        message: 'duplicate sku "A" in items[0] and items[1]',
      });
    });

    it("refuses a MODIFIER_GROUP without min/max", async () => {
      await expectRefused("/items", [{ ...group("G", []), quantity_info: { max_permitted: 1 } }], 400, {
        type: "invalid_item_data",
        message: "items[0].quantity_info.min_permitted is required for a MODIFIER_GROUP",
      });
    });

    it("enforces the published limits", async () => {
      const options = Array.from({ length: 51 }, (_, i) => `OPT-${i}`);
      await expectRefused("/items", [...options.map((s) => item(s)), group("BIG", options)], 400, {
        type: "limit_exceeded",
        message: "items[51].items_info.items has 51 items; the limit is 50",
      });
      await expectRefused("/items", [item("X".repeat(501))], 400, { type: "limit_exceeded" });
      await expectRefused(
        "/items",
        [
          item("PIC", {
            images_info: { images: [0, 1, 2, 3].map((index) => ({ path: `p${index}.jpg`, index })) },
          }),
        ],
        400,
        { type: "limit_exceeded" },
      );
    });

    it("refuses to delete an item still used, and unknown ids", async () => {
      await seedCatalog();
      await emu.idle();
      const ids = Object.fromEntries((await get<WireItem[]>("/items")).map((i) => [i.sku, i.id!]));
      const inCategory = await del("/items", [ids.BURGER]);
      expect(inCategory).toMatchObject({ status: 400, body: { type: "item_data_conflict" } });
      expect((inCategory.body as { message: string }).message).toContain("category");
      expect((inCategory.body as { message: string }).message).toContain('"BURGERS"');
      const inGroup = await del("/items", [ids.CHEESE]);
      expect(inGroup).toMatchObject({ status: 400, body: { type: "item_data_conflict" } });
      expect((inGroup.body as { message: string }).message).toContain('"EXTRAS"');
      expect(await del("/items", [4242424])).toMatchObject({
        status: 404,
        body: { message: "Item 4242424 not found" },
      });

      // Deleting the parent together with its children is fine.
      const [category] = await get<WireCategory[]>("/categories");
      const [menu] = await get<WireMenu[]>("/menu");
      expect(await del("/categories", { ids: [category!.id] })).toMatchObject({
        status: 400,
        body: { type: "item_data_conflict" },
      });
      expect(await del("/menu", [menu!.id])).toMatchObject({ status: 200 });
      expect(await del("/categories", { ids: [category!.id] })).toMatchObject({
        status: 200,
        body: ACCEPTED,
      });
      expect(await del("/items", Object.values(ids))).toMatchObject({ status: 200, body: ACCEPTED });
      await emu.idle();
      expect(await get<WireStoreMenu>("/store-menu")).toEqual({
        storeId: STORE,
        menus: [],
        categories: [],
        items: [],
      });
    });
  });

  it("replaces the whole catalog with POST /store-menu, keeping ids of kept skus", async () => {
    await seedCatalog();
    await emu.idle();
    const before = await get<WireStoreMenu>("/store-menu");
    const burgerId = before.items.find((i) => i.sku === "BURGER")!.id;
    const r = await post("/store-menu", {
      storeId: STORE,
      items: [item("BURGER"), item("SALAD")],
      categories: [
        {
          sku: "MAINS",
          title: "Mains",
          items: [
            { sku: "SALAD", index: 1 },
            { sku: "BURGER", index: 0 },
          ],
        },
      ],
      menus: [{ menu_type: "DEFAULT", categories: [{ sku: "MAINS", index: 0, is_category_active: true }] }],
    });
    expect(r).toMatchObject({ status: 200, body: ACCEPTED });
    await emu.idle();
    const after = await get<WireStoreMenu>("/store-menu");
    expect(after.items.map((i) => i.sku)).toEqual(["BURGER", "SALAD"]);
    expect(after.items[0]!.id).toBe(burgerId);
    expect(after.categories.map((c) => c.sku)).toEqual(["MAINS"]);
    expect(after.categories[0]!.items.map((i) => i.sku)).toEqual(["BURGER", "SALAD"]);
    expect(after.menus).toHaveLength(1);

    // Round trip: posting what GET returned changes nothing.
    await post("/store-menu", after);
    await emu.idle();
    const again = await get<WireStoreMenu>("/store-menu");
    expect(again.items.map((i) => [i.id, i.sku])).toEqual(after.items.map((i) => [i.id, i.sku]));
    expect(again.menus.map((m) => m.id)).toEqual(after.menus.map((m) => m.id));
  });

  it("applies writes in FIFO order", async () => {
    await post("/items", [item("A", { title_info: { title: "one" } })]);
    await post("/items", [item("A", { title_info: { title: "two" } })]);
    await post("/items", [item("A", { title_info: { title: "three" } })]);
    await emu.idle();
    expect((await get<WireItem[]>("/items"))[0]!.title_info.title).toBe("three");
  });
});
