/** Small pure helpers shared by the kinds. */

/** Sorts by `index` (missing last, stable) and returns the elements. */
export function byIndex<T extends { index?: number }>(list: readonly T[] | undefined): T[] {
  return [...(list ?? [])].sort((a, b) => (a.index ?? Infinity) - (b.index ?? Infinity));
}

/** Deep equality of plain JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  return ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && jsonEqual(ao[k], bo[k]));
}

/** Address of a resource: `store[KEY].SEGMENT[KEY]`. */
export function address(store: string, segment: string, key: string): string {
  return `store[${store}].${segment}[${key}]`;
}
