/**
 * `carte preview [--out DIR] [--plan FILE] [--open]`: the menus of the plan's stores as a static HTML
 * site (src/render/menu-pages.ts, docs/preview.md). Without `--plan` it plans through the shared path
 * (src/run/run.ts, as `carte plan` does, with the same scope options); with `--plan` it reads a saved plan
 * (its digest checked as `carte show` does). What the plan leaves unchanged comes from the files. The
 * pages are written by src/preview-site.ts, the path the GitHub Action's preview artifact shares.
 */

import { spawn } from "node:child_process";
import path from "node:path";
import { rootFor, shownPath } from "../atomic.js";
import { loadProject, type LoadedProject } from "../config/index.js";
import { clockFromEnv } from "../time/clock.js";
import { UnsafePlanError, formatWarning } from "../errors.js";
import { readPlanToShow } from "../plan/file.js";
import type { Plan } from "../plan/types.js";
import { escapeTerminal } from "../render/escape.js";
import { writePreview } from "../preview-site.js";
import { runCarte } from "../run/run.js";
import { runRequest, type RunCommand } from "./commands.js";
import { warnEditedPlan } from "./project.js";
import { type CliIo } from "./io.js";
import { eachPlatformSection, type PlatformScope } from "./platform-sections.js";

/** Options of `carte preview`. */
export interface PreviewCommand extends RunCommand {
  /** `--out DIR`; default `.carte/preview` beside carte.yaml. */
  out: string | undefined;
  /** `--plan FILE`: a plan saved with `carte plan --out`, instead of planning afresh. */
  planFile: string | undefined;
  /** `--open`: open index.html in the user's browser afterwards. */
  open: boolean;
}

/** The folder of the preview when `--out` names none, relative to the folder of carte.yaml. */
export const DEFAULT_PREVIEW_DIR = path.join(".carte", "preview");

/** The plan and the project's desired state: planned afresh through the shared path. */
async function livePlan(
  opts: PreviewCommand,
  io: CliIo,
  scope: PlatformScope,
): Promise<{ plan: Plan; project: LoadedProject }> {
  const { platforms: _all, ...request } = runRequest(opts, io);
  const result = await runCarte(
    {
      command: "plan",
      ...request,
      checksums: false,
      platform: scope.platform?.name,
      rehearsal: scope.platform?.rehearsal,
    },
    {
      onWarning: (w) => io.err(escapeTerminal(formatWarning(w)) + "\n"),
      onNote: (message) => io.err(escapeTerminal(message) + "\n"),
    },
  );
  // A plan the safety guards refuse is still previewed: reviewing it is what the preview is for.
  // (src/run/run.ts keeps the plan in its result when a guard refuses it.)
  if (result.error instanceof UnsafePlanError && result.plan && result.project) {
    io.err(escapeTerminal(`Warning: ${result.error.message}`) + "\n");
    return { plan: result.plan, project: result.project };
  }
  if (result.error !== undefined || !result.plan || !result.project) throw result.error;
  return { plan: result.plan, project: result.project };
}

/** A saved plan, read as `carte show` reads it, and the project's files for what it leaves as it is. */
async function savedPlan(opts: PreviewCommand, io: CliIo): Promise<{ plan: Plan; project: LoadedProject }> {
  const { plan, digestMatches } = await readPlanToShow(opts.planFile!);
  if (!digestMatches) warnEditedPlan(opts.planFile!, "previewed", io);
  // The platform the plan was made for (carte.yaml `platforms:`), whose files it previews.
  const platform =
    typeof plan.platform === "string"
      ? { platform: { name: plan.platform, rehearsal: plan.rehearsal === true } }
      : {};
  const project = await loadProject(opts.config, { now: clockFromEnv(io.env) ?? new Date(), ...platform });
  return { plan, project };
}

/**
 * Opens `file` in the user's browser with the system's opener (`xdg-open`, `open`, `explorer.exe`),
 * found on the `PATH` of `env`, started without a shell and left running; `false` when there is none.
 */
function openInBrowser(file: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const opener =
    process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer.exe" : "xdg-open";
  return new Promise((resolve) => {
    const child = spawn(opener, [file], { stdio: "ignore", detached: true, shell: false, env });
    child.once("error", () => resolve(false));
    child.once("spawn", () => {
      child.unref();
      resolve(true);
    });
  });
}

/**
 * `carte preview`: writes the site and says where it is; exit code 0, also for a plan a safety guard
 * refuses (a warning says so). A project of several platforms (carte.yaml `platforms:`) has a site per
 * platform chosen, each in a folder of the platform's name inside the preview's folder, each in its
 * own section.
 */
export async function runPreview(opts: PreviewCommand, io: CliIo): Promise<number> {
  if (opts.planFile !== undefined) return writeSite(await savedPlan(opts, io), opts, io, undefined);
  return eachPlatformSection(opts.config, opts, io, async (scope, name, heading) => {
    const planned = await livePlan(opts, io, scope);
    heading(planned.project);
    return writeSite(planned, opts, io, name);
  });
}

/** Writes one plan's site: in `--out` (default .carte/preview), in a folder of its platform's name when it has one. */
async function writeSite(
  { plan, project }: { plan: Plan; project: LoadedProject },
  opts: PreviewCommand,
  io: CliIo,
  name: string | undefined,
): Promise<number> {
  const base = path.resolve(opts.out ?? path.join(project.root, DEFAULT_PREVIEW_DIR));
  const out = name === undefined ? base : path.join(base, name);
  const { index } = await writePreview({
    plan,
    project,
    out,
    root: rootFor(path.join(out, "index.html"), project.root),
  });
  if (opts.open && (await openInBrowser(index, io.env))) {
    io.err(escapeTerminal(`Opened ${shownPath(index)} in the browser.`) + "\n");
  } else {
    io.out(
      escapeTerminal(
        `Wrote the preview of ${plan.stores.length} ${plan.stores.length === 1 ? "store" : "stores"} ` +
          `(${plan.changes.length} ${plan.changes.length === 1 ? "change" : "changes"}): ${shownPath(index)}`,
      ) + "\n",
    );
  }
  return 0;
}
