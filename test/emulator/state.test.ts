import { describe, expect, it } from "vitest";

import { keepSuspension, type ItemRec } from "../../src/emulator/state.js";

/** An item record as buildItems makes it (suspension fields only when sent and not empty). */
function rec(extra: Partial<ItemRec> = {}): ItemRec {
  return {
    id: 7,
    sku: "BURGER",
    item_type: "ITEM",
    last_updated: "2026-01-01T00:00:00.000Z",
    title_info: { title: "Burger", overrides: [] },
    description_info: { description: "", overrides: [] },
    images_info: { images: [], overrides: [] },
    children: [],
    children_overrides: [],
    price_info: { price: 100, overrides: [] },
    quantity_info: { min_permitted: null, max_permitted: null, modifiers_type: null, overrides: [] },
    schedules_info: { schedules: [], overrides: [] },
    available: true,
    ...extra,
  };
}

type Sent = { until: string | null; reason: string | null } | undefined;

/** The record keepSuspension must give, written out field by field. */
function expected(r: ItemRec, prev: ItemRec | undefined, sent: Sent): ItemRec {
  const until = sent ? sent.until : (prev?.suspend_until ?? null);
  const reason = sent ? sent.reason : (prev?.suspend_reason ?? null);
  const { suspend_until: _u, suspend_reason: _r, ...rest } = r;
  return {
    ...rest,
    available: prev ? prev.available : r.available,
    ...(until !== null ? { suspend_until: until } : {}),
    ...(reason !== null ? { suspend_reason: reason } : {}),
  };
}

describe("keepSuspension", () => {
  const until = "2030-01-01T00:00:00Z";
  const cases: [string, ItemRec, ItemRec | undefined, Sent][] = [
    ["a new item", rec(), undefined, undefined],
    [
      "a new item sent suspended",
      rec({ suspend_until: until, suspend_reason: "sold out" }),
      undefined,
      { until, reason: "sold out" },
    ],
    ["an item switched off before", rec(), rec({ available: false }), undefined],
    [
      "an item suspended before, nothing sent",
      rec(),
      rec({ available: false, suspend_until: until }),
      undefined,
    ],
    [
      "an item suspended before, cleared",
      rec(),
      rec({ available: false, suspend_until: until }),
      { until: null, reason: null },
    ],
    ["an empty reason sent", rec(), undefined, { until: null, reason: "" }],
    ["an item unchanged", rec(), rec(), undefined],
  ];
  for (const [name, r, prev, sent] of cases) {
    it(`gives the record as written field by field: ${name}`, () => {
      const out = keepSuspension(r, prev, sent);
      expect(out).toStrictEqual(expected(r, prev, sent));
      expect(Object.keys(out)).toEqual(Object.keys(expected(r, prev, sent)));
    });
  }

  it("shares the record itself when it already says everything (projected and visible hold one copy)", () => {
    const r = rec();
    expect(keepSuspension(r, undefined, undefined)).toBe(r);
    expect(keepSuspension(r, rec(), undefined)).toBe(r);
    const suspended = rec({ suspend_until: until });
    expect(keepSuspension(suspended, undefined, { until, reason: null })).toBe(suspended);
  });

  it("copies the record when something differs, leaving the given one as it was", () => {
    const r = rec();
    const out = keepSuspension(r, rec({ available: false }), undefined);
    expect(out).not.toBe(r);
    expect(out.available).toBe(false);
    expect(r.available).toBe(true);
    expect(keepSuspension(r, undefined, { until: null, reason: "" })).toMatchObject({ suspend_reason: "" });
  });
});
