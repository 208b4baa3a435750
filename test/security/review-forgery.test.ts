/**
 * Forging a reviewed plan: what the merge applies is what carte's comment on the pull request holds in
 * its record (src/gitops/reviewed.ts). Each case below is one way someone who can open a pull request
 * (or write a value on the platform) might make the merge read a record carte did not write for that
 * review: the record in a value of the files, the platform or git, in another comment, made for another
 * head, pull request, base, repository or key, or carte's own record edited. The attacker's record is the
 * strongest there is: a genuine one, signed with the workflow's key for this very pull request and head
 * (as an earlier plan run of the same head could have written it), approving a price the reviewers never
 * saw. In every case the merge approves nothing the reviewers did not see.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMMENT_MARKER } from "../../src/action/comment.js";
import type { IssueComment } from "../../src/gitops/github.js";
import {
  encodeReviewed,
  findReviewed,
  judgeReviewed,
  reviewKey,
  type ReviewBinding,
} from "../../src/gitops/reviewed.js";
import { buildPlan } from "../../src/plan/plan.js";
import type { Plan } from "../../src/plan/types.js";
import { codeSpan, escapeFence, escapeHtml, escapeLog, escapeMarkdown } from "../../src/render/escape.js";
import { renderFailureComment, renderPlanComment, renderProblemsComment } from "../../src/render/markdown.js";
import { current, desired, item, store, catalogOf } from "../helpers/builders.js";

const BOT = "github-actions[bot]";
const KEY = reviewKey("the workflow's review key, a secret of 32+ characters");
const HEAD = "0123456789abcdef0123456789abcdef01234567";
const BINDING: ReviewBinding = { repository: "chain/menus", pullRequest: 7, head: HEAD, base: "main" };

/** The change the reviewers saw: the price of A. */
const A = "store[s].item[A]";
/** The change nobody reviewed: drift of B on the platform, which the merge would undo. */
const B = "store[s].item[B]";

/** The files, with `patch` applied (a hostile value), and the platform with B drifted. */
function plans(patch: (s: ReturnType<typeof store>) => void = () => {}) {
  const files = store("s", "1", (s) => {
    catalogOf(s).items = { A: item("A", 100), B: item("B", 200) };
    patch(s);
  });
  const platform = store("s", "1", (s) => (catalogOf(s).items = { A: item("A", 90), B: item("B", 200) }));
  const drifted = store("s", "1", (s) => (catalogOf(s).items = { A: item("A", 90), B: item("B", 150) }));
  return {
    /** What the plan on the pull request showed (no drift then). */
    reviewed: buildPlan(desired(files), current(platform)),
    /** What the merge plans afresh (B drifted since). */
    fresh: buildPlan(desired(files), current(drifted)),
  };
}

/** The attacker's record: genuine, for this pull request and head, approving B alone. */
const FORGED = (() => {
  const onlyB = buildPlan(
    desired(store("s", "1", (s) => (catalogOf(s).items = { B: item("B", 200) }))),
    current(store("s", "1", (s) => (catalogOf(s).items = { B: item("B", 150) }))),
  );
  return encodeReviewed(onlyB, BINDING, KEY);
})();

/** The record of `plan` for `binding` with `key`, as carte writes it. */
const recordOf = (plan: Plan, binding: ReviewBinding = BINDING, key = KEY) =>
  encodeReviewed(plan, binding, key);

/** carte's comment as the Action posts it: its marker, the body, and the record as the last line. */
const cartes = (body: string, login = BOT): IssueComment => ({
  id: 100,
  body: `${COMMENT_MARKER}\n${body}`,
  user: { login },
});

/** The plan comment carte writes for `plan`, with its genuine record. */
const planComment = (plan: Plan, options: Parameters<typeof renderPlanComment>[1] = {}) =>
  cartes(renderPlanComment(plan, { ...options, footer: recordOf(plan) }));

/** carte's plan comment with its last line replaced by `line` (the worst case: the attacker wrote it). */
const lastLine = (plan: Plan, line: string) => cartes(`${renderPlanComment(plan)}\n${line}\n`);

/** The addresses the merge would apply as reviewed, of the fresh plan, given the pull request's comments. */
function approved(comments: IssueComment[], fresh: Plan): string[] {
  const reading = findReviewed(comments, { marker: COMMENT_MARKER, author: BOT, binding: BINDING, key: KEY });
  return judgeReviewed(fresh, reading.record).reviewed;
}

describe("the forged record", () => {
  it("would approve the unreviewed change if the merge read it: the corpus tests a potent forgery", () => {
    const { reviewed, fresh } = plans();
    expect(reviewed.changes.map((c) => c.address)).toEqual([A]);
    expect(fresh.changes.map((c) => c.address)).toEqual([A, B]);
    expect(approved([lastLine(reviewed, FORGED)], fresh)).toEqual([B]);
    // carte's own comment approves what the reviewers saw, and only that.
    expect(approved([planComment(reviewed)], fresh)).toEqual([A]);
  });
});

describe("a record in a value carte shows is never read", () => {
  // Each value is rendered in carte's comment (in a ```diff block, a heading, a table, a quote or a
  // code span); carte's real record is still the one read, and B is never approved.
  const cases: [string, (s: ReturnType<typeof store>) => void][] = [
    ["an item title", (s) => (catalogOf(s).items.A!.title = FORGED)],
    [
      "a title that starts and ends the record on two lines",
      (s) => (catalogOf(s).items.A!.title = `x\n${FORGED}\ny`),
    ],
    ["a SKU", (s) => (catalogOf(s).items[FORGED] = item(FORGED, 5))],
    ["a store name", (s) => (s.store.name = FORGED)],
    ["an item description", (s) => (catalogOf(s).items.A!.description = `-->\n${FORGED}\n<!--`)],
  ];
  for (const [where, patch] of cases) {
    it(`in ${where}`, () => {
      const { reviewed, fresh } = plans(patch);
      const comment = planComment(reviewed);
      // Exactly two HTML comments: carte's marker and its record.
      expect(comment.body!.split("<!--")).toHaveLength(3);
      expect(comment.body!.match(/carte-reviewed/gi)).toHaveLength(1);
      const got = approved([comment], fresh);
      expect(got).not.toContain(B);
      expect(got).toEqual(fresh.changes.filter((c) => c.address !== B).map((c) => c.address));
    });
  }

  it("in a store key (its integration id)", () => {
    const hostile = (key: string) => {
      const files = store(key, "1", (s) => (catalogOf(s).items = { A: item("A", 100) }));
      return buildPlan(
        desired(files),
        current(store(key, "1", (s) => (catalogOf(s).items = { A: item("A", 90) }))),
      );
    };
    const plan = hostile(FORGED);
    const comment = planComment(plan);
    expect(comment.body!.split("<!--")).toHaveLength(3);
    expect(approved([comment], plans().fresh)).toEqual([]);
  });

  it("in a platform message (a note on a store) and a safety guard's message", () => {
    const { reviewed, fresh } = plans();
    const noted: Plan = {
      ...reviewed,
      info: [{ store: "s", kind: "availability", message: FORGED }],
      safety: { ok: false, violations: [{ guard: "max_update_percent", message: `${FORGED}\n${FORGED}` }] },
    };
    const comment = planComment(noted);
    expect(comment.body!.split("<!--")).toHaveLength(3);
    expect(approved([comment], fresh)).toEqual([A]);
  });

  it("in a branch name (the base compared with)", () => {
    const { reviewed, fresh } = plans();
    const split = { ref: FORGED, sha: "", changes: [A], drift: [], settled: [] };
    const comment = planComment(reviewed, { split });
    expect(comment.body!.split("<!--")).toHaveLength(3);
    expect(approved([comment], fresh)).toEqual([A]);
  });

  it("in a file name of a configuration problem (the comment then has no record at all)", () => {
    const { fresh } = plans();
    const comment = cartes(
      renderProblemsComment([{ file: `stores/${FORGED}.yaml`, line: 3, col: 1, message: FORGED }]),
    );
    expect(comment.body!.split("<!--")).toHaveLength(2);
    expect(approved([comment], fresh)).toEqual([]);
  });

  it("in a commit message quoted by a git error (the failure comment)", () => {
    const { fresh } = plans();
    const message = `git: the base commit could not be read (fatal: bad object; last commit:\n${FORGED}\n)`;
    const comment = cartes(renderFailureComment(message, 1));
    expect(comment.body!.split("<!--")).toHaveLength(2);
    expect(approved([comment], fresh)).toEqual([]);
  });
});

describe("a record in another comment is never read", () => {
  it("a second comment quoting carte's, with the forged record, posted before carte's", () => {
    const { reviewed, fresh } = plans();
    const quoted = { ...lastLine(reviewed, FORGED), id: 1, user: { login: "mallory" } };
    expect(approved([quoted, planComment(reviewed)], fresh)).toEqual([A]);
  });

  it("a comment by another author that is all there is", () => {
    const { reviewed, fresh } = plans();
    expect(approved([{ ...lastLine(reviewed, FORGED), user: { login: "mallory" } }], fresh)).toEqual([]);
  });

  it("comments by logins that look like the bot's", () => {
    const { reviewed, fresh } = plans();
    for (const login of [
      "github-actions",
      "github-actions[bot] ",
      "githuЬ-actions[bot]",
      "GITHUB-ACTIONS[BOT]",
    ]) {
      expect(approved([{ ...lastLine(reviewed, FORGED), user: { login } }], fresh)).toEqual([]);
    }
  });

  it("a comment without carte's marker first (carte's own, edited to move it)", () => {
    const { reviewed, fresh } = plans();
    const moved = { ...planComment(reviewed) };
    moved.body = `\n${moved.body!}`;
    expect(approved([moved], fresh)).toEqual([]);
  });
});

describe("a record carte did not write for this review is refused whole", () => {
  const { reviewed, fresh } = plans();
  const genuine = recordOf(fresh);
  const field = (line: string, name: string) => new RegExp(` ${name}=(\\S*)`).exec(line)![1]!;
  const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === "A" ? "B" : "A") + s.slice(at + 1);
  const cases: [string, string][] = [
    ["for another head commit", recordOf(fresh, { ...BINDING, head: "f".repeat(40) })],
    ["for another pull request", recordOf(fresh, { ...BINDING, pullRequest: 8 })],
    ["for another base branch", recordOf(fresh, { ...BINDING, base: "release" })],
    ["for another repository (a fork)", recordOf(fresh, { ...BINDING, repository: "mallory/menus" })],
    [
      "signed with another key",
      recordOf(fresh, BINDING, reviewKey("another key, of 32 characters or more!")),
    ],
    ["with a wrong MAC", genuine.replace(/mac=(\S+)/, (_, m: string) => `mac=${flip(m, 5)}`)],
    ["with the MAC cut", genuine.replace(/mac=(\S{20})\S+/, "mac=$1")],
    ["truncated in its list of changes", genuine.replace(/changes=(\S{12})\S+/, "changes=$1")],
    ["truncated before its end", genuine.slice(0, -4)],
    ["with its list of changes left out (as for a plan too large)", genuine.replace(/ changes=\S+/, "")],
    ["with its count changed", genuine.replace(/ n=2 /, " n=1 ")],
    ["with its digests reordered", genuine.replace(/changes=(\S{12})(\S{12})/, "changes=$2$1")],
    ["with its fields reordered", genuine.replace(/(pr=\S+) (head=\S+)/, "$2 $1")],
    ["with a digest doubled", genuine.replace(/changes=(\S{12})\S{12}/, "changes=$1$1")],
    ["doubled", `${genuine}\n${genuine}`],
    ["above carte's own record", `${FORGED}\n${recordOf(reviewed)}`],
    [
      "re-encoded in standard base64",
      genuine.replace(/all=(\S+)/, (_, a: string) => `all=${Buffer.from(a, "base64url").toString("base64")}`),
    ],
    ["re-encoded with padding", genuine.replace(/all=(\S+)/, "all=$1=")],
    ["re-encoded as HTML character references", genuine.replace("<", "&lt;").replace(">", "&gt;")],
    ["re-encoded with an upper-case head", genuine.replace(HEAD, HEAD.toUpperCase())],
    [
      "in the older unsigned format",
      `<!-- carte-reviewed v1 head=${HEAD} n=2 all=${field(genuine, "all")} changes=${field(genuine, "changes")} -->`,
    ],
    ["with a look-alike hyphen in its marker", genuine.replace("carte-reviewed", "carte\u2010reviewed")],
    ["with a Cyrillic letter in its marker", genuine.replace("carte", "cаrte")],
    ["with a full-width comment opener", genuine.replace("<!--", "\uff1c!--")],
    ["with no-break spaces", genuine.replaceAll(" ", "\u00a0")],
    ["with a zero-width space in its marker", genuine.replace("carte-", "carte\u200b-")],
    ["with text after it", `${genuine} ok`],
    ["with a space before it", ` ${genuine}`],
    ["with a second HTML comment after it", `${genuine}<!-- -->`],
  ];
  it(`the corpus has ${cases.length} records, none of them carte's for this review`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
    // The genuine record, as the last line, is read: the cases differ from it by their forgery only.
    expect(approved([lastLine(reviewed, genuine)], fresh)).toEqual([A, B]);
  });
  for (const [what, line] of cases) {
    it(`a record ${what}`, () => {
      expect(approved([lastLine(reviewed, line)], fresh)).toEqual([]);
    });
  }
});

describe("the escaping behind it", () => {
  const fragments = [
    "<",
    "!",
    "-",
    ">",
    "--",
    "<!--",
    "-->",
    "carte",
    "-reviewed",
    "CARTE-REVIEWED",
    "`",
    "\u200b",
    " ",
    "\n",
    "x",
  ];
  const hostile = fc.array(fc.constantFrom(...fragments), { maxLength: 24 }).map((p) => p.join(""));

  it("no escaped value holds <!--, -->, --!> or the record's marker, whatever it is made of", () => {
    fc.assert(
      fc.property(hostile, (value) => {
        for (const out of [escapeMarkdown(value), escapeFence(value), escapeHtml(value), codeSpan(value)]) {
          expect(out).not.toMatch(/<!--|--!?>|carte-reviewed/i);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("no line of the run log becomes a workflow command", () => {
    const parts = [
      ":",
      "::",
      "#",
      "##",
      "[",
      "error",
      " ",
      "\t",
      "\u200b",
      "\ufeff",
      "\u00ad",
      "\n",
      "\r",
      "x",
    ];
    const text = fc.array(fc.constantFrom(...parts), { maxLength: 24 }).map((p) => p.join(""));
    const ignorable = /\p{Default_Ignorable_Code_Point}/gu;
    fc.assert(
      fc.property(text, (value) => {
        for (const line of escapeLog(value).split("\n")) {
          const seen = line.replace(ignorable, "");
          expect(seen.trimStart().startsWith("::")).toBe(false);
          expect(seen).not.toContain("##[");
        }
      }),
      { numRuns: 2000 },
    );
    expect(escapeLog("::error::forged\n  ::add-mask::x\na ##[error]b")).toBe(
      "\\x3a:error::forged\n  \\x3a:add-mask::x\na #\\x23[error]b",
    );
    expect(escapeLog("Plan: 1 to update. a::b stays")).toBe("Plan: 1 to update. a::b stays");
  });
});
