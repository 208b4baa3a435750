/**
 * YAML parsing that keeps source positions, so that every configuration problem can be reported as
 * `file:line:col`. Problems are found on plain data (JSON pointers into the parsed value) and located
 * afterwards by walking the YAML document along the pointer.
 */

import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import type { Document, Node as YamlNode, Pair, YAMLMap } from "yaml";
import type { ConfigProblem } from "../errors.js";
import { quote } from "./quote.js";
import { describeSyntaxError } from "./slip.js";

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
 * Bounds on what one file may make the parser build, so that a hostile file is refused quickly and in
 * little memory (docs/security.md, "Hostile files"). The yaml library needs about 1 KB of memory and
 * 5–10 µs per node, so the node bound, checked on the text before parsing, is what bounds the cost.
 */
export interface ParseLimits {
  /** Most YAML nodes (keys, values, list entries), as counted by {@link countNodes}. */
  maxNodes: number;
  /** Deepest nesting of mappings and lists. */
  maxDepth: number;
  /** Most alias expansions (`*name`) when building the value (the yaml library's `maxAliasCount`). */
  maxAliasCount: number;
}

/** Default of `limits.max_file_nodes` in carte.yaml: about 10,000 catalog items; parsing the most it allows takes about 1.5 s and 150 MB. */
export const DEFAULT_MAX_NODES = 100_000;

/** Deepest nesting of mappings and lists in a file; carte's files need fewer than 10 levels. */
export const MAX_DEPTH = 64;

/** Most alias expansions when building a file's value. */
export const MAX_ALIAS_COUNT = 1000;

/**
 * The most distinct problems collected for one load (src/source/problems.ts `addProblem`). A hostile or
 * broken file can hold a hundred thousand mistakes; past this many, further problems are neither
 * located nor kept, and the report says that only the first ones are shown.
 */
export const MAX_PROBLEMS = 1000;

/** The default bounds of {@link ParseLimits}. */
export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  maxNodes: DEFAULT_MAX_NODES,
  maxDepth: MAX_DEPTH,
  maxAliasCount: MAX_ALIAS_COUNT,
};

/**
 * Characters YAML does not allow in a stream (YAML 1.2 §5.1 `c-printable`): C0 controls other than tab,
 * line feed and carriage return, DEL, C1 controls other than NEL, lone surrogates, U+FFFE and U+FFFF.
 * Escapes written inside double quotes (`"\e"`) are not concerned.
 */
/* eslint-disable no-control-regex -- these are the characters to find */
const NON_PRINTABLE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/* eslint-enable no-control-regex */

/**
 * Counts, without parsing, the marks that start a YAML node: `,`, `[`, `{`, line breaks, and `-`, `:`
 * or `?` followed by a space, a tab or a line break. Every node of a document needs one of them near it
 * (at most about three nodes per mark), so the count bounds the work the parser will do. Stops counting
 * once past `limit`.
 *
 * @returns the count (at most `limit + 1`) and, when it went past `limit`, the offset where it did.
 */
export function countNodes(text: string, limit: number): { count: number; overAt?: number } {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let mark = c === 44 || c === 91 || c === 123 || c === 10;
    if (!mark && (c === 45 || c === 58 || c === 63)) {
      const next = text.charCodeAt(i + 1);
      mark = Number.isNaN(next) || next === 32 || next === 9 || next === 10 || next === 13;
    }
    if (mark && ++count > limit) return { count, overAt: i };
  }
  return { count };
}

/**
 * Parses YAML text keeping positions, within bounds.
 *
 * Problems found, each located:
 * - control characters YAML does not allow (nothing is parsed);
 * - YAML syntax errors, duplicate keys included (checked here in linear time: the yaml library's own
 *   check compares each key with every key before it, which a file of 100,000 keys turns into minutes);
 * - a second YAML document (`---` after the first one's content), located at its start: only the first
 *   document would be read, so whatever follows would be ignored without a word;
 * - more nodes than `limits.maxNodes` (nothing is parsed), nesting deeper than `limits.maxDepth`, more
 *   alias expansions than `limits.maxAliasCount` (the value is not built);
 * - numbers that are not finite (`.nan`, `.inf`, `1e400`) or too large to be exact (beyond 2^53 − 1,
 *   which JavaScript would silently round).
 *
 * @param file - the path shown in problems.
 * @param text - the file's content.
 * @returns the parsed file, the problems, and whether `data` is only what the parser could recover
 *   (possibly `null`), not to be trusted: so whenever there are problems, except a second document
 *   alone, after which the first one is whole.
 */
export function parseYaml(
  file: string,
  text: string,
  limits: ParseLimits = DEFAULT_PARSE_LIMITS,
): { parsed: YamlFile; problems: ConfigProblem[]; recovered: boolean } {
  const lineCounter = new LineCounter();
  const refuse = (offset: number, message: string) => {
    // Count the lines up to the offset, without parsing.
    const lines = new LineCounter();
    lines.addNewLine(0);
    for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1))
      lines.addNewLine(i + 1);
    const { line, col } = offsetPosition(lines, offset);
    return {
      parsed: { file, data: null, doc: parseDocument("", { lineCounter }), lineCounter },
      problems: [{ file, line, col, pointer: "", message }],
      recovered: true,
    };
  };
  const control = NON_PRINTABLE.exec(text);
  if (control)
    return refuse(
      control.index,
      `the file contains the control character U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}, ` +
        `which YAML does not allow: remove it (write "\\e", "\\0"… inside double quotes if it is meant)`,
    );
  const nodes = countNodes(text, limits.maxNodes);
  if (nodes.overAt !== undefined)
    return refuse(
      nodes.overAt,
      `the file holds more than ${limits.maxNodes} YAML nodes (keys, values, list entries) by here; ` +
        `it was not read: split it, or raise limits.max_file_nodes in carte.yaml`,
    );
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: false, // checked in walk(), in linear time
    keepSourceTokens: false,
    // "error", not "silent": the library then reports a second document (MULTIPLE_DOCS), which it
    // drops without a word when silent; it prints only at "warn" and "debug", and must not print.
    logLevel: "error",
  });
  const at = (offset: number, message: string): ConfigProblem => {
    const { line, col } = offsetPosition(lineCounter, offset);
    return { file, line, col, pointer: "", message };
  };
  // The library composes the second document only to report it, and stops there: the first is whole.
  const errors = doc.errors.filter((err) => err.code !== "MULTIPLE_DOCS");
  const second = doc.errors.find((err) => err.code === "MULTIPLE_DOCS");
  // One syntax slip makes the parser report every line after it again: the first error, at the slip
  // it comes from and in words (src/source/slip.ts), is the one problem; the rest are held back.
  const problems: ConfigProblem[] = [];
  const deep = errors.find((err) => /call stack/i.test(err.message));
  if (deep)
    problems.push(
      at(deep.pos[0], `the file nests mappings and lists more than ${limits.maxDepth} levels deep`),
    );
  else {
    const firstError = errors.reduce<(typeof errors)[number] | undefined>(
      (a, b) => (a === undefined || b.pos[0] < a.pos[0] ? b : a),
      undefined,
    );
    if (firstError) {
      const pos = offsetPosition(lineCounter, firstError.pos[0]);
      const slip = describeSyntaxError(text, {
        ...pos,
        code: firstError.code,
        message: yamlMessage(firstError.message),
      });
      problems.push({
        file,
        line: slip.line,
        col: slip.col,
        pointer: "",
        message: `YAML syntax error: ${slip.message}`,
      });
    }
  }
  const walked = walk(doc, text, limits.maxDepth);
  // After a syntax slip the recovered document is the parser's guess: what walk finds in it (a key
  // "written twice" by a line that slipped) is held back with the rest.
  if (problems.length === 0) for (const p of walked.problems) problems.push(at(p.offset, p.message));
  let data: unknown = null;
  if (!walked.tooDeep && !problems.some((p) => p.message.startsWith("the file nests"))) {
    try {
      data = doc.toJS({ maxAliasCount: limits.maxAliasCount }) as unknown;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      problems.push(
        /alias count/i.test(message)
          ? at(
              walked.firstAlias ?? 0,
              `the file expands its aliases (*name) more than ${limits.maxAliasCount} times: write the values out, or use fewer aliases`,
            )
          : at(walked.firstAlias ?? 0, `cannot read the YAML document: ${yamlMessage(message)}`),
      );
    }
  }
  const recovered = problems.length > 0;
  if (second)
    problems.push(
      at(
        second.pos[0],
        secondDocumentMessage(text, second.pos[0], offsetPosition(lineCounter, second.pos[0]).line),
      ),
    );
  return { parsed: { file, data, doc, lineCounter }, problems, recovered };
}

/**
 * The source text of every number of a document that is written otherwise than JavaScript prints its
 * value (`24.900`, `1e3`), by JSON pointer: with it, {@link scalarSource} answers for the numbers of a
 * file kept parsed (src/config/parse-cache.ts) without parsing it again. `undefined` for a document
 * with aliases (a value can then be reached along several paths).
 */
export function numberSources(parsed: YamlFile): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  const stack: { node: unknown; segments: (string | number)[] }[] = [
    { node: parsed.doc.contents, segments: [] },
  ];
  while (stack.length > 0) {
    const { node, segments } = stack.pop()!;
    if (isAlias(node)) return undefined;
    if (isScalar(node)) {
      const source = (node as { source?: unknown }).source;
      if (typeof node.value === "number" && typeof source === "string" && source !== String(node.value))
        out[toPointer(segments)] = source;
    } else if (isMap(node)) {
      for (const [key, pair] of pairsOf(node)) stack.push({ node: pair.value, segments: [...segments, key] });
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => stack.push({ node: item, segments: [...segments, i] }));
    }
  }
  return out;
}

/** What a file of {@link lazyYamlFile} knows without its parse, shared by its copies under other names. */
interface KeptParse {
  parse: () => YamlFile;
  /** {@link numberSources} of the text. */
  sources: Readonly<Record<string, string>>;
}

const keptParses = new WeakMap<YamlFile, KeptParse>();

/**
 * A {@link YamlFile} whose value is known already (`data` and `sources`: what {@link parseYaml} and
 * {@link numberSources} made of `text`, kept from an earlier run, src/config/parse-cache.ts): the text
 * is parsed only when a position is asked for (a problem to locate), once; a number's source comes
 * from `sources`. `text` must have parsed without a problem into `data`.
 */
export function lazyYamlFile(
  file: string,
  text: string,
  limits: ParseLimits,
  data: unknown,
  sources: Readonly<Record<string, string>>,
): YamlFile {
  let whole: YamlFile | undefined;
  return withKept(file, data, { parse: () => (whole ??= parseYaml(file, text, limits).parsed), sources });
}

/**
 * `parsed` shown under another path (the same bytes read at another place): a file of
 * {@link lazyYamlFile} keeps its parse for later and shares it, any other is copied as it is.
 */
export function renamedYamlFile(parsed: YamlFile, file: string): YamlFile {
  const kept = keptParses.get(parsed);
  return kept ? withKept(file, parsed.data, kept) : { ...parsed, file };
}

/**
 * `parsed` with another value (a copy a loader makes of it, the value parsed left as it is): positions
 * stay the file's, and a file of {@link lazyYamlFile} still parses its text only when a position is
 * asked for.
 */
export function withValue(parsed: YamlFile, data: unknown): YamlFile {
  const kept = keptParses.get(parsed);
  return kept ? withKept(parsed.file, data, kept) : { ...parsed, data };
}

function withKept(file: string, data: unknown, kept: KeptParse): YamlFile {
  const out: YamlFile = {
    file,
    data,
    get doc() {
      return kept.parse().doc;
    },
    get lineCounter() {
      return kept.parse().lineCounter;
    },
  };
  keptParses.set(out, kept);
  return out;
}

/** The value a JSON pointer names in plain data (own keys and indexes only), or `undefined`. */
function valueAt(data: unknown, pointer: string): unknown {
  let value = data;
  for (const segment of pointerSegments(pointer)) {
    if (Array.isArray(value)) value = /^\d+$/.test(segment) ? value[Number(segment)] : undefined;
    else if (value !== null && typeof value === "object" && Object.hasOwn(value, segment))
      value = (value as Record<string, unknown>)[segment];
    else return undefined;
  }
  return value;
}

/** A problem found by {@link walk}, at a character offset. */
interface WalkProblem {
  offset: number;
  message: string;
}

/**
 * Visits every node of a document without recursion: reports duplicate keys of a mapping, numbers that
 * are not finite or not exact (except integer ids, which checkStore asks to quote), and the first node
 * nested deeper than `maxDepth` (whose children are not visited). Also returns where the first alias is, to locate alias problems.
 */
function walk(
  doc: Document.Parsed,
  text: string,
  maxDepth: number,
): { problems: WalkProblem[]; tooDeep: boolean; firstAlias?: number } {
  const problems: WalkProblem[] = [];
  let tooDeep = false;
  let firstAlias: number | undefined;
  // `id` marks the value of an `id:` key: store ids are judged by checkStore, which asks for quotes.
  const stack: { node: unknown; depth: number; id?: boolean }[] = [{ node: doc.contents, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth, id } = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    const offset = (node as YamlNode).range?.[0] ?? 0;
    if (isAlias(node)) {
      if (firstAlias === undefined || offset < firstAlias) firstAlias = offset;
      continue;
    }
    if (isScalar(node)) {
      const problem = numberProblem(node.value, text, node.range, id === true);
      if (problem && problems.length <= MAX_PROBLEMS) problems.push({ offset, message: problem });
      continue;
    }
    if (!isMap(node) && !isSeq(node)) continue;
    if (depth >= maxDepth) {
      if (!tooDeep)
        problems.push({
          offset,
          message: `the file nests mappings and lists more than ${maxDepth} levels deep`,
        });
      tooDeep = true;
      continue;
    }
    const keys = isMap(node) ? new Set<string>() : undefined;
    for (let i = node.items.length - 1; i >= 0; i--) {
      const item: unknown = node.items[i];
      if (isPair(item)) {
        const id = isScalar(item.key) && item.key.value === "id";
        stack.push({ node: item.value, depth: depth + 1, id }, { node: item.key, depth: depth + 1 });
      } else stack.push({ node: item, depth: depth + 1 });
    }
    if (isMap(node) && node.flow) {
      const split = splitNumber(node, text);
      if (split && problems.length <= MAX_PROBLEMS) problems.push(split);
    }
    if (keys) {
      for (const pair of node.items) {
        if (isPair(pair) && (isMap(pair.key) || isSeq(pair.key))) {
          // The yaml library would turn such a key into text, with a Node warning; it is nearly always
          // an indentation slip (a list or mapping written where a key was meant).
          if (problems.length <= MAX_PROBLEMS)
            problems.push({
              offset: (pair.key as YamlNode).range?.[0] ?? 0,
              message:
                "YAML syntax error: a key is a list or a mapping here, not a name: check the indentation of this line and the ones above",
            });
          continue;
        }
        if (!isPair(pair) || !isScalar(pair.key)) continue;
        const value: unknown = pair.key.value;
        const key = `${typeof value}:${String(value)}`;
        if (keys.has(key)) {
          if (problems.length <= MAX_PROBLEMS)
            problems.push({
              offset: pair.key.range?.[0] ?? 0,
              message: "YAML syntax error: Map keys must be unique",
            });
        } else keys.add(key);
      }
    }
  }
  return { problems, tooDeep, ...(firstAlias === undefined ? {} : { firstAlias }) };
}

/**
 * A number split in two by a comma inside `{ }` (`{BURGER: 25,900}` reads as `BURGER: 25` and a key
 * `900` without a value): a thousands separator or a decimal comma, which YAML reads as the end of
 * the entry. Located at the number.
 */
function splitNumber(node: YAMLMap, text: string): WalkProblem | undefined {
  for (let i = 1; i < node.items.length; i++) {
    const prev = node.items[i - 1];
    const pair = node.items[i];
    if (!isPair(prev) || !isPair(pair) || pair.value !== null || !isScalar(pair.key)) continue;
    if (!isScalar(prev.value) || typeof prev.value.value !== "number") continue;
    const [start, end] = prev.value.range ?? [];
    const [keyStart, keyEnd] = pair.key.range ?? [];
    if (start === undefined || end === undefined || keyStart === undefined || keyEnd === undefined) continue;
    const between = text.slice(end, keyStart);
    const digits = text.slice(keyStart, keyEnd);
    if (between !== "," || !/^\d+$/.test(digits)) continue;
    const whole = text.slice(start, end);
    const written = quote(`${whole},${digits}`);
    return {
      offset: start,
      message:
        `the comma in ${written} splits it in two inside { } (${whole}, then a key "${digits}" with no value): ` +
        `write the price without the comma: ${whole}${digits} if it separates thousands, ${whole}.${digits.slice(0, 2)} if it is the decimal mark`,
    };
  }
  return undefined;
}

/**
 * Why a scalar's number cannot be used, or `undefined`: not finite (`.nan`, `.inf`, `1e400`), or beyond
 * ±(2^53 − 1), where JavaScript numbers stop being exact (`9007199254740993` would silently become
 * `9007199254740992`).
 */
function numberProblem(
  value: unknown,
  text: string,
  range: readonly number[] | null | undefined,
  isId: boolean,
): string | undefined {
  if (typeof value !== "number") return undefined;
  const written = range ? quote(text.slice(range[0], range[1]).trim()) : String(value);
  if (!Number.isFinite(value)) return `${written} is not a finite number: write a number such as 24900`;
  if (Math.abs(value) > Number.MAX_SAFE_INTEGER && !(isId && Number.isInteger(value)))
    return (
      `number ${written} is too large to be read exactly (more than 2^53 − 1 = ${Number.MAX_SAFE_INTEGER}): ` +
      `write an id in quotes, and keep prices and quantities below it`
    );
  return undefined;
}

/**
 * What to say of a second document in a file (a `---` after the first document's content, as left by
 * pasting two files together, or content after a `...` end marker): carte reads only the first
 * document, so the rest would be silently ignored.
 *
 * @param text - the file's content.
 * @param offset - where the second document starts (its `---`, or its first character after `...`).
 * @param line - the 1-based line of `offset`.
 */
function secondDocumentMessage(text: string, offset: number, line: number): string {
  const marker = text.startsWith("---", offset) ? "---" : "...";
  const where = marker === "---" ? `line ${line}` : `line ${line}, after the end marker \`...\``;
  return (
    `a carte file holds one YAML document; this second document (${where}) would be ignored: ` +
    `remove the \`${marker}\` or move it to its own file`
  );
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
  return walkPointer(parsed, pointer, target).position;
}

/**
 * {@link locate}, with where the node ends when the whole pointer exists: the position of its last
 * character (a value's, without the comment or the line break after it).
 */
export function locateSpan(
  parsed: YamlFile,
  pointer: string,
  target: "value" | "key" = "value",
): Position & { end?: Position } {
  const { position, found } = walkPointer(parsed, pointer, target);
  const end = (found as YamlNode | undefined)?.range?.[1];
  return end === undefined || end <= 0
    ? position
    : { ...position, end: offsetPosition(parsed.lineCounter, end - 1) };
}

/** Walks a pointer: the position of the deepest node found, and the node itself when it is the whole pointer's. */
function walkPointer(
  parsed: YamlFile,
  pointer: string,
  target: "value" | "key",
): { position: Position; found?: unknown } {
  const { doc, lineCounter } = parsed;
  const segments = pointerSegments(pointer);
  let node: unknown = doc.contents;
  let position: Position = nodePosition(lineCounter, node) ?? { line: 1, col: 1 };
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] ?? "";
    const last = i === segments.length - 1;
    node = resolveAlias(doc, node);
    if (isMap(node)) {
      const pair = pairsOf(node).get(segment);
      if (!pair) return { position };
      const keyPos = nodePosition(lineCounter, pair.key);
      if (last && target === "key" && keyPos) return { position: keyPos, found: pair.key };
      const valuePos = nodePosition(lineCounter, pair.value);
      // An empty value (`price:`) has no node: point at its key.
      position = valuePos ?? keyPos ?? position;
      node = pair.value;
    } else if (isSeq(node)) {
      const index = Number(segment);
      const item: unknown = Number.isInteger(index) ? node.items[index] : undefined;
      if (item === undefined) return { position };
      position = nodePosition(lineCounter, item) ?? position;
      node = item;
    } else {
      return { position };
    }
  }
  return { position, found: node };
}

/** The pairs of each mapping by scalar key (the first of each key), built once per mapping. */
const pairIndex = new WeakMap<YAMLMap, Map<string, Pair>>();

/** The pairs of a mapping by key, so that locating many problems in a large file stays linear. */
function pairsOf(map: YAMLMap): Map<string, Pair> {
  let index = pairIndex.get(map);
  if (!index) {
    index = new Map();
    for (const p of map.items) {
      const key = isPair(p) ? scalarKey(p.key) : undefined;
      if (key !== undefined && !index.has(key)) index.set(key, p);
    }
    pairIndex.set(map, index);
  }
  return index;
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
  // A file kept parsed (lazyYamlFile): a number's source without parsing it again.
  const kept = keptParses.get(parsed);
  if (kept) {
    if (Object.hasOwn(kept.sources, pointer)) return kept.sources[pointer];
    const value = valueAt(parsed.data, pointer);
    if (typeof value === "number") return String(value);
  }
  const { doc } = parsed;
  let node: unknown = doc.contents;
  for (const segment of pointerSegments(pointer)) {
    node = resolveAlias(doc, node);
    if (isMap(node)) {
      const pair = pairsOf(node).get(segment);
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
