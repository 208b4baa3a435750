/**
 * Rendered answers of the emulator kept as the pieces of their JSON text (src/emulator/menu.ts keeps
 * a store's rendered catalog reads so; src/emulator/server.ts sends them).
 */

/**
 * JSON text kept as the pieces it is written in: their concatenation is the text. A rendered answer of
 * hundreds of kilobytes is kept so ({@link jsonParts}), never as one string: `JSON.stringify` gives
 * such a text as a rope of pieces that the first look at it (its UTF-8 length, its encoding) copies
 * into one flat string of fresh memory, which cost more than the rendering. server.ts encodes the
 * pieces one by one into a reused buffer.
 */
export class JsonParts {
  /** The length of the text, in UTF-16 code units. */
  readonly length: number;
  constructor(readonly parts: readonly string[]) {
    let length = 0;
    for (const part of parts) length += part.length;
    this.length = length;
  }
  /** The whole text. */
  text(): string {
    return this.parts.join("");
  }
}

/** How deep lists are written element by element (0: the value itself). */
const LIST_DEPTH = 2;
/** How deep objects are written member by member. */
const OBJECT_DEPTH = 1;

/**
 * The JSON text of `value` (as `JSON.stringify` writes it, byte for byte) in pieces: lists down to
 * {@link LIST_DEPTH} levels element by element, objects down to {@link OBJECT_DEPTH} member by member,
 * deeper values whole: a store menu's items one by one, a webhook list's stores one by one. Values
 * with a `toJSON` method are written whole.
 */
export function jsonParts(value: unknown): JsonParts {
  const parts: string[] = [];
  const whole = (v: unknown) => typeof v !== "object" || v === null || "toJSON" in v;
  const split = (v: unknown, depth: number): boolean =>
    !whole(v) && depth <= (Array.isArray(v) ? LIST_DEPTH : OBJECT_DEPTH);
  const write = (v: unknown, depth: number): void => {
    if (!split(v, depth)) {
      // A value JSON leaves out (undefined, a function) is written null where it cannot be left out.
      parts.push(JSON.stringify(v) ?? "null");
    } else if (Array.isArray(v)) {
      parts.push("[");
      v.forEach((e, i) => {
        if (i > 0) parts.push(",");
        write(e, depth + 1);
      });
      parts.push("]");
    } else {
      // Members in the order JSON.stringify writes them (own enumerable string keys).
      let separator = "{";
      for (const [key, member] of Object.entries(v as object)) {
        const text = split(member, depth + 1) ? undefined : JSON.stringify(member);
        if (text === undefined && !split(member, depth + 1)) continue; // a member JSON leaves out
        parts.push(`${separator}${JSON.stringify(key)}:`);
        if (text === undefined) write(member, depth + 1);
        else parts.push(text);
        separator = ",";
      }
      parts.push(separator === "{" ? "{}" : "}");
    }
  };
  write(value, 0);
  return new JsonParts(parts);
}
