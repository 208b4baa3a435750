import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { Limits } from "../../src/platform/wire.js";

interface Schema {
  definitions: Record<string, { maxLength?: number; maxItems?: number; properties?: Record<string, Schema> }>;
}

it("the catalog schema enforces the platform's published limits", () => {
  const schema = JSON.parse(readFileSync("schemas/config/catalog.schema.json", "utf8")) as Schema;
  const d = schema.definitions;
  expect(d.Sku?.maxLength).toBe(Limits.skuLength);
  expect(d.Title?.maxLength).toBe(Limits.titleLength);
  expect(d.Description?.maxLength).toBe(Limits.descriptionLength);
  expect(d.Images?.maxItems).toBe(Limits.imagesPerItem);
  const props = (name: string, key: string): { maxItems?: number } | undefined =>
    (d[name]?.properties as Record<string, { maxItems?: number }> | undefined)?.[key];
  expect(props("CatalogItem", "modifier_groups")?.maxItems).toBe(Limits.childrenPerItem);
  expect(props("ModifierGroup", "options")?.maxItems).toBe(Limits.childrenPerItem);
  expect(props("Category", "items")?.maxItems).toBe(Limits.itemsPerCategory);
});
