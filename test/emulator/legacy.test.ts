import { afterEach, beforeEach, describe, expect, it } from "vitest";

import type { RunningEmulator } from "../../src/emulator/index.js";
import type { WireItem } from "../../src/platform/wire.js";
import { AV2, FOREIGN_STORE, MENU, STORE, call, group, item, start } from "./helpers.js";

let emu: RunningEmulator;
let token: string;
let ids: Record<string, number>;

beforeEach(async () => {
  ({ emu, token } = await start({ applyDelayMs: 150 }));
  await call(emu, "POST", `${MENU()}/items`, {
    token,
    body: [
      item("COLA"),
      item("WATER"),
      item("CHEESE"),
      group("EXTRAS", ["CHEESE"]),
      item("BURGER", { items_info: { items: [{ sku: "EXTRAS", index: 0 }] } }),
      item("LONELY"),
    ],
  });
  await call(emu, "POST", `${MENU()}/categories`, {
    token,
    body: [
      {
        sku: "DRINKS",
        title: "Drinks",
        items: [
          { sku: "COLA", index: 0 },
          { sku: "WATER", index: 1 },
        ],
      },
      { sku: "MAINS", title: "Mains", items: [{ sku: "BURGER", index: 0 }] },
    ],
  });
  await emu.idle();
  const all = (await call(emu, "GET", `${MENU()}/items`, { token })).body as WireItem[];
  ids = Object.fromEntries(all.map((i) => [i.sku, i.id!]));
});
afterEach(async () => {
  await emu.close();
});

const L = `${MENU()}`;
const patch = (res: string, identity: string, body: unknown) =>
  call(emu, "PATCH", `${L}/${res}/${identity}/stock`, { token, body });
const status = (res: string, identity: string, body: unknown) =>
  call(emu, "POST", `${L}/${res}/${identity}/stock/status`, { token, body });
const isAvailable = async (sku: string): Promise<boolean> => {
  const all = (await call(emu, "GET", `${MENU()}/items`, { token })).body as WireItem[];
  return all.find((i) => i.sku === sku)!.suspension_info!.is_available;
};

describe("emulator: legacy bulk availability", () => {
  it("turns a product off after the delay; v2 status and GET items see it (one state)", async () => {
    const r = await patch("products", "SKU", { available: [], unavailable: ["COLA"] });
    expect(r).toMatchObject({ status: 200, body: { message: "Your request has been accepted" } });
    // Asynchronous: not visible yet.
    expect((await status("products", "SKU", { products: ["COLA"] })).body).toEqual([
      { item_id: ids.COLA, item_sku: "COLA", item_type: "PRODUCT", stock_out_state: "AVAILABLE" },
    ]);
    await emu.idle();
    expect((await status("products", "SKU", { products: ["COLA", "WATER"] })).body).toEqual([
      { item_id: ids.COLA, item_sku: "COLA", item_type: "PRODUCT", stock_out_state: "UNAVAILABLE" },
      { item_id: ids.WATER, item_sku: "WATER", item_type: "PRODUCT", stock_out_state: "AVAILABLE" },
    ]);
    const v2 = await call(emu, "POST", `${AV2}/items/status`, {
      token,
      body: { store_id: String(STORE), item_ids: ["COLA"] },
    });
    expect(v2.body).toEqual([{ item_id: ids.COLA, item_type: "ITEM", stock_out_state: "UNAVAILABLE" }]);
    expect(await isAvailable("COLA")).toBe(false);

    // Back on, by platform id.
    await patch("products", "PLATFORM", { available: [String(ids.COLA)], unavailable: [] });
    await emu.idle();
    expect(await isAvailable("COLA")).toBe(true);
    const v2b = await call(emu, "POST", `${AV2}/items/platform/status`, {
      token,
      body: { store_id: String(STORE), item_ids: [String(ids.COLA)] },
    });
    expect(v2b.body).toEqual([{ item_id: ids.COLA, item_type: "ITEM", stock_out_state: "AVAILABLE" }]);
  });

  it("sees v2 changes, and tells products, toppings and items apart", async () => {
    await call(emu, "PUT", `${AV2}/stores/items`, {
      token,
      body: [{ store_integration_id: "bog-centro", items: { turn_off: ["CHEESE"] } }],
    });
    await emu.idle();
    expect((await status("toppings", "SKU", { toppings: ["CHEESE", "COLA"] })).body).toEqual([
      { item_id: ids.CHEESE, item_sku: "CHEESE", item_type: "TOPPING", stock_out_state: "UNAVAILABLE" },
    ]);
    // Unknown identifiers are left out: docs/platform-api.md §4.4 types item_id "integer (long)" and item_sku
    // "string".
    expect((await status("products", "PLATFORM", { products: [String(ids.CHEESE), "999999"] })).body).toEqual(
      [],
    );
    // items = products, toppings and any other ITEM; never a MODIFIER_GROUP.
    expect((await status("items", "SKU", { items: ["CHEESE", "COLA", "LONELY", "EXTRAS"] })).body).toEqual([
      { item_id: ids.CHEESE, item_sku: "CHEESE", item_type: "ITEM", stock_out_state: "UNAVAILABLE" },
      { item_id: ids.COLA, item_sku: "COLA", item_type: "ITEM", stock_out_state: "AVAILABLE" },
      { item_id: ids.LONELY, item_sku: "LONELY", item_type: "ITEM", stock_out_state: "AVAILABLE" },
    ]);

    // A product id sent to /toppings is ignored; unavailable wins over available.
    await patch("toppings", "PLATFORM", {
      available: [String(ids.CHEESE)],
      unavailable: [String(ids.COLA), String(ids.CHEESE)],
    });
    await patch("items", "SKU", { available: ["LONELY"], unavailable: ["NOPE", "WATER"] });
    await emu.idle();
    expect(await isAvailable("COLA")).toBe(true);
    expect(await isAvailable("CHEESE")).toBe(false);
    expect(await isAvailable("WATER")).toBe(false);
    expect(await isAvailable("LONELY")).toBe(true);
  });

  it("refuses bad identity types, bodies and foreign stores", async () => {
    expect(await patch("products", "EAN", { available: [], unavailable: [] })).toMatchObject({
      status: 400,
      body: { message: 'identityType must be PLATFORM or SKU, not "EAN"' },
    });
    expect(await patch("products", "SKU", { available: [] })).toMatchObject({
      status: 400,
      body: { message: "unavailable is required (an array of strings)" },
    });
    expect(await patch("items", "SKU", { available: [1], unavailable: [] })).toMatchObject({
      status: 400,
      body: { message: "available[0] must be a string" },
    });
    expect(await status("toppings", "SKU", { products: ["CHEESE"] })).toMatchObject({
      status: 400,
      body: { message: "toppings is required (an array of strings)" },
    });
    const foreign = await call(emu, "PATCH", `${MENU(FOREIGN_STORE)}/items/SKU/stock`, {
      token,
      body: { available: [], unavailable: [] },
    });
    expect(foreign.status).toBe(400);
    expect(await call(emu, "GET", `${L}/items/SKU/stock`, { token })).toMatchObject({ status: 405 });
  });
});
