/**
 * carte.yaml `platforms:`: the platform of each country of a chain, with its country, currency,
 * language, hosts, the names of its credential variables and its development host; which platform
 * each store belongs to; and what a load scoped to one platform keeps of the store and group files
 * (docs/configuration.md "Countries").
 */

import { ConfigError } from "../errors.js";
import type { ConfigProblem, Diagnostic } from "../errors.js";
import { COUNTRY_CODES, countryName } from "../countries.js";
import { currencyOf, type Currency } from "../money.js";
import type { PlatformHosts } from "../platform/routes.js";
import { isRecord, quote, report } from "../source/problems.js";
import type { Site } from "../source/problems.js";
import { didYouMean } from "../suggest.js";
import { withValue, type YamlFile } from "../source/yaml.js";
import {
  checkPlatformSection,
  DEFAULT_REQUESTS_PER_SECOND,
  inWords,
  platformHosts,
  type PlatformAddresses,
} from "./platform-section.js";
import { groupName } from "./check.js";
import { defaultCredentialNames, type CredentialNames, type ProjectPlatform } from "./platforms.js";

/** A platform name as carte.yaml `platforms:` and a store's `platform:` write it. */
export const PLATFORM_NAME = /^[a-z][a-z0-9-]{0,30}$/;

/** An environment variable's name, as `credentials:` must write it. */
const VARIABLE_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** The longest name of an environment variable `credentials:` accepts. */
const MAX_VARIABLE_NAME = 128;

/** Where a platform's API lives, as `LoadedProject.platform` carries it; `undefined`: the embedded emulator. */
export type PlatformHost = { hosts: PlatformHosts; requestsPerSecond: number } | undefined;

/** A test store of a development host: the production store it rehearses, by its integration id. */
export interface TestStore {
  id: number | string;
  integrationId: string;
  name?: string;
  /** Where its entry is written (its key under `development: stores:`). */
  site: Site;
}

/** One platform of carte.yaml `platforms:`, checked. */
export interface DeclaredPlatform {
  name: string;
  country: string;
  currency: Currency;
  language?: string;
  host: PlatformHost;
  credentials: CredentialNames;
  /** Its development host (`development:`), for the rehearsal; absent when it has none. */
  development?: { host: PlatformHost; credentials: CredentialNames; stores: Map<string, TestStore> };
}

/** carte.yaml `platforms:`, checked: the platforms in the order written, and `defaults: platform:`. */
export interface ProjectPlatforms {
  byName: ReadonlyMap<string, DeclaredPlatform>;
  /** The platform of every store that names none (carte.yaml `defaults: platform:`), if known. */
  defaultName?: string;
}

function field(data: unknown, key: string): unknown {
  return isRecord(data) && Object.hasOwn(data, key) ? data[key] : undefined;
}

/**
 * Reads and checks carte.yaml `platforms:` (the schema checked its shape): each platform's country
 * (one the platform serves, src/countries.ts), its currency (ISO 4217), its addresses and those of its
 * development host (as `platform:`'s), and its credentials, which must be NAMES of environment
 * variables (a value that is not one looks like a secret pasted in: refused, and never shown). Reports
 * `platforms:` written together with `platform:` or `currency:`, and a `defaults: platform:` that
 * names no platform.
 *
 * @returns the platforms, or `undefined` when carte.yaml has no `platforms:`; warnings (plain http
 *   allowed) are appended to `warnings`.
 */
export function readPlatforms(
  project: YamlFile,
  problems: ConfigProblem[],
  warnings: Diagnostic[],
): ProjectPlatforms | undefined {
  const section = field(project.data, "platforms");
  if (!isRecord(section)) {
    checkNoPlatformNamed(project, problems);
    return undefined;
  }
  for (const key of ["platform", "currency"] as const)
    if (field(project.data, key) !== undefined)
      report(
        problems,
        { parsed: project, pointer: `/${key}` },
        `${key}: cannot be written together with platforms:, which gives each platform its ` +
          `${key === "platform" ? "addresses" : "currency"}: move it under each platform of platforms:`,
        "key",
      );
  const byName = new Map<string, DeclaredPlatform>();
  for (const [name, value] of Object.entries(section)) {
    if (!PLATFORM_NAME.test(name) || !isRecord(value)) continue; // the schema reports it
    const declared = readPlatform(project, name, value, problems, warnings);
    if (declared) byName.set(name, declared);
  }
  checkSharedPrices(project, byName, problems);
  const written = field(field(project.data, "defaults"), "platform");
  const defaultName =
    typeof written === "string"
      ? knownPlatform(written, { parsed: project, pointer: "/defaults/platform" }, section, problems)
      : undefined;
  return { byName, ...(defaultName !== undefined ? { defaultName } : {}) };
}

/**
 * Reports prices under carte.yaml's `defaults: overrides:` when the platforms sell in several
 * currencies: every store inherits them, and a plain amount is in the currency of the store's platform,
 * so one number would be read as pesos in one country and reais in another.
 */
function checkSharedPrices(
  project: YamlFile,
  platforms: ReadonlyMap<string, DeclaredPlatform>,
  problems: ConfigProblem[],
): void {
  const currencies = new Set([...platforms.values()].map((p) => p.currency.code));
  if (currencies.size < 2) return;
  const overrides = field(field(project.data, "defaults"), "overrides");
  for (const key of ["prices", "option_prices"])
    if (field(overrides, key) !== undefined)
      report(
        problems,
        { parsed: project, pointer: `/defaults/overrides/${key}` },
        `carte.yaml's defaults apply to the stores of every platform, which sell in ${inWords([...currencies])}: ` +
          `write ${key} under overrides: in each platform's groups or stores, in its currency`,
        "key",
      );
}

/** Reports `defaults: platform:` in a carte.yaml without `platforms:`. */
function checkNoPlatformNamed(project: YamlFile, problems: ConfigProblem[]): void {
  if (typeof field(field(project.data, "defaults"), "platform") === "string")
    report(
      problems,
      { parsed: project, pointer: "/defaults/platform" },
      `platform: names a platform of carte.yaml platforms:, and carte.yaml has none: remove it, or name the platforms under platforms:`,
    );
}

/**
 * `name` when it is a platform of `platforms` (carte.yaml's `platforms:` section), else reports it
 * at `site` with the closest name, and gives `undefined`.
 */
export function knownPlatform(
  name: string,
  site: Site,
  platforms: Record<string, unknown> | ReadonlyMap<string, unknown>,
  problems: ConfigProblem[],
): string | undefined {
  const names = platforms instanceof Map ? [...platforms.keys()] : Object.keys(platforms);
  if (names.includes(name)) return name;
  report(
    problems,
    site,
    `platform ${quote(name)} is not one of carte.yaml platforms: (${names.map((n) => quote(n)).join(", ")})` +
      didYouMean(name, names, (n) => quote(n)),
  );
  return undefined;
}

/** One platform of `platforms:`, checked; `undefined` when its country or currency is wrong. */
function readPlatform(
  project: YamlFile,
  name: string,
  value: Record<string, unknown>,
  problems: ConfigProblem[],
  warnings: Diagnostic[],
): DeclaredPlatform | undefined {
  const at = (...rest: string[]): Site => ({
    parsed: project,
    pointer: `/platforms/${name}/${rest.join("/")}`,
  });
  const country = field(value, "country");
  const code = field(value, "currency");
  let ok = typeof country === "string" && typeof code === "string"; // else the schema reports it
  if (typeof country === "string" && /^[A-Z]{2}$/.test(country) && countryName(country) === undefined) {
    report(
      problems,
      at("country"),
      `country ${quote(country)} is not one the platform serves (${COUNTRY_CODES.join(", ")})` +
        didYouMean(country, COUNTRY_CODES, (c) => c),
    );
    ok = false;
  }
  const currency = typeof code === "string" && /^[A-Z]{3}$/.test(code) ? currencyOf(code) : undefined;
  if (typeof code === "string" && /^[A-Z]{3}$/.test(code) && !currency) {
    report(
      problems,
      at("currency"),
      `unknown currency ${quote(code)}: write an ISO 4217 code, for example COP or BRL`,
    );
    ok = false;
  }
  warnings.push(...checkPlatformSection(project, problems, ["platforms", name], true));
  const credentials = readCredentials(project, [name], field(value, "credentials"), problems, false);
  const development = field(value, "development");
  let dev: DeclaredPlatform["development"];
  if (isRecord(development)) {
    warnings.push(...checkPlatformSection(project, problems, ["platforms", name, "development"], true));
    dev = {
      host: hostOf(development),
      credentials: readCredentials(
        project,
        [name, "development"],
        field(development, "credentials"),
        problems,
        true,
      ),
      stores: readTestStores(project, name, field(development, "stores")),
    };
  }
  if (!ok || !currency) return undefined;
  const language = field(value, "language");
  return {
    name,
    country: country as string,
    currency,
    ...(typeof language === "string" ? { language } : {}),
    host: hostOf(value),
    credentials,
    ...(dev ? { development: dev } : {}),
  };
}

/** Where a checked platform section's API lives; `undefined` when it gives no address (the emulator). */
function hostOf(section: Record<string, unknown>): PlatformHost {
  if (field(section, "base_url") === undefined && field(section, "hosts") === undefined) return undefined;
  const rps = field(section, "requests_per_second");
  return {
    hosts: platformHosts(section as PlatformAddresses),
    requestsPerSecond: typeof rps === "number" ? rps : DEFAULT_REQUESTS_PER_SECOND,
  };
}

/**
 * The credential variable names of a platform (`path`: `[name]`) or its development host (`[name,
 * "development"]`): those written, else the defaults. A value that is not a variable's name is
 * reported without being shown: it may be the secret itself.
 */
function readCredentials(
  project: YamlFile,
  path: readonly string[],
  section: unknown,
  problems: ConfigProblem[],
  development: boolean,
): CredentialNames {
  const names = defaultCredentialNames(path[0]!, development);
  const written = { clientId: field(section, "client_id"), clientSecret: field(section, "client_secret") };
  for (const [key, yamlKey] of [
    ["clientId", "client_id"],
    ["clientSecret", "client_secret"],
  ] as const) {
    const value = written[key];
    if (value === undefined) continue;
    if (typeof value === "string" && VARIABLE_NAME.test(value) && value.length <= MAX_VARIABLE_NAME) {
      names[key] = value;
      continue;
    }
    report(
      problems,
      { parsed: project, pointer: `/platforms/${path.join("/")}/credentials/${yamlKey}` },
      `platforms.${path.join(".")}.credentials.${yamlKey} must be the NAME of an environment variable ` +
        `(capital letters, digits and _, at most ${MAX_VARIABLE_NAME} characters, e.g. ${names[key]}), never its value: ` +
        `what is written there is not such a name and may be a secret pasted in (it is not shown). ` +
        `Remove it from the file (and from its history, and change the secret if it is one), put it in an ` +
        `environment variable, and write that variable's name here`,
    );
  }
  return names;
}

/** The test stores of `development: stores:`, by the integration id of the production store each rehearses. */
function readTestStores(project: YamlFile, name: string, stores: unknown): Map<string, TestStore> {
  const out = new Map<string, TestStore>();
  if (!isRecord(stores)) return out;
  for (const [production, entry] of Object.entries(stores)) {
    const id = field(entry, "id");
    const integrationId = field(entry, "integration_id");
    const testName = field(entry, "name");
    if ((typeof id !== "number" && typeof id !== "string") || typeof integrationId !== "string") continue;
    out.set(production, {
      id,
      integrationId,
      ...(typeof testName === "string" ? { name: testName } : {}),
      site: {
        parsed: project,
        pointer: `/platforms/${name}/development/stores/${production.replace(/~/g, "~0").replace(/\//g, "~1")}`,
      },
    });
  }
  return out;
}

/** The platform a load is scoped to, checked against carte.yaml. */
export interface PlatformScope {
  platform: DeclaredPlatform;
  rehearsal: boolean;
  /** The names of every platform carte.yaml declares. */
  names: readonly string[];
}

/**
 * The platform `wanted` names (`LoadOptions.platform`), checked against carte.yaml `platforms:`.
 *
 * @throws {@link ConfigError} when carte.yaml names platforms and `wanted` is absent (the message names
 *   them and says to pass one), names a platform carte.yaml does not, asks a rehearsal of a platform
 *   without `development:`, or when carte.yaml has no `platforms:` and `wanted` names one; with the
 *   problems found so far.
 */
export function scopeOf(
  project: YamlFile,
  platforms: ProjectPlatforms | undefined,
  wanted: { name: string; rehearsal?: boolean } | undefined,
  problems: ConfigProblem[],
): PlatformScope | undefined {
  const fail = (pointer: string, message: string): never => {
    report(problems, { parsed: project, pointer }, message, pointer === "/platforms" ? "key" : "value");
    throw new ConfigError(problems);
  };
  if (!platforms) {
    if (wanted)
      fail(
        "",
        `carte.yaml names no platforms:, so there is no platform ${quote(wanted.name)} to load: leave out the platform (--platform), or name the platforms under platforms:`,
      );
    return undefined;
  }
  const written = Object.keys(field(project.data, "platforms") as Record<string, unknown>);
  if (!wanted)
    return fail(
      "/platforms",
      `this project has ${written.length === 1 ? "the platform" : "the platforms"} ${inWords(written.map((n) => quote(n)))}: ` +
        `load one at a time (--platform NAME), or each in turn (loadEachPlatform)`,
    );
  const platform = platforms.byName.get(wanted.name);
  if (!platform) {
    if (problems.length > 0) throw new ConfigError(problems); // the platform's own problems say why
    return fail(
      "/platforms",
      `platform ${quote(wanted.name)} is not one of carte.yaml platforms: (${written.map((n) => quote(n)).join(", ")})` +
        didYouMean(wanted.name, written, (n) => quote(n)),
    );
  }
  if (wanted.rehearsal === true && !platform.development)
    return fail(
      `/platforms/${platform.name}`,
      `platform ${quote(platform.name)} has no development: host to rehearse on: add development: (with its test stores) under platforms.${platform.name}, or run without --rehearsal`,
    );
  return { platform, rehearsal: wanted.rehearsal === true, names: written };
}

/** What a scoped load tells the run of its platform (`LoadedProject.platformOf`). */
export function projectPlatformOf(scope: PlatformScope): ProjectPlatform {
  const { platform, rehearsal } = scope;
  return {
    name: platform.name,
    country: platform.country,
    ...(platform.language !== undefined ? { language: platform.language } : {}),
    rehearsal,
    credentials: rehearsal ? platform.development!.credentials : platform.credentials,
  };
}

/** The hosts a scoped load talks to: the platform's, or its development host's in a rehearsal. */
export function hostOfScope(scope: PlatformScope): PlatformHost {
  return scope.rehearsal ? scope.platform.development!.host : scope.platform.host;
}

/**
 * A copy of a parsed file with another value: its positions stay those of the file. The value shared
 * through the parse caches is never changed.
 */
export function withData(parsed: YamlFile, data: unknown): YamlFile {
  return withValue(parsed, data);
}

/**
 * The group and store files a load keeps: with `platforms:` and a scope, those of the scoped platform
 * (a store's platform: its file's `platform:`, else its group's `defaults: platform:`, else carte.yaml's
 * `defaults: platform:`, else the only platform), groups of another platform and other platforms'
 * stores left out before anything else of them is read; in a rehearsal, only the stores its
 * development host maps, each under its test store's id, integration id and name. Reports a store that
 * belongs to no platform when there are several, a platform name carte.yaml does not declare, a store
 * whose `platform:` differs from its group's, and a test store whose production store is not one of
 * the platform's. Without `platforms:`, a `platform:` anywhere is reported and every file is kept.
 */
export function scopedFiles<F extends { parsed: YamlFile }>(
  files: { groupFiles: readonly F[]; storeFiles: readonly F[]; storePaths: readonly string[] },
  project: YamlFile,
  platforms: ProjectPlatforms | undefined,
  scope: PlatformScope | undefined,
  problems: ConfigProblem[],
  everyStoreRead: boolean,
): { groupFiles: F[]; storeFiles: F[]; storePaths: string[] } {
  const { groupFiles, storeFiles, storePaths } = files;
  const declared = isRecord(field(project.data, "platforms"))
    ? (field(project.data, "platforms") as Record<string, unknown>)
    : undefined;
  if (!platforms || !declared || !scope) {
    if (!declared) reportPlatformsWithout(groupFiles, storeFiles, problems);
    return { groupFiles: [...groupFiles], storeFiles: [...storeFiles], storePaths: [...storePaths] };
  }
  const groupPlatform = new Map<string, { name: string | undefined; file: string }>();
  for (const g of groupFiles) {
    const name = groupName(g.parsed);
    const written = field(field(g.parsed.data, "defaults"), "platform");
    if (groupPlatform.has(name)) continue;
    groupPlatform.set(name, {
      name:
        typeof written === "string"
          ? knownPlatform(written, { parsed: g.parsed, pointer: "/defaults/platform" }, declared, problems)
          : undefined,
      file: g.parsed.file,
    });
  }
  const names = Object.keys(declared);
  const only = names.length === 1 ? names[0] : undefined;
  const out = { groupFiles: [] as F[], storeFiles: [] as F[], storePaths: [] as string[] };
  const dev = scope.rehearsal ? scope.platform.development : undefined;
  const mapped = new Set<string>();
  storeFiles.forEach((s, i) => {
    const name = storePlatform(s.parsed, groupPlatform, declared, problems) ?? platforms.defaultName ?? only;
    if (name === undefined) {
      if (field(s.parsed.data, "platform") === undefined)
        report(
          problems,
          { parsed: s.parsed, pointer: "" },
          `this store belongs to no platform: write platform: NAME in it, in its group's defaults or in ` +
            `carte.yaml's defaults (one of ${names.map((n) => quote(n)).join(", ")})`,
        );
      return;
    }
    if (name !== scope.platform.name) return;
    let kept = s;
    if (dev) {
      const key = field(field(s.parsed.data, "store"), "integration_id");
      const test = typeof key === "string" ? dev.stores.get(key) : undefined;
      if (!test) return;
      mapped.add(key as string);
      kept = { ...s, parsed: withData(s.parsed, asTestStore(s.parsed.data, test)) };
    }
    out.storeFiles.push(kept);
    out.storePaths.push(storePaths[i]!);
  });
  for (const g of groupFiles) {
    const of = groupPlatform.get(groupName(g.parsed));
    if (of?.file !== g.parsed.file || of.name === undefined || of.name === scope.platform.name)
      out.groupFiles.push(g);
  }
  if (dev && everyStoreRead)
    for (const [production, test] of dev.stores)
      if (!mapped.has(production))
        report(
          problems,
          test.site,
          `no store of platform ${quote(scope.platform.name)} has the integration id ${quote(production)}: ` +
            `development: stores: maps production stores (by integration id) to their test stores`,
          "key",
        );
  return out;
}

/** A store file's value as its test store: the test store's id, integration id and name. */
function asTestStore(data: unknown, test: TestStore): unknown {
  const store = field(data, "store");
  return {
    ...(data as Record<string, unknown>),
    store: {
      ...(isRecord(store) ? store : {}),
      id: test.id,
      integration_id: test.integrationId,
      ...(test.name !== undefined ? { name: test.name } : {}),
    },
  };
}

/**
 * The platform a store file names, or its group's: `undefined` when neither names one (or names one
 * carte.yaml does not declare, reported). A store whose `platform:` differs from its group's is reported.
 */
function storePlatform(
  parsed: YamlFile,
  groupPlatform: ReadonlyMap<string, { name: string | undefined }>,
  declared: Record<string, unknown>,
  problems: ConfigProblem[],
): string | undefined {
  const written = field(parsed.data, "platform");
  const group = field(parsed.data, "group");
  const ofGroup = typeof group === "string" ? groupPlatform.get(group)?.name : undefined;
  if (typeof written !== "string") return ofGroup;
  const own = knownPlatform(written, { parsed, pointer: "/platform" }, declared, problems);
  if (own !== undefined && ofGroup !== undefined && own !== ofGroup)
    report(
      problems,
      { parsed, pointer: "/platform" },
      `this store's platform ${quote(own)} is not its group ${quote(String(group))}'s (${quote(ofGroup)}): ` +
        `a store joins a group of its own platform`,
    );
  return own;
}

/** Reports `platform:` in group and store files of a project whose carte.yaml names no platforms. */
function reportPlatformsWithout(
  groupFiles: readonly { parsed: YamlFile }[],
  storeFiles: readonly { parsed: YamlFile }[],
  problems: ConfigProblem[],
): void {
  const at = (parsed: YamlFile, pointer: string) =>
    report(
      problems,
      { parsed, pointer },
      `platform: names a platform of carte.yaml platforms:, and carte.yaml has none: remove it, or name the platforms under platforms:`,
    );
  for (const g of groupFiles)
    if (typeof field(field(g.parsed.data, "defaults"), "platform") === "string")
      at(g.parsed, "/defaults/platform");
  for (const s of storeFiles)
    if (typeof field(s.parsed.data, "platform") === "string") at(s.parsed, "/platform");
}

/**
 * Reports `platform:` in a settings file named by `include:`: a store's platform is written in its
 * file, its group's defaults or carte.yaml's defaults, where it is seen before anything is read.
 */
export function refuseIncludedPlatform(parsed: YamlFile, problems: ConfigProblem[]): void {
  if (field(parsed.data, "platform") !== undefined)
    report(
      problems,
      { parsed, pointer: "/platform" },
      "platform: is not read from an included file: write it in the store file, in its group's defaults or in carte.yaml's defaults",
      "key",
    );
}

/**
 * The value of a top-level `key:` as a store file's text writes it plainly on a line of its own
 * (`platform: br`, `group: "sao-paulo"`, a comment after it or not); `undefined` when no line of the text
 * starts with the key; `null` when the text may write it otherwise (a flow mapping, a merge key, a
 * quoted key, twice): then only the parse can say.
 */
function plainTopLevel(text: string, key: string): string | null | undefined {
  // A flow mapping, a merge key, a quoted key or a second document: only the parse can say.
  if (/^[{[]|^<<|^---|^["']/m.test(text)) return null;
  const lines = text.split(/\r?\n/).filter((l) => new RegExp(`^${key}[ \\t]*:`).test(l));
  if (lines.length === 0) return undefined;
  const plain = new RegExp(`^${key}:[ \\t]+(["']?)([a-z0-9][a-z0-9-]*)\\1[ \\t]*(#.*)?$`);
  const match = lines.length === 1 ? plain.exec(lines[0]!) : null;
  return match ? match[2]! : null;
}

/**
 * Whether a store file's text says it belongs to another platform than the load's, before it is
 * parsed: its `platform:`, else its group's (`groups`: the group files read), else carte.yaml's
 * `defaults: platform:`, each as written plainly. A file that writes them otherwise, or names an
 * unknown platform, is not skipped: its parse decides, and reports what is wrong.
 */
export function storeOfAnotherPlatform(
  scope: PlatformScope,
  groups: readonly { parsed: YamlFile }[],
  defaultName?: string,
): (text: string) => boolean {
  const ofGroup = new Map<string, string>();
  for (const g of groups) {
    const written = field(field(g.parsed.data, "defaults"), "platform");
    const name = groupName(g.parsed);
    if (typeof written === "string" && !ofGroup.has(name)) ofGroup.set(name, written);
  }
  const other = (name: string) => name !== scope.platform.name && scope.names.includes(name);
  return (text) => {
    const written = plainTopLevel(text, "platform");
    if (written === null) return false;
    if (written !== undefined) return other(written);
    const group = plainTopLevel(text, "group");
    if (group === null) return false;
    const platform = (group !== undefined ? ofGroup.get(group) : undefined) ?? defaultName;
    return platform !== undefined && other(platform);
  };
}
