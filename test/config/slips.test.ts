/**
 * A corpus of slips a person makes in carte's files: each gives ONE problem, in words, at the line of
 * the slip (not at the line above, not once per store, no regular expression, no knock-on problems).
 * Loaded in-process (no CLI), so the whole table takes about a second.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject } from "../../src/config/index.js";
import { holidayMissProblems } from "../../src/config/holiday-dates.js";
import { carte } from "../helpers/project.js";
import { CATALOG, PROJECT, problemsOf, shown, storeYaml, writeProject } from "./helpers.js";
import { savedPlan } from "../helpers/plan-file.js";

interface Slip {
  name: string;
  /** Files replacing or adding to the base project (carte.yaml, catalogs/burgers.yaml, stores/a.yaml). */
  files: Record<string, string>;
  /** The file the problem is in. */
  file: string;
  line: number;
  /** A part of the message. */
  says: string;
}

const BRL = "version: 1\ncurrency: BRL\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n";
const COP = "version: 1\ncurrency: COP\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n";
const BLOCK_CATALOG = `items:
  - sku: BURGER
    title: Burger
    price: 24900
  - sku: FRIES
    title: Fries
    price: 8900
`;
const store = (extra: string) => ({ "stores/a.yaml": storeYaml(1, "a", extra) });
const catalog = (text: string) => ({ "catalogs/burgers.yaml": text });
/** The store file with its `store:` block written out, to slip inside it. */
const storeText = (body: string) => ({ "stores/a.yaml": body });
const S = "stores/a.yaml";
const C = "catalogs/burgers.yaml";
const P = "carte.yaml";

const SLIPS: Slip[] = [
  // YAML: tabs
  {
    name: "a tab before price:",
    files: catalog(BLOCK_CATALOG.replace("    price: 24900", "\tprice: 24900")),
    file: C,
    line: 4,
    says: "use spaces, not a tab",
  },
  {
    name: "a tab before a store key",
    files: storeText("store:\n\tid: 1\n  integration_id: a\n  name: A\ncatalog: burgers\n"),
    file: S,
    line: 2,
    says: "use spaces, not a tab",
  },
  {
    name: "spaces then a tab",
    files: catalog(BLOCK_CATALOG.replace("    title: Fries", "  \ttitle: Fries")),
    file: C,
    line: 6,
    says: "use spaces, not a tab",
  },
  {
    name: "a tab in carte.yaml",
    files: {
      [P]: "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\nsafety:\n\tmax_price_change_percent: 50\n",
    },
    file: P,
    line: 5,
    says: "use spaces, not a tab",
  },
  // YAML: indentation
  {
    name: "a 3-space indent in a list item",
    files: catalog(BLOCK_CATALOG.replace("    price: 24900", "   price: 24900")),
    file: C,
    line: 4,
    says: "indent it 4 spaces to put it under the list item at line 2",
  },
  {
    name: "a 5-space indent in a list item",
    files: catalog(BLOCK_CATALOG.replace("    price: 8900", "     price: 8900")),
    file: C,
    line: 7,
    says: "`price:` is indented 5 spaces, under `title:` (line 6), which already has a value",
  },
  {
    name: "a key indented under a key with a value",
    files: storeText("store:\n  id: 1\n    integration_id: a\n  name: A\ncatalog: burgers\n"),
    file: S,
    line: 3,
    says: "under `store:`, indent it 2 spaces",
  },
  {
    name: "a key indented 1 space",
    files: storeText("store:\n  id: 1\n  integration_id: a\n name: A\ncatalog: burgers\n"),
    file: S,
    line: 4,
    says: "indent it 2 spaces to put it under `store:`",
  },
  {
    name: "a key indented 3 spaces",
    files: storeText("store:\n  id: 1\n  integration_id: a\n   name: A\ncatalog: burgers\n"),
    file: S,
    line: 4,
    says: "`name:` is indented 3 spaces",
  },
  {
    name: "a top-level key indented",
    files: storeText("store:\n  id: 1\n  integration_id: a\n  name: A\n catalog: burgers\n"),
    file: S,
    line: 5,
    says: "`catalog:` is indented 1 space",
  },
  {
    name: "an item's key indented like the dash",
    files: catalog(BLOCK_CATALOG.replace("    title: Burger", "   title: Burger")),
    file: C,
    line: 3,
    says: "indent it 4 spaces",
  },
  {
    name: "a slip in a price override",
    files: store("overrides:\n  prices:\n    BURGER: 100\n     FRIES: 200\n"),
    file: S,
    line: 9,
    says: "`FRIES:` is indented 5 spaces, under `BURGER:` (line 8)",
  },
  {
    name: "a slip in hours",
    files: store('hours:\n  mon-fri: ["11:00-15:00"]\n   sat: ["11:00-15:00"]\n'),
    file: S,
    line: 8,
    says: "`sat:` is indented 3 spaces",
  },
  {
    name: "an unclosed bracket",
    files: store("availability:\n  unavailable: [FRIES\n"),
    file: S,
    line: 7,
    says: "YAML syntax error",
  },
  // Prices
  {
    name: "a 3-decimal BRL price",
    files: { [P]: BRL, ...store("overrides:\n  prices:\n    BURGER: 6.905\n") },
    file: S,
    line: 8,
    says: "round it to 2 decimals (6.91)",
  },
  {
    name: "a thousands separator in COP",
    files: { [P]: COP, ...store("overrides:\n  prices:\n    BURGER: 24.900\n") },
    file: S,
    line: 8,
    says: "if you meant 24900, write it without the thousands separator",
  },
  {
    name: "a thousands separator in a catalog in COP",
    files: { [P]: COP, ...catalog(BLOCK_CATALOG.replace("price: 24900", "price: 24.900")) },
    file: C,
    line: 4,
    says: "if you meant 24900",
  },
  {
    name: "a comma in a price inside { }",
    files: store("overrides:\n  prices: {BURGER: 25,900}\n"),
    file: S,
    line: 7,
    says: 'the comma in "25,900" splits it in two',
  },
  {
    name: "a comma in a price, COP",
    files: { [P]: COP, ...store("overrides:\n  prices:\n    BURGER: 25,900\n") },
    file: S,
    line: 8,
    says: "write 25900, without the thousands separator",
  },
  {
    name: "a decimal comma, BRL",
    files: { [P]: BRL, ...store("overrides:\n  prices:\n    BURGER: 6,90\n") },
    file: S,
    line: 8,
    says: "write 6.90, with a decimal point",
  },
  {
    name: "a comma in a BRL price is never read as 1000x",
    files: { [P]: BRL, ...store("overrides:\n  prices:\n    BURGER: 25,900\n") },
    file: S,
    line: 8,
    says: "write 25.90",
  },
  {
    name: "a negative price",
    files: catalog(BLOCK_CATALOG.replace("price: 8900", "price: -8900")),
    file: C,
    line: 7,
    says: "price must be at least 0",
  },
  {
    name: "a price in quotes with a currency sign",
    files: store('overrides:\n  prices:\n    BURGER: "$24900"\n'),
    file: S,
    line: 8,
    says: "BURGER",
  },
  // Patterns, enums, keys
  {
    name: "a SKU with a space",
    files: catalog(BLOCK_CATALOG.replace("sku: FRIES", "sku: FRIES XL")),
    file: C,
    line: 5,
    says: "use letters, digits, dots, dashes and underscores",
  },
  {
    name: "an integration id in capitals",
    files: storeText("store:\n  id: 1\n  integration_id: Bog-Centro\n  name: A\ncatalog: burgers\n"),
    file: S,
    line: 3,
    says: "use lower case letters, digits and dashes",
  },
  {
    name: "a store id with a leading 0",
    files: storeText('store:\n  id: "0123"\n  integration_id: a\n  name: A\ncatalog: burgers\n'),
    file: S,
    line: 2,
    says: "use digits only, without a leading 0",
  },
  {
    name: "a currency in lower case",
    files: { [P]: "version: 1\ncurrency: cop\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n" },
    file: P,
    line: 2,
    says: "3-letter ISO 4217 code in capitals",
  },
  {
    name: "a slot without a dash",
    files: store('hours:\n  mon-sun: ["11:00 15:00"]\n'),
    file: S,
    line: 7,
    says: "write a slot as start-end in 24-hour time",
  },
  {
    name: "an hour past 23",
    files: store('hours:\n  mon-sun: ["25:00-23:00"]\n'),
    file: S,
    line: 7,
    says: "is not a time of day",
  },
  {
    name: "overlapping slots",
    files: store('hours:\n  mon-sun: ["11:00-15:00", "14:00-16:00"]\n'),
    file: S,
    line: 7,
    says: "overlaps slot",
  },
  {
    name: "a misspelt key",
    files: store("hours:\n  mon-sun: []\nopne: true\n"),
    file: S,
    line: 8,
    says: 'unknown key "opne" (did you mean "open"?)',
  },
  {
    name: "a misspelt item key",
    files: catalog(BLOCK_CATALOG.replace("    title: Fries", "    tittle: Fries\n    title: Fries")),
    file: C,
    line: 6,
    says: 'unknown key "tittle" (did you mean "title"?)',
  },
  {
    name: "a misspelt modifier group type",
    files: catalog(CATALOG.replace("type: inclusive", "type: inclusve")),
    file: C,
    line: 9,
    says: 'did you mean "inclusive"?',
  },
  {
    name: "open: yes in quotes",
    files: store('open: "yes"\n'),
    file: S,
    line: 6,
    says: "open must be true or false",
  },
  {
    name: "a missing title",
    files: catalog(BLOCK_CATALOG.replace("    title: Fries\n", "")),
    file: C,
    line: 5,
    says: 'missing required key "title"',
  },
  // Between files
  {
    name: "a misspelt SKU in a price override",
    files: store("overrides:\n  prices:\n    BURGR: 100\n"),
    file: S,
    line: 8,
    says: 'unknown SKU "BURGR" (did you mean "BURGER"?)',
  },
  {
    name: "a SKU in lower case",
    files: store("availability:\n  unavailable: [fries]\n"),
    file: S,
    line: 7,
    says: 'did you mean "FRIES"?',
  },
  {
    name: "a misspelt catalog",
    files: storeText("store:\n  id: 1\n  integration_id: a\n  name: A\ncatalog: burger\n"),
    file: S,
    line: 5,
    says: "burgers",
  },
  {
    name: "a duplicate SKU",
    files: catalog(BLOCK_CATALOG.replace("sku: FRIES", "sku: BURGER")),
    file: C,
    line: 5,
    says: "BURGER",
  },
  {
    name: "a duplicate store id",
    files: { "stores/b.yaml": storeYaml(1, "b") },
    file: "stores/b.yaml",
    line: 2,
    says: "duplicate store id 1",
  },
  {
    name: "a mistake in defaults: with several stores is reported once",
    files: {
      [P]: `${PROJECT}defaults:\n  overrides:\n    prices:\n      NOPE: 100\n`,
      "stores/b.yaml": storeYaml(2, "b"),
      "stores/c.yaml": storeYaml(3, "c"),
    },
    file: P,
    line: 7,
    says: 'unknown SKU "NOPE"',
  },
  {
    name: "a second document pasted in",
    files: store("open: true\n---\nopen: false\n"),
    file: S,
    line: 7,
    says: "a carte file holds one YAML document",
  },
];

describe("slips in the files", () => {
  it("holds at least 40 slips", () => {
    expect(SLIPS.length).toBeGreaterThanOrEqual(40);
  });

  it.each(SLIPS)("$name: one problem in words at its line", async (slip) => {
    const dir = await writeProject({
      [P]: PROJECT,
      [C]: CATALOG,
      ...storeText(storeYaml(1, "a")),
      ...slip.files,
    });
    const problems = await problemsOf(loadProject(join(dir, P)));
    expect(problems).toHaveLength(1);
    const [where, ...rest] = (problems[0] ?? "").split(": ");
    // The file as every message shows it (relative to the working directory when that is shorter).
    const file = shown(dir, slip.file).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    expect(where).toMatch(new RegExp(`^${file}:${slip.line}:\\d+$`));
    const message = rest.join(": ");
    expect(message).toContain(slip.says);
    // No regular expression reaches the reader.
    expect(message).not.toMatch(/\^\[|\]\*\$|\{\d+(,\d*)?\}\$/);
  });
});

describe("slips on the command line", () => {
  const CLI: { args: string[]; says: string; usage: boolean }[] = [
    {
      args: ["finance", "reconcille"],
      says: 'unknown command "reconcille". Did you mean "carte finance reconcile"?',
      usage: true,
    },
    { args: ["plna"], says: 'unknown command "plna". Did you mean "carte plan"?', usage: true },
    {
      args: ["plan", "--detaled-exitcode"],
      says: "unknown option --detaled-exitcode (did you mean --detailed-exitcode?)",
      usage: true,
    },
    {
      args: ["finance", "reconcile", "--tolerence", "2"],
      says: "unknown option --tolerence (did you mean --tolerance?)",
      usage: true,
    },
    {
      args: ["show"],
      says: "carte show needs the plan file to show: carte show PLAN.json (a file written by carte plan --out PLAN.json)",
      usage: true,
    },
    { args: ["show", "no-such-plan.json"], says: "no-such-plan.json: no such file", usage: false },
    // The hint follows the error's kind, not its words: a plan file that is a folder is no slip of the
    // command line although its message names an option; a lock id that is none is one although its
    // message names none.
    {
      args: ["show", "."],
      says: ". is not a regular file (a folder, a FIFO or a device): name a plan saved by carte plan --out",
      usage: false,
    },
    {
      args: ["force-unlock", "nope", "-c", "examples/chain/carte.yaml"],
      says: "nope is not a lock id: a waiting or refused apply names it (lock 1a2b3c4d5e6f)",
      usage: true,
    },
  ];

  it.each(CLI)("carte $args: one message in words", async ({ args, says, usage }) => {
    const run = await carte(args);
    expect(run.code).toBe(1);
    const lines = run.err.trim().split("\n");
    expect(lines[0]).toBe(`Error: ${says}`);
    // The usage hint only where the command line itself is wrong.
    expect(lines.slice(1)).toEqual(usage ? ["Run `carte --help` for usage."] : []);
  });
});

describe("slips with saved plans", () => {
  it("carte show names the target, and warns about a plan edited after it was saved", async () => {
    const dir = await writeProject({ [P]: PROJECT, [C]: CATALOG, ...storeText(storeYaml(1, "a")) });
    const file = join(dir, "plan.json");
    const saved = await carte(["plan", "--out", file, "-c", join(dir, P)]);
    expect(saved.code, saved.err).toBe(0);
    expect(saved.err).toContain(`Apply it with: carte apply ${file}`);

    const shown = await carte(["show", file]);
    expect(shown.code).toBe(0);
    expect(shown.err).toBe("");
    expect(shown.out.split("\n")[0]).toMatch(/^Target: embedded emulator \(state in .*\.carte\)$/);

    const plan = await savedPlan(file);
    plan.stores[0]!.name = "Edited by hand";
    writeFileSync(file, JSON.stringify(plan));
    const tampered = await carte(["show", file]);
    expect(tampered.code).toBe(0);
    expect(tampered.err).toContain("does not match its digest");
    expect(tampered.out.split("\n")[0]).toMatch(/^Target: embedded emulator/);
  });
});

describe("a holiday date written once for many stores", () => {
  const site = { file: "carte.yaml", line: 7, col: 7, pointer: "/defaults/holidays/04-01" };
  const miss = (store: string) => ({ site, date: "04-01", store, known: ["01-01", "12-25"] });

  it("is one problem at its line naming the stores it affects, not one per store", () => {
    const problems = holidayMissProblems(Array.from({ length: 40 }, (_, i) => miss(`store-${i}`)));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: "carte.yaml", line: 7, col: 7 });
    expect(problems[0]!.message).toContain(
      "holiday 04-01 is not a holiday on the platform of the 40 stores it affects (store-0, store-1, store-2, store-3, store-4 and 35 more), whose holidays are 01-01, 12-25",
    );
  });

  it("names the store alone when one store writes it", () => {
    const problems = holidayMissProblems([miss("bog-centro")]);
    expect(problems.map((p) => p.message)).toEqual([
      expect.stringContaining(
        "holiday 04-01 is not a holiday of store bog-centro on the platform (its holidays: 01-01, 12-25)",
      ),
    ]);
  });
});
