/**
 * A big answer parsed from its bytes in pieces (src/platform/json-pieces.ts) gives what `JSON.parse` of
 * its text gives, and declines what it does not handle, so that the text's parse says what is wrong.
 */

import { afterAll, describe, expect, it } from "vitest";
import { MalformedAnswerError } from "../../src/errors.js";
import { PlatformClient, type RawAnswer } from "../../src/platform/client.js";
import { parseJsonPieces, PIECES_MIN_BYTES } from "../../src/platform/json-pieces.js";

/** `text` as UTF-8 chunks of `size` bytes (characters of several bytes cut between chunks). */
function chunksOf(text: string, size = 16 * 1024 + 7): Uint8Array[] {
  const bytes = Buffer.from(text, "utf8");
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(Uint8Array.from(bytes.subarray(at, at + size)));
  return out;
}

/** A store menu of `n` items whose strings hold quotes, brackets, commas, escapes and non-ASCII text. */
function menu(n: number): Record<string, unknown> {
  const items = Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    sku: `ITEM-${i}`,
    title_info: { title: `Piña "colada" [${i}], {grande} – 12 € 🍕 \\ \u0001` },
    description_info: { description: i % 3 === 0 ? "" : `line one\nline two, ${"ß".repeat(i % 17)}` },
    price_info: { price: 1000 + i, overrides: i % 7 === 0 ? [{ override_type: "ITEM", price: 5 }] : [] },
    images_info: { images: [] },
    quantity_info: { min_permitted: null, max_permitted: null },
    nested: [[1, [2, { deep: [i, "]"] }]], {}],
  }));
  return {
    storeId: 900101,
    menus: [{ id: 1, menu_type: "DEFAULT", categories: [] }],
    items,
    categories: Array.from({ length: 40 }, (_, i) => ({ id: i, sku: `CAT-${i}`, items: [] })),
    empty: [],
    flag: true,
    text: "a string at the top, with [brackets] and {braces}",
  };
}

describe("parseJsonPieces", () => {
  it("gives the value JSON.parse gives of the text, member order included, whatever the chunks", () => {
    const value = menu(1000);
    const text = JSON.stringify(value);
    expect(Buffer.byteLength(text)).toBeGreaterThan(2 * PIECES_MIN_BYTES);
    for (const size of [4096 + 1, 16 * 1024 + 7, 1 << 22]) {
      const chunks = chunksOf(text, size);
      const parsed = parseJsonPieces(chunks);
      expect(parsed).toBeDefined();
      expect(parsed!.value).toEqual(JSON.parse(text));
      expect(Object.keys(parsed!.value as object)).toEqual(Object.keys(value));
      expect(Buffer.concat(chunks).toString("utf8")).toBe(text);
    }
    // Whitespace between the tokens (a pretty-printed answer) changes nothing.
    const pretty = JSON.stringify(value, null, 2);
    expect(parseJsonPieces(chunksOf(pretty))!.value).toEqual(value);
  });

  it("keeps a `__proto__` member as a member, as JSON.parse does", () => {
    const text = `{"__proto__":${JSON.stringify(menu(800).items)},"x":1}`;
    const parsed = parseJsonPieces(chunksOf(text))!.value as Record<string, unknown>;
    expect(Object.hasOwn(parsed, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(parsed).toEqual(JSON.parse(text));
  });

  it("declines a short body, a body that is not an object, and a top-level name given twice", () => {
    const items = JSON.stringify(menu(800).items);
    expect(parseJsonPieces(chunksOf(JSON.stringify(menu(5))))).toBeUndefined();
    expect(parseJsonPieces(chunksOf(items))).toBeUndefined();
    // JSON.parse keeps the last of the two; the pieces would keep the array.
    expect(parseJsonPieces(chunksOf(`{"items":${items},"items":[]}`))).toBeUndefined();
    expect(parseJsonPieces(chunksOf(`\uFEFF{"items":${items}}`))).toBeUndefined();
  });

  it("declines text that is not JSON, wherever the fault is", () => {
    const items = JSON.stringify(menu(800).items);
    const broken = [
      `{"items":${items}} and more`,
      `{"items":${items}`,
      `{"items":${items.replace('},{"id":400,', '}{"id":400,')}}`,
      `{"items":${items.replace('},{"id":400,', '},,{"id":400,')}}`,
      `{"items":${items.slice(0, -1)},}]}`,
      `{"items":${items.replace('"sku":"ITEM-500"', '"sku":"ITEM-500')}}`,
      `{"items":${items},"x":tru}`,
      `{"items":${items.replace("[", "{")}}`,
      // A trailing comma where a batch ends (the first comma past 32 KB of elements): an empty batch.
      `{"pad":"${"y".repeat(100_000)}","items":[${Array.from({ length: 33 }, () => `"${"x".repeat(1000)}"`).join(",")},]}`,
    ];
    for (const text of broken) {
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      expect(parseJsonPieces(chunksOf(text))).toBeUndefined();
      // One chunk is read where it is, and left as it came, for the text's parse.
      const [whole] = chunksOf(text, 1 << 22);
      const copy = Uint8Array.from(whole!);
      expect(parseJsonPieces([whole!])).toBeUndefined();
      expect(Buffer.compare(whole!, copy)).toBe(0);
    }
  });
});

describe("PlatformClient.decode of a big answer received in chunks", () => {
  const client = new PlatformClient({ baseUrl: "http://127.0.0.1:1", clientId: "c1", clientSecret: "s" });
  afterAll(() => client.close());
  const route = "GET /restaurants/menu/v1/stores/{storeId}/store-menu" as const;
  const answer = (text: string, chunks: boolean): RawAnswer => ({
    route,
    method: "GET",
    path: "/restaurants/menu/v1/stores/900101/store-menu",
    storeId: "900101",
    status: 200,
    contentType: "application/json",
    text,
    ...(chunks ? { chunks: chunksOf(text) } : {}),
  });
  /** A store menu of the platform's shape (spec §2.2 StoreMenu) with `n` items. */
  const storeMenu = (n: number) => ({
    storeId: 900101,
    menus: [],
    categories: [],
    items: Array.from({ length: n }, (_, i) => ({
      id: i + 1,
      sku: `ITEM-${i}`,
      storeId: 900101,
      last_updated: "2026-11-27T11:27:11.184Z",
      item_type: "ITEM",
      title_info: { title: `Piña "colada" [${i}] – 12 €`, overrides: [] },
      description_info: { description: "", overrides: [] },
      images_info: { images: [], overrides: [] },
      items_info: { items: [], overrides: [] },
      price_info: { price: 1000 + i, overrides: [] },
      quantity_info: { min_permitted: null, max_permitted: null, modifiers_type: null, overrides: [] },
      suspension_info: { suspend_until: null, suspend_reason: null, is_available: true, overrides: [] },
      schedules_info: { schedules: [], overrides: [] },
    })),
  });
  const valid = storeMenu(800);

  it("gives the answer's value, as from its text", () => {
    const text = JSON.stringify(valid);
    expect(Buffer.byteLength(text)).toBeGreaterThan(PIECES_MIN_BYTES);
    expect(client.decode(answer(text, true))).toEqual(valid);
    expect(client.decode(answer(text, false))).toEqual(valid);
  });

  it("refuses a big answer that is not JSON, or not of its schema's shape, with the message its text gives", () => {
    const text = JSON.stringify(valid).replace('"sku":"ITEM-500"', '"sku":"ITEM-500');
    const message = (a: RawAnswer) => {
      try {
        client.decode(a);
      } catch (err) {
        expect(err).toBeInstanceOf(MalformedAnswerError);
        return (err as Error).message;
      }
      throw new Error("the answer was accepted");
    };
    const said = message(answer(text, true));
    expect(said).toContain("is not JSON");
    expect(said).toBe(message(answer(text, false)));
    const wrong = JSON.stringify(valid).replace('"price":1500', '"price":"1500"');
    const refused = message(answer(wrong, true));
    expect(refused).toContain("/items/500/price_info/price: expected a number");
    expect(refused).toBe(message(answer(wrong, false)));
  });
});
