/**
 * End to end against an emulator seeded with a Brazilian and a Mexican store: each store writes its
 * national holiday's hours (15 November in Brazil, 20 November in Mexico), which Colombia's calendar
 * does not have; plan shows them, apply writes them, and the next plan has nothing to do.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import { PlatformClient } from "../../src/platform/client.js";
import { getHolidays } from "../../src/platform/utils-calls.js";
import { CLIENT_ID, CLIENT_SECRET, carte, writes } from "../helpers/project.js";

const FILES: Record<string, string> = {
  "catalogs/food.yaml":
    "name: food\nitems:\n  - { sku: PAO-QUEIJO, title: Pão de queijo, price: 900 }\n" +
    "categories:\n  - { sku: SNACKS, title: Snacks, items: [PAO-QUEIJO] }\n" +
    "menus:\n  - { type: DEFAULT, categories: [SNACKS] }\n",
  "stores/sp-centro.yaml":
    "store: { id: 910001, integration_id: sp-centro, name: São Paulo Centro }\ncatalog: food\n" +
    'holidays:\n  "11-15": ["10:00-16:00"]\n  "11-20": []\n',
  "stores/cdmx-roma.yaml":
    "store: { id: 920001, integration_id: cdmx-roma, name: CDMX Roma }\ncatalog: food\n" +
    'holidays:\n  "11-20": ["12:00-18:00"]\n',
};

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** The files in a temporary folder, pointed at an emulator serving a Brazilian and a Mexican store. */
async function setup() {
  const dir = mkdtempSync(path.join(tmpdir(), "carte-hol-country-"));
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  const emu = await startEmulator({
    port: 0,
    applyDelayMs: 0,
    seed: {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          stores: [
            { id: "910001", integration_id: "sp-centro", name: "São Paulo Centro", country: "BR" },
            { id: "920001", integration_id: "cdmx-roma", name: "CDMX Roma", country: "MX" },
          ],
        },
      ],
    },
  });
  const config = path.join(dir, "carte.yaml");
  writeFileSync(
    config,
    "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n" + `platform:\n  base_url: ${emu.url}\n`,
  );
  const client = new PlatformClient({ baseUrl: emu.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  cleanup = async () => {
    await client.close();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { config, emu, client };
}

/** A store's holiday slots as the platform shows them, by `MM-DD`, holidays with slots only. */
async function holidaySlots(client: PlatformClient, storeId: string): Promise<Record<string, string[]>> {
  const days = (await getHolidays(client, storeId)).storeSpecialScheduleDays;
  return Object.fromEntries(
    days
      .filter((d) => d.storeSchedules.length > 0)
      .map((d) => [
        `${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`,
        d.storeSchedules.map((s) => `${s.startsTime}-${s.endsTime}`),
      ]),
  );
}

describe("national holidays of a Brazilian and a Mexican store", () => {
  it("plans, applies and then plans no changes for 15 and 20 November", async () => {
    const { config, emu, client } = await setup();

    const plan = await carte(["plan", "--detailed-exitcode", "-c", config]);
    expect(plan.err).not.toContain("is not a holiday");
    expect(plan.code, plan.err).toBe(2);
    expect(plan.out).toMatch(/store\[cdmx-roma\].*\n {2}\+ open again on 11-20: 12:00-18:00\n/);
    expect(plan.out).toMatch(/store\[sp-centro\].*\n {2}\+ open again on 11-15: 10:00-16:00\n/);

    emu.clearRequests();
    const apply = await carte(["apply", "--auto-approve", "-c", config]);
    expect(apply.code, apply.err).toBe(0);
    const holidayWrites = writes(emu.requests)
      .filter((r) => r.path.includes("/holiday/"))
      .map((r) => `${r.method} ${r.path.split("/").slice(-3).join("/")}`)
      .sort();
    expect(holidayWrites).toEqual(["POST 910001/holiday/1115", "POST 920001/holiday/1120"]);
    expect(await holidaySlots(client, "910001")).toEqual({ "11-15": ["10:00:00-16:00:00"] });
    expect(await holidaySlots(client, "920001")).toEqual({ "11-20": ["12:00:00-18:00:00"] });

    const again = await carte(["plan", "--detailed-exitcode", "-c", config]);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain("No changes");
  });
});

describe("a holiday date the embedded emulator's stores do not have", () => {
  it("is refused by validate and plan naming the store's calendar, Colombia's", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "carte-hol-embedded-"));
    cleanup = () => Promise.resolve(rmSync(dir, { recursive: true, force: true }));
    writeFileSync(
      path.join(dir, "carte.yaml"),
      "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n",
    );
    mkdirSync(path.join(dir, "catalogs"));
    mkdirSync(path.join(dir, "stores"));
    writeFileSync(path.join(dir, "catalogs/food.yaml"), FILES["catalogs/food.yaml"]!);
    writeFileSync(path.join(dir, "stores/sp-centro.yaml"), FILES["stores/sp-centro.yaml"]!);
    const config = path.join(dir, "carte.yaml");
    const says =
      "holiday 11-15 is not a holiday of store sp-centro on the platform " +
      "(its holidays, Colombia's: 01-01, 05-01, 07-20, 08-07, 12-08, 12-25)";
    for (const command of ["validate", "plan"]) {
      const r = await carte([command, "-c", config]);
      expect(r.code, r.err).toBe(1);
      expect(r.err).toMatch(/stores\/sp-centro\.yaml:4:3: holiday 11-15/);
      expect(r.err).toContain(says);
    }
  });
});
