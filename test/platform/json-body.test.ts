import { describe, expect, it } from "vitest";
import { jsonBodies } from "../../src/platform/json-body.js";

describe("request bodies written once for many calls (jsonBodies)", () => {
  it("gives exactly the UTF-8 bytes of JSON.stringify, for shared elements too", () => {
    const encode = jsonBodies();
    const shared = {
      sku: "ITEM-1",
      title_info: { default: "Café con leche ñ ☕" },
      price_info: { price: 1200 },
    };
    const stamped = { toJSON: (key: string) => `element ${key}` };
    const bodies: unknown[] = [
      [shared, { sku: "ITEM-2", gone: undefined }],
      [{ sku: "ITEM-0" }, shared, null, undefined, 3, "x", [1, 2]],
      [shared],
      [shared, stamped],
      [],
      { stores: [{ store_id: 1, is_enabled: true }] },
      "text",
    ];
    for (let round = 0; round < 2; round++) {
      for (const body of bodies) {
        expect(encode(body).bytes.toString("utf8")).toBe(JSON.stringify(body));
        expect(encode(body).bytes.equals(Buffer.from(JSON.stringify(body), "utf8"))).toBe(true);
      }
    }
  });

  it("fails as JSON.stringify does for a value JSON cannot hold", () => {
    const encode = jsonBodies();
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => encode([cycle])).toThrow(TypeError);
    expect(() => encode([{ n: 1n }])).toThrow(TypeError);
  });
});
