/**
 * Holiday dates the platform does not have. `holidays:` can only change the slots of the platform's own
 * holiday days (spec §4.5 has no call to create one, src/kinds/holidays.ts): a date that is not one of
 * them would be planned as nothing at all, and the store would stay open on a day the files close. So
 * such a date is an error naming the store, the file and the date, before any write.
 *
 * The platform's holidays are known once a store's holidays are read (`carte plan`, `carte apply`), and
 * offline only for the embedded emulator, whose holidays are fixed (`carte validate` without a
 * `platform:` section, src/session.ts `EMBEDDED_HOLIDAYS`). Against a real platform, `carte validate`
 * cannot tell.
 */

import type { ConfigProblem } from "../errors.js";
import { ConfigError } from "../errors.js";
import { holidaysState } from "../kinds/holidays.js";
import type { CurrentState, DesiredState, StoreState } from "../model.js";
import { own } from "../model.js";
import type { LoadedProject } from "./load.js";
import { bare } from "./quote.js";

/**
 * The holiday dates (`MM-DD`) of a store as read from the platform, `undefined` when its holidays were
 * not read.
 */
export function holidayDates(state: StoreState | undefined): ReadonlySet<string> | undefined {
  const hours = state && holidaysState.get(state);
  return hours === undefined ? undefined : new Set(Object.keys(hours));
}

/**
 * The problems of holiday dates that are not holidays of their store on the platform.
 *
 * @param project - the loaded project (for where each date is written, and the ownership of holidays).
 * @param platformHolidays - the platform's holiday dates of a store, `MM-DD`, or `undefined` when they
 *   are not known (the store was not read): then the store is not judged.
 * @param desired - the stores to judge (default: every store of the project).
 * @returns one located problem per store and date; empty when holidays are not managed (`ignore`).
 */
export function holidayDateProblems(
  project: LoadedProject,
  platformHolidays: (storeKey: string) => ReadonlySet<string> | undefined,
  desired: DesiredState = project.desired,
): ConfigProblem[] {
  if (project.ownership.holiday === "ignore") return [];
  const problems: ConfigProblem[] = [];
  for (const [key, store] of Object.entries(desired.stores)) {
    const dates = holidaysState.get(store);
    if (dates === undefined) continue;
    const known = platformHolidays(key);
    if (known === undefined) continue;
    const list = [...known].sort().join(", ") || "none";
    for (const date of Object.keys(dates)) {
      if (known.has(date)) continue;
      const site = project.holidaySites?.get(key)?.get(date);
      problems.push({
        file: site?.file ?? project.configFile,
        line: site?.line ?? 0,
        col: site?.col ?? 0,
        pointer: site?.pointer ?? "",
        message:
          `holiday ${date} is not a holiday of store ${bare(key)} on the platform (its holidays: ${list}), ` +
          `so carte cannot set its hours or close it: write ${date} under special_days: instead ` +
          `(- { name: …, date: "${date}", slots: [] } closes the store that day)`,
      });
    }
  }
  return problems;
}

/**
 * Throws a {@link ConfigError} when a store's files set hours or a closure on a date that the store's
 * holidays, as read from the platform, do not contain. Called after reading and before planning, so
 * that nothing is written.
 */
export function checkHolidayDates(
  project: LoadedProject,
  desired: DesiredState,
  current: CurrentState,
): void {
  const problems = holidayDateProblems(project, (key) => holidayDates(own(current.stores, key)), desired);
  if (problems.length > 0) throw new ConfigError(problems);
}
