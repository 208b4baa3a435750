/**
 * The commands around a project that plan and apply do not cover: `carte show FILE` (a saved plan,
 * rendered without calling the platform), `carte init [DIR]` (a minimal project) and `carte status`
 * (the client's stores on the platform and the file managing each). Thin adapters over
 * src/plan/file.ts, src/init.ts and src/status.ts.
 */

import path from "node:path";
import type { Argv, CommandModule } from "yargs";
import { loadProject } from "../config/index.js";
import { clockFromEnv } from "../time/clock.js";
import { carteManifest } from "../config/version.js";
import { initProject } from "../init.js";
import { readPlanToShow } from "../plan/file.js";
import { escapeTerminal } from "../render/escape.js";
import { renderStatusJson, renderStatusText } from "../render/status-view.js";
import { describeTarget, openSession, runTarget } from "../run/session.js";
import { projectStatus, type ProjectStatus, type StoreStatus } from "../status.js";
import type { LoadedProject } from "../config/index.js";
import { CommandLineError, ExitCode, exitCodeFor } from "../errors.js";
import { renderError } from "../render/error.js";
import { jsonSafe } from "../render/escape.js";
import { choosePlatforms, worstExitCode } from "../run/each-platform.js";
import { platformLoad } from "../run/step-load.js";
import {
  eachPlatformSection,
  platformChoice,
  platformFlags,
  type PlatformChoice,
  type PlatformScope,
} from "./platform-sections.js";
import { SHOW_CALLS_OPTION, render } from "./commands.js";
import { showTextInRounds } from "./show-text.js";
import { printWarnings, useColor, writeOut, type CliIo } from "./io.js";
import { writeCallsLine } from "./calls-line.js";
import { carteCommand, shellWord } from "./invocation.js";

/**
 * Warns that a saved plan file does not match its digest (edited after carte saved it, or not saved by
 * `carte plan --out`): it is still `shown` or `previewed` as it is, and `carte apply` would refuse it.
 */
export function warnEditedPlan(file: string, how: "shown" | "previewed", io: CliIo): void {
  io.err(
    escapeTerminal(
      `Warning: ${file} does not match its digest: it was changed after carte saved it, or not saved by ` +
        `carte plan --out. It is ${how} as it is now; carte apply would refuse it.`,
    ) + "\n",
  );
}

/** `carte show FILE`: a saved plan in text, Markdown or JSON; a warning when its digest does not match. */
export async function runShow(
  opts: {
    file: string;
    format: "text" | "json" | "markdown";
    color: boolean | undefined;
    /** `--show-calls`: list the API calls in order in the text view. */
    showCalls?: boolean | undefined;
  },
  io: CliIo,
): Promise<number> {
  // The text of a plan of format version 2 is read and written a store at a time (src/cli/show-text.ts).
  const color = useColor(opts.color, io);
  if (
    opts.format === "text" &&
    (await showTextInRounds(
      opts.file,
      {
        color,
        showCalls: opts.showCalls ?? false,
        now: clockFromEnv(io.env),
        checked: (digestMatches) => {
          if (!digestMatches) warnEditedPlan(opts.file, "shown", io);
        },
      },
      io,
    ))
  )
    return ExitCode.ok;
  const { plan, digestMatches } = await readPlanToShow(opts.file);
  if (!digestMatches) warnEditedPlan(opts.file, "shown", io);
  // The target the plan was made against (saved by carte plan --out; escaped by the renderers).
  // Instants are said relative to the day the plan is shown, not the day it was saved.
  await writeOut(
    io,
    render(plan, opts.format, color, undefined, plan.target, opts.showCalls, clockFromEnv(io.env)),
  );
  return ExitCode.ok;
}

/** What `carte init -c FILE` is told. */
const INIT_HAS_NO_CONFIG =
  "carte init has no -c: it writes carte.yaml in the folder given, carte init DIR (default: here)";

/** `carte init [DIR] [--currency CODE | --countries CO,BR]`. */
export async function runInit(
  opts: { dir: string; currency?: string; countries?: string[] },
  io: CliIo,
): Promise<number> {
  const result = await initProject(opts.dir, {
    ...(opts.currency === undefined ? {} : { currency: opts.currency }),
    ...(opts.countries === undefined ? {} : { countries: opts.countries }),
  });
  const shown = path.relative(process.cwd(), result.dir) || ".";
  for (const f of result.written) io.out(escapeTerminal(`  created  ${path.join(shown, f)}`) + "\n");
  for (const f of result.kept) io.out(escapeTerminal(`  kept     ${path.join(shown, f)} (exists)`) + "\n");
  if (result.installIn !== undefined) {
    const where = path.relative(process.cwd(), result.installIn) || ".";
    io.out(
      escapeTerminal(
        `Editors validate the files against carte's schemas once carte is installed in ${where} ` +
          `(npm install --save-dev ${carteManifest().name}).`,
      ) + "\n",
    );
  }
  // The command as it works for how carte was run (`npx carte` for a copy installed in the project).
  const carte = carteCommand({
    entry: io.entry,
    env: io.env,
    cwd: process.cwd(),
    packageName: carteManifest().name,
  });
  const config = shellWord(path.join(shown, "carte.yaml"));
  io.out(
    escapeTerminal(
      `Next: ${carte} validate -c ${config}, then ${carte} plan -c ${config} (against the embedded ` +
        "emulator until carte.yaml names a platform).",
    ) + "\n",
  );
  return ExitCode.ok;
}

/**
 * `carte status`: the stores of the client on the platform, and which file manages each; for a project
 * of several platforms (carte.yaml `platforms:`), each platform chosen in its own section (`--json`:
 * one document, `{"platforms": [{"platform": NAME, ...status}]}`), the exit code the worst.
 */
export async function runStatus(
  opts: { config: string; json: boolean; timeoutMs?: number } & PlatformChoice,
  io: CliIo,
): Promise<number> {
  const names = await choosePlatforms(opts.config, opts.platforms, opts.rehearsal);
  if (!opts.json || names.length === 1) {
    return eachPlatformSection(opts.config, opts, io, async (scope, name, heading) => {
      const { code, status, target } = await statusOf(opts.config, scope, name, io);
      if (!opts.json) heading(status.project, target);
      io.out(opts.json ? renderStatusJson(status.status) : renderStatusText(status.status, `the ${target}`));
      return code;
    });
  }
  const platforms: unknown[] = [];
  const codes: number[] = [];
  for (const name of names) {
    try {
      const { code, status } = await statusOf(
        opts.config,
        platformLoad({ platform: name, rehearsal: opts.rehearsal }),
        name,
        io,
      );
      platforms.push({ platform: name, ...(JSON.parse(renderStatusJson(status.status)) as object) });
      codes.push(code);
    } catch (err) {
      platforms.push({ platform: name, error: renderError(err).replace(/^Error: /, "") });
      codes.push(exitCodeFor(err));
    }
  }
  io.out(jsonSafe(JSON.stringify({ platforms }, null, 2)) + "\n");
  return worstExitCode(codes);
}

/** One platform's status (or the project's, without `platforms:`), its exit code and its target. */
async function statusOf(
  config: string,
  scope: PlatformScope,
  name: string | undefined,
  io: CliIo,
): Promise<{ code: number; status: { project: LoadedProject; status: ProjectStatus }; target: string }> {
  const project = await loadProject(config, { explain: true, ...scope });
  printWarnings(project.warnings, io);
  const files = new Map<string, string>();
  for (const [key, s] of project.sources ?? []) files.set(key, s.storeFile.file);
  const session = await openSession(project, { env: io.env });
  try {
    const status = await projectStatus(project, session, files);
    const wrong = (s: StoreStatus) => s.pairing === "wrong" || s.pairing === "unknown";
    const code = status.stores.some((s) => s.state === "missing" || wrong(s)) ? ExitCode.error : ExitCode.ok;
    return { code, status: { project, status }, target: describeTarget(runTarget(project)) };
  } finally {
    writeCallsLine(session.client.calls.counts(), io, false, name);
    await session.close();
  }
}

/** The yargs definitions of `show`, `init` and `status`; `setCode` receives the exit code. */
export function projectCommands(io: CliIo, setCode: (code: number) => void): CommandModule[] {
  return [
    {
      command: "show <planfile>",
      describe:
        "Show a saved plan (carte plan --out) in text, Markdown or JSON, without calling the platform",
      builder: (y: Argv) =>
        y
          .positional("planfile", { type: "string", describe: "A plan saved with `carte plan --out`" })
          .option("format", {
            choices: ["text", "json", "markdown"] as const,
            default: "text" as const,
            describe: "text for people, json for machines (docs/plan-format.md), markdown for pull requests",
          })
          .option("json", { type: "boolean", default: false, describe: "Same as --format json" })
          .option("show-calls", SHOW_CALLS_OPTION),
      handler: async (args) => {
        const a = args as unknown as {
          planfile: string;
          format: "text" | "json" | "markdown";
          json: boolean;
          color: boolean | undefined;
          "show-calls": boolean;
        };
        setCode(
          await runShow(
            {
              file: a.planfile,
              format: a.json ? "json" : a.format,
              color: a.color,
              showCalls: a["show-calls"],
            },
            io,
          ),
        );
      },
    },
    {
      command: "init [dir]",
      describe: "Write a minimal project (carte.yaml, a catalog, a store, .gitignore) that editors validate",
      builder: (y: Argv) =>
        y
          .positional("dir", { type: "string", default: ".", describe: "Folder of the new project" })
          .option("currency", {
            type: "string",
            describe: "ISO 4217 code of the prices, e.g. COP, BRL, MXN (default USD)",
          })
          .option("countries", {
            type: "string",
            describe: "A platform per country, e.g. CO,BR, each in its currency and language",
          })
          // The project goes to the folder given (carte.yaml in it): the global -c says nothing here,
          // so init neither lists it nor lets it pass as if it had been followed.
          .option("config", { type: "string", hidden: true, default: undefined })
          .check((a) => {
            if (a.config !== undefined) throw new CommandLineError(INIT_HAS_NO_CONFIG);
            return true;
          }),
      handler: async (args) => {
        const a = args as unknown as { dir: string; currency?: string; countries?: string | string[] };
        setCode(
          await runInit(
            {
              dir: a.dir,
              ...(a.currency === undefined ? {} : { currency: a.currency }),
              ...(a.countries === undefined ? {} : { countries: [a.countries].flat() }),
            },
            io,
          ),
        );
      },
    },
    {
      command: "status",
      describe:
        "List the client's stores on the platform and the file that manages each (unmanaged, missing)",
      builder: (y: Argv) =>
        platformFlags(y).option("json", {
          type: "boolean",
          default: false,
          describe: "Print the status as JSON",
        }),
      handler: async (args) => {
        const a = args as unknown as { config: string; json: boolean };
        setCode(
          await runStatus(
            { config: a.config, json: a.json, ...platformChoice(args as { platform?: unknown }) },
            io,
          ),
        );
      },
    },
  ];
}
