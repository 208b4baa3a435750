import { afterEach, describe, expect, it, vi } from "vitest";

import { startEmulator } from "../../src/emulator/index.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { FOREIGN_STORE, MENU, SEED, call, login, start } from "./helpers.js";

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe("emulator: authentication", () => {
  it("issues bearer tokens on both login surfaces", async () => {
    emu = await startEmulator({ seed: SEED, tokenTtlSeconds: 86400 });
    for (const surface of ["integrations", "utils"]) {
      const r = await call(emu, "POST", `/restaurants/auth/v1/token/login/${surface}`, {
        body: { client_id: "acme", client_secret: "s3cret-acme" },
      });
      expect(r.status).toBe(200);
      const body = r.body as Record<string, unknown>;
      expect(body.token_type).toBe("Bearer");
      expect(body.expires_in).toBe(86400);
      expect(typeof body.access_token).toBe("string");
      expect((body.access_token as string).length).toBeGreaterThan(20);
    }
  });

  it("refuses wrong credentials with 401 and missing fields with 400", async () => {
    emu = await startEmulator({ seed: SEED });
    const login = "/restaurants/auth/v1/token/login/integrations";
    expect(
      await call(emu, "POST", login, { body: { client_id: "acme", client_secret: "nope" } }),
    ).toMatchObject({
      status: 401,
      body: { message: "Invalid credentials" },
    });
    expect(
      await call(emu, "POST", login, { body: { client_id: "ghost", client_secret: "x" } }),
    ).toMatchObject({
      status: 401,
    });
    const missing = await call(emu, "POST", login, { body: { client_id: "acme" } });
    expect(missing.status).toBe(400);
    expect(missing.body).toHaveProperty("message");
  });

  it("requires the token in x-authorization, not Authorization", async () => {
    const s = await start();
    emu = s.emu;
    const path = `${MENU()}/items`;
    expect(await call(emu, "GET", path, { token: s.token })).toMatchObject({ status: 200, body: [] });
    expect(await call(emu, "GET", path)).toMatchObject({ status: 401, body: { message: "Invalid token" } });
    expect(await call(emu, "GET", path, { headers: { authorization: `Bearer ${s.token}` } })).toMatchObject({
      status: 401,
      body: { message: "Invalid token" },
    });
    expect(await call(emu, "GET", path, { token: "not-a-token" })).toMatchObject({ status: 401 });
  });

  it("refuses a utils token on the integrations endpoints", async () => {
    emu = await startEmulator({ seed: SEED });
    const utils = await login(emu, "acme", "utils");
    expect(await call(emu, "GET", `${MENU()}/items`, { token: utils })).toMatchObject({
      status: 401,
      body: { message: "Invalid token" },
    });
  });

  it("refuses an expired token", async () => {
    // A token lives at least one second (auth#TokenResponse `expires_in` minimum 1): the emulator's
    // clock is moved past it rather than waited for.
    emu = await startEmulator({ seed: SEED, tokenTtlSeconds: 1 });
    const token = await login(emu);
    const later = Date.now() + 1500;
    vi.spyOn(Date, "now").mockReturnValue(later);
    try {
      expect(await call(emu, "GET", `${MENU()}/items`, { token })).toMatchObject({
        status: 401,
        body: { message: "Invalid token" },
      });
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("scopes stores to their client: foreign 400, unknown 404", async () => {
    const s = await start();
    emu = s.emu;
    expect(await call(emu, "GET", `${MENU(FOREIGN_STORE)}/items`, { token: s.token })).toEqual(
      expect.objectContaining({
        status: 400,
        body: { message: `The stores ${FOREIGN_STORE} don't belong to the appClient of client id acme` },
      }),
    );
    expect(await call(emu, "GET", `${MENU(424242)}/store-menu`, { token: s.token })).toEqual(
      expect.objectContaining({ status: 404, body: { message: "Store 424242 not found" } }),
    );
  });

  it("answers unknown routes 404, wrong methods 405 and malformed JSON 400", async () => {
    const s = await start();
    emu = s.emu;
    expect(await call(emu, "GET", "/nowhere", { token: s.token })).toMatchObject({
      status: 404,
      body: { message: "Not found" },
    });
    const wrong = await call(emu, "PUT", `${MENU()}/items`, { token: s.token, body: [] });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toContain("GET");
    expect(await call(emu, "POST", `${MENU()}/items`, { token: s.token, raw: "[{oops" })).toMatchObject({
      status: 400,
      body: { message: "Malformed JSON body" },
    });
  });

  it("logs one line per request when asked", async () => {
    const lines: string[] = [];
    const s = await start({ log: (l) => lines.push(l) });
    emu = s.emu;
    await call(emu, "GET", `${MENU()}/items`, { token: s.token });
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^GET \/restaurants\/menu\/v1\/stores\/900123\/items 200 [\d.]+ms$/);
  });

  it("records requests without secrets or tokens", async () => {
    const s = await start();
    emu = s.emu;
    await call(emu, "GET", `${MENU()}/items?x=1`, { token: s.token });
    const login = emu.requests[0]!;
    expect(login.body).toEqual({ client_id: "acme" });
    expect(JSON.stringify(emu.requests)).not.toContain("s3cret");
    expect(JSON.stringify(emu.requests)).not.toContain(s.token);
    const get = emu.requests[1]!;
    expect(get).toMatchObject({ method: "GET", path: `${MENU()}/items`, query: "x=1", status: 200 });
    const viaControl = await call(emu, "GET", "/__emulator/requests");
    expect(viaControl.body).toHaveLength(2);
    emu.clearRequests();
    expect(emu.requests).toHaveLength(0);
  });
});
