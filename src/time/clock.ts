/**
 * Time-bound entries of the files: `until:` / `for:` of a switched-off item, a special day's full date
 * (`2026-12-24`), a price's `from:` and `until:`, an offer window (`available: {from, until}`). Every judgement takes the run's clock (`now`, injected through
 * `loadProject` options, src/config/load.ts `LoadOptions.now`), never the machine's clock directly, so
 * that tests and scheduled runs decide alike.
 *
 * Local times: a bare time (`18:00`), a date and time without offset (`2026-12-24 18:00`), a bare date
 * (`from: 2026-12-01`, a dated special day) and `until: close` are the store's wall time, in its
 * `timezone:` (src/time/zone.ts). They are read once per file ({@link parseUntil}, {@link parseFrom})
 * and turned into instants once per store ({@link StoreClock}), when the files are resolved: the desired
 * state holds instants only, and planning stays pure. A store that has such an entry and no time zone is
 * a located problem. A date and time with its offset (`2026-12-24T18:00:00-05:00`) and `for: 2h` need no
 * zone.
 */

import { parseCalendarDate, validDate, type CalendarDate } from "../calendar.js";
import { UsageError, warning, type ConfigProblem, type Diagnostic } from "../errors.js";
import { quote } from "../source/quote.js";
import { rangeOf, report, where, type Site } from "../source/problems.js";
import { isoInZone, localText, wallTime, zonedInstant, type WallTime } from "./zone.js";

/**
 * The clock of one load of the project and where its warnings go: an entry whose time has passed is
 * not a problem (the files stay valid as time goes by) but a warning, located, that every command
 * prints (`carte validate` lists them all).
 */
export class TimeContext {
  /** Warnings, each located at its site, each once, in the order given. */
  readonly warnings: Diagnostic[] = [];
  private readonly seen = new Set<string>();

  constructor(readonly now: Date = new Date()) {}

  /** Records a warning at a site of a file (once per site and message). */
  warn(site: Site, message: string): void {
    const text = `${where(site)}: ${message}`;
    if (this.seen.has(text)) return;
    this.seen.add(text);
    this.warnings.push(warning(message, { range: rangeOf(site) }));
  }

  /**
   * Reports a problem at a site once, however many stores inherit the entry written there: once per
   * message, or once per `key` when given (a message that names the first store only).
   */
  problem(problems: ConfigProblem[], site: Site, message: string, key = message): void {
    const text = `${where(site)}: ${key}`;
    if (this.seen.has(text)) return;
    this.seen.add(text);
    report(problems, site, message);
  }
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The instant of an ISO 8601 date and time with an offset (`2026-11-25T18:00:00-05:00`, `…Z`), in ms
 * since the epoch; an error message when the text is not one (no offset, an impossible date or time).
 */
export function parseInstant(text: string): { ok: true; ms: number } | { ok: false; error: string } {
  const m = INSTANT.exec(text);
  const bad = {
    ok: false as const,
    error: `${quote(text)} is not a date and time with an offset: write e.g. 2026-11-25T18:00:00-05:00`,
  };
  if (!m) return bad;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? "0"].map(
    Number,
  ) as [number, number, number, number, number, number];
  if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return bad;
  const offset = m[7]!;
  if (offset !== "Z" && (Number(offset.slice(1, 3)) > 14 || Number(offset.slice(4)) > 59)) return bad;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? { ok: true, ms } : bad;
}

/**
 * A time as the files write it, read once per file, turned into an instant once per store
 * ({@link StoreClock.instant}):
 * - `instant`: a date and time with its offset (`2026-12-24T18:00:00-05:00`), the same everywhere;
 * - `local`: a date and time of the store's clock (`2026-12-24 18:00`; a bare date is its 00:00);
 * - `time`: a time of the store's clock today (`18:00`), tomorrow once it has passed at the run's clock;
 * - `close`: the end of today's opening hours of the store;
 * - `for`: a duration from the run's clock (`for: 2h`), in ms.
 */
export type WrittenTime =
  | { kind: "instant"; ms: number }
  | { kind: "local"; wall: WallTime }
  | { kind: "time"; hour: number; minute: number }
  | { kind: "close" }
  | { kind: "for"; ms: number };

/** A time as a file writes it, read once per file, with its text and where it is written. */
export interface WrittenAt {
  time: WrittenTime;
  text: string;
  site: Site;
}

/** The forms `until:` takes, in words, for messages. */
export const UNTIL_FORMS =
  'write a time of the store\'s clock, "18:00" (today, or tomorrow once it has passed), a date and time, ' +
  '"2026-12-24 18:00", close (the end of today\'s opening hours), or a date and time with its offset, ' +
  "2026-12-24T18:00:00-05:00";

/** The forms `from:` takes, in words, for messages. */
export const FROM_FORMS =
  'write a date, 2026-12-01 (from the store\'s midnight), a date and time, "2026-12-01 06:00", or a date ' +
  "and time with its offset, 2026-12-01T00:00:00-05:00";

const CLOCK = /^(\d{1,2}):(\d{2})$/;
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{1,2}):(\d{2})(?::00)?$/;
const DURATION = /^(?:(\d{1,3})d)?\s*(?:(\d{1,4})h)?\s*(?:(\d{1,5})m(?:in)?)?$/;
/** The longest `for:`: a year. */
const MAX_FOR = 366 * DAY;

function clockTime(h: string, m: string): { hour: number; minute: number } | undefined {
  const [hour, minute] = [Number(h), Number(m)];
  return hour <= 23 && minute <= 59 ? { hour, minute } : undefined;
}

/** A local date and time `YYYY-MM-DD HH:MM` (or with `T`), `undefined` when the text is not a valid one. */
function localDateTime(text: string): WallTime | undefined {
  const m = LOCAL.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const time = clockTime(m[4]!, m[5]!);
  return time && validDate(year, month, day) ? { year, month, day, ...time } : undefined;
}

/**
 * Reads an `until:`: a time of the store's clock, a local date and time, `close`, or a date and time with
 * its offset; an error in words naming the accepted forms otherwise (`6pm`, `25:00`).
 */
export function parseUntil(text: string): { ok: true; value: WrittenTime } | { ok: false; error: string } {
  if (text === "close") return { ok: true, value: { kind: "close" } };
  const clock = CLOCK.exec(text);
  if (clock) {
    const time = clockTime(clock[1]!, clock[2]!);
    if (time) return { ok: true, value: { kind: "time", ...time } };
    return {
      ok: false,
      error: `until: ${quote(text)} is not a time of day (00:00 to 23:59): ${UNTIL_FORMS}`,
    };
  }
  const wall = localDateTime(text);
  if (wall) return { ok: true, value: { kind: "local", wall } };
  const instant = parseInstant(text);
  if (instant.ok) return { ok: true, value: { kind: "instant", ms: instant.ms } };
  return { ok: false, error: `until: ${quote(text)} is not a time: ${UNTIL_FORMS}` };
}

/** Reads a `for:` (`2h`, `90m`, `1h30m`, `1d`): a duration of a minute to a year, or an error in words. */
export function parseFor(text: string): { ok: true; value: WrittenTime } | { ok: false; error: string } {
  const m = text.trim() === "" ? null : DURATION.exec(text.trim());
  const ms = m ? Number(m[1] ?? 0) * DAY + Number(m[2] ?? 0) * HOUR + Number(m[3] ?? 0) * 60_000 : 0;
  if (ms < 60_000 || ms > MAX_FOR)
    return {
      ok: false,
      error: `for: ${quote(text)} is not a duration: write hours and minutes, 2h, 90m or 1h30m (or days, 1d), up to a year`,
    };
  return { ok: true, value: { kind: "for", ms } };
}

/** Reads a `from:`: a date (the store's midnight), a local date and time, or a date and time with offset. */
export function parseFrom(text: string): { ok: true; value: WrittenTime } | { ok: false; error: string } {
  const date = parseCalendarDate(text);
  if (date) return { ok: true, value: { kind: "local", wall: { ...date, hour: 0, minute: 0 } } };
  const wall = localDateTime(text);
  if (wall) return { ok: true, value: { kind: "local", wall } };
  const instant = parseInstant(text);
  if (instant.ok) return { ok: true, value: { kind: "instant", ms: instant.ms } };
  return { ok: false, error: `from: ${quote(text)} is not a date: ${FROM_FORMS}` };
}

/** The forms the end of a dated price or of an offer window (`until:`) takes, in words, for messages. */
export const END_FORMS =
  "write a date, 2026-12-31 (through that day: it ends at the store's next midnight), a date and time, " +
  '"2026-12-31 22:00", or a date and time with its offset, 2026-12-31T22:00:00-05:00';

/**
 * Reads the `until:` of a dated price or of an offer window (`available: {from, until}`): a date, which
 * counts in full (the end is the store's midnight after it, so `until: 2026-12-31` holds through New
 * Year's Eve), a local date and time, or a date and time with its offset. Unlike a switched-off item's
 * `until:`, a bare time of day or `close` is not accepted: these ends are dates.
 */
export function parseEnd(text: string): { ok: true; value: WrittenTime } | { ok: false; error: string } {
  const date = parseCalendarDate(text);
  if (date)
    return { ok: true, value: { kind: "local", wall: { ...date, day: date.day + 1, hour: 0, minute: 0 } } };
  const wall = localDateTime(text);
  if (wall) return { ok: true, value: { kind: "local", wall } };
  const instant = parseInstant(text);
  if (instant.ok) return { ok: true, value: { kind: "instant", ms: instant.ms } };
  return { ok: false, error: `until: ${quote(text)} is not a date: ${END_FORMS}` };
}

/** The problem of an `until:` that is not after its `from:`. */
export function untilNotAfter(from: string, until: string): string {
  return (
    `until: ${quote(until)} is not after from: ${quote(from)}: write an end after the start ` +
    "(a date counts in full: from: 2026-12-01 with until: 2026-12-01 is that one day)"
  );
}

/**
 * Whether a written end comes after a written start without knowing the store's zone: `true` or `false`
 * when both are local times or both instants, `undefined` when one is local and the other an instant (a
 * store's clock decides, {@link StoreClock.instant}).
 */
export function endsAfter(start: WrittenTime, end: WrittenTime): boolean | undefined {
  if (start.kind === "instant" && end.kind === "instant") return end.ms > start.ms;
  if (start.kind === "local" && end.kind === "local") {
    // Compared as UTC wall clocks (day overflow of a date's end included): the zone moves both alike,
    // but for the hour a DST change adds or takes, which no window of carte's files is that short.
    const ms = (w: WallTime) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);
    return ms(end.wall) > ms(start.wall);
  }
  return undefined;
}

/** The end of a store's opening hours of one day, as `HH:MM` on the day itself or the next one. */
export interface DayEnd {
  /** Days after the day asked for (0: that day, 1: the next, for a slot that runs past midnight). */
  days: number;
  hour: number;
  minute: number;
}

/**
 * The clock of one store during one load: the run's clock, the store's time zone (`undefined` when no
 * layer writes `timezone:`), and the end of its opening hours on a date (for `until: close`). Turns the
 * times the files write into instants; a time that needs a zone the store lacks, or `close` on a day the
 * store is closed, is a located problem (each site once).
 */
export class StoreClock {
  constructor(
    readonly time: TimeContext,
    readonly store: string,
    readonly zone: string | undefined,
    private readonly problems: ConfigProblem[],
    private readonly closing: (wall: WallTime) => DayEnd | "closed" | "no hours" = () => "no hours",
    /**
     * The store has no zone because the `timezone:` its files write is no zone, a problem reported
     * where it is written: a local time it cannot read is then not reported again.
     */
    private readonly zoneReported = false,
  ) {}

  /** The run's clock, in ms since the epoch. */
  get now(): number {
    return this.time.now.getTime();
  }

  /**
   * The instant of a written time for this store, in ms since the epoch; `undefined` when it cannot be
   * known (the problem is reported at `site`).
   *
   * @param text - the time as written, for messages.
   */
  instant(written: WrittenTime, text: string, site: Site): number | undefined {
    if (written.kind === "instant") return written.ms;
    if (written.kind === "for") return this.now + written.ms;
    const zone = this.zone;
    if (zone === undefined) {
      if (this.zoneReported) return undefined;
      this.time.problem(
        this.problems,
        site,
        `${quote(text)} is read on the store's clock, and store ${quote(this.store)} has no time zone: add timezone: with ` +
          "its IANA zone name (for example timezone: America/Bogota) to the store file, or to defaults: of " +
          "its group or of carte.yaml",
        "no time zone",
      );
      return undefined;
    }
    if (written.kind === "local") return zonedInstant(written.wall, zone);
    const today = wallTime(this.now, zone);
    if (written.kind === "time") {
      const at = zonedInstant({ ...today, ...written }, zone);
      return at > this.now ? at : zonedInstant({ ...today, day: today.day + 1, ...written }, zone);
    }
    const end = this.closing(today);
    if (typeof end === "string") {
      this.time.problem(
        this.problems,
        site,
        `until: close is the end of today's opening hours, and store ${quote(this.store)} ` +
          (end === "closed" ? "is closed today" : "has no opening hours (hours:)") +
          `: write a time instead, "18:00"`,
      );
      return undefined;
    }
    return zonedInstant({ ...today, day: today.day + end.days, hour: end.hour, minute: end.minute }, zone);
  }

  /**
   * The instants of a written start and end for this store, in ms since the epoch (−∞ without a start,
   * +∞ without an end); `undefined` when one cannot be known (reported as {@link instant} does) or when
   * the end is not after the start (a located problem at the end, once per site).
   */
  span(start: WrittenAt | undefined, end: WrittenAt | undefined): { start: number; end: number } | undefined {
    const from = start ? this.instant(start.time, start.text, start.site) : -Infinity;
    const until = end ? this.instant(end.time, end.text, end.site) : Infinity;
    if (from === undefined || until === undefined) return undefined;
    if (until <= from) {
      this.time.problem(this.problems, end!.site, untilNotAfter(start!.text, end!.text));
      return undefined;
    }
    return { start: from, end: until };
  }

  /** The instant a calendar day starts in this store (its local midnight); `undefined` as {@link instant}. */
  dayStart(date: CalendarDate, text: string, site: Site): number | undefined {
    return this.instant({ kind: "local", wall: { ...date, hour: 0, minute: 0 } }, text, site);
  }

  /**
   * An instant as the store's people read it, with its date (`2026-11-26 18:00 GMT-5`), true whatever
   * day it is read: it is part of the desired state, whose digest a saved plan keeps; `undefined`
   * without a zone. Words relative to a day (`(today)`) are the plan's views' (src/render/view.ts).
   */
  shown(ms: number): string | undefined {
    return this.zone === undefined ? undefined : localText(ms, this.zone);
  }

  /**
   * An instant as ISO 8601 to the second with the store's offset (`+00:00` without a zone), what the
   * platform is sent.
   */
  iso(ms: number): string {
    return isoInZone(ms, this.zone ?? "UTC");
  }
}

/**
 * Whether a dated day is over for a store at the run's clock (its next local midnight has passed), and
 * whether it is near enough to be on the platform: the platform keeps special days by month and day,
 * repeated every year, so a date is applied only once the same day of the year before has ended there
 * (else the platform would apply it on that earlier day too). `undefined` when the store's clock cannot
 * tell (no time zone: the problem is reported).
 */
export function dayWindow(
  date: CalendarDate,
  text: string,
  site: Site,
  clock: StoreClock,
): { over: boolean; near: boolean } | undefined {
  const end = clock.dayStart({ ...date, day: date.day + 1 }, text, site);
  if (end === undefined) return undefined;
  const lastYear = clock.dayStart({ ...date, year: date.year - 1, day: date.day + 1 }, text, site)!;
  return { over: clock.now >= end, near: clock.now >= lastYear };
}

/**
 * The run's clock from the `CARTE_NOW` environment variable (an ISO 8601 date and time with offset), for
 * tests and for trying a scheduled change ahead of time; the real time when it is not set.
 *
 * @throws UsageError naming the variable when it is set to something else than a date and time with offset.
 */
export function clockFromEnv(env: NodeJS.ProcessEnv): Date | undefined {
  const text = env.CARTE_NOW;
  if (text === undefined || text === "") return undefined;
  const parsed = parseInstant(text);
  if (!parsed.ok) throw new UsageError(`CARTE_NOW: ${parsed.error}`);
  return new Date(parsed.ms);
}
