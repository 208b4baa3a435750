/**
 * The platform an imported project plans against. A project read from a platform address gets the
 * same `platform:` in its carte.yaml (src/import/index.ts `projectFor`). The embedded emulator has no
 * address: it keeps its state in `.carte/emulator-state.json` next to the carte.yaml that runs it, and
 * carte.yaml cannot point at another project's folder (every path stays inside the project,
 * docs/security.md). So an import from the embedded emulator copies that state into the new project's
 * own `.carte/`: the new project starts from the platform exactly as its files were read, and `carte
 * plan` there shows no changes. From then on the two emulators are separate (docs/import.md).
 */

import { lstat, readFile } from "node:fs/promises";
import path from "node:path";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, type AtomicWriteOptions } from "../atomic.js";
import { StateFileError } from "../errors.js";
import type { LoadedProject } from "../config/index.js";
import { API_GROUPS } from "../platform/routes.js";

/** Where the embedded emulator of a project keeps its state (src/run/session.ts), relative to its folder. */
export const EMULATOR_STATE = ".carte/emulator-state.json";

/**
 * Where the embedded emulator of a platform of carte.yaml `platforms:` keeps its state, relative to the
 * project's folder (src/run/session.ts `embeddedStateDir`): each platform has its own.
 */
export function platformEmulatorState(name: string): string {
  return `.carte/platforms/${name}/emulator-state.json`;
}

/**
 * Whether two projects plan against the same platform: the same address for every API group, or the
 * embedded emulator of the same folder.
 */
export function samePlatform(a: LoadedProject, b: LoadedProject): boolean {
  if (a.platform || b.platform) {
    const [x, y] = [a.platform?.hosts, b.platform?.hosts];
    return x !== undefined && y !== undefined && API_GROUPS.every((g) => x[g] === y[g]);
  }
  return path.resolve(a.root) === path.resolve(b.root);
}

/** The state file's text, or `undefined` when there is none; a link or a folder in its place is refused. */
async function readState(file: string): Promise<string | undefined> {
  let info;
  try {
    info = await lstat(file);
  } catch {
    return undefined;
  }
  if (!info.isFile()) {
    throw new StateFileError(
      `${path.relative(process.cwd(), file) || file} is not a regular file (a link or a folder): ` +
        "the embedded emulator's state is never read or written through one; remove it",
    );
  }
  return readFile(file, "utf8");
}

/**
 * What copying the embedded emulator's state of `from` (a project folder) into `to` would do:
 * `"create"`, `"unchanged"` (the same state is there), or `"clash"` (another state is there, which
 * carte import never overwrites).
 *
 * @param state - the state file, relative to both folders: {@link EMULATOR_STATE}, or a platform's
 *   ({@link platformEmulatorState}).
 * @throws {@link StateFileError} when `from` has no state (nothing was read) or a state path is a link.
 */
export async function stateCopyPlan(
  from: string,
  to: string,
  state: string = EMULATOR_STATE,
): Promise<"create" | "unchanged" | "clash"> {
  return (await readStateCopy(from, to, state)).plan;
}

/** {@link stateCopyPlan}, with the state of `from` as read. */
async function readStateCopy(
  from: string,
  to: string,
  state: string,
): Promise<{ plan: "create" | "unchanged" | "clash"; source: string }> {
  const source = await readState(path.join(from, state));
  if (source === undefined) {
    throw new StateFileError(
      `the embedded emulator kept no state in ${path.relative(process.cwd(), path.join(from, state))}`,
    );
  }
  await checkStateFolder(to, state);
  const there = await readState(path.join(to, state));
  if (there === undefined) return { plan: "create", source };
  return { plan: there === source ? "unchanged" : "clash", source };
}

/** The folder `.carte` of `to` must be a real folder when it exists: a link would lead the copy elsewhere. */
async function checkStateFolder(to: string, state: string): Promise<void> {
  const dir = path.join(to, path.dirname(state));
  const info = await lstat(dir).catch(() => undefined);
  if (info && !info.isDirectory()) {
    throw new StateFileError(
      `${path.relative(process.cwd(), dir) || dir} is a link or a file; the embedded emulator keeps its ` +
        "state in a folder there: remove it (carte creates the folder)",
    );
  }
}

/** A file an import writes with the imported ones, in the same all-or-none set, with its own rules. */
export interface CompanionFile {
  /** Its path relative to the output folder. */
  path: string;
  text: string;
  /** How it is written: its mode, the mode of its folders, and what carte was doing, for messages. */
  options: Pick<AtomicWriteOptions, "purpose" | "mode" | "dirMode">;
}

/**
 * The copy of the embedded emulator's state of project folder `from` into project folder `to`, for the
 * import's set of files (src/import/index.ts `writeImport`): written with the imported files, before
 * carte.yaml, so that a copy that fails (a full disk) takes the imported files back with it, and a
 * carte.yaml is never left planning against a state that is not there. Mode 0600 in a 0700 folder (it
 * holds the client secret as a salted hash, and sealed webhook secrets), never over an existing file.
 *
 * @param state - the state file, relative to both folders ({@link stateCopyPlan}).
 * @returns the file to write, or `undefined` when the same state is there already.
 * @throws {@link StateFileError} when another state is there, or a state path is a link.
 */
export async function emulatorStateFile(
  from: string,
  to: string,
  state: string = EMULATOR_STATE,
): Promise<CompanionFile | undefined> {
  const { plan, source } = await readStateCopy(from, to, state);
  if (plan === "unchanged") return undefined;
  if (plan === "clash") {
    throw new StateFileError(
      `${path.relative(process.cwd(), path.join(to, state))} exists with another state: carte import never overwrites a file`,
    );
  }
  return {
    path: state,
    text: source,
    options: {
      purpose: "copy the embedded emulator's state to",
      mode: PRIVATE_FILE_MODE,
      dirMode: PRIVATE_DIR_MODE,
    },
  };
}
