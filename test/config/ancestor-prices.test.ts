/**
 * Option prices by ancestor: a price written for an item or option two or more levels above an option
 * (a topping on any large pizza) sets it in every parent under that ancestor, the nearest price wins, an
 * option not under the named SKU is a located problem, and writing one ancestor price instead of equal
 * per-parent prices plans no change. The parent may be a SKU pattern (`*-G`): it sets the price under
 * every SKU above the option that it matches, a SKU written for itself wins over a pattern, and
 * disagreeing or unmatched patterns are located problems.
 */

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderExplanation } from "../../src/cli/explain.js";
import { explainResource } from "../../src/config/provenance.js";
import { skuPattern } from "../../src/config/sku-pattern.js";
import { loadProject } from "../../src/config/load.js";
import { itemsOf } from "../../src/kinds/catalog.js";
import { buildPlan } from "../../src/plan/plan.js";
import { current } from "../helpers/builders.js";
import { problemsOf, shown, writeProject } from "./helpers.js";

const BRL = "version: 1\ncurrency: BRL\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n";
const STORE = "store:\n  id: 1\n  integration_id: a\n  name: Store a\ncatalog: pizza\n";

/** Size → crust → topping: PIZZA-G offers two crusts, each offering the toppings. */
function pizza(extra = "", crustPrices = ""): string {
  return `items:
  - { sku: PIZZA-G, title: Pizza G, price: 60.00, modifier_groups: [BORDA]${extra} }
  - { sku: PIZZA-M, title: Pizza M, price: 45.00, modifier_groups: [BORDA-M] }
modifier_groups:
  - sku: BORDA
    title: Borda
    min: 1
    max: 1
    options:
      - { sku: BORDA-G-TRAD, title: Tradicional, price: 0, modifier_groups: [COBERTURAS]${crustPrices} }
      - { sku: BORDA-G-CHEDDAR, title: Cheddar, price: 9.00, modifier_groups: [COBERTURAS]${crustPrices} }
  - sku: BORDA-M
    title: Borda
    min: 1
    max: 1
    options:
      - { sku: BORDA-M-TRAD, title: Tradicional, price: 0, modifier_groups: [COBERTURAS] }
  - sku: COBERTURAS
    title: Coberturas
    min: 0
    max: 2
    options:
      - { sku: TOP-CALABRESA, title: Calabresa, price: 6.00 }
      - { sku: TOP-BACON, title: Bacon, price: 7.00 }
categories:
  - { sku: MAIN, title: Main, items: [PIZZA-G, PIZZA-M] }
menus:
  - { type: DEFAULT, categories: [MAIN] }
`;
}

async function load(files: Record<string, string>) {
  const dir = await writeProject(files);
  return { dir, project: await loadProject(join(dir, "carte.yaml"), { explain: true }) };
}

const inParent = (project: Awaited<ReturnType<typeof loadProject>>, sku: string) =>
  itemsOf(project.desired.stores["a"]!)[sku]!.priceInParent;

describe("option prices by ancestor", () => {
  it("a catalog price on the pizza sets the topping in every crust under it, and only there", async () => {
    const { project } = await load({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(", option_prices: { TOP-CALABRESA: 8.25 }"),
      "stores/a.yaml": STORE,
    });
    expect(inParent(project, "TOP-CALABRESA")).toEqual({ "BORDA-G-CHEDDAR": 8.25, "BORDA-G-TRAD": 8.25 });
    expect(inParent(project, "TOP-BACON")).toBeUndefined();
  });

  it("an overrides price naming the ancestor sets it, and a price naming the direct parent wins", async () => {
    const { project } = await load({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(),
      "stores/a.yaml":
        STORE +
        "overrides:\n  option_prices:\n    PIZZA-G: { TOP-CALABRESA: 8.25 }\n    BORDA-G-CHEDDAR: { TOP-CALABRESA: 7.50 }\n",
    });
    expect(inParent(project, "TOP-CALABRESA")).toEqual({ "BORDA-G-CHEDDAR": 7.5, "BORDA-G-TRAD": 8.25 });
  });

  it("the direct parent's catalog price beats an ancestor's, nearer wins", async () => {
    const { project } = await load({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(
        ", option_prices: { TOP-BACON: 9.00 }",
        ", option_prices: { TOP-BACON: 8.00 }",
      ),
      "stores/a.yaml": STORE,
    });
    expect(inParent(project, "TOP-BACON")).toEqual({ "BORDA-G-CHEDDAR": 8, "BORDA-G-TRAD": 8 });
  });

  it("stores of one catalog that exclude different SKUs each get the prices of their own tree", async () => {
    const store = (id: number, key: string, extra: string) =>
      `store:\n  id: ${id}\n  integration_id: ${key}\n  name: Store ${key}\ncatalog: pizza\n${extra}`;
    const { project } = await load({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(", option_prices: { TOP-CALABRESA: 8.25 }"),
      "stores/a.yaml": store(1, "a", ""),
      "stores/b.yaml": store(2, "b", "overrides:\n  exclude: [BORDA-G-CHEDDAR]\n"),
      "stores/c.yaml": store(
        3,
        "c",
        "overrides:\n  option_prices:\n    BORDA-G-TRAD: { TOP-CALABRESA: 7.00 }\n",
      ),
      "stores/d.yaml": store(4, "d", "overrides:\n  exclude: [BORDA-G-CHEDDAR]\n"),
    });
    const price = (key: string) => itemsOf(project.desired.stores[key]!)["TOP-CALABRESA"]!.priceInParent;
    expect(price("a")).toEqual({ "BORDA-G-CHEDDAR": 8.25, "BORDA-G-TRAD": 8.25 });
    expect(price("b")).toEqual({ "BORDA-G-TRAD": 8.25 });
    expect(price("c")).toEqual({ "BORDA-G-CHEDDAR": 8.25, "BORDA-G-TRAD": 7 });
    expect(price("d")).toEqual(price("b"));
  });

  it("an option not under the named SKU is a located problem", async () => {
    const dir = await writeProject({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(),
      "stores/a.yaml": STORE + "overrides:\n  option_prices:\n    PIZZA-M: { BORDA-G-TRAD: 1.00 }\n",
    });
    expect(await problemsOf(loadProject(join(dir, "carte.yaml")))).toEqual([
      `${shown(dir, "stores/a.yaml")}:8:16: option "BORDA-G-TRAD" is not offered under PIZZA-M in catalog pizza (by its modifier groups, or those of the options below it)`,
    ]);
  });

  it("one ancestor price equal to the per-crust prices it replaces plans no change", async () => {
    const before = await load({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza("", ", option_prices: { TOP-CALABRESA: 8.25 }"),
      "stores/a.yaml": STORE,
    });
    const after = await load({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(", option_prices: { TOP-CALABRESA: 8.25 }"),
      "stores/a.yaml": STORE,
    });
    expect(inParent(after.project, "TOP-CALABRESA")).toEqual(inParent(before.project, "TOP-CALABRESA"));
    const live = current(...Object.values(before.project.desired.stores));
    const plan = buildPlan(after.project.desired, live);
    expect(plan.changes).toEqual([]);
    expect(plan.operations).toEqual([]);
  });
  it("carte explain names the ancestor whose option_prices set each per-parent price", async () => {
    const { dir, project } = await load({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(),
      "stores/a.yaml":
        STORE +
        "overrides:\n  option_prices:\n    PIZZA-G: { TOP-CALABRESA: 8.25 }\n    BORDA-G-CHEDDAR: { TOP-CALABRESA: 7.50 }\n",
    });
    const text = renderExplanation(
      explainResource(
        project.desired.stores["a"]!,
        project.sources!.get("a")!,
        "item",
        "TOP-CALABRESA",
        project.currency,
      ),
      project.currency,
    );
    const f = shown(dir, "stores/a.yaml");
    expect(text).toContain(`from ${f}:9:39`);
    expect(text).toContain(
      "in BORDA-G-TRAD, from option_prices PIZZA-G (an item or option above BORDA-G-TRAD)",
    );
    expect(text).toContain(`from ${f}:8:31`);
    expect(text).not.toContain("in BORDA-G-CHEDDAR, from option_prices PIZZA-G");
  });
});

/** A store file whose overrides write these `option_prices` lines (from line 8, indented 4). */
const withPrices = (...lines: string[]) =>
  STORE + "overrides:\n  option_prices:\n" + lines.map((l) => `    ${l}\n`).join("");

describe("option prices by SKU pattern", () => {
  it("matches SKUs with * as any run of characters, nothing else as a wildcard, in linear time", () => {
    const p = skuPattern("PIZZA-*-G");
    expect(["PIZZA-CALABRESA-G", "PIZZA--G", "PIZZA-A-B-G"].filter((s) => p.matches(s))).toHaveLength(3);
    expect(["PIZZA-G", "PIZZA-A-GG", "XPIZZA-A-G", "pizza-a-g"].some((s) => p.matches(s))).toBe(false);
    expect(skuPattern("*").matches("ANYTHING")).toBe(true);
    expect(skuPattern("A*B*B*C").matches("AXBBC")).toBe(true);
    expect(skuPattern("A*B*B*C").matches("AXBC")).toBe(false);
    expect(skuPattern("PIZZA-G").matches("PIZZA-G")).toBe(true);
    expect(skuPattern("PIZZA.G").matches("PIZZA-G")).toBe(false);
    // A pattern of many stars against a long SKU that almost matches: no backtracking blow-up.
    const hostile = skuPattern(`${"*A".repeat(200)}*B`);
    const started = performance.now();
    for (let i = 0; i < 200; i++) expect(hostile.matches("A".repeat(500))).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("a pattern sets the option in every parent under the SKUs it matches, and only there", async () => {
    const { project } = await load({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(),
      "stores/a.yaml": withPrices('"*-G": { TOP-CALABRESA: 8.25 }', "BORDA-*-TRAD: { TOP-BACON: 9.00 }"),
    });
    // *-G matches PIZZA-G (above both large crusts), not PIZZA-M.
    expect(inParent(project, "TOP-CALABRESA")).toEqual({ "BORDA-G-CHEDDAR": 8.25, "BORDA-G-TRAD": 8.25 });
    // BORDA-*-TRAD matches the direct parents of both sizes.
    expect(inParent(project, "TOP-BACON")).toEqual({ "BORDA-G-TRAD": 9, "BORDA-M-TRAD": 9 });
  });

  it("a price written for the SKU itself wins over a pattern in one file; a higher layer wins over both", async () => {
    const { project } = await load({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(),
      "stores/a.yaml": withPrices(
        "PIZZA-*: { TOP-CALABRESA: 8.25, TOP-BACON: 9.00 }",
        "PIZZA-G: { TOP-CALABRESA: 7.00 }",
      ),
    });
    expect(inParent(project, "TOP-CALABRESA")).toEqual({
      "BORDA-G-CHEDDAR": 7,
      "BORDA-G-TRAD": 7,
      "BORDA-M-TRAD": 8.25,
    });
    const layered = await load({
      "carte.yaml":
        BRL + "defaults:\n  overrides:\n    option_prices:\n      PIZZA-G: { TOP-CALABRESA: 7.00 }\n",
      "catalogs/pizza.yaml": pizza(", option_prices: { TOP-CALABRESA: 6.50 }"),
      "stores/a.yaml": withPrices('"*-G": { TOP-CALABRESA: 8.25 }'),
    });
    // The store's pattern wins over carte.yaml's price for PIZZA-G and over the catalog's.
    expect(inParent(layered.project, "TOP-CALABRESA")).toEqual({
      "BORDA-G-CHEDDAR": 8.25,
      "BORDA-G-TRAD": 8.25,
    });
  });

  it("the nearest SKU with a price wins, whether written for itself or matched by a pattern", async () => {
    const { project } = await load({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza("", ", option_prices: { TOP-BACON: 5.00 }"),
      "stores/a.yaml": withPrices(
        "PIZZA-*: { TOP-CALABRESA: 8.25, TOP-BACON: 9.00 }",
        "BORDA-G-C*: { TOP-CALABRESA: 6.00 }",
      ),
    });
    expect(inParent(project, "TOP-CALABRESA")).toEqual({
      "BORDA-G-CHEDDAR": 6,
      "BORDA-G-TRAD": 8.25,
      "BORDA-M-TRAD": 8.25,
    });
    // The catalog's price in the large crusts is nearer than the pattern on the pizzas.
    expect(inParent(project, "TOP-BACON")).toEqual({
      "BORDA-G-CHEDDAR": 5,
      "BORDA-G-TRAD": 5,
      "BORDA-M-TRAD": 9,
    });
  });

  it("two patterns of one file matching one SKU with different prices are a problem located at both", async () => {
    const dir = await writeProject({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(),
      "stores/a.yaml": withPrices("PIZZA-*: { TOP-CALABRESA: 8.25 }", '"*-G": { TOP-CALABRESA: 9.00 }'),
    });
    const f = shown(dir, "stores/a.yaml");
    expect(await problemsOf(loadProject(join(dir, "carte.yaml")))).toEqual([
      `${f}:9:14: option_prices "*-G" (R$ 9,00) and "PIZZA-*" (R$ 8,25) at ${f}:8:16 both match PIZZA-G and set different prices for option "TOP-CALABRESA" inside it: write PIZZA-G: { TOP-CALABRESA: … } in this option_prices (the SKU itself wins over patterns), or make the two prices agree`,
    ]);
    // Writing the SKU itself settles it, and so do prices that agree.
    const exact = await load({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(),
      "stores/a.yaml": withPrices(
        "PIZZA-*: { TOP-CALABRESA: 8.25 }",
        '"*-G": { TOP-CALABRESA: 9.00 }',
        "PIZZA-G: { TOP-CALABRESA: 8.50 }",
      ),
    });
    expect(inParent(exact.project, "TOP-CALABRESA")).toEqual({
      "BORDA-G-CHEDDAR": 8.5,
      "BORDA-G-TRAD": 8.5,
      "BORDA-M-TRAD": 8.25,
    });
    const agree = await load({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(),
      "stores/a.yaml": withPrices("PIZZA-*: { TOP-CALABRESA: 8.25 }", '"*-G": { TOP-CALABRESA: 8.25 }'),
    });
    expect(inParent(agree.project, "TOP-CALABRESA")).toEqual({
      "BORDA-G-CHEDDAR": 8.25,
      "BORDA-G-TRAD": 8.25,
      "BORDA-M-TRAD": 8.25,
    });
  });

  it("a pattern matching nothing above its option, an unknown option and an unknown SKU are located problems", async () => {
    const dir = await writeProject({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(),
      "stores/a.yaml": withPrices(
        "PIZZA-*-X: { TOP-CALABRESA: 1.00 }",
        "BORDA-*: { TOP-CALABRES: 1.00 }",
        "PIZZA-GG: { TOP-BACON: 1.00 }",
      ),
    });
    const f = shown(dir, "stores/a.yaml");
    expect(await problemsOf(loadProject(join(dir, "carte.yaml")))).toEqual([
      `${f}:8:18: option_prices "PIZZA-*-X" matches no item or option above option "TOP-CALABRESA" in catalog pizza (above it: BORDA-G-CHEDDAR, BORDA-G-TRAD, BORDA-M-TRAD, PIZZA-G, PIZZA-M): write a pattern or SKU that matches one of them, or remove the entry`,
      `${f}:9:16: unknown option "TOP-CALABRES" (did you mean "TOP-CALABRESA"?): catalog pizza has no option with this SKU`,
      `${f}:10:5: unknown SKU "PIZZA-GG" (did you mean "PIZZA-G"?): catalog pizza has no item or option with this SKU`,
    ]);
  });

  it("a pattern with other wildcards than *, and too many patterns in one file, are refused", async () => {
    const dir = await writeProject({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(),
      "stores/a.yaml": withPrices('"PIZZA-?": { TOP-BACON: 1.00 }'),
    });
    const f = shown(dir, "stores/a.yaml");
    expect(await problemsOf(loadProject(join(dir, "carte.yaml")))).toEqual([
      `${f}:8:5: key "PIZZA-?" of option_prices is not allowed: use letters, digits, dots, dashes and underscores, and * for any run of them (the only wildcard), e.g. PIZZA-G or PIZZA-*-G`,
      // Not a pattern, so an exact SKU, and not one of the catalog.
      `${f}:8:5: unknown SKU "PIZZA-?" (did you mean "PIZZA-G"?): catalog pizza has no item or option with this SKU`,
    ]);
    // 51 patterns, all matching the pizzas with one price: only the number is wrong.
    const many = Array.from({ length: 50 }, (_, i) => `P${"*".repeat(i + 1)}: { TOP-BACON: 1.00 }`);
    const crowded = await writeProject({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(),
      "stores/a.yaml": withPrices("PIZZA-*: { TOP-BACON: 1.00 }", ...many),
    });
    expect(await problemsOf(loadProject(join(crowded, "carte.yaml")))).toEqual([
      `${shown(crowded, "stores/a.yaml")}:58:5: more than 50 patterns in option_prices of one file: write exact SKUs, or fewer, wider patterns`,
    ]);
  });

  it("carte explain names the pattern and the SKU it matched", async () => {
    const { dir, project } = await load({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(),
      "stores/a.yaml": withPrices('"*-G": { TOP-CALABRESA: 8.25 }', "BORDA-G-C*: { TOP-CALABRESA: 7.50 }"),
    });
    const text = renderExplanation(
      explainResource(
        project.desired.stores["a"]!,
        project.sources!.get("a")!,
        "item",
        "TOP-CALABRESA",
        project.currency,
      ),
      project.currency,
    );
    const f = shown(dir, "stores/a.yaml");
    expect(text).toContain(`from ${f}:8:29`);
    expect(text).toContain("in BORDA-G-TRAD, from option_prices *-G (matching PIZZA-G, above BORDA-G-TRAD)");
    expect(text).toContain(`from ${f}:9:34`);
    expect(text).toContain("in BORDA-G-CHEDDAR, from option_prices BORDA-G-C* (matching BORDA-G-CHEDDAR)");
  });

  it("a pattern price equal to the per-parent prices it replaces plans no change", async () => {
    const before = await load({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza("", ", option_prices: { TOP-CALABRESA: 8.25 }"),
      "stores/a.yaml": STORE,
    });
    const after = await load({
      "carte.yaml": BRL,
      "catalogs/pizza.yaml": pizza(),
      "stores/a.yaml": withPrices('"*-G": { TOP-CALABRESA: 8.25 }'),
    });
    expect(inParent(after.project, "TOP-CALABRESA")).toEqual(inParent(before.project, "TOP-CALABRESA"));
    const live = current(...Object.values(before.project.desired.stores));
    const plan = buildPlan(after.project.desired, live);
    expect(plan.changes).toEqual([]);
    expect(plan.operations).toEqual([]);
  });
});
