/**
 * Item availability that knows who switched what off, planned without the platform:
 * carte's marker (`suspend_reason: "carte"`) on the current side decides whether an item the files no
 * longer list is turned back on; items staff switched off stay off and the plan says so.
 */

import { describe, expect, it } from "vitest";
import type { CatalogFile } from "../../src/generated/config.js";
import type { StoreState } from "../../src/model.js";
import { availabilityStore, sanitizeAvailability } from "../../src/kinds/availability-import.js";
import { buildPlan } from "../../src/plan/plan.js";
import { renderText } from "../../src/render/text.js";
import { current, desired, item, store, catalogOf } from "../helpers/builders.js";

const items = (s: StoreState) => {
  catalogOf(s).items = { FRIES: item("FRIES", 50), COLA: item("COLA", 30), SHAKE: item("SHAKE", 70) };
};

/** The platform: FRIES switched off by carte, COLA by staff (no marker), SHAKE on. */
const live = () =>
  store("a", "1", (s) => {
    items(s);
    catalogOf(s).unavailable = ["COLA", "FRIES"];
    catalogOf(s).suspensions = { FRIES: { byCarte: true } };
  });

const lines = (ops: { endpoint: string; body: unknown }[]) =>
  ops.map((o) => `${o.endpoint} ${JSON.stringify(o.body)}`);

describe("item availability and carte's marker", () => {
  it("turns back on only the item carte switched off, and tells about the one staff switched off", () => {
    const want = store("a", "1", items);
    const plan = buildPlan(desired(want), current(live()));
    expect(plan.changes.map((c) => `${c.address} ${JSON.stringify(c.diff)}`)).toEqual([
      'store[a].availability[FRIES] [{"attribute":"state","before":"off","after":"on"}]',
    ]);
    expect(lines(plan.operations)).toEqual([
      'availability.toggle [{"store_integration_id":"a","items":{"turn_on":["FRIES"]}}]',
    ]);
    expect(plan.info).toEqual([
      {
        store: "a",
        kind: "availability",
        message: expect.stringMatching(/^1 item switched off outside the files stays off: COLA \(/),
      },
    ]);
    expect(renderText(plan, { color: false })).toContain(
      "Note: store[a]: 1 item switched off outside the files",
    );
  });

  it("still forces an item on when the files list it under available", () => {
    const want = store("a", "1", (s) => {
      items(s);
      catalogOf(s).available = ["COLA"];
    });
    const plan = buildPlan(desired(want), current(live()));
    expect(plan.changes.map((c) => c.address)).toEqual([
      "store[a].availability[COLA]",
      "store[a].availability[FRIES]",
    ]);
    expect(plan.info).toBeUndefined();
  });

  it("turns every item on under full ownership, with nothing to tell", () => {
    const plan = buildPlan(desired(store("a", "1", items)), current(live()), {
      ownership: { availability: "full" },
    });
    expect(plan.changes.map((c) => c.address)).toEqual([
      "store[a].availability[COLA]",
      "store[a].availability[FRIES]",
    ]);
    expect(plan.info).toBeUndefined();
  });

  it("switches an item off with a toggle, then marks it as carte's with an upsert of the item", () => {
    const want = store("a", "1", (s) => {
      items(s);
      catalogOf(s).unavailable = ["FRIES", "SHAKE"];
      catalogOf(s).suspensions = { SHAKE: { until: "2026-11-25T18:00:00-05:00" } };
    });
    const plan = buildPlan(desired(want), current(live()));
    expect(plan.changes.map((c) => `${c.address} ${String(c.diff[0]?.after)}`)).toEqual([
      "store[a].availability[SHAKE] off until 18:00 (2026-11-25T18:00:00-05:00)",
    ]);
    expect(plan.operations.map((o) => o.endpoint)).toEqual(["availability.toggle", "availability.mark"]);
    expect(plan.operations[0]!.body).toEqual([{ store_integration_id: "a", items: { turn_off: ["SHAKE"] } }]);
    const [upsert] = plan.operations[1]!.body as {
      sku: string;
      suspension_info: unknown;
      title_info: unknown;
    }[];
    expect(upsert!.sku).toBe("SHAKE");
    expect(upsert!.title_info).toEqual({ title: "shake" });
    expect(upsert!.suspension_info).toEqual({
      is_available: false,
      suspend_reason: "carte",
      suspend_until: "2026-11-25T18:00:00-05:00",
    });
    expect(renderText(plan, { color: false })).toContain(
      "switched off until 18:00 (2026-11-25T18:00:00-05:00)",
    );
  });

  it("marks a listed item found off without the marker, since a lost marker looks the same", () => {
    // COLA is off without carte's marker: staff switched it off, or carte's own run was killed between
    // the toggle and the marker. The files list it, so carte writes the marker (no second toggle).
    const want = store("a", "1", (s) => {
      items(s);
      catalogOf(s).unavailable = ["COLA", "FRIES"];
    });
    const plan = buildPlan(desired(want), current(live()));
    expect(
      plan.changes.map((c) => `${c.address} ${String(c.diff[0]?.before)} → ${String(c.diff[0]?.after)}`),
    ).toEqual(["store[a].availability[COLA] off, switched off outside the files → off"]);
    expect(plan.operations.map((o) => o.endpoint)).toEqual(["availability.mark"]);
    catalogOf(want).suspensions = { COLA: { until: "2026-11-25T18:00:00-05:00" } };
    const timed = buildPlan(desired(want), current(live()));
    expect(
      timed.changes.map((c) => `${c.address} ${String(c.diff[0]?.before)} → ${String(c.diff[0]?.after)}`),
    ).toEqual([
      "store[a].availability[COLA] off, switched off outside the files → off until 18:00 (2026-11-25T18:00:00-05:00)",
    ]);
    expect(timed.operations.map((o) => o.endpoint)).toEqual(["availability.mark"]);
  });

  it("imports only the items carte switched off; staff's stay off, unwritten", () => {
    const state = live();
    catalogOf(state).suspensions = {
      ...catalogOf(state).suspensions,
      COLA: { until: "2099-01-01T18:00:00-05:00" },
    };
    sanitizeAvailability(state, () => undefined);
    expect(catalogOf(state).unavailable).toEqual(["FRIES"]);
    expect(availabilityStore.sections(state, { items: [] } as unknown as CatalogFile)).toEqual({
      availability: { unavailable: ["FRIES"] },
    });
  });

  it("is imported with until: when the platform switches the item back on at a time", () => {
    const state = live();
    catalogOf(state).suspensions = { FRIES: { byCarte: true, until: "2099-01-01T18:00:00-05:00" } };
    sanitizeAvailability(state, () => undefined);
    expect(availabilityStore.sections(state, { items: [] } as unknown as CatalogFile)).toEqual({
      availability: { unavailable: [{ sku: "FRIES", until: "2099-01-01T18:00:00-05:00" }] },
    });
  });
});
