/**
 * Time-bound entries of the files, judged against an injected clock in the store's time zone (carte.yaml
 * `defaults: timezone: America/Bogota` here): `until:` of a switched-off item, special days with a full
 * date, prices `from:` a date.
 */

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject } from "../../src/config/index.js";
import { parseFor, parseInstant, parseUntil } from "../../src/time/clock.js";
import { buildPlan } from "../../src/plan/plan.js";
import { loadBase } from "../../src/gitops/base.js";
import { current, catalogOf } from "../helpers/builders.js";
import { commitAll } from "../action/harness.js";
import { CATALOG, problemsOf, shown, storeYaml, writeProject } from "./helpers.js";
import { specialDaysState } from "../../src/kinds/store-schedule.js";

const PROJECT =
  "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\ngroups: groups/*.yaml\ndefaults:\n  timezone: America/Bogota\n";
const NOW = new Date("2026-11-25T12:00:00-05:00");

/** A warning located at `line:col` of a file, over the text written there (on one line). */
function warnedAt(file: string, line: number, col: number, written: string, summary: string) {
  return {
    severity: "warning",
    summary,
    range: { file, line, col, endLine: line, endCol: col + written.length - 1 },
  };
}

async function load(files: Record<string, string>, now = NOW) {
  const dir = await writeProject({
    "carte.yaml": PROJECT,
    "catalogs/burgers.yaml": CATALOG,
    "groups/north.yaml": "name: north\n",
    ...files,
  });
  return { dir, project: await loadProject(join(dir, "carte.yaml"), { now }) };
}

describe("until: of a switched-off item", () => {
  it("keeps a time in the future as the item's suspend_until, and ignores a past one with a warning", async () => {
    const { dir, project } = await load({
      "groups/north.yaml":
        "name: north\ndefaults:\n  availability:\n    unavailable:\n      - { sku: CHEESE, until: 2026-11-24T18:00:00-05:00 }\n",
      "stores/a.yaml": storeYaml(
        1,
        "a",
        "group: north\navailability:\n  unavailable:\n    - BACON\n    - { sku: FRIES, until: 2026-11-25T18:00:00-05:00 }\n    - { sku: BURGER, until: 2026-11-25T11:59:00-05:00 }\n",
      ),
      "stores/b.yaml": storeYaml(2, "b", "group: north\n"),
    });
    const a = project.desired.stores.a!;
    expect(catalogOf(a).unavailable).toEqual(["BACON", "FRIES"]);
    // Sent as written; the plan shows it on the store's clock.
    expect(catalogOf(a).suspensions).toEqual({
      FRIES: { until: "2026-11-25T18:00:00-05:00", shown: "2026-11-25 18:00 GMT-5" },
    });
    expect(catalogOf(project.desired.stores.b!).unavailable).toEqual([]);
    // Each warning where its entry is written, from its first character to its last.
    expect(project.warnings).toEqual([
      warnedAt(
        shown(dir, "groups/north.yaml"),
        5,
        9,
        "{ sku: CHEESE, until: 2026-11-24T18:00:00-05:00 }",
        '"CHEESE" is switched off until "2026-11-24T18:00:00-05:00", which has passed: the entry is ignored (stores "a", "b"); remove it',
      ),
      warnedAt(
        shown(dir, "stores/a.yaml"),
        11,
        7,
        "{ sku: BURGER, until: 2026-11-25T11:59:00-05:00 }",
        '"BURGER" is switched off until "2026-11-25T11:59:00-05:00", which has passed: the entry is ignored (store "a"); remove it',
      ),
    ]);
  });

  it("reads a time without an offset on the store's clock, and refuses an impossible one where it is written", async () => {
    const { project } = await load({
      "stores/a.yaml": storeYaml(
        1,
        "a",
        "availability:\n  unavailable:\n    - { sku: FRIES, until: 2026-11-25T18:00:00 }\n",
      ),
    });
    expect(catalogOf(project.desired.stores.a!).suspensions).toEqual({
      FRIES: { until: "2026-11-25T18:00:00-05:00", shown: "2026-11-25 18:00 GMT-5" },
    });
    const problems = await problemsOf(
      load({
        "stores/a.yaml": storeYaml(
          1,
          "a",
          "availability:\n  unavailable:\n    - { sku: BACON, until: 2026-02-30T18:00:00Z }\n",
        ),
      }),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/stores\/a\.yaml:8:28: until: "2026-02-30T18:00:00Z" is not a time: write/);
  });
});

describe("special days with a full date", () => {
  const files = {
    "stores/a.yaml": storeYaml(
      1,
      "a",
      'special_days:\n  - { name: Nochebuena, date: 2026-12-24, slots: ["10:00-16:00"] }\n' +
        '  - { name: Cierre, date: 2027-12-31, slots: [] }\n  - { name: Aniversario, date: "03-15", slots: [] }\n',
    ),
  };

  it("puts a day on the platform within the year before it, by month and day", async () => {
    const { project } = await load(files);
    expect(specialDaysState.get(project.desired.stores.a!)).toEqual({
      "03-15": { name: "Aniversario", month: 3, day: 15, slots: [] },
      "12-24": {
        name: "Nochebuena",
        month: 12,
        day: 24,
        slots: [{ start: "10:00", end: "16:00" }],
        year: 2026,
      },
    });
    expect(project.warnings).toEqual([]);
    // The year is for people: the plan names the day by it, and a platform without it is no change.
    const empty = structuredClone(project.desired.stores.a!);
    specialDaysState.set(empty, {});
    const plan = buildPlan(project.desired, current(empty));
    const day = plan.changes.find((c) => c.kind === "special_day" && c.key === "12-24");
    expect(day?.label).toBe("2026-12-24");
    expect(plan.changes.find((c) => c.key === "03-15")?.label).toBeUndefined();
    const onPlatform = structuredClone(project.desired.stores.a!);
    for (const d of Object.values(specialDaysState.get(onPlatform)!)) delete d.year;
    expect(buildPlan(project.desired, current(onPlatform)).changes).toEqual([]);
  });

  it("leaves a day out once it has ended in the store's zone, with a warning", async () => {
    const { dir, project } = await load(files, new Date("2026-12-25T00:00:00-05:00"));
    expect(Object.keys(specialDaysState.get(project.desired.stores.a!)!)).toEqual(["03-15"]);
    expect(project.warnings).toEqual([
      warnedAt(
        shown(dir, "stores/a.yaml"),
        7,
        31,
        "2026-12-24",
        'special day "Nochebuena" of 2026-12-24 has passed: it is ignored, and removed from the platform where it is still there; remove it from the file',
      ),
    ]);
    // Still on the platform until the day has ended at the store (Bogotá's midnight is 05:00 UTC).
    const late = await load(files, new Date("2026-12-25T04:59:00Z"));
    expect(Object.keys(specialDaysState.get(late.project.desired.stores.a!)!)).toEqual(["03-15", "12-24"]);
  });

  it("refuses a month and day written twice, with and without the year", async () => {
    const problems = await problemsOf(
      load({
        "stores/a.yaml": storeYaml(
          1,
          "a",
          'special_days:\n  - { name: A, date: 2026-12-24, slots: [] }\n  - { name: B, date: "12-24", slots: [] }\n',
        ),
      }),
    );
    expect(problems.join("\n")).toContain("special day 12-24 is already written at");
  });
});

describe("prices from a date", () => {
  const files = {
    "groups/north.yaml":
      "name: north\ndefaults:\n  overrides:\n    prices:\n      FRIES: { price: 9900, from: 2026-12-01 }\n",
    "stores/a.yaml": storeYaml(
      1,
      "a",
      "group: north\noverrides:\n  prices:\n    BURGER: { price: 26900, from: 2026-12-01T00:00:00-05:00 }\n",
    ),
    "stores/b.yaml": storeYaml(2, "b", "group: north\noverrides:\n  prices:\n    FRIES: 9500\n"),
  };

  it("before the date: the lower price holds, and the store lists the new one as upcoming", async () => {
    const { project } = await load(files);
    const { a, b } = project.desired.stores;
    expect(catalogOf(a!).items.BURGER!.price).toBe(24900);
    expect(catalogOf(a!).items.FRIES!.price).toBe(8900);
    expect(catalogOf(a!).upcomingPrices).toEqual({
      BURGER: { price: 26900, from: "2026-12-01T00:00:00-05:00" },
      FRIES: { price: 9900, from: "2026-12-01" },
    });
    // The store's own price hides the group's upcoming one.
    expect(catalogOf(b!).items.FRIES!.price).toBe(9500);
    expect(catalogOf(b!).upcomingPrices).toBeUndefined();
    const plan = buildPlan(project.desired, current(a!, b!));
    expect(plan.changes).toEqual([]);
    expect(plan.info).toEqual([
      {
        store: "a",
        kind: "item",
        message:
          "upcoming price of BURGER: 26900 from 2026-12-01T00:00:00-05:00 (now 24900); a run from that date changes it",
      },
      {
        store: "a",
        kind: "item",
        message: "upcoming price of FRIES: 9900 from 2026-12-01 (now 8900); a run from that date changes it",
      },
    ]);
  });

  it("writes the upcoming prices as people of the project's currency read them", async () => {
    const { project } = await load(files);
    const { a, b } = project.desired.stores;
    const plan = buildPlan({ ...project.desired, currency: "COP" }, current(a!, b!));
    expect(plan.info?.map((i) => i.message)).toEqual([
      "upcoming price of BURGER: $26.900 from 2026-12-01T00:00:00-05:00 (now $24.900); a run from that date changes it",
      "upcoming price of FRIES: $9.900 from 2026-12-01 (now $8.900); a run from that date changes it",
    ]);
  });

  it("from the date: the price holds and the plan changes it", async () => {
    const before = (await load(files)).project.desired.stores.a!;
    const { project } = await load(files, new Date("2026-12-01T05:00:00Z"));
    const a = project.desired.stores.a!;
    expect(catalogOf(a).items.BURGER!.price).toBe(26900);
    expect(catalogOf(a).items.FRIES!.price).toBe(9900);
    expect(catalogOf(a).upcomingPrices).toBeUndefined();
    const plan = buildPlan({ stores: { a } }, current(before));
    expect(plan.changes.map((c) => `${c.address} ${JSON.stringify(c.diff)}`)).toEqual([
      'store[a].item[BURGER] [{"attribute":"price","before":24900,"after":26900}]',
      'store[a].item[FRIES] [{"attribute":"price","before":8900,"after":9900}]',
    ]);
    expect(plan.info).toBeUndefined();
    // A bare date starts at the store's own midnight, not at 00:00 UTC (19:00 the evening before there).
    const between = (await load(files, new Date("2026-12-01T03:00:00Z"))).project.desired.stores.a!;
    expect([catalogOf(between).items.BURGER!.price, catalogOf(between).items.FRIES!.price]).toEqual([
      24900, 8900,
    ]);
  });

  it("refuses a from: that is not a date", async () => {
    const problems = await problemsOf(
      load({
        "stores/a.yaml": storeYaml(
          1,
          "a",
          "overrides:\n  prices:\n    FRIES: { price: 9900, from: 2026-02-30 }\n",
        ),
      }),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('from: "2026-02-30" is not a date: write a date, 2026-12-01');
  });
});

describe("the clock's rules", () => {
  it("parses times with offsets only", () => {
    expect(parseInstant("2026-11-25T18:00:00-05:00")).toEqual({ ok: true, ms: Date.UTC(2026, 10, 25, 23) });
    expect(parseInstant("2026-11-25T18:00Z")).toEqual({ ok: true, ms: Date.UTC(2026, 10, 25, 18) });
    expect(parseInstant("2026-11-25 18:00").ok).toBe(false);
    expect(parseInstant("2026-11-25T24:00:00Z").ok).toBe(false);
  });

  it("reads until: and for: in every accepted form, and names the forms otherwise", () => {
    expect(parseUntil("18:00")).toEqual({ ok: true, value: { kind: "time", hour: 18, minute: 0 } });
    expect(parseUntil("close")).toEqual({ ok: true, value: { kind: "close" } });
    expect(parseUntil("2026-12-24 18:00")).toMatchObject({ ok: true, value: { kind: "local" } });
    expect(parseUntil("2026-12-24T18:00:00-03:00")).toMatchObject({ ok: true, value: { kind: "instant" } });
    expect(parseFor("1h30m")).toEqual({ ok: true, value: { kind: "for", ms: 90 * 60_000 } });
    expect(parseFor("0m").ok).toBe(false);
    expect(parseFor("400d").ok).toBe(false);
  });
});

describe("the base of carte plan --base", () => {
  it("is judged against the run's clock, as the head", async () => {
    const { dir, project } = await load({
      "stores/a.yaml": storeYaml(
        1,
        "a",
        "availability:\n  unavailable:\n    - { sku: FRIES, until: 2026-11-25T18:00:00-05:00 }\n",
      ),
    });
    commitAll(dir, "the chain");
    const later = new Date("2026-11-26T12:00:00-05:00");
    const [atNow, atLater] = await Promise.all([
      loadBase(project, "HEAD", { now: NOW }),
      loadBase(project, "HEAD", { now: later }),
    ]);
    expect(catalogOf(atNow.project?.desired.stores.a)?.unavailable).toEqual(["FRIES"]);
    // A day later the entry has expired in the base as in the head: no difference to show as the branch's.
    expect(catalogOf(atLater.project?.desired.stores.a)?.unavailable).toEqual([]);
  });
});
