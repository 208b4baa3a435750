/**
 * Reading a project's files as they are in a git commit, without a checkout (`carte plan --base REF`,
 * and the base branch of a pull request in the GitHub Action): `git ls-tree` lists the commit's files
 * once, `git cat-file --batch` reads their contents through one long-lived process, and the config
 * loader (src/config/load.ts `ProjectSource`) sees them at the same absolute paths as the work tree,
 * so that problems and globs read exactly as they would for a checkout. Nothing in the work tree or the
 * index is touched.
 */

import { execFile, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { realpath } from "node:fs/promises";
import path from "node:path";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import type { GlobFs } from "../config/glob.js";

/** Files read from somewhere other than the work tree (a commit's tree, see {@link gitTreeSource}). */
export interface ProjectSource {
  readFile(absolute: string): Promise<string>;
  access(absolute: string): Promise<void>;
  globFs?: GlobFs;
}

/**
 * The files of `commit` written into a new temporary folder (`git archive | tar -x`), so that the config
 * loader reads them with every check it makes on a work tree (paths inside the project, bounded reads).
 * Returns the folder that stands for the work tree's top folder; `close` removes it.
 */
export async function materializeCommit(commit: GitCommit): Promise<{ dir: string; close(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "carte-base-"));
  await new Promise<void>((resolve, reject) => {
    const archive = spawn("git", ["archive", "--format=tar", commit.sha], { cwd: commit.toplevel });
    const tar = spawn("tar", ["-x", "-C", dir]);
    archive.stdout.pipe(tar.stdin);
    let failed = false;
    const fail = (why: string) => {
      if (!failed) reject(new UsageError(`--base ${commit.ref}: ${why}`));
      failed = true;
    };
    archive.on("error", (e) => fail(`git archive failed (${e.message})`));
    tar.on("error", (e) => fail(`tar failed (${e.message})`));
    archive.on("close", (code) => code !== 0 && fail(`git archive exited ${code}`));
    tar.on("close", (code) => (code === 0 ? !failed && resolve() : fail(`tar exited ${code}`)));
  });
  return { dir, close: () => rm(dir, { recursive: true, force: true }) };
}
import { UsageError } from "../errors.js";

/** Runs git and resolves with its standard output; rejects with git's own message. */
function git(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd, maxBuffer: 512 * 1024 * 1024, encoding: "utf8" }, (err, stdout, stderr) => {
      if (err) {
        const why = (stderr || err.message).trim().split("\n")[0] ?? "";
        reject(new UsageError(`git ${args[0]} failed: ${why}`));
      } else resolve(stdout);
    });
  });
}

/** A commit of the repository a project lives in. */
export interface GitCommit {
  /** Absolute, real path of the work tree's top folder (`git rev-parse --show-toplevel`). */
  toplevel: string;
  /** Full object name of the commit. */
  sha: string;
  /** The ref as the user named it. */
  ref: string;
}

/**
 * Resolves `ref` (a branch, tag, `HEAD~1`, a commit id) to a commit of the repository that contains
 * `cwd`. Throws {@link UsageError} when `cwd` is not in a git work tree or `ref` names no commit there
 * (in a shallow clone the commit may need `git fetch origin REF` first; {@link fetchCommit}).
 */
export async function resolveCommit(ref: string, cwd: string): Promise<GitCommit> {
  const top = (await git(["rev-parse", "--show-toplevel"], cwd)).trim();
  let sha: string;
  try {
    sha = (
      await git(["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`], cwd)
    ).trim();
  } catch {
    sha = "";
  }
  if (!/^[0-9a-f]{40,64}$/.test(sha)) {
    throw new UsageError(
      `--base ${ref}: no such commit in the repository at ${top} (in a shallow clone, fetch it first: git fetch origin ${ref})`,
    );
  }
  return { toplevel: await realpath(top), sha, ref };
}

/**
 * The files of the work tree that differ from `commit` (`carte plan --scope changed`): changed, added
 * or deleted tracked files (`git diff --name-only --no-renames`, a rename as its two paths) and
 * untracked files git does not ignore, as absolute paths under the work tree's top folder. Throws
 * {@link UsageError} with git's message when git fails.
 */
export async function changedFiles(commit: GitCommit): Promise<string[]> {
  const split = (out: string) => out.split("\0").filter((p) => p !== "");
  const [tracked, untracked] = await Promise.all([
    git(["diff", "--name-only", "--no-renames", "-z", commit.sha, "--"], commit.toplevel),
    git(["ls-files", "--others", "--exclude-standard", "-z"], commit.toplevel),
  ]);
  return [...split(tracked), ...split(untracked)].map((p) => path.join(commit.toplevel, p));
}

/** Every file of `commit`'s tree, as absolute paths under the work tree's top folder (`git ls-tree`). */
export async function commitFiles(commit: GitCommit): Promise<string[]> {
  const out = await git(["ls-tree", "-r", "-z", "--name-only", commit.sha], commit.toplevel);
  return out
    .split("\0")
    .filter((p) => p !== "")
    .map((p) => path.join(commit.toplevel, p));
}

/**
 * Fetches one commit from `origin` (depth 1, no tags), for a shallow clone that lacks the base of a pull
 * request. Throws {@link UsageError} with git's message when the fetch fails.
 */
export async function fetchCommit(sha: string, cwd: string): Promise<void> {
  await git(["fetch", "--no-tags", "--quiet", "--depth=1", "origin", sha], cwd);
}

/** One file of the commit's tree. */
interface TreeFile {
  mode: string;
  oid: string;
}

/** Reads blobs through one `git cat-file --batch` process, answers in request order. */
class BlobReader {
  private proc: ChildProcessWithoutNullStreams | undefined;
  private buffer = Buffer.alloc(0);
  private readonly waiting: { resolve: (b: Buffer) => void; reject: (e: Error) => void }[] = [];
  constructor(private readonly cwd: string) {}

  read(oid: string): Promise<Buffer> {
    if (!this.proc) {
      const proc = spawn("git", ["cat-file", "--batch"], { cwd: this.cwd, stdio: ["pipe", "pipe", "pipe"] });
      proc.stdout.on("data", (d: Buffer) => {
        this.buffer = Buffer.concat([this.buffer, d]);
        this.drain();
      });
      const fail = (e: Error) => {
        for (const w of this.waiting.splice(0)) w.reject(e);
        this.proc = undefined;
      };
      proc.on("error", (e) => fail(new UsageError(`git cat-file failed: ${e.message}`)));
      proc.on("exit", (code) => {
        if (this.waiting.length > 0) fail(new UsageError(`git cat-file ended (exit code ${code})`));
      });
      this.proc = proc;
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.proc!.stdin.write(`${oid}\n`);
    });
  }

  /** Hands out every complete answer in the buffer: `<oid> <type> <size>\n<content>\n`. */
  private drain(): void {
    for (;;) {
      const eol = this.buffer.indexOf(10);
      if (eol < 0 || this.waiting.length === 0) return;
      const header = this.buffer.subarray(0, eol).toString("utf8");
      const parts = header.split(" ");
      if (parts[1] === "missing" || parts.length < 3) {
        this.buffer = this.buffer.subarray(eol + 1);
        this.waiting.shift()!.reject(new UsageError(`git cat-file: ${header}`));
        continue;
      }
      const size = Number(parts[2]);
      if (this.buffer.length < eol + 1 + size + 1) return;
      const content = this.buffer.subarray(eol + 1, eol + 1 + size);
      this.buffer = this.buffer.subarray(eol + 1 + size + 1);
      this.waiting.shift()!.resolve(Buffer.from(content));
    }
  }

  close(): void {
    this.proc?.stdin.end();
    this.proc = undefined;
  }
}

const notFound = (what: string) =>
  Object.assign(new Error(`ENOENT: no such file in the commit: ${what}`), { code: "ENOENT" });

/** A directory entry as fdir (tinyglobby) reads it. */
function dirent(name: string, dir: boolean) {
  return {
    name,
    isFile: () => !dir,
    isDirectory: () => dir,
    isSymbolicLink: () => false,
  };
}

/** The files of a commit for the config loader; {@link GitTreeSource.close} ends the git process. */
export interface GitTreeSource extends ProjectSource {
  globFs: GlobFs;
  close(): void;
}

/**
 * The files of `commit` as a {@link ProjectSource} at the work tree's absolute paths. Symbolic links
 * inside the tree are followed (at most 8 in a row), never out of it; submodules are not read.
 */
export async function gitTreeSource(commit: GitCommit): Promise<GitTreeSource> {
  const listing = await git(["ls-tree", "-r", "-z", "--full-tree", commit.sha], commit.toplevel);
  const files = new Map<string, TreeFile>();
  const dirs = new Map<string, Map<string, boolean>>([["", new Map()]]);
  for (const record of listing.split("\0")) {
    const tab = record.indexOf("\t");
    if (tab < 0) continue;
    const [mode, type, oid] = record.slice(0, tab).split(" ");
    const rel = record.slice(tab + 1);
    if (type !== "blob" || !mode || !oid) continue;
    files.set(rel, { mode, oid });
    // Register every parent folder and the file in its folder.
    const segments = rel.split("/");
    let parent = "";
    for (let i = 0; i < segments.length; i++) {
      const name = segments[i]!;
      const isDir = i < segments.length - 1;
      const entries = dirs.get(parent)!;
      entries.set(name, isDir || (entries.get(name) ?? false));
      parent = parent ? `${parent}/${name}` : name;
      if (isDir && !dirs.has(parent)) dirs.set(parent, new Map());
    }
  }
  const blobs = new BlobReader(commit.toplevel);

  /** The tree path of an absolute path; undefined outside the work tree. */
  const treePath = (absolute: string): string | undefined => {
    const rel = path.relative(commit.toplevel, path.resolve(absolute));
    if (rel.startsWith("..") || path.isAbsolute(rel)) return undefined;
    return rel.split(path.sep).join("/");
  };

  const readTree = async (rel: string, hops = 0): Promise<string> => {
    const file = files.get(rel);
    if (!file) throw notFound(rel);
    const content = await blobs.read(file.oid);
    if (file.mode !== "120000") return content.toString("utf8");
    // A symbolic link: its content is the target, relative to the link's folder.
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), content.toString("utf8")));
    if (hops >= 8 || target.startsWith("..") || path.posix.isAbsolute(target)) throw notFound(rel);
    return readTree(target, hops + 1);
  };

  const entriesOf = (p: string) => {
    const rel = treePath(p);
    const entries = rel === undefined ? undefined : dirs.get(rel === "." ? "" : rel);
    if (!entries) throw notFound(p);
    return [...entries].map(([name, dir]) => dirent(name, dir));
  };
  const statOf = (p: string) => {
    const rel = treePath(p);
    const key = rel === "." ? "" : rel;
    if (key === undefined) throw notFound(p);
    if (dirs.has(key)) return { isDirectory: () => true, isFile: () => false, isSymbolicLink: () => false };
    if (files.has(key)) return { isDirectory: () => false, isFile: () => true, isSymbolicLink: () => false };
    throw notFound(p);
  };
  type Callback<T> = (err: Error | null, value?: T) => void;
  const lastCallback = <T>(args: unknown[]) => args[args.length - 1] as Callback<T>;
  const globFs = {
    readdir: (p: string, ...rest: unknown[]) => {
      const cb = lastCallback<ReturnType<typeof entriesOf>>(rest);
      try {
        cb(null, entriesOf(p));
      } catch (e) {
        cb(e as Error);
      }
    },
    readdirSync: (p: string) => entriesOf(p),
    stat: (p: string, ...rest: unknown[]) => {
      const cb = lastCallback<ReturnType<typeof statOf>>(rest);
      try {
        cb(null, statOf(p));
      } catch (e) {
        cb(e as Error);
      }
    },
    statSync: (p: string) => statOf(p),
    realpath: (p: string, ...rest: unknown[]) => {
      const cb = lastCallback<string>(rest);
      try {
        statOf(p);
        cb(null, path.resolve(p));
      } catch (e) {
        cb(e as Error);
      }
    },
    realpathSync: (p: string) => {
      statOf(p);
      return path.resolve(p);
    },
  } as unknown as GlobFs;

  return {
    async readFile(absolute) {
      const rel = treePath(absolute);
      if (rel === undefined) throw notFound(absolute);
      return readTree(rel);
    },
    async access(absolute) {
      const rel = treePath(absolute);
      if (rel === undefined || !files.has(rel)) throw notFound(absolute);
    },
    globFs,
    close: () => blobs.close(),
  };
}
