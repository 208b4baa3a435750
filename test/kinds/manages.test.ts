/**
 * The kinds' cheap answers the reads and the planner ask for instead of a whole `select`: whether the
 * files manage a kind in a store (`manages`, which decides the parts each store reads), and one item's
 * availability on the current side (`lookup`); each must say exactly what `select` says.
 */

import { describe, expect, it } from "vitest";
import type { StoreState } from "../../src/model.js";
import { kinds } from "../../src/kinds/registry.js";
import { availability } from "../../src/kinds/availability.js";
import { hoursState } from "../../src/kinds/store-schedule.js";
import { holidaysState } from "../../src/kinds/store-schedule.js";
import { specialDaysState } from "../../src/kinds/store-schedule.js";
import { readRequests } from "../../src/state/current.js";
import { catalogOf, desired, group, item, store } from "../helpers/builders.js";

const menu = (s: StoreState) => {
  catalogOf(s).items = {
    FRIES: item("FRIES", 50),
    COLA: item("COLA", 30),
    SAUCE: group("SAUCE", ["KETCHUP"]),
  };
};

/** Stores managing more or less: nothing, the menu only, hours, holidays and special days, utils schedules. */
const stores = (): StoreState[] => [
  store("empty", "1"),
  store("menu", "2", menu),
  store("settings", "3", (s) => {
    menu(s);
    hoursState.set(s, { MONDAY: [{ start: "09:00", end: "17:00" }] } as never);
    holidaysState.set(s, { "1-1": [] });
    specialDaysState.set(s, {});
  }),
  store("utils", "4", (s) => {
    menu(s);
    s.schedulesVia = "utils";
  }),
];

describe("kinds' manages", () => {
  it("says of each store what select says, under every ownership", () => {
    let checked = 0;
    for (const kind of kinds) {
      if (!kind.manages) continue;
      for (const s of stores())
        for (const own of ["full", "additive"] as const) {
          expect([kind.name, s.store.key, own, kind.manages(s)]).toEqual([
            kind.name,
            s.store.key,
            own,
            kind.select(s, own) !== undefined,
          ]);
          checked++;
        }
    }
    // The store-menu kinds, the utils schedules, hours, holidays and special days have their own check.
    expect(checked).toBeGreaterThanOrEqual(8 * 4 * 2);
  });

  it("decides the kinds each store reads: hours only where the files give hours, utils schedules only there", () => {
    const requests = readRequests(desired(...stores()));
    const names = (key: string) => requests.find((r) => r.store.key === key)!.kinds.map((k) => k.name);
    expect(names("menu")).toEqual(expect.arrayContaining(["item", "category", "menu", "availability"]));
    expect(names("menu")).not.toContain("store_hours");
    expect(names("menu")).not.toContain("product_schedule");
    expect(names("settings")).toEqual(expect.arrayContaining(["store_hours", "holiday", "special_day"]));
    expect(names("utils")).toEqual(expect.arrayContaining(["corridor_schedule", "product_schedule"]));
    expect(names("empty")).not.toContain("store_hours");
  });
});

describe("item availability's lookup", () => {
  it("gives each SKU's current state as select does: on, off by carte with its time, off by staff, none for a group or an unknown SKU", () => {
    const live = store("a", "1", (s) => {
      menu(s);
      catalogOf(s).items.SHAKE = item("SHAKE", 70);
      catalogOf(s).unavailable = ["COLA", "FRIES", "SAUCE"];
      catalogOf(s).suspensions = { FRIES: { byCarte: true, until: "2026-11-25T18:00:00-05:00" }, COLA: {} };
    });
    const all = availability.select(live)!;
    expect(Object.keys(all).sort()).toEqual(["COLA", "FRIES", "SHAKE"]);
    for (const sku of ["COLA", "FRIES", "SHAKE", "SAUCE", "KETCHUP", "NOPE"])
      expect([sku, availability.lookup!(live, sku)]).toEqual([sku, all[sku]]);
    expect(availability.lookup!(live, "FRIES")).toEqual({
      sku: "FRIES",
      available: false,
      byCarte: true,
      until: "2026-11-25T18:00:00-05:00",
    });
  });
});
