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
  constructor(readonly parts: readonly string[]) {}
  /** The whole text. */
  text(): string {
    return this.parts.join("");
  }
}

/**
 * The JSON text of `value` (as `JSON.stringify` writes it, byte for byte) in pieces: an array's
 * elements one by one, and an object's members one by one with its array members' elements one by one
 * (a store menu: its menus, categories and items). Values with a `toJSON` method are written whole.
 */
export function jsonParts(value: unknown): JsonParts {
  const parts: string[] = [];
  const array = (list: readonly unknown[]) => {
    parts.push("[");
    list.forEach((e, i) => {
      if (i > 0) parts.push(",");
      // An element JSON leaves out (undefined, a function) is written null in an array.
      parts.push(JSON.stringify(e) ?? "null");
    });
    parts.push("]");
  };
  const whole = (v: unknown) => typeof v !== "object" || v === null || "toJSON" in v;
  const list = (v: unknown): v is readonly unknown[] => Array.isArray(v) && !whole(v);
  if (list(value)) array(value);
  else if (whole(value)) parts.push(JSON.stringify(value) ?? "null");
  else {
    // Members in the order JSON.stringify writes them (own enumerable string keys).
    let separator = "{";
    for (const [key, member] of Object.entries(value as object)) {
      if (list(member)) {
        parts.push(`${separator}${JSON.stringify(key)}:`);
        array(member);
      } else {
        const text = JSON.stringify(member);
        if (text === undefined) continue; // a member JSON leaves out
        parts.push(`${separator}${JSON.stringify(key)}:`, text);
      }
      separator = ",";
    }
    parts.push(separator === "{" ? "{}" : "}");
  }
  return new JsonParts(parts);
}
