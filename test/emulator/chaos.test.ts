/**
 * The chaos proxy (src/emulator/chaos.ts) in front of a plain HTTP server: what the server receives and
 * what the client gets for each way a connection breaks.
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startChaosProxy, type ChaosFaults, type ChaosProxy } from "../../src/emulator/chaos.js";

let server: Server | undefined;
let proxy: ChaosProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = proxy = undefined;
});

/** A server answering 200 with a 2 KB body, and the bodies it received whole. */
async function serve(): Promise<{ url: string; received: string[] }> {
  const received: string[] = [];
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      received.push(body);
      res.end(JSON.stringify({ ok: true, pad: "x".repeat(2000) }));
    });
    req.on("error", () => undefined);
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** One POST through the proxy (3 s timeout): the answer's text, or the error's name. */
async function post(url: string): Promise<{ text?: string; error?: string; ms: number }> {
  const started = Date.now();
  try {
    const res = await fetch(`${url}/items`, {
      method: "POST",
      body: JSON.stringify({ sku: "FRIES", pad: "y".repeat(4000) }),
      headers: { "content-type": "application/json", connection: "close" },
      signal: AbortSignal.timeout(3000),
    });
    return { text: await res.text(), ms: Date.now() - started };
  } catch (e) {
    return { error: (e as Error).name, ms: Date.now() - started };
  }
}

async function through(faults: Omit<ChaosFaults, "seed">) {
  const { url, received } = await serve();
  proxy = await startChaosProxy({ target: url, faults: { seed: 1, rate: 1, stallMs: 300, ...faults } });
  const got = await post(proxy.url);
  // Let the server finish with what reached it.
  await new Promise((r) => setTimeout(r, 50));
  return { got, received, events: proxy.events };
}

describe("the chaos proxy", () => {
  it("passes every byte when no fault is set", async () => {
    const { url, received } = await serve();
    proxy = await startChaosProxy({ target: url });
    const got = await post(proxy.url);
    expect(JSON.parse(got.text!)).toMatchObject({ ok: true });
    expect(received).toHaveLength(1);
    expect(proxy.events).toEqual([]);
  });

  it("breaks a request on its way in: the server never gets it whole, the client no answer", async () => {
    for (const kind of ["reset", "cut", "stall"] as const) {
      const { got, received, events } = await through({ kinds: [kind], where: "request" });
      expect(got.error, kind).toBeDefined();
      expect(received, kind).toEqual([]);
      expect(
        events.map((e) => [e.kind, e.where, e.method, e.path, e.write]),
        kind,
      ).toEqual([[kind, "request", "POST", "/items", true]]);
      await proxy!.close();
      await new Promise((r) => server!.close(r));
    }
  });

  it("breaks an answer: the server got the request whole, the client never gets the answer", async () => {
    for (const kind of ["reset", "cut", "stall"] as const) {
      const { got, received, events } = await through({ kinds: [kind], where: "answer" });
      expect(got.text, kind).toBeUndefined();
      expect(got.error, kind).toBeDefined();
      expect(
        received.map((b) => JSON.parse(b) as { sku: string }),
        kind,
      ).toMatchObject([{ sku: "FRIES" }]);
      expect(
        events.map((e) => [e.kind, e.where]),
        kind,
      ).toEqual([[kind, "answer"]]);
      await proxy!.close();
      await new Promise((r) => server!.close(r));
    }
  });

  it("delays every chunk of a slowed connection", async () => {
    const { got, received, events } = await through({ kinds: ["delay"], delayMs: [150, 150] });
    expect(JSON.parse(got.text!)).toMatchObject({ ok: true });
    expect(received).toHaveLength(1);
    // The request and the answer are each held 150 ms.
    expect(got.ms).toBeGreaterThanOrEqual(290);
    expect(events.map((e) => [e.kind, e.where])).toEqual([["delay", "both"]]);
  });

  it("draws the same decisions from the same seed", async () => {
    const { url } = await serve();
    const draws: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const faults = {
        seed: 42,
        rate: 0.5,
        kinds: ["reset", "cut", "delay"] as const,
        delayMs: [10, 10] as const,
      };
      proxy = await startChaosProxy({ target: url, faults });
      for (let n = 0; n < 8; n++) await post(proxy.url);
      draws.push(proxy.events.map((e) => `${e.kind} ${e.where}`));
      await proxy.close();
    }
    proxy = undefined;
    expect(draws[0]!.length).toBeGreaterThan(0);
    expect(draws[1]).toEqual(draws[0]);
  });
});
