/**
 * A run of every platform of a project, one after the other: a chain in several countries names one
 * platform per country in carte.yaml `platforms:` (src/config/platforms.ts), each with its own hosts,
 * credentials, currency and stores. {@link runEachPlatform} runs the one plan/apply path
 * ({@link runCarte}) for each platform asked (all of them by default), so that the CLI and the GitHub
 * Action go through the platforms alike. A platform that fails (its platform down, its credentials
 * missing) has its error in its own result; the others still plan and apply. The exit code is the
 * worst of theirs ({@link worstExitCode}).
 */

import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { CommandLineError, ExitCode, exitCodeFor, PlanFileError } from "../errors.js";
import { readPlanFile } from "../plan/file.js";
import { quote } from "../source/quote.js";
import { didYouMean } from "../suggest.js";
import { runCarte } from "./run.js";
import type { RunHooks, RunRequest, RunResult } from "./request.js";

/** One platform's run of {@link runEachPlatform}. */
export interface PlatformRun {
  /** The platform's name in carte.yaml `platforms:`; `undefined` for a project of one platform. */
  name: string | undefined;
  /** Its run's result: its plan, report, calls, exit code, or the error that ended it. */
  result: RunResult;
}

/** What {@link runEachPlatform} gives back. */
export interface EachPlatformResult {
  /**
   * One run per platform, in the order of carte.yaml `platforms:` (or of `--platform`); one with name
   * `undefined` for a project of one platform. Empty only when the run could not start (`error`).
   */
  runs: PlatformRun[];
  /** The worst exit code of the runs ({@link worstExitCode}), or that of `error`. */
  exitCode: number;
  /**
   * Why no platform ran: carte.yaml unreadable, an unknown `--platform`, a saved plan or `--base`
   * asked of several platforms. Never holds a secret.
   */
  error?: unknown;
}

/** A request of {@link runEachPlatform}: a run's, with the platforms to run in place of one. */
export type EachPlatformRequest = RunRequest & {
  /**
   * `--platform NAME` (repeatable): these platforms of carte.yaml `platforms:` only, in this order.
   * Absent or empty: every platform (with `rehearsal`, every one that has a development host).
   */
  platforms?: readonly string[] | undefined;
};

/**
 * How bad an exit code is, for {@link worstExitCode}: no changes, then changes pending, then a plan the
 * safety guards refuse, then an error (a platform down: nothing of it is known).
 */
function severity(code: number): number {
  if (code === ExitCode.ok) return 0;
  if (code === ExitCode.changes) return 1;
  if (code === ExitCode.unsafe) return 2;
  return 3;
}

/**
 * The worst of the platforms' exit codes: 1 (an error) over 3 (refused by a safety guard) over 2
 * (changes pending) over 0. A run of several platforms succeeds only when each does.
 */
export function worstExitCode(codes: readonly number[]): number {
  let worst: number = ExitCode.ok;
  for (const c of codes) if (severity(c) > severity(worst)) worst = c;
  return worst;
}

/** Most bytes of carte.yaml read for its platforms' names; a larger file is left to the loader. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/**
 * The names of carte.yaml `platforms:`, in the order written (with `rehearsal`, those with a
 * `development:` section only); `[]` without `platforms:`, or when the file does not parse (the
 * loader then says where it is wrong).
 */
export async function platformNames(config: string, rehearsal: boolean): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(config, "utf8");
  } catch {
    return [];
  }
  if (text.length > MAX_CONFIG_BYTES) return [];
  let doc: unknown;
  try {
    doc = parse(text, { maxAliasCount: 100 });
  } catch {
    return [];
  }
  const isRecord = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isRecord(doc) || !Object.hasOwn(doc, "platforms") || !isRecord(doc.platforms)) return [];
  const platforms = doc.platforms;
  return Object.keys(platforms).filter((name) => {
    if (!/^[a-z][a-z0-9-]{0,30}$/.test(name)) return false;
    const spec = platforms[name];
    return !rehearsal || (isRecord(spec) && Object.hasOwn(spec, "development"));
  });
}

/**
 * The platforms a request runs, in order: those asked, each checked against carte.yaml's, or every
 * one; `[undefined]` for a project of one platform.
 *
 * @throws {@link CommandLineError} for a platform carte.yaml does not name (with the closest name), a
 *   `--platform` of a project without `platforms:`, a saved plan or `--base` asked of several platforms.
 */
async function platformsToRun(request: EachPlatformRequest): Promise<(string | undefined)[]> {
  const known = await platformNames(request.config, false);
  const asked = [...new Set(request.platforms ?? [])];
  if (known.length === 0) {
    if (asked.length > 0) {
      throw new CommandLineError(
        `--platform ${quote(asked[0]!, 40)}: ${request.config} names no platforms (carte.yaml platforms:); run without --platform`,
      );
    }
    return [undefined];
  }
  for (const name of asked) {
    if (!known.includes(name)) {
      throw new CommandLineError(
        `--platform ${quote(name, 40)}: carte.yaml names no such platform` +
          `${didYouMean(name, known, (n) => quote(n, 40))}; its platforms are ${known.map((n) => quote(n, 40)).join(", ")}`,
      );
    }
  }
  const names =
    asked.length > 0 ? asked : request.rehearsal ? await platformNames(request.config, true) : known;
  if (names.length === 0) {
    throw new CommandLineError(
      "--rehearsal: no platform of carte.yaml platforms: has a development: section to rehearse on",
    );
  }
  if (names.length > 1) oneForSaved(request);
  return names;
}

/**
 * A saved plan, a plan to save and a comparison with a base are of one platform: a request of several
 * is refused, saying how to name one.
 */
function oneForSaved(request: EachPlatformRequest): void {
  const what =
    request.command === "apply" && request.planFile !== undefined
      ? "a saved plan is applied to one platform"
      : request.command === "plan" && request.base !== undefined
        ? "--base compares the plan of one platform"
        : undefined;
  if (what !== undefined) {
    throw new CommandLineError(`${what}: name it with --platform NAME (carte.yaml names several platforms)`);
  }
}

/**
 * `carte apply FILE` without `--platform`: the platform (and host) the saved plan was made for, which
 * the run then applies it to; a plan of no platform is refused for a project of several.
 */
async function savedPlanPlatform(
  request: EachPlatformRequest,
): Promise<{ name: string; rehearsal: boolean } | undefined> {
  if (request.command !== "apply" || request.planFile === undefined) return undefined;
  if ((request.platforms ?? []).length > 0) return undefined;
  const known = await platformNames(request.config, false);
  if (known.length === 0) return undefined;
  const saved = await readPlanFile(request.planFile);
  if (saved.platform === undefined) {
    throw new CommandLineError(
      `${request.planFile} is of no platform of carte.yaml platforms:; save the plan with carte plan --platform NAME --out FILE`,
    );
  }
  if (typeof saved.platform !== "string") {
    throw new PlanFileError("the saved plan's platform is not a platform name; save the plan again");
  }
  return { name: saved.platform, rehearsal: saved.rehearsal === true };
}

/**
 * Runs `plan` or `apply` ({@link runCarte}) on each platform of carte.yaml `platforms:` the request
 * asks (`platforms`; every one by default, with `rehearsal` every one with a development host), one
 * after the other, and once for a project of one platform. `carte apply FILE` without `platforms`
 * goes to the platform the saved plan was made for. Never throws: a platform whose run fails (its
 * platform down, its credentials missing, its files wrong) has the error in its own result, and the
 * next platform still runs; what keeps every platform from running is in {@link EachPlatformResult.error}.
 *
 * @param hooks - the hooks of each platform's run, given its name (`undefined`: a project of one platform).
 */
export async function runEachPlatform(
  request: EachPlatformRequest,
  hooks: RunHooks | ((platform: string | undefined) => RunHooks) = {},
): Promise<EachPlatformResult> {
  let names: (string | undefined)[];
  let rehearsal = request.rehearsal;
  try {
    const saved = await savedPlanPlatform(request);
    if (saved) rehearsal = saved.rehearsal || rehearsal;
    names = saved ? [saved.name] : await platformsToRun(request);
  } catch (err) {
    return { runs: [], exitCode: exitCodeFor(err), error: err };
  }
  const runs: PlatformRun[] = [];
  for (const name of names) {
    const { platforms: _asked, ...one } = request;
    const result = await runCarte(
      { ...one, platform: name, rehearsal },
      typeof hooks === "function" ? hooks(name) : hooks,
    );
    runs.push({ name, result });
  }
  return { runs, exitCode: worstExitCode(runs.map((r) => r.result.exitCode)) };
}
