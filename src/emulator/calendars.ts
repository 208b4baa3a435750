/**
 * The holiday days of each store (emulator's choice, docs/platform-api.md §3.6): the platform keeps
 * holidays by country, and its API can add slots to a holiday day (`POST
 * /store/schedule/{storeId}/holiday/{holidayDayId}`, docs/platform-api.md §2.5) but has no call that creates
 * one. So the emulator gives each store the holidays of its country (the seed's `country`, Colombia's by
 * default), or the dates the seed writes for it (`holidays:`), each with the id `month * 100 + day` and
 * `cityId` null (docs/platform-api.md §4.7).
 *
 * Each country's calendar holds its national holidays on a fixed date, as the platform would list them
 * by date: a holiday the law moves to a Monday or to a nearby day (Colombia's, most of Argentina's,
 * Chile's, Ecuador's, Mexico's) is listed on its legal date or, for Colombia's, left out; the days that
 * follow Easter (Carnival, Holy Thursday, Good Friday, Corpus Christi) are left out. A seed that needs
 * another day writes the store's own calendar.
 */

import { parseMonthDay } from "../time/days-and-slots.js";
import { COUNTRY_CODES } from "../countries.js";

/**
 * A holiday day of a store (docs/platform-api.md §4.7 `storeSpecialScheduleDays` element, without its slots).
 */
export interface HolidayDay {
  /** `month * 100 + day`: the same date has the same id in every store. */
  id: number;
  name: string;
  month: number;
  day: number;
  cityId: null;
}

/** The country of a store whose seed names none: Colombia, the emulator's only one before countries. */
export const DEFAULT_COUNTRY = "CO";

/** A day of a calendar: `MM-DD` and its name in English. */
type Fixed = readonly [date: string, name: string];

const NEW_YEAR: Fixed = ["01-01", "New Year's Day"];
const LABOUR: Fixed = ["05-01", "Labour Day"];
const IMMACULATE: Fixed = ["12-08", "Immaculate Conception"];
const CHRISTMAS: Fixed = ["12-25", "Christmas Day"];
const ALL_SAINTS: Fixed = ["11-01", "All Saints' Day"];
const ALL_SOULS: Fixed = ["11-02", "All Souls' Day"];

/** Each country's fixed-date national holidays, by ISO 3166-1 alpha-2 code (see the module's note). */
const CALENDARS: ReadonlyMap<string, readonly Fixed[]> = new Map<string, readonly Fixed[]>([
  [
    "AR",
    [
      NEW_YEAR,
      ["03-24", "Day of Remembrance for Truth and Justice"],
      ["04-02", "Malvinas Day"],
      LABOUR,
      ["05-25", "May Revolution"],
      ["06-20", "Flag Day"],
      ["07-09", "Independence Day"],
      IMMACULATE,
      CHRISTMAS,
    ],
  ],
  [
    "BR",
    [
      NEW_YEAR,
      ["04-21", "Tiradentes"],
      LABOUR,
      ["09-07", "Independence Day"],
      ["10-12", "Our Lady of Aparecida"],
      ALL_SOULS,
      ["11-15", "Proclamation of the Republic"],
      // National since 2024.
      ["11-20", "Black Consciousness Day"],
      CHRISTMAS,
    ],
  ],
  [
    "CL",
    [
      NEW_YEAR,
      LABOUR,
      ["05-21", "Navy Day"],
      ["07-16", "Our Lady of Mount Carmel"],
      ["08-15", "Assumption of Mary"],
      ["09-18", "Independence Day"],
      ["09-19", "Army Day"],
      ALL_SAINTS,
      IMMACULATE,
      CHRISTMAS,
    ],
  ],
  [
    "CO",
    [NEW_YEAR, LABOUR, ["07-20", "Independence Day"], ["08-07", "Battle of Boyacá"], IMMACULATE, CHRISTMAS],
  ],
  [
    "EC",
    [
      NEW_YEAR,
      LABOUR,
      ["05-24", "Battle of Pichincha"],
      ["08-10", "Declaration of Independence"],
      ["10-09", "Independence of Guayaquil"],
      ALL_SOULS,
      ["11-03", "Independence of Cuenca"],
      CHRISTMAS,
    ],
  ],
  [
    "MX",
    [
      NEW_YEAR,
      ["02-05", "Constitution Day"],
      ["03-21", "Benito Juárez's Birthday"],
      LABOUR,
      ["09-16", "Independence Day"],
      ["11-20", "Revolution Day"],
      CHRISTMAS,
    ],
  ],
  [
    "PE",
    [
      NEW_YEAR,
      LABOUR,
      ["06-07", "Flag Day"],
      ["06-29", "Saint Peter and Saint Paul"],
      ["07-23", "Air Force Day"],
      ["07-28", "Independence Day"],
      ["07-29", "Fiestas Patrias"],
      ["08-06", "Battle of Junín"],
      ["08-30", "Saint Rose of Lima"],
      ["10-08", "Battle of Angamos"],
      ALL_SAINTS,
      IMMACULATE,
      ["12-09", "Battle of Ayacucho"],
      CHRISTMAS,
    ],
  ],
  [
    "UY",
    [
      NEW_YEAR,
      LABOUR,
      ["06-19", "Birth of Artigas"],
      ["07-18", "Constitution Day"],
      ["08-25", "Independence Day"],
      ALL_SOULS,
      CHRISTMAS,
    ],
  ],
]);

/** The name of a day of a store's own calendar that is not a holiday of its country. */
const OWN_HOLIDAY = "Holiday";

/** The codes of the countries the emulator has a calendar of, in alphabetical order. */
export const CALENDAR_COUNTRIES: readonly string[] = COUNTRY_CODES.filter((c) => CALENDARS.has(c));

/** Whether the emulator has the holiday calendar of a country (an ISO 3166-1 alpha-2 code). */
export function hasCalendar(country: string): boolean {
  return CALENDARS.has(country);
}

function dayOf(date: string, name: string): HolidayDay {
  const month = Number(date.slice(0, 2));
  const day = Number(date.slice(3, 5));
  return { id: month * 100 + day, name, month, day, cityId: null };
}

/** Each country's holiday days, built once. */
const DAYS: ReadonlyMap<string, readonly HolidayDay[]> = new Map(
  [...CALENDARS].map(([code, list]) => [code, list.map(([date, name]) => dayOf(date, name))]),
);

/**
 * The holiday days of a store, by date: its country's, or, when the seed gives the store its own
 * calendar, those dates (named as in its country's calendar when they are in it, else "Holiday").
 *
 * @param country - the store's country; one without a calendar has no holidays.
 * @param own - the store's own dates `MM-DD` (checked by the seed), in place of the country's.
 */
export function holidayDays(country: string, own?: readonly string[]): readonly HolidayDay[] {
  const national = DAYS.get(country) ?? [];
  if (own === undefined) return national;
  const names = new Map(national.map((d) => [d.id, d.name]));
  return own
    .map((date) => dayOf(date, OWN_HOLIDAY))
    .map((d) => ({ ...d, name: names.get(d.id) ?? d.name }))
    .sort((a, b) => a.id - b.id);
}

/** The most dates a store's own calendar holds: every day of a year, 29 February included. */
export const MAX_OWN_HOLIDAYS = 366;

/**
 * The problems of a store's own calendar as a seed or a state file gives it: a list of distinct dates
 * `MM-DD` (29 February included), at most {@link MAX_OWN_HOLIDAYS}. Each problem names the index of the
 * date it is about, `undefined` for the list itself. None: the list is good.
 */
export function ownHolidayProblems(value: unknown): { index: number | undefined; message: string }[] {
  if (!Array.isArray(value)) {
    return [{ index: undefined, message: "must be a list of dates MM-DD, e.g. ['11-15', '12-25']" }];
  }
  if (value.length > MAX_OWN_HOLIDAYS) {
    return [
      { index: undefined, message: `lists ${value.length} dates; a year has at most ${MAX_OWN_HOLIDAYS}` },
    ];
  }
  const seen = new Set<string>();
  const out: { index: number | undefined; message: string }[] = [];
  value.forEach((v: unknown, index) => {
    if (typeof v !== "string") return out.push({ index, message: "must be a date MM-DD, e.g. '11-15'" });
    const parsed = parseMonthDay(v);
    if (!parsed.ok) return out.push({ index, message: parsed.error });
    if (seen.has(v)) return out.push({ index, message: `${v} is listed twice` });
    seen.add(v);
  });
  return out;
}
