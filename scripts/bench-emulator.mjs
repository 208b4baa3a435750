#!/usr/bin/env node
// Benchmark of the built emulator: it must serve thousands of requests per second on one core, so that
// it is never what a benchmark of carte measures.
//
//   npm run bench:emulator                      build, then run ~5 s of load
//   node scripts/bench-emulator.mjs [seconds] [concurrency]
//
// The emulator (dist/emulator/index.js) runs in a child process on 127.0.0.1:0, so that it has a core of
// its own and the numbers are the server's, not the load generator's. One store with 100 items in two
// categories is created and logged into once (logins are not measured). Then `concurrency` keep-alive
// connections (an undici Pool) send a mix for the given duration:
//   50 % GET  /restaurants/menu/v1/stores/{storeId}/store-menu            (the 100-item store)
//   30 % GET  /restaurants/menu/v1/stores/{storeId}/items/{itemId}        (a random item)
//   20 % POST /api/v2/restaurants-integrations-public-api/availability/items/status  (10 SKUs)
// and prints requests per second and p50 / p99 latency, overall and per kind. Exits by itself.

import { fork } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";

const SECONDS = Number(process.argv[2] ?? 5);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const STORE = 900123;

// ---- child: the emulator -------------------------------------------------------------------------

if (process.argv.includes("--child")) {
  const { startEmulator } = await import("../dist/emulator/index.js");
  const emu = await startEmulator({
    host: "127.0.0.1",
    port: 0,
    applyDelayMs: 0,
    seed: {
      clients: [
        {
          client_id: "bench",
          client_secret: "bench-secret",
          stores: [{ id: STORE, integration_id: "bench-1", name: "Bench store" }],
        },
      ],
    },
  });
  process.send?.({ url: emu.url });
  process.on("message", async (m) => {
    if (m === "stop") {
      await emu.close();
      process.exit(0);
    }
  });
} else {
  await main();
}

// ---- parent: the load ----------------------------------------------------------------------------

async function main() {
  const child = fork(fileURLToPath(import.meta.url), ["--child"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const url = await new Promise((resolve, reject) => {
    child.once("message", (m) => resolve(m.url));
    child.once("exit", (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  const pool = new Pool(url, { connections: CONCURRENCY, pipelining: 1 });
  try {
    await run(pool);
  } finally {
    await pool.close();
    child.send("stop");
    await new Promise((resolve) => child.once("exit", resolve));
  }
}

async function json(pool, method, path, token, body) {
  const headers = { accept: "application/json" };
  if (token) headers["x-authorization"] = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await pool.request({
    method,
    path,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
  return text === "" ? undefined : JSON.parse(text);
}

async function setup(pool) {
  const login = await json(pool, "POST", "/restaurants/auth/v1/token/login/integrations", undefined, {
    client_id: "bench",
    client_secret: "bench-secret",
  });
  const token = login.access_token;
  const menu = `/restaurants/menu/v1/stores/${STORE}`;
  const skus = Array.from({ length: 100 }, (_, i) => `ITEM-${String(i).padStart(3, "0")}`);
  await json(
    pool,
    "POST",
    `${menu}/items`,
    token,
    skus.map((sku, i) => ({
      sku,
      item_type: "ITEM",
      title_info: { title: `Item ${i}` },
      description_info: { description: `Description of item ${i}` },
      price_info: { price: 1000 + i * 10 },
    })),
  );
  await json(pool, "POST", `${menu}/categories`, token, [
    { sku: "A", title: "First half", items: skus.slice(0, 50).map((sku, index) => ({ sku, index })) },
    { sku: "B", title: "Second half", items: skus.slice(50).map((sku, index) => ({ sku, index })) },
  ]);
  await json(pool, "POST", `${menu}/menu`, token, [
    {
      menu_type: "DEFAULT",
      categories: [
        { sku: "A", index: 0, is_category_active: true },
        { sku: "B", index: 1, is_category_active: true },
      ],
    },
  ]);
  // Accepted writes are applied asynchronously: wait until the store menu shows them.
  let read;
  for (let i = 0; i < 100; i++) {
    read = await json(pool, "GET", `${menu}/store-menu`, token);
    if (read.items.length === 100 && read.menus.length === 1) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  if (read.items.length !== 100) throw new Error("the catalog was not applied");
  return { token, menu, ids: read.items.map((i) => i.id), skus };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function run(pool) {
  const { token, menu, ids, skus } = await setup(pool);
  const headers = { accept: "application/json", "x-authorization": `Bearer ${token}` };
  const statusBody = (n) =>
    JSON.stringify({
      store_id: String(STORE),
      item_ids: Array.from({ length: 10 }, (_, k) => skus[(n + k) % 100]),
    });
  const kinds = {
    "GET store-menu": [],
    "GET items/{id}": [],
    "POST items/status": [],
  };
  let errors = 0;
  let n = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();

  async function worker() {
    while (performance.now() < deadline) {
      const i = n++;
      const r = i % 10;
      let kind;
      let opts;
      if (r < 5) {
        kind = "GET store-menu";
        opts = { method: "GET", path: `${menu}/store-menu`, headers };
      } else if (r < 8) {
        kind = "GET items/{id}";
        opts = { method: "GET", path: `${menu}/items/${ids[(i * 7) % ids.length]}`, headers };
      } else {
        kind = "POST items/status";
        opts = {
          method: "POST",
          path: "/api/v2/restaurants-integrations-public-api/availability/items/status",
          headers: { ...headers, "content-type": "application/json" },
          body: statusBody(i),
        };
      }
      const t0 = performance.now();
      const res = await pool.request(opts);
      await res.body.dump();
      const ms = performance.now() - t0;
      if (res.statusCode !== 200) errors++;
      kinds[kind].push(ms);
    }
  }

  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const all = Object.values(kinds)
    .flat()
    .sort((a, b) => a - b);
  const line = (name, list) => {
    const sorted = [...list].sort((a, b) => a - b);
    return (
      `${name.padEnd(20)} ${String(sorted.length).padStart(8)} req ${(sorted.length / elapsed).toFixed(0).padStart(7)} req/s` +
      `   p50 ${percentile(sorted, 50).toFixed(2)} ms   p99 ${percentile(sorted, 99).toFixed(2)} ms`
    );
  };
  console.log(
    `emulator benchmark: ${elapsed.toFixed(1)} s, ${CONCURRENCY} keep-alive connections, node ${process.version}`,
  );
  for (const [name, list] of Object.entries(kinds)) console.log(line(name, list));
  console.log(line("all", all));
  if (errors > 0) console.log(`non-200 answers: ${errors}`);
}
