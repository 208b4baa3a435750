/**
 * `carte import` on the example chain: applied to an emulator, imported back, planned against the
 * import. One shared catalog with the stores' prices and exclusions as overrides, the settings all
 * stores share as carte.yaml defaults, an empty plan, and the same bytes on a second import.
 */

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadProject } from "../../src/config/index.js";
import { differingKinds } from "../../src/import/factor.js";
import { CLIENT_SECRET, carte, exampleAgainstEmulator, repoRoot } from "../helpers/project.js";

const storeFiles = ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"];

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "carte-import-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const sub of ["", "catalogs", "stores"]) {
    for (const f of readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      if (f.isFile()) out[path.join(sub, f.name)] = readFileSync(path.join(dir, sub, f.name), "utf8");
    }
  }
  return out;
}

describe("carte import on the example chain", () => {
  it("factors one shared catalog and chain defaults, plans nothing, and is deterministic", async () => {
    const fx = await exampleAgainstEmulator(storeFiles);
    cleanups.push(fx.close);
    const applied = await carte(["apply", "--auto-approve", "-q", "-c", fx.config]);
    expect(applied.code).toBe(0);

    const out = tempDir();
    const args = ["import", "--store", "900101", "--store", "900102,900201", "-c", fx.config];
    const imported = await carte([...args, "--out", out]);
    // Nothing on stderr but the calls' success rate (docs/platform-api.md §1).
    expect(imported.err).toMatch(/^\d+ calls to the platform, 100\.0 % succeeded\.\n$/);
    expect(imported.code).toBe(0);
    expect(imported.out).toContain(
      "Imported 3 stores into 1 catalog: shared (bog-centro, bog-chapinero, med-poblado)",
    );
    for (const r of [applied, imported]) expect(r.out + r.err).not.toContain(CLIENT_SECRET);

    // carte.yaml points at the same platform and holds what every store shares; one catalog; the
    // store files' prices, exclusions and availability are the example's own.
    const files = readTree(out);
    expect(Object.keys(files).sort()).toEqual([
      ".gitignore",
      "carte.yaml",
      "catalogs/shared.yaml",
      "stores/bog-centro.yaml",
      "stores/bog-chapinero.yaml",
      "stores/med-poblado.yaml",
    ]);
    expect(parse(files["carte.yaml"]!)).toEqual({
      version: 1,
      // The currency of the project read (examples/chain is in COP).
      currency: "COP",
      platform: { base_url: fx.emu.url },
      stores: "stores/*.yaml",
      catalogs: "catalogs/*.yaml",
      // What all three stores share, written once (the example's own carte.yaml defaults).
      defaults: expect.objectContaining({
        open: true,
        webhooks: { NEW_ORDER: "http://localhost:8080/hooks/new-order" },
      }),
    });
    for (const f of storeFiles) {
      expect(files[f]).toMatch(/^# yaml-language-server: \$schema=.*\n# Imported by carte import/);
      // The example's own prices and exclusions, against one catalog; availability as it was.
      const original = parse(readFileSync(path.join(repoRoot, "examples/chain", f), "utf8")) as Record<
        string,
        unknown
      >;
      const written = parse(files[f]!) as Record<string, unknown>;
      expect(written).toMatchObject({ store: original.store, catalog: "shared" });
      expect(written.group).toBeUndefined();
      expect(written.overrides ?? {}).toEqual(original.overrides ?? {});
      expect(written.availability).toEqual(original.availability);
    }
    const catalog = parse(files["catalogs/shared.yaml"]!) as { items: { sku: string; price: number }[] };
    expect(catalog.items.find((i) => i.sku === "BURGER-CARBON")?.price).toBe(34900);

    // The import loads and gives the example's desired state, store by store, kind by kind.
    const example = await loadProject(fx.config);
    const project = await loadProject(path.join(out, "carte.yaml"));
    expect(Object.keys(project.desired.stores).sort()).toEqual(Object.keys(example.desired.stores).sort());
    for (const [key, state] of Object.entries(project.desired.stores))
      expect(differingKinds(state, example.desired.stores[key]!)).toEqual([]);

    const plan = await carte(["plan", "--detailed-exitcode", "-c", path.join(out, "carte.yaml")]);
    expect(plan.out).toContain("No changes");
    expect(plan.code).toBe(0);

    // A second import gives the same bytes, and finds nothing to change in the files.
    const again = tempDir();
    expect((await carte([...args, "--out", again, "-q"])).code).toBe(0);
    expect(readTree(again)).toEqual(files);
    // Into the imported project again: refused, and with --merge nothing to add (every store is managed).
    expect((await carte([...args, "--out", out])).code).toBe(1);
    const rerun = await carte([...args, "--out", out, "--merge"]);
    expect(rerun.code).toBe(0);
    expect(rerun.out).not.toMatch(/created|updated/);
    expect(rerun.err).toContain("carte.yaml and every existing file were left as they are");
  });

  it("keeps the project's secrets_file, timezone and a dated special day, and writes init's $schema lines", async () => {
    const fx = await exampleAgainstEmulator(storeFiles);
    cleanups.push(fx.close);
    const config = readFileSync(fx.config, "utf8")
      .replace(/^version: 1$/m, "version: 1\nsecrets_file: .carte/secrets.json")
      .replace(/^defaults:$/m, "defaults:\n  timezone: America/Bogota");
    writeFileSync(fx.config, config);
    // A special day of one year only, ten days from now (applied: the same day a year before has ended).
    const date = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const centroFile = path.join(fx.dir, "stores", "bog-centro.yaml");
    writeFileSync(
      centroFile,
      readFileSync(centroFile, "utf8") +
        `special_days:\n  - { name: Aniversario, date: "${date}", slots: ["10:00-14:00"] }\n`,
    );
    const applied = await carte(["apply", "--auto-approve", "-q", "-c", fx.config]);
    expect(applied.code).toBe(0);

    const out = tempDir();
    const args = ["import", "-q", "--store", "900101,900102,900201", "-c", fx.config, "--out", out];
    const imported = await carte(args);
    expect(imported.code).toBe(0);
    const files = readTree(out);
    const project = parse(files["carte.yaml"]!) as Record<string, unknown>;
    expect(project.secrets_file).toBe(".carte/secrets.json");
    expect(project.defaults).toMatchObject({ timezone: "America/Bogota" });
    // Dated as it was written, not `MM-DD` of every year.
    const centro = parse(files["stores/bog-centro.yaml"]!) as { special_days: unknown[] };
    expect(centro.special_days).toContainEqual({ name: "Aniversario", date, slots: ["10:00-14:00"] });
    expect(files["stores/bog-centro.yaml"]).toContain(`date: "${date}"`);
    // Each YAML file starts with the $schema line carte init writes (a folder outside any package).
    const schemas = "node_modules/@carte-oss/carte/schemas/config";
    expect(files["carte.yaml"]).toMatch(
      new RegExp(`^# yaml-language-server: \\$schema=${schemas}/project\\.schema\\.json\n`),
    );
    expect(files["catalogs/shared.yaml"]).toMatch(
      new RegExp(`^# yaml-language-server: \\$schema=\\.\\./${schemas}/catalog\\.schema\\.json\n`),
    );
    expect(files["stores/bog-centro.yaml"]).toMatch(
      new RegExp(`^# yaml-language-server: \\$schema=\\.\\./${schemas}/store\\.schema\\.json\n`),
    );
    const plan = await carte(["plan", "--detailed-exitcode", "-c", path.join(out, "carte.yaml")]);
    expect(plan.out).toContain("No changes");
    expect(plan.code).toBe(0);
  });
});
