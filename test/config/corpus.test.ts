/**
 * The bad-config corpus: one small project per semantic rule, each with the exact located problems it
 * must produce (`file:line:col: message`, paths relative to the project folder), and no API call made.
 * Every case starts from a valid project and changes or adds the files it names.
 */

import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadProject } from "../../src/config/index.js";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { carte } from "../helpers/project.js";
import { CATALOG, problemsOf, shown, storeYaml, writeProject } from "./helpers.js";

// No groups: line (a pattern that matches nothing is an error); a comment keeps the line numbers.
const PROJECT =
  "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n# groups: only in cases with group files\n";

/** A store file `stores/a.yaml` (id 1, integration id `a`) with extra lines. */
const store = (extra: string): Record<string, string> => ({ "stores/a.yaml": storeYaml(1, "a", extra) });

/** The catalog with one more item line and one more category line. */
const catalogWith = (items: string, categories = ""): string =>
  CATALOG.replace("modifier_groups:\n", `${items}modifier_groups:\n`).replace(
    "menus:\n",
    `${categories}menus:\n`,
  );

interface Case {
  /** The rule, as the corpus names it. */
  rule: string;
  files: Record<string, string>;
  /** Expected problems, `path:line:col: message`, the path relative to the project folder. */
  problems: string[];
}

const CASES: Case[] = [
  // ---- times, slots and days ----
  {
    rule: "malformed time",
    files: store('hours:\n  mon: ["25:00-26:00"]\n'),
    problems: [
      'stores/a.yaml:7:9: "25:00" is not a time of day: hours go from 00 to 23 (24:00 only as the end of a slot)',
    ],
  },
  {
    rule: "slot not written start-end",
    files: store('hours:\n  mon: ["11-15"]\n'),
    problems: [
      'stores/a.yaml:7:9: mon[0] "11-15" is not allowed here: write a slot as start-end in 24-hour time, e.g. 11:00-15:00 (22:00-02:00 runs past midnight)',
    ],
  },
  {
    rule: "zero-length slot",
    files: store('hours:\n  mon: ["11:00-11:00"]\n'),
    problems: ['stores/a.yaml:7:9: slot "11:00-11:00" is empty: its start and end are the same time'],
  },
  {
    rule: "overlapping slots",
    files: store('hours:\n  mon-fri: ["11:00-15:00", "14:00-18:00"]\n'),
    problems: [
      'stores/a.yaml:7:28: slot "14:00-18:00" overlaps slot "11:00-15:00" at stores/a.yaml:7:13: slots of one day must not overlap',
    ],
  },
  {
    rule: "overlap with a slot running past midnight",
    files: store('hours:\n  fri: ["22:00-02:00"]\n  sat: ["01:00-05:00"]\n'),
    problems: [
      'stores/a.yaml:8:9: slot "01:00-05:00" overlaps slot "22:00-02:00" at stores/a.yaml:7:9, which runs past midnight into the next day: slots of one day must not overlap',
    ],
  },
  {
    rule: "overlap created by inheritance",
    files: {
      "carte.yaml": PROJECT + 'defaults:\n  hours:\n    fri: ["20:00-03:00"]\n',
      ...store('hours:\n  sat: ["00:00-10:00"]\n'),
    },
    problems: [
      'stores/a.yaml:7:9: slot "00:00-10:00" overlaps slot "20:00-03:00" at carte.yaml:7:11, which runs past midnight into the next day: slots of one day must not overlap',
    ],
  },
  {
    rule: "malformed days",
    files: store('hours:\n  mon-xyz: ["11:00-15:00"]\n'),
    problems: ['stores/a.yaml:7:3: days "mon-xyz": "xyz" is not a day (use mon … sun or daily)'],
  },
  {
    rule: "a day named by two keys",
    files: store('hours:\n  mon-fri: ["11:00-15:00"]\n  fri,sat: ["12:00-23:00"]\n'),
    problems: [
      'stores/a.yaml:8:3: "fri,sat" names fri again, already given by "mon-fri" at stores/a.yaml:7:12: each day may be named by one key only',
    ],
  },
  {
    rule: "hol in regular hours",
    files: store('hours:\n  hol: ["11:00-15:00"]\n'),
    problems: [
      'stores/a.yaml:7:3: days "hol": hol is not a day of regular hours; write holiday hours under holidays:',
    ],
  },
  {
    rule: "more than 6 slots a day",
    files: store(
      'hours:\n  mon: ["01:00-02:00", "03:00-04:00", "05:00-06:00", "07:00-08:00", "09:00-10:00", "11:00-12:00", "13:00-14:00"]\n',
    ),
    problems: ["stores/a.yaml:7:3: mon has 7 slots; the platform allows at most 6 a day"],
  },
  // ---- holidays and special days ----
  {
    rule: "invalid holiday date",
    files: store('holidays:\n  "02-30": []\n'),
    problems: ['stores/a.yaml:7:3: holiday "02-30" is not a date: month 02 has days 01 to 29'],
  },
  {
    rule: "holiday slot past midnight",
    files: store('holidays:\n  "12-31": ["20:00-02:00"]\n'),
    problems: [
      'stores/a.yaml:7:13: slot "20:00-02:00" runs past midnight: end it at 24:00 here and give the next day its own slot from 00:00',
    ],
  },
  {
    rule: "invalid special day date",
    files: store('special_days:\n  - { name: X, date: "13-01", slots: [] }\n'),
    problems: ['stores/a.yaml:7:22: special day "13-01" is not a date: the month (MM) goes from 01 to 12'],
  },
  {
    rule: "special day written twice",
    files: store(
      'special_days:\n  - { name: Eve, date: "12-24", slots: [] }\n  - { name: Again, date: "12-24", slots: [] }\n',
    ),
    problems: [
      "stores/a.yaml:8:26: special day 12-24 is already written at stores/a.yaml:7:24: each date appears once",
    ],
  },
  // ---- schedules of categories and items ----
  {
    rule: "schedule with malformed days",
    files: {
      "catalogs/burgers.yaml": CATALOG.replace(
        "items: [BURGER, FRIES] }",
        'items: [BURGER, FRIES], schedules: [{ days: weekdays, slots: ["06:00-11:00"] }] }',
      ),
    },
    problems: [
      'catalogs/burgers.yaml:14:75: days "weekdays": "weekdays" is not a day (use mon, tue, wed, thu, fri, sat, sun, hol or daily)',
    ],
  },
  {
    rule: "schedules overlapping on a day",
    files: {
      "catalogs/burgers.yaml": CATALOG.replace(
        "items: [BURGER, FRIES] }",
        'items: [BURGER, FRIES], schedules: [{ days: mon-fri, slots: ["06:00-11:00"] }, { days: fri, slots: ["10:00-12:00"] }] }',
      ),
    },
    problems: [
      'catalogs/burgers.yaml:14:131: slot "10:00-12:00" overlaps slot "06:00-11:00" at catalogs/burgers.yaml:14:92: slots of one day must not overlap',
    ],
  },
  {
    rule: "more than 6 periods in a schedule",
    files: {
      "catalogs/burgers.yaml": CATALOG.replace(
        "price: 8900 }",
        'price: 8900, schedules: [{ days: daily, slots: ["01:00-02:00", "03:00-04:00", "05:00-06:00", "07:00-08:00", "09:00-10:00", "11:00-12:00", "13:00-14:00"] }] }',
      ),
    },
    problems: [
      "catalogs/burgers.yaml:3:57: item FRIES has 7 slots on mon, tue, wed, thu, fri, sat, sun; the platform allows at most 6 a day",
    ],
  },
  {
    rule: "holiday schedule past midnight",
    files: {
      "catalogs/burgers.yaml": CATALOG.replace(
        "price: 8900 }",
        'price: 8900, schedules: [{ days: "sat,hol", slots: ["22:00-02:00"] }] }',
      ),
    },
    problems: [
      'catalogs/burgers.yaml:3:85: slot "22:00-02:00" runs past midnight on hol: the day after a holiday is not known, end it at 24:00',
    ],
  },
  // ---- SKUs of catalogs ----
  {
    rule: "unknown SKU in a category",
    files: {
      "catalogs/burgers.yaml": CATALOG.replace("items: [BURGER, FRIES]", "items: [BURGER, FRIES, SHAKE]"),
    },
    problems: [
      'catalogs/burgers.yaml:14:54: unknown item "SHAKE" in category MAIN: add it under items:, or remove it from the category',
    ],
  },
  {
    rule: "unknown category in a menu",
    files: { "catalogs/burgers.yaml": CATALOG.replace("categories: [MAIN]", "categories: [MAIN, DRINKS]") },
    problems: [
      'catalogs/burgers.yaml:16:41: unknown category "DRINKS": define it under categories, or remove it from the menu',
    ],
  },
  {
    rule: "duplicate SKU",
    files: { "catalogs/burgers.yaml": catalogWith("  - { sku: BURGER, title: Again, price: 1 }\n") },
    problems: [
      'catalogs/burgers.yaml:4:12: duplicate SKU "BURGER": already used by an item at catalogs/burgers.yaml:2:12; SKUs must be unique in a catalog',
    ],
  },
  {
    rule: "ITEM where a MODIFIER_GROUP belongs",
    files: {
      "catalogs/burgers.yaml": CATALOG.replace(
        "modifier_groups: [EXTRAS]",
        "modifier_groups: [EXTRAS, FRIES]",
      ),
    },
    problems: [
      'catalogs/burgers.yaml:2:75: "FRIES" is an item, not a modifier group: an item\'s modifier_groups lists groups only',
    ],
  },
  {
    rule: "MODIFIER_GROUP where an ITEM belongs",
    files: { "catalogs/burgers.yaml": CATALOG.replace("items: [BURGER, FRIES]", "items: [BURGER, EXTRAS]") },
    problems: ['catalogs/burgers.yaml:14:47: "EXTRAS" is a modifier group, categories hold only items'],
  },
  {
    rule: "cycle of modifier groups",
    files: {
      "catalogs/burgers.yaml": CATALOG.replace(
        "      - { sku: BACON, title: Bacon, price: 4500 }\n",
        "      - { sku: BACON, title: Bacon, price: 4500 }\n      - SAUCES\n",
      ).replace(
        "categories:\n",
        "  - { sku: SAUCES, title: Sauces, min: 0, max: 1, options: [EXTRAS] }\ncategories:\n",
      ),
    },
    problems: [
      "catalogs/burgers.yaml:13:9: modifier groups form a cycle: EXTRAS → SAUCES → EXTRAS; a group's options must be options, not groups",
      "catalogs/burgers.yaml:14:61: modifier groups form a cycle: SAUCES → EXTRAS → SAUCES; a group's options must be options, not groups",
    ],
  },
  {
    rule: "option_prices names an unknown option",
    files: {
      "catalogs/burgers.yaml": CATALOG.replace(
        "modifier_groups: [EXTRAS] }",
        "modifier_groups: [EXTRAS], option_prices: { GHOST: 0 } }",
      ),
    },
    problems: [
      'catalogs/burgers.yaml:2:93: unknown option "GHOST": option_prices lists options of this item\'s modifier groups',
    ],
  },
  {
    rule: "option_prices names an option the item does not offer",
    files: {
      "catalogs/burgers.yaml": CATALOG.replace(
        "price: 8900 }",
        "price: 8900, option_prices: { CHEESE: 0 } }",
      ),
    },
    problems: [
      'catalogs/burgers.yaml:3:63: option "CHEESE" is not offered under FRIES (by its modifier groups, or those of the options below it): add its group to the item\'s modifier_groups, or remove it here',
    ],
  },
  // ---- published limits ----
  {
    rule: "more than 50 items in a category",
    files: {
      "catalogs/burgers.yaml": catalogWith(
        Array.from({ length: 51 }, (_, i) => `  - { sku: I${i}, title: I, price: 1 }\n`).join(""),
        `  - { sku: MANY, title: Many, items: [${Array.from({ length: 51 }, (_, i) => `I${i}`).join(", ")}] }\n`,
      ),
    },
    problems: ["catalogs/burgers.yaml:66:38: items has 51 entries; at most 50 are allowed"],
  },
  {
    rule: "more than 50 children of an item",
    files: {
      "catalogs/burgers.yaml": catalogWith(
        `  - { sku: BIG, title: Big, price: 1, modifier_groups: [${Array.from({ length: 51 }, (_, i) => `G${i}`).join(", ")}] }\n`,
      ).replace(
        "categories:\n",
        Array.from(
          { length: 51 },
          (_, i) => `  - { sku: G${i}, title: G, min: 0, max: 1, options: [CHEESE] }\n`,
        ).join("") + "categories:\n",
      ),
    },
    problems: ["catalogs/burgers.yaml:4:56: modifier_groups has 51 entries; at most 50 are allowed"],
  },
  {
    rule: "more than 3 images",
    files: {
      "catalogs/burgers.yaml": CATALOG.replace(
        "price: 8900 }",
        "price: 8900, images: [a.jpg, b.jpg, c.jpg, d.jpg] }",
      ),
    },
    problems: ["catalogs/burgers.yaml:3:54: images has 4 entries; at most 3 are allowed"],
  },
  {
    rule: "title too long",
    files: { "catalogs/burgers.yaml": CATALOG.replace("title: Fries", `title: ${"x".repeat(1001)}`) },
    problems: ["catalogs/burgers.yaml:3:26: title is 1001 characters long; at most 1000 are allowed"],
  },
  // ---- SKUs a store names ----
  {
    rule: "unknown SKU in overrides",
    files: store("overrides:\n  prices: { GHOST: 1 }\n"),
    problems: [
      'stores/a.yaml:7:13: unknown SKU "GHOST": catalog burgers has no item or option with this SKU',
    ],
  },
  {
    rule: "unknown SKU in store titles",
    files: store("overrides:\n  titles: { GHOST: Boo }\n"),
    problems: [
      'stores/a.yaml:7:13: unknown SKU "GHOST": catalog burgers has no item, option, modifier group or category with this SKU',
    ],
  },
  {
    rule: "description of a modifier group",
    files: store("overrides:\n  descriptions: { EXTRAS: Extra things }\n"),
    problems: [
      'stores/a.yaml:7:19: "EXTRAS" is a modifier group, which has no description: descriptions are for items and options',
    ],
  },
  {
    rule: "unknown SKU in availability",
    files: store("availability:\n  unavailable: [GHOST]\n"),
    problems: [
      'stores/a.yaml:7:17: unknown SKU "GHOST": catalog burgers has no item or option with this SKU',
    ],
  },
  {
    rule: "a SKU both unavailable and available",
    files: store("availability:\n  unavailable: [FRIES]\n  available: [FRIES]\n"),
    problems: [
      'stores/a.yaml:8:15: "FRIES" is listed as both unavailable and available: keep it in one list',
    ],
  },
  // ---- stores and groups ----
  {
    rule: "duplicate store id",
    files: { "stores/b.yaml": storeYaml(1, "b") },
    problems: ["stores/b.yaml:2:7: duplicate store id 1: already used by the store at stores/a.yaml:2:7"],
  },
  {
    rule: "unknown group",
    files: store("group: paris\n"),
    problems: [
      'stores/a.yaml:6:8: unknown group "paris": no group files were found (see groups: in carte.yaml)',
    ],
  },
  {
    rule: "duplicate group name",
    files: {
      "carte.yaml": PROJECT + "groups: groups/*.yaml\n",
      "groups/a.yaml": "name: bogota\n",
      "groups/b.yaml": "name: bogota\n",
    },
    problems: [
      'groups/b.yaml:1:7: duplicate group name "bogota": groups/a.yaml already has it; give one of them a different name: (the default name is the file name)',
    ],
  },
  // ---- webhooks ----
  {
    rule: "webhook address not https",
    files: store("webhooks:\n  NEW_ORDER: http://orders.example.com/new\n"),
    problems: [
      'stores/a.yaml:7:14: webhook address "http://orders.example.com/new" must start with https:// (http:// is accepted only for localhost and 127.0.0.1)',
    ],
  },
  {
    rule: "unknown event",
    files: store("webhooks:\n  NEW_ORDERS: https://orders.example.com/new\n"),
    problems: [
      'stores/a.yaml:7:3: unknown webhook event "NEW_ORDERS" (did you mean "NEW_ORDER"?) (events: NEW_ORDER, NEW_ORDER_SCHEDULED, NEW_ORDER_SCHEDULED_CANCELLED, ORDER_EVENT_CANCEL, ORDER_OTHER_EVENT, MENU_APPROVED, MENU_REJECTED, PING, STORE_CONNECTIVITY, ORDER_RT_TRACKING)',
    ],
  },
  {
    rule: "client-level event on a store",
    files: store("webhooks:\n  STORE_PROVISIONING_STATUS: https://x.example.com/p\n"),
    problems: [
      "stores/a.yaml:7:3: STORE_PROVISIONING_STATUS is an integration-wide event: write it under client: webhooks: in carte.yaml",
    ],
  },
  {
    rule: "store event at client level",
    files: { "carte.yaml": PROJECT + "client:\n  webhooks:\n    NEW_ORDER: https://x.example.com/p\n" },
    problems: ['carte.yaml:7:5: unknown key "NEW_ORDER" in webhooks (allowed: STORE_PROVISIONING_STATUS)'],
  },
  {
    rule: "webhook without url",
    files: store("webhooks:\n  PING: { enabled: false }\n"),
    problems: [
      "stores/a.yaml:7:3: webhook PING has no url here nor in the defaults it inherits: add url: https://…",
    ],
  },
  // ---- includes ----
  {
    rule: "included file missing",
    files: store("include: shared/hours.yaml\n"),
    problems: [
      'stores/a.yaml:6:10: include: file "shared/hours.yaml" does not exist (looked for shared/hours.yaml); paths are relative to the folder of carte.yaml',
    ],
  },
  {
    rule: "include cycle",
    files: {
      ...store("include: shared/a.yaml\n"),
      "shared/a.yaml": "include: shared/b.yaml\n",
      "shared/b.yaml": "include: [shared/a.yaml]\n",
    },
    problems: [
      "shared/b.yaml:1:11: include cycle: shared/a.yaml → shared/b.yaml → shared/a.yaml; a file must not include itself, directly or through others",
    ],
  },
  {
    rule: "included folder",
    files: { ...store("include: [shared/hours.yaml, shared]\n"), "shared/hours.yaml": "open: true\n" },
    problems: [
      'stores/a.yaml:6:30: include: "shared" is a folder, not a file: list the settings files in it to include, one path per entry',
    ],
  },
  {
    rule: "included pattern",
    files: { ...store("include: shared/*.yaml\n"), "shared/hours.yaml": "open: true\n" },
    problems: [
      'stores/a.yaml:6:10: include: no file is named "shared/*.yaml"; include: does not expand patterns: list each file (paths relative to the folder of carte.yaml)',
    ],
  },
  {
    rule: "included file outside the project",
    files: store("include:\n  - ../hours.yaml\n"),
    problems: [
      'stores/a.yaml:7:5: include: "../hours.yaml" is outside the project folder; files named in the configuration must be inside the folder of carte.yaml (write paths relative to it, without ..)',
    ],
  },
  {
    rule: "problem inside an included file",
    files: {
      ...store("include: shared/hours.yaml\n"),
      "shared/hours.yaml": 'hours:\n  daily: ["09:00-7:60"]\n',
    },
    problems: ['shared/hours.yaml:2:11: "7:60" is not a time of day: minutes go from 00 to 59'],
  },
  // ---- one document per file ----
  {
    rule: "second document in a store file",
    files: store("---\nopen: false\n"),
    problems: [
      "stores/a.yaml:6:1: a carte file holds one YAML document; this second document (line 6) would be ignored: remove the `---` or move it to its own file",
    ],
  },
  {
    rule: "second document in a catalog",
    files: { "catalogs/burgers.yaml": CATALOG + "--- # prices of the new season\nitems: []\n" },
    problems: [
      "catalogs/burgers.yaml:17:1: a carte file holds one YAML document; this second document (line 17) would be ignored: remove the `---` or move it to its own file",
    ],
  },
  {
    rule: "second document in an included file",
    files: {
      ...store("include: shared/hours.yaml\n"),
      "shared/hours.yaml": "open: true\n...\nopen: false\n",
    },
    problems: [
      "shared/hours.yaml:3:1: a carte file holds one YAML document; this second document (line 3, after the end marker `...`) would be ignored: remove the `...` or move it to its own file",
    ],
  },
];

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, applyDelayMs: 0 });
});
afterAll(async () => {
  await emu.close();
});

describe("bad-config corpus", () => {
  it("has one case per rule", () => {
    expect(new Set(CASES.map((c) => c.rule)).size).toBe(CASES.length);
  });

  for (const c of CASES) {
    it(c.rule, async () => {
      const files: Record<string, string> = {
        "carte.yaml": PROJECT,
        "catalogs/burgers.yaml": CATALOG,
        "stores/a.yaml": storeYaml(1, "a"),
        ...c.files,
      };
      // Pointed at a live emulator, to prove that nothing is called.
      files["carte.yaml"] += `platform:\n  base_url: ${emu.url}\n`;
      const dir = await writeProject(files);
      const config = join(dir, "carte.yaml");

      const problems = await problemsOf(loadProject(config));
      const prefix = shown(dir, "") + "/";
      const got = problems.map((p) => p.split(prefix).join(""));
      if (process.env.CORPUS_PRINT)
        appendFileSync(process.env.CORPUS_PRINT, JSON.stringify({ rule: c.rule, got }) + "\n");
      expect(got).toEqual(c.problems);

      emu.clearRequests();
      const plan = await carte(["plan", "-c", config]);
      expect(plan.code).toBe(1);
      expect(plan.err).toContain(problems[0]);
      expect(emu.requests).toEqual([]);
    });
  }
});
