/**
 * Duplicates and lost answers, without I/O: the kinds read duplicates the emulator cannot make (a store
 * listed twice on a webhook, two items with one SKU, two special days of one date) as drift the plan
 * removes, and the endpoints settle a lost answer by their own effect.
 */

import { describe, expect, it } from "vitest";
import { items } from "../../src/kinds/items.js";
import { menus } from "../../src/kinds/menus.js";
import { endpointTable } from "../../src/kinds/registry.js";
import { specialDays } from "../../src/kinds/special-days.js";
import { storeHours } from "../../src/kinds/store-hours.js";
import type { ReadState } from "../../src/kinds/resource-kind.js";
import { webhooks } from "../../src/kinds/store-webhooks.js";
import type { CurrentState, StoreState } from "../../src/model.js";
import { buildPlan } from "../../src/plan/plan.js";
import type { WebhookConfigList } from "../../src/platform/webhook-calls.js";
import { normalizeSnapshot } from "../../src/state/current.js";
import { desired, item, store, catalogOf } from "../helpers/builders.js";
import { webhooksState } from "../../src/kinds/store-webhooks.js";
import { itemsOf } from "../../src/kinds/catalog.js";

const A = "https://hooks.example.com/a";
const endpoints = endpointTable();
const spec = (name: string) => endpoints.get(name)!;

function liveHooks(list: WebhookConfigList, stores: StoreState[]): CurrentState {
  return {
    stores: Object.fromEntries(
      stores.map((s) => [s.store.key, normalizeSnapshot(s.store, { webhooks: list }, [webhooks as never])]),
    ),
  };
}

describe("duplicates on the platform", () => {
  it("takes a store listed twice on an event off it and adds it back once", () => {
    const s1 = store("s1", "1001");
    const s2 = store("s2", "1002");
    const list: WebhookConfigList = [
      {
        event: "NEW_ORDER",
        stores: [
          { store_id: "1001", url: A, state: "ENABLE" },
          { store_id: "1001", url: A, state: "ENABLE" },
          { store_id: "1002", url: A, state: "ENABLE" },
        ],
      },
    ];
    const cur = liveHooks(list, [s1, s2]);
    expect(webhooksState.get(cur.stores.s1!)).toEqual({ NEW_ORDER: { url: A, enabled: true, copies: 2 } });
    expect(webhooks.duplicates!(cur.stores.s1!)).toEqual({ NEW_ORDER: "NEW_ORDER" });
    expect(webhooks.duplicates!(cur.stores.s2!)).toEqual({});

    const want = [s1, s2].map((s) => ({
      ...s,
      kinds: { webhook: { NEW_ORDER: { url: A, enabled: false } } },
    }));
    webhooksState.get(want[1]!)!.NEW_ORDER!.enabled = true;
    const plan = buildPlan(desired(...want), cur);
    expect(plan.operations.map((o) => [o.stage, o.endpoint, o.body])).toEqual([
      [29, "webhook.remove-duplicated", { stores: ["1001"] }],
      // Another store stays on the event: the store is added back (no new secret).
      [31, "webhook.add-stores", [{ url: A, stores: ["1001"] }]],
      [33, "webhook.change-status", { stores: { disable: ["1001"] } }],
    ]);
  });

  it("creates the event anew when the duplicated store was its only one", () => {
    const s1 = store("s1", "1001");
    const cur = liveHooks(
      [
        { event: "PING", stores: [{ store_id: "1001", url: A, state: "ENABLE" }] },
        { event: "PING", stores: [{ store_id: "1001", url: A, state: "ENABLE" }] },
      ],
      [s1],
    );
    const plan = buildPlan(desired({ ...s1, kinds: { webhook: { PING: { url: A, enabled: true } } } }), cur);
    expect(plan.operations.map((o) => o.endpoint)).toEqual(["webhook.remove-duplicated", "webhook.create"]);
  });

  it("reads a second item with one SKU, and a second special day of one date, as extras to delete", () => {
    const s = store("s1", "1001");
    const snap = {
      menu: {
        items: [
          { id: 7, sku: "A", item_type: "ITEM", title_info: { title: "a" }, price_info: { price: 100 } },
          { id: 3, sku: "A", item_type: "ITEM", title_info: { title: "a" }, price_info: { price: 100 } },
        ],
        categories: [],
        menus: [],
      },
    };
    const read = normalizeSnapshot(s.store, snap, [items as never, menus as never]);
    // The lowest id keeps the SKU.
    expect(read.ids.items).toEqual({ A: 3, "A#7": 7 });
    expect(items.duplicates!(read)).toEqual({ "A#7": "A" });
    const want = store("s1", "1001", (x) => (catalogOf(x).items.A = { ...item("A", 100), title: "a" }));
    const plan = buildPlan(desired(want), { stores: { s1: read } });
    expect(plan.changes.map((c) => `${c.action} ${c.address}`)).toEqual(["delete store[s1].item[A#7]"]);
    expect(plan.operations.map((o) => [o.endpoint, o.body])).toEqual([["items.delete", [7]]]);

    const days = normalizeSnapshot(
      s.store,
      {
        special: {
          storeSpecialScheduleDays: [
            { id: 40, name: "Eve", month: 12, day: 24, cityId: 1, storeSchedules: [] },
            { id: 41, name: "Eve", month: 12, day: 24, cityId: 1, storeSchedules: [] },
          ],
        },
      },
      [specialDays as never],
    );
    expect(specialDays.duplicates!(days)).toEqual({ "12-24#41": "12-24" });
  });

  it("reads each store's menu in its own order, after a store whose menu came in read order", () => {
    const s = store("s1", "1001");
    const wire = (id: number, sku: string) => ({
      id,
      sku,
      item_type: "ITEM",
      title_info: { title: sku },
      price_info: { price: 100 },
    });
    const readAs = (list: ReturnType<typeof wire>[]) =>
      normalizeSnapshot(s.store, { menu: { items: list, categories: [], menus: [] } }, [items as never]);
    expect(readAs([wire(3, "A"), wire(4, "B")]).ids.items).toEqual({ A: 3, B: 4 });
    expect(readAs([wire(3, "A"), wire(4, "B")]).ids.items).toEqual({ A: 3, B: 4 });
    expect(Object.keys(itemsOf(readAs([wire(4, "B"), wire(3, "A")])))).toEqual(["A", "B"]);
    // The same SKUs as a menu read before, one of them twice: the lowest id keeps the SKU.
    expect(readAs([wire(7, "A"), wire(3, "A")]).ids.items).toEqual({ A: 3, "A#7": 7 });
    expect(readAs([wire(7, "A"), wire(3, "A")]).ids.items).toEqual({ A: 3, "A#7": 7 });
  });

  it("reads a menu in any order alike, references given by id only included", () => {
    const s = store("s1", "1001");
    const wire = [
      { id: 5, sku: "b-opt", item_type: "ITEM", title_info: { title: "b" }, price_info: { price: 50 } },
      {
        id: 9,
        sku: "GROUP",
        item_type: "MODIFIER_GROUP",
        title_info: { title: "g" },
        // The first option by id only, the second by SKU.
        items_info: {
          items: [
            { id: 5, index: 0 },
            { sku: "A-OPT", index: 1 },
          ],
        },
        price_info: { price: 0 },
      },
      {
        id: 2,
        sku: "A-OPT",
        item_type: "ITEM",
        title_info: { title: "a" },
        price_info: { price: 70, overrides: [{ override_type: "ITEM", override_id: 9, price: 80 }] },
      },
    ];
    const readAs = (list: typeof wire) =>
      normalizeSnapshot(s.store, { menu: { items: list, categories: [], menus: [] } }, [items as never]);
    const sorted = readAs([wire[2]!, wire[0]!, wire[1]!]);
    for (const order of [wire, [...wire].reverse()]) {
      const read = readAs(order);
      // The same table, keys in the same order (collated: "A-OPT", "b-opt", "GROUP").
      expect(Object.keys(itemsOf(read))).toEqual(["A-OPT", "b-opt", "GROUP"]);
      expect(itemsOf(read)).toEqual(itemsOf(sorted));
      expect(read.ids.items).toEqual({ "A-OPT": 2, "b-opt": 5, GROUP: 9 });
    }
    expect(itemsOf(sorted).GROUP!.children).toEqual(["b-opt", "A-OPT"]);
    expect(itemsOf(sorted)["A-OPT"]!.priceInParent).toEqual({ GROUP: 80 });
  });

  it("keeps a duplicate of a resource the files manage out of additive ownership's reach", () => {
    const s = store("s1", "1001", (x) => {
      catalogOf(x).menus.DEFAULT = { type: "DEFAULT", categories: [] };
    });
    const cur = {
      stores: {
        s1: {
          ...structuredClone(s),
          kinds: {
            menu: {
              DEFAULT: { type: "DEFAULT", categories: [] },
              "DEFAULT#9": { type: "DEFAULT", categories: [] },
            },
          },
          ids: { items: {}, categories: {}, menus: { DEFAULT: 8, "DEFAULT#9": 9 }, other: {} },
        },
      },
    };
    const plan = buildPlan(desired(s), cur, { ownership: { menu: "additive" } });
    expect(plan.operations.map((o) => [o.endpoint, o.body])).toEqual([["menus.delete", [9]]]);
  });
});

describe("the effect of one call", () => {
  function hoursState(slots: Record<string, { id: number; start: string; end: string }[]>): ReadState {
    const s = store("s1", "1001");
    return {
      ...s,
      kinds: {
        store_hours: Object.fromEntries(
          Object.entries(slots).map(([d, list]) => [d, list.map(({ start, end }) => ({ start, end }))]),
        ),
      },
      ids: { items: {}, categories: {}, menus: {}, other: { store_hours: slots } },
    };
  }

  it("a slot create shows by its own slot, whatever the day's other slots", () => {
    const state = hoursState({ mon: [{ id: 1, start: "18:00", end: "23:59" }] });
    const create = spec("store_hours.create");
    expect(create.effect!({ day: "mon", starts_time: "18:00:00", ends_time: "23:59:00" }, {}, state)).toBe(
      "present",
    );
    // The day is not in its final state (11:00-15:00 is missing), yet this call's slot is there.
    expect(create.effect!({ day: "mon", starts_time: "11:00:00", ends_time: "15:00:00" }, {}, state)).toBe(
      "absent",
    );
    expect(spec("utils.slot.delete").effect!(undefined, { slotId: 1 }, state)).toBe("absent");
    expect(spec("utils.slot.delete").effect!(undefined, { slotId: 2 }, state)).toBe("present");
    expect(storeHours.duplicates!(hoursState({ mon: [] }))).toEqual({});
  });

  it("a webhook create shows when the store is listed, whatever its later status change", () => {
    const s = store("s1", "1001");
    const listed: ReadState = {
      ...s,
      kinds: { webhook: { NEW_ORDER: { url: A, enabled: true } } },
      ids: { items: {}, categories: {}, menus: {}, other: {} },
    };
    const body = { event: "NEW_ORDER", data: [{ url: A, stores: ["1001"] }] };
    expect(spec("webhook.create").effect!(body, { event: "NEW_ORDER" }, listed)).toBe("present");
    expect(spec("webhook.create").effect!(body, { event: "PING" }, listed)).toBe("absent");
    const change = { stores: { disable: ["1001"] } };
    expect(spec("webhook.change-status").effect!(change, { event: "NEW_ORDER" }, listed)).toBe("absent");
  });

  it("a menu create shows by a menu of its type; a call of several elements can show in part", () => {
    const s = store("s1", "1001");
    const state: ReadState = {
      ...s,
      kinds: { menu: { DEFAULT: { type: "DEFAULT", categories: [] } } },
      ids: { items: {}, categories: {}, menus: { DEFAULT: 5 }, other: {} },
    };
    const upsert = spec("menus.upsert");
    expect(upsert.effect!([{ menu_type: "DEFAULT", categories: [] }], {}, state)).toBe("present");
    expect(
      upsert.effect!(
        [
          { menu_type: "DEFAULT", categories: [] },
          { menu_type: "LATE", categories: [] },
        ],
        {},
        state,
      ),
    ).toBe("partial");
  });
});
