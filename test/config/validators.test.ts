/**
 * The validators compiled at build time (src/config/validate.ts `validatorsModule`, written to
 * dist/config/validators.cjs by `npm run build`) report the same problems, at the same places, as the
 * schemas compiled at run time.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { ValidateFunction } from "ajv";
import { expect, it } from "vitest";
import {
  compileValidators,
  schemaDigest,
  validateFile,
  validatorsModule,
} from "../../src/config/validate.js";
import { asciiSource } from "../../src/json-schema/ascii.js";
import type { FileKind } from "../../src/config/validate.js";
import { parseYaml } from "../../src/source/yaml.js";

it("gives the problems of the schemas compiled at run time, for the digest of the schemas read", () => {
  // Inside the repository, where the module finds ajv and ajv-formats as it does in dist/.
  mkdirSync("node_modules/.cache", { recursive: true });
  const dir = mkdtempSync(path.resolve("node_modules/.cache/carte-validators-"));
  try {
    const file = path.join(dir, "validators.cjs");
    const source = validatorsModule();
    // In ASCII: the schemas' descriptions and examples beyond ASCII are escapes in it.
    expect(/[\u0080-\uffff]/.exec(source)?.[0]).toBeUndefined();
    expect(source).toContain("\\u2192");
    writeFileSync(file, source);
    const module = createRequire(import.meta.url)(file) as Record<FileKind, ValidateFunction> & {
      schemaDigest: string;
    };
    expect(module.schemaDigest).toBe(schemaDigest());
    const now = compileValidators();
    const files: [FileKind, string][] = [
      ["catalog", readFileSync("test/fixtures/bad-config/catalogs/burgers.yaml", "utf8")],
      ["store", "store:\n  id: abc\n  integration_id: 'a b'\ncatalog: 5\nopen: maybe\nhours: { mon: [x] }\n"],
      ["project", "version: 1\nplatform: { base_url: 'not a url' }\nstorez: x\n"],
      ["group", "name: 3\ndefaults: { webhooks: [{ event: nope, url: 'ftp://x' }] }\n"],
      ["settings", "holidays: { '13-45': closed }\noverrides: { prices: { A: 'abc' } }\n"],
    ];
    for (const [kind, text] of files) {
      const parsed = parseYaml(`${kind}.yaml`, text).parsed;
      const expected = validateFile(parsed, kind, undefined, now);
      expect(expected.length).toBeGreaterThan(0);
      expect(validateFile(parsed, kind, undefined, module)).toEqual(expected);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it("writes a module's characters beyond ASCII as escapes that mean the same characters", () => {
  // Strings and regular expressions (with and without the u flag, a character beyond the BMP too).
  const code = "return ['Clásica → 🍔', /^[á-é]+$/.test('éá'), /^🍔$/u.test('🍔'), /^.$/u.test('🍔')];";
  const escaped = asciiSource(code);
  expect(/[\u0080-\uffff]/.test(escaped)).toBe(false);
  expect(new Function(escaped)()).toEqual(new Function(code)());
  expect(new Function(escaped)()).toEqual(["Clásica → 🍔", true, true, true]);
});
