/**
 * A configuration file read without the thread pool (src/config/read.ts `readConfigFileSync`, for the
 * store files a scoped plan reads for their identity alone) gives what the asynchronous read gives:
 * the text, or the same refusal of a missing file, a folder, a FIFO, a file over the limit, bytes that
 * are not UTF-8.
 */

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { readConfigFile, readConfigFileSync } from "../../src/config/read.js";

const dir = mkdtempSync(path.join(tmpdir(), "carte-read-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it.each([
  ["a plain file", (f: string) => writeFileSync(f, "\ufeffstore:\n  id: 1\n")],
  ["a missing file", () => undefined],
  ["a folder", (f: string) => mkdirSync(f)],
  ["a FIFO", (f: string) => execFileSync("mkfifo", [f])],
  ["a file over the limit", (f: string) => writeFileSync(f, "x".repeat(65))],
  ["bytes that are not UTF-8", (f: string) => writeFileSync(f, Buffer.from([0x61, 0x0a, 0x62, 0xe9, 0x0a]))],
])("reads %s as the asynchronous read does", async (name, make) => {
  const file = path.join(dir, name.replaceAll(" ", "-"));
  make(file);
  const expected = await readConfigFile(file, 64);
  expect(readConfigFileSync(file, 64)).toEqual(expected);
  if (name === "a plain file") expect(expected).toEqual({ ok: true, text: "store:\n  id: 1\n" });
  else expect(expected.ok).toBe(false);
});
