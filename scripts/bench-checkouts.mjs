// Two checkouts of one project applied close together (two CI runners after two quick merges: no
// shared disk, so no shared `.carte/locks`): the figures of docs/reliability.md, "Two checkouts".
// Usage: npm run bench:checkouts [-- --stores N] [--trials T] [--delays 0,1,2,4,8] [--locked L]
//   (`-- --trials 0 --locked 20`: the 20 trials with the lock alone)
//   For each delay D (seconds), T trials: a fresh emulator, a chain of N stores (the example's three
//   store files, repeated with new ids), two copies of the project; `carte apply` starts in the first,
//   and D seconds later in the second, each a process of its own. Once both ended: the duplicates the
//   platform shows, the creates accepted twice, the exit codes, and whether the second apply named the
//   duplicates it found. Then L trials started at the same moment with carte.yaml
//   `lock: { git_ref: refs/carte/lock }`, both checkouts clones of one bare repository reached over
//   "ssh" through a stand-in (carte's git allows https and ssh only).
// Everything runs against emulators on 127.0.0.1 and in temporary folders, and stops by itself.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadProject } from "../dist/config/index.js";
import { acceptedTwice } from "../dist/emulator/audit.js";
import { startEmulator } from "../dist/emulator/index.js";
import { PlatformClient } from "../dist/platform/client.js";
import { arg, BENCH_ENV as ENV, chain, duplicatesOnPlatform, root } from "./lib/chain.mjs";

const STORES = Number(arg("stores", "30"));
const TRIALS = Number(arg("trials", "3"));
const DELAYS = arg("delays", "0,1,2,4,8").split(",").map(Number);
const LOCKED = Number(arg("locked", "20"));

/** A fresh emulator serving `stores`, and the project of `dir` pointed at it. */
async function fixture(n, lock) {
  const { dir, stores } = chain(n, "carte-bench-checkouts-");
  const emu = await startEmulator({
    port: 0,
    applyDelayMs: 50,
    seed: { clients: [{ client_id: ENV.CARTE_CLIENT_ID, client_secret: ENV.CARTE_CLIENT_SECRET, stores }] },
  });
  const config = path.join(dir, "carte.yaml");
  writeFileSync(
    config,
    readFileSync(config, "utf8").replace(
      /^version: 1$/m,
      `version: 1\nplatform:\n  base_url: ${emu.url}${lock ? "\nlock:\n  git_ref: refs/carte/lock" : ""}`,
    ),
  );
  return { dir, config, emu, project: await loadProject(config) };
}

const git = (cwd, ...args) =>
  execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@localhost", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();

/** A bare repository reached over "ssh" through a stand-in, and the checkouts of it. */
function remote() {
  const dir = mkdtempSync(path.join(tmpdir(), "carte-bench-remote-"));
  const ssh = path.join(dir, "fake-ssh");
  writeFileSync(ssh, '#!/bin/sh\nfor last; do :; done\nexec sh -c "$last"\n');
  chmodSync(ssh, 0o755);
  const origin = path.join(dir, "origin.git");
  git(dir, "init", "-q", "--bare", origin);
  return {
    dir,
    checkout(at) {
      git(at, "init", "-q", "-b", "main");
      git(at, "remote", "add", "origin", `ssh://carte.invalid${origin}`);
      git(at, "config", "core.sshCommand", ssh);
      git(at, "config", "ssh.variant", "simple");
    },
  };
}

/** `carte apply --auto-approve` in a process of its own, started after `delayMs`. */
function cliApply(config, delayMs) {
  return new Promise((resolve, reject) => {
    setTimeout(() => {
      const child = spawn(
        process.execPath,
        [
          path.join(root, "bin", "carte.js"),
          "apply",
          "--auto-approve",
          "-q",
          "--timeout",
          "5m",
          "-c",
          config,
        ],
        { env: { ...process.env, ...ENV, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] },
      );
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      child.on("error", reject);
      child.on("exit", (code) => resolve({ code, out }));
    }, delayMs);
  });
}

async function duplicates(fx) {
  const client = new PlatformClient({
    baseUrl: fx.emu.url,
    clientId: ENV.CARTE_CLIENT_ID,
    clientSecret: ENV.CARTE_CLIENT_SECRET,
    requestsPerSecond: Infinity,
  });
  try {
    return await duplicatesOnPlatform(client, fx.project);
  } finally {
    await client.close();
  }
}

/** One trial: two checkouts, the second started `delay` seconds after the first. */
async function trial(delay, lock) {
  const fx = await fixture(STORES, lock);
  const repo = lock ? remote() : undefined;
  const copies = [];
  try {
    for (const name of ["a", "b"]) {
      const dir = mkdtempSync(path.join(tmpdir(), `carte-bench-checkout-${name}-`));
      cpSync(fx.dir, dir, { recursive: true });
      repo?.checkout(dir);
      copies.push(dir);
    }
    const started = Date.now();
    const [a, b] = await Promise.all(
      copies.map((d, i) => cliApply(path.join(d, "carte.yaml"), i * delay * 1000)),
    );
    await fx.emu.idle();
    if (process.env.BENCH_VERBOSE)
      for (const r of [a, b]) process.stderr.write(`--- exit ${r.code}\n${r.out}\n`);
    const dups = await duplicates(fx);
    const stores = new Set(dups.map((d) => d.split(" ")[0]));
    // Whether an apply that found duplicates said so by name (`still shows N duplicate(s): store[…]`,
    // `duplicates still on the platform: store[…]`), and whether one said only that changes did not
    // show (`did not show N change(s)`, `not yet shown by the platform`) while duplicates were there.
    const names = (r) => /duplicate\(s\): store\[|duplicates still on the platform: store\[/.test(r.out);
    const pendingOnly = (r) =>
      /did not show \d+ change|not yet shown by the platform/.test(r.out) && !names(r);
    const named = [a, b].some(names);
    const unnamed = dups.length > 0 && [a, b].some(pendingOnly);
    return {
      delay,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      codes: [a.code, b.code],
      duplicates: dups.length,
      stores: stores.size,
      acceptedTwice: acceptedTwice(fx.emu.requests).length,
      named,
      unnamed,
      waited: [a, b].some((r) => r.out.includes("Waiting for another carte apply to release the lock")),
    };
  } finally {
    for (const d of copies) rmSync(d, { recursive: true, force: true });
    if (repo) rmSync(repo.dir, { recursive: true, force: true });
    await fx.emu.close();
    rmSync(fx.dir, { recursive: true, force: true });
  }
}

const t0 = Date.now();
const rows = [];
for (const delay of DELAYS) {
  for (let i = 0; i < TRIALS; i++) {
    const r = await trial(delay, false);
    process.stderr.write(`no lock, ${delay} s apart, trial ${i + 1}: ${JSON.stringify(r)}\n`);
    rows.push(r);
  }
}
const locked = [];
for (let i = 0; i < LOCKED; i++) {
  const r = await trial(0, true);
  process.stderr.write(`lock, together, trial ${i + 1}: ${JSON.stringify(r)}\n`);
  locked.push(r);
}
const summary = {
  stores: STORES,
  seconds: Math.round((Date.now() - t0) / 1000),
  withoutLock: (TRIALS > 0 ? DELAYS : []).map((delay) => {
    const rs = rows.filter((r) => r.delay === delay);
    return {
      "start delay (s)": delay,
      trials: rs.length,
      "trials with duplicates": rs.filter((r) => r.duplicates > 0).length,
      "duplicates (mean)": Math.round(rs.reduce((n, r) => n + r.duplicates, 0) / rs.length),
      "stores with duplicates (mean)": Math.round(rs.reduce((n, r) => n + r.stores, 0) / rs.length),
      "an apply exited 1": rs.filter((r) => r.codes.some((c) => c !== 0)).length,
      "duplicates named by an apply": rs.filter((r) => r.duplicates > 0 && r.named).length,
      "'did not show' without naming them": rs.filter((r) => r.unnamed).length,
    };
  }),
  withLock: {
    trials: locked.length,
    "one waited for the other": locked.filter((r) => r.waited).length,
    "both exit 0": locked.filter((r) => r.codes.every((c) => c === 0)).length,
    duplicates: locked.reduce((n, r) => n + r.duplicates, 0),
    "creates accepted twice": locked.reduce((n, r) => n + r.acceptedTwice, 0),
  },
};
console.log(JSON.stringify(summary, null, 2));
