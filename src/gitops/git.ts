/**
 * A project's files as they are in a git commit, without a checkout (`carte plan --base REF`, and the
 * base branch of a pull request in the GitHub Action): the commit's files are written out into a
 * temporary folder (`git archive`), where the config loader reads them with every check it makes on a
 * work tree; which files differ from the work tree (`--scope changed`); the fetch of a commit a
 * shallow clone lacks. Nothing in the work tree or the index is touched. git runs only through
 * src/gitops/safe-git.ts, in the repository found there.
 */

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { UsageError } from "../errors.js";
import { askGit, runGit, spawnGit, type GitRepository } from "./safe-git.js";

export { findRepository, type GitRepository } from "./safe-git.js";

/**
 * The most characters of paths named to `git archive` to leave out: well under the system's limit on a
 * command line (128 KiB for one argument list on Linux is the smallest common one).
 */
const MAX_PATHSPEC_CHARS = 64 * 1024;

/** A program that could not be started, in words (no raw `spawn tar ENOENT`). */
const cannotRun = (program: string, e: NodeJS.ErrnoException) =>
  e.code === "ENOENT"
    ? `${program} cannot be run (is it installed, and on PATH?)`
    : `${program} could not be started (${e.code ?? "?"})`;

/** How a child process ended: its exit code, or the error that kept it from running. */
function ended(child: ChildProcess) {
  return new Promise<{ code: number | null; error?: NodeJS.ErrnoException }>((resolve) => {
    child.on("error", (error) => resolve({ code: null, error }));
    child.on("close", (code) => resolve({ code }));
  });
}

/**
 * The files of `commit` written into a new temporary folder (`git archive | tar -x`), so that the config
 * loader reads them with every check it makes on a work tree (paths inside the project, bounded reads).
 * Returns the folder that stands for the work tree's top folder; `close` removes it. When the tree
 * cannot be written out, the folder is removed before the error is thrown. `leaveOut`: files (paths
 * relative to the top folder) not written out, when they are few enough to name to git (else every
 * file is written).
 *
 * @throws {@link UsageError} naming the ref and what failed (git's first line, or tar's exit code).
 */
export async function materializeCommit(
  commit: GitCommit,
  leaveOut: readonly string[] = [],
): Promise<{ dir: string; close(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "carte-base-"));
  const close = () => rm(dir, { recursive: true, force: true });
  try {
    const excluded = leaveOut.map((f) => `:(exclude,literal)${f.split(path.sep).join("/")}`);
    const named = excluded.reduce((n, e) => n + e.length + 1, 0) <= MAX_PATHSPEC_CHARS;
    const archive = spawnGit(commit.repo, [
      "archive",
      "--format=tar",
      commit.sha,
      ...(named && excluded.length > 0 ? ["--", ".", ...excluded] : []),
    ]);
    const tar = spawn("tar", ["-x", "-C", dir], { stdio: ["pipe", "ignore", "pipe"] });
    // What each said, its first few KiB: the first line goes into the error.
    let said = "";
    archive.stderr.on("data", (d: Buffer) => (said = (said + d.toString("utf8")).slice(0, 4096)));
    let tarSaid = "";
    tar.stderr.on("data", (d: Buffer) => (tarSaid = (tarSaid + d.toString("utf8")).slice(0, 4096)));
    // A tar that stops reading ends git archive's writes (EPIPE): tar's exit code then says why.
    let stopped = false;
    tar.stdin.on("error", () => {
      stopped = true;
      archive.kill();
    });
    archive.stdout.pipe(tar.stdin);
    const [git, untar] = await Promise.all([ended(archive), ended(tar)]);
    const first = (text: string) => text.trim().split("\n")[0] ?? "";
    if (git.error) throw new UsageError(`--base ${commit.ref}: ${cannotRun("git", git.error)}`);
    if (untar.error) throw new UsageError(`--base ${commit.ref}: ${cannotRun("tar", untar.error)}`);
    if (git.code !== 0 && !stopped) {
      throw new UsageError(
        `--base ${commit.ref}: git archive exited ${git.code ?? "on a signal"}${said ? `: ${first(said)}` : ""}`,
      );
    }
    if (untar.code !== 0) {
      throw new UsageError(
        `--base ${commit.ref}: the commit's files could not be written out (tar exited ${untar.code ?? "on a signal"}${tarSaid ? `: ${first(tarSaid)}` : ""})`,
      );
    }
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
 * option (`--output=…`) is only ever a name (`--end-of-options`). Throws {@link UsageError} when `ref`
 * names no commit there (in a shallow clone the commit may need `git fetch origin REF` first;
 * {@link fetchCommit}).
 */
export async function resolveCommit(ref: string, repo: GitRepository): Promise<GitCommit> {
  const sha =
    (
      await askGit(repo, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`])
    )?.trim() ?? "";
  if (!/^[0-9a-f]{40,64}$/.test(sha)) {
    throw new UsageError(
      `--base ${ref}: no such commit in the repository at ${repo.top} (in a shallow clone, fetch it first: git fetch origin ${ref})`,
    );
  }
  return { repo, sha, ref };
}

/**
 * The files of the work tree that differ from `commit` (`carte plan --scope changed`): changed, added
 * or deleted tracked files (`git diff --name-only --no-renames`, a rename as its two paths) and
 * untracked files git does not ignore, as absolute paths under the work tree's top folder. Submodules
 * are not looked into (carte reads no file of theirs). Throws {@link UsageError} with git's message
 * when git fails.
 */
export async function changedFiles(commit: GitCommit): Promise<string[]> {
  const split = (out: string) => out.split("\0").filter((p) => p !== "");
  const [tracked, untracked] = await Promise.all([
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
    ]),
    runGit(commit.repo, ["ls-files", "--others", "--exclude-standard", "-z"]),
  ]);
  return [...split(tracked), ...split(untracked)].map((p) => path.join(commit.repo.top, p));
}

/** Every file of `commit`'s tree, as absolute paths under the work tree's top folder (`git ls-tree`). */
export async function commitFiles(commit: GitCommit): Promise<string[]> {
  const out = await runGit(commit.repo, ["ls-tree", "-r", "-z", "--name-only", commit.sha]);
  return out
    .split("\0")
    .filter((p) => p !== "")
    .map((p) => path.join(commit.repo.top, p));
}

/**
 * Fetches one commit (`sha`, a full object name) from `origin` (depth 1, no tags, no submodules), for a
 * shallow clone that lacks the base of a pull request. The program run at the other end is
 * `git-upload-pack`, whatever any configuration says (`remote.origin.uploadpack` is never read).
 * Throws {@link UsageError} for anything but an object name, and with git's message when the fetch
 * fails.
 */
export async function fetchCommit(sha: string, repo: GitRepository): Promise<void> {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha)) {
    throw new UsageError(`cannot fetch ${sha}: only a full commit id is fetched`);
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
