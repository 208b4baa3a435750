/**
 * A small file matcher for the `stores:` and `catalogs:` patterns of carte.yaml. Node 20 has no stable
 * `fs.glob`, and the patterns carte needs are simple: `*` and `?` inside one path segment, and `**` for
 * any number of folders. Hidden files and folders (starting with a dot) are matched only by patterns that
 * name the dot explicitly. Results are sorted by path, so that loading is deterministic.
 */

import { readdir, stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";

/** True when a pattern contains glob syntax (`*`, `?` or `[`). */
export function hasMagic(pattern: string): boolean {
  return /[*?[]/.test(pattern);
}

/** Converts one path segment with `*`, `?` and `[...]` into a regular expression. */
function segmentRegExp(segment: string): RegExp {
  let source = "";
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i] ?? "";
    if (ch === "*") source += "[^/]*";
    else if (ch === "?") source += "[^/]";
    else if (ch === "[") {
      const end = segment.indexOf("]", i + 1);
      if (end === -1) source += "\\[";
      else {
        const body = segment.slice(i + 1, end).replace(/\\/g, "\\\\");
        source += body.startsWith("!") ? `[^${body.slice(1)}]` : `[${body}]`;
        i = end;
      }
    } else source += ch.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/** Whether a directory entry name may be matched by a pattern segment (dot files need an explicit dot). */
function matchesSegment(name: string, segment: string, re: RegExp): boolean {
  if (name.startsWith(".") && !segment.startsWith(".")) return false;
  return re.test(name);
}

async function listDir(dir: string): Promise<{ name: string; isDir: boolean; isFile: boolean }[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    const out: { name: string; isDir: boolean; isFile: boolean }[] = [];
    for (const e of entries) {
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        try {
          const s = await stat(join(dir, e.name));
          isDir = s.isDirectory();
          isFile = s.isFile();
        } catch {
          continue; // a dangling link is no file
        }
      }
      out.push({ name: e.name, isDir, isFile });
    }
    return out;
  } catch {
    return []; // a missing folder matches nothing
  }
}

async function walk(
  dir: string,
  segments: readonly string[],
  out: Set<string>,
  seen: Set<string>,
): Promise<void> {
  const key = `${dir}\0${segments.join("/")}`;
  if (seen.has(key)) return;
  seen.add(key);
  const [head, ...rest] = segments;
  if (head === undefined) return;
  if (head === "**") {
    // `**` matches zero folders ...
    if (rest.length > 0) await walk(dir, rest, out, seen);
    // ... or one more folder, staying on `**`.
    for (const e of await listDir(dir)) {
      if (e.isDir && !e.name.startsWith(".")) await walk(join(dir, e.name), segments, out, seen);
    }
    return;
  }
  if (!hasMagic(head)) {
    const next = join(dir, head);
    if (rest.length === 0) {
      try {
        if ((await stat(next)).isFile()) out.add(next);
      } catch {
        // not there: matches nothing
      }
    } else await walk(next, rest, out, seen);
    return;
  }
  const re = segmentRegExp(head);
  for (const e of await listDir(dir)) {
    if (!matchesSegment(e.name, head, re)) continue;
    if (rest.length === 0) {
      if (e.isFile) out.add(join(dir, e.name));
    } else if (e.isDir) await walk(join(dir, e.name), rest, out, seen);
  }
}

/**
 * Lists the files a glob pattern matches.
 *
 * @param pattern - a path pattern with `/` separators, relative to `base` unless absolute.
 * @param base - absolute directory patterns are relative to (the folder of carte.yaml).
 * @returns absolute paths of matching regular files, sorted by code point order; empty when none match
 *   (a pattern matching nothing is not an error here: the safety guards of the plan catch empty configs).
 */
export async function globFiles(pattern: string, base: string): Promise<string[]> {
  const absolute = isAbsolute(pattern) ? pattern : resolve(base, pattern);
  const segments = absolute.split(/[\\/]+/);
  // Walk from the longest prefix without glob syntax.
  const firstMagic = segments.findIndex(hasMagic);
  const staticPart = firstMagic === -1 ? segments : segments.slice(0, firstMagic);
  const start = staticPart.join("/") || "/";
  const rest = firstMagic === -1 ? [] : segments.slice(firstMagic);
  const out = new Set<string>();
  if (rest.length === 0) {
    try {
      if ((await stat(start)).isFile()) out.add(resolve(start));
    } catch {
      // not there
    }
  } else await walk(start, rest, out, new Set());
  return [...out].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
