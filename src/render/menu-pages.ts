/**
 * `carte preview`: a store's menu as its customers would see it after the plan, with the plan's changes
 * marked, as a static, self-contained HTML site (docs/preview.md). Pure: from the plan and the desired
 * state to HTML strings; the CLI (src/cli/preview.ts) writes them.
 *
 * What a page shows: the desired state of the store (the files' menus, categories and items, in the
 * platform's order: a menu's `categories`, a category's `items`, an item's `children`), the plan's
 * `after` for what it creates or updates, and what it deletes from its `before`, struck through. Each
 * modifier group is drawn once, in the page's "Modifier groups" section, which items and options link
 * to: a group three levels deep drawn inside every item that offers it made pages of megabytes. The
 * prices an item or option gives the options of its groups (`priceInParent`) belong to it, and are
 * listed, and marked, with it. Every value from the files or the platform is escaped
 * (src/show/html.ts); no script, style or font is fetched (CSS and the few lines of script are
 * inline, each allowed by its hash in the page's content security policy, never `'unsafe-inline'`);
 * an item's image is drawn only from an origin the platform serves the chain's images from
 * ({@link platformImageHosts}), and the policy allows exactly the origins a page draws from.
 *
 * The kinds draw their own parts of a store's page (src/kinds/show.ts `KindPreview`: the menus with
 * their categories, items and modifier groups, an item's availability); this module makes the pages
 * around them, the index and the policy, and names no kind.
 *
 * Stable hooks for browser tests: `id="menu-TYPE"`, `id="category-TYPE__SKU"`, `id="group-SKU"`,
 * `class="entry menu|category|item|group|option"`, `data-sku`, `class="entry link"` and `data-group`
 * on a link to a group, `class="entry inside"` and `data-option` on a price inside a parent,
 * `data-change="added|removed|changed"` on a changed element, `data-field` (with
 * `data-before`/`data-after`) on a changed value, `class="off"` and `data-until` on a switched-off
 * item, `id="filter"`, `id="changed-only"`, `data-store` and `data-changes` on the index's entries.
 */

import { createHash } from "node:crypto";
import { kindNamed, kinds } from "../kinds/registry.js";
import type { KindChange } from "../kinds/change.js";
import type { PreviewPage } from "../kinds/show.js";
import type { ResourceKind } from "../kinds/resource-kind.js";
import type { ImageRef, StoreState } from "../model.js";
import { currencyOf } from "../money.js";
import type { Plan, PlanStore, ResourceChange } from "../plan/types.js";
import { attr, escapeHtmlText as t } from "../show/html.js";
import { imageOrigin } from "../show/page.js";

/** What a preview is made from. */
export interface PreviewInput {
  /** The plan: its stores are the site's, its changes are marked. */
  plan: Plan;
  /**
   * The desired state of the plan's stores (the files), for what the plan leaves as it is; a store
   * absent here is shown from the plan's changes alone.
   */
  stores: ReadonlyMap<string, StoreState>;
}

/** One file of the site: its path relative to the output folder (`/`-separated) and its HTML. */
export interface PreviewFile {
  path: string;
  html: string;
}

/** The longest file name part kept from a store key before a hash stands in for the rest. */
const MAX_NAME = 80;

/**
 * The file name (without folder) of a store's page: the key with every character other than lower-case
 * ASCII letters, digits and `-` written as `_` and its UTF-8 bytes in hex (`_2f` for `/`, `_41` for
 * `A`), so that two keys never share a file, not even on a file system that ignores case, and no key
 * names a path (`..`, `/`, `\`, a drive) or a hidden file; a name Windows reserves (`con`, `nul`,
 * `com1`…) gets a `_` after it; a long key is cut and ends with a hash of the whole key. Ends in `.html`.
 */
export function storeFileName(key: string): string {
  let name = "";
  for (const ch of key) {
    name += /^[a-z0-9-]$/.test(ch)
      ? ch
      : [...Buffer.from(ch, "utf8")].map((b) => `_${b.toString(16).padStart(2, "0")}`).join("");
  }
  if (name === "" || /^(con|prn|aux|nul|com\d|lpt\d)$/.test(name)) name += "_";
  if (name.length > MAX_NAME) {
    name = `${name.slice(0, MAX_NAME)}_${createHash("sha256").update(key).digest("hex").slice(0, 16)}`;
  }
  return `${name}.html`;
}

// `[hidden]` first: the filter and the "changed only" switch hide elements whose `display` is set below.
const CSS = `
[hidden]{display:none!important}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#1a1a1a;background:#fff;line-height:1.4}
a{color:#0b57d0}
h1{font-size:1.6rem}h2{font-size:1.35rem;border-bottom:2px solid #ccc}h3{font-size:1.15rem}h4{font-size:1rem;margin:.3rem 0}
ul{list-style:none;padding-left:0}
.entry{margin:.4rem 0}
.item{display:flex;gap:.75rem;border:1px solid #ccc;border-radius:6px;padding:.5rem}
.item>.body{flex:1}
.item img,.placeholder{width:72px;height:72px;object-fit:cover;border-radius:4px;flex:none}
.placeholder{background:#e8e8e8;color:#444;display:flex;align-items:center;justify-content:center;font-size:.7rem}
.group{margin:.6rem 0;padding:0 .5rem;border-left:3px solid #ccc}
.group:target{outline:2px solid #0b57d0;outline-offset:2px}
.option{display:flex;flex-wrap:wrap;justify-content:space-between;gap:0 .5rem}
.option>.nested{flex-basis:100%;margin-left:1rem}
.links{margin:0}.links li{display:inline-block;margin:.15rem 1rem .15rem 0}.prices>.links{display:inline}
.price{font-weight:600}
.desc,.meta{color:#444;font-size:.9rem}
.added{background:#e3f5e7;color:#0b3d1a;border-color:#1e7b34}
.removed{background:#fde8ea;color:#5c0011;text-decoration:line-through;border-color:#b3261e}
.changed{background:#fff3cd;color:#3d2e00;border-color:#8a6d00}
section.changed{background:none;color:inherit}section.changed>h2,section.changed>h3{background:#fff3cd;color:#3d2e00}
del{color:#5c0011}ins{color:#0b3d1a;text-decoration:none;font-weight:600}
.badge{display:inline-block;font-size:.75rem;font-weight:600;padding:0 .35rem;border-radius:3px;border:1px solid currentColor;text-decoration:none}
.off{background:#ececec;color:#4a4a4a}
.off img{filter:grayscale(1);opacity:.7}
.controls{display:flex;gap:1rem;align-items:center;margin:.5rem 0}
.stores li{padding:.3rem 0;border-bottom:1px solid #e0e0e0}
.count{color:#444}
`;

/** A CSP hash source of an inline script or style: `'sha256-…'` of its exact text (UTF-8). */
function hashSource(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

const STYLE_SOURCE = hashSource(CSS);

/**
 * A page as pieces, its body's as they are between its head and its end: its one style and one script
 * inline, each allowed by its hash alone, and images from `images` alone (the origins of the images the
 * page draws, {@link imageOrigin}; none: no image).
 */
function pageParts(
  title: string,
  body: readonly string[],
  script: string,
  images: ReadonlySet<string> = new Set(),
): string[] {
  const img = images.size === 0 ? "'none'" : [...images].sort().join(" ");
  const policy = `default-src 'none'; img-src ${img}; style-src ${STYLE_SOURCE}; script-src ${hashSource(script)}`;
  return [
    `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n` +
      `<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
      `<meta http-equiv="Content-Security-Policy"${attr("content", policy)}>\n` +
      `<title>${t(title)}</title>\n<style>${CSS}</style>\n</head>\n<body>\n`,
    ...body,
    `\n<script>${script}</script>\n</body>\n</html>\n`,
  ];
}

/** A page as one text ({@link pageParts}). */
function page(title: string, body: string, script: string, images?: ReadonlySet<string>): string {
  return pageParts(title, [body], script, images).join("");
}

const FILTER_SCRIPT = `
var box=document.getElementById("filter");
box.addEventListener("input",function(){var q=box.value.trim().toLowerCase();var shown=0;
document.querySelectorAll("li[data-store]").forEach(function(li){var on=q===""||li.getAttribute("data-search").indexOf(q)>=0;li.hidden=!on;if(on)shown++;});
document.getElementById("shown").textContent=String(shown);});
`;

// An entry stays shown when it is changed, holds a change, or sits in a new or removed part: a
// category changed only in its list of items keeps its changed items, an item whose price changed
// shows without its unchanged modifier groups.
// A photo from the platform's image host that does not load (gone, the host down) becomes the grey box
// a missing image is, never a broken-image icon.
const TOGGLE_SCRIPT = `
var box=document.getElementById("changed-only");
var keep='[data-change="added"],[data-change="removed"]';
function apply(){var only=box.checked;document.querySelectorAll(".entry").forEach(function(e){
e.hidden=only&&!e.hasAttribute("data-change")&&!e.closest(keep)&&!e.querySelector("[data-change]");});}
box.addEventListener("change",apply);apply();
function unloaded(img){var d=document.createElement("div");d.className="placeholder";d.setAttribute("role","img");
d.setAttribute("aria-label",img.alt+": image not loaded");d.setAttribute("title","Image not loaded from "+img.src);d.textContent="image";img.replaceWith(d);}
document.querySelectorAll(".item img").forEach(function(img){if(img.complete&&img.naturalWidth===0)unloaded(img);
else img.addEventListener("error",function(){unloaded(img);});});
`;

/** The number of changes of each store of the plan, by store key. */
function changeCounts(plan: Plan): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of plan.changes) counts.set(c.store, (counts.get(c.store) ?? 0) + 1);
  return counts;
}

/**
 * The index page: how many of the plan's stores change, then the stores that change (in the plan's
 * order), then the others, each with its number of changes and a link to its page.
 */
export function renderIndex(plan: Plan): string {
  const counts = changeCounts(plan);
  const changing = plan.stores.filter((s) => (counts.get(s.key) ?? 0) > 0);
  const unchanged = plan.stores.filter((s) => (counts.get(s.key) ?? 0) === 0);
  const items = [...changing, ...unchanged].map((s) => {
    const n = counts.get(s.key) ?? 0;
    return (
      `<li${attr("data-store", s.key)}${attr("data-changes", n)}${attr("data-search", `${s.name} ${s.key}`.toLowerCase())}>` +
      `<a${attr("href", `stores/${storeFileName(s.key)}`)}>${t(s.name)}</a> <code>${t(s.key)}</code> ` +
      `<span class="count">${n === 0 ? "no changes" : n === 1 ? "1 change" : `${n} changes`}</span></li>`
    );
  });
  const total = plan.changes.length;
  const body =
    `<header><h1>Menu preview</h1><p id="summary"${attr("data-changing", changing.length)}>` +
    `${changing.length} of ${plan.stores.length} ${plan.stores.length === 1 ? "store" : "stores"} ` +
    `${changing.length === 1 ? "changes" : "change"} (${total} ${total === 1 ? "change" : "changes"} in the plan)` +
    `${unchanged.length > 0 ? "; the stores without changes are listed after them" : ""}.</p></header>\n<main>\n` +
    `<div class="controls"><label for="filter">Filter stores by name or key</label> ` +
    `<input id="filter" type="search" autocomplete="off"> <span><span id="shown">${plan.stores.length}</span> shown</span></div>\n` +
    `<ul class="stores" id="stores">\n${items.join("\n")}\n</ul>\n</main>`;
  return page("Menu preview", body, FILTER_SCRIPT);
}

/** The kind of a change's resource (the items kind for a modifier group), `undefined` if none. */
function kindOf(c: ResourceChange): ResourceKind<unknown> | undefined {
  return kindNamed(c.kind);
}

/** Whether the plan compared `kind` in `store` with the platform (the kind was planned there). */
function compared(plan: Plan, store: string, kind: string): boolean {
  const t = plan.targeting;
  if (t === undefined) return true;
  if (t.targets.length > 0 || (t.kinds.length > 0 && !t.kinds.includes(kind as never))) return false;
  return (
    t.scope === undefined || t.scope.stores.some((s) => s.store === store && s.kinds.includes(kind as never))
  );
}

/**
 * The origins the platform serves the chain's images from, as the plan shows the platform: those of
 * the images of the resources of the kinds that draw images ({@link KindPreview.images}) as they are
 * before the plan (a change's `before`; a resource the plan compared and leaves as it is, in the files'
 * state of it, which is the platform's), in any store of the plan. A host that only the files name (a
 * new item's, an image moved elsewhere) is not one of them until it is applied.
 *
 * @param stores - the files' state of the plan's stores; a store absent gives only its changes'.
 */
export function platformImageHosts(
  plan: Plan,
  stores: ReadonlyMap<string, StoreState | undefined>,
): Set<string> {
  const hosts = new Set<string>();
  const add = (images: readonly ImageRef[] | undefined) => {
    for (const image of images ?? []) {
      const origin = imageOrigin(image);
      if (origin !== undefined) hosts.add(origin);
    }
  };
  // The keys the plan changes, by store and kind.
  const changed = new Map<string, Set<string>>();
  for (const c of plan.changes) {
    const kind = kindOf(c);
    const images = kind?.preview?.images;
    if (!kind || !images) continue;
    const at = `${c.store}\u0000${kind.name}`;
    let keys = changed.get(at);
    if (keys === undefined) changed.set(at, (keys = new Set()));
    keys.add(c.key);
    if (c.before !== null && typeof c.before === "object") add(images.of(c.before));
  }
  for (const store of plan.stores) {
    const state = stores.get(store.key);
    if (state === undefined) continue;
    for (const kind of kinds) {
      const images = kind.preview?.images;
      if (!images || !compared(plan, store.key, kind.name)) continue;
      const keys = changed.get(`${store.key}\u0000${kind.name}`);
      for (const [key, r] of Object.entries(images.all(state))) if (!keys?.has(key)) add(images.of(r));
    }
  }
  return hosts;
}

/**
 * A store's page as the kinds draw on it: its desired state, and the plan's changes of the kinds that
 * draw themselves, by kind and key.
 */
function pageOf(
  plan: Plan,
  state: StoreState | undefined,
  changes: ReadonlyMap<string, KindChange>,
  imageHosts: ReadonlySet<string>,
): PreviewPage {
  const byKind = new Map<string, KindChange[]>();
  for (const [at, c] of changes) {
    const kind = at.slice(0, at.indexOf("\u0000"));
    const list = byKind.get(kind);
    if (list) list.push(c);
    else byKind.set(kind, [c]);
  }
  return {
    state,
    currency: plan.currency ? currencyOf(plan.currency) : undefined,
    change: (kind, key) => changes.get(`${kind}\u0000${key}`),
    changes: (kind) => byKind.get(kind) ?? [],
    imageHosts,
    drawn: new Set(),
  };
}

/**
 * The page of one store: its menus after the plan, with the plan's changes marked.
 *
 * @param imageHosts - the origins the platform serves the chain's images from, for the whole site
 *   ({@link platformImageHosts} of every store of the preview); default: those this store shows.
 */
export function renderStorePage(
  plan: Plan,
  store: PlanStore,
  state: StoreState | undefined,
  imageHosts?: ReadonlySet<string>,
): string {
  return storePageParts(plan, store, state, imageHosts).join("");
}

/**
 * {@link renderStorePage} as pieces to write one after the other, none joined to another: each of
 * about one item's, one group's or the page head's size (src/kinds/show.ts `KindPreview.page`). A
 * preview of many stores writes them so (src/preview-site.ts): a page of a big menu is hundreds of
 * KB, and as one text each page left that much to the garbage collector's old generation whenever a
 * collection came while it was drawn.
 */
export function storePageParts(
  plan: Plan,
  store: PlanStore,
  state: StoreState | undefined,
  imageHosts: ReadonlySet<string> = platformImageHosts(plan, new Map([[store.key, state]])),
): string[] {
  // The changes the kinds draw, by kind and key; those of the other kinds are only counted.
  const changes = new Map<string, KindChange>();
  let others = 0;
  let count = 0;
  for (const c of plan.changes) {
    if (c.store !== store.key) continue;
    count++;
    const kind = kindOf(c);
    if (kind?.preview) changes.set(`${kind.name}\u0000${c.key}`, c);
    else others++;
  }
  const v = pageOf(plan, state, changes, imageHosts);
  const main = [`\n<main>\n`];
  let first = true;
  for (const kind of kinds) {
    if (!kind.preview?.page) continue;
    if (!first) main.push("\n");
    first = false;
    for (const piece of kind.preview.page(v)) main.push(piece);
  }
  main.push("</main>");
  const header =
    `<header><p><a href="../index.html">All stores</a></p>` +
    `<h1>${t(store.name)} <code>${t(store.key)}</code></h1>` +
    `<p><span id="change-count"${attr("data-changes", count)}>${count === 1 ? "1 change" : `${count} changes`}</span> in the plan` +
    (others > 0 ? ` (${others} outside the menu: hours, settings…; see carte plan)` : "") +
    `.</p>` +
    `<p class="meta">Marked: <span class="badge added">new</span> <span class="badge removed">removed</span> ` +
    `<span class="badge changed">changed</span> <span class="badge off">switched off</span></p>` +
    // A page that draws a change opens on it: "Show changed only" starts on there.
    `<div class="controls"><input id="changed-only" type="checkbox"${changes.size > 0 ? " checked" : ""}> <label for="changed-only">Show changed only</label></div></header>`;
  // The header and the policy after the parts: the policy names the image origins the parts drew.
  return pageParts(`${store.name} — menu preview`, [header, ...main], TOGGLE_SCRIPT, v.drawn);
}

/** The whole site: `index.html` and `stores/<file>.html` per store of the plan ({@link storeFileName}). */
export function renderPreview(input: PreviewInput): PreviewFile[] {
  const files: PreviewFile[] = [{ path: "index.html", html: renderIndex(input.plan) }];
  const hosts = platformImageHosts(input.plan, input.stores);
  for (const store of input.plan.stores) {
    files.push({
      path: `stores/${storeFileName(store.key)}`,
      html: renderStorePage(input.plan, store, input.stores.get(store.key), hosts),
    });
  }
  return files;
}
