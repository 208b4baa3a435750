/**
 * Price rules (`price_rules:`): a markup in percent, then a rounding to an ending or a step, applied to
 * the catalog's prices of a group's or a store's stores, exactly; explicit prices still win; `carte
 * explain` shows how a price was made; the price-change guard judges the result; a rule equal to the
 * explicit prices it replaces plans no change.
 */

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderExplanation } from "../../src/cli/explain.js";
import { explainResource } from "../../src/config/provenance.js";
import { loadProject, type LoadedProject } from "../../src/config/load.js";
import { itemsOf } from "../../src/kinds/catalog.js";
import { applyPriceRule } from "../../src/money.js";
import { buildPlan } from "../../src/plan/plan.js";
import { DEFAULT_SAFETY, evaluateSafety } from "../../src/plan/safety.js";
import { current } from "../helpers/builders.js";
import { CATALOG, problemsOf, shown, storeYaml, writeProject } from "./helpers.js";

const COP =
  "version: 1\ncurrency: COP\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\ngroups: groups/*.yaml\n";
const COP_NO_GROUPS = "version: 1\ncurrency: COP\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n";
const BRL = "version: 1\ncurrency: BRL\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n";

/** A BRL catalog whose prices float arithmetic gets wrong (0.1 × 3, 29.90 × 1.1). */
const BRL_CATALOG = `items:
  - { sku: ACAI, title: Açaí, price: 29.90, modifier_groups: [EXTRAS] }
  - { sku: AGUA, title: Água, price: 0.10 }
  - { sku: SUCO, title: Suco, price: 10.01, modifier_groups: [EXTRAS], option_prices: { GRANOLA: 0, MEL: 1.00 } }
modifier_groups:
  - sku: EXTRAS
    title: Extras
    min: 0
    max: 1
    options:
      - { sku: GRANOLA, title: Granola, price: 2.50 }
      - { sku: MEL, title: Mel, price: 1.50 }
categories:
  - { sku: MAIN, title: Main, items: [ACAI, AGUA, SUCO] }
menus:
  - { type: DEFAULT, categories: [MAIN] }
`;

function prices(project: LoadedProject, store: string): Record<string, number | null> {
  const items = itemsOf(project.desired.stores[store]!);
  return Object.fromEntries(Object.values(items).map((i) => [i.sku, i.price]));
}

async function load(files: Record<string, string>): Promise<{ dir: string; project: LoadedProject }> {
  const dir = await writeProject(files);
  return { dir, project: await loadProject(join(dir, "carte.yaml"), { explain: true }) };
}

describe("price rules", () => {
  it("apply to the catalog prices of a group's stores and of a store, an explicit price winning", async () => {
    const { project } = await load({
      "carte.yaml": COP,
      "catalogs/burgers.yaml": CATALOG,
      "groups/rj.yaml": "name: rj\ndefaults:\n  price_rules:\n    - { percent: 10, step: 100 }\n",
      "stores/a.yaml": storeYaml(1, "a", "group: rj\n"),
      "stores/b.yaml": storeYaml(2, "b", "group: rj\noverrides:\n  prices:\n    FRIES: 9000\n"),
      "stores/c.yaml": storeYaml(
        3,
        "c",
        "group: rj\nprice_rules:\n  - { percent: -10, ending: 900 }\n  - { step: 1000, round: nearest }\n",
      ),
      "stores/d.yaml": storeYaml(4, "d"),
    });
    // 24900 + 10 % = 27390 → 27400; 8900 → 9790 → 9800; 2000 → 2200; 4500 → 4950 → 5000.
    expect(prices(project, "a")).toEqual({
      BURGER: 27400,
      FRIES: 9800,
      EXTRAS: null,
      CHEESE: 2200,
      BACON: 5000,
    });
    expect(prices(project, "b")).toEqual({
      BURGER: 27400,
      FRIES: 9000,
      EXTRAS: null,
      CHEESE: 2200,
      BACON: 5000,
    });
    // The store's own rules replace the group's: 24900 − 10 % = 22410 → 22900 → 23000 (nearest thousand).
    expect(prices(project, "c")).toEqual({
      BURGER: 23000,
      FRIES: 9000,
      EXTRAS: null,
      CHEESE: 2000,
      BACON: 5000,
    });
    // A store outside the group keeps the catalog's prices.
    expect(prices(project, "d")).toEqual({
      BURGER: 24900,
      FRIES: 8900,
      EXTRAS: null,
      CHEESE: 2000,
      BACON: 4500,
    });
  });

  it("rounds BRL prices to an ending or a step exactly, up or to the nearest", async () => {
    const { project } = await load({
      "carte.yaml": BRL,
      "catalogs/burgers.yaml": BRL_CATALOG,
      "stores/up.yaml": storeYaml(1, "up", 'price_rules:\n  - { percent: 10, ending: "0.90" }\n'),
      "stores/near.yaml": storeYaml(
        2,
        "near",
        'price_rules:\n  - { percent: 10, ending: "0.90", round: nearest }\n',
      ),
      "stores/triple.yaml": storeYaml(3, "triple", "price_rules:\n  - { percent: 200 }\n"),
      "stores/step.yaml": storeYaml(4, "step", 'price_rules:\n  - { step: "0.05" }\n'),
      "stores/stepn.yaml": storeYaml(5, "stepn", "price_rules:\n  - { step: 0.05, round: nearest }\n"),
    });
    // 29.90 × 1.1 = 32.89 exactly (32.890000000000001 in floating point) → 32.90; 0.11 → 0.90; 11.011 → 11.90.
    expect(prices(project, "up")).toMatchObject({ ACAI: 32.9, AGUA: 0.9, SUCO: 11.9, GRANOLA: 2.9 });
    // An option's price inside its parent goes through the rules too, but free stays free.
    const options = itemsOf(project.desired.stores.up!);
    expect(options.GRANOLA!.priceInParent).toEqual({ SUCO: 0 });
    expect(options.MEL!.priceInParent).toEqual({ SUCO: 1.9 });
    // Nearest: 32.89 → 32.90; 0.11 → 0.90 (no ending below zero); 11.011 → 10.90; 2.75 → 2.90.
    expect(prices(project, "near")).toMatchObject({ ACAI: 32.9, AGUA: 0.9, SUCO: 10.9, GRANOLA: 2.9 });
    // 0.10 × 3 = 0.30 (0.30000000000000004 in floating point); 29.90 × 3 = 89.70; 10.01 × 3 = 30.03.
    expect(prices(project, "triple")).toMatchObject({ ACAI: 89.7, AGUA: 0.3, SUCO: 30.03, GRANOLA: 7.5 });
    expect(prices(project, "step")).toMatchObject({ ACAI: 29.9, AGUA: 0.1, SUCO: 10.05, GRANOLA: 2.5 });
    expect(prices(project, "stepn")).toMatchObject({ SUCO: 10 });
    expect(applyPriceRule(0.1, "200", undefined, 2)).toEqual({ marked: "0.3", price: "0.3" });
    expect(applyPriceRule(1.005, "0", undefined, 2).price).toBe("1.01");
  });

  it("locates a rule that makes prices negative or rounds to more decimals than the currency has", async () => {
    const dir = await writeProject({
      "carte.yaml": COP,
      "catalogs/burgers.yaml": CATALOG,
      "groups/rj.yaml": "name: rj\ndefaults:\n  price_rules:\n    - percent: -110\n",
      "stores/a.yaml": storeYaml(
        1,
        "a",
        'group: rj\nprice_rules:\n  - { step: "0.5" }\n  - { ending: 950, step: 500 }\n',
      ),
    });
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml")));
    expect(problems).toEqual(
      expect.arrayContaining([
        `${shown(dir, "groups/rj.yaml")}:4:16: a markup of -110 % makes every price below zero: a discount is at most -100 %`,
        expect.stringMatching(
          new RegExp(
            `^${shown(dir, "stores/a.yaml").replace(/[.]/g, "\\.")}:8:13: step 0\\.5 has 1 decimal, but COP prices have none`,
          ),
        ),
        `${shown(dir, "stores/a.yaml")}:9:15: ending 950 must be below the step 500 it ends`,
      ]),
    );
    const brl = await writeProject({
      "carte.yaml": BRL,
      "catalogs/burgers.yaml": BRL_CATALOG,
      "stores/a.yaml": storeYaml(1, "a", 'price_rules:\n  - { ending: "0.905" }\n  - { percent: 5000 }\n'),
    });
    expect(await problemsOf(loadProject(join(brl, "carte.yaml")))).toEqual([
      `${shown(brl, "stores/a.yaml")}:7:15: ending 0.905 has 3 decimals, but BRL prices have at most 2: a rule cannot round to a price the currency does not write`,
      `${shown(brl, "stores/a.yaml")}:8:16: a markup of 5000 % is more than 1000 %: write the price list's markup, for example 10`,
    ]);
  });

  it("reports a value written in the wrong form once at its place, with the form to write", async () => {
    const dir = await writeProject({
      "carte.yaml": COP_NO_GROUPS,
      "catalogs/burgers.yaml": CATALOG,
      "stores/a.yaml": storeYaml(
        1,
        "a",
        "price_rules:\n  - percent: 8%\n  - { ending: '0,90' }\n  - { step: {COP: abc} }\n  - { ending: -5 }\n",
      ),
    });
    const at = (line: number, col: number) => `${shown(dir, "stores/a.yaml")}:${line}:${col}: `;
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml")));
    expect(problems).toEqual([
      `${at(7, 14)}percent must be a number, got "8%": write 8, without %`,
      expect.stringMatching(
        new RegExp(`^${at(8, 15).replace(/[.]/g, "\\.")}ending "0,90" is not allowed here`),
      ),
      expect.stringMatching(new RegExp(`^${at(9, 19).replace(/[.]/g, "\\.")}COP "abc" is not allowed here`)),
      `${at(10, 15)}ending must be at least 0, got -5`,
    ]);
  });

  it("refuses a rule whose price is past what a JSON number carries exactly, where the rule is written", async () => {
    // 999999999999999 + 1000 % = 10999999999999989, which a JSON number would carry as …988.
    const big = CATALOG.replace("price: 24900", "price: 999999999999999").replace(
      "{ sku: FRIES, title: Fries, price: 8900 }",
      "{ sku: FRIES, title: Fries, price: 8900, modifier_groups: [EXTRAS], option_prices: { BACON: 999999999999999 } }",
    );
    const dir = await writeProject({
      "carte.yaml": COP,
      "catalogs/burgers.yaml": big,
      "groups/rj.yaml": "name: rj\ndefaults:\n  price_rules:\n    - { percent: 1000 }\n",
      "stores/a.yaml": storeYaml(1, "a", "group: rj\n"),
      "stores/b.yaml": storeYaml(2, "b", "group: rj\n"),
      // An explicit price wins over the rule: the catalog's price is not used in this store.
      "stores/c.yaml": storeYaml(3, "c", "group: rj\noverrides:\n  prices:\n    BURGER: 30000\n"),
    });
    const catalog = shown(dir, "catalogs/burgers.yaml");
    expect(await problemsOf(loadProject(join(dir, "carte.yaml")))).toEqual([
      `${shown(dir, "groups/rj.yaml")}:4:7: this price rule gives BURGER a price of 10999999999999989 (from 999999999999999 at ${catalog}:2:42), more than 15 significant digits, more than the platform's JSON number carries exactly (stores "a", "b"): lower the markup, or write the price of BURGER under overrides: prices:`,
      `${shown(dir, "groups/rj.yaml")}:4:7: this price rule gives option BACON inside FRIES a price of 10999999999999989 (from 999999999999999 at ${catalog}:3:97), more than 15 significant digits, more than the platform's JSON number carries exactly (stores "a", "b", "c"): lower the markup, or write the price of BACON inside FRIES under overrides: option_prices:`,
    ]);
    // A rounding up past 15 digits is refused too (1000000000000000 as written is), and a price that
    // stays within them is not: BRL 99999999999.99 + 1000 % = 1099999999999.89, 15 digits.
    const brl = await writeProject({
      "carte.yaml": BRL,
      "catalogs/burgers.yaml": BRL_CATALOG.replace("price: 29.90", "price: 99999999999.99"),
      "stores/a.yaml": storeYaml(1, "a", "price_rules:\n  - { percent: 1000 }\n"),
    });
    const ok = await loadProject(join(brl, "carte.yaml"));
    expect(prices(ok, "a").ACAI).toBe(1099999999999.89);
    const cop = await writeProject({
      "carte.yaml": COP_NO_GROUPS,
      "catalogs/burgers.yaml": CATALOG.replace("price: 24900", "price: 999999999999999"),
      "stores/a.yaml": storeYaml(1, "a", "price_rules:\n  - { step: 1000 }\n"),
    });
    expect(await problemsOf(loadProject(join(cop, "carte.yaml")))).toEqual([
      expect.stringContaining(
        `stores/a.yaml:7:5: this price rule gives BURGER a price of 1000000000000000 (from 999999999999999 at`,
      ),
    ]);
  });

  it("shows in carte explain the rule and the rounding that set a price", async () => {
    const { dir, project } = await load({
      "carte.yaml": COP,
      "catalogs/burgers.yaml": CATALOG,
      "groups/rj.yaml": "name: rj\ndefaults:\n  price_rules:\n    - { percent: 10, step: 100 }\n",
      "stores/a.yaml": storeYaml(1, "a", "group: rj\noverrides:\n  prices:\n    FRIES: 9000\n"),
    });
    const state = project.desired.stores.a!;
    const sources = project.sources!.get("a")!;
    const burger = renderExplanation(
      explainResource(state, sources, "item", "BURGER", project.currency),
      project.currency,
    );
    expect(burger).toContain(
      `$24.900 + 10 % = $27.390 → $27.400, rounded up to step 100 (price_rules of ${shown(dir, "groups/rj.yaml")}:4:7)`,
    );
    const fries = renderExplanation(
      explainResource(state, sources, "item", "FRIES", project.currency),
      project.currency,
    );
    expect(fries).toContain(`from ${shown(dir, "stores/a.yaml")}:9:12`);
    expect(fries).toContain(
      `price_rules of ${shown(dir, "groups/rj.yaml")}:4:5 do not apply: an explicit price wins`,
    );
  });

  it("is judged by the price-change guard like any other price", async () => {
    const files = {
      "carte.yaml": COP_NO_GROUPS,
      "catalogs/burgers.yaml": CATALOG,
      "stores/a.yaml": storeYaml(1, "a"),
    };
    const before = (await load(files)).project;
    const after = (
      await load({ ...files, "stores/a.yaml": storeYaml(1, "a", "price_rules:\n  - percent: 60\n") })
    ).project;
    const live = current(...Object.values(before.desired.stores));
    const plan = buildPlan(after.desired, live);
    const verdict = evaluateSafety(plan, live, DEFAULT_SAFETY);
    expect(verdict.ok).toBe(false);
    const message = verdict.violations.map((v) => v.message).join("\n");
    expect(message).toContain("BURGER");
    expect(message).toContain("+60 %");
    const small = (
      await load({ ...files, "stores/a.yaml": storeYaml(1, "a", "price_rules:\n  - percent: 5\n") })
    ).project;
    expect(evaluateSafety(buildPlan(small.desired, live), live, DEFAULT_SAFETY).ok).toBe(true);
  });

  it("plans no change when the rule gives the explicit prices it replaces", async () => {
    const explicit = (
      await load({
        "carte.yaml": COP_NO_GROUPS,
        "catalogs/burgers.yaml": CATALOG,
        "stores/a.yaml": storeYaml(
          1,
          "a",
          "overrides:\n  prices:\n    BURGER: 27400\n    FRIES: 9800\n    CHEESE: 2200\n    BACON: 5000\n",
        ),
      })
    ).project;
    const ruled = (
      await load({
        "carte.yaml": COP_NO_GROUPS,
        "catalogs/burgers.yaml": CATALOG,
        "stores/a.yaml": storeYaml(1, "a", "price_rules:\n  - { percent: 10, step: 100 }\n"),
      })
    ).project;
    const live = current(...Object.values(explicit.desired.stores));
    expect(buildPlan(ruled.desired, live).changes).toEqual([]);
    // And a rule that differs by one step does change the prices.
    const other = (
      await load({
        "carte.yaml": COP_NO_GROUPS,
        "catalogs/burgers.yaml": CATALOG,
        "stores/a.yaml": storeYaml(1, "a", "price_rules:\n  - { percent: 10, step: 1000 }\n"),
      })
    ).project;
    expect(buildPlan(other.desired, live).changes.length).toBeGreaterThan(0);
  });
});
