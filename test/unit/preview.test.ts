/**
 * The preview renderer (src/render/menu-pages.ts) on a plan built from two small states: the marks of what
 * the plan adds, removes and changes, values from the files kept as text, images only from http(s)
 * URLs on a host the platform serves the store's images from, and file names from store keys that stay
 * one file in the stores folder.
 */

import { describe, expect, it } from "vitest";
import { buildPlan } from "../../src/plan/plan.js";
import { escapeHtmlText, httpUrl } from "../../src/show/html.js";
import { renderIndex, renderPreview, renderStorePage, storeFileName } from "../../src/render/menu-pages.js";
import type { StoreState } from "../../src/model.js";
import { catalogOf, current, desired, group, item, store } from "../helpers/builders.js";
import { itemsState } from "../../src/kinds/catalog.js";

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
      // The platform serves this store's photos from cdn.example: the preview may load images there.
      OLD: item("OLD", 50, { title: "Old dish", images: ["https://cdn.example/old.jpg"] }),
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
    // The option's price inside its parent, old and new, shown and marked with the parent.
    const soup = html.slice(html.indexOf('data-sku="SOUP"'), html.indexOf('data-sku="NEW"'));
    expect(soup).toMatch(
      /Inside this item:.*<li class="entry inside changed" data-change="changed" data-option="LARGE">Large <span class="price changed" data-field="price" data-before="20" data-after="25">/,
    );
    expect(soup).toContain('<a href="#group-SIZE">size</a> <span class="meta">choose 1 to 1</span>');
    // In the modifier groups, the option at its own price (marked changed for its new image).
    expect(html).toMatch(
      /<section class="entry group" id="group-SIZE" data-sku="SIZE"><h3>size <span class="meta">choose 1 to 1<\/span><\/h3>/,
    );
    expect(html).toContain('data-sku="LARGE"><span>Large</span> <span class="price">0</span>');
  });

  it("has a labelled changed-only switch whose hiding wins over the items' own display", () => {
    // A page that draws a change opens on it.
    expect(html).toContain('<input id="changed-only" type="checkbox" checked> <label for="changed-only">');
    expect(html).toContain("[hidden]{display:none!important}");
    expect(html).toMatch(/<script>[^<]*getElementById\("changed-only"\)/);
  });

  it("keeps every value from the files as text, in elements and attributes", () => {
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toMatch(/<img[^>]*onerror/);
    expect(html).toContain('alt="New &quot;dish&quot;"');
  });

  it("shows images from https URLs on the platform's image host only, lazily, with the title as alt text", () => {
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
    expect(html).toMatch(
      /<section class="entry category removed" data-change="removed" id="category-REGULAR__COLD"/,
    );
    expect(html).toContain("Cold drinks");
    expect(html).toMatch(/data-sku="TEA"[^>]*>.*Switched back on/s);
    expect(html).not.toMatch(/data-sku="TEA"[^>]*data-until/);
  });
});

describe("modifier groups shared by items", () => {
  // Two pizzas share the crust group; each crust offers the toppings group, whose topping costs more
  // inside the thin crust; a topping offers the crust group again (a loop in the data).
  const base = (s: StoreState, cheese: number, thin: number, ham: number) => {
    const c = catalogOf(s);
    c.items = {
      PIZZA: item("PIZZA", 300, { title: "Pizza", children: ["CRUST"] }),
      CALZONE: item("CALZONE", 350, { title: "Calzone", children: ["CRUST"] }),
      CRUST: group("CRUST", ["THIN", "THICK"], 1, 1),
      THIN: item("THIN", 0, { title: "Thin", children: ["TOPPINGS"], priceInParent: { PIZZA: 5 } }),
      THICK: item("THICK", 0, { title: "Thick", children: ["TOPPINGS"] }),
      TOPPINGS: group("TOPPINGS", ["CHEESE", "HAM", "LOOP"], 0, 2),
      HAM: item("HAM", 4, { title: "Ham", priceInParent: { THICK: ham } }),
      CHEESE: item("CHEESE", cheese, { title: "Cheese", priceInParent: { THIN: thin } }),
      LOOP: item("LOOP", 1, { title: "Loop", children: ["CRUST"] }),
    };
    c.categories = { MAINS: { sku: "MAINS", title: "Mains", items: ["PIZZA", "CALZONE"] } };
    c.menus = {
      LUNCH: { type: "LUNCH", categories: [{ sku: "MAINS", active: true }] },
      DINNER: { type: "DINNER", categories: [{ sku: "MAINS", active: true }] },
    };
  };
  const before = store("s1", "1", (s) => base(s, 10, 15, 6));
  const after = store("s1", "1", (s) => {
    base(s, 12, 18, 7);
    // A new group on the calzone only.
    const c = catalogOf(s);
    c.items.SAUCE = group("SAUCE", ["CHEESE"], 0, 1);
    c.items.CALZONE!.children = ["CRUST", "SAUCE"];
  });
  const plan = buildPlan(desired(after), current(before));
  const html = renderStorePage(plan, plan.stores[0]!, after);
  const count = (re: RegExp) => [...html.matchAll(re)].length;

  it("draws each group once, in its own section, and the items and options link to it", () => {
    for (const g of ["CRUST", "TOPPINGS", "SAUCE"]) {
      expect(count(new RegExp(`<section class="entry group[^"]*"[^>]* id="group-${g}"`, "g")), g).toBe(1);
    }
    // Both pizzas in both menus link to the crust; both crusts and the loop's option link to their groups.
    expect(count(/href="#group-CRUST"/g)).toBe(5);
    expect(count(/href="#group-TOPPINGS"/g)).toBe(2);
    expect(count(/data-sku="CHEESE"/g)).toBe(2); // In the toppings and in the sauce, once each.
    expect(html.indexOf('id="modifier-groups"')).toBeGreaterThan(html.lastIndexOf('data-sku="CALZONE"'));
  });

  it("gives every element its own id, and every link a target on the page", () => {
    const ids = [...html.matchAll(/ id="([^"]*)"/g)].map((m) => m[1]!);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain("category-LUNCH__MAINS");
    expect(ids).toContain("category-DINNER__MAINS");
    const targets = [...html.matchAll(/ href="#([^"]*)"/g)].map((m) => m[1]!);
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect(ids, target).toContain(target);
  });

  it("marks a change where it happens: the option's own price in the groups, a price inside a parent with the parent, a new group on its item", () => {
    const cheese = html.slice(
      html.indexOf('<li class="entry option changed" data-change="changed" data-sku="CHEESE">'),
    );
    expect(cheese).toMatch(
      /^[^]*?data-field="price" data-before="10" data-after="12"><del>10<\/del> → <ins>12<\/ins>/,
    );
    // The topping's price inside the thin crust, with the thin crust in the crust group.
    const thin = html.slice(html.indexOf('data-sku="THIN"'), html.indexOf('data-sku="THICK"'));
    expect(thin).toContain("Inside this option:");
    expect(thin).toMatch(
      /<li class="entry inside changed" data-change="changed" data-option="CHEESE">Cheese <span class="price changed" data-field="price" data-before="15" data-after="18">/,
    );
    // The thin crust's price inside the pizza, unchanged, with the pizza only.
    const pizza = html.slice(
      html.indexOf('data-sku="PIZZA"'),
      html.indexOf("</li>\n", html.indexOf('data-sku="PIZZA"')),
    );
    expect(pizza).toContain(
      'Inside this item:</span> <ul class="links" aria-label="Option prices inside Pizza"><li class="entry inside" data-option="THIN">Thin <span class="price">5</span></li>',
    );
    expect(pizza).not.toContain("data-change");
    // Only the ham's price inside the thick crust changes: marked there, not in the toppings.
    expect(html).toContain(
      '<li class="entry option" data-sku="HAM"><span>Ham</span> <span class="price">4</span></li>',
    );
    expect(html).toMatch(
      /data-sku="THICK">.*<li class="entry inside changed" data-change="changed" data-option="HAM">Ham <span class="price changed" data-field="price" data-before="6" data-after="7">/,
    );
    // The calzone gains a group: marked on its list of groups; the crust link says its group changed.
    const calzone = html.slice(
      html.indexOf('data-sku="CALZONE"'),
      html.indexOf("</li></ul>", html.indexOf('data-sku="CALZONE"')),
    );
    expect(calzone).toMatch(
      /<li class="entry link added" data-change="added" data-group="SAUCE"><a href="#group-SAUCE">sauce<\/a> <span class="meta">choose 0 to 1<\/span> <span class="badge">New<\/span>/,
    );
    expect(html).toMatch(/<section class="entry group added" data-change="added" id="group-SAUCE"/);
    expect(pizza).not.toContain("Changed</span>");
    expect(thin).toMatch(/data-group="TOPPINGS">.*<span class="badge changed">Changed<\/span>/);
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

  it("counts the stores that change and lists them before the others", () => {
    const a = states("a-same");
    const b = states("b-changes");
    const plan = buildPlan(desired(a.after, b.after), current(a.after, b.before));
    const index = renderIndex(plan);
    expect(index).toContain('<p id="summary" data-changing="1">1 of 2 stores changes (');
    expect(index.indexOf('data-store="b-changes"')).toBeLessThan(index.indexOf('data-store="a-same"'));
  });
});

describe("what a page opens on, and changes in words", () => {
  it("opens with every item shown on a page that draws no change", () => {
    const { after } = states();
    const plan = buildPlan(desired(after), current(after));
    expect(renderStorePage(plan, plan.stores[0]!, after)).toContain(
      '<input id="changed-only" type="checkbox"> <label for="changed-only">',
    );
  });

  it("draws the menus that show an active category first, and says a changed category heading in words", () => {
    const { before, after } = states();
    for (const s of [before, after]) {
      const c = catalogOf(s);
      c.menus = {
        ...c.menus,
        CATERING: { type: "CATERING", categories: [{ sku: "MAINS", active: false }] },
      };
    }
    const plan = buildPlan(desired(after), current(before));
    const html = renderStorePage(plan, plan.stores[0]!, after);
    expect(html.indexOf('id="menu-REGULAR"')).toBeLessThan(html.indexOf('id="menu-CATERING"'));
    expect(html).toMatch(/<h3>Mains <span class="badge">Changed<\/span><\/h3>/);
  });

  it("marks a new item's link to a brand-new group New, and a description added (none) → …", () => {
    const { before, after } = states();
    catalogOf(after).items.NEW!.children = ["SAUCE"];
    catalogOf(after).items.SAUCE = group("SAUCE", ["LARGE"], 0, 1);
    catalogOf(after).items.SOUP!.description = "Hot";
    const plan = buildPlan(desired(after), current(before));
    const html = renderStorePage(plan, plan.stores[0]!, after);
    const link = html.slice(html.indexOf('data-group="SAUCE"'));
    expect(link.slice(0, link.indexOf("</li>"))).toContain('<span class="badge added">New</span>');
    expect(html).toContain('<del class="none">(none)</del> → <ins>Hot</ins>');
  });

  it("lists what is upcoming on a date (a seasonal item, a price from a date), kept by Show changed only", () => {
    const { before, after } = states();
    itemsState.get(after)!.offerWindows = [
      { what: "item", key: "SOUP", offered: false, from: "2030-12-01", until: "2031-01-06" },
    ];
    itemsState.get(after)!.upcomingPrices = { OLD: { price: 60, from: "2030-12-20" } };
    const plan = buildPlan(desired(after), current(before));
    const html = renderStorePage(plan, plan.stores[0]!, after);
    const upcoming = html.slice(
      html.indexOf('id="upcoming"'),
      html.indexOf("</section>", html.indexOf('id="upcoming"')),
    );
    expect(upcoming).toContain('data-change="upcoming"');
    expect(upcoming).toContain("<code>SOUP</code>: offered from 2030-12-01 until 2031-01-06");
    expect(upcoming).toContain('<code>OLD</code>: <span class="price">60</span> from 2030-12-20');
    // Before the menus: the first thing a reviewer reads.
    expect(html.indexOf('id="upcoming"')).toBeLessThan(html.indexOf('id="menu-REGULAR"'));
  });
});
