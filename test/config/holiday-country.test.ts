/**
 * A holiday date the platform does not have names the store's country calendar when carte knows the
 * store's country, and says "its holidays" as before when it does not.
 */

import { describe, expect, it } from "vitest";

import { holidayMissProblems } from "../../src/config/holiday-dates.js";
import type { HolidayMiss } from "../../src/config/holiday-dates.js";

const site = { file: "stores/sp.yaml", line: 5, col: 3, pointer: "/holidays/11-15" };
const COLOMBIA = ["01-01", "05-01", "07-20", "08-07", "12-08", "12-25"];

const miss = (store: string, country?: string): HolidayMiss => ({
  site,
  date: "11-15",
  store,
  known: COLOMBIA,
  ...(country === undefined ? {} : { country }),
});

describe("a holiday the platform does not have, by country", () => {
  it("names the store's country calendar when carte knows it", () => {
    expect(holidayMissProblems([miss("sp-centro", "CO")])[0]!.message).toMatch(
      /^holiday 11-15 is not a holiday of store sp-centro on the platform \(its holidays, Colombia's: 01-01, 05-01, 07-20, 08-07, 12-08, 12-25\), so carte cannot/,
    );
    expect(holidayMissProblems([miss("sp-centro", "CO"), miss("sp-norte", "CO")])[0]!.message).toContain(
      "of the 2 stores it affects (sp-centro, sp-norte), whose holidays are Colombia's: 01-01, 05-01, 07-20, 08-07, 12-08, 12-25, so",
    );
  });

  it("says its holidays when the country is unknown, or the stores' countries differ", () => {
    expect(holidayMissProblems([miss("sp-centro")])[0]!.message).toContain(
      "(its holidays: 01-01, 05-01, 07-20, 08-07, 12-08, 12-25)",
    );
    expect(holidayMissProblems([miss("sp-centro", "ZZ")])[0]!.message).toContain(
      "(its holidays: 01-01, 05-01",
    );
    expect(holidayMissProblems([miss("sp-centro", "CO"), miss("sp-norte")])[0]!.message).toContain(
      "whose holidays are 01-01, 05-01",
    );
  });
});
