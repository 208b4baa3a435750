/** The presentation model of a plan (src/render/view.ts): moves, days, options under groups, paths. */

import { describe, expect, it } from "vitest";
import { buildPlan } from "../../src/plan/plan.js";
import type { Plan, ResourceChange } from "../../src/plan/types.js";
import { buildView, callLines, daysText, detailText, headText, listMoves } from "../../src/render/view.js";
import { current, desired, group, item, store, catalogOf } from "../helpers/builders.js";

describe("list moves", () => {
  it("says what comes, what goes and what changes place, with 1-based positions", () => {
    expect(listMoves(["A", "B", "C", "D"], ["C", "A", "B", "X"])).toEqual([
      "- D",
      "C moved to 1",
      "+ X at 4",
    ]);
    expect(listMoves(["A", "B"], ["A", "B"])).toEqual([]);
    expect(listMoves([], ["A"])).toEqual(["+ A at 1"]);
  });
});

describe("days", () => {
  it("writes runs of three days or more as ranges, never with hol", () => {
    expect(daysText(["mon", "tue", "wed", "thu", "fri", "sat", "sun"])).toBe("mon-sun");
    expect(daysText(["mon", "tue", "thu", "fri", "sat", "sun", "hol"])).toBe("mon,tue,thu-sun,hol");
  });
});

describe("the view of a store's changes", () => {
  const plan = () => {
    const base = (edit: (s: ReturnType<typeof store>) => void = () => {}) =>
      store("a", "1", (s) => {
        catalogOf(s).items = {
          BURGER: item("BURGER", 20000, { title: "Burger", children: ["EXTRAS"] }),
          EXTRAS: { ...group("EXTRAS", ["CHEESE"], 0, 2), title: "Extras" },
          CHEESE: item("CHEESE", 3000, { title: "Cheese" }),
          COMBO: item("COMBO", 30000, { title: "Combo", children: ["EXTRAS"], priceInParent: undefined }),
        };
        edit(s);
      });
    const want = base((s) => {
      catalogOf(s).items.EXTRAS!.max = 3;
      catalogOf(s).items.EXTRAS!.children = ["CHEESE", "BACON"];
      catalogOf(s).items.BACON = item("BACON", 4500, { title: "Bacon" });
      catalogOf(s).items.CHEESE!.priceInParent = { COMBO: 0 };
      catalogOf(s).items.BURGER!.schedules = [
        { days: "mon,tue,wed,thu,fri", periods: [{ start: "11:00", end: "15:00" }] },
      ];
    });
    return buildPlan({ ...desired(want), currency: "COP" }, current(base()));
  };

  it("lists options under their modifier group, in the files' terms, with prices for the currency", () => {
    const view = buildView(plan());
    expect(view.shared).toEqual([]);
    const lines = view.stores[0]!.changes.flatMap((c) => [
      `${c.nested ? "  " : ""}${c.action} ${headText(c)}${c.within ? ` in ${c.within}` : ""}`,
      ...c.details.map((d) => `    ${detailText(d)}`),
    ]);
    expect(lines).toEqual([
      "update item BURGER (Burger)",
      "    schedules: always → mon-fri 11:00-15:00",
      "update modifier group EXTRAS (Extras)",
      "    options: + BACON at 2",
      "    max: 2 → 3",
      "  create option BACON (Bacon)",
      "    price: $4.500",
      "  update option CHEESE (Cheese)",
      "    price in COMBO: its own price → $0",
    ]);
  });

  it("shows the paths that changed inside a nested value of a kind it does not know", () => {
    const p = plan();
    const odd: ResourceChange = {
      address: "store[a].gadget[X]",
      store: "a",
      kind: "gadget" as ResourceChange["kind"],
      key: "X",
      action: "update",
      before: null,
      after: null,
      diff: [{ attribute: "settings", before: { a: { b: 1 }, c: [1] }, after: { a: { b: 2 }, c: [1, 2] } }],
    };
    const view = buildView({ ...p, changes: [odd] } as Plan);
    expect(view.stores[0]!.changes[0]!.details.map(detailText)).toEqual([
      "settings.a.b: 1 → 2",
      "settings.c.1: 2",
    ]);
  });
});

describe("the API calls", () => {
  const chain = (n: number) => {
    const stores = (price: number) =>
      Array.from({ length: n }, (_, i) =>
        store(
          `s-${String(i).padStart(2, "0")}`,
          String(900 + i),
          (s) => (catalogOf(s).items = { A: item("A", price) }),
        ),
      );
    return buildPlan(desired(...stores(2)), current(...stores(1)));
  };

  it("lists each call of a short plan", () => {
    expect(callLines(chain(3)).map((l) => `${l.first}-${l.last} ${l.method} ${l.path}`)).toEqual([
      "1-1 POST /restaurants/menu/v1/stores/900/items",
      "2-2 POST /restaurants/menu/v1/stores/901/items",
      "3-3 POST /restaurants/menu/v1/stores/902/items",
    ]);
  });

  it("puts consecutive calls of one endpoint on one line in a long plan", () => {
    const lines = callLines(chain(25));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      first: 1,
      last: 25,
      method: "POST",
      path: "/restaurants/menu/v1/stores/*/items",
      changes: 25,
    });
    expect(lines[0]!.stores).toHaveLength(25);
  });
});
