/**
 * The platform emulator: a faithful, stateful local implementation of the platform API (platform-spec.md
 * and platform-notes.md) on node:http. It is carte's embedded default when no platform address is
 * configured, and the fake behind every test (a real HTTP server, no mocking).
 *
 * Served in this slice: token login (spec §4.1), the store menu API (spec §4.4) and item availability v2
 * (spec §4.3). Accepted writes become visible to reads after `applyDelayMs`, like the platform's
 * asynchronous processing; `idle()` waits for them.
 */

import { readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";

import { parse as parseYaml } from "yaml";

import { ConfigError } from "../errors.js";
import type { ConfigProblem } from "../errors.js";
import { createEmulatorServer } from "./server.js";
import type { RecordedRequest } from "./server.js";
import { EmulatorState, storeKey } from "./state.js";

export type { RecordedRequest } from "./server.js";
export { RuleType } from "./menu.js";

/** A store to create: platform id (uint64, number or decimal string), integration id, name. */
export interface SeedStore {
  id: string | number;
  integration_id: string;
  name: string;
}

/** A client (credential set) and the stores it owns (platform notes, "Authentication"). */
export interface SeedClient {
  client_id: string;
  client_secret: string;
  stores: SeedStore[];
}

/** Clients and stores the emulator knows. Catalogs start empty. */
export interface Seed {
  clients: SeedClient[];
}

export interface EmulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a random free port. */
  port?: number;
  seed?: Seed;
  /**
   * When set: state is loaded from this file at start if it exists, and written after applied writes
   * (atomically: temporary file + rename). The file holds the client secrets: keep it private.
   */
  stateFile?: string;
  /** Delay before an accepted asynchronous write becomes visible to reads; default 200 ms. */
  applyDelayMs?: number;
  /** `expires_in` of issued tokens; default 604800 (one week, platform notes "Authentication"). */
  tokenTtlSeconds?: number;
  /** When given: one line per request (`method path status ms`) and internal errors. */
  log?: (line: string) => void;
}

export interface RunningEmulator {
  /** Base address, e.g. `http://127.0.0.1:54321`; every API group is served under it. */
  url: string;
  /** Every request received, in order. Headers are dropped; login bodies keep `client_id` only. */
  requests: RecordedRequest[];
  /** Adds clients and stores if missing (idempotent; existing store data untouched). */
  provision(seed: Seed): void;
  /** Resolves once no accepted write is still pending (and the state file is written). */
  idle(): Promise<void>;
  /** Empties {@link RunningEmulator.requests} (same array). */
  clearRequests(): void;
  /** Stops the server; pending writes are applied and state persisted first. */
  close(): Promise<void>;
}

/** Checks the shape of a seed and lists every problem. */
function checkSeed(value: unknown, file: string): Seed {
  const problems: ConfigProblem[] = [];
  const problem = (pointer: string, message: string): void => {
    problems.push({ file, line: 0, col: 0, pointer, message: `${pointer || "/"}: ${message}` });
  };
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObj(value) || !Array.isArray(value.clients)) {
    problem("/clients", "a seed is an object with a `clients` array");
    throw new ConfigError(problems);
  }
  const storeIds = new Map<string, string>();
  value.clients.forEach((c: unknown, i: number) => {
    const at = `/clients/${i}`;
    if (!isObj(c)) return problem(at, "must be an object {client_id, client_secret, stores}");
    for (const k of ["client_id", "client_secret"]) {
      if (typeof c[k] !== "string" || c[k] === "") problem(`${at}/${k}`, "must be a non-empty string");
    }
    if (!Array.isArray(c.stores)) return problem(`${at}/stores`, "must be an array");
    const integrationIds = new Set<string>();
    c.stores.forEach((s: unknown, j: number) => {
      const sat = `${at}/stores/${j}`;
      if (!isObj(s)) return problem(sat, "must be an object {id, integration_id, name}");
      const key = typeof s.id === "string" || typeof s.id === "number" ? storeKey(s.id) : undefined;
      if (key === undefined || key === "0")
        problem(`${sat}/id`, "must be a positive integer (number or string)");
      else if (storeIds.has(key))
        problem(`${sat}/id`, `store ${key} is listed twice (also at ${storeIds.get(key)})`);
      else storeIds.set(key, sat);
      if (typeof s.integration_id !== "string" || s.integration_id === "") {
        problem(`${sat}/integration_id`, "must be a non-empty string");
      } else if (integrationIds.has(s.integration_id)) {
        problem(`${sat}/integration_id`, `integration id ${s.integration_id} is used twice in this client`);
      } else integrationIds.add(s.integration_id);
      if (typeof s.name !== "string") problem(`${sat}/name`, "must be a string");
    });
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return value as unknown as Seed;
}

/** Reads a seed file, YAML or JSON. Throws a {@link ConfigError} naming the file on a bad shape. */
export async function loadSeedFile(path: string): Promise<Seed> {
  const text = await readFile(path, "utf8");
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (e) {
    throw new ConfigError([{ file: path, line: 0, col: 0, pointer: "", message: (e as Error).message }]);
  }
  return checkSeed(value, path);
}

/** Starts an emulator. Resolves once it listens. */
export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const state = new EmulatorState({
    applyDelayMs: opts.applyDelayMs ?? 200,
    tokenTtlSeconds: opts.tokenTtlSeconds ?? 604_800,
    stateFile: opts.stateFile,
    log: opts.log,
  });
  await state.load();
  if (opts.seed) state.provision(checkSeed(opts.seed, "<seed>").clients);

  const requests: RecordedRequest[] = [];
  const server = createEmulatorServer({ state, requests, log: opts.log });
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostInUrl = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;

  return {
    url: `http://${hostInUrl}:${port}`,
    requests,
    provision: (seed) => state.provision(checkSeed(seed, "<seed>").clients),
    idle: () => state.idle(),
    clearRequests: () => {
      requests.length = 0;
    },
    close: () => {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await state.drain();
        server.closeAllConnections();
        await stopped;
      })();
      return closing;
    },
  };
}
