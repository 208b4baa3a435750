/**
 * The one plan/apply path, shared by `carte plan`, `carte apply` and the GitHub Action, so that the CLI
 * and the Action cannot drift apart: load the project → open the session → plan (or check a saved plan) → judge and enforce the safety
 * guards → show the plan → ask (apply, optional) → apply with the secrets sink → verify. It never
 * throws and prints nothing: it returns the plan, the apply report and the exit code, with the error
 * that ended the run, if any, mapped by `exitCodeFor` (src/errors.ts). The adapters translate their
 * options in and render the result out (src/render); what they show while the run goes on (the plan
 * before any write, the confirmation, progress) comes through {@link RunHooks}.
 */

import path from "node:path";
import { loadProject, type LoadedProject } from "../config/index.js";
import { DEFAULT_LOCK_REF, type RefLockSettings } from "../config/load.js";
import {
  acquireRefLock,
  lockName,
  pushableRemote,
  type HeldRefLock,
  type RemoteLock,
} from "../gitops/ref-lock.js";
import { findRepository, type GitDeadline } from "../gitops/safe-git.js";
import { compareWithBase, type BaseSplit, type LoadedBase } from "../gitops/base.js";
import { loadChangeScope } from "../gitops/scope.js";
import { planOnly } from "../gitops/reviewed.js";
import { allowEmptyShard, shardProject, type Shard } from "../gitops/shard.js";
import type { ApplyEvent } from "../apply/execute.js";
import { ExitCode, LockError, StalePlanError, UsageError, exitCodeFor } from "../errors.js";
import { quote } from "../config/quote.js";
import type { CurrentState } from "../model.js";
import { CLIENT_LOCK, acquireApplyLock, type LockHolder } from "./lock.js";
import { DEFAULT_PARALLELISM, type ClientOptions, type RetryInfo } from "../platform/client.js";
import { readPlanFile } from "../plan/file.js";
import { isEmptyPlan } from "../plan/plan.js";
import type { Targeting } from "../plan/target.js";
import type { Plan, SecretRotation } from "../plan/types.js";
import { unmanagedEmbeddedStores, unmanagedStoresNote } from "../status.js";
import { listWebhooks } from "../platform/webhooks.js";
import {
  findLostSecrets,
  prepareEvents,
  prepareSecretSink,
  rotateLostSecrets,
  secretsFileName,
  type Rotations,
  type SecretSink,
} from "./secrets.js";
import { openSession, runTarget, type RunTarget, type Session } from "./session.js";
import { countChanges, findStage, plannedStages, stageProject, type StageOutcome } from "../apply/rollout.js";
import {
  applyPlan,
  applyStages,
  checkSavedPlan,
  enforceSafety,
  isComplete,
  planProject,
  scopeDesired,
  checkReads,
  storeGuard,
  type ApplyReport,
  type RunOptions,
} from "./workflow.js";

/** Default of {@link RequestBase.runTimeoutMs}: 15 minutes. */
export const DEFAULT_RUN_TIMEOUT_MS = 15 * 60_000;

/** What a run is asked to do; common to {@link PlanRequest} and {@link ApplyRequest}. */
interface RequestBase {
  /** Path of carte.yaml, relative to the working directory or absolute. */
  config: string;
  /**
   * The environment: `CARTE_CLIENT_ID` and `CARTE_CLIENT_SECRET` (required when carte.yaml names a
   * platform address; optional against the embedded emulator). Default `process.env`.
   */
  env?: NodeJS.ProcessEnv;
  /** Limit the plan to some stores, kinds or addresses (`--store`, `--kind`, `--target`). */
  targeting?: Targeting;
  /**
   * The run's clock: time-bound entries of the files (`until:`, dated special days, prices `from:`) are
   * judged against it (src/config/time.ts). Default: the real time. The CLI takes it from `CARTE_NOW`.
   */
  now?: Date | undefined;
  /** `--force --reason`: go past the safety guards once; the reason is recorded in the plan. */
  force?: { reason: string } | undefined;
  /** Stores read and calls made at once. Default `DEFAULT_PARALLELISM` (src/platform/client.ts). */
  parallelism?: number;
  /** Per-request timeout of the platform client, in milliseconds. */
  timeoutMs?: number;
  /**
   * `--secrets-file`: the secrets file named on the command line, which wins over `CARTE_SECRETS_FILE`
   * and carte.yaml `secrets_file:`. A plan reads the marker beside it to say which webhook secrets an
   * earlier run never saved and an apply would rotate (src/run/secrets.ts `findLostSecrets`); an apply
   * reads the marker of its sink's file ({@link ApplyRequest.secrets}).
   */
  secretsFile?: string | undefined;
  /**
   * `--shard K/N`: only the stores of shard K of N, and the client-level settings on shard 1 only
   * (src/gitops/shard.ts). A shard without stores is not refused by the `no_stores` guard.
   */
  shard?: Shard | undefined;
  /**
   * `--stage NAME`: one stage of carte.yaml `rollout:` alone: its stores, and the client-level
   * settings when it is the first stage (src/apply/rollout.ts). A `UsageError` when the project has
   * no such stage. Without it, an apply of a project with `rollout:` goes stage by stage
   * (src/run/workflow.ts `applyStages`). A plan made with it records the stage (`Plan.stage`), which
   * `carte apply FILE` then applies alone.
   */
  stage?: string | undefined;
  /**
   * `--timeout`: the longest a run may take, in milliseconds, from its start: reads, retries and the
   * waits the platform asks for (429/503 `Retry-After`, which use up no attempt), the wait for another
   * apply's lock, every git command of the lock across machines, and the wait for the platform to show
   * the changes. Default 15 minutes.
   */
  runTimeoutMs?: number;
  /**
   * Settings of the platform client's retries (tests and benchmarks tune them; defaults otherwise):
   * backoff base and cap, the cap of one `Retry-After` wait, the client-side rate limit, jitter source.
   */
  client?: Pick<
    ClientOptions,
    "baseDelayMs" | "maxDelayMs" | "maxRetryAfterMs" | "maxAttempts" | "requestsPerSecond" | "random"
  >;
}

/** `carte plan`: plan only, no write. */
export interface PlanRequest extends RequestBase {
  command: "plan";
  /** `--detailed-exitcode`: exit code {@link ExitCode.changes} (2) when the plan has changes. */
  detailedExitCode?: boolean;
  /**
   * `--base REF`: also plan the files of this git ref against the same live read and split the plan's
   * changes into the branch's own and those already different on the platform ({@link RunResult.base},
   * src/gitops/base.ts).
   */
  base?: string | undefined;
  /**
   * `--scope changed` (with {@link base}): read and plan only the stores, and the kinds of each store,
   * that the difference between the base's files and these can touch (src/gitops/scope.ts); the plan
   * carries the scope (`targeting.scope`) and its first line says so. `all` (default): every store.
   * When the base's files do not load, the plan is not scoped (a warning says so).
   */
  scope?: "all" | "changed" | undefined;
  /**
   * The top of the search for the git repository of {@link base} (src/gitops/safe-git.ts
   * `findRepository`): the Action's workspace (`GITHUB_WORKSPACE`). The search never goes above it
   * when carte.yaml is inside it. Default: up to the root.
   */
  workspace?: string | undefined;
  /**
   * Compute the plan's checksums (`RunOptions.checksums`): needed when the plan is saved (`--out`) or
   * shown as JSON, not for the text or Markdown views. Default true.
   */
  checksums?: boolean;
}

/** `carte apply`: plan (or check a saved plan), then apply and verify. */
export interface ApplyRequest extends RequestBase {
  command: "apply";
  /**
   * A plan saved by `carte plan --out FILE`. Its operations are never carried out: the run plans afresh
   * and applies the fresh plan, without {@link RunHooks.confirm} (it was reviewed), only when neither the
   * files nor the platform changed since and its changes are the saved plan's (else
   * {@link StalePlanError}); the safety guards judge the fresh plan (`force` as without a file).
   */
  planFile?: string | undefined;
  /** With {@link planFile}: when it is stale, plan afresh (and confirm) instead of refusing. */
  replan?: boolean;
  /**
   * Where the webhook secrets that calls return go, given the loaded project (its `secrets_file:`).
   * Required: a secret the platform shows once is never dropped unseen. Called once, before planning;
   * nothing is written to it before the first call. The marker beside its secrets file
   * (`SecretSink.journal`) tells which secrets an earlier run never saved: the apply rotates them.
   */
  secrets: (project: LoadedProject) => SecretSink;
  /** Longest wait for the platform to show accepted writes, in milliseconds. Default 60 000. */
  convergenceTimeoutMs?: number;
  /**
   * Longest wait for an asynchronous call whose answer was lost to show its effect before it is reported
   * unsettled (never made again), in milliseconds. Default 5 000.
   */
  settleMs?: number;
  /**
   * Apply part of a fresh plan only (the GitHub Action's reviewed plan, src/gitops/reviewed.ts): called
   * with the fresh plan before the guards judge it; returns the addresses to apply, or `undefined` for
   * all. The plan is rebuilt from the same live read for those addresses alone.
   */
  only?: (plan: Plan) => string[] | undefined;
  /**
   * Longest wait for the lock of the stores when another apply on this machine holds it (src/run/lock.ts),
   * in milliseconds. Default: until the run's time limit ({@link RequestBase.runTimeoutMs}).
   */
  lockWaitMs?: number;
  /**
   * The apply lock across machines (src/gitops/ref-lock.ts). Absent: carte.yaml `lock:` when it has
   * one, else none. `"off"`: none, whatever carte.yaml says. A setting: carte.yaml's when it has one,
   * else this one, taken only where it can be (the GitHub Action's default): when the project is not
   * in a git checkout, or git cannot push the ref (no right to), a warning says so and the apply goes
   * on without it; a lock another apply holds is waited for all the same.
   */
  refLock?: "off" | RefLockSettings;
  /** The CI run's address, recorded in the lock across machines for whoever finds it held. */
  runUrl?: string;
  /**
   * The top of the search for the project's git repository, for the lock across machines (as
   * {@link PlanRequest.workspace}).
   */
  workspace?: string | undefined;
}

/** A run of the shared path. */
export type RunRequest = PlanRequest | ApplyRequest;

/** Callbacks through which an adapter shows a run as it goes. Each may throw: the run ends with that error. */
export interface RunHooks {
  /** Progress of the reads of the platform: `done` of `total` reads. */
  onStoreRead?: (done: number, total: number) => void;
  /** Progress of the apply: each call's outcome. */
  onEvent?: (event: ApplyEvent) => void;
  /** A call is about to be repeated (rate limit, transient failure). */
  onRetry?: (info: RetryInfo) => void;
  /**
   * A warning for the user, never holding a secret: a project's warnings, stores no file names, a
   * marker of webhook secrets that could not be updated.
   */
  onWarning?: (message: string) => void;
  /** A saved plan is stale and `replan` asks to plan again; called before planning again. */
  onReplan?: (stale: StalePlanError) => void;
  /** Another apply on this machine holds the lock of some of the stores: this run waits for it. */
  onLockWait?: (holder: LockHolder | undefined) => void;
  /** Another apply holds the lock across machines (src/gitops/ref-lock.ts): this run waits for it. */
  onRefLockWait?: (lock: RemoteLock, settings: RefLockSettings) => void;
  /**
   * The plan is made and judged by the safety guards (an override by `force` is recorded in it). Called
   * once per run that gets that far, before any write and before {@link confirm}, also when a guard
   * refuses the plan (the run then ends with an `UnsafePlanError`).
   */
  onPlan?: (
    plan: Plan,
    info: {
      saved: boolean;
      base?: BaseSplit | undefined;
      /**
       * With carte.yaml `rollout:` and no `--stage`: the plan split by stage, in the order the apply
       * goes (src/apply/rollout.ts `plannedStages`).
       */
      stages?: StageOutcome[] | undefined;
      /** Where the run goes (src/run/session.ts `runTarget`). */
      target: RunTarget;
    },
  ) => void | Promise<void>;
  /**
   * `carte apply` without `--auto-approve`: asked before a fresh plan with changes is applied. Resolve
   * `false` to cancel (nothing is applied; exit code 1, {@link RunResult.cancelled}); throw to end the
   * run with an error (e.g. a `UsageError` when there is no terminal to ask on). Absent: no question.
   */
  confirm?: (plan: Plan) => Promise<boolean> | boolean;
}

/** What a run of the shared path gives back. Exactly one of `error` and success holds. */
export interface RunResult {
  /** The loaded project, once loading succeeded. */
  project?: LoadedProject;
  /** Where the run goes (the embedded emulator or the platform's host), once the project is loaded. */
  target?: RunTarget;
  /** The plan, once planning (or reading and checking the saved plan) succeeded. */
  plan?: Plan;
  /** With {@link PlanRequest.base}: the plan's changes split against the base. */
  base?: BaseSplit;
  /** The rollout stage the run was limited to (`--stage`, or the saved plan's). */
  stage?: string;
  /**
   * Without a stage, for a project with `rollout:`: the stages the plan goes through, in order, and
   * what each would change (src/apply/rollout.ts `plannedStages`), as `onPlan` gets them.
   */
  plannedStages?: StageOutcome[];
  /** The apply's outcome, when calls were made (an apply of a plan with changes that was not refused). */
  report?: ApplyReport;
  /** How long the apply took (calls and verification), in milliseconds, with {@link report}. */
  applyMs?: number;
  /** The confirmation was declined: nothing was applied. */
  cancelled?: boolean;
  /**
   * Events whose webhook secret the platform made but that could not be kept (a lost answer, a failed
   * save): the run's exit code is 1, and `lostSecretsMessage` (src/run/secrets.ts) says how to recover.
   */
  lostSecrets?: string[];
  /**
   * 0 success or no changes; 1 error, a declined confirmation, or an apply that left something undone
   * (a call failed or was skipped, a store was refused, a change not shown, a duplicate left, a webhook
   * secret made but not kept); 2 changes pending with `detailedExitCode`; 3 refused by a safety guard.
   */
  exitCode: number;
  /** Why the run ended early (`exitCode` is `exitCodeFor(error)`); never holds a secret. */
  error?: unknown;
}

function runOptions(request: RunRequest, hooks: RunHooks): RunOptions {
  return {
    ...(request.parallelism !== undefined ? { parallelism: request.parallelism } : {}),
    ...(request.targeting ? { targeting: request.targeting } : {}),
    // Checksums are for saved plans (docs/plan-format.md) and for the apply, which checks each store's
    // digest again before its first write (workflow.ts storeGuard); a plan only shown does without.
    checksums: request.command === "apply" || (request.checksums ?? true),
    // The whole current state is kept only where a step needs it after planning: the comparison with
    // the base ref, and the reviewed plan rebuilt from the same read. Otherwise stores stream through.
    ...((request.command === "plan" && request.base) || (request.command === "apply" && request.only)
      ? { keepCurrent: true }
      : {}),
    ...(hooks.onStoreRead ? { onStoreRead: hooks.onStoreRead } : {}),
    ...(hooks.onEvent ? { onEvent: hooks.onEvent } : {}),
    ...(request.command === "apply" && request.convergenceTimeoutMs !== undefined
      ? { convergenceTimeoutMs: request.convergenceTimeoutMs }
      : {}),
    ...(request.command === "apply" && request.settleMs !== undefined ? { settleMs: request.settleMs } : {}),
    // The reads that check an apply (before each store's first write, and the verification of each
    // store once its calls ended) share one bound beside the calls'.
    ...(request.command === "apply" ? { checks: checkReads(request.parallelism) } : {}),
  };
}

/**
 * Runs `plan` or `apply` from the project file to the verified result. Never throws: every error
 * (configuration, platform, safety refusal, stale saved plan, convergence, a hook's own error) ends the
 * run and is returned in {@link RunResult.error} with its exit code; what was done until then (project,
 * plan) is returned too. The session, and the embedded emulator with it, is always closed.
 *
 * The run is a pipeline of named steps, each exported to be tested alone: {@link resolveScope} →
 * {@link loadRun} → {@link lockRun} (apply) → {@link readAndPlan} → {@link finishPlan} →
 * {@link recoverSecrets} → {@link guardPlan} → {@link applyRun} (apply) → {@link verdict} → the result.
 */
export async function runCarte(request: RunRequest, hooks: RunHooks = {}): Promise<RunResult> {
  const result: RunResult = { exitCode: ExitCode.ok };
  const deadline = Date.now() + (request.runTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS);
  let locks: RunLocks | undefined;
  try {
    const run = await loadRun(request, await resolveScope(request, hooks), hooks);
    result.project = run.project;
    result.target = runTarget(run.project);
    if (run.stage !== undefined) result.stage = run.stage;
    if (request.command === "apply") locks = await lockRun(request, run, hooks, deadline);
    const session = await openRunSession(request, run.project, hooks, deadline);
    try {
      const options: RunOptions = {
        ...runOptions(request, hooks),
        ...(run.targeting ? { targeting: run.targeting } : {}),
        identitySites: run.project.identitySites,
        deadline,
      };
      // The sink of an apply is made once, before planning (ApplyRequest.secrets).
      const sink = request.command === "apply" ? request.secrets(run.project) : undefined;
      const planned = await readAndPlan(request, run, session, options, hooks);
      const plan = finishPlan(request, run, planned);
      const recovery = await recoverSecrets(request, run, plan, session, sink);
      result.plan = plan;
      // Information: stores of the platform no file names (a deleted store file) are left alone.
      const unmanaged = unmanagedStoresNote(unmanagedEmbeddedStores(run.loaded, session));
      if (unmanaged) hooks.onWarning?.(unmanaged);
      if (request.command === "plan" && request.base && planned.current) {
        result.base = await compareWithBase(run.project, plan, planned.current, run.base ?? request.base, {
          shard: request.shard,
          now: request.now,
          workspace: request.workspace,
        });
      }
      const stages = await guardPlan(request, run, plan, hooks, {
        saved: planned.fromFile,
        base: result.base,
        target: result.target,
      });
      if (stages) result.plannedStages = stages;
      if (request.command === "plan") {
        result.exitCode = planExitCode(request, plan);
        return result;
      }
      const applied = await applyRun(
        request,
        run,
        plan,
        planned.fromFile,
        session,
        planned.readAt ? { ...options, planReads: planned.readAt } : options,
        sink!,
        recovery,
        hooks,
      );
      if (applied === "cancelled") {
        result.cancelled = true;
        result.exitCode = ExitCode.error;
        return result;
      }
      if (applied) {
        result.report = applied.report;
        result.applyMs = applied.applyMs;
        if (applied.lostSecrets.length > 0) result.lostSecrets = applied.lostSecrets;
        result.exitCode = verdict(applied.report, applied.lostSecrets);
      }
      return result;
    } finally {
      await session.close();
    }
  } catch (err) {
    result.error = err;
    result.exitCode = exitCodeFor(err);
    return result;
  } finally {
    await locks?.release();
  }
}

/** The files of a run, loaded and, with `--scope changed`, scoped ({@link resolveScope}). */
export interface ScopedFiles {
  /** The project of the files, every store (neither sharded nor staged yet). */
  loaded: LoadedProject;
  /** The request's targeting, with the change scope when `--scope changed` found one. */
  targeting: Targeting | undefined;
  /** With `--scope changed`: the base's files, loaded once for the scope and for the split. */
  base: LoadedBase | undefined;
}

/**
 * Step "resolve scope": loads the files and, with `--scope changed`, the base's too, to scope the run
 * to the stores and kinds the difference can touch (src/gitops/scope.ts); the head's stores are then
 * resolved only where the files differ. When the base's files do not load, the run is not scoped and
 * `onWarning` says so.
 *
 * @throws {@link UsageError} for `--scope changed` without `--base`; {@link ConfigError} for files that
 *   do not load.
 */
export async function resolveScope(request: RunRequest, hooks: RunHooks): Promise<ScopedFiles> {
  if (request.command !== "plan" || request.scope !== "changed") {
    // Read-only from here on: stores of a shared catalog share their resources (memory of a big chain).
    const loaded = await loadProject(request.config, {
      shareResources: true,
      ...(request.now ? { now: request.now } : {}),
    });
    return { loaded, targeting: request.targeting, base: undefined };
  }
  if (!request.base) {
    throw new UsageError(
      "--scope changed needs --base REF: the commit whose files the changes are measured from",
    );
  }
  const scoped = await loadChangeScope(request.config, request.base, {
    shard: request.shard,
    now: request.now,
    workspace: request.workspace,
  });
  if (!scoped.scope) {
    hooks.onWarning?.(
      `Warning: the plan is not scoped to the changes since ${request.base}: ${scoped.base.unavailable ?? "?"}; every store is read`,
    );
    return { loaded: scoped.project, targeting: request.targeting, base: scoped.base };
  }
  const targeting = { ...(request.targeting ?? { stores: [], kinds: [], targets: [] }), scope: scoped.scope };
  return { loaded: scoped.project, targeting, base: scoped.base };
}

/** The project a run works on ({@link loadRun}). */
export interface RunProject extends ScopedFiles {
  /** The project limited to the run's shard and stage: what is locked, read, planned and applied. */
  project: LoadedProject;
  /** `carte apply FILE`: the saved plan, read within bounds and its digest checked. */
  saved: Plan | undefined;
  /** The rollout stage the run is limited to (`--stage`, or the saved plan's). */
  stage: string | undefined;
}

/**
 * Step "load": the project the run works on: the files' project limited to the shard (`--shard`) and
 * the stage (`--stage`, or the saved plan's), the saved plan read. The project's warnings go to
 * `onWarning`. A saved plan is read, and its digest checked, before anything else: a plan edited by
 * accident makes no call; its operations are never carried out ({@link readAndPlan}).
 *
 * @throws {@link UsageError} for a stage the project does not have or that the saved plan contradicts;
 *   the errors of `readPlanFile` (src/plan/file.ts) for a saved plan that cannot be used.
 */
export async function loadRun(request: RunRequest, files: ScopedFiles, hooks: RunHooks): Promise<RunProject> {
  let project = request.shard ? shardProject(files.loaded, request.shard) : files.loaded;
  for (const warning of project.warnings) hooks.onWarning?.(`Warning: ${warning}`);
  const saved =
    request.command === "apply" && request.planFile ? await readPlanFile(request.planFile) : undefined;
  // One stage of the rollout alone: the project limited to it, from here on (lock, plan, apply).
  const stage = stageOf(request, saved);
  if (stage !== undefined) {
    const { stage: picked, first } = findStage(project, stage);
    project = stageProject(project, picked, first);
  }
  return { ...files, project, saved, stage };
}

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

/** Opens the run's session with its connections and deadline (src/run/session.ts). */
async function openRunSession(
  request: RunRequest,
  project: LoadedProject,
  hooks: RunHooks,
  deadline: number,
): Promise<Session> {
  const session = await openSession(project, {
    env: request.env ?? process.env,
    ...(request.timeoutMs ? { timeoutMs: request.timeoutMs } : {}),
    ...(hooks.onRetry ? { onRetry: hooks.onRetry } : {}),
    ...(request.client ? { client: request.client } : {}),
    // An apply reads to check its calls beside making them (RunOptions.checks): twice the connections.
    connections: (request.parallelism ?? DEFAULT_PARALLELISM) * (request.command === "apply" ? 2 : 1),
  });
  session.client.setDeadline(deadline);
  return session;
}

/** The plan as read and planned ({@link readAndPlan}). */
export interface PlannedRun {
  plan: Plan;
  /** The whole current state, when the options kept it (`RunOptions.keepCurrent`). */
  current: CurrentState | undefined;
  /** The plan is the fresh plan that makes exactly a saved plan's changes. */
  fromFile: boolean;
  /**
   * When the plan's read of each store was in (src/run/workflow.ts `planProject`), for a plan not made for
   * a saved plan file: the optimistic check of an apply that follows at once takes these reads
   * (`RunOptions.planReads`).
   */
  readAt?: Map<string, number>;
}

/**
 * Steps "read" and "plan": the platform read store by store, each store planned as its reads are in
 * (src/run/workflow.ts `planProject`). A saved plan is applied as the fresh plan that makes exactly its
 * changes (`checkSavedPlan`); when none does, refused, or replaced when asked (`--replan`, `onReplan`).
 *
 * @throws {@link StalePlanError} for a saved plan that no longer holds, without `replan`.
 */
export async function readAndPlan(
  request: RunRequest,
  run: RunProject,
  session: Session,
  options: RunOptions,
  hooks: RunHooks,
): Promise<PlannedRun> {
  if (run.saved) {
    try {
      const plan = await checkSavedPlan(run.saved, run.project, session, options);
      return { plan, current: undefined, fromFile: true };
    } catch (err) {
      if (!(err instanceof StalePlanError) || !(request.command === "apply" && request.replan)) throw err;
      hooks.onReplan?.(err);
    }
  }
  const { plan, current, readAt } = await planProject(run.project, session, options);
  return { plan, current, fromFile: false, readAt };
}

/**
 * Step "plan", its end, pure: the plan of a shard without stores is let through the `no_stores` guard,
 * a staged plan records its stage, and an apply limited by {@link ApplyRequest.only} is rebuilt from
 * the same read for the addresses it keeps. Returns the plan the run goes on with.
 */
export function finishPlan(request: RunRequest, run: RunProject, planned: PlannedRun): Plan {
  let plan = planned.plan;
  if (request.shard) allowEmptyShard(plan, run.loaded);
  if (run.stage !== undefined) plan.stage = run.stage;
  if (request.command === "apply" && request.only && planned.current) {
    const keep = request.only(plan);
    if (keep) plan = planOnly(run.project, planned.current, plan, keep);
  }
  return plan;
}

/** Webhook secrets found on their way by {@link recoverSecrets}. */
export interface SecretRecovery {
  /** Events of the marker to clear: secrets saved after all, or of webhooks the platform no longer has. */
  forget: string[];
  /** The lost secrets the apply rotates (also in `Plan.rotateSecrets`). */
  rotations: SecretRotation[];
}

/**
 * Step "plan", the secrets: webhook secrets an earlier run had the platform make and never saved, from
 * the marker beside the secrets file (the sink's for an apply, the one the run names for a plan).
 * Those of webhooks the platform has are rotated by the apply (`Plan.rotateSecrets`, set here); the
 * marker's other entries are cleared by it.
 */
export async function recoverSecrets(
  request: RunRequest,
  run: RunProject,
  plan: Plan,
  session: Session,
  sink: SecretSink | undefined,
): Promise<SecretRecovery> {
  const env = request.env ?? process.env;
  const named = secretsFileName({ file: request.secretsFile, configured: run.project.secretsFile, env });
  const journal = sink ? sink.journal : named && path.resolve(named);
  const journalled = journal ? await findLostSecrets(journal) : undefined;
  const forget = [...(journalled?.saved ?? [])];
  if (journalled && journalled.lost.length > 0 && webhooksTargeted(plan.targeting ?? run.targeting)) {
    const configured = new Set((await listWebhooks(session.client)).map((w) => String(w.event)));
    const rotate = journalled.lost.filter((l) => configured.has(l.event));
    if (rotate.length > 0) plan.rotateSecrets = rotate;
    forget.push(...journalled.lost.filter((l) => !configured.has(l.event)).map((l) => l.event));
  }
  return { forget, rotations: plan.rotateSecrets ?? [] };
}

/**
 * Step "guard": judge, show, then enforce. The safety guards judge the plan (`force` overrides them and
 * is recorded in it); `onPlan` is shown the plan, with the stages of the rollout an apply goes through
 * when the run is not limited to one, also when a guard refuses it; then a refusal ends the run before
 * any write. Returns the planned stages (without `--stage`, for a project with `rollout:`).
 *
 * @throws {@link UnsafePlanError} when a guard refuses the plan and `force` does not override it.
 */
export async function guardPlan(
  request: RunRequest,
  run: RunProject,
  plan: Plan,
  hooks: RunHooks,
  info: { saved: boolean; base: BaseSplit | undefined; target: RunTarget },
): Promise<StageOutcome[] | undefined> {
  let refusal: unknown;
  try {
    enforceSafety(plan, request.force);
  } catch (err) {
    refusal = err;
  }
  const rollout = run.stage === undefined ? run.project.rollout : undefined;
  const stages = rollout ? plannedStages(plan, rollout) : undefined;
  await hooks.onPlan?.(plan, { ...info, ...(stages ? { stages } : {}) });
  if (refusal) throw refusal;
  return stages;
}

/** The exit code of `carte plan`: 2 for a plan with changes under `--detailed-exitcode`, else 0. */
export function planExitCode(request: PlanRequest, plan: Plan): number {
  const nothing = isEmptyPlan(plan) && (plan.rotateSecrets ?? []).length === 0;
  return request.detailedExitCode && !nothing ? ExitCode.changes : ExitCode.ok;
}

/** What an apply did ({@link applyRun}). */
export interface AppliedRun {
  /** The calls' outcomes and the verification's, the rotations of lost secrets first. */
  report: ApplyReport;
  /** How long the calls and the verification took, in milliseconds. */
  applyMs: number;
  /** Events whose webhook secret the platform made but that could not be kept. */
  lostSecrets: string[];
}

/**
 * Steps "apply" and "verify" of an apply: nothing for a plan without changes (`undefined`); else the
 * confirmation (`confirm`, not for a saved plan: it was reviewed; `"cancelled"` when declined), the
 * lost secrets rotated, then the plan applied, stage by stage with `rollout:` (each stage verified
 * before the next; the first not complete stops the rest) or at once, each store checked against the
 * plan before its first write and verified after its last call (src/run/workflow.ts).
 */
export async function applyRun(
  request: ApplyRequest,
  run: RunProject,
  plan: Plan,
  fromFile: boolean,
  session: Session,
  options: RunOptions,
  sink: SecretSink,
  recovery: SecretRecovery,
  hooks: RunHooks,
): Promise<AppliedRun | "cancelled" | undefined> {
  const { rotations } = recovery;
  if (isEmptyPlan(plan) && rotations.length === 0) {
    await forgetSecrets(sink, recovery.forget, hooks);
    return undefined;
  }
  // The plan's own reads stand for the check before each store's first write only when the apply
  // follows its plan at once (src/run/workflow.ts storeGuard): not after a person was asked, nor in the
  // stages of a rollout (each is planned again).
  let guarded: RunOptions = options;
  if (!fromFile && hooks.confirm) {
    if (!(await hooks.confirm(plan))) return "cancelled";
    guarded = withoutPlanReads(options);
  }
  await forgetSecrets(sink, recovery.forget, hooks);
  // Lost secrets first, each rotated and saved once the sink proved it can keep it.
  let rotated: Rotations | undefined;
  if (rotations.length > 0) {
    await prepareEvents(
      sink,
      rotations.map((r) => r.event),
    );
    rotated = await rotateLostSecrets(rotations, session.client, sink);
  }
  const stages = run.stage === undefined ? run.project.rollout : undefined;
  if (stages) {
    const started = Date.now();
    const staged = isEmptyPlan(plan)
      ? { report: emptyReport(), lostSecrets: [] }
      : await applyStages(plan, run.project, stages, session, {
          ...withoutPlanReads(options),
          sink,
          ...(request.only ? { onlyPlanned: true } : {}),
        });
    return {
      report: withRotations(staged.report, rotated),
      applyMs: Date.now() - started,
      lostSecrets: staged.lostSecrets,
    };
  }
  // Before any call, the sink proves it can keep the secrets the plan's calls will return, or the
  // apply is refused (src/run/secrets.ts prepareSecretSink); afterwards, secrets made but not kept.
  const prepared = await prepareSecretSink(plan, sink);
  const started = Date.now();
  const guard = storeGuard(plan, run.project, session, guarded);
  const report = isEmptyPlan(plan)
    ? emptyReport()
    : await applyPlan(plan, session, {
        ...options,
        secrets: prepared.sink,
        ...(guard ? { beforeStore: guard } : {}),
      });
  const applyMs = Date.now() - started;
  const lostSecrets = await prepared.finish(report.operations);
  const staged =
    run.stage === undefined ? report : { ...report, stages: [stageOutcome(plan, run.stage, report)] };
  return { report: withRotations(staged, rotated), applyMs, lostSecrets };
}

/** The options without {@link RunOptions.planReads}: every store is read again before its first write. */
function withoutPlanReads(options: RunOptions): RunOptions {
  const { planReads: _reused, ...rest } = options;
  return rest;
}

/**
 * Step "verify", its verdict: the exit code of an apply. Never 0 while something is left: a failed or
 * skipped call, a refused store, a change not shown, a duplicate, a webhook secret made but not kept.
 */
export function verdict(report: ApplyReport, lostSecrets: readonly string[]): number {
  return isComplete(report) && lostSecrets.length === 0 ? ExitCode.ok : ExitCode.error;
}

/** Clears the marker's entries of secrets saved after all, or never made; a failure is a warning. */
async function forgetSecrets(sink: SecretSink, forget: readonly string[], hooks: RunHooks): Promise<void> {
  if (forget.length === 0 || !sink.release) return;
  try {
    await sink.release([...forget]);
  } catch (err) {
    hooks.onWarning?.(
      `Warning: could not clear ${forget.join(", ")} from the marker of webhook secrets on their way: ` +
        `${err instanceof Error ? err.message : String(err)}`,
    );
  }
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
 * @throws {@link LockError} when another apply holds it past the wait; {@link UsageError} when git
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
        throw new UsageError(
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
      `Warning: the apply runs without the lock across machines ${lockName(settings)}: ` +
        `${err instanceof Error ? err.message : String(err)}. Two applies started together on two ` +
        "machines may duplicate what they create; give the job the right to push that ref " +
        "(permissions: contents: write), or turn the lock off (git-lock: false) and rely on concurrency:.",
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
        `Warning: the apply lock ${name} was no longer this apply's (lock ${shared.held.id}) when it ended: ` +
          "it was removed (carte force-unlock) or taken over as stale; it was left as it is.",
      );
    }
  } catch (err) {
    hooks.onWarning?.(
      `Warning: could not release the apply lock ${name}: ${err instanceof Error ? err.message : String(err)}. ` +
        `Other applies wait for it until it is stale; remove it with: carte force-unlock ${shared.held.id}` +
        (shared.settings.ref === DEFAULT_LOCK_REF ? "" : ` --ref ${shared.settings.ref}`),
    );
  }
}

/** Whether a run limited by `targeting` covers webhooks (no `--kind`, or `--kind webhook`). */
function webhooksTargeted(targeting: Targeting | undefined): boolean {
  return !targeting || targeting.kinds.length === 0 || targeting.kinds.includes("webhook");
}

/** The report of an apply that made no call of the plan (it had only secrets to rotate). */
function emptyReport(): ApplyReport {
  return { operations: [], failed: 0, skipped: 0, pending: [], duplicates: [], refused: [], waitedMs: 0 };
}

/** A report with the rotations of lost secrets made before the plan's calls, first. */
function withRotations(report: ApplyReport, rotations: Rotations | undefined): ApplyReport {
  if (!rotations) return report;
  return {
    ...report,
    operations: [...rotations.results, ...report.operations],
    failed: report.failed + rotations.results.filter((r) => r.status === "failed").length,
    ...(rotations.rotated.length > 0 ? { rotated: rotations.rotated } : {}),
  };
}

/**
 * The stage a run is limited to: `--stage`, or the one a saved plan was made for. Throws
 * {@link UsageError} when they differ, or when `--stage` is given for a saved plan of every stage.
 */
function stageOf(request: RunRequest, saved: Plan | undefined): string | undefined {
  if (!saved) return request.stage;
  // A saved plan is carte's own file, but anyone may have written it: its stage is checked too.
  if (saved.stage !== undefined && typeof saved.stage !== "string") {
    throw new UsageError("the saved plan's stage is not a stage name; save the plan again");
  }
  if (request.stage !== undefined && saved.stage !== request.stage) {
    throw new UsageError(
      saved.stage === undefined
        ? `--stage ${quote(request.stage, 60)}: the saved plan covers every stage; apply it without --stage, or save a plan of the stage with carte plan --stage ${quote(request.stage, 60)} --out FILE`
        : `--stage ${quote(request.stage, 60)}: the saved plan is of stage ${quote(saved.stage, 60)}`,
    );
  }
  return saved.stage;
}

/** What the one stage of a `--stage` apply did. */
function stageOutcome(plan: Plan, name: string, report: ApplyReport): StageOutcome {
  return {
    name,
    status: isComplete(report) ? "applied" : "failed",
    stores: plan.stores.length,
    changes: countChanges(plan.changes),
    calls: report.operations.length,
  };
}
