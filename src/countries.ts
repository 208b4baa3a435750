/**
 * The countries the platform serves, by ISO 3166-1 alpha-2 code: those of the currencies src/money.ts
 * knows (ARS, BRL, CLP, COP, MXN, PEN, UYU, and USD for Ecuador). Their names in English are what
 * messages show (a store's holidays are "Brazil's"); the emulator keeps a holiday calendar for each
 * (src/emulator/calendars.ts).
 */

/** The name in English of each country the platform serves, by its ISO 3166-1 alpha-2 code. */
const NAMES: ReadonlyMap<string, string> = new Map([
  ["AR", "Argentina"],
  ["BR", "Brazil"],
  ["CL", "Chile"],
  ["CO", "Colombia"],
  ["EC", "Ecuador"],
  ["MX", "Mexico"],
  ["PE", "Peru"],
  ["UY", "Uruguay"],
]);

/** The codes of the countries the platform serves, in alphabetical order. */
export const COUNTRY_CODES: readonly string[] = [...NAMES.keys()].sort();

/**
 * The name in English of a country the platform serves, `undefined` for another code.
 *
 * @example countryName("BR") // "Brazil"
 */
export function countryName(code: string): string | undefined {
  return NAMES.get(code);
}
