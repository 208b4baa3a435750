/** The CLI commands. Each turns its options into library calls and renders the result. */

import path from "node:path";
import { loadProject, type LoadedProject } from "../config/index.js";
import { EMBEDDED_HOLIDAYS, holidayDateProblems } from "../config/holidays.js";
import { faultProblems } from "../emulator/faults.js";
import { loadSeedFile, startEmulator } from "../emulator/index.js";
import type { FaultOptions } from "../emulator/index.js";
import { ConfigError, ExitCode, StalePlanError, UsageError } from "../errors.js";
import { readPlanFile, writePlanFile } from "../plan/file.js";
import { isEmptyPlan } from "../plan/plan.js";
import type { Plan } from "../plan/types.js";
import type { ApplyEvent } from "../apply/execute.js";
import type { KindName } from "../kinds/types.js";
import { renderJson } from "../render/json.js";
import { renderMarkdown } from "../render/markdown.js";
import { renderText } from "../render/text.js";
import { discardingSink, resolveSecretSink } from "../secrets.js";
import { openSession } from "../session.js";
import { applyPlan, checkSavedPlan, enforceSafety, planProject, type ApplyReport } from "../workflow.js";
import { printWarnings, useColor, type CliIo } from "./io.js";
import { createProgress, progressMode, type Progress } from "./progress.js";

/** Options shared by `carte plan` and `carte apply`. */
export interface RunCommand {
  config: string;
  color: boolean | undefined;
  quiet: boolean;
  parallelism: number;
  stores: string[];
  kinds: KindName[];
  targets: string[];
  /** `--force --reason`: apply a plan that trips safety guards, recording why. */
  force: { reason: string } | undefined;
}

/** Options of `carte plan`. */
export interface PlanCommand extends RunCommand {
  format: "text" | "json" | "markdown";
  out: string | undefined;
  detailedExitcode: boolean;
}

function runOptions(opts: RunCommand, progress: Progress) {
  return {
    parallelism: opts.parallelism,
    targeting: { stores: opts.stores, kinds: opts.kinds, targets: opts.targets },
    onStoreRead: (done: number, total: number) => progress.storeRead(done, total),
    onEvent: (e: ApplyEvent) => progress.apply(e),
  };
}

function render(plan: Plan, format: PlanCommand["format"], color: boolean): string {
  if (format === "json") return renderJson(plan);
  if (format === "markdown") return renderMarkdown(plan);
  return renderText(plan, { color });
}

/** Loads the project and prints its warnings (they are repeated on every run, on standard error). */
async function load(config: string, io: CliIo): Promise<LoadedProject> {
  const project = await loadProject(config);
  printWarnings(project.warnings, io);
  return project;
}

/** `carte plan`. */
export async function runPlan(opts: PlanCommand, io: CliIo): Promise<number> {
  const project = await load(opts.config, io);
  const progress = createProgress(io, progressMode(io, { quiet: opts.quiet, json: opts.format !== "text" }));
  const session = await openSession(project, { env: io.env, onRetry: (r) => progress.retry(r) });
  try {
    const { plan } = await planProject(project, session, runOptions(opts, progress));
    progress.stop();
    let refusal: unknown;
    try {
      enforceSafety(plan, opts.force);
    } catch (err) {
      refusal = err;
    }
    io.out(render(plan, opts.format, useColor(opts.color, io)));
    if (refusal) throw refusal;
    if (opts.out) {
      await writePlanFile(opts.out, plan);
      if (!opts.quiet) io.err(`Saved the plan to ${opts.out}. Apply it with: carte apply ${opts.out}\n`);
    }
    if (opts.detailedExitcode && !isEmptyPlan(plan)) return ExitCode.changes;
    return ExitCode.ok;
  } finally {
    progress.stop();
    await session.close();
  }
}

/** Options of `carte apply`. */
export interface ApplyCommand extends RunCommand {
  planFile: string | undefined;
  /** With a saved plan: plan afresh instead of refusing when it is stale (asks again unless --auto-approve). */
  replan: boolean;
  autoApprove: boolean;
  json: boolean;
  /** `--secrets-file`: where webhook secrets returned by the calls are kept (src/secrets.ts). */
  secretsFile?: string | undefined;
}

/** `carte apply`. */
export async function runApply(opts: ApplyCommand, io: CliIo): Promise<number> {
  const project = await load(opts.config, io);
  const color = useColor(opts.color, io);
  const progress = createProgress(io, progressMode(io, { quiet: opts.quiet, json: opts.json }));
  const session = await openSession(project, { env: io.env, onRetry: (r) => progress.retry(r) });
  try {
    const run = runOptions(opts, progress);
    let plan: Plan | undefined;
    if (opts.planFile) {
      plan = await readPlanFile(opts.planFile);
      try {
        await checkSavedPlan(plan, project, session, run);
      } catch (err) {
        if (!(err instanceof StalePlanError) || !opts.replan) throw err;
        io.err(`The saved plan is stale (${err.message.split(";")[0]}); planning again as --replan asks.\n`);
        plan = undefined;
      }
    }
    if (plan) {
      if (!opts.json) io.out(renderText(plan, { color }));
      enforceSafety(plan, opts.force);
    } else {
      plan = (await planProject(project, session, run)).plan;
      progress.stop();
      if (!opts.json) io.out(renderText(plan, { color }));
      enforceSafety(plan, opts.force);
      if (!isEmptyPlan(plan) && !opts.autoApprove) {
        if (!io.stdinIsTTY || !io.prompt) {
          throw new UsageError(
            "apply asks for confirmation on a terminal; pass --auto-approve to apply without asking, or apply a saved plan file",
          );
        }
        const answer = await io.prompt("\nDo you want to make these changes? Only 'yes' will be accepted: ");
        if (answer.trim() !== "yes") {
          io.err("Apply cancelled.\n");
          return ExitCode.error;
        }
      }
    }
    if (isEmptyPlan(plan)) {
      if (opts.json)
        io.out(JSON.stringify({ summary: plan.summary, operations: [], pending: [] }, null, 2) + "\n");
      return ExitCode.ok;
    }
    const started = Date.now();
    // Webhook secrets go to the configured sink only; without one, a warning (no secret) on stderr.
    const secrets =
      resolveSecretSink({
        file: opts.secretsFile,
        configured: project.secretsFile,
        env: io.env,
        out: io.out,
      }) ?? discardingSink((message) => io.err(message + "\n"));
    const report = await applyPlan(plan, session, { ...run, secrets });
    progress.stop();
    if (opts.json) {
      io.out(JSON.stringify({ summary: plan.summary, safety: plan.safety, ...report }, null, 2) + "\n");
    } else {
      io.out(renderReport(plan, report, Date.now() - started));
    }
    return report.failed > 0 || report.skipped > 0 ? ExitCode.error : ExitCode.ok;
  } finally {
    progress.stop();
    await session.close();
  }
}

function renderReport(plan: Plan, report: ApplyReport, ms: number): string {
  const s = plan.summary;
  const lines: string[] = [];
  const done = report.operations.filter((o) => o.status === "ok").length;
  if (report.failed === 0 && report.skipped === 0) {
    lines.push(
      `\nApply complete: ${s.create} created, ${s.update} updated, ${s.delete} deleted; ` +
        `${done} API call${done === 1 ? "" : "s"} in ${(ms / 1000).toFixed(1)} s. The platform shows every change.`,
    );
  } else {
    lines.push(`\nApply incomplete: ${done} of ${report.operations.length} API calls succeeded.`);
    for (const o of report.operations.filter((x) => x.status !== "ok")) {
      lines.push(`  ${o.status}: ${o.method} ${o.path}${o.message ? `: ${o.message}` : ""}`);
    }
    if (report.pending.length > 0) {
      lines.push(`  not yet shown by the platform: ${report.pending.join(", ")}`);
    }
    lines.push("Run `carte apply` again once the cause is fixed: it applies only what is left.");
  }
  if (plan.safety.override)
    lines.push(`Safety guards were overridden, reason: ${plan.safety.override.reason}`);
  return lines.join("\n") + "\n";
}

/** `carte validate`. */
export async function runValidate(
  opts: { config: string; color: boolean | undefined },
  io: CliIo,
): Promise<number> {
  const project = await load(opts.config, io);
  // The embedded emulator's holidays are known offline; a real platform's are known only once read.
  if (!project.platform) {
    const problems = holidayDateProblems(project, () => EMBEDDED_HOLIDAYS);
    if (problems.length > 0) throw new ConfigError(problems);
  }
  const stores = Object.keys(project.desired.stores).length;
  io.out(
    `The configuration is valid: ${stores} store${stores === 1 ? "" : "s"}, ${project.files.length} files.\n`,
  );
  return ExitCode.ok;
}

/** Options of `carte emulator`. */
export interface EmulatorCommand {
  host: string;
  port: number;
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
}

/** The fault settings of `carte emulator`'s flags; throws a {@link UsageError} on a bad value. */
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
    if (Number.isNaN(opts[k])) throw new UsageError(`${flag} must be a number`);
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
  if (problems.length > 0) throw new UsageError(`invalid fault option: ${problems.join("; ")}`);
  return Object.keys(faults).length > 1 ? faults : undefined;
}

/** `carte emulator`: serves until SIGINT or SIGTERM. */
export async function runEmulator(opts: EmulatorCommand, io: CliIo): Promise<number> {
  const faults = emulatorFaults(opts);
  const seed = opts.seed ? await loadSeedFile(path.resolve(opts.seed)) : undefined;
  const emulator = await startEmulator({
    host: opts.host,
    port: opts.port,
    ...(seed ? { seed } : {}),
    ...(opts.state ? { stateFile: path.resolve(opts.state) } : {}),
    applyDelayMs: opts.applyDelayMs,
    ...(faults ? { faults } : {}),
    ...(opts.verbose ? { log: (line: string) => io.err(line + "\n") } : {}),
  });
  io.err(`carte emulator listening on ${emulator.url}\n`);
  if (faults) io.err(`injecting faults: ${JSON.stringify(faults)}\n`);
  await (io.untilSignal ? io.untilSignal() : new Promise<void>(() => {}));
  await emulator.close();
  io.err("carte emulator stopped\n");
  return ExitCode.ok;
}
