/**
 * The apply lock: two `carte apply` started together on the same stores (two quick
 * merges) each planned from the same state and each created what was missing: duplicates. An apply now
 * holds a lock per store it may write (and one for the client-level resources) from before it reads the
 * platform until it has verified the result; a second apply of any of those stores on this machine
 * waits for it, up to a bound, then refuses with {@link LockError}.
 *
 * The locks are directories under the project's `.carte/locks/`, made atomically by proper-lockfile
 * (`mkdir`, which is atomic on local and network file systems), one per store, taken in sorted order so
 * that two applies of overlapping sets never wait for each other in a cycle. A holder refreshes its
 * locks' mtime every 10 s, all of them in one batch ({@link refreshLocks}). A JSON file next to each lock says who holds it (process id, host, process-id
 * namespace, since when, and which lock folder it was written for), for the message of a refusal and
 * for taking over an abandoned lock:
 *
 * - a lock whose holder is a process of this machine that no longer runs (killed with SIGKILL, the
 *   machine's out-of-memory killer) is taken over at once;
 * - any other lock not refreshed for 30 s (a holder on another host sharing the folder, a holder killed
 *   before it wrote its JSON file) is stale and taken over then. A lock's time ahead of this machine's
 *   clock (another host's clock, or a folder given a time in the future) counts from when this apply
 *   first saw it, so that such a lock goes stale too rather than never.
 *
 * How a takeover stays safe when several applies find the same abandoned lock at once is said at
 * {@link takeOver}. The folder, each lock and its JSON file are written by src/atomic.ts's rules: a link
 * committed in their place (`.carte/locks/<hash>.json -> ../../../victim.txt`, a dangling
 * `<hash>.lock`) or a file where a lock folder should be is refused at once with
 * {@link FileWriteError}, never followed nor waited on as if another apply held it. Runners of a CI
 * service do not share a disk: there, the lock across machines (carte.yaml `lock:`, pushed to the git
 * remote, src/gitops/ref-lock.ts), the workflow's `concurrency:` setting and the per-store check of the
 * plan's checksum before a store's first write (src/run/store-guard.ts `storeGuard`) take over
 * (docs/reliability.md).
 */

import { createHash } from "node:crypto";
import fs from "node:fs";
import { lstat, mkdir, readdir, rmdir } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import lockfile from "proper-lockfile";
import {
  checkWritable,
  ensureFolder,
  PRIVATE_DIR_MODE,
  processRuns,
  removeFile,
  removeStaleTempsIn,
  shownPath,
  writeFailure,
  writeFileAtomic,
  type WriteTarget,
} from "../atomic.js";
import { FileWriteError, LockError } from "../errors.js";

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
  /** How often the held locks are refreshed, in milliseconds. Default 10 000 (tests make it shorter). */
  refreshMs?: number;
  /**
   * How long a lock may go without a refresh before it is taken over, in milliseconds. Default 30 000
   * (tests make it shorter); keep it well above {@link refreshMs}.
   */
  staleMs?: number;
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
/** How soon a refresh that failed for another reason than a missing lock is tried again, in ms. */
const RETRY_MS = 1_000;
/** Locks refreshed in one turn of the event loop (see {@link refreshLocks}). */
const REFRESH_SLICE = 256;
/**
 * proper-lockfile's own staleness, set so that it never judges a lock stale: its takeover (stat, see
 * stale, `rmdir`, `mkdir`) lets two applies that saw the same stale lock both hold it (the second's
 * `rmdir` removes the lock the first has just made). carte takes abandoned locks over itself,
 * {@link takeOver}.
 */
const NEVER_STALE = Number.MAX_SAFE_INTEGER;
/**
 * proper-lockfile's own refresh period: the longest a timer waits (about 24.8 days, longer than any
 * apply), so that it never runs. Its refresh is one timer and two calls to the thread pool per lock
 * every 10 s: for the locks of a thousand stores, two thousand calls whose handling took the event loop
 * from the apply's answers. carte refreshes its locks itself, all in one batch ({@link refreshLocks}).
 */
const NEVER_UPDATE = 2 ** 31 - 1;
/** How many claims of one abandoned lock may have been left by takers killed while taking it over. */
const MAX_CLAIMS = 8;

/** What the JSON file next to a held lock records (a {@link LockHolder} and the lock's identity). */
interface HolderRecord extends LockHolder {
  /** The holder's process-id namespace (`pid:[4026531836]` on Linux), when known. */
  pidns?: string;
  /** The inode number of the lock folder the holder made, as a decimal string. */
  lock?: string;
}

let pidNamespaceCache: string | null | undefined;
/**
 * This process's process-id namespace on Linux (`pid:[4026531836]`), `undefined` elsewhere. Two
 * containers may share a host name and a mounted checkout; a process id seen from one means nothing in
 * the other, so a holder is judged dead only from its own namespace.
 */
function pidNamespace(): string | undefined {
  if (pidNamespaceCache === undefined) {
    try {
      pidNamespaceCache = fs.readlinkSync("/proc/self/ns/pid");
    } catch {
      pidNamespaceCache = null;
    }
  }
  return pidNamespaceCache ?? undefined;
}

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
const LOCK_FS = {
  ...fs,
  stat: fs.lstat,
  utimes: fs.lutimes,
  /**
   * Used by proper-lockfile alone when the process exits (an error, SIGINT, SIGTERM) with locks held:
   * the holder's JSON file goes first, as on a release, so that a JSON file naming a holder is always
   * next to the lock that holder made (see {@link takeOver}).
   */
  rmdirSync: (lockPath: fs.PathLike) => {
    try {
      fs.unlinkSync(String(lockPath).replace(/\.lock$/, ".json"));
    } catch {
      // already gone: the lock folder is still removed
    }
    fs.rmdirSync(lockPath);
  },
};

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
    ? await readdir(lockPath).catch((err: NodeJS.ErrnoException) => {
        // Released (or taken over) since the lstat above: nothing is there to check.
        if (err.code === "ENOENT") return [];
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

/** The holder's JSON file as read (`text`, bounded) and, when it is one carte wrote, what it says. */
async function readHolder(
  file: string,
): Promise<{ text: string; record: HolderRecord | undefined } | undefined> {
  let text: string;
  try {
    const handle = await fs.promises.open(
      `${file}.json`,
      fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0),
    );
    try {
      const buffer = Buffer.alloc(4096);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      text = buffer.subarray(0, bytesRead).toString("utf8");
    } finally {
      await handle.close();
    }
  } catch {
    // No holder file (being written, or already removed), or not a file: the holder is unknown.
    return undefined;
  }
  let data: Partial<HolderRecord>;
  try {
    data = JSON.parse(text) as Partial<HolderRecord>;
  } catch {
    return { text, record: undefined };
  }
  if (
    data === null ||
    typeof data !== "object" ||
    typeof data.pid !== "number" ||
    typeof data.host !== "string" ||
    typeof data.since !== "string"
  ) {
    return { text, record: undefined };
  }
  return {
    text,
    record: {
      pid: data.pid,
      host: data.host,
      since: data.since,
      name: String(data.name ?? ""),
      ...(typeof data.pidns === "string" ? { pidns: data.pidns } : {}),
      ...(typeof data.lock === "string" ? { lock: data.lock } : {}),
    },
  };
}

async function holderOf(file: string): Promise<LockHolder | undefined> {
  const record = (await readHolder(file))?.record;
  return record && { pid: record.pid, host: record.host, since: record.since, name: record.name };
}

/** What is at `p` with exact inode and times; `undefined` when nothing is. */
async function identity(p: string): Promise<fs.BigIntStats | undefined> {
  try {
    return await lstat(p, { bigint: true });
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return undefined;
    throw err;
  }
}

/**
 * When this apply first saw each lock as it is now, by lock file: its identity (inode and time in
 * nanoseconds, which a refresh changes) and since when (epoch ms).
 */
type Sightings = Map<string, { identity: string; at: number }>;

/**
 * Since when the lock at `file`, as `seen`, has gone without a refresh: its modification time, but
 * never later than when this apply first saw it so (a time ahead of this machine's clock would
 * otherwise keep it from ever going stale).
 */
function unrefreshedSince(file: string, seen: fs.BigIntStats, sightings: Sightings): number {
  const identity = `${seen.ino}-${seen.mtimeNs}`;
  let sighting = sightings.get(file);
  if (sighting?.identity !== identity) {
    sighting = { identity, at: Date.now() };
    sightings.set(file, sighting);
  }
  return Math.min(Number(seen.mtimeMs), sighting.at);
}

/**
 * Why the lock folder `seen` with the holder `record` is abandoned: `dead`, its holder is a process of
 * this machine (same host name and process-id namespace) that no longer runs, and the lock is the one
 * it made; `stale`, the lock was not refreshed for `staleMs` (since `since`, {@link unrefreshedSince}).
 * `undefined`: it is held.
 */
function abandonment(
  record: HolderRecord | undefined,
  seen: fs.BigIntStats,
  since: number,
  staleMs: number,
): "dead" | "stale" | undefined {
  if (
    record &&
    record.host === hostname() &&
    record.pidns === pidNamespace() &&
    record.lock === String(seen.ino) &&
    record.pid !== process.pid &&
    !processRuns(record.pid)
  ) {
    return "dead";
  }
  return Date.now() - since > staleMs ? "stale" : undefined;
}

/**
 * Removes the lock at `file` (`file.lock` and its holder's `file.json`) when it is abandoned
 * ({@link abandonment}), so that the caller takes it at once with `mkdir` like any free lock.
 *
 * Several applies may find the same abandoned lock at the same moment (a CI job retried after a kill).
 * Removing it is safe only if no one removes the lock another has taken meanwhile: proper-lockfile's
 * own takeover reads the lock, removes it, then makes its own, so the second of two takers removes the
 * lock the first has just made and both hold it. Here, removing one abandoned lock needs a claim on
 * that very lock, and the claim is exclusive:
 *
 * 1. The lock folder is read with its exact identity, inode and modification time in nanoseconds (a
 *    lock that is refreshed or made again has another), and the holder's file beside it.
 * 2. The claim is a folder named by that identity, `file.takeover-<inode>-<mtime>-<n>`, made with
 *    `mkdir`, which exactly one process wins. The loser waits as for a held lock.
 * 3. The winner checks that the lock folder still has that identity and the holder's file the same
 *    text: nobody else removed it meanwhile (only a claim's winner removes a lock not its own, and the
 *    claim is its alone), so it is still the abandoned lock. Then the holder's file goes, then the lock
 *    folder, then the claim; every apply then races for the free lock with `mkdir`, which one wins.
 *
 * A taker that was slower, and wins the claim once it is removed, finds another identity in step 3 and
 * removes nothing. A holder's file always belongs to the lock beside it: it is written after the lock
 * is made, with the lock's inode, and removed before the lock on a release, a takeover or an exit
 * ({@link LOCK_FS}), so a holder judged dead is the one that made the lock. A taker killed after step 2
 * leaves its claim: a claim older than {@link STALE_MS} (a takeover lasts milliseconds) is passed over
 * for the next number, `…-<n+1>`, at most {@link MAX_CLAIMS}. What remains is a taker that stalls for
 * more than {@link STALE_MS} inside step 3, or a stale holder on another host that wakes up there; a
 * holder whose lock was taken over finds its folder replaced on its next refresh and the lock
 * {@link ApplyLock.compromised}.
 *
 * @returns `retry` when the lock was removed or changed (take it again at once), `held` when it is
 *   held or another apply is taking it over.
 * @throws {@link FileWriteError} when a claim or the lock cannot be removed or made (the cause in words).
 */
async function takeOver(
  file: string,
  target: WriteTarget,
  staleMs: number,
  sightings: Sightings,
): Promise<"retry" | "held"> {
  const lockPath = `${file}.lock`;
  const seen = await identity(lockPath);
  if (!seen) return "retry";
  const holder = await readHolder(file);
  if (!abandonment(holder?.record, seen, unrefreshedSince(file, seen, sightings), staleMs)) return "held";
  const key = `${seen.ino}-${seen.mtimeNs}`;
  const purpose = { ...target, purpose: "take over the abandoned apply lock at" };
  for (let n = 0; n < MAX_CLAIMS; n++) {
    const claim = `${file}.takeover-${key}-${n}`;
    try {
      await mkdir(claim, { mode: PRIVATE_DIR_MODE });
    } catch (err) {
      if ((err as { code?: string }).code !== "EEXIST") throw writeFailure(lockPath, purpose, err);
      const made = await lstat(claim).catch(() => undefined);
      if (made && Date.now() - made.mtimeMs > STALE_MS) continue;
      return "held";
    }
    try {
      const now = await identity(lockPath);
      if (!now || now.ino !== seen.ino || now.mtimeNs !== seen.mtimeNs) return "retry";
      if ((await readHolder(file))?.text !== holder?.text) return "retry";
      if (holder) await removeFile(`${file}.json`, purpose);
      await rmdir(lockPath).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== "ENOENT") throw writeFailure(lockPath, purpose, err);
      });
      // Claims of this lock left by takers killed before this one: the lock they were for is gone.
      for (let k = 0; k < n; k++) await rmdir(`${file}.takeover-${key}-${k}`).catch(() => undefined);
      return "retry";
    } catch (err) {
      throw writeFailure(lockPath, purpose, err);
    } finally {
      await rmdir(claim).catch(() => undefined);
    }
  }
  return "held";
}

/** A lock an apply holds, as its refreshes and its release see it. */
interface HeldLock {
  /** The lock's path without its extension (see {@link fileOf}). */
  file: string;
  /** proper-lockfile's release: removes the folder. */
  release: () => Promise<void>;
  /** The inode of the folder this apply made. */
  ino: number;
  /** The modification time this apply last gave the folder (or found on it once made), in ms. */
  mtimeMs: number;
  /** When the lock is next refreshed ({@link Date.now} ms). */
  due: number;
  /** The text of the holder's file this apply wrote. */
  holderText: string;
  /** Lost while held: its folder is gone or is not the one this apply made and refreshed. */
  lost: boolean;
  /** Being released: no longer refreshed. */
  released: boolean;
  /** proper-lockfile told to forget a lost lock without removing what is now another's. */
  forgotten: Promise<void> | undefined;
}

/**
 * Refreshes the held locks that are due, in slices of {@link REFRESH_SLICE} per turn of the event loop,
 * then calls `done` (which arms the next refresh). Each lock is checked to be the folder this apply
 * made and last refreshed (same inode, same modification time), then given the time of now rounded up
 * to the second (exact on a file system that keeps seconds only, as proper-lockfile does). The calls are
 * synchronous: a pair of file system calls on a local folder costs a few microseconds, a pair through
 * the thread pool as much again in the event loop's handling, for every lock.
 *
 * A lock whose folder is gone or was replaced (the process stalled for longer than the stale time and
 * another apply took it over) is lost: `lose` gets the error, the lock is no longer refreshed, and
 * proper-lockfile forgets it without removing the folder, so that neither the release nor the exit
 * removes another apply's lock. Any other failure is tried again after {@link RETRY_MS}.
 */
function refreshLocks(
  held: readonly HeldLock[],
  refreshMs: number,
  lose: (err: Error) => void,
  done: () => void,
): void {
  const now = Date.now();
  const due = held.filter((h) => !h.lost && !h.released && h.due <= now);
  let i = 0;
  const slice = () => {
    for (const end = Math.min(due.length, i + REFRESH_SLICE); i < end; i++) {
      const h = due[i]!;
      if (h.released) continue;
      const failure = refreshOne(h, refreshMs);
      if (failure === undefined) continue;
      h.lost = true;
      h.forgotten = lockfile.unlock(h.file, {
        fs: { ...LOCK_FS, rmdir: (_p: string, cb: (err: null) => void) => cb(null) },
        realpath: false,
        lockfilePath: `${h.file}.lock`,
      });
      lose(failure);
    }
    if (i < due.length) setImmediate(slice);
    else done();
  };
  slice();
}

/** Refreshes one lock (see {@link refreshLocks}); the error when it is lost. */
function refreshOne(h: HeldLock, refreshMs: number): Error | undefined {
  const lockPath = `${h.file}.lock`;
  const lost = (why: string) =>
    Object.assign(new Error(`the apply lock ${shownPath(lockPath)} was lost: ${why}`), {
      code: "ECOMPROMISED",
    });
  try {
    const seen = fs.lstatSync(lockPath, { throwIfNoEntry: false });
    if (seen === undefined) return lost("it was removed");
    if (seen.ino !== h.ino || seen.mtimeMs !== h.mtimeMs)
      return lost("another apply took it over after it went unrefreshed for longer than the stale time");
    const time = new Date(Math.ceil(Date.now() / 1000) * 1000);
    fs.lutimesSync(lockPath, time, time);
    h.mtimeMs = time.getTime();
    h.due = Date.now() + refreshMs;
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return lost("it was removed");
    h.due = Date.now() + RETRY_MS;
  }
  return undefined;
}

/** One line about a holder, for messages. */
export function describeHolder(h: LockHolder | undefined): string {
  return h ? `process ${h.pid} on ${h.host}, since ${h.since}` : "another carte apply";
}

/**
 * Removes the takeover claims ({@link takeOver}) older than {@link STALE_MS} from the locks folder:
 * those of takers killed while taking a lock over. Such a claim is passed over by every taker already,
 * so removing it changes nothing but the clutter. Best effort: a claim that cannot be removed stays.
 */
async function sweepClaims(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!/^[0-9a-f]{32}\.takeover-\d+-\d+-\d+$/.test(name)) continue;
    const claim = path.join(dir, name);
    const info = await lstat(claim).catch(() => undefined);
    if (info?.isDirectory() && Date.now() - info.mtimeMs > STALE_MS)
      await rmdir(claim).catch(() => undefined);
  }
}

/**
 * One timer refreshing every held lock of an apply (src/run/lock.ts `refreshLocks`), armed for the earliest
 * lock due; `schedule` after each lock taken, `stop` before releasing them.
 */
function lockRefresher(
  held: HeldLock[],
  refreshMs: number,
  onCompromised: (err: Error) => void,
): { schedule: () => void; stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  /** A batch of refreshes is under way (it arms the timer once done). */
  let refreshing = false;
  const schedule = () => {
    if (timer !== undefined || refreshing) return;
    let next = Infinity;
    for (const h of held) if (!h.lost && !h.released && h.due < next) next = h.due;
    if (next === Infinity) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        refreshing = true;
        refreshLocks(held, refreshMs, onCompromised, () => {
          refreshing = false;
          schedule();
        });
      },
      Math.max(0, next - Date.now()),
    );
    // The locks do not keep the process alive: they are released (or removed on exit) with it.
    timer.unref();
  };
  const stop = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  return { schedule, stop };
}

/**
 * Releases the given locks (taken off the apply's list already) and removes their holders' files. Throws
 * what proper-lockfile throws other than "released already" or "not acquired" (taken over after it went
 * stale: not ours to remove any more), and {@link FileWriteError} when a holder's file cannot be removed.
 */
async function releaseLocks(releasing: HeldLock[], target: WriteTarget): Promise<void> {
  // Marked before any wait: a batch of refreshes under way leaves them alone.
  for (const h of releasing) h.released = true;
  for (const h of releasing) {
    if (h.lost) {
      // Lost while held: the folder is gone or another apply's, and so may be the holder's file,
      // removed only while it is still the one this apply wrote.
      await h.forgotten;
      if ((await readHolder(h.file))?.text === h.holderText)
        await removeFile(`${h.file}.json`, { ...target, purpose: "remove the holder of the apply lock" });
      continue;
    }
    await removeFile(`${h.file}.json`, { ...target, purpose: "remove the holder of the apply lock" });
    try {
      await h.release();
    } catch (err) {
      if (
        (err as { code?: string }).code !== "ERELEASED" &&
        (err as { code?: string }).code !== "ENOTACQUIRED"
      )
        throw err;
    }
  }
}

/**
 * Notes the lock folder just made (its inode and time, which the refreshes check) and writes who holds
 * it beside it. Throws {@link FileWriteError} when the holder's file cannot be written.
 */
async function recordHolder(entry: HeldLock, name: string, target: WriteTarget): Promise<void> {
  const made = await lstat(`${entry.file}.lock`);
  entry.ino = made.ino;
  entry.mtimeMs = made.mtimeMs;
  const pidns = pidNamespace();
  const holder: HolderRecord = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    name,
    ...(pidns ? { pidns } : {}),
    lock: String(made.ino),
  };
  // Not fsynced: the file means something only while this process runs (after a crash of the
  // machine, a lock is judged by its time, not refreshed for 30 s). Two fsyncs per lock were
  // most of the time of taking the locks of a thousand stores.
  entry.holderText = JSON.stringify(holder) + "\n";
  await writeFileAtomic(`${entry.file}.json`, entry.holderText, {
    ...target,
    purpose: "write who holds the apply lock to",
    durable: false,
    tempsSwept: true,
  });
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
  // The temporary files of holders' files that killed applies left, removed once for the folder
  // rather than by each write (a listing of the folder per lock made taking a thousand locks quadratic).
  await removeStaleTempsIn(opts.dir);
  const names = [...new Set(opts.names)].sort();
  const held: HeldLock[] = [];
  const refreshMs = opts.refreshMs ?? UPDATE_MS;
  const staleMs = opts.staleMs ?? STALE_MS;
  const sightings: Sightings = new Map();
  let compromised: Error | undefined;
  const refresher = lockRefresher(held, refreshMs, (err) => (compromised = err));
  const releaseAll = async () => {
    refresher.stop();
    await releaseLocks(held.splice(0).reverse(), target);
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
          stale: NEVER_STALE,
          update: NEVER_UPDATE,
          onCompromised: (err) => {
            compromised = err;
          },
        });
        const entry: HeldLock = {
          file,
          release,
          ino: 0,
          mtimeMs: 0,
          due: Date.now() + refreshMs,
          holderText: "",
          lost: false,
          released: false,
          forgotten: undefined,
        };
        held.push(entry);
        await recordHolder(entry, name, target);
        refresher.schedule();
        break;
      } catch (err) {
        if ((err as { code?: string }).code !== "ELOCKED") {
          await releaseAll();
          throw writeFailure(`${file}.lock`, target, err);
        }
        let taken: "retry" | "held";
        try {
          taken = await takeOver(file, target, staleMs, sightings);
        } catch (takeoverErr) {
          await releaseAll();
          throw takeoverErr;
        }
        if (taken === "retry") continue;
        const holder = await holderOf(file);
        if (Date.now() - started >= opts.waitMs) {
          await releaseAll();
          const waited = Math.round((Date.now() - started) / 1000);
          throw new LockError(
            [name],
            `another carte apply is writing ${lockTitle(name)} ` +
              `(${describeHolder(holder)}); waited ${waited} s for it to end. Nothing was read or written. ` +
              `Run again once it has ended (a lock whose process on this machine died is taken over at once; ` +
              `any other is taken over once not refreshed for ${Math.round(staleMs / 1000)} s).`,
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
  await sweepClaims(opts.dir);
  return {
    release: releaseAll,
    get compromised() {
      return compromised;
    },
  };
}
