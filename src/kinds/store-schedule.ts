/**
 * The states of the kinds of a store's schedule: store hours, holidays and special days. Each is kept,
 * like every kind's, under the kind's name in `StoreState.kinds` through its `KindState` (src/model.ts `kindState`); they are
 * declared here, below the kinds, because the config loader reads them too (src/config/close.ts works
 * out when a store closes from them, src/config/holiday-dates.ts checks the holidays the files write), as it
 * reads the catalog's (src/kinds/catalog.ts).
 */

import { kindState, type Slot, type Weekday } from "../model.js";

/**
 * The store hours kind's state in a store: the slots of every day of the week (an empty list: closed
 * that day).
 */
export const hoursState = kindState<Record<Weekday, Slot[]>>("store_hours");

/**
 * The holiday kind's state in a store: the slots of the platform's holiday days, keyed `MM-DD` (an empty
 * list: closed that holiday).
 */
export const holidaysState = kindState<Record<string, Slot[]>>("holiday");

/** A special day of a store (docs/platform-api.md §4.7): a name, a date and its slots. Keyed `MM-DD`. */
export interface SpecialDay {
  name: string;
  /** 1–12. */
  month: number;
  /** Day of the month, 1–31. */
  day: number;
  slots: Slot[];
  /**
   * The year of a day the files date fully (`2026-12-24`), for people only: the platform repeats special
   * days every year and knows no year, so it is neither compared nor sent (the plan shows it through
   * src/kinds/resource-kind.ts `ResourceKind.label`). Absent for a day written `MM-DD` and on the platform's
   * side.
   */
  year?: number;
}

/** The special day kind's state in a store: its special days, keyed `MM-DD`. */
export const specialDaysState = kindState<Record<string, SpecialDay>>("special_day");
