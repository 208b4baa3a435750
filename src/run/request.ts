/**
 * What the one plan/apply path ({@link runCarte}, src/run/run.ts) is asked, what it reports while it
 * runs (the hooks) and what it returns.
 */

import { type LoadedProject } from "../config/index.js";
import { type RefLockSettings } from "../config/load.js";
import { type RemoteLock } from "../gitops/ref-lock.js";
import { type BaseSplit } from "../gitops/base.js";
import { type Shard } from "../gitops/shard.js";
import type { ApplyEvent } from "../apply/execute.js";
import { StalePlanError, type Diagnostic } from "../errors.js";
import { type LockHolder } from "./lock.js";
import { type RetryInfo } from "../platform/client.js";
import type { CallCounts } from "../platform/call-tally.js";
import type { Targeting } from "../plan/target.js";
import type { Plan } from "../plan/types.js";
import { type SecretSink } from "./secrets.js";
import { type ClientTuning, type RunTarget } from "./session.js";
import { type StageOutcome } from "../apply/rollout.js";
import { type ApplyReport } from "../apply/report.js";

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
   * `--platform NAME`: the one platform (country) of carte.yaml `platforms:` this run plans or applies
   * (src/config/platforms.ts); required when carte.yaml names platforms: the CLI and the Action run
   * each platform in turn.
   */
  platform?: string | undefined;
  /**
   * `--rehearsal`: run on the platform's development host, with its test stores in place of the
   * production stores (carte.yaml `platforms: NAME: development:`).
   */
  rehearsal?: boolean | undefined;
  /**
   * The run's clock: time-bound entries of the files (`until:`, dated special days, prices `from:`) are
   * judged against it (src/time/clock.ts). Default: the real time. The CLI takes it from `CARTE_NOW`.
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
   * settings when it is the first stage (src/apply/rollout.ts). A `CommandLineError` when the project has
   * no such stage. Without it, an apply of a project with `rollout:` goes stage by stage
   * (src/run/stages.ts `applyStages`). A plan made with it records the stage (`Plan.stage`), which
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
   * backoff base and cap, the cap of one `Retry-After` wait, the client-side rate limit, jitter source,
   * and the stop rule of the success rate (off in the fault-injection runs, which fail calls on purpose).
   */
  client?: ClientTuning;
}

/** `carte plan`: plan only, no write. */
export interface PlanRequest extends RequestBase {
  command: "plan";
  /** `--detailed-exitcode`: exit code `ExitCode.changes` (2) when the plan has changes. */
  detailedExitCode?: boolean;
  /**
   * `--base REF`: also plan the files of this git ref against the same live read and split the plan's
   * changes into the branch's own and those already different on the platform ({@link RunResult.base},
   * src/gitops/base.ts).
   */
  base?: string | undefined;
  /**
   * `--scope changed` (with {@link base}): read and plan only the stores, and the kinds of each store,
   * that the difference between the base's files and these can touch (src/gitops/change-scope.ts); the plan
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
  /**
   * The project is loaded (scoped to the run's platform of carte.yaml `platforms:`, its shard and its
   * stage) and where the run goes is known; called before the session opens, so that an adapter can
   * head what follows with the platform, its country and currency, and its target.
   */
  onProject?: (project: LoadedProject, target: RunTarget) => void;
  /** Progress of the reads of the platform: `done` of `total` reads. */
  onStoreRead?: (done: number, total: number) => void;
  /** Progress of the apply: each call's outcome. */
  onEvent?: (event: ApplyEvent) => void;
  /** A call is about to be repeated (rate limit, transient failure). */
  onRetry?: (info: RetryInfo) => void;
  /**
   * A warning for the user, never holding a secret: a project's warnings (each at its place in the
   * files), a marker of webhook secrets that could not be updated, a lock that could not be taken.
   */
  onWarning?: (warning: Diagnostic) => void;
  /** Information for the user that is no warning (stores of the platform no file names), one line. */
  onNote?: (message: string) => void;
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
   * run with an error (e.g. a `CommandLineError` when there is no terminal to ask on). Absent: no
   * question.
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
  /**
   * The HTTP calls the run made to the platform, and how many were answered 2xx, once a session was
   * open (src/platform/call-tally.ts): the success rate the platform's terms bound (docs/platform-api.md §1).
   */
  calls?: CallCounts;
}
