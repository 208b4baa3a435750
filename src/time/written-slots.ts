/**
 * How the settings sections of the slot kinds (store hours, holidays, special days) and the schedules of
 * categories and items read slots from the files: each slot parsed with its site, split at midnight into
 * the platform's pieces, overlaps and crowded days reported where they are written. The kinds' sections
 * (`ResourceKind.config`) and the catalog checks (src/config/check.ts) share these helpers: here, below
 * both.
 */

import type { ConfigProblem } from "../errors.js";
import type { Slot } from "../model.js";
import { Limits } from "../platform/wire.js";
import { list, quote, report, siteOf, where, isRecord, type Site } from "../source/problems.js";
import {
  compareSlots,
  crossesMidnight,
  nextWeekday,
  parseDays,
  parseSlot,
  SCHEDULE_DAYS,
  SLOT_PATTERN,
  splitSlot,
  type MinuteSlot,
  type ScheduleDay,
} from "./days-and-slots.js";
import type { YamlFile } from "../source/yaml.js";

/** The most time periods one schedule may hold (docs/platform-api.md §4.11). */
export const PERIODS_PER_SCHEDULE = Limits.periodsPerSchedule;

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
export function splitWeek(days: Partial<Record<ScheduleDay, SlotEntry[]>>): Record<ScheduleDay, Piece[]> {
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

/**
 * Reads and checks the `schedules:` of a category or an item: days (with `hol`), slots, overlaps on a
 * day, slots running past midnight from `hol` (the day after a holiday is not known), and at most
 * {@link PERIODS_PER_SCHEDULE} periods a day.
 *
 * `toSchedules` (src/time/days-and-slots.ts) turns checked schedules into the model's canonical form.
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
