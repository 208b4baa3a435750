/**
 * Store time zones (`timezone:`, an IANA name such as `America/Bogota`) and the local times of the files
 * turned into instants: `until: "18:00"`, `until: "2026-12-24 18:00"`, a price `from:` a bare date, a
 * dated special day. Everything goes through `Intl.DateTimeFormat` (the zone database Node ships), no
 * date library.
 *
 * Daylight saving: a wall time that does not exist (the hour skipped on a spring-forward day) is moved
 * forward by the length of the gap (`00:30` on a day that jumps from 00:00 to 01:00 is `01:30`); a wall
 * time that exists twice (the hour repeated on a fall-back day) is the earlier of the two instants. These
 * are the rules of JavaScript's Temporal (`disambiguation: "compatible"`) and of most calendars.
 */

import { closest } from "../suggest.js";

const formatters = new Map<string, Intl.DateTimeFormat>();
const labels = new Map<string, Intl.DateTimeFormat>();

/** The formatter of a zone's wall time (numbers, 24-hour clock), made once per zone. */
function wallFormat(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      weekday: "short",
    });
    formatters.set(zone, f);
  }
  return f;
}

/** A wall time of a zone: the calendar date and the time of day, as a clock there shows it. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** 0 = Monday … 6 = Sunday. */
  weekday?: number;
}

const WEEKDAY_INDEX = new Map([
  ["Mon", 0],
  ["Tue", 1],
  ["Wed", 2],
  ["Thu", 3],
  ["Fri", 4],
  ["Sat", 5],
  ["Sun", 6],
]);

/** The wall time of `zone` at the instant `ms` (ms since the epoch), to the minute, with its weekday. */
export function wallTime(ms: number, zone: string): WallTime & { second: number; weekday: number } {
  const parts = new Map(
    wallFormat(zone)
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  const n = (type: Intl.DateTimeFormatPartTypes) => Number(parts.get(type));
  return {
    year: n("year"),
    month: n("month"),
    day: n("day"),
    hour: n("hour"),
    minute: n("minute"),
    second: n("second"),
    weekday: WEEKDAY_INDEX.get(parts.get("weekday") ?? "") ?? 0,
  };
}

/** The offset of `zone` from UTC at the instant `ms`, in ms (−5 h for Bogotá: −18 000 000). */
export function offsetAt(ms: number, zone: string): number {
  const w = wallTime(ms, zone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

const HOUR = 3_600_000;

/**
 * The instant (ms since the epoch) of a wall time in `zone`. A wall time skipped by a spring-forward
 * change is moved forward by the gap; one repeated by a fall-back change is the earlier instant (see the
 * module comment).
 */
export function zonedInstant(w: WallTime, zone: string): number {
  const local = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);
  // The offsets a day before and a day after: a zone changes offset at most once within them.
  const before = offsetAt(local - 24 * HOUR, zone);
  const after = offsetAt(local + 24 * HOUR, zone);
  const fits = (offset: number) => offsetAt(local - offset, zone) === offset;
  const candidates = [...new Set([before, after])].filter(fits).map((o) => local - o);
  if (candidates.length > 0) return Math.min(...candidates);
  // In the gap of a spring-forward change: the offset before it moves the time forward by the gap.
  return local - before;
}

/** The canonical IANA name of a zone (`america/bogota` → `America/Bogota`), or `undefined` when unknown. */
export function canonicalZone(name: string): string | undefined {
  if (name.length === 0 || name.length > 64 || !/^[A-Za-z0-9/_+-]+$/.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The closest IANA zone name to a misspelled one (src/suggest.ts), or `undefined`. */
export function suggestZone(name: string): string | undefined {
  return closest(name, Intl.supportedValuesOf("timeZone"));
}

/**
 * How people of a store read an instant: its wall time and the zone's short name as `Intl` gives it
 * (`18:00 GMT-5`, `CST`), with `(today)` or `(tomorrow)` when it falls on the store's date at `now` or
 * the day after, else with its date (`2026-12-24 18:00 GMT-3`). Without `now`, always with its date:
 * the text stays true whatever day it is read.
 */
export function localText(ms: number, zone: string, now?: number): string {
  let f = labels.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "short" });
    labels.set(zone, f);
  }
  const name = f.formatToParts(new Date(ms)).find((p) => p.type === "timeZoneName")?.value ?? zone;
  const w = wallTime(ms, zone);
  const hhmm = `${pad(w.hour)}:${pad(w.minute)}`;
  const date = dateKey(w);
  if (now === undefined) return `${date} ${hhmm} ${name}`;
  const today = wallTime(now, zone);
  if (date === dateKey(today)) return `${hhmm} ${name} (today)`;
  const next = new Date(Date.UTC(today.year, today.month - 1, today.day + 1));
  if (date === `${next.getUTCFullYear()}-${pad(next.getUTCMonth() + 1)}-${pad(next.getUTCDate())}`)
    return `${hhmm} ${name} (tomorrow)`;
  return `${date} ${hhmm} ${name}`;
}

/** An instant written as ISO 8601 with the zone's offset at it, to the second (`2026-11-26T18:00:00-05:00`). */
export function isoInZone(ms: number, zone: string): string {
  const w = wallTime(ms, zone);
  const offset = offsetAt(ms, zone) / 60_000;
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  return (
    `${dateKey(w)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

function dateKey(w: { year: number; month: number; day: number }): string {
  return `${w.year}-${pad(w.month)}-${pad(w.day)}`;
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

/**
 * The store's date and time of an ISO 8601 instant written with the store's offset, as its people read
 * it on a page reviewed on any later day: `Sat 6 Dec 2026, 18:00` — its own wall time, never words
 * relative to the day it was written ("today", "tomorrow"), and no instant repeated beside it.
 * `undefined` for text that is not such an instant.
 *
 * @example wallClockText("2026-12-06T18:00:00-05:00") // "Sun 6 Dec 2026, 18:00"
 */
export function wallClockText(iso: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/.exec(iso);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return `${WEEKDAYS[date.getUTCDay()]!} ${day} ${MONTHS[month - 1]!} ${year}, ${m[4]!}:${m[5]!}`;
}
