/**
 * End to end: store hours, holidays, special days, store availability and the utils group's
 * corridor and product schedules against the emulator. The desired state is the example chain with the
 * settings set in code; each case creates, updates and deletes, asserting the exact calls the emulator
 * recorded (method, path, body), then an empty second plan.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { LoadedProject } from "../../src/config/index.js";
import type { RecordedRequest, RunningEmulator } from "../../src/emulator/index.js";
import { Endpoints } from "../../src/plan/endpoints.js";
import { canonicalJson } from "../../src/plan/checksum.js";
import type { Plan } from "../../src/plan/types.js";
import { getHolidays, getRegularHours, getSpecialDays } from "../../src/platform/utils-calls.js";
import type { Session } from "../../src/run/session.js";
import type { Slot, StoreState } from "../../src/model.js";
import { ConfigError } from "../../src/errors.js";
import { applyPlan } from "../../src/run/apply-plan.js";
import { planProject } from "../../src/run/plan-project.js";
import { exampleSession } from "../helpers/session.js";
import { holidaysState } from "../../src/kinds/store-schedule.js";
import { hoursState } from "../../src/kinds/store-schedule.js";
import { openState } from "../../src/kinds/store-availability.js";
import { specialDaysState } from "../../src/kinds/store-schedule.js";
import { catalogOf } from "../helpers/builders.js";

const U = "/api/rest-ops-utils";
const A = "/api/v2/restaurants-integrations-public-api/availability";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

interface Fixture {
  project: LoadedProject;
  emu: RunningEmulator;
  session: Session;
  store: StoreState;
}

/**
 * The example chain applied without the settings of this file's kinds (each case sets them in code),
 * requests cleared; `store` is bog-centro (platform id 900101).
 */
async function applied(): Promise<Fixture> {
  const fx = await exampleSession();
  cleanup = fx.close;
  for (const s of Object.values(fx.project.desired.stores)) {
    hoursState.clear(s);
    holidaysState.clear(s);
    specialDaysState.clear(s);
    openState.clear(s);
  }
  const report = await applyPlan((await planProject(fx.project, fx.session)).plan, fx.session);
  expect(report.failed).toBe(0);
  fx.emu.clearRequests();
  return { ...fx, store: fx.project.desired.stores["bog-centro"]! };
}

const isRead = (r: RecordedRequest) =>
  r.method === "GET" || r.path.includes("/token/login/") || (r.method === "POST" && r.path === `${A}/stores`);

/** The writes the emulator received, as `METHOD path body`, in arrival order. */
function writes(emu: RunningEmulator): string[] {
  return emu.requests.filter((r) => !isRead(r)).map((r) => `${r.method} ${r.path} ${canonicalJson(r.body)}`);
}

const call = (method: string, path: string, body?: unknown) => `${method} ${path} ${canonicalJson(body)}`;

/** Plans, applies without failure, and returns the plan and the writes it made; then plans nothing. */
async function applyAndSettle(fx: Fixture): Promise<{ plan: Plan; calls: string[] }> {
  fx.emu.clearRequests();
  const { plan } = await planProject(fx.project, fx.session);
  const report = await applyPlan(plan, fx.session);
  expect(report.operations.filter((o) => o.status !== "ok")).toEqual([]);
  expect(report.pending).toEqual([]);
  const calls = writes(fx.emu);
  const again = await planProject(fx.project, fx.session);
  expect(again.plan.changes).toEqual([]);
  return { plan, calls };
}

const slot = (start: string, end: string): Slot => ({ start, end });
const closed = () => ({ mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] });

describe("store hours", () => {
  it("creates, edits by id and deletes slots with the fewest calls, deletes before creates", async () => {
    const fx = await applied();
    hoursState.set(fx.store, {
      ...closed(),
      mon: [slot("18:00", "22:00"), slot("11:00", "15:00")],
      sat: [slot("10:00", "14:00")],
    });
    const created = await applyAndSettle(fx);
    expect(created.plan.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      "update store[bog-centro].store_hours[mon]",
      "update store[bog-centro].store_hours[sat]",
    ]);
    expect([...created.calls].sort()).toEqual(
      [
        call("POST", `${U}/store/schedule/900101`, {
          day: "mon",
          starts_time: "11:00:00",
          ends_time: "15:00:00",
        }),
        call("POST", `${U}/store/schedule/900101`, {
          day: "mon",
          starts_time: "18:00:00",
          ends_time: "22:00:00",
        }),
        call("POST", `${U}/store/schedule/900101`, {
          day: "sat",
          starts_time: "10:00:00",
          ends_time: "14:00:00",
        }),
      ].sort(),
    );

    const ids = (await getRegularHours(fx.session.client, "900101")).storeScheduleDays;
    const idOf = (day: string, start: string) =>
      ids.find((d) => d.day === day)!.storeSchedules.find((s) => s.startsTime === start)!.id;
    // mon: one slot edited (later end) → one PUT; sat emptied → one DELETE; sun gains a slot → one POST.
    hoursState.set(fx.store, {
      ...closed(),
      mon: [slot("11:00", "15:00"), slot("18:00", "23:00")],
      sun: [slot("12:00", "16:00")],
    });
    const updated = await applyAndSettle(fx);
    expect(updated.calls).toEqual([
      call("DELETE", `${U}/store/schedule/900101/${idOf("sat", "10:00:00")}`),
      call("PUT", `${U}/store/schedule/900101/${idOf("mon", "18:00:00")}`, {
        starts_time: "18:00:00",
        ends_time: "23:00:00",
      }),
      call("POST", `${U}/store/schedule/900101`, {
        day: "sun",
        starts_time: "12:00:00",
        ends_time: "16:00:00",
      }),
    ]);

    // Closed every day: deletes only, by id.
    const now = (await getRegularHours(fx.session.client, "900101")).storeScheduleDays.flatMap((d) =>
      d.storeSchedules.map((s) => s.id),
    );
    hoursState.set(fx.store, closed());
    const deleted = await applyAndSettle(fx);
    expect([...deleted.calls].sort()).toEqual(
      now.map((id) => call("DELETE", `${U}/store/schedule/900101/${id}`)).sort(),
    );
    expect((await getRegularHours(fx.session.client, "900101")).storeScheduleDays).toEqual([]);
  });
});

describe("holidays", () => {
  it("adds slots to the platform's holidays, edits them by id and removes them", async () => {
    const fx = await applied();
    holidaysState.set(fx.store, { "12-25": [slot("10:00", "14:00")], "01-01": [slot("12:00", "16:00")] });
    const created = await applyAndSettle(fx);
    expect([...created.calls].sort()).toEqual(
      [
        call("POST", `${U}/store/schedule/900101/holiday/101`, [
          { startsTime: "12:00:00", endsTime: "16:00:00" },
        ]),
        call("POST", `${U}/store/schedule/900101/holiday/1225`, [
          { startsTime: "10:00:00", endsTime: "14:00:00" },
        ]),
      ].sort(),
    );

    const days = (await getHolidays(fx.session.client, "900101")).storeSpecialScheduleDays;
    const christmas = days.find((d) => d.id === 1225)!.storeSchedules[0]!.id;
    const newYear = days.find((d) => d.id === 101)!.storeSchedules[0]!.id;
    holidaysState.set(fx.store, {
      "12-25": [slot("10:00", "13:00"), slot("16:00", "18:00"), slot("19:00", "20:00")],
    });
    const updated = await applyAndSettle(fx);
    // 01-01 left out under full ownership: its slot goes. 12-25: one shrink by id, two new slots in one POST.
    expect(updated.calls).toEqual([
      call("DELETE", `${U}/store/schedule/900101/${newYear}`),
      call("PUT", `${U}/store/schedule/900101/${christmas}`, {
        starts_time: "10:00:00",
        ends_time: "13:00:00",
      }),
      call("POST", `${U}/store/schedule/900101/holiday/1225`, [
        { startsTime: "16:00:00", endsTime: "18:00:00" },
        { startsTime: "19:00:00", endsTime: "20:00:00" },
      ]),
    ]);

    const left = (await getHolidays(fx.session.client, "900101")).storeSpecialScheduleDays.flatMap((d) =>
      d.storeSchedules.map((s) => s.id),
    );
    holidaysState.set(fx.store, { "12-25": [] });
    const deleted = await applyAndSettle(fx);
    expect([...deleted.calls].sort()).toEqual(
      left.map((id) => call("DELETE", `${U}/store/schedule/900101/${id}`)).sort(),
    );
  });

  it("refuses a date that is not a holiday of the platform before any write", async () => {
    const fx = await applied();
    holidaysState.set(fx.store, { "04-01": [slot("10:00", "12:00")] });
    const planning = planProject(fx.project, fx.session);
    await expect(planning).rejects.toThrow(ConfigError);
    await expect(planning).rejects.toThrow(
      /holiday 04-01 is not a holiday of store bog-centro on the platform/,
    );
    expect(writes(fx.emu)).toEqual([]);
  });
});

describe("special days", () => {
  it("creates days with their slots, edits slots by id, renames by delete and create, deletes", async () => {
    const fx = await applied();
    specialDaysState.set(fx.store, {
      "12-24": { name: "Nochebuena", month: 12, day: 24, slots: [slot("10:00", "16:00")] },
      "12-31": { name: "Fin de año", month: 12, day: 31, slots: [] },
    });
    const created = await applyAndSettle(fx);
    expect([...created.calls].sort()).toEqual(
      [
        call("POST", `${U}/store/schedule/900101/special`, {
          day: 24,
          month: 12,
          name: "Nochebuena",
          schedules: [{ startsTime: "10:00:00", endsTime: "16:00:00" }],
        }),
        call("POST", `${U}/store/schedule/900101/special`, {
          day: 31,
          month: 12,
          name: "Fin de año",
          schedules: [],
        }),
      ].sort(),
    );

    const read = async () => (await getSpecialDays(fx.session.client, "900101")).storeSpecialScheduleDays;
    const [eve, year] = await read();
    specialDaysState.set(fx.store, {
      "12-24": {
        name: "Nochebuena",
        month: 12,
        day: 24,
        slots: [slot("10:00", "18:00"), slot("20:00", "22:00")],
      },
      "12-31": { name: "Último día del año", month: 12, day: 31, slots: [slot("09:00", "12:00")] },
    });
    const updated = await applyAndSettle(fx);
    expect(updated.calls).toEqual([
      call("DELETE", `${U}/store/schedule/900101/special/${year!.id}`),
      call("PUT", `${U}/store/schedule/900101/${eve!.storeSchedules[0]!.id}`, {
        starts_time: "10:00:00",
        ends_time: "18:00:00",
      }),
      call("POST", `${U}/store/schedule/900101/special`, {
        day: 31,
        month: 12,
        name: "Último día del año",
        schedules: [{ startsTime: "09:00:00", endsTime: "12:00:00" }],
      }),
      call("POST", `${U}/store/schedule/900101/special/${eve!.id}`, [
        { startsTime: "20:00:00", endsTime: "22:00:00" },
      ]),
    ]);

    const ids = (await read()).map((d) => d.id);
    specialDaysState.set(fx.store, {});
    const deleted = await applyAndSettle(fx);
    expect([...deleted.calls].sort()).toEqual(
      ids.map((id) => call("DELETE", `${U}/store/schedule/900101/special/${id}`)).sort(),
    );
    expect(await read()).toEqual([]);
  });
});

describe("store availability", () => {
  it("reads 3 stores in one call, closes them in ONE sync call behind the closes_stores guard, reopens", async () => {
    const fx = await applied();
    const stores = Object.values(fx.project.desired.stores);
    expect(stores).toHaveLength(3);
    for (const s of stores) openState.set(s, false);

    fx.emu.clearRequests();
    const { plan } = await planProject(fx.project, fx.session);
    const statusReads = fx.emu.requests.filter((r) => r.method === "POST" && r.path === `${A}/stores`);
    expect(statusReads.map((r) => r.body)).toEqual([expect.arrayContaining(["900101", "900102", "900201"])]);
    expect(plan.safety.ok).toBe(false);
    expect(plan.safety.violations.map((v) => `${v.guard} ${v.store}`).sort()).toEqual([
      "closes_stores bog-centro",
      "closes_stores bog-chapinero",
      "closes_stores med-poblado",
    ]);

    const closedRun = await applyAndSettle(fx);
    expect(closedRun.calls).toEqual([
      call("PUT", `${A}/stores/enable`, {
        stores: [
          { store_id: "900101", is_enabled: false },
          { store_id: "900102", is_enabled: false },
          { store_id: "900201", is_enabled: false },
        ],
      }),
    ]);

    for (const s of stores) openState.set(s, true);
    const reopened = await applyAndSettle(fx);
    expect(reopened.plan.safety.ok).toBe(true);
    expect(reopened.calls).toEqual([
      call("PUT", `${A}/stores/enable`, {
        stores: [
          { store_id: "900101", is_enabled: true },
          { store_id: "900102", is_enabled: true },
          { store_id: "900201", is_enabled: true },
        ],
      }),
    ]);
  });

  it("a store the sync call could not switch fails the call, naming the store and the reason", () => {
    const check = Endpoints["store_availability.enable"]!.check!;
    const parts = [
      { store: "bog-centro", element: { store_id: "900101", is_enabled: false } },
      { store: "med-poblado", element: { store_id: "900201", is_enabled: false } },
    ];
    const result = (store_id: string, type: string, message: string) => ({
      store_id,
      is_enabled: false,
      operation_result: type === "SUCCESS",
      operation_result_type: type,
      operation_result_message: message,
      suspended_reason: null,
      suspended_at: null,
      suspended_time: null,
    });
    expect(
      check(
        { results: [result("900101", "SUCCESS", "ok"), result("900201", "STORE_ALREADY_IN_STATUS", "")] },
        parts,
      ),
    ).toBeUndefined();
    expect(
      check(
        {
          results: [
            result("900101", "SUCCESS", "ok"),
            result("900201", "SUSPENDED", "Suspended by operations"),
          ],
        },
        parts,
      ),
    ).toBe("store[med-poblado] (900201) could not close: SUSPENDED (Suspended by operations)");
  });
});

describe("corridor and product schedules through the utils group", () => {
  it("creates, edits by id and deletes schedule details, leaving the menu API alone", async () => {
    const fx = await applied();
    const menu = await fx.session.client.getStoreMenu("900101");
    // A category and its first item without schedules in the example.
    const skuOfId = new Map(menu.items.map((i) => [i.id, i.sku]));
    const category = [...menu.categories]
      .sort((a, b) => a.sku.localeCompare(b.sku))
      .find(
        (c) => !c.schedules?.length && !catalogOf(fx.store).items[skuOfId.get(c.items[0]!.id)!]?.schedules,
      )!;
    const itemSku = skuOfId.get(category.items[0]!.id)!;
    const itemId = menu.items.find((i) => i.sku === itemSku)!.id!;
    const corridor = category.id!;
    const cPath = `${U}/corridor/schedule/${corridor}/store/900101`;
    const pPath = `${U}/product/schedule/${itemId}/corridor/${corridor}/store/900101`;

    fx.store.schedulesVia = "utils";
    const desiredCategory = catalogOf(fx.store).categories[category.sku]!;
    const desiredItem = catalogOf(fx.store).items[itemSku]!;
    desiredCategory.schedules = [
      { days: "sat,sun,hol", periods: [{ start: "08:00", end: "12:00" }] },
      { days: "mon,tue,wed,thu,fri", periods: [{ start: "06:00", end: "11:00" }] },
    ];
    desiredItem.schedules = [{ days: "fri,sat", periods: [{ start: "18:00", end: "23:00" }] }];
    const created = await applyAndSettle(fx);
    expect(created.plan.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      `update store[bog-centro].corridor_schedule[${category.sku}]`,
      `update store[bog-centro].product_schedule[${itemSku}]`,
    ]);
    expect(created.calls).toEqual([
      call("POST", cPath, {
        schedule_details: [
          { days: "mon,tue,wed,thu,fri", starts_time: "06:00:00", ends_time: "11:00:00" },
          { days: "sat,sun,hol", starts_time: "08:00:00", ends_time: "12:00:00" },
        ],
      }),
      call("POST", pPath, {
        schedule_details: [{ days: "fri,sat", starts_time: "18:00:00", ends_time: "23:00:00" }],
      }),
    ]);

    const details = (
      await fx.session.client.call<{ schedule_details: { id: number; days: string }[] }>("GET", cPath)
    ).schedule_details;
    const weekend = details.find((d) => d.days === "sat,sun,hol")!.id;
    const weekdays = details.find((d) => d.days.startsWith("mon"))!.id;
    const product = (await fx.session.client.call<{ schedule_details: { id: number }[] }>("GET", pPath))
      .schedule_details[0]!.id;
    // Weekend edited → one PUT element; an evening period added → one POST; the product's schedule dropped.
    desiredCategory.schedules = [
      { days: "sat,sun,hol", periods: [{ start: "09:00", end: "13:00" }] },
      {
        days: "mon,tue,wed,thu,fri",
        periods: [
          { start: "06:00", end: "11:00" },
          { start: "17:00", end: "21:00" },
        ],
      },
    ];
    delete desiredItem.schedules;
    const updated = await applyAndSettle(fx);
    expect(updated.calls).toEqual([
      call("PUT", cPath, {
        schedule_details: [
          { id: weekend, days: "sat,sun,hol", starts_time: "09:00:00", ends_time: "13:00:00" },
        ],
      }),
      call("POST", cPath, {
        schedule_details: [{ days: "mon,tue,wed,thu,fri", starts_time: "17:00:00", ends_time: "21:00:00" }],
      }),
      call("DELETE", `${pPath}/${product}`),
    ]);

    const left = (await fx.session.client.call<{ schedule_details: { id: number }[] }>("GET", cPath))
      .schedule_details;
    expect(left.map((d) => d.id)).toContain(weekdays);
    desiredCategory.schedules = [];
    const deleted = await applyAndSettle(fx);
    expect([...deleted.calls].sort()).toEqual(left.map((d) => call("DELETE", `${cPath}/${d.id}`)).sort());
    // No menu API write in any of these plans.
    for (const p of [created, updated, deleted]) {
      expect(p.plan.operations.every((o) => o.path.startsWith(U))).toBe(true);
    }
  });

  it("a category rewritten through the menu API in the same plan carries its schedules: no utils call", async () => {
    const fx = await applied();
    fx.store.schedulesVia = "utils";
    const sku = Object.keys(catalogOf(fx.store).categories).sort()[0]!;
    const c = catalogOf(fx.store).categories[sku]!;
    c.title = `${c.title} (new)`;
    c.schedules = [{ days: "mon", periods: [{ start: "10:00", end: "11:00" }] }];
    const run = await applyAndSettle(fx);
    expect(run.plan.operations.map((o) => o.endpoint)).toEqual(["categories.upsert"]);
    expect(run.calls).toHaveLength(1);
  });
});

describe("the example chain's own settings", () => {
  it("apply from scratch (midnight-split hours, holidays, special days) and then plan nothing", async () => {
    const fx = await exampleSession();
    cleanup = fx.close;
    const { plan } = await planProject(fx.project, fx.session);
    const kinds = new Set(plan.changes.map((c) => c.kind));
    for (const k of ["store_hours", "holiday", "special_day"] as const) expect(kinds).toContain(k);
    const report = await applyPlan(plan, fx.session);
    expect(report.operations.filter((o) => o.status !== "ok")).toEqual([]);
    expect((await planProject(fx.project, fx.session)).plan.changes).toEqual([]);
  });
});
