/**
 * The CLI commands. Each turns its options into library calls and renders the result; `plan` and
 * `apply` go through the path they share with the GitHub Action (src/run/run.ts).
 */

import { clockFromEnv } from "../time/clock.js";
import path from "node:path";
import { loadProject, type LoadedProject } from "../config/index.js";
import { explainResource } from "../config/provenance.js";
import { own } from "../model.js";
import { holidayDateProblems } from "../config/holiday-dates.js";
import { faultProblems } from "../emulator/faults.js";
import type { FaultOptions } from "../emulator/index.js";
import { API_GROUPS, type ApiGroup } from "../platform/routes.js";
import { CommandLineError, ConfigError, ExitCode, UnsafePlanError, formatWarning } from "../errors.js";
import { sealPlan } from "../plan/digest.js";
import { writePlanFile } from "../plan/file.js";
import type { Plan } from "../plan/types.js";
import type { SegmentName } from "../kinds/registry.js";
import { jsonChunks, renderJsonChunks } from "../render/json.js";
import { renderMarkdown, renderPlanComment } from "../render/markdown.js";
import { renderSplitText } from "../render/split.js";
import type { BaseSplit } from "../gitops/base.js";
import type { Shard } from "../gitops/shard.js";
import { renderReport, renderReportJson } from "../render/apply-report.js";
import { renderText } from "../render/text.js";
import { renderPlannedStagesText, renderStageScopeText } from "../render/rollout-headings.js";
import type { StageOutcome } from "../apply/rollout.js";
import { describeHolder } from "../run/lock.js";
import { runEachPlatform, type PlatformRun, type RunPlace } from "../run/each-platform.js";
import { platformLoad } from "../run/step-load.js";
import { renderError } from "../render/error.js";
import {
  platformHeadingMarkdown,
  platformHeadingText,
  type PlatformSection,
} from "../render/platform-heading.js";
import {
  eachPlatformSection,
  failedPlatforms,
  sectionOf,
  type PlatformChoice,
  type PlatformScope,
} from "./platform-sections.js";
import { type RunHooks, type RunResult } from "../run/request.js";
import { writeCallsLine } from "./calls-line.js";
import { describeTarget, embeddedCountry, embeddedHolidays } from "../run/session.js";
import { escapeFence, escapeLines, escapeTerminal, jsonSafe } from "../render/escape.js";
import { describeRefHolder, lockName } from "../gitops/ref-lock.js";
import { discardingSink, lostSecretsMessage, resolveSecretSink } from "../run/secrets.js";
import { printWarnings, useColor, writeOut, type CliIo } from "./io.js";
import { createProgress, progressMode, type Progress } from "./progress.js";

/** Options shared by `carte plan` and `carte apply`. */
export interface RunCommand {
  config: string;
  color: boolean | undefined;
  quiet: boolean;
  parallelism: number;
  /** `--timeout`: the longest the run may take, in milliseconds (src/run/request.ts `runTimeoutMs`). */
  timeoutMs: number;
  stores: string[];
  kinds: SegmentName[];
  targets: string[];
  /** `--force --reason`: apply a plan that trips safety guards, recording why. */
  force: { reason: string } | undefined;
  /** `--shard K/N`: only this shard's stores (src/gitops/shard.ts). */
  shard?: Shard | undefined;
  /** `--stage NAME`: only this stage of carte.yaml `rollout:` (src/apply/rollout.ts). */
  stage?: string | undefined;
  /** `--show-calls`: list the plan's API calls in order in the text view, not only their count. */
  showCalls?: boolean | undefined;
  /** `--platform NAME` (repeatable): these platforms of carte.yaml `platforms:` only; none: each in turn. */
  platforms?: string[] | undefined;
  /** `--rehearsal`: on the platforms' development hosts, with their test stores. */
  rehearsal?: boolean | undefined;
}

/** Options of `carte plan`. */
export interface PlanCommand extends RunCommand {
  format: "text" | "json" | "markdown";
  out: string | undefined;
  detailedExitcode: boolean;
  /** `--base REF`: split the changes against the files of this git ref (src/gitops/base.ts). */
  base?: string | undefined;
  /** `--scope changed`: only what the difference from `base` can touch (src/gitops/change-scope.ts). */
  scope?: "all" | "changed" | undefined;
  /** `--secrets-file`: the secrets file whose lost secrets the plan names (src/run/secrets.ts). */
  secretsFile?: string | undefined;
}

/** The shared path's request fields common to `plan`, `apply` and `preview`, from their options. */
export function runRequest(opts: RunCommand, io: CliIo) {
  return {
    config: opts.config,
    env: io.env,
    now: clockFromEnv(io.env),
    parallelism: opts.parallelism,
    runTimeoutMs: opts.timeoutMs,
    targeting: { stores: opts.stores, kinds: opts.kinds, targets: opts.targets },
    force: opts.force,
    shard: opts.shard,
    stage: opts.stage,
    platforms: opts.platforms,
    rehearsal: opts.rehearsal,
  };
}

/**
 * What a run shows on standard error while it goes: warnings, notes, progress, retries; in a run of
 * several platforms (carte.yaml `platforms:`), the warnings, notes and retries headed by the platform's
 * name (`br: retrying …`).
 */
function progressHooks(progress: Progress, io: CliIo, platform?: string): RunHooks {
  const head = platform === undefined ? "" : `${platform}: `;
  return {
    onWarning: (w) => io.err(escapeTerminal(head + formatWarning(w)) + "\n"),
    onNote: (message) => io.err(escapeTerminal(head + message) + "\n"),
    onStoreRead: (done, total) => progress.storeRead(done, total),
    onEvent: (e) => progress.apply(e),
    onRetry: (r) => progress.retry(r, platform),
  };
}

/** The `--show-calls` option of `plan`, `apply` and `show`. */
export const SHOW_CALLS_OPTION = {
  type: "boolean",
  default: false,
  describe: "List the plan's API calls in order, not only their count (a JSON plan always lists them)",
} as const;

/**
 * A plan in the chosen format (with `--base`, this branch's changes apart from drift), in pieces to
 * write in order ({@link writeOut}): the JSON view is made as it is written, never one string (the
 * JSON of a plan of 10,000 stores is longer than the longest string JavaScript makes). The text view
 * counts the API calls unless `showCalls`; the JSON view always holds them all. `now` is when it is
 * read (the run's clock, `CARTE_NOW`; default the system's): the text and Markdown views say instants
 * relative to that day (`18:00 GMT-5 (today)`), the JSON view never.
 */
export function render(
  plan: Plan,
  format: PlanCommand["format"],
  color: boolean,
  base?: BaseSplit,
  target?: string,
  showCalls = false,
  now?: Date,
): Iterable<string> {
  if (format === "json")
    return base ? jsonChunks({ ...plan, base }, { depth: 2, safe: false }) : renderJsonChunks(plan);
  if (format === "markdown")
    return [
      base
        ? renderPlanComment(plan, { split: base, subject: "branch", target, now })
        : renderMarkdown(plan, { target, now }),
    ];
  return [
    renderText(plan, { color, target, showCalls, now }) +
      (base ? renderSplitText(plan, base, { color }) : ""),
  ];
}

/** What the text views add after a plan of a rollout: its stages in order, or the one stage it covers. */
function stagesText(plan: Plan, stages: StageOutcome[] | undefined): string {
  const text = stages ? renderPlannedStagesText(stages) : renderStageScopeText(plan);
  return text === undefined ? "" : `\n${text}\n`;
}

/**
 * The refusal of the safety guards, once: when the plan's text already listed the guards it trips
 * ("Safety guards refuse this plan:"), the error says how many and what to do, without the list again.
 * A price the `max_price_change_percent` guard refuses is named with the place it is written
 * ({@link priceSites}).
 */
async function refusalOnce(
  err: unknown,
  plan: Plan | undefined,
  config: string,
  io: CliIo,
  scope: PlatformScope = {},
): Promise<unknown> {
  if (!(err instanceof UnsafePlanError) || !plan) return err;
  const sites = await priceSites(plan, config, io, scope);
  const lines = err.message.split("\n");
  const listed = listsRefusal(plan) && lines.length >= 3;
  const head = listed ? `${lines[0]!.replace(/:$/, " (listed above).")} ${lines.at(-1)!}` : err.message;
  return sites === "" && !listed ? err : new UnsafePlanError(err.guard, `${head}${sites}`);
}

/** Most places a refusal names for the prices it refuses. */
const PRICE_SITES_NAMED = 10;

/**
 * Where the prices the `max_price_change_percent` guard refuses are written, one line each
 * (`catalogs/shared.yaml:10:12: item[PIZZA-MARGHERITA] price (stores "a", "b")`), from the files
 * loaded again with the sources of each value (as `carte explain`); "" when the guard refused no price.
 */
async function priceSites(plan: Plan, config: string, io: CliIo, scope: PlatformScope): Promise<string> {
  const refused = plan.safety.violations.filter(
    (v) => v.guard === "max_price_change_percent" && v.store && v.prices,
  );
  if (refused.length === 0) return "";
  const now = clockFromEnv(io.env);
  const project = await loadProject(config, { explain: true, ...(now ? { now } : {}), ...scope });
  const sites = new Map<string, { what: string; stores: string[] }>();
  for (const v of refused) {
    const store = v.store!;
    const state = own(project.desired.stores, store);
    const sources = project.sources?.get(store);
    if (!state || !sources) continue;
    for (const { sku, parent } of v.prices ?? []) {
      const attribute = parent === undefined ? "price" : `priceInParent.${parent}`;
      const origin = explainResource(state, sources, "item", sku).attributes?.find(
        (a) => a.attribute === attribute,
      );
      const at = origin?.from[0]?.at;
      if (at === undefined) continue;
      const what = `item[${sku}]${parent === undefined ? "" : ` inside ${parent}`} price`;
      const entry = sites.get(at) ?? { what, stores: [] };
      entry.stores.push(store);
      sites.set(at, entry);
    }
  }
  if (sites.size === 0) return "";
  const lines = [...sites].slice(0, PRICE_SITES_NAMED).map(([at, { what, stores }]) => {
    const named = stores
      .slice(0, 5)
      .map((k) => JSON.stringify(k))
      .join(", ");
    const more = stores.length > 5 ? ` and ${stores.length - 5} more` : "";
    return `  ${at}: ${what} (${stores.length === 1 ? "store" : "stores"} ${named}${more})`;
  });
  const rest = sites.size > PRICE_SITES_NAMED ? `\n  and ${sites.size - PRICE_SITES_NAMED} more places` : "";
  return `\nThe refused prices are written at:\n${lines.join("\n")}${rest}`;
}

/** Whether a plan's text lists a refusal of the safety guards (src/render/text.ts). */
function listsRefusal(plan: { safety: { ok: boolean; override?: unknown } }): boolean {
  return !plan.safety.ok && plan.safety.override === undefined;
}

/**
 * Writes the run's calls to the platform and their success rate, the measure the platform's terms bound
 * (docs/platform-api.md §1), on stderr: the plan or report on stdout stays as it was. A platform of
 * carte.yaml `platforms:` has its own line, headed by its name.
 */
function reportCalls(result: RunResult, quiet: boolean, io: CliIo, platform?: string): void {
  if (result.calls !== undefined) writeCallsLine(result.calls, io, quiet, platform);
}

/** What a platform's run showed: the plan as text (whose refusal is then not listed again), its target. */
interface Shown {
  plan?: Plan | undefined;
  target?: string | undefined;
  headed?: boolean;
}

/** The heading of a platform's section in a plan's format: none in JSON (the plan names its platform). */
function headSection(
  format: PlanCommand["format"],
  section: PlatformSection,
  place: RunPlace,
  io: CliIo,
  shown: Shown,
): void {
  shown.headed = true;
  if (format === "markdown") io.out(platformHeadingMarkdown(section));
  else if (format === "text") io.out(platformHeadingText(section, place.index === 0));
}

/**
 * The end of a platform's section in a run of several: its calls line, and what failed, in its section
 * (the heading first when it did not load); the plan JSON of each platform is kept for the one document.
 */
async function endSection(
  run: PlatformRun,
  place: RunPlace,
  ctx: { opts: RunCommand & { format: PlanCommand["format"] }; io: CliIo; shown: Shown; json: unknown[] },
): Promise<void> {
  const { opts, io, shown } = ctx;
  const { name, result } = run;
  reportCalls(result, opts.quiet, io, name);
  if (opts.format === "json") {
    // Sealed as one platform's plan is; written with the others, in pieces (runPlan).
    const plan = result.plan ? sealPlan(result.plan) : undefined;
    const error = result.error === undefined ? undefined : renderError(result.error).replace(/^Error: /, "");
    ctx.json.push({ platform: name, ...(plan ? { plan } : {}), ...(error !== undefined ? { error } : {}) });
    return;
  }
  if (result.error === undefined) return;
  if (!shown.headed) headSection(opts.format, { name: name! }, place, io, shown);
  const err = await refusalOnce(result.error, shown.plan, opts.config, io, scopeOf(name, opts.rehearsal));
  const text = renderError(err);
  io.out(opts.format === "markdown" ? `\`\`\`text\n${escapeFence(text)}\n\`\`\`\n` : `${text}\n`);
}

/** The load scope of a platform's run, for the loads the CLI makes again (the refused prices' places). */
function scopeOf(name: string | undefined, rehearsal: boolean | undefined): PlatformScope {
  return name === undefined ? {} : platformLoad({ platform: name, rehearsal });
}

/** The hooks of one platform's plan: its section's heading, the plan in the chosen format. */
function planHooks(
  opts: PlanCommand,
  io: CliIo,
  progress: Progress,
  name: string | undefined,
  place: RunPlace,
  shown: Shown,
): RunHooks {
  return {
    ...progressHooks(progress, io, name),
    onProject: (project, target) => {
      if (name === undefined) return;
      progress.stop();
      headSection(
        opts.format,
        { name, ...sectionOf(project), target: describeTarget(target) },
        place,
        io,
        shown,
      );
    },
    onPlan: async (plan, info) => {
      progress.stop();
      shown.target = describeTarget(info.target);
      // Several platforms in JSON: one document of them all, once they ran (endSection).
      if (opts.format === "json" && place.of > 1) return;
      const now = clockFromEnv(io.env);
      const color = useColor(opts.color, io);
      await writeOut(io, render(plan, opts.format, color, info.base, shown.target, opts.showCalls, now));
      if (opts.format === "text") io.out(stagesText(plan, info.stages));
      shown.plan = opts.format === "text" ? plan : undefined;
    },
  };
}

/**
 * `carte plan`: the shared path (src/run/run.ts) with `command: "plan"`, rendered in the chosen format;
 * for a project of several platforms (carte.yaml `platforms:`), each platform chosen in its own section
 * (src/run/each-platform.ts), the exit code the worst of theirs.
 */
export async function runPlan(opts: PlanCommand, io: CliIo): Promise<number> {
  const progress = createProgress(io, progressMode(io, { quiet: opts.quiet, json: opts.format !== "text" }));
  const shown = new Map<string | undefined, Shown>();
  const json: unknown[] = [];
  try {
    const each = await runEachPlatform(
      {
        ...runRequest(opts, io),
        command: "plan",
        detailedExitCode: opts.detailedExitcode,
        base: opts.base,
        scope: opts.scope,
        secretsFile: opts.secretsFile,
        // Only a saved plan and the JSON view carry the checksums; the other views do without them.
        checksums: opts.format === "json" || opts.out !== undefined,
        saves: opts.out !== undefined,
      },
      (name, place) => {
        const seen: Shown = {};
        shown.set(name, seen);
        return planHooks(opts, io, progress, name, place, seen);
      },
      (run, place) =>
        place.of > 1 ? endSection(run, place, { opts, io, shown: shown.get(run.name)!, json }) : undefined,
    );
    if (each.error !== undefined) throw each.error;
    if (each.runs.length === 1) return await onePlan(each.runs[0]!, shown.get(each.runs[0]!.name)!, opts, io);
    if (opts.format === "json") await writeOut(io, jsonChunks({ platforms: json }, { depth: 5, safe: true }));
    const failed = each.runs.filter((r) => r.result.error !== undefined).map((r) => r.name!);
    if (failed.length > 0) io.err(`${failedPlatforms(failed, each.runs.length)}\n`);
    return each.exitCode;
  } finally {
    progress.stop();
  }
}

/** The end of a plan of one platform: its calls, its error, the plan saved with `--out`. */
async function onePlan(run: PlatformRun, shown: Shown, opts: PlanCommand, io: CliIo): Promise<number> {
  const { name, result } = run;
  reportCalls(result, opts.quiet, io, name);
  if (result.error !== undefined) {
    throw await refusalOnce(result.error, shown.plan, opts.config, io, scopeOf(name, opts.rehearsal));
  }
  if (opts.out && result.plan) {
    // Where it was made, for `carte show`.
    if (shown.target !== undefined) result.plan.target = shown.target;
    await writePlanFile(opts.out, result.plan);
    if (!opts.quiet) {
      io.err(escapeTerminal(`Saved the plan to ${opts.out}. Apply it with: carte apply ${opts.out}`) + "\n");
    }
  }
  return result.exitCode;
}

/** Options of `carte apply`. */
export interface ApplyCommand extends RunCommand {
  planFile: string | undefined;
  /** With a saved plan: plan afresh instead of refusing when it is stale (asks again unless --auto-approve). */
  replan: boolean;
  autoApprove: boolean;
  json: boolean;
  /** `--secrets-file`: where webhook secrets returned by the calls are kept (src/run/secrets.ts). */
  secretsFile?: string | undefined;
}

/**
 * `carte apply`: the shared path (src/run/run.ts) with `command: "apply"`. Shows the plan (text) before any
 * call, asks on the terminal unless `--auto-approve`, keeps webhook secrets in the configured sink (a
 * warning naming the event when none is configured), and prints the report (text or `--json`).
 */
export async function runApply(opts: ApplyCommand, io: CliIo): Promise<number> {
  const progress = createProgress(io, progressMode(io, { quiet: opts.quiet, json: opts.json }));
  const shown = new Map<string | undefined, Shown>();
  const json: unknown[] = [];
  try {
    const each = await runEachPlatform(
      {
        ...runRequest(opts, io),
        command: "apply",
        planFile: opts.planFile,
        replan: opts.replan,
        secretsFile: opts.secretsFile,
        // Webhook secrets go to the configured sink only; without one, a warning (no secret) on stderr.
        secrets: (project) =>
          resolveSecretSink({
            file: opts.secretsFile,
            configured: project.secretsFile,
            projectRoot: project.root,
            env: io.env,
            out: io.out,
            platform: project.platformOf,
          }) ?? discardingSink((message) => io.err(escapeTerminal(message) + "\n")),
      },
      (name, place) => {
        const seen: Shown = {};
        shown.set(name, seen);
        return applyHooks(opts, io, progress, { name, place, shown: seen });
      },
      async (run, place) => {
        progress.stop();
        if (place.of === 1) return;
        const format = opts.json ? "json" : "text";
        await endSection(run, place, {
          opts: { ...opts, format },
          io,
          shown: shown.get(run.name)!,
          json: [],
        });
        if (opts.json) json.push(applyJson(run));
        else applyOutcome(run, opts, io);
      },
    );
    if (each.error !== undefined) throw each.error;
    if (each.runs.length === 1) {
      const run = each.runs[0]!;
      reportCalls(run.result, opts.quiet, io, run.name);
      const { error } = run.result;
      const scope = scopeOf(run.name, opts.rehearsal);
      if (error !== undefined)
        throw await refusalOnce(error, shown.get(run.name)!.plan, opts.config, io, scope);
      if (opts.json && run.result.plan && !run.result.cancelled) {
        io.out(renderReportJson(run.result.plan, run.result.report, run.result.calls));
      }
      applyOutcome(run, opts, io);
      return run.result.exitCode;
    }
    if (opts.json) io.out(jsonSafe(JSON.stringify({ platforms: json }, null, 2)) + "\n");
    const failed = each.runs.filter((r) => r.result.error !== undefined).map((r) => r.name!);
    if (failed.length > 0) io.err(`${failedPlatforms(failed, each.runs.length)}\n`);
    return each.exitCode;
  } finally {
    progress.stop();
  }
}

/** A platform's apply in `apply --json` of several platforms: its report, or its error. */
function applyJson(run: PlatformRun): unknown {
  const { name, result } = run;
  const report =
    result.plan && !result.cancelled
      ? (JSON.parse(renderReportJson(result.plan, result.report, result.calls)) as Record<string, unknown>)
      : {};
  const error = result.error === undefined ? undefined : renderError(result.error).replace(/^Error: /, "");
  return {
    platform: name,
    exitCode: result.exitCode,
    ...report,
    ...(result.cancelled ? { cancelled: true } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}

/** What an apply did, after its plan: cancelled, its report (text), the webhook secrets it lost. */
function applyOutcome(run: PlatformRun, opts: ApplyCommand, io: CliIo): void {
  const { result } = run;
  if (result.error !== undefined) return;
  if (result.cancelled) io.err("Apply cancelled.\n");
  if (result.plan && !result.cancelled && !opts.json && result.report) {
    const target = result.target && describeTarget(result.target);
    io.out(renderReport(result.plan, result.report, result.applyMs ?? 0, target));
  }
  if (result.lostSecrets) io.err(`${escapeLines(`Error: ${lostSecretsMessage(result.lostSecrets)}`)}\n`);
}

/** The hooks of one platform's apply: its section's heading, the plan, the waits, the confirmation. */
function applyHooks(
  opts: ApplyCommand,
  io: CliIo,
  progress: Progress,
  at: { name: string | undefined; place: RunPlace; shown: Shown },
): RunHooks {
  const { name, place, shown } = at;
  const format = opts.json ? "json" : "text";
  return {
    ...progressHooks(progress, io, name),
    onProject: (project, target) => {
      if (name === undefined) return;
      progress.stop();
      headSection(format, { name, ...sectionOf(project), target: describeTarget(target) }, place, io, shown);
    },
    onReplan: (stale) =>
      io.err(
        escapeTerminal(
          `The saved plan is stale (${stale.message.split(";")[0]}); planning again as --replan asks.`,
        ) + "\n",
      ),
    onLockWait: (holder) =>
      io.err(
        `Waiting for another carte apply of the same stores to end (${describeHolder(holder)}); ` +
          `--timeout bounds the wait.\n`,
      ),
    onRefLockWait: (lock, settings) =>
      io.err(
        escapeTerminal(
          `Waiting for another carte apply to release the lock ${lockName(settings)} ` +
            `(${describeRefHolder(lock)}); --timeout bounds the wait.`,
        ) + "\n",
      ),
    onPlan: (plan, info) => {
      progress.stop();
      if (plan.alreadyApplied)
        io.err(
          escapeTerminal(
            `The platform already matches ${opts.planFile ?? "this plan"} (it was applied since it was saved); nothing to apply.`,
          ) + "\n",
        );
      if (!opts.json) {
        const target = describeTarget(info.target);
        io.out(
          renderText(plan, {
            color: useColor(opts.color, io),
            target,
            showCalls: opts.showCalls,
            now: clockFromEnv(io.env),
          }),
        );
        io.out(stagesText(plan, info.stages));
      }
      shown.plan = opts.json ? undefined : plan;
    },
    ...(opts.autoApprove ? {} : { confirm: () => confirmApply(io) }),
  };
}

/**
 * Asks on the terminal whether to apply; a {@link CommandLineError} when there is no terminal to ask on
 * (the command line must then say `--auto-approve`).
 */
async function confirmApply(io: CliIo): Promise<boolean> {
  if (!io.stdinIsTTY || !io.prompt) {
    throw new CommandLineError(
      "apply asks for confirmation on a terminal; pass --auto-approve to apply without asking, or apply a saved plan file",
    );
  }
  const answer = await io.prompt("\nDo you want to make these changes? Only 'yes' will be accepted: ");
  return answer.trim() === "yes";
}

/** Loads the project and prints its warnings (they are repeated on every run, on standard error). */
async function load(config: string, io: CliIo, scope: PlatformScope = {}): Promise<LoadedProject> {
  const now = clockFromEnv(io.env);
  const project = await loadProject(config, { ...(now ? { now } : {}), ...scope });
  printWarnings(project.warnings, io);
  return project;
}

/**
 * `carte validate`: the files of each platform chosen (carte.yaml `platforms:`, `--platform`,
 * `--rehearsal`), each in its section; a project of one platform as ever.
 */
export async function runValidate(
  opts: { config: string; color: boolean | undefined } & PlatformChoice,
  io: CliIo,
): Promise<number> {
  return eachPlatformSection(opts.config, opts, io, async (scope, _name, heading) => {
    const project = await load(opts.config, io, scope);
    heading(project);
    return validateProject(project, io);
  });
}

/** `carte validate` of one loaded project: the embedded emulator's holidays, then the counts. */
function validateProject(project: LoadedProject, io: CliIo): number {
  // The embedded emulator's holidays are known offline; a real platform's are known only once read.
  if (!project.platform) {
    const problems = holidayDateProblems(
      project,
      (key) => embeddedHolidays(project, key),
      project.desired,
      (key) => embeddedCountry(project, key),
    );
    if (problems.length > 0) throw new ConfigError(problems);
  }
  const stores = Object.keys(project.desired.stores).length;
  io.out(
    `The configuration is valid: ${stores} store${stores === 1 ? "" : "s"}, ${project.files.length} files.\n`,
  );
  if (project.rollout) {
    const stages = project.rollout.map((s) => `${s.name} (${s.stores.length})`).join(", then ");
    io.out(escapeTerminal(`Rollout stages, in order, with their stores: ${stages}.`) + "\n");
  }
  return ExitCode.ok;
}

/** Options of `carte emulator`. */
export interface EmulatorCommand {
  host: string;
  /** The port; with {@link splitHosts}, the first API group's, the next groups' after it (0: any free ones). */
  port: number;
  /** `--split-hosts`: each API group at its own port (`EmulatorOptions.splitHosts`). */
  splitHosts?: boolean | undefined;
  seed: string | undefined;
  state: string | undefined;
  applyDelayMs: number;
  verbose: boolean;
  /** Added to every answer, ms (0: none). */
  latencyMs: number;
  /** Uniform extra delay in [0, jitterMs], ms. */
  jitterMs: number;
  /** Share (0..1) of calls answered 500/502/503 or dropped. */
  faultRate: number;
  /** Requests per second per client before 429 (0: unlimited). */
  rateLimit: number;
  /** Delay of slow answers, ms (0: none); with `slowRate` the share of slow calls. */
  slowMs: number;
  slowRate: number;
  /** Seed of the fault decisions. */
  faultSeed: number;
  /** Largest accepted request body, bytes (larger: 413); default 64 MiB. */
  maxBodyBytes?: number | undefined;
  /** `--control-token` or `CARTE_EMULATOR_CONTROL_TOKEN`: what the control API requires; none: open. */
  controlToken?: string | undefined;
  /**
   * `--strict` (default) / `--no-strict`: hold requests and answers to docs/openapi.yaml (400 for a
   * request that breaks it, 500 for an answer of the emulator's that does), `EmulatorOptions.strict`.
   */
  strict?: boolean | undefined;
}

/** Whether a listening address is reachable from this machine only. */
function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The fault settings of `carte emulator`'s flags; throws a {@link CommandLineError} on a bad value. */
export function emulatorFaults(opts: EmulatorCommand): FaultOptions | undefined {
  const numeric: [keyof EmulatorCommand, string][] = [
    ["latencyMs", "--latency-ms"],
    ["jitterMs", "--jitter-ms"],
    ["faultRate", "--fault-rate"],
    ["rateLimit", "--rate-limit"],
    ["slowMs", "--slow-ms"],
    ["slowRate", "--slow-rate"],
    ["faultSeed", "--fault-seed"],
  ];
  for (const [k, flag] of numeric) {
    if (Number.isNaN(opts[k])) throw new CommandLineError(`${flag} must be a number`);
  }
  const faults: FaultOptions = {
    faultSeed: opts.faultSeed,
    ...(opts.latencyMs ? { latencyMs: opts.latencyMs } : {}),
    ...(opts.jitterMs ? { jitterMs: opts.jitterMs } : {}),
    ...(opts.faultRate ? { faultRate: opts.faultRate } : {}),
    ...(opts.rateLimit ? { rateLimit: opts.rateLimit } : {}),
    ...(opts.slowMs ? { slowMs: opts.slowMs, slowRate: opts.slowRate } : {}),
  };
  const problems = faultProblems(faults);
  if (problems.length > 0) throw new CommandLineError(`invalid fault option: ${problems.join("; ")}`);
  return Object.keys(faults).length > 1 ? faults : undefined;
}

/**
 * What `carte emulator` says once it listens: its address, or, with each API group at its own, a
 * `platform:` section giving each group's address, ready for carte.yaml.
 */
function listening(urls: Readonly<Record<ApiGroup, string>>, split: boolean): string {
  if (!split) return `carte emulator listening on ${urls.auth}\n`;
  return (
    `carte emulator listening on ${urls.auth}, each API group at its own address:\n` +
    `platform:\n  hosts:\n${API_GROUPS.map((g) => `    ${g}: ${urls[g]}\n`).join("")}`
  );
}

/** `carte emulator`: serves until SIGINT or SIGTERM. */
export async function runEmulator(opts: EmulatorCommand, io: CliIo): Promise<number> {
  const faults = emulatorFaults(opts);
  if (
    opts.maxBodyBytes !== undefined &&
    !(Number.isSafeInteger(opts.maxBodyBytes) && opts.maxBodyBytes > 0)
  ) {
    throw new CommandLineError("--max-body-bytes must be a positive whole number");
  }
  if (opts.controlToken !== undefined && opts.controlToken.trim() === "") {
    throw new CommandLineError("--control-token must not be empty");
  }
  // The emulator is loaded by the command that runs it only (see src/run/session.ts).
  const { loadSeedFile, startEmulator } = await import("../emulator/index.js");
  const seed = opts.seed ? await loadSeedFile(path.resolve(opts.seed)) : undefined;
  const emulator = await startEmulator({
    host: opts.host,
    port: opts.port,
    splitHosts: opts.splitHosts === true,
    ...(seed ? { seed } : {}),
    ...(opts.state ? { stateFile: path.resolve(opts.state) } : {}),
    applyDelayMs: opts.applyDelayMs,
    ...(faults ? { faults } : {}),
    ...(opts.maxBodyBytes !== undefined ? { maxBodyBytes: opts.maxBodyBytes } : {}),
    ...(opts.controlToken !== undefined ? { controlToken: opts.controlToken } : {}),
    strict: opts.strict !== false,
    // Log lines quote request paths and webhook addresses: one escaped line each.
    ...(opts.verbose ? { log: (line: string) => io.err(escapeTerminal(line) + "\n") } : {}),
  });
  io.err(listening(emulator.urls, opts.splitHosts === true));
  if (opts.controlToken === undefined && !isLoopback(opts.host)) {
    io.err(
      escapeTerminal(
        `Warning: the control API (${emulator.url}/__emulator/) resets state and reads every request, and ` +
          `${opts.host} is reachable from other machines; protect it with --control-token or CARTE_EMULATOR_CONTROL_TOKEN`,
      ) + "\n",
    );
  }
  if (faults) io.err(`injecting faults: ${JSON.stringify(faults)}\n`);
  await (io.untilSignal ? io.untilSignal() : new Promise<void>(() => {}));
  await emulator.close();
  io.err("carte emulator stopped\n");
  return ExitCode.ok;
}
