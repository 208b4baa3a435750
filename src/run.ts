/**
 * The one plan/apply path, shared by `carte plan`, `carte apply` and the GitHub Action (issue 9, item
 * 5): load the project → open the session → plan (or check a saved plan) → judge and enforce the safety
 * guards → show the plan → ask (apply, optional) → apply with the secrets sink → verify. It never
 * throws and prints nothing: it returns the plan, the apply report and the exit code, with the error
 * that ended the run, if any, mapped by `exitCodeFor` (src/errors.ts). The adapters translate their
 * options in and render the result out (src/render); what they show while the run goes on (the plan
 * before any write, the confirmation, progress) comes through {@link RunHooks}.
 */

import { loadProject, type LoadedProject } from "./config/index.js";
import type { ApplyEvent } from "./apply/execute.js";
import { ExitCode, StalePlanError, exitCodeFor } from "./errors.js";
import type { RetryInfo } from "./platform/client.js";
import { readPlanFile } from "./plan/file.js";
import { isEmptyPlan } from "./plan/plan.js";
import type { Targeting } from "./plan/target.js";
import type { Plan } from "./plan/types.js";
import type { SecretSink } from "./secrets.js";
import { openSession } from "./session.js";
import {
  applyPlan,
  checkSavedPlan,
  enforceSafety,
  planProject,
  type ApplyReport,
  type RunOptions,
} from "./workflow.js";

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
  /** `--force --reason`: go past the safety guards once; the reason is recorded in the plan. */
  force?: { reason: string } | undefined;
  /** Stores read and calls made at once. Default `DEFAULT_PARALLELISM` (src/platform/client.ts). */
  parallelism?: number;
  /** Per-request timeout of the platform client, in milliseconds. */
  timeoutMs?: number;
}

/** `carte plan`: plan only, no write. */
export interface PlanRequest extends RequestBase {
  command: "plan";
  /** `--detailed-exitcode`: exit code {@link ExitCode.changes} (2) when the plan has changes. */
  detailedExitCode?: boolean;
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
   * A plan saved by `carte plan --out FILE`. It is applied only when neither the files nor the platform
   * changed since (else {@link StalePlanError}), and without {@link RunHooks.confirm}: it was reviewed.
   */
  planFile?: string | undefined;
  /** With {@link planFile}: when it is stale, plan afresh (and confirm) instead of refusing. */
  replan?: boolean;
  /**
   * Where the webhook secrets that calls return go, given the loaded project (its `secrets_file:`).
   * Required: a secret the platform shows once is never dropped unseen. Called once, just before the
   * first call, and only when the plan has changes.
   */
  secrets: (project: LoadedProject) => SecretSink;
  /** Longest wait for the platform to show accepted writes, in milliseconds. Default 60 000. */
  convergenceTimeoutMs?: number;
  /** Longest wait before an unsettled asynchronous create is taken as not made, in milliseconds. */
  settleMs?: number;
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
  /** A saved plan is stale and `replan` asks to plan again; called before planning again. */
  onReplan?: (stale: StalePlanError) => void;
  /**
   * The plan is made and judged by the safety guards (an override by `force` is recorded in it). Called
   * once per run that gets that far, before any write and before {@link confirm}, also when a guard
   * refuses the plan (the run then ends with an `UnsafePlanError`).
   */
  onPlan?: (plan: Plan, info: { saved: boolean }) => void | Promise<void>;
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
  /** The plan, once planning (or reading and checking the saved plan) succeeded. */
  plan?: Plan;
  /** The apply's outcome, when calls were made (an apply of a plan with changes that was not refused). */
  report?: ApplyReport;
  /** How long the apply took (calls and verification), in milliseconds, with {@link report}. */
  applyMs?: number;
  /** The confirmation was declined: nothing was applied. */
  cancelled?: boolean;
  /**
   * 0 success or no changes; 1 error, a declined confirmation, or an apply where a call failed or was
   * skipped; 2 changes pending with `detailedExitCode`; 3 refused by a safety guard.
   */
  exitCode: number;
  /** Why the run ended early (`exitCode` is `exitCodeFor(error)`); never holds a secret. */
  error?: unknown;
}

function runOptions(request: RunRequest, hooks: RunHooks): RunOptions {
  return {
    ...(request.parallelism !== undefined ? { parallelism: request.parallelism } : {}),
    ...(request.targeting ? { targeting: request.targeting } : {}),
    // Checksums are for saved plans (docs/plan-format.md): a plan to show or to apply at once does
    // without them unless asked; checking a saved plan computes them (workflow.ts checkSavedPlan).
    checksums: request.command === "plan" ? (request.checksums ?? true) : false,
    ...(hooks.onStoreRead ? { onStoreRead: hooks.onStoreRead } : {}),
    ...(hooks.onEvent ? { onEvent: hooks.onEvent } : {}),
    ...(request.command === "apply" && request.convergenceTimeoutMs !== undefined
      ? { convergenceTimeoutMs: request.convergenceTimeoutMs }
      : {}),
    ...(request.command === "apply" && request.settleMs !== undefined ? { settleMs: request.settleMs } : {}),
  };
}

/**
 * Runs `plan` or `apply` from the project file to the verified result. Never throws: every error
 * (configuration, platform, safety refusal, stale saved plan, convergence, a hook's own error) ends the
 * run and is returned in {@link RunResult.error} with its exit code; what was done until then (project,
 * plan) is returned too. The session, and the embedded emulator with it, is always closed.
 */
export async function runCarte(request: RunRequest, hooks: RunHooks = {}): Promise<RunResult> {
  const result: RunResult = { exitCode: ExitCode.ok };
  try {
    // Read-only from here on: stores of a shared catalog share their resources (memory of a big chain).
    result.project = await loadProject(request.config, { shareResources: true });
    const project = result.project;
    const saved =
      request.command === "apply" && request.planFile ? await readPlanFile(request.planFile) : undefined;
    const session = await openSession(project, {
      env: request.env ?? process.env,
      ...(request.timeoutMs ? { timeoutMs: request.timeoutMs } : {}),
      ...(hooks.onRetry ? { onRetry: hooks.onRetry } : {}),
      ...(request.parallelism ? { connections: request.parallelism } : {}),
    });
    try {
      const options = runOptions(request, hooks);

      // A saved plan is used only while it still fits; else refused, or replaced when asked.
      let plan: Plan | undefined;
      if (saved) {
        try {
          await checkSavedPlan(saved, project, session, options);
          plan = saved;
        } catch (err) {
          if (!(err instanceof StalePlanError) || !(request.command === "apply" && request.replan)) throw err;
          hooks.onReplan?.(err);
        }
      }
      const fromFile = plan !== undefined;
      plan ??= (await planProject(project, session, options)).plan;
      result.plan = plan;

      // Judge, show, then enforce: a refused plan is still shown, and nothing is written.
      let refusal: unknown;
      try {
        enforceSafety(plan, request.force);
      } catch (err) {
        refusal = err;
      }
      await hooks.onPlan?.(plan, { saved: fromFile });
      if (refusal) throw refusal;

      if (request.command === "plan") {
        result.exitCode = request.detailedExitCode && !isEmptyPlan(plan) ? ExitCode.changes : ExitCode.ok;
        return result;
      }
      if (isEmptyPlan(plan)) return result;
      if (!fromFile && hooks.confirm && !(await hooks.confirm(plan))) {
        result.cancelled = true;
        result.exitCode = ExitCode.error;
        return result;
      }

      const started = Date.now();
      const report = await applyPlan(plan, session, { ...options, secrets: request.secrets(project) });
      result.report = report;
      result.applyMs = Date.now() - started;
      result.exitCode = report.failed > 0 || report.skipped > 0 ? ExitCode.error : ExitCode.ok;
      return result;
    } finally {
      await session.close();
    }
  } catch (err) {
    result.error = err;
    result.exitCode = exitCodeFor(err);
    return result;
  }
}
