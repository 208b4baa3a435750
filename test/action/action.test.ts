/**
 * The GitHub Action adapter, run in-process against the emulator (the platform) and a small fake of
 * GitHub's REST API on loopback (the pull-request comment). No mocking library: both are real servers.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runAction } from "../../src/action/main.js";
import { actionSecretsFile } from "../../src/action/masked-secrets.js";
import { commitAll } from "./harness.js";
import { fakeGitHub } from "./fake-github.js";
import { COMMENT_MARKER } from "../../src/action/comment.js";
import { STORE_WEBHOOK_EVENTS } from "../../src/platform/wire.js";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  edit,
  exampleAgainstEmulator,
  repoRoot,
  writes,
} from "../helpers/project.js";

const saved = { ...process.env };
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  process.env = { ...saved };
  // core.setFailed sets the exit code of the process running the Action: not of the test runner.
  process.exitCode = undefined;
  await cleanup?.();
  cleanup = undefined;
});

/** The step outputs written to $GITHUB_OUTPUT (`name<<DELIMITER\nvalue\nDELIMITER`), the last value of each. */
function stepOutputs(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of readFileSync(file, "utf8").matchAll(/^([^<\n]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)) {
    out[m[1]!] = m[3]!;
  }
  return out;
}

/** Runs the Action with standard output captured (where `::add-mask::` and `::error::` go). */
async function captured(): Promise<{ code: number; stdout: string }> {
  let stdout = "";
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return true;
  }) as typeof process.stdout.write;
  try {
    return { code: await runAction(), stdout };
  } finally {
    process.stdout.write = write;
  }
}

/** The part of a job summary written since `from` characters. */
const summarySince = (file: string, from: number) => readFileSync(file, "utf8").slice(from);

async function setup() {
  const fx = await exampleAgainstEmulator([
    "stores/bog-centro.yaml",
    "stores/bog-chapinero.yaml",
    "stores/med-poblado.yaml",
  ]);
  const gh = await fakeGitHub();
  const dir = mkdtempSync(path.join(tmpdir(), "carte-action-"));
  cleanup = async () => {
    gh.server.close();
    await fx.close();
    rmSync(dir, { recursive: true, force: true });
  };
  const event = path.join(dir, "event.json");
  writeFileSync(event, JSON.stringify({ pull_request: { number: 7 } }));
  // A summary file of each test's own: the Action reads GITHUB_STEP_SUMMARY afresh on every run.
  const files = { summary: path.join(dir, "summary.md"), output: path.join(dir, "output.txt") };
  writeFileSync(files.summary, "");
  writeFileSync(files.output, "");
  Object.assign(process.env, {
    CARTE_CLIENT_ID: CLIENT_ID,
    CARTE_CLIENT_SECRET: CLIENT_SECRET,
    GITHUB_API_URL: gh.url,
    GITHUB_REPOSITORY: "chain/menus",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: event,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_OUTPUT: files.output,
    INPUT_CONFIG: fx.config,
    INPUT_COMMENT: "true",
    "INPUT_GITHUB-TOKEN": "ghs_faketoken123456",
  });
  return { fx, gh, files };
}

describe("GitHub Action", () => {
  it("posts the plan as one pull-request comment, updated in place, with the full plan in the job summary", async () => {
    const { gh, files } = await setup();
    process.env.INPUT_COMMAND = "plan";
    expect(await runAction()).toBe(0);
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.body.startsWith(COMMENT_MARKER)).toBe(true);
    expect(gh.comments[0]!.body).toContain("to create");
    expect(readFileSync(files.output, "utf8")).toMatch(/has-changes<<.*\ntrue\n/);
    expect(readFileSync(files.summary, "utf8")).toContain("carte will perform the following actions");
    // The calls the plan made and their success rate, the measure the platform's terms bound.
    expect(readFileSync(files.summary, "utf8")).toMatch(
      /\n\d+ calls to the platform, 100\.0 % succeeded\.\n/,
    );

    // A second run (a new push) updates the same comment instead of adding one.
    expect(await runAction()).toBe(0);
    expect(gh.comments).toHaveLength(1);
    expect(gh.calls.filter((c) => c.startsWith("PATCH"))).toHaveLength(1);
    expect(gh.tokens.every((t) => t === "token ghs_faketoken123456")).toBe(true);
    for (const c of gh.comments) expect(c.body).not.toContain(CLIENT_SECRET);
  });

  it("input scope changed: reads only what the pull request's files touch, and the comment says so first", async () => {
    const { fx, gh } = await setup();
    commitAll(fx.dir, "the chain");
    edit(path.join(fx.dir, "stores/bog-centro.yaml"), "BURGER-CLASSIC: 25900", "BURGER-CLASSIC: 26900");
    Object.assign(process.env, { INPUT_COMMAND: "plan", INPUT_BASE: "main", INPUT_SCOPE: "changed" });
    fx.emu.clearRequests();
    expect(await runAction()).toBe(0);
    const reads = fx.emu.requests.filter((r) => !r.path.includes("/token/login/"));
    expect(reads.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /restaurants/menu/v1/stores/900101/store-menu",
    ]);
    const body = gh.comments[0]!.body;
    expect(body).toContain("> Plan scoped to the changes since main: 1 of 3 stores read (menu).\n");
    expect(body.indexOf("Plan scoped")).toBeLessThan(body.indexOf("**Plan: "));

    process.env.INPUT_SCOPE = "some";
    const bad = await captured();
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("input scope must be all or changed, got some");
  });

  it("applies on merge and reports no changes afterwards", async () => {
    const { fx, files } = await setup();
    process.env.INPUT_COMMAND = "apply";
    expect(await runAction()).toBe(0);
    // 51: the example's menus, availability (a toggle, and carte's marker in each store), hours,
    // holidays, special days, store availability and webhooks of three stores, and the client-level
    // webhook.
    expect(readFileSync(files.summary, "utf8")).toContain("Applied 51 API calls.");
    expect(readFileSync(files.summary, "utf8")).toMatch(
      /\n\d+ calls to the platform, 100\.0 % succeeded\.\n/,
    );
    fx.emu.clearRequests();
    process.env.INPUT_COMMAND = "plan";
    process.env.INPUT_COMMENT = "false";
    expect(await runAction()).toBe(0);
    expect(readFileSync(files.output, "utf8")).toMatch(/has-changes<<.*\nfalse\n/);
  });

  it("the stage input applies one stage of rollout: alone, with a stage heading in the job summary", async () => {
    const { fx, files } = await setup();
    writeFileSync(
      fx.config,
      readFileSync(fx.config, "utf8") + '\nrollout:\n  canary: [stores/bog-centro.yaml]\n  rest: "*"\n',
    );
    const touchesRest = (r: { path: string; body: unknown }) =>
      /900102|900201|bog-chapinero|med-poblado/.test(r.path + JSON.stringify(r.body ?? null));
    process.env.INPUT_COMMAND = "apply";
    process.env.INPUT_STAGE = "canary";
    fx.emu.clearRequests();
    let from = readFileSync(files.summary, "utf8").length;
    expect(await runAction()).toBe(0);
    expect(summarySince(files.summary, from)).toContain("#### Stage canary (1 store)");
    expect(summarySince(files.summary, from)).not.toContain("Stage rest");
    const canary = writes(fx.emu.requests);
    expect(canary.length).toBeGreaterThan(0);
    expect(canary.filter(touchesRest)).toEqual([]);

    process.env.INPUT_STAGE = "rest";
    fx.emu.clearRequests();
    from = readFileSync(files.summary, "utf8").length;
    expect(await runAction()).toBe(0);
    expect(summarySince(files.summary, from)).toContain("#### Stage rest (2 stores)");
    expect(writes(fx.emu.requests).filter(touchesRest).length).toBeGreaterThan(0);
    expect(writes(fx.emu.requests).filter((r) => r.path.includes("/900101/"))).toEqual([]);

    // Every stage applied: nothing left.
    delete process.env.INPUT_STAGE;
    process.env.INPUT_COMMAND = "plan";
    process.env.INPUT_COMMENT = "false";
    expect(await runAction()).toBe(0);
    expect(stepOutputs(files.output)["has-changes"]).toBe("false");
  });

  it("a configuration error sets exitcode 1, writes the located error to the job summary and fails the step", async () => {
    const { fx, files, gh } = await setup();
    edit(fx.config, /^version: 1$/m, "version: 1\nstorez: stores/*.yaml");
    process.env.INPUT_COMMAND = "plan";
    const before = readFileSync(files.summary, "utf8").length;
    const { code, stdout } = await captured();
    expect(code).toBe(1);
    // Outputs are set on every path: no plan, no changes.
    expect(stepOutputs(files.output)).toEqual({ "has-changes": "false", summary: "null", exitcode: "1" });
    const summary = summarySince(files.summary, before);
    expect(summary).toContain("carte plan");
    expect(summary).toContain("Failed with exit code 1");
    // The located problem: carte.yaml, the line of the unknown key, column 1.
    const line = readFileSync(fx.config, "utf8").split("\n").indexOf("storez: stores/*.yaml") + 1;
    expect(summary).toContain(`carte.yaml:${line}:1: unknown key "storez"`);
    // One annotation per problem, at its file and line; none unlocated repeating them, and the log
    // lists them once more as plain lines.
    expect(stdout.match(/^::error.*$/gm)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^::error title=carte configuration problem,file=[^,]*carte\\.yaml,line=${line},col=1::unknown key "storez"`,
        ),
      ),
    ]);
    expect(stdout).toContain(`carte.yaml:${line}:1: unknown key "storez"`);
    expect(process.exitCode).toBe(1);
    expect(fx.emu.requests).toEqual([]);
    // The pull request's comment is replaced by the problems, so that reviewers never read
    // an old plan as the current one.
    expect(gh.calls).toEqual([
      "GET /repos/chain/menus/issues/7/comments?per_page=100&page=1",
      "POST /repos/chain/menus/issues/7/comments",
    ]);
    expect(gh.comments[0]!.body).toContain("**The files have 1 configuration problem**");

    // A bad input is the same kind of failure: exitcode 1 and the cause in the summary.
    process.env.INPUT_COMMAND = "destroy";
    const bad = await captured();
    expect(bad.code).toBe(1);
    expect(stepOutputs(files.output).exitcode).toBe("1");
    expect(summarySince(files.summary, before)).toContain(
      "input command must be plan, apply, drift or report, got destroy",
    );
  });

  it("annotates a warning at its file and line, as a warning, and the plan goes on", async () => {
    const { fx, files } = await setup();
    // A switched-off item whose time has passed: the files stay valid, a warning says where.
    const store = path.join(fx.dir, "stores", "bog-centro.yaml");
    edit(
      store,
      "unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE]",
      "unavailable: [EXTRA-AVOCADO, { sku: SHAKE-AREQUIPE, until: 2020-01-01T00:00:00-05:00 }]",
    );
    const lines = readFileSync(store, "utf8").split("\n");
    const line = lines.findIndex((l) => l.includes("{ sku: SHAKE-AREQUIPE")) + 1;
    const col = lines[line - 1]!.indexOf("{ sku: SHAKE-AREQUIPE") + 1;
    Object.assign(process.env, { INPUT_COMMAND: "plan", INPUT_COMMENT: "false" });
    const { code, stdout } = await captured();
    expect(code).toBe(0);
    expect(stepOutputs(files.output).exitcode).toBe("0");
    // One annotation, a warning, at the entry's file, line and column; its words without the place,
    // which the annotation carries.
    expect(stdout.match(/^::(warning|error).*$/gm)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^::warning title=carte warning,file=[^,]*stores/bog-centro\\.yaml,line=${line},(endLine=${line},)?col=${col}(,endColumn=\\d+)?::` +
            `"SHAKE-AREQUIPE" is switched off until "2020-01-01T00:00:00-05:00", which has passed`,
        ),
      ),
    ]);
  });

  it("Action secrets test: a webhook secret goes, masked, to the secrets file when one is named and to no step output; to the masked step output only when none is", async () => {
    const { fx, files } = await setup();
    // carte.yaml `secrets_file:` names the file (the input `secrets-file` and CARTE_SECRETS_FILE come
    // first: see the next test). Its folder exists: creating it is the secrets module's business.
    mkdirSync(path.join(fx.dir, "secrets"));
    edit(fx.config, /^version: 1$/m, "version: 1\nsecrets_file: secrets/webhook-secrets.yaml");
    const secretsFile = path.join(fx.dir, "secrets", "webhook-secrets.yaml");
    process.env.INPUT_COMMAND = "apply";
    const before = readFileSync(files.summary, "utf8").length;
    const first = await captured();
    expect(first.code, first.stdout).toBe(0);

    // The example chain creates three webhooks, each with its own secret.
    const events = ["MENU_APPROVED", "MENU_REJECTED", "NEW_ORDER"];
    const saved = parse(readFileSync(secretsFile, "utf8")) as Record<string, string>;
    expect(Object.keys(saved).sort()).toEqual(events);
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
    // A secrets file is named: the step outputs hold none of the secrets, not even masked.
    const outputs = readFileSync(files.output, "utf8");
    expect(outputs).not.toContain("webhook_secret_");
    for (const e of events) {
      expect(saved[e]).toMatch(/^[0-9a-f]{48}$/);
      expect(outputs).not.toContain(saved[e]);
    }
    expect(stepOutputs(files.output).exitcode).toBe("0");
    // Standard output shows each secret once: in its mask command.
    const lines = first.stdout.split("\n");
    for (const e of events) {
      expect(lines.filter((l) => l.includes(saved[e]!))).toEqual([`::add-mask::${saved[e]}`]);
    }
    const summary = summarySince(files.summary, before);
    expect(summary).toContain("Apply complete");
    for (const secret of [...Object.values(saved), CLIENT_SECRET]) expect(summary).not.toContain(secret);

    // Without any secrets file, a new webhook's secret is still never dropped: the masked output has it.
    edit(fx.config, "\nsecrets_file: secrets/webhook-secrets.yaml", "");
    edit(
      fx.config,
      "    MENU_REJECTED: http://localhost:8080/hooks/menu-rejected\n",
      "    MENU_REJECTED: http://localhost:8080/hooks/menu-rejected\n    PING: https://hooks.example.com/ping\n",
    );
    fx.emu.clearRequests();
    const from = readFileSync(files.summary, "utf8").length;
    const second = await captured();
    expect(second.code, second.stdout).toBe(0);
    expect(writes(fx.emu.requests).length).toBeGreaterThan(0);
    const secretOutputs = Object.entries(stepOutputs(files.output)).filter(([k]) =>
      k.startsWith("webhook_secret_"),
    );
    expect(secretOutputs.map(([k]) => k)).toEqual(["webhook_secret_PING"]);
    const ping = secretOutputs[0]![1];
    expect(ping).toMatch(/^[0-9a-f]{48}$/);
    expect(second.stdout.split("\n").filter((l) => l.includes(ping))).toEqual([`::add-mask::${ping}`]);
    expect(summarySince(files.summary, from)).not.toContain(ping);
    expect(Object.keys(parse(readFileSync(secretsFile, "utf8")) as object).sort()).toEqual(events);
  });

  it("the Action's secrets file: the input secrets-file, else CARTE_SECRETS_FILE, else carte.yaml secrets_file:", () => {
    const where = (input: string, env: NodeJS.ProcessEnv) =>
      actionSecretsFile({ input, env, configured: "/p/from-carte.json" })?.where("PING");
    expect(where("in.json", { CARTE_SECRETS_FILE: "env.json" })).toBe("in.json");
    expect(where("", { CARTE_SECRETS_FILE: "env.json" })).toBe("env.json");
    expect(where("", {})).toBe("/p/from-carte.json");
    expect(actionSecretsFile({ input: "", env: {}, configured: undefined })).toBeUndefined();
  });

  it("action.yml declares the secrets-file input and one masked output per webhook event", () => {
    // A JavaScript action: the runner passes every input as INPUT_<NAME> and takes every
    // output the bundle sets; no step maps them.
    const spec = parse(readFileSync(path.join(repoRoot, "action.yml"), "utf8")) as {
      inputs: Record<string, unknown>;
      outputs: Record<string, { description: string }>;
      runs: { using: string; main: string };
    };
    expect(spec.inputs).toHaveProperty("secrets-file");
    expect(spec.runs).toEqual({ using: "node24", main: "dist-action/index.js" });
    const declared = Object.keys(spec.outputs).filter((k) => k.startsWith("webhook_secret_"));
    expect(declared.sort()).toEqual(STORE_WEBHOOK_EVENTS.map((e) => `webhook_secret_${e}`).sort());
  });
});
