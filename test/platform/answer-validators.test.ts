/**
 * The validators of platform answers compiled at build time (src/platform/schemas.ts
 * `answerValidatorModules`, written to dist/platform/answers/NAME.cjs by `npm run build`) find the
 * same problems as the open reading compiled at run time, and carry the digest of the schemas read.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { ValidateFunction } from "ajv";
import { expect, it } from "vitest";
import {
  answerProblems,
  answerValidatorModules,
  describeErrors,
  platformSchemaDigest,
} from "../../src/platform/schemas.js";

it("gives the problems of the open reading compiled at run time, for the digest of the schemas read", () => {
  // Inside the repository, where the modules find ajv and ajv-formats as they do in dist/.
  mkdirSync("node_modules/.cache", { recursive: true });
  const dir = mkdtempSync(path.resolve("node_modules/.cache/carte-answers-"));
  try {
    const modules = answerValidatorModules(["TokenResponse", "RegularHours", "StoreMenu"]);
    const load = (name: string) => {
      const file = path.join(dir, `${name}.cjs`);
      writeFileSync(file, modules.get(name)!);
      return createRequire(import.meta.url)(file) as { validate: ValidateFunction; schemaDigest: string };
    };
    const cases: [string, unknown][] = [
      ["TokenResponse", { access_token: "", token_type: "Basic", expires_in: 0, extra: true }],
      ["TokenResponse", { access_token: "t", token_type: "Bearer", expires_in: 60, extra: true }],
      [
        "RegularHours",
        { storeScheduleDays: [{ day: "mon", storeSchedules: [{ id: "1", startsTime: "25:00:00" }] }] },
      ],
      ["StoreMenu", { items: [{ sku: 5, item_type: "NOPE" }], menus: "x" }],
      ["StoreMenu", []],
    ];
    for (const [name, value] of cases) {
      const module = load(name);
      expect(module.schemaDigest).toBe(platformSchemaDigest());
      const valid = module.validate(value);
      const expected = answerProblems(name as Parameters<typeof answerProblems>[0], value);
      expect(valid).toBe(expected.length === 0);
      expect(valid ? [] : describeErrors(module.validate.errors ?? [])).toEqual(expected);
    }
    // The open reading: a field the schemas do not name is accepted, a wrong type is not.
    expect(
      load("TokenResponse").validate({ access_token: "t", token_type: "Bearer", expires_in: 1, x: 1 }),
    ).toBe(true);
    expect(answerProblems("StoreMenu", [])).not.toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it("refuses a name that is no definition of the platform schemas", () => {
  expect(() => answerValidatorModules(["NoSuchAnswer"])).toThrow(/no definition NoSuchAnswer/);
  expect(() => answerValidatorModules(["../x"])).toThrow(/no definition/);
});
