/**
 * File patterns of carte.yaml (`stores:`, `catalogs:`, `groups:`), matched by tinyglobby (picomatch
 * syntax: `*` and `?` inside one path segment, `**` for any number of folders, `[...]` classes and
 * `{a,b}` braces). Hidden files and folders (starting with a dot) are matched only by patterns that name
 * the dot explicitly. Results are sorted by path, so that loading is deterministic.
 */

import { glob, isDynamicPattern, type GlobOptions } from "tinyglobby";

/** A file system for {@link globFiles} other than the disk (tinyglobby's `fs` option: readdir, stat, realpath). */
export type GlobFs = NonNullable<GlobOptions["fs"]>;

/** True when a pattern contains glob syntax (`*`, `?`, `[...]`, `{a,b}`, ...), as tinyglobby reads it. */
export function hasMagic(pattern: string): boolean {
  return isDynamicPattern(pattern);
}

/**
 * Lists the files a glob pattern matches.
 *
 * @param pattern - a path pattern with `/` separators, relative to `base` unless absolute.
 * @param base - absolute directory patterns are relative to (the folder of carte.yaml).
 * @param fs - the file system to match on; default the disk.
 * @returns absolute paths of matching regular files (symbolic links are followed, dangling ones
 *   skipped), sorted by UTF-16 code unit order; empty when none match or the folder is missing (a
 *   pattern matching nothing is not an error here: the safety guards of the plan catch empty configs).
 *   A plain directory name matches nothing: directories are not expanded to their contents.
 */
export async function globFiles(pattern: string, base: string, fs?: GlobFs): Promise<string[]> {
  const files = await glob(pattern, {
    cwd: base, // an absolute pattern names its own root; `base` need not exist then
    absolute: true,
    onlyFiles: true,
    dot: false,
    expandDirectories: false,
    followSymbolicLinks: true,
    ...(fs ? { fs } : {}),
  });
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
