import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { ApiError } from "../../src/errors.js";
import { PlatformClient } from "../../src/platform/client.js";

const SECRET = "client-secret-never-shown-42";
const seed = {
  clients: [
    { client_id: "c1", client_secret: SECRET, stores: [{ id: "100", integration_id: "s-100", name: "One" }] },
    {
      client_id: "c2",
      client_secret: "other-secret",
      stores: [{ id: "200", integration_id: "s-200", name: "Two" }],
    },
  ],
};

let emu: RunningEmulator | undefined;
let client: PlatformClient | undefined;
afterEach(async () => {
  await client?.close();
  await emu?.close();
  client = undefined;
  emu = undefined;
});

const ITEMS = "GET /restaurants/menu/v1/stores/{storeId}/items" as const;
const MENUS = "GET /restaurants/menu/v1/stores/{storeId}/menu" as const;

const logins = (e: RunningEmulator) => e.requests.filter((r) => r.path.includes("/token/login/")).length;

describe("PlatformClient", () => {
  it("logs in once and reuses the token across calls", async () => {
    emu = await startEmulator({ port: 0, seed, applyDelayMs: 0 });
    client = new PlatformClient({ baseUrl: emu.url, clientId: "c1", clientSecret: SECRET });
    await Promise.all([
      client.getStoreMenu("100"),
      client.getStoreMenu("100"),
      client.request(ITEMS, { storeId: "100" }),
    ]);
    await client.request(MENUS, { storeId: "100" });
    expect(logins(emu)).toBe(1);
  });

  it("renews the token shortly before it expires", async () => {
    emu = await startEmulator({ port: 0, seed, applyDelayMs: 0, tokenTtlSeconds: 3600 });
    let now = 1_000_000;
    client = new PlatformClient({
      baseUrl: emu.url,
      clientId: "c1",
      clientSecret: SECRET,
      renewBeforeSeconds: 300,
      now: () => now,
    });
    await client.request(ITEMS, { storeId: "100" });
    now += (3600 - 301) * 1000;
    await client.request(ITEMS, { storeId: "100" });
    expect(logins(emu)).toBe(1);
    now += 2000; // inside the renewal margin
    await client.request(ITEMS, { storeId: "100" });
    expect(logins(emu)).toBe(2);
  });

  it("logs in again once when the platform answers 401", async () => {
    emu = await startEmulator({ port: 0, seed, applyDelayMs: 0, tokenTtlSeconds: 1 });
    // A frozen clock: the client believes its token is still fresh when the emulator has expired it.
    client = new PlatformClient({ baseUrl: emu.url, clientId: "c1", clientSecret: SECRET, now: () => 0 });
    await client.request(ITEMS, { storeId: "100" });
    await new Promise((r) => setTimeout(r, 1200));
    await client.request(ITEMS, { storeId: "100" });
    expect(logins(emu)).toBe(2);
  });

  it("turns failures into ApiError with the platform's message and no secret", async () => {
    emu = await startEmulator({ port: 0, seed, applyDelayMs: 0 });
    client = new PlatformClient({ baseUrl: emu.url, clientId: "c1", clientSecret: SECRET });
    const foreign = await client.request(ITEMS, { storeId: "200" }).catch((e: unknown) => e);
    expect(foreign).toBeInstanceOf(ApiError);
    expect((foreign as ApiError).status).toBe(400);
    expect((foreign as ApiError).message).toContain("don't belong");

    const bad = new PlatformClient({ baseUrl: emu.url, clientId: "c1", clientSecret: "wrong-" + SECRET });
    const denied = await bad.request(ITEMS, { storeId: "100" }).catch((e: unknown) => e);
    await bad.close();
    expect(denied).toBeInstanceOf(ApiError);
    expect((denied as ApiError).status).toBe(401);
    expect((denied as ApiError).message).toContain("/token/login/integrations");
    expect(JSON.stringify(denied) + String(denied)).not.toContain(SECRET);
  });

  it("says when a refusal follows an attempt whose answer was lost (the change may have been made)", async () => {
    // Logins answer; then each call's answers follow the script: "drop" (no answer) or a status.
    const serve = async (script: (string | number)[]): Promise<[Server, string]> => {
      const server = createServer((req, res) => {
        if (req.url?.includes("/token/login/")) {
          res.setHeader("content-type", "application/json");
          res.end(JSON.stringify({ access_token: "t", token_type: "Bearer", expires_in: 3600 }));
          return;
        }
        const next = script.shift() ?? 503;
        if (next === "drop") {
          req.socket.destroy();
          return;
        }
        res.statusCode = Number(next);
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ message: "Service unavailable" }));
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      return [server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`];
    };
    const attempt = async (script: (string | number)[]) => {
      const [server, baseUrl] = await serve(script);
      const c = new PlatformClient({
        baseUrl,
        clientId: "c1",
        clientSecret: SECRET,
        maxAttempts: 2,
        baseDelayMs: 1,
      });
      try {
        return (await c.request(ITEMS, { storeId: "100" }).catch((e: unknown) => e)) as ApiError;
      } finally {
        await c.close();
        await new Promise((r) => server.close(r));
      }
    };
    const afterLoss = await attempt(["drop", 503]);
    expect(afterLoss).toBeInstanceOf(ApiError);
    expect([afterLoss.status, afterLoss.earlierAnswerLost]).toEqual([503, true]);
    const refused = await attempt([503, 503]);
    expect([refused.status, refused.earlierAnswerLost]).toEqual([503, false]);
  });

  it("reports a connection failure as ApiError with status 0", async () => {
    client = new PlatformClient({
      baseUrl: "http://127.0.0.1:1",
      clientId: "c1",
      clientSecret: SECRET,
      timeoutMs: 2000,
    });
    const err = await client.request(ITEMS, { storeId: "100" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(0);
  });
});
