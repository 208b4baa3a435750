import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  checksum,
  currentChecksum,
  desiredChecksum,
  digestMemo,
  digestView,
  storeDigest,
} from "../../src/plan/checksum.js";
import { buildPlan, createPlanner, planChecksums } from "../../src/plan/plan.js";
import { current, desired, group, item, store, catalogOf } from "../helpers/builders.js";
import { webhooksState } from "../../src/kinds/store-webhooks.js";
import { hoursState } from "../../src/kinds/store-schedule.js";

/** The canonical JSON carte always wrote: JSON.stringify with a replacer sorting a copy of each object. */
function reference(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      return Object.fromEntries(
        Object.keys(o)
          .sort()
          .map((k) => [k, o[k]]),
      );
    }
    return v;
  });
}

function shop(key: string, id: string, price = 100) {
  return store(key, id, (s) => {
    catalogOf(s).items = {
      BURGER: item("BURGER", price, { children: ["SIZE"], schedules: [{ days: "mon", periods: [] }] }),
      SIZE: group("SIZE", ["SMALL"], 1, 1),
      SMALL: item("SMALL", 0, { priceInParent: { BURGER: 5 } }),
    };
    catalogOf(s).categories = { MAINS: { sku: "MAINS", title: "Mains", items: ["BURGER"] } };
    catalogOf(s).menus = { DEFAULT: { type: "DEFAULT", categories: [{ sku: "MAINS", active: true }] } };
    hoursState.set(s, {
      mon: [{ start: "09:00", end: "17:00" }],
      tue: [],
      wed: [],
      thu: [],
      fri: [],
      sat: [],
      sun: [],
    });
    webhooksState.set(s, { NEW_ORDER: { url: "https://example.test/a", enabled: true } });
  });
}

describe("canonical JSON", () => {
  it("is the text carte always wrote, for any JSON value (keys sorted at every level)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 300 },
    );
  });

  it("leaves out what JSON leaves out and writes null in arrays, as JSON.stringify", () => {
    const value = { b: undefined, a: [undefined, () => 1, 2], c: { toJSON: () => ({ z: 1, y: 2 }) }, d: NaN };
    expect(canonicalJson(value)).toBe(reference(value));
    expect(canonicalJson(value)).toBe('{"a":[null,null,2],"c":{"y":2,"z":1},"d":null}');
    expect(canonicalJson(undefined)).toBeUndefined();
  });

  it("hashes long values in chunks to the same digest as the whole text", () => {
    const big = { list: Array.from({ length: 20_000 }, (_, i) => ({ n: i, s: `item ${i} é` })) };
    expect(checksum(big)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(checksum(big)).toBe(checksum(JSON.parse(reference(big)) as unknown));
  });
});

describe("store digests", () => {
  it("are the checksum of the store's state, with or without shared resources", () => {
    const a = shop("a", "1");
    const memo = digestMemo();
    expect(storeDigest(a)).toBe(checksum(digestView(a)));
    expect(storeDigest(a, memo)).toBe(checksum(digestView(a)));
    // A second store sharing the first one's resource objects: same text, same digest as a copy.
    const b = shop("b", "2");
    catalogOf(b).items = catalogOf(a).items;
    expect(storeDigest(b, memo)).toBe(checksum(digestView(structuredClone(b))));
    expect(storeDigest(null)).toBe(checksum(null));
  });

  it("digest memoised resources as their text, whatever its characters", () => {
    const memo = digestMemo();
    const a = shop("a", "1");
    catalogOf(a).items.BURGER!.title = "Hamburguesa jalapeño 🌶 «doble»";
    // Digested twice through the memo (the second time from its kept bytes), as the text would be.
    expect(storeDigest(a, memo)).toBe(checksum(JSON.parse(reference(digestView(a))) as unknown));
    expect(storeDigest(a, memo)).toBe(checksum(digestView(a)));
    // The same store with one title changed (a new object): another digest, through the same memo.
    const b = shop("a", "1");
    catalogOf(b).items = {
      ...catalogOf(a).items,
      BURGER: { ...catalogOf(a).items.BURGER!, title: "Hamburguesa" },
    };
    expect(storeDigest(b, memo)).toBe(checksum(digestView(b)));
    expect(storeDigest(b, memo)).not.toBe(storeDigest(a, memo));
  });

  it("change with any resource, id or setting", () => {
    const base = storeDigest(shop("a", "1"));
    expect(storeDigest(shop("a", "1", 101))).not.toBe(base);
    const renamed = shop("a", "1");
    webhooksState.get(renamed)!.NEW_ORDER!.enabled = false;
    expect(storeDigest(renamed)).not.toBe(base);
    const live = current(shop("a", "1")).stores.a!;
    const other = current(shop("a", "1")).stores.a!;
    other.ids.items.BURGER = 999;
    expect(storeDigest(live)).not.toBe(storeDigest(other));
  });
});

describe("plan checksums", () => {
  const want = desired(shop("a", "1", 120), shop("b", "2"), shop("c", "3"));
  const have = current(shop("a", "1"), shop("b", "2"));

  it("are the same whether the plan is made at once or store by store, in any order", () => {
    const whole = buildPlan(want, have);
    for (const order of [
      ["c", "b", "a"],
      ["b", "a", "c"],
    ]) {
      const planner = createPlanner(want, { checksums: true });
      for (const key of order) planner.addStore(key, have.stores[key]);
      const streamed = planner.finish(undefined);
      expect(JSON.stringify(streamed)).toBe(JSON.stringify(whole));
    }
    expect(whole.checksums).toEqual(planChecksums(want, have));
    expect(whole.checksums.stores).toEqual({
      a: storeDigest(have.stores.a),
      b: storeDigest(have.stores.b),
      c: storeDigest(null),
    });
    expect(whole.checksums.current).toBe(currentChecksum(whole.checksums.stores!));
    expect(whole.checksums.desired).toBe(desiredChecksum(want));
  });

  it("give the desired digests of a plan made store by store when read, in the fields' usual order", () => {
    const planner = createPlanner(want, { checksums: true });
    for (const key of ["b", "c", "a"]) planner.addStore(key, have.stores[key]);
    const { checksums } = planner.finish(undefined);
    expect(Object.keys(checksums)).toEqual(["current", "desired", "stores", "desiredStores"]);
    expect(checksums.desiredStores).toEqual({
      a: storeDigest(want.stores.a),
      b: storeDigest(want.stores.b),
      c: storeDigest(want.stores.c),
    });
    expect(checksums.desired).toBe(desiredChecksum(want));
    // A plan file's value replaces it (src/plan/file.ts reads plans back).
    checksums.desired = "sha256:x";
    expect(JSON.parse(JSON.stringify(checksums))).toMatchObject({ desired: "sha256:x" });
  });

  it("are computed only when read, and a plan made without them refuses to show them", () => {
    const planner = createPlanner(want);
    for (const key of Object.keys(want.stores)) planner.addStore(key, have.stores[key]);
    const plan = planner.finish(undefined);
    expect(plan.changes.length).toBeGreaterThan(0);
    expect(() => plan.checksums).toThrow(/without its checksums/);
    expect(() => JSON.stringify(plan)).toThrow(/without its checksums/);
  });

  it("follow the client-level state when the plan reads one", () => {
    const withClient = {
      ...have,
      client: { webhooks: { STORE_PROVISIONING_STATUS: { url: "u" } }, ids: {} },
    };
    expect(planChecksums(want, withClient).current).not.toBe(planChecksums(want, have).current);
    // The stores' digests do not change; the client's state is digested under "".
    expect(planChecksums(want, withClient).stores).toEqual({
      ...planChecksums(want, have).stores,
      "": checksum(withClient.client),
    });
  });
});
