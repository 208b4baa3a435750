/**
 * Store settings in the files (hours, holidays, special days, open, webhooks, schedules_via, include)
 * and category and item schedules of catalogs: reading them with their sites, checking them, merging
 * the layers a store inherits (carte.yaml `defaults:` → group `defaults:` → store file, each preceded by
 * the files it includes), and producing the canonical values of `src/model.ts`.
 *
 * Each kind with a settings section declares how it reads, merges and resolves it (`ResourceKind.config`,
 * src/kinds/types.ts); this module runs the sections the config loader passes in (the registry's, see
 * `settingsSections` in src/kinds/registry.ts) and holds the slot helpers they share. The merge rules
 * are the kinds' (docs/configuration.md lists them):
 * - `hours` (store_hours): replaced day by day; a day no layer names is closed once any layer writes
 *   `hours`;
 * - `holidays` (holiday) and `special_days` (special_day): replaced date by date;
 * - `webhooks` (webhook): changed event by event, and within an event key by key (`url`, `enabled`);
 * - `open` (store_availability), `schedules_via` (this module): the highest layer that writes them wins.
 * A setting no layer writes stays `undefined` in the model: carte does not manage it in that store.
 */

import { TimeContext } from "./time.js";
import { CLIENT_WEBHOOK_EVENTS, Limits, STORE_WEBHOOK_EVENTS } from "../platform/wire.js";
import type { ConfigProblem } from "../errors.js";
import { WEEKDAYS } from "../model.js";
import type { ClientState, Slot, StoreSettings, Weekday } from "../model.js";
import type { ConfigSection, SectionContext } from "../kinds/types.js";
import { isRecord, list, quote, report, siteOf, where } from "./report.js";
import type { Site } from "./report.js";
import {
  compareSlots,
  crossesMidnight,
  nextWeekday,
  parseDays,
  parseSlot,
  SCHEDULE_DAYS,
  SLOT_PATTERN,
  splitSlot,
} from "./slots.js";
import type { MinuteSlot, ScheduleDay } from "./slots.js";
import type { YamlFile } from "./yaml.js";

/** Events a store webhook can carry (platform notes, "Webhooks"). */
export const STORE_EVENTS: readonly string[] = STORE_WEBHOOK_EVENTS;

/** Events of client-level (integration-wide) webhooks. */
export const CLIENT_EVENTS: readonly string[] = CLIENT_WEBHOOK_EVENTS;

/** The most time periods one schedule may hold (platform notes, "Limits"). */
export const PERIODS_PER_SCHEDULE = Limits.periodsPerSchedule;

/** The settings of one store in the model (src/model.ts). */
export type { StoreSettings };

/** A slot as written, parsed, with where it is written. */
export interface SlotEntry {
  text: string;
  slot: MinuteSlot;
  site: Site;
}

/** The slots a layer gives one day or one date, with the site of the key that gives them. */
export interface DayEntry {
  slots: SlotEntry[];
  site: Site;
}

/** One layer of settings, as written in one place of one file. */
export interface SettingsLayer {
  /** Where the settings object is. */
  site: Site;
  /** Files named by `include:`, in order, as written (relative to the project folder). */
  includes: { path: string; site: Site }[];
  /** Through which API the store's schedules go (`schedules_via:`), when the layer says. */
  schedulesVia?: "menu" | "utils";
  /** What the layer writes in each kind's section, as that section read it, by section key. */
  sections: Map<string, unknown>;
}

/** One piece of a slot on one day, in the platform's form. */
export interface Piece {
  slot: Slot;
  entry: SlotEntry;
  /** True for the part of a slot of the day before that runs past midnight. */
  carried: boolean;
}

/**
 * Reads the slots of a list, reporting malformed and empty ones. Strings that do not have the shape of
 * a slot are left to the schema.
 *
 * @param overnight - whether a slot may run past midnight (not on holidays and special days: the next
 *   date has hours of its own).
 */
export function readSlots(
  parsed: YamlFile,
  segments: (string | number)[],
  value: unknown,
  problems: ConfigProblem[],
  overnight: { allowed: true } | { allowed: false; why: string },
): SlotEntry[] {
  const out: SlotEntry[] = [];
  list(value).forEach((text, i) => {
    if (typeof text !== "string" || !SLOT_PATTERN.test(text)) return;
    const site = siteOf(parsed, [...segments, i]);
    const result = parseSlot(text);
    if (!result.ok) return report(problems, site, result.error);
    if (!overnight.allowed && crossesMidnight(result.value))
      return report(problems, site, `slot ${quote(text)} runs past midnight: ${overnight.why}`);
    out.push({ text, slot: result.value, site });
  });
  return out;
}

export const HOLIDAY_OVERNIGHT = {
  allowed: false,
  why: "end it at 24:00 here and give the next day its own slot from 00:00",
} as const;

/**
 * Reports overlapping pieces of one day (or date). Each overlap is reported once, at the later slot,
 * naming the earlier one; the text does not depend on the store, so that a problem inherited by many
 * stores is reported once.
 */
export function checkOverlaps(pieces: Piece[], problems: ConfigProblem[]): void {
  const sorted = [...pieces].sort((a, b) => compareSlots(a.slot, b.slot));
  let latest: Piece | undefined;
  for (const piece of sorted) {
    if (latest && piece.slot.start < latest.slot.end) {
      const earlier = `${quote(latest.entry.text)} at ${where(latest.entry.site)}${latest.carried ? ", which runs past midnight into the next day" : ""}`;
      const self = piece.carried ? `, which runs past midnight into the next day,` : "";
      report(
        problems,
        piece.entry.site,
        `slot ${quote(piece.entry.text)}${self} overlaps slot ${earlier}: slots of one day must not overlap`,
      );
    }
    if (!latest || piece.slot.end > latest.slot.end) latest = piece;
  }
}

/** The pieces of each weekday (and `hol`) of slots written per day; overnight slots of `hol` are dropped. */
function splitWeek(days: Partial<Record<ScheduleDay, SlotEntry[]>>): Record<ScheduleDay, Piece[]> {
  const out = Object.fromEntries(SCHEDULE_DAYS.map((d) => [d, [] as Piece[]])) as Record<
    ScheduleDay,
    Piece[]
  >;
  for (const day of SCHEDULE_DAYS) {
    for (const entry of days[day] ?? []) {
      const { sameDay, nextDay } = splitSlot(entry.slot);
      if (sameDay) out[day].push({ slot: sameDay, entry, carried: false });
      if (nextDay && day !== "hol") out[nextWeekday(day)].push({ slot: nextDay, entry, carried: true });
    }
  }
  return out;
}

export function sortedSlots(pieces: Piece[]): Slot[] {
  return pieces.map((p) => p.slot).sort(compareSlots);
}

/** Pieces of slots that stay within their date (holidays, special days). */
export function datePieces(slots: SlotEntry[]): Piece[] {
  return slots.flatMap((entry) => {
    const { sameDay } = splitSlot(entry.slot);
    return sameDay ? [{ slot: sameDay, entry, carried: false }] : [];
  });
}

/** Whether a host name names this machine: `localhost`, an address of 127.0.0.0/8, or `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Why an address of the platform or of a webhook is not acceptable as written, or `undefined` when it
 * is: an absolute address with a host, without spaces or control characters, without a user name or
 * password (credentials never live in the files). Whether http is allowed is the caller's rule.
 *
 * @param what - how the message names the value, e.g. `webhook address`.
 */
export function urlShapeProblem(url: string, what: string): string | undefined {
  // The URL parser silently drops tabs and line breaks, so check the text as written.
  // eslint-disable-next-line no-control-regex -- control characters are what is looked for
  if (/[\s\u0000-\u001f\u007f-\u009f]/.test(url))
    return `${what} ${quote(url)} contains spaces or control characters: write the address alone`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${what} ${quote(url)} is not a full address: write it as https://host/path, e.g. https://hooks.example.com/orders`;
  }
  if (parsed.hostname === "")
    return `${what} ${quote(url)} has no host: write it as https://host/path, e.g. https://hooks.example.com/orders`;
  if (parsed.username !== "" || parsed.password !== "")
    return `${what} must not carry a user name or password (credentials never go in the files)`;
  return undefined;
}

/**
 * Why a webhook address is not acceptable, or `undefined` when it is: an absolute https address with a
 * host and no credentials (see {@link urlShapeProblem}), or http to this machine (`localhost`,
 * `127.0.0.1`, `[::1]`, for testing). Text that does not start with `http://` or `https://` is left to
 * the schema, which says how to write it.
 */
export function webhookUrlProblem(url: string): string | undefined {
  if (!/^https?:\/\//i.test(url)) return undefined;
  const shape = urlShapeProblem(url, "webhook address");
  if (shape) return shape;
  const parsed = new URL(url);
  if (parsed.protocol === "https:") return undefined;
  if (parsed.protocol === "http:" && isLoopbackHost(parsed.hostname)) return undefined;
  return `webhook address ${quote(url)} must start with https:// (http:// is accepted only for localhost and 127.0.0.1)`;
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

/** Reports a day or date with more slots than the platform keeps (it refuses the seventh). */
export function checkSlotCount(count: number, day: string, site: Site, problems: ConfigProblem[]): void {
  if (count > PERIODS_PER_SCHEDULE)
    report(
      problems,
      site,
      `${day} has ${count} slots; the platform allows at most ${PERIODS_PER_SCHEDULE} a day`,
      "key",
    );
}

/** The canonical week of the model from the slots given per weekday, reporting overlaps. */
export function hoursOf(
  days: Partial<Record<Weekday, DayEntry>>,
  problems: ConfigProblem[],
): Record<Weekday, Slot[]> {
  const pieces = splitWeek(Object.fromEntries(WEEKDAYS.map((d) => [d, days[d]?.slots ?? []])));
  const hours = {} as Record<Weekday, Slot[]>;
  for (const day of WEEKDAYS) {
    checkOverlaps(pieces[day], problems);
    const site = days[day]?.site ?? pieces[day][0]?.entry.site;
    if (site) checkSlotCount(pieces[day].length, day, site, problems);
    hours[day] = sortedSlots(pieces[day]);
  }
  return hours;
}

export function sortedRecord<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Merges the layers a store inherits, lowest first (see the module comment for the rules), into the
 * model's canonical settings. Reports overlaps that only the combination creates (an inherited Friday
 * slot running past midnight into a Saturday the store rewrote) and webhooks left without an address.
 */
export function mergeSettings(
  layers: readonly SettingsLayer[],
  problems: ConfigProblem[],
  sections: readonly ConfigSection<unknown>[],
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
    if (seen) section.resolve(merged, out, problems);
  }
  return out;
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

/**
 * Reads and checks the `schedules:` of a category or an item: days (with `hol`), slots, overlaps on a
 * day, slots running past midnight from `hol` (the day after a holiday is not known), and at most
 * {@link PERIODS_PER_SCHEDULE} periods a day.
 *
 * `toSchedules` (src/config/slots.ts) turns checked schedules into the model's canonical form.
 *
 * @param owner - how messages name the owner, e.g. `category BREAKFAST`.
 */
export function checkSchedules(
  parsed: YamlFile,
  segments: (string | number)[],
  value: unknown,
  owner: string,
  problems: ConfigProblem[],
): void {
  if (!Array.isArray(value)) return;
  const perDay: Partial<Record<ScheduleDay, SlotEntry[]>> = {};
  value.forEach((entry, i) => {
    if (!isRecord(entry) || typeof entry.days !== "string") return;
    const days = parseDays(entry.days, true);
    if (!days.ok) return report(problems, siteOf(parsed, [...segments, i, "days"]), days.error);
    const slots = readSlots(parsed, [...segments, i, "slots"], entry.slots, problems, { allowed: true });
    for (const day of days.value) {
      for (const s of slots) {
        if (day === "hol" && crossesMidnight(s.slot))
          report(
            problems,
            s.site,
            `slot ${quote(s.text)} runs past midnight on hol: the day after a holiday is not known, end it at 24:00`,
          );
      }
      (perDay[day] ??= []).push(...slots);
    }
  });
  const pieces = splitWeek(perDay);
  const crowded = new Map<number, ScheduleDay[]>();
  for (const day of SCHEDULE_DAYS) {
    checkOverlaps(pieces[day], problems);
    const count = pieces[day].length;
    if (count > PERIODS_PER_SCHEDULE) crowded.set(count, [...(crowded.get(count) ?? []), day]);
  }
  for (const [count, days] of crowded)
    report(
      problems,
      siteOf(parsed, segments),
      `${owner} has ${count} slots on ${days.join(", ")}; the platform allows at most ${PERIODS_PER_SCHEDULE} a day`,
    );
}
