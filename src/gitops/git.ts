/**
 * A project's files as they are in a git commit, without a checkout (`carte plan --base REF`, and the
 * base branch of a pull request in the GitHub Action): the commit's files, read through one
 * `git cat-file --batch` process (the commit, the trees down to the project's folder and below it, the
 * files' bytes), are written out into a temporary folder, where the config loader reads them with every
 * check it makes on a work tree; which files differ from the work tree (`--scope changed`); the fetch
 * of a commit a shallow clone lacks. Nothing in the work tree or the index is touched. git runs only through
 * src/gitops/safe-git.ts, in the repository found there.
 */

import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CommandLineError, GitError } from "../errors.js";
import { askGit, runGit, spawnGit, type GitProcess, type GitRepository } from "./safe-git.js";

export { findRepository, type GitRepository } from "./safe-git.js";

/** A program that could not be started, in words (no raw `spawn git ENOENT`). */
const cannotRun = (program: string, e: NodeJS.ErrnoException) =>
  e.code === "ENOENT"
    ? `${program} cannot be run (is it installed, and on PATH?)`
    : `${program} could not be started (${e.code ?? "?"})`;

/** The largest object read from git: a file of a commit bigger than this is refused (see the bound of {@link runGit}). */
const MAX_OBJECT_BYTES = 512 * 1024 * 1024;

/** An object of the repository as `git cat-file --batch` gives it. */
interface GitObject {
  oid: string;
  type: string;
  data: Buffer;
}

/**
 * The objects of a repository, read through one `git cat-file --batch` process: a name is written on
 * its standard input, and the object comes back (`<oid> <type> <size>`, then its bytes) or the word
 * `missing`. Requests are answered in order, so any number may be under way at once. Started once, at
 * the start of a run while carte's heap is small (starting a process copies the parent's page tables).
 */
export class GitObjects {
  readonly #git: GitProcess;
  readonly #waiting: { resolve: (o: GitObject | undefined) => void; reject: (e: unknown) => void }[] = [];
  /** The header line being read. */
  #line: Buffer = Buffer.alloc(0);
  /** The object being read, after its header. */
  #body: { oid: string; type: string; size: number; pieces: Buffer[]; have: number } | undefined;
  #said = "";
  #failed: GitError | undefined;

  constructor(
    readonly repo: GitRepository,
    /** What the errors name: `--base REF`. */
    readonly label: string,
  ) {
    this.#git = spawnGit(repo, ["cat-file", "--batch"]);
    this.#git.stdout.on("data", (d: Buffer) => this.#take(d));
    this.#git.stderr.on(
      "data",
      (d: Buffer) => (this.#said = (this.#said + d.toString("utf8")).slice(0, 4096)),
    );
    this.#git.stdin.on("error", () => undefined); // a git that ended: its `close` says why
    this.#git.on("error", (e: NodeJS.ErrnoException) => this.#fail(`${label}: ${cannotRun("git", e)}`));
    this.#git.on("close", (code) => {
      const first = this.#said.trim().split("\n")[0];
      this.#fail(`${label}: git cat-file exited ${code ?? "on a signal"}${first ? `: ${first}` : ""}`);
    });
  }

  /** The object `name` names (an object name, or `REF^{commit}`), or `undefined` when there is none. */
  read(name: string): Promise<GitObject | undefined> {
    if (/[\n\r\0]/.test(name)) return Promise.resolve(undefined); // no object's name holds a line break
    if (this.#failed) return Promise.reject(this.#failed);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#git.stdin.write(`${name}\n`);
    });
  }

  /** Ends the process (its standard input closed: git exits). */
  close(): void {
    this.#failed ??= new GitError(`${this.label}: git cat-file was closed`);
    this.#git.stdin.end();
  }

  #fail(message: string): void {
    this.#failed ??= new GitError(message);
    for (const w of this.#waiting.splice(0)) w.reject(this.#failed);
  }

  /**
   * Answers the requests in order as git's output arrives: a header line, then, for an object, its
   * bytes and a line feed, gathered in pieces (an object of megabytes comes in many).
   */
  #take(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0) {
      const body = this.#body;
      if (body) {
        const need = body.size + 1 - body.have;
        const piece = rest.subarray(0, need);
        body.pieces.push(piece);
        body.have += piece.length;
        rest = rest.subarray(piece.length);
        if (body.have < body.size + 1) return;
        this.#body = undefined;
        const data = Buffer.concat(body.pieces).subarray(0, body.size);
        this.#waiting.shift()?.resolve({ oid: body.oid, type: body.type, data });
        continue;
      }
      this.#line = this.#line.length === 0 ? rest : Buffer.concat([this.#line, rest]);
      rest = Buffer.alloc(0);
      const eol = this.#line.indexOf(10);
      if (eol === -1) {
        if (this.#line.length > 4096)
          this.#fail(`${this.label}: git cat-file answered what it never answers`);
        return;
      }
      const header = this.#line.subarray(0, eol).toString("latin1");
      rest = this.#line.subarray(eol + 1);
      this.#line = Buffer.alloc(0);
      const m = /^([0-9a-f]{40,64}) ([a-z]+) (\d+)$/.exec(header);
      if (!m) {
        // `<name> missing`, `<name> ambiguous`: no such object.
        this.#waiting.shift()?.resolve(undefined);
        continue;
      }
      const size = Number(m[3]);
      if (size > MAX_OBJECT_BYTES) {
        this.#fail(`${this.label}: an object of the commit is larger than ${MAX_OBJECT_BYTES} bytes`);
        this.#git.kill();
        return;
      }
      this.#body = { oid: m[1]!, type: m[2]!, size, pieces: [], have: 0 };
    }
  }
}

/** A file of a commit's tree: its mode as git writes it (`100644`, `100755`, `120000`, `160000`) and its object. */
export interface TreeFile {
  mode: string;
  oid: string;
}

/**
 * The entries of a tree object (`<mode> <name>\0<oid>` each). A name git itself never writes in a tree
 * (empty, `.`, `..`, holding `/`, `.git` in any case; on Windows holding `\\` or `:`) or written twice is
 * refused: such a tree was
 * crafted, and writing it out could lead outside the folder.
 */
function treeEntries(
  data: Buffer,
  oidBytes: number,
  label: string,
): { mode: string; name: string; oid: string }[] {
  const entries: { mode: string; name: string; oid: string }[] = [];
  const names = new Set<string>();
  const windows = path.sep === "\\";
  let at = 0;
  while (at < data.length) {
    // One pass over the entry's bytes (a tree of a thousand files is read at every scoped plan).
    let space = at;
    while (space < data.length && data[space] !== 32) space++;
    let nul = space + 1;
    let ascii = true;
    while (nul < data.length && data[nul] !== 0) {
      if (data[nul]! > 127) ascii = false;
      nul++;
    }
    if (nul + 1 + oidBytes > data.length) throw new GitError(`${label}: a tree of the commit cannot be read`);
    const mode = data.toString("latin1", at, space);
    const name = ascii ? data.toString("latin1", space + 1, nul) : data.toString("utf8", space + 1, nul);
    const oid = data.toString("hex", nul + 1, nul + 1 + oidBytes);
    at = nul + 1 + oidBytes;
    if (
      name === "" ||
      name === "." ||
      name === ".." ||
      name.includes("/") ||
      // On Windows a backslash or a colon in a name is a separator or a drive.
      (windows && /[\\:]/.test(name)) ||
      (name.length === 4 && name.toLowerCase() === ".git") ||
      names.has(name)
    ) {
      throw new GitError(
        `${label}: a tree of the commit holds the name ${JSON.stringify(name)}, which git never writes`,
      );
    }
    names.add(name);
    entries.push({ mode, name, oid });
  }
  return entries;
}

/**
 * The files of a commit below one folder of its tree (`folder`, relative to the top folder, `/`
 * separators, `""` for all), by path relative to that folder (`/` separators): every blob (files,
 * symbolic links) and gitlink (submodule), as `git ls-tree -r` lists them. Empty when the commit has
 * no such folder. Subtrees are asked for all at once.
 */
export async function commitTree(
  objects: GitObjects,
  sha: string,
  folder: string,
): Promise<Map<string, TreeFile>> {
  const label = objects.label;
  const oidBytes = sha.length / 2;
  const tree = async (name: string) => {
    const o = await objects.read(name);
    if (!o || o.type !== "tree")
      throw new GitError(`${label}: the tree ${name} of the commit cannot be read`);
    return treeEntries(o.data, oidBytes, label);
  };
  let oid = `${sha}^{tree}`;
  for (const part of folder.split("/").filter((p) => p !== "")) {
    const entry = (await tree(oid)).find((e) => e.name === part);
    if (!entry || entry.mode !== "40000") return new Map();
    oid = entry.oid;
  }
  const files = new Map<string, TreeFile>();
  const walk = async (treeOid: string, prefix: string): Promise<void> => {
    const subtrees: Promise<void>[] = [];
    for (const e of await tree(treeOid)) {
      const rel = prefix + e.name;
      if (e.mode === "40000") subtrees.push(walk(e.oid, `${rel}/`));
      else files.set(rel, { mode: e.mode, oid: e.oid });
    }
    await Promise.all(subtrees);
  };
  await walk(oid, "");
  return files;
}

/** Why a file could not be written out, in words. */
const writeFailure = (label: string, rel: string, e: unknown) =>
  new GitError(
    `${label}: the commit's files could not be written out (${rel}: ${(e as NodeJS.ErrnoException).code ?? "?"})`,
  );

/**
 * The files of a commit written into a new temporary folder, so that the config loader reads them with
 * every check it makes on a work tree (paths inside the project, links refused, bounded reads): `files`
 * ({@link commitTree}, paths relative to `folder`) but those of `leaveOut`, each read from git by its
 * object; folders made one by one, files created anew (never through an existing name), symbolic links
 * made last (so no file is ever written through one), a submodule as an empty folder. Returns the
 * folder that stands for the work tree's top folder; `close` removes it. When the files cannot be
 * written out, the folder is removed before the error is thrown.
 *
 * @throws {@link GitError} naming the ref and the file that failed.
 */
export async function writeCommitFiles(
  objects: GitObjects,
  files: ReadonlyMap<string, TreeFile>,
  folder: string,
  leaveOut: ReadonlySet<string> = new Set(),
): Promise<{ dir: string; close(): Promise<void> }> {
  const label = objects.label;
  const dir = await mkdtemp(path.join(tmpdir(), "carte-base-"));
  const close = () => rm(dir, { recursive: true, force: true });
  try {
    const base = path.join(dir, ...folder.split("/").filter((p) => p !== ""));
    await mkdir(base, { recursive: true });
    const wanted = [...files].filter(([rel]) => !leaveOut.has(rel));
    // The folders first, each made once, parents before children (none can be a link yet).
    const folders = new Set<string>();
    for (const [rel, file] of wanted) {
      const parts = rel.split("/");
      const last = file.mode === "160000" ? parts.length : parts.length - 1;
      for (let i = 1; i <= last; i++) folders.add(parts.slice(0, i).join("/"));
    }
    for (const rel of [...folders].sort((x, y) => x.split("/").length - y.split("/").length)) {
      await mkdir(path.join(base, ...rel.split("/"))).catch((e: unknown) =>
        Promise.reject(writeFailure(label, rel, e)),
      );
    }
    // Then the files, all asked for at once, each created anew.
    const write = async (rel: string, file: TreeFile) => {
      const o = await objects.read(file.oid);
      if (!o || o.type !== "blob") {
        throw new GitError(`${label}: git cannot read ${rel} of the commit (object ${file.oid} missing)`);
      }
      const target = path.join(base, ...rel.split("/"));
      if (file.mode === "120000") await symlink(o.data.toString("utf8"), target);
      else await writeFile(target, o.data, { flag: "wx", mode: file.mode === "100755" ? 0o755 : 0o644 });
    };
    const settle = async (list: [string, TreeFile][]) => {
      const outcomes = await Promise.allSettled(
        list.map(([rel, file]) =>
          write(rel, file).catch((e: unknown) =>
            Promise.reject(e instanceof GitError ? e : writeFailure(label, rel, e)),
          ),
        ),
      );
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
      if (failed) throw failed.reason;
    };
    await settle(wanted.filter(([, f]) => f.mode !== "160000" && f.mode !== "120000"));
    // The symbolic links last: no file is ever written through one.
    await settle(wanted.filter(([, f]) => f.mode === "120000"));
  } catch (err) {
    await close();
    throw err;
  }
  return { dir, close };
}

/** A commit of the repository a project lives in. */
export interface GitCommit {
  /** The repository ({@link findRepository}); its top folder is the work tree's, as a real path. */
  repo: GitRepository;
  /** Full object name of the commit. */
  sha: string;
  /** The ref as the user named it. */
  ref: string;
}

/**
 * Resolves `ref` (a branch, tag, `HEAD~1`, a commit id) to a commit of `repo`. A ref that looks like an
 * option (`--output=…`) is only ever a name (`--end-of-options`). Throws {@link CommandLineError} when
 * `ref` (`--base`) names no commit there (in a shallow clone the commit may need `git fetch origin REF` first;
 * {@link fetchCommit}).
 */
export async function resolveCommit(ref: string, repo: GitRepository): Promise<GitCommit> {
  const sha =
    (
      await askGit(repo, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`])
    )?.trim() ?? "";
  if (!/^[0-9a-f]{40,64}$/.test(sha)) throw noCommit(ref, repo);
  return { repo, sha, ref };
}

const noCommit = (ref: string, repo: GitRepository) =>
  new CommandLineError(
    `--base ${ref}: no such commit in the repository at ${repo.top} (in a shallow clone, fetch it first: git fetch origin ${ref})`,
  );

/**
 * {@link resolveCommit} through a running {@link GitObjects} (no process of its own): `ref` peeled to
 * a commit (`REF^{commit}`), read as a name only, whatever it looks like.
 *
 * @throws {@link CommandLineError} when `ref` (`--base`) names no commit there.
 */
export async function resolveCommitIn(objects: GitObjects, ref: string): Promise<GitCommit> {
  const o = await objects.read(`${ref}^{commit}`);
  if (!o || o.type !== "commit") throw noCommit(ref, objects.repo);
  return { repo: objects.repo, sha: o.oid, ref };
}

/**
 * The files of the work tree that differ from `commit` (`carte plan --scope changed`): changed, added
 * or deleted tracked files (`git diff --name-only --no-renames`, a rename as its two paths) and
 * untracked files git does not ignore ({@link untrackedFiles}; `untracked` when already asked for,
 * before the commit was known), as absolute paths under the work tree's top folder; with `folder` (relative
 * to the top folder, `/` separators), those below it only. Submodules are not looked into
 * (carte reads no file of theirs). Throws {@link GitError} with git's message when git fails.
 */
export async function changedFiles(
  commit: GitCommit,
  untracked?: readonly string[],
  folder = "",
): Promise<string[]> {
  const [tracked, others] = await Promise.all([
    runGit(commit.repo, [
      "diff",
      "--name-only",
      "--no-renames",
      "--no-ext-diff",
      "--no-textconv",
      "--ignore-submodules=all",
      "-z",
      commit.sha,
      "--",
      ...within(folder),
    ]),
    untracked ?? untrackedFiles(commit.repo, folder),
  ]);
  return [...splitPaths(commit.repo, tracked), ...others];
}

/** Paths git printed separated by NULs, as absolute paths under the top folder. */
const splitPaths = (repo: GitRepository, out: string) =>
  out
    .split("\0")
    .filter((p) => p !== "")
    .map((p) => path.join(repo.top, p));

/**
 * The untracked files of the work tree git does not ignore (`git ls-files --others --exclude-standard`),
 * as absolute paths; with `folder` (relative to the top folder, `/` separators), those below it only.
 */
export async function untrackedFiles(repo: GitRepository, folder = ""): Promise<string[]> {
  return splitPaths(
    repo,
    await runGit(repo, ["ls-files", "--others", "--exclude-standard", "-z", "--", ...within(folder)]),
  );
}

/** What `git status` says of the work tree ({@link workTreeStatus}). */
export interface WorkTreeStatus {
  /** Every file it names (changed, added, deleted, untracked), as absolute paths. */
  files: string[];
  /** The untracked files git does not ignore among them. */
  untracked: string[];
}

/**
 * The files of the work tree that differ from the commit HEAD names, in its index or on disk, and the
 * untracked files git does not ignore, in one process
 * (`git --no-optional-locks status --porcelain -z --untracked-files=all --no-renames`, submodules not
 * looked into; the index is never written); with `folder` (relative to the top folder, `/`
 * separators), those below it only. A file staged with a change and changed back on disk is named
 * though its bytes are HEAD's: the list holds every file that differs from HEAD, and may hold more.
 * Throws {@link GitError} with git's message when git fails.
 */
export async function workTreeStatus(repo: GitRepository, folder = ""): Promise<WorkTreeStatus> {
  const out = await runGit(repo, [
    "--no-optional-locks",
    "status",
    "--porcelain",
    "-z",
    "--untracked-files=all",
    "--no-renames",
    "--ignore-submodules=all",
    "--",
    ...within(folder),
  ]);
  const files: string[] = [];
  const untracked: string[] = [];
  const entries = out.split("\0");
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.length < 4) continue;
    const xy = entry.slice(0, 2);
    const file = path.join(repo.top, entry.slice(3));
    files.push(file);
    if (xy === "??") untracked.push(file);
    // A rename or copy (never asked for) names its source next: a changed file too.
    if (/[RC]/.test(xy) && i + 1 < entries.length && entries[i + 1] !== "")
      files.push(path.join(repo.top, entries[++i]!));
  }
  return { files, untracked };
}

/**
 * The pathspec of one folder of the work tree (relative to the top folder, `/` separators; `""`: the
 * whole tree), taken literally (no pattern, no magic): git then looks at the project's folder alone,
 * not at the rest of a repository that holds more than the project.
 */
const within = (folder: string) => (folder === "" ? [] : [`:(literal)${folder}`]);

/**
 * Fetches one commit (`sha`, a full object name) from `origin` (depth 1, no tags, no submodules), for a
 * shallow clone that lacks the base of a pull request. The program run at the other end is
 * `git-upload-pack`, whatever any configuration says (`remote.origin.uploadpack` is never read).
 * Throws {@link GitError} for anything but an object name, and with git's message when the fetch
 * fails.
 */
export async function fetchCommit(sha: string, repo: GitRepository): Promise<void> {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha)) {
    throw new GitError(`cannot fetch ${sha}: only a full commit id is fetched`);
  }
  await runGit(repo, [
    "fetch",
    "--no-tags",
    "--quiet",
    "--depth=1",
    "--no-recurse-submodules",
    "--upload-pack=git-upload-pack",
    "origin",
    sha,
  ]);
}
