/**
 * Loading a carte project: read carte.yaml, find and read the store and catalog files, validate each
 * against its schema, check the rules between them, and resolve the desired state. Every problem of
 * every file is collected before anything is thrown.
 */

import type { KindName } from "../kinds/types.js";
import type { Ownership } from "../model.js";
import { DEFAULT_SAFETY, type SafetyPolicy } from "../plan/safety.js";
import { readFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { ConfigError, InternalError } from "../errors.js";
import type { ConfigProblem } from "../errors.js";
import type { CatalogFile, ProjectFile, StoreFile } from "../generated/config.js";
import type { DesiredState } from "../model.js";
import { checkCatalog, checkCatalogNames, checkStore } from "./check.js";
import type { CatalogIndex, StoreRegistry } from "./check.js";
import { globFiles, hasMagic } from "./glob.js";
import { resolveDesired } from "./resolve.js";
import type { ResolvableStore } from "./resolve.js";
import { validateFile } from "./validate.js";
import type { FileKind } from "./validate.js";
import { locate, parseYaml, toPointer } from "./yaml.js";
import type { YamlFile } from "./yaml.js";

/**
 * Starting pace against a configured platform, in requests per second. The platform publishes no
 * number (platform notes, "Limits"); the client halves its pace on 429 and recovers slowly.
 */
export const DEFAULT_REQUESTS_PER_SECOND = 50;

/** Processing delay of the embedded emulator when carte.yaml does not set one, in milliseconds. */
export const DEFAULT_APPLY_DELAY_MS = 50;

/** A loaded, valid project. */
export interface LoadedProject {
  /** Absolute path of carte.yaml. */
  configFile: string;
  /** Absolute path of the folder of carte.yaml; file patterns are relative to it. */
  root: string;
  /**
   * The platform to talk to, `base_url` without trailing slashes; `undefined` when carte.yaml has no
   * `platform:` section, meaning carte runs its embedded emulator.
   */
  platform: { baseUrl: string; requestsPerSecond: number } | undefined;
  /** Options of the embedded emulator; `applyDelayMs` defaults to {@link DEFAULT_APPLY_DELAY_MS}. */
  emulator: { applyDelayMs: number };
  /** Ownership per kind (carte.yaml `ownership:`); kinds not named keep their documented default. */
  ownership: Partial<Record<KindName, Ownership>>;
  /** Settings of the safety guards (carte.yaml `safety:`), defaults filled. */
  safety: SafetyPolicy;
  /** The desired state of every store, keyed by integration id, in the order of the store files. */
  desired: DesiredState;
  /** Every file read (carte.yaml, then catalogs, then stores), relative to the working directory. */
  files: string[];
}

/** A file read and parsed. */
interface ReadFile {
  parsed: YamlFile;
}

/** The path shown to the user: relative to the working directory when that is shorter. */
function display(absolute: string): string {
  const rel = relative(process.cwd(), absolute);
  return rel === "" ? absolute : rel;
}

async function readAndValidate(
  absolute: string,
  kind: FileKind,
  problems: ConfigProblem[],
): Promise<ReadFile> {
  const file = display(absolute);
  let text: string;
  try {
    text = await readFile(absolute, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT" ? "the file does not exist" : `cannot read the file (${code ?? String(err)})`;
    problems.push({ file, line: 0, col: 0, pointer: "", message: why });
    return { parsed: parseYaml(file, "").parsed };
  }
  const { parsed, problems: syntax } = parseYaml(file, text);
  problems.push(...syntax);
  // Validating the half-read value of a file with syntax errors would only add noise.
  const invalid = syntax.length > 0 ? [] : validateFile(parsed, kind);
  problems.push(...invalid);
  return { parsed };
}

/**
 * Expands the `stores:` or `catalogs:` entry of carte.yaml into absolute file paths, in order, without
 * duplicates. A pattern that matches nothing is fine; a plain file name that does not exist is a problem.
 */
async function expand(
  project: YamlFile,
  key: "stores" | "catalogs",
  root: string,
  problems: ConfigProblem[],
): Promise<string[]> {
  const value = (project.data as Record<string, unknown> | null)?.[key];
  const entries: { pattern: string; segments: (string | number)[] }[] =
    typeof value === "string"
      ? [{ pattern: value, segments: [key] }]
      : Array.isArray(value)
        ? value.flatMap((v, i) => (typeof v === "string" ? [{ pattern: v, segments: [key, i] }] : []))
        : [];
  const out: string[] = [];
  for (const { pattern, segments } of entries) {
    if (pattern === "") continue; // the schema reports it
    const files = await globFiles(pattern, root);
    if (files.length === 0 && !hasMagic(pattern)) {
      const pointer = toPointer(segments);
      const { line, col } = locate(project, pointer);
      problems.push({
        file: project.file,
        line,
        col,
        pointer,
        message: `${key}: file "${pattern}" does not exist (looked for ${display(resolve(root, pattern))})`,
      });
    }
    for (const f of files) if (!out.includes(f)) out.push(f);
  }
  return out;
}

/**
 * Loads a carte project.
 *
 * @param configPath - path of carte.yaml, absolute or relative to the working directory.
 * @returns the project with its desired state.
 * @throws {@link ConfigError} with every problem of every file (YAML syntax, schema, references between
 *   files, duplicates), each located as `file:line:col` with file names relative to the working
 *   directory. Nothing else is thrown for bad input.
 */
export async function loadProject(configPath: string): Promise<LoadedProject> {
  const configFile = resolve(configPath);
  const root = dirname(configFile);
  const problems: ConfigProblem[] = [];

  const project = await readAndValidate(configFile, "project", problems);
  const projectData = project.parsed.data;
  if (projectData === null || typeof projectData !== "object" || Array.isArray(projectData)) {
    if (problems.length === 0)
      problems.push({
        file: project.parsed.file,
        line: 1,
        col: 1,
        pointer: "",
        message: "carte.yaml is empty",
      });
    throw new ConfigError(problems);
  }

  const catalogPaths = await expand(project.parsed, "catalogs", root, problems);
  const storePaths = await expand(project.parsed, "stores", root, problems);

  const catalogFiles: ReadFile[] = [];
  for (const path of catalogPaths) catalogFiles.push(await readAndValidate(path, "catalog", problems));
  const storeFiles: ReadFile[] = [];
  for (const path of storePaths) storeFiles.push(await readAndValidate(path, "store", problems));

  // Rules between SKUs and files, on every file that could be parsed.
  const indexes: CatalogIndex[] = catalogFiles.map((c) => checkCatalog(c.parsed, problems));
  const catalogs = checkCatalogNames(indexes, problems);
  const registry: StoreRegistry = { ids: new Map(), integrationIds: new Map() };
  for (const s of storeFiles) checkStore(s.parsed, catalogs, registry, problems);

  if (problems.length > 0) throw new ConfigError(problems);

  const catalogByName = new Map<string, CatalogFile>();
  indexes.forEach((index, i) => {
    const file = catalogFiles[i];
    if (file && !catalogByName.has(index.name))
      catalogByName.set(index.name, file.parsed.data as CatalogFile);
  });
  const resolvable: ResolvableStore[] = storeFiles.map((s) => {
    const store = s.parsed.data as StoreFile;
    const catalog = catalogByName.get(store.catalog);
    // checkStore reported any unknown catalog, and problems stop us above.
    if (!catalog)
      throw new InternalError(`${s.parsed.file}: catalog ${store.catalog} vanished after the checks`);
    return { store, catalog };
  });

  const config = projectData as ProjectFile;
  return {
    configFile,
    root,
    platform: config.platform
      ? {
          baseUrl: config.platform.base_url.replace(/\/+$/, ""),
          requestsPerSecond: config.platform.requests_per_second ?? DEFAULT_REQUESTS_PER_SECOND,
        }
      : undefined,
    emulator: { applyDelayMs: config.emulator?.apply_delay_ms ?? DEFAULT_APPLY_DELAY_MS },
    ownership: (config.ownership ?? {}) as Partial<Record<KindName, Ownership>>,
    safety: {
      maxDeletePercent: config.safety?.max_delete_percent ?? DEFAULT_SAFETY.maxDeletePercent,
      maxUpdatePercent: config.safety?.max_update_percent ?? DEFAULT_SAFETY.maxUpdatePercent,
      minExisting: config.safety?.min_existing ?? DEFAULT_SAFETY.minExisting,
      protected: config.safety?.protected ?? DEFAULT_SAFETY.protected,
    },
    desired: resolveDesired(resolvable),
    files: [project, ...catalogFiles, ...storeFiles].map((f) => f.parsed.file),
  };
}
