/**
 * The plan for people and where a run goes, through the real commands on the example chain: the plan names where it
 * goes, a whole new menu is counted rather than listed, and a chain-wide price change is shown once.
 */

import path from "node:path";
import { describe, expect, it } from "vitest";
import { carte, copyExample, edit } from "../helpers/project.js";

describe("the plan for people, on the example chain", () => {
  it("names the target, counts a new store's menu, and shows a chain-wide price change once", async () => {
    const dir = copyExample();
    const config = path.join(dir, "carte.yaml");
    const state = path.join(dir, ".carte");

    const first = await carte(["plan", "-c", config]);
    expect(first.code, first.err).toBe(0);
    const lines = first.out.split("\n");
    expect(lines[0]).toBe(`Target: embedded emulator (state in ${state.split(path.sep).join("/")})`);
    // Three stores' menus from nothing: counts per kind, with each new item's price under its count
    // (a price a line), not ~1,300 lines; no platform field names.
    expect(lines.length).toBeLessThan(170);
    expect(first.out).toMatch(/^ {6}\$24\.900: BURGER-CLASSIC$/m);
    expect(first.out).toMatch(/^ {2}\+ 9 modifier groups: COMBO-DRINK, .* and 4 more {2}in all 3 stores$/m);
    // The API calls counted, not listed: people read changes.
    expect(first.out).toMatch(/^Plan: .*; \d+ API calls \(--show-calls lists them\)\.$/m);
    expect(first.out).not.toContain("API calls, in order:");
    expect(first.out).not.toMatch(/children|modifiersType|priceInParent|\{ start:/);

    const applied = await carte(["apply", "--auto-approve", "-c", config]);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out.split("\n")[0]).toBe(lines[0]);
    expect(applied.out).toContain(
      `The embedded emulator (state in ${state.split(path.sep).join("/")}) shows every change.\n`,
    );

    edit(path.join(dir, "catalogs", "burgers.yaml"), "price: 32900", "price: 33900");
    // `--show-calls` lists them in order.
    const again = await carte(["plan", "--show-calls", "-c", config]);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain(
      [
        "the same in several stores",
        "  ~ item BURGER-DOUBLE (Hamburguesa Doble)  in all 3 stores",
        "      price: $32.900 → $33.900",
        "",
        "API calls, in order:",
        "   1. POST   /restaurants/menu/v1/stores/900101/items  bog-centro: 1 change",
      ].join("\n"),
    );
    expect(again.out).not.toContain("store[");
  });
});
