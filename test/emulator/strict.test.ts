/**
 * The strict emulator (the default): requests and answers of the platform routes held to the published
 * description, docs/openapi.yaml (its copy schemas/openapi.json). A request that breaks it is the
 * client's 400, naming the field; an answer that breaks it is the emulator's bug, a 500 naming route,
 * status and field.
 */

import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";

import { afterEach, describe, expect, it } from "vitest";

import { Contract } from "../../src/emulator/contract.js";
import { startEmulator } from "../../src/emulator/index.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { createEmulatorServer } from "../../src/emulator/server.js";
import { EmulatorState } from "../../src/emulator/state.js";
import { MENU, SEED, call, item, login } from "./helpers.js";

const DESCRIPTION = readFileSync(new URL("../../schemas/openapi.json", import.meta.url), "utf8");

let emu: RunningEmulator | undefined;
let closeServer: (() => Promise<void>) | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
  await closeServer?.();
  closeServer = undefined;
});

/** What the tests change in an object schema of the description. */
interface DescribedObject {
  properties: Record<string, Record<string, unknown>>;
  required: string[];
}

/**
 * A server holding its traffic to the package's description changed by `change`, so that the
 * emulator's own answers break it.
 */
async function serverWith(change: (schemas: Record<string, DescribedObject>) => void) {
  const doc = JSON.parse(DESCRIPTION) as { components: { schemas: Record<string, DescribedObject> } };
  change(doc.components.schemas);
  const state = new EmulatorState({ applyDelayMs: 0, tokenTtlSeconds: 604_800 });
  state.provision(SEED.clients);
  const server = createEmulatorServer({ state, requests: [], contract: new Contract(JSON.stringify(doc)) });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closeServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, requests: [] } as unknown as RunningEmulator;
}

describe("emulator: strict", () => {
  it("refuses a field the description does not name, which --no-strict accepts", async () => {
    const body = [{ ...item("COLA"), colour: "red" }];
    emu = await startEmulator({ seed: SEED, applyDelayMs: 0 });
    const token = await login(emu);
    expect(await call(emu, "POST", `${MENU()}/items`, { token, body })).toMatchObject({
      status: 400,
      body: { message: "items[0].colour is not allowed" },
    });
    await emu.close();

    emu = await startEmulator({ seed: SEED, applyDelayMs: 0, strict: false });
    const lenient = await login(emu);
    expect((await call(emu, "POST", `${MENU()}/items`, { token: lenient, body })).status).toBe(200);
  });

  it("answers 500 naming route, status and field when its own answer breaks the description", async () => {
    const server = await serverWith((schemas) => {
      schemas.TokenResponse!.properties.expires_in!.maximum = 10;
    });
    const r = await call(server, "POST", "/restaurants/auth/v1/token/login/integrations", {
      body: { client_id: "acme", client_secret: "s3cret-acme" },
    });
    expect(r).toMatchObject({
      status: 500,
      body: {
        message:
          "emulator answer breaks docs/openapi.yaml: POST /restaurants/auth/v1/token/login/integrations 200: " +
          "/expires_in: must be <= 10, got something else",
      },
    });
  });

  it("checks a rendered read once, when it is rendered", async () => {
    const server = await serverWith((schemas) => {
      schemas.StoreMenu!.required.push("currency");
    });
    const token = await login(server);
    const path = `${MENU()}/store-menu`;
    const first = await call(server, "GET", path, { token });
    expect(first).toMatchObject({
      status: 500,
      body: {
        message:
          "emulator answer breaks docs/openapi.yaml: GET /restaurants/menu/v1/stores/{storeId}/store-menu 200: " +
          "/currency: missing (expected a value)",
      },
    });
    // Not cached: the next read renders and checks again.
    expect((await call(server, "GET", path, { token })).status).toBe(500);
  });

  it("serves the description at GET /__emulator/openapi.json", async () => {
    emu = await startEmulator({ seed: SEED });
    const r = await call(emu, "GET", "/__emulator/openapi.json");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(r.body).toEqual(JSON.parse(DESCRIPTION));
  });
});
