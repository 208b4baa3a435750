/**
 * Located problems: a small helper that turns JSON pointers into `file:line:col` problems, shared by the
 * semantic checks of every kind of file.
 */

import type { ConfigProblem } from "../errors.js";
import { locate, toPointer } from "./yaml.js";
import type { YamlFile } from "./yaml.js";

export { bare, quote, QUOTE_MAX } from "./quote.js";

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
    const pointer = toPointer(segments);
    const { line, col } = locate(this.parsed, pointer, target);
    this.problems.push({ file: this.parsed.file, line, col, pointer, message });
  }

  /** A whole-file problem (line 0). */
  file(message: string): void {
    this.problems.push({ file: this.parsed.file, line: 0, col: 0, pointer: "", message });
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
  const { line, col } = locate(site.parsed, site.pointer, target);
  problems.push({ file: site.parsed.file, line, col, pointer: site.pointer, message });
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
