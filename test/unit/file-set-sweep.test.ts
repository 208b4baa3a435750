/**
 * A set of files written together (an import of thousands of store files) lists each folder once for
 * the temporary files that killed writers left, not once per file.
 */

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { writeFileSet } from "../../src/atomic.js";
import { deadPid } from "../helpers/locks.js";

const listed: string[] = [];
vi.mock("node:fs/promises", async (original) => {
  const real = await original<typeof import("node:fs/promises")>();
  const wrapped = {
    ...real,
    readdir: ((dir: string, ...rest: unknown[]) => {
      listed.push(String(dir));
      return (real.readdir as (...a: unknown[]) => unknown)(dir, ...rest);
    }) as typeof real.readdir,
  };
  return { ...wrapped, default: wrapped };
});

const root = mkdtempSync(path.join(tmpdir(), "carte-file-set-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("writeFileSet", () => {
  it("lists each folder once, and still removes what killed writers left there", async () => {
    const stores = path.join(root, "stores");
    const gone = await deadPid();
    // A store file's temporary file left by an import that was killed: removed before the set is written.
    await writeFileSet([
      { file: path.join(stores, "seed.yaml"), data: "x\n", options: { root, purpose: "write" } },
    ]);
    const stale = path.join(stores, `.s-0200.yaml.carte-tmp-${gone}-abcdef`);
    writeFileSync(stale, "half");
    listed.length = 0;
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
    expect(await writeFileSet(files)).toEqual(files.map(() => true));
    expect(listed.filter((d) => path.resolve(d) === stores)).toHaveLength(1);
    expect(readdirSync(stores).filter((n) => n.startsWith("."))).toEqual([]);
    expect(readdirSync(stores)).toHaveLength(201);
  });
});
