/**
 * `carte import` of a project of several platforms (carte.yaml `platforms:`): a chain in Colombia (COP,
 * Spanish titles) and Brazil (BRL, Portuguese titles), each on its own platform with its own client,
 * imported into ONE project: one catalog whose items match by SKU, prices per currency, Portuguese titles
 * as translations, groups per country, each store's platform set; then `carte plan` finds no changes
 * on either platform.
 */

import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { toWireCategory } from "../../src/kinds/categories.js";
import { toWireItem } from "../../src/kinds/items.js";
import { PlatformClient } from "../../src/platform/client.js";
import type { LoadedProject } from "../../src/config/index.js";
import { storesPerPlatform } from "../../src/cli/import-countries.js";
import { carte } from "../helpers/project.js";
import { group, item } from "../helpers/builders.js";

const POST_ITEMS = "POST /restaurants/menu/v1/stores/{storeId}/items" as const;
const POST_CATEGORIES = "POST /restaurants/menu/v1/stores/{storeId}/categories" as const;
const CO = { client_id: "chain-co", client_secret: "co-secret-do-not-print-0123456789" };
const BR = { client_id: "chain-br", client_secret: "br-secret-do-not-print-0123456789" };
const ENV = {
  CARTE_CO_CLIENT_ID: CO.client_id,
  CARTE_CO_CLIENT_SECRET: CO.client_secret,
  CARTE_BR_CLIENT_ID: BR.client_id,
  CARTE_BR_CLIENT_SECRET: BR.client_secret,
};

let co: RunningEmulator;
let br: RunningEmulator;
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "carte-import-countries-"));
  dirs.push(dir);
  return dir;
}

/**
 * Writes a store's menu on its platform: items (with a group of sauces, whose ketchup has a price of
 * its own inside the burger), one category, and items that only this country sells.
 */
async function seedStore(
  emu: RunningEmulator,
  creds: { client_id: string; client_secret: string },
  storeId: string,
  menu: {
    burger: [number, string, string];
    fries: [number, string];
    ketchup: number;
    sauces: string;
    category: string;
    own?: [string, number, string];
  },
): Promise<void> {
  const client = new PlatformClient({
    baseUrl: emu.url,
    clientId: creds.client_id,
    clientSecret: creds.client_secret,
  });
  try {
    await client.request(POST_ITEMS, { storeId }, [
      toWireItem(
        item("BURGER", menu.burger[0], {
          title: menu.burger[1],
          description: menu.burger[2],
          children: ["SAUCES"],
        }),
      ),
      toWireItem(item("FRIES", menu.fries[0], { title: menu.fries[1] })),
      toWireItem({ ...group("SAUCES", ["KETCHUP"], 0, 1), title: menu.sauces }),
      toWireItem(item("KETCHUP", 0, { title: "Ketchup", priceInParent: { BURGER: menu.ketchup } })),
      ...(menu.own ? [toWireItem(item(menu.own[0], menu.own[1], { title: menu.own[2] }))] : []),
    ]);
    await emu.idle();
    await client.request(POST_CATEGORIES, { storeId }, [
      toWireCategory({
        sku: "MAINS",
        title: menu.category,
        items: ["BURGER", "FRIES", ...(menu.own ? [menu.own[0]] : [])],
      }),
    ]);
    await emu.idle();
  } finally {
    await client.close();
  }
}

const COLOMBIA = {
  burger: [24900, "Hamburguesa clásica", "Con queso"] as [number, string, string],
  fries: [8900, "Papas fritas"] as [number, string],
  ketchup: 500,
  sauces: "Salsas",
  category: "Principales",
};
const BRAZIL = {
  burger: [29.9, "Hambúrguer clássico", "Com queijo"] as [number, string, string],
  fries: [12.5, "Batata frita"] as [number, string],
  ketchup: 1.5,
  sauces: "Molhos",
  // Sold in Brazil only: a price in reais, none in pesos.
  own: ["ACAI", 15.9, "Açaí"] as [string, number, string],
  category: "Principais",
};

beforeAll(async () => {
  co = await startEmulator({
    port: 0,
    applyDelayMs: 0,
    seed: {
      clients: [
        {
          ...CO,
          country: "CO",
          stores: [
            { id: "900101", integration_id: "bog-centro", name: "Bogotá Centro" },
            { id: "900102", integration_id: "bog-norte", name: "Bogotá Norte" },
          ],
        },
      ],
    },
  });
  br = await startEmulator({
    port: 0,
    applyDelayMs: 0,
    seed: {
      clients: [
        {
          ...BR,
          country: "BR",
          stores: [
            { id: "910101", integration_id: "sp-paulista", name: "São Paulo Paulista" },
            { id: "910102", integration_id: "sp-pinheiros", name: "São Paulo Pinheiros" },
          ],
        },
      ],
    },
  });
  await seedStore(co, CO, "900101", COLOMBIA);
  await seedStore(co, CO, "900102", COLOMBIA);
  await seedStore(br, BR, "910101", BRAZIL);
  // Pinheiros charges more for its burger: a price of its own, in reais.
  await seedStore(br, BR, "910102", { ...BRAZIL, burger: [32.9, BRAZIL.burger[1], BRAZIL.burger[2]] });
});

afterAll(async () => {
  await co.close();
  await br.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A project of two platforms, Colombia and Brazil, each at its emulator's address. */
function twoCountries(): string {
  const dir = tempDir();
  const config = path.join(dir, "carte.yaml");
  writeFileSync(
    config,
    [
      "version: 1",
      "platforms:",
      "  co:",
      "    country: CO",
      "    currency: COP",
      "    language: es",
      `    base_url: ${co.url}`,
      "  br:",
      "    country: BR",
      "    currency: BRL",
      "    language: pt",
      `    base_url: ${br.url}`,
      "stores: stores/*.yaml",
      "catalogs: catalogs/*.yaml",
      "",
    ].join("\n"),
  );
  return config;
}

const yamlOf = (file: string): Record<string, unknown> =>
  parse(readFileSync(file, "utf8")) as Record<string, unknown>;

describe("carte import across countries", () => {
  it("writes one project: one catalog, prices per currency, titles per language, each store's platform", async () => {
    const config = twoCountries();
    const out = tempDir();
    const run = await carte(
      [
        "import",
        "--store",
        "co:900101,co:900102",
        "--store",
        "br:910101,br:910102",
        "-c",
        config,
        "--out",
        out,
      ],
      ENV,
    );
    expect(run.err).not.toContain("Error");
    expect(run.code).toBe(0);
    // Each platform read with its own credentials: its own success rate.
    expect(run.err).toMatch(/^co: \d+ calls? to the platform/m);
    expect(run.err).toMatch(/^br: \d+ calls? to the platform/m);

    // carte.yaml keeps the platforms as given.
    const project = yamlOf(path.join(out, "carte.yaml"));
    expect(project.platforms).toEqual(yamlOf(config).platforms);
    expect(project).not.toHaveProperty("currency");
    expect(project).not.toHaveProperty("platform");

    // One catalog for both countries: the items match by SKU.
    expect(readdirSync(path.join(out, "catalogs"))).toEqual(["shared.yaml"]);
    const catalog = yamlOf(path.join(out, "catalogs", "shared.yaml"));
    expect(catalog.items).toEqual([
      {
        sku: "BURGER",
        title: "Hamburguesa clásica",
        description: "Con queso",
        translations: { pt: { title: "Hambúrguer clássico", description: "Com queijo" } },
        price: { COP: 24900, BRL: 29.9 },
        modifier_groups: ["SAUCES"],
        // The ketchup's price inside the burger, per currency too.
        option_prices: { KETCHUP: { COP: 500, BRL: 1.5 } },
      },
      {
        sku: "FRIES",
        title: "Papas fritas",
        translations: { pt: { title: "Batata frita" } },
        price: { COP: 8900, BRL: 12.5 },
      },
      // Only Brazil sells it: its price in reais alone, its title as Brazil writes it.
      { sku: "ACAI", title: "Açaí", price: { BRL: 15.9 } },
    ]);
    expect(catalog.modifier_groups).toEqual([
      {
        sku: "SAUCES",
        title: "Salsas",
        translations: { pt: { title: "Molhos" } },
        min: 0,
        max: 1,
        type: "exclusive",
        options: [{ sku: "KETCHUP", title: "Ketchup", price: { COP: 0, BRL: 0 } }],
      },
    ]);
    expect(catalog.categories).toEqual([
      {
        sku: "MAINS",
        title: "Principales",
        translations: { pt: { title: "Principais" } },
        items: ["BURGER", "FRIES", "ACAI"],
      },
    ]);
    // Each amount as its currency writes it.
    const text = readFileSync(path.join(out, "catalogs", "shared.yaml"), "utf8");
    expect(text).toContain("{COP: 24900, BRL: 29.90}");
    expect(text).toContain("{COP: 8900, BRL: 12.50}");
    expect(text).toContain("KETCHUP: {COP: 500, BRL: 1.50}");
    expect(text).toContain("price: {BRL: 15.90}");

    // Each store's platform: its group's, else its own; a price of its own in its platform's currency.
    const groups = new Map(
      readdirSync(path.join(out, "groups")).map((f) => {
        const g = yamlOf(path.join(out, "groups", f));
        return [g.name as string, g] as const;
      }),
    );
    const platformOf = (store: Record<string, unknown>) =>
      (store.platform as string | undefined) ??
      ((groups.get(store.group as string)?.defaults as Record<string, unknown> | undefined)
        ?.platform as string);
    const stores = Object.fromEntries(
      readdirSync(path.join(out, "stores")).map((f) => [f, yamlOf(path.join(out, "stores", f))]),
    );
    expect(Object.keys(stores).sort()).toEqual([
      "store-900101.yaml",
      "store-900102.yaml",
      "store-910101.yaml",
      "store-910102.yaml",
    ]);
    expect(Object.fromEntries(Object.entries(stores).map(([f, s]) => [f, platformOf(s)]))).toEqual({
      "store-900101.yaml": "co",
      "store-900102.yaml": "co",
      "store-910101.yaml": "br",
      "store-910102.yaml": "br",
    });
    // Groups per country, named after it when the stores' integration ids share no name.
    expect([...groups.keys()].sort()).toEqual(["br", "co"]);
    // No group holds stores of two platforms.
    for (const g of groups.values()) {
      const members = Object.values(stores).filter((s) => s.group === g.name);
      expect(new Set(members.map(platformOf)).size).toBe(1);
    }
    const pinheiros = readFileSync(path.join(out, "stores", "store-910102.yaml"), "utf8");
    expect(pinheiros).toContain("BURGER: 32.90");
    for (const s of ["store-900101.yaml", "store-900102.yaml", "store-910101.yaml"])
      expect(stores[s]).not.toHaveProperty("overrides");

    // The imported project plans against the platforms it was read from: no changes on either.
    for (const platform of ["co", "br"]) {
      const plan = await carte(["plan", "-c", path.join(out, "carte.yaml"), "--platform", platform], ENV);
      expect(plan.err).not.toContain("Error");
      expect(plan.out).toContain("No changes");
      expect(plan.code).toBe(0);
    }
  });

  it("copies each platform's embedded emulator along, so that the new project plans no changes there", async () => {
    const source = path.join(tempDir(), "menu");
    expect((await carte(["init", source, "--countries", "CO,BR"])).code).toBe(0);
    const config = path.join(source, "carte.yaml");
    const applied = await carte(["apply", "--auto-approve", "-c", config]);
    expect(applied.code, applied.err).toBe(0);
    const out = tempDir();
    const run = await carte([
      "import",
      "--store",
      "first-store-co",
      "--store",
      "first-store-br",
      "-c",
      config,
      "--out",
      out,
    ]);
    expect(run.code, run.err).toBe(0);
    for (const name of ["co", "br"])
      expect(run.out).toMatch(new RegExp(`created\\s+.*\\.carte/platforms/${name}/emulator-state\\.json\\n`));
    // The item as init wrote it: one price per currency, the Portuguese title a translation.
    const catalog = readFileSync(path.join(out, "catalogs", "shared.yaml"), "utf8");
    expect(catalog).toMatch(/price: \{ ?COP: 10500, BRL: 10\.50 ?\}/);
    expect(catalog).toContain("pt: {title: Primeiro produto}");
    const plan = await carte(["plan", "--detailed-exitcode", "-c", path.join(out, "carte.yaml")]);
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(plan.out.match(/No changes/g)).toHaveLength(2);
  });

  it("writes bare prices for a project whose platforms have one currency", async () => {
    const source = path.join(tempDir(), "menu");
    expect((await carte(["init", source, "--countries", "BR"])).code).toBe(0);
    const config = path.join(source, "carte.yaml");
    const applied = await carte(["apply", "--auto-approve", "-c", config]);
    expect(applied.code, applied.err).toBe(0);
    const out = tempDir();
    const run = await carte(["import", "--store", "first-store-br", "-c", config, "--out", out]);
    expect(run.code, run.err).toBe(0);
    const catalog = yamlOf(path.join(out, "catalogs", "shared.yaml"));
    expect(catalog.items).toEqual([{ sku: "FIRST-ITEM", title: "Primeiro produto", price: 10.5 }]);
    expect(readFileSync(path.join(out, "catalogs", "shared.yaml"), "utf8")).toContain("price: 10.50}");
    expect(yamlOf(path.join(out, "stores", "first-store-br.yaml")).platform).toBe("br");
    const plan = await carte(["plan", "--detailed-exitcode", "-c", path.join(out, "carte.yaml")]);
    expect(plan.code, plan.out + plan.err).toBe(0);
  });

  it("reads the platforms --platform names only, still writing prices per currency, and refuses --rehearsal", async () => {
    const config = twoCountries();
    const out = tempDir();
    const run = await carte(
      ["import", "--platform", "co", "--store", "900101", "-c", config, "--out", out],
      ENV,
    );
    expect(run.code, run.err).toBe(0);
    expect(run.err).not.toMatch(/^br: /m);
    expect(readdirSync(path.join(out, "stores"))).toEqual(["store-900101.yaml"]);
    // The project still has both currencies: a price is a map, with the one currency sold here.
    expect(Object.keys(yamlOf(path.join(out, "carte.yaml")).platforms as object)).toEqual(["co", "br"]);
    const items = yamlOf(path.join(out, "catalogs", "shared.yaml")).items as Record<string, unknown>[];
    expect(items.find((i) => i.sku === "BURGER")?.price).toEqual({ COP: 24900 });

    const other = await carte(
      ["import", "--platform", "co", "--store", "br:910101", "-c", config, "--out", tempDir()],
      ENV,
    );
    expect(other.code).toBe(1);
    expect(other.err).toContain('store "br:910101": platform br is not among those --platform names (co)');
    const rehearsal = await carte(
      ["import", "--rehearsal", "--store", "co:900101", "-c", config, "--out", tempDir()],
      ENV,
    );
    expect(rehearsal.code).toBe(1);
    expect(rehearsal.err).toContain("carte import reads the production stores: run it without --rehearsal");
    // A project of one platform has no platform to name.
    const single = path.join(tempDir(), "carte.yaml");
    writeFileSync(single, "version: 1\n");
    const none = await carte([
      "import",
      "--platform",
      "co",
      "--store",
      "1",
      "-c",
      single,
      "--out",
      tempDir(),
    ]);
    expect(none.code).toBe(1);
    expect(none.err).toContain("names no platforms (carte.yaml platforms:); run without --platform");
  });

  it("merges each platform's stores into a project of the same platforms, changing none of its files", async () => {
    const config = twoCountries();
    const out = tempDir();
    const first = await carte(["import", "--store", "co:900101", "-c", config, "--out", out], ENV);
    expect(first.code, first.err).toBe(0);
    const files = (dir: string): Record<string, string> =>
      Object.fromEntries(
        readdirSync(dir, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => {
            const file = path.join(e.parentPath, e.name);
            return [path.relative(dir, file), readFileSync(file, "utf8")];
          }),
      );
    const before = files(out);
    const merged = await carte(
      [
        "import",
        "--merge",
        "--store",
        "co:900102",
        "--store",
        "br:910101,br:910102",
        "-c",
        config,
        "--out",
        out,
      ],
      ENV,
    );
    expect(merged.code, merged.err).toBe(0);
    expect(files(out)).toMatchObject(before);
    // Colombia's new store names the project's catalog; Brazil's, which has no price in reais, a new one.
    expect(yamlOf(path.join(out, "stores", "store-900102.yaml"))).toMatchObject({
      platform: "co",
      catalog: "shared",
    });
    for (const store of ["store-910101.yaml", "store-910102.yaml"])
      expect(yamlOf(path.join(out, "stores", store))).toMatchObject({ platform: "br", catalog: "shared-2" });
    const added = yamlOf(path.join(out, "catalogs", "shared-2.yaml"));
    expect((added.items as Record<string, unknown>[]).find((i) => i.sku === "BURGER")?.price).toEqual({
      BRL: 29.9,
    });
    expect(merged.out).toContain("Merged 3 new stores of 3 into");
    const plan = await carte(["plan", "--detailed-exitcode", "-c", path.join(out, "carte.yaml")], ENV);
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(plan.out.match(/No changes/g)).toHaveLength(2);

    // A platform the project merged into does not name is refused before any call.
    const colombian = tempDir();
    writeFileSync(
      path.join(colombian, "carte.yaml"),
      `version: 1\nplatforms:\n  co: {country: CO, currency: COP, base_url: "${co.url}"}\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n`,
    );
    const refused = await carte(
      ["import", "--merge", "--store", "br:910101", "-c", config, "--out", colombian],
      ENV,
    );
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("names no platform br under platforms:");
    expect(refused.err).not.toMatch(/calls? to the platform/);
  });

  it("writes nothing when a platform cannot be read, and says which", async () => {
    const config = twoCountries();
    // Brazil's platform is down: nothing answers at its address.
    writeFileSync(config, readFileSync(config, "utf8").replace(br.url, "http://127.0.0.1:9"));
    const out = tempDir();
    const run = await carte(
      ["import", "--store", "co:900101", "--store", "br:910101", "-c", config, "--out", out],
      ENV,
    );
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^br: \d+ calls to the platform, 0\.0 % succeeded\.$/m);
    expect(run.err).toContain("Platform br could not be read: nothing was written.");
    expect(readdirSync(out)).toEqual([]);
  });

  it("asks which platform a store id is on when the files do not say", async () => {
    const run = await carte(["import", "--store", "900101", "-c", twoCountries(), "--out", tempDir()], ENV);
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      'store "900101": no platform\'s files list it; name its platform as co:900101 or br:900101',
    );
  });
});

describe("the stores of an import across countries", () => {
  const scoped = (name: string, stores: [string, string][] = []) => ({
    name,
    project: {
      desired: {
        stores: Object.fromEntries(
          stores.map(([id, iid]) => [
            iid,
            { store: { key: iid, storeId: id, integrationId: iid, name: iid } },
          ]),
        ),
      },
    } as unknown as LoadedProject,
  });

  it("takes NAME:ID on that platform, and a store of a platform's files on its platform", () => {
    const got = storesPerPlatform(
      ["co:900101", "sp-paulista"],
      [scoped("co"), scoped("br", [["910101", "sp-paulista"]])],
    );
    expect(Object.fromEntries([...got].map(([n, ids]) => [n, ids.map((i) => i.key)]))).toEqual({
      co: ["store-900101"],
      br: ["sp-paulista"],
    });
  });

  it("quotes a hostile store argument escaped and cut short", () => {
    const hostile = `\u001b[2J${"9".repeat(5000)}`;
    let message = "";
    try {
      storesPerPlatform([hostile], [scoped("co"), scoped("br")]);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain("no platform's files list it");
    expect(message).not.toContain("\u001b");
    expect(message.length).toBeLessThan(400);
  });

  it("refuses a store of a platform --platform leaves out", () => {
    expect(() => storesPerPlatform(["co:900101"], [scoped("br")], ["co"])).toThrow(
      'store "co:900101": platform co is not among those --platform names (br)',
    );
  });

  it("names a store id imported on two platforms after its platform on each", () => {
    const got = storesPerPlatform(["co:900101", "br:900101"], [scoped("co"), scoped("br")]);
    expect([...got].map(([n, ids]) => [n, ids.map((i) => i.integrationId)])).toEqual([
      ["co", ["store-co-900101"]],
      ["br", ["store-br-900101"]],
    ]);
  });
});
