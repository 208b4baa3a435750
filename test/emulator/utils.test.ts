import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { startEmulator } from "../../src/emulator/index.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { FOREIGN_STORE, SEED, STORE, STORE2, call, login, start } from "./helpers.js";

const U = "/api/rest-ops-utils";
const H = (store: number = STORE) => `${U}/store/schedule/${store}`;

let emu: RunningEmulator;
let token: string; // integrations
let utils: string; // utils
beforeEach(async () => {
  ({ emu, token } = await start());
  utils = await login(emu, "acme", "utils");
});
afterEach(async () => {
  await emu.close();
});

const u = (method: string, path: string, body?: unknown) => call(emu, method, path, { token: utils, body });

interface Slot {
  id: number;
  startsTime: string;
  endsTime: string;
}

describe("emulator: utils store hours", () => {
  it("creates, reads, updates and deletes regular hours", async () => {
    expect(await u("GET", H())).toMatchObject({ status: 200, body: { storeScheduleDays: [] } });
    const a = await u("POST", H(), { day: "mon", starts_time: "18:00:00", ends_time: "23:00:00" });
    expect(a).toMatchObject({
      status: 200,
      body: { day: "mon", storeSchedules: [{ starts_time: "18:00:00", ends_time: "23:00:00" }] },
    });
    const eveningId = (a.body as { storeSchedules: { id: number }[] }).storeSchedules[0]!.id;
    const b = await u("POST", H(), { day: "mon", starts_time: "11:00:00", ends_time: "15:00:00" });
    const noonId = (b.body as { storeSchedules: { id: number }[] }).storeSchedules[0]!.id;
    await u("POST", H(), { day: "sat", startsTime: "12:00:00", endsTime: "23:00:00" }); // camel case too
    const read = await u("GET", H());
    expect(read.body).toMatchObject({
      storeScheduleDays: [
        {
          day: "mon",
          storeSchedules: [
            { id: noonId, startsTime: "11:00:00", endsTime: "15:00:00" },
            { id: eveningId, startsTime: "18:00:00", endsTime: "23:00:00" },
          ],
        },
        { day: "sat", storeSchedules: [{ startsTime: "12:00:00", endsTime: "23:00:00" }] },
      ],
    });

    expect(
      await u("PUT", `${H()}/${eveningId}`, { starts_time: "19:00:00", ends_time: "22:30:00" }),
    ).toMatchObject({
      status: 200,
      body: { id: eveningId, day: "mon", startsTime: "19:00:00", endsTime: "22:30:00" },
    });
    expect(
      await u("PUT", `${H()}/${eveningId}`, { day: "tue", starts_time: "19:00:00", ends_time: "22:00:00" }),
    ).toMatchObject({ status: 200, body: { day: "tue" } });
    const del = await u("DELETE", `${H()}/${noonId}`);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    const after = (await u("GET", H())).body as {
      storeScheduleDays: { day: string; storeSchedules: Slot[] }[];
    };
    expect(after.storeScheduleDays.map((d) => [d.day, d.storeSchedules.map((s) => s.startsTime)])).toEqual([
      ["tue", ["19:00:00"]],
      ["sat", ["12:00:00"]],
    ]);
    // Hours are per store.
    expect((await u("GET", H(STORE2))).body).toEqual({ storeScheduleDays: [] });
  });

  it("creates and deletes special days and their slots", async () => {
    const c = await u("POST", `${H()}/special`, {
      day: 24,
      month: 12,
      name: "Christmas Eve",
      schedules: [{ startsTime: "11:00:00", endsTime: "18:00:00" }],
    });
    expect(c).toMatchObject({
      status: 200,
      body: {
        name: "Christmas Eve",
        month: 12,
        day: 24,
        cityId: null,
        storeSchedules: [{ startsTime: "11:00:00", endsTime: "18:00:00" }],
      },
    });
    const dayId = (c.body as { id: number }).id;
    const snake = await u("POST", `${H()}/special`, {
      day: 31,
      month: 12,
      name: "New Year's Eve",
      schedules: [{ starts_time: "10:00:00", ends_time: "16:00:00" }],
    });
    expect(snake).toMatchObject({ status: 200, body: { storeSchedules: [{ startsTime: "10:00:00" }] } });
    const slot = await u("POST", `${H()}/special/${dayId}`, { startsTime: "19:00:00", endsTime: "22:00:00" });
    expect(slot).toMatchObject({ status: 200, body: { startsTime: "19:00:00", endsTime: "22:00:00" } });
    expect(
      await u("POST", `${H()}/special`, { day: 24, month: 12, name: "Again", schedules: [] }),
    ).toMatchObject({ status: 409 });
    const list = await u("GET", `${H()}/special`);
    expect(list.body).toMatchObject({
      storeSpecialScheduleDays: [
        {
          id: dayId,
          name: "Christmas Eve",
          storeSchedules: [{ startsTime: "11:00:00" }, { startsTime: "19:00:00" }],
        },
        { name: "New Year's Eve", month: 12, day: 31 },
      ],
    });
    // A special-day slot is a store schedule: PUT and DELETE by its id.
    const slotId = (slot.body as Slot).id;
    expect(
      await u("PUT", `${H()}/${slotId}`, { startsTime: "20:00:00", endsTime: "22:00:00" }),
    ).toMatchObject({
      status: 200,
      body: { id: slotId, startsTime: "20:00:00", endsTime: "22:00:00" },
    });
    expect((await u("DELETE", `${H()}/special/${dayId}`)).status).toBe(204);
    expect(await u("DELETE", `${H()}/special/${dayId}`)).toMatchObject({ status: 404 });
    expect(
      ((await u("GET", `${H()}/special`)).body as { storeSpecialScheduleDays: unknown[] })
        .storeSpecialScheduleDays,
    ).toHaveLength(1);
  });

  it("serves fixed holiday days and adds slots to them", async () => {
    const list = (await u("GET", `${H()}/holiday`)).body as {
      storeSpecialScheduleDays: { id: number; month: number; day: number; storeSchedules: Slot[] }[];
    };
    expect(list.storeSpecialScheduleDays.length).toBeGreaterThan(0);
    const xmas = list.storeSpecialScheduleDays.find((d) => d.month === 12 && d.day === 25)!;
    expect(xmas).toMatchObject({ id: 1225, name: "Christmas Day", cityId: null, storeSchedules: [] });
    const r = await u("POST", `${H()}/holiday/${xmas.id}`, [
      { startsTime: "12:00:00", endsTime: "16:00:00" },
      { starts_time: "18:00:00", ends_time: "21:00:00" },
    ]);
    expect(r).toMatchObject({
      status: 200,
      body: [
        { startsTime: "12:00:00", endsTime: "16:00:00" },
        { startsTime: "18:00:00", endsTime: "21:00:00" },
      ],
    });
    const again = (await u("GET", `${H()}/holiday`)).body as typeof list;
    expect(again.storeSpecialScheduleDays.find((d) => d.id === 1225)!.storeSchedules).toEqual(r.body);
    expect(
      await u("POST", `${H()}/holiday/4242`, [{ startsTime: "12:00:00", endsTime: "16:00:00" }]),
    ).toMatchObject({
      status: 404,
      body: { message: "Holiday day 4242 not found" },
    });
  });

  it("validates bodies and names the field", async () => {
    const bad = async (method: string, path: string, body: unknown, status: number, message: string) =>
      expect(await u(method, path, body)).toMatchObject({ status, body: { message } });
    await bad(
      "POST",
      H(),
      { day: "mon", starts_time: "11:00", ends_time: "15:00:00" },
      400,
      "starts_time must be a time HH:mm:ss",
    );
    await bad(
      "POST",
      H(),
      { day: "mon", starts_time: "23:00:00", ends_time: "02:00:00" },
      400,
      "ends_time (02:00:00) must be later than starts_time (23:00:00); split ranges that cross midnight",
    );
    await bad(
      "POST",
      H(),
      { day: "hol", starts_time: "11:00:00", ends_time: "15:00:00" },
      400,
      "day must be one of mon,tue,wed,thu,fri,sat,sun",
    );
    await bad(
      "POST",
      `${H()}/special`,
      { day: 30, month: 2, name: "X", schedules: [] },
      400,
      "day must be an integer from 1 to 29 (day of month 2)",
    );
    await bad(
      "POST",
      `${H()}/special`,
      { day: 1, month: 13, name: "X", schedules: [] },
      400,
      "month must be an integer from 1 to 12",
    );
    await bad("POST", `${H()}/special`, { day: 1, month: 3, schedules: [] }, 400, "name is required");
    await bad(
      "POST",
      `${H()}/holiday/101`,
      [{ startsTime: "12:00:00", endsTime: "25:00:00" }],
      400,
      "[0].endsTime must be a time HH:mm:ss",
    );
    await bad(
      "PUT",
      `${H()}/999999`,
      { starts_time: "11:00:00", ends_time: "12:00:00" },
      404,
      "Store schedule 999999 not found",
    );
    for (let h = 10; h < 16; h++) {
      const r = await u("POST", H(), { day: "fri", starts_time: `${h}:00:00`, ends_time: `${h}:30:00` });
      expect(r.status).toBe(200);
    }
    await bad(
      "POST",
      H(),
      { day: "fri", starts_time: "20:00:00", ends_time: "21:00:00" },
      400,
      "day fri would have 7 time slots; the limit is 6",
    );
    expect(await u("GET", H(424242))).toMatchObject({ status: 404 });
    expect(await u("GET", H(FOREIGN_STORE))).toMatchObject({ status: 400 });
  });

  it("needs a utils token and carries the deprecation headers", async () => {
    const wrong = await call(emu, "GET", H(), { token });
    expect(wrong).toMatchObject({ status: 401, body: { message: "Invalid token" } });
    const wrong2 = await call(emu, "GET", `${U}/corridor/store/${STORE}`, { token });
    expect(wrong2.status).toBe(401);
    for (const r of [
      await u("GET", H()),
      await u("GET", `${U}/corridor/store/${STORE}`),
      await u("GET", H(424242)),
    ]) {
      expect(r.headers.get("x-platform-api-deprecation-date")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(r.headers.get("x-platform-api-deprecation-info")).toContain("/restaurants/menu/v1");
    }
    const del = await u("DELETE", `${H()}/special/1`);
    expect(del.status).toBe(404);
    expect(del.headers.get("x-platform-api-deprecation-date")).not.toBeNull();
  });

  it("keeps store hours across a restart", async () => {
    const dir = await mkdtemp(join(tmpdir(), "carte-hours-"));
    try {
      const stateFile = join(dir, "state.json");
      const first = await startEmulator({ seed: SEED, stateFile, applyDelayMs: 10 });
      let t = await login(first, "acme", "utils");
      await call(first, "POST", H(), {
        token: t,
        body: { day: "sun", starts_time: "09:00:00", ends_time: "13:00:00" },
      });
      await call(first, "POST", `${H()}/special`, {
        token: t,
        body: {
          day: 7,
          month: 8,
          name: "Party",
          schedules: [{ startsTime: "10:00:00", endsTime: "12:00:00" }],
        },
      });
      await call(first, "POST", `${H()}/holiday/101`, {
        token: t,
        body: [{ startsTime: "10:00:00", endsTime: "14:00:00" }],
      });
      const before = await Promise.all(
        ["", "/special", "/holiday"].map((p) => call(first, "GET", H() + p, { token: t })),
      );
      await first.close();
      const second = await startEmulator({ seed: SEED, stateFile, applyDelayMs: 10 });
      t = await login(second, "acme", "utils");
      const after = await Promise.all(
        ["", "/special", "/holiday"].map((p) => call(second, "GET", H() + p, { token: t })),
      );
      expect(after.map((r) => r.body)).toEqual(before.map((r) => r.body));
      // New ids continue after the loaded ones.
      const next = await call(second, "POST", H(), {
        token: t,
        body: { day: "sun", starts_time: "14:00:00", ends_time: "15:00:00" },
      });
      const oldIds = (
        before[0]!.body as { storeScheduleDays: { storeSchedules: Slot[] }[] }
      ).storeScheduleDays[0]!.storeSchedules.map((s) => s.id);
      expect((next.body as { storeSchedules: Slot[] }).storeSchedules[0]!.id).toBeGreaterThan(
        Math.max(...oldIds),
      );
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
