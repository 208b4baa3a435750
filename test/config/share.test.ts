import { describe, expect, it } from "vitest";
import { resolveDesired, resolveStore, type ResolvableStore } from "../../src/config/resolve.js";
import type { CatalogFile, StoreFile } from "../../src/generated/config.js";
import { catalogOf } from "../helpers/builders.js";

const catalog = {
  name: "shared",
  items: [
    { sku: "BURGER", title: "Burger", price: 100, modifier_groups: ["SIZE"] },
    { sku: "FRIES", title: "Fries", price: 50 },
  ],
  modifier_groups: [
    { sku: "SIZE", title: "Size", min: 1, max: 1, options: [{ sku: "LARGE", title: "Large", price: 20 }] },
  ],
  categories: [{ sku: "MAINS", title: "Mains", items: ["BURGER", "FRIES"] }],
  menus: [{ type: "DEFAULT", categories: ["MAINS"] }],
} as unknown as CatalogFile;

function storeFile(i: number, overrides?: StoreFile["overrides"]): ResolvableStore {
  return {
    catalog,
    store: {
      store: { id: 100 + i, integration_id: `s${i}`, name: `Store ${i}` },
      catalog: "shared",
      ...(overrides ? { overrides } : {}),
    } as unknown as StoreFile,
  };
}

describe("stores of one catalog", () => {
  it("share what they resolve alike, and keep their own versions apart", () => {
    const stores = [
      storeFile(1),
      storeFile(2, { prices: { FRIES: 60 } }),
      storeFile(3),
      storeFile(4, { exclude: ["LARGE"] }),
    ];
    const desired = resolveDesired(stores, undefined, { share: true });
    const [a, b, c, d] = ["s1", "s2", "s3", "s4"].map((k) => desired.stores[k]!);
    // Each store is exactly what it resolves to alone.
    stores.forEach((s) => expect(desired.stores[s.store.store.integration_id]).toEqual(resolveStore(s)));
    // The same objects where the stores agree; their own where they differ.
    expect(catalogOf(b!).items.BURGER).toBe(catalogOf(a!).items.BURGER);
    expect(catalogOf(c!).items.FRIES).toBe(catalogOf(a!).items.FRIES);
    expect(catalogOf(b!).items.FRIES).not.toBe(catalogOf(a!).items.FRIES);
    expect(catalogOf(b!).items.FRIES!.price).toBe(60);
    expect(catalogOf(a!).items.FRIES!.price).toBe(50);
    expect(catalogOf(c!).categories.MAINS).toBe(catalogOf(a!).categories.MAINS);
    expect(catalogOf(c!).menus.DEFAULT).toBe(catalogOf(a!).menus.DEFAULT);
    expect(catalogOf(d!).items.SIZE).not.toBe(catalogOf(a!).items.SIZE);
    expect(catalogOf(d!).items.SIZE!.children).toEqual([]);
  });

  it("keep their own objects unless asked to share, so that one store can be changed alone", () => {
    const desired = resolveDesired([storeFile(1), storeFile(2)]);
    expect(catalogOf(desired.stores.s2!).items.BURGER).toEqual(catalogOf(desired.stores.s1!).items.BURGER);
    expect(catalogOf(desired.stores.s2!).items.BURGER).not.toBe(catalogOf(desired.stores.s1!).items.BURGER);
  });
});
