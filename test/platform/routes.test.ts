import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { platformSchemas, startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { InternalError } from "../../src/errors.js";
import { PlatformClient } from "../../src/platform/client.js";
import {
  API_GROUPS,
  GROUP_SURFACE,
  LOGIN_ROUTES,
  ROUTES,
  ROUTE_NAMES,
  RouteMatcher,
  routeGroup,
  routeIdempotent,
  routeMethod,
  routeOfPath,
  routeParamNames,
  routePath,
  routeSpec,
  routeTemplate,
} from "../../src/platform/routes.js";
import { MAX_STATUS_STORES, MAX_SYNC_STORES } from "../../src/platform/store-availability-calls.js";
import { Limits } from "../../src/platform/wire.js";
import { SEED, STORE } from "../emulator/helpers.js";

const UTILS = "/api/rest-ops-utils";

describe("the route table", () => {
  it("writes every route as the spec does: a method, a path with its prefix and {name} parameters", () => {
    for (const name of ROUTE_NAMES) {
      expect(name).toMatch(/^(GET|POST|PUT|PATCH|DELETE) \/[A-Za-z0-9_/{}.-]+$/);
      expect(routeTemplate(name)).not.toMatch(/\/$|\/\/|:/);
      expect(routeSpec(name).section).toMatch(/^§2\.[1-7]$/);
    }
  });

  it("asks a utils token exactly for the utils group, none for the logins (docs/platform-api.md §4.2)", () => {
    for (const name of ROUTE_NAMES) {
      const path = routeTemplate(name);
      const expected = path.startsWith(`${UTILS}/`)
        ? "utils"
        : path.startsWith("/restaurants/auth/v1/token/login/")
          ? "none"
          : "integrations";
      expect([name, routeSpec(name).surface]).toEqual([name, expected]);
    }
  });

  it("declares the API group of every route, none missing, and the group's token (docs/platform-api.md §4.13)", () => {
    // The prefixes of docs/platform-api.md §2: the legacy stock calls (§2.2) live under the menu API's
    // prefix.
    const V2 = "/api/v2/restaurants-integrations-public-api";
    const byPrefix = (path: string): string =>
      path.startsWith("/restaurants/auth/v1/")
        ? "auth"
        : path.startsWith("/restaurants/menu/v1/")
          ? "menu"
          : path.startsWith("/restaurants/finance/v1/")
            ? "finance"
            : path.startsWith(`${UTILS}/`)
              ? "utils"
              : path.startsWith(`${V2}/availability/`)
                ? "availability"
                : path.startsWith(`${V2}/webhook`) || path.startsWith(`${V2}/clients/`)
                  ? "webhooks"
                  : "(no group)";
    const seen = new Set<string>();
    for (const name of ROUTE_NAMES) {
      const group = (ROUTES[name] as { group?: unknown }).group;
      expect([name, group]).toEqual([name, byPrefix(routeTemplate(name))]);
      expect([name, routeGroup(name)]).toEqual([name, group]);
      expect([name, routeSpec(name).surface]).toEqual([name, GROUP_SURFACE[routeGroup(name)]]);
      seen.add(routeGroup(name));
    }
    // Every group of the spec has its routes, and the logins belong to the auth group.
    expect([...seen].sort()).toEqual([...API_GROUPS].sort());
    expect(routeGroup(LOGIN_ROUTES.integrations)).toBe("auth");
    expect(routeGroup(LOGIN_ROUTES.utils)).toBe("auth");
  });

  it("is the table of docs/platform-api.md that lists which route belongs to which group", () => {
    const text = readFileSync(new URL("../../docs/platform-api.md", import.meta.url), "utf8");
    const start = text.indexOf("<!-- route-groups:start -->");
    const end = text.indexOf("<!-- route-groups:end -->");
    expect(start, "the markers of the table").toBeGreaterThan(0);
    const rows = text
      .slice(start, end)
      .split("\n")
      .filter((l) => l.startsWith("| ") && l.includes("`"))
      .map((l) => l.split("|").map((c) => c.trim()));
    expect(rows.map((r) => [r[3]!.replaceAll("`", ""), r[1], r[2]])).toEqual(
      ROUTE_NAMES.map((n) => [n, routeGroup(n), GROUP_SURFACE[routeGroup(n)]]),
    );
  });

  it("keeps every method of one path in one group (a path has one address)", () => {
    const groupOfPath = new Map<string, string>();
    for (const name of ROUTE_NAMES) {
      const before = groupOfPath.get(routeTemplate(name));
      if (before !== undefined) expect([name, routeGroup(name)]).toEqual([name, before]);
      groupOfPath.set(routeTemplate(name), routeGroup(name));
    }
  });

  it("names schema definitions that exist", () => {
    const defs = platformSchemas().definitions;
    for (const name of ROUTE_NAMES) {
      const row = routeSpec(name);
      for (const def of [row.request, row.response, row.query]) {
        if (def !== undefined) expect(defs.has(def), `${name}: ${def}`).toBe(true);
      }
      // Reads carry no body and say nothing of synchronicity; writes say whether they are synchronous.
      if (routeMethod(name) === "GET") {
        expect(row.request, name).toBeUndefined();
        expect(row.synchronous, name).toBeUndefined();
      }
    }
  });

  it("keeps the published call limits in one place", () => {
    expect(Limits.availabilityItemsPerCall).toBe(100);
    expect(MAX_STATUS_STORES).toBe(100);
    expect(MAX_SYNC_STORES).toBe(300);
    expect(
      ROUTES["PUT /api/v2/restaurants-integrations-public-api/availability/stores/items/platform"]
        .maxElements,
    ).toBe(Limits.availabilityItemsPerCall);
  });

  it("fills paths, encoding each parameter, and refuses a missing one", () => {
    const name = "PUT /api/rest-ops-utils/store/schedule/{storeId}/{storeScheduleId}";
    expect(routeMethod(name)).toBe("PUT");
    expect(routeParamNames(name)).toEqual(["storeId", "storeScheduleId"]);
    expect(routePath(name, { storeId: "900 1/2", storeScheduleId: 7, extra: "ignored" })).toBe(
      "/api/rest-ops-utils/store/schedule/900%201%2F2/7",
    );
    expect(() => routePath(name, { storeId: "1" })).toThrow(InternalError);
    expect(() => routePath(name, { storeId: "", storeScheduleId: 1 })).toThrow(/storeId/);
    expect(routePath("GET /api/v2/restaurants-integrations-public-api/webhook")).toBe(
      "/api/v2/restaurants-integrations-public-api/webhook",
    );
  });

  it("decides the idempotency of a menu upsert by its body", () => {
    const menu = "POST /restaurants/menu/v1/stores/{storeId}/menu";
    expect(routeIdempotent(menu, [{ id: 1, menu_type: "A" }])).toBe(true);
    expect(routeIdempotent(menu, [{ id: 1 }, { menu_type: "NEW" }])).toBe(false);
    expect(routeIdempotent("POST /restaurants/menu/v1/stores/{storeId}/items", [{ sku: "A" }])).toBe(true);
    expect(routeIdempotent("POST /api/v2/restaurants-integrations-public-api/webhook", {})).toBe(false);
    expect(routeIdempotent("POST /api/rest-ops-utils/store/schedule/{storeId}", {})).toBe(false);
  });

  it("matches concrete paths to routes, literal segments first in table order", () => {
    expect(routeOfPath("GET", "/api/rest-ops-utils/store/schedule/900/holiday")).toBe(
      "GET /api/rest-ops-utils/store/schedule/{storeId}/holiday",
    );
    expect(routeOfPath("DELETE", "/api/rest-ops-utils/store/schedule/900/55")).toBe(
      "DELETE /api/rest-ops-utils/store/schedule/{storeId}/{storeScheduleId}",
    );
    expect(routeOfPath("GET", "/restaurants/finance/v1/stores/9/orders?page_number=2")).toBe(
      "GET /restaurants/finance/v1/stores/{store_id}/orders",
    );
    // Another method on a known path still names a route of that path (its surface is the same).
    expect(routeOfPath("PUT", "/restaurants/menu/v1/stores/9/items")).toMatch(/ \/restaurants\/menu\/v1\//);
    expect(routeOfPath("GET", "/nope")).toBeUndefined();
    const m = new RouteMatcher([["GET /restaurants/menu/v1/stores/{storeId}/items/{itemId}", "x"] as const]);
    expect(m.match("GET", "/restaurants/menu/v1/stores/1/items/a%20b")).toMatchObject({
      value: "x",
      params: { storeId: "1", itemId: "a b" },
    });
    expect(m.match("POST", "/restaurants/menu/v1/stores/1/items/2")).toEqual({ allow: ["GET"] });
    expect(m.match("GET", "/restaurants/menu/v1/stores//items/2")).toBeUndefined();
  });
});

describe("PlatformClient.request", () => {
  let emu: RunningEmulator | undefined;
  let client: PlatformClient | undefined;
  afterEach(async () => {
    await client?.close();
    await emu?.close();
    client = emu = undefined;
  });

  it("takes the token surface from the route, for request and for call", async () => {
    emu = await startEmulator({ port: 0, seed: SEED, applyDelayMs: 0 });
    client = new PlatformClient({ baseUrl: emu.url, clientId: "acme", clientSecret: "s3cret-acme" });
    const hours = await client.request<{ storeScheduleDays: unknown[] }>(
      "GET /api/rest-ops-utils/store/schedule/{storeId}",
      { storeId: STORE },
    );
    expect(hours).toEqual({ storeScheduleDays: [] });
    const items = await client.call<unknown[]>("GET", `/restaurants/menu/v1/stores/${STORE}/items`);
    expect(items).toEqual([]);
    const logins = emu.requests.filter((r) => r.path.includes("/token/login/")).map((r) => r.path);
    expect(logins.sort()).toEqual([
      "/restaurants/auth/v1/token/login/integrations",
      "/restaurants/auth/v1/token/login/utils",
    ]);
  });

  it("sends query parameters and refuses a path that is no route", async () => {
    emu = await startEmulator({ port: 0, seed: SEED, applyDelayMs: 0 });
    client = new PlatformClient({ baseUrl: emu.url, clientId: "acme", clientSecret: "s3cret-acme" });
    const page = await client.request<{ page_size: number }>(
      "GET /restaurants/finance/v1/stores/{store_id}/payments",
      { store_id: STORE },
      undefined,
      { query: { page_size: 3, "payment_id:eq": undefined } },
    );
    expect(page.page_size).toBe(3);
    expect(emu.requests.at(-1)).toMatchObject({
      path: `/restaurants/finance/v1/stores/${STORE}/payments`,
      query: "page_size=3",
    });
    const before = emu.requests.length;
    await expect(client.call("GET", "/restaurants/menu/v2/nothing")).rejects.toThrow(InternalError);
    expect(emu.requests.length).toBe(before);
  });
});
