/**
 * The apply lock across machines: two checkouts of one project on different machines (two CI runners
 * after two quick merges) share no disk, so the lock of src/lock.ts cannot serialise their applies,
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
 * repository's own configuration and credentials). The holder's message comes from whoever can push
 * the ref: it is read bounded and parsed as data, and callers escape it before showing it.
 */

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { LockError, UsageError } from "../errors.js";
import { DEFAULT_LOCK_REF, type RefLockSettings } from "../config/load.js";
import { gitOutcome, runGit, type GitRepository } from "./safe-git.js";

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
  /** When the commit was made (epoch ms), the fallback of `holder.since`. */
  committedAt: number;
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
}

/** A lock this apply holds. */
export interface HeldRefLock {
  /** The lock's id (as `carte force-unlock` takes it). */
  readonly id: string;
  /**
   * Deletes the ref, leased on this apply's commit. Resolves `false` when the lock was no longer this
   * apply's (force-unlocked, or taken over as stale): the ref is then left as it is.
   *
   * @throws {@link UsageError} when git cannot reach the remote (the lock stays until stale).
   */
  release(): Promise<boolean>;
}

/** The first line of a holder's commit message. */
const SUBJECT = "carte apply lock";
/** Most bytes of a lock commit read. */
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
  if (!h) return `a commit ${lock.sha.slice(0, 12)} that is not carte's lock`;
  return `lock ${h.id}: process ${h.pid} on ${h.host}, since ${h.since}${h.run ? `, ${h.run}` : ""}`;
}

/** What went wrong with the lock, as a {@link UsageError} naming it. */
function gitFailure(settings: RefLockSettings, doing: string, said: string): UsageError {
  const first =
    said
      .trim()
      .split("\n")
      .find((l) => l.trim() !== "" && !l.startsWith("To ")) ?? "";
  return new UsageError(
    `could not ${doing} the apply lock ${lockName(settings)}: git says: ${first.slice(0, 300) || "nothing"}`,
  );
}

/**
 * The lock as the remote has it now, or `undefined` when no apply holds it. Reads the ref
 * (`git ls-remote`), then its commit (`git fetch` of the ref; the commit alone, bounded).
 *
 * @throws {@link UsageError} when the remote cannot be reached.
 */
export async function readRefLock(
  repo: GitRepository,
  settings: RefLockSettings,
): Promise<RemoteLock | undefined> {
  const listed = await gitOutcome(repo, ["ls-remote", "--end-of-options", settings.remote, settings.ref]);
  if (listed.code !== 0) throw gitFailure(settings, "read", listed.stderr);
  const line = listed.stdout.split("\n").find((l) => l.endsWith(`\t${settings.ref}`));
  const sha = line?.split("\t")[0] ?? "";
  if (!/^[0-9a-f]{40,64}$/.test(sha)) return undefined;
  const fetched = await gitOutcome(repo, [
    "fetch",
    "--no-tags",
    "--quiet",
    "--end-of-options",
    settings.remote,
    settings.ref,
  ]);
  // Deleted meanwhile: the lock is free.
  if (fetched.code !== 0) {
    const again = await gitOutcome(repo, ["ls-remote", "--end-of-options", settings.remote, settings.ref]);
    if (again.code === 0 && !again.stdout.includes(`\t${settings.ref}`)) return undefined;
    throw gitFailure(settings, "read", fetched.stderr);
  }
  const commit = await gitOutcome(repo, ["cat-file", "commit", sha]);
  if (commit.code !== 0) throw gitFailure(settings, "read", commit.stderr);
  return parseLockCommit(sha, commit.stdout.slice(0, MAX_COMMIT_BYTES));
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
export async function pushableRemote(repo: GitRepository, remote: string): Promise<boolean> {
  const out = await gitOutcome(repo, ["remote", "get-url", "--", remote]);
  const url = out.stdout.trim();
  return out.code === 0 && (/^(https|ssh):\/\//i.test(url) || /^[^\s/:@]+@[^\s/:]+:/.test(url));
}

/** When the lock was taken (epoch ms): its holder's word, else its commit's time. */
function takenAt(lock: RemoteLock): number {
  const said = lock.holder ? Date.parse(lock.holder.since) : NaN;
  return Number.isNaN(said) ? lock.committedAt : said;
}

/** Makes the commit that stands for this apply's lock (the empty tree, the holder in the message). */
async function lockCommit(repo: GitRepository, holder: RefLockHolder): Promise<string> {
  const tree = (await runGit(repo, ["hash-object", "-t", "tree", "-w", "/dev/null"])).trim();
  const made = await gitOutcome(
    repo,
    ["commit-tree", tree, "-m", SUBJECT, "-m", JSON.stringify(holder)],
    IDENTITY,
  );
  const sha = made.stdout.trim();
  if (made.code !== 0 || !/^[0-9a-f]{40,64}$/.test(sha)) {
    throw new UsageError(`could not make the commit of the apply lock: git says: ${made.stderr.trim()}`);
  }
  return sha;
}

/** What a leased push did: taken, or rejected with what git said (the ref was not as expected). */
type Pushed = { taken: true } | { taken: false; said: string };

/**
 * Pushes `src` (a commit, or `""` to delete) to the lock ref, leased on `expected` (`""`: absent).
 *
 * @throws {@link UsageError} when the push failed for another reason than a rejection of the ref (no
 *   right to push, no network).
 */
async function pushLeased(
  repo: GitRepository,
  settings: RefLockSettings,
  src: string,
  expected: string,
  doing: string,
): Promise<Pushed> {
  const out = await gitOutcome(repo, [
    "push",
    "--porcelain",
    "--no-verify",
    `--force-with-lease=${settings.ref}:${expected}`,
    "--end-of-options",
    settings.remote,
    `${src}:${settings.ref}`,
  ]);
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

/**
 * Takes the lock (see the module comment), waiting up to `waitMs` while another apply holds it.
 *
 * @throws {@link LockError} when the wait ends first, naming the holder and how to remove its lock.
 * @throws {@link UsageError} when git cannot make the commit or reach the remote, or may not push.
 */
export async function acquireRefLock(opts: RefLockOptions): Promise<HeldRefLock> {
  const { repo, settings } = opts;
  const holder: RefLockHolder = {
    id: randomBytes(6).toString("hex"),
    host: hostname(),
    pid: process.pid,
    since: new Date().toISOString(),
    ...(opts.run ? { run: opts.run } : {}),
  };
  const sha = await lockCommit(repo, holder);
  const started = Date.now();
  let told = false;
  // Rejected pushes while the ref reads absent: the server refuses the ref itself (a hook, a rule).
  let refused = 0;
  for (;;) {
    const pushed = await pushLeased(repo, settings, sha, "", "take");
    if (pushed.taken) break;
    const held = await readRefLock(repo, settings);
    if (!held) {
      if (++refused >= 3) throw gitFailure(settings, "take", pushed.said);
      continue;
    }
    if (Date.now() - takenAt(held) > settings.staleMs) {
      // Its apply was killed: replaced, leased on that very commit (one of two takers wins).
      if ((await pushLeased(repo, settings, sha, held.sha, "take over")).taken) break;
      continue;
    }
    const waited = Date.now() - started;
    if (waited >= opts.waitMs) {
      throw new LockError(
        [settings.ref],
        `another carte apply holds the apply lock ${lockName(settings)} (${describeRefHolder(held)}); ` +
          `waited ${Math.round(waited / 1000)} s for it to end. Nothing was read or written. Run again once ` +
          `it has ended; a lock older than ${Math.round(settings.staleMs / 60_000)} minutes is taken over, ` +
          `and one whose apply is known to be dead can be removed with: ${unlockCommand(settings, held)}`,
      );
    }
    if (!told) {
      told = true;
      opts.onWait?.(held);
    }
    await new Promise((r) => setTimeout(r, Math.min(opts.pollMs ?? 2000, Math.max(1, opts.waitMs - waited))));
  }
  return {
    id: holder.id,
    release: async () => (await pushLeased(repo, settings, "", sha, "release")).taken,
  };
}

/**
 * `carte force-unlock ID`: removes the lock when its holder's id (or its commit's full name, for a
 * commit that is not carte's) is `id`, leased on the commit read. Returns the lock removed.
 *
 * @throws {@link UsageError} when no lock is held, another one is, or it changed meanwhile; or when
 *   the remote cannot be reached.
 */
export async function forceUnlock(
  repo: GitRepository,
  settings: RefLockSettings,
  id: string,
): Promise<RemoteLock> {
  const held = await readRefLock(repo, settings);
  if (!held) throw new UsageError(`no apply holds the lock ${lockName(settings)}: nothing to unlock`);
  if ((held.holder?.id ?? held.sha) !== id) {
    throw new UsageError(
      `the lock ${lockName(settings)} is ${describeRefHolder(held)}, not ${id}: nothing was removed`,
    );
  }
  if (!(await pushLeased(repo, settings, "", held.sha, "remove")).taken) {
    throw new UsageError(`the lock ${lockName(settings)} changed while it was removed: nothing was removed`);
  }
  return held;
}
