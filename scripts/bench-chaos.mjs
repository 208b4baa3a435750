// Applies through a chaos proxy: the figures of docs/reliability.md, "Through a chaos proxy".
// Usage: npm run bench:chaos [-- --trials 20] [--stores 30] [--rate 0.006] [--focus R] [--runs 3] [--width 2]
//   Each trial (seed 1, 2, …): a fresh emulator, a chain of N stores (the example's three store files
//   repeated: items held off with carte's marker, webhooks with secrets), carte.yaml pointed at a chaos
//   proxy (src/emulator/chaos.ts) that resets, cuts (mid-request or mid-answer), stalls and delays a
//   seeded share of the connections. The chain is applied (in process, as `carte apply --auto-approve`
//   runs it, secrets saved to a secrets file) until nothing is left, at most `runs` applies. After EVERY
//   apply, with the faults off and the emulator read directly: duplicates of every kind on the platform,
//   creates accepted twice, writes outside the apply's plan, the exit code against whether the platform
//   matches the files, operations the report names wrongly (src/emulator/audit.ts); once converged, lost
//   availability markers, lost webhook secrets, and whether `carte plan --detailed-exitcode
//   --secrets-file` then says "No changes" (exit 0).
// Everything runs against emulators on 127.0.0.1 and in temporary folders, and stops by itself.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import pLimit from "p-limit";
import { runCli } from "../dist/cli/main.js";
import { loadProject } from "../dist/config/index.js";
import {
  acceptedTwice,
  lostMarkers,
  lostSecrets,
  reportMismatches,
  writesOutside,
} from "../dist/emulator/audit.js";
import { CHAOS_KINDS, startChaosProxy } from "../dist/emulator/chaos.js";
import { startEmulator } from "../dist/emulator/index.js";
import { mulberry32 } from "../dist/emulator/prng.js";
import { PlatformClient } from "../dist/platform/client.js";
import { runCarte } from "../dist/run/run.js";
import { secretsFileSink } from "../dist/run/secrets.js";
import { planProject } from "../dist/run/plan-project.js";
import { arg, BENCH_ENV as ENV, chain, duplicatesOnPlatform } from "./lib/chain.mjs";

const TRIALS = Number(arg("trials", "20"));
const STORES = Number(arg("stores", "30"));
const RATE = Number(arg("rate", "0.006"));
const RUNS = Number(arg("runs", "3"));
const WIDTH = Number(arg("width", "2"));
// --focus R: the calls of the availability chain (the toggle; the item upserts, which carry carte's
// marker) and of the webhooks (creates, whose answer is the secret; reset-secret…) break their
// connection with chance R instead of --rate.
const FOCUS = arg("focus", undefined);
const ROUTES =
  FOCUS === undefined
    ? undefined
    : [
        /^PUT \S*\/availability\/stores\/items$/,
        /^POST \/restaurants\/menu\/v1\/stores\/[^/]+\/items$/,
        /^(POST|PUT|DELETE) \S*\/webhooks?(\/|$)/,
      ].map((match) => ({ match, rate: Number(FOCUS) }));

/** A fresh emulator serving an N-store chain, a chaos proxy in front, the project pointed at it. */
async function fixture() {
  const { dir, stores } = chain(STORES, "carte-bench-chaos-");
  const emu = await startEmulator({
    port: 0,
    applyDelayMs: 20,
    seed: { clients: [{ client_id: ENV.CARTE_CLIENT_ID, client_secret: ENV.CARTE_CLIENT_SECRET, stores }] },
  });
  const proxy = await startChaosProxy({ target: emu.url });
  const config = path.join(dir, "carte.yaml");
  writeFileSync(
    config,
    readFileSync(config, "utf8").replace(/^version: 1$/m, `version: 1\nplatform:\n  base_url: ${proxy.url}`),
  );
  return {
    dir,
    config,
    emu,
    proxy,
    secretsFile: path.join(dir, "secrets.json"),
    project: await loadProject(config),
    async close() {
      await proxy.close();
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `carte plan --detailed-exitcode --secrets-file FILE` in process; its exit code and output. */
async function cliPlan(fx) {
  let out = "";
  const io = {
    out: (s) => void (out += s),
    err: (s) => void (out += s),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    env: { ...ENV, NO_COLOR: "1" },
  };
  const code = await runCli(
    ["plan", "--detailed-exitcode", "-c", fx.config, "--secrets-file", fx.secretsFile],
    io,
  );
  return { code, out };
}

/** The checks after one apply, faults off, the emulator read directly. */
async function audit(fx, result, requests) {
  await fx.emu.idle();
  const client = new PlatformClient({
    baseUrl: fx.emu.url,
    clientId: ENV.CARTE_CLIENT_ID,
    clientSecret: ENV.CARTE_CLIENT_SECRET,
    requestsPerSecond: Infinity,
  });
  try {
    const session = { client, emulator: undefined, stateFile: undefined, close: () => client.close() };
    const { plan, current } = await planProject(fx.project, session, { keepCurrent: true });
    const left = plan.changes.length;
    const a = {
      left,
      duplicates: await duplicatesOnPlatform(client, fx.project),
      acceptedTwice: acceptedTwice(fx.emu.requests),
      outside: writesOutside(result.plan ? [result.plan] : [], requests).map((r) => `${r.method} ${r.path}`),
      zeroWithWorkLeft: left > 0 && result.exitCode === 0,
      failedWithNothingLeft: left === 0 && result.exitCode !== 0,
      mismatches:
        result.plan && result.report ? reportMismatches(result.plan, result.report.operations, requests) : [],
    };
    if (left === 0) {
      a.lostMarkers = lostMarkers(fx.project.desired, current);
      a.lostSecrets = await lostSecrets(client, fx.secretsFile);
      const next = await cliPlan(fx);
      a.nextPlanClean = next.code === 0 && next.out.includes("No changes");
      if (!a.nextPlanClean) a.nextPlan = next.out.slice(0, 400);
    }
    return a;
  } finally {
    await client.close();
  }
}

/** One trial: applies through the proxy until nothing is left, at most RUNS. */
async function trial(seed) {
  const fx = await fixture();
  const started = Date.now();
  const applies = [];
  // Connections accepted during the applies (the checks in between reach the emulator directly, but
  // the plan after convergence goes through the proxy, faults off).
  let connections = 0;
  try {
    for (let run = 0; run < RUNS; run++) {
      fx.proxy.setFaults({
        seed: seed * 10 + run,
        rate: RATE,
        stallMs: 5000,
        ...(ROUTES ? { routes: ROUTES } : {}),
      });
      const from = fx.emu.requests.length;
      const conns = fx.proxy.connections;
      const result = await runCarte({
        command: "apply",
        config: fx.config,
        env: ENV,
        secrets: () => secretsFileSink(fx.secretsFile),
        // A stalled answer is given up after 1 s (the proxy holds it for 5 s).
        timeoutMs: 1000,
        settleMs: 300,
        convergenceTimeoutMs: 5000,
        runTimeoutMs: 300_000,
        // Faults are injected on purpose: the stop rule of the success rate is off.
        client: {
          baseDelayMs: 20,
          maxDelayMs: 300,
          random: mulberry32(seed * 10 + run),
          successGuard: false,
        },
      });
      fx.proxy.setFaults(undefined);
      fx.proxy.closeConnections();
      connections += fx.proxy.connections - conns;
      const a = await audit(fx, result, fx.emu.requests.slice(from));
      // BENCH_VERBOSE=1: what carte reported of each operation named wrongly, and what the platform got.
      if (process.env.BENCH_VERBOSE) {
        for (const line of a.mismatches) {
          const id = line.split(":")[0];
          const op = result.plan.operations.find((o) => o.id === id);
          const res = result.report.operations.find((o) => o.id === id);
          process.stderr.write(
            `seed ${seed} apply ${run + 1}: ${line}\n  reported: ${JSON.stringify(res)}\n`,
          );
          for (const r of fx.emu.requests
            .slice(from)
            .filter((r) => r.method === op.method && r.path === op.path))
            process.stderr.write(
              `  sent: ${r.status} ${r.fault ?? ""} ${JSON.stringify(r.body).slice(0, 300)}\n`,
            );
          process.stderr.write(`  planned: ${JSON.stringify(op.body).slice(0, 300)}\n`);
        }
      }
      applies.push({ exitCode: result.exitCode, requests: fx.emu.requests.length - from, ...a });
      if (a.left === 0) break;
    }
  } finally {
    await fx.close();
  }
  const events = fx.proxy.events;
  if (process.env.BENCH_VERBOSE) for (const e of events) process.stderr.write(`  ${JSON.stringify(e)}\n`);
  return {
    seed,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    applies,
    connections,
    faulted: events.length,
    onWrites: events.filter((e) => e.write).length,
    // The calls of the availability chain (the toggle; the item upserts, which carry carte's marker)
    // and of the webhooks (creates, whose answer is the secret; reset-secret).
    onAvailability: events.filter(
      (e) =>
        e.path.endsWith("/availability/stores/items") || (e.method === "POST" && e.path.endsWith("/items")),
    ).length,
    onWebhooks: events.filter((e) => e.write && e.path.includes("/webhook")).length,
    byKind: Object.fromEntries(CHAOS_KINDS.map((k) => [k, events.filter((e) => e.kind === k).length])),
    requests: applies.reduce((n, a) => n + a.requests, 0),
  };
}

/** Runs `tasks` (functions returning promises) `width` at a time; results in the order of `tasks`. */
function pool(tasks, width) {
  const limit = pLimit(width);
  return Promise.all(tasks.map((task) => limit(task)));
}

const t0 = Date.now();
const trials = await pool(
  Array.from({ length: TRIALS }, (_, i) => async () => {
    const t = await trial(i + 1);
    const last = t.applies.at(-1);
    process.stderr.write(
      `seed ${t.seed}: ${t.applies.length} apply(ies), exits ${t.applies.map((a) => a.exitCode).join(",")}, ` +
        `${last.left} left, ${t.faulted} of ${t.connections} connections broken (${t.onWrites} on writes; ` +
        `${t.requests} requests), ` +
        `${t.seconds} s\n`,
    );
    for (const [i, a] of t.applies.entries()) {
      const bad = {
        duplicates: a.duplicates,
        acceptedTwice: a.acceptedTwice,
        outside: a.outside,
        mismatches: a.mismatches,
        lostMarkers: a.lostMarkers ?? [],
        lostSecrets: a.lostSecrets ?? [],
      };
      for (const [k, v] of Object.entries(bad))
        if (v.length > 0) process.stderr.write(`  apply ${i + 1} ${k}: ${JSON.stringify(v).slice(0, 600)}\n`);
      if (a.zeroWithWorkLeft)
        process.stderr.write(`  apply ${i + 1}: exit 0 with ${a.left} change(s) left\n`);
      if (a.failedWithNothingLeft)
        process.stderr.write(`  apply ${i + 1}: exit ${a.exitCode}, nothing left\n`);
      if (a.nextPlanClean === false) process.stderr.write(`  next plan: ${a.nextPlan}\n`);
    }
    return t;
  }),
  WIDTH,
);

const all = trials.flatMap((t) => t.applies);
const sum = (f) => all.reduce((n, a) => n + f(a), 0);
const converged = trials.filter((t) => t.applies.at(-1).left === 0);
const figures = {
  trials: TRIALS,
  stores: STORES,
  "fault rate": RATE,
  seconds: Math.round((Date.now() - t0) / 1000),
  converged: `${converged.length} / ${TRIALS}`,
  "first apply complete": trials.filter((t) => t.applies[0].left === 0).length,
  "needed 1 re-run": trials.filter((t) => t.applies.length === 2 && t.applies[1].left === 0).length,
  "needed 2 re-runs": trials.filter((t) => t.applies.length === 3 && t.applies[2].left === 0).length,
  applies: all.length,
  connections: trials.reduce((n, t) => n + t.connections, 0),
  "connections broken": trials.reduce((n, t) => n + t.faulted, 0),
  ...Object.fromEntries(CHAOS_KINDS.map((k) => [`  ${k}`, trials.reduce((n, t) => n + t.byKind[k], 0)])),
  "broken on a write": trials.reduce((n, t) => n + t.onWrites, 0),
  "  on a toggle or an item upsert (marker)": trials.reduce((n, t) => n + t.onAvailability, 0),
  "  on a webhook write": trials.reduce((n, t) => n + t.onWebhooks, 0),
  "duplicates after an apply": sum((a) => a.duplicates.length),
  "creates accepted twice": sum((a) => a.acceptedTwice.length),
  "writes outside the plan": sum((a) => a.outside.length),
  "exit 0 with work left": sum((a) => (a.zeroWithWorkLeft ? 1 : 0)),
  "exit 1 with nothing left": sum((a) => (a.failedWithNothingLeft ? 1 : 0)),
  "report mismatches": sum((a) => a.mismatches.length),
  "lost availability markers": sum((a) => a.lostMarkers?.length ?? 0),
  "lost webhook secrets": sum((a) => a.lostSecrets?.length ?? 0),
  'next plan not "No changes"': sum((a) => (a.nextPlanClean === false ? 1 : 0)),
};
const width = Math.max(...Object.keys(figures).map((k) => k.length));
console.log(
  `\nThrough a chaos proxy (npm run bench:chaos -- --trials ${TRIALS} --stores ${STORES} --rate ${RATE}` +
    `${FOCUS === undefined ? "" : ` --focus ${FOCUS}`}):`,
);
for (const [k, v] of Object.entries(figures)) console.log(`  ${k.padEnd(width)}  ${v}`);
