/**
 * The apply lock across machines: two checkouts of one project on different machines (two CI runners
 * after two quick merges) share no disk, so the lock of src/run/lock.ts cannot serialise their applies,
 * and the platform has no conditional write that could hold one. The project's git remote has one: a
 * ref update with an expected old value is a compare-and-swap on the git server (receive-pack locks
 * the ref and checks its old value in one transaction).
 *
 * - **Acquire**: a commit of the empty tree whose message names the holder (a random id, host, process,
 *   since when, the CI run) is pushed to the lock ref with `git push --force-with-lease=REF:` (the
 *   empty lease: the ref must not exist). One of two applies pushing at once wins; the other's push is
 *   rejected, and it reads the holder and waits, polling, up to its bound, then refuses with
 *   {@link LockError} naming the holder and `carte force-unlock ID`.
 * - **Stale**: a lock taken longer ago than `staleMs` (its apply was killed) is taken over with a push
 *   leased on that very commit (`--force-with-lease=REF:<its sha>`): of two applies that find it stale
 *   at once, one replaces it.
 * - **Release**: after the verification, the ref is deleted with a lease on the commit this apply
 *   pushed: a lock force-unlocked and taken by another meanwhile is left alone (and the release says so).
 * - **Force-unlock** (`carte force-unlock ID`, as Terraform has): deletes the lock when its holder's id
 *   is ID, leased on the commit read.
 *
 * Every git command runs through src/gitops/safe-git.ts (https and ssh remotes only, no hooks, the
 * repository's own configuration and credentials), each bounded by the run's deadline
 * ({@link RefLockOptions.bound}): a remote that never answers has git stopped there, and the error names
 * the remote and the limit. A remote the repository does not have is named as missing before git is
 * asked to reach it. The holder's message comes from whoever can push the ref: its first 64 KiB are
 * read (a longer commit is cut, never refused, so that `force-unlock` can always remove it by its
 * commit's name), parsed as data, and callers escape it before showing it. A lock whose time is ahead
 * of this machine's clock, or unknown, is judged from when this apply first saw it.
 */

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { GitError, LockError, UsageError } from "../errors.js";
import { DEFAULT_LOCK_REF, type RefLockSettings } from "../config/load.js";
import {
  GitDeadlineError,
  gitOutcome,
  type GitCallOptions,
  type GitDeadline,
  type GitRepository,
} from "./safe-git.js";

/** Who holds the lock, as its commit's message says. */
export interface RefLockHolder {
  /** The lock's id: what `carte force-unlock ID` takes. */
  id: string;
  /** Host name of the machine the apply runs on. */
  host: string;
  /** Its process id. */
  pid: number;
  /** ISO 8601 time the lock was taken (the commit's time when the message does not say). */
  since: string;
  /** Where the apply runs, when it says: the CI run's address. */
  run?: string;
}

/** The lock as the remote has it: the commit the ref names and its holder (when the message is carte's). */
export interface RemoteLock {
  sha: string;
  holder: RefLockHolder | undefined;
  /** When the commit was made (epoch ms), the fallback of `holder.since`; 0 when it does not say. */
  committedAt: number;
  /** The commit is longer than the part of it read ({@link MAX_COMMIT_BYTES}): carte never writes one. */
  cut?: boolean;
}

/** Options of {@link acquireRefLock}. */
export interface RefLockOptions {
  repo: GitRepository;
  settings: RefLockSettings;
  /** Longest wait for a lock another apply holds, in milliseconds. 0: refuse at once. */
  waitMs: number;
  /** Pause between tries while waiting, in milliseconds. Default 2 000. */
  pollMs?: number;
  /** Called once, when the lock is first found held, with its holder. */
  onWait?: (lock: RemoteLock) => void;
  /** The CI run's address, recorded in the holder (`GITHUB_SERVER_URL/REPO/actions/runs/ID`). */
  run?: string;
  /** The run's deadline: every git command of the take and of the wait is stopped then. */
  bound?: GitDeadline | undefined;
}

/** A lock this apply holds. */
export interface HeldRefLock {
  /** The lock's id (as `carte force-unlock` takes it). */
  readonly id: string;
  /**
   * Deletes the ref, leased on this apply's commit, git stopped at `bound`. Resolves `false` when the
   * lock was no longer this apply's (force-unlocked, or taken over as stale): the ref is then left as it
   * is.
   *
   * @throws {@link GitError} when git cannot reach the remote, or has no answer by `bound` (the lock
   *   stays until stale).
   */
  release(bound?: GitDeadline): Promise<boolean>;
}

/** The first line of a holder's commit message. */
const SUBJECT = "carte apply lock";
/**
 * Most bytes of a lock commit read (carte's are under 1 KiB): a longer one is cut there, never refused,
 * so that it is named, waited for and removed like any other.
 */
const MAX_COMMIT_BYTES = 64 * 1024;
/** The commit author and committer of a lock. */
const IDENTITY = {
  GIT_AUTHOR_NAME: "carte",
  GIT_AUTHOR_EMAIL: "carte@localhost",
  GIT_COMMITTER_NAME: "carte",
  GIT_COMMITTER_EMAIL: "carte@localhost",
};

/** The lock in words, for messages: `refs/carte/lock on origin`. */
export function lockName(settings: RefLockSettings): string {
  return `${settings.ref} on ${settings.remote}`;
}

/** The command that removes `lock` by hand (raw text: callers escape it). */
export function unlockCommand(settings: RefLockSettings, lock: RemoteLock): string {
  const ref = settings.ref === DEFAULT_LOCK_REF ? "" : ` --ref ${settings.ref}`;
  return `carte force-unlock ${lock.holder?.id ?? lock.sha}${ref}`;
}

/** One line about a holder, for messages (raw text: callers escape it). */
export function describeRefHolder(lock: RemoteLock): string {
  const h = lock.holder;
  if (!h && lock.cut) return `a commit ${lock.sha.slice(0, 12)} too large to be carte's lock`;
  if (!h) return `a commit ${lock.sha.slice(0, 12)} that is not carte's lock`;
  return `lock ${h.id}: process ${h.pid} on ${h.host}, since ${h.since}${h.run ? `, ${h.run}` : ""}`;
}

/** What went wrong with the lock, as a {@link GitError} naming it. */
function gitFailure(settings: RefLockSettings, doing: string, said: string): GitError {
  const first =
    said
      .trim()
      .split("\n")
      .find((l) => l.trim() !== "" && !l.startsWith("To ")) ?? "";
  return new GitError(
    `could not ${doing} the apply lock ${lockName(settings)}: git says: ${first.slice(0, 300) || "nothing"}`,
  );
}

/** The lock's remote as the repository names it, with the bound of its git commands. */
interface LockRemote {
  repo: GitRepository;
  settings: RefLockSettings;
  /** The remote's address as shown in messages ({@link shownRemote}). */
  url: string;
  bound: GitDeadline | undefined;
}

/**
 * A remote's address for messages: an address's user and password left out (an https address may
 * carry a token), 300 characters at most. Raw text: callers escape it.
 */
export function shownRemote(url: string): string {
  let shown = url;
  try {
    const u = new URL(url);
    if (u.protocol !== "" && u.host !== "") shown = `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    // `git@host:path` (scp's form) or a path: no password can be written there but before an `@`.
    if (!/^[^\s/:@]+@[^\s/:]+:/.test(url)) shown = url.replace(/^.*@/, "…@");
  }
  return shown.length > 300 ? `${shown.slice(0, 300)}…` : shown;
}

/**
 * The lock's remote ({@link LockRemote}). A remote the repository does not have is named as missing
 * here: git would take its name for a path, and say that its transport (`file`) is not allowed.
 *
 * @throws {@link GitError} naming the remote, the repository and how to add it or pick another.
 */
async function lockRemote(
  repo: GitRepository,
  settings: RefLockSettings,
  bound: GitDeadline | undefined,
): Promise<LockRemote> {
  const got = await gitOutcome(repo, ["remote", "get-url", "--", settings.remote], { deadline: bound });
  const url = got.stdout.trim();
  if (got.code === 0 && url !== "") return { repo, settings, url: shownRemote(url), bound };
  const listed = await gitOutcome(repo, ["remote"], { deadline: bound });
  const names = listed.stdout.split("\n").filter((n) => n.trim() !== "");
  const others =
    names.length === 0
      ? "it has no remote at all"
      : `its remotes: ${names.slice(0, 10).join(", ")}${names.length > 10 ? ", …" : ""}`;
  throw new GitError(
    `the apply lock ${lockName(settings)} needs the git remote ${settings.remote}, which the repository ` +
      `at ${repo.top} does not have (${others}): add it (git remote add ${settings.remote} URL), or name ` +
      "the remote that holds the lock in carte.yaml (lock: remote: NAME)",
  );
}

/**
 * Runs a git command that reaches the lock's remote, stopped at its bound: a remote that never
 * answers is then an error naming the lock, the remote and the limit.
 *
 * @throws {@link GitError} when git has no answer by the bound, cannot be run, or writes too much.
 */
async function remoteGit(
  remote: LockRemote,
  args: readonly string[],
  doing: string,
  options: GitCallOptions = {},
): Promise<Awaited<ReturnType<typeof gitOutcome>>> {
  try {
    return await gitOutcome(remote.repo, args, { ...options, deadline: remote.bound });
  } catch (err) {
    if (!(err instanceof GitDeadlineError)) throw err;
    throw new GitError(
      `could not ${doing} the apply lock ${lockName(remote.settings)} (${remote.url}): git had no answer ` +
        `from the remote within ${err.limit}, and was stopped. Check that the remote answers ` +
        `(git ls-remote ${remote.settings.remote}), or give the run more time`,
    );
  }
}

/**
 * The lock as the remote has it now, or `undefined` when no apply holds it. Reads the ref
 * (`git ls-remote`), then its commit (`git fetch` of the ref; the commit alone, its first 64 KiB), each
 * git command stopped at `bound`.
 *
 * @throws {@link GitError} when the repository has no such remote, or the remote cannot be reached
 *   or has no answer by `bound`.
 */
export async function readRefLock(
  repo: GitRepository,
  settings: RefLockSettings,
  bound?: GitDeadline,
): Promise<RemoteLock | undefined> {
  return readLock(await lockRemote(repo, settings, bound));
}

/** The commit the lock's ref names (`git ls-remote`), `undefined` when there is none. */
async function listedLock(remote: LockRemote, doing: string): Promise<string | undefined> {
  const { settings } = remote;
  const listed = await remoteGit(
    remote,
    ["ls-remote", "--end-of-options", settings.remote, settings.ref],
    doing,
  );
  if (listed.code !== 0) throw gitFailure(settings, doing, listed.stderr);
  const line = listed.stdout.split("\n").find((l) => l.endsWith(`\t${settings.ref}`));
  const sha = line?.split("\t")[0] ?? "";
  return /^[0-9a-f]{40,64}$/.test(sha) ? sha : undefined;
}

/** {@link readRefLock} of a remote already checked. */
async function readLock(remote: LockRemote): Promise<RemoteLock | undefined> {
  const sha = await listedLock(remote, "read");
  return sha === undefined ? undefined : readLockCommit(remote, sha);
}

/** The lock whose commit the ref named (`sha`), read from the remote; `undefined` when deleted since. */
async function readLockCommit(remote: LockRemote, sha: string): Promise<RemoteLock | undefined> {
  const { repo, settings } = remote;
  const fetched = await remoteGit(
    remote,
    ["fetch", "--no-tags", "--quiet", "--end-of-options", settings.remote, settings.ref],
    "read",
  );
  // Deleted meanwhile: the lock is free.
  if (fetched.code !== 0) {
    if ((await listedLock(remote, "read")) === undefined) return undefined;
    throw gitFailure(settings, "read", fetched.stderr);
  }
  // A local command, but bounded all the same: its commit may be of any size (cut at 64 KiB).
  const commit = await gitOutcome(repo, ["cat-file", "commit", sha], {
    deadline: remote.bound,
    maxBytes: MAX_COMMIT_BYTES,
    cut: true,
  });
  if (commit.code !== 0) throw gitFailure(settings, "read", commit.stderr);
  const lock = parseLockCommit(sha, commit.stdout);
  return commit.cut ? { ...lock, cut: true } : lock;
}

/**
 * The holder a lock commit names (`git cat-file commit` output): its message after the first line,
 * JSON `{id, host, pid, since, run?}`; `holder` is `undefined` for any other commit. Pure.
 */
export function parseLockCommit(sha: string, text: string): RemoteLock {
  const [head = "", ...rest] = text.split("\n\n");
  const committed = /^committer .* (\d+) [+-]\d{4}$/m.exec(head);
  const committedAt = committed ? Number(committed[1]) * 1000 : 0;
  const message = rest.join("\n\n");
  const [subject, ...body] = message.split("\n");
  let holder: RefLockHolder | undefined;
  if (subject?.trim() === SUBJECT) {
    try {
      const data = JSON.parse(body.join("\n").trim()) as Partial<RefLockHolder> | null;
      if (
        data &&
        typeof data.id === "string" &&
        /^[0-9a-f]{8,64}$/.test(data.id) &&
        typeof data.host === "string" &&
        typeof data.pid === "number" &&
        typeof data.since === "string" &&
        !Number.isNaN(Date.parse(data.since))
      ) {
        holder = {
          id: data.id,
          host: data.host.slice(0, 200),
          pid: data.pid,
          since: data.since,
          ...(typeof data.run === "string" ? { run: data.run.slice(0, 300) } : {}),
        };
      }
    } catch {
      holder = undefined;
    }
  }
  return { sha, holder, committedAt };
}

/**
 * Whether `remote` of `repo` is reached over https or ssh (`https://…`, `ssh://…`, `git@host:path`):
 * the remotes carte's git may push to (src/gitops/safe-git.ts). `false` when the repository has no
 * such remote.
 */
export async function pushableRemote(
  repo: GitRepository,
  remote: string,
  bound?: GitDeadline,
): Promise<boolean> {
  const out = await gitOutcome(repo, ["remote", "get-url", "--", remote], { deadline: bound });
  const url = out.stdout.trim();
  return out.code === 0 && (/^(https|ssh):\/\//i.test(url) || /^[^\s/:@]+@[^\s/:]+:/.test(url));
}

/** When the lock says it was taken (epoch ms): its holder's word, else its commit's time, else `undefined`. */
function takenAt(lock: RemoteLock): number | undefined {
  const said = lock.holder ? Date.parse(lock.holder.since) : NaN;
  if (!Number.isNaN(said)) return said;
  return lock.committedAt > 0 ? lock.committedAt : undefined;
}

/**
 * Since when a lock counts as held, for its staleness (epoch ms): when it says it was taken, but never
 * later than when this apply first saw it (`seen`, by commit). A time ahead of this machine's clock (a
 * holder's clock that is wrong, a message written to hold the lock for ever) or none at all is thus
 * judged from the first sight, and the lock goes stale `staleMs` after it like any other.
 */
function heldSince(lock: RemoteLock, seen: Map<string, number>): number {
  let first = seen.get(lock.sha);
  if (first === undefined) {
    first = Date.now();
    seen.set(lock.sha, first);
  }
  return Math.min(takenAt(lock) ?? first, first);
}

/** Makes the commit that stands for this apply's lock (the empty tree, the holder in the message). */
async function lockCommit(
  repo: GitRepository,
  holder: RefLockHolder,
  bound: GitDeadline | undefined,
): Promise<string> {
  const hashed = await gitOutcome(repo, ["hash-object", "-t", "tree", "-w", "/dev/null"], {
    deadline: bound,
  });
  const tree = hashed.stdout.trim();
  if (hashed.code !== 0 || !/^[0-9a-f]{40,64}$/.test(tree)) {
    throw new GitError(`could not make the commit of the apply lock: git says: ${hashed.stderr.trim()}`);
  }
  const made = await gitOutcome(repo, ["commit-tree", tree, "-m", SUBJECT, "-m", JSON.stringify(holder)], {
    identity: IDENTITY,
    deadline: bound,
  });
  const sha = made.stdout.trim();
  if (made.code !== 0 || !/^[0-9a-f]{40,64}$/.test(sha)) {
    throw new GitError(`could not make the commit of the apply lock: git says: ${made.stderr.trim()}`);
  }
  return sha;
}

/** What a leased push did: taken, or rejected with what git said (the ref was not as expected). */
type Pushed = { taken: true } | { taken: false; said: string };

/**
 * Pushes `src` (a commit, or `""` to delete) to the lock ref, leased on `expected` (`""`: absent).
 *
 * @throws {@link GitError} when the push failed for another reason than a rejection of the ref (no
 *   right to push, no network).
 */
async function pushLeased(remote: LockRemote, src: string, expected: string, doing: string): Promise<Pushed> {
  const { settings } = remote;
  const out = await remoteGit(
    remote,
    [
      "push",
      "--porcelain",
      "--no-verify",
      `--force-with-lease=${settings.ref}:${expected}`,
      "--end-of-options",
      settings.remote,
      `${src}:${settings.ref}`,
    ],
    doing,
  );
  // `--porcelain`: one line per ref, `FLAG<TAB>FROM:TO<TAB>SUMMARY`.
  const status = out.stdout
    .split("\n")
    .find((l) => /^[ +\-*=!]\t/.test(l) && l.includes(`:${settings.ref}\t`));
  const flag = status?.[0];
  if (out.code === 0 && flag !== undefined && flag !== "!") return { taken: true };
  // `[rejected] (stale info)`: the lease did not hold; `[remote rejected]`: another push won the race
  // on the server (or the server refused the ref). Anything else (no right to push, no network) is an
  // error.
  if (flag === "!") return { taken: false, said: status ?? "" };
  throw gitFailure(settings, doing, out.stderr || out.stdout);
}

/** The age past which a lock is stale, in words: `60 minutes`, `90 s`. */
function staleWords(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} minutes` : `${Math.round(ms / 1000)} s`;
}

/**
 * One try at the lock: pushed (`taken`), or found held by another apply (that lock), or to be tried
 * again at once (`again`: deleted meanwhile, or taken over by another). A stale lock is taken over.
 * `refusedAgain` counts the pushes rejected while the ref reads absent (the server refuses the ref).
 */
async function tryTake(
  remote: LockRemote,
  sha: string,
  seen: Map<string, number>,
  refusedAgain: () => number,
): Promise<RemoteLock | "taken" | "again"> {
  const pushed = await pushLeased(remote, sha, "", "take");
  if (pushed.taken) return "taken";
  const held = await readLock(remote);
  if (!held) {
    if (refusedAgain() >= 3) throw gitFailure(remote.settings, "take", pushed.said);
    return "again";
  }
  if (Date.now() - heldSince(held, seen) <= remote.settings.staleMs) return held;
  // Its apply was killed: replaced, leased on that very commit (one of two takers wins).
  return (await pushLeased(remote, sha, held.sha, "take over")).taken ? "taken" : "again";
}

/**
 * Takes the lock (see the module comment), waiting up to `waitMs` while another apply holds it; every
 * git command stopped at {@link RefLockOptions.bound}.
 *
 * @throws {@link LockError} when the wait ends first, naming the holder and how to remove its lock.
 * @throws {@link GitError} when git cannot make the commit or reach the remote, has no answer by the
 *   bound, or may not push; when the repository has no such remote.
 */
export async function acquireRefLock(opts: RefLockOptions): Promise<HeldRefLock> {
  const { repo, settings } = opts;
  const remote = await lockRemote(repo, settings, opts.bound);
  const holder: RefLockHolder = {
    id: randomBytes(6).toString("hex"),
    host: hostname(),
    pid: process.pid,
    since: new Date().toISOString(),
    ...(opts.run ? { run: opts.run } : {}),
  };
  const sha = await lockCommit(repo, holder, opts.bound);
  const started = Date.now();
  const seen = new Map<string, number>();
  let told = false;
  // Rejected pushes while the ref reads absent: the server refuses the ref itself (a hook, a rule).
  let refused = 0;
  /** The lock last found held by another apply. */
  let last: RemoteLock | undefined;
  const waitedOut = (held: RemoteLock) => {
    const waited = Date.now() - started;
    const ahead = (takenAt(held) ?? 0) > Date.now();
    return new LockError(
      [settings.ref],
      `another carte apply holds the apply lock ${lockName(settings)} (${describeRefHolder(held)}); ` +
        `waited ${Math.round(waited / 1000)} s for it to end. Nothing was read or written. Run again once ` +
        `it has ended; a lock older than ${staleWords(settings.staleMs)} is taken over` +
        (ahead
          ? " (this one says it was taken in the future: its age counts from when an apply first saw it)"
          : "") +
        `, and one whose apply is known to be dead can be removed with: ${unlockCommand(settings, held)}`,
    );
  };
  for (;;) {
    let found: RemoteLock | "taken" | "again";
    try {
      found = await tryTake(remote, sha, seen, () => ++refused);
    } catch (err) {
      // The run's time ran out while another apply held the lock: that is what the apply is told.
      if (last && opts.bound && Date.now() >= opts.bound.at) throw waitedOut(last);
      throw err;
    }
    if (found === "taken") break;
    if (found === "again") continue;
    const held = (last = found);
    const left = opts.waitMs - (Date.now() - started);
    if (left <= 0) throw waitedOut(held);
    if (!told) {
      told = true;
      opts.onWait?.(held);
    }
    await new Promise((r) => setTimeout(r, Math.min(opts.pollMs ?? 2000, left)));
    // The wait is over: the lock was held at the last look, a pause ago.
    if (Date.now() - started >= opts.waitMs) throw waitedOut(held);
  }
  return {
    id: holder.id,
    release: async (bound) =>
      (await pushLeased({ ...remote, bound: bound ?? opts.bound }, "", sha, "release")).taken,
  };
}

/**
 * `carte force-unlock ID`: removes the lock when its holder's id (or its commit's full name, for a
 * commit that is not carte's or cannot be read) is `id`, leased on the commit read; every git command
 * stopped at `bound`. Returns the lock removed.
 *
 * @throws {@link UsageError} when no lock is held, another one is, or it changed meanwhile.
 * @throws {@link GitError} when the repository has no such remote, or the remote cannot be reached or
 *   has no answer by `bound`.
 */
export async function forceUnlock(
  repo: GitRepository,
  settings: RefLockSettings,
  id: string,
  bound?: GitDeadline,
): Promise<RemoteLock> {
  const remote = await lockRemote(repo, settings, bound);
  const sha = await listedLock(remote, "read");
  const none = () => new UsageError(`no apply holds the lock ${lockName(settings)}: nothing to unlock`);
  if (sha === undefined) throw none();
  let held: RemoteLock | undefined;
  try {
    held = await readLockCommit(remote, sha);
  } catch (err) {
    // Named by its commit, a lock whose commit cannot be read is removed all the same.
    if (id !== sha) throw err;
    held = { sha, holder: undefined, committedAt: 0 };
  }
  if (!held) throw none();
  if (held.sha !== id && held.holder?.id !== id) {
    throw new UsageError(
      `the lock ${lockName(settings)} is ${describeRefHolder(held)}, not ${id}: nothing was removed`,
    );
  }
  if (!(await pushLeased(remote, "", held.sha, "remove")).taken) {
    throw new UsageError(`the lock ${lockName(settings)} changed while it was removed: nothing was removed`);
  }
  return held;
}
