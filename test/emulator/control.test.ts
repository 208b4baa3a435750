import { afterEach, beforeEach, describe, expect, it } from "vitest";

import type { RunningEmulator } from "../../src/emulator/index.js";
import { MENU, STORE, call, item, start } from "./helpers.js";

const V2 = "/api/v2/restaurants-integrations-public-api";

let emu: RunningEmulator;
let token: string;
beforeEach(async () => {
  ({ emu, token } = await start());
});
afterEach(async () => {
  await emu.close();
});

describe("emulator: control API", () => {
  it("lists recorded requests and resets catalogs, webhooks, requests and deliveries", async () => {
    await call(emu, "POST", `${MENU()}/items`, { token, body: [item("CHEESE")] });
    await call(emu, "POST", `${V2}/webhook`, {
      token,
      body: { event: "PING", data: [{ url: "http://127.0.0.1:9/p", stores: [String(STORE)] }] },
    });
    await emu.trigger("PING", STORE); // connection refused on port 9: recorded as an error
    await emu.idle();
    const recorded = (await call(emu, "GET", "/__emulator/requests")).body as {
      method: string;
      path: string;
    }[];
    expect(recorded.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /restaurants/auth/v1/token/login/integrations",
      `POST ${MENU()}/items`,
      `POST ${V2}/webhook`,
    ]);
    expect(((await call(emu, "GET", "/__emulator/deliveries")).body as unknown[]).length).toBeGreaterThan(0);

    const reset = await call(emu, "POST", "/__emulator/reset");
    expect(reset).toMatchObject({ status: 200, body: { message: "reset" } });
    expect((await call(emu, "GET", "/__emulator/requests")).body).toEqual([]);
    expect((await call(emu, "GET", "/__emulator/deliveries")).body).toEqual([]);
    expect(emu.deliveries).toEqual([]);
    expect((await call(emu, "GET", `${V2}/webhook`, { token })).body).toEqual([]);
    expect((await call(emu, "GET", `${MENU()}/items`, { token })).body).toEqual([]);
  });

  it("answers 404 to unknown control paths, 405 to wrong methods, 400 to bad trigger requests", async () => {
    expect((await call(emu, "GET", "/__emulator/nope")).status).toBe(404);
    expect((await call(emu, "GET", "/__emulator/constructor")).status).toBe(404);
    const wrong = await call(emu, "POST", "/__emulator/requests");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET");
    expect((await call(emu, "GET", "/__emulator/reset")).status).toBe(405);
    expect((await call(emu, "PUT", "/__emulator/faults", { raw: "{nope" })).status).toBe(400);
    const trigger = (body: unknown): Promise<{ status: number }> =>
      call(emu, "POST", "/__emulator/webhooks/trigger", { body });
    expect((await trigger({})).status).toBe(400);
    expect((await trigger({ event: "NOPE", store_id: String(STORE) })).status).toBe(400);
    expect((await trigger({ event: "PING" })).status).toBe(400);
    expect((await trigger({ event: "PING", store_id: "42" })).status).toBe(404);
    const none = await call(emu, "POST", "/__emulator/webhooks/trigger", {
      body: { event: "PING", store_id: STORE },
    });
    expect(none).toMatchObject({ status: 200, body: { deliveries: [] } }); // no webhook configured
    // Control calls are never recorded.
    expect((await call(emu, "GET", "/__emulator/requests")).body).toHaveLength(1); // the login
  });
});
