import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors.js";
import { CallTally, describeCalls, PlatformFailingError } from "../../src/platform/call-tally.js";
import { PlatformClient } from "../../src/platform/client.js";

const SECRET = "call-tally-secret-9f3";
const ITEMS = "GET /restaurants/menu/v1/stores/{storeId}/items" as const;

describe("CallTally", () => {
  it("counts every exchange, 2xx against the rest, in all and per API group", () => {
    const t = new CallTally();
    for (let i = 0; i < 397; i++) t.record("menu", 200);
    t.record("menu", 429);
    t.record("utils", 503);
    t.record("utils", 0);
    t.record("availability", 404);
    for (let i = 0; i < 3; i++) t.record("utils", 204);
    const c = t.counts();
    expect([c.calls, c.succeeded]).toEqual([404, 400]);
    expect(c.byGroup.get("utils")).toEqual({ calls: 5, succeeded: 3 });
    expect(describeCalls(c)).toBe("404 calls to the platform, 99.0 % succeeded");
    // 97.99 % never shows as 98.0 %.
    expect(describeCalls({ calls: 10_000, succeeded: 9799 })).toBe(
      "10000 calls to the platform, 97.9 % succeeded",
    );
    expect(describeCalls({ calls: 0, succeeded: 0 })).toBe("no calls to the platform");
  });

  it("opens the breaker when 10 of the last 20 exchanges failed on the platform's side", () => {
    const t = new CallTally();
    for (let i = 0; i < 9; i++) t.record("menu", i % 2 ? 500 : 429);
    expect(t.refusal()).toBeUndefined();
    t.record("menu", 0);
    expect(t.refusal()).toMatch(
      /^the platform is failing: 10 of the last 10 calls .*10 calls to the platform, 0\.0 % succeeded/,
    );
  });

  it("stops a run whose calls fall below 98 % once 100 were made, and not before", () => {
    const t = new CallTally();
    // 3 failures spread out never open the breaker; under 100 calls the rate is not judged.
    for (let i = 0; i < 99; i++) t.record("menu", i % 33 === 0 ? 404 : 200);
    expect(t.refusal()).toBeUndefined();
    t.record("menu", 200);
    expect(t.refusal()).toBe(
      "the run's calls fell below the 98.0 % success rate the platform's terms ask of an integrator: " +
        "3 of 100 failed; carte stops calling the platform (docs/reliability.md). Run again later",
    );
  });

  it("keeps a healthy run going: 2 % failures in every stretch never stop it", () => {
    const t = new CallTally();
    for (let i = 0; i < 10_000; i++) {
      t.record("menu", i % 50 === 49 ? 503 : 200);
      expect(t.refusal()).toBeUndefined();
    }
  });

  it("only counts when the guard is off", () => {
    const t = new CallTally(false);
    for (let i = 0; i < 200; i++) t.record("menu", 500);
    expect(t.refusal()).toBeUndefined();
    expect(describeCalls(t.counts())).toBe("200 calls to the platform, 0.0 % succeeded");
  });
});

describe("PlatformClient's success rate", () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await new Promise((r) => server?.close(r));
    server = undefined;
  });

  /** Logins answer; every other call answers the next status of `script` (then 200). */
  const serve = async (script: number[]): Promise<{ url: string; served: () => number }> => {
    let served = 0;
    server = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.url?.includes("/token/login/")) {
        res.end(JSON.stringify({ access_token: "t", token_type: "Bearer", expires_in: 3600 }));
        return;
      }
      served++;
      res.statusCode = script.shift() ?? 200;
      res.end(res.statusCode === 200 ? "[]" : JSON.stringify({ message: "Service unavailable" }));
    });
    await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, served: () => served };
  };
  const client = (baseUrl: string, extra: Partial<ConstructorParameters<typeof PlatformClient>[0]> = {}) =>
    new PlatformClient({
      baseUrl,
      clientId: "c1",
      clientSecret: SECRET,
      baseDelayMs: 1,
      maxDelayMs: 2,
      requestsPerSecond: Infinity,
      ...extra,
    });

  it("stops calling a failing platform after the breaker's bound, saying how many calls failed", async () => {
    const p = await serve(Array.from({ length: 1000 }, () => 503));
    const c = client(p.url);
    try {
      const errors: unknown[] = [];
      for (let i = 0; i < 20; i++)
        errors.push(await c.request(ITEMS, { storeId: "1" }).catch((e: unknown) => e));
      // 5 attempts for each of the first two calls: the tenth failure opens the breaker.
      expect(p.served()).toBe(10);
      const last = errors.at(-1);
      expect(last).toBeInstanceOf(PlatformFailingError);
      expect(last).toBeInstanceOf(ApiError);
      expect(String((last as Error).message)).toContain(
        "the platform is failing: 10 of the last 11 calls were answered 429, 500, 502, 503 or 504, or not at all",
      );
      expect(describeCalls(c.calls.counts())).toBe("11 calls to the platform, 9.0 % succeeded");
    } finally {
      await c.close();
    }
  });

  it("never stops a healthy platform, and counts its calls", async () => {
    const p = await serve([503]);
    const c = client(p.url);
    try {
      for (let i = 0; i < 150; i++) await c.request(ITEMS, { storeId: "1" });
      expect(p.served()).toBe(151);
      expect(describeCalls(c.calls.counts())).toBe("152 calls to the platform, 99.3 % succeeded");
      expect(c.calls.counts().byGroup.get("menu")).toEqual({ calls: 151, succeeded: 150 });
    } finally {
      await c.close();
    }
  });

  it("retries on when the guard is off (fault-injection runs)", async () => {
    const p = await serve(Array.from({ length: 30 }, () => 503));
    const c = client(p.url, { successGuard: false });
    try {
      for (let i = 0; i < 6; i++) await c.request(ITEMS, { storeId: "1" }).catch(() => undefined);
      expect(p.served()).toBe(30);
    } finally {
      await c.close();
    }
  });
});
