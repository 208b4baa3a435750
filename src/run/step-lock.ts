/**
 * Step "lock" of an apply: the lock of its stores on this machine (src/run/lock.ts), then the lock
 * across machines (src/gitops/ref-lock.ts), each wait bounded by the run's deadline.
 */

import path from "node:path";
import { type LoadedProject } from "../config/index.js";
import { DEFAULT_LOCK_REF, type RefLockSettings } from "../config/load.js";
import {
  acquireRefLock,
  lockName,
  pushableRemote,
  type HeldRefLock,
  type RemoteLock,
} from "../gitops/ref-lock.js";
import { findRepository, type GitDeadline } from "../gitops/safe-git.js";
import { GitError, LockError, warning } from "../errors.js";
import { CLIENT_LOCK, acquireApplyLock } from "./lock.js";
import { scopeDesired } from "./plan-project.js";
import { DEFAULT_RUN_TIMEOUT_MS, type ApplyRequest, type RunRequest, type RunHooks } from "./request.js";
import { type RunProject } from "./step-load.js";

/** The locks an apply holds ({@link lockRun}); `release` lets them go, the lock across machines first. */
export interface RunLocks {
  release: () => Promise<void>;
}

/**
 * Step "lock" of an apply: one apply at a time per store on this machine (src/run/lock.ts), from the first
 * read to the verification, then the lock across machines when there is one to take
 * ({@link ApplyRequest.refLock}). The waits for either end at the run's deadline.
 *
 * @throws {@link LockError} when another apply holds a lock past the wait.
 */
export async function lockRun(
  request: ApplyRequest,
  run: RunProject,
  hooks: RunHooks,
  deadline: number,
): Promise<RunLocks> {
  const { project } = run;
  const scope = scopeDesired(project.desired, run.saved?.targeting ?? request.targeting);
  const lock = await acquireApplyLock({
    dir: path.join(project.root, ".carte", "locks"),
    names: [...Object.keys(scope.stores), ...(project.desired.client ? [CLIENT_LOCK] : [])],
    waitMs: Math.max(0, Math.min(request.lockWaitMs ?? Infinity, deadline - Date.now())),
    ...(hooks.onLockWait ? { onWait: hooks.onLockWait } : {}),
  });
  let shared: SharedLock | undefined;
  try {
    shared = await takeRefLock(request, project, hooks, runBound(request, deadline));
  } catch (err) {
    await lock.release();
    throw err;
  }
  return {
    release: async () => {
      if (shared) await releaseRefLock(shared, hooks);
      await lock.release();
    },
  };
}

/** The lock across machines an apply holds, and the bound of its git commands. */
interface SharedLock {
  held: HeldRefLock;
  settings: RefLockSettings;
  bound: GitDeadline;
}

/**
 * How long the release of the lock across machines may still take once the run's deadline has passed
 * (or is closer than this), in ms: a run that used all its time (a platform slow to show its changes)
 * still frees the lock, which would otherwise hold every other apply back until it goes stale.
 */
const RELEASE_GRACE_MS = 10_000;

/** A duration as `--timeout` takes it: `20s`, `15m`, `1h`, `1500ms`. */
function durationWords(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** The run's deadline as the bound of a git command: when, and `--timeout` in words for its error. */
function runBound(request: RunRequest, deadline: number): GitDeadline {
  const ms = request.runTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
  return { at: deadline, limit: `the time limit of the run (--timeout ${durationWords(ms)})` };
}

/**
 * The bound of the release of the lock across machines: the run's deadline, or
 * {@link RELEASE_GRACE_MS} from now when that is later.
 */
function releaseBound(bound: GitDeadline): GitDeadline {
  const now = Date.now();
  if (bound.at - now >= RELEASE_GRACE_MS) return bound;
  return {
    at: now + RELEASE_GRACE_MS,
    limit: `the ${RELEASE_GRACE_MS / 1000} s a release is given at the end of ${bound.limit}`,
  };
}

/**
 * Takes the apply lock across machines the request and the project ask for ({@link ApplyRequest.refLock}),
 * waiting for another apply's up to the run's deadline, every git command stopped there; `undefined` when there is none to take (or,
 * for the Action's default, when it cannot be taken here: a warning says why).
 *
 * @throws {@link LockError} when another apply holds it past the wait; {@link GitError} when git
 *   cannot take a lock carte.yaml asks for.
 */
async function takeRefLock(
  request: ApplyRequest,
  project: LoadedProject,
  hooks: RunHooks,
  bound: GitDeadline,
): Promise<SharedLock | undefined> {
  if (request.refLock === "off") return undefined;
  const chosen = project.lock ?? request.refLock;
  if (!chosen) return undefined;
  // The shards of a run apply disjoint stores at once: each has a lock of its own (a ref beside the
  // lock, never under it: git keeps a ref and a folder of refs apart).
  const settings = request.shard
    ? { ...chosen, ref: `${chosen.ref}-shard-${request.shard.index}-of-${request.shard.count}` }
    : chosen;
  // carte.yaml's lock is required; the Action's default is taken where it can be.
  const optional = project.lock === undefined;
  try {
    const repo = await findRepository(project.root, { workspace: request.workspace }).catch(
      (err: unknown) => {
        // The Action's default needs a git checkout: without one, there is nothing to take it from.
        if (optional) return undefined;
        throw new GitError(
          `lock: ${settings.ref} needs the project in a git checkout: ${err instanceof Error ? err.message : String(err)}`,
        );
      },
    );
    // ... and an origin reached over https or ssh, as a runner's checkout has.
    if (!repo || (optional && !(await pushableRemote(repo, settings.remote, bound)))) return undefined;
    const held = await acquireRefLock({
      repo,
      settings,
      waitMs: Math.max(0, Math.min(request.lockWaitMs ?? Infinity, bound.at - Date.now())),
      ...(hooks.onRefLockWait ? { onWait: (l: RemoteLock) => hooks.onRefLockWait?.(l, settings) } : {}),
      ...(request.runUrl ? { run: request.runUrl } : {}),
      bound,
    });
    return { held, settings, bound };
  } catch (err) {
    if (!optional || err instanceof LockError) throw err;
    hooks.onWarning?.(
      warning(
        `the apply runs without the lock across machines ${lockName(settings)}: ` +
          `${err instanceof Error ? err.message : String(err)}. Two applies started together on two ` +
          "machines may duplicate what they create; give the job the right to push that ref " +
          "(permissions: contents: write), or turn the lock off (git-lock: false) and rely on concurrency:.",
      ),
    );
    return undefined;
  }
}

/**
 * Releases the lock across machines, git stopped at the run's deadline (or {@link RELEASE_GRACE_MS}
 * from now, when later); a failure to is a warning saying how to remove it.
 */
async function releaseRefLock(shared: SharedLock, hooks: RunHooks): Promise<void> {
  const name = lockName(shared.settings);
  try {
    if (!(await shared.held.release(releaseBound(shared.bound)))) {
      hooks.onWarning?.(
        warning(
          `the apply lock ${name} was no longer this apply's (lock ${shared.held.id}) when it ended: ` +
            "it was removed (carte force-unlock) or taken over as stale; it was left as it is.",
        ),
      );
    }
  } catch (err) {
    hooks.onWarning?.(
      warning(
        `could not release the apply lock ${name}: ${err instanceof Error ? err.message : String(err)}. ` +
          `Other applies wait for it until it is stale; remove it with: carte force-unlock ${shared.held.id}` +
          (shared.settings.ref === DEFAULT_LOCK_REF ? "" : ` --ref ${shared.settings.ref}`),
      ),
    );
  }
}
