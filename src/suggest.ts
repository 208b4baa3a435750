/**
 * "Did you mean …?": the closest known name to a misspelled one (a SKU, a catalog, a group, a kind,
 * a store), by Levenshtein distance (the `leven` package), case-insensitive, within a distance that
 * grows with the name's length. The names compared come from files: the caller quotes what it shows.
 */

import leven from "leven";

/** Names longer than this are not compared (a hostile file may hold very long values). */
export const SUGGEST_MAX_LENGTH = 200;

/** The most candidates compared; past this many, no suggestion (bounded work per problem). */
export const SUGGEST_MAX_CANDIDATES = 20_000;

/**
 * The largest distance accepted for a name of `length` characters: 1 under 4 characters, else a third
 * of its length but at least 2 (two swapped letters) and at most 4 (further than that the "suggestion"
 * is another name, not a typo).
 */
export function maxDistanceFor(length: number): number {
  if (length < 4) return 1;
  return Math.max(2, Math.min(4, Math.floor(length / 3)));
}

/**
 * The known name closest to `wanted`, or undefined when none is close enough ({@link maxDistanceFor})
 * or `wanted` is itself known. Comparison ignores case; a tie keeps the first candidate.
 *
 * @param wanted - the name as written.
 * @param candidates - the names that exist.
 */
export function closest(wanted: string, candidates: Iterable<string>): string | undefined {
  if (wanted.length === 0 || wanted.length > SUGGEST_MAX_LENGTH) return undefined;
  const target = wanted.toLowerCase();
  const limit = maxDistanceFor(wanted.length);
  let best: string | undefined;
  let bestDistance = limit + 1;
  let seen = 0;
  for (const c of candidates) {
    if (++seen > SUGGEST_MAX_CANDIDATES) return undefined;
    if (c === wanted) return undefined;
    if (c.length > SUGGEST_MAX_LENGTH || Math.abs(c.length - wanted.length) > limit) continue;
    const d = leven(target, c.toLowerCase(), { maxDistance: bestDistance });
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * ` (did you mean X?)` to put after a name in a message, X shown by `show` (the caller's quoting), or
 * "" when no known name is close.
 */
export function didYouMean(
  wanted: string,
  candidates: Iterable<string>,
  show: (name: string) => string,
): string {
  const best = closest(wanted, candidates);
  return best === undefined ? "" : ` (did you mean ${show(best)}?)`;
}

/** Suggestions one {@link suggester} makes at most: a file with thousands of unknown names stays fast. */
export const SUGGEST_BUDGET = 200;

/**
 * {@link didYouMean} that stops suggesting after `budget` calls (the work of a broken or hostile file
 * with many unknown names stays bounded); make one per file or per load.
 */
export function suggester(
  budget = SUGGEST_BUDGET,
): (wanted: string, candidates: Iterable<string>, show: (name: string) => string) => string {
  let left = budget;
  return (wanted, candidates, show) => (left-- > 0 ? didYouMean(wanted, candidates, show) : "");
}
