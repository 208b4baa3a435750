/**
 * YAML parsing that keeps source positions, so that every configuration problem can be reported as
 * `file:line:col`. Problems are found on plain data (JSON pointers into the parsed value) and located
 * afterwards by walking the YAML document along the pointer.
 */

import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import type { Document, Node as YamlNode } from "yaml";
import type { ConfigProblem } from "../errors.js";

/** A parsed YAML file: its plain value and what is needed to locate pointers inside it. */
export interface YamlFile {
  /** Path of the file as shown in problems (relative to the working directory). */
  file: string;
  /** The plain JavaScript value of the document (`null` for an empty file). */
  data: unknown;
  /** The YAML document, with node ranges. */
  doc: Document.Parsed;
  /** Maps character offsets to 1-based lines and columns. */
  lineCounter: LineCounter;
}

/** A 1-based position in a file. */
export interface Position {
  line: number;
  col: number;
}

/**
 * Parses YAML text keeping positions.
 *
 * @param file - the path shown in problems.
 * @param text - the file's content.
 * @returns the parsed file, and one located problem per YAML syntax error (duplicate keys included).
 *   When there are syntax errors, `data` is whatever the parser could recover and should not be trusted.
 */
export function parseYaml(file: string, text: string): { parsed: YamlFile; problems: ConfigProblem[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: true,
    keepSourceTokens: false,
  });
  const problems: ConfigProblem[] = doc.errors.map((err) => {
    const { line, col } = offsetPosition(lineCounter, err.pos[0]);
    return { file, line, col, pointer: "", message: `YAML syntax error: ${yamlMessage(err.message)}` };
  });
  let data: unknown = null;
  try {
    data = doc.toJS({ maxAliasCount: 1000 }) as unknown;
  } catch (err) {
    // toJS throws on e.g. alias loops; the parse errors (if any) already say why.
    problems.push({
      file,
      line: 0,
      col: 0,
      pointer: "",
      message: `cannot read the YAML document: ${err instanceof Error ? err.message : String(err)}`,
    });
  }
  return { parsed: { file, data, doc, lineCounter }, problems };
}

/** Keeps the first line of a parser message and drops the parser's own "at line x" suffix. */
function yamlMessage(message: string): string {
  const first = message.split("\n")[0] ?? message;
  return first.replace(/ at line \d+, column \d+:?$/, "").trim();
}

/** 1-based position of a character offset; never line 0. */
function offsetPosition(lineCounter: LineCounter, offset: number): Position {
  const pos = lineCounter.linePos(offset);
  return pos.line === 0 ? { line: 1, col: offset + 1 } : pos;
}

/** Splits a JSON pointer (`/items/3/price`) into unescaped segments. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** Builds a JSON pointer from segments. */
export function toPointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => "/" + String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

/**
 * Locates a JSON pointer in a parsed file.
 *
 * @param target - `"value"` (default) gives the position of the value; `"key"` gives the position of the
 *   key of the last segment when it is a mapping key (used for "unknown key" problems).
 * @returns the position of the deepest node found along the pointer (the whole pointer when it exists);
 *   line 1, column 1 for an empty document.
 */
export function locate(parsed: YamlFile, pointer: string, target: "value" | "key" = "value"): Position {
  const { doc, lineCounter } = parsed;
  const segments = pointerSegments(pointer);
  let node: unknown = doc.contents;
  let position: Position = nodePosition(lineCounter, node) ?? { line: 1, col: 1 };
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] ?? "";
    const last = i === segments.length - 1;
    node = resolveAlias(doc, node);
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && scalarKey(p.key) === segment);
      if (!pair) return position;
      const keyPos = nodePosition(lineCounter, pair.key);
      if (last && target === "key" && keyPos) return keyPos;
      const valuePos = nodePosition(lineCounter, pair.value);
      // An empty value (`price:`) has no node: point at its key.
      position = valuePos ?? keyPos ?? position;
      node = pair.value;
    } else if (isSeq(node)) {
      const index = Number(segment);
      const item: unknown = Number.isInteger(index) ? node.items[index] : undefined;
      if (item === undefined) return position;
      position = nodePosition(lineCounter, item) ?? position;
      node = item;
    } else {
      return position;
    }
  }
  return position;
}

function resolveAlias(doc: Document.Parsed, node: unknown): unknown {
  let current = node;
  // Aliases may point to aliases; the document forbids cycles, the bound is a safety net.
  for (let i = 0; i < 100 && isAlias(current); i++) current = current.resolve(doc);
  return current;
}

function scalarKey(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return undefined;
}

function nodePosition(lineCounter: LineCounter, node: unknown): Position | undefined {
  if (node === null || typeof node !== "object") return undefined;
  const range = (node as YamlNode).range;
  if (!range) return undefined;
  return offsetPosition(lineCounter, range[0]);
}

/**
 * The source text of the scalar a JSON pointer names, exactly as the file writes it (`24.900`, where
 * the parsed value is the number 24.9), or `undefined` when the pointer does not name a scalar. Used to
 * read prices as written (src/money.ts).
 */
export function scalarSource(parsed: YamlFile, pointer: string): string | undefined {
  const { doc } = parsed;
  let node: unknown = doc.contents;
  for (const segment of pointerSegments(pointer)) {
    node = resolveAlias(doc, node);
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && scalarKey(p.key) === segment);
      if (!pair) return undefined;
      node = pair.value;
    } else if (isSeq(node)) {
      const index = Number(segment);
      node = Number.isInteger(index) ? node.items[index] : undefined;
    } else {
      return undefined;
    }
  }
  node = resolveAlias(doc, node);
  if (!isScalar(node)) return undefined;
  const source = (node as { source?: unknown }).source;
  return typeof source === "string" ? source : undefined;
}
