/**
 * The reviewed plan (issue 12, item 4): what a pull request's plan showed is what its merge applies.
 *
 * The plan run on the pull request writes a record of its plan into its comment, hidden: a digest of
 * each change (address, action, the state before and the state after) and one digest of them all.
 * On merge, the apply plans afresh and keeps only the changes whose digest the record holds; anything
 * else (new drift, another pull request's change merged meanwhile, a change the platform made to a
 * resource since the review) is refused unless the workflow allows unreviewed changes. A change whose
 * resource moved on the platform since the review gets a different digest: it is not applied blindly.
 *
 * The record is `<!-- carte-reviewed v1 head=SHA n=COUNT all=DIGEST changes=DIGESTS -->`, base64url
 * only, so that it can never close the HTML comment. `changes` is left out when it would not fit in a
 * comment (more than {@link MAX_LISTED} changes); the merge then applies the plan only when all of it is
 * what was reviewed.
 */

import { createHash } from "node:crypto";
import type { LoadedProject } from "../config/index.js";
import { UnsafePlanError } from "../errors.js";
import type { CurrentState, DesiredState } from "../model.js";
import { canonicalJson } from "../plan/checksum.js";
import { buildPlan } from "../plan/plan.js";
import type { Plan, ResourceChange } from "../plan/types.js";

/** Bytes of one change's digest in the record (72 bits: no collision within a plan in practice). */
const DIGEST_BYTES = 9;

/** Most changes listed one by one in a record (12 characters each, about 24,000 characters). */
export const MAX_LISTED = 2000;

/** What a pull request's plan showed. */
export interface ReviewedRecord {
  /** The head commit the plan was made for. */
  head: string;
  /** Number of changes of the plan. */
  count: number;
  /** Digest of all the changes ({@link planDigest}). */
  all: string;
  /** Digest of each change ({@link changeDigest}), when the plan had at most {@link MAX_LISTED}. */
  changes?: Set<string>;
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

/** The record of a plan made for commit `head` (see the module comment). */
export function reviewedRecord(plan: Plan, head: string): ReviewedRecord {
  return {
    head,
    count: plan.changes.length,
    all: planDigest(plan.changes),
    ...(plan.changes.length <= MAX_LISTED ? { changes: new Set(plan.changes.map(changeDigest)) } : {}),
  };
}

/** The hidden line that carries a record in a comment. */
export function encodeReviewed(record: ReviewedRecord): string {
  const head = /^[0-9a-f]{7,64}$/.test(record.head) ? record.head : "unknown";
  const list = record.changes
    ? ` changes=${Buffer.concat([...record.changes].map((d) => Buffer.from(d, "base64url"))).toString("base64url")}`
    : "";
  return `<!-- carte-reviewed v1 head=${head} n=${record.count} all=${record.all}${list} -->`;
}

/** Reads the record of a comment's body; undefined when it has none or it is malformed. */
export function decodeReviewed(body: string): ReviewedRecord | undefined {
  const m =
    /<!-- carte-reviewed v1 head=([0-9a-f]{7,64}|unknown) n=(\d{1,9}) all=([A-Za-z0-9_-]{43})(?: changes=([A-Za-z0-9_-]*))? -->/.exec(
      body,
    );
  if (!m) return undefined;
  const record: ReviewedRecord = { head: m[1]!, count: Number(m[2]), all: m[3]! };
  if (m[4] !== undefined) {
    const bytes = Buffer.from(m[4], "base64url");
    if (bytes.length !== record.count * DIGEST_BYTES) return undefined;
    const changes = new Set<string>();
    for (let i = 0; i < bytes.length; i += DIGEST_BYTES) {
      changes.add(bytes.subarray(i, i + DIGEST_BYTES).toString("base64url"));
    }
    record.changes = changes;
  }
  return record;
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
