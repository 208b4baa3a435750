/** End to end: safety guards, stale saved plans and targeting, against the emulator. */

import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseDocument, type YAMLMap, type YAMLSeq } from "yaml";
import { PlatformClient } from "../../src/platform/client.js";
import { CLIENT_ID, CLIENT_SECRET, carte, edit, exampleAgainstEmulator, writes } from "../helpers/project.js";

const storeFiles = ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"];
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function applied() {
  const fx = await exampleAgainstEmulator(storeFiles);
  cleanup = fx.close;
  const run = await carte(["apply", "--auto-approve", "-c", fx.config]);
  expect(run.code).toBe(0);
  fx.emu.clearRequests();
  return fx;
}

describe("safety guards", () => {
  it("a stores: pattern that matches nothing is a located configuration error: exit 1, no call", async () => {
    const { config, emu } = await applied();
    edit(config, /^stores: .*$/m, "stores: store/*.yaml");
    for (const cmd of [["validate"], ["plan"], ["apply", "--auto-approve"]]) {
      const run = await carte([...cmd, "-c", config]);
      expect(run.code).toBe(1);
      expect(run.err).toMatch(/carte\.yaml:\d+:9: stores: pattern "store\/\*\.yaml" matches no file/);
    }
    expect(writes(emu.requests)).toEqual([]);
  });

  it("an emptied catalog trips the guards: exit 3, no call; --force --reason goes through and is recorded", async () => {
    const { dir, config, emu } = await applied();
    const catalog = path.join(dir, "catalogs", readdirSync(path.join(dir, "catalogs"))[0]!);
    writeFileSync(catalog, "name: burgers\nitems: []\nmodifier_groups: []\ncategories: []\nmenus: []\n");
    // Store files that name SKUs of the emptied catalog would be config errors: keep only their identity.
    for (const f of storeFiles) {
      const doc = parseDocument(readFileSync(path.join(dir, f), "utf8"));
      doc.delete("overrides");
      doc.delete("availability");
      writeFileSync(path.join(dir, f), doc.toString());
    }
    const plan = await carte(["plan", "-c", config]);
    expect(plan.code).toBe(3);
    // The guards are listed once, in the plan shown; the error says so.
    expect(plan.err).toContain("(listed above)");
    expect(plan.out).toMatch(
      /max_delete_percent: store\[bog-centro\]: the plan deletes \d+ of \d+ resources/,
    );
    expect(plan.out).toContain("empties_store");
    const refused = await carte(["apply", "--auto-approve", "-c", config]);
    expect(refused.code).toBe(3);
    expect(writes(emu.requests)).toEqual([]);

    const forced = await carte([
      "apply",
      "--auto-approve",
      "--force",
      "--reason",
      "closing the brand",
      "--json",
      "-c",
      config,
    ]);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.out).safety.override).toEqual({ reason: "closing the brand" });
    expect(writes(emu.requests).length).toBeGreaterThan(0);
  });

  it("--force without --reason is a usage error", async () => {
    const { config } = await applied();
    const run = await carte(["plan", "--force", "-c", config]);
    expect(run.code).toBe(1);
    expect(run.err).toContain("--force needs --reason");
  });
});

describe("saved plans", () => {
  it("are refused when someone changes a price on the platform between plan and apply", async () => {
    const { dir, config, emu } = await applied();
    const catalog = path.join(dir, "catalogs", readdirSync(path.join(dir, "catalogs"))[0]!);
    const doc = parseDocument(readFileSync(catalog, "utf8"));
    const first = (doc.get("items") as YAMLSeq).items[0] as YAMLMap;
    const sku = String(first.get("sku"));
    first.set("price", Number(first.get("price")) + 500);
    writeFileSync(catalog, doc.toString());
    const file = path.join(dir, "plan.json");
    expect((await carte(["plan", "--out", file, "-c", config])).code).toBe(0);

    // Someone edits the same item by hand on the platform.
    const client = new PlatformClient({ baseUrl: emu.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    const live = await client.getStoreMenu("900101");
    const item = live.items.find((i) => i.sku === sku)!;
    await client.request("POST /restaurants/menu/v1/stores/{storeId}/items", { storeId: "900101" }, [
      // A small edit: restoring it stays within max_price_change_percent.
      { ...item, price_info: { price: item.price_info!.price! + 100 } },
    ]);
    await emu.idle();
    await client.close();

    emu.clearRequests();
    const run = await carte(["apply", file, "-c", config]);
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      'stale plan: the platform changed since this plan was saved (store "bog-centro" changed)',
    );
    expect(writes(emu.requests)).toEqual([]);

    // Told to re-plan, it plans afresh and applies the new plan, which also restores the edited price.
    const replanned = await carte(["apply", file, "--replan", "--auto-approve", "-c", config]);
    expect(replanned.code).toBe(0);
    expect(replanned.err).toContain("planning again as --replan asks");
    expect((await carte(["plan", "--detailed-exitcode", "-c", config])).code).toBe(0);
  });

  it("are refused when the files changed after planning", async () => {
    const { dir, config, emu } = await applied();
    const file = path.join(dir, "plan.json");
    expect((await carte(["plan", "--out", file, "-c", config])).code).toBe(0);
    const store = path.join(dir, storeFiles[0]!);
    edit(store, /^catalog: /m, "# edited\ncatalog: ");
    edit(store, /name: .*/, "name: Renamed store");
    const run = await carte(["apply", file, "-c", config]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(
      /the configuration changed since this plan was saved \(the files of store "[a-z-]+" changed/,
    );
    // And which file: the path from the project's folder, the same on every clone.
    expect(run.err).toContain(`file "${storeFiles[0]!.split(path.sep).join("/")}" changed)`);
    expect(writes(emu.requests)).toEqual([]);
  });
});

describe("targeting", () => {
  it("--store and --kind limit both plan and apply", async () => {
    const { dir, config, emu } = await applied();
    const catalog = path.join(dir, "catalogs", readdirSync(path.join(dir, "catalogs"))[0]!);
    const doc = parseDocument(readFileSync(catalog, "utf8"));
    const first = (doc.get("items") as YAMLSeq).items[0] as YAMLMap;
    first.set("price", Number(first.get("price")) + 700);
    (doc.get("categories") as YAMLSeq<YAMLMap>).items[0]!.set("title", "Renamed category");
    writeFileSync(catalog, doc.toString());

    const plan = await carte(["plan", "--json", "--store", "bog-*", "--kind", "category", "-c", config]);
    const parsed = JSON.parse(plan.out) as { changes: { address: string }[]; targeting: unknown };
    expect(
      parsed.changes.map((c) => c.address).every((a) => /^store\[bog-[a-z]+\]\.category\[/.test(a)),
    ).toBe(true);
    expect(parsed.changes).toHaveLength(2);

    const run = await carte([
      "apply",
      "--auto-approve",
      "--store",
      "bog-*",
      "--kind",
      "category",
      "-c",
      config,
    ]);
    expect(run.code).toBe(0);
    expect(run.out).toContain("this plan is limited by --store bog-* --kind category");
    expect(writes(emu.requests).map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /restaurants/menu/v1/stores/900101/categories",
      "POST /restaurants/menu/v1/stores/900102/categories",
    ]);
    // Everything else is still pending.
    const rest = await carte(["plan", "--json", "-c", config]);
    expect(JSON.parse(rest.out).summary.update).toBe(3);
  });

  it("--target with a store that does not exist is a usage error", async () => {
    const { config } = await applied();
    const run = await carte(["plan", "--store", "nowhere-*", "-c", config]);
    expect(run.code).toBe(1);
    expect(run.err).toContain("no store of the configuration matches --store nowhere-*");
  });
});
