/**
 * Request bodies written as JSON once for many calls. The calls of an apply from empty send the same
 * elements to every store of a shared catalog (the planner builds one element object per shared
 * resource, src/plan/plan.ts): an items upsert of 250 KB per store was serialised with
 * `JSON.stringify` and encoded to UTF-8 for each call. {@link jsonBodies} keeps the UTF-8 bytes of an
 * element met a second time, by object identity, so that later calls carrying it only copy bytes.
 */

/** A request body already written as JSON (UTF-8), sent as it is by src/platform/client.ts. */
export class JsonBytes {
  constructor(readonly bytes: Buffer) {}
}

const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");

/** A value with a `toJSON` method, which `JSON.stringify` calls with its key (its index in an array). */
function stamped(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === "object" &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  );
}

/**
 * An encoder of request bodies for calls whose values are not changed while it lives (the calls of one
 * apply: the plan is never changed). It gives exactly the bytes of `JSON.stringify(body)` in UTF-8; a
 * body that is an array is written element by element, and the bytes of an object element are kept
 * from its second call on (an element of one call only is not kept: memory holds only what is shared).
 * A body that is not an array is written with `JSON.stringify`. A body holding the same elements, in
 * the same order, as the last body whose first element is shared gets that body's bytes, not a copy
 * (a fresh buffer of a few hundred KB per call cost more than writing it); they are never changed.
 *
 * @returns the encoder: the body's JSON as {@link JsonBytes}.
 * @throws TypeError as `JSON.stringify` does (a cycle, a BigInt).
 */
export function jsonBodies(): (body: unknown) => JsonBytes {
  const seen = new WeakSet<object>();
  const kept = new WeakMap<object, Buffer>();
  const element = (value: unknown): Buffer => {
    if (value === null || typeof value !== "object") return Buffer.from(JSON.stringify(value) ?? "null");
    const known = kept.get(value);
    if (known) return known;
    const bytes = Buffer.from(JSON.stringify(value));
    if (seen.has(value)) kept.set(value, bytes);
    else seen.add(value);
    return bytes;
  };
  // The last body written whose first element is shared, by that element: the same elements in the
  // same order (every store of a shared catalog) give the same bytes, sent again without a copy.
  const bodies = new WeakMap<object, { elements: readonly unknown[]; bytes: JsonBytes }>();
  const whole = (body: unknown) => new JsonBytes(Buffer.from(JSON.stringify(body)));
  return (body) => {
    if (!Array.isArray(body) || stamped(body) || body.some(stamped)) return whole(body);
    const first: unknown = body[0];
    const key = first !== null && typeof first === "object" ? first : undefined;
    const last = key === undefined ? undefined : bodies.get(key);
    if (last && sameElements(last.elements, body)) return last.bytes;
    const parts: Buffer[] = [OPEN];
    for (let i = 0; i < body.length; i++) {
      if (i > 0) parts.push(COMMA);
      parts.push(element(body[i]));
    }
    parts.push(CLOSE);
    const bytes = new JsonBytes(Buffer.concat(parts));
    // Kept only when its first element was met in an earlier call: a body of one call is not kept.
    if (key !== undefined && kept.has(key)) bodies.set(key, { elements: body.slice(), bytes });
    return bytes;
  };
}

/** Whether two arrays hold the same values (`===`) in the same order. */
function sameElements(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
