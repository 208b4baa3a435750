/**
 * Which stores, and which kinds of each, a difference between two versions of the files touches
 * (src/gitops/change-scope.ts `changeScope`): both versions are loaded from real files, as `carte plan
 * --scope changed --base REF` loads the base's and the work tree's.
 */

import { createHash } from "node:crypto";
import { readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadProject } from "../../src/config/index.js";
import { ConfigError } from "../../src/errors.js";
import { findRepository, workTreeStatus } from "../../src/gitops/git.js";
import { changeScope, loadChangeScope } from "../../src/gitops/change-scope.js";
import type { ChangeScope } from "../../src/plan/target.js";
import { copyExample, edit } from "../helpers/project.js";
import { commitAll, git } from "../action/harness.js";

/** Every kind a store file of the example manages, in the registry's order. */
const EVERY_STORE_KIND = [
  "item",
  "category",
  "menu",
  "availability",
  "webhook",
  "store_hours",
  "holiday",
  "special_day",
  "store_availability",
];

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The example chain plus a store of its own catalog (Cali), so that a catalog is shared by some stores only. */
function chain(): string {
  const dir = copyExample();
  dirs.push(dir);
  writeFileSync(
    path.join(dir, "catalogs/salads.yaml"),
    [
      "name: salads",
      "items:",
      "  - { sku: SALAD-GREEN, title: Ensalada verde, price: 18900 }",
      "categories:",
      "  - { sku: SALADS, title: Ensaladas, items: [SALAD-GREEN] }",
      "menus:",
      "  - { type: DEFAULT, categories: [SALADS] }",
    ].join("\n") + "\n",
  );
  writeFileSync(
    path.join(dir, "stores/cal-norte.yaml"),
    ["store:", "  id: 900301", "  integration_id: cal-norte", "  name: Cali Norte", "catalog: salads"].join(
      "\n",
    ) + "\n",
  );
  return dir;
}

/** The scope of the files after `change` against the files before it. */
async function scopeOf(change: (dir: string) => void): Promise<ChangeScope> {
  const dir = chain();
  const config = path.join(dir, "carte.yaml");
  const base = await loadProject(config, { shareResources: true });
  change(dir);
  const head = await loadProject(config, { shareResources: true });
  return changeScope(base, head, { ref: "main", sha: "0".repeat(40) });
}

const stores = (scope: ChangeScope) => Object.fromEntries(scope.stores.map((s) => [s.store, s.kinds]));

describe("changeScope", () => {
  it("a price in one store file: that store's items, its menu read", async () => {
    const scope = await scopeOf((dir) =>
      edit(path.join(dir, "stores/bog-centro.yaml"), "BURGER-CLASSIC: 25900", "BURGER-CLASSIC: 26900"),
    );
    expect(scope).toEqual({
      base: "main",
      sha: "0".repeat(40),
      of: 4,
      stores: [{ store: "bog-centro", kinds: ["item"] }],
      client: [],
      removed: [],
      reads: ["menu"],
    });
  });

  it("a shared catalog: the items of every store that uses it, and of no other", async () => {
    const scope = await scopeOf((dir) =>
      edit(path.join(dir, "catalogs/burgers.yaml"), /price: 12900/, "price: 13900"),
    );
    expect(stores(scope)).toEqual({
      "bog-centro": ["item"],
      "bog-chapinero": ["item"],
      "med-poblado": ["item"],
    });
    expect(scope.reads).toEqual(["menu"]);
  });

  it("a new item in a catalog: the items and categories of its stores", async () => {
    const scope = await scopeOf((dir) => {
      edit(
        path.join(dir, "catalogs/salads.yaml"),
        "categories:",
        "  - { sku: SALAD-CAESAR, title: Ensalada César, price: 21900 }\ncategories:",
      );
      edit(
        path.join(dir, "catalogs/salads.yaml"),
        "items: [SALAD-GREEN]",
        "items: [SALAD-GREEN, SALAD-CAESAR]",
      );
    });
    expect(stores(scope)).toEqual({ "cal-norte": ["item", "category"] });
  });

  it("a group's defaults: the stores of the group, for the kind they set", async () => {
    const scope = await scopeOf((dir) =>
      edit(path.join(dir, "groups/bogota.yaml"), 'sun: ["12:00-20:00"]', 'sun: ["10:00-20:00"]'),
    );
    expect(stores(scope)).toEqual({ "bog-centro": ["store_hours"], "bog-chapinero": ["store_hours"] });
    expect(scope.reads).toEqual(["hours"]);
  });

  it("carte.yaml defaults and ownership: every store they reach; client settings apart", async () => {
    const hooks = await scopeOf((dir) =>
      edit(path.join(dir, "carte.yaml"), "hooks/new-order", "hooks/new-order-v2"),
    );
    expect(stores(hooks)).toEqual({
      "bog-centro": ["webhook"],
      "bog-chapinero": ["webhook"],
      "cal-norte": ["webhook"],
      "med-poblado": ["webhook"],
    });
    expect(hooks.client).toEqual([]);

    const ownership = await scopeOf((dir) =>
      edit(path.join(dir, "carte.yaml"), /^emulator:/m, "ownership:\n  category: additive\nemulator:"),
    );
    expect(ownership.stores.map((s) => s.kinds)).toEqual([
      ["category"],
      ["category"],
      ["category"],
      ["category"],
    ]);

    const client = await scopeOf((dir) =>
      edit(path.join(dir, "carte.yaml"), "hooks/provisioning", "hooks/prov-2"),
    );
    expect(client.stores).toEqual([]);
    expect(client.client).toEqual(["client_webhook"]);
  });

  it("a deleted store file: the store is listed as removed, with what the base managed there", async () => {
    const scope = await scopeOf((dir) => rmSync(path.join(dir, "stores/med-poblado.yaml")));
    expect(scope.stores).toEqual([]);
    expect(scope.of).toBe(3);
    expect(scope.removed).toEqual([
      {
        store: "med-poblado",
        storeId: "900201",
        name: "Medellín El Poblado",
        kinds: EVERY_STORE_KIND,
      },
    ]);
    expect(scope.reads).toEqual(["menu", "webhooks", "hours", "holidays", "special", "open"]);
  });

  it("a new store file: every kind it manages; a moved store (another platform id) too", async () => {
    const added = await scopeOf((dir) =>
      writeFileSync(
        path.join(dir, "stores/cal-sur.yaml"),
        "store:\n  id: 900302\n  integration_id: cal-sur\n  name: Cali Sur\ncatalog: salads\n",
      ),
    );
    expect(stores(added)).toEqual({
      "cal-sur": EVERY_STORE_KIND,
    });
    const moved = await scopeOf((dir) =>
      edit(path.join(dir, "stores/cal-norte.yaml"), "id: 900301", "id: 900309"),
    );
    expect(moved.stores.map((s) => s.store)).toEqual(["cal-norte"]);
    expect(moved.stores[0]!.kinds).toContain("menu");
  });

  it("no difference (a comment, a file moved): nothing", async () => {
    const scope = await scopeOf((dir) => {
      edit(path.join(dir, "stores/bog-centro.yaml"), /^store:/m, "# a comment\nstore:");
      writeFileSync(path.join(dir, "notes.txt"), "not a carte file\n");
    });
    expect(scope.stores).toEqual([]);
    expect(scope.client).toEqual([]);
    expect(scope.removed).toEqual([]);
    expect(scope.reads).toEqual([]);
  });
});

describe("loadChangeScope", () => {
  it("resolves in the head, and reads in the base, only the stores the files git names can reach", async () => {
    const dir = chain();
    commitAll(dir, "the chain");
    edit(path.join(dir, "catalogs/salads.yaml"), "price: 18900", "price: 19900");
    rmSync(path.join(dir, "stores/med-poblado.yaml"));
    const loaded = await loadChangeScope(path.join(dir, "carte.yaml"), "main");
    // Every head file is read and checked; only cal-norte (the salads catalog) is resolved.
    expect(Object.keys(loaded.project.desired.stores)).toEqual(["cal-norte"]);
    expect(loaded.project.partial).toEqual({ stores: 3, files: [path.join(dir, "stores/cal-norte.yaml")] });
    expect(Object.keys(loaded.base.project!.desired.stores).sort()).toEqual(["cal-norte", "med-poblado"]);
    expect(loaded.scope).toMatchObject({
      base: "main",
      sha: git(dir, "rev-parse", "HEAD"),
      of: 3,
      stores: [{ store: "cal-norte", kinds: ["item"] }],
      removed: [{ store: "med-poblado", storeId: "900201" }],
    });
  });

  it("counts a file the base does not have as changed, even one git ignores", async () => {
    const dir = chain();
    commitAll(dir, "the chain");
    writeFileSync(path.join(dir, ".gitignore"), ".carte/\n*.json\nstores/cal-sur.yaml\n");
    writeFileSync(
      path.join(dir, "stores/cal-sur.yaml"),
      "store:\n  id: 900302\n  integration_id: cal-sur\n  name: Cali Sur\ncatalog: salads\n",
    );
    const loaded = await loadChangeScope(path.join(dir, "carte.yaml"), "main");
    expect(Object.keys(loaded.project.desired.stores)).toEqual(["cal-sur"]);
    expect(loaded.scope?.stores.map((s) => s.store)).toEqual(["cal-sur"]);
    expect(loaded.scope?.stores[0]!.kinds).toContain("menu");
  });

  it("follows a store file that is a link to another file: a change of its target reaches it", async () => {
    const dir = chain();
    renameSync(path.join(dir, "stores/cal-norte.yaml"), path.join(dir, "cal-norte.yaml"));
    symlinkSync("../cal-norte.yaml", path.join(dir, "stores/cal-norte.yaml"));
    commitAll(dir, "the chain");
    edit(path.join(dir, "cal-norte.yaml"), /$/, "overrides:\n  prices:\n    SALAD-GREEN: 17900\n");
    const loaded = await loadChangeScope(path.join(dir, "carte.yaml"), "main");
    expect(loaded.scope?.stores).toEqual([{ store: "cal-norte", kinds: ["item"] }]);
  });

  it("reads the store files git does not name for their identity alone: an unchanged file's faults are the full plan's", async () => {
    const dir = chain();
    // A mistake in a file nobody touches (an unknown key): the full load refuses it, the scoped one
    // does not parse that far, since the file is byte for byte the base's.
    edit(path.join(dir, "stores/med-poblado.yaml"), /^catalog:/m, "colour: blue\ncatalog:");
    commitAll(dir, "the chain");
    edit(path.join(dir, "stores/bog-centro.yaml"), "BURGER-CLASSIC: 25900", "BURGER-CLASSIC: 26900");
    await expect(loadProject(path.join(dir, "carte.yaml"))).rejects.toThrow(/colour/);
    const loaded = await loadChangeScope(path.join(dir, "carte.yaml"), "main");
    expect(loaded.scope?.stores).toEqual([{ store: "bog-centro", kinds: ["item"] }]);
    expect(loaded.project.partial).toEqual({ stores: 4, files: [path.join(dir, "stores/bog-centro.yaml")] });
    // Every file still counts in the digests a saved plan keeps.
    expect(Object.keys(loaded.project.fileDigests)).toContain("stores/med-poblado.yaml");
  });

  it("a new or changed store file that claims the store id or integration id of an unchanged one is refused, located", async () => {
    const dir = chain();
    commitAll(dir, "the chain");
    writeFileSync(
      path.join(dir, "stores/cal-sur.yaml"),
      "store:\n  id: 900301\n  integration_id: cal-sur\n  name: Cali Sur\ncatalog: salads\n",
    );
    const err = await loadChangeScope(path.join(dir, "carte.yaml"), "main").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      expect.objectContaining({
        file: expect.stringMatching(/stores\/cal-sur\.yaml$/),
        line: 2,
        col: 7,
        message: expect.stringMatching(
          /^duplicate store id 900301: already used by the store at .*stores\/cal-norte\.yaml:2:7$/,
        ),
      }),
    ]);

    rmSync(path.join(dir, "stores/cal-sur.yaml"));
    edit(
      path.join(dir, "stores/bog-centro.yaml"),
      "integration_id: bog-centro",
      "integration_id: med-poblado",
    );
    const again = await loadChangeScope(path.join(dir, "carte.yaml"), "main").catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ConfigError);
    expect((again as ConfigError).problems).toEqual([
      expect.objectContaining({
        file: expect.stringMatching(/stores\/bog-centro\.yaml$/),
        line: 3,
        message: expect.stringMatching(
          /^duplicate integration_id "med-poblado": already used by the store at .*stores\/med-poblado\.yaml:3:19$/,
        ),
      }),
    ]);
  });

  it("knows an unchanged store file from an earlier run by its git object: not read again, same digests, a claim of its id still located", async () => {
    const dir = chain();
    commitAll(dir, "the chain");
    edit(path.join(dir, "stores/bog-centro.yaml"), "BURGER-CLASSIC: 25900", "BURGER-CLASSIC: 26900");
    const config = path.join(dir, "carte.yaml");
    const med = path.join(dir, "stores/med-poblado.yaml");
    const digestOf = (text: string) => createHash("sha256").update(text).digest("hex");
    const original = readFileSync(med, "utf8");
    const first = await loadChangeScope(config, "main");
    expect(first.project.fileDigests["stores/med-poblado.yaml"]).toBe(digestOf(original));
    // git is told not to look at med-poblado.yaml, whose bytes then change at the same size: a later
    // run takes what the file held from the entry (the file is not read), and the same digests.
    git(dir, "update-index", "--assume-unchanged", "stores/med-poblado.yaml");
    writeFileSync(med, original.replace("id: 900201", "id: 900209"));
    const second = await loadChangeScope(config, "main");
    expect(second.project.fileDigests).toEqual(first.project.fileDigests);
    // Bytes of another size are not the object's: the file is read.
    writeFileSync(med, original.replace("id: 900201", "id: 9002011"));
    const third = await loadChangeScope(config, "main");
    expect(third.project.fileDigests["stores/med-poblado.yaml"]).toBe(
      digestOf(original.replace("id: 900201", "id: 9002011")),
    );
    writeFileSync(med, original);
    await loadChangeScope(config, "main");
    // A new file claiming the store id of a file known from the entry: located in both files.
    writeFileSync(
      path.join(dir, "stores/cal-sur.yaml"),
      "store:\n  id: 900201\n  integration_id: cal-sur\n  name: Cali Sur\ncatalog: salads\n",
    );
    const err = await loadChangeScope(config, "main").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      expect.objectContaining({
        file: expect.stringMatching(/stores\/cal-sur\.yaml$/),
        line: 2,
        col: 7,
        message: expect.stringMatching(
          /^duplicate store id 900201: already used by the store at .*stores\/med-poblado\.yaml:2:7$/,
        ),
      }),
    ]);
  });

  it("with a base that is not HEAD's commit, the files that differ from the base (committed since, or not)", async () => {
    const dir = chain();
    commitAll(dir, "the chain");
    edit(path.join(dir, "stores/bog-centro.yaml"), "BURGER-CLASSIC: 25900", "BURGER-CLASSIC: 26900");
    commitAll(dir, "a price");
    edit(path.join(dir, "catalogs/salads.yaml"), "price: 18900", "price: 19900");
    const loaded = await loadChangeScope(path.join(dir, "carte.yaml"), "main~1");
    expect(loaded.scope?.stores).toEqual([
      { store: "bog-centro", kinds: ["item"] },
      { store: "cal-norte", kinds: ["item"] },
    ]);
    const atHead = await loadChangeScope(path.join(dir, "carte.yaml"), "HEAD");
    expect(atHead.scope?.stores).toEqual([{ store: "cal-norte", kinds: ["item"] }]);
  });

  it("a changed carte.yaml reaches every store; a base that does not load scopes nothing", async () => {
    const dir = chain();
    commitAll(dir, "the chain");
    edit(path.join(dir, "carte.yaml"), "hooks/new-order", "hooks/new-order-v2");
    const all = await loadChangeScope(path.join(dir, "carte.yaml"), "main");
    expect(Object.keys(all.project.desired.stores)).toHaveLength(4);
    expect(all.scope?.stores.map((s) => s.kinds)).toEqual([
      ["webhook"],
      ["webhook"],
      ["webhook"],
      ["webhook"],
    ]);

    edit(path.join(dir, "carte.yaml"), /^version: 1$/m, "version: 1\nstorez: x");
    git(dir, "commit", "-qam", "broken");
    edit(path.join(dir, "carte.yaml"), "storez: x\n", "");
    const broken = await loadChangeScope(path.join(dir, "carte.yaml"), "main");
    expect(broken.scope).toBeUndefined();
    expect(broken.base.unavailable).toMatch(/^the base's files do not load \(1 configuration problem/);
    expect(Object.keys(broken.project.desired.stores)).toHaveLength(4);
    expect(broken.project.partial).toBeUndefined();
  });
});

describe("workTreeStatus", () => {
  it("names what differs from HEAD in the index or on disk, and the untracked files git does not ignore, below the folder", async () => {
    const dir = chain();
    commitAll(dir, "the chain");
    const top = realpathSync(dir);
    edit(path.join(dir, "stores/bog-centro.yaml"), "BURGER-CLASSIC: 25900", "BURGER-CLASSIC: 26900");
    // Staged, then changed back on disk: still named (the list may hold more than differs).
    const cal = path.join(dir, "stores/cal-norte.yaml");
    const text = readFileSync(cal, "utf8");
    writeFileSync(cal, text.replace("Cali Norte", "Cali N."));
    git(dir, "add", "stores/cal-norte.yaml");
    writeFileSync(cal, text);
    rmSync(path.join(dir, "stores/med-poblado.yaml"));
    writeFileSync(path.join(dir, "stores/new.yaml"), "store: {}\n");
    writeFileSync(path.join(dir, "stores/ignored.json"), "{}\n");
    edit(path.join(dir, "carte.yaml"), "hooks/new-order", "hooks/new-order-v2");
    const repo = await findRepository(dir);
    const status = await workTreeStatus(repo, "stores");
    const rel = (files: string[]) => files.map((f) => path.relative(top, f)).sort();
    expect(rel(status.files)).toEqual([
      "stores/bog-centro.yaml",
      "stores/cal-norte.yaml",
      "stores/med-poblado.yaml",
      "stores/new.yaml",
    ]);
    expect(rel(status.untracked)).toEqual(["stores/new.yaml"]);
    expect(rel((await workTreeStatus(repo)).files)).toContain("carte.yaml");
  });
});
