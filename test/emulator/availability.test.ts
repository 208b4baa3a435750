import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { RunningEmulator } from "../../src/emulator/index.js";
import type { WireItem } from "../../src/platform/wire.js";
import { AV2, MENU, STORE, call, item, login, start } from "./helpers.js";

let emu: RunningEmulator;
let token: string;
beforeEach(async () => {
  ({ emu, token } = await start({ applyDelayMs: 30 }));
  await call(emu, "POST", `${MENU()}/items`, { token, body: [item("COLA"), item("WATER")] });
  await emu.idle();
});
afterEach(async () => {
  vi.useRealTimers();
  await emu.close();
});

const items = async (): Promise<WireItem[]> =>
  (await call(emu, "GET", `${MENU()}/items`, { token })).body as WireItem[];
const toggle = (body: unknown, platform = false) =>
  call(emu, "PUT", `${AV2}/stores/items${platform ? "/platform" : ""}`, { token, body });

describe("emulator: availability v2", () => {
  it("turns items off and on, visible in GET items and in status reads", async () => {
    const r = await toggle([{ store_integration_id: "bog-centro", items: { turn_off: ["COLA"] } }]);
    expect(r).toMatchObject({ status: 200, body: { message: "Your request has been accepted." } });
    await emu.idle();
    const [cola, water] = await items();
    expect(cola!.suspension_info).toEqual({
      suspend_until: null,
      suspend_reason: null,
      is_available: false,
      overrides: [],
    });
    expect(water!.suspension_info!.is_available).toBe(true);

    const status = await call(emu, "POST", `${AV2}/items/status`, {
      token,
      body: { store_id: String(STORE), item_ids: ["COLA", "WATER", "UNKNOWN"] },
    });
    expect(status).toMatchObject({
      status: 200,
      body: [
        { item_id: cola!.id, item_type: "ITEM", stock_out_state: "UNAVAILABLE" },
        { item_id: water!.id, item_type: "ITEM", stock_out_state: "AVAILABLE" },
      ],
    });

    await toggle([{ store_integration_id: "bog-centro", items: { turn_on: [cola!.id!] } }], true);
    await emu.idle();
    const byId = await call(emu, "POST", `${AV2}/items/platform/status`, {
      token,
      body: { store_id: String(STORE), item_ids: [String(cola!.id)] },
    });
    expect(byId.body).toEqual([{ item_id: cola!.id, item_type: "ITEM", stock_out_state: "AVAILABLE" }]);
  });

  it("does not turn a turned-off item back on when the menu is uploaded again", async () => {
    await toggle([{ store_integration_id: "bog-centro", items: { turn_off: ["COLA"] } }]);
    await call(emu, "POST", `${MENU()}/items`, {
      token,
      body: [item("COLA", { title_info: { title: "Cola 2" }, suspension_info: { is_available: true } })],
    });
    await emu.idle();
    const [cola] = await items();
    expect(cola).toMatchObject({ title_info: { title: "Cola 2" }, suspension_info: { is_available: false } });
  });

  it("keeps suspend_reason and suspend_until an upsert sends, and a toggle clears them", async () => {
    const mark = { is_available: false, suspend_reason: "carte", suspend_until: "2099-01-01T18:00:00-05:00" };
    await toggle([{ store_integration_id: "bog-centro", items: { turn_off: ["COLA"] } }]);
    await call(emu, "POST", `${MENU()}/items`, { token, body: [item("COLA", { suspension_info: mark })] });
    await emu.idle();
    expect((await items())[0]!.suspension_info).toEqual({ ...mark, overrides: [] });

    // An upsert without suspension_info keeps them.
    await call(emu, "POST", `${MENU()}/items`, {
      token,
      body: [item("COLA", { title_info: { title: "Cola 2" } })],
    });
    await emu.idle();
    expect((await items())[0]!.suspension_info).toEqual({ ...mark, overrides: [] });

    // Switching the item off again (staff's call) ends the marker; so does switching it on.
    await toggle([{ store_integration_id: "bog-centro", items: { turn_off: ["COLA"] } }]);
    await emu.idle();
    expect((await items())[0]!.suspension_info).toEqual({
      is_available: false,
      suspend_reason: null,
      suspend_until: null,
      overrides: [],
    });
  });

  it("switches an item back on once its suspend_until has passed", async () => {
    await toggle([{ store_integration_id: "bog-centro", items: { turn_off: ["COLA", "WATER"] } }]);
    const until = (ms: number) => ({
      is_available: false,
      suspend_reason: "carte",
      suspend_until: new Date(Date.now() + ms).toISOString(),
    });
    await call(emu, "POST", `${MENU()}/items`, {
      token,
      body: [
        item("COLA", { suspension_info: until(-1000) }),
        item("WATER", { suspension_info: until(3_600_000) }),
      ],
    });
    await emu.idle();
    const [cola, water] = await items();
    expect(cola!.suspension_info).toMatchObject({
      is_available: true,
      suspend_reason: null,
      suspend_until: null,
    });
    expect(water!.suspension_info).toMatchObject({ is_available: false, suspend_reason: "carte" });
    const status = await call(emu, "POST", `${AV2}/items/status`, {
      token,
      body: { store_id: String(STORE), item_ids: ["COLA"] },
    });
    expect(status.body).toEqual([{ item_id: cola!.id, item_type: "ITEM", stock_out_state: "AVAILABLE" }]);
  });

  it("ends a suspension at its time everywhere the item is shown, cached store menu included", async () => {
    // The emulator reads the time from Date: only Date is faked, its timers and the network run as ever.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now(), shouldAdvanceTime: true });
    const until = new Date(Date.now() + 60_000).toISOString();
    await toggle([{ store_integration_id: "bog-centro", items: { turn_off: ["COLA"] } }]);
    await call(emu, "POST", `${MENU()}/items`, {
      token,
      body: [
        item("COLA", {
          suspension_info: { is_available: false, suspend_reason: "carte", suspend_until: until },
        }),
      ],
    });
    await call(emu, "POST", `${MENU()}/categories`, {
      token,
      body: [{ sku: "DRINKS", title: "Drinks", items: [{ sku: "COLA", index: 0 }] }],
    });
    await emu.idle();
    const storeMenuCola = async () =>
      ((await call(emu, "GET", `${MENU()}/store-menu`, { token })).body as { items: WireItem[] }).items.find(
        (i) => i.sku === "COLA",
      )!;
    const status = async () =>
      (
        await call(emu, "POST", `${AV2}/items/status`, {
          token,
          body: { store_id: String(STORE), item_ids: ["COLA"] },
        })
      ).body as { stock_out_state: string }[];
    const utilsToken = await login(emu, "acme", "utils");
    const utilsCola = async () =>
      (
        (await call(emu, "GET", `/api/rest-ops-utils/menu/integration/bog-centro`, { token: utilsToken }))
          .body as {
          products: { sku: string; isAvailable: boolean }[];
        }
      ).products.find((p) => p.sku === "COLA")!;

    // Before its time: off everywhere; the store menu and the item list are now in the render cache.
    const off = { is_available: false, suspend_reason: "carte", suspend_until: until, overrides: [] };
    expect((await storeMenuCola()).suspension_info).toEqual(off);
    expect((await items()).find((i) => i.sku === "COLA")!.suspension_info).toEqual(off);
    expect((await status())[0]!.stock_out_state).toBe("UNAVAILABLE");
    expect((await utilsCola()).isAvailable).toBe(false);

    // Its time passed, nothing written meanwhile: on everywhere.
    vi.setSystemTime(Date.parse(until) + 1);
    const on = { is_available: true, suspend_reason: null, suspend_until: null, overrides: [] };
    expect((await storeMenuCola()).suspension_info).toEqual(on);
    expect((await items()).find((i) => i.sku === "COLA")!.suspension_info).toEqual(on);
    expect((await status())[0]!.stock_out_state).toBe("AVAILABLE");
    expect((await utilsCola()).isAvailable).toBe(true);
  });

  it("refuses a suspend_until that is not a date and time", async () => {
    const r = await call(emu, "POST", `${MENU()}/items`, {
      token,
      body: [item("COLA", { suspension_info: { is_available: false, suspend_until: "tomorrow" } })],
    });
    expect(r.status).toBe(400);
  });

  it("refuses more than 100 items, unknown stores and unknown skus with an array body", async () => {
    const many = Array.from({ length: 101 }, () => "COLA");
    const error = [{ message: "Error updating items" }];
    expect(await toggle([{ store_integration_id: "bog-centro", items: { turn_off: many } }])).toMatchObject({
      status: 400,
      body: error,
    });
    expect(
      await toggle([
        { store_integration_id: "bog-centro", items: { turn_off: many.slice(0, 60) } },
        { store_integration_id: "bog-centro", items: { turn_on: many.slice(0, 41) } },
      ]),
    ).toMatchObject({ status: 400, body: error });
    expect(await toggle([{ store_integration_id: "nowhere", items: { turn_off: ["COLA"] } }])).toMatchObject({
      status: 400,
      body: error,
    });
    expect(await toggle([{ store_integration_id: "other-1", items: { turn_off: ["COLA"] } }])).toMatchObject({
      status: 400,
      body: error,
    });
    expect(
      await toggle([{ store_integration_id: "bog-centro", items: { turn_off: ["GHOST"] } }]),
    ).toMatchObject({
      status: 400,
      body: error,
    });
    // Exactly 100 is fine.
    expect(
      await toggle([{ store_integration_id: "bog-centro", items: { turn_off: many.slice(0, 100) } }]),
    ).toMatchObject({ status: 200 });
  });

  it("accepts a toggle of an item accepted a moment ago but not yet visible", async () => {
    await call(emu, "POST", `${MENU()}/items`, { token, body: [item("JUICE")] });
    expect(
      await toggle([{ store_integration_id: "bog-centro", items: { turn_off: ["JUICE"] } }]),
    ).toMatchObject({
      status: 200,
    });
    await emu.idle();
    expect((await items()).find((i) => i.sku === "JUICE")!.suspension_info!.is_available).toBe(false);
  });
});
