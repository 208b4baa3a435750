/**
 * End-to-end fixtures: a copy of the example chain in a temporary directory, pointed at an emulator
 * started on port 0 (every API group at one address, or each at its own), and an in-process CLI whose
 * output is captured.
 */

import type { ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { runCli } from "../../src/cli/main.js";
import type { CliIo } from "../../src/cli/io.js";
import { PlatformClient } from "../../src/platform/client.js";
import { API_GROUPS, routeGroup, routeOfPath, type ApiGroup } from "../../src/platform/routes.js";
import {
  startEmulator,
  type RecordedRequest,
  type RunningEmulator,
  type Seed,
} from "../../src/emulator/index.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const CLIENT_ID = "e2e-client";
export const CLIENT_SECRET = "e2e-secret-do-not-print-0123456789";

/** A temporary copy of a project directory, given relative to the repository root. */
export function copyExample(from = "examples/chain"): string {
  const dir = mkdtempSync(path.join(tmpdir(), `carte-${path.basename(from)}-`));
  cpSync(path.join(repoRoot, from), dir, { recursive: true });
  rmSync(path.join(dir, ".carte"), { recursive: true, force: true });
  return dir;
}

/** The stores named by the store files of a project directory (for the emulator's seed). */
export function seedFor(dir: string, files: string[]): Seed {
  const stores = files.map((f) => {
    const doc = parse(readFileSync(path.join(dir, f), "utf8")) as {
      store: { id: number | string; integration_id: string; name: string };
    };
    return { id: String(doc.store.id), integration_id: doc.store.integration_id, name: doc.store.name };
  });
  return clientSeed(stores);
}

/** An emulator seed of one client, the e2e credentials, serving `stores`. */
export function clientSeed(stores: NonNullable<Seed["clients"]>[number]["stores"]): Seed {
  return { clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, stores }] };
}

/** Rewrites a YAML file in place with a text replacement; fails the test when nothing matched. */
export function edit(file: string, from: string | RegExp, to: string): void {
  const text = readFileSync(file, "utf8");
  const next = text.replace(from, to);
  if (next === text) throw new Error(`edit of ${file}: ${String(from)} not found`);
  writeFileSync(file, next);
}

/** Captured output of one CLI run. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Runs the CLI in-process in `cwd`, with the e2e credentials in its environment. */
export async function carte(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  let out = "";
  let err = "";
  const io: CliIo = {
    out: (s) => void (out += s),
    err: (s) => void (err += s),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET, ...env },
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

/** An emulator on port 0 serving the stores of the example's store files, and the project pointed at it. */
export async function exampleAgainstEmulator(
  storeFiles: string[],
): Promise<{ dir: string; config: string; emu: RunningEmulator; close: () => Promise<void> }> {
  const dir = copyExample();
  const emu = await startEmulator({ port: 0, seed: seedFor(dir, storeFiles), applyDelayMs: 20 });
  const config = path.join(dir, "carte.yaml");
  edit(config, /^version: 1$/m, `version: 1\nplatform:\n  base_url: ${emu.url}`);
  return {
    dir,
    config,
    emu,
    close: async () => {
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The `platform:` section of a carte.yaml that gives each API group its own address: the emulator's
 * address of that group (`RunningEmulator.urls`).
 */
export function hostsYaml(emu: RunningEmulator): string {
  return `platform:\n  hosts:\n${API_GROUPS.map((g) => `    ${g}: ${emu.urls[g]}\n`).join("")}`;
}

/**
 * {@link exampleAgainstEmulator} with the emulator serving each API group at its own address
 * (`splitHosts`, one port per group) and carte.yaml giving each group's address under
 * `platform.hosts:`: a call sent to another group's address fails (404), and
 * {@link misroutedCalls} finds it.
 */
export async function exampleAgainstSplitHosts(
  storeFiles: string[],
): Promise<{ dir: string; config: string; emu: RunningEmulator; close: () => Promise<void> }> {
  const dir = copyExample();
  const emu = await startEmulator({
    port: 0,
    seed: seedFor(dir, storeFiles),
    applyDelayMs: 20,
    splitHosts: true,
  });
  const config = path.join(dir, "carte.yaml");
  edit(config, /^version: 1\n/m, `version: 1\n${hostsYaml(emu)}`);
  return {
    dir,
    config,
    emu,
    close: async () => {
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The calls of an emulator serving each group at its own address, counted by the group of the address
 * that received them: `right` those of a route of that group, `wrong` those of another group's route.
 */
export function callsPerHost(
  requests: readonly RecordedRequest[],
): Map<ApiGroup, { right: number; wrong: number }> {
  const out = new Map<ApiGroup, { right: number; wrong: number }>(
    API_GROUPS.map((g) => [g, { right: 0, wrong: 0 }]),
  );
  for (const r of requests) {
    if (r.hostGroup === undefined)
      throw new Error(`${r.method} ${r.path}: the emulator does not split hosts`);
    const route = routeOfPath(r.method, r.path);
    const count = out.get(r.hostGroup)!;
    if (route !== undefined && routeGroup(route) === r.hostGroup) count.right++;
    else count.wrong++;
  }
  return out;
}

/** The recorded calls that reached the address of another API group than their route's. */
export function misroutedCalls(requests: readonly RecordedRequest[]): string[] {
  return requests
    .filter((r) => {
      const route = routeOfPath(r.method, r.path);
      return route === undefined || routeGroup(route) !== r.hostGroup;
    })
    .map((r) => `${r.method} ${r.path} at the ${r.hostGroup ?? "(one)"} address`);
}

/** The store keys of the example chain, in the order of its store files. */
export const EXAMPLE_STORES = ["bog-centro", "bog-chapinero", "med-poblado"];

/**
 * {@link exampleAgainstEmulator} with a platform client on the emulator (the e2e credentials), both
 * closed by `close`. `stores` are the store keys kept: the other store files are removed from the copy,
 * so that a test about one store applies one store. `splitHosts`: {@link exampleAgainstSplitHosts}
 * instead, each API group at its own address.
 */
export async function exampleWithClient(
  stores: readonly string[] = EXAMPLE_STORES,
  options: { splitHosts?: boolean } = {},
): Promise<{
  dir: string;
  config: string;
  emu: RunningEmulator;
  client: PlatformClient;
  close: () => Promise<void>;
}> {
  const files = stores.map((s) => path.join("stores", `${s}.yaml`));
  const fx = await (options.splitHosts ? exampleAgainstSplitHosts(files) : exampleAgainstEmulator(files));
  for (const key of EXAMPLE_STORES) {
    if (!stores.includes(key)) rmSync(path.join(fx.dir, "stores", `${key}.yaml`));
  }
  const client = new PlatformClient({
    baseUrl: fx.emu.urls,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
  });
  return {
    ...fx,
    client,
    close: async () => {
      await client.close();
      await fx.close();
    },
  };
}

/**
 * Whether a recorded request may change the platform: not a GET, not a token login, and not one of the
 * reads the platform makes with POST (store status, item status; docs/platform-api.md §4.4).
 */
export function isWrite(r: RecordedRequest): boolean {
  if (r.method === "GET" || r.path.includes("/token/login/")) return false;
  return !(r.method === "POST" && (r.path.endsWith("/availability/stores") || r.path.endsWith("/status")));
}

/** The requests of a recording that may change the platform. */
export const writes = (reqs: RecordedRequest[]): RecordedRequest[] => reqs.filter(isWrite);

/**
 * The address a `carte emulator` child process serves, from its "listening on URL" line on stderr;
 * rejects with its stderr when it exits first.
 */
export function listeningUrl(child: ChildProcess, name = "carte emulator"): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let err = "";
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`${name} exited ${code}: ${err}`)));
  });
}
