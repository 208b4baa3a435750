/**
 * Escaping for the HTML of `carte preview`: the pages (src/render/menu-pages.ts) and the parts the kinds
 * draw on them (src/kinds/show.ts `KindPreview`). Every value from the files or the platform is text
 * there, never markup: it goes through {@link escapeHtmlText} into an element or a quoted attribute.
 * Five characters are enough for both (the HTML spec's text and double- or single-quoted attribute
 * states); a dozen lines of our own beat a dependency for that.
 */

const ENTITIES: ReadonlyMap<string, string> = new Map([
  ["&", "&amp;"],
  ["<", "&lt;"],
  [">", "&gt;"],
  ['"', "&quot;"],
  ["'", "&#39;"],
]);

/**
 * `text` as HTML text, safe inside an element and inside a quoted attribute value: `&`, `<`, `>`, `"`
 * and `'` become character references. Control characters other than tab, line feed and carriage return
 * (which a browser would show as nothing or reject) become U+FFFD.
 */
export function escapeHtmlText(text: string): string {
  return (
    text
      .replace(/[&<>"']/g, (c) => ENTITIES.get(c)!)
      // eslint-disable-next-line no-control-regex -- control characters are what is replaced
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "\ufffd")
  );
}

/** `name="value"` with the value escaped ({@link escapeHtmlText}), for an attribute of an element. */
export function attr(name: string, value: string | number): string {
  return ` ${name}="${escapeHtmlText(String(value))}"`;
}

/**
 * The address of an image as an `http:` or `https:` URL, or `undefined` for anything else (a relative
 * path, `javascript:`, `data:`…): the preview shows a placeholder then, and never links to it. `host`,
 * when given, is the base the path is resolved against (docs/platform-api.md §4.3
 * `images_info.images[].host`).
 */
export function httpUrl(path: string, host?: string): string | undefined {
  try {
    const url = host === undefined ? new URL(path) : new URL(path, new URL(host));
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}
