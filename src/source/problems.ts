/**
 * Located problems: a small helper that turns JSON pointers into `file:line:col` problems, shared by the
 * semantic checks of every kind of file.
 */

import type { ConfigProblem, SourceRange } from "../errors.js";
import { locate, locateSpan, MAX_PROBLEMS, toPointer } from "./yaml.js";
import type { YamlFile } from "./yaml.js";

export { bare, quote } from "./quote.js";

export { MAX_PROBLEMS } from "./yaml.js";

/** Keys of the problems already collected in each list, to keep each problem once. */
const seen = new WeakMap<ConfigProblem[], Set<string>>();
/** Lists that reached `MAX_PROBLEMS` and left problems out. */
const truncated = new WeakSet<ConfigProblem[]>();

function keyOf(p: { file: string; line: number; col: number; pointer: string; message: string }): string {
  return `${p.file}\0${p.line}\0${p.col}\0${p.pointer}\0${p.message}`;
}

/** Whether a list has room for one more problem; when not, it is marked as truncated. */
function hasRoom(problems: ConfigProblem[]): boolean {
  if (problems.length < MAX_PROBLEMS) return true;
  truncated.add(problems);
  return false;
}

/**
 * Adds a problem to a list unless the same problem (place and message) is already there, or the list
 * holds `MAX_PROBLEMS` problems (then the list is marked as truncated, see {@link wasTruncated}).
 */
export function addProblem(problems: ConfigProblem[], problem: ConfigProblem): void {
  let keys = seen.get(problems);
  if (!keys) seen.set(problems, (keys = new Set(problems.map(keyOf))));
  const key = keyOf(problem);
  if (keys.has(key) || !hasRoom(problems)) return;
  keys.add(key);
  problems.push(problem);
}

/** Whether problems were left out of a list because it was full. */
export function wasTruncated(problems: ConfigProblem[]): boolean {
  return truncated.has(problems);
}

/** A place in a file: the parsed file and a JSON pointer into it. */
export interface Site {
  parsed: YamlFile;
  pointer: string;
}

/** `file:line:col` of a site, for "already defined at ..." messages. */
export function where(site: Site): string {
  const { line, col } = locate(site.parsed, site.pointer);
  return `${site.parsed.file}:${line}:${col}`;
}

/** The source range of a site, for a located warning: its file, where its value starts and ends. */
export function rangeOf(site: Site): SourceRange {
  const { line, col, end } = locateSpan(site.parsed, site.pointer);
  return { file: site.parsed.file, line, col, ...(end ? { endLine: end.line, endCol: end.col } : {}) };
}

/** A site inside a file, from pointer segments. */
export function siteOf(parsed: YamlFile, segments: readonly (string | number)[]): Site {
  return { parsed, pointer: toPointer(segments) };
}

/** Collects located problems for one file. */
export class Reporter {
  constructor(
    readonly parsed: YamlFile,
    readonly problems: ConfigProblem[],
  ) {}

  /** A problem at the value (or, with `target: "key"`, the key) named by pointer segments. */
  at(segments: readonly (string | number)[], message: string, target: "value" | "key" = "value"): void {
    if (!hasRoom(this.problems)) return;
    const pointer = toPointer(segments);
    const { line, col } = locate(this.parsed, pointer, target);
    addProblem(this.problems, { file: this.parsed.file, line, col, pointer, message });
  }

  /** A whole-file problem (line 0). */
  file(message: string): void {
    addProblem(this.problems, { file: this.parsed.file, line: 0, col: 0, pointer: "", message });
  }

  /** A site of this file. */
  site(segments: readonly (string | number)[]): Site {
    return siteOf(this.parsed, segments);
  }
}

/**
 * Reports a problem at a site of any file.
 *
 * @param target - `"key"` locates the key of the last pointer segment (for problems about a key).
 */
export function report(
  problems: ConfigProblem[],
  site: Site,
  message: string,
  target: "value" | "key" = "value",
): void {
  if (!hasRoom(problems)) return;
  const { line, col } = locate(site.parsed, site.pointer, target);
  addProblem(problems, { file: site.parsed.file, line, col, pointer: site.pointer, message });
}

/** Removes repeated problems (same place, same message), keeping the first; a merged setting inherited by
 * many stores would otherwise be reported once per store. */
export function dedupeProblems(problems: ConfigProblem[]): ConfigProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.file}\0${p.line}\0${p.col}\0${p.pointer}\0${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A value as a plain mapping, when it is one. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A value as a list (empty when it is not one). */
export function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
