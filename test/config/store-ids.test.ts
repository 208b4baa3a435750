/**
 * The identity of a store file read from its `store:` block alone (src/config/store-ids.ts), as a
 * change-scoped plan reads the store files that are byte for byte the base's: the same ids as a full
 * parse, at the same places, and nothing read this way when the block is not written plainly.
 */

import { describe, expect, it } from "vitest";
import { storeBlock } from "../../src/config/store-ids.js";
import { DEFAULT_PARSE_LIMITS, locate, parseYaml } from "../../src/source/yaml.js";

const read = (text: string) => storeBlock("stores/x.yaml", text, DEFAULT_PARSE_LIMITS);

describe("storeBlock", () => {
  it("gives the store block's value, located as in the whole file", () => {
    const text = [
      "# Bogotá",
      "catalog: burgers",
      "store:",
      "  # the platform's id",
      "  id: 900101",
      "  integration_id: 'bog-centro'",
      "  name: Bogotá Centro",
      "group: bogota",
      "overrides:",
      "  prices: { A: 1 }",
    ].join("\n");
    const block = read(text)!;
    const whole = parseYaml("stores/x.yaml", text).parsed;
    expect(block.data).toEqual({ store: { id: 900101, integration_id: "bog-centro" } });
    expect(whole.data).toMatchObject(block.data as object);
    for (const pointer of ["/store/id", "/store/integration_id"])
      expect(locate(block, pointer)).toEqual(locate(whole, pointer));
    expect(locate(block, "/store/id")).toEqual({ line: 5, col: 7 });
    // Read without the parser: the block is parsed only when a place in it is asked for.
    expect(Object.getOwnPropertyDescriptor(block, "doc")?.get).toBeTypeOf("function");
    // Windows line ends read alike.
    expect(read(text.replaceAll("\n", "\r\n"))?.data).toEqual(block.data);
  });

  it.each([
    ["quoted ids", "store:\n  id: '900101'\n  integration_id: \"a b\" # a comment\n"],
    ["a value over several lines", "store:\n  id: 5\n  integration_id:\n    abc\n  name: x\n"],
    ["a word YAML reads as a boolean", "store:\n  id: 5\n  integration_id: true\n"],
    ["a number YAML reads otherwise", "store:\n  id: 0x1F\n  integration_id: a\n"],
    ["a hash without a space before it", "store:\n  id: 5\n  integration_id: a#b\n"],
    ["an anchor", "store:\n  id: &x 5\n  integration_id: a\n"],
    ["other keys nested deeper", "store:\n  name: |\n    id: 7\n  id: 5\n  integration_id: a\n"],
  ])("reads the ids of %s as the YAML parser does", (_, text) => {
    const whole = parseYaml("stores/x.yaml", text).parsed;
    const store = (whole.data as { store: Record<string, unknown> }).store;
    const block = read(text);
    expect(block?.data).toMatchObject({ store: { id: store.id, integration_id: store.integration_id } });
    for (const pointer of ["/store/id", "/store/integration_id"])
      expect(locate(block!, pointer)).toEqual(locate(whole, pointer));
  });

  it.each([
    ["a flow mapping", "store: { id: 1, integration_id: a }\ncatalog: c\n"],
    ["an alias into the rest of the file", "ids: &i 1\nstore:\n  id: *i\n  integration_id: a\n"],
    ["the key written twice", "store:\n  id: 1\nstore:\n  id: 2\n"],
    ["no store key", "catalog: c\n"],
    ["a second document", "store:\n  id: 1\n---\nstore:\n  id: 2\n"],
    ["a syntax error in the block", "store:\n  id: [1\n  integration_id: a\n"],
    ["a store that is not a mapping", "store:\n  - 1\n"],
    ["lines broken by a carriage return alone", "store:\r  id: 1\r  integration_id: a\r"],
  ])("reads nothing of %s (the file is then read in full)", (_, text) => {
    expect(read(text)).toBeUndefined();
  });
});
