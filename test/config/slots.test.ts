import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalSchedules,
  parseDays,
  parseMonthDay,
  parseSlot,
  splitSlot,
  toSchedules,
} from "../../src/time/days-and-slots.js";
import type { Schedule } from "../../src/model.js";

const days = (spec: string, hol = true) => {
  const r = parseDays(spec, hol);
  return r.ok ? r.value.join(",") : `error: ${r.error}`;
};

describe("day specs", () => {
  it("reads days, ranges, lists, daily and hol in the platform's order", () => {
    expect(days("mon-fri")).toBe("mon,tue,wed,thu,fri");
    expect(days("sat,sun")).toBe("sat,sun");
    expect(days("Sun, Mon")).toBe("mon,sun");
    expect(days("daily")).toBe("mon,tue,wed,thu,fri,sat,sun");
    expect(days("hol,mon-wed")).toBe("mon,tue,wed,hol");
    expect(days("fri-mon")).toBe("mon,fri,sat,sun");
  });

  it("refuses unknown days, repeats, and hol where only weekdays go", () => {
    expect(days("mon-xyz")).toBe(
      'error: days "mon-xyz": "xyz" is not a day (use mon, tue, wed, thu, fri, sat, sun, hol or daily)',
    );
    expect(days("mon-fri,fri")).toBe('error: days "mon-fri,fri" names fri twice');
    expect(days("mon,,tue")).toMatch(/has an empty part/);
    expect(days("hol", false)).toMatch(/hol is not a day of regular hours/);
    expect(days("mon-hol")).toMatch(/hol cannot be part of a range/);
  });
});

describe("slots", () => {
  it("reads slots, 24:00 as an end, and slots that run past midnight", () => {
    expect(parseSlot("11:00-15:00")).toEqual({ ok: true, value: { start: 660, end: 900 } });
    expect(parseSlot("9:30-24:00")).toEqual({ ok: true, value: { start: 570, end: 1440 } });
    expect(parseSlot("22:00-02:00")).toEqual({ ok: true, value: { start: 1320, end: 120 } });
  });

  it("refuses malformed, impossible and empty slots", () => {
    expect(parseSlot("25:00-26:00")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/"25:00" is not a time/),
    });
    expect(parseSlot("10:60-11:00")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/minutes go from 00 to 59/),
    });
    expect(parseSlot("24:00-02:00")).toMatchObject({ ok: false });
    expect(parseSlot("11:00-11:00")).toMatchObject({ ok: false, error: expect.stringMatching(/is empty/) });
    expect(parseSlot("11-15")).toMatchObject({ ok: false });
  });

  it("splits at midnight into the platform's form, ending the first day at 23:59", () => {
    const split = (text: string) => {
      const r = parseSlot(text);
      if (!r.ok) throw new Error(r.error);
      return splitSlot(r.value);
    };
    expect(split("22:00-02:00")).toEqual({
      sameDay: { start: "22:00", end: "23:59" },
      nextDay: { start: "00:00", end: "02:00" },
    });
    expect(split("18:00-24:00")).toEqual({ sameDay: { start: "18:00", end: "23:59" } });
    expect(split("18:00-00:00")).toEqual({ sameDay: { start: "18:00", end: "23:59" } });
    expect(split("00:00-24:00")).toEqual({ sameDay: { start: "00:00", end: "23:59" } });
    expect(split("23:59-01:00")).toEqual({ nextDay: { start: "00:00", end: "01:00" } });
  });

  it("reads MM-DD dates, 29 February included", () => {
    expect(parseMonthDay("02-29")).toEqual({ ok: true, value: { month: 2, day: 29 } });
    expect(parseMonthDay("04-31")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/month 04 has days 01 to 30/),
    });
    expect(parseMonthDay("13-01")).toMatchObject({ ok: false });
  });
});

describe("schedules", () => {
  it("splits overnight slots into the next weekday (sunday wraps to monday; hol keeps its evening)", () => {
    expect(toSchedules([{ days: "sun,hol", slots: ["22:00-02:00"] }])).toEqual([
      { days: "mon", periods: [{ start: "00:00", end: "02:00" }] },
      { days: "sun,hol", periods: [{ start: "22:00", end: "23:59" }] },
    ]);
  });

  it("groups days with the same periods, sorted by days then start", () => {
    expect(
      toSchedules([
        { days: "sat,sun,hol", slots: ["07:00-12:00"] },
        { days: "mon-fri", slots: ["06:00-11:00"] },
        { days: "fri", slots: ["18:00-20:00"] },
      ]),
    ).toEqual([
      { days: "mon,tue,wed,thu", periods: [{ start: "06:00", end: "11:00" }] },
      {
        days: "fri",
        periods: [
          { start: "06:00", end: "11:00" },
          { start: "18:00", end: "20:00" },
        ],
      },
      { days: "sat,sun,hol", periods: [{ start: "07:00", end: "12:00" }] },
    ]);
  });

  it("canonical form: the same whatever the grouping, and stable", () => {
    const day = fc.constantFrom("mon", "tue", "wed", "thu", "fri", "sat", "sun", "hol");
    const period = fc
      .tuple(fc.integer({ min: 0, max: 22 }), fc.integer({ min: 1, max: 1 }))
      .map(([h, n]) => ({
        start: `${String(h).padStart(2, "0")}:00`,
        end: `${String(h + n).padStart(2, "0")}:00`,
      }));
    const schedule = fc.record({
      days: fc.uniqueArray(day, { minLength: 1 }).map((d) => d.join(",")),
      periods: fc.array(period, { minLength: 1, maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(schedule, { maxLength: 5 }), (schedules: Schedule[]) => {
        const once = canonicalSchedules(schedules);
        expect(canonicalSchedules(once)).toEqual(once);
        // One schedule per day gives the same canonical form.
        const perDay = schedules.flatMap((s) =>
          s.days.split(",").map((d) => ({ days: d, periods: s.periods })),
        );
        expect(canonicalSchedules([...perDay].reverse())).toEqual(once);
      }),
    );
  });
});
