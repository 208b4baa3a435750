/**
 * A hostile platform (docs/platform-api.md "Bounds of an answer"): answers that trickle in a byte a
 * second, never end, ask for a wait of three years, or never come. Each is served by a small node:http
 * server on 127.0.0.1 and met by carte's client, then by `carte plan` (in-process, and once as a child
 * process for its peak memory). Every case must fail within the time limit plus a small margin, with an
 * error naming the call and what happened, leave no connection open behind it, and hold no more of an
 * answer than its cap.
 */

import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors.js";
import { PlatformClient } from "../../src/platform/client.js";
import { STORE_MENU_ANSWER_BYTES } from "../../src/platform/routes.js";
import { CLIENT_ID, CLIENT_SECRET, carte, copyExample, edit, repoRoot } from "../helpers/project.js";

const MIB = 1024 * 1024;
const MENU = "GET /restaurants/menu/v1/stores/{storeId}/store-menu" as const;
const isMenu = (req: IncomingMessage) => (req.url ?? "").endsWith("/store-menu");

/** How the hostile platform answers a call other than a login. */
type Hostile = (req: IncomingMessage, res: ServerResponse, platform: HostilePlatform) => void;

interface HostilePlatform {
  url: string;
  /** Calls other than logins received so far. */
  calls: number;
  /** Bytes written into answers, per request path. */
  written: Map<string, number>;
  /** Runs `fn` every `ms` for as long as the answer's connection lives (and the server runs). */
  every(res: ServerResponse, ms: number, fn: () => void): void;
  /** Connections open now. */
  connections(): Promise<number>;
  close(): Promise<void>;
}

/** Registers what to undo when the test ends (vitest's `onTestFinished` of the test's own context). */
type Finally = (fn: () => void | Promise<void>) => void;

/**
 * A platform on 127.0.0.1 port 0 whose logins work and whose every other answer is `hostile`'s. It
 * stops by itself: every timer it starts ends with its answer's connection or with the server, and a
 * last timer (unref'd) closes it after 30 s whatever the test does.
 */
async function hostilePlatform(hostile: Hostile, onFinished: Finally): Promise<HostilePlatform> {
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    req.resume();
    if ((req.url ?? "").includes("/token/login/")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ access_token: "hostile-token-0123", token_type: "Bearer", expires_in: 3600 }));
      return;
    }
    platform.calls += 1;
    hostile(req, res, platform);
  });
  const stop = setTimeout(() => void platform.close(), 30_000).unref();
  let closed: Promise<void> | undefined;
  const platform: HostilePlatform = {
    url: "",
    calls: 0,
    written: new Map(),
    every(res, ms, fn) {
      const t = setInterval(fn, ms);
      timers.add(t);
      res.on("close", () => {
        clearInterval(t);
        timers.delete(t);
      });
    },
    connections: () =>
      new Promise((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n)))),
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        clearTimeout(stop);
        for (const t of timers) clearInterval(t);
        server.closeAllConnections();
        server.close(() => resolve());
      })),
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  platform.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  onFinished(() => platform.close());
  return platform;
}

/** (a) 200, then one byte a second, forever. */
const trickle: Hostile = (_req, res, platform) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.write("[");
  platform.every(res, 1000, () => res.write(" "));
};

/** (b) 200 and a body without end (64 KiB chunks, as fast as the client reads), counted per path. */
const endless: Hostile = (req, res, platform) => {
  res.writeHead(200, { "content-type": "application/json" });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const key = req.url ?? "";
  const pump = () => {
    while (!res.destroyed) {
      platform.written.set(key, (platform.written.get(key) ?? 0) + chunk.length);
      if (!res.write(chunk)) {
        res.once("drain", pump);
        return;
      }
    }
  };
  pump();
};

/** (c) 429 with a wait of 99,999,999 seconds. */
const threeYears: Hostile = (_req, res) => {
  res.writeHead(429, { "content-type": "application/json", "retry-after": "99999999" });
  res.end(JSON.stringify({ message: "Too many requests" }));
};

/** (d) Never a status line. */
const stall: Hostile = () => undefined;

/** The store catalogs answer endlessly; every other call stalls (so the catalogs' cap is what ends it). */
const endlessMenus: Hostile = (req, res, platform) => {
  if (isMenu(req)) endless(req, res, platform);
};

function client(
  platform: HostilePlatform,
  extra: Partial<ConstructorParameters<typeof PlatformClient>[0]> = {},
) {
  return new PlatformClient({
    baseUrl: platform.url,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    requestsPerSecond: Number.POSITIVE_INFINITY,
    ...extra,
  });
}

/** The error a promise rejects with, and how long it took, in ms. */
async function failure(p: Promise<unknown>): Promise<{ error: ApiError; ms: number }> {
  const start = Date.now();
  const error = await p.then(
    () => new Error("the call succeeded"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return { error: error as ApiError, ms: Date.now() - start };
}

/** Waits until the platform holds no connection (the client let go of every answer), up to 2 s. */
async function noConnectionsLeft(platform: HostilePlatform): Promise<number> {
  for (let i = 0; i < 40; i++) {
    const n = await platform.connections();
    if (n === 0) return 0;
    await new Promise((r) => setTimeout(r, 50));
  }
  return platform.connections();
}

/** A copy of the example chain whose carte.yaml points at `platform`. */
function projectAt(platform: HostilePlatform, onFinished: Finally): string {
  const dir = copyExample();
  onFinished(() => rmSync(dir, { recursive: true, force: true }));
  const config = path.join(dir, "carte.yaml");
  edit(config, /^version: 1$/m, `version: 1\nplatform:\n  base_url: ${platform.url}`);
  return config;
}

/** `carte plan` in-process with `--timeout`, its result and how long it took. */
async function plan(config: string, timeout: string) {
  const start = Date.now();
  const run = await carte(["plan", "-c", config, "--timeout", timeout, "--quiet"]);
  return { ...run, ms: Date.now() - start };
}

/** The run's time limit in the time-bound cases, and the margin a run may take past it. */
const TIMEOUT_MS = 2000;
const MARGIN_MS = 3000;

/**
 * What a run cut short by `--timeout` ends with: the call (any read: the first to fail is reported,
 * and a read the reader makes again store by store may be the one refused) and that the time ran out.
 */
const RAN_OUT =
  /(GET|POST) \/\S+ failed \(no response\): (not sent: )?the time limit of the run \(--timeout\) is reached/;

// Cases that wait on time run together, the client's apart from the CLI's; those that move bytes run
// one by one after them.
describe.concurrent("time: no call outlasts its deadline", () => {
  it("ends an answer that trickles in at the call's deadline, whatever the idle timeout", async ({
    onTestFinished,
  }) => {
    const platform = await hostilePlatform(trickle, onTestFinished);
    const c = client(platform, { deadline: Date.now() + 1500 });
    const { error, ms } = await failure(c.request(MENU, { storeId: "900101" }));
    await c.close();
    expect(ms).toBeLessThan(1500 + 1000);
    expect(error.message).toContain("GET /restaurants/menu/v1/stores/900101/store-menu failed");
    expect(error.message).toContain(
      "the time limit of the run (--timeout) is reached while waiting for the response body",
    );
    expect(await noConnectionsLeft(platform)).toBe(0);
  });

  it("ends a call that never gets its headers at the deadline", async ({ onTestFinished }) => {
    const platform = await hostilePlatform(stall, onTestFinished);
    const c = client(platform, { deadline: Date.now() + 1000 });
    const { error, ms } = await failure(c.request(MENU, { storeId: "900101" }));
    await c.close();
    expect(ms).toBeLessThan(1000 + 3000);
    expect(error.message).toContain("while waiting for the response headers");
  });

  it("fails at once, naming the Retry-After, when the asked wait would pass the deadline", async ({
    onTestFinished,
  }) => {
    const platform = await hostilePlatform(threeYears, onTestFinished);
    const c = client(platform, { deadline: Date.now() + 20_000 });
    const { error, ms } = await failure(c.request(MENU, { storeId: "900101" }));
    // Far under the 20 s left: the three years asked are never waited (a loaded machine takes a second to answer).
    expect(ms).toBeLessThan(10_000);
    expect(error.status).toBe(429);
    expect(error.message).toContain("GET /restaurants/menu/v1/stores/900101/store-menu failed (HTTP 429)");
    expect(error.message).toContain("Retry-After: 99999999 s");
    expect(error.message).toContain("the time limit of the run (--timeout) is reached in");

    // The pause the 429 put on the client (60 s at most) holds the next call past the deadline: it is
    // not sent, and says why, at once.
    const next = await failure(c.request(MENU, { storeId: "900102" }));
    await c.close();
    expect(next.ms).toBeLessThan(1000);
    expect(next.error.message).toContain(
      "GET /restaurants/menu/v1/stores/900102/store-menu failed (no response): not sent",
    );
    expect(next.error.message).toContain(
      "before the client may send again (GET /restaurants/menu/v1/stores/900101/store-menu was answered 429 with Retry-After: 99999999 s)",
    );
  });

  it("ends the calls in flight when it is closed, so that nothing keeps the process up", async ({
    onTestFinished,
  }) => {
    const platform = await hostilePlatform(trickle, onTestFinished);
    const c = client(platform);
    const pending = failure(c.request(MENU, { storeId: "900101" }));
    while (platform.calls === 0) await new Promise((r) => setTimeout(r, 20));
    await c.close();
    const { error, ms } = await pending;
    expect(ms).toBeLessThan(2000);
    expect(error.message).toContain("the client was closed");
    expect(await noConnectionsLeft(platform)).toBe(0);
  });
});

// The runs load the project in the test's own process: their CPU would delay the client's timers above.
describe.concurrent("time: no run outlasts --timeout", () => {
  it("(a) an answer trickling in a byte a second ends the run at --timeout", async ({ onTestFinished }) => {
    const platform = await hostilePlatform(trickle, onTestFinished);
    const run = await plan(projectAt(platform, onTestFinished), "2s");
    expect(run.code).toBe(1);
    expect(run.ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    expect(run.err).toMatch(RAN_OUT);
    expect(await noConnectionsLeft(platform)).toBe(0);
  });

  it("(d) a platform that never answers ends the run at --timeout", async ({ onTestFinished }) => {
    const platform = await hostilePlatform(stall, onTestFinished);
    const run = await plan(projectAt(platform, onTestFinished), "2s");
    expect(run.code).toBe(1);
    expect(run.ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    expect(run.err).toMatch(RAN_OUT);
    expect(await noConnectionsLeft(platform)).toBe(0);
  });

  it("(c) Retry-After: 99999999 fails the run at once, naming the call and the wait", async ({
    onTestFinished,
  }) => {
    const platform = await hostilePlatform(threeYears, onTestFinished);
    const run = await plan(projectAt(platform, onTestFinished), "20s");
    expect(run.code).toBe(1);
    // Far under the 20 s: nothing waits for the three years asked.
    expect(run.ms).toBeLessThan(10_000);
    expect(run.err).toMatch(/(GET|POST) \/\S+ failed \((HTTP 429|no response)\)/);
    expect(run.err).toContain("Retry-After: 99999999 s");
  });
});

describe("size: no answer is held past its cap", () => {
  it("stops reading an endless answer at its route's cap and says which route, store and cap", async ({
    onTestFinished,
  }) => {
    const platform = await hostilePlatform(endless, onTestFinished);
    const c = client(platform);
    const { error } = await failure(c.request(MENU, { storeId: "900101" }));
    await c.close();
    expect(error.status).toBe(0);
    expect(error.message).toMatch(
      /GET \/restaurants\/menu\/v1\/stores\/900101\/store-menu failed .*the answer for store 900101 \(HTTP 200\) is larger than 16 MiB, the most carte reads from GET \/restaurants\/menu\/v1\/stores\/\{storeId\}\/store-menu/,
    );
    expect(await noConnectionsLeft(platform)).toBe(0);
    // The server wrote the cap, what the sockets of both ends buffer, and no more: the read stopped.
    const written = platform.written.get("/restaurants/menu/v1/stores/900101/store-menu") ?? 0;
    expect(written).toBeGreaterThan(STORE_MENU_ANSWER_BYTES);
    expect(written).toBeLessThan(STORE_MENU_ANSWER_BYTES + 32 * MIB);
  });

  it("refuses an answer whose content-length passes the cap before reading it", async ({
    onTestFinished,
  }) => {
    const platform = await hostilePlatform((_req, res) => {
      // Declares 20 MiB and sends nothing: the refusal cannot wait for the body.
      res.writeHead(200, { "content-type": "application/json", "content-length": String(20 * MIB) });
      res.flushHeaders();
    }, onTestFinished);
    const c = client(platform, { deadline: Date.now() + 10_000 });
    const { error, ms } = await failure(c.request(MENU, { storeId: "900102" }));
    await c.close();
    expect(ms).toBeLessThan(2000);
    expect(error.message).toContain("is larger than 16 MiB");
    expect(error.message).toContain("reading stopped after 0 bytes");
  });

  it("bounds the answers being received at once, all calls together", async ({ onTestFinished }) => {
    const platform = await hostilePlatform(endless, onTestFinished);
    const c = client(platform, { maxBufferedBytes: 4 * MIB });
    const calls = ["900101", "900102", "900103"].map((storeId) => failure(c.request(MENU, { storeId })));
    const errors = (await Promise.all(calls)).map((f) => f.error.message);
    await c.close();
    expect(errors.some((m) => m.includes("the answers being received at once hold more than 4 MiB"))).toBe(
      true,
    );
    expect(errors.some((m) => m.includes("(fewer calls at once: --parallelism)"))).toBe(true);
  });

  it("(b) an endless answer to every store catalog keeps the CLI's peak memory far under 1 GB", async ({
    onTestFinished,
  }) => {
    const platform = await hostilePlatform(endlessMenus, onTestFinished);
    const config = projectAt(platform, onTestFinished);
    // The child reports its own peak resident set (KiB) as it exits.
    const report = `data:text/javascript,process.on("exit",()=>process.stderr.write("maxrss="+process.resourceUsage().maxRSS+"\\n"))`;
    const child = spawn(
      process.execPath,
      [
        "--import",
        report,
        path.join(repoRoot, "bin", "carte.js"),
        "plan",
        "-c",
        config,
        "--timeout",
        "20s",
        "--quiet",
      ],
      {
        env: { ...process.env, CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(1);
    expect(err).toMatch(
      /GET \/restaurants\/menu\/v1\/stores\/(\d+)\/store-menu failed \(no response\): the answer for store \1 \(HTTP 200\) is larger than 16 MiB/,
    );
    const kib = Number(/maxrss=(\d+)/.exec(err)?.[1]);
    expect(kib).toBeGreaterThan(0);
    expect(kib * 1024).toBeLessThan(512 * MIB);
  });
});
