/**
 * The apply lock (issue 11, item 3): two `carte apply` started together on the same stores (two quick
 * merges) each planned from the same state and each created what was missing: duplicates. An apply now
 * holds a lock per store it may write (and one for the client-level resources) from before it reads the
 * platform until it has verified the result; a second apply of any of those stores on this machine
 * waits for it, up to a bound, then refuses with {@link LockError}.
 *
 * The locks are directories under the project's `.carte/locks/`, made atomically by proper-lockfile
 * (`mkdir`, which is atomic on local and network file systems), one per store, taken in sorted order so
 * that two applies of overlapping sets never wait for each other in a cycle. A holder refreshes its
 * locks' mtime every 10 s; a lock not refreshed for 30 s (its process was killed) is stale and taken
 * over. A JSON file next to each lock says who holds it (process id, host, since when), for the message
 * of a refusal. Runners of a CI service do not share a disk: there, the per-store check of the plan's
 * checksum before a store's first write (src/workflow.ts `storeGuard`) and the workflow's
 * `concurrency:` setting (docs/reliability.md) take over.
 */

import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import lockfile from "proper-lockfile";
import { PRIVATE_DIR_MODE } from "./atomic.js";
import { LockError } from "./errors.js";

/** The name of the lock of the client-level resources (client webhooks). */
export const CLIENT_LOCK = "@client";

/** Who holds a lock, as written next to it. */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO 8601 time the lock was taken. */
  since: string;
  /** The store key (or {@link CLIENT_LOCK}) the lock is for. */
  name: string;
}

/** Options of {@link acquireApplyLock}. */
export interface ApplyLockOptions {
  /** Folder of the locks: `<project>/.carte/locks`. Created when missing. */
  dir: string;
  /** The store keys to lock (and {@link CLIENT_LOCK}); order and repeats do not matter. */
  names: readonly string[];
  /** Longest wait for locks held by another apply, in milliseconds. 0: refuse at once. */
  waitMs: number;
  /** Called once, when the first lock is found held, with its holder (when known). */
  onWait?: (holder: LockHolder | undefined) => void;
  /** Pause between tries while waiting, in milliseconds. Default 250. */
  pollMs?: number;
}

/** A held apply lock. */
export interface ApplyLock {
  /** Releases every lock (idempotent). */
  release(): Promise<void>;
  /**
   * Set when a lock was lost while held (its refresh failed, e.g. the process stalled for longer than
   * the stale time and another apply took it over).
   */
  readonly compromised: Error | undefined;
}

/** How long a lock may go without a refresh before it is taken over, in ms. */
const STALE_MS = 30_000;
/** How often a held lock is refreshed, in ms. */
const UPDATE_MS = 10_000;

/** The file name of a lock: a hash of its name (store keys come from files a pull request writes). */
function fileOf(dir: string, name: string): string {
  return path.join(dir, createHash("sha256").update(name).digest("hex").slice(0, 32));
}

async function holderOf(file: string): Promise<LockHolder | undefined> {
  try {
    const data = JSON.parse(await readFile(`${file}.json`, "utf8")) as Partial<LockHolder>;
    if (typeof data.pid !== "number" || typeof data.host !== "string" || typeof data.since !== "string") {
      return undefined;
    }
    return { pid: data.pid, host: data.host, since: data.since, name: String(data.name ?? "") };
  } catch {
    // No holder file (being written, or already removed): the holder is unknown.
    return undefined;
  }
}

/** One line about a holder, for messages. */
export function describeHolder(h: LockHolder | undefined): string {
  return h ? `process ${h.pid} on ${h.host}, since ${h.since}` : "another carte apply";
}

/**
 * Takes the lock of every name, waiting up to `waitMs` for locks another apply holds. Throws
 * {@link LockError} when the wait ends first (every lock taken so far is released), or the file
 * system's error when the folder cannot be written.
 */
export async function acquireApplyLock(opts: ApplyLockOptions): Promise<ApplyLock> {
  // `.carte/` also holds the embedded emulator's state and, often, the secrets file: created private
  // (0700) like src/atomic.ts makes it, whoever comes first.
  await mkdir(opts.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const names = [...new Set(opts.names)].sort();
  const held: { file: string; release: () => Promise<void> }[] = [];
  let compromised: Error | undefined;
  const releaseAll = async () => {
    for (const h of held.splice(0).reverse()) {
      await rm(`${h.file}.json`, { force: true });
      try {
        await h.release();
      } catch (err) {
        // Released already, or taken over after it went stale: it is not ours to remove any more.
        if (
          (err as { code?: string }).code !== "ERELEASED" &&
          (err as { code?: string }).code !== "ENOTACQUIRED"
        )
          throw err;
      }
    }
  };
  const started = Date.now();
  let told = false;
  for (const name of names) {
    const file = fileOf(opts.dir, name);
    for (;;) {
      try {
        const release = await lockfile.lock(file, {
          realpath: false,
          lockfilePath: `${file}.lock`,
          stale: STALE_MS,
          update: UPDATE_MS,
          onCompromised: (err) => {
            compromised = err;
          },
        });
        held.push({ file, release });
        const holder: LockHolder = {
          pid: process.pid,
          host: hostname(),
          since: new Date().toISOString(),
          name,
        };
        await writeFile(`${file}.json`, JSON.stringify(holder) + "\n", "utf8");
        break;
      } catch (err) {
        if ((err as { code?: string }).code !== "ELOCKED") {
          await releaseAll();
          throw err;
        }
        const holder = await holderOf(file);
        if (Date.now() - started >= opts.waitMs) {
          await releaseAll();
          const waited = Math.round((Date.now() - started) / 1000);
          throw new LockError(
            [name],
            `another carte apply is writing store ${name === CLIENT_LOCK ? "the client-level settings" : name} ` +
              `(${describeHolder(holder)}); waited ${waited} s for it to end. Nothing was read or written. ` +
              `Run again once it has ended (a lock whose process died goes stale after ${STALE_MS / 1000} s).`,
          );
        }
        if (!told) {
          told = true;
          opts.onWait?.(holder);
        }
        await new Promise((r) =>
          setTimeout(r, Math.min(opts.pollMs ?? 250, Math.max(1, opts.waitMs - (Date.now() - started)))),
        );
      }
    }
  }
  return {
    release: releaseAll,
    get compromised() {
      return compromised;
    },
  };
}
