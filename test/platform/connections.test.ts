import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_PARALLELISM, PlatformClient } from "../../src/platform/client.js";

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server that holds every answer 150 ms and counts the requests it holds at once. */
async function slowServer(): Promise<{ url: string; peak: () => number }> {
  let open = 0;
  let peak = 0;
  server = createServer((_req, res) => {
    open++;
    peak = Math.max(peak, open);
    setTimeout(() => {
      open--;
      res.setHeader("content-type", "application/json");
      res.end("{}");
    }, 150);
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, peak: () => peak };
}

describe("the client's connections", () => {
  it("follow the calls the caller makes at once, past 16", async () => {
    const { url, peak } = await slowServer();
    const client = new PlatformClient({
      baseUrl: url,
      clientId: "c",
      clientSecret: "s",
      requestsPerSecond: Infinity,
      connections: 24,
    });
    try {
      await Promise.all(Array.from({ length: 24 }, () => client.raw("GET", "/ping")));
      expect(peak()).toBe(24);
    } finally {
      await client.close();
    }
  });

  it("default to the default parallelism", async () => {
    const { url, peak } = await slowServer();
    const client = new PlatformClient({
      baseUrl: url,
      clientId: "c",
      clientSecret: "s",
      requestsPerSecond: Infinity,
    });
    try {
      await Promise.all(Array.from({ length: 20 }, () => client.raw("GET", "/ping")));
      expect(peak()).toBe(DEFAULT_PARALLELISM);
    } finally {
      await client.close();
    }
  });
});
