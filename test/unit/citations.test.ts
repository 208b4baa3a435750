/**
 * `npm run check:refs` (scripts/no-issue-refs.mjs) refuses what a reader of the repository does not
 * have: besides tracker issues, a section of the platform's interface description, the notes on it, or
 * the design document the project started from, in the code, the scripts, the tests and the platform's
 * schemas. The code cites docs/platform-api.md instead. Each case runs the script on a scratch
 * repository holding one file. The citations are assembled from parts, so that this file does not cite.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const script = path.join(import.meta.dirname, "..", "..", "scripts", "no-issue-refs.mjs");
const scratch: string[] = [];
const SPEC = "spec \u00a7";
const NOTES = ["platform", "notes"];
const DESIGN = ["DESIGN", '"'].join(" ");
const SPEC_FILE = ["platform", "spec.md"].join("-");

afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs the check on a repository holding only `file` with `text`. */
function check(file: string, text: string): { code: number | null; err: string } {
  const root = mkdtempSync(path.join(tmpdir(), "carte-refs-"));
  scratch.push(root);
  mkdirSync(path.join(root, "scripts"));
  copyFileSync(script, path.join(root, "scripts", "no-issue-refs.mjs"));
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
  const r = spawnSync(process.execPath, [path.join(root, "scripts", "no-issue-refs.mjs")], {
    encoding: "utf8",
  });
  return { code: r.status, err: r.stderr };
}

describe("check:refs", () => {
  it("refuses a section of the platform's interface description, naming the line and what to cite", () => {
    const r = check("src/kinds/x.ts", `/** Menus (${SPEC}2.2, \u00a74.4). */\nexport const x = 1;\n`);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`src/kinds/x.ts:1: /** Menus (${SPEC}2.2, \u00a74.4). */`);
    expect(r.err).toContain("Cite the section of docs/platform-api.md");
  });

  it("refuses the notes on the platform, also when a comment breaks the two words across its lines", () => {
    const broken = check(
      "src/emulator/x.ts",
      `/**\n * Unknown: 404 (${NOTES[0]}\n * ${NOTES[1]} "Errors").\n */\n`,
    );
    expect(broken.code).toBe(1);
    expect(broken.err).toContain("src/emulator/x.ts:2:");
    const schema = check(
      "schemas/platform/x.schema.json",
      `{"description": "A body (${NOTES.join(" ")})."}\n`,
    );
    expect(schema.code).toBe(1);
    expect(schema.err).toContain("schemas/platform/x.schema.json:1:");
  });

  it("refuses a citation of the design document the project started from", () => {
    const r = check("src/emulator/x.ts", `/** Faults (${DESIGN}Testing: fault tests"). */\n`);
    expect(r.code).toBe(1);
    expect(r.err).toContain("src/emulator/x.ts:1:");
  });

  it("accepts the sections of docs/platform-api.md, and a doc that names the platform's documents", () => {
    const code = check(
      "src/kinds/x.ts",
      "/** Menus (docs/platform-api.md \u00a74.3, \u00a72.4; RFC 9110 \u00a715.6.4). */\n",
    );
    expect(code.code, code.err).toBe(0);
    const doc = check("docs/platform-api.md", `Sources: \`${SPEC_FILE}\` and the ${NOTES.join(" ")}.\n`);
    expect(doc.code, doc.err).toBe(0);
  });
});
