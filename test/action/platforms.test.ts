/**
 * The Action on a project of two platforms (Colombia and Brazil, carte.yaml `platforms:`), each on
 * its own embedded emulator: one comment with a section per platform in its own currency, the
 * credentials of both countries masked, the input `platform` limiting the run, the success rate of
 * each platform in the job summary, a platform that is down leaving the other's plan shown, and the
 * run records of a matrix over platforms merged by the report command.
 */

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runAction } from "../../src/action/main.js";
import { COMMENT_MARKER } from "../../src/action/comment.js";
import { fakeGitHub } from "./fake-github.js";
import { edit, repoRoot } from "../helpers/project.js";
import { commitAll, fakeGitHub as harnessGitHub, git, runBundle } from "./harness.js";

const saved = { ...process.env };
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  process.env = { ...saved };
  process.exitCode = undefined;
  await cleanup?.();
  cleanup = undefined;
});

/** The credentials of both countries, as a workflow maps its secrets to them. */
const SECRETS = {
  CARTE_CO_CLIENT_ID: "co-client-7f3a91",
  CARTE_CO_CLIENT_SECRET: "co-secret-do-not-print-5b2c8d0e",
  CARTE_CO_DEV_CLIENT_ID: "co-dev-client-19ab",
  CARTE_CO_DEV_CLIENT_SECRET: "co-dev-secret-do-not-print-77e1",
  // Brazil's names are carte.yaml's own, not the defaults.
  CHAIN_BR_ID: "br-client-3c4d5e",
  CHAIN_BR_SECRET: "br-secret-do-not-print-a9f0b1c2",
};

const CARTE_YAML = `version: 1
platforms:
  co:
    country: CO
    currency: COP
    language: es
    development:
      stores:
        bog-centro: { id: 990101, integration_id: test-bog-centro }
  br:
    country: BR
    currency: BRL
    language: pt
    credentials:
      client_id: CHAIN_BR_ID
      client_secret: CHAIN_BR_SECRET
stores: stores/*.yaml
catalogs: catalogs/*.yaml
`;

const CATALOG = `name: burgers
items:
  - sku: BURGER-CLASSIC
    title: Hamburguesa Clásica
    price: { COP: 24900, BRL: 29.90 }
    translations: { pt: { title: Hambúrguer Clássico } }
  - { sku: FRIES, title: Papas, price: { COP: 7900, BRL: 9.50 } }
categories:
  - { sku: BURGERS, title: Hamburguesas, items: [BURGER-CLASSIC, FRIES] }
menus:
  - { type: DEFAULT, categories: [BURGERS] }
`;

/** A two-platform project: one store in Bogotá (co), one in São Paulo (br). */
function twoCountries(carteYaml = CARTE_YAML): { dir: string; config: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "carte-action-platforms-"));
  const files: Record<string, string> = {
    "carte.yaml": carteYaml,
    "catalogs/burgers.yaml": CATALOG,
    "stores/bog-centro.yaml":
      "store: { id: 900101, integration_id: bog-centro, name: Bogotá Centro }\ncatalog: burgers\nplatform: co\n",
    "stores/sp-paulista.yaml":
      "store: { id: 800101, integration_id: sp-paulista, name: São Paulo Paulista }\ncatalog: burgers\nplatform: br\n",
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return { dir, config: path.join(dir, "carte.yaml") };
}

/** The runner's environment for a pull request's plan of the project at `config`. */
async function setup(carteYaml?: string) {
  const fx = twoCountries(carteYaml);
  const gh = await fakeGitHub();
  cleanup = async () => {
    gh.server.close();
    rmSync(fx.dir, { recursive: true, force: true });
  };
  const event = path.join(fx.dir, "event.json");
  writeFileSync(event, JSON.stringify({ pull_request: { number: 7 } }));
  const files = { summary: path.join(fx.dir, "summary.md"), output: path.join(fx.dir, "output.txt") };
  writeFileSync(files.summary, "");
  writeFileSync(files.output, "");
  for (const k of Object.keys(process.env)) if (/CLIENT_(ID|SECRET)$/.test(k)) delete process.env[k];
  Object.assign(process.env, SECRETS, {
    GITHUB_API_URL: gh.url,
    GITHUB_REPOSITORY: "chain/menus",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: event,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_OUTPUT: files.output,
    INPUT_COMMAND: "plan",
    INPUT_CONFIG: fx.config,
    INPUT_COMMENT: "true",
    "INPUT_GITHUB-TOKEN": "ghs_faketoken123456",
  });
  return { ...fx, gh, files };
}

/** Runs the Action with standard output captured (where `::add-mask::` goes). */
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

describe("the Action on a project of two platforms", () => {
  it("masks the credentials of every platform, production's and the development host's, before anything is logged", async () => {
    const { gh, files } = await setup();
    const { stdout } = await captured();
    for (const value of Object.values(SECRETS)) expect(stdout).toContain(`::add-mask::${value}\n`);
    // Masked first: no line of the log comes before the masks.
    const lastMask = stdout.lastIndexOf("::add-mask::");
    expect(
      stdout
        .slice(0, lastMask)
        .split("\n")
        .every((l) => l === "" || l.startsWith("::add-mask::")),
    ).toBe(true);
    const written = [stdout.replace(/::add-mask::.*\n/g, ""), readFileSync(files.summary, "utf8")].concat(
      gh.comments.map((c) => c.body),
    );
    for (const value of Object.values(SECRETS)) for (const w of written) expect(w).not.toContain(value);
  });

  it("posts one comment with a section per platform, each in its own currency, and the success rate of each in the job summary", async () => {
    const { gh, files } = await setup();
    const { code } = await captured();
    expect(code).toBe(0);
    expect(gh.comments).toHaveLength(1);
    const body = gh.comments[0]!.body;
    expect(body.startsWith(COMMENT_MARKER)).toBe(true);
    const co = body.indexOf("Platform co — Colombia, COP");
    const br = body.indexOf("Platform br — Brazil, BRL");
    expect(co).toBeGreaterThan(0);
    expect(br).toBeGreaterThan(co);
    expect(body.slice(co, br)).toContain("$24.900");
    expect(body.slice(co, br)).not.toContain("R$");
    expect(body.slice(br)).toContain("R$ 29,90");
    expect(body.slice(br)).toContain("Hambúrguer Clássico");
    const summary = readFileSync(files.summary, "utf8");
    expect(summary).toMatch(/co: \d+ calls to the platform, 100\.0 % succeeded\./);
    expect(summary).toMatch(/br: \d+ calls to the platform, 100\.0 % succeeded\./);
    const outputs = readFileSync(files.output, "utf8");
    expect(outputs).toMatch(/has-changes<<.*\ntrue\n/);
  });

  it("input platform limits the run to the platforms it names", async () => {
    const { dir, gh, files } = await setup();
    process.env.INPUT_PLATFORM = "co";
    const { code } = await captured();
    expect(code).toBe(0);
    const body = gh.comments[0]!.body;
    expect(body).toContain("Platform co — Colombia, COP");
    expect(body).not.toContain("Platform br");
    expect(body).not.toContain("sp-paulista");
    const summary = readFileSync(files.summary, "utf8");
    expect(summary).toMatch(/co: \d+ calls to the platform/);
    expect(summary).not.toMatch(/br: \d+ calls/);
    // Brazil's embedded emulator was never started.
    expect(existsSync(path.join(dir, ".carte", "platforms", "br"))).toBe(false);

    process.env.INPUT_PLATFORM = "co, ar";
    const bad = await captured();
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("has no platform ar (its platforms: co, br)");
    // A name that would be a workflow command is refused as a name, quoted.
    process.env.INPUT_PLATFORM = "co,::error::x";
    const hostile = await captured();
    expect(hostile.code).toBe(1);
    expect(hostile.stdout).toContain('input platform: "::error::x" is not a platform name');
    expect(hostile.stdout).not.toMatch(/^::error::x/m);
  });

  it("a platform that is down fails its own section; the other platform's plan is still shown", async () => {
    // Brazil's host answers nothing: a closed port on loopback.
    const down = CARTE_YAML.replace(
      "    currency: BRL\n",
      "    currency: BRL\n    base_url: http://127.0.0.1:9\n    allow_insecure_http: true\n",
    );
    const { gh } = await setup(down);
    const { code } = await captured();
    expect(code).toBe(1);
    const body = gh.comments[0]!.body;
    const br = body.indexOf("Platform br");
    expect(body.indexOf("Platform co — Colombia, COP")).toBeGreaterThan(0);
    expect(body).toContain("$24.900");
    expect(br).toBeGreaterThan(0);
    expect(body.slice(br)).toContain("Failed with exit code 1");
  });

  it("applies each platform in turn, with the success rate of each in the job summary; a plan afterwards has no changes in either section", async () => {
    const { dir, config, gh, files } = await setup();
    // A webhook in each country: each platform makes its own signing secret.
    writeFileSync(
      config,
      readFileSync(config, "utf8") +
        "defaults:\n  webhooks:\n    NEW_ORDER: https://hooks.example/new-order\n",
    );
    process.env.GITHUB_EVENT_NAME = "workflow_dispatch";
    writeFileSync(process.env.GITHUB_EVENT_PATH!, "{}");
    process.env.INPUT_COMMAND = "apply";
    process.env["INPUT_SECRETS-FILE"] = path.join(dir, "webhook-secrets.json");
    const { code } = await captured();
    expect(code).toBe(0);
    const summary = readFileSync(files.summary, "utf8");
    const co = summary.indexOf("Platform co — Colombia, COP");
    const br = summary.indexOf("Platform br — Brazil, BRL");
    expect(co).toBeGreaterThan(0);
    expect(br).toBeGreaterThan(co);
    expect(summary.slice(co, br)).toMatch(/co: \d+ calls to the platform, 100\.0 % succeeded\./);
    expect(summary.slice(br)).toMatch(/br: \d+ calls to the platform, 100\.0 % succeeded\./);
    expect(existsSync(path.join(dir, ".carte", "platforms", "co"))).toBe(true);
    expect(existsSync(path.join(dir, ".carte", "platforms", "br"))).toBe(true);
    // Each country's webhook secret in a file of its own: one never replaces the other's.
    const secrets = (p: string) =>
      JSON.parse(readFileSync(path.join(dir, `webhook-secrets.${p}.json`), "utf8")) as Record<string, string>;
    expect(Object.keys(secrets("co"))).toEqual(["NEW_ORDER"]);
    expect(Object.keys(secrets("br"))).toEqual(["NEW_ORDER"]);
    expect(secrets("co").NEW_ORDER).not.toBe(secrets("br").NEW_ORDER);
    expect(existsSync(path.join(dir, "webhook-secrets.json"))).toBe(false);

    Object.assign(process.env, { GITHUB_EVENT_NAME: "pull_request", INPUT_COMMAND: "plan" });
    writeFileSync(process.env.GITHUB_EVENT_PATH!, JSON.stringify({ pull_request: { number: 7 } }));
    expect((await captured()).code).toBe(0);
    const body = gh.comments[0]!.body;
    expect(body.match(/\*\*No changes\.\*\*/g)).toHaveLength(2);
    expect(readFileSync(files.output, "utf8")).toMatch(
      /has-changes<<.*\nfalse\n(?![\s\S]*has-changes<<.*\ntrue)/,
    );
  });

  it("input rehearsal applies to the development host of each platform that has one, its test stores in place of production's", async () => {
    const { dir, files } = await setup();
    process.env.GITHUB_EVENT_NAME = "pull_request";
    Object.assign(process.env, { INPUT_COMMAND: "apply", INPUT_REHEARSAL: "true" });
    process.env["INPUT_SECRETS-FILE"] = path.join(dir, "webhook-secrets.json");
    const { code } = await captured();
    expect(code).toBe(0);
    const summary = readFileSync(files.summary, "utf8");
    expect(summary).toContain("Platform co, rehearsal on its development host — Colombia, COP");
    expect(summary).toContain("test-bog-centro");
    // Brazil has no development host; production was not touched.
    expect(summary).not.toContain("Platform br");
    expect(existsSync(path.join(dir, ".carte", "platforms", "co-development"))).toBe(true);
    expect(existsSync(path.join(dir, ".carte", "platforms", "co"))).toBe(false);
    expect(existsSync(path.join(dir, ".carte", "platforms", "br"))).toBe(false);
  });

  it("a matrix over platforms: each job writes its run record, the report merges them into one comment of both sections", async () => {
    const { dir, gh } = await setup();
    // Each platform's job leaves the comment to the report job, as a shard does.
    for (const p of ["co", "br"]) {
      process.env.INPUT_PLATFORM = p;
      process.env["INPUT_PLAN-OUT"] = path.join(dir, "runs", `carte-run-${p}.json`);
      expect((await captured()).code).toBe(0);
    }
    expect(gh.comments).toHaveLength(0);
    // A record holds one platform's run: a job of both platforms that would write one is refused.
    delete process.env.INPUT_PLATFORM;
    const both = await captured();
    expect(both.code).toBe(1);
    expect(both.stdout).toContain("a run record (input plan-out or shard) holds one platform's run");
    delete process.env["INPUT_PLAN-OUT"];
    Object.assign(process.env, {
      INPUT_COMMAND: "report",
      INPUT_COMMENT: "true",
      INPUT_PLANS: path.join(dir, "runs", "*.json"),
    });
    expect((await captured()).code).toBe(0);
    const body = gh.comments[0]!.body;
    // The sections in the order of the platforms' names.
    expect(body.indexOf("Platform br — Brazil, BRL")).toBeGreaterThan(0);
    expect(body.indexOf("Platform co — Colombia, COP")).toBeGreaterThan(body.indexOf("Platform br"));
    expect(body).toContain("R$ 29,90");
    expect(body).toContain("$24.900");
  });
});

describe("the bundled Action (dist-action/index.js, as the runner starts it)", () => {
  it("plans both platforms into one comment of two sections, the credentials of both countries masked", async () => {
    const fx = twoCountries();
    const gh = await harnessGitHub();
    cleanup = async () => {
      gh.close();
      rmSync(fx.dir, { recursive: true, force: true });
    };
    const run = await runBundle({
      workspace: fx.dir,
      inputs: { command: "plan", config: "carte.yaml", "github-token": "ghs_faketoken123456", base: "none" },
      event: { name: "pull_request", payload: { pull_request: { number: 7 } } },
      github: gh,
      env: SECRETS,
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    for (const value of Object.values(SECRETS)) expect(run.stdout).toContain(`::add-mask::${value}\n`);
    const body = gh.comments.find((c) => c.issue === 7)!.body;
    expect(body.indexOf("Platform co — Colombia, COP")).toBeGreaterThan(0);
    expect(body.indexOf("Platform br — Brazil, BRL")).toBeGreaterThan(body.indexOf("Platform co"));
    expect(run.summary).toMatch(/br: \d+ calls to the platform, 100\.0 % succeeded\./);
    for (const value of Object.values(SECRETS)) {
      expect(body).not.toContain(value);
      expect(run.summary).not.toContain(value);
    }
  });
});

describe("the merge of a pull request planned across two platforms", () => {
  it("applies each platform's reviewed changes, with one reviewed-plan record for both, and one apply comment per platform", async () => {
    const { dir } = await setup();
    const gh = await harnessGitHub();
    const before = cleanup;
    cleanup = async () => {
      gh.close();
      await before?.();
    };
    const baseSha = commitAll(dir, "the chain");
    git(dir, "checkout", "-q", "-b", "pr7");
    edit(path.join(dir, "catalogs/burgers.yaml"), "{ COP: 7900, BRL: 9.50 }", "{ COP: 8900, BRL: 10.50 }");
    const head = commitAll(dir, "fries cost more");
    const key = "the review key of these tests, a secret of 32+ characters";
    Object.assign(process.env, {
      GITHUB_API_URL: gh.url,
      GITHUB_WORKSPACE: dir,
      INPUT_BASE: "none",
      "INPUT_REVIEW-KEY": key,
    });
    writeFileSync(
      process.env.GITHUB_EVENT_PATH!,
      JSON.stringify({
        pull_request: { number: 7, head: { sha: head }, base: { sha: baseSha, ref: "main" } },
      }),
    );
    expect((await captured()).code).toBe(0);
    const comment = gh.comments.find((c) => c.issue === 7)!.body;
    expect(comment.trimEnd().split("\n").at(-1)).toMatch(
      /^<!-- carte-reviewed v2 pr=7 head=[0-9a-f]{40} n=8 /,
    );

    git(dir, "checkout", "-q", "main");
    git(dir, "merge", "-q", "--no-ff", "-m", "Merge pull request #7", "pr7");
    const mergeSha = git(dir, "rev-parse", "HEAD");
    gh.pullsOfCommit.set(mergeSha, [
      {
        number: 7,
        state: "closed",
        merged_at: "2025-01-01T10:00:00Z",
        head: { sha: head },
        base: { ref: "main" },
      },
    ]);
    writeFileSync(process.env.GITHUB_EVENT_PATH!, JSON.stringify({ after: mergeSha }));
    Object.assign(process.env, {
      GITHUB_EVENT_NAME: "push",
      GITHUB_SHA: mergeSha,
      GITHUB_REF: "refs/heads/main",
      INPUT_COMMAND: "apply",
      "INPUT_GIT-LOCK": "false",
      "INPUT_SECRETS-FILE": path.join(dir, "webhook-secrets.json"),
    });
    const merged = await captured();
    expect(merged.code, merged.stdout).toBe(0);
    const applied = gh.comments.filter((c) => c.body.startsWith("<!-- carte-apply platform="));
    expect(applied.map((c) => c.body.split("\n")[0])).toEqual([
      "<!-- carte-apply platform=co -->",
      "<!-- carte-apply platform=br -->",
    ]);
    expect(applied[0]!.body).toContain("carte apply (platform co)");
    expect(applied[1]!.body).toContain("carte apply (platform br)");
    for (const c of applied) expect(c.body).toContain("**Apply complete**");
  });
});

describe("drift across two platforms", () => {
  it("checks every platform and keeps one drift issue, a section per platform in its own currency", async () => {
    const { dir } = await setup();
    const gh = await harnessGitHub();
    const before = cleanup;
    cleanup = async () => {
      gh.close();
      await before?.();
    };
    // Only Brazil's store differs from the files: Colombia's was applied.
    Object.assign(process.env, {
      GITHUB_API_URL: gh.url,
      GITHUB_EVENT_NAME: "workflow_dispatch",
      INPUT_COMMAND: "apply",
      INPUT_PLATFORM: "co",
      "INPUT_GIT-LOCK": "false",
      "INPUT_SECRETS-FILE": path.join(dir, "webhook-secrets.json"),
    });
    writeFileSync(process.env.GITHUB_EVENT_PATH!, "{}");
    expect((await captured()).code).toBe(0);
    Object.assign(process.env, { GITHUB_EVENT_NAME: "schedule", INPUT_COMMAND: "drift", INPUT_PLATFORM: "" });
    const drift = await captured();
    expect(drift.code, drift.stdout).toBe(2);
    expect(gh.issues).toHaveLength(1);
    const body = gh.issues[0]!.body;
    const co = body.indexOf("Platform co — Colombia, COP");
    const br = body.indexOf("Platform br — Brazil, BRL");
    expect(co).toBeGreaterThan(0);
    expect(br).toBeGreaterThan(co);
    expect(body.slice(co, br)).toContain("**No drift**");
    expect(body.slice(br)).toContain("R$ 29,90");
    expect(body.slice(br)).toContain("sp-paulista");
  });
});

describe("docs/workflows/carte-rehearsal.yml", () => {
  const workflow = () =>
    parse(readFileSync(path.join(repoRoot, "docs", "workflows", "carte-rehearsal.yml"), "utf8")) as {
      on: Record<string, unknown>;
      jobs: Record<
        string,
        {
          if?: string;
          concurrency?: { group?: string; "cancel-in-progress"?: unknown };
          strategy?: { matrix?: { platform?: string[] } };
          steps: { uses?: string; with?: Record<string, unknown>; env?: Record<string, string> }[];
        }
      >;
    };
  const carteStep = (job: { steps: { uses?: string; with?: Record<string, unknown> }[] }) =>
    job.steps.find((s) => /\/carte@/.test(s.uses ?? ""))!;

  it("on a pull request: applies the change to the development host in its own concurrency group, and plans production", () => {
    const wf = workflow();
    expect(Object.keys(wf.on).sort()).toEqual(["pull_request", "push"]);
    const jobs = Object.values(wf.jobs);
    const rehearse = jobs.find((j) => carteStep(j)?.with?.rehearsal === true)!;
    expect(rehearse).toBeDefined();
    expect(rehearse.if).toContain("pull_request");
    expect(carteStep(rehearse).with?.command).toBe("apply");
    expect(rehearse.concurrency?.group).toMatch(/rehearsal/);
    expect(rehearse.concurrency?.["cancel-in-progress"]).toBe(false);
    // Production is planned, never applied, on the pull request.
    const plans = jobs.filter((j) => j !== rehearse && String(carteStep(j)?.with?.command).includes("plan"));
    expect(plans.length).toBeGreaterThan(0);
    for (const j of plans) expect(carteStep(j).with?.rehearsal).toBeUndefined();
  });

  it("on the merge to main: applies production; each country's secrets go to its own variables", () => {
    const wf = workflow();
    expect((wf.on.push as { branches: string[] }).branches).toEqual(["main"]);
    const text = readFileSync(path.join(repoRoot, "docs", "workflows", "carte-rehearsal.yml"), "utf8");
    const apply = Object.values(wf.jobs).find(
      (j) => !j.if?.includes("pull_request") && String(carteStep(j)?.with?.command).includes("'apply'"),
    )!;
    expect(apply).toBeDefined();
    expect(carteStep(apply).with?.command).toBe(
      "${{ github.event_name == 'pull_request' && 'plan' || 'apply' }}",
    );
    expect(carteStep(apply).with?.rehearsal).toBeUndefined();
    // Sharded by country: a matrix over the platforms, each job of one.
    expect(apply.strategy?.matrix?.platform).toEqual(["co", "br"]);
    expect(carteStep(apply).with?.platform).toBe("${{ matrix.platform }}");
    // Each country's job gets its own country's credentials only.
    const env = (carteStep(apply) as { env?: Record<string, string> }).env ?? {};
    for (const [country, name] of [
      ["co", "CARTE_CO_CLIENT_SECRET"],
      ["br", "CARTE_BR_CLIENT_SECRET"],
    ] as const) {
      expect(env[name]).toBe(`\${{ matrix.platform == '${country}' && secrets.${name} || '' }}`);
    }
    expect(text).toContain("CARTE_CO_DEV_CLIENT_SECRET: ${{ secrets.CARTE_CO_DEV_CLIENT_SECRET }}");
  });
});
