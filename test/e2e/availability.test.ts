/**
 * End to end against the emulator: item availability that knows who switched what off (carte's
 * marker in `suspension_info.suspend_reason`), and time-bound states (`until:`, dated special days).
 */

import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PlatformClient } from "../../src/platform/client.js";
import { getSpecialDays } from "../../src/platform/utils-calls.js";
import type { Item } from "../../src/generated/platform.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { CLIENT_SECRET, carte, edit, exampleWithClient, misroutedCalls } from "../helpers/project.js";

const STORE_ID = "900101";
const TOGGLE = "/api/v2/restaurants-integrations-public-api/availability/stores/items";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** The emulator of the test: each API group at its own address, as on the platform. */
let emulator: RunningEmulator | undefined;

async function setup() {
  const fx = await exampleWithClient(undefined, { splitHosts: true });
  cleanup = fx.close;
  emulator = fx.emu;
  return { ...fx, store: path.join(fx.dir, "stores", "bog-centro.yaml") };
}

async function applyClean(config: string, env: NodeJS.ProcessEnv = {}) {
  const applied = await carte(["apply", "--auto-approve", "-c", config], env);
  expect(applied.err).not.toMatch(/failed|skipped/);
  expect(applied.code).toBe(0);
  // Every call so far went to its API group's address.
  expect(misroutedCalls(emulator!.requests)).toEqual([]);
  return applied;
}

/** The items of bog-centro as the platform shows them, by SKU. */
async function items(client: PlatformClient): Promise<Map<string, Item>> {
  const menu = await client.getStoreMenu(STORE_ID);
  return new Map(menu.items.map((i) => [i.sku, i as Item]));
}

/** Waits until the platform shows `sku` switched off (staff's raw call is applied asynchronously). */
async function untilOff(client: PlatformClient, sku: string): Promise<Item> {
  for (let i = 0; i < 100; i++) {
    const it = (await items(client)).get(sku);
    if (it?.suspension_info.is_available === false) return it;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${sku} was never switched off`);
}

describe("availability that knows who switched what off", () => {
  it("turns back on only the item carte switched off; the staff's stays off and the plan says so", async () => {
    const { config, client, store } = await setup();
    await applyClean(config);
    // carte switched off the store file's two items, with its marker.
    const first = await items(client);
    expect(first.get("SHAKE-AREQUIPE")!.suspension_info).toMatchObject({
      is_available: false,
      suspend_reason: "carte",
      suspend_until: null,
    });

    // Staff switch SIDE-FRIES off during service, with a raw call and no marker.
    await client.call("PUT", TOGGLE, [
      { store_integration_id: "bog-centro", items: { turn_off: ["SIDE-FRIES"] } },
    ]);
    const staff = await untilOff(client, "SIDE-FRIES");
    expect(staff.suspension_info.suspend_reason).toBeNull();

    // The staff's item alone changes nothing, but the plan tells about it.
    const quiet = await carte(["plan", "--detailed-exitcode", "-c", config]);
    expect(quiet.code).toBe(0);
    expect(quiet.out).toContain(
      "Note: store[bog-centro]: 1 item switched off outside the files stays off: SIDE-FRIES",
    );

    // Un-86: SHAKE-AREQUIPE leaves `unavailable:`.
    edit(store, "unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE]", "unavailable: [EXTRA-AVOCADO]");
    const plan = await carte(["plan", "--detailed-exitcode", "-c", config]);
    expect(plan.code).toBe(2);
    expect(plan.out).toMatch(/~ item SHAKE-AREQUIPE \(.*\): switched on\n/);
    expect(plan.out).not.toMatch(/~ item SIDE-FRIES/);
    expect(plan.out).toContain("1 item switched off outside the files stays off: SIDE-FRIES");
    expect(plan.out).toContain("Plan: 0 to create, 1 to update, 0 to delete");
    await applyClean(config);

    const after = await items(client);
    expect(after.get("SHAKE-AREQUIPE")!.suspension_info).toMatchObject({
      is_available: true,
      suspend_reason: null,
    });
    expect(after.get("SIDE-FRIES")!.suspension_info.is_available).toBe(false);
    expect(after.get("EXTRA-AVOCADO")!.suspension_info).toMatchObject({
      is_available: false,
      suspend_reason: "carte",
    });

    // `available:` still forces the staff's item on.
    edit(store, "unavailable: [EXTRA-AVOCADO]", "unavailable: [EXTRA-AVOCADO]\n  available: [SIDE-FRIES]");
    await applyClean(config);
    expect((await items(client)).get("SIDE-FRIES")!.suspension_info.is_available).toBe(true);
    expect((await carte(["plan", "--detailed-exitcode", "-c", config])).code).toBe(0);
    expect(readFileSync(config, "utf8")).not.toContain(CLIENT_SECRET);
  });
});

describe("time-bound states", () => {
  it("switches an item off until a time (suspend_until); a time that has passed is ignored with a warning", async () => {
    const { config, client, store } = await setup();
    const now = { CARTE_NOW: "2026-11-25T12:00:00-05:00" };
    await applyClean(config, now);
    edit(
      store,
      "unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE]",
      "unavailable:\n    - EXTRA-AVOCADO\n    - SHAKE-AREQUIPE\n    - { sku: SIDE-CASCOS, until: 2099-11-25T18:00:00-05:00 }\n" +
        "    - { sku: SIDE-FRIES, until: 2026-11-25T11:00:00-05:00 }",
    );
    const plan = await carte(["plan", "-c", config], now);
    expect(plan.code).toBe(0);
    expect(plan.out).toContain("Plan: 0 to create, 1 to update, 0 to delete");
    expect(plan.out).toMatch(
      /~ item SIDE-CASCOS \(.*\): switched off until 18:00 \(2099-11-25T18:00:00-05:00\)\n/,
    );
    expect(plan.out).not.toContain("SIDE-FRIES");
    const warning =
      /Warning: .*stores\/bog-centro\.yaml:\d+:\d+: "SIDE-FRIES" is switched off until "2026-11-25T11:00:00-05:00", which has passed: the entry is ignored \(store "bog-centro"\)/;
    expect(plan.err).toMatch(warning);
    const explained = await carte(
      ["explain", "store[bog-centro].availability[SIDE-CASCOS]", "-c", config],
      now,
    );
    expect(explained.code).toBe(0);
    expect(explained.out).toMatch(/until.*2099-11-25T18:00:00-05:00/);
    // validate lists it too.
    const validate = await carte(["validate", "-c", config], now);
    expect(validate.code).toBe(0);
    expect(validate.err).toMatch(warning);

    await applyClean(config, now);
    const live = await items(client);
    expect(live.get("SIDE-CASCOS")!.suspension_info).toMatchObject({
      is_available: false,
      suspend_reason: "carte",
      suspend_until: "2099-11-25T18:00:00-05:00",
    });
    expect(live.get("SIDE-FRIES")!.suspension_info.is_available).toBe(true);
    expect((await carte(["plan", "--detailed-exitcode", "-c", config], now)).code).toBe(0);
  });

  it("reads until: 18:00 and a dated closure on each store's clock, in two time zones", async () => {
    const { dir, config, client, store } = await setup();
    const poblado = path.join(dir, "stores", "med-poblado.yaml");
    const local =
      'special_days:\n  - { name: Inventario, date: 2099-11-26, slots: [] }\navailability:\n  unavailable:\n    - { sku: SIDE-CASCOS, until: "18:00" }\n';
    edit(
      store,
      "availability:\n  unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE]\n",
      `timezone: America/Bogota\n${local}`,
    );
    // This store moves to São Paulo for the test: the same words, another clock.
    edit(
      poblado,
      "availability:\n  unavailable: [DRINK-JUGO-LULO, EXTRA-PATTY, TOP-OREO]\n",
      `timezone: America/Sao_Paulo\n${local}`,
    );
    // The emulator switches items back on by the machine's clock: the test's days are far ahead.
    // 17:00 in Bogotá, 19:00 in São Paulo: 18:00 is today in one, tomorrow in the other.
    const evening = { CARTE_NOW: "2099-11-26T19:00:00-03:00" };
    // A saved plan holds the instant and words true on any day; carte show says the day as it is then.
    const saved = path.join(dir, "plan.json");
    expect((await carte(["plan", "-c", config, "--out", saved], evening)).code).toBe(0);
    const json = readFileSync(saved, "utf8");
    expect(json).toContain('"after":"off until 18:00 (2099-11-26T18:00:00-05:00)"');
    expect(json).not.toMatch(/\(today\)|\(tomorrow\)/);
    const nextDay = await carte(["show", saved], { CARTE_NOW: "2099-11-27T12:00:00-05:00" });
    expect(nextDay.out).toMatch(
      /item SIDE-CASCOS .*switched off until 2099-11-26 18:00 GMT-5 \(2099-11-26T18:00:00-05:00\)/,
    );
    expect(nextDay.out).toMatch(
      /item SIDE-CASCOS .*switched off until 18:00 GMT-3 \(today\) \(2099-11-27T18:00:00-03:00\)/,
    );
    // carte apply shows the plan it carries out.
    const plan = await applyClean(config, evening);
    expect(plan.out).toMatch(
      /item SIDE-CASCOS .*switched off until 18:00 GMT-5 \(today\) \(2099-11-26T18:00:00-05:00\)/,
    );
    expect(plan.out).toMatch(
      /item SIDE-CASCOS .*switched off until 18:00 GMT-3 \(tomorrow\) \(2099-11-27T18:00:00-03:00\)/,
    );
    const until = async (storeId: string) =>
      (await client.getStoreMenu(storeId)).items.find((i) => i.sku === "SIDE-CASCOS")!.suspension_info
        .suspend_until;
    expect(await until(STORE_ID)).toBe("2099-11-26T18:00:00-05:00");
    expect(await until("900201")).toBe("2099-11-27T18:00:00-03:00");
    const closures = async (storeId: string) =>
      ((await getSpecialDays(client, storeId)).storeSpecialScheduleDays ?? []).map(
        (d) => `${d.month}-${d.day} ${d.name}`,
      );
    expect(await closures(STORE_ID)).toContain("11-26 Inventario");
    expect(await closures("900201")).toContain("11-26 Inventario");
    // 00:30 of the 27th in São Paulo, 22:30 of the 26th in Bogotá: only São Paulo's closure is over.
    const late = await carte(["plan", "-c", config], { CARTE_NOW: "2099-11-27T03:30:00Z" });
    expect(late.code).toBe(0);
    expect(late.out).toMatch(/- special day 11-26 \(Inventario\)/);
    expect(late.out.match(/- special day 11-26/g)).toHaveLength(1);
    expect(late.err).toMatch(
      /stores\/med-poblado\.yaml:\d+:\d+: special day "Inventario" of 2099-11-26 has passed/,
    );
    expect(late.err).not.toMatch(/bog-centro\.yaml:\d+:\d+: special day/);
  });

  it("creates a special day of one year before its date and removes it after (the clock injected)", async () => {
    const { config, client, store } = await setup();
    edit(
      store,
      "open: true\n",
      'open: true\ntimezone: America/Bogota\nspecial_days:\n  - { name: Inventario, date: 2026-12-28, slots: ["08:00-12:00"] }\n',
    );
    const days = async () =>
      ((await getSpecialDays(client, STORE_ID)).storeSpecialScheduleDays ?? [])
        .map((d) => `${d.month}-${d.day} ${d.name}`)
        .sort();

    const before = { CARTE_NOW: "2026-12-01T09:00:00-05:00" };
    await applyClean(config, before);
    expect(await days()).toContain("12-28 Inventario");
    expect((await carte(["plan", "--detailed-exitcode", "-c", config], before)).code).toBe(0);

    // The day has ended at the store: the first run after it removes it, and says why.
    const after = { CARTE_NOW: "2026-12-29T08:00:00-05:00" };
    const plan = await carte(["plan", "--detailed-exitcode", "-c", config], after);
    expect(plan.code).toBe(2);
    expect(plan.out).toMatch(/- special day 12-28 \(Inventario\)/);
    expect(plan.out).toContain("Plan: 0 to create, 0 to update, 1 to delete");
    expect(plan.err).toMatch(
      /stores\/bog-centro\.yaml:\d+:\d+: special day "Inventario" of 2026-12-28 has passed/,
    );
    const validate = await carte(["validate", "-c", config], after);
    expect(validate.code).toBe(0);
    expect(validate.err).toMatch(/Warning: .*special day "Inventario" of 2026-12-28 has passed/);
    await applyClean(config, after);
    const left = await days();
    expect(left.some((d) => d.startsWith("12-28"))).toBe(false);
    // The chain's yearly days stay.
    expect(left).toContain("12-24 Nochebuena");
    expect((await carte(["plan", "--detailed-exitcode", "-c", config], after)).code).toBe(0);
  });
});
