/**
 * The preview's pages load nothing from elsewhere but the items' photos from the hosts the platform
 * itself serves this chain's images from: each page's content security policy allows exactly the
 * origins of the images it draws, an image on any other host (one only the files name, a full URL in
 * the files, a host that would break the policy) is a placeholder, and the page's script and styles run
 * by their hashes, never under `'unsafe-inline'`.
 */

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ItemResource, StoreState } from "../../src/model.js";
import { buildPlan } from "../../src/plan/plan.js";
import { renderIndex, renderPreview, renderStorePage } from "../../src/render/menu-pages.js";
import { catalogOf, current, desired, item, store } from "../helpers/builders.js";

const PLATFORM = "https://images.platform.example";

/** A store whose menu lists `items`, in one category. */
function shop(key: string, items: Record<string, ItemResource>): StoreState {
  return store(key, "1", (s) => {
    const c = catalogOf(s);
    c.items = items;
    c.categories = { MAINS: { sku: "MAINS", title: "Mains", items: Object.keys(items) } };
    c.menus = { REGULAR: { type: "REGULAR", categories: [{ sku: "MAINS", active: true }] } };
  });
}

const img = (path: string, host?: string) => (host === undefined ? path : { path, host });

// What the platform holds: two items whose photos it serves from its image host, and one from a host
// that would end the policy's directive if it were written into it.
const before = shop("s1", {
  KEPT: item("KEPT", 10, { title: "Kept", images: [img("img/kept.jpg", PLATFORM)] }),
  MOVED: item("MOVED", 10, { title: "Moved", images: [img("img/moved.jpg", PLATFORM)] }),
  ODD: item("ODD", 10, { title: "Odd", images: [img("img/odd.jpg", "https://x.example;script-src")] }),
});
// What the files want: the same, one photo moved to a host of the files' own, and new items with
// photos on the platform's host, on a host only the files name, and at a full URL of their own.
const after = shop("s1", {
  KEPT: item("KEPT", 10, { title: "Kept", images: [img("img/kept.jpg", PLATFORM)] }),
  MOVED: item("MOVED", 10, {
    title: "Moved",
    images: [img("img/moved.jpg", "https://tracker.evil.example")],
  }),
  ODD: item("ODD", 10, { title: "Odd", images: [img("img/odd.jpg", "https://x.example;script-src")] }),
  NEWOK: item("NEWOK", 10, { title: "New ok", images: [img("img/new.jpg", PLATFORM)] }),
  NEWHOST: item("NEWHOST", 10, {
    title: "New host",
    images: [img("img/p.png", "https://tracker.evil.example")],
  }),
  NEWURL: item("NEWURL", 10, { title: "New URL", images: ["https://pixel.evil.example/p.png"] }),
});
const plan = buildPlan(desired(after), current(before));
const page = renderStorePage(plan, plan.stores[0]!, after);

/** The directives of the page's content security policy, by name. */
function policy(html: string): Map<string, string[]> {
  const m = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
  expect(m, "the page has a content security policy").not.toBeNull();
  // The policy is an attribute's value: its quotes are written as character references.
  const content = m![1]!.replaceAll("&#39;", "'").replaceAll("&quot;", '"').replaceAll("&amp;", "&");
  return new Map(
    content.split(";").map((d) => {
      const [name, ...sources] = d.trim().split(/\s+/);
      return [name!, sources];
    }),
  );
}

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** The `src` of the images a page draws, by the SKU of the item that shows each. */
function drawn(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/data-sku="([^"]+)"[^>]*><img src="([^"]+)"/g)) out[m[1]!] = m[2]!;
  return out;
}

describe("a preview page's images", () => {
  it("are drawn only from the hosts the platform serves the chain's images from, and the policy allows exactly those", () => {
    expect(drawn(page)).toEqual({
      KEPT: `${PLATFORM}/img/kept.jpg`,
      NEWOK: `${PLATFORM}/img/new.jpg`,
    });
    expect(policy(page).get("img-src")).toEqual([PLATFORM]);
    for (const host of ["tracker.evil.example", "pixel.evil.example", "x.example"])
      expect(page).not.toMatch(new RegExp(`<img[^>]*${host.replace(/\./g, "\\.")}`));
    // Not drawn, yet said: the placeholder names the image and why it is not shown.
    expect(page).toMatch(
      /data-sku="NEWHOST"><div class="placeholder"[^>]*title="Image img\/p\.png \(not shown/,
    );
  });

  it("allow no image at all where the page draws none", () => {
    const bare = shop("s2", { PLAIN: item("PLAIN", 1, { title: "Plain", images: ["img/plain.jpg"] }) });
    const p = buildPlan(desired(bare), current(bare));
    expect(policy(renderStorePage(p, p.stores[0]!, bare)).get("img-src")).toEqual(["'none'"]);
    expect(policy(renderIndex(plan)).get("img-src")).toEqual(["'none'"]);
  });

  it("the whole site trusts a host the platform serves in any of its stores", () => {
    // s2 is new: nothing of it is on the platform, but the host of its photo is s1's.
    const fresh = shop("s2", {
      SOUP: item("SOUP", 1, { title: "Soup", images: [img("img/soup.jpg", PLATFORM)] }),
    });
    const site = buildPlan(desired(after, fresh), current(before));
    const files = renderPreview({
      plan: site,
      stores: new Map([
        ["s1", after],
        ["s2", fresh],
      ]),
    });
    const s2 = files.find((f) => f.path === "stores/s2.html")!.html;
    expect(drawn(s2)).toEqual({ SOUP: `${PLATFORM}/img/soup.jpg` });
    expect(policy(s2).get("img-src")).toEqual([PLATFORM]);
  });
});

describe("a preview page's policy", () => {
  it("runs the page's one script and style by their hashes, never any inline script or style", () => {
    for (const html of [page, renderIndex(plan)]) {
      const csp = policy(html);
      const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
      const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
      expect(csp.get("script-src")).toEqual([sha256(script)]);
      expect(csp.get("style-src")).toEqual([sha256(style)]);
      expect(csp.get("default-src")).toEqual(["'none'"]);
      expect(html).not.toContain("unsafe-inline");
      expect([...csp.values()].flat()).not.toContain("http:");
      expect([...csp.values()].flat()).not.toContain("https:");
      expect(html.match(/<script/g)).toHaveLength(1);
      expect(html.match(/<style/g)).toHaveLength(1);
    }
  });
});
