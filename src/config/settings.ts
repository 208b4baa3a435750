/**
 * Store settings in the files (each kind's section, `schedules_via`, `include`): reading the layers a
 * store inherits with their sites (carte.yaml `defaults:` → group `defaults:` → store file, each preceded
 * by the files it includes), merging them and producing each kind's state in the model.
 *
 * Each kind with a settings section declares how it reads, merges and resolves it (`ResourceKind.config`,
 * src/kinds/resource-kind.ts), next to its helpers (src/time/written-slots.ts for the slot kinds); this
 * module runs the sections the config loader passes in (the registry's, see `settingsSections` in
 * src/kinds/registry.ts). The merge rules are the kinds' (docs/configuration.md lists them):
 * - `hours` (store_hours): replaced day by day; a day no layer names is closed once any layer writes
 *   `hours`;
 * - `holidays` (holiday) and `special_days` (special_day): replaced date by date;
 * - `webhooks` (webhook): changed event by event, and within an event key by key (`url`, `enabled`);
 * - `open` (store_availability), `schedules_via` (this module): the highest layer that writes them wins.
 * A setting no layer writes stays `undefined` in the model: carte does not manage it in that store.
 */

import { TimeContext, type StoreClock } from "../time/clock.js";
import { canonicalZone, suggestZone } from "../time/zone.js";
import { quote } from "../source/quote.js";
import type { ConfigProblem } from "../errors.js";
import type { ClientState, StoreSettings } from "../model.js";
import type { ConfigSection, SectionContext } from "../kinds/resource-kind.js";
import { sortedRecord } from "../plain-data.js";
import { CLIENT_WEBHOOK_EVENTS } from "../platform/wire.js";
import { webhookUrlProblem } from "../source/url.js";
import { isRecord, list, report, siteOf } from "../source/problems.js";
import type { Site } from "../source/problems.js";
import type { YamlFile } from "../source/yaml.js";

/** Events of client-level (integration-wide) webhooks. */
const CLIENT_EVENTS: readonly string[] = CLIENT_WEBHOOK_EVENTS;

/** The settings of one store in the model (src/model.ts). */
export type { StoreSettings };

/** One layer of settings, as written in one place of one file. */
export interface SettingsLayer {
  /** Where the settings object is. */
  site: Site;
  /** Files named by `include:`, in order, as written (relative to the project folder). */
  includes: { path: string; site: Site }[];
  /** The store's time zone (`timezone:`, canonical IANA name), when the layer writes a known one. */
  timezone?: { value: string; site: Site };
  /**
   * Where the layer writes a `timezone:` that is no zone (reported there): a store left without a zone
   * by it is not asked again for one at each of its local times.
   */
  wrongTimezone?: Site;
  /** Through which API the store's schedules go (`schedules_via:`), when the layer says. */
  schedulesVia?: "menu" | "utils";
  /** What the layer writes in each kind's section, as that section read it, by section key. */
  sections: Map<string, unknown>;
}

/**
 * Reads one settings object (the top of a store file or a shared file, or `defaults:` of carte.yaml or a
 * group), reporting every problem the schema cannot see: malformed days and times, a day named by two
 * keys, empty and overlapping slots, invalid dates, duplicate special days, unknown events and webhook
 * addresses that are not https.
 *
 * @param base - pointer segments of the settings object in the file.
 */
export function readSettings(
  parsed: YamlFile,
  base: (string | number)[],
  data: unknown,
  problems: ConfigProblem[],
  sections: readonly ConfigSection<unknown>[],
  time: TimeContext = new TimeContext(),
): SettingsLayer {
  const at = (...segments: (string | number)[]): Site => siteOf(parsed, [...base, ...segments]);
  const layer: SettingsLayer = { site: at(), includes: [], sections: new Map() };
  const settings = isRecord(data) ? data : {};

  const include = settings.include;
  if (typeof include === "string") layer.includes.push({ path: include, site: at("include") });
  else
    list(include).forEach((path, i) => {
      if (typeof path === "string") layer.includes.push({ path, site: at("include", i) });
    });

  if (typeof settings.timezone === "string") {
    const zone = canonicalZone(settings.timezone);
    if (zone) layer.timezone = { value: zone, site: at("timezone") };
    else {
      layer.wrongTimezone = at("timezone");
      const near = suggestZone(settings.timezone);
      report(
        problems,
        at("timezone"),
        `timezone: ${quote(settings.timezone)} is not a time zone: write an IANA zone name such as ` +
          `America/Bogota` +
          (near ? ` (did you mean ${near}?)` : ""),
      );
    }
  }

  if (settings.schedules_via === "menu" || settings.schedules_via === "utils")
    layer.schedulesVia = settings.schedules_via;

  // Each kind's section (hours, holidays, special days, open, webhooks…): src/kinds, `config`.
  const ctx: SectionContext = { parsed, base, at, time };
  for (const section of sections) {
    if (!Object.hasOwn(settings, section.key)) continue;
    const value = section.read(settings[section.key], ctx, problems);
    if (value !== undefined) layer.sections.set(section.key, value);
  }
  return layer;
}

/**
 * Merges the layers a store inherits, lowest first (see the module comment for the rules), into the
 * model's canonical settings; `clock` is the store's (its time zone and the run's clock), for the
 * sections with dates. Reports overlaps that only the combination creates (an inherited Friday
 * slot running past midnight into a Saturday the store rewrote) and webhooks left without an address.
 */
export function mergeSettings(
  layers: readonly SettingsLayer[],
  problems: ConfigProblem[],
  sections: readonly ConfigSection<unknown>[],
  clock?: StoreClock,
): StoreSettings {
  const out: StoreSettings = {};
  for (const layer of layers) {
    if (layer.schedulesVia !== undefined) out.schedulesVia = layer.schedulesVia;
  }
  for (const section of sections) {
    let merged: unknown;
    let seen = false;
    for (const layer of layers) {
      if (!layer.sections.has(section.key)) continue;
      const upper = layer.sections.get(section.key);
      merged = seen && section.merge ? section.merge(merged, upper) : upper;
      seen = true;
    }
    if (seen) section.resolve(merged, out, problems, clock);
  }
  return out;
}

/**
 * The time zone a store's layers give it: the most specific layer that writes a known `timezone:` wins.
 * `reported` is true when none does and a layer writes one that is no zone: that problem is reported at
 * the layer, and the store's local times are not reported again for the zone it lacks.
 */
export function zoneOf(layers: readonly SettingsLayer[]): { zone: string | undefined; reported: boolean } {
  let zone: string | undefined;
  for (const layer of layers) if (layer.timezone) zone = layer.timezone.value;
  return { zone, reported: zone === undefined && layers.some((l) => l.wrongTimezone !== undefined) };
}

/**
 * Reads and checks `client:` of carte.yaml into the model's client settings; `undefined` when it names
 * no webhook.
 */
export function readClient(
  parsed: YamlFile,
  data: unknown,
  problems: ConfigProblem[],
): ClientState | undefined {
  const client = isRecord(data) ? data : {};
  if (!isRecord(client.webhooks)) return undefined;
  const webhooks: Record<string, { url: string }> = {};
  for (const [event, url] of Object.entries(client.webhooks)) {
    if (!CLIENT_EVENTS.includes(event) || typeof url !== "string") continue; // the schema reports it
    const why = webhookUrlProblem(url);
    if (why) report(problems, siteOf(parsed, ["client", "webhooks", event]), why);
    webhooks[event] = { url };
  }
  return { webhooks: sortedRecord(webhooks) };
}
