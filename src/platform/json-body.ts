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
 * A body that is not an array is written with `JSON.stringify`.
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
  const whole = (body: unknown) => new JsonBytes(Buffer.from(JSON.stringify(body)));
  return (body) => {
    if (!Array.isArray(body) || stamped(body) || body.some(stamped)) return whole(body);
    const parts: Buffer[] = [OPEN];
    for (let i = 0; i < body.length; i++) {
      if (i > 0) parts.push(COMMA);
      parts.push(element(body[i]));
    }
    parts.push(CLOSE);
    return new JsonBytes(Buffer.concat(parts));
  };
}
