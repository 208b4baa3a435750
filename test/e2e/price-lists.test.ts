/**
 * End to end: overrides at every layer. Ten pizza stores share the catalog of examples/pizza; six of
 * them are in group `cali`, whose price list (`defaults: overrides: prices:`) changes one price. The
 * plan changes that price in exactly those six stores with one item upsert each, and `carte explain`
 * names the group file and line. A 10× price then trips max_price_change_percent, naming the item,
 * until `--force --reason`.
 */

import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Plan } from "../../src/plan/types.js";
import { carte, edit, repoRoot } from "../helpers/project.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const CALI = ["cali-1", "cali-2", "cali-3", "cali-4", "cali-5", "cali-6"];
const OTHERS = ["bog-1", "bog-2", "bog-3", "bog-4"];

/** Ten stores of the pizza catalog; the six `cali-*` stores in group cali, with its price list. */
function chain(): { dir: string; config: string; group: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "carte-price-lists-"));
  dirs.push(dir);
  mkdirSync(path.join(dir, "stores"));
  mkdirSync(path.join(dir, "groups"));
  cpSync(path.join(repoRoot, "examples", "pizza", "catalogs"), path.join(dir, "catalogs"), {
    recursive: true,
  });
  writeFileSync(
    path.join(dir, "carte.yaml"),
    "version: 1\ncurrency: COP\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\ngroups: groups/*.yaml\n" +
      "emulator:\n  apply_delay_ms: 0\n",
  );
  const group = path.join(dir, "groups", "cali.yaml");
  writeFileSync(
    group,
    "name: cali\ndescription: Stores in Cali, with their own price list\ndefaults:\n" +
      "  overrides:\n    prices:\n      PIZZA-PEPPERONI: 29900\n      PIZZA-MARGHERITA: 25900\n",
  );
  [...CALI, ...OTHERS].forEach((key, i) => {
    writeFileSync(
      path.join(dir, "stores", `${key}.yaml`),
      `store:\n  id: ${910001 + i}\n  integration_id: ${key}\n  name: Brasa ${key}\ncatalog: shared\n` +
        (key.startsWith("cali") ? "group: cali\n" : ""),
    );
  });
  // One Cali store has a price of its own: it wins over the group's.
  edit(path.join(dir, "stores", "cali-6.yaml"), /$/, "overrides:\n  prices: { PIZZA-MARGHERITA: 26500 }\n");
  return { dir, config: path.join(dir, "carte.yaml"), group };
}

async function planJson(config: string, extra: string[] = []): Promise<{ code: number; plan: Plan }> {
  const run = await carte(["plan", "--json", "-q", "-c", config, ...extra]);
  return { code: run.code, plan: JSON.parse(run.out) as Plan };
}

describe("a group price list", () => {
  it("changes one price in exactly the group's stores, one item upsert each, and explain names the line", async () => {
    const { config, group } = chain();
    expect((await carte(["apply", "--auto-approve", "-q", "-c", config])).code).toBe(0);
    expect((await carte(["plan", "--detailed-exitcode", "-q", "-c", config])).code).toBe(0);

    edit(group, "PIZZA-PEPPERONI: 29900", "PIZZA-PEPPERONI: 30900");
    const { code, plan } = await planJson(config);
    expect(code).toBe(0);
    expect(plan.changes.map((c) => [c.address, c.diff])).toEqual(
      CALI.map((k) => [
        `store[${k}].item[PIZZA-PEPPERONI]`,
        [{ attribute: "price", before: 29900, after: 30900 }],
      ]),
    );
    expect(plan.operations.map((o) => [o.endpoint, o.stores, o.body])).toEqual(
      CALI.map((k) => [
        "items.upsert",
        [k],
        [expect.objectContaining({ sku: "PIZZA-PEPPERONI", price_info: { price: 30900, overrides: [] } })],
      ]),
    );
    const text = await carte(["plan", "-q", "-c", config]);
    expect(text.out).toContain("      price: $29.900 → $30.900\n");

    // Where the price of one Cali store comes from: the group file, at the line of the price.
    const line = readFileSync(group, "utf8").split("\n").indexOf("      PIZZA-PEPPERONI: 30900") + 1;
    const explained = await carte(["explain", "store[cali-2].item[PIZZA-PEPPERONI]", "-c", config]);
    expect(explained.code).toBe(0);
    const shownGroup = path.relative(process.cwd(), group);
    expect(explained.out).toContain(`  price:            $30.900\n      from ${shownGroup}:${line}:24\n`);
    // The files' names, not the platform's.
    expect(explained.out).toMatch(/\n {2}modifier_groups: +\[/);
    expect(explained.out).not.toContain("children");
    expect(explained.out).toMatch(/overrides \$27\.900 at .*catalogs\/shared\.yaml:17:12/);
    // The store's own price wins over the group's, which it hides.
    const own = await carte(["explain", "store[cali-6].item[PIZZA-MARGHERITA]", "-c", config]);
    expect(own.out).toMatch(
      /price: +\$26\.500\n +from .*stores\/cali-6\.yaml:8:31\n +overrides \$25\.900 at .*groups\/cali\.yaml:7:25\n +overrides \$24\.900 at .*catalogs\/shared\.yaml:11:12/,
    );
    // A store outside the group keeps the catalog's price.
    const other = await carte(["explain", "store[bog-1].item[PIZZA-PEPPERONI]", "-c", config]);
    expect(other.out).toMatch(/price: +\$27\.900\n +from .*catalogs\/shared\.yaml:17:12\n/);

    expect((await carte(["apply", "--auto-approve", "-q", "-c", config])).code).toBe(0);
    expect((await carte(["plan", "--detailed-exitcode", "-q", "-c", config])).code).toBe(0);
  });

  it("refuses a 10× price with max_price_change_percent, naming the item, until --force --reason", async () => {
    const { config, group } = chain();
    expect((await carte(["apply", "--auto-approve", "-q", "-c", config])).code).toBe(0);
    edit(group, "PIZZA-PEPPERONI: 29900", "PIZZA-PEPPERONI: 299000");
    const refused = await carte(["plan", "-q", "-c", config]);
    expect(refused.code).toBe(3);
    expect(refused.out).toContain(
      "  - max_price_change_percent: store[cali-1]: the plan changes 1 price by more than max_price_change_percent 50 %: " +
        "item[PIZZA-PEPPERONI] $29.900 → $299.000 (+900 %)",
    );
    expect(refused.out).not.toContain("store[bog-1]:");
    const forced = await carte([
      "apply",
      "--auto-approve",
      "-q",
      "-c",
      config,
      "--force",
      "--reason",
      "the new Cali price list",
    ]);
    expect(forced.code).toBe(0);
    expect((await carte(["plan", "--detailed-exitcode", "-q", "-c", config])).code).toBe(0);
  });
});
