/**
 * The one plan/apply path, shared by `carte plan`, `carte apply` and the GitHub Action, so that the CLI
 * and the Action cannot drift apart: load the project → open the session → plan (or check a saved plan) → judge and enforce the safety
 * guards → show the plan → ask (apply, optional) → apply with the secrets sink → verify. It never
 * throws and prints nothing: it returns the plan, the apply report and the exit code, with the error
 * that ended the run, if any, mapped by `exitCodeFor` (src/errors.ts). The adapters translate their
 * options in and render the result out (src/render); what they show while the run goes on (the plan
 * before any write, the confirmation, progress) comes through {@link RunHooks}.
 *
 * The folder holds the run's steps, each in the file that names it: what is asked and returned
 * (request.ts), "resolve scope" and "load" (step-load.ts), "lock" (step-lock.ts, over the lock of one
 * machine in lock.ts and the lock across machines of src/gitops/ref-lock.ts), "read", "plan" and
 * "guard" (step-plan.ts), "apply" and "verify" (step-apply.ts). Below them, the library's own steps,
 * which src/index.ts exports too: planning (plan-project.ts, saved-plan.ts), the check before a
 * store's first write (store-guard.ts), applying and verifying (apply-plan.ts, verify-apply.ts), the
 * stages of a rollout (stages.ts), their options (options.ts); the session (session.ts) and the
 * webhook secrets (secrets.ts).
 */

import { type LoadedProject } from "../config/index.js";
import { compareWithBase } from "../gitops/base.js";
import { ExitCode, exitCodeFor } from "../errors.js";
import { DEFAULT_PARALLELISM } from "../platform/client.js";
import { unmanagedEmbeddedStores, unmanagedStoresNote } from "../status.js";
import { openSession, runTarget, type Session } from "./session.js";
import { checkReads, type RunOptions } from "./options.js";
import { DEFAULT_RUN_TIMEOUT_MS, type RunRequest, type RunHooks, type RunResult } from "./request.js";
import { resolveScope, loadRun, platformLoad } from "./step-load.js";
import { type RunLocks, lockRun } from "./step-lock.js";
import { readAndPlan, finishPlan, recoverSecrets, guardPlan, planExitCode } from "./step-plan.js";
import { applyRun, verdict } from "./step-apply.js";

function runOptions(request: RunRequest, hooks: RunHooks): RunOptions {
  return {
    ...(request.parallelism !== undefined ? { parallelism: request.parallelism } : {}),
    ...(request.targeting ? { targeting: request.targeting } : {}),
    // Checksums are for saved plans (docs/plan-format.md) and for the apply, which checks each store's
    // digest again before its first write (store-guard.ts); a plan only shown does without.
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
    hooks.onProject?.(run.project, result.target);
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
      if (unmanaged) hooks.onNote?.(unmanaged);
      if (request.command === "plan" && request.base && planned.current) {
        result.base = await compareWithBase(run.project, plan, planned.current, run.base ?? request.base, {
          shard: request.shard,
          now: request.now,
          workspace: request.workspace,
          ...platformLoad(request),
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
      result.calls = session.client.calls.counts();
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
