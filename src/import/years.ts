/**
 * What the platform does not keep and the project read (`-c`) says: the year of a special day its
 * files date fully (`2026-12-14`, that year only). The platform repeats special days every year and
 * knows no year (docs/platform-api.md §2.5), so a store the project describes gets, on each special day
 * of the same month and day, the year its files write; the import then writes the day dated again.
 */

import { table, type StoreState } from "../model.js";
import { specialDaysState } from "../kinds/store-schedule.js";

/**
 * The live states with the years of the special days the project's files date fully, for the stores
 * it describes (by key); other days and stores as they are. The states are not changed: new ones.
 */
export function withWrittenYears(
  states: readonly StoreState[],
  desired: Readonly<Record<string, StoreState>>,
): StoreState[] {
  return states.map((state) => {
    const live = specialDaysState.get(state);
    const own = Object.hasOwn(desired, state.store.key) ? desired[state.store.key] : undefined;
    const written = own && specialDaysState.get(own);
    if (!live || !written) return state;
    let changed = false;
    const days = Object.fromEntries(
      Object.entries(live).map(([key, d]) => {
        const w = Object.hasOwn(written, key) ? written[key] : undefined;
        if (w?.year === undefined || w.month !== d.month || w.day !== d.day) return [key, d];
        changed = true;
        return [key, { ...d, year: w.year }];
      }),
    );
    if (!changed) return state;
    const copy: StoreState = { ...state, kinds: Object.assign(table(), state.kinds) };
    specialDaysState.set(copy, days);
    return copy;
  });
}
