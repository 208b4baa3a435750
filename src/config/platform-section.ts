/**
 * A section of carte.yaml that says where a platform's API lives: `platform:`, each platform of
 * `platforms:` and its `development:` host. Each gives `base_url`, an address per API group under
 * `hosts:`, or both, `requests_per_second` and `allow_insecure_http` (docs/platform-api.md §4.13: a
 * base address per API group, one for all as the simple case).
 */

import { warning } from "../errors.js";
import type { ConfigProblem, Diagnostic } from "../errors.js";
import { API_GROUPS, type ApiGroup, type PlatformHosts } from "../platform/routes.js";
import { isRecord, quote, rangeOf, report } from "../source/problems.js";
import type { Site } from "../source/problems.js";
import { isLoopbackHost, urlShapeProblem } from "../source/url.js";
import { toPointer, type YamlFile } from "../source/yaml.js";

/**
 * Starting pace against a configured platform, in requests per second. The platform publishes no
 * number (docs/platform-api.md §4.11); the client halves its pace on 429 and recovers slowly.
 */
export const DEFAULT_REQUESTS_PER_SECOND = 50;

/** What a platform section writes about its addresses, as the schema checked it. */
export interface PlatformAddresses {
  base_url?: string;
  hosts?: Partial<Record<ApiGroup, string>>;
}

/** Words in a list: `a`, `a and b`, `a, b and c`. */
export function inWords(words: readonly string[]): string {
  return words.length <= 1 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)!}`;
}

function field(data: unknown, key: string): unknown {
  return isRecord(data) && Object.hasOwn(data, key) ? data[key] : undefined;
}

/** Where a section at `prefix` gives addresses: `base_url`, and each API group's under `hosts:`. */
function addressesAt(prefix: readonly string[]): { path: readonly string[]; what: string }[] {
  const of = prefix.length === 1 ? "" : ` of ${prefix.join(".")}`;
  return [
    { path: [...prefix, "base_url"], what: prefix.length === 1 ? "platform address" : `address${of}` },
    ...API_GROUPS.map((g) => ({ path: [...prefix, "hosts", g], what: `address of the ${g} group${of}` })),
  ];
}

/** The section of carte.yaml at `prefix` (`["platform"]`, `["platforms", "co", "development"]`). */
function sectionAt(project: YamlFile, prefix: readonly string[]): unknown {
  return prefix.reduce<unknown>((value, key) => field(value, key), project.data);
}

/**
 * Checks the addresses of the platform section at `prefix` (`["platform"]`, `["platforms", "co"]`,
 * `["platforms", "co", "development"]`), `base_url` and each of `hosts:`: each an absolute address with
 * a host and no credentials; https, or http to this machine, or http anywhere when the section says
 * `allow_insecure_http: true` (then a warning on every run, one per address, since the client secret
 * would travel unencrypted). Every API group must have an address: its own under `hosts:`, or
 * `base_url` — unless `optional` and the section gives neither (the platform then runs on the
 * embedded emulator).
 *
 * @returns the warnings to print, one per plain-http address, at the first setting that gives it.
 */
export function checkPlatformSection(
  project: YamlFile,
  problems: ConfigProblem[],
  prefix: readonly string[],
  optional = false,
): Diagnostic[] {
  const platform = sectionAt(project, prefix);
  if (!isRecord(platform)) return []; // the schema says how to write it
  const addressed = field(platform, "base_url") !== undefined || field(platform, "hosts") !== undefined;
  if (!optional || addressed) checkEveryGroupAddressed(project, platform, problems, prefix);
  // By address: the settings that give it, and where the first of them is written.
  const insecure = new Map<string, { names: string[]; site: Site }>();
  for (const { path, what } of addressesAt(prefix)) {
    const url = path.slice(prefix.length).reduce<unknown>((value, key) => field(value, key), platform);
    if (typeof url !== "string" || !/^https?:\/\//i.test(url)) continue; // the schema says how to write it
    const site: Site = { parsed: project, pointer: toPointer([...path]) };
    const shape = urlShapeProblem(url, what);
    if (shape) {
      report(problems, site, shape);
      continue;
    }
    const parsed = new URL(url);
    if (parsed.protocol === "https:" || isLoopbackHost(parsed.hostname)) continue;
    if (field(platform, "allow_insecure_http") === true) {
      const seen = insecure.get(url);
      insecure.set(url, { names: [...(seen?.names ?? []), path.join(".")], site: seen?.site ?? site });
      continue;
    }
    report(
      problems,
      site,
      `${what} ${quote(url, 120)} must start with https:// (the client secret would travel unencrypted); ` +
        `http:// is accepted for localhost and 127.0.0.1, or anywhere with allow_insecure_http: true under ${prefix.join(".")}:`,
    );
  }
  return [...insecure].map(([url, { names, site }]) =>
    warning(
      `${inWords(names)} ${quote(url, 120)} ${names.length === 1 ? "is" : "are"} plain http to another machine ` +
        `(allowed by allow_insecure_http in ${project.file})`,
      { detail: "the client secret and every token travel unencrypted", range: rangeOf(site) },
    ),
  );
}

/**
 * Reports the API groups without an address: with no `base_url`, each group must have its own under
 * `hosts:` (docs/platform-api.md §4.13: a base address per group, one for all as the simple case).
 */
function checkEveryGroupAddressed(
  project: YamlFile,
  platform: Record<string, unknown>,
  problems: ConfigProblem[],
  prefix: readonly string[],
): void {
  if (field(platform, "base_url") !== undefined) return;
  const hosts = field(platform, "hosts");
  const missing = API_GROUPS.filter((g) => field(hosts, g) === undefined);
  if (missing.length === 0) return;
  const at = prefix.join(".");
  report(
    problems,
    { parsed: project, pointer: toPointer(isRecord(hosts) ? [...prefix, "hosts"] : [...prefix]) },
    `the API group${missing.length === 1 ? "" : "s"} ${inWords(missing)} ${missing.length === 1 ? "has" : "have"} ` +
      `no address: give ${at}.base_url (the address of every group hosts: does not name), or ` +
      `${missing.length === 1 ? "its address" : "their addresses"} under ${at}.hosts (${API_GROUPS.join(", ")})`,
  );
}

/**
 * The address of each API group of a checked platform section, without trailing slashes: the group's
 * own under `hosts:`, else `base_url` (the check made sure one of them is there).
 */
export function platformHosts(platform: PlatformAddresses): PlatformHosts {
  const hosts = platform.hosts;
  return Object.fromEntries(
    API_GROUPS.map((g) => {
      const own = hosts !== undefined && Object.hasOwn(hosts, g) ? hosts[g] : undefined;
      return [g, (own ?? platform.base_url ?? "").replace(/\/+$/, "")];
    }),
  ) as Record<ApiGroup, string>;
}
