import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { categoryEqual, itemEqual } from "../../src/kinds/equal.js";
import { jsonEqual } from "../../src/plain-data.js";
import type { CategoryResource, ItemResource } from "../../src/model.js";

// Values from small domains, so that two resources drawn independently are often equal, or differ in
// one place only; `odd` values are of the types the model does not use there.
const odd = fc.constantFrom<unknown>(undefined, null, 0, "", "1", [], {}, ["a"], { a: 1 }, true);
const slot = fc.record({ start: fc.constantFrom("10:00", "11:00"), end: fc.constantFrom("15:00", "22:00") });
const schedule = fc.record({
  days: fc.constantFrom("mon,tue", "sat,sun,hol"),
  periods: fc.array(fc.oneof({ weight: 6, arbitrary: slot }, { weight: 1, arbitrary: odd }), {
    maxLength: 2,
  }),
});
const schedules = fc.array(fc.oneof({ weight: 6, arbitrary: schedule }, { weight: 1, arbitrary: odd }), {
  minLength: 1,
  maxLength: 2,
});
const skus = fc.array(fc.constantFrom("A", "B"), { maxLength: 2 });
const image = fc.oneof(
  fc.constant("i.jpg"),
  fc.record({ path: fc.constant("i.jpg"), host: fc.constant("h") }),
);

const item = fc.record(
  {
    sku: fc.constantFrom("A", "B"),
    type: fc.constantFrom("ITEM", "MODIFIER_GROUP"),
    title: fc.constantFrom("t", "u"),
    description: fc.constant(""),
    price: fc.constantFrom(100, 200, null),
    images: fc.array(image, { maxLength: 2 }),
    children: skus,
    min: fc.constantFrom(null, 1),
    max: fc.constant(null),
    modifiersType: fc.constant(null),
    schedules,
    priceInParent: fc.dictionary(fc.constantFrom("A", "B"), fc.constantFrom(1, 2), { maxKeys: 2 }),
    extra: fc.constant(1),
  },
  // Any key may be missing: the optional ones, and the others as a library user's state might.
  { requiredKeys: ["sku", "type", "title", "description", "price", "images", "children", "min", "max"] },
) as unknown as fc.Arbitrary<Record<string, unknown>>;

const category = fc.record(
  {
    sku: fc.constantFrom("C", "D"),
    title: fc.constantFrom("t", "u"),
    items: skus,
    schedules,
    extra: fc.constant(1),
  },
  { requiredKeys: ["sku", "title", "items"] },
) as unknown as fc.Arbitrary<Record<string, unknown>>;

/** One change to a copy of `r`: a key removed, set to another value (of another type too), or added. */
function mutated(r: Record<string, unknown>, keys: readonly string[]) {
  return fc.oneof(
    fc.constant(structuredClone(r)),
    fc.constantFrom(...keys).map((k) => {
      const copy = structuredClone(r);
      delete copy[k];
      return copy;
    }),
    fc.tuple(fc.constantFrom(...keys, "other"), odd).map(([k, v]) => ({ ...structuredClone(r), [k]: v })),
    fc.constant({ ...structuredClone(r), other: 1 }),
    // The same keys and values without a prototype, or with one of another class.
    fc.constant(Object.assign(Object.create(null) as object, structuredClone(r))),
    fc.constant(Object.assign(Object.create({ sku: "A" }) as object, structuredClone(r))),
  );
}

const pairs = (resource: fc.Arbitrary<Record<string, unknown>>, keys: readonly string[]) =>
  fc.oneof(
    fc.tuple(resource, resource),
    resource.chain((a) => fc.tuple(fc.constant(a), mutated(a, keys))),
  );

const ITEM_KEYS = [
  "sku",
  "type",
  "title",
  "price",
  "images",
  "children",
  "min",
  "schedules",
  "priceInParent",
];

describe("itemEqual", () => {
  it("gives jsonEqual's verdict on random pairs, both ways round", () => {
    let equal = 0;
    fc.assert(
      fc.property(pairs(item, ITEM_KEYS), ([a, b]) => {
        const verdict = jsonEqual(a, b);
        if (verdict) equal++;
        expect(itemEqual(a as unknown as ItemResource, b as unknown as ItemResource)).toBe(verdict);
        expect(itemEqual(b as unknown as ItemResource, a as unknown as ItemResource)).toBe(verdict);
      }),
      { numRuns: 3000 },
    );
    // The pairs hold both verdicts in numbers.
    expect(equal).toBeGreaterThan(300);
  });

  it("tells an absent field from one set to undefined, and a key it does not know", () => {
    const a: ItemResource = {
      sku: "A",
      type: "ITEM",
      title: "t",
      description: "",
      price: 1,
      images: [],
      children: [],
      min: null,
      max: null,
      modifiersType: null,
    };
    expect(itemEqual(a, { ...a })).toBe(true);
    expect(itemEqual(a, { ...a, schedules: undefined })).toBe(false);
    expect(itemEqual({ ...a, schedules: undefined }, { ...a, priceInParent: undefined })).toBe(false);
    expect(itemEqual(a, { ...a, other: 1 } as ItemResource)).toBe(false);
    expect(itemEqual({ ...a, other: 1 } as ItemResource, { ...a, other: 1 } as ItemResource)).toBe(true);
    const withSchedule = { ...a, schedules: [{ days: "mon", periods: [{ start: "10:00", end: "11:00" }] }] };
    expect(itemEqual(withSchedule, structuredClone(withSchedule))).toBe(true);
    expect(
      itemEqual(withSchedule, {
        ...a,
        schedules: [{ days: "mon", periods: [{ start: "10:00", end: "12:00" }] }],
      }),
    ).toBe(false);
  });
});

describe("categoryEqual", () => {
  it("gives jsonEqual's verdict on random pairs, both ways round", () => {
    let equal = 0;
    fc.assert(
      fc.property(pairs(category, ["sku", "title", "items", "schedules"]), ([a, b]) => {
        const verdict = jsonEqual(a, b);
        if (verdict) equal++;
        expect(categoryEqual(a as unknown as CategoryResource, b as unknown as CategoryResource)).toBe(
          verdict,
        );
        expect(categoryEqual(b as unknown as CategoryResource, a as unknown as CategoryResource)).toBe(
          verdict,
        );
      }),
      { numRuns: 2000 },
    );
    expect(equal).toBeGreaterThan(200);
  });
});
