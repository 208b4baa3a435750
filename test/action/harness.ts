/**
 * Running the bundled Action as the runner does, against the emulator (the platform) and a fake of
 * GitHub's REST API on loopback: `node dist-action/index.js` in a child process, with the runner's
 * environment (INPUT_*, GITHUB_* and an event payload), and a fake that keeps comments, issues and the
 * pull requests of commits, and records every request exactly.
 */

import { spawn } from "node:child_process";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { CLIENT_ID, CLIENT_SECRET, carte, exampleAgainstEmulator, repoRoot } from "../helpers/project.js";

/** The login of the workflow's token, as GitHub writes it on the bot's comments. */
export const BOT = "github-actions[bot]";

/** One request the fake received. */
export interface GhRequest {
  method: string;
  /** Path and query, e.g. `/repos/chain/menus/issues/7/comments?per_page=100&page=1`. */
  url: string;
  body: Record<string, unknown> | undefined;
  authorization: string | undefined;
}

interface Comment {
  id: number;
  issue: number;
  body: string;
  user: { login: string };
}

interface Issue {
  number: number;
  title: string;
  body: string;
  labels: { name: string }[];
  state: string;
  state_reason?: string;
  user: { login: string };
}

/** The fake GitHub: state and recording. */
export interface FakeGitHub {
  url: string;
  requests: GhRequest[];
  comments: Comment[];
  issues: Issue[];
  /** `GET /repos/{o}/{r}/commits/{sha}/pulls` answers: sha → pull requests. */
  pullsOfCommit: Map<string, unknown[]>;
  /** Requests as `METHOD path` without the query, for exact sequences. */
  calls(): string[];
  close(): void;
}

/** Starts the fake on a free loopback port, for repository `chain/menus`. */
export async function fakeGitHub(): Promise<FakeGitHub> {
  const requests: GhRequest[] = [];
  const comments: Comment[] = [];
  const issues: Issue[] = [];
  const pullsOfCommit = new Map<string, unknown[]>();
  let nextComment = 100;
  let nextIssue = 40;
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d: Buffer) => (raw += d.toString()));
    req.on("end", () => {
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
      requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        body,
        authorization: req.headers.authorization,
      });
      const send = (status: number, data: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(data));
      };
      const url = new URL(req.url ?? "/", "http://x");
      const p = url.pathname;
      const page = Number(url.searchParams.get("page") ?? "1");
      const paged = <T>(list: T[]) => list.slice((page - 1) * 100, page * 100);
      let m: RegExpExecArray | null;
      if ((m = /^\/repos\/chain\/menus\/issues\/(\d+)\/comments$/.exec(p))) {
        const issue = Number(m[1]);
        if (req.method === "GET") return send(200, paged(comments.filter((c) => c.issue === issue)));
        if (req.method === "POST") {
          const c = { id: nextComment++, issue, body: String(body?.body), user: { login: BOT } };
          comments.push(c);
          return send(201, c);
        }
      }
      if ((m = /^\/repos\/chain\/menus\/issues\/comments\/(\d+)$/.exec(p)) && req.method === "PATCH") {
        const c = comments.find((x) => x.id === Number(m![1]));
        if (!c) return send(404, { message: "Not Found" });
        c.body = String(body?.body);
        return send(200, c);
      }
      if ((m = /^\/repos\/chain\/menus\/commits\/([0-9a-f]+)\/pulls$/.exec(p)) && req.method === "GET") {
        return send(200, pullsOfCommit.get(m[1]!) ?? []);
      }
      if (p === "/repos/chain/menus/issues" && req.method === "GET") {
        const label = url.searchParams.get("labels");
        const state = url.searchParams.get("state");
        return send(
          200,
          paged(
            issues.filter(
              (i) => (!label || i.labels.some((l) => l.name === label)) && (!state || i.state === state),
            ),
          ),
        );
      }
      if (p === "/repos/chain/menus/issues" && req.method === "POST") {
        const i: Issue = {
          number: nextIssue++,
          title: String(body?.title),
          body: String(body?.body),
          labels: ((body?.labels as string[]) ?? []).map((name) => ({ name })),
          state: "open",
          user: { login: BOT },
        };
        issues.push(i);
        return send(201, i);
      }
      if ((m = /^\/repos\/chain\/menus\/issues\/(\d+)$/.exec(p)) && req.method === "PATCH") {
        const i = issues.find((x) => x.number === Number(m![1]));
        if (!i) return send(404, { message: "Not Found" });
        Object.assign(i, body);
        return send(200, i);
      }
      send(404, { message: "Not Found" });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    comments,
    issues,
    pullsOfCommit,
    calls: () => requests.map((r) => `${r.method} ${r.url.split("?")[0]}`),
    close: () => server.close(),
  };
}

/** The step outputs written to $GITHUB_OUTPUT (`name<<DELIMITER\nvalue\nDELIMITER`), the last value of each. */
export function stepOutputs(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of readFileSync(file, "utf8").matchAll(/^([^<\n]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)) {
    out[m[1]!] = m[3]!;
  }
  return out;
}

/** One run of the bundled Action. */
export interface BundleRun {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  ms: number;
}

/** An event for the payload file: pull_request, push, schedule, workflow_dispatch. */
export interface RunnerEvent {
  name: string;
  payload: Record<string, unknown>;
  /** `GITHUB_SHA`. */
  sha?: string;
}

/**
 * Runs `node <actionDir>/dist-action/index.js` as the runner does: working directory `workspace`,
 * `INPUT_*` from `inputs` (names as action.yml spells them), the event payload in a file, the job
 * summary and outputs in fresh files, the e2e credentials as the workflow's secrets. The child's
 * environment holds nothing else of this process's but PATH and HOME.
 */
export async function runBundle(opts: {
  workspace: string;
  inputs: Record<string, string>;
  event: RunnerEvent;
  github: FakeGitHub;
  env?: Record<string, string>;
  actionDir?: string;
}): Promise<BundleRun> {
  const dir = mkdtempSync(path.join(tmpdir(), "carte-runner-"));
  const files = {
    event: path.join(dir, "event.json"),
    output: path.join(dir, "output.txt"),
    summary: path.join(dir, "summary.md"),
  };
  writeFileSync(files.event, JSON.stringify(opts.event.payload));
  writeFileSync(files.output, "");
  writeFileSync(files.summary, "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? dir,
    GITHUB_ACTIONS: "true",
    GITHUB_API_URL: opts.github.url,
    GITHUB_SERVER_URL: "https://github.example",
    GITHUB_REPOSITORY: "chain/menus",
    GITHUB_RUN_ID: "4242",
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_EVENT_NAME: opts.event.name,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_SHA: opts.event.sha ?? "0".repeat(40),
    GITHUB_WORKSPACE: opts.workspace,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_OUTPUT: files.output,
    CARTE_CLIENT_ID: CLIENT_ID,
    CARTE_CLIENT_SECRET: CLIENT_SECRET,
    ...opts.env,
  };
  for (const [k, v] of Object.entries(opts.inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  const actionDir = opts.actionDir ?? repoRoot;
  const started = Date.now();
  const child = spawn(process.execPath, [path.join(actionDir, "dist-action", "index.js")], {
    cwd: opts.workspace,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? -1)));
  return {
    code,
    stdout,
    stderr,
    outputs: stepOutputs(files.output),
    summary: readFileSync(files.summary, "utf8"),
    ms: Date.now() - started,
  };
}

/** Runs git in `cwd` (a test repository; author and committer fixed). */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=carte", "-c", "user.email=carte@example.com", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();
}

/** Makes `dir` a git repository with one commit of everything in it; returns the commit. */
export function commitAll(dir: string, message: string): string {
  if (!readSafe(path.join(dir, ".git", "HEAD"))) git(dir, "init", "-q", "-b", "main");
  writeFileSync(path.join(dir, ".gitignore"), ".carte/\n*.json\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "--allow-empty", "-m", message);
  return git(dir, "rev-parse", "HEAD");
}

/**
 * The example chain with these store files, applied to a fresh emulator (webhook secrets in `s.json`)
 * and committed on main: the base of `--base main`. The caller closes it (`close`).
 */
export async function committedChain(storeFiles: string[]) {
  const fx = await exampleAgainstEmulator(storeFiles);
  const secrets = ["--secrets-file", path.join(fx.dir, "s.json")];
  expect((await carte(["apply", "--auto-approve", "-q", "-c", fx.config, ...secrets])).code).toBe(0);
  const baseSha = commitAll(fx.dir, "the chain");
  return { ...fx, baseSha, secrets };
}

function readSafe(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
