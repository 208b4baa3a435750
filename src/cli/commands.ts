/** The CLI commands. Each turns its options into library calls and renders the result. */

import path from "node:path";
import { loadProject } from "../config/index.js";
import { faultProblems } from "../emulator/faults.js";
import { loadSeedFile, startEmulator } from "../emulator/index.js";
import type { FaultOptions } from "../emulator/index.js";
import { ExitCode, StalePlanError, UsageError } from "../errors.js";
import { readPlanFile, writePlanFile } from "../plan/file.js";
import { isEmptyPlan } from "../plan/plan.js";
import type { Plan } from "../plan/types.js";
import type { ApplyEvent } from "../apply/execute.js";
import type { KindName } from "../kinds/types.js";
import { escapeLines, escapeTerminal, jsonSafe } from "../render/escape.js";
import { renderJson } from "../render/json.js";
import { renderMarkdown } from "../render/markdown.js";
import { renderText } from "../render/text.js";
import {
  discardingSink,
  lostSecretWarnings,
  lostSecretsMessage,
  prepareSecretSink,
  resolveSecretSink,
  secretsFileName,
} from "../secrets.js";
import { openSession } from "../session.js";
import { applyPlan, checkSavedPlan, enforceSafety, planProject, type ApplyReport } from "../workflow.js";
import { useColor, type CliIo } from "./io.js";
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

/** `carte plan`. */
export async function runPlan(opts: PlanCommand, io: CliIo): Promise<number> {
  const project = await loadProject(opts.config);
  const progress = createProgress(io, progressMode(io, { quiet: opts.quiet, json: opts.format !== "text" }));
  const session = await openSession(project, { env: io.env, onRetry: (r) => progress.retry(r) });
  try {
    const { plan } = await planProject(project, session, runOptions(opts, progress));
    progress.stop();
    await warnLostSecrets(secretsFileName({ configured: project.secretsFile, env: io.env }), io);
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
      if (!opts.quiet) {
        io.err(
          escapeTerminal(`Saved the plan to ${opts.out}. Apply it with: carte apply ${opts.out}`) + "\n",
        );
      }
    }
    if (opts.detailedExitcode && !isEmptyPlan(plan)) return ExitCode.changes;
    return ExitCode.ok;
  } finally {
    progress.stop();
    await session.close();
  }
}

/** Prints the warnings of secrets an earlier run expected but never saved (src/secrets.ts). */
async function warnLostSecrets(file: string | undefined, io: CliIo): Promise<void> {
  for (const w of await lostSecretWarnings(file)) io.err(escapeTerminal(w) + "\n");
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
  const project = await loadProject(opts.config);
  const color = useColor(opts.color, io);
  const progress = createProgress(io, progressMode(io, { quiet: opts.quiet, json: opts.json }));
  const session = await openSession(project, { env: io.env, onRetry: (r) => progress.retry(r) });
  try {
    const run = runOptions(opts, progress);
    await warnLostSecrets(
      secretsFileName({ file: opts.secretsFile, configured: project.secretsFile, env: io.env }),
      io,
    );
    let plan: Plan | undefined;
    if (opts.planFile) {
      plan = await readPlanFile(opts.planFile);
      try {
        await checkSavedPlan(plan, project, session, run);
      } catch (err) {
        if (!(err instanceof StalePlanError) || !opts.replan) throw err;
        io.err(
          escapeTerminal(
            `The saved plan is stale (${err.message.split(";")[0]}); planning again as --replan asks.`,
          ) + "\n",
        );
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
        io.out(
          jsonSafe(JSON.stringify({ summary: plan.summary, operations: [], pending: [] }, null, 2)) + "\n",
        );
      return ExitCode.ok;
    }
    // Webhook secrets go to the configured sink only; without one, a warning (no secret) on stderr.
    // Before any call, the sink proves it can keep the secrets the plan's calls will return, or the
    // apply is refused (src/secrets.ts prepareSecretSink). NOTE for the shared apply path of the CLI and
    // the Action: this call and `finish` below belong there.
    const sinkOptions = { file: opts.secretsFile, configured: project.secretsFile, env: io.env };
    const prepared = await prepareSecretSink(
      plan,
      resolveSecretSink({ ...sinkOptions, out: io.out }) ??
        discardingSink((message) => io.err(escapeTerminal(message) + "\n")),
    );
    const started = Date.now();
    const report = await applyPlan(plan, session, { ...run, secrets: prepared.sink });
    progress.stop();
    const lost = await prepared.finish(report.operations);
    if (opts.json) {
      io.out(
        jsonSafe(JSON.stringify({ summary: plan.summary, safety: plan.safety, ...report }, null, 2)) + "\n",
      );
    } else {
      io.out(renderReport(plan, report, Date.now() - started));
    }
    if (lost.length > 0) {
      io.err(`${escapeLines(`Error: ${lostSecretsMessage(lost)}`)}\n`);
      return ExitCode.error;
    }
    return report.failed > 0 || report.skipped > 0 ? ExitCode.error : ExitCode.ok;
  } finally {
    progress.stop();
    await session.close();
  }
}

/**
 * The text report of an apply. Paths, platform messages, addresses and the override reason are
 * escaped for a terminal (src/render/escape.ts).
 */
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
      lines.push(escapeTerminal(`  ${o.status}: ${o.method} ${o.path}${o.message ? `: ${o.message}` : ""}`));
    }
    if (report.pending.length > 0) {
      lines.push(escapeTerminal(`  not yet shown by the platform: ${report.pending.join(", ")}`));
    }
    lines.push("Run `carte apply` again once the cause is fixed: it applies only what is left.");
  }
  if (plan.safety.override)
    lines.push(escapeTerminal(`Safety guards were overridden, reason: ${plan.safety.override.reason}`));
  return lines.join("\n") + "\n";
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
  /** Largest accepted request body, bytes (larger: 413); default 64 MiB. */
  maxBodyBytes?: number | undefined;
  /** `--control-token` or `CARTE_EMULATOR_CONTROL_TOKEN`: what the control API requires; none: open. */
  controlToken?: string | undefined;
}

/** Whether a listening address is reachable from this machine only. */
function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
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
  if (
    opts.maxBodyBytes !== undefined &&
    !(Number.isSafeInteger(opts.maxBodyBytes) && opts.maxBodyBytes > 0)
  ) {
    throw new UsageError("--max-body-bytes must be a positive whole number");
  }
  if (opts.controlToken !== undefined && opts.controlToken.trim() === "") {
    throw new UsageError("--control-token must not be empty");
  }
  const seed = opts.seed ? await loadSeedFile(path.resolve(opts.seed)) : undefined;
  const emulator = await startEmulator({
    host: opts.host,
    port: opts.port,
    ...(seed ? { seed } : {}),
    ...(opts.state ? { stateFile: path.resolve(opts.state) } : {}),
    applyDelayMs: opts.applyDelayMs,
    ...(faults ? { faults } : {}),
    ...(opts.maxBodyBytes !== undefined ? { maxBodyBytes: opts.maxBodyBytes } : {}),
    ...(opts.controlToken !== undefined ? { controlToken: opts.controlToken } : {}),
    // Log lines quote request paths and webhook addresses: one escaped line each.
    ...(opts.verbose ? { log: (line: string) => io.err(escapeTerminal(line) + "\n") } : {}),
  });
  io.err(`carte emulator listening on ${emulator.url}\n`);
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
