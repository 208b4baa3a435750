/**
 * `carte preview` on the example chain against the embedded emulator: after an apply, a price change, a
 * new item, an item switched off until a time and a hostile title show on the store pages with their
 * marks, the index counts each store's changes, a saved plan previews the same, and a one-store preview stays small.
 */

import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { storeFileName } from "../../src/render/menu-pages.js";
import { carte, copyExample, edit } from "../helpers/project.js";

const HOSTILE = "<img src=x onerror=alert(1)>";

/** The `<li>` of a page whose `data-sku` is `sku`, up to its end (its nested lists included only in part). */
function entry(html: string, sku: string): string {
  const start = html.lastIndexOf("<li", html.indexOf(`data-sku="${sku}"`));
  expect(start, `${sku} on the page`).toBeGreaterThanOrEqual(0);
  return html.slice(start, html.indexOf("</li>", start));
}

describe("carte preview", () => {
  it("marks the plan's changes on each store's menu and lists the stores with their counts", async () => {
    const dir = copyExample();
    const config = path.join(dir, "carte.yaml");
    const applied = await carte(["apply", "--auto-approve", "-q", "-c", config]);
    expect(applied.code, applied.err).toBe(0);

    const catalog = path.join(dir, "catalogs", "burgers.yaml");
    // A price change in every store, a new drink in every store, a hostile title.
    edit(catalog, "price: 32900", "price: 33900");
    edit(
      catalog,
      "  - sku: DRINK-COLA\n",
      "  - sku: DRINK-HORCHATA\n    title: Horchata\n    price: 7900\n  - sku: DRINK-COLA\n",
    );
    edit(catalog, /(- sku: DRINKS\n {4}title: Bebidas\n {4}items:\n {6}\[\n)/, "$1        DRINK-HORCHATA,\n");
    edit(catalog, "title: BBQ Tocineta", `title: "${HOSTILE}"`);
    // One store switches an item off until a time.
    const store = path.join(dir, "stores", "bog-centro.yaml");
    edit(
      store,
      "unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE]",
      'unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE, { sku: BURGER-CHEESE, until: "2030-12-24 18:00" }]',
    );
    edit(store, /^availability:$/m, "timezone: America/Bogota\navailability:");

    // The default folder: .carte/preview beside carte.yaml.
    const out = path.join(dir, ".carte", "preview");
    const run = await carte(["preview", "-c", config]);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain(path.join(".carte", "preview", "index.html"));

    const index = readFileSync(path.join(out, "index.html"), "utf8");
    expect(index).toContain('<html lang="en">');
    expect(index).toContain('<label for="filter">');
    for (const key of ["bog-centro", "bog-chapinero", "med-poblado"]) {
      expect(index).toMatch(new RegExp(`<li data-store="${key}" data-changes="([1-9]\\d*)"`));
      expect(index).toContain(`href="stores/${storeFileName(key)}"`);
    }
    // bog-centro has one change more than the others: its item switched off.
    const count = (key: string) =>
      Number(new RegExp(`data-store="${key}" data-changes="(\\d+)"`).exec(index)![1]);
    expect(count("bog-centro")).toBe(count("bog-chapinero") + 1);

    const page = readFileSync(path.join(out, "stores", "bog-centro.html"), "utf8");
    // The price: old and new, marked changed, in the currency's format.
    const double = entry(page, "BURGER-DOUBLE");
    expect(double).toContain('data-change="changed"');
    expect(double).toContain('data-field="price" data-before="$32.900" data-after="$33.900"');
    expect(double).toContain("<del>$32.900</del> → <ins>$33.900</ins>");
    // The new item, marked added.
    const horchata = entry(page, "DRINK-HORCHATA");
    expect(horchata).toMatch(/class="entry item added" data-change="added"/);
    expect(horchata).toContain("$7.900");
    // The item switched off, greyed, with its date and time on the store's clock: no "(tomorrow)" that
    // goes stale by the day the pull request is reviewed, no instant repeated.
    const cheese = entry(page, "BURGER-CHEESE");
    expect(cheese).toMatch(/class="entry item changed off" data-change="changed"/);
    const until = "Tue 24 Dec 2030, 18:00";
    expect(cheese).toContain(`data-until="${until}"`);
    expect(cheese).toContain(`<span class="badge">Off until ${until}</span>`);
    // An unchanged item has no mark; the toggle has its label.
    expect(entry(page, "BURGER-CARBON")).not.toContain("data-change");
    expect(page).toContain('<label for="changed-only">');
    // The hostile title is text: escaped, and no such element on the page.
    expect(page).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(page).not.toContain(HOSTILE);
    expect(page).not.toMatch(/<img[^>]*onerror/);
    // Nothing fetched from elsewhere: relative image paths become placeholders.
    expect(page).not.toMatch(/<(link|script)[^>]+(src|href)=/);
    expect(page).toContain('class="placeholder"');

    // A saved plan gives the same pages; one changed after it was saved is previewed with a warning.
    const saved = path.join(dir, "plan.json");
    expect((await carte(["plan", "-q", "-c", config, "--out", saved])).code).toBe(0);
    const fromFile = await carte([
      "preview",
      "-c",
      config,
      "--plan",
      saved,
      "--out",
      path.join(dir, "saved"),
    ]);
    expect(fromFile.code, fromFile.err).toBe(0);
    expect(fromFile.err).toBe("");
    expect(readFileSync(path.join(dir, "saved", "stores", "bog-centro.html"), "utf8")).toBe(page);
    edit(saved, '"name":"Bogotá Centro"', '"name":"Bogotá Centro (edited)"');
    const tampered = await carte([
      "preview",
      "-c",
      config,
      "--plan",
      saved,
      "--out",
      path.join(dir, "saved"),
    ]);
    expect(tampered.code, tampered.err).toBe(0);
    expect(tampered.err).toContain("does not match its digest");

    // One store's preview (its price change and new item) in the same folder: the other stores' pages
    // of the first preview are gone; two files, well under a megabyte.
    // `--open` where no browser opener is found: the path is printed, exit 0.
    const opened = await carte(["preview", "-q", "-c", config, "--store", "med-poblado", "--open"], {
      PATH: path.join(dir, "no-such-folder"),
    });
    expect(opened.code, opened.err).toBe(0);
    expect(opened.out).toContain(path.join(".carte", "preview", "index.html"));
    const one = out;
    const files = ["index.html", ...readdirSync(path.join(one, "stores")).map((f) => path.join("stores", f))];
    expect(files).toEqual(["index.html", path.join("stores", "med-poblado.html")]);
    const bytes = files.reduce((n, f) => n + statSync(path.join(one, f)).size, 0);
    console.log(`preview of a one-store change: ${bytes} bytes`);
    expect(bytes).toBeLessThan(1024 * 1024);
  });
});
