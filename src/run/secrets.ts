/**
 * Where webhook secrets go. The platform returns an event's secret when its webhook
 * is created (`POST /webhook`, docs/platform-api.md §4.5 "secret: returned when a webhook is created", §2.7)
 * and when it is rotated (`PUT /webhook/{event}/reset-secret`, docs/platform-api.md §4.5); receivers need it
 * to check the `Platform-Signature` of deliveries (docs/platform-api.md §4.5). It is shown once.
 *
 * A secret is written only to a sink the user chose:
 * - a secrets file (`--secrets-file FILE`, `CARTE_SECRETS_FILE`, or carte.yaml `secrets_file:`): a map
 *   event → secret, JSON, or
 *   YAML when the name ends in `.yaml`/`.yml`; its folder created 0700 when missing, the file created
 *   with mode 0600 and merged atomically (src/atomic.ts: a temporary 0600 file in the same folder,
 *   fsync, rename; temporary files of killed runs are removed by the next write), never through a
 *   link: a link in place of the file or of a folder on its way under the project folder (or the
 *   working directory) is refused;
 * - in a GitHub Actions job (`GITHUB_ACTIONS=true`): `::add-mask::<secret>` is printed to standard
 *   output first, so that the runner masks it in every later log line, then the secret goes to the
 *   secrets file when one is named, else to the step output `webhook_secret_<EVENT>` (`$GITHUB_OUTPUT`).
 *
 * Before the first call that returns a secret, {@link prepareSecretSink} proves the sink can keep it
 * (the folder is created, the file read, a marker written beside it) and refuses the whole apply
 * otherwise, before any write call. The marker, `FILE.pending`, is a journal of the secrets on their
 * way: per event, when the call was about to be made and a fingerprint of the secret the file held for
 * the event then (never a secret). Each entry is removed once its secret is saved. One left behind (a
 * kill just after `POST /webhook`, a full disk, a lost answer) is read by the next `carte plan` and
 * `carte apply` ({@link findLostSecrets}): when the file now holds another secret for the event, it was
 * saved after all (only the marker's update failed) and the apply clears the entry; otherwise the
 * secret is lost, and when the platform has the webhook, the plan says so and the apply rotates the
 * secret (`PUT /webhook/{event}/reset-secret`) and saves the new one ({@link rotateLostSecrets}),
 * reported as rotated. An event the platform does not have made no secret: the apply clears it.
 *
 * Never to the terminal, a plan, an apply report, a log or an error message: the executor hands the
 * answer of a secret-bearing call (an endpoint whose spec declares `secret`) to {@link secretCollector} and
 * keeps no response body anywhere else. Errors of this module name files and error codes only, never
 * file contents (a JSON or YAML parse error quotes the text it failed on, so those are swallowed).
 */

import { createHash } from "node:crypto";
import { appendFile, lstat, readFile } from "node:fs/promises";
import path from "node:path";
import type { ProjectPlatform } from "../config/platforms.js";
import { parse, stringify } from "yaml";
import {
  checkWritable,
  ensureFolder,
  PRIVATE_DIR_MODE,
  removeFile,
  removeStaleTemps,
  rootFor,
  writeFileAtomic,
  type WriteTarget,
} from "../atomic.js";
import { CommandLineError, ConfigError, FileWriteError, SecretError, UsageError } from "../errors.js";
import type { OperationResult } from "../apply/operation-result.js";
import type { PlatformClient } from "../platform/client.js";
import { Endpoints } from "../plan/endpoints.js";
import type { Operation, Plan } from "../plan/types.js";
import { eventSecret, resetSecret } from "../platform/webhook-calls.js";

/** A place where webhook secrets are kept. */
export interface SecretSink {
  /** Where the secret of an event goes, for messages (a file name, a step output); never a secret. */
  where(event: string): string;
  /**
   * Keeps the secret of an event's webhook. Rejects with an error whose message names the place and
   * the cause, never the secret.
   */
  put(event: string, secret: string): Promise<void>;
  /**
   * Before any call that may return a secret: proves the place can keep the secrets of `events` and
   * notes that they are on their way (a marker without the secrets). Rejects with an error whose
   * message names the place and the cause. Absent: nothing to prove.
   */
  prepare?(events: string[]): Promise<void>;
  /**
   * Forgets events of the journal of secrets on their way: those whose call made no secret (it failed
   * or was skipped), those saved after all, those the platform does not have.
   */
  release?(events: string[]): Promise<void>;
  /**
   * The secrets file whose marker journals the secrets on their way (absolute), when this sink keeps
   * secrets in one: where {@link findLostSecrets} looks.
   */
  readonly journal?: string;
}

/** How to get a discarded or lost secret back: rotate it into a sink. */
export function rotateHint(event: string): string {
  return `carte webhooks rotate-secret ${event} --secrets-file FILE`;
}

/** The warning given when a secret arrives and no sink is configured. Names the event only. */
export function discardedMessage(event: string): string {
  return (
    `Warning: the platform returned the secret of the ${event} webhook and it was discarded, because ` +
    `no secrets file is configured (--secrets-file FILE, CARTE_SECRETS_FILE or secrets_file: in ` +
    `carte.yaml). To get a new one into a ` +
    `file, run: ${rotateHint(event)}`
  );
}

function code(err: unknown): string {
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === "string" ? c : "unknown error";
}

/** The step output file could not be written: the file system's failure, named by its code. */
function stepOutputError(file: string, err: unknown): FileWriteError {
  return new FileWriteError({
    file,
    at: file,
    reason: "io",
    code: code(err),
    message: `cannot write the step output file $GITHUB_OUTPUT (${code(err)})`,
    cause: err,
  });
}

function isSecretMap(v: unknown): v is Record<string, string> {
  return (
    typeof v === "object" &&
    v !== null &&
    !Array.isArray(v) &&
    Object.values(v as Record<string, unknown>).every((x) => typeof x === "string")
  );
}

/** Whether a secrets file is written as YAML (by its extension); JSON otherwise. */
export function isYamlFile(file: string): boolean {
  return /\.ya?ml$/i.test(file);
}

/** Reads a secrets file: event → secret. A missing or empty file is an empty map. */
export async function readSecretsFile(file: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if (code(err) === "ENOENT") return {};
    throw new UsageError(`cannot read the secrets file ${file} (${code(err)})`);
  }
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    // logLevel silent: the yaml library prints no Node warning (a list used as a key fails the check below).
    parsed = isYamlFile(file) ? parse(text, { logLevel: "silent" }) : JSON.parse(text);
  } catch {
    // The parser's message quotes the text: never show it.
    parsed = undefined;
  }
  if (!isSecretMap(parsed)) {
    throw new UsageError(
      `the secrets file ${file} is not a ${isYamlFile(file) ? "YAML" : "JSON"} map of event names to ` +
        `secrets; it was left as it is`,
    );
  }
  return parsed;
}

/** The secret of `event` in a secrets map, read as data (never through the map's prototype). */
function secretIn(map: Record<string, string>, event: string): string | undefined {
  return Object.hasOwn(map, event) ? map[event] : undefined;
}

/**
 * A fingerprint of a secret for the marker: the first 16 hex digits of a SHA-256 of it, enough to tell
 * that the file holds another secret than when the marker was written, and nothing to sign with.
 * `null` for no secret.
 */
function fingerprint(secret: string | undefined): string | null {
  if (secret === undefined) return null;
  return createHash("sha256").update("carte webhook secret\0").update(secret).digest("hex").slice(0, 16);
}

/** Merges one secret into a secrets file: read, set, write atomically (0600, folder 0700). */
async function mergeSecret(file: string, root: string, event: string, secret: string): Promise<void> {
  const target: WriteTarget = { root, purpose: `save the secret of the ${event} webhook to` };
  // A link in its place is refused before it is read: its content would be merged into the file.
  await checkWritable(file, target);
  const map = await readSecretsFile(file);
  map[event] = secret;
  const sorted = Object.fromEntries(
    Object.keys(map)
      .sort()
      .map((k) => [k, map[k]!]),
  );
  const text = isYamlFile(file) ? stringify(sorted) : JSON.stringify(sorted, null, 2) + "\n";
  // The error names the file, the cause in words and the event, never the secret.
  await writeFileAtomic(file, text, target);
}

// ---- the marker of secrets on their way --------------------------------------------------------------

/**
 * The marker beside a secrets file: `FILE.pending`, a JSON map event → `{since, before}`: the ISO time
 * at which a call that returns the event's secret was about to be made, and the fingerprint of the
 * secret the file held for the event then (`null`: none). Holds no secret. Markers written by earlier
 * versions map an event to the time alone.
 */
export function pendingFileOf(file: string): string {
  return `${file}.pending`;
}

/** One event of the marker ({@link pendingFileOf}). */
export interface PendingSecret {
  /** ISO 8601 time at which the call that returns the secret was about to be made. */
  since: string;
  /**
   * Fingerprint of the secret the file held for the event when the marker was written; `null` when it
   * held none; absent in markers of earlier versions (then whether it was saved since is unknown).
   */
  before?: string | null;
}

/** Reads the marker of a secrets file; a missing or unreadable marker is empty. */
export async function readPending(file: string): Promise<Map<string, PendingSecret>> {
  const out = new Map<string, PendingSecret>();
  try {
    // A link in its place is never read (its target's keys would be printed as events); writing the
    // marker refuses it, naming it.
    if (!(await lstat(pendingFileOf(file))).isFile()) return out;
    const parsed = JSON.parse(await readFile(pendingFileOf(file), "utf8")) as unknown;
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return out;
    for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof v === "string") out.set(k, { since: v });
      else if (typeof v === "object" && v !== null && typeof (v as PendingSecret).since === "string") {
        const before = (v as PendingSecret).before;
        out.set(k, {
          since: (v as PendingSecret).since,
          ...(typeof before === "string" || before === null ? { before } : {}),
        });
      }
    }
    return out;
  } catch {
    return out;
  }
}

async function writePending(file: string, root: string, pending: Map<string, PendingSecret>): Promise<void> {
  const events = [...pending.keys()].sort();
  const target: WriteTarget = { root, purpose: "note the webhook secrets on their way in" };
  if (events.length === 0) {
    await removeFile(pendingFileOf(file), target);
    return;
  }
  const sorted = Object.fromEntries(events.map((e) => [e, pending.get(e)!]));
  await writeFileAtomic(pendingFileOf(file), JSON.stringify(sorted, null, 2) + "\n", target);
}

/** A webhook secret the platform made that was never saved ({@link findLostSecrets}). */
export interface LostSecret {
  event: string;
  /** ISO 8601 time at which the call that returned it was about to be made. */
  since: string;
}

/**
 * What the marker beside the secrets file `file` says, checked against the file: `lost`, the events
 * whose secret was never saved (the file holds the secret it held when the marker was written, or none);
 * `saved`, the events whose secret was saved after all (the file holds another one now: only the
 * marker's update failed). Nothing is written.
 *
 * @throws {@link ConfigError} naming the file when it cannot be read or is not a map of secrets (never
 *   quoting it).
 */
export async function findLostSecrets(file: string): Promise<{ lost: LostSecret[]; saved: string[] }> {
  const pending = await readPending(file);
  if (pending.size === 0) return { lost: [], saved: [] };
  let map: Record<string, string>;
  try {
    map = await readSecretsFile(file);
  } catch (err) {
    throw new ConfigError([
      {
        file,
        line: 0,
        col: 0,
        pointer: "",
        message:
          `cannot tell whether the webhook secrets of ${[...pending.keys()].sort().join(", ")} were saved: ` +
          `${err instanceof Error ? err.message : String(err)}`,
      },
    ]);
  }
  const lost: LostSecret[] = [];
  const saved: string[] = [];
  for (const event of [...pending.keys()].sort()) {
    const entry = pending.get(event)!;
    const now = fingerprint(secretIn(map, event));
    if (entry.before !== undefined && now !== null && now !== entry.before) saved.push(event);
    else lost.push({ event, since: entry.since });
  }
  return { lost, saved };
}

/**
 * A secrets file sink. Writes are serialized, so that secrets returned by concurrent calls are all
 * kept (each write is a read-merge-rename of the whole file), and so are the updates of its marker.
 *
 * @param file - the secrets file (absolute, or relative to the working directory).
 * @param shown - its name in messages.
 * @param root - the folder it must stay under, every folder below it a real one, never a link
 *   (src/atomic.ts); default {@link rootFor} of the file (the working directory when it holds it).
 */
export function secretsFileSink(
  file: string,
  shown: string = file,
  root: string = rootFor(file),
): SecretSink {
  let queue: Promise<void> = Promise.resolve();
  const serial = (task: () => Promise<void>): Promise<void> => {
    const next = queue.then(task);
    queue = next.catch(() => undefined);
    return next;
  };
  const unmark = async (events: string[]): Promise<void> => {
    const pending = await readPending(file);
    if (!events.some((e) => pending.has(e))) return;
    for (const e of events) pending.delete(e);
    await writePending(file, root, pending);
  };
  return {
    journal: path.resolve(file),
    where: () => shown,
    put(event, secret) {
      return serial(async () => {
        await mergeSecret(file, root, event, secret);
        // The secret is kept: its marker goes. Should that fail, the next run finds the file holding
        // another secret than the marker noted, and clears it (findLostSecrets).
        await unmark([event]).catch(() => undefined);
      });
    },
    prepare(events) {
      return serial(async () => {
        // Its folders real ones under the root (0700 when made), never a link: src/atomic.ts.
        await ensureFolder(path.dirname(path.resolve(file)), {
          root,
          purpose: "make the folder of the secrets file",
          dirMode: PRIVATE_DIR_MODE,
        });
        await removeStaleTemps(file);
        await removeStaleTemps(pendingFileOf(file));
        // Links in place of the file or its marker are refused before either is read.
        const target: WriteTarget = { root, purpose: "keep webhook secrets in" };
        await checkWritable(file, target);
        await checkWritable(pendingFileOf(file), target);
        // A file that cannot be read or merged would fail every save after the secrets were made.
        const saved = await readSecretsFile(file);
        const pending = await readPending(file);
        const since = new Date().toISOString();
        // An event already marked keeps its entry: its secret is lost since then (the run reads the
        // marker and clears the entries of secrets saved since before it prepares).
        for (const e of events) {
          if (!pending.has(e)) pending.set(e, { since, before: fingerprint(secretIn(saved, e)) });
        }
        // Writing the marker beside the file proves what a save needs: a new file in the folder,
        // renamed over an old one.
        await writePending(file, root, pending);
      });
    },
    release(events) {
      return serial(() => unmark(events));
    },
  };
}

/** Name of the GitHub Actions step output that carries an event's secret. */
export function githubOutputName(event: string): string {
  return `webhook_secret_${event}`;
}

/**
 * The GitHub Actions sink, of the CLI in a job and of the Action: masks the secret (`::add-mask::` on
 * standard output, before anything else can print it), then keeps it in `file` when given, and only
 * there, else in the step output `webhook_secret_<EVENT>` of `$GITHUB_OUTPUT`.
 */
export function githubActionsSink(opts: {
  /** Writes to standard output, where the runner reads workflow commands. */
  out: (text: string) => void;
  /** `$GITHUB_OUTPUT`. */
  outputFile: string | undefined;
  /** A secrets file named by the user: the secret goes there instead of the step output. */
  file?: SecretSink | undefined;
  /**
   * Sets a step output in `outputFile` (the Action's `core.setOutput`, which writes every output of the
   * step the same way); default: `name=value` appended to it.
   */
  setOutput?: ((name: string, value: string) => void) | undefined;
}): SecretSink {
  const { out, outputFile, file, setOutput } = opts;
  return {
    ...(file?.journal ? { journal: file.journal } : {}),
    where: (event) => (file ? file.where(event) : `the step output ${githubOutputName(event)}`),
    async put(event, secret) {
      // A line break would end the mask command or the output line and start another (workflow
      // command injection by a hostile answer): such a value is refused, unprinted.
      if (/[\r\n]/.test(secret) || !/^[A-Za-z0-9_.-]+$/.test(event)) {
        throw new SecretError(
          "the platform's answer holds a line break or an unusual event name; it was not kept",
        );
      }
      out(`::add-mask::${secret}\n`);
      if (file) return file.put(event, secret);
      if (!outputFile) {
        throw new CommandLineError(
          "GITHUB_OUTPUT is not set, so the secret has nowhere to go; name a secrets file (--secrets-file FILE)",
        );
      }
      try {
        if (setOutput) setOutput(githubOutputName(event), secret);
        else await appendFile(outputFile, `${githubOutputName(event)}=${secret}\n`, { mode: 0o600 });
      } catch (err) {
        throw stepOutputError(outputFile, err);
      }
    },
    async prepare(events) {
      if (file) return file.prepare?.(events);
      if (!outputFile) {
        throw new CommandLineError(
          "GITHUB_OUTPUT is not set, so a secret would have nowhere to go; name a secrets file (--secrets-file FILE)",
        );
      }
      try {
        await appendFile(outputFile, "", { mode: 0o600 });
      } catch (err) {
        throw stepOutputError(outputFile, err);
      }
    },
    async release(events) {
      await file?.release?.(events);
    },
  };
}

/** A sink that keeps nothing and says so (without the secret) through `warn`. */
export function discardingSink(warn: (message: string) => void): SecretSink {
  return {
    where: () => "nowhere (discarded)",
    put(event) {
      warn(discardedMessage(event));
      return Promise.resolve();
    },
  };
}

/** Options of {@link resolveSecretSink}. */
export interface SecretSinkOptions {
  /** `--secrets-file FILE`; takes precedence over `CARTE_SECRETS_FILE`. */
  file?: string | undefined;
  /** carte.yaml `secrets_file:` (absolute, `LoadedProject.secretsFile`); used when neither above is set. */
  configured?: string | undefined;
  /** The project folder (`LoadedProject.root`): a secrets file inside it stays under it ({@link rootFor}). */
  projectRoot?: string | undefined;
  /**
   * The platform of carte.yaml `platforms:` the run is of (`LoadedProject.platformOf`): its secrets go
   * to a file of its own ({@link secretsFileName}).
   */
  platform?: Pick<ProjectPlatform, "name" | "rehearsal"> | undefined;
  env: NodeJS.ProcessEnv;
  /** Standard output (for `::add-mask::` in GitHub Actions). */
  out: (text: string) => void;
}

/**
 * The sink the user configured: a secrets file (`--secrets-file`, else `CARTE_SECRETS_FILE`, else
 * carte.yaml `secrets_file:`), wrapped in the GitHub Actions sink when `GITHUB_ACTIONS=true`;
 * `undefined` when nothing is configured.
 */
export function resolveSecretSink(opts: SecretSinkOptions): SecretSink | undefined {
  const name = secretsFileName(opts);
  const file = name
    ? secretsFileSink(path.resolve(name), name, rootFor(path.resolve(name), opts.projectRoot))
    : undefined;
  if (opts.env.GITHUB_ACTIONS === "true") {
    return githubActionsSink({ out: opts.out, outputFile: opts.env.GITHUB_OUTPUT || undefined, file });
  }
  return file;
}

/** Whether answers of an endpoint carry a secret (its spec declares `secret`, src/kinds/resource-kind.ts). */
export function isSecretBearing(name: string): boolean {
  return Endpoints[name]?.secret !== undefined;
}

export { eventSecret };

/**
 * The executor's answer hook (`ExecuteOptions.onResponse`): hands the secret of a secret-bearing
 * operation's answer to the sink; ignores every other answer. Rejects when the sink fails, with a
 * message that names the event and how to rotate the secret, never the secret.
 */
export function secretCollector(
  sink: SecretSink,
): (op: { endpoint: string }, body: unknown) => Promise<void> {
  return async (op, body) => {
    const found = Endpoints[op.endpoint]?.secret?.(body);
    if (found) await keepSecret(sink, found.event, found.secret);
  };
}

/**
 * Hands one secret to the sink. Rejects when the sink fails, with a message that names the event and
 * what happens next, never the secret.
 */
async function keepSecret(sink: SecretSink, event: string, secret: string): Promise<void> {
  try {
    await sink.put(event, secret);
  } catch (err) {
    // Sinks never name the secret; redact anyway, whatever sink this is.
    const why = (err instanceof Error ? err.message : String(err)).split(secret).join("[REDACTED]");
    throw new SecretError(
      `the call succeeded, but the secret of the ${event} webhook could not be kept: ${why}. ` +
        `Fix the cause: the next carte apply rotates it and saves the new one (or run: ${rotateHint(event)})`,
    );
  }
}

// ---- before and after the calls that return secrets ------------------------------------------------

/** The event whose secret an operation's answer carries (`params.event` of the webhook endpoints). */
function eventOf(op: Operation): string {
  const e = op.params?.event;
  return typeof e === "string" || typeof e === "number" ? String(e) : op.id;
}

/** The operations of a plan whose answers carry a secret (their endpoint declares `secret`). */
export function secretBearingOperations(plan: Plan): Operation[] {
  return plan.operations.filter((op) => isSecretBearing(op.endpoint));
}

/** What {@link prepareSecretSink} gives the apply: the sink to use and what to do after the calls. */
export interface PreparedSecrets {
  /** The sink to hand to the executor (it records which events had their secret kept). */
  sink: SecretSink;
  /**
   * After the calls, with their results: forgets the marker of the secret-bearing calls that failed
   * or were skipped (no secret was made), and returns the events whose call succeeded, or was made
   * although it failed (`lostAnswer: "made"`), but whose secret never arrived (the answer was lost, or
   * held none): lost secrets, to be rotated. Their marker stays, and so does that of a call that may
   * have been made (`lostAnswer: "unknown"`). Events whose secret arrived but could not be kept are reported by the failed
   * operation itself (its message names the event) and keep their marker too.
   */
  finish(results: readonly OperationResult[]): Promise<string[]>;
}

/**
 * Readies the sink for a plan before any call is made. When the plan has
 * operations whose answers carry a secret (webhook creates, docs/platform-api.md §2.7), the sink must prove
 * it can keep them: a secrets file's folder is created (0700), the file read, and the marker `FILE.pending`
 * written beside it; the step output file must be writable in GitHub Actions.
 *
 * @throws {ConfigError} naming the secrets file (or `$GITHUB_OUTPUT`) and the cause, when it cannot:
 *   the apply is refused before any write call, so no secret is made that could not be kept.
 */
export async function prepareSecretSink(plan: Plan, sink: SecretSink): Promise<PreparedSecrets> {
  const ops = secretBearingOperations(plan);
  await prepareEvents(sink, [...new Set(ops.map(eventOf))]);
  const kept = new Set<string>();
  const unsaved = new Set<string>();
  return {
    sink: {
      where: (event) => sink.where(event),
      async put(event, secret) {
        try {
          await sink.put(event, secret);
        } catch (err) {
          unsaved.add(event);
          throw err;
        }
        kept.add(event);
      },
    },
    async finish(results) {
      const byId = new Map(results.map((r) => [r.id, r]));
      const lost: string[] = [];
      const release: string[] = [];
      for (const op of ops) {
        const r = byId.get(op.id);
        const event = eventOf(op);
        // A failed save is in the failed call's message, and its marker stays.
        if (kept.has(event) || unsaved.has(event)) continue;
        // A call whose answer was lost may be failed and made all the same: a read showed
        // the webhook made, but rotating its secret failed. Its secret is lost like that of a call
        // that succeeded. One that may have been made keeps its marker: the next plan says so.
        if (r?.status === "ok" || r?.lostAnswer === "made") lost.push(event);
        else if (r?.lostAnswer !== "unknown") release.push(event);
      }
      if (release.length > 0) await sink.release?.(release).catch(() => undefined);
      return [...new Set(lost)];
    },
  };
}

/**
 * Proves that `sink` can keep the secrets of `events` and marks them as on their way
 * ({@link SecretSink.prepare}); nothing to do for no events.
 *
 * @throws {ConfigError} naming the place and the cause; the caller makes no call then.
 */
export async function prepareEvents(sink: SecretSink, events: readonly string[]): Promise<void> {
  if (events.length === 0 || !sink.prepare) return;
  try {
    await sink.prepare([...events]);
  } catch (err) {
    throw new ConfigError([
      {
        file: sink.where(events[0]!),
        line: 0,
        col: 0,
        pointer: "",
        message:
          `cannot keep the webhook secrets the platform will return for ${events.join(", ")}: ` +
          `${err instanceof Error ? err.message : String(err)}. Nothing was changed on the platform`,
      },
    ]);
  }
}

/** The error message of secrets made by the platform that carte never received. Names events only. */
export function lostSecretsMessage(events: readonly string[]): string {
  return events
    .map(
      (e) =>
        `the platform made the secret of the ${e} webhook but its answer was lost, so the secret was ` +
        `not kept; the next carte apply rotates it and saves the new one, or get one now with: ` +
        rotateHint(e),
    )
    .join("\n");
}

/** What {@link rotateLostSecrets} did. */
export interface Rotations {
  /** One result per event, as the executor reports a call (`PUT …/webhook/EVENT/reset-secret`). */
  results: OperationResult[];
  /** The events whose secret was rotated and saved, and where it went. */
  rotated: { event: string; where: string }[];
}

/**
 * Gets anew, one after the other, the secrets an earlier run made and never saved (the plan's
 * `rotateSecrets`, from {@link findLostSecrets}): `PUT /webhook/{event}/reset-secret`
 * (docs/platform-api.md §4.5), the new secret handed to `sink` as a call's answer is ({@link
 * secretCollector}). The marker's entry of the event stays until the new secret is saved, so a rotation
 * killed or failed in turn is made again by the next apply. Never throws: a failed rotation or save is a
 * `failed` result whose message names the event and the cause, never the secret.
 */
export async function rotateLostSecrets(
  events: readonly LostSecret[],
  client: PlatformClient,
  sink: SecretSink,
): Promise<Rotations> {
  const results: OperationResult[] = [];
  const rotated: Rotations["rotated"] = [];
  for (const { event, since } of events) {
    const started = Date.now();
    const base = {
      id: `webhook.reset-secret#${event}`,
      method: "PUT",
      path: `/api/v2/restaurants-integrations-public-api/webhook/${encodeURIComponent(event)}/reset-secret`,
    };
    try {
      const found = eventSecret(await resetSecret(client, event));
      if (!found) throw new SecretError("the platform rotated the secret but its answer held none");
      await keepSecret(sink, event, found.secret);
      const where = sink.where(event);
      rotated.push({ event, where });
      results.push({
        ...base,
        status: "ok",
        durationMs: Date.now() - started,
        message:
          `rotated: the secret an earlier run got at ${since} was never saved; ` +
          `the new one is in ${where}`,
      });
    } catch (err) {
      results.push({
        ...base,
        status: "failed",
        durationMs: Date.now() - started,
        message:
          `the secret an earlier run got at ${since} was never saved, and rotating it failed: ` +
          `${err instanceof Error ? err.message : String(err)}; the next apply tries again`,
      });
    }
  }
  return { results, rotated };
}

/**
 * The secrets file a command uses: `--secrets-file`, else `CARTE_SECRETS_FILE`, else carte.yaml's. Of
 * a platform of carte.yaml `platforms:` (`platform`), a file of its own beside it, the platform's name
 * before the extension (`secrets.yaml` → `secrets.co.yaml`, `secrets.co-development.yaml` for its
 * rehearsal): each country's platform has its own webhooks, and the same event's secret of another
 * country must not replace it.
 */
export function secretsFileName(
  opts: Pick<SecretSinkOptions, "file" | "configured" | "env" | "platform">,
): string | undefined {
  const name = opts.file ?? (opts.env.CARTE_SECRETS_FILE || undefined) ?? opts.configured;
  const p = opts.platform;
  if (name === undefined || p === undefined) return name;
  const ext = path.extname(name);
  const own = `${p.name}${p.rehearsal ? "-development" : ""}`;
  return `${name.slice(0, name.length - ext.length)}.${own}${ext}`;
}
