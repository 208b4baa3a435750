import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, it } from "vitest";

it("src/generated/config.ts is up to date with the schemas (npm run gen:check)", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["scripts/gen-types.mjs", "--check"]);
  expect(stdout).toContain("is up to date");
});
