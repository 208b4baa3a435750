/**
 * Quoting values of the configuration files in messages: short, escaped, on one line. A file from a
 * pull request may hold control characters, terminal escape sequences or very long values; a message
 * that quotes them must not forge output or fill a log (docs/security.md, "Hostile files").
 */

/** The most characters of a value a message quotes; longer values are cut and marked with `…`. */
export const QUOTE_MAX = 40;

/**
 * Characters that must not reach a message raw: C0 and C1 controls, DEL, soft hyphen, zero-width and
 * bidirectional formatting characters, line and paragraph separators, the byte order mark.
 */
/* eslint-disable no-control-regex -- these are the characters to find */
const INVISIBLE =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;
/* eslint-enable no-control-regex */

function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function cut(text: string, max: number): { shown: string; cut: boolean } {
  const chars = [...text];
  return chars.length > max
    ? { shown: chars.slice(0, max).join(""), cut: true }
    : { shown: text, cut: false };
}

/**
 * A value of the files quoted for a configuration message: in double quotes, JSON escapes (`\n`,
 * `\"`, `\\`), every invisible or control character as `\uXXXX`, at most {@link QUOTE_MAX} characters
 * (a longer value is cut and followed by `…` outside the quotes). The result is one line and cannot
 * carry a terminal escape sequence. Non-strings are shown with `String()` and the same escapes.
 */
export function quote(value: unknown, max = QUOTE_MAX): string {
  const { shown, cut: wasCut } = cut(typeof value === "string" ? value : String(value), max);
  return escapeInvisible(JSON.stringify(shown)) + (wasCut ? "…" : "");
}

/**
 * A name from the files shown without quotes (a catalog or group name, a SKU in running text): the
 * same escapes and cut as {@link quote}, so an ordinary name shows as written.
 */
export function bare(value: string, max = QUOTE_MAX): string {
  const { shown, cut: wasCut } = cut(value, max);
  const escaped = escapeInvisible(shown.replace(/\\/g, "\\\\"));
  return escaped + (wasCut ? "…" : "");
}
