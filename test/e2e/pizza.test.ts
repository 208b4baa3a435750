/**
 * End to end on examples/pizza: nested modifier groups (size → crust → toppings, and a combo whose
 * drink has a size), option prices inside a parent at every level, image hosts, and COP prices. The
 * chain applies to the embedded emulator, plans nothing afterwards, reads back raw with the nesting it
 * was given, and `carte import` writes the example's files again, byte for byte. Then `carte import`
 * into an existing project: refused, and `--merge` changes no file of it.
 */

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import type { WireItemRead } from "../../src/platform/wire.js";
import { PlatformClient } from "../../src/platform/client.js";
import { CLIENT_ID, CLIENT_SECRET, carte, copyExample, repoRoot } from "../helpers/project.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Every file under a folder (`.carte/` left out), by relative path. */
function readTree(dir: string, sub = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(path.join(dir, sub))) {
    const rel = path.join(sub, name);
    if (name === ".carte") continue;
    if (statSync(path.join(dir, rel)).isDirectory()) Object.assign(out, readTree(dir, rel));
    else out[rel] = readFileSync(path.join(dir, rel), "utf8");
  }
  return out;
}

const STORES = "pz-centro,pz-norte,pz-sur";

describe("the pizza chain (examples/pizza)", () => {
  it("applies nested modifiers, plans nothing, reads them back raw, and imports the same bytes", async () => {
    const dir = copyExample("examples/pizza");
    dirs.push(dir);
    const config = path.join(dir, "carte.yaml");
    const applied = await carte(["apply", "--auto-approve", "-q", "-c", config]);
    expect(applied.code).toBe(0);
    expect(applied.out).toContain("The embedded emulator (state in ");
    expect(applied.out).toContain(" shows every change");
    const again = await carte(["plan", "--detailed-exitcode", "-c", config]);
    expect(again.out).toContain("No changes");
    expect(again.code).toBe(0);

    // The live nesting, read with raw calls on the state the embedded emulator kept.
    const emu = await startEmulator({ stateFile: path.join(dir, ".carte", "emulator-state.json") });
    const client = new PlatformClient({ baseUrl: emu.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    try {
      const read = async (storeId: string) => {
        // The raw answer of GET /store-menu (docs/platform-api.md §2.4), as the platform sends it.
        const menu = (await client.request(
          "GET /restaurants/menu/v1/stores/{storeId}/store-menu",
          { storeId },
          undefined,
        )) as { items: WireItemRead[] };
        const items = new Map(menu.items.map((i) => [i.sku, i]));
        const kids = (sku: string) =>
          [...(items.get(sku)?.items_info.items ?? [])].sort((a, b) => a.index - b.index).map((r) => r.sku);
        return { items, kids };
      };
      const norte = await read("900302");
      expect(norte.kids("PIZZA-MARGHERITA")).toEqual(["PIZZA-SIZE"]);
      expect(norte.kids("PIZZA-SIZE")).toEqual(["SIZE-M", "SIZE-L"]);
      expect(norte.kids("SIZE-L")).toEqual(["CRUST"]);
      expect(norte.kids("CRUST")).toEqual(["CRUST-THIN", "CRUST-CLASSIC", "CRUST-STUFFED"]);
      expect(norte.kids("CRUST-STUFFED")).toEqual(["TOPPINGS"]);
      expect(norte.kids("TOPPINGS")).toEqual(["TOP-OLIVES", "TOP-MUSHROOMS", "TOP-JALAPENO", "TOP-CHEESE"]);
      expect(norte.kids("COMBO-PIZZA-DRINK")).toEqual(["COMBO-PIZZA", "COMBO-DRINK"]);
      expect(norte.kids("COMBO-DRINK")).toEqual(["DRINK-COLA", "DRINK-LEMONADE"]);
      expect(norte.kids("DRINK-LEMONADE")).toEqual(["DRINK-SIZE"]);
      expect(norte.kids("DRINK-SIZE")).toEqual(["DRINK-350", "DRINK-1500"]);
      // Option prices inside a parent, two levels down: override_type ITEM keyed by the parent option.
      expect(norte.items.get("CRUST-STUFFED")?.price_info.price).toBe(5000);
      expect(norte.items.get("CRUST-STUFFED")?.price_info.overrides).toEqual([
        { override_type: "ITEM", override_sku: "SIZE-L", price: 7000 },
      ]);
      expect(norte.items.get("DRINK-1500")?.price_info.overrides).toEqual([
        { override_type: "ITEM", override_sku: "DRINK-LEMONADE", price: 4000 },
      ]);
      expect(norte.items.get("PIZZA-PEPPERONI")?.price_info.price).toBe(28900);
      // The image keeps its host, and reads with the platform's id (docs/platform-api.md §4.3 `{id, path,
      // index, host}`).
      expect(norte.items.get("PIZZA-MARGHERITA")?.images_info.images).toEqual([
        {
          id: expect.any(Number),
          path: "img/margherita.jpg",
          index: 0,
          host: "https://images.brasa.example",
        },
      ]);
      // A store that excludes an option of a nested group.
      const sur = await read("900303");
      expect(sur.kids("CRUST")).toEqual(["CRUST-THIN", "CRUST-CLASSIC"]);
      expect(sur.items.has("CRUST-STUFFED")).toBe(false);
    } finally {
      await client.close();
      await emu.close();
    }

    // Imported into an empty folder: exactly the example's files.
    const out = mkdtempSync(path.join(tmpdir(), "carte-pizza-import-"));
    dirs.push(out);
    const imported = await carte(["import", "-q", "-c", config, "--store", STORES, "--out", out]);
    expect(imported.err).toBe("");
    expect(imported.code).toBe(0);
    expect(readTree(out)).toEqual(readTree(path.join(repoRoot, "examples", "pizza")));
  });
});

describe("carte import into an existing project", () => {
  it("refuses without --merge, and --merge changes no file of the project", async () => {
    const dir = copyExample("examples/chain");
    dirs.push(dir);
    const config = path.join(dir, "carte.yaml");
    expect((await carte(["apply", "--auto-approve", "-q", "-c", config])).code).toBe(0);
    const before = readTree(dir);

    const refused = await carte(["import", "-c", config, "--store", "bog-centro,med-poblado", "--out", dir]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("is a carte project, and carte import never overwrites its files");
    expect(readTree(dir)).toEqual(before);

    // Someone changes a price on the platform, and a store the files do not know exists there.
    const emu = await startEmulator({ stateFile: path.join(dir, ".carte", "emulator-state.json") });
    const client = new PlatformClient({ baseUrl: emu.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    try {
      const live = await client.getStoreMenu("900101");
      const burger = live.items.find((i) => i.sku === "BURGER-CLASSIC")!;
      await client.request("POST /restaurants/menu/v1/stores/{storeId}/items", { storeId: "900101" }, [
        { ...burger, price_info: { price: 26900 } },
      ]);
      await emu.idle();
    } finally {
      await client.close();
      await emu.close();
    }
    const edited = readTree(dir);

    const merged = await carte([
      "import",
      "-c",
      config,
      "--store",
      "bog-centro,bog-chapinero,med-poblado,900999",
      "--out",
      dir,
      "--merge",
    ]);
    // Conflicts: the managed store the platform disagrees with, and a new store the chain's defaults
    // (holidays of the included file) would change. Nothing is written.
    expect(merged.code).toBe(2);
    expect(merged.err).toContain(
      "store[bog-centro]: the project's files already manage this store and the platform differs in item",
    );
    expect(merged.err).toContain(
      "store[store-900999]: the project's defaults, group or includes would change its",
    );
    expect(merged.err).not.toContain("bog-chapinero");
    expect(merged.err).toContain("carte.yaml and every existing file were left as they are");
    expect(readTree(dir)).toEqual(edited);
  });
});
