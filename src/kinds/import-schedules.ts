/**
 * Writing the model's schedules and slots back in the files' form: days as `mon-fri,hol` (runs of
 * three or more weekdays as ranges), slots as `"HH:MM-HH:MM"`. Every slot of the model starts before it
 * ends (the platform's form), so each is written as it is.
 */

import type { Schedule, Slot } from "../model.js";

const WEEK = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/** A slot as the files write it. */
export function slotText(slot: Slot): string {
  return `${slot.start}-${slot.end}`;
}

/** The platform's end of a day (it has no `24:00`), src/time/days-and-slots.ts. */
const DAY_END = "23:59";

/**
 * A slot of a store's day (hours, holidays, special days) as people write it: one that ends at the
 * platform's end of the day, `23:59`, is written ending at `24:00` (the files read both the same).
 */
export function daySlotText(slot: Slot): string {
  return slot.end === DAY_END ? `${slot.start}-24:00` : slotText(slot);
}

/**
 * A week of a store's hours as people write it, per weekday: a slot the platform keeps as two halves
 * (`fri 11:00-23:59` and `sat 00:00-01:00`) is written once, on the day it starts (`fri 11:00-01:00`),
 * as the files split it again (src/time/days-and-slots.ts); the other slots as {@link daySlotText}.
 * A half is joined only when the slot it makes ends before it starts (else it would not run past
 * midnight) and the next day's half does not itself run to the end of that day.
 */
export function weekSlotsText(hours: Readonly<Record<string, readonly Slot[]>>): Record<string, string[]> {
  const days = new Map(
    WEEK.map((d) => [d, [...(hours[d] ?? [])].sort((a, b) => (a.start < b.start ? -1 : 1))]),
  );
  const joined = new Map<string, string>();
  for (const [i, day] of WEEK.entries()) {
    const next = days.get(WEEK[(i + 1) % WEEK.length]!)!;
    const last = days.get(day)!.at(-1);
    const half = next.find((s) => s.start === "00:00" && s.end !== DAY_END);
    if (!last || last.end !== DAY_END || !half || !(half.end < last.start) || half === last) continue;
    joined.set(`${day} ${last.start}`, `${last.start}-${half.end}`);
    next.splice(next.indexOf(half), 1);
  }
  return Object.fromEntries(
    WEEK.map((day) => [day, days.get(day)!.map((s) => joined.get(`${day} ${s.start}`) ?? daySlotText(s))]),
  );
}

/**
 * Days (`mon`…`sun`, `hol`, in the platform's order) as the files write them: `mon-fri,sun,hol`, and
 * `daily` for the seven days of the week.
 */
export function daysText(days: readonly string[]): string {
  const set = new Set(days);
  if (WEEK.every((d) => set.has(d))) return set.has("hol") ? "daily,hol" : "daily";
  const parts: string[] = [];
  for (let i = 0; i < WEEK.length;) {
    if (!set.has(WEEK[i]!)) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < WEEK.length && set.has(WEEK[j + 1]!)) j++;
    if (j - i >= 2) parts.push(`${WEEK[i]}-${WEEK[j]}`);
    else for (let k = i; k <= j; k++) parts.push(WEEK[k]!);
    i = j + 1;
  }
  if (set.has("hol")) parts.push("hol");
  return parts.join(",");
}

/** Schedules of an item or a category as the files write them. */
export function schedulesText(schedules: readonly Schedule[]): { days: string; slots: string[] }[] {
  return schedules.map((s) => ({ days: daysText(s.days.split(",")), slots: s.periods.map(slotText) }));
}
