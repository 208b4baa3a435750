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
import { previewPlan, writePreview } from "../../src/preview-site.js";
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
