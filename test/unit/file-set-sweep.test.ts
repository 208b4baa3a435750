/**
 * A set of files written together (an import of thousands of store files) lists each folder once for
 * the temporary files that killed writers left, not once per file. The listings are counted through
 * Node's own `fs.promises.readdir`, swapped for the test and made visible to ES module imports with
 * `syncBuiltinESMExports` (no module is mocked: test files share their modules).
 */

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import fsp from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeFileSet } from "../../src/atomic.js";
import { deadPid } from "../helpers/locks.js";

const root = mkdtempSync(path.join(tmpdir(), "carte-file-set-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs `fn` with every `fs.promises.readdir` of the process recorded in `listed`. */
async function countingListings<T>(listed: string[], fn: () => Promise<T>): Promise<T> {
  const real = fsp.readdir;
  fsp.readdir = ((dir: Parameters<typeof real>[0], ...rest: unknown[]) => {
    listed.push(String(dir));
    return (real as (...a: unknown[]) => unknown)(dir, ...rest);
  }) as typeof real;
  syncBuiltinESMExports();
  try {
    return await fn();
  } finally {
    fsp.readdir = real;
    syncBuiltinESMExports();
  }
}

describe("writeFileSet", () => {
  it("lists each folder once, and still removes what killed writers left there", async () => {
    const stores = path.join(root, "stores");
    const gone = await deadPid();
    await writeFileSet([
      { file: path.join(stores, "seed.yaml"), data: "x\n", options: { root, purpose: "write" } },
    ]);
    // A store file's temporary file left by an import that was killed: removed before the set is written.
    writeFileSync(path.join(stores, `.s-0200.yaml.carte-tmp-${gone}-abcdef`), "half");
    const files = Array.from({ length: 200 }, (_, i) => ({
      file: path.join(stores, `s-${String(i).padStart(4, "0")}.yaml`),
      data: `store: ${i}\n`,
      options: { root, purpose: "write" },
    }));
    files.push({
      file: path.join(root, "carte.yaml"),
      data: "name: x\n",
      options: { root, purpose: "write" },
    });
    const listed: string[] = [];
    expect(await countingListings(listed, () => writeFileSet(files))).toEqual(files.map(() => true));
    expect(listed.filter((d) => path.resolve(d) === stores)).toHaveLength(1);
    expect(readdirSync(stores).filter((n) => n.startsWith("."))).toEqual([]);
    expect(readdirSync(stores)).toHaveLength(201);
  });
});
