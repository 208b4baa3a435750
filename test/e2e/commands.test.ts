/** The commands an infra user reaches for: --version, show, status, completion, and misspelt commands (init: init.test.ts). */

import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, unlinkSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { carte, copyExample, edit, exampleAgainstEmulator, repoRoot } from "../helpers/project.js";
import { savedPlan } from "../helpers/plan-file.js";
import { sealPlan } from "../../src/plan/digest.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

function bin(args: string[], cwd = repoRoot) {
  const r = spawnSync(process.execPath, [path.join(repoRoot, "bin", "carte.js"), ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "carte-cmd-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("carte --version and misspelt commands", () => {
  it("prints the version of package.json", () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
    const r = bin(["--version"]);
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe(pkg.version);
  });

  it("suggests the command meant, and the choice meant for --kind", async () => {
    const r = await carte(["plna"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('unknown command "plna". Did you mean "carte plan"?');
    const k = await carte(["plan", "--kind", "itme"]);
    expect(k.code).toBe(1);
    expect(k.err).toContain('(did you mean "item"?)');
    expect(k.err.split("\n")[0]).toMatch(/^Error: Invalid values: Argument: kind/);
  });

  it("prints a completion script", () => {
    const r = bin(["completion"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("carte --get-yargs-completions");
  });
});

describe("carte show", () => {
  it("renders a saved plan in every format without calling the platform, and warns when it was edited", async () => {
    const fx = await exampleAgainstEmulator(["stores/bog-centro.yaml"]);
    cleanups.push(fx.close);
    edit(fx.config, /^stores: .*$/m, "stores: stores/bog-centro.yaml");
    const planFile = path.join(fx.dir, "plan.json");
    const planned = await carte(["plan", "-c", fx.config, "--out", planFile]);
    expect(planned.code, planned.err).toBe(0);
    fx.emu.clearRequests();

    const text = await carte(["show", planFile]);
    expect(text.code, text.err).toBe(0);
    expect(text.err).toBe("");
    // The same plan, with the target it was made against (saved in the file): showing it talks to no platform.
    expect(planned.out).toMatch(/^Target: platform at 127\.0\.0\.1:\d+\n/);
    expect(text.out).toBe(planned.out);
    const md = await carte(["show", planFile, "--format", "markdown"]);
    expect(md.out).toMatch(/^#|\|/m);
    const json = await carte(["show", planFile, "--json"]);
    expect(JSON.parse(json.out)).toEqual(JSON.parse(JSON.stringify(sealPlan(await savedPlan(planFile)))));
    expect(fx.emu.requests).toEqual([]);

    // An edited plan is shown as it is now, with a warning that apply would refuse it.
    const plan = await savedPlan(planFile);
    plan.stores[0]!.name = "Edited \u001b[2J name";
    writeFileSync(planFile, JSON.stringify(plan));
    const edited = await carte(["show", planFile]);
    expect(edited.code).toBe(0);
    expect(edited.err).toContain("does not match its digest");
    expect(edited.out + edited.err).not.toContain("\u001b[2J");

    // Something that is not a plan is refused, located at the file.
    writeFileSync(planFile, JSON.stringify({ formatVersion: 1, stores: "x", changes: [], operations: [] }));
    const broken = await carte(["show", planFile]);
    expect(broken.code).toBe(1);
    expect(broken.err).toContain("is not a plan carte can show: stores must be");
    const missing = await carte(["show", path.join(fx.dir, "nothing.json")]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(": no such file");
  });
});

describe("carte status", () => {
  it("lists managed stores, a store whose file was deleted as unmanaged, and a file whose store is missing", async () => {
    const dir = copyExample();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const config = path.join(dir, "carte.yaml");
    expect((await carte(["apply", "-c", config, "--auto-approve", "--quiet"])).code).toBe(0);

    const before = await carte(["status", "-c", config]);
    expect(before.code, before.err).toBe(0);
    expect(before.out).toContain("3 managed, 0 unmanaged, 0 missing.");
    // Like every command that calls the platform, status ends with its calls' success rate.
    expect(before.err).toMatch(/^\d+ calls to the platform, 100\.0 % succeeded\.$/m);
    expect(before.out).toMatch(/managed\s+900101\s+bog-centro\s+.*stores\/bog-centro\.yaml/);

    // Deleting a store file stops managing the store: status says so.
    unlinkSync(path.join(dir, "stores", "bog-chapinero.yaml"));
    const after = await carte(["status", "-c", config]);
    expect(after.code, after.err).toBe(0);
    expect(after.out).toMatch(/unmanaged\s+900102\s+bog-chapinero\s+.*no file manages it/);
    expect(after.out).toContain("2 managed, 1 unmanaged, 0 missing.");
    // The plan mentions it as information, and plans nothing for it.
    const plan = await carte(["plan", "-c", config]);
    expect(plan.code, plan.err).toBe(0);
    expect(plan.err).toContain(
      "Note: the platform has a store that no file manages: 900102 (bog-chapinero, Bogotá Chapinero). carte leaves it as it is;",
    );
    expect(plan.out).not.toContain("bog-chapinero");
    const json = JSON.parse((await carte(["status", "-c", config, "--json"])).out) as {
      stores: { storeId: string; state: string; seenIn?: string[] }[];
    };
    expect(json.stores.find((s) => s.storeId === "900102")).toMatchObject({
      state: "unmanaged",
      seenIn: ["emulator", "webhooks"],
    });
  });

  it("against a configured platform, finds unmanaged stores through their webhooks and lists a missing store", async () => {
    const fx = await exampleAgainstEmulator([
      "stores/bog-centro.yaml",
      "stores/bog-chapinero.yaml",
      "stores/med-poblado.yaml",
    ]);
    cleanups.push(fx.close);
    expect((await carte(["apply", "-c", fx.config, "--auto-approve", "--quiet"])).code).toBe(0);
    unlinkSync(path.join(fx.dir, "stores", "med-poblado.yaml"));
    edit(path.join(fx.dir, "stores", "bog-centro.yaml"), /id: 900101/, "id: 900999");
    const r = await carte(["status", "-c", fx.config]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/missing\s+900999\s+bog-centro\s+.*the platform does not show this store/);
    expect(r.out).toMatch(/unmanaged\s+900201\s+-\s+-\s+open\s+no file manages it \(seen in webhooks\)/);
    // The store the file named before its id was changed is no longer managed either.
    expect(r.out).toMatch(/unmanaged\s+900101\s+-/);
    expect(r.out).toContain("1 managed, 2 unmanaged, 1 missing.");
  });
});

describe("carte emulator --seed", () => {
  it("ships an example seed that serves the example chain's stores", async () => {
    const { loadSeedFile } = await import("../../src/emulator/index.js");
    const seed = await loadSeedFile(path.join(repoRoot, "examples", "emulator-seed.yaml"));
    const chain = seed.clients.find((c) => c.client_id === "carbon-burgers")!;
    expect(chain.stores.map((s) => String(s.id))).toEqual(["900101", "900102", "900201"]);
    expect(seed.finance?.discrepancies).toHaveLength(1);
  });

  it("reports a missing or broken seed file located and in words, never a raw ENOENT", async () => {
    const dir = tempDir();
    const missing = await carte(["emulator", "--port", "0", "--seed", path.join(dir, "seed.yaml")]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/seed\.yaml: the seed file does not exist \(examples\/emulator-seed\.yaml/);
    expect(missing.err).not.toContain("ENOENT");

    const bad = path.join(dir, "bad.yaml");
    writeFileSync(bad, "clients:\n  - client_id: x\n    stores: [{id: 0, integration_id: a, name: A}]\n");
    const shape = await carte(["emulator", "--port", "0", "--seed", bad]);
    expect(shape.code).toBe(1);
    expect(shape.err).toMatch(/bad\.yaml:2:5: \/clients\/0\/client_secret: must be a non-empty string/);
    expect(shape.err).toMatch(/bad\.yaml:3:19: \/clients\/0\/stores\/0\/id: must be a positive integer/);

    writeFileSync(bad, "clients:\n  - client_id: x\n  stores: {\n");
    const syntax = await carte(["emulator", "--port", "0", "--seed", bad]);
    expect(syntax.code).toBe(1);
    expect(syntax.err).toMatch(/bad\.yaml:3:1: YAML syntax error/);
  });

  it("refuses a key or a country it does not know, located, instead of starting without it", async () => {
    const dir = tempDir();
    const seed = path.join(dir, "seed.yaml");
    writeFileSync(
      seed,
      "clients:\n  - client_id: x\n    client_secret: s\n    stores:\n" +
        "      - { id: 1, integration_id: a, name: A, contry: BR }\n" +
        "      - { id: 2, integration_id: b, name: B, country: ZZ }\n" +
        "bogus_key: 1\n",
    );
    const r = await carte(["emulator", "--port", "0", "--seed", seed]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      'seed.yaml:5:46: /clients/0/stores/0: unknown key "contry" (did you mean "country"?)',
    );
    expect(r.err).toContain(
      'seed.yaml:6:55: /clients/0/stores/1/country: unknown country "ZZ": the emulator has the holidays of AR, BR, CL, CO, EC, MX, PE, UY',
    );
    expect(r.err).toContain('seed.yaml:7:1: /: unknown key "bogus_key" (allowed: clients, finance)');
    expect(r.err).not.toContain("listening");
  });
});

describe("did you mean, in addresses", () => {
  it("explain, --target and --store name the closest store, kind or key", async () => {
    const dir = copyExample();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const config = path.join(dir, "carte.yaml");
    const sku = await carte(["explain", "-c", config, "store[bog-centro].item[BURGER-CLASIC]"]);
    expect(sku.code).toBe(1);
    expect(sku.out).toContain("(did you mean item[BURGER-CLASSIC]?)");
    const store = await carte(["explain", "-c", config, "store[bog-centr].item[BURGER-CLASSIC]"]);
    expect(store.err).toContain("(did you mean store[bog-centro]?)");
    const kind = await carte(["explain", "-c", config, "store[bog-centro].itme[BURGER-CLASSIC]"]);
    expect(kind.err).toContain("did you mean store[bog-centro].item[BURGER-CLASSIC]?");

    const target = await carte(["plan", "-c", config, "--target", "store[bog-centro].item[BURGER-CLASIC]"]);
    expect(target.code).toBe(1);
    expect(target.err).toContain('(did you mean "store[bog-centro].item[BURGER-CLASSIC]"?)');
    const s = await carte(["plan", "-c", config, "--store", "bog-chapinerro"]);
    expect(s.code).toBe(1);
    expect(s.err).toContain('--store bog-chapinerro (did you mean "bog-chapinero"?)');
  });
});

describe("output for CI logs and machines", () => {
  it("--json and --quiet print nothing but the result on standard output", async () => {
    const dir = copyExample();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const config = path.join(dir, "carte.yaml");
    const plan = await carte(["plan", "-c", config, "--json"]);
    expect(plan.code, plan.err).toBe(0);
    expect(() => JSON.parse(plan.out)).not.toThrow();
    expect(plan.err).not.toContain("reading the platform");
    const applied = await carte(["apply", "-c", config, "--auto-approve", "--json"]);
    expect(applied.code, applied.err).toBe(0);
    expect(() => JSON.parse(applied.out)).not.toThrow();
    expect(applied.err).not.toMatch(/reading the platform|applying calls/);
    const quiet = await carte(["plan", "-c", config, "--quiet"]);
    expect(quiet.code).toBe(0);
    expect(quiet.err).toBe("");
    expect(quiet.out.trim().split("\n").at(-1)).toMatch(/^No changes/);
  });

  it("outside a terminal, progress lines are few and never repeat", async () => {
    const dir = copyExample();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const config = path.join(dir, "carte.yaml");
    const applied = await carte(["apply", "-c", config, "--auto-approve"]);
    expect(applied.code, applied.err).toBe(0);
    const progress = applied.err.split("\n").filter((l) => /^(reading the platform|applying calls)/.test(l));
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.length).toBeLessThanOrEqual(20);
    expect(new Set(progress).size).toBe(progress.length);
  });
});
