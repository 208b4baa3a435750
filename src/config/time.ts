/**
 * Time-bound entries of the files: `until:` of a switched-off item (an ISO 8601 time
 * with offset), a special day's full date (`2026-12-24`), a price's `from:` date. Every judgement takes
 * the run's clock (`now`, injected through `loadProject` options, src/config/load.ts `LoadOptions.now`),
 * never the machine's clock directly, so that tests and scheduled runs decide alike.
 *
 * Days: the files say nothing of a store's time zone, so a bare date is judged so as never to act early
 * or late anywhere: a special day is over once it has ended in every time zone (12:00 UTC of the next
 * day, UTC−12 being the last), and a price `from:` a bare date holds from 00:00 UTC of that date (write a
 * time with offset, `2026-12-01T00:00:00-05:00`, for the store's own midnight).
 */

import { parseCalendarDate, validDate, type CalendarDate } from "../calendar.js";
import { UsageError } from "../errors.js";
import { quote } from "./quote.js";
import { where, type Site } from "./report.js";

/**
 * The clock of one load of the project and where its warnings go: an entry whose time has passed is
 * not a problem (the files stay valid as time goes by) but a warning, located, that every command
 * prints (`carte validate` lists them all).
 */
export class TimeContext {
  /** Warnings, `file:line:col: message`, each once, in the order given. */
  readonly warnings: string[] = [];
  private readonly seen = new Set<string>();

  constructor(readonly now: Date = new Date()) {}

  /** Records a warning at a site of a file (once per site and message). */
  warn(site: Site, message: string): void {
    const text = `${where(site)}: ${message}`;
    if (this.seen.has(text)) return;
    this.seen.add(text);
    this.warnings.push(text);
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

/** Whether a day is over at `now`: it has ended in every time zone (12:00 UTC of the next day). */
export function dayOver(date: CalendarDate, now: Date): boolean {
  return now.getTime() >= Date.UTC(date.year, date.month - 1, date.day + 1) + 12 * HOUR;
}

/**
 * Whether a dated special day is near enough to be on the platform: the platform keeps special days by
 * month and day, repeated every year, so a date is applied only within the year before it (else the
 * platform would apply it on the same day of an earlier year too).
 */
export function withinAYear(date: CalendarDate, now: Date): boolean {
  return Date.UTC(date.year, date.month - 1, date.day) - now.getTime() < 365 * DAY - 14 * HOUR;
}

/**
 * The instant a `from:` starts: a date and time with offset as written, a bare `YYYY-MM-DD` at 00:00 UTC
 * of that date; `undefined` when the text is neither.
 */
export function startOf(text: string): number | undefined {
  const date = parseCalendarDate(text);
  if (date) return Date.UTC(date.year, date.month - 1, date.day);
  const instant = parseInstant(text);
  return instant.ok ? instant.ms : undefined;
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
