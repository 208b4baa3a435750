/**
 * Holidays by country: each store gets the fixed-date holidays of its country (the seed's `country`,
 * Colombia's by default) or the calendar the seed gives it (`holidays:`), the state file keeps them, and
 * a seed that names an unknown key or country is refused, located.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { afterEach, describe, expect, it } from "vitest";

import { CALENDAR_COUNTRIES, holidayDays } from "../../src/emulator/calendars.js";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import type { RunningEmulator, Seed } from "../../src/emulator/index.js";
import { ConfigError } from "../../src/errors.js";
import { call } from "./helpers.js";

const U = "/api/rest-ops-utils/store/schedule";
const SAO_PAULO = 910001;
const RIO = 910002;
const CDMX = 920001;
const BOGOTA = 930001;
const CUSTOM = 930002;

const SEED: Seed = {
  clients: [
    {
      client_id: "brasa",
      client_secret: "brasa-secret",
      stores: [
        { id: SAO_PAULO, integration_id: "sp-centro", name: "São Paulo Centro", country: "BR" },
        // A store's own calendar replaces its country's.
        {
          id: RIO,
          integration_id: "rj-centro",
          name: "Rio Centro",
          country: "BR",
          holidays: ["03-01", "11-15"],
        },
      ],
    },
    {
      // A client's country is its stores' unless a store names its own.
      client_id: "taqueria",
      client_secret: "taqueria-secret",
      country: "MX",
      stores: [{ id: CDMX, integration_id: "cdmx-roma", name: "CDMX Roma" }],
    },
    {
      client_id: "arepas",
      client_secret: "arepas-secret",
      stores: [
        { id: BOGOTA, integration_id: "bog-centro", name: "Bogotá Centro" },
        { id: CUSTOM, integration_id: "bog-norte", name: "Bogotá Norte", holidays: [] },
      ],
    },
  ],
};

const SECRETS: Record<string, string> = Object.fromEntries(
  SEED.clients.map((c) => [c.client_id, c.client_secret]),
);

const emus: RunningEmulator[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const e of emus.splice(0)) await e.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function started(opts: Parameters<typeof startEmulator>[0] = {}): Promise<RunningEmulator> {
  const emu = await startEmulator({ seed: SEED, applyDelayMs: 0, ...opts });
  emus.push(emu);
  return emu;
}

async function utilsToken(emu: RunningEmulator, client: string): Promise<string> {
  const r = await call(emu, "POST", "/restaurants/auth/v1/token/login/utils", {
    body: { client_id: client, client_secret: SECRETS[client] },
  });
  expect(r.status).toBe(200);
  return (r.body as { access_token: string }).access_token;
}

interface Day {
  id: number;
  name: string;
  month: number;
  day: number;
  cityId: number | null;
  storeSchedules: { id: number; startsTime: string; endsTime: string }[];
}

async function holidays(emu: RunningEmulator, client: string, store: number): Promise<Day[]> {
  const r = await call(emu, "GET", `${U}/${store}/holiday`, { token: await utilsToken(emu, client) });
  expect(r.status).toBe(200);
  return (r.body as { storeSpecialScheduleDays: Day[] }).storeSpecialScheduleDays;
}

const dates = (days: Day[]) =>
  days.map((d) => `${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`);

describe("emulator: holidays by country", () => {
  it("gives a Brazilian store Brazil's national holidays, 15 November's slots included", async () => {
    const emu = await started();
    const days = await holidays(emu, "brasa", SAO_PAULO);
    expect(dates(days)).toEqual([
      "01-01",
      "04-21",
      "05-01",
      "09-07",
      "10-12",
      "11-02",
      "11-15",
      "11-20",
      "12-25",
    ]);
    expect(days.map((d) => d.id)).toEqual([101, 421, 501, 907, 1012, 1102, 1115, 1120, 1225]);
    expect(days.find((d) => d.id === 1115)).toMatchObject({
      name: "Proclamation of the Republic",
      cityId: null,
    });

    const token = await utilsToken(emu, "brasa");
    const slots = [{ startsTime: "10:00:00", endsTime: "16:00:00" }];
    const added = await call(emu, "POST", `${U}/${SAO_PAULO}/holiday/1115`, { token, body: slots });
    expect(added).toMatchObject({ status: 200, body: [{ startsTime: "10:00:00", endsTime: "16:00:00" }] });
    const after = await holidays(emu, "brasa", SAO_PAULO);
    expect(after.find((d) => d.id === 1115)!.storeSchedules).toEqual(added.body);
    // Colombia's 20 July is not a Brazilian holiday.
    expect(await call(emu, "POST", `${U}/${SAO_PAULO}/holiday/720`, { token, body: slots })).toMatchObject({
      status: 404,
      body: { message: "Holiday day 720 not found" },
    });
  });

  it("gives a Mexican store Mexico's, 20 November's slots included, and a Colombian one Colombia's", async () => {
    const emu = await started();
    expect(dates(await holidays(emu, "taqueria", CDMX))).toEqual([
      "01-01",
      "02-05",
      "03-21",
      "05-01",
      "09-16",
      "11-20",
      "12-25",
    ]);
    const token = await utilsToken(emu, "taqueria");
    const added = await call(emu, "POST", `${U}/${CDMX}/holiday/1120`, {
      token,
      body: [{ startsTime: "12:00:00", endsTime: "18:00:00" }],
    });
    expect(added.status).toBe(200);
    expect((await holidays(emu, "taqueria", CDMX)).find((d) => d.id === 1120)!.storeSchedules).toHaveLength(
      1,
    );

    expect(dates(await holidays(emu, "arepas", BOGOTA))).toEqual([
      "01-01",
      "05-01",
      "07-20",
      "08-07",
      "12-08",
      "12-25",
    ]);
  });

  it("gives a store the calendar its seed writes in place of its country's", async () => {
    const emu = await started();
    const rio = await holidays(emu, "brasa", RIO);
    expect(dates(rio)).toEqual(["03-01", "11-15"]);
    // A date of the country's calendar keeps its name; another is a holiday of the store's own.
    expect(rio.map((d) => [d.id, d.name])).toEqual([
      [301, "Holiday"],
      [1115, "Proclamation of the Republic"],
    ]);
    expect(await holidays(emu, "arepas", CUSTOM)).toEqual([]);
  });

  it("keeps each store's country in the state file; a file without one is Colombia's", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "carte-emu-hol-"));
    dirs.push(dir);
    const stateFile = path.join(dir, "state.json");
    const first = await started({ stateFile });
    await first.close();
    // Without the seed, the stores keep the country and calendar the state file gives them.
    const again = await startEmulator({ stateFile, applyDelayMs: 0 });
    emus.push(again);
    expect(dates(await holidays(again, "brasa", SAO_PAULO))).toContain("11-15");
    expect(dates(await holidays(again, "brasa", RIO))).toEqual(["03-01", "11-15"]);
    await again.close();

    // A state file of an older carte has no country: its stores are Colombian.
    const data = JSON.parse(readFileSync(stateFile, "utf8")) as { stores: Record<string, unknown>[] };
    for (const s of data.stores) {
      delete s.country;
      delete s.holidays;
    }
    writeFileSync(stateFile, JSON.stringify(data));
    const old = await startEmulator({ stateFile, applyDelayMs: 0 });
    emus.push(old);
    expect(dates(await holidays(old, "brasa", SAO_PAULO))).toEqual([
      "01-01",
      "05-01",
      "07-20",
      "08-07",
      "12-08",
      "12-25",
    ]);
  });
});

describe("emulator: a state file's countries", () => {
  it("refuses a country without a calendar or dates that are not MM-DD, naming the file", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "carte-emu-hol-"));
    dirs.push(dir);
    const stateFile = path.join(dir, "state.json");
    await (await started({ stateFile })).close();
    const good = readFileSync(stateFile, "utf8");
    for (const [field, value, says] of [
      ["country", "ZZ", "a country it has no holidays of"],
      ["holidays", ["99-99"], "holidays that are not a list of dates MM-DD"],
      ["holidays", "11-15", "holidays that are not a list of dates MM-DD"],
    ] as const) {
      const data = JSON.parse(good) as { stores: Record<string, unknown>[] };
      data.stores[0]![field] = value;
      writeFileSync(stateFile, JSON.stringify(data));
      await expect(startEmulator({ stateFile })).rejects.toThrow(
        `emulator state file ${stateFile} gives store ${String(data.stores[0]!.id)} ${says}; remove it to start afresh`,
      );
    }
  });
});

describe("emulator: the calendars docs/emulator.md lists", () => {
  it("are the emulator's, country by country", () => {
    const doc = readFileSync(path.join(import.meta.dirname, "..", "..", "docs", "emulator.md"), "utf8");
    const rows = [...doc.matchAll(/^\| `([A-Z]{2})` [^|]+\| ([^|]+)\|$/gm)].map((m) => [
      m[1]!,
      m[2]!.replace(/ \([^)]*\)/g, "").trim(),
    ]);
    expect(rows).toEqual(
      CALENDAR_COUNTRIES.map((c) => [
        c,
        dates(holidayDays(c).map((d) => ({ ...d, storeSchedules: [] }))).join(", "),
      ]),
    );
  });
});

describe("emulator seed: unknown keys and countries", () => {
  async function problems(text: string): Promise<string[]> {
    const dir = mkdtempSync(path.join(tmpdir(), "carte-seed-"));
    dirs.push(dir);
    const file = path.join(dir, "seed.yaml");
    writeFileSync(file, text);
    const err = await loadSeedFile(file, "seed.yaml").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.message}`);
  }

  it("refuses a key it does not know, at every level, located at the key", async () => {
    expect(
      await problems(
        [
          "clients:",
          "  - client_id: a",
          "    client_secret: s",
          "    contry: BR",
          "    stores:",
          "      - id: 1",
          "        integration_id: one",
          "        name: One",
          "        holiday: ['11-15']",
          "bogus_key: 1",
        ].join("\n") + "\n",
      ),
    ).toEqual([
      'seed.yaml:4:5: /clients/0: unknown key "contry" (did you mean "country"?) (allowed: client_id, client_secret, country, holidays, stores)',
      'seed.yaml:9:9: /clients/0/stores/0: unknown key "holiday" (did you mean "holidays"?) (allowed: id, integration_id, name, parent, country, holidays)',
      'seed.yaml:10:1: /: unknown key "bogus_key" (allowed: clients, finance)',
    ]);
  });

  it("refuses a country it has no calendar of, with the ones it has, and a holiday that is no date", async () => {
    expect(
      await problems(
        [
          "clients:",
          "  - client_id: a",
          "    client_secret: s",
          "    country: XX",
          "    stores:",
          "      - { id: 1, integration_id: one, name: One, country: br }",
          "      - { id: 2, integration_id: two, name: Two, holidays: ['13-01', '11-15', '11-15'] }",
          "      - { id: 3, integration_id: three, name: Three, holidays: '11-15' }",
        ].join("\n") + "\n",
      ),
    ).toEqual([
      'seed.yaml:4:14: /clients/0/country: unknown country "XX": the emulator has the holidays of AR, BR, CL, CO, EC, MX, PE, UY (ISO 3166-1 alpha-2 codes)',
      'seed.yaml:6:59: /clients/0/stores/0/country: unknown country "br" (did you mean "BR"?): the emulator has the holidays of AR, BR, CL, CO, EC, MX, PE, UY (ISO 3166-1 alpha-2 codes)',
      'seed.yaml:7:61: /clients/0/stores/1/holidays/0: "13-01" is not a date: the month (MM) goes from 01 to 12',
      "seed.yaml:7:79: /clients/0/stores/1/holidays/2: 11-15 is listed twice",
      "seed.yaml:8:64: /clients/0/stores/2/holidays: must be a list of dates MM-DD, e.g. ['11-15', '12-25']",
    ]);
  });
});
