/**
 * The one way carte writes a file: plans, the embedded emulator's state, webhook secrets and their
 * marker, the apply lock, imported files, a new project, finance exports, run records. Every write goes
 * through {@link writeFileAtomic} (or, for folders, {@link ensureFolder}), which keeps three rules.
 *
 * **Inside its root, never through a link.** A file belongs under a root folder: the project folder,
 * the folder named by `--out`, the working directory (see {@link rootFor}). The root itself is trusted
 * as named. Every folder from the root down to the file is checked with `lstat` to be a real folder,
 * not a symbolic link nor a file, and is created one level at a time when missing (checked again once
 * made); the path is followed as written, so it cannot leave the root. A file already at the target
 * must be a regular file: a link there (dangling or not), a folder or a FIFO is refused. A pull request
 * controls the files of the checkout, links included: a link committed as `.carte/locks` or as the
 * target itself would otherwise make carte write where the link points, outside the project. Such a
 * refusal is a {@link FileWriteError} naming the link and where it leads. These checks defeat links
 * planted in the files carte runs on; they are not meant to race a process that changes the folders
 * while carte writes (whoever runs one on the machine is outside carte's threat model, docs/security.md).
 *
 * **Atomic.** The data goes to a temporary file in the same folder, created with
 * `O_CREAT|O_EXCL|O_NOFOLLOW` (never an existing file, never through a link) and mode 0600 unless told
 * otherwise, written, fsynced, closed, then renamed over the target, and the folder fsynced: a reader,
 * a full disk or a kill leaves the old file or the new one, never a part. Without `overwrite`, the
 * temporary file is hard-linked to the target instead, which fails when anything is there already, so
 * that a file made meanwhile is not lost either. A process killed in the middle leaves its temporary
 * file behind; its name holds the writer's pid, and every later write to the same target (and
 * {@link removeStaleTemps}) deletes the temporary files of writers that no longer run.
 *
 * **Errors name the file and what carte was doing**: `could not save the plan to plan.json: no space
 * left on device (ENOSPC); plan.json is as it was` ({@link FileWriteError}, exit code 1), never the
 * file system's raw `ENOTDIR: not a directory, mkdir …`.
 *
 * No dependency: `write-file-atomic` (npm) does the atomic part but names its temporary files with a
 * hash a later run cannot recognise, so a kill leaves them for good, and it follows links.
 */

import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import {
  link,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
} from "node:fs/promises";
import path from "node:path";
import { FileWriteError } from "./errors.js";

/** Mode of private files: read and write for the owner only. */
export const PRIVATE_FILE_MODE = 0o600;
/** Mode of folders carte creates for private files. */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of files anyone may read (plans, imported files, a new project): as the umask lets it. */
export const SHARED_FILE_MODE = 0o666;
/** Mode of folders of files anyone may read: as the umask lets it. */
export const SHARED_DIR_MODE = 0o777;

const TEMP_MARK = ".carte-tmp-";

/** Where a write must stay, and what it is for. */
export interface WriteTarget {
  /**
   * The folder the file must stay under (absolute, or relative to the working directory): the project
   * folder, the `--out` folder, the working directory ({@link rootFor}). Trusted as named, and created
   * with its missing parents when absent; every folder below it is checked.
   */
  root: string;
  /**
   * What carte was doing, for messages, worded to be followed by the file's name:
   * `save the plan to`, `write the embedded emulator's state to`.
   */
  purpose: string;
}

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions extends WriteTarget {
  /** Mode of the file; default {@link PRIVATE_FILE_MODE}. */
  mode?: number;
  /** Mode of the folders created for it; default {@link PRIVATE_DIR_MODE}. */
  dirMode?: number;
  /**
   * Whether an existing file is replaced (default). When `false`, a regular file already at the target
   * is left as it is and the write returns `false`.
   */
  overwrite?: boolean;
  /**
   * Whether the file and its folder are fsynced (default). Only scratch copies in a temporary folder,
   * thrown away after the run, and files that mean something only while the process that wrote them
   * runs (who holds an apply lock, src/run/lock.ts) go without.
   */
  durable?: boolean;
  /**
   * The caller removed the temporary files that killed writers left in the file's folder before a run
   * of writes there ({@link removeStaleTempsIn}), so the write does not list the folder again. Default
   * false: each write removes those of its own file ({@link removeStaleTemps}).
   */
  tempsSwept?: boolean;
}

/**
 * Reads back a file carte wrote itself (a cache entry, a record, a list of pages) without trusting
 * what is there now: opened without following a link and without blocking on a FIFO, and read only
 * when it is a regular file of at most `maxBytes` bytes that `accept` (given its stats: owner, mode)
 * lets through.
 *
 * @returns its bytes; `undefined` when it is absent, refused or cannot be read. Never throws.
 */
export function readOwnFileSync(
  file: string,
  maxBytes: number,
  accept: (stats: Stats) => boolean = () => true,
): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined; // none, or a link
  }
  try {
    const s = fstatSync(fd);
    if (!s.isFile() || s.size > maxBytes || !accept(s)) return undefined;
    const buffer = Buffer.alloc(s.size);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, length);
      if (n === 0) break;
      length += n;
    }
    return buffer.subarray(0, length);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** A path for messages: relative to the working directory when inside it, else absolute. */
export function shownPath(p: string): string {
  const absolute = path.resolve(p);
  const rel = path.relative(process.cwd(), absolute);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : absolute;
}

/** Whether `child` is `parent` or lies under it (both absolute). */
function isUnder(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * The root a file named by the user (`--out`, `--secrets-file`, `--state`) or by the project must stay
 * under: the innermost of the project folder and the working directory that holds it (in CI, the
 * checkout a pull request fills), else the file's own folder (a path the user spelt out elsewhere,
 * whose folders are theirs).
 *
 * @param file - the file, absolute or relative to the working directory.
 * @param projectRoot - the folder of carte.yaml, when there is a project.
 */
export function rootFor(file: string, projectRoot?: string): string {
  const absolute = path.resolve(file);
  const holders = [projectRoot, process.cwd()]
    .filter((r): r is string => r !== undefined)
    .map((r) => path.resolve(r))
    .filter((r) => r !== absolute && isUnder(r, absolute))
    .sort((a, b) => b.length - a.length);
  return holders[0] ?? path.dirname(absolute);
}

/** Words for the file system's error codes, for messages; the code follows in parentheses. */
const CODE_WORDS: ReadonlyMap<string, string> = new Map([
  ["ENOSPC", "no space left on device"],
  ["EDQUOT", "disk quota exceeded"],
  ["EFBIG", "file too large"],
  ["EACCES", "permission denied"],
  ["EPERM", "operation not permitted"],
  ["EROFS", "read-only file system"],
  ["EIO", "input/output error"],
  ["EMFILE", "too many open files"],
  ["ENFILE", "too many open files in the system"],
  ["ENAMETOOLONG", "file name too long"],
  ["EBUSY", "resource busy"],
  ["ELOOP", "too many levels of symbolic links"],
  ["ENOTDIR", "a part of the path is not a folder"],
  ["ENOENT", "a folder on the way does not exist (removed meanwhile?)"],
  ["EISDIR", "it is a folder"],
  ["EEXIST", "it exists already"],
  ["ENOTEMPTY", "the folder is not empty"],
  ["ETXTBSY", "the file is busy"],
]);

/**
 * The file system's error in words: `no space left on device (ENOSPC)`. Never the raw message, which
 * holds the system call and the path.
 */
export function describeFsError(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return err instanceof Error ? err.message : String(err);
  const words = CODE_WORDS.get(code);
  if (words) return `${words} (${code})`;
  // Node's message reads `CODE: words, syscall 'path'`: the words alone.
  const m = /^[A-Z0-9_]+: ([^,]+)/.exec(err instanceof Error ? err.message : "");
  return m ? `${m[1]} (${code})` : `file system error ${code}`;
}

function codeOf(err: unknown): string | undefined {
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === "string" ? c : undefined;
}

/** What is at a path, without following a link there; `undefined` when nothing is. */
async function lstatOrNone(p: string) {
  try {
    return await lstat(p);
  } catch (err) {
    if (codeOf(err) === "ENOENT") return undefined;
    throw err;
  }
}

/** What a link says it leads to, cut for a message. */
async function linkTarget(p: string): Promise<string> {
  try {
    const to = await readlink(p);
    return to.length > 200 ? `${to.slice(0, 200)}…` : to;
  } catch {
    return "somewhere carte cannot read";
  }
}

function kindOf(info: { isFile(): boolean; isDirectory(): boolean; isFIFO(): boolean }): string {
  if (info.isDirectory()) return "a folder";
  if (info.isFile()) return "a file";
  if (info.isFIFO()) return "a FIFO";
  return "a special file";
}

/** The error of a refused write or a failed one; `at` is the path at fault when it is not the file. */
function failure(
  file: string,
  target: WriteTarget,
  reason: FileWriteError["reason"],
  detail: string,
  init: { at?: string; code?: string; cause?: unknown } = {},
): FileWriteError {
  return new FileWriteError({
    file: shownPath(file),
    at: shownPath(init.at ?? file),
    reason,
    message: `could not ${target.purpose} ${shownPath(file)}: ${detail}`,
    ...(init.code ? { code: init.code } : {}),
    ...(init.cause ? { cause: init.cause } : {}),
  });
}

/** The refusal of a link at `at` on the way to `file`. */
async function linkRefusal(file: string, at: string, target: WriteTarget): Promise<FileWriteError> {
  return failure(
    file,
    target,
    "link",
    `refusing to write through a symbolic link: ${shownPath(at)} is a link to ${await linkTarget(at)}; ` +
      "remove it (carte writes only into real folders and files)",
    { at },
  );
}

/** The folders from `root` (excluded) down to `dir` (included), in order; `undefined` when outside. */
function foldersBelow(root: string, dir: string): string[] | undefined {
  if (!isUnder(root, dir)) return undefined;
  const rel = path.relative(root, dir);
  const out: string[] = [];
  let current = root;
  for (const part of rel === "" ? [] : rel.split(path.sep)) {
    current = path.join(current, part);
    out.push(current);
  }
  return out;
}

/**
 * Checks that `dir` is a real folder (not a link, not a file), creating it when missing.
 *
 * @returns `false` when it is missing and `create` is false.
 */
async function realFolder(
  dir: string,
  file: string,
  target: WriteTarget,
  create: boolean,
  mode: number,
): Promise<boolean> {
  let info = await lstatOrNone(dir);
  if (!info) {
    if (!create) return false;
    try {
      await mkdir(dir, { mode });
    } catch (err) {
      // Made meanwhile (another run): checked below like any folder.
      if (codeOf(err) !== "EEXIST") throw err;
    }
    info = await lstat(dir);
  }
  if (info.isSymbolicLink()) throw await linkRefusal(file, dir, target);
  if (!info.isDirectory()) {
    throw failure(
      file,
      target,
      "not-folder",
      `${shownPath(dir)} is ${kindOf(info)}, not a folder; remove it or move it away`,
      { at: dir },
    );
  }
  return true;
}

/**
 * A file system error met while writing `file` for `target.purpose`, as a {@link FileWriteError} whose
 * message names the file and the cause in words (`after` appended); a {@link FileWriteError} is
 * returned as it is.
 */
export function writeFailure(file: string, target: WriteTarget, err: unknown, after = ""): FileWriteError {
  if (err instanceof FileWriteError) return err;
  const code = codeOf(err);
  return failure(file, target, "io", `${describeFsError(err)}${after}`, {
    ...(code ? { code } : {}),
    cause: err,
  });
}

/** The root as named, created with its parents when missing; it must be a folder (a link to one is fine). */
async function readyRoot(
  root: string,
  file: string,
  target: WriteTarget,
  create: boolean,
  mode: number,
): Promise<boolean> {
  const info = await stat(root).catch((err: unknown) => {
    if (codeOf(err) === "ENOENT") return undefined;
    throw err;
  });
  if (info && !info.isDirectory()) {
    throw failure(file, target, "not-folder", `${shownPath(root)} is ${kindOf(info)}, not a folder`, {
      at: root,
    });
  }
  if (info) return true;
  if (!create) return false;
  await mkdir(root, { recursive: true, mode });
  return true;
}

/**
 * Checks, and creates when missing, every folder from `target.root` down to `dir` (see the module
 * comment). `dir` may be the root itself.
 *
 * @throws {@link FileWriteError} naming `dir` when a folder on the way is a link or not a folder, when
 *   `dir` is not under the root, or when a folder cannot be made (the file system's cause in words).
 */
export async function ensureFolder(dir: string, target: WriteTarget & { dirMode?: number }): Promise<void> {
  const mode = target.dirMode ?? PRIVATE_DIR_MODE;
  const root = path.resolve(target.root);
  const absolute = path.resolve(dir);
  const folders = foldersBelow(root, absolute);
  if (!folders) throw outside(absolute, root, target);
  try {
    await readyRoot(root, absolute, target, true, mode);
    for (const f of folders) await realFolder(f, absolute, target, true, mode);
  } catch (err) {
    throw writeFailure(absolute, target, err);
  }
}

function outside(file: string, root: string, target: WriteTarget): FileWriteError {
  return failure(file, target, "outside", `it is outside ${shownPath(root)}, where carte writes`);
}

/**
 * Checks that `file` could be written under `target.root` without creating anything: every existing
 * folder on the way is a real folder, and what is at the target, if anything, a regular file. Used to
 * refuse a whole set of files (a new project, an import) before the first is written.
 *
 * @returns whether a regular file is at the target already.
 * @throws {@link FileWriteError} as {@link writeFileAtomic} refuses.
 */
export async function checkWritable(file: string, target: WriteTarget): Promise<boolean> {
  const root = path.resolve(target.root);
  const absolute = path.resolve(file);
  const folders = foldersBelow(root, path.dirname(absolute));
  if (!folders || absolute === root) throw outside(absolute, root, target);
  try {
    if (!(await readyRoot(root, absolute, target, false, PRIVATE_DIR_MODE))) return false;
    for (const f of folders) {
      if (!(await realFolder(f, absolute, target, false, PRIVATE_DIR_MODE))) return false;
    }
    return await regularOrNone(absolute, target);
  } catch (err) {
    throw writeFailure(absolute, target, err);
  }
}

/** Whether a regular file is at `file`; refuses a link or anything else there. */
async function regularOrNone(file: string, target: WriteTarget): Promise<boolean> {
  const info = await lstatOrNone(file);
  if (!info) return false;
  if (info.isSymbolicLink()) throw await linkRefusal(file, file, target);
  if (!info.isFile()) {
    throw failure(
      file,
      target,
      "not-file",
      `${shownPath(file)} is ${kindOf(info)}, not a regular file; remove it or move it away`,
    );
  }
  return true;
}

function tempPrefix(file: string): string {
  return `.${path.basename(file)}${TEMP_MARK}`;
}

/**
 * Whether a process with this id runs on this machine (in this process-id namespace). One carte may not
 * signal (another user's) counts as running: only a process known to be gone does not.
 */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return codeOf(err) === "EPERM";
  }
}

/**
 * Deletes the files of folder `dir` that killed writers left: those whose name `tail` maps to the text
 * after their temporary mark (`PID-random`; `undefined` for any other file) and whose writer process
 * no longer runs. A missing folder is fine. Returns the names deleted.
 */
async function removeTempsOfDeadWriters(
  dir: string,
  tail: (name: string) => string | undefined,
): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const rest = tail(name);
    if (rest === undefined) continue;
    const pid = Number(/^(\d+)-/.exec(rest)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || processRuns(pid)) continue;
    // unlink: a link planted under such a name goes itself, never what it points to.
    await unlink(path.join(dir, name)).catch(() => undefined);
    removed.push(name);
  }
  return removed;
}

/**
 * Deletes the temporary files that writers of `file` left behind when they were killed: those named
 * for `file` whose writer process no longer runs. A missing folder is fine. Returns the names deleted.
 * Call it once the folder is known to be real ({@link ensureFolder}); {@link writeFileAtomic} does.
 */
export function removeStaleTemps(file: string): Promise<string[]> {
  const prefix = tempPrefix(file);
  return removeTempsOfDeadWriters(path.dirname(file), (name) =>
    name.startsWith(prefix) ? name.slice(prefix.length) : undefined,
  );
}

/**
 * Deletes the temporary files that writers of any file of the folder `dir` left behind when they were
 * killed (as {@link removeStaleTemps} does for one file): one listing of the folder for a run of writes
 * of many files there. A missing folder is fine. Returns the names deleted. Call it once the folder is
 * known to be real ({@link ensureFolder}).
 */
export function removeStaleTempsIn(dir: string): Promise<string[]> {
  return removeTempsOfDeadWriters(dir, (name) => {
    const mark = name.startsWith(".") ? name.indexOf(TEMP_MARK) : -1;
    return mark < 0 ? undefined : name.slice(mark + TEMP_MARK.length);
  });
}

/** Flags of a temporary file: a new file, never an existing one, never through a link. */
const TEMP_FLAGS = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0);

/** Codes of file systems that cannot make hard links (then a checked rename stands in). */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV"]);

/**
 * Writes `data` to `file` under `options.root` by the rules of the module comment: folders checked
 * (created when missing, mode `dirMode`), a link or a non-regular file at the target refused, a
 * temporary file in the same folder (mode `mode`, `O_EXCL|O_NOFOLLOW`) fsynced and renamed over the
 * target (or, without `overwrite`, linked into place only when nothing is there), the folder fsynced.
 * The temporary file is removed on failure; the target is then as it was.
 *
 * @returns `true` when written; `false` when `overwrite` is false and a regular file was there (left
 *   as it is).
 * @throws {@link FileWriteError} naming the file, what carte was doing and why: a link on the way
 *   (`reason: "link"`, naming it and where it leads), a file where a folder should be, a path outside
 *   the root, or the file system's error in words (`no space left on device (ENOSPC)`).
 */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array | Iterable<string>,
  options: AtomicWriteOptions,
): Promise<boolean> {
  const absolute = path.resolve(file);
  const dir = path.dirname(absolute);
  const overwrite = options.overwrite ?? true;
  const durable = options.durable ?? true;
  if (absolute === path.resolve(options.root)) throw outside(absolute, path.resolve(options.root), options);
  await ensureFolder(dir, { ...options, root: options.root });
  let tmp: string | undefined;
  try {
    if ((await regularOrNone(absolute, options)) && !overwrite) return false;
    if (!options.tempsSwept) await removeStaleTemps(absolute);
    tmp = path.join(dir, `${tempPrefix(absolute)}${process.pid}-${randomBytes(6).toString("hex")}`);
    const handle = await open(tmp, TEMP_FLAGS, options.mode ?? PRIVATE_FILE_MODE);
    try {
      // An iterable's texts are written as they come: a file larger than a string can hold.
      await handle.writeFile(
        data,
        typeof data === "string" || !(data instanceof Uint8Array) ? "utf8" : undefined,
      );
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    if (overwrite) {
      // A link planted at the target since the check above would be replaced, not followed.
      await rename(tmp, absolute);
      tmp = undefined;
    } else if (!(await linkIntoPlace(tmp, absolute, options))) {
      return false;
    }
  } catch (err) {
    const left = overwrite ? `; ${shownPath(absolute)} is as it was` : "";
    throw writeFailure(
      absolute,
      options,
      err,
      (await lstatOrNone(absolute).catch(() => undefined)) ? left : "",
    );
  } finally {
    if (tmp !== undefined) await unlink(tmp).catch(() => undefined);
  }
  if (durable) await syncFolder(dir);
  return true;
}

/**
 * Puts the temporary file at `file` only when nothing is there: a hard link, which fails on anything
 * there (a link included), then the temporary name is removed by the caller. A file system without
 * hard links gets a rename after a last check.
 *
 * @returns `false` when a regular file is there.
 */
async function linkIntoPlace(tmp: string, file: string, target: WriteTarget): Promise<boolean> {
  try {
    await link(tmp, file);
    return true;
  } catch (err) {
    const code = codeOf(err);
    if (code === "EEXIST") {
      if (await regularOrNone(file, target)) return false;
      throw err;
    }
    if (!code || !NO_HARD_LINKS.has(code)) throw err;
  }
  if (await regularOrNone(file, target)) return false;
  await rename(tmp, file);
  return true;
}

/** Makes a rename in `dir` durable; not every platform can open a folder, so this is best effort. */
async function syncFolder(dir: string): Promise<void> {
  try {
    const d = await open(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // best effort: Windows cannot open a folder, and some file systems refuse to fsync one
  }
}

/**
 * Removes `file` under `target.root` (nothing there is fine). The folders on the way are checked as
 * for a write, none created; a link at the target is removed itself, never what it points to.
 *
 * @throws {@link FileWriteError} as {@link checkWritable} does, or naming the file system's error.
 */
export async function removeFile(file: string, target: WriteTarget): Promise<void> {
  const absolute = path.resolve(file);
  const root = path.resolve(target.root);
  const folders = foldersBelow(root, path.dirname(absolute));
  if (!folders || absolute === root) throw outside(absolute, root, target);
  try {
    if (!(await readyRoot(root, absolute, target, false, PRIVATE_DIR_MODE))) return;
    for (const f of folders) {
      if (!(await realFolder(f, absolute, target, false, PRIVATE_DIR_MODE))) return;
    }
    const info = await lstatOrNone(absolute);
    if (!info) return;
    if (info.isDirectory()) {
      throw failure(absolute, target, "not-file", `${shownPath(absolute)} is a folder, not a file`);
    }
    await rm(absolute, { force: true });
  } catch (err) {
    throw writeFailure(absolute, target, err);
  }
}

/**
 * Writes a set of files that belong together (a new project, an import and the embedded emulator's
 * state it copies) with {@link writeFileAtomic}, in the order given (put the file that names the others
 * last: carte.yaml), so that the set is left whole or not at all: when one fails, the files this call
 * wrote before it are removed again, and so are the folders it made for them (when empty: a folder only
 * ever loses what this call put there), and the error says so. A file already there is left as it is
 * (`overwrite: false` returns `false`).
 *
 * @returns per file, whether it was written (`false`: one was there and was kept).
 * @throws {@link FileWriteError} of the file that failed, its message naming the files removed again
 *   (or any that could not be removed).
 */
export async function writeFileSet(
  files: readonly { file: string; data: string | Uint8Array; options: AtomicWriteOptions }[],
): Promise<boolean[]> {
  const made = await missingFolders(files);
  const written: { file: string; options: AtomicWriteOptions }[] = [];
  const out: boolean[] = [];
  // Each folder is listed once for the temporary files of killed writers, once it is known to be a
  // real folder: listed for every file, the folder of 10,000 store files was listed 10,000 times, the
  // square of the stores.
  const swept = new Set<string>();
  for (const f of files) {
    const dir = path.dirname(path.resolve(f.file));
    try {
      if (!swept.has(dir)) {
        await ensureFolder(dir, f.options);
        await removeStaleTempsIn(dir);
        swept.add(dir);
      }
      const done = await writeFileAtomic(f.file, f.data, { ...f.options, tempsSwept: true });
      if (done) written.push(f);
      out.push(done);
    } catch (err) {
      const failed = await undone(writeFailure(f.file, f.options, err), written);
      await removeEmptyFolders(made);
      throw failed;
    }
  }
  return out;
}

/**
 * The folders below each file's root, down to its folder, that are not there yet: those a
 * {@link writeFileSet} of `files` makes. Deepest first.
 */
async function missingFolders(files: readonly { file: string; options: WriteTarget }[]): Promise<string[]> {
  const missing = new Set<string>();
  const seen = new Set<string>();
  for (const f of files) {
    const dir = path.dirname(path.resolve(f.file));
    if (seen.has(dir)) continue;
    seen.add(dir);
    for (const folder of foldersBelow(path.resolve(f.options.root), dir) ?? []) {
      if (!missing.has(folder) && !(await lstatOrNone(folder).catch(() => true))) missing.add(folder);
    }
  }
  return [...missing].sort((a, b) => b.length - a.length);
}

/**
 * Removes the folders given (deepest first) that are empty; one holding anything, or gone, or no longer
 * a folder (a link planted meanwhile: `rmdir` never follows it) is left as it is.
 */
async function removeEmptyFolders(folders: readonly string[]): Promise<void> {
  for (const folder of folders) await rmdir(folder).catch(() => undefined);
}

/** `err` with the files written before it removed again, said in its message. */
async function undone(
  err: FileWriteError,
  written: readonly { file: string; options: AtomicWriteOptions }[],
): Promise<FileWriteError> {
  if (written.length === 0) return err;
  const left: string[] = [];
  for (const w of [...written].reverse()) {
    try {
      await removeFile(w.file, { ...w.options, purpose: "remove again" });
    } catch {
      left.push(shownPath(w.file));
    }
  }
  const removed = written.length - left.length;
  const note =
    (removed > 0
      ? `; the ${removed === 1 ? "file" : `${removed} files`} written before it ${removed === 1 ? "was" : "were"} removed again`
      : "") + (left.length > 0 ? `; remove by hand what could not be removed: ${left.join(", ")}` : "");
  return err.withNote(note);
}
