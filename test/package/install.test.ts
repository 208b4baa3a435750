/**
 * carte installed as a chain installs it. The package is packed as `npm publish` would pack it (dist/
 * as `npm run build` left it), its file list checked against what the runtime needs, and the tarball
 * installed into a chain's repository in a temporary folder outside this one, with its dependencies
 * from npm's cache. There the README's Install commands run as written, `npx carte` included: version,
 * init, validate, plan, apply, and a plan with --detailed-exitcode that exits 0.
 *
 * A git install (`npm install github:ORG/carte#vX`: npm clones, installs the devDependencies, runs
 * `prepare` and packs) takes minutes, so it runs only with CARTE_TEST_GIT_INSTALL=1, which .ci/run
 * sets on every supported Node.js; it installs a clone of this repository's last commit.
 */

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import semver from "semver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { editorDiagnostics } from "../helpers/editor.js";
import { repoRoot } from "../helpers/project.js";
import { installCommands } from "../helpers/readme.js";

const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  name: string;
  version: string;
  engines: { node: string };
};
/** Whether this Node.js is one carte supports: then no package may warn EBADENGINE. */
const supportedNode = semver.satisfies(process.version, pkg.engines.node);

const temps: string[] = [];
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** The environment of a chain's shell: no credentials (the embedded emulator), no colour. */
function chainEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", CI: "true", ...extra };
  for (const key of Object.keys(env)) {
    // npm's settings of the test run itself (npm test sets npm_config_*, npm_package_*) stay out.
    if (key.startsWith("npm_") || key.startsWith("CARTE_")) delete env[key];
  }
  // This Node.js first, so that npm and npx run on it.
  env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`;
  return { ...env, ...extra };
}

/** Runs a shell command; a command still running after `timeoutMs` is killed (exit code null). */
function sh(command: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 120_000) {
  const r = spawnSync("sh", ["-c", command], { cwd, env, encoding: "utf8", timeout: timeoutMs });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A chain's repository: a package.json as `npm init` leaves it. */
function chainRepository(extra: Record<string, unknown> = {}): string {
  const dir = tempDir("carte-chain-");
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "my-chain", version: "1.0.0", private: true, ...extra }, null, 2),
  );
  return dir;
}

const INSTALL = `npm install --save-dev ${pkg.name}`;

/**
 * Runs the README's Install commands in `chain`, installing the package from `spec` (a tarball, a git
 * address) in place of the registry, and checks what a chain would see.
 */
function runInstallSection(chain: string, spec: string): string {
  const commands = installCommands(readFileSync(path.join(repoRoot, "README.md"), "utf8"));
  expect(commands[0], "the Install section starts by installing the package").toMatch(
    new RegExp(`^${INSTALL.replace(/[/@]/g, "\\$&")}(\\s+#.*)?$`),
  );
  const install = sh(
    `npm install --save-dev --no-audit --no-fund --prefer-offline "${spec}"`,
    chain,
    chainEnv(),
    // A git install builds carte (devDependencies, tsc) before installing it.
    540_000,
  );
  expect(install.code, install.err).toBe(0);
  if (supportedNode) expect(install.out + install.err).not.toContain("EBADENGINE");
  // The chain gets carte and its runtime dependencies, none of carte's tools.
  expect(existsSync(path.join(chain, "node_modules", ...pkg.name.split("/"), "dist", "index.js"))).toBe(true);
  expect(existsSync(path.join(chain, "node_modules", "typescript"))).toBe(false);

  for (const command of commands.slice(1)) {
    expect(command, "the Install section runs carte through npx").toMatch(/^npx carte /);
    // Offline: an npx that did not find the installed carte would fetch a package by that name.
    const r = sh(command, chain, chainEnv({ npm_config_offline: "true" }));
    expect(r.code, `${command}\n${r.out}\n${r.err}`).toBe(0);
    if (/^npx carte --version\b/.test(command)) expect(r.out.trim()).toBe(pkg.version);
    if (/^npx carte plan --detailed-exitcode\b/.test(command)) expect(r.out).toContain("No changes");
  }
  return install.out + install.err;
}

describe("the packed package", () => {
  let tarball: string;
  let files: string[];

  beforeAll(() => {
    const out = tempDir("carte-pack-");
    // --ignore-scripts: dist/ is the one `npm run build` left (npm test builds first); `prepare` would
    // build it again while other test files read it.
    const json = execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", out], {
      cwd: repoRoot,
      encoding: "utf8",
      env: chainEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const [packed] = JSON.parse(json) as { filename: string; files: { path: string }[] }[];
    tarball = path.join(out, packed!.filename);
    files = packed!.files.map((f) => f.path).sort();
  }, 60_000);

  it("holds exactly what it needs: the bin, the built library and its types, the validators compiled from the schemas (configuration files and platform answers), the CLI bundled, the schemas, the docs and examples, README, LICENSE", () => {
    const tracked = (dir: string) =>
      execFileSync("git", ["ls-files", dir], { cwd: repoRoot, encoding: "utf8" }).split("\n").filter(Boolean);
    const built = tracked("src")
      .filter((f) => f.endsWith(".ts"))
      .flatMap((f) => {
        const base = `dist/${f.slice("src/".length, -".ts".length)}`;
        return [`${base}.js`, `${base}.d.ts`];
      });
    expect(files).toEqual(
      [
        "LICENSE",
        "README.md",
        "package.json",
        "bin/carte.js",
        "dist/config/validators.cjs",
        "dist/platform/validators.cjs",
        "dist/cli/carte.mjs",
        "dist/cli/carte.mjs.LEGAL.txt",
        ...tracked("schemas"),
        ...tracked("docs"),
        // npm never packs a .gitignore.
        ...tracked("examples").filter((f) => !f.endsWith("/.gitignore")),
        ...built,
      ].sort(),
    );
  });

  it("ships every doc and example the CLI, init and the README name", () => {
    // The names as the installed package carries them: in the CLI's bundle (its help, init's files) and
    // in the README.
    const named = (text: string) =>
      [...text.matchAll(/\b((?:docs|examples)\/[\w./-]*\w)/g)].map((m) => m[1]!);
    const cli = named(readFileSync(path.join(repoRoot, "dist", "cli", "carte.mjs"), "utf8"));
    const readme = named(readFileSync(path.join(repoRoot, "README.md"), "utf8"));
    expect(cli).toEqual(
      expect.arrayContaining(["docs/configuration.md", "docs/preview.md", "docs/finance.md"]),
    );
    // `.carte` is the state folder a run writes, never a file of the package.
    const missing = [...new Set([...cli, ...readme])]
      .filter((name) => !name.includes("/.carte"))
      .filter((name) => !files.some((f) => f === name || f.startsWith(`${name.replace(/\/$/, "")}/`)));
    expect(missing).toEqual([]);
  });

  it("installs into a chain's repository and runs the README's Install commands there", () => {
    const chain = chainRepository();
    runInstallSection(chain, tarball);
    // The schema lines init wrote lead into the installed package: an editor validates the files.
    return Promise.all(
      ["carte.yaml", "catalogs/main.yaml", "stores/first-store.yaml"].map(async (file) => {
        const report = await editorDiagnostics(path.join(chain, file));
        expect(report.problems, file).toEqual([]);
        expect(report.schemasRead[0], file).toContain(
          path.join(chain, "node_modules", ...pkg.name.split("/"), "schemas", "config") + path.sep,
        );
      }),
    );
  }, 240_000);
});

describe.runIf(process.env.CARTE_TEST_GIT_INSTALL === "1")("a git install", () => {
  it("builds carte on install (prepare) and runs the README's Install commands", () => {
    const clone = path.join(tempDir("carte-clone-"), "carte");
    execFileSync("git", ["clone", "--quiet", "--no-local", repoRoot, clone]);
    // As the README says: the chain allows carte's prepare step, by the git address it installs from
    // (npm matches a git dependency by its address, not by the name its package.json claims; npm 12
    // runs no other).
    const spec = `git+${pathToFileURL(clone).href}`;
    const chain = chainRepository({ allowScripts: { [spec]: true } });
    const npm = runInstallSection(chain, spec);
    expect(npm).not.toContain("not yet covered by allowScripts");
    expect(existsSync(path.join(clone, "dist")), "the clone itself is left unbuilt").toBe(false);
  }, 600_000);
});
