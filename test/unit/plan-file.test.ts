/**
 * The plan file (docs/plan-format.md, "The plan file"): format version 2 is written as compact records,
 * each resource once, read back as the same plan; a byte changed anywhere is refused; a plan of format
 * version 1 is still read; files past their bounds are refused before they are read.
 */

import { readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sealPlan } from "../../src/plan/digest.js";
import {
  MAX_PLAN_FILE_BYTES,
  MAX_PLAN_JSON_BYTES,
  readPlanFile,
  readPlanToShow,
  writePlanFile,
} from "../../src/plan/file.js";
import type { Plan } from "../../src/plan/types.js";
import { planProject } from "../../src/run/plan-project.js";
import { exampleSession } from "../helpers/session.js";

let plan: Plan;
let dir: string;

beforeAll(async () => {
  // The example chain from empty: every store gets the whole catalog, schedules, hours and webhooks.
  const fx = await exampleSession();
  try {
    plan = (await planProject(fx.project, fx.session, { checksums: true })).plan;
  } finally {
    await fx.close();
  }
  plan = { ...plan, target: "embedded emulator (state in .carte)", platform: "co", rehearsal: true };
  dir = mkdtempSync(path.join(tmpdir(), "carte-plan-file-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The plan as a JSON value (what a reader compares): no field left undefined. */
const asJson = (p: unknown) => JSON.parse(JSON.stringify(p)) as unknown;

describe("format version 2", () => {
  it("reads back the plan it saved, as show and as apply read it", async () => {
    expect(plan.changes.length).toBeGreaterThan(100);
    const file = path.join(dir, "plan.json");
    await writePlanFile(file, plan);
    expect(readFileSync(file, "utf8").startsWith('{"formatVersion":2,')).toBe(true);
    const shown = await readPlanToShow(file);
    expect(shown.digestMatches).toBe(true);
    expect(asJson(shown.plan)).toEqual(asJson(plan));
    expect(asJson(await readPlanFile(file))).toEqual(asJson(plan));
    // Saved again from what was read, the file is the same, byte for byte.
    const again = path.join(dir, "again.json");
    await writePlanFile(again, shown.plan);
    expect(readFileSync(again, "utf8")).toBe(readFileSync(file, "utf8"));
  });

  it("reads back what its rows do not derive: an address of its own, a call's address no change has, other fields", async () => {
    const file = path.join(dir, "odd.json");
    const [first, ...rest] = plan.changes;
    const odd: Plan = {
      ...plan,
      changes: [{ ...first!, address: "store[elsewhere].item[X]", within: ["A", "B"], group: "G" }, ...rest],
      operations: [
        ...plan.operations,
        {
          ...plan.operations[0]!,
          id: "extra",
          addresses: ["store[nowhere].item[Y]", rest[5]!.address, rest[2]!.address],
        },
      ],
    };
    await writePlanFile(file, odd);
    expect(asJson(await readPlanFile(file))).toEqual(asJson(odd));
  });

  it("writes each resource once, however many stores get it, on lines of compact JSON", async () => {
    const file = path.join(dir, "once.json");
    await writePlanFile(file, plan);
    const text = readFileSync(file, "utf8");
    const created = plan.changes.filter((c) => c.kind === "item" && c.action === "create");
    const after = created[0]!.after;
    const stores = created.filter((c) => JSON.stringify(c.after) === JSON.stringify(after)).length;
    expect(stores).toBeGreaterThan(1);
    expect(text.split(JSON.stringify(after)).length - 1).toBe(1);
    expect(text).not.toContain("\n ");
    expect(text.length).toBeLessThan(JSON.stringify(plan).length / 2);
    // Read back, the stores' changes share the resource: memory holds it once too.
    const read = await readPlanFile(file);
    const same = read.changes.filter((c) => JSON.stringify(c.after) === JSON.stringify(after));
    expect(new Set(same.map((c) => c.after)).size).toBe(1);
  });

  it("refuses to apply a file with a byte changed in any record, and shows it with a warning", async () => {
    const file = path.join(dir, "edited.json");
    await writePlanFile(file, plan);
    const lines = readFileSync(file, "utf8").split("\n");
    const kinds = new Map<string, number>();
    lines.forEach((l, i) => {
      if (l === "") return;
      const k = l.startsWith("{") ? l.slice(0, 5) : l.slice(0, 4);
      if (!kinds.has(k)) kinds.set(k, i);
    });
    // The head, a value, a store, a run of changes, a run of operations, the digest.
    expect([...kinds.keys()].sort()).toEqual(['["c"', '["o"', '["s"', '["v"', '{"dig', '{"for']);
    for (const [kind, i] of kinds) {
      // A letter of a text changed: the line is still JSON, and still a record.
      const at = lines[i]!.search(/[a-z](?=[a-z]*")/);
      const edited = [...lines];
      edited[i] = lines[i]!.slice(0, at) + (lines[i]![at] === "x" ? "y" : "x") + lines[i]!.slice(at + 1);
      writeFileSync(file, edited.join("\n"));
      await expect(readPlanFile(file), kind).rejects.toThrow(/edited\.json (was changed after|is not a)/);
      const shown = await readPlanToShow(file).catch((err: Error) => err);
      if (!(shown instanceof Error)) expect(shown.digestMatches, kind).toBe(false);
    }
  });

  it("refuses a file cut short, or with a line after its digest, naming the line", async () => {
    const file = path.join(dir, "cut.json");
    await writePlanFile(file, plan);
    const lines = readFileSync(file, "utf8").split("\n");
    const digestAt = lines.length - 2;
    writeFileSync(file, lines.slice(0, 5).concat(lines[digestAt]!, "").join("\n"));
    await expect(readPlanFile(file)).rejects.toThrow(
      "cut.json is not a carte plan (it ends before all its stores, changes and operations (cut short?))",
    );
    writeFileSync(
      file,
      lines
        .slice(0, digestAt + 1)
        .concat(lines[1]!, "")
        .join("\n"),
    );
    await expect(readPlanFile(file)).rejects.toThrow(
      `cut.json is not a carte plan (line ${digestAt + 2} comes after the digest, which ends the file)`,
    );
  });

  it("refuses a file larger than its bound by its size, and a line longer than 64 MiB, before parsing", async () => {
    const big = path.join(dir, "big.json");
    writeFileSync(big, '{"formatVersion":2,');
    truncateSync(big, MAX_PLAN_FILE_BYTES + 1);
    await expect(readPlanFile(big)).rejects.toThrow(
      `big.json is ${MAX_PLAN_FILE_BYTES + 1} bytes, more than the 1 GiB a plan file may hold; it was not read`,
    );
    truncateSync(big, MAX_PLAN_JSON_BYTES + 2);
    await expect(readPlanToShow(big)).rejects.toThrow(
      "big.json is not a carte plan (line 1 is longer than 64 MiB)",
    );
  });
});

describe("format version 1", () => {
  it("is still read, shown and applied as before", async () => {
    const file = path.join(dir, "v1.json");
    const sealed = sealPlan(plan);
    writeFileSync(file, JSON.stringify(sealed, null, 2) + "\n");
    expect(asJson(await readPlanFile(file))).toEqual(asJson(sealed));
    const shown = await readPlanToShow(file);
    expect(shown.digestMatches).toBe(true);
    writeFileSync(file, JSON.stringify({ ...sealed, target: "elsewhere" }, null, 2));
    expect((await readPlanToShow(file)).digestMatches).toBe(false);
    await expect(readPlanFile(file)).rejects.toThrow("v1.json was changed after carte saved it");
  });

  it("is refused by its size past 64 MiB, and a plan of another version in words", async () => {
    const big = path.join(dir, "big-v1.json");
    writeFileSync(big, '{\n  "formatVersion": 1,');
    truncateSync(big, MAX_PLAN_JSON_BYTES + 1);
    await expect(readPlanFile(big)).rejects.toThrow(
      `big-v1.json is ${MAX_PLAN_JSON_BYTES + 1} bytes, more than the 64 MiB a plan of format version 1 may hold`,
    );
    const v3 = path.join(dir, "v3.json");
    writeFileSync(v3, JSON.stringify({ ...plan, formatVersion: 3 }));
    await expect(readPlanFile(v3)).rejects.toThrow("v3.json is not a carte plan of format version 1 or 2");
  });
});
