/**
 * A host per API group: the emulator serves each group at an address of its own and refuses a route of
 * another group there (404), and the client sends every call, its token logins included, to its
 * group's address with its group's token.
 */

import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { ApiError } from "../../src/errors.js";
import { PlatformClient } from "../../src/platform/client.js";
import { API_GROUPS, routeGroup, routeOfPath, type ApiGroup } from "../../src/platform/routes.js";
import { storesOpen } from "../../src/platform/store-availability-calls.js";
import { getRegularHours } from "../../src/platform/utils-calls.js";
import { listClientWebhooks, listWebhooks } from "../../src/platform/webhook-calls.js";
import { SEED, STORE } from "../emulator/helpers.js";

let emu: RunningEmulator | undefined;
let client: PlatformClient | undefined;
afterEach(async () => {
  await client?.close();
  await emu?.close();
  client = undefined;
  emu = undefined;
});

async function split(): Promise<RunningEmulator> {
  emu = await startEmulator({ seed: SEED, applyDelayMs: 0, splitHosts: true });
  return emu;
}

/** The recorded calls by the group of the address that received them, with the route's own group. */
function callsByHost(e: RunningEmulator): Map<ApiGroup | undefined, { route: string; group: string }[]> {
  const out = new Map<ApiGroup | undefined, { route: string; group: string }[]>();
  for (const r of e.requests) {
    const route = routeOfPath(r.method, r.path);
    const list = out.get(r.hostGroup) ?? [];
    list.push({ route: `${r.method} ${r.path}`, group: route === undefined ? "(none)" : routeGroup(route) });
    out.set(r.hostGroup, list);
  }
  return out;
}

describe("the emulator with a host per API group", () => {
  it("serves each group at its own address and answers another group's route there with 404", async () => {
    const e = await split();
    expect(new Set(Object.values(e.urls)).size).toBe(API_GROUPS.length);
    expect(e.url).toBe(e.urls.auth);
    const login = (at: string) =>
      fetch(`${at}/restaurants/auth/v1/token/login/integrations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_id: "acme", client_secret: "s3cret-acme" }),
      });
    expect((await login(e.urls.auth)).status).toBe(200);
    const misplaced = await login(e.urls.menu);
    expect(misplaced.status).toBe(404);
    expect(await misplaced.json()).toEqual({ message: "Not found" });
    // A menu read at its own address asks for a token (401); at the utils address it is unknown.
    const menuPath = `/restaurants/menu/v1/stores/${STORE}/store-menu`;
    expect((await fetch(e.urls.menu + menuPath)).status).toBe(401);
    expect((await fetch(e.urls.utils + menuPath)).status).toBe(404);
    // Another method of a group's path is still a 405 at its own address, a 404 elsewhere.
    expect((await fetch(e.urls.menu + menuPath, { method: "PATCH" })).status).toBe(405);
    expect((await fetch(e.urls.finance + menuPath, { method: "PATCH" })).status).toBe(404);
    expect(e.requests.map((r) => r.hostGroup)).toEqual(["auth", "menu", "menu", "utils", "menu", "finance"]);
  });

  it("keeps every group at one address without splitHosts, and records no host group", async () => {
    emu = await startEmulator({ seed: SEED, applyDelayMs: 0 });
    expect(Object.values(emu.urls)).toEqual(API_GROUPS.map(() => emu!.url));
    await fetch(`${emu.url}/restaurants/menu/v1/stores/${STORE}/store-menu`);
    expect(emu.requests[0]!.hostGroup).toBeUndefined();
  });
});

describe("the client with a host per API group", () => {
  it("sends every call to its group's address with its group's token, none to another", async () => {
    const e = await split();
    client = new PlatformClient({ baseUrl: e.urls, clientId: "acme", clientSecret: "s3cret-acme" });
    await client.getStoreMenu(String(STORE));
    await getRegularHours(client, String(STORE));
    await storesOpen(client, [String(STORE)]);
    await listWebhooks(client);
    await listClientWebhooks(client, "acme");
    await client.call("GET", `/restaurants/finance/v1/stores/${STORE}/payments`, undefined, {
      query: { page_number: 1, page_size: 10 },
    });
    // Every answer was a success: no call met a 404 or a 401 of a wrong address or token.
    expect(e.requests.filter((r) => r.status !== 200)).toEqual([]);
    const byHost = callsByHost(e);
    for (const group of API_GROUPS) {
      const calls = byHost.get(group) ?? [];
      expect(calls.length, `calls at the ${group} address`).toBeGreaterThan(0);
      expect(calls.filter((c) => c.group !== group)).toEqual([]);
    }
    // The two token logins (integrations and utils) both went to the auth group's address.
    expect(byHost.get("auth")!.map((c) => c.route)).toEqual([
      "POST /restaurants/auth/v1/token/login/integrations",
      "POST /restaurants/auth/v1/token/login/utils",
    ]);
  });

  it("fails at the first call sent to another group's address (the emulator's 404)", async () => {
    const e = await split();
    client = new PlatformClient({
      baseUrl: { ...e.urls, utils: e.urls.menu },
      clientId: "acme",
      clientSecret: "s3cret-acme",
    });
    await client.getStoreMenu(String(STORE));
    const err = await getRegularHours(client, String(STORE)).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
  });

  it("sends everything to the one address it is given", async () => {
    emu = await startEmulator({ seed: SEED, applyDelayMs: 0 });
    client = new PlatformClient({ baseUrl: `${emu.url}/`, clientId: "acme", clientSecret: "s3cret-acme" });
    expect(client.hosts).toEqual(emu.urls);
    await client.getStoreMenu(String(STORE));
    await getRegularHours(client, String(STORE));
    expect(emu.requests.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });
});
