/**
 * `carte init`: a project a chain can commit as it is. It validates, its currency is the one asked
 * for, `git add -A` stages none of what carte writes for one machine (emulator state, secrets, saved
 * plans), and its schema lines lead into the carte package installed in the repository, so that an
 * editor on another clone reports a wrong key at its line. Existing files are never overwritten.
 */

import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { schemaHome } from "../../src/init.js";
import { editorDiagnostics } from "../helpers/editor.js";
import { carte, repoRoot } from "../helpers/project.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A chain's repository: a temporary folder with a package.json, as `npm init` leaves it. */
function chainRepository(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "carte-chain-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "my-chain", private: true }));
  return dir;
}

const YAML_FILES = [
  ["carte.yaml", "project"],
  ["catalogs/main.yaml", "catalog"],
  ["stores/first-store.yaml", "store"],
] as const;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });

describe("carte init", () => {
  it("writes a project that validates, and never overwrites", async () => {
    const dir = path.join(chainRepository(), "menu");
    const r = await carte(["init", dir]);
    expect(r.code, r.err).toBe(0);
    for (const f of [...YAML_FILES.map(([f]) => f), ".gitignore"])
      expect(r.out).toMatch(new RegExp(`created\\s+.*${f.replace(".", "\\.")}\\n`));
    const valid = await carte(["validate", "-c", path.join(dir, "carte.yaml")]);
    expect(valid.code, valid.err).toBe(0);
    expect(valid.out).toContain("The configuration is valid: 1 store");
    expect(readFileSync(path.join(dir, "carte.yaml"), "utf8")).toMatch(/^currency: USD$/m);

    // A second init refuses: a project is there, and nothing is written.
    writeFileSync(path.join(dir, "carte.yaml"), "# mine\n");
    const again = await carte(["init", dir]);
    expect(again.code).toBe(1);
    expect(again.err).toContain("never overwrites");
    expect(readFileSync(path.join(dir, "carte.yaml"), "utf8")).toBe("# mine\n");

    // Without carte.yaml, files that exist are kept as they are.
    unlinkSync(path.join(dir, "carte.yaml"));
    writeFileSync(path.join(dir, "catalogs", "main.yaml"), "name: main\n# mine\n");
    writeFileSync(path.join(dir, ".gitignore"), "mine/\n");
    const kept = await carte(["init", dir]);
    expect(kept.code).toBe(0);
    expect(kept.out).toMatch(/kept\s+.*catalogs\/main\.yaml/);
    expect(kept.out).toMatch(/kept\s+.*\.gitignore/);
    expect(readFileSync(path.join(dir, "catalogs", "main.yaml"), "utf8")).toBe("name: main\n# mine\n");
    expect(readFileSync(path.join(dir, ".gitignore"), "utf8")).toBe("mine/\n");
    expect(existsSync(path.join(dir, "carte.yaml"))).toBe(true);
  });

  it("writes the currency asked for, with a sample price written as that currency writes prices", async () => {
    const repo = chainRepository();
    const cop = await carte(["init", path.join(repo, "cop"), "--currency", "COP"]);
    expect(cop.code, cop.err).toBe(0);
    expect(readFileSync(path.join(repo, "cop", "carte.yaml"), "utf8")).toMatch(/^currency: COP$/m);
    // COP is written in whole pesos: a price with decimals would be refused.
    expect(readFileSync(path.join(repo, "cop", "catalogs", "main.yaml"), "utf8")).toMatch(
      /^ {4}price: 10500$/m,
    );
    const brl = await carte(["init", path.join(repo, "brl"), "--currency", "brl"]);
    expect(brl.code, brl.err).toBe(0);
    expect(readFileSync(path.join(repo, "brl", "carte.yaml"), "utf8")).toMatch(/^currency: BRL$/m);
    expect(readFileSync(path.join(repo, "brl", "catalogs", "main.yaml"), "utf8")).toMatch(
      /^ {4}price: 10\.50$/m,
    );
    for (const d of ["cop", "brl"]) {
      const valid = await carte(["validate", "-c", path.join(repo, d, "carte.yaml")]);
      expect(valid.code, `${d}: ${valid.err}`).toBe(0);
    }

    const bad = await carte(["init", path.join(repo, "bad"), "--currency", "XYZ"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("--currency XYZ is not an ISO 4217 currency code");
    expect(existsSync(path.join(repo, "bad"))).toBe(false);
  });

  it("starts a project in two countries that validates, plans and applies on the embedded emulator", async () => {
    const dir = path.join(chainRepository(), "menu");
    const r = await carte(["init", dir, "--countries", "co,BR"]);
    expect(r.code, r.err).toBe(0);
    for (const f of [
      "carte.yaml",
      "catalogs/main.yaml",
      "stores/first-store-co.yaml",
      "stores/first-store-br.yaml",
    ])
      expect(r.out).toMatch(new RegExp(`created\\s+.*${f.replace(".", "\\.")}\\n`));
    const project = parse(readFileSync(path.join(dir, "carte.yaml"), "utf8")) as Record<string, unknown>;
    // Each country a platform, its currency and language following the country; no currency: of its own.
    expect(project.currency).toBeUndefined();
    expect(project.platforms).toEqual({
      co: {
        country: "CO",
        currency: "COP",
        language: "es",
        credentials: { client_id: "CARTE_CO_CLIENT_ID", client_secret: "CARTE_CO_CLIENT_SECRET" },
      },
      br: {
        country: "BR",
        currency: "BRL",
        language: "pt",
        credentials: { client_id: "CARTE_BR_CLIENT_ID", client_secret: "CARTE_BR_CLIENT_SECRET" },
      },
    });
    // One price in each currency, as each currency writes prices; the title in each language.
    const catalog = readFileSync(path.join(dir, "catalogs", "main.yaml"), "utf8");
    expect(catalog).toMatch(/^ {4}price: \{ COP: 10500, BRL: 10\.50 \}$/m);
    expect(catalog).toContain("pt: { title: Primeiro produto }");
    expect(readFileSync(path.join(dir, "stores", "first-store-br.yaml"), "utf8")).toMatch(/^platform: br$/m);

    const config = path.join(dir, "carte.yaml");
    const valid = await carte(["validate", "-c", config]);
    expect(valid.code, valid.err).toBe(0);
    // Each platform planned in its own section, on its own embedded emulator, prices in its currency.
    const plan = await carte(["plan", "-c", config]);
    expect(plan.code, plan.err).toBe(0);
    expect(plan.out).toMatch(/^Platform co — Colombia, COP — /m);
    expect(plan.out).toMatch(/^Platform br — Brazil, BRL — /m);
    expect(plan.out).toContain("Primeiro produto");
    expect(plan.out).toContain("R$ 10,50");
    expect(plan.out).toContain("$10.500");
    const applied = await carte(["apply", "--auto-approve", "-c", config]);
    expect(applied.code, applied.err).toBe(0);
    const again = await carte(["plan", "--detailed-exitcode", "-c", config]);
    expect(again.code, again.out + again.err).toBe(0);
    expect(again.out.match(/No changes/g)).toHaveLength(2);
    for (const name of ["co", "br"])
      expect(existsSync(path.join(dir, ".carte", "platforms", name))).toBe(true);
  });

  it("refuses a country the platform does not serve, a country twice, and --currency beside --countries", async () => {
    const repo = chainRepository();
    const unknown = await carte(["init", path.join(repo, "a"), "--countries", "CO,BZ"]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('--countries "BZ" is not a country the platform serves (did you mean BR?)');
    const twice = await carte(["init", path.join(repo, "b"), "--countries", "CO,co"]);
    expect(twice.code).toBe(1);
    expect(twice.err).toContain("--countries names CO twice");
    const both = await carte(["init", path.join(repo, "c"), "--countries", "CO,BR", "--currency", "COP"]);
    expect(both.code).toBe(1);
    expect(both.err).toContain("--currency and --countries do not go together");
    // A hostile or huge value reaches the terminal escaped and cut short.
    const hostile = await carte([
      "init",
      path.join(repo, "d"),
      "--countries",
      `CO,\u001b[2J${"X".repeat(5000)}`,
    ]);
    expect(hostile.code).toBe(1);
    expect(hostile.err).not.toContain("\u001b");
    expect(hostile.err.length).toBeLessThan(600);
    for (const d of ["a", "b", "c", "d"]) expect(existsSync(path.join(repo, d))).toBe(false);
  });

  it("keeps the emulator's state, secrets and saved plans out of git add -A", async () => {
    const repo = chainRepository();
    git(repo, "init", "-q");
    const r = await carte(["init", repo]);
    expect(r.code, r.err).toBe(0);
    const config = path.join(repo, "carte.yaml");
    // What a chain's first session leaves behind: saved plans, the embedded emulator's state, secrets.
    const plan = await carte(["plan", "-c", config, "--out", path.join(repo, "plan.json")]);
    expect(plan.code, plan.err).toBe(0);
    cpSync(path.join(repo, "plan.json"), path.join(repo, "menu.plan.json"));
    expect(existsSync(path.join(repo, ".carte", "emulator-state.json"))).toBe(true);
    writeFileSync(path.join(repo, "secrets.json"), "{}");
    writeFileSync(path.join(repo, "webhook-secrets.json"), "{}");
    writeFileSync(path.join(repo, "webhook-secrets.yaml"), "{}");
    mkdirSync(path.join(repo, "node_modules"));
    writeFileSync(path.join(repo, "node_modules", "x.js"), "");

    git(repo, "add", "-A");
    const staged = git(repo, "diff", "--cached", "--name-only").trim().split("\n").sort();
    expect(staged).toEqual([
      ".gitignore",
      "carte.yaml",
      "catalogs/main.yaml",
      "package.json",
      "stores/first-store.yaml",
    ]);
  });

  it("points the schema lines into the installed package, so that another clone's editor reports a wrong key at its line", async () => {
    const repo = chainRepository();
    const dir = path.join(repo, "menu");
    const r = await carte(["init", dir]);
    expect(r.code, r.err).toBe(0);
    // carte is not installed in the repository yet: init says where it should be.
    expect(r.out).toContain("once carte is installed in");
    expect(r.out).toContain("npm install --save-dev @carte-oss/carte");
    for (const [file, schema] of YAML_FILES) {
      const text = readFileSync(path.join(dir, file), "utf8");
      const depth = file.split("/").length; // menu/ and any folder below it
      expect(text.split("\n")[0], file).toBe(
        `# yaml-language-server: $schema=${"../".repeat(depth)}node_modules/@carte-oss/carte/schemas/config/${schema}.schema.json`,
      );
      // Nothing of the machine that ran init: no absolute path.
      for (const local of [repo, repoRoot, tmpdir()]) expect(text, file).not.toContain(local);
    }

    // Another machine: the repository cloned elsewhere, carte installed there (a link to this package).
    const clone = chainRepository();
    cpSync(dir, path.join(clone, "menu"), { recursive: true });
    mkdirSync(path.join(clone, "node_modules", "@carte-oss"), { recursive: true });
    symlinkSync(repoRoot, path.join(clone, "node_modules", "@carte-oss", "carte"), "dir");
    rmSync(repo, { recursive: true, force: true });

    const installed = path.join(clone, "node_modules", "@carte-oss", "carte", "schemas", "config");
    for (const [file, schema] of YAML_FILES) {
      const report = await editorDiagnostics(path.join(clone, "menu", file));
      expect(report.problems, file).toEqual([]);
      expect(report.schemasRead[0], file).toBe(path.join(installed, `${schema}.schema.json`));
    }
    const store = path.join(clone, "menu", "stores", "first-store.yaml");
    const lines = readFileSync(store, "utf8").split("\n");
    const at = lines.indexOf("catalog: main");
    lines.splice(at + 1, 0, "catalogue: main");
    writeFileSync(store, lines.join("\n"));
    const report = await editorDiagnostics(store);
    expect(report.problems).toEqual([{ line: at + 2, message: "Property catalogue is not allowed." }]);
    expect(report.schemasRead.every((f) => f.startsWith(installed + path.sep))).toBe(true);
  });

  it("says the next command as it works for how carte was run: npx for a local install, carte for a global one", () => {
    const repo = chainRepository();
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
    for (const key of Object.keys(env)) if (key.startsWith("npm_")) delete env[key];
    env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`;
    const run = (file: string, args: string[], cwd = repo) => {
      const r = spawnSync(file, args, { cwd, env, encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout;
    };
    const nextOf = (out: string) => /^Next: (.*), then (.*) \(against/m.exec(out)?.slice(1) ?? [];

    // Installed in the chain's repository (a link to this package, as `npm install` of a folder makes),
    // run as node_modules/.bin/carte: only `npx carte` finds it from the repository's folders.
    mkdirSync(path.join(repo, "node_modules", "@carte-oss"), { recursive: true });
    mkdirSync(path.join(repo, "node_modules", ".bin"));
    symlinkSync(repoRoot, path.join(repo, "node_modules", "@carte-oss", "carte"), "dir");
    symlinkSync("../@carte-oss/carte/bin/carte.js", path.join(repo, "node_modules", ".bin", "carte"));
    const local = nextOf(run(path.join(repo, "node_modules", ".bin", "carte"), ["init", "menu"]));
    expect(local).toEqual(["npx carte validate -c menu/carte.yaml", "npx carte plan -c menu/carte.yaml"]);
    // The command works as written, from where init was run.
    expect(run("sh", ["-c", local[0]!])).toContain("The configuration is valid: 1 store");

    // Installed globally: `carte` on the PATH, from a folder outside any project that has it.
    const global = mkdtempSync(path.join(tmpdir(), "carte-global-"));
    cleanups.push(() => rmSync(global, { recursive: true, force: true }));
    mkdirSync(path.join(global, "lib", "node_modules", "@carte-oss"), { recursive: true });
    mkdirSync(path.join(global, "bin"));
    symlinkSync(repoRoot, path.join(global, "lib", "node_modules", "@carte-oss", "carte"), "dir");
    symlinkSync("../lib/node_modules/@carte-oss/carte/bin/carte.js", path.join(global, "bin", "carte"));
    const other = chainRepository();
    const viaPath = nextOf(run(path.join(global, "bin", "carte"), ["init", "menu"], other));
    expect(viaPath[0]).toBe("carte validate -c menu/carte.yaml");
    env.PATH = `${path.join(global, "bin")}${path.delimiter}${env.PATH}`;
    expect(run("sh", ["-c", viaPath[0]!], other)).toContain("The configuration is valid: 1 store");

    // From a copy of carte's sources: node and the script, in a folder with a space quoted.
    const spaced = path.join(other, "my menu");
    const fromSources = nextOf(
      run(process.execPath, [path.join(repoRoot, "bin", "carte.js"), "init", "my menu"], other),
    );
    expect(fromSources[0]).toBe(
      `node ${path.join(repoRoot, "bin", "carte.js")} validate -c 'my menu/carte.yaml'`,
    );
    expect(run("sh", ["-c", fromSources[0]!], other)).toContain("The configuration is valid: 1 store");
    expect(existsSync(path.join(spaced, "carte.yaml"))).toBe(true);
  });

  it("has no -c: the project goes to the folder it is given, and -c is refused rather than ignored", async () => {
    const repo = chainRepository();
    const dir = path.join(repo, "menu");
    for (const args of [["-c", path.join(dir, "carte.yaml")], [`--config=${path.join(dir, "carte.yaml")}`]]) {
      const r = await carte(["init", dir, ...args]);
      expect(r.code).toBe(1);
      expect(r.err).toContain(
        "carte init has no -c: it writes carte.yaml in the folder given, carte init DIR",
      );
      expect(existsSync(dir)).toBe(false);
    }
  });

  it("points the schema lines at carte's own schemas inside carte's repository", async () => {
    expect(await schemaHome(path.join(repoRoot, "my-menu"))).toEqual({
      schemas: path.join(repoRoot, "schemas", "config"),
    });
  });
});
