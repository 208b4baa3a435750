/**
 * The preview renderer (src/render/preview.ts) on a plan built from two small states: the marks of what
 * the plan adds, removes and changes, values from the files kept as text, images only from http(s)
 * URLs, and file names from store keys that stay one file in the stores folder.
 */

import { describe, expect, it } from "vitest";
import { buildPlan } from "../../src/plan/plan.js";
import { escapeHtmlText, httpUrl } from "../../src/render/html.js";
import { renderIndex, renderPreview, renderStorePage, storeFileName } from "../../src/render/preview.js";
import type { StoreState } from "../../src/model.js";
import { catalogOf, current, desired, group, item, store } from "../helpers/builders.js";

const HOSTILE = "<img src=x onerror=alert(1)>";

function menu(s: StoreState, items: string[]): void {
  const c = catalogOf(s);
  c.categories = { MAINS: { sku: "MAINS", title: "Mains", items } };
  c.menus = { REGULAR: { type: "REGULAR", categories: [{ sku: "MAINS", active: true }] } };
}

function states(key = "s1") {
  const before = store(key, "1", (s) => {
    const c = catalogOf(s);
    c.items = {
      SOUP: item("SOUP", 100, { title: "Soup", children: ["SIZE"] }),
      OLD: item("OLD", 50, { title: "Old dish" }),
      SIZE: group("SIZE", ["LARGE"], 1, 1),
      LARGE: item("LARGE", 0, { title: "Large", priceInParent: { SOUP: 20 } }),
    };
    menu(s, ["SOUP", "OLD"]);
  });
  const after = store(key, "1", (s) => {
    const c = catalogOf(s);
    c.items = {
      SOUP: item("SOUP", 120, { title: HOSTILE, children: ["SIZE"] }),
      NEW: item("NEW", 70, { title: 'New "dish"', images: ["https://cdn.example/new.jpg"] }),
      SIZE: group("SIZE", ["LARGE"], 1, 1),
      LARGE: item("LARGE", 0, {
        title: "Large",
        priceInParent: { SOUP: 25 },
        images: ["javascript:alert(1)"],
      }),
    };
    menu(s, ["SOUP", "NEW"]);
  });
  return { before, after };
}

describe("the preview of a store", () => {
  const { before, after } = states();
  const plan = buildPlan(desired(after), current(before));
  const html = renderStorePage(plan, plan.stores[0]!, after);

  it("marks the new item added, the deleted one removed (still shown) and the changed price old → new", () => {
    expect(html).toMatch(/<li class="entry item added" data-change="added" data-sku="NEW">/);
    expect(html).toMatch(/<li class="entry item removed" data-change="removed" data-sku="OLD">/);
    expect(html).toContain("Old dish");
    expect(html).toMatch(/<li class="entry item changed" data-change="changed" data-sku="SOUP">/);
    expect(html).toContain(
      'data-field="price" data-before="100" data-after="120"><del>100</del> → <ins>120</ins>',
    );
    // The option's price inside its parent, old and new.
    expect(html).toContain('data-field="price" data-before="20" data-after="25"');
    expect(html).toContain("choose 1 to 1");
  });

  it("has a labelled changed-only switch whose hiding wins over the items' own display", () => {
    expect(html).toContain('<input id="changed-only" type="checkbox"> <label for="changed-only">');
    expect(html).toContain("[hidden]{display:none!important}");
    expect(html).toMatch(/<script>[^<]*getElementById\("changed-only"\)/);
  });

  it("keeps every value from the files as text, in elements and attributes", () => {
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toMatch(/<img[^>]*onerror/);
    expect(html).toContain('alt="New &quot;dish&quot;"');
  });

  it("shows images from https URLs only, lazily, with the title as alt text", () => {
    expect(html).toContain(
      '<img src="https://cdn.example/new.jpg" alt="New &quot;dish&quot;" loading="lazy"',
    );
    expect(html).not.toContain('src="javascript:');
    expect(httpUrl("javascript:alert(1)")).toBeUndefined();
    expect(httpUrl("img/a.jpg")).toBeUndefined();
    expect(httpUrl("data:image/png;base64,AAAA")).toBeUndefined();
    expect(httpUrl("/a.jpg", "https://cdn.example")).toBe("https://cdn.example/a.jpg");
    expect(escapeHtmlText(`a&<>"'\u0000`)).toBe("a&amp;&lt;&gt;&quot;&#39;\ufffd");
  });
});

describe("a removed category and an item switched back on", () => {
  it("strikes the category through where it was and badges the item", () => {
    const base = (s: StoreState) => {
      const c = catalogOf(s);
      c.items = { TEA: item("TEA", 10, { title: "Tea" }) };
      c.categories = {
        HOT: { sku: "HOT", title: "Hot drinks", items: ["TEA"] },
        COLD: { sku: "COLD", title: "Cold drinks", items: [] },
      };
    };
    const before = store("s1", "1", (s) => {
      base(s);
      catalogOf(s).menus = {
        REGULAR: {
          type: "REGULAR",
          categories: [
            { sku: "HOT", active: true },
            { sku: "COLD", active: true },
          ],
        },
      };
      catalogOf(s).unavailable = ["TEA"];
    });
    const after = store("s1", "1", (s) => {
      base(s);
      delete catalogOf(s).categories.COLD;
      catalogOf(s).menus = { REGULAR: { type: "REGULAR", categories: [{ sku: "HOT", active: true }] } };
      catalogOf(s).available = ["TEA"];
    });
    const plan = buildPlan(desired(after), current(before));
    const html = renderStorePage(plan, plan.stores[0]!, after);
    expect(html).toMatch(/<section class="entry category removed" data-change="removed" id="category-COLD"/);
    expect(html).toContain("Cold drinks");
    expect(html).toMatch(/data-sku="TEA"[^>]*>.*Switched back on/s);
    expect(html).not.toMatch(/data-sku="TEA"[^>]*data-until/);
  });
});

describe("the index and the file names", () => {
  it("gives every store key its own file name inside the stores folder", () => {
    const keys = [
      "../etc/passwd",
      "a/b",
      "a_2fb",
      ".hidden",
      "C:\\x",
      "ñandú",
      "Bog",
      "bog",
      "con",
      "con_",
      "",
      "x".repeat(300),
      "x".repeat(301),
    ];
    const names = keys.map(storeFileName);
    expect(new Set(names).size).toBe(keys.length);
    for (const n of names) {
      expect(n).toMatch(/^[a-z0-9_-]+\.html$/);
      expect(n).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)\./);
      expect(n.length).toBeLessThan(120);
    }
    expect(storeFileName("bog-centro")).toBe("bog-centro.html");
    expect(storeFileName("a/B")).toBe("a_2f_42.html");
  });

  it("lists each store with its number of changes, its name and key as text", () => {
    const { before, after } = states(HOSTILE);
    after.store.name = `Shop ${HOSTILE}`;
    const plan = buildPlan(desired(after), current(before));
    const files = renderPreview({ plan, stores: new Map([[HOSTILE, after]]) });
    expect(files.map((f) => f.path)).toEqual(["index.html", `stores/${storeFileName(HOSTILE)}`]);
    const index = renderIndex(plan);
    expect(index).toContain(`data-changes="${plan.changes.length}"`);
    expect(index).toContain("Shop &lt;img src=x onerror=alert(1)&gt;");
    expect(index).not.toMatch(/<img/);
    expect(index).toContain('<label for="filter">');
  });
});
