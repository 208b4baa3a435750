/**
 * Opens a connection to the platform for a loaded project: the configured platform, or, when the
 * project names no platform address, the embedded emulator started in-process with its state kept in
 * `.carte/emulator-state.json` next to carte.yaml (so that a second run sees the first run's result):
 * mode 0600 in a 0700 folder, the client secret only as a salted hash (src/emulator/credentials.ts).
 * A platform of carte.yaml `platforms:` (a load scoped to it, `LoadedProject.platformOf`) has its own:
 * its credentials from the environment variables it names, and, on the embedded emulator, its state in
 * `.carte/platforms/NAME/` (`NAME-development/` for the rehearsal) and its stores in its country.
 */

import { openPairingRecord, pairingKey, type PairingRecord } from "../state/pairing-record.js";
import path from "node:path";
import { checkWritable } from "../atomic.js";
import type { LoadedProject } from "../config/index.js";
import type { RunningEmulator } from "../emulator/index.js";
import { DEFAULT_COUNTRY, holidayDays } from "../emulator/calendars.js";
import { ConfigError } from "../errors.js";
import { monthDayKey } from "../time/days-and-slots.js";
import { PlatformClient, type ClientOptions, type RetryInfo } from "../platform/client.js";
import { API_GROUPS, type ApiGroup } from "../platform/routes.js";
import type { CredentialNames, ProjectPlatform } from "../config/platforms.js";

/**
 * The country (ISO 3166-1 alpha-2) of a store of the project on the embedded emulator, whose holidays
 * the emulator gives it (src/emulator/calendars.ts): its platform's (carte.yaml `platforms: NAME:
 * country:`, every store of a scoped load is of that platform); Colombia for a project of one platform,
 * as the embedded emulator always served it. This is the one place to read it from: the stores the
 * emulator is given, `carte validate`'s holidays and the plan's holiday problems all take it from here.
 *
 * @param project - the loaded project.
 * @param _storeKey - the store's key (its integration id).
 */
export function embeddedCountry(project: LoadedProject, _storeKey: string): string {
  return project.platformOf?.country ?? DEFAULT_COUNTRY;
}

const embeddedDates = new Map<string, ReadonlySet<string>>();

/**
 * The holiday dates (`MM-DD`) of a store of the project on the embedded emulator: its country's
 * ({@link embeddedCountry}). The platform's holidays known offline, for `carte validate` without a
 * `platform:` section (src/config/holiday-dates.ts).
 */
export function embeddedHolidays(project: LoadedProject, storeKey: string): ReadonlySet<string> {
  const country = embeddedCountry(project, storeKey);
  let dates = embeddedDates.get(country);
  if (!dates) {
    dates = new Set(holidayDays(country).map((h) => monthDayKey(h.month, h.day)));
    embeddedDates.set(country, dates);
  }
  return dates;
}

/** Client id and secret used against the embedded emulator when the environment sets none. */
export const EMBEDDED_CREDENTIALS = { clientId: "carte-local", clientSecret: "carte-local-secret" } as const;

/** An open connection. `close` must be called. */
export interface Session {
  client: PlatformClient;
  /** The embedded emulator, when the project runs against it. */
  emulator: RunningEmulator | undefined;
  /** Where the embedded emulator keeps its state, when it runs. */
  stateFile: string | undefined;
  /** The client id the session logs in with (never the secret); set by {@link openSession}. */
  clientId?: string;
  /**
   * The pairings of store id and integration id the platform showed to be right, kept in the project's
   * `.carte/pairings.json` (src/state/pairing-record.ts); set by {@link openSession}.
   */
  pairings?: PairingRecord;
  /**
   * The country of a store (ISO 3166-1 alpha-2), whose holiday calendar the platform gives it, when
   * carte knows it: the embedded emulator's stores ({@link embeddedCountry}), and the stores of a
   * platform of carte.yaml `platforms:` (its `country:`). Absent against the one platform of a
   * project without `platforms:`: its files name no country.
   */
  countryOf?: (storeKey: string) => string | undefined;
  close(): Promise<void>;
}

/** A host of the platform and the API groups whose calls go to it. */
export interface PlatformHost {
  /** Host name and port only. */
  host: string;
  /** Its groups, in the order of `API_GROUPS`. */
  groups: readonly ApiGroup[];
}

/**
 * Where a run goes: the embedded emulator and the folder of its state, or the configured platform's
 * host (the auth group's) and, when its API groups live on more than one host, each host with its
 * groups. Never the address's user name, password, path or query.
 */
export type RunTarget =
  | { kind: "emulator"; stateDir: string }
  | { kind: "platform"; host: string; hosts?: readonly PlatformHost[] };

/** The host name and port of an address: no user name, password, path or query. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(an invalid address)";
  }
}

/** Where a loaded project's runs go (see {@link openSession}). Pure. */
export function runTarget(project: LoadedProject): RunTarget {
  if (project.platform) {
    const { hosts } = project.platform;
    const byHost = new Map<string, ApiGroup[]>();
    for (const g of API_GROUPS) {
      const host = hostOf(hosts[g]);
      byHost.set(host, [...(byHost.get(host) ?? []), g]);
    }
    const host = hostOf(hosts[API_GROUPS[0]]);
    if (byHost.size === 1) return { kind: "platform", host };
    return { kind: "platform", host, hosts: [...byHost].map(([h, groups]) => ({ host: h, groups })) };
  }
  return { kind: "emulator", stateDir: embeddedStateDir(project) };
}

/**
 * The folder of the embedded emulator's state for a project: `.carte` beside carte.yaml, or, for a
 * platform of carte.yaml `platforms:`, `.carte/platforms/NAME` (`NAME-development` for its rehearsal):
 * each platform's emulator serves its own stores with its own credentials, as each country's platform does.
 */
export function embeddedStateDir(project: LoadedProject): string {
  const carte = path.join(project.root, ".carte");
  const p = project.platformOf;
  if (!p) return carte;
  return path.join(carte, "platforms", p.rehearsal ? `${p.name}-development` : p.name);
}

/** The credential variables of a project's platform (`CARTE_CLIENT_ID`/`_SECRET` without `platforms:`). */
export function credentialNames(project: LoadedProject): CredentialNames {
  return (
    project.platformOf?.credentials ?? { clientId: "CARTE_CLIENT_ID", clientSecret: "CARTE_CLIENT_SECRET" }
  );
}

/**
 * A run's target in words, for the first line of a plan and the last of an apply: `embedded emulator
 * (state in examples/chain/.carte)` (the folder relative to `cwd` when it is inside it), `platform at
 * api.example.com`, or, its API groups on several hosts, `platform at api.example.com (auth, menu,
 * finance) and services.example.com (availability, webhooks, utils)`. Raw text (the hosts and the
 * folder come from the files): renderers escape it.
 */
export function describeTarget(target: RunTarget, cwd: string = process.cwd()): string {
  if (target.kind === "platform") {
    if (target.hosts === undefined) return `platform at ${target.host}`;
    const each = target.hosts.map((h) => `${h.host} (${h.groups.join(", ")})`);
    return `platform at ${each.slice(0, -1).join(", ")} and ${each.at(-1)!}`;
  }
  const relative = path.relative(cwd, target.stateDir);
  const shown =
    relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : target.stateDir;
  return `embedded emulator (state in ${shown.split(path.sep).join("/")})`;
}

/**
 * Credentials from the environment: `CARTE_CLIENT_ID` and `CARTE_CLIENT_SECRET`, or the variables
 * `names` gives (a platform's, carte.yaml `platforms: NAME: credentials:`).
 */
export function credentialsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  names: CredentialNames = { clientId: "CARTE_CLIENT_ID", clientSecret: "CARTE_CLIENT_SECRET" },
): {
  clientId?: string;
  clientSecret?: string;
} {
  // Read by name from the environment, never as a key of a plain object the files shape.
  const id = Object.hasOwn(env, names.clientId) ? env[names.clientId] : undefined;
  const secret = Object.hasOwn(env, names.clientSecret) ? env[names.clientSecret] : undefined;
  return {
    ...(id ? { clientId: id } : {}),
    ...(secret ? { clientSecret: secret } : {}),
  };
}

/** Where a platform of carte.yaml `platforms:` is written, for the errors about it. */
function platformPointer(p: ProjectPlatform | undefined): string {
  if (!p) return "/platform";
  return `/platforms/${p.name}${p.rehearsal ? "/development" : ""}`;
}

/** The missing credentials of a platform address, naming the variables to set (never a value). */
function missingCredentials(project: LoadedProject): ConfigError {
  const names = credentialNames(project);
  const p = project.platformOf;
  const whose = p ? `platform ${p.name}${p.rehearsal ? " (its development host)" : ""}: ` : "";
  return new ConfigError([
    {
      file: path.relative(process.cwd(), project.configFile) || project.configFile,
      line: 0,
      col: 0,
      pointer: platformPointer(p),
      message: `${whose}a platform address is configured but ${names.clientId} and ${names.clientSecret} are not both set in the environment`,
    },
  ]);
}

/**
 * What the pairing record of a session is kept under, besides its credentials: where it goes, and,
 * for a platform of carte.yaml `platforms:`, which one (a rehearsal's test stores apart from production).
 */
function pairingTarget(project: LoadedProject, where: string): string {
  const p = project.platformOf;
  return p ? `platform ${p.name}${p.rehearsal ? " development" : ""} ${where}` : where;
}

/**
 * The platform client's settings a run may tune (tests and benchmarks; the defaults otherwise): backoff
 * base and cap (ms), the cap of one `Retry-After` wait (ms), attempts, the client-side rate limit
 * (requests per second), the jitter source and the stop rule of the success rate.
 */
export type ClientTuning = Pick<
  ClientOptions,
  | "baseDelayMs"
  | "maxDelayMs"
  | "maxRetryAfterMs"
  | "maxAttempts"
  | "requestsPerSecond"
  | "random"
  | "successGuard"
>;

/** Options of {@link openSession}. */
export interface SessionOptions {
  env?: NodeJS.ProcessEnv;
  /** Per-request timeout of the client, in milliseconds. */
  timeoutMs?: number;
  /** Called before each retry of a call (progress output). */
  onRetry?: (info: RetryInfo) => void;
  /** Retry and pacing settings of the client (tests and benchmarks); the defaults otherwise. */
  client?: ClientTuning;
  /** Calls the session will have in flight at once (`--parallelism`): its connections to the platform. */
  connections?: number;
}

/**
 * Opens the session. Throws {@link ConfigError} when a platform address is configured but the
 * credentials are missing from the environment, and `FileWriteError` (src/errors.ts) when the embedded
 * emulator's `.carte` folder or state file is a link, or not a folder or a file (src/atomic.ts).
 */
export async function openSession(project: LoadedProject, options: SessionOptions = {}): Promise<Session> {
  const creds = credentialsFromEnv(options.env, credentialNames(project));
  if (project.platform) {
    if (!creds.clientId || !creds.clientSecret) throw missingCredentials(project);
    const client = new PlatformClient({
      baseUrl: project.platform.hosts,
      clientId: creds.clientId,
      clientSecret: creds.clientSecret,
      requestsPerSecond: project.platform.requestsPerSecond,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.onRetry ? { onRetry: options.onRetry } : {}),
      ...options.client,
      ...(options.connections ? { connections: options.connections } : {}),
    });
    const target = describeTarget(runTarget(project), project.root);
    return {
      client,
      emulator: undefined,
      stateFile: undefined,
      clientId: creds.clientId,
      ...(project.platformOf ? { countryOf: () => project.platformOf?.country } : {}),
      pairings: openPairingRecord(
        project.root,
        pairingKey(creds.clientSecret, creds.clientId, pairingTarget(project, target)),
      ),
      close: () => client.close(),
    };
  }

  const clientId = creds.clientId ?? EMBEDDED_CREDENTIALS.clientId;
  const clientSecret = creds.clientSecret ?? EMBEDDED_CREDENTIALS.clientSecret;
  const stateFile = path.join(embeddedStateDir(project), "emulator-state.json");
  // `.carte` and the file must be real ones of the project: a link committed in their place would make
  // carte write its state where it leads. Refused before the emulator starts, like every later write.
  const stateTarget = { root: project.root, purpose: "keep the embedded emulator's state in" };
  await checkWritable(stateFile, stateTarget);
  // Loaded here, not with this module: a run against a real platform never evaluates the emulator
  // (in the CLI's bundle, a module reached only this way is evaluated on its first import).
  const { startEmulator } = await import("../emulator/index.js");
  const emulator = await startEmulator({
    host: "127.0.0.1",
    port: 0,
    // Each API group at its own address, as on the platform: a call sent to another group's address
    // fails (404) in every run against the embedded emulator, not only against the platform.
    splitHosts: true,
    stateFile,
    stateRoot: stateTarget.root,
    applyDelayMs: project.emulator.applyDelayMs,
  });
  try {
    emulator.provision({
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          stores: Object.entries(project.desired.stores).map(([key, s]) => ({
            id: s.store.storeId,
            integration_id: s.store.integrationId,
            name: s.store.name,
            country: embeddedCountry(project, key),
          })),
        },
      ],
    });
  } catch (err) {
    // The server listens already: close it, or the process never exits (`plan` would print this
    // error and hang, `import` for minutes).
    await emulator.close();
    throw new ConfigError([
      {
        file: path.relative(process.cwd(), stateFile) || stateFile,
        line: 0,
        col: 0,
        pointer: "",
        message:
          `the embedded emulator cannot serve these stores to client ${clientId}: ` +
          `${err instanceof Error ? err.message : String(err)}. Its state belongs to the credentials of ` +
          `an earlier run: run with the same ${credentialNames(project).clientId} (or none), or delete this file to start afresh`,
      },
    ]);
  }
  const client = new PlatformClient({
    baseUrl: emulator.urls,
    clientId,
    clientSecret,
    // The embedded emulator runs in this process: no need to pace the calls.
    requestsPerSecond: Infinity,
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    ...options.client,
    ...(options.connections ? { connections: options.connections } : {}),
  });
  return {
    client,
    emulator,
    stateFile,
    clientId,
    pairings: openPairingRecord(
      project.root,
      pairingKey(clientSecret, clientId, pairingTarget(project, `embedded emulator ${stateFile}`)),
    ),
    countryOf: (key) => embeddedCountry(project, key),
    close: async () => {
      await client.close();
      await emulator.close();
    },
  };
}
