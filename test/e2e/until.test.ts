/**
 * End to end against the emulator, the run's clock injected (CARTE_NOW) on the stores' clock
 * (America/Bogota): a group's promotion price `until:` a date holds before it and the catalog's price
 * comes back on the first run after it; a seasonal item (`available: {from, until}`) is offered in its
 * category inside its window only. Each change is the fewest writes (one items upsert, one categories
 * upsert per affected store), and a second plan at the same time has nothing to do.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type RecordedRequest } from "../../src/emulator/index.js";
import type { Category, Item } from "../../src/generated/platform.js";
import { PlatformClient } from "../../src/platform/client.js";
import { CLIENT_ID, CLIENT_SECRET, carte, clientSeed, writes } from "../helpers/project.js";

const BOGOTA = ["900101"];
const MEDELLIN = "900201";

/** A small chain: one catalog, a store of group bogota with its promotion, a store without a group. */
const FILES: Record<string, string> = {
  "carte.yaml":
    "version: 1\ncurrency: COP\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\ngroups: groups/*.yaml\n" +
    "defaults:\n  timezone: America/Bogota\n",
  "catalogs/burgers.yaml":
    "name: burgers\nitems:\n" +
    "  - { sku: BURGER-CHEESE, title: Doble Queso, price: 26900 }\n" +
    "  - { sku: SEASONAL-BURGER-HOGAO, title: Hogao, price: 31900, available: { from: 2026-12-01, until: 2026-12-31 } }\n" +
    "  - { sku: SEASONAL-SHAKE-GUANABANA, title: Guanábana, price: 15900 }\n" +
    "categories:\n" +
    "  - { sku: BURGERS, title: Hamburguesas, items: [BURGER-CHEESE] }\n" +
    "  - { sku: SEASONAL, title: De Temporada, items: [SEASONAL-BURGER-HOGAO, SEASONAL-SHAKE-GUANABANA] }\n" +
    "menus:\n  - { type: DEFAULT, categories: [BURGERS, SEASONAL] }\n",
  "groups/bogota.yaml":
    "name: bogota\ndefaults:\n  overrides:\n    prices:\n      BURGER-CHEESE: { price: 19900, until: 2026-12-31 }\n",
  "stores/bog-centro.yaml":
    "store: { id: 900101, integration_id: bog-centro, name: Bogotá Centro }\ncatalog: burgers\ngroup: bogota\n",
  "stores/med-poblado.yaml":
    "store: { id: 900201, integration_id: med-poblado, name: Medellín Poblado }\ncatalog: burgers\n",
};

/** The chain's files in a temporary directory, pointed at an emulator serving its two stores. */
async function setup() {
  const dir = mkdtempSync(path.join(tmpdir(), "carte-until-"));
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  const emu = await startEmulator({
    port: 0,
    seed: clientSeed([
      { id: "900101", integration_id: "bog-centro", name: "Bogotá Centro" },
      { id: "900201", integration_id: "med-poblado", name: "Medellín Poblado" },
    ]),
    applyDelayMs: 0,
  });
  const config = path.join(dir, "carte.yaml");
  writeFileSync(config, `${FILES["carte.yaml"]}platform:\n  base_url: ${emu.url}\n`);
  const client = new PlatformClient({ baseUrl: emu.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  cleanup = async () => {
    await client.close();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { config, emu, client };
}

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function run(args: string[], now: string) {
  const out = await carte([...args], { CARTE_NOW: now });
  expect(out.err).not.toMatch(/failed|skipped|Error/);
  return out;
}

/** The price of an item and the items of a category of one store, as the platform shows them. */
async function live(client: PlatformClient, storeId: string, sku: string, category: string) {
  const menu = await client.getStoreMenu(storeId);
  const item = menu.items.find((i) => i.sku === sku) as Item;
  const cat = menu.categories.find((c) => c.sku === category) as Category;
  return { price: item.price_info.price, items: cat.items.map((i) => i.sku) };
}

/** The writes of the last run, as `METHOD last-path-segment store-id`. */
function calls(requests: RecordedRequest[]): string[] {
  return writes(requests)
    .map((r) => {
      const parts = r.path.split("/");
      return `${r.method} ${parts.at(-1)} ${parts.at(-2)}`;
    })
    .sort();
}

describe("a promotion until a date and a seasonal item", () => {
  it("applies each before its end, reverts on the first run after it, with one write per affected store", async () => {
    const { config, emu, client } = await setup();

    // November: the promotion holds in Bogotá, the seasonal burger is not offered yet.
    const november = "2026-11-30T12:00:00-05:00";
    await run(["apply", "--auto-approve", "-c", config], november);
    const plan = await run(["plan", "--detailed-exitcode", "-c", config], november);
    expect(plan.code).toBe(0);
    expect(plan.out).toContain(
      "upcoming end of the price of BURGER-CHEESE: $19.900 until 2026-12-31 (then $26.900); a run from then on changes it back",
    );
    expect(plan.out).toContain(
      "upcoming item SEASONAL-BURGER-HOGAO: offered from 2026-12-01 until 2026-12-31; not offered now, a run from that date offers it",
    );
    for (const id of BOGOTA)
      expect(await live(client, id, "BURGER-CHEESE", "SEASONAL")).toEqual({
        price: 19900,
        items: ["SEASONAL-SHAKE-GUANABANA"],
      });
    expect((await live(client, MEDELLIN, "BURGER-CHEESE", "SEASONAL")).price).toBe(26900);

    // From the store's midnight of December 1st: the burger joins its category, one upsert per store.
    const december = "2026-12-01T00:00:00-05:00";
    emu.clearRequests();
    await run(["apply", "--auto-approve", "-c", config], december);
    expect(calls(emu.requests)).toEqual(["POST categories 900101", "POST categories 900201"]);
    expect((await live(client, MEDELLIN, "BURGER-CHEESE", "SEASONAL")).items).toEqual([
      "SEASONAL-BURGER-HOGAO",
      "SEASONAL-SHAKE-GUANABANA",
    ]);
    expect((await run(["plan", "--detailed-exitcode", "-c", config], "2026-12-15T12:00:00-05:00")).code).toBe(
      0,
    );

    // New Year's Eve counts in full; from the next midnight the catalog price comes back in Bogotá
    // (one items upsert there) and the burger leaves its category everywhere.
    const newYear = "2027-01-01T00:00:00-05:00";
    emu.clearRequests();
    await run(["apply", "--auto-approve", "-c", config], newYear);
    expect(calls(emu.requests)).toEqual([
      "POST categories 900101",
      "POST categories 900201",
      "POST items 900101",
    ]);
    const upserts = writes(emu.requests).filter((r) => r.path.endsWith("/items"));
    for (const u of upserts)
      expect(
        (u.body as { sku: string; price_info: { price: number } }[]).map((b) => [b.sku, b.price_info.price]),
      ).toEqual([["BURGER-CHEESE", 26900]]);
    for (const id of [...BOGOTA, MEDELLIN])
      expect(await live(client, id, "BURGER-CHEESE", "SEASONAL")).toEqual({
        price: 26900,
        items: ["SEASONAL-SHAKE-GUANABANA"],
      });
    const after = await run(["plan", "--detailed-exitcode", "-c", config], newYear);
    expect(after.code).toBe(0);
    expect(after.out).not.toContain("upcoming");
  });
});
