/**
 * Store time zones: `timezone:` in the settings layers, the local times of the files read on each
 * store's own clock (`until: "18:00"`, `until: close`, `for: 2h`, a price `from:` a date, a dated special
 * day), daylight-saving changes, and the slips of a time written by hand, each in words at its line.
 */

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject } from "../../src/config/index.js";
import { specialDaysState } from "../../src/kinds/store-schedule.js";
import { buildPlan } from "../../src/plan/plan.js";
import { renderJson } from "../../src/render/json.js";
import { renderMarkdown } from "../../src/render/markdown.js";
import { renderText } from "../../src/render/text.js";
import { catalogOf, current } from "../helpers/builders.js";
import { CATALOG, problemsOf, shown, storeYaml, writeProject } from "./helpers.js";

const PROJECT = "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n";

async function load(files: Record<string, string>, now: string, project = PROJECT) {
  const dir = await writeProject({ "carte.yaml": project, "catalogs/burgers.yaml": CATALOG, ...files });
  return { dir, project: await loadProject(join(dir, "carte.yaml"), { now: new Date(now) }) };
}

/** A chain whose defaults switch FRIES off until 18:00, close on 2026-11-26 and raise BURGER from the 27th. */
const CHAIN =
  PROJECT +
  "defaults:\n" +
  '  availability:\n    unavailable:\n      - { sku: FRIES, until: "18:00" }\n' +
  "  special_days:\n    - { name: Inventario, date: 2026-11-26, slots: [] }\n" +
  "  overrides:\n    prices:\n      BURGER: { price: 26900, from: 2026-11-27 }\n";
const TWO_ZONES = {
  "stores/bog.yaml": storeYaml(1, "bog", "timezone: America/Bogota\n"),
  "stores/sao.yaml": storeYaml(2, "sao", "timezone: America/Sao_Paulo\n"),
};

describe("a chain across two time zones", () => {
  it("reads until: 18:00 on each store's clock, and the plan says it there", async () => {
    // 17:00 in Bogotá, 19:00 in São Paulo: 18:00 is still ahead in one, past (so tomorrow) in the other.
    const { project } = await load(TWO_ZONES, "2026-11-26T19:00:00-03:00", CHAIN);
    const { bog, sao } = project.desired.stores;
    expect(bog!.store.timeZone).toBe("America/Bogota");
    expect(catalogOf(bog!).suspensions).toEqual({
      FRIES: { until: "2026-11-26T18:00:00-05:00", shown: "2026-11-26 18:00 GMT-5" },
    });
    expect(catalogOf(sao!).suspensions).toEqual({
      FRIES: { until: "2026-11-27T18:00:00-03:00", shown: "2026-11-27 18:00 GMT-3" },
    });
    const have = structuredClone(bog!);
    catalogOf(have).unavailable = [];
    catalogOf(have).suspensions = undefined;
    const plan = buildPlan({ stores: { bog: bog! } }, current(have));
    const fries = plan.changes.find((c) => c.address === "store[bog].availability[FRIES]");
    // The plan's data holds the wall time and the instant, no words that change with the day.
    expect(fries?.diff).toEqual([
      { attribute: "state", before: "on", after: "off until 18:00 (2026-11-26T18:00:00-05:00)" },
    ]);
    expect(fries?.after).toMatchObject({ until: "2026-11-26T18:00:00-05:00" });
    // The text and Markdown views say it on the store's clock, relative to when they are read.
    const now = Date.parse("2026-11-26T19:00:00-03:00");
    expect(renderText(plan, { color: false, now })).toContain(
      "item FRIES (Fries): switched off until 18:00 GMT-5 (today) (2026-11-26T18:00:00-05:00)",
    );
    expect(renderMarkdown(plan, { now })).toContain("switched off until 18:00 GMT-5 (today)");
  });

  it("keeps the JSON plan the same whatever day it is made, the words in the text views only", async () => {
    const files = {
      "stores/bog.yaml": storeYaml(
        1,
        "bog",
        "timezone: America/Bogota\navailability:\n  unavailable:\n" +
          '    - { sku: FRIES, until: "2026-11-27 18:00" }\n',
      ),
    };
    const planAt = async (now: string) => {
      const bog = (await load(files, now)).project.desired.stores.bog!;
      const have = structuredClone(bog);
      catalogOf(have).unavailable = [];
      catalogOf(have).suspensions = undefined;
      return buildPlan({ stores: { bog } }, current(have));
    };
    // The day before and on the day: the same instant, so the same JSON plan.
    const before = await planAt("2026-11-26T12:00:00-05:00");
    const onTheDay = await planAt("2026-11-27T12:00:00-05:00");
    expect(renderJson(onTheDay)).toBe(renderJson(before));
    expect(renderJson(before)).not.toMatch(/\(today\)|\(tomorrow\)|GMT-5/);
    expect(before.stores).toEqual([
      { key: "bog", storeId: "1", name: "Store bog", timeZone: "America/Bogota" },
    ]);
    // Read on each day, the text view says the day as it is then.
    const text = (now: string) => renderText(before, { color: false, now: Date.parse(now) });
    expect(text("2026-11-26T12:00:00-05:00")).toContain(
      "until 18:00 GMT-5 (tomorrow) (2026-11-27T18:00:00-05:00)",
    );
    expect(text("2026-11-27T12:00:00-05:00")).toContain(
      "until 18:00 GMT-5 (today) (2026-11-27T18:00:00-05:00)",
    );
    expect(text("2026-11-29T12:00:00-05:00")).toContain(
      "until 2026-11-27 18:00 GMT-5 (2026-11-27T18:00:00-05:00)",
    );
  });

  it("starts a dated closure and a price from a date at each store's own midnight", async () => {
    // 00:30 of the 27th in São Paulo, still 22:30 of the 26th in Bogotá.
    const { dir, project } = await load(TWO_ZONES, "2026-11-27T03:30:00Z", CHAIN);
    const { bog, sao } = project.desired.stores;
    expect(Object.keys(specialDaysState.get(bog!)!)).toEqual(["11-26"]);
    expect(Object.keys(specialDaysState.get(sao!)!)).toEqual([]);
    expect(project.warnings).toEqual([
      {
        severity: "warning",
        summary:
          'special day "Inventario" of 2026-11-26 has passed: it is ignored, and removed from the platform where it is still there; remove it from the file',
        range: { file: shown(dir, "carte.yaml"), line: 9, col: 33, endLine: 9, endCol: 42 },
      },
    ]);
    expect(catalogOf(bog!).items.BURGER!.price).toBe(24900);
    expect(catalogOf(bog!).upcomingPrices).toEqual({ BURGER: { price: 26900, from: "2026-11-27" } });
    expect(catalogOf(sao!).items.BURGER!.price).toBe(26900);
  });

  it("lets the most specific layer's timezone win", async () => {
    const { project } = await load(
      {
        "stores/bog.yaml": storeYaml(1, "bog"),
        "stores/sao.yaml": storeYaml(2, "sao", "timezone: America/Sao_Paulo\n"),
      },
      "2026-11-26T12:00:00Z",
      PROJECT + "defaults:\n  timezone: america/bogota\n",
    );
    expect(project.desired.stores.bog!.store.timeZone).toBe("America/Bogota");
    expect(project.desired.stores.sao!.store.timeZone).toBe("America/Sao_Paulo");
  });
});

describe("until: close and for:", () => {
  it("switches an item off until the end of today's opening hours, or for a while from the run", async () => {
    const { project } = await load(
      {
        "stores/a.yaml": storeYaml(
          1,
          "a",
          'timezone: America/Bogota\nhours:\n  mon-fri: ["10:00-15:00", "18:00-02:00"]\n' +
            "availability:\n  unavailable:\n    - { sku: FRIES, until: close }\n    - { sku: BURGER, for: 1h30m }\n",
        ),
      },
      "2026-11-26T12:00:00-05:00",
    );
    // Thursday: the evening slot runs past midnight, so close is 02:00 of Friday.
    expect(catalogOf(project.desired.stores.a!).suspensions).toEqual({
      FRIES: { until: "2026-11-27T02:00:00-05:00", shown: "2026-11-27 02:00 GMT-5" },
      BURGER: { until: "2026-11-26T13:30:00-05:00", shown: "2026-11-26 13:30 GMT-5" },
    });
  });

  it("refuses until: close on a day the store is closed, where it is written", async () => {
    const problems = await problemsOf(
      load(
        {
          "stores/a.yaml": storeYaml(
            1,
            "a",
            'timezone: America/Bogota\nhours:\n  mon-fri: ["10:00-15:00"]\n' +
              "availability:\n  unavailable:\n    - { sku: FRIES, until: close }\n",
          ),
        },
        "2026-11-28T12:00:00-05:00",
      ),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /stores\/a\.yaml:11:28: until: close is the end of today's opening hours, and store "a" is closed today: write a time instead/,
      ),
    ]);
  });
});

describe("daylight saving in Santiago", () => {
  const store = (extra: string) => ({
    "stores/scl.yaml": storeYaml(1, "scl", `timezone: America/Santiago\n${extra}`),
  });

  it("moves a time skipped by the spring-forward change forward by the gap", async () => {
    // Saturday 2026-09-05, 23:00 (−04:00); at 00:00 the clocks jump to 01:00 (−03:00).
    const { project } = await load(
      store('availability:\n  unavailable:\n    - { sku: FRIES, until: "00:30" }\n'),
      "2026-09-05T23:00:00-04:00",
    );
    expect(catalogOf(project.desired.stores.scl!).suspensions?.FRIES?.until).toBe(
      "2026-09-06T01:30:00-03:00",
    );
  });

  it("takes the earlier of a time repeated by the fall-back change, and ends that day at its real midnight", async () => {
    // Saturday 2026-04-04: at 24:00 (−03:00) the clocks go back to 23:00 (−04:00).
    const files = store(
      'availability:\n  unavailable:\n    - { sku: FRIES, until: "23:30" }\n' +
        "special_days:\n  - { name: Inventario, date: 2026-04-04, slots: [] }\n",
    );
    const evening = await load(files, "2026-04-04T20:00:00-03:00");
    expect(catalogOf(evening.project.desired.stores.scl!).suspensions?.FRIES?.until).toBe(
      "2026-04-04T23:30:00-03:00",
    );
    // 03:30 UTC is 23:30 of the 4th again (−04:00): the day is not over yet.
    const repeated = await load(files, "2026-04-05T03:30:00Z");
    expect(Object.keys(specialDaysState.get(repeated.project.desired.stores.scl!)!)).toEqual(["04-04"]);
    const midnight = await load(files, "2026-04-05T04:00:00Z");
    expect(Object.keys(specialDaysState.get(midnight.project.desired.stores.scl!)!)).toEqual([]);
  });
});

describe("problems of time zones and times, in words at their line", () => {
  it("asks for timezone: when a store has a local time and no zone", async () => {
    const problems = await problemsOf(
      load(
        {
          "stores/a.yaml": storeYaml(
            1,
            "a",
            'availability:\n  unavailable:\n    - { sku: FRIES, until: "18:00" }\n',
          ),
        },
        "2026-11-26T12:00:00Z",
      ),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /stores\/a\.yaml:8:28: "18:00" is read on the store's clock, and store "a" has no time zone: add timezone: with its IANA zone name \(for example timezone: America\/Bogota\)/,
      ),
    ]);
  });

  it("asks once for an entry that stores without a zone inherit", async () => {
    const problems = await problemsOf(
      load(
        { "stores/a.yaml": storeYaml(1, "a"), "stores/b.yaml": storeYaml(2, "b") },
        "2026-11-26T12:00:00Z",
        PROJECT + "defaults:\n  overrides:\n    prices:\n      BURGER: { price: 26900, from: 2026-11-27 }\n",
      ),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /carte\.yaml:7:37: "2026-11-27" is read on the store's clock, and store "a" has no time zone/,
      ),
    ]);
  });

  it("keeps a time with its offset, and for:, working without a zone", async () => {
    const { project } = await load(
      {
        "stores/a.yaml": storeYaml(
          1,
          "a",
          "availability:\n  unavailable:\n    - { sku: FRIES, until: 2026-11-26T18:00:00-05:00 }\n" +
            "    - { sku: BURGER, for: 2h }\n",
        ),
      },
      "2026-11-26T12:00:30.250Z",
    );
    expect(catalogOf(project.desired.stores.a!).suspensions).toEqual({
      FRIES: { until: "2026-11-26T18:00:00-05:00" },
      BURGER: { until: "2026-11-26T14:00:30+00:00" },
    });
  });

  it("refuses an unknown zone, with the closest name", async () => {
    const problems = await problemsOf(
      load({ "stores/a.yaml": storeYaml(1, "a", "timezone: America/Bogot\n") }, "2026-11-26T12:00:00Z"),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /stores\/a\.yaml:6:11: timezone: "America\/Bogot" is not a time zone: write an IANA zone name such as America\/Bogota \(did you mean America\/Bogota\?\)/,
      ),
    ]);
  });

  it("reports a zone written wrong once, not again as stores without a zone at each local time", async () => {
    // The chain's zone with a space at its end: every local time of the chain and its stores would
    // otherwise also ask for a timezone: the files already write.
    const chain =
      PROJECT +
      'defaults:\n  timezone: "America/Bogota "\n' +
      "  special_days:\n    - { name: Inventario, date: 2026-11-26, slots: [] }\n" +
      "  overrides:\n    prices:\n      BURGER: { price: 26900, from: 2026-11-27 }\n";
    const until = 'availability:\n  unavailable:\n    - { sku: FRIES, until: "18:00" }\n';
    const problems = await problemsOf(
      load(
        { "stores/a.yaml": storeYaml(1, "a", until), "stores/b.yaml": storeYaml(2, "b", until) },
        "2026-11-26T12:00:00Z",
        chain,
      ),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /carte\.yaml:5:13: timezone: "America\/Bogota " is not a time zone: .*\(did you mean America\/Bogota\?\)$/,
      ),
    ]);
    // A store that writes no zone and inherits none still gets its own problem.
    const alone = await problemsOf(
      load(
        {
          "stores/a.yaml": storeYaml(1, "a", 'timezone: "America/Bogota "\n' + until),
          "stores/b.yaml": storeYaml(2, "b", until),
        },
        "2026-11-26T12:00:00Z",
      ),
    );
    expect(alone).toEqual([
      expect.stringMatching(/stores\/a\.yaml:6:11: timezone: "America\/Bogota " is not a time zone/),
      expect.stringMatching(
        /stores\/b\.yaml:8:28: "18:00" is read on the store's clock, and store "b" has no time zone/,
      ),
    ]);
  });

  it("gives one problem in words for each slip, never a pattern", async () => {
    const problems = await problemsOf(
      load(
        {
          "stores/a.yaml": storeYaml(
            1,
            "a",
            "timezone: America/Bogota\navailability:\n  unavailable:\n" +
              '    - { sku: FRIES, until: "6pm" }\n    - { sku: BURGER, until: "25:00" }\n' +
              "special_days:\n  - { name: Nochebuena, date: 12/24, slots: [] }\n",
          ),
        },
        "2026-11-26T12:00:00Z",
      ),
    );
    expect(problems).toHaveLength(3);
    expect(problems.join("\n")).not.toMatch(/pattern|\^|\[0-9\]/);
    const forms = 'write a time of the store\'s clock, "18:00" (today, or tomorrow once it has passed)';
    expect(problems[0]).toMatch(/stores\/a\.yaml:9:28: until: "6pm" is not a time: /);
    expect(problems[0]).toContain(forms);
    expect(problems[1]).toMatch(
      /stores\/a\.yaml:10:29: until: "25:00" is not a time of day \(00:00 to 23:59\): /,
    );
    expect(problems[2]).toMatch(
      /stores\/a\.yaml:12:31: special day date "12\/24" is not a date: write month and day, "12-24" \(every year, in quotes\), or a full date, 2026-12-24/,
    );
  });
});
