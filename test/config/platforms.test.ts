import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadEachPlatform, loadProject, readPlatformNames } from "../../src/config/index.js";
import { DEFAULT_PARSE_LIMITS, lazyYamlFile, scalarSource, withValue } from "../../src/source/yaml.js";
import { CATALOG, problemsOf, PROJECT, shown, storeYaml, writeProject } from "./helpers.js";

/** Two platforms of one currency (the scoping alone), each with a group; `bog` has a development host. */
const TWO = `version: 1
stores: stores/*.yaml
catalogs: catalogs/*.yaml
groups: groups/*.yaml
platforms:
  bog:
    country: CO
    currency: COP
    hosts:
      auth: https://auth.bog.example.com
      menu: https://auth.bog.example.com
      finance: https://auth.bog.example.com
      availability: https://svc.bog.example.com
      webhooks: https://svc.bog.example.com
      utils: https://svc.bog.example.com
    credentials: { client_id: BOG_ID }
    development:
      base_url: https://dev.example.com
      stores:
        bog-centro: { id: 990101, integration_id: test-bog-centro, name: Test Centro }
  med:
    country: CO
    currency: COP
    language: es
`;

function twoPlatforms(extra: Record<string, string> = {}): Record<string, string> {
  return {
    "carte.yaml": TWO,
    "catalogs/burgers.yaml": CATALOG,
    "groups/bogota.yaml": "defaults:\n  platform: bog\n",
    "groups/medellin.yaml": "defaults:\n  platform: med\n",
    "stores/bog-centro.yaml": storeYaml(900101, "bog-centro", "group: bogota\n"),
    "stores/bog-norte.yaml": storeYaml(900102, "bog-norte", "group: bogota\n"),
    // The same store id and integration id on the other platform: each platform has its own stores.
    "stores/med-centro.yaml": storeYaml(900101, "bog-centro-2", "group: medellin\n"),
    "stores/med-sur.yaml": storeYaml(900103, "med-sur", "platform: med\n"),
    ...extra,
  };
}

describe("carte.yaml platforms:", () => {
  it("names its platforms, in the order written, reading carte.yaml alone", async () => {
    const dir = await writeProject(twoPlatforms({ "stores/broken.yaml": "store: [" }));
    expect(await readPlatformNames(join(dir, "carte.yaml"))).toEqual(["bog", "med"]);
    const single = await writeProject({ "carte.yaml": PROJECT });
    expect(await readPlatformNames(join(single, "carte.yaml"))).toEqual([]);
  });

  it("loads one platform: its stores, hosts, currency and credential names", async () => {
    const dir = await writeProject(twoPlatforms());
    const bog = await loadProject(join(dir, "carte.yaml"), { platform: { name: "bog" } });
    expect(Object.keys(bog.desired.stores)).toEqual(["bog-centro", "bog-norte"]);
    expect(bog.platform?.hosts.menu).toBe("https://auth.bog.example.com");
    expect(bog.platform?.hosts.utils).toBe("https://svc.bog.example.com");
    expect(bog.currency?.code).toBe("COP");
    expect(bog.platformOf).toEqual({
      name: "bog",
      country: "CO",
      rehearsal: false,
      credentials: { clientId: "BOG_ID", clientSecret: "CARTE_BOG_CLIENT_SECRET" },
    });
    expect(bog.files.some((f) => f.endsWith("med-sur.yaml"))).toBe(false);
    const med = await loadProject(join(dir, "carte.yaml"), { platform: { name: "med" } });
    // No hosts: the embedded emulator.
    expect(med.platform).toBeUndefined();
    expect(Object.keys(med.desired.stores)).toEqual(["bog-centro-2", "med-sur"]);
    expect(med.platformOf?.language).toBe("es");
    expect(med.platformOf?.credentials.clientId).toBe("CARTE_MED_CLIENT_ID");
  });

  it("rehearses on the development host: its hosts, credentials and the mapped test stores alone", async () => {
    const dir = await writeProject(twoPlatforms());
    const dev = await loadProject(join(dir, "carte.yaml"), { platform: { name: "bog", rehearsal: true } });
    expect(Object.keys(dev.desired.stores)).toEqual(["test-bog-centro"]);
    const store = dev.desired.stores["test-bog-centro"]!;
    expect(store.store).toMatchObject({
      storeId: "990101",
      integrationId: "test-bog-centro",
      name: "Test Centro",
    });
    expect(dev.platform?.hosts.auth).toBe("https://dev.example.com");
    expect(dev.platformOf?.rehearsal).toBe(true);
    expect(dev.platformOf?.credentials).toEqual({
      clientId: "CARTE_BOG_DEV_CLIENT_ID",
      clientSecret: "CARTE_BOG_DEV_CLIENT_SECRET",
    });
    const problems = await problemsOf(
      loadProject(join(dir, "carte.yaml"), { platform: { name: "med", rehearsal: true } }),
    );
    expect(problems.join("\n")).toMatch(/platform "med" has no development: host/);
  });

  it("loads each platform in turn, and the rehearsal of those with a development host", async () => {
    const dir = await writeProject(twoPlatforms());
    const each = await loadEachPlatform(join(dir, "carte.yaml"));
    expect(each.map((e) => [e.name, Object.keys(e.project.desired.stores).length])).toEqual([
      ["bog", 2],
      ["med", 2],
    ]);
    const rehearsals = await loadEachPlatform(join(dir, "carte.yaml"), { rehearsal: true });
    expect(rehearsals.map((e) => e.name)).toEqual(["bog"]);
    const single = await writeProject({
      "carte.yaml": PROJECT,
      "catalogs/burgers.yaml": CATALOG,
      "stores/a.yaml": storeYaml(1, "a"),
    });
    const one = await loadEachPlatform(join(single, "carte.yaml"));
    expect(one.map((e) => e.name)).toEqual([undefined]);
    const none = await problemsOf(loadEachPlatform(join(single, "carte.yaml"), { rehearsal: true }));
    expect(none.join("\n")).toMatch(/a rehearsal runs on a platform's development host, and no platform/);
  });

  it("refuses a load without a platform, naming the platforms", async () => {
    const dir = await writeProject(twoPlatforms());
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml")));
    expect(problems).toEqual([
      `${shown(dir, "carte.yaml")}:5:1: this project has the platforms "bog" and "med": load one at a time (--platform NAME), or each in turn (loadEachPlatform)`,
    ]);
    const unknown = await problemsOf(loadProject(join(dir, "carte.yaml"), { platform: { name: "bogg" } }));
    expect(unknown.join("\n")).toMatch(
      /platform "bogg" is not one of carte.yaml platforms: .*did you mean "bog"/,
    );
  });

  it("locates a store without a platform, an unknown platform and a platform other than its group's", async () => {
    const dir = await writeProject(
      twoPlatforms({
        "stores/lost.yaml": storeYaml(900201, "lost"),
        "stores/typo.yaml": storeYaml(900202, "typo", "platform: medd\n"),
        "stores/mixed.yaml": storeYaml(900203, "mixed", "group: medellin\nplatform: bog\n"),
      }),
    );
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml"), { platform: { name: "bog" } }));
    expect(problems).toContain(
      `${shown(dir, "stores/lost.yaml")}:1:1: this store belongs to no platform: write platform: NAME in it, in its group's defaults or in carte.yaml's defaults (one of "bog", "med")`,
    );
    expect(problems).toContain(
      `${shown(dir, "stores/typo.yaml")}:6:11: platform "medd" is not one of carte.yaml platforms: ("bog", "med") (did you mean "med"?)`,
    );
    expect(problems).toContain(
      `${shown(dir, "stores/mixed.yaml")}:7:11: this store's platform "bog" is not its group "medellin"'s ("med"): a store joins a group of its own platform`,
    );
  });

  it("leaves another platform's store files out unread: their problems are that platform's", async () => {
    const dir = await writeProject(
      twoPlatforms({
        // Another platform's by its group and by its own platform:, each with a key the schema refuses.
        "stores/med-bad.yaml": storeYaml(900301, "med-bad", "group: medellin\ncolour: red\n"),
        "stores/med-worse.yaml": storeYaml(900302, "med-worse", "platform: 'med' # Medellín\ncolour: red\n"),
        // Written as a flow mapping: parsed, then left out as another platform's.
        "stores/med-flow.yaml":
          "{store: {id: 900303, integration_id: med-flow, name: Flow}, catalog: burgers, platform: med}\n",
      }),
    );
    const bog = await loadProject(join(dir, "carte.yaml"), { platform: { name: "bog" } });
    expect(Object.keys(bog.desired.stores)).toEqual(["bog-centro", "bog-norte"]);
    expect(bog.files.filter((f) => f.includes("med-"))).toEqual([]);
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml"), { platform: { name: "med" } }));
    expect(problems.filter((p) => p.includes('unknown key "colour"'))).toHaveLength(2);
  });

  it("refuses platform: in an included settings file", async () => {
    const dir = await writeProject(
      twoPlatforms({
        "stores/med-sur.yaml": storeYaml(900103, "med-sur", "platform: med\ninclude: shared.yaml\n"),
        "shared.yaml": "platform: bog\n",
      }),
    );
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml"), { platform: { name: "med" } }));
    expect(problems).toEqual([
      `${shown(dir, "shared.yaml")}:1:1: platform: is not read from an included file: write it in the store file, in its group's defaults or in carte.yaml's defaults`,
    ]);
  });

  it("takes carte.yaml defaults: platform: for a store that names none", async () => {
    const dir = await writeProject(
      twoPlatforms({
        "carte.yaml": `${TWO}defaults:\n  platform: med\n`,
        "stores/lost.yaml": storeYaml(900201, "lost"),
      }),
    );
    const med = await loadProject(join(dir, "carte.yaml"), { platform: { name: "med" } });
    expect(Object.keys(med.desired.stores)).toContain("lost");
  });

  it("refuses platform: and currency: beside platforms:, bad countries, and credentials that are not names", async () => {
    const secret = "s3cr3t-Value_pasted";
    const dir = await writeProject(
      twoPlatforms({
        "carte.yaml": TWO.replace("version: 1\n", "version: 1\ncurrency: COP\n")
          .replace(
            "    country: CO\n    currency: COP\n    language: es",
            "    country: CX\n    currency: COP\n    credentials: { client_id: 987654321 }",
          )
          .replace(
            "credentials: { client_id: BOG_ID }",
            `credentials: { client_id: BOG_ID, client_secret: "${secret}" }`,
          ),
      }),
    );
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml"), { platform: { name: "bog" } }));
    const text = problems.join("\n");
    expect(text).toContain(
      `${shown(dir, "carte.yaml")}:2:1: currency: cannot be written together with platforms:, which gives each platform its currency: move it under each platform of platforms:`,
    );
    expect(text).toMatch(
      /carte.yaml:\d+:14: country "CX" is not one the platform serves \(AR, BR, CL, CO, EC, MX, PE, UY\)/,
    );
    expect(text).toMatch(
      /platforms.bog.credentials.client_secret must be the NAME of an environment variable/,
    );
    expect(text).toMatch(/platforms.med.credentials.client_id must be the NAME of an environment variable/);
    expect(text).not.toContain("987654321");
    expect(text).not.toContain(secret);
  });

  it("checks each platform's addresses as platform:'s", async () => {
    const dir = await writeProject(
      twoPlatforms({
        "carte.yaml": TWO.replace("      utils: https://svc.bog.example.com\n", "").replace(
          "base_url: https://dev.example.com",
          "base_url: http://dev.example.com",
        ),
      }),
    );
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml"), { platform: { name: "bog" } }));
    expect(problems.join("\n")).toContain(
      "the API group utils has no address: give platforms.bog.base_url (the address of every group hosts: does not name), or its address under platforms.bog.hosts",
    );
    expect(problems.join("\n")).toContain(
      'address of platforms.bog.development "http://dev.example.com" must start with https://',
    );
  });

  it("keeps a project without platforms: as it was, and refuses platform: in its store files", async () => {
    const dir = await writeProject({
      "carte.yaml": PROJECT,
      "catalogs/burgers.yaml": CATALOG,
      "stores/a.yaml": storeYaml(1, "a", "platform: co\n"),
    });
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml")));
    expect(problems).toEqual([
      `${shown(dir, "stores/a.yaml")}:6:11: platform: names a platform of carte.yaml platforms:, and carte.yaml has none: remove it, or name the platforms under platforms:`,
    ]);
  });
});

/** The two-country fixture: Colombia (COP, es) and Brazil (BRL, pt), one catalog, a group each. */
const FIXTURE = join(import.meta.dirname, "../fixtures/two-countries");

/** The fixture's files by relative path, to write a variant of it with {@link writeProject}. */
function fixtureFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(FIXTURE, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      files[path.slice(FIXTURE.length + 1)] = readFileSync(path, "utf8");
    }
  return files;
}

/** An item of a loaded store's desired state. */
function itemOf(project: { desired: { stores: Record<string, unknown> } }, store: string, sku: string) {
  const state = project.desired.stores[store] as unknown as {
    kinds: { item: { items: Record<string, Record<string, unknown>> } };
  };
  return state.kinds.item.items[sku]!;
}

describe("one catalog across countries", () => {
  it("sells each item at its platform's currency's price, with its rules and overrides", async () => {
    const [co, br] = await loadEachPlatform(join(FIXTURE, "carte.yaml"));
    expect(co!.project.currency?.code).toBe("COP");
    // 24900 + 10 % = 27390, rounded up to the COP step 100.
    expect(itemOf(co!.project, "bog-centro", "BURGER").price).toBe(27400);
    expect(itemOf(co!.project, "bog-centro", "CHEESE")).toMatchObject({
      price: 2200,
      priceInParent: { BURGER: 0 },
    });
    expect(br!.project.currency?.code).toBe("BRL");
    expect(itemOf(br!.project, "sp-paulista", "BURGER").price).toBe(29.9);
    expect(itemOf(br!.project, "sp-paulista", "FRIES").price).toBe(13.9);
    expect(itemOf(br!.project, "sp-paulista", "BACON").price).toBe(6);
    // The catalogs as written, prices per currency and all (what an import merges into).
    expect(br!.project.catalogs.get("burgers")?.catalog.items?.[0]?.price).toEqual({ COP: 24900, BRL: 29.9 });
  });

  it("shows the titles of the platform's language, the written ones where no translation gives one", async () => {
    const [co, br] = await loadEachPlatform(join(FIXTURE, "carte.yaml"));
    expect(itemOf(co!.project, "bog-centro", "BURGER")).toMatchObject({
      title: "Hamburguesa clásica",
      description: "Carne, queso y tomate",
    });
    expect(itemOf(br!.project, "sp-paulista", "BURGER")).toMatchObject({
      title: "Hambúrguer clássico",
      description: "Carne, queijo e tomate",
    });
    expect(itemOf(br!.project, "sp-paulista", "FRIES")).toMatchObject({
      title: "Batata frita",
      description: "",
    });
    expect(itemOf(br!.project, "sp-paulista", "EXTRAS").title).toBe("Adicionais");
    expect(itemOf(br!.project, "sp-paulista", "CHEESE").title).toBe("Queijo");
    expect(itemOf(br!.project, "sp-paulista", "BACON").title).toBe("Tocineta");
    const state = br!.project.desired.stores["sp-paulista"] as unknown as {
      kinds: { category: Record<string, { title: string }> };
    };
    expect(state.kinds.category.MAIN!.title).toBe("Principais");
  });

  it("rehearses the mapped store on the development host under its test identity", async () => {
    const [dev] = await loadEachPlatform(join(FIXTURE, "carte.yaml"), { rehearsal: true });
    expect(dev!.name).toBe("co");
    expect(Object.keys(dev!.project.desired.stores)).toEqual(["test-bog-centro"]);
    expect(itemOf(dev!.project, "test-bog-centro", "BURGER").price).toBe(27400);
    expect(dev!.project.platformOf?.credentials.clientId).toBe("CARTE_CO_DEV_CLIENT_ID");
  });

  it("refuses a price a store sells without an amount in its currency, naming the store, platform and currency", async () => {
    const files = fixtureFiles();
    files["catalogs/burgers.yaml"] = files["catalogs/burgers.yaml"]!.replace(
      "price: { COP: 4500, BRL: 6 }",
      "price: { COP: 4500 }",
    );
    const dir = await writeProject(files);
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml"), { platform: { name: "br" } }));
    expect(problems).toEqual([
      `${shown(dir, "catalogs/burgers.yaml")}:29:47: "BACON" has no price in BRL, and store "sp-paulista" of platform "br" sells it: write BRL: … in this price (or the store's price under overrides: prices:, or exclude it there); another currency's amount is never used`,
    ]);
    // Colombia's stores have their price.
    const co = await loadProject(join(dir, "carte.yaml"), { platform: { name: "co" } });
    expect(itemOf(co, "bog-centro", "BACON").price).toBe(5000);
    // A store that prices it in its overrides, or does not sell it, needs none.
    files["groups/sao-paulo.yaml"] += "      BACON: 6.50\n";
    const priced = await writeProject(files);
    const br = await loadProject(join(priced, "carte.yaml"), { platform: { name: "br" } });
    expect(itemOf(br, "sp-paulista", "BACON").price).toBe(6.5);
  });

  it("refuses a single amount where the platforms sell in several currencies, and checks each amount in its own", async () => {
    const files = fixtureFiles();
    files["catalogs/burgers.yaml"] = files["catalogs/burgers.yaml"]!.replace(
      "price: { COP: 8900, BRL: 12.50 }",
      "price: 8900",
    ).replace("price: { COP: 2000, BRL: 3.50 }", "price: { COP: 2000.5, BRL: 3.505 }");
    const dir = await writeProject(files);
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml"), { platform: { name: "co" } }));
    const catalog = shown(dir, "catalogs/burgers.yaml");
    expect(problems).toEqual([
      `${catalog}:14:12: the platforms of carte.yaml sell in COP and BRL: write the price per currency, {COP: …, BRL: …}`,
      `${catalog}:27:25: price 2000.5 has 1 decimal, but COP prices have none: write whole amounts`,
      `${catalog}:27:38: price 3.505 has 3 decimals, but BRL prices have at most 2: round it to 2 decimals (3.51)`,
    ]);
  });

  it("refuses an option's price inside its parent without an amount in the store's currency", async () => {
    const files = fixtureFiles();
    files["catalogs/burgers.yaml"] = files["catalogs/burgers.yaml"]!.replace(
      "option_prices: { CHEESE: { COP: 0, BRL: 0 } }",
      "option_prices: { CHEESE: { COP: 0 } }",
    );
    const dir = await writeProject(files);
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml"), { platform: { name: "br" } }));
    expect(problems).toEqual([
      `${shown(dir, "catalogs/burgers.yaml")}:9:30: "CHEESE" inside "BURGER" has no price in BRL, and store "sp-paulista" of platform "br" sells it: write BRL: … in this price (or the store's price under overrides: option_prices:, or exclude it there); another currency's amount is never used`,
    ]);
  });

  it("refuses prices in carte.yaml's defaults when the platforms sell in several currencies", async () => {
    const files = fixtureFiles();
    files["carte.yaml"] = files["carte.yaml"]!.replace(
      "  price_rules: []\n",
      "  overrides:\n    prices:\n      FRIES: 8900\n",
    );
    const dir = await writeProject(files);
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml"), { platform: { name: "br" } }));
    expect(problems).toEqual([
      `${shown(dir, "carte.yaml")}:32:5: carte.yaml's defaults apply to the stores of every platform, which sell in COP and BRL: write prices under overrides: in each platform's groups or stores, in its currency`,
    ]);
  });

  it("refuses a price rule amount per currency without the store's currency", async () => {
    const files = fixtureFiles();
    files["groups/bogota.yaml"] = files["groups/bogota.yaml"]!.replace(
      'step: { COP: 100, BRL: "0.10" }',
      'step: { BRL: "0.10" }',
    );
    const dir = await writeProject(files);
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml"), { platform: { name: "co" } }));
    expect(problems).toEqual([
      `${shown(dir, "groups/bogota.yaml")}:4:28: step gives no amount in COP, the currency of the stores this rule applies to: write COP: … in it`,
    ]);
  });
});

describe("a catalog read in one platform's currency", () => {
  it("is a copy of a file kept parsed that still needs no parse for a number's source", () => {
    // The text is not what was kept: a parse would give 9, the kept sources give 1.50.
    const kept = lazyYamlFile("c.yaml", "x: 9\n", DEFAULT_PARSE_LIMITS, { x: 1.5 }, { "/x": "1.50" });
    const copy = withValue(kept, { x: 1.5, y: 2 });
    expect(copy.data).toEqual({ x: 1.5, y: 2 });
    expect(kept.data).toEqual({ x: 1.5 });
    expect(scalarSource(copy, "/x")).toBe("1.50");
    expect(scalarSource(copy, "/y")).toBe("2");
  });
});
