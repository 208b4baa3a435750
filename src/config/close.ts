/**
 * `until: close`: the end of a store's opening hours on a day, from its merged settings: the special
 * day written on that date, else the platform's holiday the files write hours for on that date
 * (`holidays:`, `[]` closed), else the weekly `hours:`. A holiday the files do not write keeps the
 * platform's hours, which the files cannot tell: the weekly hours count then. A slot that ends at 23:59
 * and goes on at 00:00 of the next day (a slot written past midnight, split as the platform takes it)
 * ends with that next slot.
 */

import { WEEKDAYS, type Slot, type StoreSettings } from "../model.js";
import { hoursState } from "../kinds/store-schedule.js";
import { specialDaysState } from "../kinds/store-schedule.js";
import { holidaysState } from "../kinds/store-schedule.js";
import type { DayEnd } from "../time/clock.js";
import type { WallTime } from "../time/zone.js";

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * The end of the opening hours of a store on the date of `wall`: `closed` when the store has no slot
 * that day, `no hours` when its files manage no hours.
 */
export function closingOf(settings: StoreSettings): (wall: WallTime) => DayEnd | "closed" | "no hours" {
  const hours = hoursState.get(settings);
  const special = specialDaysState.get(settings);
  const holidays = holidaysState.get(settings);
  const slotsOn = (date: Date): Slot[] | undefined => {
    const key = `${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
    // Tables keyed by dates of the files are read by own keys only (docs/security.md).
    const day = special && Object.hasOwn(special, key) ? special[key] : undefined;
    if (day) return day.slots;
    // A holiday the files write counts as a special day does: `[]` is closed, shorter hours end sooner.
    if (holidays && Object.hasOwn(holidays, key)) return holidays[key];
    return hours?.[WEEKDAYS[(date.getUTCDay() + 6) % 7]!];
  };
  return (wall) => {
    const today = new Date(Date.UTC(wall.year, wall.month - 1, wall.day));
    const slots = slotsOn(today);
    if (slots === undefined) return hours === undefined ? "no hours" : "closed";
    if (slots.length === 0) return "closed";
    let end = slots.map((s) => s.end).sort()[slots.length - 1]!;
    let days = 0;
    if (end === "23:59") {
      const next = slotsOn(new Date(today.getTime() + 86_400_000))?.find((s) => s.start === "00:00");
      if (next) [end, days] = [next.end, 1];
    }
    const [hour, minute] = end.split(":").map(Number) as [number, number];
    return { days, hour, minute };
  };
}
