/** Store availability: the kind's resources and the closes_stores safety guard. */

import { describe, expect, it } from "vitest";
import { storeAvailability } from "../../src/kinds/store-availability.js";
import { emptyIds, emptyStore, type CurrentState } from "../../src/model.js";
import { DEFAULT_SAFETY, evaluateSafety } from "../../src/plan/safety.js";
import type { Plan, ResourceChange } from "../../src/plan/types.js";

const identity = { key: "bog-centro", storeId: "900101", integrationId: "bog-centro", name: "Bogotá Centro" };

function change(kind: ResourceChange["kind"], key: string, before: unknown, after: unknown): ResourceChange {
  const action = before === null ? "create" : after === null ? "delete" : "update";
  return {
    address: `store[bog-centro].${kind}[${key}]`,
    store: "bog-centro",
    kind,
    key,
    action,
    before,
    after,
    diff: [],
  };
}

function planOf(changes: ResourceChange[]): Plan {
  return {
    formatVersion: 1,
    stores: [{ key: "bog-centro", storeId: "900101", name: "Bogotá Centro" }],
    changes,
    operations: [],
    summary: { create: 0, update: 0, delete: 0, operations: 0, stores: 1 },
    checksums: { current: "", desired: "" },
    safety: { ok: true, violations: [] },
  };
}

// A store with 10 catalog resources, so that the percentage guards apply.
const current: CurrentState = {
  stores: {
    "bog-centro": {
      ...emptyStore(identity),
      kinds: {
        item: {
          items: Object.fromEntries(
            Array.from({ length: 10 }, (_, i) => [
              `I${i}`,
              {
                sku: `I${i}`,
                type: "ITEM" as const,
                title: "t",
                description: "",
                price: 1,
                images: [],
                children: [],
                min: null,
                max: null,
                modifiersType: null,
              },
            ]),
          ),
        },
      },
      ids: emptyIds(),
    },
  },
};

describe("store availability", () => {
  it("is managed only where the files say open or closed", () => {
    expect(storeAvailability.select(emptyStore(identity))).toBeUndefined();
    expect(
      storeAvailability.select({ ...emptyStore(identity), kinds: { store_availability: false } }),
    ).toEqual({
      open: { open: false },
    });
  });

  it("closing a store trips closes_stores; opening or keeping it closed does not", () => {
    const closes = evaluateSafety(
      planOf([change("store_availability", "open", { open: true }, { open: false })]),
      current,
      DEFAULT_SAFETY,
    );
    expect(closes.violations).toEqual([
      {
        guard: "closes_stores",
        store: "bog-centro",
        message: "store[bog-centro]: the plan closes the store (it stops taking orders)",
      },
    ]);
    for (const [before, after] of [
      [{ open: false }, { open: true }],
      [{ open: true }, { open: true }],
    ]) {
      expect(
        evaluateSafety(planOf([change("store_availability", "open", before, after)]), current, DEFAULT_SAFETY)
          .ok,
      ).toBe(true);
    }
  });

  it("store settings do not count toward the percentage guards", () => {
    const days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((d) =>
      change("store_hours", d, { day: d, slots: [] }, { day: d, slots: [{ start: "10:00", end: "12:00" }] }),
    );
    expect(evaluateSafety(planOf(days), current, DEFAULT_SAFETY).ok).toBe(true);
  });
});
