/**
 * SKU patterns: a SKU in which `*` stands for any run of SKU characters, possibly empty (`PIZZA-*-G`
 * matches PIZZA-CALABRESA-G and PIZZA--G, `*-G` every SKU ending in -G, `*` every SKU). `*` is the
 * only wildcard: no `?`, classes or braces, and every other character stands for itself. A pattern
 * without `*` is an exact SKU.
 *
 * Patterns come from the files, so they are never turned into regular expressions: matching splits the
 * pattern at its stars and looks for the pieces left to right (the leftmost place of each piece is the
 * right one when the only wildcard is `*`), each piece found with the Knuth–Morris–Pratt search. The
 * work is linear in the lengths of the SKU and the pattern, whatever they hold.
 */

/** The wildcard of a SKU pattern: any run of SKU characters, possibly empty. */
export const SKU_WILDCARD = "*";

/** Whether a key of the files is a SKU pattern (it has a `*`), not an exact SKU. */
export function isSkuPattern(text: string): boolean {
  return text.includes(SKU_WILDCARD);
}

/** A compiled SKU pattern. */
export interface SkuPattern {
  /** The pattern as written. */
  readonly text: string;
  /** Whether `sku` matches the whole pattern; time linear in the lengths of `sku` and the pattern. */
  matches(sku: string): boolean;
}

/** A piece of a pattern between two stars, with its Knuth–Morris–Pratt failure table. */
interface Piece {
  text: string;
  /** `fail[i]`: the length of the longest proper border of `text.slice(0, i + 1)`. */
  fail: number[];
}

function piece(text: string): Piece {
  const fail = new Array<number>(text.length).fill(0);
  for (let i = 1, k = 0; i < text.length; i++) {
    while (k > 0 && text[i] !== text[k]) k = fail[k - 1]!;
    if (text[i] === text[k]) k++;
    fail[i] = k;
  }
  return { text, fail };
}

/** The first index ≥ `from` where `p` occurs in `s` and ends at or before `end`; -1 when none. */
function find(s: string, p: Piece, from: number, end: number): number {
  const t = p.text;
  for (let i = from, k = 0; i < end; i++) {
    while (k > 0 && s[i] !== t[k]) k = p.fail[k - 1]!;
    if (s[i] === t[k]) k++;
    if (k === t.length) return i - t.length + 1;
  }
  return -1;
}

/**
 * Compiles a SKU pattern (the caller bounds its length: the schemas allow 500 characters).
 *
 * @param text - a SKU in which each `*` stands for any run of characters; consecutive stars are one.
 */
export function skuPattern(text: string): SkuPattern {
  const parts = text.split(SKU_WILDCARD);
  if (parts.length === 1) return { text, matches: (sku) => sku === text };
  const head = parts[0]!;
  const tail = parts[parts.length - 1]!;
  const middle = parts
    .slice(1, -1)
    .filter((p) => p.length > 0)
    .map(piece);
  const least = head.length + tail.length + middle.reduce((n, p) => n + p.text.length, 0);
  return {
    text,
    matches(sku: string): boolean {
      if (sku.length < least || !sku.startsWith(head) || !sku.endsWith(tail)) return false;
      const end = sku.length - tail.length;
      let at = head.length;
      for (const p of middle) {
        const found = find(sku, p, at, end);
        if (found < 0) return false;
        at = found + p.text.length;
      }
      return true;
    },
  };
}
