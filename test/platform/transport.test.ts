import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors.js";
import { PlatformClient, type ClientOptions, type RetryInfo } from "../../src/platform/client.js";
import {
  AdaptiveRateLimiter,
  ByteBudget,
  backoffDelay,
  classifyTransportError,
  isIdempotentMethod,
  isRetryableStatus,
  isRetryableTransportError,
  formatBytes,
  parseRetryAfter,
  readCapped,
  bodyText,
} from "../../src/platform/transport.js";

// ------------------------------------------------------------------ a scripted platform on port 0

/** What the server does with one (non-login) request. */
type Step =
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | { reset: true }
  | { delayMs: number; status: number; body?: unknown };

interface Recorded {
  method: string;
  path: string;
  body: string;
  token: string | undefined;
}

const TOKEN_PREFIX = "tok-very-secret-";
const SECRET = "client-secret-never-shown-42";

interface Scripted {
  url: string;
  port: number;
  /** Non-login requests, in arrival order. */
  calls: Recorded[];
  logins: number;
  /**
   * Answers for the next non-login requests; when empty, 200 with a body of the route's shape: `[]` for
   * a GET (a list), the accepted-write message otherwise.
   */
  steps: Step[];
  /** Answers for the next logins; when empty, a fresh token. */
  loginSteps: Step[];
  /** Ask the client to close each connection after the answer (no keep-alive reuse). */
  closeConnections: boolean;
  close(): Promise<void>;
  listen(port?: number): Promise<void>;
}

const servers: Scripted[] = [];
const clients: PlatformClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function scripted(): Promise<Scripted> {
  let server: Server | undefined;
  const timers = new Set<NodeJS.Timeout>();
  const s: Scripted = {
    url: "",
    port: 0,
    calls: [],
    logins: 0,
    steps: [],
    loginSteps: [],
    closeConnections: false,
    async close() {
      for (const t of timers) clearTimeout(t);
      if (!server) return;
      const srv = server;
      server = undefined;
      srv.closeAllConnections();
      await new Promise<void>((r) => srv.close(() => r()));
    },
    async listen(port = 0) {
      const srv = createServer((req, res) => void handle(req, res));
      server = srv;
      await new Promise<void>((r) => srv.listen(port, "127.0.0.1", r));
      s.port = (srv.address() as AddressInfo).port;
      s.url = `http://127.0.0.1:${s.port}`;
    },
  };

  const answer = (res: ServerResponse, step: Step, fallback: () => unknown) => {
    if ("reset" in step) {
      res.socket?.destroy();
      return;
    }
    const send = () => {
      if (res.destroyed) return;
      res.writeHead(step.status, {
        "content-type": "application/json",
        ...(s.closeConnections ? { connection: "close" } : {}),
        ...("headers" in step ? step.headers : {}),
      });
      res.end(JSON.stringify(step.body ?? fallback()));
    };
    if ("delayMs" in step) {
      const t = setTimeout(() => {
        timers.delete(t);
        send();
      }, step.delayMs);
      timers.add(t);
    } else send();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    for await (const chunk of req) body += String(chunk);
    const path = req.url ?? "";
    if (path.includes("/token/login/")) {
      s.logins += 1;
      const n = s.logins;
      answer(res, s.loginSteps.shift() ?? { status: 200 }, () => ({
        access_token: `${TOKEN_PREFIX}${n}`,
        token_type: "Bearer",
        expires_in: 604800,
      }));
      return;
    }
    const auth = req.headers["x-authorization"];
    s.calls.push({
      method: req.method ?? "",
      path,
      body,
      token: typeof auth === "string" ? auth.replace(/^Bearer /, "") : undefined,
    });
    answer(res, s.steps.shift() ?? { status: 200 }, () => (req.method === "GET" ? [] : ACCEPTED));
  };

  await s.listen();
  servers.push(s);
  return s;
}

/** A fake clock that only moves when the client sleeps, and a record of every sleep. */
function fakeTime(start = 1_700_000_000_000) {
  const t = { now: start, sleeps: [] as number[], retries: [] as RetryInfo[] };
  return {
    t,
    opts: {
      now: () => t.now,
      sleep: async (ms: number) => {
        t.sleeps.push(ms);
        t.now += ms;
      },
      onRetry: (info: RetryInfo) => void t.retries.push(info),
      random: () => 0.5,
    } satisfies Partial<ClientOptions>,
  };
}

function makeClient(url: string, opts: Partial<ClientOptions>): PlatformClient {
  const c = new PlatformClient({
    baseUrl: url,
    clientId: "c1",
    clientSecret: SECRET,
    // No pacing unless a test asks for it, so that every recorded sleep is a retry delay.
    requestsPerSecond: Number.POSITIVE_INFINITY,
    ...opts,
  });
  clients.push(c);
  return c;
}

const PATH = "/restaurants/menu/v1/stores/100/items";

/** The answer of an accepted write (`Message`, docs/platform-api.md §4.10). */
const ACCEPTED = { message: "Your request has been accepted." };

/** An item of `GET /items` (`ItemList`, docs/platform-api.md §4.3): every block present. */
const ITEM_A = {
  id: 1,
  sku: "A",
  storeId: 100,
  last_updated: "2025-01-01T00:00:00Z",
  item_type: "ITEM",
  title_info: { title: "A", overrides: [] },
  description_info: { description: "", overrides: [] },
  images_info: { images: [], overrides: [] },
  items_info: { items: [], overrides: [] },
  price_info: { price: 10, overrides: [] },
  quantity_info: { min_permitted: null, max_permitted: null, modifiers_type: null, overrides: [] },
  suspension_info: { suspend_until: null, suspend_reason: null, is_available: true, overrides: [] },
  schedules_info: { schedules: [], overrides: [] },
};

// ------------------------------------------------------------------ retries through a real server

describe("PlatformClient retries", () => {
  it("retries a GET after 503, 503 and returns the 200, with exponential full-jitter delays", async () => {
    const srv = await scripted();
    const { t, opts } = fakeTime();
    srv.steps.push({ status: 503 }, { status: 503 }, { status: 200, body: [ITEM_A] });
    const client = makeClient(srv.url, opts);
    await expect(client.call("GET", PATH)).resolves.toEqual([ITEM_A]);
    expect(srv.calls).toHaveLength(3);
    // random() = 0.5: half of 200 ms, then half of 400 ms.
    expect(t.sleeps).toEqual([100, 200]);
    expect(t.retries).toEqual([
      { method: "GET", path: PATH, attempt: 1, status: 503, delayMs: 100, reason: "HTTP 503" },
      { method: "GET", path: PATH, attempt: 2, status: 503, delayMs: 200, reason: "HTTP 503" },
    ]);
  });

  it("retries a non-idempotent POST after 429 and honours Retry-After in seconds", async () => {
    const srv = await scripted();
    const { t, opts } = fakeTime();
    srv.steps.push({ status: 429, headers: { "retry-after": "1" }, body: { message: "Too many requests" } });
    const client = makeClient(srv.url, opts);
    await client.call("POST", PATH, [{ sku: "A" }], { idempotent: false });
    expect(srv.calls.map((c) => c.method)).toEqual(["POST", "POST"]);
    expect(srv.calls[1]?.body).toBe(JSON.stringify([{ sku: "A" }]));
    expect(t.sleeps).toEqual([1000]);
    expect(t.retries[0]).toMatchObject({ attempt: 1, status: 429, delayMs: 1000 });
  });

  it("honours Retry-After as an HTTP date on 503, capped by maxRetryAfterMs", async () => {
    const srv = await scripted();
    const { t, opts } = fakeTime();
    const inThreeSeconds = new Date(t.now + 3000).toUTCString();
    srv.steps.push(
      { status: 503, headers: { "retry-after": inThreeSeconds } },
      { status: 429, headers: { "retry-after": "3600" } },
    );
    const client = makeClient(srv.url, { ...opts, maxRetryAfterMs: 5000 });
    await client.call("GET", PATH);
    expect(t.sleeps).toEqual([3000, 5000]);
  });

  it("does not retry a non-idempotent POST after a reset, but retries it when marked idempotent", async () => {
    const srv = await scripted();
    const { t, opts } = fakeTime();
    const client = makeClient(srv.url, opts);

    srv.steps.push({ reset: true });
    const err = await client
      .call("POST", "/restaurants/menu/v1/stores/100/menu", [{}])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(0);
    expect(srv.calls).toHaveLength(1);
    expect(t.retries).toEqual([]);

    srv.steps.push({ reset: true });
    await client.call("POST", PATH, [{ sku: "A" }], { idempotent: true });
    expect(srv.calls).toHaveLength(3);
    expect(t.retries).toHaveLength(1);
    expect(t.retries[0]).toMatchObject({ method: "POST", status: 0, attempt: 1 });
  });

  it("retries GET, PUT and DELETE after a reset by default", async () => {
    const srv = await scripted();
    const { opts } = fakeTime();
    const client = makeClient(srv.url, opts);
    for (const method of ["GET", "PUT", "DELETE"]) {
      srv.steps.push({ reset: true });
      await client.call(method, PATH, method === "GET" ? undefined : [1]);
    }
    expect(srv.calls.map((c) => c.method)).toEqual(["GET", "GET", "PUT", "PUT", "DELETE", "DELETE"]);
  });

  it("retries a POST upsert of items (idempotent by SKU) after 502, not a menu create after 500", async () => {
    const srv = await scripted();
    const { opts } = fakeTime();
    const client = makeClient(srv.url, opts);
    srv.steps.push({ status: 502 });
    await client.request("POST /restaurants/menu/v1/stores/{storeId}/items", { storeId: "100" }, [
      { sku: "A", item_type: "ITEM", title_info: { title: "A" } },
    ]);
    expect(srv.calls).toHaveLength(2);

    srv.steps.push({ status: 500, body: { message: "boom" } });
    const err = await client
      .request("POST /restaurants/menu/v1/stores/{storeId}/menu", { storeId: "100" }, [
        { menu_type: "DEFAULT", categories: [] },
      ])
      .catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(500);
    expect(srv.calls).toHaveLength(3);
  });

  it("gives up after maxAttempts with an ApiError carrying the last status", async () => {
    const srv = await scripted();
    const { t, opts } = fakeTime();
    srv.steps.push(
      { status: 502 },
      { status: 504 },
      { status: 503, body: { message: "Service unavailable" } },
      { status: 200 },
    );
    const client = makeClient(srv.url, { ...opts, maxAttempts: 3 });
    const err = await client.call("GET", PATH).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(503);
    expect((err as ApiError).message).toContain("Service unavailable");
    expect(srv.calls).toHaveLength(3);
    expect(t.retries.map((r) => r.status)).toEqual([502, 504]);
  });

  it("caps the exponential backoff at maxDelayMs", async () => {
    const srv = await scripted();
    const { t, opts } = fakeTime();
    for (let i = 0; i < 5; i++) srv.steps.push({ status: 500 });
    const client = makeClient(srv.url, { ...opts, random: () => 0.999, maxAttempts: 6, maxDelayMs: 1000 });
    await client.call("GET", PATH);
    expect(t.sleeps).toEqual([200, 400, 799, 999, 999]);
  });

  it("retries an idempotent call that times out, and reports a non-idempotent one as timed out", async () => {
    const srv = await scripted();
    const { t, opts } = fakeTime();
    // undici's timers are coarse (about 1 s resolution), so the slow answers come much later still.
    const client = makeClient(srv.url, { ...opts, timeoutMs: 100 });

    srv.steps.push({ delayMs: 10_000, status: 200 }, { status: 200, body: [ITEM_A] });
    await expect(client.call("GET", PATH)).resolves.toEqual([ITEM_A]);
    expect(t.retries[0]).toMatchObject({ status: 0, reason: "timed out after 100 ms" });

    srv.steps.push({ delayMs: 10_000, status: 200 });
    const err = await client
      .call("POST", "/restaurants/menu/v1/stores/100/menu", [{}])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(0);
    expect((err as ApiError).message).toContain("timed out after 100 ms");
    expect(t.retries).toHaveLength(1);
    expect(srv.calls).toHaveLength(3);
  });

  it("retries a non-idempotent POST whose connection was refused (it never reached the server)", async () => {
    const srv = await scripted();
    const { t, opts } = fakeTime();
    srv.closeConnections = true; // no pooled socket to reuse: the next request must connect anew
    const port = srv.port;
    const client = makeClient(srv.url, {
      ...opts,
      // The platform comes back while the client waits.
      sleep: async (ms) => {
        t.sleeps.push(ms);
        await srv.listen(port);
      },
    });
    await client.token("integrations");
    await srv.close();
    await client.call("POST", "/restaurants/menu/v1/stores/100/menu", [{ menu_type: "DEFAULT" }]);
    expect(srv.calls).toHaveLength(1);
    expect(t.retries).toHaveLength(1);
    expect(t.retries[0]).toMatchObject({ status: 0, reason: "ECONNREFUSED" });
  });

  it("retries the token login (idempotent) when refused, then reports status 0", async () => {
    const srv = await scripted();
    const { t, opts } = fakeTime();
    await srv.close();
    const client = makeClient(srv.url, { ...opts, maxAttempts: 3 });
    const err = await client.call("GET", PATH).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(0);
    expect((err as ApiError).path).toContain("/token/login/integrations");
    expect(t.retries.map((r) => [r.method, r.attempt])).toEqual([
      ["POST", 1],
      ["POST", 2],
    ]);
  });

  it("retries a login answered 503 but not one answered 401", async () => {
    const srv = await scripted();
    const { opts } = fakeTime();
    const client = makeClient(srv.url, opts);
    srv.loginSteps.push({ status: 503 });
    await client.call("GET", PATH);
    expect(srv.logins).toBe(2);

    // The wait alone is under test: the success-rate breaker, which would stop these 429s sooner, is off.
    const other = makeClient(srv.url, { ...opts, successGuard: false });
    srv.loginSteps.push({ status: 401, body: { message: "bad credentials" } });
    const err = await other.call("GET", PATH).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(401);
    expect(srv.logins).toBe(3);
  });

  it("does not count waits the server asked for as attempts (429 and 503 with Retry-After)", async () => {
    const srv = await scripted();
    const { t, opts } = fakeTime();
    for (let i = 0; i < 4; i++) srv.steps.push({ status: 429, headers: { "retry-after": "1" } });
    srv.steps.push({ status: 503, headers: { "retry-after": "2" } }, { status: 500 }, { status: 200 });
    const client = makeClient(srv.url, { ...opts, maxAttempts: 2 });
    // Five asked waits, then the 500 is the first failed attempt of two (backoff: half of 200 ms).
    await expect(client.call("POST", PATH, [{ sku: "A" }], { idempotent: true })).resolves.toEqual(ACCEPTED);
    expect(srv.calls).toHaveLength(7);
    expect(t.sleeps).toEqual([1000, 1000, 1000, 1000, 2000, 100]);

    // Without Retry-After a 429 is an ordinary failed attempt.
    srv.steps.push({ status: 429 }, { status: 429 }, { status: 200 });
    const err = await client.call("GET", PATH).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(429);
  });

  it("stops waiting at the deadline and says so", async () => {
    const srv = await scripted();
    const { t, opts } = fakeTime();
    for (let i = 0; i < 50; i++) srv.steps.push({ status: 429, headers: { "retry-after": "1" } });
    const client = makeClient(srv.url, { ...opts, deadline: t.now + 3500 });
    const err = await client.call("GET", PATH).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(429);
    expect((err as ApiError).message).toContain("time limit of the run (--timeout) is reached");
    expect(t.sleeps).toEqual([1000, 1000, 1000]);
    expect(srv.calls).toHaveLength(4);

    // Without a deadline of the client, one call waits at most 15 minutes.
    srv.steps.length = 0;
    for (let i = 0; i < 2000; i++) srv.steps.push({ status: 429, headers: { "retry-after": "60" } });
    // The wait alone is under test: the success-rate breaker, which would stop these 429s sooner, is off.
    const other = makeClient(srv.url, { ...opts, successGuard: false });
    const start = t.now;
    const late = await other.call("GET", PATH).catch((e: unknown) => e);
    expect((late as ApiError).status).toBe(429);
    expect(t.now - start).toBeLessThanOrEqual(15 * 60_000);
    expect(t.now - start).toBeGreaterThanOrEqual(14 * 60_000);
  });

  it("takes the token after the rate limiter's wait, so that a long wait does not send an expired one", async () => {
    const srv = await scripted();
    const { opts } = fakeTime();
    let second: Promise<unknown> | undefined;
    const client = makeClient(srv.url, {
      ...opts,
      requestsPerSecond: 1000,
      onRetry: () => {
        // Starts while the first call waits for Retry-After: its slot comes after the pause.
        second ??= client.call("GET", PATH + "?second");
      },
    });
    // A token that must be renewed 10 s after it was issued (expires_in 20: renewal at half its life).
    srv.loginSteps.push({
      status: 200,
      body: { access_token: `${TOKEN_PREFIX}1`, token_type: "Bearer", expires_in: 20 },
    });
    await client.token("integrations");
    srv.steps.push({ status: 429, headers: { "retry-after": "15" } });
    await client.call("GET", PATH);
    await second;
    const later = srv.calls.find((c) => c.path.endsWith("?second"));
    expect(later?.token).toBe(`${TOKEN_PREFIX}2`);
    expect(srv.logins).toBe(2);
  });

  it("renews the token on a 401 again when its last renewal is more than a minute old", async () => {
    const srv = await scripted();
    const { opts } = fakeTime();
    const client = makeClient(srv.url, { ...opts, maxRetryAfterMs: 120_000 });
    srv.steps.push(
      { status: 401, body: { message: "Invalid token" } },
      { status: 429, headers: { "retry-after": "61" } },
      { status: 401, body: { message: "Invalid token" } },
      { status: 200, body: [ITEM_A] },
    );
    await expect(client.call("GET", PATH)).resolves.toEqual([ITEM_A]);
    expect(srv.logins).toBe(3);
    expect(srv.calls.map((c) => c.token)).toEqual([
      `${TOKEN_PREFIX}1`,
      `${TOKEN_PREFIX}2`,
      `${TOKEN_PREFIX}2`,
      `${TOKEN_PREFIX}3`,
    ]);
  });

  it("renews the token once on 401 and does not renew again on a later attempt", async () => {
    const srv = await scripted();
    const { opts } = fakeTime();
    const client = makeClient(srv.url, opts);
    srv.steps.push({ status: 401, body: { message: "Invalid token" } }, { status: 503 }, { status: 401 });
    const err = await client.call("GET", PATH).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(401);
    expect(srv.logins).toBe(2);
    expect(srv.calls.map((c) => c.token)).toEqual([
      `${TOKEN_PREFIX}1`,
      `${TOKEN_PREFIX}2`,
      `${TOKEN_PREFIX}2`,
    ]);
  });

  it("logs in once when many concurrent calls are refused with 401", async () => {
    const srv = await scripted();
    const { opts } = fakeTime();
    const client = makeClient(srv.url, opts);
    await client.token("integrations");
    for (let i = 0; i < 4; i++) srv.steps.push({ status: 401 });
    await Promise.all([1, 2, 3, 4].map(() => client.call("GET", PATH)));
    expect(srv.logins).toBe(2);
  });

  it("never shows the token or the secret in an error", async () => {
    const srv = await scripted();
    const { opts } = fakeTime();
    const client = makeClient(srv.url, { ...opts, maxAttempts: 1 });
    srv.steps.push({ status: 500, body: { message: `token ${TOKEN_PREFIX}1 and ${SECRET} rejected` } });
    const err = await client.call("GET", PATH).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    const shown = String(err) + JSON.stringify(err) + (err as ApiError).platformMessage;
    expect(shown).not.toContain(TOKEN_PREFIX);
    expect(shown).not.toContain(SECRET);
    expect(shown).toContain("[REDACTED]");
  });
});

// ------------------------------------------------------------------ adaptive rate limit

describe("adaptive rate limit", () => {
  it("halves the client's rate on 429 and lets it recover with successes", async () => {
    const srv = await scripted();
    const { t, opts } = fakeTime();
    const client = makeClient(srv.url, { ...opts, requestsPerSecond: 20 });
    await client.token("integrations");
    expect(client.rateLimiter.rate).toBe(20);

    srv.steps.push({ status: 429 });
    await client.call("GET", PATH);
    // One decrease (20 → 10), then the retry's success adds 1 / 10.
    expect(client.rateLimiter.rate).toBeCloseTo(10.1, 5);

    for (let i = 0; i < 20; i++) await client.call("GET", PATH);
    const recovering = client.rateLimiter.rate;
    expect(recovering).toBeGreaterThan(11);
    expect(recovering).toBeLessThan(20);

    for (let i = 0; i < 300; i++) await client.call("GET", PATH);
    expect(client.rateLimiter.rate).toBe(20);
    // Paced: 322 requests at ≤ 20 req/s took at least ~15 s of the (fake) clock.
    expect(t.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThan(15_000);
  });

  it("pauses every request of the client for a Retry-After", async () => {
    const srv = await scripted();
    // A clock that stands still, so that each recorded sleep is the wait the client computed.
    const sleeps: number[] = [];
    let second: Promise<unknown> | undefined;
    const client = makeClient(srv.url, {
      now: () => 1_700_000_000_000,
      sleep: async (ms) => void sleeps.push(ms),
      requestsPerSecond: 1000,
      // While the refused call waits, another call starts: it must wait for the pause as well.
      onRetry: () => {
        second ??= client.call("GET", PATH + "?second");
      },
    });
    await client.token("integrations");
    srv.steps.push({ status: 429, headers: { "retry-after": "2" } });
    await client.call("GET", PATH);
    await second;
    // The first call's retry delay (2000 ms), then two limiter waits: the pause, and one slot more at
    // the halved rate (500 req/s: 2 ms).
    expect(sleeps.sort((x, y) => x - y)).toEqual([2000, 2000, 2002]);
    expect(srv.calls).toHaveLength(3);
  });

  describe("AdaptiveRateLimiter", () => {
    function limiter(opts: Partial<ConstructorParameters<typeof AdaptiveRateLimiter>[0]> = {}) {
      const clock = { now: 0, waits: [] as number[] };
      const l = new AdaptiveRateLimiter({
        requestsPerSecond: 10,
        burst: 1,
        now: () => clock.now,
        sleep: async (ms) => void clock.waits.push(ms),
        ...opts,
      });
      return { l, clock };
    }

    it("spaces requests 1000 / rate ms apart after a burst", async () => {
      const { l, clock } = limiter({ burst: 3 });
      for (let i = 0; i < 6; i++) await l.acquire();
      expect(clock.waits).toEqual([100, 200, 300]);
    });

    it("decreases multiplicatively once per cooldown, down to the floor, and recovers additively", () => {
      const { l, clock } = limiter({ requestsPerSecond: 16, minRequestsPerSecond: 3 });
      l.onThrottled();
      l.onThrottled(); // same instant: an answer to a request sent at the old rate
      expect(l.rate).toBe(8);
      for (const _ of [1, 2, 3]) {
        clock.now += 1000;
        l.onThrottled();
      }
      expect(l.rate).toBe(3);
      l.onSuccess();
      expect(l.rate).toBeCloseTo(3 + 1 / 3, 10);
      for (let i = 0; i < 1000; i++) l.onSuccess();
      expect(l.rate).toBe(16);
    });

    it("holds requests during a pause and resumes without a burst", async () => {
      const { l, clock } = limiter({ burst: 5 });
      l.pauseFor(2000);
      await l.acquire();
      await l.acquire();
      expect(clock.waits).toEqual([2000, 2100]);
    });

    it("refuses at once, taking no slot, a wait that would pass the deadline, and says who paused", async () => {
      const { l, clock } = limiter({ burst: 1 });
      l.pauseFor(60_000, "GET /x was answered 429 with Retry-After: 99999999 s");
      await expect(l.acquire(30_000)).resolves.toBe(false);
      expect(clock.waits).toEqual([]);
      expect(l.pauseAt()?.reason).toBe("GET /x was answered 429 with Retry-After: 99999999 s");
      // The refused call took no slot: the next one gets the first after the pause.
      await expect(l.acquire(90_000)).resolves.toBe(true);
      expect(clock.waits).toEqual([60_000]);
      clock.now = 60_001;
      expect(l.pauseAt()).toBeUndefined();
    });

    it("rejects a rate that is not positive", () => {
      expect(() => new AdaptiveRateLimiter({ requestsPerSecond: 0 })).toThrow(RangeError);
    });
  });
});

// ------------------------------------------------------------------ size of an answer

describe("readCapped", () => {
  const KIB = 1024;
  /** `count` chunks of `size` bytes, recording how many were pulled and whether the source was closed. */
  function source(count: number, size: number) {
    const seen = { pulled: 0, closed: false };
    async function* chunks() {
      try {
        for (let i = 0; i < count; i++) {
          seen.pulled++;
          yield new Uint8Array(size).fill(0x61);
        }
      } finally {
        seen.closed = true;
      }
    }
    return { seen, chunks: chunks() };
  }

  it("returns the whole body when it fits, and gives the bytes back to the budget", async () => {
    const { chunks } = source(4, 16 * KIB);
    const budget = new ByteBudget(1024 * KIB);
    const read = await readCapped(chunks, 64 * KIB, budget);
    expect(read.ok && read.received).toBe(64 * KIB);
    expect(read.ok && read.chunks.reduce((n, c) => n + c.length, 0)).toBe(64 * KIB);
    expect(budget.used).toBe(0);
  });

  it("decodes a body read in chunks as one UTF-8 text, a character split between chunks included", () => {
    const whole = Buffer.from('{"title":"Piña colada – 12 €","emoji":"🍕"}', "utf8");
    // Cut inside the two-byte ñ, the three-byte € and the four-byte 🍕.
    const cuts = [whole.indexOf(0xc3) + 1, whole.indexOf(0xe2) + 2, whole.indexOf(0xf0) + 3];
    const chunks = [0, ...cuts].map((from, i) => whole.subarray(from, [...cuts, whole.length][i]));
    expect(bodyText(chunks)).toBe(whole.toString("utf8"));
    expect(JSON.parse(bodyText(chunks))).toEqual({ title: "Piña colada – 12 €", emoji: "🍕" });
    expect(bodyText([])).toBe("");
  });

  it("stops at the chunk that would pass the cap, keeping at most the cap, and closes the source", async () => {
    const { seen, chunks } = source(Number.MAX_SAFE_INTEGER, 16 * KIB);
    const read = await readCapped(chunks, 100 * KIB);
    expect(read).toEqual({ ok: false, over: "route", received: 96 * KIB });
    // Six chunks kept (96 KiB), the seventh pulled and dropped: the cap plus one chunk at most was read.
    expect(seen.pulled).toBe(7);
    expect(seen.closed).toBe(true);
  });

  it("stops when the client's budget is spent by other answers", async () => {
    const budget = new ByteBudget(64 * KIB);
    expect(budget.take(40 * KIB)).toBe(true);
    const { seen, chunks } = source(Number.MAX_SAFE_INTEGER, 16 * KIB);
    const read = await readCapped(chunks, 1024 * KIB, budget);
    expect(read).toEqual({ ok: false, over: "client", received: 16 * KIB });
    expect(seen.closed).toBe(true);
    expect(budget.used).toBe(40 * KIB);
  });

  it("names sizes for messages", () => {
    expect(formatBytes(16 * 1024 * KIB)).toBe("16 MiB");
    expect(formatBytes(1536 * KIB)).toBe("1.5 MiB");
    expect(formatBytes(990 * KIB)).toBe("990 KiB");
    expect(formatBytes(0)).toBe("0 bytes");
  });
});

// ------------------------------------------------------------------ pure rules

describe("retry rules", () => {
  it("parses Retry-After seconds and HTTP dates", () => {
    const now = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT");
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:28:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:27:00 GMT", now)).toBe(0);
    expect(parseRetryAfter(["5", "7"], now)).toBe(5000);
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter("-1", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
  });

  it("draws full-jitter backoff in [0, min(cap, base · 2^(n-1))]", () => {
    const p = { baseDelayMs: 200, maxDelayMs: 10_000 };
    expect(backoffDelay(1, p, () => 0)).toBe(0);
    expect(backoffDelay(1, p, () => 1)).toBe(200);
    expect(backoffDelay(4, p, () => 1)).toBe(1600);
    expect(backoffDelay(10, p, () => 1)).toBe(10_000);
  });

  it("retries statuses by idempotency", () => {
    for (const s of [500, 502, 503, 504, 429]) expect(isRetryableStatus(s, true)).toBe(true);
    expect([500, 502, 503, 504, 429].filter((s) => isRetryableStatus(s, false))).toEqual([503, 429]);
    for (const s of [400, 401, 404, 409, 422]) expect(isRetryableStatus(s, true)).toBe(false);
    expect(["GET", "put", "DELETE"].every(isIdempotentMethod)).toBe(true);
    expect(isIdempotentMethod("POST")).toBe(false);
  });

  it("classifies transport errors, looking through causes", () => {
    const refused = classifyTransportError(Object.assign(new Error("x"), { code: "ECONNREFUSED" }));
    expect(isRetryableTransportError(refused, false)).toBe(true);
    const reset = classifyTransportError(new Error("fetch failed", { cause: { code: "ECONNRESET" } }));
    expect(isRetryableTransportError(reset, false)).toBe(false);
    expect(isRetryableTransportError(reset, true)).toBe(true);
    const timeout = classifyTransportError({ code: "UND_ERR_HEADERS_TIMEOUT" });
    expect(timeout.timeout).toBe(true);
    expect(isRetryableTransportError(classifyTransportError(new Error("?")), true)).toBe(false);
  });
});
