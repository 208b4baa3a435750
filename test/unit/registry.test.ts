/**
 * The kind registry (src/kinds/registry.ts) is the one list of kinds: every other list that names kinds
 * must agree with it. Each test here fails when one of them drifts.
 */

import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importParts } from "../../src/import/parts.js";
import {
  KIND_NAMES,
  SEGMENT_NAMES,
  catalogEntries,
  clientKinds,
  endpointTable,
  kinds,
  settingsSections,
} from "../../src/kinds/registry.js";
import { Endpoints } from "../../src/plan/endpoints.js";
import { carte, exampleAgainstEmulator, repoRoot } from "../helpers/project.js";

const json = (file: string) => JSON.parse(readFileSync(path.join(repoRoot, file), "utf8")) as unknown;

describe("every list of kinds is derived from the registry", () => {
  it("the ownership: schema lists exactly the registered kinds", () => {
    const schema = json("schemas/config/project.schema.json") as {
      properties: { ownership: { properties: Record<string, unknown> } };
    };
    expect(Object.keys(schema.properties.ownership.properties)).toEqual([...KIND_NAMES]);
  });

  it("the kind table of docs/configuration.md lists exactly the registered kinds", () => {
    const doc = readFileSync(path.join(repoRoot, "docs", "configuration.md"), "utf8");
    const table = doc.slice(doc.indexOf("<!-- kinds:start"), doc.indexOf("<!-- kinds:end"));
    const rows = [...table.matchAll(/^\| `([a-z_]+)`/gm)].map((m) => m[1]);
    expect(rows).toEqual([...KIND_NAMES]);
  });

  it("import parts are the kinds' own, in registry order", () => {
    const withPart = kinds.filter((k) => k.importPart).map((k) => k.name);
    expect(importParts.map((p) => p.kinds)).toEqual(withPart.map((k) => [k]));
  });

  it("settings sections are the kinds' own and each has a schema property", () => {
    const schema = json("schemas/config/settings.schema.json") as { properties: Record<string, unknown> };
    const keys = settingsSections().map((s) => s.key);
    expect(keys).toEqual(kinds.filter((k) => k.config).map((k) => k.config!.key));
    for (const key of keys) expect(Object.keys(schema.properties)).toContain(key);
  });

  it("the endpoint table holds every kind's endpoints, one spec per name", () => {
    const names = [...kinds, ...clientKinds].flatMap((k) => k.endpoints.map((e) => e.name));
    expect(Object.keys(Endpoints).sort()).toEqual([...new Set(names)].sort());
    const clash = { endpoints: [{ ...kinds[0]!.endpoints[0]! }] };
    expect(() => endpointTable([kinds[0]!, clash])).toThrow(/two endpoints are named/);
  });

  it("each kind keeps its state under its own name; only the views of other kinds' state keep none", () => {
    for (const k of kinds) if (k.state) expect(k.state.kind).toBe(k.name);
    expect(kinds.filter((k) => !k.state).map((k) => k.name)).toEqual([
      "corridor_schedule",
      "product_schedule",
    ]);
  });

  it("segments are the kinds' names and their extra address segments", () => {
    expect(SEGMENT_NAMES).toEqual(expect.arrayContaining([...KIND_NAMES, "modifier_group"]));
    expect(SEGMENT_NAMES).toHaveLength(KIND_NAMES.length + 1);
  });
});

describe("a kind shows and guards itself", () => {
  /** The string literals of a source file that are one of `words`. */
  const literals = (file: string, words: readonly string[]): string[] => {
    const text = readFileSync(path.join(repoRoot, file), "utf8");
    return [...text.matchAll(/"([a-z_ ]+)"/g)].map((m) => m[1]!).filter((w) => words.includes(w));
  };
  /** The kinds' names and segments, and the words of the catalog's entries. */
  const kindWords = [...SEGMENT_NAMES, "option", "modifier group"];

  it("every kind declares how the plan's views show its changes", () => {
    const without = [...kinds, ...clientKinds].filter((k) => k.view === undefined).map((k) => k.name);
    expect(without).toEqual([]);
  });

  it("the kinds of the store menu draw themselves on the preview's pages", () => {
    const drawn = kinds.filter((k) => k.preview !== undefined).map((k) => k.name);
    expect(drawn).toEqual(["item", "category", "menu", "availability"]);
  });

  it("the kinds whose changes the guards judge say so themselves", () => {
    const guarded = kinds.filter((k) => k.guards !== undefined).map((k) => k.name);
    expect(guarded).toEqual(["item", "category", "menu", "availability", "store_availability"]);
  });

  // Adding a kind touches its module, its registry line and its schema: the code that shows a plan,
  // draws a preview and judges a plan asks the kinds, and names none of them.
  it.each(["src/render/view.ts", "src/render/menu-pages.ts", "src/plan/safety.ts", "src/plan/plan.ts"])(
    "%s names no kind",
    (file) => {
      expect(literals(file, kindWords)).toEqual([]);
    },
  );

  // What the overrides may say of an item, an option, a modifier group or a category is the kinds'.
  it("the overrides' checks name no kind of catalog entry", () => {
    const entries = catalogEntries().map((e) => e.name);
    expect(entries).toEqual(["item", "option", "modifier group", "category"]);
    expect(literals("src/config/overrides.ts", entries)).toEqual([]);
  });
});

describe("carte plan --kind K works for every kind the registry lists", () => {
  let fx: Awaited<ReturnType<typeof exampleAgainstEmulator>>;
  beforeAll(async () => {
    fx = await exampleAgainstEmulator([
      "stores/bog-centro.yaml",
      "stores/bog-chapinero.yaml",
      "stores/med-poblado.yaml",
    ]);
  });
  afterAll(async () => fx.close());

  it.each([...SEGMENT_NAMES])("--kind %s", async (kind) => {
    const run = await carte(["plan", "-c", fx.config, "--kind", kind, "--json", "--quiet"]);
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.out) as { changes: { kind: string }[]; targeting: { kinds: string[] } };
    expect(plan.targeting.kinds).toEqual([kind]);
    // What a kind selects may pull in what it depends on, never an unrelated kind's settings.
    if (["store_hours", "holiday", "special_day", "webhook", "store_availability"].includes(kind))
      expect(new Set(plan.changes.map((c) => c.kind))).toEqual(new Set(plan.changes.length ? [kind] : []));
  });
});
