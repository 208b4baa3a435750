/**
 * The identity of a store file read without parsing the whole file: its `store:` block alone. A
 * change-scoped plan (src/gitops/change-scope.ts) skips the store files whose bytes are the base commit's,
 * yet must still refuse a new or changed file that claims the store id or integration id of one of
 * them: this reads just what that check needs, located like any problem of a parsed file.
 */

import { parseYaml, type ParseLimits, type YamlFile } from "../source/yaml.js";

/** A top-level key of a block mapping: at column 0, neither a comment nor a list entry. */
const TOP_KEY = /^(?![\s#-])/;

/**
 * The `store:` block of a store file, parsed on its own: a {@link YamlFile} whose value is
 * `{ store: … }`, with the positions of the whole file (lines before the block are kept as blank
 * lines, so every `file:line:col` is the file's), for the checks of store ids
 * (src/config/check.ts `checkStore`).
 *
 * Only the plain layout is read this way: a top-level `store:` key written once, starting a block (not
 * a flow mapping on its line), in a file of one document without directives, whose block parses
 * without a problem and without aliases to the rest of the file. Anything else gives `undefined`, and
 * the caller reads the file in full.
 *
 * @param file - the path shown in problems.
 * @param text - the file's content.
 * @param limits - the bounds of the whole file's parse (src/source/yaml.ts).
 */
export function storeBlock(file: string, text: string, limits: ParseLimits): YamlFile | undefined {
  // A document marker or directive anywhere: more than one document, or other syntax; read in full.
  if (/^(?:---|\.\.\.|%)/m.test(text)) return undefined;
  // A carriage return alone breaks a line for YAML, not for the lines read here.
  if (/\r(?!\n)/.test(text)) return undefined;
  const lines = text.split("\n");
  let start = -1;
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!TOP_KEY.test(line) || line.trim() === "") continue;
    if (start !== -1 && end === lines.length) end = i;
    if (/^store\s*:/.test(line) || /^["']store["']\s*:/.test(line)) {
      if (start !== -1) return undefined; // written twice: the full parse reports it
      if (!/^["']?store["']?\s*:\s*(?:#.*)?\r?$/.test(line)) return undefined; // a flow mapping, an alias…
      start = i;
    }
  }
  if (start === -1) return undefined;
  const block =
    "\n".repeat(start) +
    lines
      .slice(start, end)
      .map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l))
      .join("\n");
  const plain = plainIdentity(lines, start, end);
  if (plain) {
    // Parsed only if a problem must be located in it (a duplicate id): most never are.
    const read = identityFile(file, plain, () => parseYaml(file, block, limits).parsed);
    plainBlocks.set(read, plain);
    return read;
  }
  const { parsed, problems, recovered } = parseYaml(file, block, limits);
  if (problems.length > 0 || recovered) return undefined;
  const data = parsed.data;
  if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
  if (Object.keys(data).length !== 1 || !Object.hasOwn(data, "store")) return undefined;
  const store = (data as { store: unknown }).store;
  if (store === null || typeof store !== "object" || Array.isArray(store)) return undefined;
  return parsed;
}

/** A store's identity as its `store:` block writes it plainly. */
export interface PlainIdentity {
  id: number | string;
  integration_id: string;
}

/** The blocks {@link storeBlock} read line by line, with what they say. */
const plainBlocks = new WeakMap<YamlFile, PlainIdentity>();

/**
 * The identity a block of {@link storeBlock} holds when it was read line by line, without the YAML
 * parser (then it depends on the file's bytes alone, not on the parse bounds); `undefined` for a block
 * that was parsed.
 */
export function plainIdentityOf(block: YamlFile): PlainIdentity | undefined {
  return plainBlocks.get(block);
}

/**
 * A store file's `store:` block known without reading the file (`identity`, as {@link plainIdentityOf}
 * gave it for the same bytes in an earlier run): its value is `{ store: identity }`; its positions,
 * asked for only when a problem must be located in it, come from `parse` then.
 */
export function identityFile(file: string, identity: PlainIdentity, parse: () => YamlFile): YamlFile {
  let whole: YamlFile | undefined;
  return {
    file,
    data: { store: { id: identity.id, integration_id: identity.integration_id } },
    get doc() {
      return (whole ??= parse()).doc;
    },
    get lineCounter() {
      return (whole ??= parse()).lineCounter;
    },
  };
}

/** A scalar whose value no YAML rule can make other than it reads: a plain whole number or word, or quoted text without escapes. */
const SIMPLE_SCALAR =
  /^(?:([1-9][0-9]{0,14})|'([^']*)'|"([^"\\]*)"|([A-Za-z][A-Za-z0-9._-]*))(?:[ \t]+#.*)?[ \t]*$/;
/** Plain words YAML reads as something else than text (booleans and null, in the core schema). */
const NOT_TEXT = /^(?:true|false|null|True|False|Null|TRUE|FALSE|NULL)$/;

/**
 * The store id and integration id of a `store:` block (the lines `start` to `end`, `start` its key)
 * read line by line, without the YAML parser, when the block is the plainest mapping: its keys at
 * one indentation of spaces, `id:` and `integration_id:` each once, each on its line with a
 * {@link SIMPLE_SCALAR} value. Anything else gives `undefined` (the block is then parsed).
 */
function plainIdentity(lines: readonly string[], start: number, end: number): PlainIdentity | undefined {
  let indent = -1;
  const found = new Map<string, number | string>();
  for (let i = start + 1; i < end; i++) {
    const line = lines[i]!.endsWith("\r") ? lines[i]!.slice(0, -1) : lines[i]!;
    const text = line.trimStart();
    if (text === "" || text.startsWith("#")) continue;
    if (/^[ ]*\t/.test(line)) return undefined;
    const depth = line.length - text.length;
    if (indent === -1) indent = depth;
    if (depth > indent) continue; // inside another key's value
    if (depth < indent) return undefined;
    const key = /^([A-Za-z_][A-Za-z0-9_]*)[ \t]*:(?:[ \t]+(.*))?$/.exec(text);
    if (!key) return undefined;
    const name = key[1]!;
    if (name !== "id" && name !== "integration_id") continue;
    if (found.has(name)) return undefined;
    const value = SIMPLE_SCALAR.exec(key[2] ?? "");
    if (!value) return undefined;
    if (value[4] !== undefined && NOT_TEXT.test(value[4])) return undefined;
    found.set(name, value[1] !== undefined ? Number(value[1]) : (value[2] ?? value[3] ?? value[4])!);
    // A value that goes on over the next lines (more indented) is not read here.
    const next = lines.slice(i + 1, end).find((l) => l.trim() !== "" && !l.trimStart().startsWith("#"));
    if (next !== undefined && next.length - next.trimStart().length > indent) return undefined;
  }
  const id = found.get("id");
  const integrationId = found.get("integration_id");
  if (id === undefined || typeof integrationId !== "string") return undefined;
  return { id, integration_id: integrationId };
}
