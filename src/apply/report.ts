/**
 * What an apply did: the report the executor, the verification and the rollout fill in
 * (src/run/apply-plan.ts) and the renderers show (src/render/apply-report.ts), and whether it is complete.
 * Plain data, below both, so that the renderers depend on no part of the run.
 */

import type { OperationResult } from "./operation-result.js";
import type { StageOutcome } from "./rollout.js";

/** The outcome of an apply (rendered by src/render/apply-report.ts). */
export interface ApplyReport {
  /** One result per operation of the plan, in the plan's order: `ok`, `failed` or `skipped`. */
  operations: OperationResult[];
  /** Operations whose call failed. */
  failed: number;
  /** Operations not attempted because one they depend on failed. */
  skipped: number;
  /** Addresses the platform did not show in their planned state within the wait. */
  pending: string[];
  /**
   * Duplicates the platform still shows among the resources the plan changed (two menus of one type,
   * two identical slots…), as addresses: the apply failed to leave exactly one. Always set by
   * `applyPlan` (src/run/apply-plan.ts).
   */
  duplicates?: string[];
  /**
   * Stores refused before their first write (their state no longer matched the plan), with why.
   * Always set by `applyPlan` (src/run/apply-plan.ts).
   */
  refused?: { store: string; reason: string }[];
  /** How long carte waited for the platform to show the changes, in milliseconds. */
  waitedMs: number;
  /**
   * Webhook secrets an earlier run never saved that this apply rotated and saved before the plan's
   * calls (src/run/secrets.ts `rotateLostSecrets`), and where each went; absent when none.
   */
  rotated?: { event: string; where: string }[];
  /**
   * With carte.yaml `rollout:` (or `--stage`): what each stage did, in order, or would have done when
   * an earlier stage failed (src/apply/rollout.ts). The lists above hold every stage that ran.
   */
  stages?: StageOutcome[];
}

/**
 * Whether an apply did everything it planned: every call made, shown, no duplicate left, no stage of a
 * rollout failed.
 */
export function isComplete(report: ApplyReport): boolean {
  return (
    report.failed === 0 &&
    report.skipped === 0 &&
    (report.refused ?? []).length === 0 &&
    report.pending.length === 0 &&
    (report.duplicates ?? []).length === 0 &&
    (report.stages ?? []).every((s) => s.status !== "failed")
  );
}
