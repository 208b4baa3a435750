/**
 * A YAML syntax error stops the knock-on problems of the checks between values and files (one
 * indentation slip once gave 68 problems, 57 of them "unknown item"), and no Node warning of the yaml
 * library reaches the user.
 */

import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadProject } from "../../src/config/index.js";
import { CATALOG, PROJECT, problemsOf, shown, storeYaml, writeProject } from "./helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a file with YAML syntax errors", () => {
  it("reports its syntax errors, then how many checks of each file were skipped", async () => {
    // BURGER's line slips two columns left: the items after it are lost to the parser.
    const catalog = CATALOG.replace(
      "  - { sku: FRIES, title: Fries, price: 8900 }",
      "  - sku: FRIES\ntitle: Fries\n    price: 8900",
    );
    const dir = await writeProject({
      "carte.yaml": PROJECT,
      "catalogs/burgers.yaml": catalog,
      "stores/a.yaml": storeYaml(1, "a", "overrides:\n  prices:\n    FRIES: 100\n    NOPE: 1\n"),
    });
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml")));
    const cat = shown(dir, "catalogs/burgers.yaml");
    const store = shown(dir, "stores/a.yaml");
    const syntax = problems.filter((p) => p.includes("YAML syntax error"));
    expect(syntax.length).toBeGreaterThan(0);
    expect(problems.every((p) => !p.includes("unknown"))).toBe(true);
    // The syntax errors first, then the counts, one line per file.
    const skippedCat = problems.findIndex((p) => p.startsWith(`${cat}: `) && p.includes("skipped"));
    expect(problems[skippedCat]).toMatch(/^.*: \d+ checks? of this file skipped until its syntax is fixed$/);
    expect(skippedCat).toBeGreaterThan(problems.lastIndexOf(syntax.at(-1)!));
    expect(problems).toContain(`${store}: 1 check of this file skipped until the syntax of ${cat} is fixed`);
  });

  it("without syntax errors, the checks between files report as before", async () => {
    const dir = await writeProject({
      "carte.yaml": PROJECT,
      "catalogs/burgers.yaml": CATALOG,
      "stores/a.yaml": storeYaml(1, "a", "overrides:\n  prices:\n    NOPE: 1\n"),
    });
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml")));
    expect(problems).toEqual([
      `${shown(dir, "stores/a.yaml")}:8:5: unknown SKU "NOPE": catalog burgers has no item or option with this SKU`,
    ]);
  });

  it("a list or a mapping used as a key is a located problem, not a Node warning", async () => {
    const warn = vi.spyOn(process, "emitWarning");
    const write = vi.spyOn(process.stderr, "write");
    const dir = await writeProject({
      "carte.yaml": PROJECT,
      "catalogs/burgers.yaml": CATALOG,
      "stores/a.yaml": storeYaml(1, "a", 'hours:\n  ? [mon, tue]\n  : ["11:00-15:00"]\n'),
    });
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml")));
    expect(problems).toContain(
      `${shown(dir, "stores/a.yaml")}:7:5: YAML syntax error: a key is a list or a mapping here, not a name: check the indentation of this line and the ones above`,
    );
    expect(warn).not.toHaveBeenCalled();
    expect(write).not.toHaveBeenCalled();
  });
});
