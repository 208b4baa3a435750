/**
 * The folder of a preview (`carte preview --out DIR`, the Action's artifact) is the user's: a preview
 * removes only the pages an earlier preview wrote there (the list it keeps in the folder), never a file
 * it did not write, whatever that list is made to say.
 */

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { StoreState } from "../../src/model.js";
import { buildPlan } from "../../src/plan/plan.js";
import { PREVIEW_LIST, writePreview } from "../../src/preview-site.js";
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
const preview = (out: string, select: "all" | "changed") =>
  writePreview({ plan, project: { desired: want }, out, root: out, select });

describe("a preview's folder", () => {
  it("keeps the .html files in stores/ that no preview wrote, and removes an earlier preview's page of a store not shown now", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "carte-preview-folder-"));
    mkdirSync(path.join(out, "stores"));
    // The user's own pages, one of them named as a store's page would be.
    writeFileSync(path.join(out, "stores", "notes.html"), "my notes");
    writeFileSync(path.join(out, "stores", "s9.html"), "a page of mine");

    await preview(out, "all");
    expect(readdirSync(path.join(out, "stores")).sort()).toEqual([
      "notes.html",
      "s1.html",
      "s2.html",
      "s3.html",
      "s9.html",
    ]);
    await preview(out, "changed");
    // s3's page was this folder's earlier preview's: it goes. The user's files stay, unchanged.
    expect(readdirSync(path.join(out, "stores")).sort()).toEqual([
      "notes.html",
      "s1.html",
      "s2.html",
      "s9.html",
    ]);
    expect(readFileSync(path.join(out, "stores", "notes.html"), "utf8")).toBe("my notes");
    expect(readFileSync(path.join(out, "stores", "s9.html"), "utf8")).toBe("a page of mine");
  });

  it("removes nothing a forged or broken list names outside the store pages, and never fails on it", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "carte-preview-folder-"));
    mkdirSync(path.join(out, "stores"));
    mkdirSync(path.join(out, "keep"));
    const outside = path.join(out, "keep", "x.html");
    writeFileSync(outside, "keep me");
    writeFileSync(path.join(out, "mine.html"), "keep me too");
    writeFileSync(path.join(out, "stores", "UPPER.html"), "not a page name carte writes");
    const list = path.join(out, PREVIEW_LIST);
    for (const forged of [
      JSON.stringify({ pages: ["../keep/x.html", "../mine.html", "/etc/hosts", outside, "UPPER.html", 7] }),
      "not json at all",
      JSON.stringify({ pages: "s1.html" }),
      JSON.stringify("x".repeat(10)),
    ]) {
      writeFileSync(list, forged);
      await preview(out, "changed");
      expect(readFileSync(outside, "utf8")).toBe("keep me");
      expect(readFileSync(path.join(out, "mine.html"), "utf8")).toBe("keep me too");
      expect(existsSync(path.join(out, "stores", "UPPER.html"))).toBe(true);
      expect(existsSync("/etc/hosts")).toBe(true);
    }
  });
});
