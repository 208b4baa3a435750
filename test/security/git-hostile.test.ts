/**
 * git in a repository whose work tree holds a pull request's hostile files: a bare-repository layout
 * (`HEAD`, `objects/`, `refs/`, `config`, `hooks/`) planted in the project folder and in every folder
 * above it inside the repository, its `config` naming commands (`core.fsmonitor`, `core.sshCommand`,
 * `remote.origin.uploadpack`, `core.hooksPath`) that touch a marker file when run. Every path of carte
 * that runs git (the Action's fetch of a missing base commit, `plan --base`, `plan --scope changed`)
 * runs against real repositories here (the apply lock across machines too), and must run none of them,
 * write nothing in those folders, and still do its work. `origin` is reached over ssh through a
 * stand-in for ssh that the repository's own `.git/config` names (trusted: the runner's checkout).
 */

import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runAction } from "../../src/action/main.js";
import { loadProject } from "../../src/config/index.js";
import { ConfigError, GitError, LockError } from "../../src/errors.js";
import { loadBase } from "../../src/gitops/base.js";
import { fetchCommit, findRepository, resolveCommit } from "../../src/gitops/git.js";
import { acquireRefLock, forceUnlock, readRefLock } from "../../src/gitops/ref-lock.js";
import { lockRefProblem, refNameProblem } from "../../src/gitops/ref-name.js";
import { gitInvocation, type GitRepository } from "../../src/gitops/safe-git.js";
import { loadChangeScope } from "../../src/gitops/change-scope.js";
import { CATALOG, PROJECT, storeYaml } from "../config/helpers.js";
import { carte } from "../helpers/project.js";
import { git } from "../action/harness.js";
import { testRemote, type TestRemote } from "../helpers/remote.js";

let root: string;
/** Where the planted commands leave their marks: it must stay empty. */
let marks: string;
/** The bare repository `origin` stands for, holding the base (`main`) and the pull request (`pr`). */
let origin: string;
let baseSha: string;
let headSha: string;

/** The project folder inside the repository, and the folders above it there: all of them planted. */
const PROJECT_DIR = "ops/infra";
const PLANTED = ["", "ops", "ops/infra"];
const HOOKS = [
  "post-checkout",
  "reference-transaction",
  "pre-auto-gc",
  "post-index-change",
  "fsmonitor-watchman",
];

/** A bare-repository layout whose every command touches `marks/<tag>-<what>`. */
function plant(dir: string, tag: string): void {
  const mark = (what: string) => `touch ${path.join(marks, `${tag}-${what}`)}`;
  mkdirSync(path.join(dir, "objects"), { recursive: true });
  mkdirSync(path.join(dir, "refs"), { recursive: true });
  mkdirSync(path.join(dir, "hooks"), { recursive: true });
  writeFileSync(path.join(dir, "objects/.keep"), "");
  writeFileSync(path.join(dir, "refs/.keep"), "");
  writeFileSync(path.join(dir, "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(
    path.join(dir, "config"),
    [
      "[core]",
      "\tbare = true",
      `\tfsmonitor = "${mark("fsmonitor")}; false"`,
      `\tsshCommand = "${mark("ssh")}; ${path.join(root, "fake-ssh")}"`,
      "\thooksPath = hooks",
      "[protocol]",
      "\tallow = always",
      '[remote "origin"]',
      `\turl = ssh://carte.invalid${origin}`,
      `\tuploadpack = "${mark("uploadpack")}; git-upload-pack"`,
      "",
    ].join("\n"),
  );
  for (const hook of HOOKS) {
    writeFileSync(path.join(dir, "hooks", hook), `#!/bin/sh\n${mark(hook)}\n`);
    chmodSync(path.join(dir, "hooks", hook), 0o755);
  }
}

/** What a planted folder holds (git writing there, FETCH_HEAD or objects, would show here). */
const listing = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) =>
      /^(HEAD|config|objects|refs|hooks|FETCH_HEAD|shallow|index|packed-refs|logs|info)\b/.test(f),
    )
    .sort();

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "carte-git-hostile-"));
  marks = path.join(root, "marks");
  origin = path.join(root, "origin.git");
  mkdirSync(marks);
  // A stand-in for ssh (`ssh.variant simple`: HOST COMMAND): runs the far end's command here.
  writeFileSync(path.join(root, "fake-ssh"), '#!/bin/sh\nfor last; do :; done\nexec sh -c "$last"\n');
  chmodSync(path.join(root, "fake-ssh"), 0o755);

  // The base: one store. The pull request: a second store, and the hostile layout.
  const work = path.join(root, "work");
  const project = path.join(work, PROJECT_DIR);
  mkdirSync(path.join(project, "stores"), { recursive: true });
  mkdirSync(path.join(project, "catalogs"));
  writeFileSync(path.join(project, "carte.yaml"), PROJECT);
  writeFileSync(path.join(project, "catalogs/burgers.yaml"), CATALOG);
  writeFileSync(path.join(project, "stores/a.yaml"), storeYaml(900101, "a"));
  writeFileSync(path.join(work, ".gitignore"), ".carte/\n");
  git(root, "init", "-q", "-b", "main", work);
  git(work, "add", "-A");
  git(work, "commit", "-q", "-m", "the base");
  baseSha = git(work, "rev-parse", "HEAD");
  git(root, "clone", "-q", "--bare", work, origin);
  git(work, "checkout", "-q", "-b", "pr");
  writeFileSync(path.join(project, "stores/b.yaml"), storeYaml(900102, "b"));
  for (const dir of PLANTED) plant(path.join(work, dir), dir.replace("/", "-") || "root");
  git(work, "add", "-A");
  git(work, "commit", "-q", "-m", "the pull request");
  headSha = git(work, "rev-parse", "HEAD");
  git(work, "push", "-q", origin, "pr");
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

afterEach(() => {
  for (const f of readdirSync(marks)) unlinkSync(path.join(marks, f));
});

let clones = 0;
/**
 * The runner's checkout of the pull request: a clone of `pr` at `depth` (1: the base commit is
 * missing), `origin` an ssh address reached through the stand-in, as the repository's own config says.
 */
function checkout(depth: 1 | 2): { dir: string; project: string; config: string } {
  const dir = path.join(root, `clone-${++clones}`);
  git(root, "clone", "-q", `--depth=${depth}`, "--branch", "pr", `file://${origin}`, dir);
  git(dir, "config", "remote.origin.url", `ssh://carte.invalid${origin}`);
  git(dir, "config", "core.sshCommand", path.join(root, "fake-ssh"));
  git(dir, "config", "ssh.variant", "simple");
  const project = path.join(dir, PROJECT_DIR);
  return { dir, project, config: path.join(project, "carte.yaml") };
}

/** Runs `fn`, then checks that no planted command ran and no planted folder was written. */
async function unshaped<T>(clone: { dir: string }, fn: () => Promise<T>): Promise<T> {
  const before = PLANTED.map((d) => listing(path.join(clone.dir, d)));
  const result = await fn();
  expect(readdirSync(marks)).toEqual([]);
  expect(PLANTED.map((d) => listing(path.join(clone.dir, d)))).toEqual(before);
  return result;
}

/** Runs `fn` with the runner's variables (`INPUT_*`, `GITHUB_*`, `CARTE_*`) exactly `env`, then puts them back. */
async function withEnv<T>(env: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.entries(process.env).filter(([k]) => /^(INPUT_|GITHUB_|CARTE_)/.test(k));
  for (const [k] of saved) delete process.env[k];
  Object.assign(process.env, env);
  try {
    return await fn();
  } finally {
    for (const k of Object.keys(env)) delete process.env[k];
    for (const [k, v] of saved) process.env[k] = v;
  }
}

describe("git with a pull request's bare-repository layout in the project's folders", () => {
  it("the layout works on git as git is usually run: a fetch in the project folder runs its commands", () => {
    // The control: without carte's precautions, the planted folder is a repository and its config runs.
    const clone = checkout(1);
    execFileSync("git", ["fetch", "-q", "origin", baseSha], { cwd: clone.project, stdio: "ignore" });
    expect(readdirSync(marks).sort()).toEqual(["ops-infra-ssh", "ops-infra-uploadpack"]);
  });

  it("the Action's plan on a pull request fetches the missing base commit and splits the plan, running nothing", async () => {
    const clone = checkout(1);
    const repo = await findRepository(clone.project, { workspace: clone.dir });
    await expect(resolveCommit(baseSha, repo)).rejects.toThrow(/no such commit/);

    const run = path.join(root, `run-${clones}`);
    mkdirSync(run);
    const event = path.join(run, "event.json");
    writeFileSync(
      event,
      JSON.stringify({
        pull_request: { number: 7, head: { sha: headSha }, base: { sha: baseSha, ref: "main" } },
      }),
    );
    const env = {
      GITHUB_EVENT_NAME: "pull_request",
      GITHUB_EVENT_PATH: event,
      GITHUB_WORKSPACE: clone.dir,
      GITHUB_STEP_SUMMARY: path.join(run, "summary.md"),
      GITHUB_OUTPUT: path.join(run, "output.txt"),
      INPUT_COMMAND: "plan",
      INPUT_CONFIG: clone.config,
      INPUT_COMMENT: "false",
    };
    for (const f of [env.GITHUB_STEP_SUMMARY, env.GITHUB_OUTPUT]) writeFileSync(f, "");
    const write = process.stdout.write;
    let stdout = "";
    process.stdout.write = ((chunk: string | Uint8Array) => {
      stdout += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      return true;
    }) as typeof process.stdout.write;
    let code: number;
    try {
      code = await withEnv(env, () => unshaped(clone, () => runAction()));
    } finally {
      process.stdout.write = write;
    }
    expect(code, stdout).toBe(0);
    // The base commit is in the clone now, and the plan was split against it: store b is the change.
    expect((await resolveCommit(baseSha, repo)).sha).toBe(baseSha);
    const summary = readFileSync(env.GITHUB_STEP_SUMMARY, "utf8");
    expect(summary).not.toContain("could not be read");
    expect(summary).toMatch(
      /This pull request changes: 7 to create[^]*<code>b<\/code> Store b[^]*Already different on the platform: 7 to create[^]*<code>a<\/code> Store a/,
    );
  });

  it("fetchCommit alone: the trusted origin over ssh, git-upload-pack at the far end whatever the config says", async () => {
    const clone = checkout(1);
    git(
      clone.dir,
      "config",
      "remote.origin.uploadpack",
      `touch ${path.join(marks, "trusted-uploadpack")}; false`,
    );
    const repo = await findRepository(clone.project);
    await unshaped(clone, () => fetchCommit(baseSha, repo));
    expect((await resolveCommit(baseSha, repo)).sha).toBe(baseSha);
    // Only an object name is fetched.
    await expect(fetchCommit("--upload-pack=touch x", repo)).rejects.toThrow(GitError);
  });

  it("the apply lock across machines is taken, read and released on the trusted origin, running nothing", async () => {
    const clone = checkout(1);
    const repo = await findRepository(clone.project);
    const settings = { ref: "refs/carte/lock", remote: "origin", staleMs: 3_600_000 };
    await unshaped(clone, async () => {
      const held = await acquireRefLock({ repo, settings, waitMs: 0 });
      expect((await readRefLock(repo, settings))?.holder?.id).toBe(held.id);
      expect(await held.release()).toBe(true);
    });
    expect(await readRefLock(repo, settings)).toBeUndefined();
  });

  it("plan --base REF reads the base from git and splits the plan, running nothing", async () => {
    const clone = checkout(2);
    const r = await unshaped(clone, () =>
      carte(["plan", "--json", "-q", "-c", clone.config, "--base", "HEAD~1"]),
    );
    expect(r.code, r.err).toBe(0);
    const split = (JSON.parse(r.out) as { base: { sha: string; changes: string[]; drift: string[] } }).base;
    expect(split.sha).toBe(baseSha);
    expect(split.changes.length).toBeGreaterThan(0);
    expect(split.changes.every((a) => a.startsWith("store[b]"))).toBe(true);
    expect(split.drift.every((a) => a.startsWith("store[a]"))).toBe(true);
  });

  it("the change scope (git diff, ls-files, cat-file) is computed, running nothing", async () => {
    const clone = checkout(2);
    const scoped = await unshaped(clone, () => loadChangeScope(clone.config, baseSha));
    expect(scoped.scope?.stores.map((s) => s.store)).toEqual(["b"]);
    const base = await unshaped(clone, async () =>
      loadBase(await loadProject(clone.config), baseSha, { workspace: clone.dir }),
    );
    expect(Object.keys(base.project?.desired.stores ?? {})).toEqual(["a"]);
  });

  it("refuses option-like refs as names, writing nothing", async () => {
    const clone = checkout(2);
    const out = path.join(root, "written-by-a-ref");
    for (const ref of [`--output=${out}`, "--upload-pack=touch pwned", "-h"]) {
      const r = await unshaped(clone, () =>
        carte(["plan", "-q", "-c", clone.config, "--scope", "changed", `--base=${ref}`]),
      );
      expect(r.code).toBe(1);
      expect(r.err).toContain(`--base ${ref}: no such commit`);
    }
    expect(readdirSync(root)).not.toContain("written-by-a-ref");
    expect(readdirSync(clone.project)).not.toContain("pwned");
  });
});

describe("the git command", () => {
  it("names the repository, keeps to it and takes nothing of the work tree's", () => {
    const call = gitInvocation({ top: "/w", gitDir: "/w/.git" }, ["fetch", "origin"]);
    expect(call.cwd).toBe("/w");
    expect(call.args.slice(0, 2)).toEqual(["--git-dir=/w/.git", "--work-tree=/w"]);
    expect(call.args.slice(-2)).toEqual(["fetch", "origin"]);
    const settings = call.args.filter((_, i) => call.args[i - 1] === "-c");
    expect(settings).toEqual(
      expect.arrayContaining([
        "safe.bareRepository=explicit",
        "core.hooksPath=/dev/null",
        "core.fsmonitor=false",
        "protocol.allow=never",
        "protocol.file.allow=never",
        "protocol.ext.allow=never",
      ]),
    );
    expect(settings.filter((s) => s.endsWith("allow=always"))).toEqual([
      "protocol.https.allow=always",
      "protocol.ssh.allow=always",
    ]);
    expect(call.env).toMatchObject({
      GIT_DIR: "/w/.git",
      GIT_WORK_TREE: "/w",
      GIT_CEILING_DIRECTORIES: "/",
      GIT_CONFIG_NOSYSTEM: "1",
    });
  });

  it("finds the repository by its .git, never above the workspace", async () => {
    const outer = mkdtempSync(path.join(root, "outer-"));
    git(outer, "init", "-q");
    const project = path.join(outer, "ws", "proj");
    mkdirSync(project, { recursive: true });
    plant(project, "found");
    expect((await findRepository(project)).top).toBe(realpathSync(outer));
    await expect(findRepository(project, { workspace: path.join(outer, "ws") })).rejects.toThrow(
      /is not in a git repository: no \.git in it or in a folder above it up to/,
    );
    expect(readdirSync(marks)).toEqual([]);
  });

  it("says so in words when git cannot be run", async () => {
    const path0 = process.env.PATH;
    process.env.PATH = path.join(root, "no-programs-here");
    try {
      const err = await findRepository(path.join(root, "work", PROJECT_DIR)).catch((e: unknown) => e);
      // git's failure, not a misused command: no usage hint, exit code 1.
      expect(err).toBeInstanceOf(GitError);
      expect((err as Error).message).toBe(
        "git rev-parse failed: git cannot be run (is it installed, and on PATH?)",
      );
    } finally {
      process.env.PATH = path0;
    }
  });
});

describe("a base commit whose files cannot be written out", () => {
  let tmp: string;
  let saved: string | undefined;
  beforeAll(() => {
    saved = process.env.TMPDIR;
    tmp = mkdtempSync(path.join(root, "tmp-"));
    process.env.TMPDIR = tmp;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  });

  /** A repository whose one commit is broken by `spoil` (before or after it is made); the head is the work tree. */
  function broken(spoil: Spoil) {
    const dir = mkdtempSync(path.join(root, "broken-"));
    mkdirSync(path.join(dir, "stores"));
    mkdirSync(path.join(dir, "catalogs"));
    writeFileSync(path.join(dir, "carte.yaml"), PROJECT);
    writeFileSync(path.join(dir, "catalogs/burgers.yaml"), CATALOG);
    writeFileSync(path.join(dir, "stores/a.yaml"), storeYaml(900101, "a"));
    git(dir, "init", "-q", "-b", "main");
    git(dir, "add", "-A");
    spoil.before?.(dir);
    git(dir, "commit", "-q", "-m", "broken");
    spoil.after?.(dir);
    return path.join(dir, "carte.yaml");
  }

  /** HEAD made a commit whose top tree holds, besides its own entries, a file named `name`. */
  function craftRoot(dir: string, name: string) {
    const oid = git(dir, "rev-parse", "HEAD:carte.yaml");
    const entries = `${git(dir, "ls-tree", "HEAD")}\n100644 blob ${oid}\t${name}\n`;
    const tree = execFileSync("git", ["mktree"], { cwd: dir, input: entries }).toString().trim();
    const commit = git(dir, "commit-tree", tree, "-m", "crafted");
    git(dir, "update-ref", "HEAD", commit);
  }

  interface Spoil {
    before?: (dir: string) => void;
    after?: (dir: string) => void;
  }
  const cases: [string, Spoil, RegExp][] = [
    [
      // A blob the clone lacks: git archive stops half way.
      "a missing object",
      {
        after: (dir) => {
          const oid = git(dir, "rev-parse", "HEAD:catalogs/burgers.yaml");
          rmSync(path.join(dir, ".git", "objects", oid.slice(0, 2), oid.slice(2)));
        },
      },
      /--base HEAD: git cannot read catalogs\/burgers\.yaml of the commit \(object [0-9a-f]+ missing\)/,
    ],
    [
      // A name the file system refuses: tar writes the rest and fails.
      "a file name too long",
      {
        before: (dir) => {
          const oid = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: dir, input: "x" })
            .toString()
            .trim();
          git(dir, "update-index", "--add", "--cacheinfo", `100644,${oid},${"n".repeat(300)}`);
        },
      },
      /--base HEAD: the commit's files could not be written out \(n{300}: ENAMETOOLONG\)/,
    ],
    [
      // A crafted tree (git never writes one): `..` among its names would lead out of the folder.
      "a tree holding ..",
      { after: (dir) => craftRoot(dir, "..") },
      /--base HEAD: a tree of the commit holds the name "\.\.", which git never writes/,
    ],
    [
      // A crafted tree naming `catalogs` twice: a file, or a link, where a folder is written.
      "a tree holding a name twice",
      { after: (dir) => craftRoot(dir, "catalogs") },
      /--base HEAD: a tree of the commit holds the name "catalogs", which git never writes/,
    ],
  ];

  for (const [name, spoil, message] of cases) {
    it(`${name}: a located error, and no carte-base-* folder left behind`, async () => {
      const config = broken(spoil);
      await expect(loadBase(await loadProject(config), "HEAD")).rejects.toThrow(message);
      await expect(loadChangeScope(config, "HEAD")).rejects.toThrow(message);
      expect(readdirSync(tmp)).toEqual([]);
    });
  }
});

describe("a hostile lock across machines", () => {
  const SETTINGS = { ref: "refs/carte/lock", remote: "origin", staleMs: 3_600_000 };
  let remote: TestRemote | undefined;
  afterEach(() => {
    remote?.close();
    remote = undefined;
  });

  /** A checkout of a new remote holding a project whose carte.yaml asks for the lock. */
  async function lockedProject(): Promise<{ dir: string; config: string; repo: GitRepository }> {
    remote = testRemote();
    const dir = remote.checkout();
    mkdirSync(path.join(dir, "stores"));
    mkdirSync(path.join(dir, "catalogs"));
    writeFileSync(path.join(dir, "carte.yaml"), `${PROJECT}lock:\n  git_ref: refs/carte/lock\n`);
    writeFileSync(path.join(dir, "catalogs/burgers.yaml"), CATALOG);
    writeFileSync(path.join(dir, "stores/a.yaml"), storeYaml(900101, "a"));
    return { dir, config: path.join(dir, "carte.yaml"), repo: await findRepository(dir) };
  }

  it("a lock commit over 1 MiB is read cut: the apply names it, and force-unlock removes it", async () => {
    const { config, repo } = await lockedProject();
    const holder = { id: "0123456789ab", host: "h", pid: 1, since: new Date().toISOString() };
    const big = `carte apply lock\n\n${JSON.stringify({ ...holder, run: "x".repeat(2 * 1024 * 1024) })}\n`;
    const sha = remote!.plantCommit("refs/carte/lock", big);

    const refused = await carte(["apply", "--auto-approve", "--timeout", "2s", "-c", config]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("another carte apply holds the apply lock refs/carte/lock on origin");
    expect(refused.err).toContain(`carte force-unlock ${sha}`);
    expect(refused.err).toContain(`a commit ${sha.slice(0, 12)} too large to be carte's lock`);
    expect(refused.err).not.toMatch(/MiB/);
    expect((await readRefLock(repo, SETTINGS))?.sha).toBe(sha);

    const removed = await carte(["force-unlock", sha, "--force", "-c", config]);
    expect(removed.code, removed.err).toBe(0);
    expect(removed.out).toContain("Removed the apply lock refs/carte/lock on origin");
    expect(git(remote!.origin, "for-each-ref", "refs/carte")).toBe("");
  });

  it("a lock commit whose holder says 2 MiB is named by its commit, and removed by it", async () => {
    const { repo } = await lockedProject();
    const sha = remote!.plantCommit("refs/carte/lock", `not a lock\n\n${"y".repeat(2 * 1024 * 1024)}\n`);
    const lock = await readRefLock(repo, SETTINGS);
    expect(lock?.sha).toBe(sha);
    expect(lock?.holder).toBeUndefined();
    expect((await forceUnlock(repo, SETTINGS, sha)).sha).toBe(sha);
    expect(await readRefLock(repo, SETTINGS)).toBeUndefined();
  });

  it(
    "apply --timeout 3s against a remote that never answers ends at its deadline, git stopped",
    { timeout: 30_000 },
    async () => {
      const { dir, config } = await lockedProject();
      remote!.hang(dir);
      const started = Date.now();
      const run = carte(["apply", "--auto-approve", "--timeout", "3s", "-c", config]);
      const outcome = await Promise.race([
        run,
        new Promise<"still running">((r) => setTimeout(() => r("still running"), 15_000)),
      ]);
      expect(outcome).not.toBe("still running");
      const r = outcome as Awaited<typeof run>;
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(r.code).toBe(1);
      expect(r.err).toContain("could not take the apply lock refs/carte/lock on origin");
      expect(r.err).toContain("ssh://carte.invalid");
      expect(r.err).toContain("--timeout 3s");
      expect(r.err).not.toContain("Run `carte --help`");
      // The remote's connection is ended with git: nothing of it is left running.
      await expect.poll(() => remote!.hanging(), { timeout: 5_000 }).toEqual([]);
    },
  );

  it(
    "a wait whose remote stops answering ends at the deadline, naming the holder",
    { timeout: 30_000 },
    async () => {
      const { repo } = await lockedProject();
      const other = remote!.checkout();
      const held = await acquireRefLock({ repo: await findRepository(other), settings: SETTINGS, waitMs: 0 });
      const started = Date.now();
      const waiting = acquireRefLock({
        repo,
        settings: SETTINGS,
        waitMs: 60_000,
        pollMs: 50,
        bound: { at: Date.now() + 3_000, limit: "the time limit of the test" },
        // Found held: from now on the remote never answers.
        onWait: () => remote!.hang(repo.top),
      }).catch((e: unknown) => e);
      const refused = await waiting;
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(refused).toBeInstanceOf(LockError);
      expect(String(refused)).toContain(`(lock ${held.id}: process ${process.pid}`);
      await expect.poll(() => remote!.hanging(), { timeout: 5_000 }).toEqual([]);
    },
  );

  it(
    "a lock taken in the future goes stale the lock's time after it was first seen",
    { timeout: 30_000 },
    async () => {
      const { repo } = await lockedProject();
      const holder = { id: "0123456789ab", host: "h", pid: 1, since: "2999-01-01T00:00:00.000Z" };
      const planted = remote!.plantCommit(
        "refs/carte/lock",
        `carte apply lock\n\n${JSON.stringify(holder)}\n`,
      );
      const settings = { ...SETTINGS, staleMs: 1_500 };
      // Refused at once: it is held, and says so.
      const refused = await acquireRefLock({ repo, settings, waitMs: 0 }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(LockError);
      expect(String(refused)).toContain("says it was taken in the future");
      // Waited for: taken over once the lock's time has passed since this apply first saw it.
      const started = Date.now();
      const held = await acquireRefLock({ repo, settings, waitMs: 15_000, pollMs: 100 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
      expect(Date.now() - started).toBeLessThan(10_000);
      const now = await readRefLock(repo, SETTINGS);
      expect(now?.sha).not.toBe(planted);
      expect(now?.holder?.id).toBe(held.id);
      expect(await held.release()).toBe(true);
    },
  );

  it("the release and force-unlock are bounded too", { timeout: 30_000 }, async () => {
    const { dir, repo } = await lockedProject();
    const held = await acquireRefLock({ repo, settings: SETTINGS, waitMs: 0 });
    remote!.hang(dir);
    const started = Date.now();
    const released = await held
      .release({ at: Date.now() + 1_000, limit: "the time limit of the run (--timeout 1s)" })
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(released).toBeInstanceOf(GitError);
    expect(String(released)).toMatch(
      /could not release the apply lock refs\/carte\/lock on origin \(ssh:\/\/carte\.invalid.*\): git had no answer .*\(--timeout 1s\)/,
    );
    const bound = { at: Date.now() + 1_000, limit: "the time limit of the test" };
    const unlocked = await forceUnlock(repo, SETTINGS, held.id, bound).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(16_000);
    expect(String(unlocked)).toMatch(
      /could not read the apply lock refs\/carte\/lock on origin \(ssh:\/\/carte\.invalid.*\): git had no answer from the remote within the time limit of the test/,
    );
    await expect.poll(() => remote!.hanging(), { timeout: 5_000 }).toEqual([]);
  });
});

describe("ref names git refuses", () => {
  /** What `git check-ref-format NAME` says: taken or not. */
  const gitTakes = (name: string): boolean => {
    try {
      execFileSync("git", ["check-ref-format", name], { stdio: "ignore" });
      return true;
    } catch (err) {
      if ((err as { status?: number }).status !== 1) throw err;
      return false;
    }
  };

  it("are judged as git judges them, rule for rule", () => {
    const corpus = [
      "refs/carte/lock",
      "refs/carte/../heads/main",
      "refs/carte/lock.lock",
      "refs/carte/lock.lock/x",
      "refs/carte/.hidden",
      "refs/carte/lock.",
      "refs/carte//lock",
      "refs/carte/lock/",
      "/refs/carte/lock",
      "refs/carte/a b",
      "refs/carte/a~1",
      "refs/carte/a^",
      "refs/carte/a:b",
      "refs/carte/a?",
      "refs/carte/a*",
      "refs/carte/a[1]",
      "refs/carte/a\\b",
      "refs/carte/a@{1}",
      "refs/carte/a@b",
      "refs/carte/a{",
      "refs/carte/@",
      "@",
      "@/x",
      "lock",
      "refs/carte/a\x01",
      "refs/carte/a\x7f",
      "refs/carte/é",
      "refs/carte/-x",
      "refs/carte/a.lck",
      "refs/.",
      "refs/..",
      "refs/a./b",
      "refs/a.lock.b",
    ];
    // And names made of the characters the rules are about, drawn with a fixed seed.
    const alphabet = [
      "a",
      "b",
      ".",
      ".",
      "/",
      "/",
      "@",
      "{",
      "~",
      "^",
      ":",
      "?",
      "*",
      "[",
      "\\",
      " ",
      "\x01",
      "\x7f",
      "lock",
      ".lock",
      "é",
      "-",
    ];
    let seed = 46;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 400; i++) {
      let name = "";
      for (let n = 1 + Math.floor(next() * 8); n > 0; n--)
        name += alphabet[Math.floor(next() * alphabet.length)];
      // git's command takes a name starting with `-` for an option.
      if (!name.startsWith("-")) corpus.push(name);
    }
    const differ = corpus.filter((name) => (refNameProblem(name) === undefined) !== gitTakes(name));
    expect(differ).toEqual([]);
    // carte.yaml's git_ref (the schema's pattern) and force-unlock --ref take the same names.
    const schema = JSON.parse(readFileSync("schemas/config/project.schema.json", "utf8")) as {
      properties: { lock: { properties: { git_ref: { pattern: string } } } };
    };
    const pattern = new RegExp(schema.properties.lock.properties.git_ref.pattern, "u");
    const refs = [...corpus, "refs/heads/main", "refs/tags/v1", "refs/carte/lock-shard-1-of-4", "refs/x"];
    expect(refs.filter((ref) => pattern.test(ref) !== (lockRefProblem(ref) === undefined))).toEqual([]);
    expect(refs.filter((ref) => pattern.test(ref) && !gitTakes(ref))).toEqual([]);
  });

  it("force-unlock --ref refuses them before git runs, saying why", async () => {
    // No git repository here: git running at all would say so instead.
    const dir = mkdtempSync(path.join(tmpdir(), "carte-ref-name-"));
    try {
      mkdirSync(path.join(dir, "stores"));
      mkdirSync(path.join(dir, "catalogs"));
      writeFileSync(path.join(dir, "carte.yaml"), PROJECT);
      writeFileSync(path.join(dir, "catalogs/burgers.yaml"), CATALOG);
      writeFileSync(path.join(dir, "stores/a.yaml"), storeYaml(900101, "a"));
      const config = path.join(dir, "carte.yaml");
      for (const [ref, why] of [
        ["refs/carte/../heads/main", "it holds `..`"],
        ["refs/carte/lock.lock", "a level of it ends with .lock (lock.lock)"],
        ["refs/carte/.hidden", "a level of it starts with a dot (.hidden)"],
        ["refs/carte/lock.", "it ends with a dot"],
      ] as const) {
        const r = await carte(["force-unlock", "0123456789ab", "--ref", ref, "--force", "-c", config]);
        expect(r.code).toBe(1);
        expect(r.err).toContain(
          `--ref ${ref} is not the ref of a lock: git refuses it as a ref name: ${why}`,
        );
        expect(r.err).not.toContain("git repository");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("carte.yaml lock: git_ref refuses them, located", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "carte-ref-name-"));
    try {
      mkdirSync(path.join(dir, "stores"));
      mkdirSync(path.join(dir, "catalogs"));
      writeFileSync(path.join(dir, "catalogs/burgers.yaml"), CATALOG);
      writeFileSync(path.join(dir, "stores/a.yaml"), storeYaml(900101, "a"));
      for (const ref of [
        "refs/carte/../heads/main",
        "refs/carte/lock.lock",
        "refs/carte/.x",
        "refs/carte/x.",
      ]) {
        writeFileSync(path.join(dir, "carte.yaml"), `${PROJECT}lock:\n  git_ref: ${ref}\n`);
        const err = await loadProject(path.join(dir, "carte.yaml")).catch((e: unknown) => e);
        expect(err, ref).toBeInstanceOf(ConfigError);
        expect(String((err as ConfigError).message), ref).toMatch(/carte\.yaml:5:\d+: .*git/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
