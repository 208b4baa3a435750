/**
 * carte.yaml `required_version`: the versions of carte a project accepts, as a semver range in npm's
 * syntax (`">=1.2 <2"`, `"^1.2"`), like Terraform's `required_version`. It is checked first when a
 * project loads, before the rest of carte.yaml is validated: a project written for another carte is
 * refused with this one problem, not with the unknown keys or changed meanings of another version's
 * files (docs/releasing.md says what a version promises).
 *
 * Ranges are read and matched by `semver`, npm's own implementation, so that a range means here what it
 * means in package.json. A prerelease of carte satisfies a range only when the range names a prerelease
 * of the same version (npm's rule): `>=1.2 <2` does not let `2.0.0-rc.1` in.
 */

import { readFileSync } from "node:fs";
import semver from "semver";
import type { ConfigProblem } from "../errors.js";
import { locate, toPointer, type YamlFile } from "../source/yaml.js";
import { quote } from "../source/quote.js";

let manifest: { name: string; version: string } | undefined;

/**
 * The name and version of this installation of carte, from its package.json (`@carte-oss/carte`,
 * `carte --version`). The file is two folders up from src/config and dist/config; the Action's bundle
 * (scripts/build-action.mjs) rewrites the path for dist-action/.
 */
export function carteManifest(): { name: string; version: string } {
  if (!manifest) {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      name: string;
      version: string;
    };
    manifest = { name: pkg.name, version: pkg.version };
  }
  return manifest;
}

/** The version of this installation of carte (see {@link carteManifest}). */
export function carteVersion(): string {
  return carteManifest().version;
}

/**
 * Checks carte.yaml's `required_version` (when present) against `version`, the installed carte's.
 *
 * @param parsed - carte.yaml, parsed with positions.
 * @param version - the version to check (default: {@link carteVersion}).
 * @returns the problem, located at the value of `required_version`, when the key is not a valid semver
 *   range or the version is outside it; `undefined` when the key is absent or the version satisfies it.
 *   A value that is not a string is left to the schema.
 */
export function requiredVersionProblem(
  parsed: YamlFile,
  version: string = carteVersion(),
): ConfigProblem | undefined {
  const data = parsed.data;
  if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
  if (!Object.hasOwn(data, "required_version")) return undefined;
  const range = (data as Record<string, unknown>).required_version;
  if (typeof range !== "string") return undefined;
  const pointer = toPointer(["required_version"]);
  const at = locate(parsed, pointer);
  const problem = (message: string): ConfigProblem => ({ file: parsed.file, ...at, pointer, message });
  // Bounded before semver reads it (the schema's maxLength, checked later, is the same).
  if (range.length > 200 || semver.validRange(range) === null) {
    return problem(
      `required_version ${quote(range, 60)} is not a semver range; write one as in package.json, ` +
        `for example ">=1.2 <2" or "^1.2"`,
    );
  }
  if (semver.satisfies(version, range)) return undefined;
  return problem(
    `this project needs carte ${quote(range, 60)} (required_version), but carte ${version} is installed: ` +
      `install a version in that range (npm install --save-dev ${carteManifest().name}@${quote(range, 60)}), ` +
      `or change required_version after reading the changelog of the versions in between`,
  );
}
