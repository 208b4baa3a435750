/**
 * The commands across the platforms of carte.yaml `platforms:` (one per country): `--platform NAME`
 * (repeatable) and `--rehearsal` choose them, and a project of several runs each in turn, in its own
 * section headed by the platform, its country and currency, and its target (src/render/platform-heading.ts).
 * A platform that fails has the error in its section; the others are still shown; the exit code is
 * the worst (src/run/each-platform.ts). A project without `platforms:` runs as ever, without heading.
 */

import type { Argv } from "yargs";
import type { LoadedProject } from "../config/index.js";
import { exitCodeFor } from "../errors.js";
import { renderError } from "../render/error.js";
import { platformHeadingText } from "../render/platform-heading.js";
import { choosePlatforms, worstExitCode } from "../run/each-platform.js";
import { platformLoad } from "../run/step-load.js";
import { describeTarget, runTarget } from "../run/session.js";
import { escapeTerminal } from "../render/escape.js";
import type { CliIo } from "./io.js";

/** `--platform NAME` (repeatable) and `--rehearsal`, as parsed. */
export interface PlatformChoice {
  /** The platforms asked; empty: every one. */
  platforms?: string[] | undefined;
  /** `--rehearsal`: the development hosts, with their test stores. */
  rehearsal?: boolean | undefined;
}

/** Adds `--platform` and `--rehearsal` to a command. */
export function platformFlags<T>(y: Argv<T>) {
  return y
    .option("platform", {
      type: "string",
      array: true,
      default: [] as string[],
      describe:
        "Only this platform (country) of carte.yaml platforms: (repeatable); default: each platform in turn",
    })
    .option("rehearsal", {
      type: "boolean",
      default: false,
      describe:
        "Run on the platforms' development hosts, with the test stores of carte.yaml platforms: NAME: development: stores:",
    });
}

/** `--platform` and `--rehearsal` of parsed arguments. */
export function platformChoice(a: { platform?: unknown; rehearsal?: unknown }): PlatformChoice {
  const platforms = Array.isArray(a.platform) ? a.platform.map((p) => String(p)) : [];
  return { platforms, rehearsal: a.rehearsal === true };
}

/** The load scope of one platform (`LoadOptions.platform`), or none. */
export type PlatformScope = ReturnType<typeof platformLoad>;

/** Heads a platform's section once its project is loaded (with its target, when it has one). */
export type SectionHeading = (project: LoadedProject, target?: string) => void;

/**
 * Runs `run` once per platform chosen ({@link choosePlatforms}), each in its own section of standard
 * output: `run` calls the heading it is given once its platform's project is loaded; an error it throws
 * is shown in its section (with the platform's name as heading when it did not get that far) and the
 * next platform still runs. One platform asked and failing: its error is thrown, as a command's. A
 * project without `platforms:`: `run` once, without heading, its error thrown.
 *
 * @returns the worst exit code of the platforms.
 */
export async function eachPlatformSection(
  config: string,
  choice: PlatformChoice,
  io: CliIo,
  run: (scope: PlatformScope, name: string | undefined, heading: SectionHeading) => Promise<number>,
): Promise<number> {
  const names = await choosePlatforms(config, choice.platforms, choice.rehearsal);
  if (names.length === 1 && names[0] === undefined) {
    return run(platformLoad({ rehearsal: choice.rehearsal }), undefined, () => {});
  }
  const codes: number[] = [];
  const failed: string[] = [];
  for (const [i, name] of (names as string[]).entries()) {
    let headed = false;
    const heading: SectionHeading = (project, target) => {
      headed = true;
      const where = target ?? describeTarget(runTarget(project));
      io.out(platformHeadingText({ name, ...sectionOf(project), target: where }, i === 0));
    };
    try {
      codes.push(await run(platformLoad({ platform: name, rehearsal: choice.rehearsal }), name, heading));
    } catch (err) {
      if (names.length === 1) throw err;
      if (!headed) io.out(platformHeadingText({ name }, i === 0));
      io.out(`${renderError(err)}\n`);
      codes.push(exitCodeFor(err));
      failed.push(name);
    }
  }
  if (failed.length > 0) io.err(`${failedPlatforms(failed, names.length)}\n`);
  return worstExitCode(codes);
}

/** What a section's heading says of its loaded project. */
export function sectionOf(project: LoadedProject): {
  platformOf?: LoadedProject["platformOf"];
  currency?: string;
} {
  return {
    ...(project.platformOf ? { platformOf: project.platformOf } : {}),
    ...(project.currency !== undefined ? { currency: project.currency.code } : {}),
  };
}

/**
 * The line a run of several platforms ends with on standard error when some failed: which, and that
 * the others ran (their sections say what they did).
 */
export function failedPlatforms(failed: readonly string[], of: number): string {
  const which = failed.join(", ");
  return escapeTerminal(
    `Error: ${failed.length === 1 ? "platform" : "platforms"} ${which} failed (${failed.length === 1 ? "its section says" : "their sections say"} why)` +
      (of > failed.length ? `; the other ${of - failed.length === 1 ? "platform" : "platforms"} ran.` : "."),
  );
}
