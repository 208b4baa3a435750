/**
 * What a reviewer reads in a plan (src/render/view.ts, text.ts, markdown.ts): a new store's or many new
 * items' prices under their count line, counts that say what they count, and one note for a message
 * every store shares.
 */

import { describe, expect, it } from "vitest";
import { buildPlan } from "../../src/plan/plan.js";
import { renderMarkdown } from "../../src/render/markdown.js";
import { renderText } from "../../src/render/text.js";
import { catalogOf, current, desired, item, store } from "../helpers/builders.js";

/** A store selling `n` new items, priced 100, 100, 200, 200…, none of them on the platform yet. */
function newItems(key: string, n: number) {
  return store(key, key.length.toString(), (s) => {
    const c = catalogOf(s);
    for (let i = 0; i < n; i++) {
      const sku = `ITEM-${String(i).padStart(2, "0")}`;
      c.items[sku] = item(sku, 100 * (1 + Math.floor(i / 2)));
    }
  });
}

describe("a plan of many new items", () => {
  const after = newItems("s1", 24);
  const want = desired(after);
  want.currency = "COP";
  const plan = buildPlan(want, current(store("s1", "2")));
  const text = renderText(plan, { color: false });

  it("lists their prices under the count line, one price a line, cheapest first", () => {
    expect(text).toContain("+ 24 items: ITEM-00, ITEM-01, ITEM-02, ITEM-03, ITEM-04 and 19 more");
    expect(text).toContain("$100: ITEM-00, ITEM-01");
    expect(text).toContain("$1.200: ITEM-22, ITEM-23");
    expect(text.indexOf("$100:")).toBeLessThan(text.indexOf("$200:"));
    expect(renderMarkdown(plan)).toContain("$1.200: ITEM-22, ITEM-23");
  });
});

describe("notes every store shares", () => {
  it("are said once, with the stores they are about", () => {
    const stores = ["a", "b", "c"].map((k) => store(k, k === "a" ? "1" : k === "b" ? "2" : "3"));
    const plan = buildPlan(desired(...stores), current(...stores));
    plan.info = [
      ...["a", "b", "c"].map((s) => ({
        store: s,
        kind: "item",
        message: "upcoming item SEASONAL: offered from 12-01",
      })),
      { store: "b", kind: "availability", message: "item X was switched off by staff" },
    ];
    const text = renderText(plan, { color: false });
    expect(text.match(/upcoming item SEASONAL/g)).toHaveLength(1);
    expect(text).toContain("Note: upcoming item SEASONAL: offered from 12-01  in all 3 stores");
    expect(text).toContain("Note: store[b]: item X was switched off by staff");
    expect(renderMarkdown(plan).match(/upcoming item SEASONAL/g)).toHaveLength(1);
  });
});
