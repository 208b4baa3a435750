import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject } from "../../src/config/index.js";
import { CATALOG, problemsOf, shown, storeYaml, writeProject } from "./helpers.js";

const PROJECT = "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n";

/** A project of four stores (a, b, c in stores/, d in stores/north/) with the given `rollout:` text. */
async function project(rollout: string) {
  const dir = await writeProject({
    "carte.yaml": PROJECT.replace("stores/*.yaml", "stores/**/*.yaml") + rollout,
    "catalogs/burgers.yaml": CATALOG,
    "stores/a.yaml": storeYaml(1, "a"),
    "stores/b.yaml": storeYaml(2, "b"),
    "stores/c.yaml": storeYaml(3, "c"),
    "stores/north/d.yaml": storeYaml(4, "d"),
  });
  return { dir, load: () => loadProject(join(dir, "carte.yaml")) };
}

describe("rollout: stage resolution", () => {
  it("has no stages without rollout:", async () => {
    const p = await project("");
    expect((await p.load()).rollout).toBeUndefined();
  });

  it("keeps the stages in the order written, a store in the first stage that names it", async () => {
    const p = await project(
      "rollout:\n  zeta: [stores/c.yaml]\n  alpha: stores/north/*.yaml\n  canary: [stores/a.yaml, stores/c.yaml]\n  rest: '*'\n",
    );
    const { rollout } = await p.load();
    expect(rollout).toEqual([
      { name: "zeta", stores: ["c"] },
      { name: "alpha", stores: ["d"] },
      { name: "canary", stores: ["a"] },
      { name: "rest", stores: ["b"] },
    ]);
  });

  it("reads the flow form: canary list, then rest", async () => {
    const p = await project('rollout: { canary: [stores/b.yaml], rest: "*" }\n');
    expect((await p.load()).rollout).toEqual([
      { name: "canary", stores: ["b"] },
      { name: "rest", stores: ["a", "c", "d"] },
    ]);
  });

  it("refuses a file that is not a store file, located at the entry", async () => {
    const p = await project("rollout:\n  canary: [stores/zz.yaml]\n  rest: '*'\n");
    const problems = await problemsOf(p.load());
    expect(problems).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${shown(p.dir, "carte.yaml").replace(/[.]/g, "\\.")}:5:12: rollout\\.canary: "stores/zz\\.yaml" is not a store file of the project`,
        ),
      ),
    ]);
  });

  it("refuses a file outside the store files even when it exists", async () => {
    const p = await project("rollout:\n  canary: catalogs/burgers.yaml\n  rest: '*'\n");
    expect(await problemsOf(p.load())).toEqual([
      expect.stringContaining('rollout.canary: "catalogs/burgers.yaml" is not a store file'),
    ]);
  });

  it("refuses a pattern that matches no store file and one that leaves the project", async () => {
    const p = await project(
      "rollout:\n  canary: stores/x*.yaml\n  other: [../elsewhere/*.yaml]\n  rest: '*'\n",
    );
    const problems = await problemsOf(p.load());
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/:5:11: rollout\.canary: pattern "stores\/x\*\.yaml" matches no store file/);
    expect(problems[1]).toMatch(/:6:11: rollout\.other: the pattern: "\.\.\/elsewhere\/\*\.yaml" is outside/);
  });

  it("refuses stores in no stage, naming them, rather than adding an implicit stage", async () => {
    const p = await project("rollout:\n  canary: [stores/a.yaml]\n  north: stores/north/*.yaml\n");
    const problems = await problemsOf(p.load());
    expect(problems).toEqual([
      expect.stringMatching(
        /:4:1: rollout: 2 stores are in no stage \("b", "c"\); every store must be in a stage/,
      ),
    ]);
  });

  it("refuses a stage left empty because earlier stages took all its stores", async () => {
    const p = await project("rollout:\n  all: '*'\n  late: [stores/a.yaml]\n");
    expect(await problemsOf(p.load())).toEqual([
      expect.stringMatching(/:6:3: rollout\.late: every store this stage names is in an earlier stage/),
    ]);
  });

  it("refuses stage names the schema does not allow, and an empty rollout", async () => {
    for (const text of ["rollout:\n  '1': '*'\n", "rollout:\n  __proto__: '*'\n", "rollout: {}\n"]) {
      const p = await project(text);
      const problems = await problemsOf(p.load());
      expect(problems.length).toBeGreaterThan(0);
      expect(problems.join("\n")).toMatch(/rollout/);
    }
  });
});
