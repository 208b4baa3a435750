import { relative, resolve } from "node:path";
import { expect, it } from "vitest";
import { loadProject } from "../../src/config/index.js";
import { ConfigError } from "../../src/errors.js";

it("reports the four problems of test/fixtures/bad-config at once, located", async () => {
  const catalog = relative(process.cwd(), resolve("test/fixtures/bad-config/catalogs/burgers.yaml"));
  const err = await loadProject("test/fixtures/bad-config/carte.yaml").catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ConfigError);
  const problems = (err as ConfigError).problems;
  expect(problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.message}`)).toEqual([
    `${catalog}:5:12: price must be a number, got "abc" (or an amount per currency, such as {COP: 24900, BRL: 29.90})`,
    `${catalog}:9:5: unknown key "colour" in items[1] (allowed: sku, title, description, translations, price, images, modifier_groups, schedules, available, option_prices)`,
    `${catalog}:10:10: duplicate SKU "BURGER-CLASSIC": already used by an item at ${catalog}:3:10; SKUs must be unique in a catalog`,
    `${catalog}:16:44: unknown item "BURGER-BACON" in category BURGERS: add it under items:, or remove it from the category`,
  ]);
  expect(problems.map((p) => p.pointer)).toEqual([
    "/items/0/price",
    "/items/1/colour",
    "/items/2/sku",
    "/categories/0/items/2",
  ]);
  expect((err as ConfigError).message).toMatch(/^4 configuration problems:\n/);
});
