/**
 * Loading a carte project: read carte.yaml, find and read the catalog, group and store files and the
 * shared settings files they include, validate each against its schema, check the rules between them,
 * merge each store's settings from the layers it inherits, and resolve the desired state. Every problem
 * of every file is collected before anything is thrown.
 */

import type { KindName } from "../kinds/registry.js";
import type { Ownership } from "../model.js";
import { DEFAULT_SAFETY, type SafetyPolicy } from "../plan/safety.js";
import { access, readFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { ConfigError, InternalError } from "../errors.js";
import type { ConfigProblem } from "../errors.js";
import type { CatalogFile, ProjectFile, StoreFile } from "../generated/config.js";
import type { DesiredState } from "../model.js";
import { checkCatalog, checkCatalogNames, checkGroupNames, checkStore, checkStoreGroup } from "./check.js";
import type { CatalogIndex, StoreRegistry } from "./check.js";
import { globFiles, hasMagic } from "./glob.js";
import { dedupeProblems, isRecord, report } from "./report.js";
import { resolveDesired } from "./resolve.js";
import type { ResolvableStore } from "./resolve.js";
import { settingsSections } from "../kinds/registry.js";
import { currencyOf, type Currency } from "../money.js";
import { mergeOverrides, OverridesChecker, plainOverrides, readOverrides } from "./overrides.js";
import type { MergedOverrides, OverridesLayer } from "./overrides.js";
import type { StoreSources } from "./explain.js";
import { mergeSettings, readClient, readSettings } from "./settings.js";
import type { SettingsLayer } from "./settings.js";
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
  /** The currency of every price (carte.yaml `currency:`); absent when it declares none. */
  currency?: Currency;
  /**
   * The catalogs by name, as written (what `carte import --merge` tries new stores against), and the
   * file each is written in, relative to the working directory.
   */
  catalogs: ReadonlyMap<string, { catalog: CatalogFile; file: string }>;
  /**
   * With `{ explain: true }`: per store key, what `carte explain` needs to tell where each value comes
   * from (src/config/explain.ts).
   */
  sources?: Map<string, StoreSources>;
  /**
   * The desired state of every store, keyed by integration id, in the order of the store files, and the
   * client-level settings (carte.yaml `client:`) when there are any.
   */
  desired: DesiredState;
  /**
   * Absolute path of the file that receives webhook secrets (carte.yaml `secrets_file:`, relative to
   * carte.yaml); absent when not set. Whoever writes it must create it with mode 0600.
   */
  secretsFile?: string;
  /**
   * Every file read (carte.yaml, then catalogs, groups, stores, then included settings files in the
   * order they were first named), relative to the working directory.
   */
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
  key: "stores" | "catalogs" | "groups",
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
 * @param options - `explain`: keep, per store, where each catalog value comes from (`sources`).
 * @returns the project with its desired state.
 * @throws {@link ConfigError} with every problem of every file (YAML syntax, schema, references between
 *   files, duplicates), each located as `file:line:col` with file names relative to the working
 *   directory. Nothing else is thrown for bad input.
 */
export async function loadProject(
  configPath: string,
  options: { explain?: boolean } = {},
): Promise<LoadedProject> {
  // The kinds' settings sections (hours, holidays, webhooks…), from the registry.
  const sections = settingsSections();
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
  const groupPaths = await expand(project.parsed, "groups", root, problems);
  const storePaths = await expand(project.parsed, "stores", root, problems);

  const catalogFiles: ReadFile[] = [];
  for (const path of catalogPaths) catalogFiles.push(await readAndValidate(path, "catalog", problems));
  const groupFiles: ReadFile[] = [];
  for (const path of groupPaths) groupFiles.push(await readAndValidate(path, "group", problems));
  const storeFiles: ReadFile[] = [];
  for (const path of storePaths) storeFiles.push(await readAndValidate(path, "store", problems));

  // The currency of every price (carte.yaml `currency:`), before any price is read.
  const currency = readCurrency(project.parsed, problems);

  // Rules between SKUs and files, on every file that could be parsed.
  const indexes: CatalogIndex[] = catalogFiles.map((c) => checkCatalog(c.parsed, problems, currency));
  const catalogs = checkCatalogNames(indexes, problems);
  const registry: StoreRegistry = { ids: new Map(), integrationIds: new Map() };
  for (const s of storeFiles) checkStore(s.parsed, catalogs, registry, problems);

  // Settings: the chain's defaults, each group's, each store's, and the files they include.
  const chainLayer = readSettings(
    project.parsed,
    ["defaults"],
    field(projectData, "defaults"),
    problems,
    sections,
  );
  const groups = checkGroupNames(
    groupFiles.map((g) => g.parsed),
    problems,
  );
  const groupLayers = new Map<string, SettingsLayer>();
  for (const [name, parsed] of groups)
    groupLayers.set(
      name,
      readSettings(parsed, ["defaults"], field(parsed.data, "defaults"), problems, sections),
    );
  const storeLayers = storeFiles.map((s) => {
    checkStoreGroup(s.parsed, groups, problems);
    return readSettings(s.parsed, [], s.parsed.data, problems, sections);
  });
  const includes = await readIncludes([chainLayer, ...groupLayers.values(), ...storeLayers], root, problems);

  // Catalog overrides and availability of every layer (carte.yaml, groups, stores, included files).
  const overridesOf = new Map<SettingsLayer, OverridesLayer>();
  const readLayerOverrides = (layer: SettingsLayer, parsed: YamlFile, base: (string | number)[]) => {
    const data = base.length === 0 ? parsed.data : field(parsed.data, String(base[0]));
    const o = readOverrides(parsed, base, data, problems, currency);
    if (o) overridesOf.set(layer, o);
  };
  readLayerOverrides(chainLayer, project.parsed, ["defaults"]);
  for (const [name, parsed] of groups) readLayerOverrides(groupLayers.get(name)!, parsed, ["defaults"]);
  storeLayers.forEach((layer, i) => readLayerOverrides(layer, storeFiles[i]!.parsed, []));
  for (const file of includes.values()) readLayerOverrides(file.layer, file.parsed, []);

  const checker = new OverridesChecker(problems);
  const mergedOverrides: MergedOverrides[] = [];
  const settingsOf = storeLayers.map((layer, i) => {
    const group = field(storeFiles[i]?.parsed.data, "group");
    const groupLayer = typeof group === "string" ? groupLayers.get(group) : undefined;
    const layers = [chainLayer, ...(groupLayer ? [groupLayer] : []), layer].flatMap((l) =>
      withIncludes(l, includes, root, new Set()),
    );
    const merged = mergeOverrides(layers.flatMap((l) => overridesOf.get(l) ?? []));
    mergedOverrides.push(merged);
    const catalogName = field(storeFiles[i]?.parsed.data, "catalog");
    const index = typeof catalogName === "string" ? catalogs.get(catalogName) : undefined;
    if (index) checker.check(merged, index);
    return mergeSettings(layers, problems, sections);
  });
  checker.finish();
  const client = readClient(project.parsed, field(projectData, "client"), problems);

  if (problems.length > 0) throw new ConfigError(dedupeProblems(problems));

  const catalogByName = new Map<string, CatalogFile>();
  const catalogsOut = new Map<string, { catalog: CatalogFile; file: string }>();
  indexes.forEach((index, i) => {
    const file = catalogFiles[i];
    if (file && !catalogByName.has(index.name)) {
      catalogByName.set(index.name, file.parsed.data as CatalogFile);
      catalogsOut.set(index.name, { catalog: file.parsed.data as CatalogFile, file: file.parsed.file });
    }
  });
  const resolvable: ResolvableStore[] = storeFiles.map((s, i) => {
    const store = s.parsed.data as StoreFile;
    const catalog = catalogByName.get(store.catalog);
    // checkStore reported any unknown catalog, and problems stop us above.
    if (!catalog)
      throw new InternalError(`${s.parsed.file}: catalog ${store.catalog} vanished after the checks`);
    return {
      store,
      catalog,
      settings: settingsOf[i] ?? {},
      overrides: plainOverrides(mergedOverrides[i]!),
    };
  });

  let sources: Map<string, StoreSources> | undefined;
  if (options.explain) {
    sources = new Map();
    const parsedByName = new Map<string, YamlFile>();
    indexes.forEach((index, i) => {
      if (!parsedByName.has(index.name)) parsedByName.set(index.name, catalogFiles[i]!.parsed);
    });
    storeFiles.forEach((s, i) => {
      const store = s.parsed.data as StoreFile;
      sources!.set(store.store.integration_id, {
        storeFile: s.parsed,
        catalog: { name: store.catalog, parsed: parsedByName.get(store.catalog)! },
        overrides: mergedOverrides[i]!,
      });
    });
  }

  const config = projectData as ProjectFile;
  return {
    ...(sources ? { sources } : {}),
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
      maxPriceChangePercent: config.safety?.max_price_change_percent ?? DEFAULT_SAFETY.maxPriceChangePercent,
    },
    ...(currency ? { currency } : {}),
    catalogs: catalogsOut,
    desired: resolveDesired(resolvable, client, currency?.code),
    ...(config.secrets_file === undefined ? {} : { secretsFile: resolve(root, config.secrets_file) }),
    files: [project, ...catalogFiles, ...groupFiles, ...storeFiles, ...includes.values()].map(
      (f) => f.parsed.file,
    ),
  };
}

function field(data: unknown, key: string): unknown {
  return isRecord(data) && Object.hasOwn(data, key) ? data[key] : undefined;
}

/**
 * The currency carte.yaml declares (`currency:`), reporting a code that is not ISO 4217; `undefined`
 * when it declares none (or a wrong one: the problem stops the load).
 */
function readCurrency(project: YamlFile, problems: ConfigProblem[]): Currency | undefined {
  const code = field(project.data, "currency");
  if (typeof code !== "string" || !/^[A-Z]{3}$/.test(code)) return undefined; // the schema reports it
  const currency = currencyOf(code);
  if (!currency) {
    const { line, col } = locate(project, "/currency");
    problems.push({
      file: project.file,
      line,
      col,
      pointer: "/currency",
      message: `unknown currency "${code}": write an ISO 4217 code, for example COP, BRL or MXN`,
    });
  }
  return currency;
}

/** A shared settings file named by `include:`, read and checked. */
interface IncludedFile extends ReadFile {
  layer: SettingsLayer;
}

/**
 * Reads every settings file the layers include, and the files those include, each once (keyed by
 * absolute path, in the order first named). Reports, at the `include:` entry: files that do not exist,
 * and include cycles (the entry that closes a cycle, once per cycle).
 */
async function readIncludes(
  layers: readonly SettingsLayer[],
  root: string,
  problems: ConfigProblem[],
): Promise<Map<string, IncludedFile>> {
  const files = new Map<string, IncludedFile>();
  const missing = new Set<string>();
  const pending = [...layers];
  while (pending.length > 0) {
    const layer = pending.shift()!;
    for (const inc of layer.includes) {
      const absolute = resolve(root, inc.path);
      if (files.has(absolute)) continue;
      if (missing.has(absolute) || !(await exists(absolute))) {
        missing.add(absolute);
        report(
          problems,
          inc.site,
          `include: file "${inc.path}" does not exist (looked for ${display(absolute)}); paths are relative to the folder of carte.yaml`,
        );
        continue;
      }
      const read = await readAndValidate(absolute, "settings", problems);
      const included: IncludedFile = {
        ...read,
        layer: readSettings(read.parsed, [], read.parsed.data, problems, settingsSections()),
      };
      files.set(absolute, included);
      pending.push(included.layer);
    }
  }

  // Depth-first over the include graph, white/grey/black, so that each cycle is reported once.
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (layer: SettingsLayer): void => {
    for (const inc of layer.includes) {
      const absolute = resolve(root, inc.path);
      const file = files.get(absolute);
      if (!file) continue;
      if (state.get(absolute) === "visiting") {
        const cycle = [...stack.slice(stack.indexOf(absolute)), absolute].map((f) => relative(root, f));
        report(
          problems,
          inc.site,
          `include cycle: ${cycle.join(" → ")}; a file must not include itself, directly or through others`,
        );
        continue;
      }
      if (state.get(absolute) === "done") continue;
      state.set(absolute, "visiting");
      stack.push(absolute);
      visit(file.layer);
      stack.pop();
      state.set(absolute, "done");
    }
  };
  for (const layer of layers) visit(layer);
  return files;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A layer preceded by the layers of the files it includes, recursively, in order (an included file's
 * own includes come before it). Files already on the way are skipped: cycles are reported elsewhere.
 */
function withIncludes(
  layer: SettingsLayer,
  files: ReadonlyMap<string, IncludedFile>,
  root: string,
  seen: ReadonlySet<string>,
): SettingsLayer[] {
  const before = layer.includes.flatMap((inc) => {
    const absolute = resolve(root, inc.path);
    const file = files.get(absolute);
    if (!file || seen.has(absolute)) return [];
    return withIncludes(file.layer, files, root, new Set([...seen, absolute]));
  });
  return [...before, layer];
}
