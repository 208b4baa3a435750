import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterEach, describe, expect, it } from "vitest";

import { startEmulator } from "../../src/emulator/index.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { createEmulatorServer } from "../../src/emulator/server.js";
import { EmulatorState } from "../../src/emulator/state.js";
import { AV2, FOREIGN_STORE, SEED, STORE, STORE2, call, login, start } from "./helpers.js";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function emulator(applyDelayMs = 40): Promise<{ emu: RunningEmulator; token: string }> {
  const r = await start({ applyDelayMs });
  cleanup.push(() => r.emu.close());
  return r;
}

const status = (emu: RunningEmulator, token: string, body: unknown) =>
  call(emu, "POST", `${AV2}/stores`, { token, body });

describe("emulator: store availability v2", () => {
  it("answers store status, turns stores off and on asynchronously", async () => {
    const { emu, token } = await emulator(150);
    expect(await status(emu, token, [STORE, String(STORE2)])).toMatchObject({
      status: 200,
      body: { [STORE]: true, [STORE2]: true },
    });
    const r = await call(emu, "PUT", `${AV2}/stores`, { token, body: { turn_off: [STORE, String(STORE2)] } });
    expect(r).toMatchObject({ status: 200, body: { message: "Your request has been accepted." } });
    expect((await status(emu, token, [STORE])).body).toEqual({ [STORE]: true }); // not applied yet
    await emu.idle();
    expect((await status(emu, token, [STORE, STORE2])).body).toEqual({ [STORE]: false, [STORE2]: false });

    const m = await call(emu, "PUT", `${AV2}/stores/enable/massive`, {
      token,
      body: { stores: [{ store_id: String(STORE), is_enabled: true }] },
    });
    expect(m.status).toBe(200);
    await emu.idle();
    expect((await status(emu, token, [STORE, STORE2])).body).toEqual({ [STORE]: true, [STORE2]: false });
  });

  it("enables synchronously with a result per store", async () => {
    const { emu, token } = await emulator();
    const r = await call(emu, "PUT", `${AV2}/stores/enable`, {
      token,
      body: {
        stores: [
          { store_id: STORE, is_enabled: false },
          { store_id: String(STORE2), is_enabled: true },
          { store_id: FOREIGN_STORE, is_enabled: false },
        ],
      },
    });
    const base = { suspended_reason: null, suspended_at: null, suspended_time: null };
    expect(r).toMatchObject({
      status: 200,
      body: {
        results: [
          {
            ...base,
            store_id: STORE,
            is_enabled: false,
            operation_result: true,
            operation_result_type: "SUCCESS",
          },
          {
            ...base,
            store_id: String(STORE2),
            is_enabled: true,
            operation_result: false,
            operation_result_type: "STORE_ALREADY_IN_STATUS",
          },
          { ...base, store_id: FOREIGN_STORE, operation_result: false, operation_result_type: "FORBIDDEN" },
        ],
      },
    });
    // Synchronous: visible at once.
    expect((await status(emu, token, [STORE])).body).toEqual({ [STORE]: false });
  });

  it("enforces the published limits and refuses bad bodies and foreign stores", async () => {
    const { emu, token } = await emulator();
    const many = (n: number) => Array.from({ length: n }, () => STORE);
    expect(await status(emu, token, many(100))).toMatchObject({ status: 200 });
    expect(await status(emu, token, many(101))).toMatchObject({
      status: 400,
      body: { message: "At most 100 stores can be queried at once; got 101" },
    });
    const stores = (n: number) => ({ stores: many(n).map((store_id) => ({ store_id, is_enabled: true })) });
    expect((await call(emu, "PUT", `${AV2}/stores/enable`, { token, body: stores(300) })).status).toBe(200);
    const tooMany = await call(emu, "PUT", `${AV2}/stores/enable`, { token, body: stores(301) });
    expect(tooMany.status).toBe(422);
    expect((tooMany.body as { message: string }).message).toMatch(/use the asynchronous service$/);
    expect(
      (await call(emu, "PUT", `${AV2}/stores/enable/massive`, { token, body: stores(301) })).status,
    ).toBe(200);

    expect(await status(emu, token, { stores: [STORE] })).toMatchObject({
      status: 400,
      body: { message: "body must be an array of store ids" },
    });
    expect(await status(emu, token, [FOREIGN_STORE])).toMatchObject({ status: 400 });
    expect(await status(emu, token, [424242])).toMatchObject({ status: 404 });
    expect(await call(emu, "PUT", `${AV2}/stores`, { token, body: {} })).toMatchObject({
      status: 400,
      body: { message: "turn_on or turn_off is required" },
    });
    expect(
      await call(emu, "PUT", `${AV2}/stores`, { token, body: { turn_off: [STORE, FOREIGN_STORE] } }),
    ).toMatchObject({ status: 400 });
    expect(
      await call(emu, "PUT", `${AV2}/stores/enable`, { token, body: { stores: [{ store_id: STORE }] } }),
    ).toMatchObject({ status: 400, body: { message: "stores[0].is_enabled must be a boolean" } });
    await emu.idle();
    expect((await status(emu, token, [STORE])).body).toEqual({ [STORE]: true }); // refused call: no change
  });

  it("finds a client's store by integration id, stores provisioned later too, never another client's", () => {
    const state = new EmulatorState({ applyDelayMs: 0, tokenTtlSeconds: 3600 });
    const seed = (client_id: string, stores: { id: number; integration_id: string }[]) => [
      { client_id, client_secret: "s", stores: stores.map((s) => ({ ...s, name: s.integration_id })) },
    ];
    state.provision(seed("a", [{ id: 11, integration_id: "north" }]));
    state.provision(seed("b", [{ id: 21, integration_id: "south" }]));
    expect(state.storeByIntegrationId("north", "a")?.key).toBe("11");
    expect(state.storeByIntegrationId("south", "a")).toBeUndefined();
    expect(state.storeByIntegrationId("north", "nobody")).toBeUndefined();
    // Stores added after a lookup are found; the first store with an id stays the one found.
    state.provision(
      seed("a", [
        { id: 12, integration_id: "south" },
        { id: 13, integration_id: "north" },
      ]),
    );
    expect(state.storeByIntegrationId("south", "a")?.key).toBe("12");
    expect(state.storeByIntegrationId("north", "a")?.key).toBe("11");
    expect(state.storeByIntegrationId("south", "b")?.key).toBe("21");
  });

  it("calls the connectivity hook once per store of an asynchronous change, when it takes effect", async () => {
    const state = new EmulatorState({ applyDelayMs: 30, tokenTtlSeconds: 3600 });
    state.provision(SEED.clients);
    const seen: [string, boolean, string | undefined][] = [];
    state.onStoreConnectivity = (store, enabled, message) => seen.push([store.key, enabled, message]);
    const server = createEmulatorServer({ state, requests: [] });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanup.push(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const emu = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } as RunningEmulator;
    const token = await login(emu);
    await call(emu, "PUT", `${AV2}/stores`, { token, body: { turn_off: [STORE], turn_on: [STORE2] } });
    expect(seen).toEqual([]);
    await state.idle();
    expect(seen).toEqual([
      [String(STORE2), true, "Store already enabled"],
      [String(STORE), false, "Store disabled successfully"],
    ]);
    // Synchronous changes emit nothing.
    await call(emu, "PUT", `${AV2}/stores/enable`, {
      token,
      body: { stores: [{ store_id: STORE, is_enabled: true }] },
    });
    await state.idle();
    expect(seen).toHaveLength(2);
  });

  it("keeps store availability across a restart", async () => {
    const dir = await mkdtemp(join(tmpdir(), "carte-stores-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const stateFile = join(dir, "state.json");
    const first = await startEmulator({ seed: SEED, stateFile, applyDelayMs: 10_000 });
    let token = await login(first);
    await call(first, "PUT", `${AV2}/stores`, { token, body: { turn_off: [STORE] } });
    await first.close(); // the pending change is applied and persisted first
    const second = await startEmulator({ seed: SEED, stateFile, applyDelayMs: 10 });
    cleanup.push(() => second.close());
    token = await login(second);
    expect((await status(second, token, [STORE, STORE2])).body).toEqual({ [STORE]: false, [STORE2]: true });
  });
});
