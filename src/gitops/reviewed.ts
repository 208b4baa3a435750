/**
 * The reviewed plan: what a pull request's plan showed is what its merge applies.
 *
 * The plan run on the pull request writes a record of its plan into its comment, hidden: a digest of
 * each change (address, action, the state before and the state after) and one digest of them all.
 * On merge, the apply plans afresh and keeps only the changes whose digest the record holds; anything
 * else (new drift, another pull request's change merged meanwhile, a change the platform made to a
 * resource since the review) is refused unless the workflow allows unreviewed changes. A change whose
 * resource moved on the platform since the review gets a different digest: it is not applied blindly.
 *
 * Only carte can write a record the merge believes:
 *
 * - **Its place.** The record is the last line of carte's comment (by the comment author, starting with
 *   carte's marker), in one fixed format, and the only HTML comment after the marker line; a comment
 *   with anything else is read as having no record. No value carte renders can hold `<!--`, `-->` or the
 *   marker text (src/render/escape.ts), so nothing from the files, the platform or git can put one
 *   there, and the last line is always carte's own.
 * - **Its signature.** The record carries an HMAC-SHA256 over the repository, the pull request's
 *   number, its head commit, its base branch and the record's fields, keyed by the review key (the
 *   Action's `review-key` input or `CARTE_REVIEW_KEY`, a secret of the workflow that no pull request can
 *   read). A record copied from another pull request, made for another head commit or base, or edited
 *   in any way does not verify; without the key nobody can make one that does.
 *
 * The line is `<!-- carte-reviewed v2 pr=N head=SHA n=COUNT all=DIGEST changes=DIGESTS mac=MAC -->`,
 * base64url only, so that it can never close the HTML comment. `changes` is left out when it would not
 * fit in a comment (more than {@link MAX_LISTED} changes); the merge then applies the plan only when all
 * of it is what was reviewed.
 */

import { createHash, createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import type { LoadedProject } from "../config/index.js";
import { UnsafePlanError, UsageError } from "../errors.js";
import type { CurrentState, DesiredState } from "../model.js";
import { canonicalJson } from "../plan/checksum.js";
import { buildPlan } from "../plan/plan.js";
import type { Plan, ResourceChange } from "../plan/types.js";
import { RECORD_MARKER } from "../render/escape.js";
import { isCartes, type IssueComment } from "./github.js";

/** Bytes of one change's digest in the record (72 bits: no collision within a plan in practice). */
const DIGEST_BYTES = 9;

/** Most changes listed one by one in a record (12 characters each, about 24,000 characters). */
export const MAX_LISTED = 2000;

/** The fewest characters of a review key (`openssl rand -base64 32` makes 44). */
export const MIN_KEY_CHARS = 32;

/** What a pull request's plan showed. */
export interface ReviewedRecord {
  /** The number of the pull request the plan was made on. */
  pullRequest: number;
  /** The head commit the plan was made for (40 or 64 hexadecimal digits). */
  head: string;
  /** Number of changes of the plan. */
  count: number;
  /** Digest of all the changes ({@link planDigest}). */
  all: string;
  /** Digest of each change ({@link changeDigest}), when the plan had at most {@link MAX_LISTED}. */
  changes?: Set<string>;
}

/**
 * What a record is bound to, as GitHub says it: on the plan, the `pull_request` event; on the merge,
 * the merged pull request the pushed commit belongs to. A record verifies only against the binding it
 * was signed for.
 */
export interface ReviewBinding {
  /** `owner/repo` (`GITHUB_REPOSITORY`). */
  repository: string;
  /** The pull request's number. */
  pullRequest: number;
  /** Its head commit, 40 (SHA-1) or 64 (SHA-256) lowercase hexadecimal digits. */
  head: string;
  /** Its base branch's name (`main`). */
  base: string;
}

/** The key records are signed with: opaque, never printed. Made by {@link reviewKey}. */
export interface ReviewKey {
  readonly bytes: Buffer;
}

/**
 * The key of the records from the workflow's secret (the Action's `review-key` input or
 * `CARTE_REVIEW_KEY`): 32 bytes derived with HKDF-SHA256, so that the secret itself never keys anything
 * else.
 *
 * @throws {@link UsageError} when the secret is shorter than {@link MIN_KEY_CHARS} characters (a short
 *   key could be guessed offline from the records, which anyone who reads the pull request can see); the
 *   message never quotes it.
 */
export function reviewKey(secret: string): ReviewKey {
  if (secret.length < MIN_KEY_CHARS) {
    throw new UsageError(
      `the review key (input review-key or CARTE_REVIEW_KEY) has ${secret.length} characters; use a random ` +
        `secret of at least ${MIN_KEY_CHARS} (e.g. the output of: openssl rand -base64 32)`,
    );
  }
  return { bytes: Buffer.from(hkdfSync("sha256", secret, "", "carte reviewed-plan record v2", 32)) };
}

const digest = (text: string, bytes: number) =>
  createHash("sha256").update(text).digest().subarray(0, bytes).toString("base64url");

/** The digest of one change: its address, action, and the states before and after (base64url, 12 chars). */
export function changeDigest(c: ResourceChange): string {
  return digest(canonicalJson([c.address, c.action, c.before, c.after]), DIGEST_BYTES);
}

/** The digest of a whole plan's changes, whatever their order (base64url, 43 chars). */
export function planDigest(changes: readonly ResourceChange[]): string {
  return digest(changes.map(changeDigest).sort().join("\n"), 32);
}

/** A head commit as a record holds it. */
const HEAD = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Whether a binding can sign a record: a repository, a pull request's number, a full head commit and a base. */
export function completeBinding(b: Partial<ReviewBinding>): b is ReviewBinding {
  return (
    typeof b.repository === "string" &&
    /^[^/\s]+\/[^/\s]+$/.test(b.repository) &&
    Number.isSafeInteger(b.pullRequest) &&
    (b.pullRequest ?? 0) > 0 &&
    (b.pullRequest ?? 0) < 1e9 &&
    typeof b.head === "string" &&
    HEAD.test(b.head) &&
    typeof b.base === "string" &&
    b.base !== ""
  );
}

/** The MAC of a record's fields (the line's text between `v2 ` and ` mac=`) for a binding. */
function mac(fields: string, binding: ReviewBinding, key: ReviewKey): Buffer {
  const message = JSON.stringify([
    RECORD_MARKER,
    2,
    binding.repository,
    binding.pullRequest,
    binding.head,
    binding.base,
    fields,
  ]);
  return createHmac("sha256", key.bytes).update(message, "utf8").digest();
}

/**
 * The hidden line that carries the record of `plan` in the comment of the pull request `binding`
 * names, signed with `key` (see the module comment).
 *
 * @throws {@link UsageError} when the binding is incomplete ({@link completeBinding}).
 */
export function encodeReviewed(plan: Plan, binding: ReviewBinding, key: ReviewKey): string {
  if (!completeBinding(binding))
    throw new UsageError("a reviewed-plan record needs the repository, pull request, head commit and base");
  const list =
    plan.changes.length <= MAX_LISTED
      ? ` changes=${Buffer.concat(plan.changes.map((c) => Buffer.from(changeDigest(c), "base64url"))).toString("base64url")}`
      : "";
  const count = plan.changes.length;
  const fields = `pr=${binding.pullRequest} head=${binding.head} n=${count} all=${planDigest(plan.changes)}${list}`;
  return `<!-- ${RECORD_MARKER} v2 ${fields} mac=${mac(fields, binding, key).toString("base64url")} -->`;
}

/**
 * The one format of a record's line, whole ({@link RECORD_MARKER} spelt out): numbers without leading
 * zeros, a full lowercase head commit, base64url digests; `fields` is what the MAC covers.
 */
const RECORD_LINE =
  /^<!-- carte-reviewed v2 (?<fields>pr=(?<pr>[1-9]\d{0,8}) head=(?<head>[0-9a-f]{40}|[0-9a-f]{64}) n=(?<n>0|[1-9]\d{0,8}) all=(?<all>[A-Za-z0-9_-]{43})(?: changes=(?<list>[A-Za-z0-9_-]*))?) mac=(?<mac>[A-Za-z0-9_-]{43}) -->$/;

/** base64url text that is the one encoding of its bytes (no other spelling of the same bytes passes). */
function canonical(text: string, bytes: number): Buffer | undefined {
  const raw = Buffer.from(text, "base64url");
  return raw.length === bytes && raw.toString("base64url") === text ? raw : undefined;
}

/** A record read and verified, or why there is none to go by (one sentence, for the apply's comment). */
export type RecordReading = { record: ReviewedRecord; why?: undefined } | { record?: undefined; why: string };

/**
 * Reads the record of carte's comment `body` (which starts with `marker` and a line feed, as
 * src/gitops/github.ts writes it) and verifies it against `binding` with `key`. Only the last line is
 * read, and only when it is the one HTML comment of the body after the marker line; the record must be
 * in the one format {@link encodeReviewed} writes, for the binding's pull request and head commit, and
 * its MAC must verify. Anything else reads as no record, with the reason.
 */
export function readReviewed(
  body: string,
  marker: string,
  binding: ReviewBinding,
  key: ReviewKey | undefined,
): RecordReading {
  const none = (why: string): RecordReading => ({ why });
  if (!key) {
    return none(
      "No review key is configured (input review-key or CARTE_REVIEW_KEY), so no reviewed plan can be verified.",
    );
  }
  // Line ends as carte writes them; an edit in GitHub's web editor would make them CRLF.
  const text = body.replace(/\r\n/g, "\n");
  if (!text.startsWith(`${marker}\n`)) return none("carte's comment does not start with its marker.");
  const rest = text.slice(marker.length + 1).replace(/\n$/, "");
  const lineStart = rest.lastIndexOf("\n") + 1;
  const line = rest.slice(lineStart);
  if (
    rest.indexOf("<!--") !== lineStart ||
    rest.indexOf("<!--", lineStart + 1) >= 0 ||
    rest.indexOf("-->") !== rest.length - 3 ||
    rest.indexOf("--!>") >= 0
  ) {
    return none(
      "carte's comment has no reviewed-plan record in its last line, or more than one HTML comment.",
    );
  }
  const m = RECORD_LINE.exec(line)?.groups;
  if (!m) {
    return none(
      "The reviewed-plan record in carte's comment is not in the format this version of carte writes: " +
        "plan the pull request again.",
    );
  }
  // The groups the pattern always sets (`list` is optional).
  const {
    fields,
    pr,
    head,
    n,
    all,
    list,
    mac: sig,
  } = m as {
    [group in "fields" | "pr" | "head" | "n" | "all" | "mac"]: string;
  } & { list?: string };
  const record: ReviewedRecord = { pullRequest: Number(pr), head, count: Number(n), all };
  if (record.pullRequest !== binding.pullRequest)
    return none(
      `The reviewed-plan record was made for pull request #${record.pullRequest}, not #${binding.pullRequest}.`,
    );
  if (record.head !== binding.head) {
    return none(
      `The last plan on pull request #${binding.pullRequest} was made for commit ${record.head.slice(0, 7)}, not for its last commit ${binding.head.slice(0, 7)}.`,
    );
  }
  const given = canonical(sig, 32);
  if (!canonical(all, 32) || !given || !timingSafeEqual(given, mac(fields, binding, key))) {
    return none(
      "The reviewed-plan record's signature does not verify: it was not written by carte for this pull request " +
        "(repository, number, head commit, base branch) with this workflow's review key.",
    );
  }
  if (list !== undefined) {
    const bytes = canonical(list, record.count * DIGEST_BYTES);
    if (!bytes) return none("The reviewed-plan record's list of changes does not match its count.");
    const changes = new Set<string>();
    for (let i = 0; i < bytes.length; i += DIGEST_BYTES) {
      changes.add(bytes.subarray(i, i + DIGEST_BYTES).toString("base64url"));
    }
    if (changes.size !== record.count) return none("The reviewed-plan record lists a change twice.");
    record.changes = changes;
  }
  return { record };
}

/**
 * The record of a pull request from its comments: the first comment by `author` that starts with
 * `marker` (src/gitops/github.ts `isCartes`, the comment carte updates in place), read and verified by
 * {@link readReviewed}. Comments by anyone else are never read.
 */
export function findReviewed(
  comments: readonly IssueComment[],
  options: { marker: string; author: string; binding: ReviewBinding; key: ReviewKey | undefined },
): RecordReading {
  const mine = comments.find((c) => isCartes(c, options.marker, options.author));
  if (!mine?.body)
    return { why: `Pull request #${options.binding.pullRequest} has no plan from carte to go by.` };
  return readReviewed(mine.body, options.marker, options.binding, options.key);
}

/** A fresh plan's changes judged against a record. */
export interface ReviewVerdict {
  /** Addresses of the changes the record holds, in plan order. */
  reviewed: string[];
  /** The changes it does not hold. */
  unreviewed: ResourceChange[];
}

/**
 * Which of a fresh plan's changes were reviewed: those whose digest the record lists; or, for a record
 * without a list, all of them when the plan's digest equals the record's and none otherwise. Without a
 * record, none.
 */
export function judgeReviewed(plan: Plan, record: ReviewedRecord | undefined): ReviewVerdict {
  if (!record) return { reviewed: [], unreviewed: plan.changes };
  if (!record.changes) {
    return planDigest(plan.changes) === record.all
      ? { reviewed: plan.changes.map((c) => c.address), unreviewed: [] }
      : { reviewed: [], unreviewed: plan.changes };
  }
  const listed = record.changes;
  const verdict: ReviewVerdict = { reviewed: [], unreviewed: [] };
  for (const c of plan.changes) {
    if (listed.has(changeDigest(c))) verdict.reviewed.push(c.address);
    else verdict.unreviewed.push(c);
  }
  return verdict;
}

/**
 * The plan limited to the changes at `keep`, rebuilt from the same desired and current states (the
 * calls are batched anew for them alone), judged by the safety guards again.
 *
 * @throws {@link UnsafePlanError} (guard `reviewed_plan`) when a kept change cannot be made without a
 *   change that is not kept (e.g. it puts an item in a category whose creation was not reviewed).
 */
export function planOnly(
  project: LoadedProject,
  current: CurrentState,
  plan: Plan,
  keep: readonly string[],
): Plan {
  const wanted = new Set(keep);
  const inScope = new Set(plan.stores.map((s) => s.key));
  const desired: DesiredState = {
    stores: Object.fromEntries(Object.entries(project.desired.stores).filter(([k]) => inScope.has(k))),
    ...(project.desired.client ? { client: project.desired.client } : {}),
    ...(project.desired.currency !== undefined ? { currency: project.desired.currency } : {}),
  };
  if (wanted.size === 0) {
    return {
      ...plan,
      changes: [],
      operations: [],
      summary: { create: 0, update: 0, delete: 0, operations: 0, stores: 0 },
      safety: { ok: true, violations: [] },
    };
  }
  const limited = buildPlan(desired, current, {
    safety: project.safety,
    ownership: project.ownership,
    targeting: { stores: [], kinds: [], targets: [...wanted] },
  });
  const extra = limited.changes.filter((c) => !wanted.has(c.address)).map((c) => c.address);
  const missing = [...wanted].filter((a) => !limited.changes.some((c) => c.address === a));
  if (extra.length > 0 || missing.length > 0) {
    throw new UnsafePlanError(
      "reviewed_plan",
      `the reviewed changes cannot be applied apart from the others: ${[...extra, ...missing].slice(0, 10).join(", ")}` +
        `${extra.length + missing.length > 10 ? ", …" : ""} ${extra.length > 0 ? "would have to be applied with them" : "could not be planned alone"}. Nothing was changed.`,
    );
  }
  // The limit is the review, not a --target of the user's: the plan says what it applies.
  delete limited.targeting;
  // The same live read: the digests each store is checked against before its first write still hold.
  if (plan.checksums.stores) limited.checksums.stores = plan.checksums.stores;
  return limited;
}
