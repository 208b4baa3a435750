/**
 * The one errors module of carte. What carte tells a person is a {@link Diagnostic} (src/diagnostic.ts,
 * re-exported here): a severity, a summary, an optional detail and, when known, the place in a file,
 * for errors and warnings alike. Errors are typed by who must act on them:
 *
 * - {@link ConfigError}: the user must fix their files (every problem at once, located; each problem is
 *   an error diagnostic, {@link ConfigError.diagnostics}).
 * - {@link ApiError}: the platform refused or failed a call (method, path, status, message).
 * - {@link UnsafePlanError}: a safety guard refused the plan.
 * - {@link StalePlanError}: a saved plan no longer matches the platform or the files.
 * - {@link PlanningError}: a configured value the platform cannot take, found while planning.
 * - {@link MoneyError}: a money amount of the platform that cannot be converted exactly (finance).
 * - {@link ConvergenceError}: an apply the platform did not show.
 * - {@link UsageError}: a command used in a way that cannot work; {@link CommandLineError}, one of them,
 *   when the command line itself is wrong (only then does the CLI point at `carte --help`).
 * - {@link GitError}: git failed, or the repository is not as carte needs it.
 * - {@link PlanFileError}: a saved plan (or a run record holding one) cannot be read or is not one.
 * - {@link StateFileError}: the emulator's state (its file or folder, or a seed) cannot be used.
 * - {@link LockError}: another apply of the same stores holds the lock on this machine.
 * - {@link FileWriteError}: a file carte writes was refused (a link on its way) or could not be written.
 * - {@link SecretError}: a webhook secret the platform made could not be kept.
 * - {@link PartlyRefusedError}: the platform answered a call with success and refused some of its elements.
 * - anything else is a bug in carte ({@link InternalError}).
 *
 * {@link exitCodeFor} is the one mapping of these to exit codes, used by the CLI and the GitHub Action
 * alike (through the shared plan/apply path of src/run/run.ts).
 */

import { formatDiagnostic, type Diagnostic } from "./diagnostic.js";

export {
  diagnosticText,
  formatDiagnostic,
  formatWarning,
  warning,
  type Diagnostic,
  type Severity,
  type SourceRange,
} from "./diagnostic.js";

/** Exit codes of the `carte` command (see README, "Exit codes"). */
export const ExitCode = {
  /** Success, or no changes. */
  ok: 0,
  /** Any error. */
  error: 1,
  /** `plan --detailed-exitcode`: the plan has changes. */
  changes: 2,
  /** `finance reconcile`: a discrepancy or an entry that belongs to no payment was found. */
  discrepancy: 2,
  /** A safety guard refused the plan. */
  unsafe: 3,
} as const;

/** One of the exit codes of {@link ExitCode}. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** One located problem in a configuration file. Lines and columns are 1-based. */
export interface ConfigProblem {
  /** Path of the file as the user named it (relative to the working directory when possible). */
  file: string;
  /** 1-based line, or 0 when the problem concerns the whole file. */
  line: number;
  /** 1-based column, or 0 when unknown. */
  col: number;
  /** JSON pointer of the offending value inside the file, e.g. `/items/3/price`. */
  pointer: string;
  /** What is wrong and, where useful, what to do. */
  message: string;
  /** A summary of the file (e.g. checks skipped until its syntax is fixed): shown after its other problems. */
  summary?: boolean;
}

/**
 * A configuration problem as a diagnostic: an error at its file, line and column (the whole file when
 * its line is 0).
 */
export function problemDiagnostic(p: ConfigProblem): Diagnostic {
  return {
    severity: "error",
    summary: p.message,
    range: p.line > 0 ? { file: p.file, line: p.line, col: p.col } : { file: p.file },
  };
}

/** Formats a problem the way compilers do: `file:line:col: message`. */
export function formatProblem(p: ConfigProblem): string {
  return formatDiagnostic(problemDiagnostic(p));
}

/** Sorts problems by file, then line, then column, then message, for stable output. */
export function sortProblems(problems: ConfigProblem[]): ConfigProblem[] {
  return [...problems].sort(
    (a, b) =>
      a.file.localeCompare(b.file) ||
      Number(a.summary === true) - Number(b.summary === true) ||
      a.line - b.line ||
      a.col - b.col ||
      a.message.localeCompare(b.message),
  );
}

/**
 * The configuration is invalid. Carries every problem found, so that the user fixes them all in one go.
 * Thrown before any API call is made.
 */
export class ConfigError extends Error {
  readonly problems: ConfigProblem[];
  constructor(problems: ConfigProblem[]) {
    const sorted = sortProblems(problems);
    super(
      `${sorted.length} configuration problem${sorted.length === 1 ? "" : "s"}:\n` +
        sorted.map(formatProblem).join("\n"),
    );
    this.name = "ConfigError";
    this.problems = sorted;
  }

  /** The problems as error diagnostics, in the same order. */
  get diagnostics(): Diagnostic[] {
    return this.problems.map(problemDiagnostic);
  }
}

/** Replaces anything that looks like a bearer token or a client secret in a string. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, "$1[REDACTED]");
  for (const s of secrets) {
    if (s && s.length >= 4) out = out.split(s).join("[REDACTED]");
  }
  return out;
}

/**
 * The platform answered a call with a non-2xx status, or the call could not be made.
 * The message never contains the access token or the client secret.
 */
export class ApiError extends Error {
  /** HTTP method of the call. */
  readonly method: string;
  /** Path of the call, relative to the base address. */
  readonly path: string;
  /** HTTP status, or 0 when no response was received (connection error, timeout). */
  readonly status: number;
  /**
   * The platform's own message (`message` of the error body, docs/platform-api.md §4.10), when it gave one.
   */
  readonly platformMessage: string | undefined;
  /** The platform's error type (`type` of a menu validation error, docs/platform-api.md §4.10). */
  readonly platformType: string | undefined;
  /**
   * Set when an earlier attempt of the same call got no usable answer (no response, or 500, 502, 504):
   * the platform may have made the change although this last answer refuses it, so that only a read
   * can tell (src/apply/execute.ts settles such a call by its effect).
   */
  readonly earlierAnswerLost: boolean;

  constructor(init: {
    method: string;
    path: string;
    status: number;
    platformMessage?: string | undefined;
    platformType?: string | undefined;
    earlierAnswerLost?: boolean;
    cause?: unknown;
  }) {
    const detail = init.platformMessage ? `: ${init.platformMessage}` : "";
    const status = init.status === 0 ? "no response" : `HTTP ${init.status}`;
    super(redact(`${init.method} ${init.path} failed (${status})${detail}`), { cause: init.cause });
    this.name = "ApiError";
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.platformMessage = init.platformMessage === undefined ? undefined : redact(init.platformMessage);
    this.platformType = init.platformType;
    this.earlierAnswerLost = init.earlierAnswerLost === true;
  }
}

/**
 * The platform answered a call with a success status (2xx) and a body carte cannot use: not JSON (a
 * truncated body, an HTML page, a content type that is not JSON) or JSON without the shape the route's
 * response schema describes (schemas/platform/, src/platform/schemas.ts). Nothing of the answer was
 * used. The message names the call, the store when there is one, and what is wrong:
 * `the platform's answer to GET /restaurants/menu/v1/stores/900101/store-menu for store bog-centro
 * (900101) is not JSON: …` or `… does not have the shape of a StoreMenu …: /items/3/sku: expected a
 * string, got null`; it quotes no more of the body than a short excerpt, escaped as JSON. An
 * {@link ApiError} (its `status` is the answer's), so that whatever handles a failed call handles it.
 */
export class MalformedAnswerError extends ApiError {
  /** The route of the call, as the route table names it (`GET /restaurants/menu/v1/stores/{storeId}/store-menu`). */
  readonly route: string;
  /** The platform store id of the call's path, when its route has one (`storeId`, `store_id`). */
  readonly storeId: string | undefined;
  /** The store's key in the files (`bog-centro`), when the caller knows it (the reader, src/state). */
  readonly store: string | undefined;
  /** What is wrong, as the message says it after the call: `is not JSON: …`, `does not have the shape …`. */
  readonly problem: string;

  constructor(init: {
    method: string;
    path: string;
    status: number;
    route: string;
    problem: string;
    storeId?: string | undefined;
    store?: string | undefined;
  }) {
    super({ method: init.method, path: init.path, status: init.status, platformMessage: init.problem });
    this.name = "MalformedAnswerError";
    this.route = init.route;
    this.storeId = init.storeId;
    this.store = init.store;
    this.problem = init.problem;
    const store =
      init.store !== undefined
        ? ` for store ${init.store}${init.storeId === undefined ? "" : ` (${init.storeId})`}`
        : init.storeId !== undefined
          ? ` for store ${init.storeId}`
          : "";
    this.message = redact(`the platform's answer to ${init.method} ${init.path}${store} ${init.problem}`);
  }

  /** The same error naming the store by its key in the files as well (`bog-centro (900101)`). */
  withStore(store: string): MalformedAnswerError {
    return new MalformedAnswerError({
      method: this.method,
      path: this.path,
      status: this.status,
      route: this.route,
      problem: this.problem,
      storeId: this.storeId,
      store,
    });
  }
}

/**
 * The platform answered a call with a success status (2xx) whose body refuses some of the call's
 * elements (a synchronous call answering one result per element, such as the stores of a store
 * availability call; the endpoint's `check`, src/kinds/resource-kind.ts `EndpointSpec`). The call is reported
 * failed and never settled by a read: the answer arrived and says what was not done. Message: `METHOD PATH:
 * what was refused`. Exit code 1.
 */
export class PartlyRefusedError extends ApiError {
  /** What the answer refused, as the endpoint's check says it. */
  readonly problem: string;
  constructor(method: string, path: string, problem: string) {
    super({ method, path, status: 200, platformMessage: problem });
    this.name = "PartlyRefusedError";
    this.problem = problem;
    this.message = redact(`${method} ${path}: ${problem}`);
  }
}

/** A safety guard refused the plan (exit code 3). */
export class UnsafePlanError extends Error {
  /** Name of the guard, e.g. `max_delete_percent`. */
  readonly guard: string;
  constructor(guard: string, message: string) {
    super(message);
    this.name = "UnsafePlanError";
    this.guard = guard;
  }
}

/** A saved plan was computed from a state that no longer holds. */
export class StalePlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StalePlanError";
  }
}

/**
 * A configured value the platform cannot take, found while planning (e.g. a holiday closure on a date
 * that is no platform holiday). The message starts with the resource's address. Exit code 1.
 */
export class PlanningError extends Error {
  /** Address of the resource, e.g. `store[bog-centro].holiday[04-01]`. */
  readonly address: string;
  constructor(address: string, message: string) {
    super(`${address}: ${message}`);
    this.name = "PlanningError";
    this.address = address;
  }
}

/**
 * A store's pairing of store id and integration id that the platform refutes, or that could not be
 * checked, before a call that addresses the store by its integration id (src/state/pairings.ts). The
 * message is located at the file's `integration_id` when known. Exit code 1.
 */
export class StoreIdentityError extends Error {
  /** The store's key (the integration id its file gives). */
  readonly store: string;
  constructor(store: string, message: string) {
    super(message);
    this.name = "StoreIdentityError";
    this.store = store;
  }
}

/**
 * A money value that cannot be converted exactly into integer hundredths (more than 2 decimals, not a
 * number, too large); carte never rounds money (docs/finance.md). Exit code 1.
 */
export class MoneyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MoneyError";
  }
}

/** The platform did not reflect an accepted asynchronous write within the bounded wait. */
export class ConvergenceError extends Error {
  /** Addresses of the resources that never showed their planned state. */
  readonly pending: string[];
  /** Addresses of the duplicates the platform still showed (an apply never exits 0 with one). */
  readonly duplicates: string[];
  constructor(pending: string[], waitedMs: number, duplicates: string[] = []) {
    const list = (xs: string[]) => `${xs.slice(0, 10).join(", ")}${xs.length > 10 ? ", …" : ""}`;
    const parts = [
      ...(pending.length > 0 ? [`did not show ${pending.length} change(s): ${list(pending)}`] : []),
      ...(duplicates.length > 0
        ? [`still shows ${duplicates.length} duplicate(s): ${list(duplicates)}`]
        : []),
    ];
    super(
      `the platform accepted the writes but after ${Math.round(waitedMs / 1000)} s ${parts.join("; and ")}. ` +
        (duplicates.length > 0
          ? "Run `carte apply` again: the plan removes the duplicates."
          : "Run `carte plan` in a few minutes to see whether they arrived."),
    );
    this.name = "ConvergenceError";
    this.pending = pending;
    this.duplicates = duplicates;
  }
}

/**
 * Another `carte apply` on this machine holds the lock of some of the stores (src/run/lock.ts), and it was
 * not released within the wait. Nothing was read or written.
 */
export class LockError extends Error {
  /** Keys of the stores (or `@client`) whose lock could not be taken. */
  readonly locked: string[];
  constructor(locked: string[], message: string) {
    super(message);
    this.name = "LockError";
    this.locked = locked;
  }
}

/**
 * A file carte was to write was refused or could not be written (src/atomic.ts): a symbolic link on
 * the way or at the file (`.carte/locks` committed as a link out of the project), a file where a folder
 * should be, a folder or FIFO where the file should be, a path outside the folder it must stay in, or
 * the file system's failure (ENOSPC, EACCES…). The message names the file, what carte was doing and,
 * for a refusal, the path at fault and where a link leads: `could not save the plan to plan.json: no
 * space left on device (ENOSPC)`. Exit code 1.
 */
export class FileWriteError extends Error {
  /** The file carte was writing (or the folder it was making), as shown in the message. */
  readonly file: string;
  /** The path at fault, as shown: the link, the file in a folder's place, or `file` itself. */
  readonly at: string;
  /**
   * Why: `link` a symbolic link on the way or at the file, `not-folder` something else where a folder
   * should be, `not-file` something other than a regular file at the file, `outside` the path leaves
   * the folder it must stay in, `io` the file system failed (see `code`).
   */
  readonly reason: "link" | "not-folder" | "not-file" | "outside" | "io";
  /** The file system's error code (`ENOSPC`, `EACCES`…) when `reason` is `io`. */
  readonly code: string | undefined;
  constructor(init: {
    file: string;
    at: string;
    reason: FileWriteError["reason"];
    message: string;
    code?: string;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "FileWriteError";
    this.file = init.file;
    this.at = init.at;
    this.reason = init.reason;
    this.code = init.code;
  }

  /** The same error with `note` (what was done about it: files removed again…) after its message. */
  withNote(note: string): FileWriteError {
    return new FileWriteError({
      file: this.file,
      at: this.at,
      reason: this.reason,
      message: `${this.message}${note}`,
      ...(this.code ? { code: this.code } : {}),
      ...(this.cause !== undefined ? { cause: this.cause } : {}),
    });
  }
}

/**
 * A webhook secret the platform made could not be kept: the secrets sink refused or failed to save it,
 * or the platform's answer held no usable secret. The message names the event and how to get a new
 * secret (the next apply rotates it, or `carte webhooks rotate-secret`), never the secret. Exit code 1.
 */
export class SecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretError";
  }
}

/**
 * The command was used in a way that cannot work (e.g. `carte init` into a folder that holds a project,
 * an environment variable the run needs that is not set). Exit code 1. When the command line itself is
 * wrong, it is a {@link CommandLineError}.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * The command line itself is wrong: an unknown command or option, a missing argument, an option's or an
 * argument's bad value, options that cannot go together. The CLI adds "Run `carte --help` for usage."
 * after it, and after no other error. Exit code 1.
 */
export class CommandLineError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = "CommandLineError";
  }
}

/**
 * git failed, or the repository is not as carte needs it (src/gitops): git cannot be run, answers an
 * error, writes too much or has no answer in time; no repository holds the project; a commit, a tree
 * or a remote the run needs is missing. The message says what carte was doing and what git said.
 * Exit code 1.
 */
export class GitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GitError";
  }
}

/**
 * A saved plan cannot be used as one (src/plan/file.ts): the file cannot be read, is not a regular
 * file, is too large, or is not a carte plan; or the run records of a sharded run (which hold the
 * shards' plans, src/gitops/record.ts) cannot be read or do not belong together. The message names the
 * file. Exit code 1.
 */
export class PlanFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PlanFileError";
  }
}

/**
 * The emulator's state cannot be used: its state file is not a regular file, not JSON or of an unknown
 * format (src/emulator/state.ts); a seed contradicts itself; the embedded emulator's state folder of a
 * project is a link or holds another state (src/import/emulator-state-copy.ts). The message names the file
 * and what to do (usually: remove it to start afresh). Exit code 1.
 */
export class StateFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StateFileError";
  }
}

/** A bug in carte. */
export class InternalError extends Error {
  constructor(message: string) {
    super(`internal error (a bug in carte, please report it): ${message}`);
    this.name = "InternalError";
  }
}

/**
 * Maps an error to the exit code of the CLI and the `exitcode` output of the GitHub Action:
 * {@link ExitCode.unsafe} (3) for {@link UnsafePlanError}, {@link ExitCode.error} (1) for anything else.
 */
export function exitCodeFor(err: unknown): number {
  if (err instanceof UnsafePlanError) return ExitCode.unsafe;
  return ExitCode.error;
}
