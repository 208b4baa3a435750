/**
 * The Action in-process (runAction, the runner's environment: INPUT_*, GITHUB_*, an event payload)
 * against the emulator and a fake GitHub REST API on loopback that records every request: the
 * reviewed-plan record on merge when a pull request tries to forge it, and what the run shows (job
 * summary, outputs, log, local debugging).
 */

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { COMMENT_MARKER } from "../../src/action/comment.js";
import { readContext } from "../../src/action/context.js";
import { reviewedPlanOf } from "../../src/action/apply-command.js";
import type { ActionInputs } from "../../src/action/inputs.js";
import { runAction } from "../../src/action/main.js";
import { GitHubRepo } from "../../src/gitops/github.js";
import { encodeReviewed, reviewKey } from "../../src/gitops/reviewed.js";
import { buildPlan } from "../../src/plan/plan.js";
import { current, desired, item, store, catalogOf } from "../helpers/builders.js";
import { CLIENT_ID, CLIENT_SECRET, carte, edit, exampleAgainstEmulator, writes } from "../helpers/project.js";
import {
  BOT,
  commitAll,
  fakeGitHub,
  git,
  stepOutputs,
  type FakeGitHub,
  type RunnerEvent,
} from "./harness.js";

const STORES = ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"];
const TOKEN = "ghs_faketoken123456";
const REVIEW_KEY = "the review key of these tests, a secret of 32+ characters";
const REPO = "/repos/chain/menus";

const saved = { ...process.env };
// @actions/core remembers the job-summary path of its first write: one file for the whole file.
const runner = mkdtempSync(path.join(tmpdir(), "carte-review-runner-"));
const summaryFile = path.join(runner, "summary.md");
writeFileSync(summaryFile, "");
let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  process.env = { ...saved };
  // core.setFailed sets the exit code of the process running the Action: not of the test runner.
  process.exitCode = undefined;
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** One in-process run of the Action. */
interface Run {
  code: number;
  /** Standard output: the log, where the runner reads workflow commands. */
  stdout: string;
  /** $GITHUB_OUTPUT as written, every line. */
  output: string;
  /** The job summary this run wrote. */
  summary: string;
}

/** Runs the Action in `workspace` as the runner would, with the inputs (names as action.yml spells them). */
async function runIn(
  workspace: string,
  gh: FakeGitHub,
  event: RunnerEvent,
  inputs: Record<string, string>,
  env: Record<string, string> = {},
): Promise<Run> {
  const eventFile = path.join(runner, "event.json");
  const outputFile = path.join(runner, "output.txt");
  writeFileSync(eventFile, JSON.stringify(event.payload));
  writeFileSync(outputFile, "");
  process.env = {
    ...saved,
    CARTE_CLIENT_ID: CLIENT_ID,
    CARTE_CLIENT_SECRET: CLIENT_SECRET,
    GITHUB_ACTIONS: "true",
    GITHUB_API_URL: gh.url,
    GITHUB_SERVER_URL: "https://github.example",
    GITHUB_REPOSITORY: "chain/menus",
    GITHUB_RUN_ID: "4242",
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: eventFile,
    GITHUB_SHA: event.sha ?? "0".repeat(40),
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_OUTPUT: outputFile,
    ...env,
  };
  for (const [k, v] of Object.entries({ config: "carte.yaml", "github-token": TOKEN, ...inputs }))
    process.env[`INPUT_${k.toUpperCase()}`] = v;
  const from = readFileSync(summaryFile, "utf8").length;
  const cwd = process.cwd();
  let stdout = "";
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return true;
  }) as typeof process.stdout.write;
  try {
    process.chdir(workspace);
    const code = await runAction();
    return {
      code,
      stdout,
      output: readFileSync(outputFile, "utf8"),
      summary: readFileSync(summaryFile, "utf8").slice(from),
    };
  } finally {
    process.stdout.write = write;
    process.chdir(cwd);
  }
}

/**
 * A change made on the platform by hand to one resource (`target`): the file edited, that resource
 * applied alone, and the file put back.
 */
async function staffEdit(config: string, file: string, from: string, to: string, target: string) {
  const full = path.join(path.dirname(config), file);
  const text = readFileSync(full, "utf8");
  edit(full, from, to);
  const r = await carte(["apply", "--auto-approve", "-q", "-c", config, "--target", target]);
  expect(r.code, r.err).toBe(0);
  writeFileSync(full, text);
}

/** The example chain on the emulator, applied, committed on `main`, with a fake GitHub. */
async function chain() {
  const fx = await exampleAgainstEmulator(STORES);
  const gh = await fakeGitHub();
  cleanups.push(fx.close, gh.close);
  const applied = await carte([
    "apply",
    "--auto-approve",
    "-q",
    "-c",
    fx.config,
    "--secrets-file",
    path.join(fx.dir, "s.json"),
  ]);
  expect(applied.code, applied.err).toBe(0);
  const baseSha = commitAll(fx.dir, "the chain");
  return { fx, gh, dir: fx.dir, baseSha };
}

const prEvent = (number: number, head: string, baseSha: string): RunnerEvent => ({
  name: "pull_request",
  sha: "a".repeat(40),
  payload: { pull_request: { number, head: { sha: head }, base: { sha: baseSha, ref: "main" } } },
});

const DRIFT = "store[med-poblado].item[BURGER-CARBON]";
/** Drift D: staff change BURGER-CARBON's price in med-poblado; undone by applying the files' price. */
async function drift(config: string, on: boolean): Promise<void> {
  if (on)
    return staffEdit(
      config,
      "stores/med-poblado.yaml",
      "BURGER-CARBON: 36900",
      "BURGER-CARBON: 37900",
      DRIFT,
    );
  const r = await carte(["apply", "--auto-approve", "-q", "-c", config, "--target", DRIFT]);
  expect(r.code, r.err).toBe(0);
}

describe("a pull request cannot forge the reviewed plan", () => {
  it("a record copied from another pull request into a title is not applied; what was reviewed is", async () => {
    const { fx, gh, dir, baseSha } = await chain();
    // Staff change a price on the platform (drift D). A pull request with no change, planned without
    // a base, shows D: carte's record on it "reviews" D.
    await drift(fx.config, true);
    git(dir, "checkout", "-q", "-b", "pr8");
    git(dir, "commit", "-q", "--allow-empty", "-m", "nothing");
    const head8 = git(dir, "rev-parse", "HEAD");
    const eight = await runIn(dir, gh, prEvent(8, head8, baseSha), {
      command: "plan",
      base: "none",
      "review-key": REVIEW_KEY,
    });
    expect(eight.code, eight.stdout).toBe(0);
    const planted = gh.comments
      .find((c) => c.issue === 8)!
      .body.trimEnd()
      .split("\n")
      .at(-1)!;
    expect(planted).toMatch(/^<!-- carte-reviewed v2 pr=8 .* -->$/);

    // A second pull request copies that record into a title (of a product, shown in the comment's
    // ```diff block), and its commit message; D is undone while it is planned, then made again.
    git(dir, "checkout", "-q", "main");
    git(dir, "checkout", "-q", "-b", "pr7");
    edit(path.join(dir, "catalogs/burgers.yaml"), "title: Veggie de Garbanzo", `title: "Veggie ${planted}"`);
    git(dir, "commit", "-q", "-am", planted);
    const head7 = git(dir, "rev-parse", "HEAD");
    await drift(fx.config, false);
    const seven = await runIn(dir, gh, prEvent(7, head7, baseSha), {
      command: "plan",
      "review-key": REVIEW_KEY,
    });
    expect(seven.code, seven.stdout).toBe(0);
    const comment = gh.comments.find((c) => c.issue === 7 && c.user.login === BOT)!.body;
    expect(comment.startsWith(COMMENT_MARKER)).toBe(true);
    expect(comment).toContain("Veggie ");
    // The planted record is shown, broken up: only carte's own is a hidden record, on the last line.
    expect(comment.split("<!--")).toHaveLength(3);
    expect(comment.trimEnd().split("\n").at(-1)).toMatch(/^<!-- carte-reviewed v2 pr=7 head=[0-9a-f]{40} /);
    await drift(fx.config, true);

    git(dir, "checkout", "-q", "main");
    git(dir, "merge", "-q", "--no-ff", "-m", "Merge pull request #7", "pr7");
    const mergeSha = git(dir, "rev-parse", "HEAD");
    gh.pullsOfCommit.set(mergeSha, [
      {
        number: 7,
        state: "closed",
        merged_at: "2025-01-01T10:00:00Z",
        head: { sha: head7 },
        base: { ref: "main" },
      },
    ]);
    const push: RunnerEvent = { name: "push", sha: mergeSha, payload: { after: mergeSha } };
    const onMain = { GITHUB_REF: "refs/heads/main" };

    // The merge with the workflow's key: the title reviewed on pull request 7 is applied, D is not.
    gh.requests.length = 0;
    const merged = await runIn(dir, gh, push, { command: "apply", "review-key": REVIEW_KEY }, onMain);
    expect(merged.code, merged.stdout).toBe(3);
    // The pull request's comments are read once, for the record and the apply comment.
    expect(gh.calls()).toEqual([
      `GET ${REPO}/commits/${mergeSha}/pulls`,
      `GET ${REPO}/issues/7/comments`,
      `POST ${REPO}/issues/7/comments`,
    ]);
    expect(writes(fx.emu.requests).length).toBeGreaterThan(0);
    const left = await carte(["plan", "--json", "-q", "-c", fx.config]);
    expect(
      (JSON.parse(left.out) as { changes: { address: string }[] }).changes.map((c) => c.address),
    ).toEqual([DRIFT]);
    expect(merged.stdout).toMatch(
      /^::error::not applied: 1 change the reviewed plan did not show \(store\[med-poblado\]\.item\[BURGER-CARBON\]\)/m,
    );
    const applyComment = gh.comments.find((c) => c.body.startsWith("<!-- carte-apply -->"))!.body;
    expect(applyComment).toContain("**Apply complete**");
    expect(applyComment).toContain(
      "**Not applied: 1 change that the plan reviewed on the pull request did not show**",
    );

    // The key never reaches the log but in its mask, nor a comment.
    expect(merged.stdout.split("\n").filter((l) => l.includes(REVIEW_KEY))).toEqual([
      `::add-mask::${REVIEW_KEY}`,
    ]);
    for (const c of gh.comments) expect(c.body).not.toContain(REVIEW_KEY);
  });

  it("on merge, only a record signed with the key, for the pull request's last commit and base, counts", async () => {
    const gh = await fakeGitHub();
    cleanups.push(gh.close);
    const head = "1".repeat(40);
    const merge = "2".repeat(40);
    const plan = buildPlan(
      desired(store("s", "1", (s) => (catalogOf(s).items = { A: item("A", 100) }))),
      current(store("s", "1", (s) => (catalogOf(s).items = { A: item("A", 90) }))),
    );
    const key = reviewKey(REVIEW_KEY);
    const binding = { repository: "chain/menus", pullRequest: 7, head, base: "main" };
    gh.comments.push({
      id: 100,
      issue: 7,
      user: { login: BOT },
      body: `${COMMENT_MARKER}\nplan\n${encodeReviewed(plan, binding, key)}\n`,
    });
    const merged = (headSha: string, base = "main") =>
      gh.pullsOfCommit.set(merge, [
        { number: 7, merged_at: "2025-01-01T10:00:00Z", head: { sha: headSha }, base: { ref: base } },
      ]);
    const ctx = (ref = "refs/heads/main") =>
      readContext({
        GITHUB_REPOSITORY: "chain/menus",
        GITHUB_API_URL: gh.url,
        GITHUB_SHA: merge,
        GITHUB_REF: ref,
      });
    const lookup = (inputs: Partial<ActionInputs>, ref?: string) =>
      reviewedPlanOf(new GitHubRepo({ apiUrl: gh.url, repository: "chain/menus", token: TOKEN }), ctx(ref), {
        commentAuthor: BOT,
        reviewKey: key,
        ...inputs,
      } as ActionInputs);

    merged(head);
    gh.requests.length = 0;
    const ok = await lookup({});
    expect(ok.record?.count).toBe(1);
    expect(ok.comments).toHaveLength(1);
    expect(gh.calls()).toEqual([`GET ${REPO}/commits/${merge}/pulls`, `GET ${REPO}/issues/7/comments`]);

    const refused = async (inputs: Partial<ActionInputs>, why: string, ref?: string) => {
      const got = await lookup(inputs, ref);
      expect(got.record).toBeUndefined();
      expect(got.why).toContain(why);
    };
    await refused(
      { reviewKey: reviewKey("another key, also 32 characters long") },
      "signature does not verify",
    );
    await refused(
      { reviewKey: undefined },
      "No review key is configured (input review-key or CARTE_REVIEW_KEY)",
    );
    await refused(
      {},
      "was merged into main, not into release, the branch this push updated",
      "refs/heads/release",
    );
    merged(head, "release");
    await refused({}, "signature does not verify", "refs/heads/release");
    const later = "3".repeat(40);
    merged(later);
    await refused(
      {},
      "The last plan on pull request #7 was made for commit 1111111, not for its last commit 3333333.",
    );
    gh.pullsOfCommit.set(merge, [{ number: 7, merged_at: null, head: { sha: head }, base: { ref: "main" } }]);
    await refused({}, "did not come from a merged pull request");
  });
});

describe("the merge when the reviewed-plan check refuses every change", () => {
  it("says what was refused and why (the record, not drift), never No changes, and that the platform does not match", async () => {
    const { fx, gh, dir, baseSha } = await chain();
    git(dir, "checkout", "-q", "-b", "pr9");
    edit(path.join(dir, "catalogs/burgers.yaml"), "title: Veggie de Garbanzo", "title: Veggie de la Casa");
    git(dir, "commit", "-q", "-am", "rename the veggie burger");
    const head9 = git(dir, "rev-parse", "HEAD");
    const planned = await runIn(dir, gh, prEvent(9, head9, baseSha), {
      command: "plan",
      "review-key": REVIEW_KEY,
    });
    expect(planned.code, planned.stdout).toBe(0);
    git(dir, "checkout", "-q", "main");
    git(dir, "merge", "-q", "--no-ff", "-m", "Merge pull request #9", "pr9");
    const mergeSha = git(dir, "rev-parse", "HEAD");
    gh.pullsOfCommit.set(mergeSha, [
      {
        number: 9,
        state: "closed",
        merged_at: "2025-01-01T10:00:00Z",
        head: { sha: head9 },
        base: { ref: "main" },
      },
    ]);
    const push: RunnerEvent = { name: "push", sha: mergeSha, payload: { after: mergeSha } };

    // The apply workflow lost its review key: the pull request's own reviewed change is refused.
    fx.emu.clearRequests();
    const merged = await runIn(dir, gh, push, { command: "apply" }, { GITHUB_REF: "refs/heads/main" });
    expect(merged.code, merged.stdout).toBe(3);
    expect(writes(fx.emu.requests)).toEqual([]);
    for (const shown of [merged.stdout, merged.summary]) {
      expect(shown).not.toContain("No changes");
      expect(shown).toContain("Nothing to apply of what was reviewed: the reviewed-plan check refused all");
      expect(shown).toContain("the platform does not match the configuration");
      expect(shown).toContain("No review key is configured");
      expect(shown).not.toContain("drift that appeared since the review");
    }
    const applyComment = gh.comments.find((c) => c.body.startsWith("<!-- carte-apply -->"))!.body;
    expect(applyComment).toContain("No reviewed plan could be used: No review key is configured");
    expect(applyComment).toContain("The platform does not match the configuration.");
    expect(applyComment).not.toContain("drift that appeared since the review");
  });
});

describe("what a run shows", () => {
  it("one job-summary heading, each output once, the Action's words for an override, the plan in the log", async () => {
    const { gh, dir, baseSha } = await chain();
    git(dir, "checkout", "-q", "-b", "pr");
    // A title that tries to become a workflow command in the log.
    edit(
      path.join(dir, "catalogs/burgers.yaml"),
      "title: Veggie de Garbanzo",
      'title: "::error::forged ##[warning]x"',
    );
    edit(
      path.join(dir, "carte.yaml"),
      /^version: 1$/m,
      "version: 1\nsafety:\n  max_update_percent: 0\n  min_existing: 1",
    );
    git(dir, "commit", "-q", "-am", "a title");
    const head = git(dir, "rev-parse", "HEAD");
    // No review key: the comment says the merge applies none of it, and carries no record.
    const plan = await runIn(dir, gh, prEvent(7, head, baseSha), {
      command: "plan",
      "force-reason": "a new title",
    });
    expect(plan.code, plan.stdout).toBe(0);

    const comment = gh.comments.find((c) => c.issue === 7)!.body;
    expect(comment).toContain(
      "> No reviewed-plan record: no review key is set (input review-key or CARTE&#95;REVIEW&#95;KEY). The merge applies none of this plan.\n",
    );
    expect(comment).not.toContain("carte-reviewed");

    // One heading, the command's, first.
    expect(plan.summary.startsWith("### carte plan\n")).toBe(true);
    expect(plan.summary.match(/carte plan</g) ?? []).toEqual([]);
    expect(plan.summary.match(/^### carte plan$/gm)).toHaveLength(1);
    // The text plan names the Action's input, not the CLI's flag.
    expect(plan.summary).toContain(
      "Safety guards overridden with the force-reason input, reason: a new title",
    );
    expect(plan.summary).not.toContain("--force");
    // Each output once.
    for (const name of ["has-changes", "summary", "exitcode"])
      expect(plan.output.match(new RegExp(`^${name}<<`, "gm")), name).toHaveLength(1);

    // The log: the plan as text, each store's changes in a group, the counts, and no forged command.
    const lines = plan.stdout.split("\n");
    expect(lines).toContain("carte will perform the following actions:");
    expect(lines).toContain("::group::the same in several stores");
    // The API calls are counted by the summary line (below), not listed; the Action names no CLI flag.
    expect(lines).not.toContain("::group::API calls, in order:");
    expect(lines.filter((l) => l === "::endgroup::").length).toBe(
      lines.filter((l) => l.startsWith("::group::")).length,
    );
    expect(
      lines.some((l) => /^Plan: 0 to create, 3 to update, 0 to delete in 3 stores; \d+ API calls\.$/.test(l)),
    ).toBe(true);
    expect(lines).toContain("Safety guards overridden with the force-reason input, reason: a new title");
    expect(plan.stdout).toContain('"::error::forged #\\x23[warning]x"');
    expect(lines.filter((l) => /^\s*::(error|warning)/.test(l))).toEqual([]);
    expect(plan.stdout).not.toContain("##[");

    // A direct push: refused, and the outputs say so once, with the fresh plan's counts.
    const sha = git(dir, "rev-parse", "HEAD");
    const push = await runIn(
      dir,
      gh,
      { name: "push", sha, payload: {} },
      { command: "apply", "review-key": REVIEW_KEY },
    );
    expect(push.code).toBe(3);
    for (const name of ["has-changes", "summary", "exitcode"])
      expect(push.output.match(new RegExp(`^${name}<<`, "gm")), name).toHaveLength(1);
    expect(stepOutputs(path.join(runner, "output.txt"))).toEqual({
      "has-changes": "true",
      summary: JSON.stringify({ create: 0, update: 3, delete: 0, operations: 3, stores: 3 }),
      exitcode: "3",
    });
    expect(push.summary.match(/^### carte apply$/gm)).toHaveLength(1);
    expect(push.summary).not.toContain("<h3>");
  });

  it("the entry exports run() for @github/local-action, and importing it runs nothing", async () => {
    const gh = await fakeGitHub();
    cleanups.push(gh.close);
    const workspace = mkdtempSync(path.join(tmpdir(), "carte-local-action-"));
    const outputFile = path.join(runner, "output.txt");
    writeFileSync(outputFile, "");
    Object.assign(process.env, {
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      GITHUB_WORKSPACE: workspace,
      INPUT_COMMAND: "plan",
      INPUT_CONFIG: path.join(workspace, "missing.yaml"),
    });
    // local-action imports the entry and calls the run() it exports.
    const entry = (await import("../../src/action/index.js")) as { run?: () => Promise<void> };
    expect(typeof entry.run).toBe("function");
    expect(readFileSync(outputFile, "utf8")).toBe("");
    let stdout = "";
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => ((stdout += chunk), true)) as typeof process.stdout.write;
    try {
      await entry.run!();
    } finally {
      process.stdout.write = write;
    }
    expect(process.exitCode).toBe(1);
    expect(stepOutputs(outputFile)).toEqual({ "has-changes": "false", summary: "null", exitcode: "1" });
    expect(stdout).toContain("missing.yaml");
  });
});
