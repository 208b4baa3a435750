// Benchmark of a sharded plan in the GitHub Action (docs/performance.md "Sharded plans"): the chain of
// scripts/bench-plan.mjs planned by a matrix of N jobs, then the report job merging their N run records.
//
// Usage: npm run bench:shards -- [--stores N] [--shards N] [--entries M] [--latency MS] [--preview P]
//                                [--repeat R] [--parallelism P]
//   --stores N        stores of the generated chain (default 100)
//   --shards N        jobs of the matrix: input shard K/N for K = 1…N (default 10)
//   --entries M       catalog entries per store, as bench:plan (default 616)
//   --latency MS      latency the emulator adds to every answer during the shards' plans (default 20)
//   --preview P       the shards' input preview: changed (default, the sharded workflow's) or all
//   --repeat R        run every shard and the report R times; each figure is the median (default 1)
//   --parallelism P   the apply from empty that makes the stores (default 8). The Action has no input
//                     for it: its plans call the platform at carte's default parallelism, 16.
//
// What it does, each step in its own process, against one emulator in its own process (bench-plan.mjs's
// emulator child, which also counts the requests):
//   1. writes the chain (`bench-plan.mjs --generate-only`) and applies it from empty at latency 0
//      (bench-plan.mjs's carte child: setup, not timed);
//   2. commits it on `main` in a git repository (the pull request's base), then on branch `pr` changes
//      one option's price in the shared catalog, so that every store has one change, and commits it
//      (the pull request's head, checked out as actions/checkout leaves it);
//   3. for K = 1…N, a process that runs the Action's `command: plan` with input `shard: K/N` on
//      pull request 7 in-process (src/action/main.ts `runAction`, as test/action/preview.test.ts does):
//      the runner's environment and event payload, the review key set, the preview uploaded to a fake
//      of the artifact client that counts its files and bytes and answers an artifact id of its own.
//      Its wall time (process start included), the Action's own time until the preview began (loading
//      both commits, reading, planning) and writing the preview, peak RSS, reads, run record, job
//      summary, log, preview;
//   4. a process that runs `command: report` with input `plans: carte-runs/*.json` in a folder holding
//      the N records only (the report job downloads the artifacts, it checks nothing out), against a
//      fake of GitHub's REST API on 127.0.0.1 that keeps the comment it is sent: its wall time, peak RSS,
//      the comment's length against GitHub's limit of 65,536 characters, each shard's preview linked
//      (its artifact's address in the comment), the job summary's bytes against GitHub's 1 MiB.
// CARTE_BENCH_KEEP_COMMENT=FILE: the report's comment is written there, to be looked at afterwards.
// Stops by itself; sends traffic only to 127.0.0.1. Fails (exit code 1) when a shard or the report
// fails, the comment is too long, a shard's preview is not linked or a job summary is too large.
import { execFileSync, fork } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  watch,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const self = fileURLToPath(import.meta.url);
const root = path.dirname(path.dirname(self));
const benchPlan = path.join(root, "scripts", "bench-plan.mjs");
/** The emulator client of bench-plan.mjs's children (its CREDENTIALS). */
const CREDENTIALS = { CARTE_CLIENT_ID: "bench", CARTE_CLIENT_SECRET: "bench-secret" };
/** GitHub's limit on one comment, in characters. */
const COMMENT_LIMIT = 65_536;
/** GitHub's limit on one step's job summary, in bytes. */
const SUMMARY_LIMIT = 1024 * 1024;
const REVIEW_KEY = "bench-shards-review-key-0123456789abcdef";
const PULL_REQUEST = 7;
const REPOSITORY = "chain/menus";
const SERVER = "https://github.example";
const RUN_ID = "4242";
/** The artifact id the fake upload of shard K answers: each shard's is its own. */
const artifactId = (k) => 90_000 + k;
const artifactUrl = (k) => `${SERVER}/${REPOSITORY}/actions/runs/${RUN_ID}/artifacts/${artifactId(k)}`;

// ---------------------------------------------------------------------------------------- children

/** Forks `script` with `args`; `ask(message)` resolves the child's next message. */
function forkChild(script, args, options = {}) {
  const proc = fork(script, args, options);
  const ask = (message) =>
    new Promise((resolve, reject) => {
      const onExit = (code) => reject(new Error(`${args.join(" ")}: the child stopped (exit code ${code})`));
      proc.once("exit", onExit);
      proc.once("message", (m) => {
        proc.off("exit", onExit);
        if (m && m.error) reject(new Error(`${args.join(" ")}: ${m.error}`));
        else resolve(m);
      });
      if (message !== undefined) proc.send(message);
    });
  return { proc, ask };
}

/**
 * Child: one job of the workflow: the Action run in-process with the runner's environment it was
 * started with, the preview uploaded to a fake that counts what it is handed.
 */
async function actionChild() {
  try {
    const { runAction } = await import(path.join(root, "dist", "action", "main.js"));
    const preview = { uploads: 0, files: 0, bytes: 0 };
    // When the preview began (its folder made under RUNNER_TEMP, right before its first page) and when
    // it was handed to the upload: the job's time before, during and after the preview.
    const phases = { previewStartMs: undefined, uploadMs: undefined };
    const started = performance.now();
    const watcher = watch(process.env.RUNNER_TEMP, (event, name) => {
      if (phases.previewStartMs === undefined && String(name).startsWith("carte-preview-"))
        phases.previewStartMs = performance.now() - started;
    });
    const uploadArtifact = (name, files) => {
      phases.uploadMs ??= performance.now() - started;
      preview.uploads++;
      preview.files += files.length;
      for (const f of files) preview.bytes += statSync(f).size;
      return Promise.resolve({ id: Number(process.env.BENCH_ARTIFACT_ID), size: preview.bytes });
    };
    const code = await runAction(process.env, { uploadArtifact });
    const ms = performance.now() - started;
    watcher.close();
    const peakRssMiB = process.resourceUsage().maxRSS / 1024;
    process.send({ code, ms, peakRssMiB, preview, ...phases }, () => process.exit(0));
  } catch (err) {
    process.send({ error: String(err?.stack ?? err) }, () => process.exit(1));
  }
}

// ---------------------------------------------------------------------------------------- fake GitHub

/**
 * A fake of the GitHub endpoints the report job calls for its comment (list, create, update the
 * comments of one pull request), on 127.0.0.1; keeps the comments' bodies.
 */
async function fakeGitHub() {
  const comments = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (d) => chunks.push(d));
    req.on("end", () => {
      const send = (status, data) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(data));
      };
      const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
      const url = new URL(req.url ?? "/", "http://x");
      const list = `/repos/${REPOSITORY}/issues/${PULL_REQUEST}/comments`;
      if (url.pathname === list && req.method === "GET") {
        const page = Number(url.searchParams.get("page") ?? "1");
        return send(200, comments.slice((page - 1) * 100, page * 100));
      }
      if (url.pathname === list && req.method === "POST") {
        const c = {
          id: comments.length + 1,
          body: String(body?.body),
          user: { login: "github-actions[bot]" },
        };
        comments.push(c);
        return send(201, c);
      }
      const m = new RegExp(`^/repos/${REPOSITORY}/issues/comments/(\\d+)$`).exec(url.pathname);
      const c = m && comments.find((x) => x.id === Number(m[1]));
      if (c && req.method === "PATCH") {
        c.body = String(body?.body);
        return send(200, c);
      }
      send(404, { message: "Not Found" });
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, comments, close: () => server.close() };
}

// ---------------------------------------------------------------------------------------- the run

const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;
const kb = (bytes) => `${(bytes / 1e3).toFixed(1)} kB`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs git in `cwd` (author and committer fixed); returns its output, trimmed. */
function git(cwd, ...args) {
  return execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.com", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();
}

/** The emulator's seed for the generated chain: each store file's id, integration id and name. */
function seedOf(dir) {
  const stores = readdirSync(path.join(dir, "stores"))
    .sort()
    .map((f) => {
      const text = readFileSync(path.join(dir, "stores", f), "utf8");
      const field = (name) => new RegExp(`^ {2}${name}: (.+)$`, "m").exec(text)?.[1];
      return { id: field("id"), integration_id: field("integration_id"), name: field("name") };
    });
  return {
    clients: [
      { client_id: CREDENTIALS.CARTE_CLIENT_ID, client_secret: CREDENTIALS.CARTE_CLIENT_SECRET, stores },
    ],
  };
}

/**
 * The runner's environment of one job of the workflow on pull request 7: GitHub's variables, the
 * event payload, fresh output and job-summary files under `jobDir`, the platform's credentials and the
 * review key as the workflow maps its secrets, and the Action's inputs.
 */
function runnerEnv({ jobDir, workspace, event, github, inputs }) {
  mkdirSync(jobDir, { recursive: true });
  const files = {
    event: path.join(jobDir, "event.json"),
    output: path.join(jobDir, "output.txt"),
    summary: path.join(jobDir, "summary.md"),
  };
  writeFileSync(files.event, JSON.stringify(event.payload));
  writeFileSync(files.output, "");
  writeFileSync(files.summary, "");
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? jobDir,
    GITHUB_ACTIONS: "true",
    GITHUB_API_URL: github,
    GITHUB_SERVER_URL: SERVER,
    GITHUB_REPOSITORY: REPOSITORY,
    GITHUB_RUN_ID: RUN_ID,
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: files.event,
    GITHUB_SHA: event.sha,
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_OUTPUT: files.output,
    RUNNER_TEMP: jobDir,
    ...CREDENTIALS,
    CARTE_REVIEW_KEY: REVIEW_KEY,
    "INPUT_GITHUB-TOKEN": "ghs_benchtoken0123456789",
  };
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  return { env, files };
}

/**
 * Runs one job (the Action in its own process, working directory `cwd`, its log in `log`); returns
 * its figures and its wall time from the process's start to its answer.
 */
async function runJob({ env, cwd, log }) {
  const fd = openSync(log, "w");
  try {
    const started = performance.now();
    const job = forkChild(self, ["--child", "action"], { cwd, env, stdio: ["ignore", fd, "inherit", "ipc"] });
    const answer = await job.ask();
    await new Promise((resolve) => (job.proc.exitCode === null ? job.proc.once("exit", resolve) : resolve()));
    return { ...answer, wallMs: performance.now() - started };
  } finally {
    closeSync(fd);
  }
}

/** Writes the chain, makes its stores on the emulator at latency 0, and commits base and head. */
async function setUp({ dir, stores, entries, parallelism, emulator }) {
  execFileSync(
    process.execPath,
    [benchPlan, "--generate-only", dir, "--stores", String(stores), "--entries", String(entries)],
    {
      stdio: "ignore",
    },
  );
  const { url } = await emulator.ask({ type: "start", seed: seedOf(dir), applyDelayMs: 20 });
  const config = path.join(dir, "carte.yaml");
  writeFileSync(config, readFileSync(config, "utf8").replace("http://127.0.0.1:1", url));
  await emulator.ask({ type: "latency", ms: 0 });
  const started = performance.now();
  // The plan from empty of 10,000 stores is near Node's default heap of 4 GiB (docs/performance.md
  // "Saved plans"): the setup's apply gets room; the jobs measured run as the Action runs.
  const apply = forkChild(benchPlan, ["--child", "carte"], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    execArgv: ["--max-old-space-size=12288"],
  });
  const applied = await apply.ask({ command: "apply", config, parallelism });
  const calls = await emulator.ask({ type: "take" });
  if (applied.failed > 0 || applied.pending > 0) throw new Error("the apply from empty did not converge");
  console.log(
    `setup: apply from empty at latency 0 in ${s(performance.now() - started)}, ${calls.writes} writes; ` +
      `peak RSS ${applied.peakRssMiB.toFixed(0)} MiB`,
  );
  // The pull request: one option's price in the shared catalog, which every store's menu offers.
  writeFileSync(path.join(dir, ".gitignore"), ".carte/\ncarte-run-*.json\n");
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "the chain");
  const baseSha = git(dir, "rev-parse", "HEAD");
  git(dir, "checkout", "-q", "-b", "pr");
  const catalog = path.join(dir, "catalogs", "bench.yaml");
  const text = readFileSync(catalog, "utf8");
  const changed = text.replace(/(\{ sku: OPTION-0001, title: Option 1, price: )1000\b/, "$11100");
  if (changed === text) throw new Error("no price of OPTION-0001 to change in the catalog");
  writeFileSync(catalog, changed);
  git(dir, "commit", "-q", "-am", "OPTION-0001 at 1 100");
  const headSha = git(dir, "rev-parse", "HEAD");
  return {
    name: "pull_request",
    sha: "e".repeat(40),
    payload: {
      pull_request: { number: PULL_REQUEST, head: { sha: headSha }, base: { sha: baseSha, ref: "main" } },
    },
  };
}

/** One shard's plan job; moves its run record into `runs`. */
async function shardJob({ k, n, dir, work, runs, event, github, preview, emulator }) {
  const jobDir = path.join(work, `shard-${k}`);
  const { env, files } = runnerEnv({
    jobDir,
    workspace: dir,
    event,
    github,
    inputs: { command: "plan", config: "carte.yaml", shard: `${k}/${n}`, preview },
  });
  env.BENCH_ARTIFACT_ID = String(artifactId(k));
  const log = path.join(jobDir, "log.txt");
  const job = await runJob({ env, cwd: dir, log });
  const calls = await emulator.ask({ type: "take" });
  if (job.code !== 0) {
    throw new Error(
      `shard ${k}/${n} exited ${job.code}: ${readFileSync(files.summary, "utf8").slice(0, 2000)}`,
    );
  }
  const recordFile = path.join(dir, `carte-run-${k}-of-${n}.json`);
  const recordBytes = statSync(recordFile).size;
  const record = JSON.parse(readFileSync(recordFile, "utf8"));
  renameSync(recordFile, path.join(runs, path.basename(recordFile)));
  const figures = {
    wallMs: job.wallMs,
    ms: job.ms,
    peakRssMiB: job.peakRssMiB,
    reads: calls.reads.length,
    logins: calls.logins,
    writes: calls.writes,
    stores: record.plan?.stores.length ?? 0,
    changes: record.plan?.changes.length ?? 0,
    recordBytes,
    summaryBytes: statSync(files.summary).size,
    logBytes: statSync(log).size,
    preview: job.preview,
    // The plan (loading both commits, reading, planning), the preview, the rest (record, job summary).
    planMs: job.previewStartMs ?? job.ms,
    previewMs:
      job.previewStartMs !== undefined && job.uploadMs !== undefined ? job.uploadMs - job.previewStartMs : 0,
    linked: record.preview?.url === artifactUrl(k),
  };
  rmSync(jobDir, { recursive: true, force: true });
  return figures;
}

/** The report job: merges the records of `runs` in a folder of its own and posts the comment. */
async function reportJob({ n, work, runs, event }) {
  const gh = await fakeGitHub();
  try {
    const jobDir = path.join(work, "report");
    const { env, files } = runnerEnv({
      jobDir,
      workspace: work,
      event,
      github: gh.url,
      inputs: { command: "report", plans: "carte-runs/*.json" },
    });
    const job = await runJob({ env, cwd: work, log: path.join(jobDir, "log.txt") });
    if (job.code !== 0)
      throw new Error(`the report exited ${job.code}: ${readFileSync(files.summary, "utf8").slice(0, 2000)}`);
    if (gh.comments.length !== 1) throw new Error(`the report posted ${gh.comments.length} comments, not 1`);
    const comment = gh.comments[0].body;
    if (process.env.CARTE_BENCH_KEEP_COMMENT) writeFileSync(process.env.CARTE_BENCH_KEEP_COMMENT, comment);
    const unlinked = Array.from({ length: n }, (_, i) => i + 1).filter(
      (k) => !comment.includes(artifactUrl(k)),
    );
    const figures = {
      wallMs: job.wallMs,
      ms: job.ms,
      peakRssMiB: job.peakRssMiB,
      commentChars: comment.length,
      summaryBytes: statSync(files.summary).size,
      unlinked,
      records: readdirSync(runs).length,
    };
    rmSync(jobDir, { recursive: true, force: true });
    return figures;
  } finally {
    gh.close();
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      stores: { type: "string", default: "100" },
      shards: { type: "string", default: "10" },
      entries: { type: "string", default: "616" },
      latency: { type: "string", default: "20" },
      parallelism: { type: "string", default: "8" },
      preview: { type: "string", default: "changed" },
      repeat: { type: "string", default: "1" },
    },
  });
  const [stores, n, entries, latency, parallelism, repeat] = [
    "stores",
    "shards",
    "entries",
    "latency",
    "parallelism",
    "repeat",
  ].map((k) => {
    const v = Number(values[k]);
    if (!Number.isSafeInteger(v) || v < 0) throw new Error(`--${k} must be a whole number, got ${values[k]}`);
    return v;
  });
  if (n < 1 || n > 256) throw new Error("--shards must be from 1 to 256");
  if (repeat < 1) throw new Error("--repeat must be at least 1");
  const preview = values.preview;
  if (preview !== "changed" && preview !== "all") throw new Error("--preview must be changed or all");
  console.log(
    `carte bench:shards: ${stores} stores × ${entries} catalog entries in ${n} shards, preview ${preview}, ` +
      `latency ${latency} ms; ${repeat} run${repeat > 1 ? "s" : ""} of each job; Node ${process.version}; ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
  );
  const work = mkdtempSync(path.join(tmpdir(), "carte-bench-shards-"));
  const dir = path.join(work, "repository");
  const runs = path.join(work, "carte-runs");
  mkdirSync(runs);
  const emulator = forkChild(benchPlan, ["--child", "emulator"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: ["--max-old-space-size=16384", "--expose-gc", "--no-memory-reducer"],
  });
  let failed = false;
  try {
    const event = await setUp({ dir, stores, entries, parallelism, emulator });
    await emulator.ask({ type: "latency", ms: latency });
    const shards = [];
    for (let k = 1; k <= n; k++) {
      const runsOfK = [];
      for (let r = 0; r < repeat; r++) {
        // The emulator's garbage collected before each job: no job pays for another's.
        await emulator.ask({ type: "gc" });
        await emulator.ask({ type: "take" });
        runsOfK.push(
          await shardJob({ k, n, dir, work, runs, event, github: "http://127.0.0.1:9", preview, emulator }),
        );
      }
      const f = { ...runsOfK[0] };
      for (const key of ["wallMs", "ms", "peakRssMiB", "planMs", "previewMs"])
        f[key] = median(runsOfK.map((x) => x[key]));
      shards.push(f);
      console.log(
        `shard ${String(k).padStart(3)}/${n}  ${s(f.wallMs)} (Action ${s(f.ms)}: until the preview ${s(f.planMs)}, preview ${s(f.previewMs)}); peak RSS ${f.peakRssMiB.toFixed(0)} MiB; ` +
          `${f.stores} stores, ${f.changes} changes; ${f.reads} reads + ${f.logins} logins, ${f.writes} writes; ` +
          `record ${kb(f.recordBytes)}; preview ${f.preview.files} files, ${mb(f.preview.bytes)}` +
          `${f.linked ? "" : " NOT IN ITS RECORD"}; job summary ${kb(f.summaryBytes)}; log ${kb(f.logBytes)}`,
      );
      if (!f.linked || f.summaryBytes > SUMMARY_LIMIT) failed = true;
    }
    const planned = shards.reduce((sum, f) => sum + f.stores, 0);
    if (planned !== stores) {
      console.log(`the shards planned ${planned} stores, not ${stores}`);
      failed = true;
    }
    const reports = [];
    for (let r = 0; r < repeat; r++) reports.push(await reportJob({ n, work, runs, event }));
    const rep = { ...reports[0] };
    for (const key of ["wallMs", "ms", "peakRssMiB"]) rep[key] = median(reports.map((x) => x[key]));
    const col = (key) => shards.map((f) => f[key]);
    console.log(
      `shards: slowest ${s(Math.max(...col("wallMs")))}, median ${s(median(col("wallMs")))}; ` +
        `peak RSS at most ${Math.max(...col("peakRssMiB")).toFixed(0)} MiB; records ${mb(col("recordBytes").reduce((a, b) => a + b, 0))} in all`,
    );
    console.log(
      `report of ${rep.records} records  ${s(rep.wallMs)} (Action ${s(rep.ms)}); peak RSS ${rep.peakRssMiB.toFixed(0)} MiB; ` +
        `comment ${rep.commentChars.toLocaleString("en-US")} characters of GitHub's ${COMMENT_LIMIT.toLocaleString("en-US")}; ` +
        `previews linked: ${n - rep.unlinked.length} of ${n}` +
        (rep.unlinked.length > 0 ? ` (not: shards ${rep.unlinked.join(", ")})` : "") +
        `; job summary ${kb(rep.summaryBytes)} of GitHub's ${kb(SUMMARY_LIMIT)}`,
    );
    if (rep.commentChars > COMMENT_LIMIT || rep.unlinked.length > 0 || rep.summaryBytes > SUMMARY_LIMIT)
      failed = true;
  } finally {
    await emulator.ask({ type: "close" }).catch(() => emulator.proc.kill());
    rmSync(work, { recursive: true, force: true });
  }
  if (failed) {
    console.log("FAILED: see the lines above");
    process.exitCode = 1;
  }
}

const childMode = process.argv.indexOf("--child");
if (childMode !== -1 && process.argv[childMode + 1] === "action") await actionChild();
else await main();
