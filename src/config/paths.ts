/**
 * Files stay inside the project: every path the configuration names (`include:`, `stores:`,
 * `catalogs:`, `groups:`, `secrets_file:`) must lie under the folder of carte.yaml once symbolic links
 * are resolved. A pull request controls the files, so a path such as `../../proc/self/environ` or a
 * link to `/etc/passwd` must be refused before the file is opened (docs/security.md, "Hostile files").
 */

import { lstatSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** Where a path leads, and whether that is inside the project folder. */
export type Containment =
  | { inside: true; /** The path with every symbolic link resolved. */ real: string }
  | {
      inside: false;
      /** `path`: the path as written leaves the folder; `link`: a symbolic link on the way leads out. */
      why: "path" | "link";
    };

/**
 * `child` relative to `parent` (both absolute and normalized), as `path.relative` gives it; a path
 * under the folder, the common case, without `path.relative`'s resolving of both (thousands of store
 * files are placed at every load).
 */
export function relativeTo(parent: string, child: string): string {
  const prefix = parent.endsWith(sep) ? parent : parent + sep;
  if (child.startsWith(prefix) && child.length > prefix.length) return child.slice(prefix.length);
  return relative(parent, child);
}

/** Whether `child` is `parent` or lies under it (both absolute and normalized). */
function isUnder(parent: string, child: string): boolean {
  const rel = relativeTo(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The real path of a file that may not exist yet: the real path of its deepest existing ancestor,
 * followed by the rest of the path as written. The system's own realpath, synchronously (as
 * fs/promises' realpath asks it): the thousands of matches of a chain's store pattern are checked one
 * after another, where a promise per path costs several times the call itself.
 */
function realPathOf(path: string, folders?: Map<string, string>, sizes?: Map<string, number>): string {
  if (folders) {
    // A file that is not a link leads where its folder leads: one lstat, the folder's real path
    // asked once for all its files.
    const folder = dirname(path);
    let real = folders.get(folder);
    if (real === undefined) {
      real = realPathOf(folder);
      folders.set(folder, real);
    }
    try {
      const s = lstatSync(path);
      if (!s.isSymbolicLink()) {
        if (s.isFile()) sizes?.set(path, s.size);
        // `real` is a real path (absolute, normal): the name is added without join's normalizing.
        const name = basename(path);
        return real.endsWith(sep) ? real + name : real + sep + name;
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
      return join(real, basename(path));
    }
  }
  const rest: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(realpathSync.native(current), ...rest.reverse());
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}

/** The real path of a project folder, for {@link insideProject} over many paths (rejects as it does). */
export async function realRootOf(root: string): Promise<string> {
  return realPathOf(resolve(root));
}

/**
 * Whether a path lies inside the project folder, symbolic links resolved.
 *
 * @param root - the folder of carte.yaml (absolute).
 * @param path - the path to check, absolute or relative to `root`; it need not exist (a secrets file
 *   that carte will create): then its deepest existing folder is resolved.
 * @param realRoot - `root` with its links resolved ({@link realRootOf}), when the caller checks many
 *   paths under one root; else resolved here.
 * @returns `inside: true` with the real path, or why not: the path as written leaves the folder
 *   (`..`, an absolute path elsewhere), or a symbolic link on the way leads out.
 * @throws the file system's error when a folder on the way cannot be read (e.g. EACCES, ELOOP).
 */
export async function insideProject(
  root: string,
  path: string,
  realRoot?: Promise<string>,
): Promise<Containment> {
  if (!isUnder(resolve(root), resolve(root, path))) return { inside: false, why: "path" };
  return insideProjectSync(root, path, await (realRoot ?? realRootOf(root)));
}

/** A POSIX path that is not in normal form: a `.` or `..` segment, a doubled or a trailing `/`. */
const NOT_NORMAL = /\/\.{1,2}(?:\/|$)|\/\/|.\/$/;

/**
 * `path.resolve(root, p)`, without its work for what a pattern's matches are: an absolute POSIX path
 * already in normal form is itself. Anything else (relative, on Windows) is resolved.
 */
function resolveIn(root: string, p: string): string {
  return sep === "/" && p.startsWith("/") && !NOT_NORMAL.test(p) ? p : resolve(root, p);
}

/**
 * The last absolute project folder resolved, and what it resolved to: thousands of matches share one.
 * A relative one is resolved each time (against the working folder of the moment).
 */
let lastRoot: [string, string] | undefined;
const resolvedRoot = (root: string) =>
  !isAbsolute(root)
    ? resolve(root)
    : lastRoot?.[0] === root
      ? lastRoot[1]
      : (lastRoot = [root, resolve(root)])[1];

/**
 * {@link insideProject}, synchronously, against the project folder's real path (`realRoot`, from
 * {@link realRootOf}): the check of every match of a pattern. `folders`: the real paths of folders
 * already asked for, filled here (the matches of one pattern share a few folders); with them,
 * `sizes` gets the size in bytes of a path that is a regular file (not a link), by its absolute path,
 * from the same look. Throws as {@link insideProject} rejects (a loop of links, a folder that cannot be
 * read).
 */
export function insideProjectSync(
  root: string,
  path: string,
  realRoot: string,
  folders?: Map<string, string>,
  sizes?: Map<string, number>,
): Containment {
  const absolute = resolveIn(root, path);
  if (!isUnder(resolvedRoot(root), absolute)) return { inside: false, why: "path" };
  const real = realPathOf(absolute, folders, sizes);
  return isUnder(realRoot, real) ? { inside: true, real } : { inside: false, why: "link" };
}

/**
 * Whether a file pattern of carte.yaml (`stores/*.yaml`) can only match inside the project: not
 * absolute, and its part before the first `*`, `?` or `[` does not climb out with `..`. Matches are
 * checked one by one with {@link insideProject} as well, for links that lead out.
 */
export function patternStaysInside(root: string, pattern: string): boolean {
  if (isAbsolute(pattern)) return false;
  const segments = pattern.split(/[\\/]+/);
  const firstMagic = segments.findIndex((s) => /[*?[]/.test(s));
  const fixed = firstMagic === -1 ? segments : segments.slice(0, firstMagic);
  // `**` and other magic segments never climb: only `..` written in the fixed part can.
  if (segments.slice(firstMagic === -1 ? segments.length : firstMagic).includes("..")) return false;
  return isUnder(resolve(root), resolve(root, ...fixed));
}

/** How a refused path is explained, the same way for every key that names files. */
export function outsideMessage(key: string, written: string, why: "path" | "link"): string {
  return why === "link"
    ? `${key}: ${written} leads outside the project folder through a symbolic link; files named in the configuration must be inside the folder of carte.yaml`
    : `${key}: ${written} is outside the project folder; files named in the configuration must be inside the folder of carte.yaml (write paths relative to it, without ..)`;
}
