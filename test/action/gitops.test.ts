/**
 * The bundled GitHub Action run as the runner runs it (dist-action/index.js in a child process, the
 * runner's environment and event payloads for pull_request, push, schedule and workflow_dispatch)
 * against the emulator and a fake GitHub REST API on loopback, asserting the exact requests.
 */

import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { COMMENT_MARKER, DRIFT_MARKER } from "../../src/action/comment.js";
import { readReviewed, reviewKey } from "../../src/gitops/reviewed.js";
import type { RunRecord } from "../../src/gitops/record.js";
import { CLIENT_SECRET, carte, edit, exampleAgainstEmulator, repoRoot, writes } from "../helpers/project.js";
import { BOT, commitAll, fakeGitHub, git, runBundle, type FakeGitHub, type RunnerEvent } from "./harness.js";

const STORES = ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"];
const TOKEN = "ghs_faketoken123456";
/** The review key, a secret of the plan and apply workflows (input review-key). */
const REVIEW_KEY = "review-key-of-the-bundle-tests-0123456789";
const REPO = "/repos/chain/menus";

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/**
 * The example chain on the emulator, applied, in a git repository whose `main` holds it (the base).
 * The platform then drifts: staff change the price of BURGER-CARBON in med-poblado. The pull request
 * (branch `pr`, checked out) changes the price of BURGER-CLASSIC in bog-centro.
 */
async function pullRequestFixture() {
  const fx = await exampleAgainstEmulator(STORES);
  const gh = await fakeGitHub();
  cleanups.push(fx.close, gh.close);
  const dir = fx.dir;
  const applied = await carte([
    "apply",
    "--auto-approve",
    "-q",
    "-c",
    fx.config,
    "--secrets-file",
    path.join(dir, "s.json"),
  ]);
  expect(applied.code, applied.err).toBe(0);
  const baseSha = commitAll(dir, "the chain");
  await staffEdit(
    fx.config,
    "stores/med-poblado.yaml",
    "BURGER-CARBON: 36900",
    "BURGER-CARBON: 37900",
    "store[med-poblado].item[BURGER-CARBON]",
  );
  git(dir, "checkout", "-q", "-b", "pr");
  edit(path.join(dir, "stores/bog-centro.yaml"), "BURGER-CLASSIC: 25900", "BURGER-CLASSIC: 26900");
  git(dir, "commit", "-q", "-am", "bog-centro: classic burger at 26 900");
  const headSha = git(dir, "rev-parse", "HEAD");
  const event: RunnerEvent = {
    name: "pull_request",
    sha: "a".repeat(40),
    payload: {
      pull_request: { number: 7, head: { sha: headSha }, base: { sha: baseSha, ref: "main" } },
    },
  };
  return { fx, gh, dir, baseSha, headSha, event };
}

/**
 * A change made on the platform by hand to one resource (`target`): the file edited, that resource
 * applied alone, and the file put back.
 */
async function staffEdit(
  config: string,
  file: string,
  from: string,
  to: string,
  target: string,
): Promise<void> {
  const dir = path.dirname(config);
  const text = readFileSync(path.join(dir, file), "utf8");
  edit(path.join(dir, file), from, to);
  const r = await carte(["apply", "--auto-approve", "-q", "-c", config, "--target", target]);
  expect(r.code, r.err).toBe(0);
  writeFileSync(path.join(dir, file), text);
}

const inputs = (command: string, more: Record<string, string> = {}) => ({
  command,
  config: "carte.yaml",
  comment: "true",
  "github-token": TOKEN,
  "review-key": REVIEW_KEY,
  ...more,
});

/** The part of a comment between two headings (or to the end). */
function section(body: string, heading: string): string {
  const start = body.indexOf(heading);
  if (start < 0) return "";
  const next = body.indexOf("\n#### ", start + heading.length);
  return body.slice(start, next < 0 ? undefined : next);
}

const botComments = (gh: FakeGitHub, marker = COMMENT_MARKER) =>
  gh.comments.filter((c) => c.user.login === BOT && c.body.startsWith(marker));

describe("the bundled Action on a pull request", { timeout: 90_000 }, () => {
  it("shows the PR's change apart from drift in one comment, created then updated; errors replace it", async () => {
    const { fx, gh, dir, headSha, event } = await pullRequestFixture();
    // Anyone can post a comment that starts with carte's marker: it is never taken for carte's.
    gh.comments.push({ id: 1, issue: 7, body: `${COMMENT_MARKER}\nplanted`, user: { login: "mallory" } });
    fx.emu.clearRequests();

    const first = await runBundle({ workspace: dir, inputs: inputs("plan"), event, github: gh });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(gh.calls()).toEqual([`GET ${REPO}/issues/7/comments`, `POST ${REPO}/issues/7/comments`]);
    expect(gh.requests.every((r) => r.authorization === `token ${TOKEN}`)).toBe(true);
    expect(first.outputs).toEqual({
      "has-changes": "true",
      summary: JSON.stringify({ create: 0, update: 2, delete: 0, operations: 2, stores: 2 }),
      exitcode: "0",
    });
    const [comment] = botComments(gh);
    const body = comment!.body;
    // The head commit, the run and the time.
    expect(body).toContain(`<code>${headSha.slice(0, 7)}</code>`);
    expect(body).toContain("[workflow run](https://github.example/chain/menus/actions/runs/4242)");
    expect(body).toMatch(/ · \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    // The PR's change under its heading, the staff's edit under drift, with counts.
    const own = section(
      body,
      "#### This pull request changes: 0 to create, 1 to update, 0 to delete in 1 store",
    );
    const drift = section(
      body,
      "#### Already different on the platform: 0 to create, 1 to update, 0 to delete in 1 store",
    );
    expect(own).toContain("item BURGER-CLASSIC (");
    expect(own).toContain("price: $25.900 → $26.900");
    expect(own).not.toContain("BURGER-CARBON");
    expect(drift).toContain("item BURGER-CARBON (");
    expect(drift).toContain("price: $37.900 → $36.900");
    expect(drift).not.toContain("BURGER-CLASSIC");
    // The reviewed plan's record, for the merge: signed for this pull request and head.
    const binding = { repository: "chain/menus", pullRequest: 7, head: headSha, base: "main" };
    expect(readReviewed(body, COMMENT_MARKER, binding, reviewKey(REVIEW_KEY)).record).toMatchObject({
      head: headSha,
      count: 2,
    });
    expect(body).not.toContain(REVIEW_KEY);
    // The log shows the review key once: in its mask command.
    expect(first.stdout.split("\n").filter((l) => l.includes(REVIEW_KEY))).toEqual([
      `::add-mask::${REVIEW_KEY}`,
    ]);
    expect(body).not.toContain(CLIENT_SECRET);
    // The job summary: the same view first, then the full plan.
    expect(first.summary).toContain("This pull request changes");
    expect(first.summary).toContain("carte will perform the following actions");
    expect(writes(fx.emu.requests)).toEqual([]);

    // A new push: the same comment is updated in place.
    gh.requests.length = 0;
    const second = await runBundle({ workspace: dir, inputs: inputs("plan"), event, github: gh });
    expect(second.code).toBe(0);
    expect(gh.calls()).toEqual([
      `GET ${REPO}/issues/7/comments`,
      `PATCH ${REPO}/issues/comments/${comment!.id}`,
    ]);
    expect(botComments(gh)).toHaveLength(1);
    expect(gh.comments.find((c) => c.id === 1)!.body).toBe(`${COMMENT_MARKER}\nplanted`);

    // A configuration error: annotations on the file, the comment's body replaced by the problems.
    const storeFile = path.join(dir, "stores/bog-centro.yaml");
    edit(storeFile, /^open: true$/m, "open: true\nopne: false");
    const line = readFileSync(storeFile, "utf8").split("\n").indexOf("opne: false") + 1;
    gh.requests.length = 0;
    const broken = await runBundle({ workspace: dir, inputs: inputs("plan"), event, github: gh });
    expect(broken.code).toBe(1);
    expect(broken.outputs).toEqual({ "has-changes": "false", summary: "null", exitcode: "1" });
    expect(broken.stdout).toMatch(
      new RegExp(
        `^::error title=carte configuration problem,file=stores/bog-centro\\.yaml,line=${line},col=1::.*opne`,
        "m",
      ),
    );
    expect(gh.calls()).toEqual([
      `GET ${REPO}/issues/7/comments`,
      `PATCH ${REPO}/issues/comments/${comment!.id}`,
    ]);
    const replaced = botComments(gh)[0]!.body;
    expect(replaced).toContain("**The files have 1 configuration problem**");
    expect(replaced).toContain(`<code>stores/bog-centro.yaml:${line}:1</code>`);
    expect(replaced).not.toContain("This pull request changes");
    expect(replaced).not.toContain("carte-reviewed");
    expect(broken.summary).toContain("Failed with exit code 1");

    // A safety guard's refusal: shown in the comment and the step, naming the force-reason input.
    edit(storeFile, "open: true\nopne: false", "open: true");
    edit(
      path.join(dir, "carte.yaml"),
      /^version: 1$/m,
      "version: 1\nsafety:\n  max_update_percent: 0\n  min_existing: 1",
    );
    const refused = await runBundle({ workspace: dir, inputs: inputs("plan"), event, github: gh });
    expect(refused.code).toBe(3);
    expect(refused.outputs.exitcode).toBe("3");
    expect(refused.outputs["has-changes"]).toBe("true");
    const guarded = botComments(gh)[0]!.body;
    expect(guarded).toContain("**Refused by the safety guards**");
    expect(guarded).toContain("`force-reason`");
    expect(guarded).toContain("<code>max&#95;update&#95;percent</code>");
    expect(refused.stdout).toMatch(/^::error::Refused by safety guard max_update_percent: .*force-reason/m);
    expect(refused.stdout).not.toContain("--force");
  });
});

describe("the bundled Action on merge", { timeout: 90_000 }, () => {
  it("applies what the pull request's plan showed and refuses what it did not; dispatch re-applies all", async () => {
    const { fx, gh, dir, headSha, event } = await pullRequestFixture();
    const plan = await runBundle({ workspace: dir, inputs: inputs("plan"), event, github: gh });
    expect(plan.code, plan.stdout).toBe(0);

    // After the review, staff change another price; then the pull request is merged.
    await staffEdit(
      fx.config,
      "stores/med-poblado.yaml",
      "EXTRA-BACON: 5000",
      "EXTRA-BACON: 5500",
      "store[med-poblado].item[EXTRA-BACON]",
    );
    git(dir, "checkout", "-q", "main");
    git(dir, "merge", "-q", "--no-ff", "-m", "Merge pull request #7", "pr");
    const mergeSha = git(dir, "rev-parse", "HEAD");
    gh.pullsOfCommit.set(mergeSha, [
      {
        number: 7,
        state: "closed",
        merged_at: "2025-01-01T10:00:00Z",
        head: { sha: headSha },
        base: { ref: "main" },
      },
    ]);
    const push: RunnerEvent = {
      name: "push",
      sha: mergeSha,
      payload: { ref: "refs/heads/main", after: mergeSha },
    };
    gh.requests.length = 0;
    fx.emu.clearRequests();
    const merged = await runBundle({ workspace: dir, inputs: inputs("apply"), event: push, github: gh });
    expect(merged.code, merged.stdout + merged.stderr).toBe(3);
    expect(merged.outputs.exitcode).toBe("3");
    // The pull request's comments are read once: for the reviewed plan and the apply comment.
    expect(gh.calls()).toEqual([
      `GET ${REPO}/commits/${mergeSha}/pulls`,
      `GET ${REPO}/issues/7/comments`,
      `POST ${REPO}/issues/7/comments`,
    ]);
    // The reviewed changes were applied (the PR's price and the drift shown in the review) …
    const writePaths = writes(fx.emu.requests).map((r) => `${r.method} ${r.path}`);
    expect(writePaths).toEqual([
      "POST /restaurants/menu/v1/stores/900101/items",
      "POST /restaurants/menu/v1/stores/900201/items",
    ]);
    // … and the price staff changed after the review is left for a review.
    const left = await carte(["plan", "--json", "-q", "-c", fx.config]);
    const remaining = (JSON.parse(left.out) as { changes: { address: string }[] }).changes.map(
      (c) => c.address,
    );
    expect(remaining).toEqual(["store[med-poblado].item[EXTRA-BACON]"]);
    const applyComment = gh.comments.find((c) => c.body.startsWith("<!-- carte-apply -->"))!;
    expect(applyComment.body).toContain("**Apply complete**");
    expect(applyComment.body).toContain(
      "**Not applied: 1 change that the plan reviewed on the pull request did not show**",
    );
    expect(applyComment.body).toContain("option EXTRA-BACON (");
    expect(applyComment.body).toContain("`apply-unreviewed: true`");
    expect(merged.stdout).toMatch(
      /^::error::not applied: 1 change the reviewed plan did not show \(store\[med-poblado\]\.item\[EXTRA-BACON\]\)/m,
    );

    // Disaster recovery: workflow_dispatch with command apply re-applies the whole repository.
    gh.requests.length = 0;
    const dispatch: RunnerEvent = {
      name: "workflow_dispatch",
      sha: mergeSha,
      payload: { inputs: { command: "apply" } },
    };
    const all = await runBundle({ workspace: dir, inputs: inputs("apply"), event: dispatch, github: gh });
    expect(all.code, all.stdout).toBe(0);
    expect(all.outputs.exitcode).toBe("0");
    expect(gh.calls()).toEqual([]);
    expect(all.summary).toContain("Apply complete");
    const after = await carte(["plan", "--json", "-q", "-c", fx.config]);
    expect((JSON.parse(after.out) as { changes: unknown[] }).changes).toEqual([]);
  });

  it("applies nothing for a push that no pull request reviewed, unless apply-unreviewed is true", async () => {
    const { fx, gh, dir } = await pullRequestFixture();
    const sha = git(dir, "rev-parse", "HEAD");
    const push: RunnerEvent = { name: "push", sha, payload: {} };
    fx.emu.clearRequests();
    const refused = await runBundle({ workspace: dir, inputs: inputs("apply"), event: push, github: gh });
    expect(refused.code).toBe(3);
    expect(writes(fx.emu.requests)).toEqual([]);
    expect(refused.stdout).toContain("did not come from a merged pull request");
    expect(gh.calls()).toEqual([`GET ${REPO}/commits/${sha}/pulls`]);

    const allowed = await runBundle({
      workspace: dir,
      inputs: inputs("apply", { "apply-unreviewed": "true" }),
      event: push,
      github: gh,
    });
    expect(allowed.code, allowed.stdout).toBe(0);
    expect(writes(fx.emu.requests)).toHaveLength(2);
  });
});

describe("the bundled Action on a schedule", { timeout: 90_000 }, () => {
  it("opens one drift issue, updates it, and closes it when the platform matches again; exit 2 on drift", async () => {
    const fx = await exampleAgainstEmulator(STORES);
    const gh = await fakeGitHub();
    cleanups.push(fx.close, gh.close);
    const dir = fx.dir;
    const schedule: RunnerEvent = {
      name: "schedule",
      sha: "b".repeat(40),
      payload: { schedule: "17 6 * * *" },
    };
    await carte([
      "apply",
      "--auto-approve",
      "-q",
      "-c",
      fx.config,
      "--secrets-file",
      path.join(dir, "s.json"),
    ]);
    await staffEdit(
      fx.config,
      "stores/med-poblado.yaml",
      "BURGER-CARBON: 36900",
      "BURGER-CARBON: 37900",
      "store[med-poblado].item[BURGER-CARBON]",
    );

    const opened = await runBundle({ workspace: dir, inputs: inputs("drift"), event: schedule, github: gh });
    expect(opened.code, opened.stdout + opened.stderr).toBe(2);
    expect(opened.outputs).toMatchObject({ exitcode: "2", "has-changes": "true" });
    expect(gh.calls()).toEqual([`GET ${REPO}/issues`, `POST ${REPO}/issues`]);
    expect(gh.requests[0]!.url).toContain("labels=carte-drift");
    expect(gh.requests[0]!.url).toContain("state=open");
    expect(gh.requests[1]!.body).toMatchObject({ labels: ["carte-drift"] });
    const issue = gh.issues[0]!;
    expect(issue.body.startsWith(DRIFT_MARKER)).toBe(true);
    expect(issue.title).toBe("carte: the platform differs from the files (1 store)");
    expect(issue.body).toContain("<code>med-poblado</code>");
    expect(issue.body).toContain("price: $37.900 → $36.900");

    // More drift: the same issue is updated.
    await staffEdit(
      fx.config,
      "stores/bog-centro.yaml",
      "BURGER-CLASSIC: 25900",
      "BURGER-CLASSIC: 27900",
      "store[bog-centro].item[BURGER-CLASSIC]",
    );
    gh.requests.length = 0;
    const updated = await runBundle({ workspace: dir, inputs: inputs("drift"), event: schedule, github: gh });
    expect(updated.code).toBe(2);
    expect(gh.calls()).toEqual([`GET ${REPO}/issues`, `PATCH ${REPO}/issues/${issue.number}`]);
    expect(gh.issues).toHaveLength(1);
    expect(issue.title).toBe("carte: the platform differs from the files (2 stores)");
    expect(issue.body).toContain("price: $27.900 → $25.900");

    // The platform matches again: a closing comment, then the issue is closed.
    await carte([
      "apply",
      "--auto-approve",
      "-q",
      "-c",
      fx.config,
      "--secrets-file",
      path.join(dir, "s.json"),
    ]);
    gh.requests.length = 0;
    const closed = await runBundle({ workspace: dir, inputs: inputs("drift"), event: schedule, github: gh });
    expect(closed.code, closed.stdout).toBe(0);
    expect(closed.outputs).toMatchObject({ exitcode: "0", "has-changes": "false" });
    expect(gh.calls()).toEqual([
      `GET ${REPO}/issues`,
      `POST ${REPO}/issues/${issue.number}/comments`,
      `PATCH ${REPO}/issues/${issue.number}`,
    ]);
    expect(gh.requests[2]!.body).toEqual({ state: "closed", state_reason: "completed" });
    expect(issue.state).toBe("closed");

    // Nothing open and nothing to report: no write at all.
    gh.requests.length = 0;
    const quiet = await runBundle({ workspace: dir, inputs: inputs("drift"), event: schedule, github: gh });
    expect(quiet.code).toBe(0);
    expect(gh.calls()).toEqual([`GET ${REPO}/issues`]);
  });
});

describe("the bundled Action in a matrix of shards", { timeout: 90_000 }, () => {
  it("two shards' records merged by the report command make the comment one job makes", async () => {
    const { fx, gh, dir, event } = await pullRequestFixture();
    // The chain's client-level webhook changes too: it belongs to shard 1 only.
    edit(path.join(dir, "carte.yaml"), "hooks/provisioning", "hooks/provisioning-v2");
    const one = await runBundle({ workspace: dir, inputs: inputs("plan"), event, github: gh });
    expect(one.code, one.stdout).toBe(0);
    const single = botComments(gh)[0]!.body;

    gh.requests.length = 0;
    fx.emu.clearRequests();
    const records: RunRecord[] = [];
    for (const k of [1, 2]) {
      const run = await runBundle({
        workspace: dir,
        inputs: inputs("plan", { shard: `${k}/2` }),
        event,
        github: gh,
      });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.outputs["plan-file"]).toBe(`carte-run-${k}-of-2.json`);
      records.push(JSON.parse(readFileSync(path.join(dir, run.outputs["plan-file"]!), "utf8")) as RunRecord);
    }
    // The shards post nothing: the report does.
    expect(gh.calls()).toEqual([]);
    expect(writes(fx.emu.requests)).toEqual([]);
    const keys = records.map((r) => r.plan!.stores.map((s) => s.key));
    expect(keys.flat().sort()).toEqual(["bog-centro", "bog-chapinero", "med-poblado"]);
    expect(keys.every((k) => k.length > 0)).toBe(true);
    const clientChanges = records.map((r) => r.plan!.changes.filter((c) => c.store === "").length);
    expect(clientChanges).toEqual([1, 0]);

    const downloaded = mkdtempSync(path.join(tmpdir(), "carte-artifacts-"));
    cleanups.push(() => rmSync(downloaded, { recursive: true, force: true }));
    for (const f of readdirSync(dir).filter((f) => f.startsWith("carte-run-"))) {
      cpSync(path.join(dir, f), path.join(downloaded, f));
    }
    const report = await runBundle({
      workspace: dir,
      inputs: inputs("report", { plans: `${downloaded}/*.json` }),
      event,
      github: gh,
    });
    expect(report.code, report.stdout + report.stderr).toBe(0);
    expect(gh.calls()).toEqual([
      `GET ${REPO}/issues/7/comments`,
      `PATCH ${REPO}/issues/comments/${botComments(gh)[0]!.id}`,
    ]);
    const merged = botComments(gh)[0]!.body;
    const timeless = (s: string) => s.replace(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/, "TIME");
    expect(timeless(merged)).toBe(timeless(single));
    expect(report.outputs).toMatchObject({ exitcode: "0", "has-changes": "true" });
  });
});

describe("the bundle", () => {
  it("is what a fresh build makes, and starts from a copy without node_modules in under 2 s", async () => {
    const check = spawnSync(
      process.execPath,
      [path.join(repoRoot, "scripts", "build-action.mjs"), "--check"],
      {
        encoding: "utf8",
      },
    );
    expect(check.status, check.stderr).toBe(0);

    // The action as a workflow gets it: its repository's files, no node_modules.
    const copy = mkdtempSync(path.join(tmpdir(), "carte-action-copy-"));
    cleanups.push(() => rmSync(copy, { recursive: true, force: true }));
    for (const f of ["action.yml", "package.json", "dist-action", "schemas"]) {
      cpSync(path.join(repoRoot, f), path.join(copy, f), { recursive: true });
    }
    const gh = await fakeGitHub();
    cleanups.push(gh.close);
    const workspace = mkdtempSync(path.join(tmpdir(), "carte-workspace-"));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
    const run = await runBundle({
      workspace,
      actionDir: copy,
      inputs: inputs("plan", { config: "missing.yaml" }),
      event: { name: "workflow_dispatch", payload: {} },
      github: gh,
    });
    expect(run.code).toBe(1);
    expect(run.outputs).toEqual({ "has-changes": "false", summary: "null", exitcode: "1" });
    expect(run.summary).toContain("missing.yaml");
    expect(run.ms).toBeLessThan(2000);
  });
});
