/**
 * Nothing of the live state is dropped silently by `carte import`: image hosts are written and come
 * back; what the files cannot express (a per-store price override of the platform) is listed, and the
 * import exits 2 (docs/import.md).
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { toWireItem } from "../../src/kinds/items.js";
import { PlatformClient } from "../../src/platform/client.js";
import { carte, CLIENT_ID, CLIENT_SECRET, clientSeed } from "../helpers/project.js";
import { item } from "../helpers/builders.js";

let emu: RunningEmulator;
let client: PlatformClient;
const dirs: string[] = [];
const POST_ITEMS = "POST /restaurants/menu/v1/stores/{storeId}/items" as const;

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "carte-import-dropped-"));
  dirs.push(dir);
  return dir;
}

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    applyDelayMs: 0,
    seed: clientSeed([
      { id: "700001", integration_id: "hosts", name: "Hosts" },
      { id: "700002", integration_id: "store-price", name: "Store price" },
    ]),
  });
  client = new PlatformClient({ baseUrl: emu.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  const pizza = toWireItem(
    item("PIZZA", 12.5, {
      title: "Pizza",
      images: [{ path: "img/pizza.jpg", host: "https://cdn.example.com" }, "img/side.jpg"],
    }),
  );
  const soda = toWireItem(item("SODA", 10, { title: "Soda" }));
  await client.request(POST_ITEMS, { storeId: "700001" }, [pizza, soda]);
  await client.request(POST_ITEMS, { storeId: "700002" }, [
    {
      ...pizza,
      price_info: { price: 12.5, overrides: [{ override_type: "STORE", override_sku: "700002", price: 13 }] },
    },
  ]);
  await emu.idle();
});

afterAll(async () => {
  await client.close();
  await emu.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function project(): string {
  const dir = tempDir();
  const config = path.join(dir, "carte.yaml");
  writeFileSync(
    config,
    `version: 1\ncurrency: BRL\nplatform:\n  base_url: ${emu.url}\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n`,
  );
  return config;
}

describe("carte import drops nothing silently", () => {
  it("writes image hosts and prices with the currency's decimals, which plan no change and survive an apply", async () => {
    const out = tempDir();
    const run = await carte(["import", "--store", "700001", "-c", project(), "--out", out]);
    // The calls' success rate, and the note that the store's integration id is a placeholder.
    expect(run.err).toMatch(
      /^\d+ calls to the platform, 100\.0 % succeeded\.\nNote: the integration_id of 1 store \(700001: store-700001\) is a placeholder: [^\n]*\n$/,
    );
    expect(run.code).toBe(0);
    const catalog = parse(readFileSync(path.join(out, "catalogs", "shared.yaml"), "utf8")) as {
      items: { images: unknown }[];
    };
    expect(catalog.items[0]?.images).toEqual([
      { path: "img/pizza.jpg", host: "https://cdn.example.com" },
      "img/side.jpg",
    ]);
    expect(readFileSync(path.join(out, "carte.yaml"), "utf8")).toContain("currency: BRL");
    // Prices are written as BRL is written, with its two decimals, and load back as the same prices.
    const catalogText = readFileSync(path.join(out, "catalogs", "shared.yaml"), "utf8");
    expect(catalogText).toMatch(/price: 12\.50\b/);
    expect(catalogText).toMatch(/price: 10\.00\b/);
    const config = path.join(out, "carte.yaml");
    const plan = await carte(["plan", "--detailed-exitcode", "-c", config]);
    expect(plan.out).toContain("No changes");
    expect(plan.code).toBe(0);

    // A change of the item's title rewrites the whole item: the host stays on the platform.
    const file = path.join(out, "catalogs", "shared.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace("title: Pizza", "title: Pizza grande"));
    expect((await carte(["apply", "--auto-approve", "-q", "-c", config])).code).toBe(0);
    const live = await client.getStoreMenu("700001");
    // docs/platform-api.md §4.3 `{id, path, index, host}`: every image reads with an id and a host ("" for
    // none).
    expect(live.items[0]?.images_info?.images).toEqual([
      { id: expect.any(Number), path: "img/pizza.jpg", index: 0, host: "https://cdn.example.com" },
      { id: expect.any(Number), path: "img/side.jpg", index: 1, host: "" },
    ]);
  });

  it("lists a per-store price override of the platform and exits 2", async () => {
    const out = tempDir();
    const run = await carte(["import", "--store", "700002", "-c", project(), "--out", out]);
    expect(run.code).toBe(2);
    expect(run.err).toContain(
      "store[store-700002].item[PIZZA]: price_info.overrides (STORE) cannot be written in carte's files",
    );
    expect(run.err).toContain("Nothing was written");
  });
});
