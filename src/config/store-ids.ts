/**
 * The identity of a store file read without parsing the whole file: its `store:` block alone. A
 * change-scoped plan (src/gitops/scope.ts) skips the store files whose bytes are the base commit's,
 * yet must still refuse a new or changed file that claims the store id or integration id of one of
 * them: this reads just what that check needs, located like any problem of a parsed file.
 */

import { parseYaml, type ParseLimits, type YamlFile } from "./yaml.js";

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
 * @param limits - the bounds of the whole file's parse (src/config/yaml.ts).
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
  const { parsed, problems, recovered } = parseYaml(file, block, limits);
  if (problems.length > 0 || recovered) return undefined;
  const data = parsed.data;
  if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
  if (Object.keys(data).length !== 1 || !Object.hasOwn(data, "store")) return undefined;
  const store = (data as { store: unknown }).store;
  if (store === null || typeof store !== "object" || Array.isArray(store)) return undefined;
  return parsed;
}
