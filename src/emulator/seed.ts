/**
 * The checks of a seed (docs/emulator.md, "Seed file") beyond the shape of its clients and stores,
 * which index.ts `checkSeed` makes: the keys of each level (a key the emulator does not know is refused,
 * so that a misspelt `country` or `holidays` is not lost), and the country and holiday dates a client
 * or a store gives (calendars.ts).
 */

import { quote } from "../source/quote.js";
import { toPointer } from "../source/yaml.js";
import { didYouMean } from "../suggest.js";
import { CALENDAR_COUNTRIES, hasCalendar, ownHolidayProblems } from "./calendars.js";

/** A problem of a seed at a JSON pointer; `key`: located at the key, not at its value. */
export interface SeedProblem {
  pointer: string;
  message: string;
  key?: boolean;
}

/** The keys of a seed's top level. */
export const SEED_KEYS: readonly string[] = ["clients", "finance"];
/** The keys of a client of a seed. */
export const CLIENT_KEYS: readonly string[] = ["client_id", "client_secret", "country", "holidays", "stores"];
/** The keys of a store of a seed. */
export const STORE_KEYS: readonly string[] = [
  "id",
  "integration_id",
  "name",
  "parent",
  "country",
  "holidays",
];

/**
 * The keys of `value` (an object of the seed at `at`) that are not `known`, each located at the key,
 * with the closest known one.
 */
export function unknownKeyProblems(
  value: Record<string, unknown>,
  at: string,
  known: readonly string[],
): SeedProblem[] {
  return Object.keys(value)
    .filter((k) => !known.includes(k))
    .map((k) => ({
      pointer: at + toPointer([k]),
      message: `unknown key ${quote(k)}${didYouMean(k, known, quote)} (allowed: ${known.join(", ")})`,
      key: true,
    }));
}

/** The problems of the `country` and `holidays` a client or a store of the seed (at `at`) gives. */
export function calendarProblems(value: Record<string, unknown>, at: string): SeedProblem[] {
  const out: SeedProblem[] = [];
  const country = value.country;
  if (country !== undefined && (typeof country !== "string" || !hasCalendar(country))) {
    const shown = typeof country === "string" ? quote(country) : "";
    // Two letters are one or two typos from many codes: only a code written in small letters is
    // suggested, in capitals.
    const upper = typeof country === "string" ? country.toUpperCase() : "";
    const suggestion = hasCalendar(upper) ? ` (did you mean ${quote(upper)}?)` : "";
    out.push({
      pointer: `${at}/country`,
      message:
        `unknown country${shown === "" ? "" : ` ${shown}`}${suggestion}: the emulator has the holidays of ` +
        `${CALENDAR_COUNTRIES.join(", ")} (ISO 3166-1 alpha-2 codes)`,
    });
  }
  if (value.holidays !== undefined) {
    for (const p of ownHolidayProblems(value.holidays)) {
      out.push({
        pointer: p.index === undefined ? `${at}/holidays` : `${at}/holidays/${p.index}`,
        message: p.message,
      });
    }
  }
  return out;
}
