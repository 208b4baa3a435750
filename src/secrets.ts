/**
 * Where webhook secrets go (issue 4, item 5). The platform returns an event's secret when its webhook
 * is created (`POST /webhook`, spec §2.4 "secret: returned when a webhook is created", §4.7) and when it
 * is rotated (`PUT /webhook/{event}/reset-secret`, platform notes "Webhooks"); receivers need it to
 * check the `Platform-Signature` of deliveries (platform notes "Webhooks"). It is shown once.
 *
 * A secret is written only to a sink the user chose:
 * - a secrets file (`--secrets-file FILE`, `CARTE_SECRETS_FILE`, or carte.yaml `secrets_file:`): a map
 *   event → secret, JSON, or
 *   YAML when the name ends in `.yaml`/`.yml`; created with mode 0600 and merged atomically (a
 *   temporary file in the same folder, then a rename);
 * - in a GitHub Actions job (`GITHUB_ACTIONS=true`): `::add-mask::<secret>` is printed to standard
 *   output first, so that the runner masks it in every later log line, then the secret goes to the
 *   secrets file when one is named, else to the step output `webhook_secret_<EVENT>` (`$GITHUB_OUTPUT`).
 *
 * Never to the terminal, a plan, an apply report, a log or an error message: the executor hands the
 * answer of a secret-bearing call (an endpoint whose spec declares `secret`) to {@link secretCollector} and
 * keeps no response body anywhere else. Errors of this module name files and error codes only, never
 * file contents (a JSON or YAML parse error quotes the text it failed on, so those are swallowed).
 */

import { randomBytes } from "node:crypto";
import { appendFile, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { parse, stringify } from "yaml";
import { Endpoints } from "./plan/endpoints.js";
import { eventSecret } from "./platform/webhooks.js";

/** A place where webhook secrets are kept. */
export interface SecretSink {
  /** Where the secret of an event goes, for messages (a file name, a step output); never a secret. */
  where(event: string): string;
  /**
   * Keeps the secret of an event's webhook. Rejects with an error whose message names the place and
   * the cause, never the secret.
   */
  put(event: string, secret: string): Promise<void>;
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
    throw new Error(`cannot read the secrets file ${file} (${code(err)})`);
  }
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = isYamlFile(file) ? parse(text) : JSON.parse(text);
  } catch {
    // The parser's message quotes the text: never show it.
    parsed = undefined;
  }
  if (!isSecretMap(parsed)) {
    throw new Error(
      `the secrets file ${file} is not a ${isYamlFile(file) ? "YAML" : "JSON"} map of event names to ` +
        `secrets; it was left as it is`,
    );
  }
  return parsed;
}

/** Merges one secret into a secrets file: read, set, write a 0600 temporary file, rename over. */
async function mergeSecret(file: string, event: string, secret: string): Promise<void> {
  const map = await readSecretsFile(file);
  map[event] = secret;
  const sorted = Object.fromEntries(
    Object.keys(map)
      .sort()
      .map((k) => [k, map[k]!]),
  );
  const text = isYamlFile(file) ? stringify(sorted) : JSON.stringify(sorted, null, 2) + "\n";
  const tmp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`,
  );
  try {
    // `wx`: never follow or reuse an existing file; 0600 from the start, so the secret is never
    // readable by others, not even for a moment.
    await writeFile(tmp, text, { mode: 0o600, flag: "wx" });
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw new Error(`cannot write the secrets file ${file} (${code(err)})`);
  }
}

/**
 * A secrets file sink. Writes are serialized, so that secrets returned by concurrent calls are all
 * kept (each write is a read-merge-rename of the whole file).
 */
export function secretsFileSink(file: string, shown: string = file): SecretSink {
  let queue: Promise<void> = Promise.resolve();
  return {
    where: () => shown,
    put(event, secret) {
      const next = queue.then(() => mergeSecret(file, event, secret));
      queue = next.catch(() => undefined);
      return next;
    },
  };
}

/** Name of the GitHub Actions step output that carries an event's secret. */
export function githubOutputName(event: string): string {
  return `webhook_secret_${event}`;
}

/**
 * The GitHub Actions sink: masks the secret (`::add-mask::` on standard output, before anything else
 * can print it), then keeps it in `file` when given, else in the step output
 * `webhook_secret_<EVENT>` appended to `$GITHUB_OUTPUT`.
 */
export function githubActionsSink(opts: {
  /** Writes to standard output, where the runner reads workflow commands. */
  out: (text: string) => void;
  /** `$GITHUB_OUTPUT`. */
  outputFile: string | undefined;
  /** A secrets file named by the user, which takes precedence over the step output. */
  file?: SecretSink | undefined;
}): SecretSink {
  const { out, outputFile, file } = opts;
  return {
    where: (event) => (file ? file.where(event) : `the step output ${githubOutputName(event)}`),
    async put(event, secret) {
      out(`::add-mask::${secret}\n`);
      if (file) return file.put(event, secret);
      if (!outputFile) {
        throw new Error(
          "GITHUB_OUTPUT is not set, so the secret has nowhere to go; name a secrets file (--secrets-file FILE)",
        );
      }
      try {
        await appendFile(outputFile, `${githubOutputName(event)}=${secret}\n`, { mode: 0o600 });
      } catch (err) {
        throw new Error(`cannot write the step output file $GITHUB_OUTPUT (${code(err)})`);
      }
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
  const name = opts.file ?? (opts.env.CARTE_SECRETS_FILE || undefined) ?? opts.configured;
  const file = name ? secretsFileSink(path.resolve(name), name) : undefined;
  if (opts.env.GITHUB_ACTIONS === "true") {
    return githubActionsSink({ out: opts.out, outputFile: opts.env.GITHUB_OUTPUT || undefined, file });
  }
  return file;
}

// ---- secret-bearing answers ------------------------------------------------------------------------

/** Picks the secret out of a call's answer; `undefined` when it holds none. */
export type SecretExtractor = (body: unknown) => { event: string; secret: string } | undefined;

/** Whether answers of an endpoint carry a secret (its spec declares `secret`, src/kinds/types.ts). */
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
    if (!found) return;
    try {
      await sink.put(found.event, found.secret);
    } catch (err) {
      // Sinks never name the secret; redact anyway, whatever sink this is.
      const why = (err instanceof Error ? err.message : String(err)).split(found.secret).join("[REDACTED]");
      throw new Error(
        `the call succeeded, but the secret of the ${found.event} webhook could not be kept: ${why}. ` +
          `Fix the cause, then get a new secret with: ${rotateHint(found.event)}`,
      );
    }
  };
}
