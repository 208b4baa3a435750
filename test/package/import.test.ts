/**
 * The built package works by its name. A consumer folder whose node_modules/@carte-oss/carte is a
 * link to this repository imports `@carte-oss/carte` (resolved through package.json `exports` to dist/index.js,
 * built by `npm run build`), loads a copy of examples/chain, plans against the embedded emulator,
 * renders the plan as text, applies it, plans "No changes" and checks the exit codes, in a separate
 * Node process. A second check imports `carte` from the repository itself (a package self-reference).
 */

import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { copyExample, repoRoot } from "../helpers/project.js";

/** Runs Node on a module file or `-e` source in `cwd`; resolves with its exit code and output. */
function node(args: string[], cwd: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    // No credentials: the embedded emulator uses its own.
    const env = { ...process.env };
    delete env.CARTE_CLIENT_ID;
    delete env.CARTE_CLIENT_SECRET;
    delete env.CARTE_SECRETS_FILE;
    const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, out, err }));
  });
}

/** What the consumer does with the package; prints one JSON line of facts. */
const CONSUMER = `
import * as carte from "@carte-oss/carte";
import { readFileSync } from "node:fs";
const {
  ConfigError, ExitCode, UnsafePlanError, exitCodeFor, loadProject, renderReport, renderText, runCarte,
  secretsFileSink, startEmulator,
} = carte;
const [config, secrets] = process.argv.slice(2);
const facts = { exports: Object.keys(carte).sort() };

const project = await loadProject(config);
facts.stores = Object.keys(project.desired.stores);

const first = await runCarte({ command: "plan", config, detailedExitCode: true });
facts.firstExit = first.exitCode;
facts.firstError = first.error === undefined ? null : String(first.error);
facts.firstText = renderText(first.plan, { color: false });

const applied = await runCarte({ command: "apply", config, secrets: () => secretsFileSink(secrets) });
facts.applyExit = applied.exitCode;
facts.applyError = applied.error === undefined ? null : String(applied.error);
facts.applyText = renderReport(applied.plan, applied.report, applied.applyMs);
facts.secretEvents = Object.keys(JSON.parse(readFileSync(secrets, "utf8"))).sort();

const again = await runCarte({ command: "plan", config, detailedExitCode: true });
facts.againExit = again.exitCode;
facts.againText = renderText(again.plan, { color: false });

const missing = await runCarte({ command: "plan", config: config + ".missing" });
facts.missingExit = missing.exitCode;
facts.missingIsConfigError = missing.error instanceof ConfigError;

facts.exitCodes = ExitCode;
facts.unsafeExit = exitCodeFor(new UnsafePlanError("max_delete_percent", "too much"));
const emulator = await startEmulator({ port: 0 });
facts.emulatorAnswers = (await fetch(emulator.url + "/restaurants/auth/v1/token/login/integrations", {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ client_id: "nobody", client_secret: "nothing" }),
})).status;
await emulator.close();
console.log(JSON.stringify(facts));
`;

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

describe("the carte package", () => {
  it("package.json points at the built entry point and its types", () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
      name: string;
      main: string;
      types: string;
      exports: { ".": { types: string; default: string } };
    };
    expect(pkg.name).toBe("@carte-oss/carte");
    for (const file of [pkg.main, pkg.types, pkg.exports["."].default, pkg.exports["."].types]) {
      expect(existsSync(path.join(repoRoot, file)), `${file} (run npm run build)`).toBe(true);
    }
  });

  it("is imported by its name from another folder and plans, renders and applies the example chain", async () => {
    const consumer = mkdtempSync(path.join(tmpdir(), "carte-consumer-"));
    const project = copyExample();
    cleanup = () => {
      rmSync(consumer, { recursive: true, force: true });
      rmSync(project, { recursive: true, force: true });
    };
    mkdirSync(path.join(consumer, "node_modules", "@carte-oss"), { recursive: true });
    symlinkSync(repoRoot, path.join(consumer, "node_modules", "@carte-oss", "carte"), "dir");
    writeFileSync(path.join(consumer, "package.json"), JSON.stringify({ type: "module", private: true }));
    writeFileSync(path.join(consumer, "consumer.mjs"), CONSUMER);
    const secrets = path.join(project, "webhook-secrets.json");

    const run = await node(["consumer.mjs", path.join(project, "carte.yaml"), secrets], consumer);
    expect(run.code, run.err).toBe(0);
    const facts = JSON.parse(run.out) as Record<string, unknown>;

    expect(facts.exports).toEqual(
      expect.arrayContaining([
        "runCarte",
        "loadProject",
        "openSession",
        "planProject",
        "fetchProjectState",
        "buildPlan",
        "applyPlan",
        "renderText",
        "renderMarkdown",
        "renderJson",
        "buildView",
        "describeTarget",
        "renderReport",
        "renderReportMarkdown",
        "startEmulator",
        "ConfigError",
        "ApiError",
        "UnsafePlanError",
        "ExitCode",
      ]),
    );
    expect(facts.stores).toEqual(["bog-centro", "bog-chapinero", "med-poblado"]);
    // A fresh embedded emulator: the plan has changes, exit code 2 with detailedExitCode.
    expect(facts.firstError).toBeNull();
    expect(facts.firstExit).toBe(2);
    expect(facts.firstText).toMatch(
      /^Plan: \d+ to create, \d+ to update, 0 to delete in 3 stores \(each day of hours counted apart\); \d+ API calls \(--show-calls lists them\)\.$/m,
    );
    expect(facts.firstText).toContain("store[bog-centro]");
    expect(facts.applyError).toBeNull();
    expect(facts.applyExit).toBe(0);
    expect(facts.applyText).toContain("Apply complete");
    expect(facts.secretEvents).toEqual(["MENU_APPROVED", "MENU_REJECTED", "NEW_ORDER"]);
    expect(facts.againExit).toBe(0);
    expect(facts.againText).toBe("No changes. The platform matches the configuration.\n");
    expect(facts.missingExit).toBe(1);
    expect(facts.missingIsConfigError).toBe(true);
    expect(facts.exitCodes).toEqual({ ok: 0, error: 1, changes: 2, discrepancy: 2, unsafe: 3 });
    expect(facts.unsafeExit).toBe(3);
    expect(facts.emulatorAnswers).toBe(401);
  });

  it("is imported by its name from inside the repository (package self-reference)", async () => {
    const run = await node(
      [
        "--input-type=module",
        "-e",
        'const m = await import("@carte-oss/carte"); console.log(typeof m.runCarte, typeof m.ExitCode.unsafe)',
      ],
      repoRoot,
    );
    expect(run.code, run.err).toBe(0);
    expect(run.out).toBe("function number\n");
  });
});
