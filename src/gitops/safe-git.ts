/**
 * The one way carte runs git. A pull request's files are hostile, and git takes its configuration,
 * hooks and commands from the repository it opens: a folder of the pull request holding `HEAD`,
 * `objects/`, `refs/` and a `config` is a (bare) repository to git, and that `config` can name commands
 * git runs (`remote.origin.uploadpack`, `core.fsmonitor`, `core.sshCommand`, `core.hooksPath`). So git
 * never looks for a repository among the project's folders:
 *
 * - {@link findRepository} finds the work tree's top folder once, by its `.git` (a name no commit can
 *   hold: git refuses it in a tree), from the project folder upwards and never above the Action's
 *   workspace, and asks git about that top folder alone, with a ceiling just above it;
 * - {@link gitInvocation} builds every command from there: working directory the top folder,
 *   `--git-dir` and `--work-tree` explicit (no search for a repository at all), `GIT_CEILING_DIRECTORIES`
 *   above the top folder, bare repositories only when named (`safe.bareRepository=explicit`), no hooks,
 *   no fsmonitor, the fetch protocols limited to https and ssh, no system-wide configuration, no
 *   prompt. The configuration git reads is then the user's own (`~/.gitconfig`) and the repository's
 *   `.git/config` (the runner's checkout, or the user's clone): trusted, unlike the work tree.
 *
 * Nothing else in src/ spawns git (eslint.config.js refuses it outside this module).
 */

import {
  execFile,
  spawn,
  type ChildProcess,
  type ChildProcessByStdio,
  type ExecFileException,
} from "node:child_process";
import { lstat, readdir, readFile, realpath } from "node:fs/promises";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { GitError } from "../errors.js";

/** A repository found by {@link findRepository}. */
export interface GitRepository {
  /** Absolute, real path of the work tree's top folder. */
  top: string;
  /** Absolute path of the repository's git folder (`.git`, or the folder a `.git` file names). */
  gitDir: string;
}

/**
 * The settings every git command runs with (`-c`, which no configuration file overrides):
 *
 * - `safe.bareRepository=explicit`: a folder is a bare repository only when named, never when found;
 * - `core.hooksPath=/dev/null`, `core.fsmonitor=false`: no hook and no file-system monitor runs;
 * - the protocols of a fetch: https and ssh only, the two an Action checkout's `origin` uses
 *   (actions/checkout writes an https address, or an ssh one for a deploy key). `file` and `ext` are
 *   refused: they open local paths and run local programs; `git://` and `http://` too: they fetch
 *   unauthenticated, in the clear. Each is named, so that no configuration allows it by name.
 */
export const SAFE_SETTINGS: readonly string[] = [
  "safe.bareRepository=explicit",
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "protocol.allow=never",
  "protocol.https.allow=always",
  "protocol.ssh.allow=always",
  "protocol.file.allow=never",
  "protocol.ext.allow=never",
  "protocol.git.allow=never",
  "protocol.http.allow=never",
];

/** The variables of the caller's environment that would point git at parts of another repository. */
const REDIRECTS = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
];

/** How to run one git command: its arguments (after `git`), working directory and environment. */
export interface GitInvocation {
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The environment of every git command: the caller's, no redirection, the ceiling above `top`. */
function safeEnv(top: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of REDIRECTS) delete env[name];
  env.GIT_CEILING_DIRECTORIES = path.dirname(top);
  env.GIT_CONFIG_NOSYSTEM = "1";
  // A fetch that needs a password fails instead of waiting for one.
  env.GIT_TERMINAL_PROMPT = "0";
  return env;
}

const settings = () => SAFE_SETTINGS.flatMap((s) => ["-c", s]);

/**
 * The one builder of a git command (see the module comment): `args` run in `repo`, with its git folder
 * and work tree named, in its top folder, with {@link SAFE_SETTINGS}. Pure.
 */
export function gitInvocation(repo: GitRepository, args: readonly string[]): GitInvocation {
  const env = safeEnv(repo.top);
  env.GIT_DIR = repo.gitDir;
  env.GIT_WORK_TREE = repo.top;
  return {
    args: [`--git-dir=${repo.gitDir}`, `--work-tree=${repo.top}`, ...settings(), ...args],
    cwd: repo.top,
    env,
  };
}

/** Most bytes of output {@link runGit} and {@link askGit} read: 512 MiB (a diff of a large tree). */
const EXEC_BYTES = 512 * 1024 * 1024;

/** Why a git command failed, in a line: the first of what git said, else what kept it from running. */
function why(err: ExecFileException, stderr: string): string {
  const said = stderr.trim().split("\n")[0];
  if (said) return said;
  if (err.code === "ENOENT") return "git cannot be run (is it installed, and on PATH?)";
  if (err.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER")
    return `it wrote more than ${bytesInWords(EXEC_BYTES)}`;
  if (typeof err.code === "number") return `exit code ${err.code}`;
  return err.signal ? `stopped by ${err.signal}` : "it could not be run";
}

/**
 * Runs one git command; `name` (`rev-parse`, `fetch`…) names it in the error. With `no`, an exit code 1
 * resolves `undefined` (git's "no" for `rev-parse --verify --quiet`).
 */
function exec(call: GitInvocation, name: string, no?: "exit 1 is no"): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      call.args,
      { cwd: call.cwd, env: call.env, maxBuffer: EXEC_BYTES, encoding: "utf8" },
      (err, stdout, stderr) => {
        if (!err) resolve(stdout);
        else if (no && err.code === 1) resolve(undefined);
        else reject(new GitError(`git ${name} failed: ${why(err, stderr)}`));
      },
    );
  });
}

/** What one git command did ({@link gitOutcome}): its exit code and what it wrote, bounded. */
export interface GitOutcome {
  code: number;
  stdout: string;
  stderr: string;
  /**
   * The standard output went past {@link GitCallOptions.maxBytes} and was cut there
   * ({@link GitCallOptions.cut}): `stdout` holds its first bytes, git was ended, and `code` is 0.
   */
  cut?: boolean;
}

/** The latest a git command may end, and that limit in words for its error. */
export interface GitDeadline {
  /** When git is stopped (epoch ms, {@link Date.now}'s clock). */
  at: number;
  /** What the limit is, in words: `the time limit of the run (--timeout 20s)`. */
  limit: string;
}

/** How {@link gitOutcome} runs git. */
export interface GitCallOptions {
  /** A commit's author and committer, added to git's environment (`GIT_AUTHOR_NAME`…; nothing else). */
  identity?: Readonly<Record<string, string>>;
  /** git is stopped then, and the call fails with {@link GitDeadlineError}. */
  deadline?: GitDeadline | undefined;
  /** Most bytes of standard output read. Default {@link OUTCOME_BYTES}. */
  maxBytes?: number;
  /**
   * Past {@link maxBytes}, keep the bytes read and end git ({@link GitOutcome.cut}); without it, the
   * call fails saying how much git wrote.
   */
  cut?: boolean;
}

/** Most bytes of a command's standard output {@link gitOutcome} reads unless told: 1 MiB. */
export const OUTCOME_BYTES = 1024 * 1024;
/** Most bytes of what git says on its standard error that are kept (the first line is what is shown). */
const STDERR_BYTES = 64 * 1024;
/** How long git has to end once asked to (SIGTERM) before it is killed (SIGKILL), in ms. */
const STOP_GRACE_MS = 2_000;

/**
 * git did not end before its deadline ({@link GitCallOptions.deadline}) and was stopped: a remote that
 * never answers (a server that accepts the connection and says nothing, a network that drops it).
 */
export class GitDeadlineError extends GitError {
  constructor(
    /** The git command (`push`, `ls-remote`…). */
    readonly command: string,
    /** The limit that ended it, in words ({@link GitDeadline.limit}). */
    readonly limit: string,
  ) {
    super(`git ${command} had no answer within ${limit}: it was stopped`);
    this.name = "GitDeadlineError";
  }
}

/** Variables a caller may add to a git command's environment: a commit's author and committer. */
const IDENTITY = /^GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)$/;

/**
 * The processes `pid` started, theirs, and so on, as the system lists them now: on Linux from
 * `/proc/<pid>/stat` (no program needed), elsewhere from `ps`. Empty when they cannot be listed.
 */
async function descendants(pid: number): Promise<number[]> {
  const parents: [number, number][] = [];
  if (process.platform === "linux") {
    for (const name of await readdir("/proc").catch(() => [] as string[])) {
      if (!/^\d+$/.test(name)) continue;
      // `pid (comm) state ppid …`: the name may hold spaces and parentheses, so read after the last `)`.
      const stat = await readFile(`/proc/${name}/stat`, "latin1").catch(() => "");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (Number.isInteger(ppid)) parents.push([Number(name), ppid]);
    }
  } else {
    const listed = await new Promise<string>((resolve) =>
      execFile("ps", ["-A", "-o", "pid=", "-o", "ppid="], { maxBuffer: 16 * 1024 * 1024 }, (err, out) =>
        resolve(err ? "" : out),
      ),
    );
    for (const line of listed.split("\n")) {
      const m = /^\s*(\d+)\s+(\d+)\s*$/.exec(line);
      if (m) parents.push([Number(m[1]), Number(m[2])]);
    }
  }
  const found: number[] = [];
  const wanted = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [child, parent] of parents) {
      if (wanted.has(parent) && !wanted.has(child)) {
        wanted.add(child);
        found.push(child);
        grew = true;
      }
    }
  }
  return found;
}

/**
 * Stops git and the programs it started (ssh for a remote, which git leaves running when it is sent a
 * signal): SIGTERM to each, then SIGKILL to git if it still runs after {@link STOP_GRACE_MS} (not to
 * the others, whose process ids may have been given to another program by then). Its output
 * is no longer read, so that nothing git's programs hold open keeps carte waiting. On Windows,
 * `taskkill /T` ends the tree.
 */
function stop(child: ChildProcess): void {
  child.stdout?.destroy();
  child.stderr?.destroy();
  const pid = child.pid;
  if (pid === undefined) return;
  if (process.platform === "win32") {
    execFile("taskkill", ["/pid", String(pid), "/T", "/F"], () => undefined);
    return;
  }
  // Listed while git runs: its programs are still its children.
  void descendants(pid).then((tree) => {
    child.kill("SIGTERM");
    for (const p of tree) {
      try {
        process.kill(p, "SIGTERM");
      } catch {
        // ended already
      }
    }
    setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }, STOP_GRACE_MS).unref();
  });
}

/**
 * Runs git in `repo` ({@link gitInvocation}) and resolves with its exit code and output, whatever the
 * code (`git push --porcelain` says per ref what it did, and exits 1 when one was rejected). Its
 * standard output is read up to {@link GitCallOptions.maxBytes} (cut there, or the call fails), its
 * standard error up to 64 KiB; past {@link GitCallOptions.deadline} git is stopped (with the programs
 * it started for a remote) and the call fails at once.
 *
 * @throws {@link GitDeadlineError} at the deadline; {@link GitError} when git cannot be run, stops
 *   on a signal, or writes more than it may.
 */
export function gitOutcome(
  repo: GitRepository,
  args: readonly string[],
  options: GitCallOptions = {},
): Promise<GitOutcome> {
  const call = gitInvocation(repo, args);
  for (const [name, value] of Object.entries(options.identity ?? {})) {
    if (!IDENTITY.test(name)) throw new GitError(`git: ${name} is not a commit identity variable`);
    call.env[name] = value;
  }
  const command = args.find((a) => !a.startsWith("-")) ?? "";
  const maxBytes = options.maxBytes ?? OUTCOME_BYTES;
  const deadline = options.deadline;
  if (deadline && Date.now() >= deadline.at) {
    return Promise.reject(new GitDeadlineError(command, deadline.limit));
  }
  return new Promise((resolve, reject) => {
    const child = spawn("git", call.args, {
      cwd: call.cwd,
      env: call.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = "";
    let done = false;
    let cut = false;
    let overflow = false;
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      settle();
    };
    const timer = deadline
      ? setTimeout(
          () => {
            stop(child);
            finish(() => reject(new GitDeadlineError(command, deadline.limit)));
          },
          Math.max(0, deadline.at - Date.now()),
        )
      : undefined;
    child.stdout.on("data", (d: Buffer) => {
      if (cut || overflow) return;
      const room = maxBytes - outBytes;
      out.push(d.length > room ? d.subarray(0, room) : d);
      outBytes += Math.min(d.length, room);
      if (d.length <= room) return;
      if (options.cut) cut = true;
      else overflow = true;
      stop(child);
    });
    child.stderr.on("data", (d: Buffer) => {
      if (err.length < STDERR_BYTES) err = (err + d.toString("utf8")).slice(0, STDERR_BYTES);
    });
    child.on("error", (e: NodeJS.ErrnoException) =>
      finish(() =>
        reject(
          new GitError(
            `git ${command} failed: ${e.code === "ENOENT" ? "git cannot be run (is it installed, and on PATH?)" : `it could not be run (${e.code ?? "?"})`}`,
          ),
        ),
      ),
    );
    child.on("close", (code, signal) =>
      finish(() => {
        const stdout = Buffer.concat(out).toString("utf8");
        if (cut) return resolve({ code: 0, stdout, stderr: err, cut: true });
        if (overflow) {
          return reject(new GitError(`git ${command} failed: it wrote more than ${bytesInWords(maxBytes)}`));
        }
        if (code !== null) return resolve({ code, stdout, stderr: err });
        const said = err.trim().split("\n")[0];
        reject(new GitError(`git ${command} failed: ${said || `stopped by ${signal ?? "a signal"}`}`));
      }),
    );
  });
}

/** A bound in bytes, in words: `1 MiB`, `64 KiB`. */
function bytesInWords(n: number): string {
  if (n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/**
 * Runs git in `repo` ({@link gitInvocation}) and resolves with its standard output.
 *
 * @throws {@link GitError} with the first line of git's message when git fails or cannot be run.
 */
export async function runGit(repo: GitRepository, args: readonly string[]): Promise<string> {
  // Named by its command, not by a global option before it (`--no-optional-locks status`).
  return (await exec(gitInvocation(repo, args), args.find((a) => !a.startsWith("-")) ?? ""))!;
}

/**
 * {@link runGit} for a question git answers "no" to by exiting 1 (`rev-parse --verify --quiet`):
 * resolves `undefined` then.
 *
 * @throws {@link GitError} with the first line of git's message for any other failure.
 */
export function askGit(repo: GitRepository, args: readonly string[]): Promise<string | undefined> {
  return exec(gitInvocation(repo, args), args[0] ?? "", "exit 1 is no");
}

/** A git process with its standard streams piped. */
export type GitProcess = ChildProcessByStdio<Writable, Readable, Readable>;

/**
 * Starts git in `repo` ({@link gitInvocation}) with its standard streams piped, for a long-lived
 * process or a stream (`git cat-file --batch`). The caller handles its `error` and
 * `close` events.
 */
export function spawnGit(repo: GitRepository, args: readonly string[]): GitProcess {
  const call = gitInvocation(repo, args);
  return spawn("git", call.args, { cwd: call.cwd, env: call.env, stdio: ["pipe", "pipe", "pipe"] });
}

const inside = (dir: string, top: string) => {
  const rel = path.relative(top, dir);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
};

/**
 * The repository whose work tree holds `start` (a project folder). The nearest folder at or above
 * `start` (its real path) holding a `.git` is taken for the top folder, never one above `workspace`
 * when `start` is inside it; git is then asked about that folder alone (its own checks, such as
 * `safe.directory`, apply), with a ceiling just above it. No folder of the work tree is ever tried as
 * a repository, so a bare-repository layout among the project's files is never opened.
 *
 * @param options.workspace the top of the search (the Action's `GITHUB_WORKSPACE`); default the root.
 * @throws {@link GitError} when no `.git` is found, git refuses the folder, or `start` is outside
 *   the work tree git names.
 */
export async function findRepository(
  start: string,
  options: { workspace?: string | undefined } = {},
): Promise<GitRepository> {
  let from: string;
  try {
    from = await realpath(start);
  } catch {
    throw new GitError(`cannot find the git repository of ${start}: the folder cannot be read`);
  }
  let top: string | undefined;
  if (options.workspace !== undefined) {
    try {
      const ws = await realpath(options.workspace);
      if (inside(from, ws)) top = ws;
    } catch {
      // No such workspace: the search goes up to the root, as git's does.
    }
  }
  let dir = from;
  for (;;) {
    if (await exists(path.join(dir, ".git"))) break;
    const parent = path.dirname(dir);
    if (dir === top || parent === dir) {
      throw new GitError(
        `${start} is not in a git repository: no .git in it or in a folder above it${top ? ` up to ${top}` : ""}`,
      );
    }
    dir = parent;
  }
  // git finds `dir/.git` first, and never goes above `dir`.
  const out = (await exec(
    {
      args: [...settings(), "rev-parse", "--absolute-git-dir", "--show-toplevel"],
      cwd: dir,
      env: safeEnv(dir),
    },
    "rev-parse",
  ))!;
  const [gitDir, shown] = out.split("\n");
  if (!gitDir || !shown) {
    throw new GitError(`${dir} is not the top folder of a git work tree (git names none)`);
  }
  const real = await realpath(shown);
  if (!inside(from, real)) {
    throw new GitError(`${start} is outside the work tree of the git repository at ${gitDir}`);
  }
  return { top: real, gitDir };
}

/** Whether `file` exists (as anything: a folder, a file, a link). */
async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw new GitError(`cannot look for the git repository: ${file} cannot be read (${code ?? "?"})`);
  }
}
