/**
 * How the emulator writes its answers and records requests, at the speed an apply of a big chain
 * needs, without changing a byte of what a client sees: rendered catalog reads are kept in pieces and
 * encoded into reused buffers, request bodies decoded chunk by chunk, and the nesting of a recorded body
 * counted on its text.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { startEmulator } from "../../src/emulator/index.js";
import { jsonParts } from "../../src/emulator/json-parts.js";
import { call, item, login, MENU, SEED, STORE, STORE2 } from "./helpers.js";

describe("jsonParts", () => {
  const cases: [string, unknown][] = [
    [
      "a store menu",
      {
        storeId: 1,
        menus: [{ id: 1, categories: [] }],
        categories: [],
        items: [
          { sku: "a", title: "Ñandú “quoted” \\ [not an array] 😀" },
          { sku: "b", gone: undefined },
        ],
      },
    ],
    ["an object whose first member JSON leaves out", { a: undefined, b: [1, undefined, () => 1], c: 2 }],
    ["an object with no member written", { a: undefined }],
    ["an empty object", {}],
    ["a list", [{ id: 1 }, null, "x", [2, [3, [4, [5]]]]]],
    [
      "a webhook list",
      [
        { event: "NEW_ORDER", stores: [{ store_id: "1", url: 'https://x/a?b="c"', state: "ENABLE" }] },
        { event: "MENU_REJECTED", stores: [], gone: undefined, f: () => 1 },
      ],
    ],
    ["lists of values JSON leaves out", [undefined, () => 1, Symbol("s"), [undefined, [undefined]]]],
    ["an empty list", []],
    ["a value with toJSON", { when: new Date(0), list: [new Date(1)] }],
    ["a string", "text"],
    ["null", null],
  ];
  for (const [name, value] of cases) {
    it(`writes ${name} as JSON.stringify does`, () => {
      expect(jsonParts(value).text()).toBe(JSON.stringify(value));
    });
  }
});

describe("answers and records", () => {
  let emu: RunningEmulator;
  let token: string;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, seed: SEED, applyDelayMs: 0 });
    token = await login(emu);
  });
  afterAll(async () => {
    await emu.close();
  });

  it("serves rendered store menus of different sizes read at once, each whole and as rendered", async () => {
    // Two stores with menus of different sizes (long enough to span many chunks), non-ASCII text in them.
    const many = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) =>
        item(`${tag}-${i}`, { title_info: { title: `Ração ${i} ✓ ${"x".repeat(300)}` } }),
      );
    for (const [store, n] of [
      [STORE, 400],
      [STORE2, 90],
    ] as const) {
      const r = await call(emu, "POST", `${MENU(store)}/items`, { token, body: many(n, `s${store}`) });
      expect(r.status).toBe(200);
    }
    await emu.idle();
    const alone = await Promise.all(
      [STORE, STORE2].map((s) =>
        fetch(`${emu.url}${MENU(s)}/store-menu`, { headers: { "x-authorization": `Bearer ${token}` } }).then(
          (r) => r.text(),
        ),
      ),
    );
    const items = (text: string) => (JSON.parse(text) as { items: { sku: string }[] }).items;
    expect(items(alone[0]!)).toHaveLength(400);
    expect(items(alone[1]!)).toHaveLength(90);
    // Many reads of both stores at once: every answer is the same text, its length as announced.
    const texts = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const res = await fetch(`${emu.url}${MENU(i % 2 === 0 ? STORE : STORE2)}/store-menu`, {
          headers: { "x-authorization": `Bearer ${token}` },
        });
        const bytes = Buffer.from(await res.arrayBuffer());
        expect(Number(res.headers.get("content-length"))).toBe(bytes.length);
        return bytes.toString("utf8");
      }),
    );
    texts.forEach((t, i) => expect(t).toBe(alone[i % 2]));
  });

  it("records a body nested 64 levels deep as sent, one nested 65 levels cut, brackets in strings not counted", async () => {
    emu.clearRequests();
    const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
    const texts = [nested(64), nested(65), JSON.stringify({ note: `"\\[${"[{".repeat(100)}` })];
    for (const raw of texts) await call(emu, "POST", `${MENU()}/items`, { token, raw });
    const recorded = ((await call(emu, "GET", "/__emulator/requests")).body as { body: unknown }[])
      .map((r) => r.body)
      .slice(-3);
    const depth = (v: unknown) => {
      let d = 0;
      while (Array.isArray(v) && v.length > 0) {
        v = v[0];
        d++;
      }
      return { d, v };
    };
    expect(recorded[0]).toEqual(JSON.parse(texts[0]!));
    expect(depth(recorded[1])).toEqual({ d: 64, v: "[nested deeper than 64 levels: not recorded]" });
    expect(recorded[2]).toEqual(JSON.parse(texts[2]!));
  });
});
