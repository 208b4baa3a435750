/**
 * The platform emulator: a faithful, stateful local implementation of the platform API
 * (docs/platform-api.md) on node:http. It is carte's embedded default when no platform address is
 * configured, and the fake behind every test (a real HTTP server, no mocking).
 *
 * It serves every endpoint of docs/platform-api.md §2 ({@link listRoutes}): token login (§2.1), legacy bulk
 * availability (§2.2), availability v2 for items and stores (§2.3), the store menu API (§2.4), the utils
 * group (§2.5), finance reads (§2.6) and webhooks (§2.7), with one state per store behind every view.
 * Requests and answers are held to the published description, docs/openapi.yaml (contract.ts; `strict: false`
 * checks request bodies against schemas/platform/ only, request-validation.ts). Accepted writes become
 * visible to reads after `applyDelayMs`, like the platform's asynchronous processing; `idle()` waits for
 * them. Webhook deliveries (events.ts), injected faults (faults.ts), a state file and a control API under
 * `/__emulator/` (control.ts) make it usable in CI. With `splitHosts` it serves each API group at an address
 * of its own, as the platform does, and a route of another group is unknown (404) at a group's address.
 * docs/platform-api.md documents every endpoint and the emulator's assumptions.
 */

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { relative } from "node:path";

import { readConfigFile } from "../config/read.js";
import { MAX_PROBLEMS, locate, parseYaml as parseConfigYaml } from "../source/yaml.js";
import type { YamlFile } from "../source/yaml.js";

import { ConfigError, UsageError } from "../errors.js";
import { API_GROUPS, type ApiGroup } from "../platform/routes.js";
import type { ConfigProblem } from "../errors.js";
import { attachEvents } from "./events.js";
import type { DeliveryRecord } from "./events.js";
import { FaultInjector } from "./faults.js";
import type { FaultOptions } from "./faults.js";
import { financeOf, financeSeedProblems } from "./finance-data.js";
import type { FinanceSeed } from "./finance-data.js";
import { createEmulatorServer } from "./server.js";
import type { RecordedRequest, ServerDeps } from "./deps.js";
import { registerUtilsPart } from "./utils-state.js";
import { CLIENT_KEYS, SEED_KEYS, STORE_KEYS, calendarProblems, unknownKeyProblems } from "./seed.js";
import type { SeedProblem } from "./seed.js";
import { EmulatorState, storeKey } from "./state.js";

export type { RecordedRequest } from "./server.js";
export { DEFAULT_MAX_BODY_BYTES, listRoutes } from "./server.js";
export { platformSchemas } from "./request-validation.js";
export type { DeliveryRecord } from "./events.js";
export type { FaultOptions, RouteFaultRule } from "./faults.js";
export type { FinanceSeed } from "./finance-data.js";
/** A store to create: platform id (uint64, number or decimal string), integration id, name. */
export interface SeedStore {
  id: string | number;
  integration_id: string;
  name: string;
  /**
   * Id of the parent (super) store when this is a child store (docs/platform-api.md §4.6): utils corridor
   * reads of the child answer the parent's corridors. Must be another store of the same client.
   */
  parent?: string | number;
  /**
   * The store's country, an ISO 3166-1 alpha-2 code the emulator has the holidays of (calendars.ts):
   * the store gets that country's holidays. Default: its client's, else `CO`.
   */
  country?: string;
  /** The store's own holiday dates `MM-DD`, in place of its country's. Default: its client's. */
  holidays?: string[];
}

/** A client (credential set) and the stores it owns (docs/platform-api.md §4.2). */
export interface SeedClient {
  client_id: string;
  client_secret: string;
  /** The country of its stores that name none (see {@link SeedStore.country}). */
  country?: string;
  /** The holiday dates of its stores that give neither a country nor dates of their own. */
  holidays?: string[];
  stores: SeedStore[];
}

/** Clients and stores the emulator knows. Catalogs start empty. */
export interface Seed {
  clients: SeedClient[];
  /** How finance data is generated (finance-data.ts); defaults: 12 weekly payments before 2025-03-30. */
  finance?: FinanceSeed;
}

export interface EmulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * Default 0: a random free port. With {@link splitHosts}, the first group's port, the next groups'
   * the ports after it in the order of `API_GROUPS` (0: a random free port each).
   */
  port?: number;
  /**
   * Serve each API group of the platform (src/platform/routes.ts `API_GROUPS`: auth, menu, finance,
   * availability, webhooks, utils) at an address of its own, as the platform serves its groups from
   * separate hosts (docs/platform-api.md §4.13): a route of another group answers 404 at a
   * group's address, so that a client that sends a call to the wrong address fails, and every recorded
   * request names the group whose address received it (`RecordedRequest.hostGroup`). One state behind
   * every address; the control API answers at each. Default false: every group at one address.
   */
  splitHosts?: boolean;
  seed?: Seed;
  /**
   * When set: state is loaded from this file at start if it exists (a link or anything but a regular
   * file is refused), and written after applied writes: atomically, mode 0600, its folder created
   * 0700 (src/atomic.ts). Client secrets are kept in it as salted scrypt hashes only, and webhook
   * secrets sealed with their client's secret (credentials.ts): the file holds no usable secret. A file
   * with secrets in clear (older carte) is rewritten when loaded.
   */
  stateFile?: string;
  /**
   * The folder the state file must stay under, every folder below it a real one (src/atomic.ts):
   * the project folder for the embedded emulator. Default: the working directory when it holds the
   * file, else the file's folder.
   */
  stateRoot?: string;
  /** Delay before an accepted asynchronous write becomes visible to reads; default 200 ms. */
  applyDelayMs?: number;
  /** `expires_in` of issued tokens; default 604800 (one week, docs/platform-api.md §4.2). */
  tokenTtlSeconds?: number;
  /** When given: one line per request (`method path status ms`) and internal errors. */
  log?: (line: string) => void;
  /** Injected faults (faults.ts): latency, 5xx, dropped connections, 429, slow answers. Default none. */
  faults?: FaultOptions;
  /** Timeout of one webhook delivery; default 2000 ms (events.ts). */
  webhookTimeoutMs?: number;
  /**
   * Largest accepted request body in bytes; a larger one is answered 413 `{message}` and its
   * connection closed without reading the rest. Default 64 MiB.
   */
  maxBodyBytes?: number;
  /**
   * When set, the control API (`/__emulator/*`, control.ts) answers only requests that carry this
   * value in the `x-emulator-control-token` header, others 401 `{message}`. Default: open (it listens
   * only where the emulator listens, 127.0.0.1 unless `host` says otherwise).
   */
  controlToken?: string;
  /**
   * Hold the traffic to the published description of the platform API, docs/openapi.yaml (its copy
   * schemas/openapi.json, contract.ts), with no field or null it does not allow: a request that breaks
   * it answers 400 in the platform's error shape, naming the field; an answer of the emulator's own that
   * breaks it answers 500 naming the route and the field (an emulator bug, so that the test that caused
   * it fails). Default true; false checks requests against schemas/platform/ as written (fields they do
   * not name accepted) and answers unchecked.
   */
  strict?: boolean;
}

export interface RunningEmulator {
  /**
   * Base address, e.g. `http://127.0.0.1:54321`; every API group is served under it, unless
   * {@link EmulatorOptions.splitHosts}: then the auth group's address (the control API answers there as
   * at every address), and {@link urls} gives each group's.
   */
  url: string;
  /** The base address of each API group: all {@link url} unless the groups are served apart. */
  urls: Readonly<Record<ApiGroup, string>>;
  /** Every request received, in order. Headers are dropped; login bodies keep `client_id` only. */
  requests: RecordedRequest[];
  /** Adds clients and stores if missing (idempotent; existing store data untouched). */
  provision(seed: Seed): void;
  /** Resolves once no accepted write is still pending (and the state file is written). */
  idle(): Promise<void>;
  /** Empties {@link RunningEmulator.requests} (same array). */
  clearRequests(): void;
  /** Replaces the fault settings (reseeding the decisions); `undefined` or `{}`: no faults. */
  setFaults(faults: FaultOptions | undefined): void;
  /** Webhook deliveries made, oldest first (the last 1000). */
  deliveries: DeliveryRecord[];
  /**
   * Sends an event now to the store's ENABLE webhook (e.g. PING), or a client-level event to a client's
   * webhook; `payload` replaces the default one. Resolves once the deliveries finished.
   */
  trigger(event: string, storeId: string | number, payload?: unknown): Promise<DeliveryRecord[]>;
  /**
   * The stores the emulator gives a client, in the order they were provisioned (what the platform's
   * onboarding knows; the API lists no stores, docs/platform-api.md §2). Used by `carte status` against the
   * embedded emulator to find stores no file names.
   */
  clientStores(clientId: string): SeedStore[];
  /** Stops the server; pending writes are applied and state persisted first. */
  close(): Promise<void>;
}

/**
 * Checks the shape of a seed and lists every problem; with the parsed file, each is located
 * (`file:line:col`).
 */
function checkSeed(value: unknown, file: string, parsed?: YamlFile): Seed {
  const problems: ConfigProblem[] = [];
  const problem = (pointer: string, message: string, key?: boolean): void => {
    // A key's problem is located at the key and said of the object that holds it.
    const { line, col } = parsed ? locate(parsed, pointer, key ? "key" : "value") : { line: 0, col: 0 };
    const shown = key ? pointer.slice(0, pointer.lastIndexOf("/")) : pointer;
    if (problems.length < MAX_PROBLEMS)
      problems.push({ file, line, col, pointer, message: `${shown || "/"}: ${message}` });
  };
  const more = (list: SeedProblem[]): void => list.forEach((p) => problem(p.pointer, p.message, p.key));
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObj(value) || !Array.isArray(value.clients)) {
    problem("/clients", "a seed is an object with a `clients` array");
    throw new ConfigError(problems);
  }
  more(unknownKeyProblems(value, "", SEED_KEYS));
  const storeIds = new Map<string, string>();
  value.clients.forEach((c: unknown, i: number) => {
    const at = `/clients/${i}`;
    if (!isObj(c)) return problem(at, "must be an object {client_id, client_secret, stores}");
    more([...unknownKeyProblems(c, at, CLIENT_KEYS), ...calendarProblems(c, at)]);
    for (const k of ["client_id", "client_secret"]) {
      if (typeof c[k] !== "string" || c[k] === "") problem(`${at}/${k}`, "must be a non-empty string");
    }
    if (!Array.isArray(c.stores)) return problem(`${at}/stores`, "must be an array");
    const integrationIds = new Set<string>();
    c.stores.forEach((s: unknown, j: number) => {
      const sat = `${at}/stores/${j}`;
      if (!isObj(s)) return problem(sat, "must be an object {id, integration_id, name}");
      more([...unknownKeyProblems(s, sat, STORE_KEYS), ...calendarProblems(s, sat)]);
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
      if (s.parent !== undefined && s.parent !== null) {
        const p =
          typeof s.parent === "string" || typeof s.parent === "number" ? storeKey(s.parent) : undefined;
        if (p === undefined || p === "0")
          problem(`${sat}/parent`, "must be a positive integer (number or string)");
        else if (p === key) problem(`${sat}/parent`, "a store cannot be its own parent");
      }
    });
  });
  if (value.finance !== undefined) {
    for (const p of financeSeedProblems(value.finance, "/finance")) problem(p.pointer, p.message);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return value as unknown as Seed;
}

/** Largest seed file read, in bytes. */
export const MAX_SEED_BYTES = 8 * 1024 * 1024;

/**
 * Reads a seed file, YAML or JSON (docs/emulator.md, "Seed file"), within the bounds of configuration
 * files (size, nodes, depth; src/source/yaml.ts).
 *
 * @param path - the file, absolute or relative to the working directory.
 * @param shown - the name problems give the file (default: `path` relative to the working directory).
 * @throws {@link ConfigError} with every problem located (`file:line:col`): a file that does not exist
 *   or cannot be read, YAML syntax errors, and a seed of the wrong shape.
 */
export async function loadSeedFile(path: string, shown?: string): Promise<Seed> {
  const file = shown ?? (relative(process.cwd(), path) || path);
  const read = await readConfigFile(path, MAX_SEED_BYTES);
  if (!read.ok) {
    throw new ConfigError([
      {
        file,
        line: read.line,
        col: read.col,
        pointer: "",
        message:
          read.message === "the file does not exist"
            ? "the seed file does not exist (examples/emulator-seed.yaml is one to start from; docs/emulator.md describes the format)"
            : read.message,
      },
    ]);
  }
  const { parsed, problems } = parseConfigYaml(file, read.text);
  if (problems.length > 0) throw new ConfigError(problems);
  return checkSeed(parsed.data, file, parsed);
}

/** Starts one server listening on `port` of `host` (0: a random free one). */
async function listen(
  deps: ServerDeps,
  host: string,
  port: number,
): Promise<{ server: Server; url: string }> {
  const server = createEmulatorServer(deps);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const hostInUrl = host.includes(":") ? `[${host}]` : host;
  return { server, url: `http://${hostInUrl}:${(server.address() as AddressInfo).port}` };
}

/**
 * The servers of an emulator: one for every group, or with `split` one per group (ports `port`,
 * `port + 1`, … in the order of `API_GROUPS`, or random ones with 0), each holding the routes of the
 * other groups unknown. When one cannot listen (a port taken), those started are closed first.
 * @returns each group with its server and address (the same for all without `split`).
 */
async function listenAll(
  deps: ServerDeps,
  split: boolean,
  host: string,
  port: number,
): Promise<{ group: ApiGroup; server: Server; url: string }[]> {
  if (!split) {
    const one = await listen(deps, host, port);
    return API_GROUPS.map((group) => ({ group, ...one }));
  }
  const started: { group: ApiGroup; server: Server; url: string }[] = [];
  try {
    for (const [i, group] of API_GROUPS.entries()) {
      started.push({ group, ...(await listen({ ...deps, group }, host, port === 0 ? 0 : port + i)) });
    }
  } catch (err) {
    await Promise.all(started.map(({ server }) => new Promise((resolve) => server.close(resolve))));
    throw err;
  }
  return started;
}

/** Starts an emulator. Resolves once it listens. */
export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  if (
    opts.maxBodyBytes !== undefined &&
    !(Number.isSafeInteger(opts.maxBodyBytes) && opts.maxBodyBytes > 0)
  ) {
    throw new UsageError("maxBodyBytes must be a positive whole number of bytes");
  }
  if (opts.controlToken !== undefined && opts.controlToken.trim() === "") {
    throw new UsageError("controlToken must not be empty");
  }
  const state = new EmulatorState({
    applyDelayMs: opts.applyDelayMs ?? 200,
    tokenTtlSeconds: opts.tokenTtlSeconds ?? 604_800,
    stateFile: opts.stateFile,
    stateRoot: opts.stateRoot,
    log: opts.log,
  });
  const events = attachEvents(state, { timeoutMs: opts.webhookTimeoutMs, log: opts.log });
  await state.load();
  registerUtilsPart(state);
  if (opts.seed) {
    const seed = checkSeed(opts.seed, "<seed>");
    state.provision(seed.clients);
    financeOf(state).configure(seed.finance);
  }
  const faults = new FaultInjector(opts.faults);

  const requests: RecordedRequest[] = [];
  const deps: ServerDeps = {
    state,
    requests,
    log: opts.log,
    faults,
    maxBodyBytes: opts.maxBodyBytes,
    controlToken: opts.controlToken,
    strict: opts.strict,
  };
  const host = opts.host ?? "127.0.0.1";
  const listening = await listenAll(deps, opts.splitHosts === true, host, opts.port ?? 0);
  const urls = Object.fromEntries(listening.map((s) => [s.group, s.url])) as Record<ApiGroup, string>;
  const servers = [...new Set(listening.map((s) => s.server))];
  let closing: Promise<void> | undefined;

  return {
    url: urls[API_GROUPS[0]],
    urls,
    requests,
    provision: (seed) => {
      const checked = checkSeed(seed, "<seed>");
      state.provision(checked.clients);
      if (checked.finance !== undefined) financeOf(state).configure(checked.finance);
    },
    setFaults: (f) => faults.set(f),
    deliveries: events.deliveries,
    trigger: (event, storeId, payload) => events.trigger(event, { storeId }, payload),
    idle: () => state.idle(),
    clientStores: (clientId) =>
      [...(state.clients.get(clientId)?.stores ?? [])].flatMap((key) => {
        const s = state.stores.get(key);
        return s ? [{ id: s.key, integration_id: s.integration_id, name: s.name }] : [];
      }),
    clearRequests: () => {
      requests.length = 0;
    },
    close: () => {
      closing ??= (async () => {
        const stopped = servers.map(
          (server) => new Promise<void>((resolve) => server.close(() => resolve())),
        );
        for (const server of servers) server.closeIdleConnections();
        await state.drain();
        await events.close();
        for (const server of servers) server.closeAllConnections();
        await Promise.all(stopped);
      })();
      return closing;
    },
  };
}
