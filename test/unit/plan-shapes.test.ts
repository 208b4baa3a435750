/**
 * The shapes a plan file's resources are checked for (src/plan/shapes.ts) are those carte writes: every
 * address segment has one, and the plans carte saves of the example chain, from empty and after edits
 * that update and delete resources of every kind it manages (utils schedules included), are read back
 * without a refusal.
 */

import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEGMENT_NAMES } from "../../src/kinds/registry.js";
import { readPlanFile, readPlanToShow } from "../../src/plan/file.js";
import { SHAPED_SEGMENTS } from "../../src/plan/shapes.js";
import type { Plan } from "../../src/plan/types.js";
import { carte, edit, exampleAgainstEmulator, EXAMPLE_STORES } from "../helpers/project.js";

it("every address segment of the registry has a shape", () => {
  expect([...SHAPED_SEGMENTS].sort()).toEqual([...SEGMENT_NAMES].sort());
});

describe("the plans carte saves pass the check of their shapes", () => {
  let fx: Awaited<ReturnType<typeof exampleAgainstEmulator>>;
  beforeAll(async () => {
    fx = await exampleAgainstEmulator(EXAMPLE_STORES.map((s) => path.join("stores", `${s}.yaml`)));
  });
  afterAll(() => fx?.close());

  /** Saves a plan, reads it back as show and apply read it, and gives its `kind action` pairs. */
  async function saved(name: string): Promise<Set<string>> {
    const file = path.join(fx.dir, name);
    const run = await carte(["plan", "-q", "-c", fx.config, "--out", file, "--force", "--reason", "test"]);
    expect(run.code, run.err).toBe(0);
    const { plan, digestMatches } = await readPlanToShow(file);
    expect(digestMatches).toBe(true);
    expect(await readPlanFile(file)).toEqual(plan);
    return new Set((plan as Plan).changes.map((c) => `${c.kind} ${c.action}`));
  }

  it("from empty, and after updates and deletes of every kind", async () => {
    const store = path.join(fx.dir, "stores", "med-poblado.yaml");
    writeFileSync(store, `${readFileSync(store, "utf8")}\nschedules_via: utils\n`);
    const created = await saved("created.json");
    const applied = await carte([
      "apply",
      "-q",
      "--auto-approve",
      "-c",
      fx.config,
      "--force",
      "--reason",
      "t",
    ]);
    expect(applied.code, applied.err).toBe(0);

    // Hours, a holiday and a special day changed, a holiday gone, a webhook moved, a store closed, a
    // price and an item's schedule changed, an item switched on again, a category dropped from a menu.
    edit(fx.config, '["11:00-22:00"]', '["10:00-22:00"]');
    edit(
      fx.config,
      "NEW_ORDER: http://localhost:8080/hooks/new-order",
      "NEW_ORDER: http://localhost:9090/new",
    );
    const shared = path.join(fx.dir, "shared", "holidays-colombia.yaml");
    edit(shared, '"12-25": ["12:00-20:00"]', '"12-25": ["12:00-19:00"]');
    edit(shared, '"01-01": [] # closed', '"01-01": ["10:00-12:00"] # open');
    const poblado = path.join(fx.dir, "stores", "med-poblado.yaml");
    writeFileSync(poblado, `${readFileSync(poblado, "utf8")}holidays:\n  "12-25": []\n`);
    edit(shared, /\n *- \{ name: Nochevieja.*\n/, "\n");
    edit(shared, 'slots: ["11:00-18:00"] }', 'slots: ["11:00-17:00"] }');
    const centro = path.join(fx.dir, "stores", "bog-centro.yaml");
    edit(centro, "open: true", "open: false");
    edit(centro, "BURGER-CLASSIC: 25900", "BURGER-CLASSIC: 26900");
    edit(centro, "unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE]", "unavailable: [EXTRA-AVOCADO]");
    const catalog = path.join(fx.dir, "catalogs", "burgers.yaml");
    const text = readFileSync(catalog, "utf8");
    writeFileSync(
      catalog,
      text.replace(/(\n {4}schedules:\n(?: {6}.*\n)+)/, (m) => m.replace(/\d\d:00/, "05:00")),
    );
    const changed = await saved("changed.json");

    const all = new Set([...created, ...changed]);
    for (const segment of SEGMENT_NAMES) {
      if (segment === "corridor_schedule") continue; // the example's categories have no schedules
      expect(
        [...all].some((k) => k.startsWith(`${segment} `)),
        segment,
      ).toBe(true);
    }
    for (const pair of [
      "item update",
      "store_hours update",
      "holiday update",
      "holiday delete",
      "special_day update",
      "special_day delete",
      "webhook update",
      "store_availability update",
      "availability update",
    ])
      expect(all, pair).toContain(pair);
  });
});
