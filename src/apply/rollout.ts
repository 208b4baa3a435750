/**
 * Canary rollout: the stages of carte.yaml `rollout:` (src/config/rollout-stages.ts) as the
 * apply uses them. Pure: which stage a change belongs to, a project limited to one stage, and the
 * counts a report shows per stage. The stage-by-stage apply itself is src/run/stages.ts `applyStages`.
 *
 * Client-level resources (carte.yaml `client:`, addresses `client.*`) belong to no store: they go with
 * the first stage, so that they are written once, before any store that may rely on them.
 */

import type { LoadedProject } from "../config/index.js";
import type { RolloutStage } from "../config/rollout-stages.js";
import { CommandLineError, InternalError } from "../errors.js";
import type { Plan, ResourceChange } from "../plan/types.js";
import { quote } from "../source/quote.js";

/** Counts of the changes of one stage. */
export interface StageCounts {
  create: number;
  update: number;
  delete: number;
  /** Stores of the stage with at least one change. */
  stores: number;
}

/**
 * What one stage of an apply did, or would have done:
 * - `applied`: its calls succeeded and the platform shows every change;
 * - `failed`: a call failed or was skipped, a store was refused, the platform did not show a change,
 *   a duplicate was left, a webhook secret was lost, or an error ended it (`error`);
 *   the stages after it did not run;
 * - `not_run`: an earlier stage failed; `changes` says what it would have changed (as the plan showed);
 * - `unchanged`: the plan changes nothing in it (no call, no read).
 */
export interface StageOutcome {
  name: string;
  status: "applied" | "failed" | "not_run" | "unchanged";
  /** Stores of the stage in the plan's scope. */
  stores: number;
  /** What the stage changed (applied, failed: as planned for it) or would have changed (not_run). */
  changes: StageCounts;
  /** API calls the stage made or tried (applied, failed). */
  calls?: number;
  /**
   * Why a failed stage ended with an error rather than a report of its calls (it could not be planned,
   * the secrets sink refused, or a read failed while its calls were made). Never holds a secret.
   */
  error?: string;
}

/**
 * The stage a name picks. Throws {@link CommandLineError} (of `--stage`) when the project has no `rollout:` or no stage of
 * that name.
 */
export function findStage(project: LoadedProject, name: string): { stage: RolloutStage; first: boolean } {
  const stages = project.rollout;
  if (!stages || stages.length === 0) {
    throw new CommandLineError(
      `--stage ${quote(name, 60)}: carte.yaml has no rollout: section, so there are no stages (docs/configuration.md, "Canary rollout")`,
    );
  }
  const i = stages.findIndex((s) => s.name === name);
  if (i < 0) {
    throw new CommandLineError(
      `--stage ${quote(name, 60)}: no such stage in rollout: of carte.yaml; its stages are ${stages.map((s) => s.name).join(", ")}`,
    );
  }
  return { stage: stages[i]!, first: i === 0 };
}

/**
 * The project limited to one stage: its stores, and the client-level settings when it is the first
 * stage (`first`); the currency and everything else kept.
 */
export function stageProject(project: LoadedProject, stage: RolloutStage, first: boolean): LoadedProject {
  const keep = new Set(stage.stores);
  const { client, ...rest } = project.desired;
  return {
    ...project,
    desired: {
      ...rest,
      stores: Object.fromEntries(Object.entries(project.desired.stores).filter(([k]) => keep.has(k))),
      ...(first && client ? { client } : {}),
    },
  };
}

/**
 * The plan's changes by stage name, every stage present (in order): a store's changes go to its
 * stage, client-level changes (store `""`) to the first stage. Throws {@link InternalError} for a
 * change of a store in no stage (the loader refuses such a rollout).
 */
export function changesByStage(plan: Plan, stages: readonly RolloutStage[]): Map<string, ResourceChange[]> {
  const out = new Map<string, ResourceChange[]>(stages.map((s) => [s.name, []]));
  const stageOf = new Map<string, string>();
  for (const s of stages) for (const k of s.stores) if (!stageOf.has(k)) stageOf.set(k, s.name);
  const first = stages[0]?.name;
  for (const c of plan.changes) {
    const name = c.store === "" ? first : stageOf.get(c.store);
    const list = name === undefined ? undefined : out.get(name);
    if (!list) throw new InternalError(`store ${c.store} of the plan is in no stage of rollout:`);
    list.push(c);
  }
  return out;
}

/** Counts of a list of changes. */
export function countChanges(changes: readonly ResourceChange[]): StageCounts {
  const counts: StageCounts = { create: 0, update: 0, delete: 0, stores: 0 };
  const stores = new Set<string>();
  for (const c of changes) {
    counts[c.action] += 1;
    if (c.store !== "") stores.add(c.store);
  }
  counts.stores = stores.size;
  return counts;
}

/** How many stores of a stage the plan has in scope. */
export function storesInScope(plan: Plan, stage: RolloutStage): number {
  const keys = new Set(plan.stores.map((s) => s.key));
  return stage.stores.filter((k) => keys.has(k)).length;
}

/**
 * The plan split by stage, for the plan's view and the confirmation: every stage with what it would
 * change (status `unchanged` when nothing). The statuses are those before any call (`not_run` for a
 * stage with changes).
 */
export function plannedStages(plan: Plan, stages: readonly RolloutStage[]): StageOutcome[] {
  const byStage = changesByStage(plan, stages);
  return stages.map((s) => {
    const changes = byStage.get(s.name) ?? [];
    return {
      name: s.name,
      status: changes.length === 0 ? "unchanged" : "not_run",
      stores: storesInScope(plan, s),
      changes: countChanges(changes),
    };
  });
}
