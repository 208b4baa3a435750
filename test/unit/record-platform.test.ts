/**
 * The run record of one platform's job of a matrix over platforms: it names its platform, its
 * section's heading and its calls, and a record whose platform is not one (a name that is no platform
 * name, a heading of several lines, calls that do not add up) is refused: a record is a file anyone
 * who can push a branch may write.
 */

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readRecord, type RunRecord } from "../../src/gitops/record.js";

const record: RunRecord = {
  carte: "run-record",
  version: 1,
  command: "plan",
  shard: null,
  commit: "abc",
  exitCode: 0,
  plan: null,
  split: null,
  problems: null,
  error: null,
};

describe("the platform of a run record", () => {
  it("keeps a platform's name, heading and calls; refuses one that is not a platform's", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "carte-record-"));
    const write = (name: string, platform: unknown) => {
      const file = path.join(dir, name);
      writeFileSync(file, JSON.stringify({ ...record, platform }));
      return file;
    };
    const good = { name: "co", heading: "Platform co — Colombia, COP", calls: { calls: 12, succeeded: 12 } };
    await expect(readRecord(write("ok.json", good))).resolves.toMatchObject({ platform: good });
    for (const [name, platform] of [
      ["name.json", { ...good, name: "../co" }],
      ["proto.json", { ...good, name: "__proto__" }],
      ["lines.json", { ...good, heading: "Platform co\n::error::forged" }],
      ["long.json", { ...good, heading: "x".repeat(5000) }],
      ["calls.json", { ...good, calls: { calls: 1, succeeded: 2 } }],
      ["negative.json", { ...good, calls: { calls: -1, succeeded: 0 } }],
      ["null.json", null],
    ] as const) {
      await expect(readRecord(write(name, platform)), name).rejects.toThrow(/is not a carte run record/);
    }
  });
});
