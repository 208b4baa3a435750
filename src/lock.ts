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
 * of a refusal. The folder, each lock and its JSON file are written by src/atomic.ts's rules: a link
 * committed in their place (`.carte/locks/<hash>.json -> ../../../victim.txt`, a dangling
 * `<hash>.lock`) or a file where a lock folder should be is refused at once with
 * {@link FileWriteError}, never followed nor waited on as if another apply held it. Runners of a CI service do not share a disk: there, the per-store check of the plan's
 * checksum before a store's first write (src/workflow.ts `storeGuard`) and the workflow's
 * `concurrency:` setting (docs/reliability.md) take over.
 */

import { createHash } from "node:crypto";
import fs from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import lockfile from "proper-lockfile";
import {
  checkWritable,
  ensureFolder,
  PRIVATE_DIR_MODE,
  removeFile,
  shownPath,
  writeFailure,
  writeFileAtomic,
  type WriteTarget,
} from "./atomic.js";
import { FileWriteError, LockError } from "./errors.js";

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
  /**
   * The project folder the locks must stay under; default the folder that holds `.carte` (two levels
   * above `dir`). Every folder below it is checked to be a real folder (src/atomic.ts).
   */
  root?: string;
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

/**
 * Where the lock of `name` (a store key or {@link CLIENT_LOCK}) lives in the locks folder `dir`: the
 * folder proper-lockfile makes while an apply holds it, and the JSON file naming its holder.
 */
export function lockPaths(dir: string, name: string): { lock: string; holder: string } {
  const file = fileOf(dir, name);
  return { lock: `${file}.lock`, holder: `${file}.json` };
}

/**
 * proper-lockfile's file system calls, made not to follow links: a lock is a folder carte makes, so
 * its time is read and set on the folder itself (a link in its place is refused before, see
 * {@link checkLockPlace}).
 */
const LOCK_FS = { ...fs, stat: fs.lstat, utimes: fs.lutimes };

/**
 * Refuses, at once, what cannot be a lock carte made at `file.lock` and `file.json`: a link (dangling
 * or not), anything but a folder at the lock, a lock folder holding files (carte's never do), anything
 * but a regular file at the holder's JSON. Such a thing comes from the repository, not from another
 * apply, so waiting for it would only wait for the timeout.
 *
 * @throws {@link FileWriteError} naming the path and, for a link, where it leads.
 */
async function checkLockPlace(file: string, name: string, target: WriteTarget): Promise<void> {
  const lockPath = `${file}.lock`;
  const info = await lstat(lockPath).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw writeFailure(lockPath, target, err);
  });
  const refuse = (why: string, reason: FileWriteError["reason"]) =>
    new FileWriteError({
      file: shownPath(lockPath),
      at: shownPath(lockPath),
      reason,
      message:
        `could not ${target.purpose} ${shownPath(lockPath)} (the lock of ${lockTitle(name)}): ${why}; ` +
        "remove it (a lock is an empty folder carte makes while an apply runs)",
    });
  if (info?.isSymbolicLink()) {
    const to = await fs.promises.readlink(lockPath).catch(() => "somewhere carte cannot read");
    throw refuse(
      `it is a symbolic link to ${to.length > 200 ? `${to.slice(0, 200)}…` : to}, not a lock`,
      "link",
    );
  }
  if (info && !info.isDirectory()) throw refuse("it is a file, not a lock folder", "not-folder");
  const inside = info
    ? await readdir(lockPath).catch((err: unknown) => {
        throw writeFailure(lockPath, target, err);
      })
    : [];
  if (inside.length > 0) {
    throw refuse("it is a folder holding files, not a lock carte made", "not-folder");
  }
  await checkWritable(`${file}.json`, target);
}

function lockTitle(name: string): string {
  return name === CLIENT_LOCK ? "the client-level settings" : `store ${name}`;
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
 * {@link LockError} when the wait ends first (every lock taken so far is released), and
 * {@link FileWriteError} at once when the folder or a lock is a link or not what carte makes there, or
 * cannot be written (the file system's cause in words).
 */
export async function acquireApplyLock(opts: ApplyLockOptions): Promise<ApplyLock> {
  // `.carte/` also holds the embedded emulator's state and, often, the secrets file: created private
  // (0700) like src/atomic.ts makes it, whoever comes first; each folder a real one of the project.
  const target: WriteTarget = {
    root: opts.root ?? path.dirname(path.dirname(path.resolve(opts.dir))),
    purpose: "take the apply lock at",
  };
  await ensureFolder(opts.dir, {
    ...target,
    purpose: "make the folder of the apply locks",
    dirMode: PRIVATE_DIR_MODE,
  });
  const names = [...new Set(opts.names)].sort();
  const held: { file: string; release: () => Promise<void> }[] = [];
  let compromised: Error | undefined;
  const releaseAll = async () => {
    for (const h of held.splice(0).reverse()) {
      await removeFile(`${h.file}.json`, { ...target, purpose: "remove the holder of the apply lock" });
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
        await checkLockPlace(file, name, target);
      } catch (err) {
        await releaseAll();
        throw err;
      }
      try {
        const release = await lockfile.lock(file, {
          fs: LOCK_FS,
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
        await writeFileAtomic(`${file}.json`, JSON.stringify(holder) + "\n", {
          ...target,
          purpose: "write who holds the apply lock to",
        });
        break;
      } catch (err) {
        if ((err as { code?: string }).code !== "ELOCKED") {
          await releaseAll();
          throw writeFailure(`${file}.lock`, target, err);
        }
        const holder = await holderOf(file);
        if (Date.now() - started >= opts.waitMs) {
          await releaseAll();
          const waited = Math.round((Date.now() - started) / 1000);
          throw new LockError(
            [name],
            `another carte apply is writing ${lockTitle(name)} ` +
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
