import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { carte } from "../helpers/project.js";

describe("--parallelism", () => {
  it("is refused outside 1 to 64 by every command that takes it, before any file is read", async () => {
    // A project file that is not YAML: a command that read it would fail on it instead.
    const dir = mkdtempSync(path.join(tmpdir(), "carte-parallelism-"));
    const config = path.join(dir, "carte.yaml");
    writeFileSync(config, "not: [yaml\n");
    const commands = [
      ["plan"],
      ["apply", "--auto-approve"],
      ["preview"],
      ["import", "--store", "1"],
      ["finance", "orders"],
    ];
    for (const command of commands) {
      for (const value of ["0", "65", "1.5"]) {
        const run = await carte([...command, "--parallelism", value, "-c", config]);
        const what = `${command[0]} --parallelism ${value}`;
        expect([what, run.code]).toEqual([what, 1]);
        expect(run.err).toContain("--parallelism must be a whole number from 1 to 64");
      }
    }
  });
});
