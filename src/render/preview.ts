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
 * (src/render/html.ts); no script, style or font is fetched (CSS and the few lines of script are
 * inline, each allowed by its hash in the page's content security policy, never `'unsafe-inline'`);
 * an item's image is drawn only from an origin the platform serves the chain's images from
 * ({@link platformImageHosts}), and the policy allows exactly the origins a page draws from.
 *
 * Stable hooks for browser tests: `id="menu-TYPE"`, `id="category-TYPE__SKU"`, `id="group-SKU"`,
 * `class="entry menu|category|item|group|option"`, `data-sku`, `class="entry link"` and `data-group`
 * on a link to a group, `class="entry inside"` and `data-option` on a price inside a parent,
 * `data-change="added|removed|changed"` on a changed element, `data-field` (with
 * `data-before`/`data-after`) on a changed value, `class="off"` and `data-until` on a switched-off
 * item, `id="filter"`, `id="changed-only"`, `data-store` and `data-changes` on the index's entries.
 */

import { createHash } from "node:crypto";
import { availabilityOf, categoriesOf, itemsOf, menusOf } from "../kinds/catalog.js";
import { jsonEqual } from "../kinds/util.js";
import {
  imagePath,
  type CategoryResource,
  type ImageRef,
  type ItemResource,
  type MenuResource,
  type Schedule,
  type StoreState,
} from "../model.js";
import { currencyOf, formatPrice, type Currency } from "../money.js";
import type { Plan, PlanStore, ResourceChange } from "../plan/types.js";
import { attr, escapeHtmlText as t, httpUrl } from "./html.js";

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

/** The changes of a plan in one store, by resource: `item:SKU` (items and groups), `category:SKU`, `menu:TYPE`, `availability:SKU`. */
type ChangeIndex = ReadonlyMap<string, ResourceChange>;

function changeKey(c: ResourceChange): string {
  const kind = c.kind === "modifier_group" ? "item" : c.kind;
  return `${kind}:${c.key}`;
}

/** The kinds a store page shows; changes of other kinds (hours, webhooks…) count on the index only. */
const MENU_KINDS: ReadonlySet<string> = new Set([
  "item",
  "modifier_group",
  "category",
  "menu",
  "availability",
]);

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
 * A page: its one style and one script inline, each allowed by its hash alone, and images from
 * `images` alone (the origins of the images the page draws, {@link imageOrigin}; none: no image).
 */
function page(title: string, body: string, script: string, images: ReadonlySet<string> = new Set()): string {
  const img = images.size === 0 ? "'none'" : [...images].sort().join(" ");
  const policy = `default-src 'none'; img-src ${img}; style-src ${STYLE_SOURCE}; script-src ${hashSource(script)}`;
  return (
    `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `<meta http-equiv="Content-Security-Policy"${attr("content", policy)}>\n` +
    `<title>${t(title)}</title>\n<style>${CSS}</style>\n</head>\n<body>\n${body}\n<script>${script}</script>\n</body>\n</html>\n`
  );
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
const TOGGLE_SCRIPT = `
var box=document.getElementById("changed-only");
var keep='[data-change="added"],[data-change="removed"]';
function apply(){var only=box.checked;document.querySelectorAll(".entry").forEach(function(e){
e.hidden=only&&!e.hasAttribute("data-change")&&!e.closest(keep)&&!e.querySelector("[data-change]");});}
box.addEventListener("change",apply);apply();
`;

/** The number of changes of each store of the plan, by store key. */
function changeCounts(plan: Plan): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of plan.changes) counts.set(c.store, (counts.get(c.store) ?? 0) + 1);
  return counts;
}

/** The index page: the plan's stores, each with its number of changes and a link to its page. */
export function renderIndex(plan: Plan): string {
  const counts = changeCounts(plan);
  const items = plan.stores.map((s) => {
    const n = counts.get(s.key) ?? 0;
    return (
      `<li${attr("data-store", s.key)}${attr("data-changes", n)}${attr("data-search", `${s.name} ${s.key}`.toLowerCase())}>` +
      `<a${attr("href", `stores/${storeFileName(s.key)}`)}>${t(s.name)}</a> <code>${t(s.key)}</code> ` +
      `<span class="count">${n === 0 ? "no changes" : n === 1 ? "1 change" : `${n} changes`}</span></li>`
    );
  });
  const total = plan.changes.length;
  const body =
    `<header><h1>Menu preview</h1><p>${plan.stores.length} ${plan.stores.length === 1 ? "store" : "stores"}, ` +
    `${total} ${total === 1 ? "change" : "changes"} in the plan.</p></header>\n<main>\n` +
    `<div class="controls"><label for="filter">Filter stores by name or key</label> ` +
    `<input id="filter" type="search" autocomplete="off"> <span><span id="shown">${plan.stores.length}</span> shown</span></div>\n` +
    `<ul class="stores" id="stores">\n${items.join("\n")}\n</ul>\n</main>`;
  return page("Menu preview", body, FILTER_SCRIPT);
}

/** What a store page reads: its desired state with the plan's changes laid over it. */
interface StoreView {
  state: StoreState | undefined;
  changes: ChangeIndex;
  currency: Currency | undefined;
  /** The modifier groups the page links to, in the order first linked: its "Modifier groups" section. */
  groups: string[];
  /** The SKUs of {@link StoreView.groups}. */
  shown: Set<string>;
  /** {@link groupChanged}, by group SKU, once worked out. */
  changedGroups: Map<string, boolean>;
  /** The origins images may come from: those the platform serves the chain's images from. */
  imageHosts: ReadonlySet<string>;
  /** The origins of the images the page draws: its policy's `img-src`. */
  drawn: Set<string>;
}

function changeOf(v: StoreView, kind: string, key: string): ResourceChange | undefined {
  return v.changes.get(`${kind}:${key}`);
}

/** A resource as the plan leaves it (`after`), or as it was when the plan deletes it (`before`). */
function resourceOf<T>(v: StoreView, kind: string, key: string, desired: T | undefined): T | undefined {
  const c = changeOf(v, kind, key);
  if (c?.action === "delete") return c.before as T;
  if (c?.after) return c.after as T;
  return desired;
}

function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

function itemOf(v: StoreView, sku: string): ItemResource | undefined {
  return resourceOf(v, "item", sku, v.state ? own(itemsOf(v.state), sku) : undefined);
}

/** `added`, `removed` or `changed` for a change, `undefined` for none. */
function mark(c: ResourceChange | undefined): "added" | "removed" | "changed" | undefined {
  if (!c) return undefined;
  return c.action === "create" ? "added" : c.action === "delete" ? "removed" : "changed";
}

/** ` class="…" data-change="…"` of an element, with its change when it has one. */
function classes(base: string, change: string | undefined, extra = ""): string {
  const cls = [base, change, extra].filter((c) => c !== undefined && c !== "").join(" ");
  return `${attr("class", cls)}${change ? attr("data-change", change) : ""}`;
}

/** The SKUs of the new list, then those of the old one it no longer holds (shown removed). */
function merged(
  after: readonly string[],
  before: readonly string[] | undefined,
): { sku: string; gone: boolean; new: boolean }[] {
  const now = new Set(after);
  const then = new Set(before ?? after);
  return [
    ...after.map((sku) => ({ sku, gone: false, new: before !== undefined && !then.has(sku) })),
    ...[...then].filter((sku) => !now.has(sku)).map((sku) => ({ sku, gone: true, new: false })),
  ];
}

/** A value that the plan changes shown as old → new, else as it is. */
function field(
  name: string,
  change: ResourceChange | undefined,
  pick: (r: ItemResource | CategoryResource) => unknown,
  show: (value: unknown) => string,
  tag = "span",
  cls = "",
): string {
  const after = change?.after as ItemResource | undefined;
  const before = change?.before as ItemResource | undefined;
  if (change?.action === "update" && before && after) {
    const old = pick(before);
    const now = pick(after);
    if (JSON.stringify(old) !== JSON.stringify(now)) {
      return (
        `<${tag}${attr("class", `${cls} changed`.trim())}${attr("data-field", name)}${attr("data-before", show(old))}${attr("data-after", show(now))}>` +
        `<del>${t(show(old))}</del> → <ins>${t(show(now))}</ins></${tag}>`
      );
    }
  }
  return "";
}

function priceText(v: StoreView, value: unknown): string {
  return typeof value === "number" ? formatPrice(value, v.currency) : "";
}

function schedulesText(value: unknown): string {
  const list = Array.isArray(value) ? (value as Schedule[]) : [];
  if (list.length === 0) return "always";
  return list.map((s) => `${s.days} ${s.periods.map((p) => `${p.start}–${p.end}`).join(", ")}`).join("; ");
}

/** The address of an image: its path resolved against its host, when that gives an `http(s)` URL. */
function imageUrl(image: ImageRef): string | undefined {
  return typeof image === "string" ? httpUrl(image) : httpUrl(image.path, image.host);
}

/**
 * An origin a page's policy may name: `http(s)://` and a host name of letters, digits, dots and
 * hyphens, with a port. A URL's host may hold characters a policy gives a meaning to (`;`, `,`, `'`),
 * and an IP address literal is no host of an image service: neither is ever an image's origin here.
 */
const POLICY_ORIGIN = /^https?:\/\/[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/;

/** The origin of an image ({@link POLICY_ORIGIN}), or `undefined` when it has none a page may load. */
function imageOrigin(image: ImageRef): string | undefined {
  const url = imageUrl(image);
  const origin = url === undefined ? undefined : new URL(url).origin;
  return origin !== undefined && POLICY_ORIGIN.test(origin) && !/^https?:\/\/[\d.]+(:|$)/.test(origin)
    ? origin
    : undefined;
}

/**
 * An item's first image, drawn when the platform serves images from its origin
 * ({@link platformImageHosts}), else a placeholder that names it: the page never loads an image from a
 * host only the files name.
 */
function imageHtml(v: StoreView, title: string, images: readonly ImageRef[]): string {
  const first = images[0];
  const origin = first === undefined ? undefined : imageOrigin(first);
  if (first !== undefined && origin !== undefined && v.imageHosts.has(origin)) {
    v.drawn.add(origin);
    return `<img${attr("src", imageUrl(first)!)}${attr("alt", title)} loading="lazy" width="72" height="72">`;
  }
  const note =
    first === undefined
      ? "No image"
      : `Image ${imagePath(first)}${imageUrl(first) === undefined ? "" : " (not shown: not from a host the platform serves the chain's images from)"}`;
  return `<div class="placeholder" role="img"${attr("aria-label", `${title}: ${note}`)}${attr("title", note)}>${first === undefined ? "no image" : "image"}</div>`;
}

/** Whether the plan compared the items of `store` with the platform (their kind was planned there). */
function itemsCompared(plan: Plan, store: string): boolean {
  const t = plan.targeting;
  if (t === undefined) return true;
  if (t.targets.length > 0 || (t.kinds.length > 0 && !t.kinds.includes("item"))) return false;
  return t.scope === undefined || t.scope.stores.some((s) => s.store === store && s.kinds.includes("item"));
}

/**
 * The origins the platform serves the chain's images from, as the plan shows the platform: those of
 * the images of the items and modifier groups as they are before the plan (a change's `before`; an
 * item the plan compared and leaves as it is, in the files' state of it, which is the platform's), in
 * any store of the plan. A host that only the files name (a new item's, an image moved elsewhere) is
 * not one of them until it is applied.
 *
 * @param stores - the files' state of the plan's stores; a store absent gives only its changes'.
 */
export function platformImageHosts(
  plan: Plan,
  stores: ReadonlyMap<string, StoreState | undefined>,
): Set<string> {
  const hosts = new Set<string>();
  const add = (images: unknown) => {
    if (!Array.isArray(images)) return;
    for (const image of images as ImageRef[]) {
      const origin = imageOrigin(image);
      if (origin !== undefined) hosts.add(origin);
    }
  };
  const changed = new Map<string, Set<string>>();
  for (const c of plan.changes) {
    if (c.kind !== "item" && c.kind !== "modifier_group") continue;
    let skus = changed.get(c.store);
    if (skus === undefined) changed.set(c.store, (skus = new Set()));
    skus.add(c.key);
    if (c.before !== null && typeof c.before === "object") add((c.before as ItemResource).images);
  }
  for (const store of plan.stores) {
    const state = stores.get(store.key);
    if (state === undefined || !itemsCompared(plan, store.key)) continue;
    const skus = changed.get(store.key);
    for (const [sku, item] of Object.entries(itemsOf(state))) if (!skus?.has(sku)) add(item.images);
  }
  return hosts;
}

/** A plain or changed value of an item: the changed form when the plan changes it, else `plain`. */
function valueOr(changed: string, plain: string): string {
  return changed !== "" ? changed : plain;
}

/** Whether the item is switched off after the plan, and until when as the plan shows it. */
function offState(v: StoreView, sku: string): { off: boolean; until?: string; change?: ResourceChange } {
  const c = changeOf(v, "availability", sku);
  const a = v.state ? availabilityOf(v.state) : undefined;
  const s = a?.suspensions ? own(a.suspensions, sku) : undefined;
  if (c?.after) {
    const after = c.after as { available: boolean; until?: string };
    const shown = c.diff.find((d) => d.attribute === "state")?.after;
    if (after.available) return { off: false, change: c };
    // The files' time in the store's zone with its date, when it is this very instant; else the plan's.
    const until =
      s?.shown !== undefined && s.until === after.until
        ? `${s.shown} (${after.until})`
        : typeof shown === "string" && shown.startsWith("off until ")
          ? shown.slice(10)
          : after.until;
    return { off: true, change: c, ...(until !== undefined ? { until } : {}) };
  }
  if (!a || !a.unavailable.includes(sku)) return { off: false };
  const until = s?.shown ?? s?.until;
  return { off: true, ...(until !== undefined ? { until } : {}) };
}

/**
 * `text` as a part of an element id: ASCII letters, digits and `-` as they are, every other character
 * as `_` and its UTF-8 bytes in hex (`_20` for a space), so that two values never give the same part
 * and an id holds no white space; `__` (never part of an escape) joins two parts.
 */
function idPart(text: string): string {
  let out = "";
  for (const ch of text) {
    out += /^[A-Za-z0-9-]$/.test(ch)
      ? ch
      : [...Buffer.from(ch, "utf8")].map((b) => `_${b.toString(16).padStart(2, "0")}`).join("");
  }
  return out;
}

/** The id of a modifier group's entry in the page's "Modifier groups" section. */
function groupId(sku: string): string {
  return `group-${idPart(sku)}`;
}

/**
 * The change of an item or option that concerns the item itself: `undefined` for an update that only
 * changes its prices inside parents (`priceInParent`), which are shown, and marked, with each parent.
 */
function ownChange(c: ResourceChange | undefined): ResourceChange | undefined {
  if (c?.action !== "update") return c;
  const { priceInParent: _before, ...before } = c.before as ItemResource;
  const { priceInParent: _after, ...after } = c.after as ItemResource;
  return jsonEqual(before, after) ? undefined : c;
}

/** Asks for the group `sku` to be drawn in the page's "Modifier groups" section (once). */
function needGroup(v: StoreView, sku: string): void {
  if (v.shown.has(sku)) return;
  v.shown.add(sku);
  v.groups.push(sku);
}

/**
 * Whether the plan changes the group `sku` as the "Modifier groups" section shows it: the group itself,
 * its list of options, or one of its options (not its prices inside parents, nor nested groups, which
 * have links of their own).
 */
function groupChanged(v: StoreView, sku: string): boolean {
  const known = v.changedGroups.get(sku);
  if (known !== undefined) return known;
  const group = itemOf(v, sku);
  const c = changeOf(v, "item", sku);
  const before = c?.action === "update" ? (c.before as ItemResource).children : undefined;
  const changed =
    c !== undefined ||
    (group !== undefined &&
      merged(group.children, before).some(
        (o) =>
          o.gone ||
          o.new ||
          ownChange(changeOf(v, "item", o.sku)) !== undefined ||
          offState(v, o.sku).change !== undefined,
      ));
  v.changedGroups.set(sku, changed);
  return changed;
}

/**
 * The modifier groups of an item or option as links to their entries in the "Modifier groups" section,
 * each with its title and how many options to choose; a group the plan adds to or removes from this
 * list is marked here, a group the plan changes says so.
 */
function groupLinks(v: StoreView, owner: ItemResource, change: ResourceChange | undefined): string {
  const before = change?.action === "update" ? (change.before as ItemResource).children : undefined;
  const links = merged(owner.children, before).map(({ sku, gone, new: fresh }) => {
    needGroup(v, sku);
    const group = itemOf(v, sku);
    const m = gone ? "removed" : fresh ? "added" : undefined;
    return (
      `<li${classes("entry link", m)}${attr("data-group", sku)}>` +
      `<a${attr("href", `#${groupId(sku)}`)}>${t(group ? group.title : sku)}</a>` +
      (group ? ` <span class="meta">choose ${group.min ?? 0} to ${group.max ?? 0}</span>` : "") +
      markBadge(m) +
      (m === undefined && groupChanged(v, sku) ? ' <span class="badge changed">Changed</span>' : "") +
      `</li>`
    );
  });
  if (links.length === 0) return "";
  return `<ul class="links"${attr("aria-label", `Modifier groups of ${owner.title}`)}>${links.join("")}</ul>`;
}

/** The price written for an option inside `parent`, if any. */
function priceInside(r: ItemResource | undefined, parent: string): number | undefined {
  const p = r?.priceInParent;
  return p && Object.hasOwn(p, parent) ? p[parent] : undefined;
}

/**
 * The prices that an item or option (`parent`) gives the options of its groups where they differ from
 * the options' own prices (`priceInParent`): "Inside this item: Calabresa $8,25". A price the plan
 * adds, removes or changes is marked here, old → new (each side the price the option has inside the
 * parent then: its own where none is written).
 */
function insidePrices(
  v: StoreView,
  parent: ItemResource,
  change: ResourceChange | undefined,
  noun: "item" | "option",
): string {
  const seen = new Set<string>();
  const rows: string[] = [];
  const groups = merged(
    parent.children,
    change?.action === "update" ? (change.before as ItemResource).children : undefined,
  );
  for (const { sku: g } of groups) {
    const group = itemOf(v, g);
    if (!group) continue;
    const gc = changeOf(v, "item", g);
    const options = merged(
      group.children,
      gc?.action === "update" ? (gc.before as ItemResource).children : undefined,
    );
    for (const { sku } of options) {
      if (seen.has(sku)) continue;
      seen.add(sku);
      const option = itemOf(v, sku);
      if (!option) continue;
      const c = changeOf(v, "item", sku);
      const was = c?.action === "update" ? (c.before as ItemResource) : undefined;
      const now = priceInside(option, parent.sku);
      const then = priceInside(was, parent.sku);
      let m: "added" | "removed" | "changed" | undefined;
      let price: string;
      if (was !== undefined && now !== then) {
        const old = priceText(v, then ?? was.price);
        const nowText = priceText(v, now ?? option.price);
        m = "changed";
        price =
          `<span class="price changed" data-field="price"${attr("data-before", old)}${attr("data-after", nowText)}>` +
          `<del>${t(old)}</del> → <ins>${t(nowText)}</ins></span>`;
      } else if (now !== undefined && now !== option.price) {
        m = c?.action === "create" ? "added" : c?.action === "delete" ? "removed" : undefined;
        price = `<span class="price">${t(priceText(v, now))}</span>`;
      } else {
        continue;
      }
      rows.push(
        `<li${classes("entry inside", m)}${attr("data-option", sku)}>${t(option.title)} ${price}${markBadge(m)}</li>`,
      );
    }
  }
  if (rows.length === 0) return "";
  return (
    `<div class="entry prices"><span class="meta">Inside this ${noun}:</span> ` +
    `<ul class="links"${attr("aria-label", `Option prices inside ${parent.title}`)}>${rows.join("")}</ul></div>`
  );
}

/**
 * A modifier group's entry in the "Modifier groups" section (`id="group-SKU"`): its title, how many
 * options to choose, and its options with their own prices, their nested groups as links and the
 * prices they give the options of those.
 */
function renderGroup(v: StoreView, sku: string): string {
  const group = itemOf(v, sku);
  const c = changeOf(v, "item", sku);
  const m = mark(c);
  const head = `<section${classes("entry group", m)}${attr("id", groupId(sku))}${attr("data-sku", sku)}>`;
  if (!group) return `${head}<h3>${t(sku)}</h3></section>`;
  const limits = valueOr(
    field("limits", c, (r) => `${(r as ItemResource).min ?? 0}–${(r as ItemResource).max ?? 0}`, String),
    `${group.min ?? 0}–${group.max ?? 0}`,
  );
  const before = c?.action === "update" ? (c.before as ItemResource).children : undefined;
  const options = merged(group.children, before)
    .map(({ sku: o, gone, new: fresh }) => renderOption(v, o, gone ? "removed" : fresh ? "added" : undefined))
    .join("");
  return (
    head +
    `<h3>${valueOr(
      field("title", c, (r) => r.title, String),
      t(group.title),
    )} ` +
    `<span class="meta">choose ${group.min ?? 0} to ${group.max ?? 0}</span>${markBadge(m)}</h3>` +
    (limits !== `${group.min ?? 0}–${group.max ?? 0}` ? `<div class="meta">limits: ${limits}</div>` : "") +
    `<ul${attr("aria-label", `Options of ${group.title}`)}>${options}</ul></section>`
  );
}

function renderOption(v: StoreView, sku: string, placed: string | undefined): string {
  const option = itemOf(v, sku);
  const c = changeOf(v, "item", sku);
  const own = ownChange(c);
  const m = placed ?? mark(own);
  if (!option) return `<li${classes("entry option", m)}${attr("data-sku", sku)}>${t(sku)}</li>`;
  const price = valueOr(
    field(
      "price",
      own,
      (r) => (r as ItemResource).price,
      (x) => priceText(v, x),
      "span",
      "price",
    ),
    `<span class="price">${t(priceText(v, option.price))}</span>`,
  );
  const off = offState(v, sku);
  return (
    `<li${classes("entry option", m ?? mark(off.change), off.off ? "off" : "")}${attr("data-sku", sku)}${off.until !== undefined ? attr("data-until", off.until) : ""}>` +
    `<span>${valueOr(
      field("title", own, (r) => r.title, String),
      t(option.title),
    )}${markBadge(m)}${offBadge(off)}</span> ${price}` +
    (option.children.length > 0
      ? `<div class="nested">${groupLinks(v, option, c)}${insidePrices(v, option, c, "option")}</div>`
      : "") +
    `</li>`
  );
}

/**
 * The page's "Modifier groups" section: every group its items and options link to, once, in the order
 * the page first links to them (the groups that a group's options link to are added as they are met).
 */
function renderGroups(v: StoreView): string {
  const parts: string[] = [];
  for (let i = 0; i < v.groups.length; i++) parts.push(renderGroup(v, v.groups[i]!));
  if (parts.length === 0) return "";
  return (
    `<section class="entry groups" id="modifier-groups" aria-labelledby="modifier-groups-title">` +
    `<h2 id="modifier-groups-title">Modifier groups</h2>` +
    `<p class="meta">Each group once, with its options at their own prices; the items link here, and list ` +
    `the prices they give an option where it costs something else inside them.</p>\n` +
    `${parts.join("\n")}\n</section>`
  );
}

/**
 * The word of an added or removed mark (`New`, `Removed`), so that the mark does not rest on colour
 * alone; a changed element shows its old and new values instead.
 */
function markBadge(m: string | undefined): string {
  if (m === "added") return ' <span class="badge">New</span>';
  if (m === "removed") return ' <span class="badge">Removed</span>';
  return "";
}

function offBadge(off: { off: boolean; until?: string; change?: ResourceChange }): string {
  if (!off.off) {
    return off.change
      ? ' <span class="badge" data-field="availability" data-after="on">Switched back on</span>'
      : "";
  }
  return ` <span class="badge">${off.until !== undefined ? `Off until ${t(off.until)}` : "Off"}</span>`;
}

function renderItem(v: StoreView, sku: string, placed: string | undefined): string {
  const item = itemOf(v, sku);
  const c = changeOf(v, "item", sku);
  const off = offState(v, sku);
  const m = placed ?? mark(ownChange(c)) ?? mark(off.change);
  if (!item)
    return `<li${classes("entry item", m)}${attr("data-sku", sku)}><div class="body">${t(sku)}</div></li>`;
  const title = valueOr(
    field("title", c, (r) => r.title, String),
    t(item.title),
  );
  const description = valueOr(
    field("description", c, (r) => (r as ItemResource).description, String),
    t(item.description),
  );
  const price = valueOr(
    field(
      "price",
      c,
      (r) => (r as ItemResource).price,
      (x) => priceText(v, x),
      "span",
      "price",
    ),
    `<span class="price">${t(priceText(v, item.price))}</span>`,
  );
  const schedules = valueOr(
    field("schedules", c, (r) => r.schedules ?? [], schedulesText),
    t(schedulesText(item.schedules)),
  );
  const images = field(
    "images",
    c,
    (r) => (r as ItemResource).images.map(imagePath),
    (x) => (x as string[]).join(", "),
  );
  return (
    `<li${classes("entry item", m, off.off ? "off" : "")}${attr("data-sku", sku)}${off.until !== undefined ? attr("data-until", off.until) : ""}>` +
    imageHtml(v, item.title, item.images) +
    `<div class="body"><h4>${title}${markBadge(m)}${offBadge(off)}</h4>` +
    (item.description !== "" || description !== t(item.description)
      ? `<p class="desc">${description}</p>`
      : "") +
    `<div>${price}</div>` +
    (schedules !== "always" ? `<div class="meta">Sold: ${schedules}</div>` : "") +
    (images !== "" ? `<div class="meta">Images: ${images}</div>` : "") +
    groupLinks(v, item, c) +
    insidePrices(v, item, c, "item") +
    `</div></li>`
  );
}

function renderCategory(
  v: StoreView,
  menu: string,
  sku: string,
  active: boolean,
  placed: string | undefined,
): string {
  const desired = v.state ? own(categoriesOf(v.state), sku) : undefined;
  const category = resourceOf(v, "category", sku, desired);
  const c = changeOf(v, "category", sku);
  const m = placed ?? mark(c);
  // A category may be in several menus: its id names the menu too.
  const id = `category-${idPart(menu)}__${idPart(sku)}`;
  if (!category)
    return `<section${classes("entry category", m)}${attr("data-sku", sku)}><h3>${t(sku)}</h3></section>`;
  const before = c?.action === "update" ? (c.before as CategoryResource).items : undefined;
  const items = merged(category.items, before)
    .map(({ sku: i, gone, new: fresh }) => renderItem(v, i, gone ? "removed" : fresh ? "added" : undefined))
    .join("\n");
  const schedules = valueOr(
    field("schedules", c, (r) => r.schedules ?? [], schedulesText),
    t(schedulesText(category.schedules)),
  );
  return (
    `<section${classes("entry category", m)}${attr("id", id)}${attr("data-sku", sku)}${active ? "" : ' data-inactive="true"'}>` +
    `<h3>${valueOr(
      field("title", c, (r) => r.title, String),
      t(category.title),
    )}${active ? "" : ' <span class="badge">Not active</span>'}</h3>` +
    (schedules !== "always" ? `<p class="meta">Shown: ${schedules}</p>` : "") +
    `<ul${attr("aria-label", `Items of ${category.title}`)}>\n${items}\n</ul></section>`
  );
}

function renderMenu(v: StoreView, type: string): string {
  const desired = v.state ? own(menusOf(v.state), type) : undefined;
  const menu = resourceOf<MenuResource>(v, "menu", type, desired)!;
  const c = changeOf(v, "menu", type);
  const before = c?.action === "update" ? (c.before as MenuResource).categories : undefined;
  const active = new Map(menu.categories.map((e) => [e.sku, e.active]));
  for (const e of before ?? []) if (!active.has(e.sku)) active.set(e.sku, e.active);
  const categories = merged(
    menu.categories.map((e) => e.sku),
    before?.map((e) => e.sku),
  )
    .map(({ sku, gone, new: fresh }) =>
      renderCategory(v, type, sku, active.get(sku) ?? true, gone ? "removed" : fresh ? "added" : undefined),
    )
    .join("\n");
  return (
    `<section${classes("entry menu", mark(c))}${attr("id", `menu-${idPart(type)}`)}${attr("data-menu", type)}>` +
    `<h2>Menu ${t(type)}</h2>\n${categories}\n</section>`
  );
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
  imageHosts: ReadonlySet<string> = platformImageHosts(plan, new Map([[store.key, state]])),
): string {
  const changes = new Map<string, ResourceChange>();
  let others = 0;
  for (const c of plan.changes) {
    if (c.store !== store.key) continue;
    if (MENU_KINDS.has(c.kind)) changes.set(changeKey(c), c);
    else others++;
  }
  const v: StoreView = {
    state,
    changes,
    currency: plan.currency ? currencyOf(plan.currency) : undefined,
    groups: [],
    shown: new Set(),
    changedGroups: new Map(),
    imageHosts,
    drawn: new Set(),
  };
  const types = new Set(state ? Object.keys(menusOf(state)) : []);
  for (const c of changes.values()) if (c.kind === "menu") types.add(c.key);
  const menus = [...types].sort().map((type) => renderMenu(v, type));
  // After the menus, which ask for the groups they link to.
  const groups = renderGroups(v);
  const count = [...plan.changes].filter((c) => c.store === store.key).length;
  const body =
    `<header><p><a href="../index.html">All stores</a></p>` +
    `<h1>${t(store.name)} <code>${t(store.key)}</code></h1>` +
    `<p><span id="change-count"${attr("data-changes", count)}>${count === 1 ? "1 change" : `${count} changes`}</span> in the plan` +
    (others > 0 ? ` (${others} outside the menu: hours, settings…; see carte plan)` : "") +
    `.</p>` +
    `<p class="meta">Marked: <span class="badge added">new</span> <span class="badge removed">removed</span> ` +
    `<span class="badge changed">changed</span> <span class="badge off">switched off</span></p>` +
    `<div class="controls"><input id="changed-only" type="checkbox"> <label for="changed-only">Show changed only</label></div></header>\n` +
    `<main>\n${menus.length > 0 ? menus.join("\n") : "<p>This store has no menu.</p>"}\n${groups}</main>`;
  return page(`${store.name} — menu preview`, body, TOGGLE_SCRIPT, v.drawn);
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
