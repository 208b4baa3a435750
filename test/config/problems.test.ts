import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject } from "../../src/config/index.js";
import { ConfigError } from "../../src/errors.js";
import { oneHost } from "../../src/platform/routes.js";
import { CATALOG, PROJECT, problemsOf, shown, storeYaml, writeProject } from "./helpers.js";
import { catalogOf } from "../helpers/builders.js";

async function load(files: Record<string, string>): Promise<{ dir: string; problems: string[] }> {
  const dir = await writeProject(files);
  return { dir, problems: await problemsOf(loadProject(join(dir, "carte.yaml"))) };
}

function valid(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    "carte.yaml": PROJECT,
    "catalogs/burgers.yaml": CATALOG,
    "stores/a.yaml": storeYaml(900101, "bog-centro"),
    ...overrides,
  };
}

describe("loadProject problems", () => {
  it("loads the minimal valid project", async () => {
    const dir = await writeProject(valid());
    const project = await loadProject(join(dir, "carte.yaml"));
    expect(Object.keys(project.desired.stores)).toEqual(["bog-centro"]);
    expect(Object.keys(catalogOf(project.desired.stores["bog-centro"])?.items ?? {})).toEqual([
      "BURGER",
      "FRIES",
      "EXTRAS",
      "CHEESE",
      "BACON",
    ]);
  });

  it("locates YAML syntax errors", async () => {
    const { dir, problems } = await load(
      valid({ "catalogs/burgers.yaml": "items:\n  - sku: A\n    title: [unclosed\n" }),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      new RegExp(
        `^${shown(dir, "catalogs/burgers.yaml")}:3:12: YAML syntax error: the \\[ opened here is never closed`,
      ),
    );
  });

  it("reports duplicate keys as YAML errors", async () => {
    const { dir, problems } = await load(
      valid({ "stores/a.yaml": storeYaml(1, "a") + "catalog: burgers\n" }),
    );
    expect(problems).toEqual([
      `${shown(dir, "stores/a.yaml")}:6:1: YAML syntax error: Map keys must be unique`,
    ]);
  });

  it("names the known catalogs when a store names an unknown one", async () => {
    const store = storeYaml(1, "a").replace("catalog: burgers", "catalog: pizza");
    const { dir, problems } = await load(valid({ "stores/a.yaml": store }));
    expect(problems).toEqual([
      `${shown(dir, "stores/a.yaml")}:5:10: unknown catalog "pizza" (known: burgers)`,
    ]);
  });

  it("finds duplicate store ids and integration ids across files", async () => {
    const { dir, problems } = await load(
      valid({ "stores/a.yaml": storeYaml(900101, "a"), "stores/b.yaml": storeYaml('"900101"', "a") }),
    );
    const a = shown(dir, "stores/a.yaml");
    const b = shown(dir, "stores/b.yaml");
    expect(problems).toEqual([
      `${b}:2:7: duplicate store id 900101: already used by the store at ${a}:2:7`,
      `${b}:3:19: duplicate integration_id "a": already used by the store at ${a}:3:19`,
    ]);
  });

  it("asks for quotes around store ids too long for a number", async () => {
    const { problems } = await load(valid({ "stores/a.yaml": storeYaml("12345678901234567890", "a") }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/:2:7: store id .* write it in quotes$/);
  });

  it("keeps store ids given as text exact", async () => {
    const dir = await writeProject(valid({ "stores/a.yaml": storeYaml('"18446744073709551615"', "a") }));
    const project = await loadProject(join(dir, "carte.yaml"));
    expect(project.desired.stores.a?.store.storeId).toBe("18446744073709551615");
  });

  it("reports schema problems in words, located", async () => {
    const { dir, problems } = await load(
      valid({
        "carte.yaml":
          "version: 2\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\nplatform: { base_url: ftp:x }\n",
        "stores/a.yaml": "store:\n  id: 1.5\n  integration_id: Bad_Id\ncatalog: burgers\n",
      }),
    );
    const c = shown(dir, "carte.yaml");
    const s = shown(dir, "stores/a.yaml");
    expect(problems).toEqual([
      `${c}:1:10: version must be 1, got 2`,
      `${c}:4:23: base_url "ftp:x" is not allowed here: write a full address starting with https://`,
      `${s}:2:3: missing required key "name": add name to store: the store's name, for people (for example Bogotá Centro)`,
      `${s}:2:7: id must be a whole number or text, got 1.5`,
      `${s}:3:19: integration_id "Bad_Id" is not allowed here: use lower case letters, digits and dashes, e.g. bog-centro`,
    ]);
  });

  it("reports one problem for a value that fits no alternative", async () => {
    const catalog = CATALOG.replace(
      "categories: [MAIN]",
      "categories: [MAIN, 5, { sku: MAIN, active: yes }]",
    );
    const { dir, problems } = await load(valid({ "catalogs/burgers.yaml": catalog }));
    const f = shown(dir, "catalogs/burgers.yaml");
    expect(problems).toEqual([
      `${f}:16:41: categories[1] must be text or a mapping (key: value lines), got 5`,
      `${f}:16:51: category "MAIN" is listed twice in this menu`,
      `${f}:16:65: active must be true or false, got "yes"`,
    ]);
  });

  it("checks references inside a catalog", async () => {
    const catalog = `items:
  - { sku: A, title: A, price: 1.005, modifier_groups: [G, NOPE, OPT] }
modifier_groups:
  - { sku: G, title: G, min: 2, max: 1, options: [{ sku: OPT, title: O, price: 0 }, A, MISSING] }
  - { sku: H, title: H, min: 0, max: 3, options: [OPT] }
categories:
  - { sku: C, title: C, items: [A, OPT, G, GONE] }
menus:
  - { type: DEFAULT, categories: [C, NOCAT] }
  - { type: DEFAULT, categories: [C] }
`;
    const { dir, problems } = await load(valid({ "catalogs/burgers.yaml": catalog }));
    const f = shown(dir, "catalogs/burgers.yaml");
    expect(problems).toEqual([
      `${f}:2:32: price 1.005 has more than 2 decimals: round it to at most 2, as the platform stores it`,
      `${f}:2:60: unknown modifier group "NOPE": define it under modifier_groups, or remove it here`,
      `${f}:2:66: "OPT" is an option, not a modifier group: an item's modifier_groups lists groups only`,
      `${f}:4:30: min (2) is more than max (1): lower min or raise max`,
      `${f}:4:85: "A" is an item of items:, not an option: write the option in full ({sku, title, price}) with its own SKU`,
      `${f}:4:88: unknown option "MISSING": write it in full ({sku, title, price}) here or in another group of this catalog`,
      `${f}:5:38: max (3) is more than the 1 option of the group: lower max or add options`,
      `${f}:7:36: "OPT" is an option, categories hold only items`,
      `${f}:7:41: "G" is a modifier group, categories hold only items`,
      `${f}:7:44: unknown item "GONE" in category C: add it under items:, or remove it from the category`,
      `${f}:9:38: unknown category "NOCAT": define it under categories, or remove it from the menu`,
      `${f}:10:13: duplicate menu type "DEFAULT": already used at ${f}:9:13; each menu of a catalog needs its own type`,
    ]);
  });

  it("checks the SKUs a store names", async () => {
    const store = storeYaml(
      1,
      "a",
      `overrides:
  prices: { BACON: 5000, EXTRAS: 3, NOPE: 1, FRIES: 9000 }
  exclude: [FRIES, GHOST]
availability:
  unavailable: [EXTRAS, MAIN, FRIES, CHEESE]
`,
    );
    const { dir, problems } = await load(valid({ "stores/a.yaml": store }));
    const s = shown(dir, "stores/a.yaml");
    expect(problems).toEqual([
      `${s}:7:26: "EXTRAS" is a modifier group, which has no price: prices are for items and options`,
      `${s}:7:37: unknown SKU "NOPE": catalog burgers has no item or option with this SKU`,
      `${s}:7:46: "FRIES" is excluded from this store (overrides.exclude), so it cannot have a price here`,
      `${s}:8:20: unknown SKU "GHOST": catalog burgers has no such item, option, group or category`,
      `${s}:10:17: "EXTRAS" is a modifier group: only items and options can be switched off`,
      `${s}:10:25: "MAIN" is a category: only items and options can be switched off`,
      `${s}:10:31: "FRIES" is excluded from this store (overrides.exclude), so it cannot be switched off here`,
    ]);
  });

  it("refuses exclusions that empty a required modifier group", async () => {
    const catalog = CATALOG.replace("min: 0", "min: 1");
    const store = storeYaml(1, "a", "overrides:\n  exclude: [CHEESE, BACON]\n");
    const { dir, problems } = await load(valid({ "catalogs/burgers.yaml": catalog, "stores/a.yaml": store }));
    expect(problems).toEqual([
      `${shown(dir, "stores/a.yaml")}:7:12: excluding options leaves modifier group "EXTRAS" with 0 options, ` +
        `but it needs at least 1: exclude the group too, or keep more of its options`,
    ]);
  });

  it("removes an excluded modifier group from the items that offer it", async () => {
    const store = storeYaml(1, "a", "overrides:\n  exclude: [EXTRAS, BACON]\n  prices: { CHEESE: 2500 }\n");
    const dir = await writeProject(valid({ "stores/a.yaml": store }));
    const { desired } = await loadProject(join(dir, "carte.yaml"));
    const a = desired.stores.a;
    expect(catalogOf(a)?.items.BURGER?.children).toEqual([]);
    // Options offered by no remaining group are not sent.
    expect(Object.keys(catalogOf(a)?.items ?? {})).toEqual(["BURGER", "FRIES"]);
  });

  it("lowers max when exclusions leave fewer options", async () => {
    const store = storeYaml(1, "a", "overrides:\n  exclude: [BACON]\n");
    const dir = await writeProject(valid({ "stores/a.yaml": store }));
    const { desired } = await loadProject(join(dir, "carte.yaml"));
    expect(catalogOf(desired.stores.a)?.items.EXTRAS).toMatchObject({ children: ["CHEESE"], max: 1 });
  });

  it("finds duplicate catalog names", async () => {
    const { dir, problems } = await load(
      valid({ "catalogs/other.yaml": "name: burgers\n" + CATALOG.replace(/BURGER/g, "X") }),
    );
    expect(problems).toEqual([
      `${shown(dir, "catalogs/other.yaml")}:1:7: duplicate catalog name "burgers": ${shown(dir, "catalogs/burgers.yaml")} ` +
        `already has it; give one of them a different name: (the default name is the file name)`,
    ]);
  });

  it("reports an explicitly listed file that does not exist", async () => {
    const { dir, problems } = await load(
      valid({
        "carte.yaml": "version: 1\nstores: [stores/a.yaml, stores/b.yaml]\ncatalogs: catalogs/*.yaml\n",
      }),
    );
    expect(problems).toEqual([
      `${shown(dir, "carte.yaml")}:2:25: stores: file "stores/b.yaml" does not exist (looked for ${shown(dir, "stores/b.yaml")})`,
    ]);
  });

  it("refuses a second YAML document in carte.yaml and in a group file, at its start, and checks the first", async () => {
    const { dir, problems } = await load(
      valid({
        "carte.yaml": PROJECT + "groups: groups/*.yaml\n---\nstores: other/*.yaml\n",
        "groups/north.yaml": "name: north\n# the south group\n--- \nname: south\n",
        "stores/a.yaml": storeYaml(900101, "bog-centro").replace("burgers", "pizza"),
      }),
    );
    const second = (line: number) =>
      `a carte file holds one YAML document; this second document (line ${line}) would be ignored: ` +
      "remove the `---` or move it to its own file";
    expect(problems).toEqual([
      `${shown(dir, "carte.yaml")}:5:1: ${second(5)}`,
      `${shown(dir, "groups/north.yaml")}:3:1: ${second(3)}`,
      // The first documents are whole: the checks between files still run on them.
      `${shown(dir, "stores/a.yaml")}:5:10: unknown catalog "pizza" (known: burgers)`,
    ]);
  });

  it("reports an included file that cannot be read at the include: entry naming it", async () => {
    const { dir, problems } = await load(
      valid({
        "carte.yaml": PROJECT + "limits:\n  max_file_bytes: 1024\n",
        "stores/a.yaml": storeYaml(1, "a", "include:\n  - shared/big.yaml\n"),
        "shared/big.yaml": "# " + "x".repeat(2000) + "\n",
      }),
    );
    expect(problems).toEqual([
      `${shown(dir, "stores/a.yaml")}:7:5: include: "shared/big.yaml": the file is 2003 bytes, more than the limit of 1024; ` +
        "it was not read (split it, or raise limits.max_file_bytes in carte.yaml)",
    ]);
  });

  it("reports a missing carte.yaml", async () => {
    const dir = await writeProject({});
    const err = await loadProject(join(dir, "carte.yaml")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      { file: shown(dir, "carte.yaml"), line: 0, col: 0, pointer: "", message: "the file does not exist" },
    ]);
  });

  it("reads the platform and emulator options", async () => {
    const dir = await writeProject(
      valid({
        "carte.yaml":
          PROJECT + "platform:\n  base_url: https://api.example.com/\nemulator:\n  apply_delay_ms: 0\n",
      }),
    );
    const project = await loadProject(join(dir, "carte.yaml"));
    expect(project.platform).toEqual({ hosts: oneHost("https://api.example.com"), requestsPerSecond: 50 });
    expect(project.emulator).toEqual({ applyDelayMs: 0 });
  });

  it("reads an address per API group, base_url for the groups hosts: leaves out", async () => {
    const dir = await writeProject(
      valid({
        "carte.yaml":
          PROJECT +
          "platform:\n  base_url: https://api.example.com/\n  hosts:\n" +
          "    availability: https://services.example.com//\n    webhooks: https://services.example.com\n" +
          "    utils: https://services.example.com/utils/\n",
      }),
    );
    const project = await loadProject(join(dir, "carte.yaml"));
    expect(project.platform?.hosts).toEqual({
      auth: "https://api.example.com",
      menu: "https://api.example.com",
      finance: "https://api.example.com",
      availability: "https://services.example.com",
      webhooks: "https://services.example.com",
      utils: "https://services.example.com/utils",
    });
    // Every group named under hosts:, no base_url needed.
    const all = await writeProject(
      valid({
        "carte.yaml":
          PROJECT +
          "platform:\n  hosts:\n" +
          ["auth", "menu", "finance", "availability", "webhooks", "utils"]
            .map((g) => `    ${g}: https://${g}.example.com\n`)
            .join(""),
      }),
    );
    expect((await loadProject(join(all, "carte.yaml"))).platform?.hosts.utils).toBe(
      "https://utils.example.com",
    );
  });

  it("reads the request pace and the safety settings", async () => {
    const dir = await writeProject(
      valid({
        "carte.yaml":
          PROJECT +
          "platform:\n  base_url: https://api.example.com\n  requests_per_second: 5\n" +
          "safety:\n  max_delete_percent: 10\n  protected: ['store[*].category[COMBOS]']\n",
      }),
    );
    const project = await loadProject(join(dir, "carte.yaml"));
    expect(project.platform?.requestsPerSecond).toBe(5);
    expect(project.safety).toEqual({
      maxDeletePercent: 10,
      maxUpdatePercent: 30,
      minExisting: 10,
      protected: ["store[*].category[COMBOS]"],
      maxPriceChangePercent: 50,
    });
  });
});
