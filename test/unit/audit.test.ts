/**
 * The audits of the fault suite and the benchmarks (src/emulator/audit.ts) on cases the chaos proxy
 * brings: a request cut before it was whole, a batched call sent for 29 of its 30 stores, an item held
 * off whose marker was lost.
 */

import { describe, expect, it } from "vitest";
import { lostMarkers, sends, writesOutside } from "../../src/emulator/audit.js";
import type { RecordedRequest } from "../../src/emulator/index.js";
import { endpoint } from "../../src/plan/endpoints.js";
import type { Operation, Plan } from "../../src/plan/types.js";
import { emptyIds, emptyStore, type CurrentState, type DesiredState } from "../../src/model.js";
import "../../src/kinds/registry.js";
import { catalogOf } from "../helpers/builders.js";

const TOGGLE = "/api/v2/restaurants-integrations-public-api/availability/stores/items";
const stores = Array.from({ length: 30 }, (_, i) => `store-${String(i + 1).padStart(3, "0")}`);
const parts = stores.map((store) => ({
  store,
  element: { integrationId: store, sku: "FRIES", on: false },
}));
const bodyOf = (keep: string[]) =>
  endpoint("availability.toggle").body(
    parts.filter((p) => keep.includes(p.store)).map((p) => p.element),
    {},
  );
const op: Operation = {
  id: "availability.toggle",
  endpoint: "availability.toggle",
  stage: 7,
  stores,
  method: "PUT",
  path: TOGGLE,
  body: bodyOf(stores),
  idempotent: true,
  addresses: [],
  parts,
};
const plan = { operations: [op] } as unknown as Plan;
const request = (body: unknown, extra: Partial<RecordedRequest> = {}): RecordedRequest => ({
  method: "PUT",
  path: TOGGLE,
  query: "",
  body,
  bytes: 1,
  status: 200,
  at: 0,
  ...extra,
});

describe("audits of what the emulator received", () => {
  it("know a call sent for some of its 30 stores, and nothing else", () => {
    const without13 = bodyOf(stores.filter((s) => s !== "store-013"));
    expect(sends(op, request(without13))).toBe(true);
    expect(writesOutside([plan], [request(without13)])).toEqual([]);
    // Another SKU for one store is not this call.
    const edited = structuredClone(without13) as { items: { turn_off: string[] } }[];
    edited[4]!.items.turn_off = ["SHAKE"];
    expect(sends(op, request(edited))).toBe(false);
    expect(writesOutside([plan], [request(edited)])).toHaveLength(1);
  });

  it("do not count as a write a request whose connection was cut before it was whole", () => {
    const cut = request(undefined, { status: 0, fault: "incomplete" });
    expect(writesOutside([plan], [cut])).toEqual([]);
    expect(writesOutside([plan], [request(undefined, { status: 500 })])).toHaveLength(1);
  });

  it("name the items the files hold off that are off without carte's marker", () => {
    const desired: DesiredState = { stores: {} };
    const current: CurrentState = { stores: {} };
    for (const key of ["a", "b"]) {
      const want = emptyStore({ id: key, key, integrationId: key, name: key } as never);
      catalogOf(want).items.FRIES = { sku: "FRIES", type: "ITEM" } as never;
      catalogOf(want).items.SHAKE = { sku: "SHAKE", type: "ITEM" } as never;
      catalogOf(want).unavailable = ["FRIES", "SHAKE"];
      desired.stores[key] = want;
      current.stores[key] = { ...structuredClone(want), ids: emptyIds() };
    }
    // a: FRIES off with the marker, SHAKE still on (a plan switches it off: not a lost marker).
    catalogOf(current.stores.a!).unavailable = ["FRIES"];
    catalogOf(current.stores.a!).suspensions = { FRIES: { byCarte: true } };
    // b: both off, FRIES without the marker.
    catalogOf(current.stores.b!).suspensions = { SHAKE: { byCarte: true } };
    expect(lostMarkers(desired, current)).toEqual(["b FRIES"]);
  });
});
