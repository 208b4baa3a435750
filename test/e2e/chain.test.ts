/**
 * End to end against the emulator on port 0, each API group at its own address (carte.yaml
 * `platform.hosts:`): the example chain applied to empty stores, then edits of the files, asserting on
 * the exact calls the platform received, on each reaching its group's address, and on an empty second
 * plan.
 */

import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseDocument, YAMLMap, YAMLSeq } from "yaml";
import { loadProject } from "../../src/config/index.js";
import { PlatformClient } from "../../src/platform/client.js";
import { runCarte } from "../../src/run/run.js";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  carte,
  copyExample,
  exampleAgainstSplitHosts,
  hostsYaml,
  misroutedCalls,
  type CliRun,
  writes,
} from "../helpers/project.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { catalogOf } from "../helpers/builders.js";

const storeFiles = readdirSync(path.join(import.meta.dirname, "..", "..", "examples", "chain", "stores"))
  .filter((f) => f.endsWith(".yaml"))
  .sort()
  .map((f) => path.join("stores", f));

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** The emulator of the test: each API group at its own address, as on the platform. */
let emulator: RunningEmulator | undefined;

async function setup() {
  const fx = await exampleAgainstSplitHosts(storeFiles);
  cleanup = fx.close;
  emulator = fx.emu;
  return fx;
}

function noSecrets(...runs: CliRun[]) {
  for (const r of runs) {
    expect(r.out).not.toContain(CLIENT_SECRET);
    expect(r.err).not.toContain(CLIENT_SECRET);
  }
}

/** Edits a YAML file through the yaml Document API. */
function editYaml(file: string, fn: (doc: ReturnType<typeof parseDocument>) => void) {
  const doc = parseDocument(readFileSync(file, "utf8"));
  fn(doc);
  writeFileSync(file, doc.toString());
}

function catalogFile(dir: string): string {
  const files = readdirSync(path.join(dir, "catalogs")).filter((f) => f.endsWith(".yaml"));
  return path.join(dir, "catalogs", files[0]!);
}

async function applyClean(config: string) {
  const applied = await carte(["apply", "--auto-approve", "-c", config]);
  expect(applied.err).not.toMatch(/failed|skipped/);
  expect(applied.code).toBe(0);
  const again = await carte(["plan", "--detailed-exitcode", "-c", config]);
  expect(again.out).toContain("No changes");
  expect(again.code).toBe(0);
  noSecrets(applied, again);
  // Every call so far went to its API group's address.
  expect(misroutedCalls(emulator!.requests)).toEqual([]);
  return applied;
}

describe("the example chain against the emulator", () => {
  it("applies to empty stores, then plans nothing", async () => {
    const { config, emu } = await setup();
    emu.clearRequests();
    const plan = await carte(["plan", "--detailed-exitcode", "-c", config]);
    expect(plan.code).toBe(2);
    expect(plan.out).toMatch(/Plan: \d+ to create, \d+ to update, 0 to delete in 3 stores/);
    // The run ends with its calls' success rate (the platform's terms ask 98 %): every call it made.
    expect(plan.err).toContain(`${emu.requests.length} calls to the platform, 100.0 % succeeded.`);
    await applyClean(config);

    // The platform holds every item, category and menu of every store, as the files say.
    const project = await loadProject(config);
    const client = new PlatformClient({
      baseUrl: emu.urls,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
    });
    try {
      for (const s of Object.values(project.desired.stores)) {
        const live = await client.getStoreMenu(s.store.storeId);
        expect(live.items.map((i) => i.sku).sort()).toEqual(Object.keys(catalogOf(s).items).sort());
        expect(live.categories.map((c) => c.sku).sort()).toEqual(Object.keys(catalogOf(s).categories).sort());
        expect(live.menus.map((m) => m.menu_type).sort()).toEqual(Object.keys(catalogOf(s).menus).sort());
        const off = live.items.filter((i) => i.suspension_info?.is_available === false).map((i) => i.sku);
        expect(off.sort()).toEqual(catalogOf(s).unavailable);
      }
    } finally {
      await client.close();
    }
  });

  it("stops calling a failing platform and says so, instead of retrying on", async () => {
    const { config, emu } = await setup();
    // Every read of a store fails (the logins answer).
    emu.setFaults({ routes: [{ prefix: "/restaurants/menu/v1/stores", faultRate: 1, faultKinds: ["503"] }] });
    emu.clearRequests();
    // Each read may be made 10 times: without the breaker the three stores' reads would go on past 30
    // failed calls; with it, no store runs out of attempts first.
    const result = await runCarte({
      command: "plan",
      config,
      env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
      client: { maxAttempts: 10, baseDelayMs: 5, maxDelayMs: 20 },
    });
    expect(result.exitCode).toBe(1);
    expect(String(result.error)).toContain("the platform is failing: 10 of the last");
    // Three stores read at once: the calls in flight when the breaker opened end, and no more go out.
    expect(emu.requests.length).toBeLessThan(30);
    expect(result.calls!.calls).toBe(emu.requests.length);
    expect(result.calls!.succeeded).toBeLessThan(result.calls!.calls);
  });

  it("changing one price makes one item upsert per affected store, carrying only that item", async () => {
    const { dir, config, emu } = await setup();
    await applyClean(config);
    const before = await loadProject(config);

    let sku = "";
    editYaml(catalogFile(dir), (doc) => {
      const first = (doc.get("items") as YAMLSeq).items[0] as YAMLMap;
      sku = String(first.get("sku"));
      first.set("price", Number(first.get("price")) + 1000);
    });
    const after = await loadProject(config);
    const affected = Object.keys(after.desired.stores).filter(
      (k) =>
        catalogOf(after.desired.stores[k]!).items[sku]?.price !==
        catalogOf(before.desired.stores[k]!).items[sku]?.price,
    );
    expect(affected.length).toBeGreaterThan(0);

    emu.clearRequests();
    await applyClean(config);
    const calls = writes(emu.requests);
    expect(calls).toHaveLength(affected.length);
    for (const key of affected) {
      const storeId = after.desired.stores[key]!.store.storeId;
      const call = calls.find((c) => c.path === `/restaurants/menu/v1/stores/${storeId}/items`);
      expect(call?.method).toBe("POST");
      expect((call!.body as { sku: string }[]).map((b) => b.sku)).toEqual([sku]);
    }
  });

  it("removing an item takes it out of its categories first, then deletes it by id", async () => {
    const { dir, config, emu } = await setup();
    await applyClean(config);
    const project = await loadProject(config);
    const first = Object.values(project.desired.stores)[0]!;
    // An item every store sells, that no store file names.
    const storeTexts = storeFiles.map((f) => readFileSync(path.join(dir, f), "utf8"));
    const sku = Object.values(catalogOf(first).categories)
      .flatMap((c) => c.items)
      .find(
        (s) =>
          storeTexts.every((t) => !t.includes(s)) &&
          Object.values(project.desired.stores).every((st) => catalogOf(st).items[s]) &&
          Object.values(catalogOf(first).items).every((i) => !i.children.includes(s)),
      )!;
    expect(sku).toBeDefined();

    editYaml(catalogFile(dir), (doc) => {
      const items = doc.get("items") as YAMLSeq;
      items.items = items.items.filter((n) => String((n as YAMLMap).get("sku")) !== sku);
      for (const c of (doc.get("categories") as YAMLSeq).items as YAMLMap[]) {
        const list = c.get("items") as YAMLSeq;
        list.items = list.items.filter((n) => String((n as { value?: unknown }).value ?? n) !== sku);
      }
    });

    emu.clearRequests();
    const plan = await carte(["plan", "--json", "-c", config]);
    const parsed = JSON.parse(plan.out) as { summary: { delete: number } };
    expect(parsed.summary.delete).toBe(3);
    await applyClean(config);
    const calls = writes(emu.requests);
    for (const s of Object.values(project.desired.stores)) {
      const own = calls.filter((c) => c.path.startsWith(`/restaurants/menu/v1/stores/${s.store.storeId}/`));
      expect(own.map((c) => `${c.method} ${c.path.split("/").pop()}`)).toEqual([
        "POST categories",
        "DELETE items",
      ]);
      expect(own[1]!.body).toEqual([expect.any(Number)]);
    }
  });

  it("switching an item off in three stores makes a single availability call, then marks it per store", async () => {
    const { dir, config, emu } = await setup();
    await applyClean(config);
    const project = await loadProject(config);
    const stores = Object.values(project.desired.stores);
    const sku = Object.values(catalogOf(stores[0]!).items).find(
      (i) =>
        i.type === "ITEM" &&
        stores.every((s) => catalogOf(s).items[i.sku] && !catalogOf(s).unavailable.includes(i.sku)),
    )!.sku;

    for (const f of storeFiles) {
      editYaml(path.join(dir, f), (doc) => {
        const list = doc.getIn(["availability", "unavailable"]) as YAMLSeq | undefined;
        if (list) list.add(sku);
        else doc.setIn(["availability", "unavailable"], doc.createNode([sku]));
      });
    }
    emu.clearRequests();
    await applyClean(config);
    const calls = writes(emu.requests);
    // One toggle for the three stores, then carte's marker on the item in each store.
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      "PUT /api/v2/restaurants-integrations-public-api/availability/stores/items",
      ...stores
        .map((s) => s.store.storeId)
        .sort()
        .map((id) => `POST /restaurants/menu/v1/stores/${id}/items`),
    ]);
    expect(calls[0]!.method).toBe("PUT");
    expect(calls[0]!.path).toBe("/api/v2/restaurants-integrations-public-api/availability/stores/items");
    const body = calls[0]!.body as { store_integration_id: string; items: { turn_off: string[] } }[];
    expect(body.map((b) => b.items.turn_off)).toEqual([[sku], [sku], [sku]]);
  });

  it("saves a plan and applies exactly that plan", async () => {
    const { dir, config } = await setup();
    const file = path.join(dir, "plan.json");
    const saved = await carte(["plan", "--out", file, "-c", config]);
    expect(saved.code).toBe(0);
    expect(readFileSync(file, "utf8")).not.toContain(CLIENT_SECRET);
    const applied = await carte(["apply", file, "-c", config]);
    expect(applied.code).toBe(0);
    expect((await carte(["plan", "--detailed-exitcode", "-c", config])).code).toBe(0);
    // The same plan, applied again: the platform already shows it, so nothing is left to do, and that
    // is said, not reported as a stale plan.
    const again = await carte(["apply", file, "-c", config]);
    expect(again.code).toBe(0);
    expect(again.err).toContain("already matches");
    expect(again.err).not.toContain("stale plan");
  });
});

describe("bad configuration", () => {
  it("reports every problem with file:line:col and calls nothing", async () => {
    const { emu } = await setup();
    const dir = copyExample("test/fixtures/bad-config");
    const config = path.join(dir, "carte.yaml");
    writeFileSync(
      config,
      readFileSync(config, "utf8").replace(/^version: 1\n/m, `version: 1\n${hostsYaml(emu)}`),
    );
    emu.clearRequests();
    const run = await carte(["plan", "-c", config]);
    expect(run.code).toBe(1);
    const located = run.err.split("\n").filter((l) => /\.yaml:\d+:\d+: /.test(l));
    expect(located).toHaveLength(4);
    expect(run.err).toMatch(/burgers\.yaml:\d+:\d+: price must be a number, got "abc"/);
    expect(run.err).toMatch(/burgers\.yaml:\d+:\d+: unknown key "colour"/);
    expect(run.err).toMatch(/burgers\.yaml:\d+:\d+: duplicate SKU "BURGER-CLASSIC"/);
    expect(run.err).toMatch(/burgers\.yaml:\d+:\d+: unknown item "BURGER-BACON" in category BURGERS/);
    expect(emu.requests).toEqual([]);
  });
});

describe("the embedded emulator", () => {
  it("runs when no platform is configured and keeps its state next to the config", async () => {
    const dir = copyExample();
    const config = path.join(dir, "carte.yaml");
    const applied = await carte(["apply", "--auto-approve", "-c", config], {
      CARTE_CLIENT_ID: "",
      CARTE_CLIENT_SECRET: "",
    });
    expect(applied.code).toBe(0);
    expect(existsSync(path.join(dir, ".carte", "emulator-state.json"))).toBe(true);
    const again = await carte(["plan", "--detailed-exitcode", "-c", config], {
      CARTE_CLIENT_ID: "",
      CARTE_CLIENT_SECRET: "",
    });
    expect(again.out).toContain("No changes");
    expect(again.code).toBe(0);
  });
});
