/**
 * The kinds and the config loader do not import each other: what both need (where a value is written,
 * problem reports, quoting, the YAML file handle, slot parsing, the store clock) lives in modules of
 * its own below both (src/source/, src/time/), and the loader reaches the kinds through the registry,
 * the kind contract and the states the kinds declare for it. `npm run deps` holds the same rules
 * (.dependency-cruiser.mjs); this test names each import that breaks them.
 */

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/project.js";

/** The `.ts` files of a folder of src/, recursively, as paths relative to the repository. */
function sources(folder: string): string[] {
  const dir = path.join(repoRoot, folder);
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => path.posix.join(folder, f.split(path.sep).join("/")));
}

/** Every module a file imports (type-only imports and re-exports included), relative to the repository. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(repoRoot, file), "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)\.js"/g)].map((m) =>
    path.posix.normalize(path.posix.join(path.posix.dirname(file), `${m[1]!}.ts`)),
  );
}

/** `file → module` for each import of a file of `from` into a module under `to` that `allowed` refuses. */
function crossings(from: string, to: string, allowed: (module: string) => boolean = () => false): string[] {
  return sources(from).flatMap((file) =>
    importsOf(file)
      .filter((m) => m.startsWith(`${to}/`) && !allowed(m))
      .map((m) => `${file} → ${m}`),
  );
}

describe("the kinds and the config loader do not import each other", () => {
  it("nothing in src/kinds imports src/config", () => {
    expect(crossings("src/kinds", "src/config")).toEqual([]);
  });

  it("src/config reaches the kinds through the registry, the contract and the states they declare", () => {
    const through = new Set([
      "src/kinds/registry.ts",
      "src/kinds/resource-kind.ts",
      "src/kinds/catalog.ts",
      "src/kinds/store-schedule.ts",
    ]);
    expect(crossings("src/config", "src/kinds", (m) => through.has(m))).toEqual([]);
  });

  it("what both need sits below both", () => {
    for (const below of ["src/source", "src/time"])
      for (const above of ["src/kinds", "src/config"]) expect(crossings(below, above)).toEqual([]);
  });
});

describe("the platform's client does not import the config loader", () => {
  // The kinds import the client's type, so an import of src/config from src/platform would put the
  // loader under every kind: the ajv set-up both compile schemas with sits below both, in src/json-schema.
  it("nothing in src/platform imports src/config", () => {
    expect(crossings("src/platform", "src/config")).toEqual([]);
  });

  it("src/json-schema imports nothing of src/", () => {
    expect(crossings("src/json-schema", "src")).toEqual([]);
  });
});
