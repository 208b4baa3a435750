/**
 * Pieces of the pages of `carte preview` that every kind's part draws with (src/kinds/show.ts
 * `KindPreview`): the marks of a change (`added`, `removed`, `changed`, with a word beside the colour),
 * a value the plan changes as old → new, lists merged with what they lose, ids made of the files'
 * values. Every value of the files goes through src/show/html.ts.
 */

import type { ImageRef, Schedule } from "../model.js";
import { attr, escapeHtmlText as t, httpUrl } from "./html.js";

/** How an element of a page is marked: what the plan adds, removes or changes there. */
export type Mark = "added" | "removed" | "changed";

/** The mark of a change: `added`, `removed` or `changed`; `undefined` for none. */
export function mark(c: { action: "create" | "update" | "delete" } | undefined): Mark | undefined {
  if (!c) return undefined;
  return c.action === "create" ? "added" : c.action === "delete" ? "removed" : "changed";
}

/** ` class="…" data-change="…"` of an element, with its change when it has one. */
export function classes(base: string, change: string | undefined, extra = ""): string {
  const cls = [base, change, extra].filter((c) => c !== undefined && c !== "").join(" ");
  return `${attr("class", cls)}${change ? attr("data-change", change) : ""}`;
}

/** The keys of the new list, then those of the old one it no longer holds (shown removed). */
export function merged(
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

/**
 * A value that the plan changes, shown as old → new (`<del>` and `<ins>`, with `data-field`,
 * `data-before` and `data-after`); `""` when the change does not change it.
 */
export function field<R>(
  name: string,
  change: { action: string; before: unknown; after: unknown } | undefined,
  pick: (r: R) => unknown,
  show: (value: unknown) => string,
  tag = "span",
  cls = "",
): string {
  const after = change?.after as R | undefined;
  const before = change?.before as R | undefined;
  if (change?.action === "update" && before && after) {
    const old = pick(before);
    const now = pick(after);
    if (JSON.stringify(old) !== JSON.stringify(now)) {
      const [was, is] = [show(old), show(now)];
      return (
        `<${tag}${attr("class", `${cls} changed`.trim())}${attr("data-field", name)}${attr("data-before", was)}${attr("data-after", is)}>` +
        `${sideText("del", was)} → ${sideText("ins", is)}</${tag}>`
      );
    }
  }
  return "";
}

/**
 * One side of a changed value: the value, or "(none)" in words where there was none or will be none
 * (a description added where there was none reads "(none) → …", not a bare arrow).
 */
function sideText(tag: "del" | "ins", text: string): string {
  return text === "" ? `<${tag} class="none">(none)</${tag}>` : `<${tag}>${t(text)}</${tag}>`;
}

/** A plain or changed value: the changed form when the plan changes it, else `plain`. */
export function valueOr(changed: string, plain: string): string {
  return changed !== "" ? changed : plain;
}

/**
 * The word of an added or removed mark (`New`, `Removed`), so that the mark does not rest on colour
 * alone; a changed element shows its old and new values instead.
 */
export function markBadge(m: string | undefined): string {
  if (m === "added") return ' <span class="badge">New</span>';
  if (m === "removed") return ' <span class="badge">Removed</span>';
  return "";
}

/**
 * The word of a heading's mark, so that a highlighted menu or category heading says what the colour
 * says: `New`, `Removed`, or `Changed` (something in it changes: its title, its list, an item).
 */
export function headingBadge(m: string | undefined): string {
  return m === "changed" ? ' <span class="badge">Changed</span>' : markBadge(m);
}

/** Schedules on a page: `mon-fri 06:00–11:00; sat 07:00–12:00`; none: `always`. */
export function pageSchedulesText(value: unknown): string {
  const list = Array.isArray(value) ? (value as Schedule[]) : [];
  if (list.length === 0) return "always";
  return list.map((s) => `${s.days} ${s.periods.map((p) => `${p.start}–${p.end}`).join(", ")}`).join("; ");
}

/**
 * `text` as a part of an element id: ASCII letters, digits and `-` as they are, every other character
 * as `_` and its UTF-8 bytes in hex (`_20` for a space), so that two values never give the same part
 * and an id holds no white space; `__` (never part of an escape) joins two parts.
 */
export function idPart(text: string): string {
  let out = "";
  for (const ch of text) {
    out += /^[A-Za-z0-9-]$/.test(ch)
      ? ch
      : [...Buffer.from(ch, "utf8")].map((b) => `_${b.toString(16).padStart(2, "0")}`).join("");
  }
  return out;
}

/**
 * A resource as the plan leaves it (its change's `after`), as it was when the plan deletes it (`before`),
 * else as the files write it (`desired`).
 */
export function afterPlan<T>(
  change: { action: string; before: unknown; after: unknown } | undefined,
  desired: T | undefined,
): T | undefined {
  if (change?.action === "delete") return change.before as T;
  if (change?.after) return change.after as T;
  return desired;
}

/** The address of an image: its path resolved against its host, when that gives an `http(s)` URL. */
export function imageUrl(image: ImageRef): string | undefined {
  return typeof image === "string" ? httpUrl(image) : httpUrl(image.path, image.host);
}

/**
 * An origin a page's policy may name: `http(s)://` and a host name of letters, digits, dots and
 * hyphens, with a port. A URL's host may hold characters a policy gives a meaning to (`;`, `,`, `'`),
 * and an IP address literal is no host of an image service: neither is ever an image's origin here.
 */
const POLICY_ORIGIN = /^https?:\/\/[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/;

/** The origin of an image ({@link POLICY_ORIGIN}), or `undefined` when it has none a page may load. */
export function imageOrigin(image: ImageRef): string | undefined {
  const url = imageUrl(image);
  const origin = url === undefined ? undefined : new URL(url).origin;
  return origin !== undefined && POLICY_ORIGIN.test(origin) && !/^https?:\/\/[\d.]+(:|$)/.test(origin)
    ? origin
    : undefined;
}
