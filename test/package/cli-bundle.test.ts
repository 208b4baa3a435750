/**
 * The CLI as `npm run build` bundles it (scripts/build-cli.mjs → dist/cli/carte.mjs, run by bin/carte.js):
 * its HTTP client (the part of undici the bundle holds, scripts/undici-cli.mjs) reaches the platform,
 * its answers checked by the validators compiled at build time (dist/platform/validators.cjs); on Node.js
 * 22.1 and later, the code V8 compiled is kept beside the bundle for the next start. What a plan
 * against a platform never uses (the emulator, ajv's compiler) is not evaluated at its start, and is
 * there when a command needs it. Which functions of the bundle ran is told by V8's coverage
 * (NODE_V8_COVERAGE), function by function.
 */

import { execFile, spawn } from "node:child_process";
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

/** How many times each function of the bundle ran, by name (a name used twice: the larger count), from a NODE_V8_COVERAGE folder. */
function bundleCalls(folder: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const file of readdirSync(folder)) {
    const coverage = JSON.parse(readFileSync(path.join(folder, file), "utf8")) as {
      result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[];
    };
    for (const script of coverage.result.filter((r) => r.url.endsWith("/dist/cli/carte.mjs"))) {
      for (const f of script.functions) {
        calls.set(f.functionName, Math.max(calls.get(f.functionName) ?? 0, f.ranges[0]?.count ?? 0));
      }
    }
  }
  return calls;
}
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
  for (const validators of ["config", "platform"]) {
    const file = path.join(repoRoot, "dist", validators, "validators.cjs");
    const code = readFileSync(file, "latin1");
    expect(/[\u0080-\uffff]/.exec(code)?.[0], `a character beyond ASCII in ${file}`).toBeUndefined();
  }
  expect(readFileSync(path.join(repoRoot, "dist", "cli", "carte.mjs.LEGAL.txt"), "utf8")).toContain("MIT");
  project.emu.clearRequests();
  const coverage = mkdtempSync(path.join(tmpdir(), "carte-coverage-"));
  let calls: Map<string, number>;
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, [bin, "plan", "--config", project.config, "--json"], {
      cwd: project.dir,
      env: {
        ...process.env,
        CARTE_CLIENT_ID: CLIENT_ID,
        CARTE_CLIENT_SECRET: CLIENT_SECRET,
        NODE_V8_COVERAGE: coverage,
      },
    }));
    calls = bundleCalls(coverage);
  } finally {
    rmSync(coverage, { recursive: true, force: true });
  }
  // The plan ran in the bundle; neither the emulator nor ajv's compiler was evaluated.
  expect(calls.get("runPlan")).toBeGreaterThan(0);
  // A module evaluated on first use is a function named after its file in the bundle.
  expect(calls.get("dist/emulator/index.js")).toBe(0);
  expect(calls.get("node_modules/ajv/dist/core.js")).toBe(0);
  expect(calls.get("ajvParts")).toBe(0);
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

it("loads the emulator and ajv's compiler when a command needs them: carte emulator --no-strict checks a request", async () => {
  // Without --strict, the emulator checks requests with the platform schemas compiled by ajv at run time.
  const emulator = spawn(process.execPath, [bin, "emulator", "--port", "0", "--no-strict"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  try {
    let said = "";
    const url = await new Promise<string>((resolve, reject) => {
      emulator.stderr.on("data", (d: Buffer) => {
        said += d.toString("utf8");
        const m = /listening on (http:\/\/\S+)/.exec(said);
        if (m) resolve(m[1]!);
      });
      emulator.once("exit", (code) => reject(new Error(`carte emulator exited ${code}: ${said}`)));
    });
    const answer = await fetch(`${url}/restaurants/auth/v1/token/login/integrations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_id: "acme" }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ message: "client_secret is required" });
  } finally {
    emulator.kill();
  }
}, 60_000);
