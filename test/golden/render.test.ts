import { describe, expect, it } from "vitest";
import { buildPlan } from "../../src/plan/plan.js";
import { renderJson } from "../../src/render/json.js";
import { GITHUB_COMMENT_LIMIT, renderMarkdown } from "../../src/render/markdown.js";
import { renderText } from "../../src/render/text.js";
import type { StoreState } from "../../src/model.js";
import { current, desired, group, item, store, catalogOf } from "../helpers/builders.js";
import { holidaysState } from "../../src/kinds/store-schedule.js";
import { hoursState } from "../../src/kinds/store-schedule.js";
import { specialDaysState } from "../../src/kinds/store-schedule.js";

/** A plan with every kind of change: create, update (attributes and availability), delete. */
function samplePlan() {
  const base = (key: string, id: string) =>
    store(key, id, (s) => {
      s.store.name = key === "bog-centro" ? "Bogotá Centro" : "Medellín Poblado";
      catalogOf(s).items = {
        "BURGER-CLASSIC": item("BURGER-CLASSIC", 24900, { title: "Classic burger", children: ["DONENESS"] }),
        DONENESS: group("DONENESS", ["MEDIUM", "WELL-DONE"], 1, 1),
        MEDIUM: item("MEDIUM", 0, { title: "Medium" }),
        "WELL-DONE": item("WELL-DONE", 0, { title: "Well done" }),
        FRIES: item("FRIES", 7900, { title: "Fries" }),
        "OLD-SHAKE": item("OLD-SHAKE", 9900, { title: "Old shake" }),
      };
      catalogOf(s).categories = {
        BURGERS: { sku: "BURGERS", title: "Burgers", items: ["BURGER-CLASSIC"] },
        SIDES: { sku: "SIDES", title: "Sides", items: ["FRIES", "OLD-SHAKE"] },
      };
      catalogOf(s).menus = {
        DEFAULT: {
          type: "DEFAULT",
          categories: [
            { sku: "BURGERS", active: true },
            { sku: "SIDES", active: true },
          ],
        },
      };
    });
  const have = [base("bog-centro", "900101"), base("med-poblado", "900201")];
  const want = [base("bog-centro", "900101"), base("med-poblado", "900201")];
  for (const s of want) {
    catalogOf(s).items["BURGER-CLASSIC"]!.price = 25900;
    delete catalogOf(s).items["OLD-SHAKE"];
    catalogOf(s).categories.SIDES!.items = ["FRIES", "ONION-RINGS"];
    catalogOf(s).items["ONION-RINGS"] = item("ONION-RINGS", 8900, {
      title: "Onion rings",
      description: "Beer-battered",
    });
    catalogOf(s).unavailable = ["FRIES"];
  }
  catalogOf(want[1]!).menus.DEFAULT!.categories[1]!.active = false;
  return buildPlan(desired(...want), current(...have));
}

describe("plan renderers", () => {
  it("renders text", async () => {
    await expect(renderText(samplePlan(), { color: false })).toMatchFileSnapshot("expected/plan.txt");
  });

  it("lists the API calls in order only when asked (--show-calls)", async () => {
    await expect(renderText(samplePlan(), { color: false, showCalls: true })).toMatchFileSnapshot(
      "expected/plan-calls.txt",
    );
  });

  it("renders text with colour only when asked", () => {
    const coloured = renderText(samplePlan(), { color: true });
    expect(coloured).toContain("\u001b[");
    expect(renderText(samplePlan(), { color: false })).not.toContain("\u001b[");
  });

  it("renders JSON with a summary of creates, updates and deletes", async () => {
    const json = renderJson(samplePlan());
    expect(JSON.parse(json).summary).toEqual({ create: 2, update: 7, delete: 2, operations: 10, stores: 2 });
    await expect(json).toMatchFileSnapshot("expected/plan.json");
  });

  it("renders an empty plan as No changes", () => {
    const s = store("a", "1");
    expect(renderText(buildPlan(desired(s), current(s)), { color: false })).toBe(
      "No changes. The platform matches the configuration.\n",
    );
  });
});

/**
 * A chain of 120 stores each changing the price of 15 of its 60 items (under the safety guards' 30 %),
 * each store to its own prices (nothing is the same in two stores, so nothing is grouped): a plan far
 * larger than one comment.
 */
function hugePlan() {
  const chain = (raise: number) =>
    Array.from({ length: 120 }, (_, i) =>
      store(`store-${String(i).padStart(3, "0")}`, String(900_000 + i), (s) => {
        for (let j = 0; j < 60; j++) {
          const sku = `ITEM-${String(j).padStart(2, "0")}`;
          catalogOf(s).items[sku] = item(sku, 1000 + j + (j < 15 ? raise * (i + 1) : 0), {
            title: `Item number ${j}`,
            description: "A fine item",
          });
        }
      }),
    );
  return buildPlan(desired(...chain(1)), current(...chain(0)));
}

describe("Markdown renderer", () => {
  it("renders a summary, a table and one collapsible section per store", async () => {
    await expect(renderMarkdown(samplePlan())).toMatchFileSnapshot("expected/plan.md");
  });

  it("keeps a plan larger than 65,536 characters under the comment limit, pointing at the full plan", async () => {
    const plan = hugePlan();
    expect(renderText(plan, { color: false }).length).toBeGreaterThan(GITHUB_COMMENT_LIMIT);
    const md = renderMarkdown(plan, { fullPlanAt: "the job summary" });
    expect(md.length).toBeLessThan(GITHUB_COMMENT_LIMIT);
    expect(md.length).toBeGreaterThan(30_000); // it uses the room it has
    expect(
      md.startsWith("### carte plan\n\n**Plan: 0 to create, 1800 to update, 0 to delete in 120 stores"),
    ).toBe(true);
    expect(md).toMatch(
      /_\d+ store sections not shown to keep this comment under 60,000 characters; the full plan is in the job summary\._/,
    );
    // Every section that is shown is complete.
    expect(md.split("<details>").length).toBe(md.split("</details>").length);
    await expect(md).toMatchFileSnapshot("expected/plan-huge.md");
  });

  it("escapes store names and never lets a value close the code fence", () => {
    const s = store("x", "1", (st) => {
      st.store.name = "<b>Tom & Jerry's</b>";
      catalogOf(st).items = { A: item("A", 1, { title: "evil ``` fence" }) };
    });
    const md = renderMarkdown(buildPlan(desired(s), { stores: {} }));
    expect(md).toContain("&lt;b&gt;Tom &amp; Jerry's&lt;/b&gt;");
    expect(md.match(/```/g)).toHaveLength(2);
  });
});

/**
 * A plan in a currency: prices of items, options and options inside a parent, formatted as people of
 * the currency read them, and nested options shown where they sit.
 */
function currencyPlan(currency: "COP" | "BRL") {
  const brl = currency === "BRL";
  const base = (prices: { pizza: number; large: number; stuffed: number; inLarge: number }) =>
    store("centro", "900301", (s) => {
      s.store.name = "Brasa Centro";
      catalogOf(s).items = {
        PIZZA: item("PIZZA", prices.pizza, { title: "Pizza", children: ["SIZE"] }),
        SIZE: group("SIZE", ["SIZE-M", "SIZE-L"], 1, 1),
        "SIZE-M": item("SIZE-M", 0, { title: "Mediana", children: ["CRUST"] }),
        "SIZE-L": item("SIZE-L", prices.large, { title: "Grande", children: ["CRUST"] }),
        CRUST: group("CRUST", ["CRUST-THIN", "CRUST-STUFFED"], 1, 1),
        "CRUST-THIN": item("CRUST-THIN", 0, { title: "Delgada" }),
        "CRUST-STUFFED": item("CRUST-STUFFED", prices.stuffed, {
          title: "Borde de queso",
          priceInParent: { "SIZE-L": prices.inLarge },
        }),
      };
      catalogOf(s).categories = { PIZZAS: { sku: "PIZZAS", title: "Pizzas", items: ["PIZZA"] } };
      catalogOf(s).menus = { DEFAULT: { type: "DEFAULT", categories: [{ sku: "PIZZAS", active: true }] } };
    });
  const have = base(
    brl
      ? { pizza: 39.9, large: 12.5, stuffed: 8, inLarge: 10.25 }
      : { pizza: 24900, large: 8000, stuffed: 5000, inLarge: 7000 },
  );
  const want = base(
    brl
      ? { pizza: 42.5, large: 12.5, stuffed: 8.9, inLarge: 11 }
      : { pizza: 25900, large: 8000, stuffed: 5500, inLarge: 7500 },
  );
  catalogOf(want).items.EXTRA = item("EXTRA", brl ? 1234.5 : 1234500, { title: "Familiar" });
  return buildPlan({ ...desired(want), currency }, current(have));
}

describe("prices in a currency", () => {
  for (const currency of ["COP", "BRL"] as const) {
    const name = currency.toLowerCase();
    it(`formats ${currency} prices in the text plan`, async () => {
      const plan = currencyPlan(currency);
      expect(plan.currency).toBe(currency);
      await expect(renderText(plan, { color: false })).toMatchFileSnapshot(`expected/plan-${name}.txt`);
    });
    it(`formats ${currency} prices in the Markdown plan`, async () => {
      await expect(renderMarkdown(currencyPlan(currency))).toMatchFileSnapshot(`expected/plan-${name}.md`);
    });
  }

  it("keeps the platform's numbers in the JSON plan", () => {
    const json = JSON.parse(renderJson(currencyPlan("BRL"))) as {
      currency: string;
      changes: { key: string; after: { price: number } }[];
    };
    expect(json.currency).toBe("BRL");
    expect(json.changes.find((c) => c.key === "PIZZA")?.after.price).toBe(42.5);
  });
});

// ── Plans for people ────────────────────────────────────────────────────────────────────────────────────

/** The current state of `stores` with the platform ids of their hours' and holidays' slots. */
function withSlotIds(...stores: StoreState[]) {
  const state = current(...stores);
  let next = 1000;
  for (const s of Object.values(state.stores)) {
    const withIds = (slots: { start: string; end: string }[]) => slots.map((x) => ({ ...x, id: next++ }));
    if (hoursState.get(s)) {
      s.ids.other.store_hours = Object.fromEntries(
        Object.entries(hoursState.get(s)!).map(([day, slots]) => [day, withIds(slots)]),
      );
    }
    if (holidaysState.get(s)) {
      s.ids.other.holiday = Object.fromEntries(
        Object.entries(holidaysState.get(s)!).map(([date, slots]) => [
          date,
          { dayId: next++, name: date, slots: withIds(slots) },
        ]),
      );
    }
  }
  return state;
}

/** Three stores of one chain: a catalog of burgers and options, hours and the platform's holidays. */
function chainStore(key: string, id: string, edit: (s: StoreState) => void = () => {}): StoreState {
  return store(key, id, (s) => {
    s.store.name = `Carbón ${key}`;
    catalogOf(s).items = {
      "BURGER-CLASSIC": item("BURGER-CLASSIC", 24900, { title: "Clásica", children: ["EXTRAS"] }),
      "BURGER-DOUBLE": item("BURGER-DOUBLE", 24900, { title: "Doble", children: ["EXTRAS"] }),
      "BURGER-BBQ": item("BURGER-BBQ", 27900, { title: "BBQ" }),
      "BURGER-VEGGIE": item("BURGER-VEGGIE", 22900, { title: "Veggie" }),
      "SHAKE-GUANABANA": item("SHAKE-GUANABANA", 15900, { title: "Malteada de guanábana" }),
      EXTRAS: { ...group("EXTRAS", ["EXTRA-CHEESE", "EXTRA-BACON"], 0, 3), title: "Adiciones" },
      "EXTRA-CHEESE": item("EXTRA-CHEESE", 3000, { title: "Queso" }),
      "EXTRA-BACON": item("EXTRA-BACON", 4500, { title: "Tocineta" }),
    };
    catalogOf(s).categories = {
      BURGERS: {
        sku: "BURGERS",
        title: "Hamburguesas",
        items: ["BURGER-CLASSIC", "BURGER-DOUBLE", "BURGER-BBQ", "BURGER-VEGGIE"],
      },
      SEASONAL: { sku: "SEASONAL", title: "Temporada", items: ["SHAKE-GUANABANA"] },
    };
    catalogOf(s).menus = {
      DEFAULT: {
        type: "DEFAULT",
        categories: [
          { sku: "BURGERS", active: true },
          { sku: "SEASONAL", active: true },
        ],
      },
    };
    const day = ["11:00-22:00"].map((x) => ({ start: x.slice(0, 5), end: x.slice(6) }));
    hoursState.set(s, { mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: [] });
    holidaysState.set(s, { "01-01": [], "12-25": [{ start: "12:00", end: "20:00" }] });
    edit(s);
  });
}

const CHAIN = [
  ["bog-centro", "900101"],
  ["bog-chapinero", "900102"],
  ["med-poblado", "900201"],
] as const;

/** A plan of the chain from `before` to `after`, applied to every store (`which` limits the edit). */
function chainPlan(edit: (s: StoreState) => void, which: (key: string) => boolean = () => true) {
  const have = CHAIN.map(([k, id]) => chainStore(k, id));
  const want = CHAIN.map(([k, id]) => chainStore(k, id, which(k) ? edit : () => {}));
  return buildPlan({ ...desired(...want), currency: "COP" }, withSlotIds(...have));
}

describe("plans for people", () => {
  const cases: [string, () => ReturnType<typeof buildPlan>][] = [
    [
      // The same price change in every store, shown once; one store also renames an option.
      "chain-price",
      () => {
        const have = CHAIN.map(([k, id]) => chainStore(k, id));
        const want = CHAIN.map(([k, id]) =>
          chainStore(k, id, (s) => {
            catalogOf(s).items["BURGER-DOUBLE"]!.price = 26900;
            if (k === "med-poblado") catalogOf(s).items["EXTRA-BACON"]!.title = "Tocineta ahumada";
          }),
        );
        return buildPlan({ ...desired(...want), currency: "COP" }, withSlotIds(...have));
      },
    ],
    [
      // BURGER-BBQ moves to the top of BURGERS; BURGER-VEGGIE moves from BURGERS to SEASONAL.
      "category-move",
      () =>
        chainPlan((s) => {
          catalogOf(s).categories.BURGERS!.items = ["BURGER-BBQ", "BURGER-CLASSIC", "BURGER-DOUBLE"];
          catalogOf(s).categories.SEASONAL!.items = ["SHAKE-GUANABANA", "BURGER-VEGGIE"];
        }),
    ],
    [
      // Later on Fridays and Saturdays everywhere, open on Sundays in one store.
      "hours",
      () =>
        chainPlan((s) => {
          const late = [{ start: "11:00", end: "23:30" }];
          hoursState.set(s, { ...hoursState.get(s)!, fri: late, sat: late });
          if (s.store.key === "med-poblado") hoursState.get(s)!.sun = [{ start: "12:00", end: "20:00" }];
        }),
    ],
    [
      // Closed on Christmas in two stores; open again on New Year's Day in one.
      "holiday",
      () =>
        chainPlan(
          (s) => {
            holidaysState.set(s, { ...holidaysState.get(s)!, "12-25": [] });
            if (s.store.key === "bog-centro")
              holidaysState.get(s)!["01-01"] = [{ start: "12:00", end: "18:00" }];
          },
          (k) => k !== "med-poblado",
        ),
    ],
  ];
  for (const [name, plan] of cases) {
    it(`renders the ${name} plan as text`, async () => {
      await expect(
        renderText(plan(), { color: false, target: "embedded emulator (state in examples/chain/.carte)" }),
      ).toMatchFileSnapshot(`expected/people-${name}.txt`);
    });
    it(`renders the ${name} plan as Markdown`, async () => {
      await expect(renderMarkdown(plan(), { target: "platform at api.example.com" })).toMatchFileSnapshot(
        `expected/people-${name}.md`,
      );
    });
  }

  it("names at most 5 stores beside a shared change, then counts the others", () => {
    // 8 of 9 stores: not every store, so they are named.
    const stores = Array.from({ length: 9 }, (_, i) => chainStore(`s-${i}`, String(9000 + i)));
    const want = stores.map((s, i) => {
      const c = structuredClone(s);
      if (i < 8) catalogOf(c).items["BURGER-DOUBLE"]!.price = 26900;
      return c;
    });
    const text = renderText(buildPlan({ ...desired(...want), currency: "COP" }, withSlotIds(...stores)), {
      color: false,
    });
    expect(text).toContain(
      "~ item BURGER-DOUBLE (Doble)  in 8 stores: s-0, s-1, s-2, s-3, s-4 and 3 more\n      price: $24.900 → $26.900\n",
    );
    expect(text).not.toContain("store[s-0]");
  });

  it("escapes titles from the files in the text and the Markdown", () => {
    const have = [chainStore("a", "1")];
    const want = [
      chainStore("a", "1", (s) => (catalogOf(s).items["BURGER-BBQ"]!.title = "\u001b[2J<b>@admin</b>```")),
    ];
    const plan = buildPlan(desired(...want), withSlotIds(...have));
    const text = renderText(plan, { color: false });
    expect(text).not.toContain("\u001b");
    expect(text).toContain("\\x1b[2J");
    const md = renderMarkdown(plan);
    expect(md).not.toContain("\u001b");
    expect(md.match(/```/g)).toHaveLength(2);
  });
});

// ── A chain of 40 stores, as its menu manager reads the plan ─────────────────────────────────────────

/** Store `i` of a 40-store chain: the chain's catalog, and its special days read (none yet). */
function fortyStore(i: number, edit: (s: StoreState) => void = () => {}): StoreState {
  return chainStore(`store-${String(i).padStart(2, "0")}`, String(800_100 + i), (s) => {
    specialDaysState.set(s, {});
    edit(s);
  });
}

/**
 * A price changed in three stores, an item switched off and every store closed on 24 December 2026 (a
 * special day the files date fully): 120 changes, 83 API calls.
 */
function fortyPlan() {
  const have = Array.from({ length: 40 }, (_, i) => fortyStore(i));
  const want = Array.from({ length: 40 }, (_, i) =>
    fortyStore(i, (s) => {
      if (i < 3) catalogOf(s).items["BURGER-BBQ"]!.price = 28900;
      catalogOf(s).unavailable = ["SHAKE-GUANABANA"];
      specialDaysState.set(s, { "12-24": { name: "Nochebuena", month: 12, day: 24, slots: [], year: 2026 } });
    }),
  );
  return buildPlan({ ...desired(...want), currency: "COP" }, withSlotIds(...have));
}

describe("a plan of a 40-store chain", () => {
  it("is at most 10 lines of text: changes, not API calls, and every store said as all 40", async () => {
    const plan = fortyPlan();
    expect(plan.operations.length).toBeGreaterThan(40);
    // As the CLI prints it: the target first.
    const text = renderText(plan, { color: false, target: "platform at api.example.com" });
    expect(text.trimEnd().split("\n").length).toBeLessThanOrEqual(10);
    expect(text).not.toMatch(/\/api\/|POST|store-05/);
    expect(text).toContain("in all 40 stores");
    expect(text).toContain(`; ${plan.operations.length} API calls (--show-calls lists them).\n`);
    await expect(text).toMatchFileSnapshot("expected/people-forty.txt");
    await expect(renderMarkdown(plan)).toMatchFileSnapshot("expected/people-forty.md");
  });

  it("lists every API call with showCalls, and the JSON plan always holds them", () => {
    const plan = fortyPlan();
    const text = renderText(plan, { color: false, showCalls: true });
    expect(text).toContain("API calls, in order:\n");
    expect(text).toMatch(/^ {2}\d+-\d+\. POST {3}\/api\/rest-ops-utils\/store\/schedule\/\*\/special /m);
    expect(text).not.toMatch(/--show-calls/);
    const json = JSON.parse(renderJson(plan)) as { formatVersion: number; operations: unknown[] };
    expect(json.formatVersion).toBe(1);
    expect(json.operations).toHaveLength(plan.operations.length);
  });

  it("shows a special day the files date fully with its year, one of every year without", () => {
    const dated = fortyPlan();
    const change = dated.changes.find((c) => c.kind === "special_day")!;
    expect([change.key, change.label]).toEqual(["12-24", "2026-12-24"]);
    expect(renderText(dated, { color: false })).toContain("+ special day 2026-12-24 (Nochebuena): closed");
    const have = [fortyStore(0), fortyStore(1)];
    const want = [0, 1].map((i) =>
      fortyStore(i, (s) =>
        specialDaysState.set(s, { "12-24": { name: "Nochebuena", month: 12, day: 24, slots: [] } }),
      ),
    );
    const yearly = buildPlan(desired(...want), withSlotIds(...have));
    expect(renderText(yearly, { color: false })).toContain(
      "+ special day 12-24 (Nochebuena): closed  in both stores",
    );
  });

  it("names the stores of a limited plan as all of this plan's, and a store left out by name", () => {
    const plan = fortyPlan();
    const limited = { ...plan, targeting: { stores: ["store-0*"], kinds: [], targets: [] } };
    expect(renderText(limited, { color: false })).toContain("in all 40 stores of this plan");
    const oneLess = { ...plan, stores: [...plan.stores, { key: "store-40", storeId: "800140", name: "x" }] };
    expect(renderText(oneLess, { color: false })).toContain("in 40 stores: store-00, store-01,");
  });

  it("says 1 API call in the singular, and the Action's log names no CLI flag", () => {
    const have = [chainStore("a", "1")];
    const want = [chainStore("a", "1", (s) => (catalogOf(s).items["BURGER-BBQ"]!.price = 1))];
    const plan = buildPlan(desired(...want), withSlotIds(...have));
    expect(renderText(plan, { color: false })).toContain(
      "\nPlan: 0 to create, 1 to update, 0 to delete in 1 store; 1 API call (--show-calls lists it).\n",
    );
    expect(renderText(plan, { color: false, showCallsBy: null })).toContain(
      "\nPlan: 0 to create, 1 to update, 0 to delete in 1 store; 1 API call.\n",
    );
  });
});

// ── An option priced per parent ─────────────────────────────────────────────────────────────────────

/** A pizza whose two stuffed crusts offer one toppings group, its option priced in each crust. */
function crustStore(inTrad: number, title = "Cheddar") {
  return store("centro", "900301", (s) => {
    s.store.name = "Brasa Centro";
    catalogOf(s).items = {
      PIZZA: item("PIZZA", 39.9, { title: "Pizza", children: ["BORDA"] }),
      BORDA: group("BORDA", ["BORDA-G-CATUPIRY", "BORDA-G-TRAD"], 1, 1),
      "BORDA-G-CATUPIRY": item("BORDA-G-CATUPIRY", 9, { title: "Catupiry", children: ["COBERTURAS"] }),
      "BORDA-G-TRAD": item("BORDA-G-TRAD", 6, { title: "Tradicional", children: ["COBERTURAS"] }),
      COBERTURAS: group("COBERTURAS", ["COB-CHEDDAR"], 0, 1),
      "COB-CHEDDAR": item("COB-CHEDDAR", 5, {
        title,
        priceInParent: { "BORDA-G-CATUPIRY": 7, "BORDA-G-TRAD": inTrad },
      }),
    };
  });
}

describe("an option priced per parent", () => {
  it("shows the price in a parent under that parent's path", async () => {
    const plan = buildPlan(
      { ...desired(crustStore(7.9, "Cheddar cremoso")), currency: "BRL" },
      current(crustStore(7.5)),
    );
    const text = renderText(plan, { color: false });
    // The kind's path goes through BORDA-G-CATUPIRY (the first); the price is BORDA-G-TRAD's.
    expect(text).toContain(
      "  ~ option COB-CHEDDAR (Cheddar cremoso)  in BORDA-G-TRAD › COBERTURAS\n      price in BORDA-G-TRAD: R$ 7,50 → R$ 7,90\n",
    );
    expect(text).toContain(
      "  ~ option COB-CHEDDAR (Cheddar cremoso)  in PIZZA › BORDA › BORDA-G-CATUPIRY › COBERTURAS\n      title:",
    );
    await expect(text).toMatchFileSnapshot("expected/people-parent-price.txt");
  });
});
