/**
 * The harness of the fault suite: the example chain against an emulator with injected faults,
 * applied through the shared path (src/run/run.ts) as `carte apply --auto-approve` runs it, and the checks
 * made after EVERY apply: no duplicate of any kind on the platform, no create accepted twice, no write
 * outside the apply's plan, a non-zero exit code whenever something is left, and a report that names
 * exactly the failed and skipped operations (src/emulator/audit.ts).
 */

import path from "node:path";
import { expect } from "vitest";
import { loadProject, type LoadedProject } from "../../src/config/index.js";
import {
  acceptedTwice,
  lostMarkers,
  lostSecrets,
  reportMismatches,
  writesOutside,
} from "../../src/emulator/audit.js";
import { startChaosProxy, type ChaosProxy } from "../../src/emulator/chaos.js";
import type { FaultOptions, RunningEmulator } from "../../src/emulator/index.js";
import { mulberry32 } from "../../src/emulator/prng.js";
import { kinds } from "../../src/kinds/registry.js";
import { PlatformClient, type RetryInfo } from "../../src/platform/client.js";
import { runCarte } from "../../src/run/run.js";
import { type RunResult } from "../../src/run/request.js";
import { secretsFileSink } from "../../src/run/secrets.js";
import type { Session } from "../../src/run/session.js";
import { clientReadKinds, fetchCurrent, readRequests } from "../../src/state/current.js";
import { planProject } from "../../src/run/plan-project.js";
import { CLIENT_ID, CLIENT_SECRET, carte, edit, exampleAgainstEmulator } from "../helpers/project.js";

export const STORE_FILES = ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"];

/** The fault kinds of a run: ordinary ones, and (`lost`) a third of them lost answers. */
export function faultKinds(lost: boolean): NonNullable<FaultOptions["faultKinds"]> {
  return lost ? ["500", "503", "429", "drop", "lost", "hold"] : ["500", "502", "503", "429", "drop"];
}

/** A project copied from the example and pointed at a fresh emulator. */
export interface Fixture {
  dir: string;
  config: string;
  emu: RunningEmulator;
  project: LoadedProject;
  secretsFile: string;
  close(): Promise<void>;
}

export async function fixture(): Promise<Fixture> {
  const fx = await exampleAgainstEmulator(STORE_FILES);
  return {
    ...fx,
    project: await loadProject(fx.config),
    secretsFile: path.join(fx.dir, "secrets.json"),
  };
}

/** A {@link Fixture} whose project reaches the emulator through a chaos proxy (src/emulator/chaos.ts). */
export interface ChaosFixture extends Fixture {
  proxy: ChaosProxy;
}

/** The example chain against a fresh emulator, carte.yaml pointed at a chaos proxy in front of it. */
export async function chaosFixture(): Promise<ChaosFixture> {
  const fx = await fixture();
  const proxy = await startChaosProxy({ target: fx.emu.url });
  edit(fx.config, `base_url: ${fx.emu.url}`, `base_url: ${proxy.url}`);
  return {
    ...fx,
    proxy,
    project: await loadProject(fx.config),
    close: async () => {
      await proxy.close();
      await fx.close();
    },
  };
}

/**
 * Checks made once an apply converged (nothing left to do), with the faults off: no item the files
 * hold off is off without carte's marker, every webhook on the platform has its secret in the secrets
 * file and no marker of secrets on their way in is left, and `carte plan --detailed-exitcode
 * --secrets-file` says "No changes" and exits 0 (nothing to change, no secret to rotate).
 */
export async function checkConverged(fx: Fixture, label: string): Promise<void> {
  await fx.emu.idle();
  const session = inspector(fx);
  try {
    const { current } = await planProject(fx.project, session, { keepCurrent: true });
    expect(lostMarkers(fx.project.desired, current!), `${label}: lost availability markers`).toEqual([]);
    expect(await lostSecrets(session.client, fx.secretsFile), `${label}: lost webhook secrets`).toEqual([]);
  } finally {
    await session.close();
  }
  const plan = await carte([
    "plan",
    "--detailed-exitcode",
    "-c",
    fx.config,
    "--secrets-file",
    fx.secretsFile,
  ]);
  expect(plan.out, `${label}: the next plan`).toContain("No changes");
  expect(plan.code, `${label}: the next plan's exit code (${plan.err})`).toBe(0);
}

/** What a test learns of one apply. */
export interface Applied {
  result: RunResult;
  /** The requests the emulator received during the apply. */
  requests: RunningEmulator["requests"];
  /** Changes a plan made right after the apply (without faults) still lists. */
  left: number;
}

/** Settings of {@link applyOnce}. */
export interface ApplySettings {
  seed: number;
  /** Retries seen (waits asked with Retry-After among them). */
  retries?: RetryInfo[];
  onLockWait?: () => void;
}

/** One `carte apply --auto-approve` through the shared path, with a short client timeout. */
export function runApply(fx: Fixture, s: ApplySettings): Promise<RunResult> {
  return runCarte(
    {
      command: "apply",
      config: fx.config,
      env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
      secrets: () => secretsFileSink(fx.secretsFile),
      // An answer withheld past 1 s is lost (the `hold` faults hold it for 5 s).
      timeoutMs: 1000,
      settleMs: 300,
      convergenceTimeoutMs: 3000,
      runTimeoutMs: 120_000,
      // Faults are injected on purpose: the stop rule of the success rate is off (docs/reliability.md).
      client: { baseDelayMs: 20, maxDelayMs: 300, random: mulberry32(s.seed), successGuard: false },
    },
    {
      ...(s.retries ? { onRetry: (r: RetryInfo) => void s.retries!.push(r) } : {}),
      ...(s.onLockWait ? { onLockWait: s.onLockWait } : {}),
    },
  );
}

/** A clean session on the emulator (faults are off while a test inspects). */
export function inspector(fx: Fixture): Session {
  const client = new PlatformClient({
    baseUrl: fx.emu.url,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    requestsPerSecond: Infinity,
  });
  return { client, emulator: undefined, stateFile: undefined, close: () => client.close() };
}

/** Every duplicate on the platform, of any kind, in every store of the project, as `store kind key`. */
export async function duplicatesOnPlatform(fx: Fixture, session: Session): Promise<string[]> {
  const current = await fetchCurrent(session.client, readRequests(fx.project.desired, fx.project.ownership), {
    parallelism: 8,
    clientKinds: clientReadKinds(fx.project.desired, fx.project.ownership),
  });
  const out: string[] = [];
  for (const [store, state] of Object.entries(current.stores)) {
    for (const kind of kinds) {
      for (const key of Object.keys(kind.duplicates?.(state) ?? {})) out.push(`${store} ${kind.name} ${key}`);
    }
  }
  return out;
}

/**
 * Checks made after every apply, with the faults off. Returns how many changes are left. `label` names
 * the run in failure messages.
 */
export async function checkAfterApply(
  fx: Fixture,
  result: RunResult,
  requests: RunningEmulator["requests"],
  label: string,
): Promise<number> {
  await fx.emu.idle();
  const session = inspector(fx);
  try {
    // No duplicate of any kind on the platform.
    expect(await duplicatesOnPlatform(fx, session), `${label}: duplicates on the platform`).toEqual([]);
    // No create accepted twice, over everything the emulator received so far.
    expect(acceptedTwice(fx.emu.requests), `${label}: creates accepted twice`).toEqual([]);
    // No write outside this apply's plan.
    const outside = writesOutside(result.plan ? [result.plan] : [], requests);
    expect(
      outside.map((r) => `${r.method} ${r.path}`),
      `${label}: writes outside the plan`,
    ).toEqual([]);
    // The report names exactly the failed and skipped operations.
    if (result.plan && result.report) {
      expect(
        reportMismatches(result.plan, result.report.operations, requests),
        `${label}: report mismatches`,
      ).toEqual([]);
    }
    // Never exit 0 while something is left.
    const { plan } = await planProject(fx.project, session);
    if (plan.changes.length > 0) {
      expect(result.exitCode, `${label}: exit code with ${plan.changes.length} change(s) left`).not.toBe(0);
    }
    return plan.changes.length;
  } finally {
    await session.close();
  }
}

/**
 * Applies under the given faults until nothing is left, at most `runs` times (the first apply and its
 * re-runs), checking after every apply. Returns the applies made.
 */
export async function applyUntilDone(
  fx: Fixture,
  faults: (run: number) => FaultOptions,
  opts: { seed: number; runs: number; retries?: RetryInfo[] },
): Promise<Applied[]> {
  const applied: Applied[] = [];
  for (let run = 0; run < opts.runs; run++) {
    fx.emu.setFaults(faults(run));
    const from = fx.emu.requests.length;
    const result = await runApply(fx, {
      seed: opts.seed * 10 + run,
      ...(opts.retries ? { retries: opts.retries } : {}),
    });
    const requests = fx.emu.requests.slice(from);
    fx.emu.setFaults(undefined);
    const left = await checkAfterApply(fx, result, requests, `seed ${opts.seed}, apply ${run + 1}`);
    applied.push({ result, requests, left });
    if (left === 0) break;
  }
  return applied;
}
