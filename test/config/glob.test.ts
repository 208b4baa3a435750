import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject } from "../../src/config/index.js";
import { globFiles, hasMagic } from "../../src/config/glob.js";
import { CATALOG, PROJECT, problemsOf, shown, storeYaml, writeProject } from "./helpers.js";

describe("globFiles", () => {
  it("matches * within one folder, sorted, files only, no hidden files", async () => {
    const dir = await writeProject({
      "stores/b.yaml": "",
      "stores/a.yaml": "",
      "stores/c.yml": "",
      "stores/.hidden.yaml": "",
      "stores/sub/d.yaml": "",
      "stores/dir.yaml/e.yaml": "",
    });
    expect(await globFiles("stores/*.yaml", dir)).toEqual([
      join(dir, "stores/a.yaml"),
      join(dir, "stores/b.yaml"),
    ]);
    expect(await globFiles("stores/?.y*", dir)).toEqual([
      join(dir, "stores/a.yaml"),
      join(dir, "stores/b.yaml"),
      join(dir, "stores/c.yml"),
    ]);
    expect(await globFiles("stores/.*.yaml", dir)).toEqual([join(dir, "stores/.hidden.yaml")]);
  });

  it("matches ** across any number of folders, including none", async () => {
    const dir = await writeProject({
      "stores/a.yaml": "",
      "stores/co/bog/b.yaml": "",
      "stores/co/med/c.yaml": "",
      "stores/co/med/notes.txt": "",
    });
    expect(await globFiles("stores/**/*.yaml", dir)).toEqual([
      join(dir, "stores/a.yaml"),
      join(dir, "stores/co/bog/b.yaml"),
      join(dir, "stores/co/med/c.yaml"),
    ]);
    expect(await globFiles("**/med/*", dir)).toEqual([
      join(dir, "stores/co/med/c.yaml"),
      join(dir, "stores/co/med/notes.txt"),
    ]);
  });

  it("matches nothing in a missing folder, and plain names only when the file exists", async () => {
    const dir = await writeProject({ "stores/a.yaml": "" });
    expect(await globFiles("nowhere/*.yaml", dir)).toEqual([]);
    expect(await globFiles("stores/a.yaml", dir)).toEqual([join(dir, "stores/a.yaml")]);
    expect(await globFiles("stores/b.yaml", dir)).toEqual([]);
    expect(await globFiles(join(dir, "stores/*.yaml"), "/elsewhere")).toEqual([join(dir, "stores/a.yaml")]);
  });

  it("does not expand a folder name to its files, and follows symbolic links", async () => {
    const dir = await writeProject({ "stores/a.yaml": "", "shared/b.yaml": "" });
    await symlink(join(dir, "shared/b.yaml"), join(dir, "stores/b.yaml"));
    await symlink(join(dir, "nowhere.yaml"), join(dir, "stores/dangling.yaml"));
    expect(await globFiles("stores", dir)).toEqual([]);
    expect(await globFiles("stores/*.yaml", dir)).toEqual([
      join(dir, "stores/a.yaml"),
      join(dir, "stores/b.yaml"),
    ]);
  });

  it("knows which patterns are globs", () => {
    expect(hasMagic("stores/*.yaml")).toBe(true);
    expect(hasMagic("stores/**")).toBe(true);
    expect(hasMagic("stores/a?.yaml")).toBe(true);
    expect(hasMagic("stores/a.yaml")).toBe(false);
  });
});

describe("file patterns of carte.yaml", () => {
  it("accepts a list of patterns and names, in order, without duplicates", async () => {
    const dir = await writeProject({
      "carte.yaml": "version: 1\nstores: [stores/z.yaml, stores/*.yaml]\ncatalogs: [catalogs/burgers.yaml]\n",
      "catalogs/burgers.yaml": CATALOG,
      "stores/a.yaml": storeYaml(1, "a"),
      "stores/z.yaml": storeYaml(2, "z"),
    });
    const project = await loadProject(join(dir, "carte.yaml"));
    expect(Object.keys(project.desired.stores)).toEqual(["z", "a"]);
    expect(project.files).toHaveLength(4);
  });

  it("refuses a pattern that matches nothing, located at the pattern (not an empty set of stores)", async () => {
    const dir = await writeProject({ "carte.yaml": PROJECT, "catalogs/burgers.yaml": CATALOG });
    expect(await problemsOf(loadProject(join(dir, "carte.yaml")))).toEqual([
      `${shown(dir, "carte.yaml")}:2:9: stores: pattern "stores/*.yaml" matches no file (looked in ${shown(dir, "")}); fix the pattern, or remove it`,
    ]);
  });
});
