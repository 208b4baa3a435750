/**
 * The CLI commands. Each turns its options into library calls and renders the result; `plan` and
 * `apply` go through the path they share with the GitHub Action (src/run.ts).
 */

import path from "node:path";
import { loadProject } from "../config/index.js";
import { faultProblems } from "../emulator/faults.js";
import { loadSeedFile, startEmulator } from "../emulator/index.js";
import type { FaultOptions } from "../emulator/index.js";
import { ExitCode, UsageError } from "../errors.js";
import { writePlanFile } from "../plan/file.js";
import type { Plan } from "../plan/types.js";
import type { SegmentName } from "../kinds/registry.js";
import { renderJson } from "../render/json.js";
import { renderMarkdown } from "../render/markdown.js";
import { renderReport, renderReportJson } from "../render/report.js";
import { renderText } from "../render/text.js";
import { runCarte, type RunHooks } from "../run.js";
import { discardingSink, resolveSecretSink } from "../secrets.js";
import { useColor, type CliIo } from "./io.js";
import { createProgress, progressMode, type Progress } from "./progress.js";

/** Options shared by `carte plan` and `carte apply`. */
export interface RunCommand {
  config: string;
  color: boolean | undefined;
  quiet: boolean;
  parallelism: number;
  stores: string[];
  kinds: SegmentName[];
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

/** The shared path's request fields and progress hooks common to `plan` and `apply`. */
function runRequest(opts: RunCommand, io: CliIo) {
  return {
    config: opts.config,
    env: io.env,
    parallelism: opts.parallelism,
    targeting: { stores: opts.stores, kinds: opts.kinds, targets: opts.targets },
    force: opts.force,
  };
}

function progressHooks(progress: Progress): RunHooks {
  return {
    onStoreRead: (done, total) => progress.storeRead(done, total),
    onEvent: (e) => progress.apply(e),
    onRetry: (r) => progress.retry(r),
  };
}

function render(plan: Plan, format: PlanCommand["format"], color: boolean): string {
  if (format === "json") return renderJson(plan);
  if (format === "markdown") return renderMarkdown(plan);
  return renderText(plan, { color });
}

/** `carte plan`: the shared path (src/run.ts) with `command: "plan"`, rendered in the chosen format. */
export async function runPlan(opts: PlanCommand, io: CliIo): Promise<number> {
  const progress = createProgress(io, progressMode(io, { quiet: opts.quiet, json: opts.format !== "text" }));
  try {
    const result = await runCarte(
      {
        ...runRequest(opts, io),
        command: "plan",
        detailedExitCode: opts.detailedExitcode,
        // Only a saved plan and the JSON view carry the checksums; the other views do without them.
        checksums: opts.format === "json" || opts.out !== undefined,
      },
      {
        ...progressHooks(progress),
        onPlan: (plan) => {
          progress.stop();
          io.out(render(plan, opts.format, useColor(opts.color, io)));
        },
      },
    );
    if (result.error !== undefined) throw result.error;
    if (opts.out && result.plan) {
      await writePlanFile(opts.out, result.plan);
      if (!opts.quiet) io.err(`Saved the plan to ${opts.out}. Apply it with: carte apply ${opts.out}\n`);
    }
    return result.exitCode;
  } finally {
    progress.stop();
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

/**
 * `carte apply`: the shared path (src/run.ts) with `command: "apply"`. Shows the plan (text) before any
 * call, asks on the terminal unless `--auto-approve`, keeps webhook secrets in the configured sink (a
 * warning naming the event when none is configured), and prints the report (text or `--json`).
 */
export async function runApply(opts: ApplyCommand, io: CliIo): Promise<number> {
  const color = useColor(opts.color, io);
  const progress = createProgress(io, progressMode(io, { quiet: opts.quiet, json: opts.json }));
  try {
    const result = await runCarte(
      {
        ...runRequest(opts, io),
        command: "apply",
        planFile: opts.planFile,
        replan: opts.replan,
        // Webhook secrets go to the configured sink only; without one, a warning (no secret) on stderr.
        secrets: (project) =>
          resolveSecretSink({
            file: opts.secretsFile,
            configured: project.secretsFile,
            env: io.env,
            out: io.out,
          }) ?? discardingSink((message) => io.err(message + "\n")),
      },
      {
        ...progressHooks(progress),
        onReplan: (stale) =>
          io.err(
            `The saved plan is stale (${stale.message.split(";")[0]}); planning again as --replan asks.\n`,
          ),
        onPlan: (plan) => {
          progress.stop();
          if (!opts.json) io.out(renderText(plan, { color }));
        },
        ...(opts.autoApprove ? {} : { confirm: () => confirmApply(io) }),
      },
    );
    progress.stop();
    if (result.error !== undefined) throw result.error;
    if (result.cancelled) io.err("Apply cancelled.\n");
    if (result.plan && !result.cancelled) {
      if (opts.json) io.out(renderReportJson(result.plan, result.report));
      else if (result.report) io.out(renderReport(result.plan, result.report, result.applyMs ?? 0));
    }
    return result.exitCode;
  } finally {
    progress.stop();
  }
}

/** Asks on the terminal whether to apply; a {@link UsageError} when there is no terminal to ask on. */
async function confirmApply(io: CliIo): Promise<boolean> {
  if (!io.stdinIsTTY || !io.prompt) {
    throw new UsageError(
      "apply asks for confirmation on a terminal; pass --auto-approve to apply without asking, or apply a saved plan file",
    );
  }
  const answer = await io.prompt("\nDo you want to make these changes? Only 'yes' will be accepted: ");
  return answer.trim() === "yes";
}

/** `carte validate`. */
export async function runValidate(
  opts: { config: string; color: boolean | undefined },
  io: CliIo,
): Promise<number> {
  const project = await loadProject(opts.config);
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
