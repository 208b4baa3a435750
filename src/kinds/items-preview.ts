/**
 * How `carte preview` draws items, options and modifier groups (src/kinds/show.ts `KindPreview`): an
 * item in its category with its image, price, schedules and the prices it gives the options of its
 * groups; each modifier group once, in the page's "Modifier groups" section, which items and options
 * link to (a group three levels deep drawn inside every item that offers it made pages of megabytes).
 * The categories draw their items with {@link renderItem}, the menus the groups' section with
 * {@link renderGroups} after them.
 *
 * An item's image is drawn only from an origin the platform serves the chain's images from
 * (`PreviewPage.imageHosts`), and the page's policy allows exactly the origins it draws from.
 */

import { imagePath, own, type ImageRef, type ItemResource } from "../model.js";
import { formatPrice } from "../money.js";
import { attr, escapeHtmlText as t } from "../show/html.js";
import {
  afterPlan,
  classes,
  field,
  idPart,
  imageOrigin,
  imageUrl,
  mark,
  markBadge,
  merged,
  pageSchedulesText,
  valueOr,
  type Mark,
} from "../show/page.js";
import { offBadge, offState } from "./availability-preview.js";
import { itemsOf, itemsState } from "./catalog.js";
import type { KindChange } from "./change.js";
import type { KindPreview, PreviewPage } from "./show.js";
import { jsonEqual } from "../plain-data.js";

/** What the items' part keeps of one page while it is drawn. */
interface ItemsPage {
  /** The modifier groups the page links to, in the order first linked: its "Modifier groups" section. */
  groups: string[];
  /** The SKUs of {@link ItemsPage.groups}. */
  shown: Set<string>;
  /** {@link groupChanged}, by group SKU, once worked out. */
  changedGroups: Map<string, boolean>;
}

const pages = new WeakMap<PreviewPage, ItemsPage>();

function itemsPage(v: PreviewPage): ItemsPage {
  let p = pages.get(v);
  if (!p) pages.set(v, (p = { groups: [], shown: new Set(), changedGroups: new Map() }));
  return p;
}

/** The plan's change of an item or modifier group of the page. */
const changeOf = (v: PreviewPage, sku: string): KindChange | undefined => v.change("item", sku);

function itemOf(v: PreviewPage, sku: string): ItemResource | undefined {
  return afterPlan(changeOf(v, sku), v.state ? own(itemsOf(v.state), sku) : undefined);
}

function priceText(v: PreviewPage, value: unknown): string {
  return typeof value === "number" ? formatPrice(value, v.currency) : "";
}

/**
 * An item's first image, drawn when the platform serves images from its origin
 * (`PreviewPage.imageHosts`), else a placeholder that names it: the page never loads an image from a
 * host only the files name.
 */
function imageHtml(v: PreviewPage, title: string, images: readonly ImageRef[]): string {
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

/** The id of a modifier group's entry in the page's "Modifier groups" section. */
function groupId(sku: string): string {
  return `group-${idPart(sku)}`;
}

/**
 * The change of an item or option that concerns the item itself: `undefined` for an update that only
 * changes its prices inside parents (`priceInParent`), which are shown, and marked, with each parent.
 */
function ownChange(c: KindChange | undefined): KindChange | undefined {
  if (c?.action !== "update") return c;
  const { priceInParent: _before, ...before } = c.before as ItemResource;
  const { priceInParent: _after, ...after } = c.after as ItemResource;
  return jsonEqual(before, after) ? undefined : c;
}

/** Asks for the group `sku` to be drawn in the page's "Modifier groups" section (once). */
function needGroup(v: PreviewPage, sku: string): void {
  const p = itemsPage(v);
  if (p.shown.has(sku)) return;
  p.shown.add(sku);
  p.groups.push(sku);
}

/**
 * Whether the plan changes the group `sku` as the "Modifier groups" section shows it: the group itself,
 * its list of options, or one of its options (not its prices inside parents, nor nested groups, which
 * have links of their own).
 */
function groupChanged(v: PreviewPage, sku: string): boolean {
  const known = itemsPage(v).changedGroups.get(sku);
  if (known !== undefined) return known;
  const group = itemOf(v, sku);
  const c = changeOf(v, sku);
  const before = c?.action === "update" ? (c.before as ItemResource).children : undefined;
  const changed =
    c !== undefined ||
    (group !== undefined &&
      merged(group.children, before).some(
        (o) =>
          o.gone ||
          o.new ||
          ownChange(changeOf(v, o.sku)) !== undefined ||
          offState(v, o.sku).change !== undefined,
      ));
  itemsPage(v).changedGroups.set(sku, changed);
  return changed;
}

/**
 * The modifier groups of an item or option as links to their entries in the "Modifier groups" section,
 * each with its title and how many options to choose; a group the plan adds to or removes from this
 * list is marked here, a group the plan changes says so.
 */
function groupLinks(v: PreviewPage, owner: ItemResource, change: KindChange | undefined): string {
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
      (m === undefined && groupChanged(v, sku)
        ? changeOf(v, sku)?.action === "create"
          ? ' <span class="badge added">New</span>'
          : ' <span class="badge changed">Changed</span>'
        : "") +
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
 * One option's row under "Inside this item": its price inside `parent` where it differs from its own,
 * marked old → new when the plan changes it (each side the price the option has inside the parent
 * then: its own where none is written); `undefined` when it costs the same inside.
 */
function insideRow(v: PreviewPage, parent: ItemResource, sku: string): string | undefined {
  const option = itemOf(v, sku);
  if (!option) return undefined;
  const c = changeOf(v, sku);
  const was = c?.action === "update" ? (c.before as ItemResource) : undefined;
  const now = priceInside(option, parent.sku);
  const then = priceInside(was, parent.sku);
  let m: Mark | undefined;
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
    return undefined;
  }
  return `<li${classes("entry inside", m)}${attr("data-option", sku)}>${t(option.title)} ${price}${markBadge(m)}</li>`;
}

/**
 * The prices that an item or option (`parent`) gives the options of its groups where they differ from
 * the options' own prices (`priceInParent`): "Inside this item: Calabresa $8,25". A price the plan
 * adds, removes or changes is marked here, old → new.
 */
function insidePrices(
  v: PreviewPage,
  parent: ItemResource,
  change: KindChange | undefined,
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
    const gc = changeOf(v, g);
    const options = merged(
      group.children,
      gc?.action === "update" ? (gc.before as ItemResource).children : undefined,
    );
    for (const { sku } of options) {
      if (seen.has(sku)) continue;
      seen.add(sku);
      const row = insideRow(v, parent, sku);
      if (row !== undefined) rows.push(row);
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
function renderGroup(v: PreviewPage, sku: string): string {
  const group = itemOf(v, sku);
  const c = changeOf(v, sku);
  const m = mark(c);
  const head = `<section${classes("entry group", m)}${attr("id", groupId(sku))}${attr("data-sku", sku)}>`;
  if (!group) return `${head}<h3>${t(sku)}</h3></section>`;
  const limits = valueOr(
    field<ItemResource>("limits", c, (r) => `${r.min ?? 0}–${r.max ?? 0}`, String),
    `${group.min ?? 0}–${group.max ?? 0}`,
  );
  const before = c?.action === "update" ? (c.before as ItemResource).children : undefined;
  const options = merged(group.children, before)
    .map(({ sku: o, gone, new: fresh }) => renderOption(v, o, gone ? "removed" : fresh ? "added" : undefined))
    .join("");
  return (
    head +
    `<h3>${valueOr(
      field<ItemResource>("title", c, (r) => r.title, String),
      t(group.title),
    )} ` +
    `<span class="meta">choose ${group.min ?? 0} to ${group.max ?? 0}</span>${markBadge(m)}</h3>` +
    (limits !== `${group.min ?? 0}–${group.max ?? 0}` ? `<div class="meta">limits: ${limits}</div>` : "") +
    `<ul${attr("aria-label", `Options of ${group.title}`)}>${options}</ul></section>`
  );
}

function renderOption(v: PreviewPage, sku: string, placed: string | undefined): string {
  const option = itemOf(v, sku);
  const c = changeOf(v, sku);
  const own = ownChange(c);
  const m = placed ?? mark(own);
  if (!option) return `<li${classes("entry option", m)}${attr("data-sku", sku)}>${t(sku)}</li>`;
  const price = valueOr(
    field<ItemResource>(
      "price",
      own,
      (r) => r.price,
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
      field<ItemResource>("title", own, (r) => r.title, String),
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
 * Drawn after what links to the groups (the menus); none when nothing does. As pieces (a group each),
 * not joined: the section of a big catalog is hundreds of KB (src/kinds/show.ts `KindPreview.page`).
 */
export function renderGroups(v: PreviewPage): string[] {
  const groups = itemsPage(v).groups;
  if (groups.length === 0) return [];
  const parts = [
    `<section class="entry groups" id="modifier-groups" aria-labelledby="modifier-groups-title">` +
      `<h2 id="modifier-groups-title">Modifier groups</h2>` +
      `<p class="meta">Each group once, with its options at their own prices; the items link here, and list ` +
      `the prices they give an option where it costs something else inside them.</p>\n`,
  ];
  // The groups an item links to are added to the list as they are met: its length is read each time.
  for (let i = 0; i < groups.length; i++) parts.push(`${i > 0 ? "\n" : ""}${renderGroup(v, groups[i]!)}`);
  parts.push("\n</section>");
  return parts;
}

/** An item's entry in its category (`placed`: the mark the category's list gives it). */
export function renderItem(v: PreviewPage, sku: string, placed: string | undefined): string {
  const item = itemOf(v, sku);
  const c = changeOf(v, sku);
  const off = offState(v, sku);
  const m = placed ?? mark(ownChange(c)) ?? mark(off.change);
  if (!item)
    return `<li${classes("entry item", m)}${attr("data-sku", sku)}><div class="body">${t(sku)}</div></li>`;
  const title = valueOr(
    field<ItemResource>("title", c, (r) => r.title, String),
    t(item.title),
  );
  const description = valueOr(
    field<ItemResource>("description", c, (r) => r.description, String),
    t(item.description),
  );
  const price = valueOr(
    field<ItemResource>(
      "price",
      c,
      (r) => r.price,
      (x) => priceText(v, x),
      "span",
      "price",
    ),
    `<span class="price">${t(priceText(v, item.price))}</span>`,
  );
  const schedules = valueOr(
    field<ItemResource>("schedules", c, (r) => r.schedules ?? [], pageSchedulesText),
    t(pageSchedulesText(item.schedules)),
  );
  const images = field<ItemResource>(
    "images",
    c,
    (r) => r.images.map(imagePath),
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

/**
 * The items kind on the preview's pages: drawn in their categories and in the "Modifier groups"
 * section (by the menus' part); their images, from the platform's hosts only.
 */
export const itemsPreview: KindPreview = {
  images: {
    of: (resource) => {
      const images = (resource as Partial<ItemResource> | null)?.images;
      return Array.isArray(images) ? images : undefined;
    },
    all: (state) => itemsOf(state),
  },
};

/**
 * What the files have the store offer from a date still ahead, which no change of the plan shows yet:
 * items, categories and menus offered from a date or until one (a season), and prices set from a date
 * (src/kinds/catalog.ts `offerWindows`, `upcomingPrices`), each with its dates as written (on the
 * store's clock). `""` when there is none. Each entry is marked `data-change="upcoming"`, so that
 * "Show changed only" keeps it.
 */
export function renderUpcoming(v: PreviewPage): string {
  const state = v.state ? itemsState.get(v.state) : undefined;
  if (!state) return "";
  const entries: string[] = [];
  const titleOf = (what: string, key: string): string => {
    const title = what === "item" ? own(state.items, key)?.title : undefined;
    return `${title !== undefined ? `${t(title)} ` : ""}<code>${t(key)}</code>`;
  };
  for (const n of state.offerWindows ?? []) {
    const when = n.offered
      ? `offered until ${t(n.until ?? "")}, then no longer`
      : `offered from ${t(n.from ?? "")}${n.until === undefined ? "" : ` until ${t(n.until)}`}`;
    entries.push(
      `<li class="entry upcoming" data-change="upcoming"${attr("data-what", n.what)}${attr("data-sku", n.key)}>` +
        `${n.what === "item" ? "" : `${n.what === "menu" ? "Menu" : "Category"} `}${titleOf(n.what, n.key)}: ${when}</li>`,
    );
  }
  for (const [sku, p] of Object.entries(state.upcomingPrices ?? {})) {
    entries.push(
      `<li class="entry upcoming" data-change="upcoming" data-what="price"${attr("data-sku", sku)}>` +
        `${titleOf("item", sku)}: <span class="price">${t(formatPrice(p.price, v.currency))}</span> from ${t(p.from)}` +
        `${p.until === undefined ? "" : ` until ${t(p.until)}`}</li>`,
    );
  }
  if (entries.length === 0) return "";
  return (
    `<section class="entry upcoming-list" id="upcoming" data-change="upcoming" aria-labelledby="upcoming-title">` +
    `<h2 id="upcoming-title">Upcoming</h2>` +
    `<p class="meta">Not on the menu yet: the first run of carte from each date on makes it so.</p>\n` +
    `<ul>\n${entries.join("\n")}\n</ul>\n</section>`
  );
}
