import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject, type ParsedFiles } from "../../src/config/index.js";
import { CATALOG, PROJECT, problemsOf, shown, storeYaml, writeProject } from "./helpers.js";

// Two loads of one run that share their parsed files (a scoped plan's head and base): what the first
// checked is not checked again, and every problem of the second still names the second's files.
describe("loads that share parsed files", () => {
  it("locate a problem found with a catalog checked by the first load in the second load's files", async () => {
    const parsed: ParsedFiles = new Map();
    const first = await writeProject({
      "carte.yaml": PROJECT,
      "catalogs/burgers.yaml": CATALOG,
      "stores/a.yaml": storeYaml(1, "a"),
    });
    const loaded = await loadProject(join(first, "carte.yaml"), { parsed });
    expect(Object.keys(loaded.desired.stores)).toEqual(["a"]);
    // The same catalog bytes in another folder, and a second catalog of the same name.
    const second = await writeProject({
      "carte.yaml": PROJECT,
      "catalogs/burgers.yaml": CATALOG,
      "catalogs/other.yaml": "name: burgers\n" + CATALOG.replace(/BURGER/g, "X"),
      "stores/a.yaml": storeYaml(1, "a"),
    });
    expect(await problemsOf(loadProject(join(second, "carte.yaml"), { parsed }))).toEqual([
      `${shown(second, "catalogs/other.yaml")}:1:7: duplicate catalog name "burgers": ${shown(second, "catalogs/burgers.yaml")} ` +
        `already has it; give one of them a different name: (the default name is the file name)`,
    ]);
  });

  it("check each load's catalog on its own when the bytes differ, and a catalog with problems each time", async () => {
    const parsed: ParsedFiles = new Map();
    const broken = CATALOG.replace("items: [BURGER, FRIES]", "items: [BURGER, NOPE]");
    const files = {
      "carte.yaml": PROJECT,
      "catalogs/burgers.yaml": broken,
      "stores/a.yaml": storeYaml(1, "a"),
    };
    const one = await writeProject(files);
    const two = await writeProject(files);
    const [p1, p2] = [
      await problemsOf(loadProject(join(one, "carte.yaml"), { parsed })),
      await problemsOf(loadProject(join(two, "carte.yaml"), { parsed })),
    ];
    expect(p1).toHaveLength(1);
    expect(p1[0]).toContain(`${shown(one, "catalogs/burgers.yaml")}:`);
    expect(p1[0]).toContain('"NOPE"');
    expect(p2).toEqual([
      p1[0]!.replace(shown(one, "catalogs/burgers.yaml"), shown(two, "catalogs/burgers.yaml")),
    ]);
    // A valid catalog loaded after it is checked and resolved as its own.
    const fixed = await writeProject({ ...files, "catalogs/burgers.yaml": CATALOG });
    const loaded = await loadProject(join(fixed, "carte.yaml"), { parsed });
    expect(Object.keys(loaded.desired.stores)).toEqual(["a"]);
  });
});
