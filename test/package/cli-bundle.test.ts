/**
 * The CLI as `npm run build` bundles it (scripts/build-cli.mjs → dist/cli/carte.mjs, run by bin/carte.js):
 * its HTTP client (the part of undici the bundle holds, scripts/undici-cli.mjs) reaches the platform,
 * its answers checked by the validators compiled at build time (dist/platform/validators.cjs); on Node.js
 * 22.1 and later, the code V8 compiled is kept beside the bundle for the next start.
 */

import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import module from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  EXAMPLE_STORES,
  exampleAgainstEmulator,
  repoRoot,
} from "../helpers/project.js";

const run = promisify(execFile);
const bin = path.join(repoRoot, "bin", "carte.js");
let project: Awaited<ReturnType<typeof exampleAgainstEmulator>>;

beforeAll(async () => {
  project = await exampleAgainstEmulator(EXAMPLE_STORES.map((s) => `stores/${s}.yaml`));
});
afterAll(() => project.close());

it("plans against the platform over HTTP: logs in, reads the store, checks the answers", async () => {
  expect(existsSync(path.join(repoRoot, "dist", "cli", "carte.mjs")), "npm run build bundles the CLI").toBe(
    true,
  );
  expect(existsSync(path.join(repoRoot, "dist", "platform", "validators.cjs"))).toBe(true);
  // ASCII only, so that Node.js reads it fast and V8 holds it at one byte a character; the licence
  // notices of the bundled packages beside it.
  const source = readFileSync(path.join(repoRoot, "dist", "cli", "carte.mjs"), "latin1");
  expect(/[\u0080-\uffff]/.exec(source)?.[0], "a character beyond ASCII in the bundle").toBeUndefined();
  expect(readFileSync(path.join(repoRoot, "dist", "cli", "carte.mjs.LEGAL.txt"), "utf8")).toContain("MIT");
  project.emu.clearRequests();
  const { stdout } = await run(process.execPath, [bin, "plan", "--config", project.config, "--json"], {
    cwd: project.dir,
    env: { ...process.env, CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
  });
  const plan = JSON.parse(stdout) as { stores: { key: string }[]; changes: unknown[] };
  expect(plan.stores.map((s) => s.key)).toContain("bog-centro");
  const paths = project.emu.requests.map((r) => r.path);
  expect(paths.some((p) => p.endsWith("/store-menu"))).toBe(true);
  // The login's answer (a TokenResponse) and the menu's (a StoreMenu) both passed their checks.
  expect(paths.some((p) => p.startsWith("/restaurants/auth/v1/token/login/"))).toBe(true);
  expect(Array.isArray(plan.changes)).toBe(true);
}, 60_000);

it.runIf(typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function")(
  "keeps V8's compiled code in the folder NODE_COMPILE_CACHE names, or else beside the bundle",
  async () => {
    const cache = mkdtempSync(path.join(tmpdir(), "carte-compile-cache-"));
    try {
      await run(process.execPath, [bin, "--version"], { env: { ...process.env, NODE_COMPILE_CACHE: cache } });
      expect(readdirSync(cache, { recursive: true }).length).toBeGreaterThan(0);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  },
  60_000,
);
