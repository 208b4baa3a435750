/**
 * The menu previews of a sharded run: each shard's run record carries its preview, the report job's
 * comment links them all, and a record whose preview is not one (a link to another scheme, a huge
 * text) is refused.
 */

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mergeRecords, readRecord, type RunRecord } from "../../src/gitops/record.js";
import { previewLine } from "../../src/render/markdown.js";

const record = (index: number, preview?: RunRecord["preview"]): RunRecord => ({
  carte: "run-record",
  version: 1,
  command: "plan",
  shard: { index, count: 2 },
  commit: "abc",
  exitCode: 2,
  plan: null,
  split: null,
  problems: null,
  error: null,
  ...(preview ? { preview } : {}),
});

describe("previews of a sharded run", () => {
  it("links every shard's preview in shard order; one reason for all reads as one job's line", () => {
    const merged = mergeRecords([
      record(2, { stores: 1, url: "https://github.com/o/r/actions/runs/9/artifacts/2" }),
      record(1, { stores: 2, url: "https://github.com/o/r/actions/runs/9/artifacts/1" }),
    ]);
    expect(previewLine(merged.preview)).toBe(
      "Preview of the menus: [2 stores](https://github.com/o/r/actions/runs/9/artifacts/1), " +
        "[1 store](https://github.com/o/r/actions/runs/9/artifacts/2)",
    );
    const none = mergeRecords([
      record(1, { stores: 2, failure: "no storage" }),
      record(2, { stores: 1, failure: "no storage" }),
    ]);
    expect(previewLine(none.preview)).toBe(previewLine([{ stores: 3, failure: "no storage" }]));
    expect(previewLine(none.preview)).toBe("Preview of the menus (3 stores): not available, no storage.");
    expect(mergeRecords([record(1), record(2)]).preview).toEqual([]);
  });

  it("refuses a record whose preview links elsewhere than http(s) or is not a count of stores", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "carte-record-"));
    const write = (name: string, preview: unknown) => {
      const file = path.join(dir, name);
      writeFileSync(file, JSON.stringify({ ...record(1), preview }));
      return file;
    };
    await expect(
      readRecord(write("ok.json", { stores: 1, url: "https://x.example/a" })),
    ).resolves.toMatchObject({
      preview: { stores: 1 },
    });
    for (const [name, preview] of [
      ["js.json", { stores: 1, url: "javascript:alert(1)" }],
      ["count.json", { stores: "1", url: "https://x.example/a" }],
      ["long.json", { stores: 1, failure: "x".repeat(5000) }],
    ] as const) {
      await expect(readRecord(write(name, preview)), name).rejects.toThrow(/is not a carte run record/);
    }
  });
});
