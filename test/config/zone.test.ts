/**
 * Store time zones: wall times of a zone turned into instants and back, across daylight-saving changes.
 */

import { describe, expect, it } from "vitest";
import { canonicalZone, isoInZone, localText, suggestZone, zonedInstant } from "../../src/time/zone.js";

const at = (zone: string, year: number, month: number, day: number, hour: number, minute: number) =>
  isoInZone(zonedInstant({ year, month, day, hour, minute }, zone), zone);

describe("wall times of a zone", () => {
  it("gives 18:00 in Bogotá and São Paulo as their own instants", () => {
    expect(at("America/Bogota", 2026, 11, 26, 18, 0)).toBe("2026-11-26T18:00:00-05:00");
    expect(at("America/Sao_Paulo", 2026, 11, 26, 18, 0)).toBe("2026-11-26T18:00:00-03:00");
  });

  it("moves a wall time skipped by Santiago's spring-forward change forward by the gap", () => {
    // 2026-09-06: clocks go from 00:00 (−04:00) to 01:00 (−03:00).
    expect(at("America/Santiago", 2026, 9, 6, 0, 30)).toBe("2026-09-06T01:30:00-03:00");
    expect(at("America/Santiago", 2026, 9, 6, 0, 0)).toBe("2026-09-06T01:00:00-03:00");
    expect(at("America/Santiago", 2026, 9, 5, 23, 30)).toBe("2026-09-05T23:30:00-04:00");
  });

  it("takes the earlier of the two instants of a wall time repeated by Santiago's fall-back change", () => {
    // 2026-04-05: clocks go from 00:00 (−03:00) back to 23:00 (−04:00) of the 4th.
    expect(at("America/Santiago", 2026, 4, 4, 23, 30)).toBe("2026-04-04T23:30:00-03:00");
    expect(at("America/Santiago", 2026, 4, 5, 0, 0)).toBe("2026-04-05T00:00:00-04:00");
  });

  it("writes an instant for people in the store's zone, with today or tomorrow", () => {
    const now = Date.parse("2026-11-26T10:00:00-05:00");
    expect(localText(Date.parse("2026-11-26T18:00:00-05:00"), "America/Bogota", now)).toBe(
      "18:00 GMT-5 (today)",
    );
    expect(localText(Date.parse("2026-11-27T18:00:00-05:00"), "America/Bogota", now)).toBe(
      "18:00 GMT-5 (tomorrow)",
    );
    expect(localText(Date.parse("2026-12-24T18:00:00-03:00"), "America/Sao_Paulo", now)).toBe(
      "2026-12-24 18:00 GMT-3",
    );
  });

  it("knows zone names and suggests the closest to a misspelled one", () => {
    expect(canonicalZone("america/bogota")).toBe("America/Bogota");
    expect(canonicalZone("America/Bogot")).toBeUndefined();
    expect(canonicalZone("../../etc")).toBeUndefined();
    expect(suggestZone("America/Bogot")).toBe("America/Bogota");
    expect(suggestZone("Mars/Olympus")).toBeUndefined();
  });
});
