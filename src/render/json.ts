/** The machine view of a plan: the versioned plan data itself (docs/plan-format.md). */

import { sealPlan } from "../plan/digest.js";
import type { Plan } from "../plan/types.js";
import { jsonSafe } from "./escape.js";

/**
 * Renders a plan as pretty-printed JSON, ending with a newline, sealed with its digest
 * (src/plan/digest.ts), so that the output is itself a plan file `carte apply FILE` accepts. Control and
 * bidirectional characters inside strings are written as `\uXXXX` escapes ({@link jsonSafe}): the same
 * JSON, inert on a terminal. One string: for a plan of any size, {@link renderJsonChunks}.
 */
export function renderJson(plan: Plan): string {
  return jsonSafe(JSON.stringify(sealPlan(plan), null, 2)) + "\n";
}

/**
 * The text of {@link renderJson} in pieces of at most `chunk` characters each (default
 * {@link JSON_CHUNK}), never one string
 * of the whole plan: the JSON of a plan of 10,000 stores takes gigabytes, past the longest string a
 * JavaScript engine makes (about 512 MiB in V8). The pieces joined are exactly {@link renderJson}'s text.
 */
export function renderJsonChunks(plan: Plan, chunk: number = JSON_CHUNK): Generator<string> {
  return jsonChunks(sealPlan(plan), { depth: 2, safe: true, chunk });
}

/** Characters of JSON in one piece at most ({@link jsonChunks}' default): 64 Ki. */
export const JSON_CHUNK = 1 << 16;

/** Options of {@link jsonChunks}. */
export interface JsonChunkOptions {
  /**
   * Levels of arrays and objects walked member by member (1: the members of the value itself; 2: also
   * those of its lists and objects, as a plan's changes); deeper values are written with one
   * `JSON.stringify` each (one change, one call), its text cut into pieces when longer than `chunk`.
   */
  depth: number;
  /** Escape the characters {@link jsonSafe} escapes (a view for a terminal). */
  safe: boolean;
  /** The most characters of a piece; default {@link JSON_CHUNK}. */
  chunk?: number;
}

/**
 * The text of `JSON.stringify(value, null, 2) + "\n"` (with {@link jsonSafe} when `safe`) in pieces of at
 * most `chunk` characters, made as they are taken: memory holds a piece and the value being written,
 * never the whole text. The value must be JSON data (plain objects, lists, strings, numbers, booleans,
 * null; members that are `undefined` are left out of an object and written `null` in a list, as
 * `JSON.stringify` does).
 */
export function* jsonChunks(value: unknown, options: JsonChunkOptions): Generator<string> {
  const limit = options.chunk ?? JSON_CHUNK;
  let buffer = "";
  const pieces: string[] = [];
  const put = (text: string): void => {
    buffer += options.safe ? jsonSafe(text) : text;
    while (buffer.length >= limit) {
      // Never between the two halves of a surrogate pair: each piece is encoded as UTF-8 on its own.
      const high = buffer.charCodeAt(limit - 1);
      const cut = limit > 1 && high >= 0xd800 && high <= 0xdbff ? limit - 1 : limit;
      pieces.push(buffer.slice(0, cut));
      buffer = buffer.slice(cut);
    }
  };
  for (const step of walk(jsonValue(value, ""), "", options.depth, put)) {
    void step;
    yield* pieces.splice(0);
  }
  put("\n");
  yield* pieces.splice(0);
  if (buffer.length > 0) yield buffer;
}

/** `value` after its `toJSON`, as `JSON.stringify` takes it. */
function jsonValue(value: unknown, key: string): unknown {
  const toJSON = (value as { toJSON?: unknown } | null | undefined)?.toJSON;
  return typeof toJSON === "function" ? (toJSON as (k: string) => unknown).call(value, key) : value;
}

/**
 * Writes the JSON text of `value` (indented by `indent`, its first line not) through `put`, member by
 * member down `depth` levels; yields after each member so that the caller can hand pieces on. A value
 * `JSON.stringify` leaves out writes nothing and returns false.
 */
function* walk(
  value: unknown,
  indent: string,
  depth: number,
  put: (text: string) => void,
): Generator<void, boolean> {
  const isList = Array.isArray(value);
  if (depth <= 0 || typeof value !== "object" || value === null) {
    const text = JSON.stringify(value, null, 2) as string | undefined;
    if (text === undefined) return false;
    put(indent === "" ? text : text.replaceAll("\n", `\n${indent}`));
    return true;
  }
  const inner = `${indent}  `;
  const keys = isList ? undefined : Object.keys(value);
  const count = isList ? value.length : keys!.length;
  let written = 0;
  for (let i = 0; i < count; i++) {
    const key = isList ? String(i) : keys![i]!;
    const member = jsonValue((value as Record<string, unknown>)[key], key);
    if (!isList && (member === undefined || typeof member === "function" || typeof member === "symbol"))
      continue;
    put(`${written === 0 ? (isList ? "[" : "{") : ","}\n${inner}${isList ? "" : `${JSON.stringify(key)}: `}`);
    written++;
    if (!(yield* walk(member, inner, depth - 1, put))) put("null");
    yield;
  }
  put(written === 0 ? (isList ? "[]" : "{}") : `\n${indent}${isList ? "]" : "}"}`);
  return true;
}
