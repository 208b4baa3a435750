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
import { readPlatformNames } from "../config/index.js";
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

/** Where a platform's run comes among those of {@link runEachPlatform}: its index, of how many. */
export interface RunPlace {
  index: number;
  of: number;
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
  /** The plan is saved to a file (`carte plan --out`): a plan of one platform only. */
  saves?: boolean | undefined;
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

/** Most bytes of carte.yaml read for its platforms' development hosts; a larger file is left to the loader. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/**
 * The platforms of carte.yaml `platforms:` that have a development host (`development:`), among
 * `names`, in their order: those a rehearsal without `--platform` goes through. A file that does not
 * parse here has none (the loader then says where it is wrong).
 */
async function withDevelopment(config: string, names: readonly string[]): Promise<string[]> {
  let doc: unknown;
  try {
    const text = await readFile(config, "utf8");
    if (text.length > MAX_CONFIG_BYTES) return [];
    doc = parse(text, { maxAliasCount: 100 });
  } catch {
    return [];
  }
  const isRecord = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isRecord(doc) || !Object.hasOwn(doc, "platforms") || !isRecord(doc.platforms)) return [];
  const platforms = doc.platforms;
  return names.filter((name) => {
    const spec = Object.hasOwn(platforms, name) ? platforms[name] : undefined;
    return isRecord(spec) && Object.hasOwn(spec, "development") && isRecord(spec.development);
  });
}

/**
 * The platforms a command goes through, in order: those asked (`--platform`), each checked against
 * carte.yaml's, or every one (with `rehearsal`, every one with a development host); `[undefined]` for
 * a project of one platform (its run as ever).
 *
 * @throws {@link CommandLineError} for a platform carte.yaml does not name (with the closest name), a
 *   `--platform` of a project without `platforms:`, a rehearsal with no development host.
 */
export async function choosePlatforms(
  config: string,
  asked: readonly string[] | undefined,
  rehearsal: boolean | undefined,
): Promise<(string | undefined)[]> {
  const known = await readPlatformNames(config);
  const wanted = [...new Set(asked ?? [])];
  if (known.length === 0) {
    if (wanted.length > 0) {
      throw new CommandLineError(
        `--platform ${quote(wanted[0]!, 40)}: ${config} names no platforms (carte.yaml platforms:); run without --platform`,
      );
    }
    return [undefined];
  }
  for (const name of wanted) {
    if (!known.includes(name)) {
      throw new CommandLineError(
        `--platform ${quote(name, 40)}: carte.yaml names no such platform` +
          `${didYouMean(name, known, (n) => quote(n, 40))}; its platforms are ${known.map((n) => quote(n, 40)).join(", ")}`,
      );
    }
  }
  const names = wanted.length > 0 ? wanted : rehearsal ? await withDevelopment(config, known) : known;
  if (names.length === 0) {
    throw new CommandLineError(
      "--rehearsal: no platform of carte.yaml platforms: has a development: section to rehearse on",
    );
  }
  return names;
}

/**
 * The platforms a request runs ({@link choosePlatforms}).
 *
 * @throws {@link CommandLineError} as {@link choosePlatforms}, and for a saved plan, a plan to save or
 *   `--base` asked of several platforms.
 */
async function platformsToRun(request: EachPlatformRequest): Promise<(string | undefined)[]> {
  const names = await choosePlatforms(request.config, request.platforms, request.rehearsal);
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
      : request.saves
        ? "--out saves the plan of one platform"
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
  if ((await readPlatformNames(request.config)).length === 0) return undefined;
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
 * next platform still runs; what keeps every platform from running is in {@link EachPlatformResult.error}
 * (`after` aside, which may throw).
 *
 * @param hooks - the hooks of each platform's run, given its name (`undefined`: a project of one
 *   platform) and its place among the runs.
 * @param after - called with each platform's run as it ends, before the next starts (an adapter shows
 *   its section's end there); an error it throws ends the whole run (it is thrown).
 */
export async function runEachPlatform(
  request: EachPlatformRequest,
  hooks: RunHooks | ((platform: string | undefined, place: RunPlace) => RunHooks) = {},
  after?: (run: PlatformRun, place: RunPlace) => void | Promise<void>,
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
  for (const [index, name] of names.entries()) {
    const { platforms: _asked, saves: _saves, ...one } = request;
    const place = { index, of: names.length };
    const result = await runCarte(
      { ...one, platform: name, rehearsal },
      typeof hooks === "function" ? hooks(name, place) : hooks,
    );
    const run = { name, result };
    runs.push(run);
    await after?.(run, place);
  }
  return { runs, exitCode: worstExitCode(runs.map((r) => r.result.exitCode)) };
}
