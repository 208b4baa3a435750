import { afterEach, describe, expect, it } from "vitest";

import { emulatorFaults } from "../../src/cli/commands.js";
import type { EmulatorCommand } from "../../src/cli/commands.js";
import { FaultInjector } from "../../src/emulator/faults.js";
import { startEmulator } from "../../src/emulator/index.js";
import type { FaultOptions, RunningEmulator } from "../../src/emulator/index.js";
import { UsageError } from "../../src/errors.js";
import { MENU, SEED, call, item, login } from "./helpers.js";

const open: RunningEmulator[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

async function emulator(faults?: FaultOptions): Promise<RunningEmulator> {
  const emu = await startEmulator({ seed: SEED, applyDelayMs: 20, ...(faults ? { faults } : {}) });
  open.push(emu);
  return emu;
}

/** Status of a call, or "drop" when the connection was closed without an answer. */
async function status(emu: RunningEmulator, path: string, token?: string): Promise<number | "drop"> {
  try {
    const res = await fetch(emu.url + path, {
      headers: token === undefined ? {} : { "x-authorization": `Bearer ${token}` },
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return "drop";
  }
}

/** The statuses of a fixed sequence of calls (the login included), one after the other. */
async function sequence(emu: RunningEmulator): Promise<(number | string)[]> {
  const out: (number | string)[] = [];
  let token: string | undefined;
  for (let i = 0; i < 10 && token === undefined; i++) {
    try {
      token = await login(emu);
      out.push(200);
    } catch {
      out.push("fail");
    }
  }
  for (let i = 0; i < 40; i++) out.push(await status(emu, `${MENU()}/items`, token));
  return out;
}

describe("emulator: faults", () => {
  it("gives the same sequence of faults for the same faultSeed", async () => {
    const faults: FaultOptions = { faultRate: 0.5, faultSeed: 42 };
    const a = await sequence(await emulator(faults));
    const b = await sequence(await emulator(faults));
    const c = await sequence(await emulator({ ...faults, faultSeed: 43 }));
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
    const kinds = new Set(a);
    expect(kinds.has(200)).toBe(true);
    expect([500, 502, 503, "drop"].filter((k) => kinds.has(k as number)).length).toBeGreaterThanOrEqual(3);
  });

  it("records faulted requests and never lets them reach the handler", async () => {
    const emu = await emulator();
    const token = await login(emu);
    emu.setFaults({ faultRate: 1, faultKinds: ["503"] });
    const r = await call(emu, "POST", `${MENU()}/items`, { token, body: [item("CHEESE")] });
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ message: "Service unavailable" });
    emu.setFaults(undefined);
    await emu.idle();
    expect((await call(emu, "GET", `${MENU()}/items`, { token })).body).toEqual([]);
    expect(emu.requests.find((x) => x.status === 503)).toMatchObject({ method: "POST", fault: "503" });
  });

  it("answers 429 with Retry-After beyond the rate limit, per client", async () => {
    const emu = await emulator({ rateLimit: 3 });
    const token = await login(emu); // login counts against the caller's address, not the token
    const results = [];
    for (let i = 0; i < 8; i++) results.push(await call(emu, "GET", `${MENU()}/items`, { token }));
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(3);
    expect(results.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited[0]!.body).toEqual({ message: "Too many requests" });
    // Another client has its own budget.
    const other = await login(emu, "other");
    expect(
      (await call(emu, "GET", "/restaurants/menu/v1/stores/800001/items", { token: other })).status,
    ).toBe(200);
    // After Retry-After the budget is back.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await call(emu, "GET", `${MENU()}/items`, { token })).status).toBe(200);
  });

  it("changes faults at run time through the control API, and never faults the control API", async () => {
    const emu = await emulator();
    const token = await login(emu);
    expect((await call(emu, "GET", "/__emulator/faults")).body).toEqual({});
    const put = await call(emu, "PUT", "/__emulator/faults", { body: { faultRate: 1, faultKinds: ["502"] } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ faultRate: 1, faultKinds: ["502"] });
    expect((await call(emu, "GET", `${MENU()}/items`, { token })).status).toBe(502);
    for (let i = 0; i < 5; i++) {
      expect((await call(emu, "GET", "/__emulator/requests")).status).toBe(200);
      expect((await call(emu, "GET", "/__emulator/faults")).status).toBe(200);
    }
    for (const bad of [
      { faultRate: 2 },
      { latencyMs: -1 },
      { faultKinds: ["418"] },
      { nope: 1 },
      [],
      { routes: [{}] },
    ]) {
      const r = await call(emu, "PUT", "/__emulator/faults", { body: bad });
      expect(r.status).toBe(400);
      expect(r.body).toHaveProperty("message");
    }
    await call(emu, "PUT", "/__emulator/faults", { body: {} });
    expect((await call(emu, "GET", `${MENU()}/items`, { token })).status).toBe(200);
  });

  it("applies per-route rules, spares logins when asked, and adds latency", async () => {
    const emu = await emulator({
      includeLogin: false,
      faultRate: 1,
      faultKinds: ["500"],
      routes: [{ prefix: "/restaurants/finance/", faultRate: 0, latencyMs: 120 }],
    });
    const token = await login(emu);
    expect((await call(emu, "GET", `${MENU()}/items`, { token })).status).toBe(500);
    const t0 = Date.now();
    expect((await call(emu, "GET", "/restaurants/finance/v1/stores/900123/payments", { token })).status).toBe(
      200,
    );
    expect(Date.now() - t0).toBeGreaterThanOrEqual(115);
  });

  it("processes a slow request but answers after the client's timeout", async () => {
    const emu = await emulator({ routes: [{ prefix: MENU(), method: "POST", slowMs: 600 }] });
    const token = await login(emu);
    await expect(
      fetch(`${emu.url}${MENU()}/items`, {
        method: "POST",
        headers: { "x-authorization": `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify([item("CHEESE")]),
        signal: AbortSignal.timeout(150),
      }),
    ).rejects.toThrow();
    await emu.idle();
    const items = (await call(emu, "GET", `${MENU()}/items`, { token })).body as { sku: string }[];
    expect(items.map((i) => i.sku)).toEqual(["CHEESE"]); // the write happened
  });

  it("loses the answer of a processed write: the connection drops, or the answer is withheld", async () => {
    const emu = await emulator({
      includeLogin: false,
      routes: [{ prefix: MENU(), method: "POST", faultRate: 1, faultKinds: ["lost"] }],
    });
    const token = await login(emu);
    const post = (sku: string, timeoutMs = 5000) =>
      fetch(`${emu.url}${MENU()}/items`, {
        method: "POST",
        headers: { "x-authorization": `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify([item(sku)]),
        signal: AbortSignal.timeout(timeoutMs),
      });
    await expect(post("CHEESE")).rejects.toThrow();
    emu.setFaults({
      includeLogin: false,
      routes: [{ prefix: MENU(), method: "POST", faultRate: 1, faultKinds: ["hold"], holdMs: 60_000 }],
    });
    const t0 = Date.now();
    await expect(post("BACON", 300)).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(5000);
    await emu.idle();
    const items = (await call(emu, "GET", `${MENU()}/items`, { token })).body as { sku: string }[];
    // Both writes happened, and the emulator recorded them as processed with a lost answer.
    expect(items.map((i) => i.sku).sort()).toEqual(["BACON", "CHEESE"]);
    const posts = emu.requests.filter((r) => r.method === "POST" && r.path.endsWith("/items"));
    expect(posts.map((r) => [r.status, r.fault])).toEqual([
      [200, "lost"],
      [200, "hold"],
    ]);
  });

  it("holds the asynchronous writes of a request pending longer, in order within the store", async () => {
    const emu = await emulator({
      includeLogin: false,
      routes: [{ prefix: MENU(), method: "POST", pendingMs: 700 }],
    });
    const token = await login(emu);
    const skus = async () =>
      ((await call(emu, "GET", `${MENU()}/items`, { token })).body as { sku: string }[]).map((i) => i.sku);
    const t0 = Date.now();
    expect((await call(emu, "POST", `${MENU()}/items`, { token, body: [item("CHEESE")] })).status).toBe(200);
    // A later write (not held) of the same store waits behind the held one.
    emu.setFaults(undefined);
    expect((await call(emu, "POST", `${MENU()}/items`, { token, body: [item("BACON")] })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 250));
    expect(await skus()).toEqual([]);
    await emu.idle();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(650);
    expect((await skus()).sort()).toEqual(["BACON", "CHEESE"]);
  });

  it("decides deterministically without a server", () => {
    const run = (): string[] => {
      const f = new FaultInjector({
        faultRate: 0.3,
        latencyMs: 5,
        jitterMs: 10,
        slowMs: 50,
        slowRate: 0.2,
        faultSeed: 7,
      });
      return Array.from({ length: 50 }, (_, i) => {
        const d = f.decide("GET", "/x", "k", false, 1000 + i);
        return `${d.kind}:${d.delayMs}:${d.slowMs}`;
      });
    };
    expect(run()).toEqual(run());
    expect(() => new FaultInjector({ faultRate: -1 })).toThrow();
  });

  it("builds fault settings from the CLI flags", () => {
    const base: EmulatorCommand = {
      host: "127.0.0.1",
      port: 0,
      seed: undefined,
      state: undefined,
      applyDelayMs: 200,
      verbose: false,
      latencyMs: 0,
      jitterMs: 0,
      faultRate: 0,
      rateLimit: 0,
      slowMs: 0,
      slowRate: 1,
      faultSeed: 1,
    };
    expect(emulatorFaults(base)).toBeUndefined();
    expect(emulatorFaults({ ...base, latencyMs: 50, faultRate: 0.1, rateLimit: 20, faultSeed: 9 })).toEqual({
      faultSeed: 9,
      latencyMs: 50,
      faultRate: 0.1,
      rateLimit: 20,
    });
    expect(() => emulatorFaults({ ...base, faultRate: 1.5 })).toThrow(UsageError);
    expect(() => emulatorFaults({ ...base, latencyMs: Number.NaN })).toThrow(UsageError);
  });
});
