/**
 * The platforms of a project, one load each: what a command runs when carte.yaml names several
 * platforms (`platforms:`) and the user picked none (docs/configuration.md "Countries").
 */

import { dirname, resolve } from "node:path";
import { ConfigError } from "../errors.js";
import type { ConfigProblem } from "../errors.js";
import { dedupeProblems, isRecord } from "../source/problems.js";
import { parseYaml } from "../source/yaml.js";
import { loadProject, type LoadedProject, type LoadOptions } from "./load.js";
import { insideProject, relativeTo } from "./paths.js";
import { PLATFORM_NAME } from "./project-platforms.js";
import { DEFAULT_MAX_FILE_BYTES, readConfigFile } from "./read.js";

/** carte.yaml's `platforms:` section as written (`undefined` without one), read alone. */
async function platformsSection(configPath: string): Promise<{ file: string; section: unknown }> {
  const configFile = resolve(configPath);
  const shown = relativeTo(process.cwd(), configFile) || configFile;
  const refuse = (message: string, line = 0, col = 0): never => {
    throw new ConfigError([{ file: shown, line, col, pointer: "", message }]);
  };
  // carte.yaml may be a link: it must lead inside its folder, as loadProject requires.
  const self = await insideProject(dirname(configFile), configFile).catch(() => undefined);
  if (!self?.inside)
    refuse(
      self
        ? "carte.yaml leads outside its folder through a symbolic link; it was not read"
        : "cannot resolve where carte.yaml leads (a loop of symbolic links?); it was not read",
    );
  const read = await readConfigFile(configFile, DEFAULT_MAX_FILE_BYTES);
  if (!read.ok) return refuse(read.message, read.line, read.col);
  const { parsed, problems } = parseYaml(shown, read.text);
  if (problems.length > 0) throw new ConfigError(problems);
  const data = parsed.data;
  return {
    file: shown,
    section: isRecord(data) && Object.hasOwn(data, "platforms") ? data.platforms : undefined,
  };
}

/**
 * The names of the platforms carte.yaml declares under `platforms:`, in the order written; `[]` for a
 * project without `platforms:` (one platform: `platform:` or the embedded emulator). Reads carte.yaml
 * alone, without checking the rest of the project.
 *
 * @throws {@link ConfigError} when carte.yaml cannot be read or parsed (located).
 */
export async function readPlatformNames(configPath: string): Promise<string[]> {
  const { section } = await platformsSection(configPath);
  return isRecord(section) ? Object.keys(section).filter((name) => PLATFORM_NAME.test(name)) : [];
}

/** Options of {@link loadEachPlatform}: those of {@link loadProject} but the platform, and the rehearsal. */
export type EachPlatformOptions = Omit<LoadOptions, "platform"> & {
  /** Load each platform's development host and test stores (only the platforms with `development:`). */
  rehearsal?: boolean;
};

/**
 * Loads a project once per platform of carte.yaml `platforms:` (each a scoped load,
 * `LoadOptions.platform`), in the order written; a project without `platforms:` once, with `name`
 * undefined. With `rehearsal`, only the platforms with a `development:` host. The loads share what
 * they parse (`LoadOptions.parsed`): a catalog shared by every country is parsed once.
 *
 * @throws {@link ConfigError} with the problems of every platform's load together, or when a rehearsal
 *   is asked of a project none of whose platforms has a development host.
 */
export async function loadEachPlatform(
  configPath: string,
  options: EachPlatformOptions = {},
): Promise<{ name: string | undefined; project: LoadedProject }[]> {
  const { rehearsal, ...load } = options;
  const { file, section } = await platformsSection(configPath);
  const names = isRecord(section) ? Object.keys(section).filter((name) => PLATFORM_NAME.test(name)) : [];
  const chosen =
    rehearsal === true
      ? names.filter(
          (name) => isRecord(section) && isRecord(section[name]) && isRecord(section[name].development),
        )
      : names;
  if (rehearsal === true && chosen.length === 0)
    throw new ConfigError([
      {
        file,
        line: 0,
        col: 0,
        pointer: "/platforms",
        message:
          "a rehearsal runs on a platform's development host, and no platform of carte.yaml platforms: has development: (add one under a platform, with its test stores)",
      },
    ]);
  if (names.length === 0) return [{ name: undefined, project: await loadProject(configPath, load) }];
  const shared: LoadOptions = { ...load, parsed: load.parsed ?? new Map() };
  const out: { name: string; project: LoadedProject }[] = [];
  const problems: ConfigProblem[] = [];
  for (const name of chosen) {
    try {
      out.push({
        name,
        project: await loadProject(configPath, {
          ...shared,
          platform: { name, rehearsal: rehearsal === true },
        }),
      });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(...err.problems);
    }
  }
  if (problems.length > 0) throw new ConfigError(dedupeProblems(problems));
  return out;
}
