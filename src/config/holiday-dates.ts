/**
 * Holiday dates the platform does not have. `holidays:` can only change the slots of the platform's own
 * holiday days (docs/platform-api.md §2.5 has no call to create one, src/kinds/holidays.ts): a date that is
 * not one of them would be planned as nothing at all, and the store would stay open on a day the files close.
 * So such a date is an error naming the store, the file and the date, before any write.
 *
 * The platform's holidays are known once a store's holidays are read (`carte plan`, `carte apply`), and
 * offline only for the embedded emulator, whose holidays are those of each store's country (`carte
 * validate` without a `platform:` section, src/run/session.ts `embeddedHolidays`). Against a real
 * platform, `carte validate` cannot tell. The platform keeps holidays by country: when carte knows a
 * store's country (the embedded emulator's stores), the problem names that country's calendar.
 */

import { countryName } from "../countries.js";
import type { ConfigProblem } from "../errors.js";
import { holidaysState } from "../kinds/store-schedule.js";
import type { DesiredState, StoreState } from "../model.js";
import type { LoadedProject } from "./load.js";
import { bare } from "../source/quote.js";

/**
 * The holiday dates (`MM-DD`) of a store as read from the platform, `undefined` when its holidays were
 * not read.
 */
export function holidayDates(state: StoreState | undefined): ReadonlySet<string> | undefined {
  const hours = state && holidaysState.get(state);
  return hours === undefined ? undefined : new Set(Object.keys(hours));
}

/** A holiday date a store's files write that is not a holiday of the store on the platform. */
export interface HolidayMiss {
  /** Where the date is written (the layer that writes it: carte.yaml `defaults:`, a group, the store). */
  site: { file: string; line: number; col: number; pointer: string };
  date: string;
  /** The store's key. */
  store: string;
  /** The store's holidays on the platform, `MM-DD`, sorted. */
  known: string[];
  /** The store's country (ISO 3166-1 alpha-2), whose calendar these holidays are, when carte knows it. */
  country?: string | undefined;
}

/** The country of a store (ISO 3166-1 alpha-2) by its key, `undefined` when carte does not know it. */
export type StoreCountry = (storeKey: string) => string | undefined;

const noCountry: StoreCountry = () => undefined;

/**
 * The holiday dates that are not holidays of their store on the platform, one entry per store and date.
 *
 * @param project - the loaded project (for where each date is written, and the ownership of holidays).
 * @param platformHolidays - the platform's holiday dates of a store, `MM-DD`, or `undefined` when they
 *   are not known (the store was not read): then the store is not judged.
 * @param desired - the stores to judge (default: every store of the project).
 * @param countryOf - the country of a store, whose calendar its holidays are, when known.
 */
export function holidayMisses(
  project: LoadedProject,
  platformHolidays: (storeKey: string) => ReadonlySet<string> | undefined,
  desired: DesiredState = project.desired,
  countryOf: StoreCountry = noCountry,
): HolidayMiss[] {
  if (project.ownership.holiday === "ignore") return [];
  const misses: HolidayMiss[] = [];
  for (const [key, store] of Object.entries(desired.stores)) {
    const dates = holidaysState.get(store);
    if (dates === undefined) continue;
    const known = platformHolidays(key);
    if (known === undefined) continue;
    for (const date of Object.keys(dates)) {
      if (known.has(date)) continue;
      const site = project.holidaySites?.get(key)?.get(date);
      misses.push({
        site: {
          file: site?.file ?? project.configFile,
          line: site?.line ?? 0,
          col: site?.col ?? 0,
          pointer: site?.pointer ?? "",
        },
        date,
        store: key,
        known: [...known].sort(),
        country: countryOf(key),
      });
    }
  }
  return misses;
}

/** Stores named in full in a problem; past this many, the first ones and how many more. */
const STORES_NAMED = 5;

/**
 * The calendar the stores of a problem share, in words (`Colombia's`), when carte knows their one
 * country; `undefined` otherwise.
 */
function calendarOf(group: readonly HolidayMiss[]): string | undefined {
  const countries = new Set(group.map((m) => m.country));
  const [country] = countries;
  const name = countries.size === 1 && country !== undefined ? countryName(country) : undefined;
  return name === undefined ? undefined : `${name}'s`;
}

/**
 * One located problem per date and place it is written: a date written once in carte.yaml `defaults:`
 * or in a group is reported once, at its own line, with the stores it affects (all of them named when
 * few, else the first ones and the count), not once per store.
 */
export function holidayMissProblems(misses: readonly HolidayMiss[]): ConfigProblem[] {
  const bySite = new Map<string, HolidayMiss[]>();
  for (const m of misses) {
    const key = `${m.site.file}\0${m.site.line}\0${m.site.col}\0${m.date}`;
    const list = bySite.get(key);
    if (list) list.push(m);
    else bySite.set(key, [m]);
  }
  return [...bySite.values()].map((group) => {
    const { site, date } = group[0]!;
    const stores = [...new Set(group.map((m) => bare(m.store)))];
    const lists = new Set(group.map((m) => m.known.join(", ") || "none"));
    const shared = lists.size === 1 ? [...lists][0]! : undefined;
    const calendar = calendarOf(group);
    const fix =
      `so carte cannot set its hours or close it: write ${date} under special_days: instead ` +
      `(- { name: …, date: "${date}", slots: [] } closes the store that day)`;
    const message =
      stores.length === 1
        ? `holiday ${date} is not a holiday of store ${stores[0]} on the platform (its holidays${calendar === undefined ? "" : `, ${calendar}`}: ${shared}), ${fix}`
        : `holiday ${date} is not a holiday on the platform of the ${stores.length} stores it affects ` +
          `(${stores.length <= STORES_NAMED ? stores.join(", ") : `${stores.slice(0, STORES_NAMED).join(", ")} and ${stores.length - STORES_NAMED} more`})` +
          `${shared === undefined ? "" : `, whose holidays are ${calendar === undefined ? "" : `${calendar}: `}${shared}`}, ${fix}`;
    return { ...site, message };
  });
}

/**
 * The problems of holiday dates that are not holidays of their store on the platform: {@link
 * holidayMisses} grouped by {@link holidayMissProblems} (one problem per date and place written).
 */
export function holidayDateProblems(
  project: LoadedProject,
  platformHolidays: (storeKey: string) => ReadonlySet<string> | undefined,
  desired: DesiredState = project.desired,
  countryOf: StoreCountry = noCountry,
): ConfigProblem[] {
  return holidayMissProblems(holidayMisses(project, platformHolidays, desired, countryOf));
}
