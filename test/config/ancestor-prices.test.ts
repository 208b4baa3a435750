/**
 * Option prices by ancestor: a price written for an item or option two or more levels above an option
 * (a topping on any large pizza) sets it in every parent under that ancestor, the nearest price wins, an
 * option not under the named SKU is a located problem, and writing one ancestor price instead of equal
 * per-parent prices plans no change.
 */

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderExplanation } from "../../src/cli/explain.js";
import { explainResource } from "../../src/config/explain.js";
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
