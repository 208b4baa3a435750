/** Small pure helpers shared by the kinds. */

/** Sorts by `index` (missing last, stable) and returns the elements. */
export function byIndex<T extends { index?: number }>(list: readonly T[] | undefined): T[] {
  return [...(list ?? [])].sort((a, b) => (a.index ?? Infinity) - (b.index ?? Infinity));
}

/** Deep equality of plain JSON values. (Loops, not callbacks: the planner calls it for every resource.) */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  const isArray = Array.isArray(a);
  if (isArray !== Array.isArray(b)) return false;
  if (isArray) {
    const aa = a as unknown[];
    const bb = b as unknown[];
    if (aa.length !== bb.length) return false;
    for (let i = 0; i < aa.length; i++) if (!jsonEqual(aa[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  for (let i = 0; i < ak.length; i++) {
    const k = ak[i]!;
    if (!Object.prototype.hasOwnProperty.call(bo, k) || !jsonEqual(ao[k], bo[k])) return false;
  }
  return true;
}

/** Address of a resource: `store[KEY].SEGMENT[KEY]`. */
export function address(store: string, segment: string, key: string): string {
  // Joined, not a template: one flat string. A plan from empty holds an address per change (600,000
  // at 1,000 stores), and a template keeps each as a tree of six partial strings.
  return ["store[", store, "].", segment, "[", key, "]"].join("");
}

/** A copy of a table with its keys in code-unit order (the canonical order of the kinds' states). */
export function sortedRecord<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
