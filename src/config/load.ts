/**
 * Loading a carte project: read carte.yaml, find and read the catalog, group and store files and the
 * shared settings files they include, validate each against its schema, check the rules between them,
 * merge each store's settings from the layers it inherits, and resolve the desired state. Every problem
 * of every file is collected before anything is thrown.
 */

import { StoreClock, TimeContext } from "../time/clock.js";
import { windowsAt, withOverridden, type StoreWindows } from "./windows.js";
import { closingOf } from "./close.js";
import type { KindName } from "../kinds/registry.js";
import { table, type Ownership } from "../model.js";
import { DEFAULT_SAFETY, type SafetyPolicy } from "../safety-policy.js";
import { stat } from "node:fs/promises";
import { createHash } from "node:crypto";
import { dirname, relative, resolve, sep } from "node:path";
import { ConfigError, InternalError } from "../errors.js";
import type { ConfigProblem, Diagnostic } from "../errors.js";
import type { CatalogFile, ProjectFile, StoreFile } from "../generated/config.js";
import type { DesiredState } from "../model.js";
import {
  checkCatalog,
  checkCatalogNames,
  checkGroupNames,
  checkSharedCatalog,
  checkStore,
  checkStoreGroup,
} from "./check.js";
import type { CatalogIndex, StoreRegistry } from "./check.js";
import { globFiles, hasMagic } from "./glob.js";
import {
  insideProject,
  insideProjectSync,
  outsideMessage,
  patternStaysInside,
  realRootOf,
  relativeTo,
} from "./paths.js";
import { DEFAULT_MAX_FILE_BYTES, readConfigFile, readConfigFileSync, type ReadResult } from "./read.js";
import type { IdentityCache } from "./identity-cache.js";
import { identityFile, plainIdentityOf, storeBlock } from "./store-ids.js";
import pLimit from "p-limit";
import { MAX_PROBLEMS } from "../source/problems.js";
import { addProblem, bare, dedupeProblems, isRecord, quote, report } from "../source/problems.js";
import { wasTruncated, where } from "../source/problems.js";
import type { Site } from "../source/problems.js";
import { resolveDesired } from "./resolve.js";
import type { ResolvableStore } from "./resolve.js";
import { settingsSections } from "../kinds/registry.js";
import { currencyOf, type Currency } from "../money.js";
import type { ProjectPlatform } from "./platforms.js";
import { mergeOverrides, OverridesChecker, plainOverrides, readOverrides, timedLayer } from "./overrides.js";
import { OptionPricePatterns } from "./option-price-patterns.js";
import { catalogsFor, type CatalogTarget, type MissingPrices } from "./currency-prices.js";
import { RuledPrices } from "./ruled-prices.js";
import type { MergedOverrides, OverridesLayer } from "./overrides.js";
import type { StoreSources } from "./provenance.js";
import { mergeSettings, readClient, readSettings, zoneOf } from "./settings.js";
import { checkPlatformSection, DEFAULT_REQUESTS_PER_SECOND, platformHosts } from "./platform-section.js";
import {
  hostOfScope,
  projectPlatformOf,
  readPlatforms,
  refuseIncludedPlatform,
  scopedFiles,
  scopeOf,
  storeOfAnotherPlatform,
  type PlatformScope,
  type ProjectPlatforms,
} from "./project-platforms.js";
import type { PlatformHosts } from "../platform/routes.js";
import type { SettingsLayer, StoreSettings } from "./settings.js";
import type { ConfigSection } from "../kinds/resource-kind.js";
import { readRollout, type RolloutStage } from "./rollout-stages.js";
import { schemaDigest, validateFile } from "./validate.js";
import { requiredVersionProblem } from "./version.js";
import type { FileKind } from "./validate.js";
import {
  DEFAULT_PARSE_LIMITS,
  lazyYamlFile,
  locate,
  numberSources,
  parseYaml,
  renamedYamlFile,
  toPointer,
} from "../source/yaml.js";
import { MIN_CACHED_CHARS, parseCacheKey, type ParseCache } from "./parse-cache.js";
import { carteVersion } from "./version.js";
import type { ParseLimits, YamlFile } from "../source/yaml.js";

export { DEFAULT_REQUESTS_PER_SECOND } from "./platform-section.js";

/** Processing delay of the embedded emulator when carte.yaml does not set one, in milliseconds. */
export const DEFAULT_APPLY_DELAY_MS = 50;

/** The apply lock shared across machines, as carte.yaml `lock:` sets it (src/gitops/ref-lock.ts). */
export interface RefLockSettings {
  /** The ref pushed while an apply runs: `refs/carte/lock`. */
  ref: string;
  /** The git remote it is pushed to: `origin`. */
  remote: string;
  /** Age of a lock, in milliseconds, past which another apply takes it over. */
  staleMs: number;
}

/** The ref of the lock across machines the GitHub Action takes when carte.yaml names none. */
export const DEFAULT_LOCK_REF = "refs/carte/lock";
/** The remote of `lock:` when it names none. */
export const DEFAULT_LOCK_REMOTE = "origin";
/** `lock: stale_after_minutes` when it says nothing: longer than the longest apply (`--timeout`). */
export const DEFAULT_LOCK_STALE_MINUTES = 60;

/** A loaded, valid project. */
export interface LoadedProject {
  /** Absolute path of carte.yaml. */
  configFile: string;
  /** Absolute path of the folder of carte.yaml; file patterns are relative to it. */
  root: string;
  /**
   * Present after a scoped load (`LoadOptions.stores`): `desired` then holds only the stores resolved.
   * `stores`: how many store files the `stores:` patterns match (what the files describe); `files`:
   * the absolute paths of the store files resolved, in the order of `desired`.
   */
  partial?: { stores: number; files: string[] };
  /**
   * The platform to talk to: the address of each API group without trailing slashes (its own under
   * `hosts:`, else `base_url`); `undefined` when carte.yaml has no `platform:` section, meaning carte
   * runs its embedded emulator.
   */
  platform: { hosts: PlatformHosts; requestsPerSecond: number } | undefined;
  /** Options of the embedded emulator; `applyDelayMs` defaults to {@link DEFAULT_APPLY_DELAY_MS}. */
  emulator: { applyDelayMs: number };
  /**
   * The apply lock shared across machines (carte.yaml `lock:`, src/gitops/ref-lock.ts): the ref pushed
   * to the remote while an apply runs, and the age in milliseconds past which it is taken over;
   * absent when carte.yaml has none.
   */
  lock?: RefLockSettings;
  /** Ownership per kind (carte.yaml `ownership:`); kinds not named keep their documented default. */
  ownership: Partial<Record<KindName, Ownership>>;
  /** Settings of the safety guards (carte.yaml `safety:`), defaults filled. */
  safety: SafetyPolicy;
  /** The currency of every price (carte.yaml `currency:`); absent when it declares none. */
  currency?: Currency;
  /**
   * The platform of carte.yaml `platforms:` this load is scoped to (`LoadOptions.platform`); absent for a
   * project of one platform (`platform:` and `currency:`).
   */
  platformOf?: ProjectPlatform;
  /**
   * The catalogs by name, as written (what `carte import --merge` tries new stores against), and the
   * file each is written in, relative to the working directory.
   */
  catalogs: ReadonlyMap<string, { catalog: CatalogFile; file: string }>;
  /**
   * With `{ explain: true }`: per store key, what `carte explain` needs to tell where each value comes
   * from (src/config/provenance.ts).
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
  /**
   * The SHA-256 (hex) of each file read, by its path relative to the project's folder with `/`
   * separators (the same on every clone and working directory). A saved plan keeps them so that a stale
   * plan names the files that changed since it was saved.
   */
  fileDigests: Record<string, string>;
  /**
   * Warnings every command that loads the project prints on each run (e.g. a plain-http platform
   * address allowed by `allow_insecure_http`, an entry whose time has passed), each located where it
   * is written. Never contain a secret.
   */
  warnings: Diagnostic[];
  /**
   * Where each store's `holidays:` dates are written, by store key then `MM-DD`: the layer that gives the
   * date last (the store file, its group, carte.yaml's defaults or a file they include). Used to report
   * a date the platform does not treat as a holiday where it is written (src/config/holiday-dates.ts).
   */
  holidaySites?: ReadonlyMap<string, ReadonlyMap<string, HolidaySite>>;
  /**
   * Where each store file writes its `integration_id`, by store key: a store whose integration id the
   * platform shows to be another store's is reported there (src/state/pairing.ts).
   */
  identitySites?: ReadonlyMap<string, HolidaySite>;
  /**
   * The stages of carte.yaml `rollout:` in order, each with its store keys (src/config/rollout-stages.ts):
   * every store of the files is in exactly one stage. Absent when carte.yaml has no `rollout:`.
   */
  rollout?: RolloutStage[];
}

/** Where a holiday date is written: `file:line:col` of its key. */
export interface HolidaySite {
  file: string;
  line: number;
  col: number;
  pointer: string;
}

/** The bounds every file is read within (carte.yaml `limits:`, defaults filled). */
export interface FileLimits extends ParseLimits {
  /** Largest file, in bytes (`limits.max_file_bytes`, default {@link DEFAULT_MAX_FILE_BYTES}). */
  maxFileBytes: number;
}

/** The default bounds: carte.yaml itself is always read within them. */
export const DEFAULT_FILE_LIMITS: FileLimits = {
  ...DEFAULT_PARSE_LIMITS,
  maxFileBytes: DEFAULT_MAX_FILE_BYTES,
};

/** A file read and parsed. */
interface ReadFile {
  parsed: YamlFile;
  /** Its absolute path, when known (`parsed.file` is the path shown, relative to the working directory). */
  path?: string;
  /** SHA-256 of the file's text (hex); absent when it could not be read. */
  digest?: string;
}

/** A relative path with `/` separators. */
const posix = (rel: string): string => (sep === "/" ? rel : rel.split(sep).join("/"));

/** The digests of the files read, by path relative to the project's folder (`/` separators). */
function fileDigests(root: string, files: readonly ReadFile[]): Record<string, string> {
  const out = table<string>();
  for (const f of files)
    if (f.digest !== undefined) out[posix(relativeTo(root, f.path ?? resolve(f.parsed.file)))] = f.digest;
  return out;
}

/**
 * The path shown to the user: relative to the working directory (the absolute path for the directory
 * itself). A path under it, the common case, is placed without `path.relative`'s resolving of both
 * (every store file of a chain is shown so).
 */
function display(absolute: string): string {
  const rel = relativeTo(process.cwd(), absolute);
  return rel === "" ? absolute : rel;
}

/**
 * Reads, parses and validates one file that is known to lie inside the project, within the limits.
 * A file that cannot be read (missing, not a regular file, too large, not UTF-8) gives one problem and
 * an empty document; its content is never quoted. `ahead`: the file's read already under way (store
 * files are read ahead of the parser), else it is read now. `first`: a check run once the file parsed
 * without syntax errors and before the schema; a problem it returns is thrown alone.
 *
 * @throws {@link ConfigError} with the problem `first` returned.
 */
async function readAndValidate(
  absolute: string,
  kind: FileKind,
  problems: ConfigProblem[],
  limits: FileLimits,
  reading: FileReading,
  ahead?: Promise<ReadResult>,
  first?: (parsed: YamlFile) => ConfigProblem | undefined,
): Promise<ReadFile> {
  const file = display(absolute);
  const read = await (ahead ?? readConfigFile(absolute, limits.maxFileBytes));
  if (!read.ok) {
    const p = { file, line: read.line, col: read.col, pointer: "", message: read.message };
    reading.ofFiles.add(p);
    addProblem(problems, p);
    return { parsed: parseYaml(file, "").parsed, path: absolute };
  }
  const digest = createHash("sha256").update(read.text).digest("hex");
  // The same bytes read by another load of this run (a scoped plan's base), parsed and valid there.
  const key = `${kind}\0${limits.maxNodes}\0${limits.maxDepth}\0${limits.maxAliasCount}\0${digest}`;
  const known = reading.parsed?.get(key);
  if (known) {
    const parsed = renamedYamlFile(known, file);
    // The check before the schema holds for the same bytes as it did: it is asked again all the same.
    const refused = first?.(parsed);
    if (refused) throw new ConfigError([refused]);
    return { parsed, digest, path: absolute };
  }
  // A big file with these bytes parsed and valid in an earlier run (src/config/parse-cache.ts).
  const cache = !first && read.text.length >= MIN_CACHED_CHARS ? reading.cache : undefined;
  const cacheKey = cache
    ? parseCacheKey([carteVersion(), schemaDigest(), key, reading.currency?.code ?? ""], digest)
    : undefined;
  const kept = cache && cacheKey ? keptValue(cache.get(cacheKey)) : undefined;
  if (kept) {
    const parsed = lazyYamlFile(file, read.text, limits, kept.data, kept.sources);
    reading.parsed?.set(key, parsed);
    return { parsed, digest, path: absolute };
  }
  const { parsed, problems: syntax, recovered } = parseYaml(file, read.text, limits);
  if (recovered) reading.broken.add(file);
  for (const p of syntax) {
    reading.ofFiles.add(p);
    addProblem(problems, p);
  }
  // A check that must pass before the file means anything (carte.yaml's required_version): its
  // problem is the only one reported.
  const refused = recovered ? undefined : first?.(parsed);
  if (refused) throw new ConfigError([refused]);
  // Validating the half-read value of a file with syntax errors would only add noise. A second
  // document alone leaves the first whole: it is checked as usual.
  const invalid = recovered ? [] : validateFile(parsed, kind, reading.currency);
  for (const p of invalid) {
    reading.ofFiles.add(p);
    addProblem(problems, p);
  }
  if (syntax.length === 0 && invalid.length === 0) {
    reading.parsed?.set(key, parsed);
    const sources = cache && cacheKey ? numberSources(parsed) : undefined;
    if (cache && cacheKey && sources) await cache.set(cacheKey, { data: parsed.data, sources });
  }
  return { parsed, digest, path: absolute };
}

/** A parse cache's entry as {@link readAndValidate} stores it: the value and its numbers' sources. */
function keptValue(entry: unknown): { data: unknown; sources: Record<string, string> } | undefined {
  if (!isRecord(entry) || !Object.hasOwn(entry, "data") || !isRecord(entry.sources)) return undefined;
  const sources = entry.sources;
  if (!Object.values(sources).every((v) => typeof v === "string")) return undefined;
  return { data: entry.data, sources: sources as Record<string, string> };
}

/**
 * What reading the files found, apart from the checks between values and files: the problems of each
 * file on its own (unreadable, YAML syntax, schema), and the files with syntax errors.
 */
interface FileReading {
  ofFiles: Set<ConfigProblem>;
  /** Files (as shown) with YAML syntax errors: their value is only what the parser could recover. */
  broken: Set<string>;
  /** The currency of the prices (carte.yaml `currency:`), once carte.yaml is read: the schema's words for a price depend on it. */
  currency?: Currency;
  /** `LoadOptions.parsed`. */
  parsed?: ParsedFiles;
  /** `LoadOptions.cache`. */
  cache?: ParseCache;
}

/**
 * Files parsed and valid against their schema, kept for other loads of the same run by kind, bounds
 * and content (SHA-256): a file of the same bytes is then not parsed again, only shown under its own
 * path. The values are shared: the loader never changes a parsed value.
 */
export type ParsedFiles = Map<string, YamlFile>;

/**
 * The problems to report. When a file has YAML syntax errors, the checks between values and files ran
 * on what the parser recovered of it, so what they found may only follow from the syntax errors (an
 * indentation slip loses items, and every category and store naming them reports an unknown SKU): those
 * problems are left out, and each file they concern gets one line saying how many were, so that the
 * syntax errors are fixed first.
 */
function withoutKnockOn(problems: ConfigProblem[], reading: FileReading): ConfigProblem[] {
  if (reading.broken.size === 0) return problems;
  const kept: ConfigProblem[] = [];
  const skipped = new Map<string, number>();
  for (const p of problems) {
    if (reading.ofFiles.has(p)) kept.push(p);
    else skipped.set(p.file, (skipped.get(p.file) ?? 0) + 1);
  }
  const broken = [...reading.broken];
  const named = broken.length === 1 ? `the syntax of ${broken[0]!}` : `the syntax of ${broken.join(", ")}`;
  for (const [file, count] of skipped) {
    const until = reading.broken.has(file) && broken.length === 1 ? "its syntax" : named;
    kept.push({
      file,
      line: 0,
      col: 0,
      pointer: "",
      message: `${count} check${count === 1 ? "" : "s"} of this file skipped until ${until} is fixed`,
      summary: true,
    });
  }
  return kept;
}

/**
 * Expands the `stores:`, `catalogs:` or `groups:` entry of carte.yaml into absolute file paths, in
 * order, without duplicates. Reported at the entry: a pattern that could match outside the project
 * folder (absolute, or climbing with `..`; nothing is listed), a match that leads outside through a
 * symbolic link (left out), a plain file name that does not exist, and a pattern that matches nothing.
 * Where the matches `read` refuses lead is not looked at: they are listed, never opened.
 */
async function expand(
  project: YamlFile,
  key: "stores" | "catalogs" | "groups",
  root: string,
  problems: ConfigProblem[],
  allowUnmatched: boolean,
  read: (file: string) => boolean = () => true,
  reals?: Map<string, string>,
  sizes?: Map<string, number>,
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
    const site: Site = { parsed: project, pointer: toPointer(segments) };
    if (!patternStaysInside(root, pattern)) {
      report(problems, site, outsideMessage(key, quote(pattern), "path"));
      continue;
    }
    const files = await globFiles(pattern, root);
    if (files.length === 0 && allowUnmatched && hasMagic(pattern)) continue;
    // A file named plainly that will not be read need not be there (a scoped load's base leaves out
    // the store files it does not read).
    if (files.length === 0 && !hasMagic(pattern) && !read(resolve(root, pattern))) continue;
    if (files.length === 0) {
      report(
        problems,
        site,
        hasMagic(pattern)
          ? `${key}: pattern ${quote(pattern)} matches no file (looked in ${bare(display(root), 200)}); fix the pattern, or remove it`
          : `${key}: file ${quote(pattern)} does not exist (looked for ${bare(display(resolve(root, pattern)), 200)})`,
      );
      continue;
    }
    const outside: string[] = [];
    // The project folder's real path, once for every match (when it cannot be resolved, every match
    // fails the check, as each would on its own).
    let realRoot: string | undefined;
    try {
      realRoot = await realRootOf(root);
    } catch {
      realRoot = undefined;
    }
    // A match whose links cannot be resolved (a loop) is left out like one that leads outside. A match
    // that will not be read (`read`) is counted as it is: nothing of it is opened. Checked one after
    // the other, synchronously: a chain has thousands of store files, and the system call is cheap.
    // The real path of each folder is asked once for all its files.
    const folders = new Map<string, string>();
    const wheres = files.map((f) => {
      if (!read(f)) return { inside: true };
      if (realRoot === undefined) return undefined;
      try {
        const where = insideProjectSync(root, f, realRoot, folders, sizes);
        if (where.inside) reals?.set(f, where.real);
        return where;
      } catch {
        return undefined;
      }
    });
    const seen = new Set(out);
    files.forEach((f, i) => {
      if (!wheres[i]?.inside) outside.push(f);
      else if (!seen.has(f)) {
        seen.add(f);
        out.push(f);
      }
    });
    if (outside.length > 0) {
      const named = outside.slice(0, 3).map((f) => quote(relative(root, f), 120));
      report(
        problems,
        site,
        outsideMessage(
          key,
          `${quote(pattern)} matches ${named.join(", ")}${outside.length > 3 ? ` and ${outside.length - 3} more` : ""}, which`,
          "link",
        ),
      );
    }
  }
  return out;
}

/** Reads carte.yaml `limits:`, keeping the defaults for anything missing or invalid (the schema says why). */
function limitsOf(data: Record<string, unknown>): FileLimits {
  const limits = field(data, "limits");
  const bytes = field(limits, "max_file_bytes");
  const nodes = field(limits, "max_file_nodes");
  const valid = (v: unknown, max: number): v is number =>
    typeof v === "number" && Number.isSafeInteger(v) && v >= 1 && v <= max;
  return {
    ...DEFAULT_FILE_LIMITS,
    ...(valid(bytes, MAX_FILE_BYTES_LIMIT) ? { maxFileBytes: bytes } : {}),
    ...(valid(nodes, MAX_FILE_NODES_LIMIT) ? { maxNodes: nodes } : {}),
  };
}

/** The most `limits.max_file_bytes` may be (64 MiB); the schema says so too. */
export const MAX_FILE_BYTES_LIMIT = 64 * 1024 * 1024;

/** The most `limits.max_file_nodes` may be; the schema says so too. */
export const MAX_FILE_NODES_LIMIT = 1_000_000;

/** Options of {@link loadProject}. */
export interface LoadOptions {
  /**
   * The one platform of carte.yaml `platforms:` to load (src/config/platforms.ts): only its stores,
   * their prices in its currency and their titles in its language; with `rehearsal`, its development
   * host and test stores. Required when carte.yaml names platforms.
   */
  platform?: { name: string; rehearsal?: boolean };
  /**
   * Let the stores of one catalog share the resource objects they resolve alike (`resolveDesired`
   * `share`): the desired state of a big chain then takes memory for what differs between stores only.
   * The desired state must then be treated as read-only (a change to one store's shared resource would
   * show in every store). Default true, as the CLI and the Action run: pass false for a desired state
   * whose stores the caller changes one by one (each store then holds copies of its own).
   */
  shareResources?: boolean;
  /**
   * A `stores:`, `catalogs:` or `groups:` pattern that matches no file is an empty set instead of a
   * problem (for `carte import` into a project that has no files yet); by default it is a problem,
   * located at the pattern.
   */
  allowUnmatchedPatterns?: boolean;
  /** Keep, per store, where each catalog value comes from (`sources`, for `carte explain`). */
  explain?: boolean;
  /**
   * The run's clock: time-bound entries (`until:`, a special day's full date, a price's `from:`) are
   * judged against it (src/time/clock.ts). Default: the real time.
   */
  now?: Date;
  /**
   * A scoped load (`carte plan --scope changed`, src/gitops/change-scope.ts): `read` says which store files
   * (absolute paths the `stores:` patterns match) are read and checked at all (default every one);
   * `resolve` which of the stores read are resolved into `desired`, given the absolute paths of every
   * file the store's desired state comes from (carte.yaml, its catalog, its group, its store file and
   * the files they include). Every file but the store files left out is read and checked as usual.
   * The project then says how many stores the files describe and where the resolved ones are written
   * ({@link LoadedProject.partial}).
   */
  /**
   * Files already parsed by another load of this run ({@link ParsedFiles}), filled by this one: a
   * scoped plan loads the head and the base, whose catalogs, groups and settings files are mostly the
   * same bytes.
   */
  parsed?: ParsedFiles;
  /**
   * Big files parsed and valid in earlier runs, by content (src/config/parse-cache.ts `openParseCache`):
   * such a file is parsed only if a position in it is asked for. Filled with the big files this load
   * parses without a problem.
   */
  cache?: ParseCache;
  stores?: {
    read?: (file: string) => boolean;
    resolve?: (files: ReadonlySet<string>) => boolean;
    /**
     * Given every store file read (absolute paths), those known to be byte for byte the base commit's
     * that need no more than their identity (`undefined`: none). Such a file is read, but only its
     * `store:` block is parsed (src/config/store-ids.ts): its store id and integration id still count
     * in the check that no two files claim one, located in it, and its key in `rollout:`; nothing else
     * of it is checked, merged or resolved. A file whose `store:` block is not written plainly is read
     * in full. `realOf`: where a file leads (every link resolved), as the check that it lies inside
     * the project found it (`undefined` when not known).
     */
    unchanged?: (
      files: readonly string[],
      realOf: (file: string) => string | undefined,
    ) => ReadonlySet<string> | undefined;
    /**
     * The identities of files of `unchanged` known without reading them: `objectOf` names the git
     * object whose bytes such a file holds (a regular file of the base commit, not reached through a
     * link; `undefined`: not known), and `cache` what a file with an object's bytes holds
     * (src/config/identity-cache.ts). A file is taken from the cache only when it is a regular file of
     * the object's size, within the size bound; one read is recorded there when its bytes are the
     * object's.
     */
    known?: { objectOf: (file: string) => string | undefined; cache: IdentityCache };
  };
}

/** The state of one load's file reads: the files parsed in it, those broken, and what it shares. */
function fileReading(options: LoadOptions): FileReading {
  return {
    ofFiles: new Set(),
    broken: new Set(),
    ...(options.parsed ? { parsed: options.parsed } : {}),
    ...(options.cache ? { cache: options.cache } : {}),
  };
}

/**
 * The store files of carte.yaml's `stores:` patterns: all of them, those to read (`read` says which;
 * every one without it), and for each match where it leads as its check found it (for
 * `stores.unchanged`) and its size in bytes. Problems of the patterns are added to `problems`.
 */
async function storePathsOf(
  parsed: YamlFile,
  root: string,
  problems: ConfigProblem[],
  allowUnmatched: boolean,
  read: ((file: string) => boolean) | undefined,
): Promise<{
  allStorePaths: string[];
  readPaths: string[];
  storeReals: Map<string, string>;
  storeSizes: Map<string, number>;
}> {
  const storeReals = new Map<string, string>();
  const storeSizes = new Map<string, number>();
  const allStorePaths = await expand(
    parsed,
    "stores",
    root,
    problems,
    allowUnmatched,
    read,
    storeReals,
    storeSizes,
  );
  const readPaths = read ? allStorePaths.filter((f) => read(f)) : allStorePaths;
  return { allStorePaths, readPaths, storeReals, storeSizes };
}

/**
 * `LoadedProject.partial` of a load that read or resolved some stores: how many store files the
 * patterns match, and the files resolved (`resolved`: their indexes in `storePaths`; all when absent).
 */
function partialOf(
  stores: number,
  storePaths: readonly string[],
  resolved: readonly number[] | undefined,
): { stores: number; files: string[] } {
  return { stores, files: resolved ? resolved.map((i) => storePaths[i]!) : [...storePaths] };
}

/**
 * Rules between SKUs and files, on every file that could be parsed: each catalog's index, the catalog
 * names, and each store's references and ids. `stores` lists the files read for their identity alone
 * first, so that a file claiming one of their ids is the one told so. With `shared` (another load of
 * this run read files of the same bytes: a scoped plan's base), a catalog it checked is checked once.
 * Problems are appended to `problems`.
 */
function checkRules(
  catalogFiles: readonly { parsed: YamlFile }[],
  stores: readonly { parsed: YamlFile }[],
  problems: ConfigProblem[],
  currency: Currency | undefined,
  shared: boolean,
): { indexes: CatalogIndex[]; catalogs: Map<string, CatalogIndex> } {
  const check = shared ? checkSharedCatalog : checkCatalog;
  const indexes: CatalogIndex[] = catalogFiles.map((c) => check(c.parsed, problems, currency));
  const catalogs = checkCatalogNames(indexes, problems);
  const registry: StoreRegistry = { ids: new Map(), integrationIds: new Map() };
  for (const s of stores) checkStore(s.parsed, catalogs, registry, problems);
  return { indexes, catalogs };
}

/**
 * Loads a carte project.
 *
 * @param configPath - path of carte.yaml, absolute or relative to the working directory.
 * @param options - see {@link LoadOptions}.
 * @returns the project with its desired state.
 * @throws {@link ConfigError} with every problem of every file (YAML syntax, schema, references between
 *   files, duplicates), each located as `file:line:col` with file names relative to the working
 *   directory. Nothing else is thrown for bad input.
 */
export async function loadProject(configPath: string, options: LoadOptions = {}): Promise<LoadedProject> {
  // The kinds' settings sections (hours, holidays, webhooks…), from the registry.
  const sections = settingsSections();
  const configFile = resolve(configPath);
  const root = dirname(configFile);
  const problems: ConfigProblem[] = [];
  const reading = fileReading(options);
  const { project, projectData } = await readCarteYaml(configFile, root, problems, reading);

  const limits = limitsOf(projectData);
  // The platform of `platforms:` the load is scoped to, and the currency of every price, before any is read.
  const { warnings, platforms, scope, currency } = readPlatformScope(project.parsed, options, problems);
  if (currency) reading.currency = currency;
  const time = new TimeContext(options.now);
  const { catalogPaths, allStorePaths, readPaths, read } = await readAllFiles(
    project.parsed,
    root,
    options,
    { platforms, scope },
    { problems, limits, reading },
  );
  const { identities } = read;
  // The platform's catalogs, groups and stores (in a rehearsal, its test stores), before prices are read.
  const { catalogFiles, missingPrices, groupFiles, storeFiles, storePaths } = forPlatform(
    read,
    project.parsed,
    { platforms, scope, currency, everyStoreRead: options.stores === undefined },
    problems,
  );

  const { indexes, catalogs } = checkRules(
    catalogFiles,
    [...identities, ...storeFiles],
    problems,
    currency,
    options.parsed !== undefined,
  );

  const layers = await readLayers(project, projectData, groupFiles, storeFiles, {
    root,
    problems,
    sections,
    time,
    limits,
    reading,
    currency,
  });

  const { settingsOf, mergedOverrides, sourcesOf, holidaySites, zonesOf, windowsOf } = mergeStoreLayers(
    layers,
    { root, configFile, storeFiles, storePaths, indexes, catalogPaths, catalogs },
    { problems, sections, time, currency, missingPrices, withSources: options.stores?.resolve !== undefined },
  );
  const client = readClient(project.parsed, field(projectData, "client"), problems);
  const rollout = await readRollout(
    project.parsed,
    root,
    storeKeys(
      keptPaths(readPaths, [...read.storePaths, ...read.skipped], storePaths),
      storeFiles,
      storePaths,
      identities,
    ),
    problems,
  );
  const secretsFile = await checkSecretsFile(project.parsed, root, problems);

  if (problems.length > 0)
    throw new ConfigError(
      withTruncation(withoutKnockOn(dedupeProblems(problems), reading), problems, project.parsed),
    );

  const { resolved, catalogsOut, resolvable, sources } = storesToResolve(
    options,
    { indexes, catalogFiles, written: read.catalogFiles, storeFiles, mergedOverrides },
    { settingsOf, sourcesOf, zonesOf, windowsOf },
  );

  const stores = [...storeFiles, ...identities];
  const allFiles = [project, ...catalogFiles, ...groupFiles, ...stores, ...layers.includes.values()];
  const config = projectData as unknown as ProjectFile;
  return {
    ...(sources ? { sources } : {}),
    configFile,
    root,
    ...projectSettings(config),
    ...(scope ? { platform: hostOfScope(scope), platformOf: projectPlatformOf(scope) } : {}),
    ...(currency ? { currency } : {}),
    catalogs: catalogsOut,
    desired: resolveDesired(resolvable, client, {
      share: options.shareResources ?? true,
      ...(currency ? { currency: currency.code } : {}),
    }),
    ...(secretsFile === undefined ? {} : { secretsFile }),
    files: allFiles.map((f) => f.parsed.file),
    fileDigests: fileDigests(root, allFiles),
    ...(options.stores ? { partial: partialOf(allStorePaths.length, storePaths, resolved) } : {}),
    warnings: [...warnings, ...time.warnings],
    holidaySites,
    identitySites: identitySitesOf(storeFiles),
    ...(rollout ? { rollout } : {}),
  };
}

/** The store files of `readPaths` a load keeps: those read for their identity, and those of `kept`. */
function keptPaths(
  readPaths: readonly string[],
  inFull: readonly string[],
  kept: readonly string[],
): string[] {
  if (inFull.length === kept.length) return [...readPaths];
  const left = new Set(inFull);
  for (const f of kept) left.delete(f);
  return readPaths.filter((f) => !left.has(f));
}

/**
 * The stores a load resolves (`LoadOptions.stores.resolve` says which, by index; all when absent), each
 * ready for {@link resolveDesired}, the catalogs as written, and with `explain`, where each value comes from.
 */
function storesToResolve(
  options: LoadOptions,
  files: {
    indexes: readonly CatalogIndex[];
    catalogFiles: readonly ReadFile[];
    /** The catalog files as written (prices per currency, titles per language). */
    written: readonly ReadFile[];
    storeFiles: readonly ReadFile[];
    mergedOverrides: readonly MergedOverrides[];
  },
  merged: {
    settingsOf: readonly StoreSettings[];
    sourcesOf: readonly Set<string>[];
    zonesOf: readonly (string | undefined)[];
    windowsOf: readonly (StoreWindows | undefined)[];
  },
): {
  resolved: number[] | undefined;
  catalogsOut: Map<string, { catalog: CatalogFile; file: string }>;
  resolvable: ResolvableStore[];
  sources: Map<string, StoreSources> | undefined;
} {
  const { indexes, catalogFiles, written, storeFiles, mergedOverrides } = files;
  const resolveOnly = options.stores?.resolve;
  const resolved = resolveOnly
    ? storeFiles.flatMap((_, i) => (resolveOnly(merged.sourcesOf[i]!) ? [i] : []))
    : undefined;
  const { catalogsOut, resolvable } = resolvableStores(
    indexes,
    catalogFiles,
    written,
    storeFiles,
    merged.settingsOf,
    mergedOverrides,
    merged.zonesOf,
    merged.windowsOf,
    resolved,
  );
  const sources = options.explain
    ? explainSources(indexes, catalogFiles, storeFiles, mergedOverrides)
    : undefined;
  return { resolved, catalogsOut, resolvable, sources };
}

/** Where each store file read in full writes `store: integration_id:`, by that integration id. */
function identitySitesOf(storeFiles: readonly ReadFile[]): Map<string, HolidaySite> {
  const sites = new Map<string, HolidaySite>();
  for (const f of storeFiles) {
    const key = field(field(f.parsed.data, "store"), "integration_id");
    if (typeof key !== "string" || sites.has(key)) continue;
    const pointer = "/store/integration_id";
    const { line, col } = locate(f.parsed, pointer);
    sites.set(key, { file: f.parsed.file, line, col, pointer });
  }
  return sites;
}

/**
 * Reads carte.yaml (within the default limits) and checks that it leads inside its folder and is not
 * empty.
 *
 * @throws {@link ConfigError} when it cannot be read, leads outside, or is empty.
 */
async function readCarteYaml(
  configFile: string,
  root: string,
  problems: ConfigProblem[],
  reading: FileReading,
): Promise<{ project: ReadFile; projectData: Record<string, unknown> }> {
  // carte.yaml itself may be a link: it must lead inside the project too.
  const self = await insideProject(root, configFile).catch(() => undefined);
  if (!self?.inside)
    throw new ConfigError([
      {
        file: display(configFile),
        line: 0,
        col: 0,
        pointer: "",
        message: self
          ? "carte.yaml leads outside its folder through a symbolic link; it was not read"
          : "cannot resolve where carte.yaml leads (a loop of symbolic links?); it was not read",
      },
    ]);
  // carte.yaml is read within the default limits: the limits it sets apply to the other files.
  // required_version first: a project written for another carte is refused before anything else.
  const project = await readAndValidate(
    configFile,
    "project",
    problems,
    DEFAULT_FILE_LIMITS,
    reading,
    undefined,
    (parsed) => requiredVersionProblem(parsed),
  );
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
  return { project, projectData: projectData as Record<string, unknown> };
}

/**
 * Every store file read (`readPaths`, in the order of the matches) with its key (`integration_id`):
 * those read in full (`storeFiles` at `storePaths`) and those read for their identity alone.
 */
function storeKeys(
  readPaths: readonly string[],
  storeFiles: readonly ReadFile[],
  storePaths: readonly string[],
  identities: readonly IdentityFile[],
): { path: string; key: string | undefined }[] {
  const keyOf = new Map<string, string | undefined>();
  const storeKey = (f: ReadFile) => {
    const key = field(field(f.parsed.data, "store"), "integration_id");
    return typeof key === "string" ? key : undefined;
  };
  storeFiles.forEach((f, i) => keyOf.set(storePaths[i]!, storeKey(f)));
  for (const f of identities) keyOf.set(f.path, storeKey(f));
  return readPaths.map((path) => ({ path, key: keyOf.get(path) }));
}

/** A store file read for its identity alone (`LoadOptions.stores.unchanged`): its `store:` block. */
interface IdentityFile extends ReadFile {
  /** Its absolute path. */
  path: string;
}

/**
 * Reads and validates the catalog, group and store files, each in the order of its paths. The store
 * files of `unchanged` are read for their `store:` block alone when it is written plainly
 * (`identities`); `storeFiles` and `storePaths` are the others.
 */
async function readProjectFiles(
  paths: {
    catalogPaths: string[];
    groupPaths: string[];
    storePaths: string[];
    unchanged: ReadonlySet<string> | undefined;
    known?: {
      objectOf: (file: string) => string | undefined;
      cache: IdentityCache;
      sizes: ReadonlyMap<string, number>;
    };
    /**
     * Given the group files, which store files' text says they belong to another platform than the
     * load's: those are left out unparsed (`skipped`).
     */
    skipOf?: (groupFiles: readonly ReadFile[]) => (text: string) => boolean;
  },
  problems: ConfigProblem[],
  limits: FileLimits,
  reading: FileReading,
): Promise<{
  catalogFiles: ReadFile[];
  groupFiles: ReadFile[];
  storeFiles: ReadFile[];
  storePaths: string[];
  identities: IdentityFile[];
  skipped: string[];
}> {
  const { catalogPaths, groupPaths, unchanged } = paths;
  const catalogFiles: ReadFile[] = [];
  for (const path of catalogPaths)
    catalogFiles.push(await readAndValidate(path, "catalog", problems, limits, reading));
  const groupFiles: ReadFile[] = [];
  for (const path of groupPaths)
    groupFiles.push(await readAndValidate(path, "group", problems, limits, reading));
  // Store files are many and small: read 16 at a time ahead of the parser, parsed and checked in order.
  const readLimit = pLimit(16);
  // Those read for their identity alone are read as their turn comes (readConfigFileSync).
  const storeReads = paths.storePaths.map((path) =>
    unchanged?.has(path) ? undefined : readLimit(() => readConfigFile(path, limits.maxFileBytes)),
  );
  const storeFiles: ReadFile[] = [];
  const storePaths: string[] = [];
  const identities: IdentityFile[] = [];
  const skipped: string[] = [];
  const skip = paths.skipOf?.(groupFiles);
  const known = paths.known;
  for (const [i, path] of paths.storePaths.entries()) {
    const oid = unchanged?.has(path) ? known?.objectOf(path) : undefined;
    if (oid !== undefined) {
      // Known from an earlier run by its bytes' git object: not read (its positions only if asked).
      const k = known!.cache.get(oid);
      if (k && k.size === known!.sizes.get(path) && k.size <= limits.maxFileBytes) {
        const file = display(path);
        const parse = () => {
          const again = readConfigFileSync(path, limits.maxFileBytes);
          return (again.ok ? storeBlock(file, again.text, limits) : undefined) ?? parseYaml(file, "").parsed;
        };
        identities.push({ path, parsed: identityFile(file, k, parse), digest: k.digest });
        continue;
      }
    }
    let ahead = storeReads[i] ?? Promise.resolve(readConfigFileSync(path, limits.maxFileBytes));
    if (skip) {
      const read = await ahead;
      if (read.ok && skip(read.text)) {
        skipped.push(path);
        continue;
      }
      ahead = Promise.resolve(read);
    }
    if (unchanged?.has(path)) {
      const read = await ahead;
      const block = read.ok ? storeBlock(display(path), read.text, limits) : undefined;
      if (read.ok && block) {
        const digest = createHash("sha256").update(read.text).digest("hex");
        identities.push({ path, parsed: block, digest });
        const plain = plainIdentityOf(block);
        if (oid !== undefined && plain) learnIdentity(known!.cache, oid, read.text, digest, plain);
        continue;
      }
    }
    storePaths.push(path);
    storeFiles.push(await readAndValidate(path, "store", problems, limits, reading, ahead));
  }
  return { catalogFiles, groupFiles, storeFiles, storePaths, identities, skipped };
}

/**
 * Records in `cache` what a store file read for its identity holds, under the git object `oid` named
 * for it, when its bytes are that object's (git's hash of them, `blob <size>\0<bytes>`, SHA-1 or
 * SHA-256 as the object's name is long): a file changed since git looked, or whose checkout converts
 * line ends, is not the object and teaches nothing.
 */
function learnIdentity(
  cache: IdentityCache,
  oid: string,
  text: string,
  digest: string,
  plain: { id: number | string; integration_id: string },
): void {
  const bytes = Buffer.from(text, "utf8");
  const hash = createHash(oid.length === 64 ? "sha256" : "sha1")
    .update(`blob ${bytes.length}\0`)
    .update(bytes)
    .digest("hex");
  if (hash === oid) cache.learn(oid, { size: bytes.length, digest, ...plain });
}

/** The catalog overrides and availability each settings layer writes, by layer. */
function readLayersOverrides(
  layers: readonly { layer: SettingsLayer; parsed: YamlFile; base: (string | number)[] }[],
  problems: ConfigProblem[],
  currency: Currency | undefined,
): Map<SettingsLayer, OverridesLayer> {
  const overridesOf = new Map<SettingsLayer, OverridesLayer>();
  for (const { layer, parsed, base } of layers) {
    const data = base.length === 0 ? parsed.data : field(parsed.data, String(base[0]));
    const o = readOverrides(parsed, base, data, problems, currency);
    if (o) overridesOf.set(layer, o);
  }
  return overridesOf;
}

/** What `carte explain` needs of each store, by store key: its file, its catalog, its merged overrides. */
function explainSources(
  indexes: readonly CatalogIndex[],
  catalogFiles: readonly ReadFile[],
  storeFiles: readonly ReadFile[],
  mergedOverrides: readonly MergedOverrides[],
): Map<string, StoreSources> {
  const sources = new Map<string, StoreSources>();
  const parsedByName = new Map<string, YamlFile>();
  indexes.forEach((index, i) => {
    if (!parsedByName.has(index.name)) parsedByName.set(index.name, catalogFiles[i]!.parsed);
  });
  storeFiles.forEach((s, i) => {
    const store = s.parsed.data as StoreFile;
    sources.set(store.store.integration_id, {
      storeFile: s.parsed,
      catalog: { name: store.catalog, parsed: parsedByName.get(store.catalog)! },
      overrides: mergedOverrides[i]!,
    });
  });
  return sources;
}

/** What carte.yaml sets for every run: the platform, the emulator, the apply lock, ownership, safety. */
function projectSettings(
  config: ProjectFile,
): Pick<LoadedProject, "platform" | "emulator" | "lock" | "ownership" | "safety"> {
  return {
    platform: config.platform
      ? {
          hosts: platformHosts(config.platform),
          requestsPerSecond: config.platform.requests_per_second ?? DEFAULT_REQUESTS_PER_SECOND,
        }
      : undefined,
    emulator: { applyDelayMs: config.emulator?.apply_delay_ms ?? DEFAULT_APPLY_DELAY_MS },
    ...(config.lock
      ? {
          lock: {
            ref: config.lock.git_ref,
            remote: config.lock.remote ?? DEFAULT_LOCK_REMOTE,
            staleMs: (config.lock.stale_after_minutes ?? DEFAULT_LOCK_STALE_MINUTES) * 60_000,
          },
        }
      : {}),
    ownership: (config.ownership ?? {}) as Partial<Record<KindName, Ownership>>,
    safety: {
      maxDeletePercent: config.safety?.max_delete_percent ?? DEFAULT_SAFETY.maxDeletePercent,
      maxUpdatePercent: config.safety?.max_update_percent ?? DEFAULT_SAFETY.maxUpdatePercent,
      minExisting: config.safety?.min_existing ?? DEFAULT_SAFETY.minExisting,
      protected: config.safety?.protected ?? DEFAULT_SAFETY.protected,
      maxPriceChangePercent: config.safety?.max_price_change_percent ?? DEFAULT_SAFETY.maxPriceChangePercent,
    },
  };
}

/** The settings layers of a project: carte.yaml's, each group's, each store's, and what they include. */
interface ProjectLayers {
  chainLayer: SettingsLayer;
  groupLayers: ReadonlyMap<string, SettingsLayer>;
  storeLayers: readonly SettingsLayer[];
  includes: Map<string, IncludedFile>;
  overridesOf: ReadonlyMap<SettingsLayer, OverridesLayer>;
}

/**
 * Merges each store's layers (carte.yaml → its group → its file, each after what it includes): its
 * settings, its catalog overrides (checked against its catalog), where its holiday dates are written,
 * its catalog's offer windows on its clock, and, with `withSources`, the files its desired state comes from. Warns of entries switched off until a
 * time that has passed.
 */
function mergeStoreLayers(
  { chainLayer, groupLayers, storeLayers, includes, overridesOf }: ProjectLayers,
  files: {
    root: string;
    configFile: string;
    storeFiles: readonly ReadFile[];
    storePaths: readonly string[];
    indexes: readonly CatalogIndex[];
    catalogPaths: readonly string[];
    catalogs: ReadonlyMap<string, CatalogIndex>;
  },
  run: {
    problems: ConfigProblem[];
    sections: readonly ConfigSection<unknown>[];
    time: TimeContext;
    /** carte.yaml `currency:`, to show prices in messages. */
    currency: Currency | undefined;
    /** The catalog prices without an amount in the currency, checked against the stores that sell them. */
    missingPrices: MissingPrices;
    withSources: boolean;
  },
): {
  settingsOf: StoreSettings[];
  mergedOverrides: MergedOverrides[];
  sourcesOf: Set<string>[];
  holidaySites: Map<string, Map<string, HolidaySite>>;
  zonesOf: (string | undefined)[];
  windowsOf: (StoreWindows | undefined)[];
} {
  const { root, configFile, storeFiles, storePaths, indexes, catalogPaths, catalogs } = files;
  const { problems, sections, time } = run;
  const holidaySites = new Map<string, Map<string, HolidaySite>>();
  const checker = new OverridesChecker(problems);
  const patterns = new OptionPricePatterns(problems, run.currency);
  const ruled = new RuledPrices(problems);
  const mergedOverrides: MergedOverrides[] = [];
  // Entries switched off `until:` a time that has passed (by site and time), with the stores that inherit each.
  const expired = new Map<string, { e: OverridesLayer["expired"][number]; stores: string[] }>();
  const zonesOf: (string | undefined)[] = [];
  // Each store's catalog offer windows judged on its clock (src/config/windows.ts).
  const windowsOf: (StoreWindows | undefined)[] = [];
  // With `options.stores.resolve`: the files each store's desired state comes from.
  const catalogPathOf = new Map<string, string>();
  indexes.forEach((index, i) => {
    if (!catalogPathOf.has(index.name)) catalogPathOf.set(index.name, catalogPaths[i]!);
  });
  const sourcesOf: Set<string>[] = [];
  const settingsOf = storeLayers.map((layer, i) => {
    const group = field(storeFiles[i]?.parsed.data, "group");
    const groupLayer = typeof group === "string" ? groupLayers.get(group) : undefined;
    const layers = [chainLayer, ...(groupLayer ? [groupLayer] : []), layer].flatMap((l) =>
      withIncludes(l, includes, root, new Set()),
    );
    if (run.withSources) {
      const catalog = catalogPathOf.get(String(field(storeFiles[i]?.parsed.data, "catalog")));
      sourcesOf.push(
        new Set([
          configFile,
          storePaths[i]!,
          ...(catalog ? [catalog] : []),
          ...layers.map((l) => resolve(l.site.parsed.file)),
        ]),
      );
    }
    const key = field(field(storeFiles[i]?.parsed.data, "store"), "integration_id");
    if (typeof key === "string") holidaySites.set(key, holidaySitesOf(layers));
    // The store's clock: its time zone (the most specific layer's) and the run's clock, which turn the
    // local times of every layer into instants for this store.
    const { zone, reported } = zoneOf(layers);
    zonesOf.push(zone);
    const storeKey = typeof key === "string" ? key : storePaths[i]!;
    const settingsClock = new StoreClock(time, storeKey, zone, problems, undefined, reported);
    const settings = mergeSettings(layers, problems, sections, settingsClock);
    const clock = new StoreClock(time, storeKey, zone, problems, closingOf(settings), reported);
    const timed = layers.flatMap((l) => {
      const o = overridesOf.get(l);
      return o ? [timedLayer(o, clock)] : [];
    });
    const merged = mergeOverrides(timed);
    for (const o of timed)
      for (const e of o.expired) {
        const id = `${where(e.site)}\0${e.until}`;
        const seen = expired.get(id) ?? { e, stores: [] };
        if (typeof key === "string" && !seen.stores.includes(key)) seen.stores.push(key);
        expired.set(id, seen);
      }
    mergedOverrides.push(merged);
    const catalogName = field(storeFiles[i]?.parsed.data, "catalog");
    const index = typeof catalogName === "string" ? catalogs.get(catalogName) : undefined;
    if (index) {
      checker.check(merged, index);
      // After the checks of the SKUs written in the files: the prices patterns set are not written there.
      patterns.expand(merged, index);
      // The prices the store's rules make from the catalog's, with every option price known.
      ruled.check(merged, index, storeKey);
      run.missingPrices.check(merged, index.site.parsed, storeKey);
    }
    const kindOf = (sku: string) =>
      index?.categories.has(sku) ? "category" : index?.skus.get(sku)?.kind === "item" ? "item" : undefined;
    windowsOf.push(
      index ? windowsAt(withOverridden(index.windows, merged.windows, kindOf), clock) : undefined,
    );
    return settings;
  });
  checker.finish();
  patterns.finish();
  ruled.finish();
  run.missingPrices.finish();
  for (const { e, stores } of expired.values())
    time.warn(
      e.site,
      `${quote(e.sku)} is switched off until ${quote(e.until)}, which has passed: the entry is ignored ` +
        `(${stores.length === 1 ? "store" : "stores"} ${stores.map((s) => quote(s)).join(", ") || "none"}); remove it`,
    );
  return { settingsOf, mergedOverrides, sourcesOf, holidaySites, zonesOf, windowsOf };
}

/**
 * The stores to resolve, each with its catalog, merged settings and overrides (only the stores of
 * `resolved` when given, by index), and the catalogs by name as written.
 */
function resolvableStores(
  indexes: readonly CatalogIndex[],
  catalogFiles: readonly ReadFile[],
  written: readonly ReadFile[],
  storeFiles: readonly ReadFile[],
  settingsOf: readonly StoreSettings[],
  mergedOverrides: readonly MergedOverrides[],
  zonesOf: readonly (string | undefined)[],
  windowsOf: readonly (StoreWindows | undefined)[],
  resolved: readonly number[] | undefined,
): { catalogsOut: Map<string, { catalog: CatalogFile; file: string }>; resolvable: ResolvableStore[] } {
  const catalogByName = new Map<string, CatalogFile>();
  const catalogsOut = new Map<string, { catalog: CatalogFile; file: string }>();
  indexes.forEach((index, i) => {
    const file = catalogFiles[i];
    if (file && !catalogByName.has(index.name)) {
      catalogByName.set(index.name, file.parsed.data as CatalogFile);
      catalogsOut.set(index.name, {
        catalog: written[i]!.parsed.data as CatalogFile,
        file: file.parsed.file,
      });
    }
  });
  const all: ResolvableStore[] = storeFiles.map((s, i) => {
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
      ...(zonesOf[i] !== undefined ? { timeZone: zonesOf[i] } : {}),
      ...(windowsOf[i] !== undefined ? { windows: windowsOf[i] } : {}),
    };
  });
  const resolvable = resolved ? resolved.map((i) => all[i]!) : all;
  return { catalogsOut, resolvable };
}

/**
 * Reads every settings layer: carte.yaml's `defaults:`, each group's, each store file's, the files they
 * include, and the catalog overrides and availability each writes.
 */
async function readLayers(
  project: ReadFile,
  projectData: Record<string, unknown>,
  groupFiles: readonly ReadFile[],
  storeFiles: readonly ReadFile[],
  run: {
    root: string;
    problems: ConfigProblem[];
    sections: readonly ConfigSection<unknown>[];
    time: TimeContext;
    limits: FileLimits;
    reading: FileReading;
    currency: Currency | undefined;
  },
): Promise<ProjectLayers> {
  const { root, problems, sections, time, limits, reading, currency } = run;
  // Settings: the chain's defaults, each group's, each store's, and the files they include.
  const chainLayer = readSettings(
    project.parsed,
    ["defaults"],
    field(projectData, "defaults"),
    problems,
    sections,
    time,
  );
  const groups = checkGroupNames(
    groupFiles.map((g) => g.parsed),
    problems,
  );
  const groupLayers = new Map<string, SettingsLayer>();
  for (const [name, parsed] of groups)
    groupLayers.set(
      name,
      readSettings(parsed, ["defaults"], field(parsed.data, "defaults"), problems, sections, time),
    );
  const storeLayers = storeFiles.map((s) => {
    checkStoreGroup(s.parsed, groups, problems);
    return readSettings(s.parsed, [], s.parsed.data, problems, sections, time);
  });
  const includes = await readIncludes(
    [chainLayer, ...groupLayers.values(), ...storeLayers],
    root,
    problems,
    limits,
    time,
    reading,
  );
  for (const file of includes.values()) refuseIncludedPlatform(file.parsed, problems);
  // Catalog overrides and availability of every layer (carte.yaml, groups, stores, included files).
  const overridesOf = readLayersOverrides(
    [
      { layer: chainLayer, parsed: project.parsed, base: ["defaults"] },
      ...[...groups].map(([name, parsed]) => ({ layer: groupLayers.get(name)!, parsed, base: ["defaults"] })),
      ...storeLayers.map((layer, i) => ({ layer, parsed: storeFiles[i]!.parsed, base: [] })),
      ...[...includes.values()].map((file) => ({ layer: file.layer, parsed: file.parsed, base: [] })),
    ],
    problems,
    currency,
  );
  return { chainLayer, groupLayers, storeLayers, includes, overridesOf };
}

/** Where each holiday date of a store is written: the last layer that names it. */
function holidaySitesOf(layers: readonly SettingsLayer[]): Map<string, HolidaySite> {
  const sites = new Map<string, HolidaySite>();
  for (const layer of layers)
    // The holidays section's layer value (src/kinds/holidays.ts): `MM-DD` → slots and the key's site.
    for (const [date, entry] of Object.entries(
      (layer.sections.get("holidays") ?? {}) as Record<
        string,
        { site: { parsed: YamlFile; pointer: string } }
      >,
    )) {
      const { line, col } = locate(entry.site.parsed, entry.site.pointer, "key");
      sites.set(date, { file: entry.site.parsed.file, line, col, pointer: entry.site.pointer });
    }
  return sites;
}

/**
 * Checks `secrets_file:` (relative to carte.yaml): it must lie inside the project, links resolved (it
 * need not exist yet).
 *
 * @returns its absolute path, or `undefined` when not set or refused.
 */
async function checkSecretsFile(
  project: YamlFile,
  root: string,
  problems: ConfigProblem[],
): Promise<string | undefined> {
  const written = field(project.data, "secrets_file");
  if (typeof written !== "string" || written === "") return undefined;
  const site: Site = { parsed: project, pointer: "/secrets_file" };
  let where;
  try {
    where = await insideProject(root, written);
  } catch (err) {
    report(problems, site, `secrets_file: cannot check where it leads (${errorCode(err)})`);
    return undefined;
  }
  if (!where.inside) {
    report(problems, site, outsideMessage("secrets_file", quote(written), where.why));
    return undefined;
  }
  return resolve(root, written);
}

function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? "error";
}

/** The problems, with a last one saying that more were left out when the list was full. */
function withTruncation(shown: ConfigProblem[], all: ConfigProblem[], project: YamlFile): ConfigProblem[] {
  if (!wasTruncated(all)) return shown;
  return [
    ...shown,
    {
      file: project.file,
      line: 0,
      col: 0,
      pointer: "",
      message: `only the first ${MAX_PROBLEMS} problems are shown: fix them and run carte again to see the rest`,
    },
  ];
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
    report(
      problems,
      { parsed: project, pointer: "/currency" },
      `unknown currency ${quote(code)}: write an ISO 4217 code, for example COP, BRL or MXN`,
    );
  }
  return currency;
}

/**
 * carte.yaml's platforms: the checks of `platform:` or of each of `platforms:`, the platform the load is
 * scoped to (`LoadOptions.platform`), and the currency of every price: the scoped platform's, else
 * carte.yaml `currency:`.
 *
 * @throws {@link ConfigError} as {@link scopeOf} says (a project of several platforms loaded without one).
 */
function readPlatformScope(
  project: YamlFile,
  options: LoadOptions,
  problems: ConfigProblem[],
): {
  warnings: Diagnostic[];
  platforms: ProjectPlatforms | undefined;
  scope: PlatformScope | undefined;
  currency: Currency | undefined;
} {
  const warnings = checkPlatformSection(project, problems, ["platform"]);
  const platforms = readPlatforms(project, problems, warnings);
  const scope = scopeOf(project, platforms, options.platform, problems);
  const currency = scope ? scope.platform.currency : readCurrency(project, problems);
  return { warnings, platforms, scope, currency };
}

/**
 * Finds and reads the catalog, group and store files of carte.yaml's patterns: with platforms, every
 * store file read in full but those whose text says they are another platform's (left out unparsed).
 */
async function readAllFiles(
  project: YamlFile,
  root: string,
  options: LoadOptions,
  load: { platforms: ProjectPlatforms | undefined; scope: PlatformScope | undefined },
  run: { problems: ConfigProblem[]; limits: FileLimits; reading: FileReading },
): Promise<{
  catalogPaths: string[];
  allStorePaths: string[];
  readPaths: string[];
  read: Awaited<ReturnType<typeof readProjectFiles>>;
}> {
  const { problems } = run;
  const { platforms, scope } = load;
  const allowUnmatched = options.allowUnmatchedPatterns === true;
  const catalogPaths = await expand(project, "catalogs", root, problems, allowUnmatched);
  const groupPaths = await expand(project, "groups", root, problems, allowUnmatched);
  const { allStorePaths, readPaths, storeReals, storeSizes } = await storePathsOf(
    project,
    root,
    problems,
    allowUnmatched,
    options.stores?.read,
  );
  const read = await readProjectFiles(
    {
      catalogPaths,
      groupPaths,
      storePaths: readPaths,
      // A store file's platform is not in its `store:` block: with platforms, every store is read in full.
      unchanged: platforms ? undefined : options.stores?.unchanged?.(readPaths, (f) => storeReals.get(f)),
      ...(scope
        ? {
            skipOf: (groups: readonly ReadFile[]) =>
              storeOfAnotherPlatform(scope, groups, platforms?.defaultName),
          }
        : {}),
      ...(options.stores?.known ? { known: { ...options.stores.known, sizes: storeSizes } } : {}),
    },
    problems,
    run.limits,
    run.reading,
  );
  return { catalogPaths, allStorePaths, readPaths, read };
}

/**
 * What a load keeps of the files read, as its platform reads them: the catalogs in its currency and
 * language, with the prices they miss in it (src/config/currency-prices.ts), and its groups and stores
 * alone (src/config/project-platforms.ts `scopedFiles`).
 */
function forPlatform(
  read: { catalogFiles: ReadFile[]; groupFiles: ReadFile[]; storeFiles: ReadFile[]; storePaths: string[] },
  project: YamlFile,
  load: {
    platforms: ProjectPlatforms | undefined;
    scope: PlatformScope | undefined;
    currency: Currency | undefined;
    everyStoreRead: boolean;
  },
  problems: ConfigProblem[],
): {
  catalogFiles: ReadFile[];
  missingPrices: MissingPrices;
  groupFiles: ReadFile[];
  storeFiles: ReadFile[];
  storePaths: string[];
} {
  const { platforms, scope, currency } = load;
  const target = catalogTarget(platforms, scope, currency);
  return {
    ...catalogsFor(read.catalogFiles, target, scope?.platform.name, problems),
    ...scopedFiles(read, project, platforms, scope, problems, load.everyStoreRead),
  };
}

/** What the catalogs are read in: the load's currency, its platform's language, and every platform's currency. */
function catalogTarget(
  platforms: ProjectPlatforms | undefined,
  scope: PlatformScope | undefined,
  currency: Currency | undefined,
): CatalogTarget {
  const currencies = [...new Set([...(platforms?.byName.values() ?? [])].map((p) => p.currency.code))];
  return { currency, language: scope?.platform.language, currencies };
}

/** A shared settings file named by `include:`, read and checked. */
interface IncludedFile extends ReadFile {
  layer: SettingsLayer;
}

/**
 * Reads every settings file the layers include, and the files those include, each once (keyed by
 * absolute path, in the order first named). Reports, at the `include:` entry that names it: a path
 * outside the project, a file that does not exist (a pattern, which `include:` does not expand, said
 * so), a folder, a file that cannot be read (not a regular file, too large); and include cycles (the
 * entry that closes a cycle, once per cycle). Problems inside a file that was read are located in it.
 */
async function readIncludes(
  layers: readonly SettingsLayer[],
  root: string,
  problems: ConfigProblem[],
  limits: FileLimits,
  time: TimeContext,
  reading: FileReading,
): Promise<Map<string, IncludedFile>> {
  const files = new Map<string, IncludedFile>();
  // Why a file was not read, by absolute path, so that every entry naming it reports it alike.
  const refused = new Map<string, string>();
  const pending = [...layers];
  while (pending.length > 0) {
    const layer = pending.shift()!;
    for (const inc of layer.includes) {
      if (inc.path === "") continue; // the schema reports it
      const absolute = resolve(root, inc.path);
      if (files.has(absolute)) continue;
      const known = refused.get(absolute);
      if (known !== undefined) {
        report(problems, inc.site, known);
        continue;
      }
      const refuse = (message: string): void => {
        refused.set(absolute, message);
        report(problems, inc.site, message);
      };
      // Never open, nor even test for, a file outside the project.
      let where;
      try {
        where = await insideProject(root, inc.path);
      } catch (err) {
        refuse(`include: cannot check where ${quote(inc.path)} leads (${errorCode(err)})`);
        continue;
      }
      if (!where.inside) {
        refuse(outsideMessage("include", quote(inc.path), where.why));
        continue;
      }
      const kind = await entryKind(absolute);
      if (kind === "missing") {
        refuse(
          hasMagic(inc.path)
            ? `include: no file is named ${quote(inc.path)}; include: does not expand patterns: list each file (paths relative to the folder of carte.yaml)`
            : `include: file ${quote(inc.path)} does not exist (looked for ${bare(display(absolute), 200)}); paths are relative to the folder of carte.yaml`,
        );
        continue;
      }
      if (kind === "folder") {
        refuse(
          `include: ${quote(inc.path)} is a folder, not a file: list the settings files in it to include, one path per entry`,
        );
        continue;
      }
      // A file that cannot be read at all (not a regular file, too large) is reported at the entry
      // that names it; a problem at a place inside the file (not UTF-8) is reported there.
      const text = await readConfigFile(absolute, limits.maxFileBytes);
      if (!text.ok && text.line === 0) {
        const sep = text.message.startsWith("is ") ? " " : ": "; // "… is not a regular file"
        refuse(`include: ${quote(inc.path)}${sep}${text.message}`);
        continue;
      }
      const read = await readAndValidate(
        absolute,
        "settings",
        problems,
        limits,
        reading,
        Promise.resolve(text),
      );
      const included: IncludedFile = {
        ...read,
        layer: readSettings(read.parsed, [], read.parsed.data, problems, settingsSections(), time),
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

/**
 * What is at a path, links followed: nothing (or a dangling link, or a path through a file), a
 * folder, or something else, which readConfigFile judges.
 */
async function entryKind(path: string): Promise<"missing" | "folder" | "other"> {
  try {
    return (await stat(path)).isDirectory() ? "folder" : "other";
  } catch {
    return "missing";
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
