/** The CLI commands. Each turns its options into library calls and renders the result. */

import path from "node:path";
import { loadProject } from "../config/index.js";
import { loadSeedFile, startEmulator } from "../emulator/index.js";
import { ExitCode, UsageError } from "../errors.js";
import { readPlanFile, writePlanFile } from "../plan/file.js";
import { isEmptyPlan } from "../plan/plan.js";
import type { Plan } from "../plan/types.js";
import { renderJson } from "../render/json.js";
import { renderText } from "../render/text.js";
import { openSession } from "../session.js";
import { applyPlan, checkSavedPlan, planProject, type ApplyReport } from "../workflow.js";
import { useColor, type CliIo } from "./io.js";

/** Options of `carte plan`. */
export interface PlanCommand {
  config: string;
  json: boolean;
  out: string | undefined;
  detailedExitcode: boolean;
  color: boolean | undefined;
}

/** `carte plan`. */
export async function runPlan(opts: PlanCommand, io: CliIo): Promise<number> {
  const project = await loadProject(opts.config);
  const session = await openSession(project, { env: io.env });
  try {
    const { plan } = await planProject(project, session);
    io.out(opts.json ? renderJson(plan) : renderText(plan, { color: useColor(opts.color, io) }));
    if (opts.out) {
      await writePlanFile(opts.out, plan);
      io.err(`Saved the plan to ${opts.out}. Apply it with: carte apply ${opts.out}\n`);
    }
    if (opts.detailedExitcode && !isEmptyPlan(plan)) return ExitCode.changes;
    return ExitCode.ok;
  } finally {
    await session.close();
  }
}

/** Options of `carte apply`. */
export interface ApplyCommand {
  config: string;
  planFile: string | undefined;
  autoApprove: boolean;
  json: boolean;
  color: boolean | undefined;
}

/** `carte apply`. */
export async function runApply(opts: ApplyCommand, io: CliIo): Promise<number> {
  const project = await loadProject(opts.config);
  const color = useColor(opts.color, io);
  const session = await openSession(project, { env: io.env });
  try {
    let plan: Plan;
    if (opts.planFile) {
      plan = await readPlanFile(opts.planFile);
      await checkSavedPlan(plan, project, session);
      if (!opts.json) io.out(renderText(plan, { color }));
    } else {
      plan = (await planProject(project, session)).plan;
      if (!opts.json) io.out(renderText(plan, { color }));
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
        io.out(JSON.stringify({ plan: plan.summary, operations: [], pending: [] }, null, 2) + "\n");
      return ExitCode.ok;
    }
    const started = Date.now();
    const report = await applyPlan(plan, session, {
      onEvent: (e) => {
        if (e.type === "operation" && !opts.json) {
          const r = e.result;
          const mark = r.status === "ok" ? "ok" : r.status;
          io.err(
            `[${e.done}/${e.total}] ${r.method} ${r.path} ${mark}${r.message ? `: ${r.message}` : ""}\n`,
          );
        }
      },
    });
    if (opts.json) {
      io.out(JSON.stringify({ plan: plan.summary, ...report }, null, 2) + "\n");
    } else {
      io.out(renderReport(plan, report, Date.now() - started));
    }
    return report.failed > 0 || report.skipped > 0 ? ExitCode.error : ExitCode.ok;
  } finally {
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
    lines.push("Run `carte apply` again once the cause is fixed: it applies only what is left.");
  }
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
}

/** `carte emulator`: serves until SIGINT or SIGTERM. */
export async function runEmulator(opts: EmulatorCommand, io: CliIo): Promise<number> {
  const seed = opts.seed ? await loadSeedFile(path.resolve(opts.seed)) : undefined;
  const emulator = await startEmulator({
    host: opts.host,
    port: opts.port,
    ...(seed ? { seed } : {}),
    ...(opts.state ? { stateFile: path.resolve(opts.state) } : {}),
    applyDelayMs: opts.applyDelayMs,
    ...(opts.verbose ? { log: (line: string) => io.err(line + "\n") } : {}),
  });
  io.err(`carte emulator listening on ${emulator.url}\n`);
  await (io.untilSignal ? io.untilSignal() : new Promise<void>(() => {}));
  await emulator.close();
  io.err("carte emulator stopped\n");
  return ExitCode.ok;
}
