/**
 * The library path that writes a preview (src/preview-site.ts), shared by `carte preview` and the Action:
 * which stores a `changed` preview keeps (a pull request's own changes, not drift), and the pages it
 * writes and removes in its folder.
 */

import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildPlan, createPlanner } from "../../src/plan/plan.js";
import { WRITE_CHARS, previewPlan, writeBatches, writePreview } from "../../src/preview-site.js";
import { renderStorePage, storePageParts } from "../../src/render/menu-pages.js";
import type { StoreState } from "../../src/model.js";
import { catalogOf, current, desired, item, store } from "../helpers/builders.js";

function withSoup(key: string, price: number): StoreState {
  return store(key, key.slice(1), (s) => {
    const c = catalogOf(s);
    c.items = { SOUP: item("SOUP", price, { title: "Soup" }) };
    c.categories = { MAINS: { sku: "MAINS", title: "Mains", items: ["SOUP"] } };
    c.menus = { REGULAR: { type: "REGULAR", categories: [{ sku: "MAINS", active: true }] } };
  });
}

// s1 and s2 change a price; s3 is as it is.
const want = desired(withSoup("s1", 120), withSoup("s2", 130), withSoup("s3", 100));
const plan = buildPlan(want, current(withSoup("s1", 100), withSoup("s2", 100), withSoup("s3", 100)));

describe("the stores of a preview", () => {
  it("changed: the stores with a change; all: every store of the plan", () => {
    expect(previewPlan(plan, "changed").stores.map((s) => s.key)).toEqual(["s1", "s2"]);
    expect(previewPlan(plan, "all").stores.map((s) => s.key)).toEqual(["s1", "s2", "s3"]);
  });

  it("changed with a pull request's own changes: a store with drift only is left out, with its changes", () => {
    const own = plan.changes.filter((c) => c.store === "s2").map((c) => c.address);
    const shown = previewPlan(plan, "changed", own);
    expect(shown.stores.map((s) => s.key)).toEqual(["s2"]);
    expect(new Set(shown.changes.map((c) => c.store))).toEqual(new Set(["s2"]));
  });

  it("narrows a plan made without checksums (as `carte preview` plans) without reading them", () => {
    const have = current(withSoup("s1", 100), withSoup("s2", 100), withSoup("s3", 100));
    const planner = createPlanner(want);
    for (const key of ["s1", "s2", "s3"]) planner.addStore(key, have.stores[key]);
    const bare = planner.finish(have.client);
    expect(() => bare.checksums).toThrow(/without its checksums/);
    expect(previewPlan(bare, "changed").stores.map((s) => s.key)).toEqual(["s1", "s2"]);
  });
});

describe("writing a preview", () => {
  it("writes the index and the selected stores' pages, and removes an earlier preview's page of a store not shown now", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "carte-preview-write-"));
    mkdirSync(path.join(out, "stores"));
    writeFileSync(path.join(out, "stores", "notes.txt"), "not a page");
    // An earlier preview of every store: s3's page is one of its own.
    await writePreview({ plan, project: { desired: want }, out, root: out, select: "all" });
    expect(existsSync(path.join(out, "stores", "s3.html"))).toBe(true);
    const written = await writePreview({
      plan,
      project: { desired: want },
      out,
      root: out,
      select: "changed",
    });
    expect(written.stores).toBe(2);
    expect(written.files.map((f) => path.relative(out, f).split(path.sep).join("/"))).toEqual([
      "index.html",
      "stores/s1.html",
      "stores/s2.html",
    ]);
    expect(readdirSync(path.join(out, "stores")).sort()).toEqual(["notes.txt", "s1.html", "s2.html"]);
    expect(existsSync(path.join(out, "stores", "s3.html"))).toBe(false);
    const bytes = written.files.reduce((n, f) => n + readFileSync(f).length, 0);
    expect(written.bytes).toBe(bytes);
    expect(readFileSync(written.index, "utf8")).toContain("2 of 2 stores change (2 changes in the plan).");
  });
});

describe("a preview of many stores", () => {
  it("goes through the plan's changes a bounded number of times, not once per store", async () => {
    // 300 stores, each with a price changed: a page that looked through every store's changes for its
    // own read 300 × 300 changes (a plan from empty of 10,000 stores: 10,000 × 6.3 million).
    const keys = Array.from({ length: 300 }, (_, i) => `s${i}`);
    const many = desired(...keys.map((k) => withSoup(k, 120)));
    const big = buildPlan(many, current(...keys.map((k) => withSoup(k, 100))));
    expect(big.changes.length).toBe(300);
    let reads = 0;
    const counted = new Proxy(big.changes, {
      get(target, prop, receiver) {
        if (typeof prop === "string" && /^\d+$/.test(prop)) reads++;
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    const out = mkdtempSync(path.join(tmpdir(), "carte-preview-many-"));
    const written = await writePreview({
      plan: { ...big, changes: counted },
      project: { desired: many },
      out,
      root: out,
      select: "all",
    });
    expect(written.stores).toBe(300);
    expect(reads).toBeLessThan(300 * 10);
  });
});

/** A store whose menu is one category of `n` items, with a price changed in the plan. */
function bigMenu(key: string, n: number, price: number): StoreState {
  return store(key, key.slice(1), (s) => {
    const c = catalogOf(s);
    const skus = Array.from({ length: n }, (_, i) => `ITEM-${String(i).padStart(4, "0")}`);
    c.items = Object.fromEntries(
      skus.map((sku, i) => [sku, item(sku, i === 0 ? price : 100, { title: `Dish ${sku} — served warm` })]),
    );
    c.categories = { MAINS: { sku: "MAINS", title: "Mains", items: skus } };
    c.menus = { REGULAR: { type: "REGULAR", categories: [{ sku: "MAINS", active: true }] } };
  });
}

describe("the page of a big menu", () => {
  const want = desired(bigMenu("s1", 600, 120));
  const big = buildPlan(want, current(bigMenu("s1", 600, 100)));
  const state = want.stores.s1!;

  it("is drawn as pieces of an item's size, never as one text of the whole menu", () => {
    const html = renderStorePage(big, big.stores[0]!, state);
    // The page of 600 items is hundreds of KB: as one text, each page of a preview of many stores was
    // a large object that outlived the garbage collector's young generation.
    expect(html.length).toBeGreaterThan(4 * WRITE_CHARS);
    const parts = storePageParts(big, big.stores[0]!, state);
    expect(parts.join("")).toBe(html);
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThan(8 * 1024);
  });

  it("is written in texts of at most WRITE_CHARS characters, the file the page as drawn", async () => {
    const parts = storePageParts(big, big.stores[0]!, state);
    const bytes = { n: 0 };
    const texts = [...writeBatches(parts, bytes)];
    expect(texts.length).toBeGreaterThan(4);
    expect(Math.max(...texts.map((x) => x.length))).toBeLessThanOrEqual(WRITE_CHARS);
    expect(texts.join("")).toBe(parts.join(""));
    expect(bytes.n).toBe(Buffer.byteLength(parts.join(""), "utf8"));
    const out = mkdtempSync(path.join(tmpdir(), "carte-preview-big-"));
    const written = await writePreview({ plan: big, project: { desired: want }, out, root: out });
    const page = readFileSync(path.join(out, "stores", "s1.html"), "utf8");
    expect(page).toBe(renderStorePage(big, big.stores[0]!, state));
    expect(written.bytes).toBe(written.files.reduce((n, f) => n + readFileSync(f).length, 0));
  });

  it("cuts a piece longer than WRITE_CHARS between characters, never inside a surrogate pair", () => {
    // A piece of WRITE_CHARS - 1 letters then emoji (two UTF-16 units each): a cut at WRITE_CHARS falls
    // inside the first emoji.
    const piece = "a".repeat(WRITE_CHARS - 1) + "🍕".repeat(WRITE_CHARS);
    const bytes = { n: 0 };
    const texts = [...writeBatches(["<p>", piece, "</p>"], bytes)];
    expect(texts.join("")).toBe(`<p>${piece}</p>`);
    for (const text of texts) {
      expect(text.length).toBeLessThanOrEqual(WRITE_CHARS);
      expect(Buffer.from(text, "utf8").toString("utf8")).toBe(text);
    }
    expect(bytes.n).toBe(Buffer.byteLength(`<p>${piece}</p>`, "utf8"));
  });
});
