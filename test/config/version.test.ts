/**
 * carte.yaml `required_version`: a project names the versions of carte it accepts as a semver range;
 * any other version refuses it before reading anything else, at the range's line, naming the installed
 * version and the range.
 */

import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadProject } from "../../src/config/index.js";
import { carteVersion, requiredVersionProblem } from "../../src/config/version.js";
import { parseYaml } from "../../src/source/yaml.js";
import { carte, repoRoot } from "../helpers/project.js";
import { CATALOG, problemsOf, shown, storeYaml, writeProject } from "./helpers.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A valid project whose carte.yaml starts with `head`. */
async function project(head: string): Promise<string> {
  const dir = await writeProject({
    "carte.yaml": `version: 1\n${head}stores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n`,
    "catalogs/burgers.yaml": CATALOG,
    "stores/a.yaml": storeYaml(1, "a"),
  });
  dirs.push(dir);
  return dir;
}

/** The message of required_version `range` for carte `version`, or undefined when accepted. */
function check(range: string, version: string): string | undefined {
  const { parsed } = parseYaml("carte.yaml", `version: 1\nrequired_version: ${JSON.stringify(range)}\n`);
  return requiredVersionProblem(parsed, version)?.message;
}

describe("required_version", () => {
  it("reads the installed version from package.json, as carte --version does", () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string };
    expect(carteVersion()).toBe(pkg.version);
  });

  it("accepts the versions of npm's range and refuses the others, prereleases of another version too", () => {
    for (const v of ["1.2.0", "1.9.3"]) expect(check(">=1.2 <2", v), v).toBeUndefined();
    expect(check("^1.2", "1.4.0")).toBeUndefined();
    expect(check("~1.4.0", "1.4.7")).toBeUndefined();
    for (const v of ["1.1.9", "2.0.0", "2.0.0-rc.1", "0.9.0"])
      expect(check(">=1.2 <2", v), v).toContain(`but carte ${v} is installed`);
    expect(check("^1.2", "2.0.0")).toContain('needs carte "^1.2"');
  });

  it("refuses a value that is not a semver range, and leaves a non-string to the schema", () => {
    for (const range of ["latest", ">=1.2 <<2", "x".repeat(300)])
      expect(check(range, "1.2.0"), range).toMatch(/^required_version ".*"…? is not a semver range/);
    const { parsed } = parseYaml("carte.yaml", "version: 1\nrequired_version: 12\n");
    expect(requiredVersionProblem(parsed, "1.2.0")).toBeUndefined();
  });

  it("is checked before the rest of carte.yaml: one located problem, not the keys of another version", async () => {
    const version = carteVersion();
    const dir = await project(`required_version: ">${version}"\nkey_of_a_later_version: true\n`);
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml")));
    expect(problems).toEqual([
      `${shown(dir, "carte.yaml")}:2:19: this project needs carte ">${version}" (required_version), but carte ` +
        `${version} is installed: install a version in that range (npm install --save-dev ` +
        `@carte-oss/carte@">${version}"), or change required_version after reading the changelog of the ` +
        "versions in between",
    ]);
    // The same project without the range: the unknown key is what the schema reports.
    const without = await project("key_of_a_later_version: true\n");
    expect((await problemsOf(loadProject(join(without, "carte.yaml")))).join("\n")).toContain(
      "key_of_a_later_version",
    );
  });

  it("lets a project whose range holds the installed version load, and carte validate says why it refuses", async () => {
    const version = carteVersion();
    const ok = await project(`required_version: ">=${version} <${Number(version.split(".")[0]) + 1}"\n`);
    const loaded = await loadProject(join(ok, "carte.yaml"));
    expect(Object.keys(loaded.desired.stores)).toEqual(["a"]);

    const refused = await project('required_version: "<0.0.1"\n');
    const r = await carte(["validate", "-c", join(refused, "carte.yaml")]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `carte.yaml:2:19: this project needs carte "<0.0.1" (required_version), but carte ${version}`,
    );
  });
});
