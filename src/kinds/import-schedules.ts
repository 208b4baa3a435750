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

/** Days (`mon`…`sun`, `hol`, in the platform's order) as the files write them: `mon-fri,sun,hol`. */
export function daysText(days: readonly string[]): string {
  const set = new Set(days);
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
