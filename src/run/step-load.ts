/**
 * Steps "resolve scope" and "load" of a run: the files loaded (with `--scope changed`, the base's
 * too), then limited to the run's shard and stage, and a saved plan read.
 */

import { loadProject, type LoadedProject } from "../config/index.js";
import { type LoadedBase } from "../gitops/base.js";
import { loadChangeScope } from "../gitops/change-scope.js";
import { shardProject } from "../gitops/shard.js";
import { CommandLineError, PlanFileError, warning } from "../errors.js";
import { quote } from "../source/quote.js";
import { readPlanFile } from "../plan/file.js";
import type { Targeting } from "../plan/target.js";
import type { Plan } from "../plan/types.js";
import { findStage, stageProject } from "../apply/rollout.js";
import { type RunRequest, type RunHooks } from "./request.js";

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
 * The load's scope to one platform of carte.yaml `platforms:` (`LoadOptions.platform`), from the
 * request's `platform` and `rehearsal`; none for a project of one platform.
 *
 * @throws {@link CommandLineError} for a rehearsal without a platform to rehearse on.
 */
export function platformLoad(request: { platform?: string | undefined; rehearsal?: boolean | undefined }): {
  platform?: { name: string; rehearsal?: boolean };
} {
  if (request.platform === undefined) {
    if (request.rehearsal) {
      throw new CommandLineError(
        "--rehearsal runs on a platform's development host: it needs carte.yaml platforms: with a development: section (and --platform NAME, or every platform that has one)",
      );
    }
    return {};
  }
  return { platform: { name: request.platform, ...(request.rehearsal ? { rehearsal: true } : {}) } };
}

/**
 * Step "resolve scope": loads the files and, with `--scope changed`, the base's too, to scope the run
 * to the stores and kinds the difference can touch (src/gitops/change-scope.ts); the head's stores are then
 * resolved only where the files differ. When the base's files do not load, the run is not scoped and
 * `onWarning` says so.
 *
 * @throws {@link CommandLineError} for `--scope changed` without `--base`; {@link ConfigError} for files
 *   that do not load.
 */
export async function resolveScope(request: RunRequest, hooks: RunHooks): Promise<ScopedFiles> {
  if (request.command !== "plan" || request.scope !== "changed") {
    // Read-only from here on: stores of a shared catalog share their resources (memory of a big chain).
    const loaded = await loadProject(request.config, {
      shareResources: true,
      ...(request.now ? { now: request.now } : {}),
      ...platformLoad(request),
    });
    return { loaded, targeting: request.targeting, base: undefined };
  }
  if (!request.base) {
    throw new CommandLineError(
      "--scope changed needs --base REF: the commit whose files the changes are measured from",
    );
  }
  const scoped = await loadChangeScope(request.config, request.base, {
    shard: request.shard,
    now: request.now,
    workspace: request.workspace,
    ...platformLoad(request),
  });
  if (!scoped.scope) {
    hooks.onWarning?.(
      warning(
        `the plan is not scoped to the changes since ${request.base}: ${scoped.base.unavailable ?? "?"}; every store is read`,
      ),
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
 * accident makes no call; its operations are never carried out (`readAndPlan` (src/run/step-plan.ts)).
 *
 * @throws {@link CommandLineError} for a stage the project does not have or that the saved plan
 *   contradicts;
 *   the errors of `readPlanFile` (src/plan/file.ts) for a saved plan that cannot be used.
 */
export async function loadRun(request: RunRequest, files: ScopedFiles, hooks: RunHooks): Promise<RunProject> {
  let project = request.shard ? shardProject(files.loaded, request.shard) : files.loaded;
  for (const w of project.warnings) hooks.onWarning?.(w);
  const saved =
    request.command === "apply" && request.planFile ? await readPlanFile(request.planFile) : undefined;
  if (saved) checkSavedPlatform(saved, project);
  // One stage of the rollout alone: the project limited to it, from here on (lock, plan, apply).
  const stage = stageOf(request, saved);
  if (stage !== undefined) {
    const { stage: picked, first } = findStage(project, stage);
    project = stageProject(project, picked, first);
  }
  return { ...files, project, saved, stage };
}

/**
 * The stage a run is limited to: `--stage`, or the one a saved plan was made for. Throws
 * {@link CommandLineError} when they differ, or when `--stage` is given for a saved plan of every stage;
 * {@link PlanFileError} when the saved plan's stage is no stage name.
 */
function stageOf(request: RunRequest, saved: Plan | undefined): string | undefined {
  if (!saved) return request.stage;
  // A saved plan is carte's own file, but anyone may have written it: its stage is checked too.
  if (saved.stage !== undefined && typeof saved.stage !== "string") {
    throw new PlanFileError("the saved plan's stage is not a stage name; save the plan again");
  }
  if (request.stage !== undefined && saved.stage !== request.stage) {
    throw new CommandLineError(
      saved.stage === undefined
        ? `--stage ${quote(request.stage, 60)}: the saved plan covers every stage; apply it without --stage, or save a plan of the stage with carte plan --stage ${quote(request.stage, 60)} --out FILE`
        : `--stage ${quote(request.stage, 60)}: the saved plan is of stage ${quote(saved.stage, 60)}`,
    );
  }
  return saved.stage;
}

/** How a platform is named in the messages about saved plans: `co`, `co (rehearsal)`, or none. */
function platformWords(name: string | undefined, rehearsal: boolean): string {
  if (name === undefined) return "no platform of carte.yaml platforms:";
  return `platform ${quote(name, 40)}${rehearsal ? " (its rehearsal on the development host)" : ""}`;
}

/**
 * A saved plan is applied to the platform it was made for only: the same platform of carte.yaml
 * `platforms:` (or none, for a project of one platform) and the same host (production or rehearsal).
 *
 * @throws {@link CommandLineError} naming both when they differ; {@link PlanFileError} when the file's
 *   platform fields are not what carte writes.
 */
function checkSavedPlatform(saved: Plan, project: LoadedProject): void {
  if (saved.platform !== undefined && typeof saved.platform !== "string") {
    throw new PlanFileError("the saved plan's platform is not a platform name; save the plan again");
  }
  const savedRehearsal = saved.rehearsal === true;
  const of = project.platformOf;
  if (saved.platform === of?.name && savedRehearsal === (of?.rehearsal ?? false)) return;
  throw new CommandLineError(
    `the saved plan is of ${platformWords(saved.platform, savedRehearsal)}, this run of ` +
      `${platformWords(of?.name, of?.rehearsal ?? false)}: apply it with the --platform it was made with` +
      `${savedRehearsal ? " and --rehearsal" : ""}, or save a plan of this platform with carte plan --platform NAME --out FILE`,
  );
}
