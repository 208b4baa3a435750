/**
 * `carte import` as a command: store identities, what it refuses and why, `--lenient`, an existing
 * carte.yaml, and the embedded emulator, whose state an imported project takes along.
 */

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { GITIGNORE } from "../../src/init.js";
import { toWireCategory } from "../../src/kinds/categories.js";
import { toWireItem } from "../../src/kinds/items.js";
import { PlatformClient } from "../../src/platform/client.js";
import { carte, CLIENT_ID, CLIENT_SECRET, clientSeed } from "../helpers/project.js";
import { group, item } from "../helpers/builders.js";

let emu: RunningEmulator;
let client: PlatformClient;
const POST_ITEMS = "POST /restaurants/menu/v1/stores/{storeId}/items" as const;
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "carte-import-cli-"));
  dirs.push(dir);
  return dir;
}

/** A project folder whose carte.yaml points at the emulator and names one store. */
function project(): { dir: string; config: string } {
  const dir = tempDir();
  const config = path.join(dir, "carte.yaml");
  writeFileSync(
    config,
    `version: 1\nplatform:\n  base_url: ${emu.url}\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n`,
  );
  return { dir, config };
}

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    applyDelayMs: 0,
    seed: clientSeed([
      { id: "800001", integration_id: "plain", name: "Plain" },
      { id: "800002", integration_id: "odd", name: "Odd" },
    ]),
  });
  client = new PlatformClient({ baseUrl: emu.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  await client.request(POST_ITEMS, { storeId: "800001" }, [
    toWireItem(item("FRIES", 8900, { title: "Fries", children: ["SAUCES"] })),
    toWireItem(group("SAUCES", ["KETCHUP"], 0, 1)),
    toWireItem(item("KETCHUP", 0, { title: "Ketchup" })),
  ]);
  // Store 800002 sells its ketchup option on its own too: carte's files cannot say that.
  await client.request(POST_ITEMS, { storeId: "800002" }, [
    toWireItem(item("FRIES", 8900, { title: "Fries", children: ["SAUCES"] })),
    toWireItem(group("SAUCES", ["KETCHUP"], 0, 1)),
    toWireItem(item("KETCHUP", 500, { title: "Ketchup" })),
  ]);
  await emu.idle();
  await client.request("POST /restaurants/menu/v1/stores/{storeId}/categories", { storeId: "800002" }, [
    toWireCategory({ sku: "SIDES", title: "Sides", items: ["FRIES", "KETCHUP"] }),
  ]);
  await emu.idle();
});

afterAll(async () => {
  await client.close();
  await emu.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("carte import", () => {
  it("names a store missing from carte.yaml store-<id>", async () => {
    const { config } = project();
    const out = tempDir();
    const run = await carte(["import", "--store", "800001", "-c", config, "--out", out]);
    expect(run.code).toBe(0);
    const file = parse(readFileSync(path.join(out, "stores", "store-800001.yaml"), "utf8")) as unknown;
    expect(file).toEqual({
      store: { id: 800001, integration_id: "store-800001", name: "Store 800001" },
      catalog: "shared",
      // The store's settings as the platform has them: no hours yet, open.
      hours: { daily: [] },
      open: true,
    });
    expect(run.out).toContain("Imported 1 store into 1 catalog: shared (store-800001)");
    // Its integration id is a placeholder, and both the file and the output say what to write there.
    const text = readFileSync(path.join(out, "stores", "store-800001.yaml"), "utf8");
    expect(text).toContain(
      "  integration_id: store-800001 # a placeholder: write the platform's integration id of this store",
    );
    expect(run.err).toContain(
      "Note: the integration_id of 1 store (800001: store-800001) is a placeholder: write the platform's integration id",
    );
  });

  it("takes identities from carte.yaml, by store id or integration id", async () => {
    const { dir, config } = project();
    writeFileSync(
      path.join(dir, "stores.yaml"),
      "store: { id: 800001, integration_id: plain, name: Plain store }\ncatalog: mine\n",
    );
    writeFileSync(path.join(dir, "mine.yaml"), "name: mine\n");
    writeFileSync(
      config,
      readFileSync(config, "utf8")
        .replace("stores/*.yaml", "stores.yaml")
        .replace("catalogs/*.yaml", "mine.yaml"),
    );
    const out = tempDir();
    const run = await carte(["import", "--store", "plain", "-c", config, "--out", out]);
    expect(run.code).toBe(0);
    expect(parse(readFileSync(path.join(out, "stores", "plain.yaml"), "utf8"))).toMatchObject({
      store: { id: 800001, integration_id: "plain", name: "Plain store" },
    });
  });

  it("refuses an unknown store name", async () => {
    const { config } = project();
    const run = await carte(["import", "--store", "nowhere", "-c", config, "--out", tempDir()]);
    expect(run.code).toBe(1);
    expect(run.err).toContain('unknown store "nowhere"');
  });

  it("writes nothing when the files cannot express the live state, unless --lenient", async () => {
    const { config } = project();
    const out = tempDir();
    const strict = await carte(["import", "--store", "800002", "-c", config, "--out", out]);
    // Exit 2: the files would not give exactly the live state (docs/import.md).
    expect(strict.code).toBe(2);
    expect(strict.err).toContain("store[store-800002].category[SIDES]: a category lists only items");
    expect(strict.err).toContain("Nothing was written");
    expect(existsSync(path.join(out, "carte.yaml"))).toBe(false);

    const lenient = await carte(["import", "--store", "800002", "-c", config, "--out", out, "--lenient"]);
    expect(lenient.code).toBe(2);
    expect(lenient.err).toContain("Warning: carte's files cannot express 1 thing");
    const plan = await carte(["plan", "--detailed-exitcode", "-c", path.join(out, "carte.yaml")]);
    expect(plan.code).toBe(2);
    expect(plan.out).toMatch(/~ category SIDES \([^)\n]*\)\n\s+items: - KETCHUP\n/);
  });

  it("leaves an existing carte.yaml alone and says which files it does not pick up", async () => {
    const { config } = project();
    const out = tempDir();
    writeFileSync(
      path.join(out, "carte.yaml"),
      "version: 1\nstores: shops/*.yaml\ncatalogs: catalogs/*.yaml\n",
    );
    // Into a project, only with --merge.
    const refused = await carte(["import", "--store", "800001", "-c", config, "--out", out]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("carte import never overwrites its files");
    const run = await carte(["import", "--store", "800001", "-c", config, "--out", out, "--merge"]);
    expect(run.code).toBe(0);
    expect(readFileSync(path.join(out, "carte.yaml"), "utf8")).toBe(
      "version: 1\nstores: shops/*.yaml\ncatalogs: catalogs/*.yaml\n",
    );
    expect(run.err).toContain("carte.yaml and every existing file were left as they are");
    expect(run.err).toContain(
      "Add these files to its stores: and catalogs: entries:\n  stores/store-800001.yaml\n",
    );
  });

  it("reads the embedded emulator when carte.yaml names no platform", async () => {
    const dir = tempDir();
    const config = path.join(dir, "carte.yaml");
    writeFileSync(config, "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n");
    const run = await carte(["import", "--store", "123", "-c", config, "--out", dir, "--merge"]);
    expect(run.code).toBe(0);
    expect(run.err).toContain("carte.yaml and every existing file were left as they are");
    expect(run.err).not.toContain("Add these files");
    const plan = await carte(["plan", "--detailed-exitcode", "-c", config]);
    expect(plan.out).toContain("No changes");
    expect(plan.code).toBe(0);
  });
});

describe("carte import from the embedded emulator", () => {
  /** A project on the embedded emulator, with one store applied; returns its carte.yaml. */
  async function applied(): Promise<string> {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, "carte.yaml"),
      "version: 1\nemulator: { apply_delay_ms: 0 }\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n",
    );
    mkdirSync(path.join(dir, "catalogs"));
    mkdirSync(path.join(dir, "stores"));
    writeFileSync(
      path.join(dir, "catalogs", "main.yaml"),
      "name: main\nitems:\n  - { sku: FRIES, title: Fries, price: 8900 }\n" +
        "categories:\n  - { sku: SIDES, title: Sides, items: [FRIES] }\nmenus:\n  - { type: DEFAULT, categories: [SIDES] }\n",
    );
    writeFileSync(
      path.join(dir, "stores", "a.yaml"),
      "store: { id: 700001, integration_id: a, name: A }\ncatalog: main\n",
    );
    const config = path.join(dir, "carte.yaml");
    const r = await carte(["apply", "-c", config, "--auto-approve", "-q"]);
    expect(r.code, r.err).toBe(0);
    return config;
  }

  const state = (dir: string) => path.join(dir, ".carte", "emulator-state.json");

  it("gives a new project a copy of the emulator's state, so that it plans against what was read: no changes", async () => {
    const config = await applied();
    const out = path.join(tempDir(), "imported");
    const run = await carte(["import", "--store", "700001", "-c", config, "--out", out]);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toMatch(/created\s+\S*imported\/\.carte\/emulator-state\.json\n/);
    expect(run.out).toContain("(it should show no changes)");
    // No platform: section (the embedded emulator), its state the one read, private; a .gitignore for it.
    expect(parse(readFileSync(path.join(out, "carte.yaml"), "utf8"))).not.toHaveProperty("platform");
    expect(readFileSync(state(out), "utf8")).toBe(readFileSync(state(path.dirname(config)), "utf8"));
    expect(statSync(state(out)).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(state(out))).mode & 0o777).toBe(0o700);
    expect(readFileSync(path.join(out, ".gitignore"), "utf8")).toBe(GITIGNORE);

    const plan = await carte(["plan", "--detailed-exitcode", "-c", path.join(out, "carte.yaml")]);
    expect(plan.out).toContain("No changes");
    expect(plan.code).toBe(0);
  });

  it("never overwrites another state, nor writes through a link in place of .carte", async () => {
    const config = await applied();
    const other = tempDir();
    mkdirSync(path.join(other, ".carte"));
    writeFileSync(state(other), '{"formatVersion":1}');
    const refused = await carte(["import", "--store", "700001", "-c", config, "--out", other]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(".carte/emulator-state.json");
    expect(refused.err).toContain("never overwrites");
    expect(existsSync(path.join(other, "carte.yaml"))).toBe(false);
    expect(readFileSync(state(other), "utf8")).toBe('{"formatVersion":1}');

    const linked = tempDir();
    const elsewhere = tempDir();
    symlinkSync(elsewhere, path.join(linked, ".carte"), "dir");
    const link = await carte(["import", "--store", "700001", "-c", config, "--out", linked]);
    expect(link.code).toBe(1);
    expect(link.err).toContain("is a link or a file");
    expect(existsSync(path.join(elsewhere, "emulator-state.json"))).toBe(false);
    expect(existsSync(path.join(linked, "carte.yaml"))).toBe(false);
  });

  it("merges into a project without a state of its own by copying the state, and says when the project plans elsewhere", async () => {
    const config = await applied();
    const fresh = tempDir();
    writeFileSync(
      path.join(fresh, "carte.yaml"),
      "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n",
    );
    const merged = await carte(["import", "--store", "700001", "-c", config, "--out", fresh, "--merge"]);
    expect(merged.code, merged.err).toBe(0);
    expect(merged.out).toContain("(it should show no changes)");
    const plan = await carte(["plan", "--detailed-exitcode", "-c", path.join(fresh, "carte.yaml")]);
    expect(plan.out).toContain("No changes");
    expect(plan.code).toBe(0);

    // A project whose embedded emulator has a state of its own keeps it: the import says so.
    const own = tempDir();
    writeFileSync(
      path.join(own, "carte.yaml"),
      "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n",
    );
    mkdirSync(path.join(own, ".carte"));
    writeFileSync(state(own), readFileSync(state(fresh), "utf8").replace('"name":"A"', '"name":"Z"'));
    const noted = await carte(["import", "--store", "700001", "-c", config, "--out", own, "--merge"]);
    expect(noted.code, noted.err).toBe(0);
    expect(noted.err).toMatch(
      /Note: \S+carte\.yaml plans against the embedded emulator \(state in \S+\), not the embedded emulator/,
    );
    expect(noted.out).toMatch(/Check it with: carte plan -c \S+carte\.yaml\n$/);
  });
});
