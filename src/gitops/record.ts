/**
 * Run records: what a plan or drift run of the Action found, as JSON, for a later job to show. Each
 * shard of a matrix writes one (input `plan-out`), the workflow uploads it as an artifact, and the
 * `report` command merges the downloaded records into the one comment (or drift issue) a single job
 * would have written. A record holds no secret: the plan, the split, the located configuration
 * problems or the rendered error.
 */

import { readFile } from "node:fs/promises";
import { rootFor, SHARED_FILE_MODE, writeFileAtomic } from "../atomic.js";
import type { ConfigProblem } from "../errors.js";
import { PlanFileError, UsageError } from "../errors.js";
import { PLAN_FORMAT_VERSION, type Plan } from "../plan/types.js";
import type { BaseSplit } from "./base.js";
import { mergePlans, type Shard } from "./shard.js";
import type { PreviewNote } from "../render/markdown.js";

/** Version of the record format. */
export const RECORD_VERSION = 1;

/**
 * The platform (country) of carte.yaml `platforms:` a run was of, so that the report job shows each
 * platform as its own section.
 */
export interface RecordPlatform {
  /** Its name in carte.yaml (`co`). */
  name: string;
  /** Its section's heading, raw text (renderers escape it). */
  heading: string;
  /** The run's calls to the platform and those answered 2xx, when it made a session. */
  calls?: { calls: number; succeeded: number };
}

/** One run's record. */
export interface RunRecord {
  carte: "run-record";
  version: typeof RECORD_VERSION;
  /** The command that made it. */
  command: "plan" | "drift";
  /** The shard, or null for an unsharded run. */
  shard: Shard | null;
  /** The commit planned (a pull request's head commit), when known. */
  commit: string | null;
  /** The run's exit code (0, 1, 2 drift found, 3 refused by a guard). */
  exitCode: number;
  /** The plan, when one was made (also when a guard refused it). */
  plan: Plan | null;
  /** The split against the base, when compared. */
  split: BaseSplit | null;
  /** The configuration problems, when the files did not load. */
  problems: ConfigProblem[] | null;
  /** The rendered error of any other failure. */
  error: string | null;
  /**
   * Where the run went, in words (src/run/session.ts `describeTarget`), when known. Added within version 1:
   * absent in older records.
   */
  target?: string;
  /**
   * The menu preview this run uploaded, or why it could not (src/action/preview-artifact.ts), so that the
   * report job links every shard's. Added within version 1: absent in older records and in runs without one.
   */
  preview?: PreviewNote;
  /**
   * The platform of carte.yaml `platforms:` the run was of (the Action's input `platform`, one name).
   * Added within version 1: absent in older records and in runs of a project without `platforms:`.
   */
  platform?: RecordPlatform;
}

/**
 * Writes a record as JSON, atomically and never through a link, under the working directory when it
 * holds the file (src/atomic.ts).
 *
 * @throws `FileWriteError` (src/errors.ts) naming the file and the cause.
 */
export async function writeRecord(file: string, record: RunRecord): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(record) + "\n", {
    root: rootFor(file),
    purpose: "save the run record to",
    mode: SHARED_FILE_MODE,
  });
}

/** Reads and checks a record. Throws {@link PlanFileError} naming the file when it is not one. */
export async function readRecord(file: string): Promise<RunRecord> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new PlanFileError(`${file} is not a readable carte run record: ${(err as Error).message}`);
  }
  const r = data as Partial<RunRecord> | null;
  const ok =
    !!r &&
    r.carte === "run-record" &&
    r.version === RECORD_VERSION &&
    (r.command === "plan" || r.command === "drift") &&
    typeof r.exitCode === "number" &&
    (r.plan === null || (typeof r.plan === "object" && r.plan?.formatVersion === PLAN_FORMAT_VERSION)) &&
    (r.shard === null ||
      (typeof r.shard === "object" && Number.isInteger(r.shard?.index) && Number.isInteger(r.shard?.count)));
  if (
    !ok ||
    (r.preview !== undefined && !isPreviewNote(r.preview)) ||
    (r.platform !== undefined && !isRecordPlatform(r.platform))
  )
    throw new PlanFileError(`${file} is not a carte run record of version ${RECORD_VERSION}`);
  return r as RunRecord;
}

/** Most characters of a preview's address or failure in a record (a record is a file anyone may write). */
const MAX_PREVIEW_TEXT = 2_000;

/** Whether a value is a {@link PreviewNote}: a count of stores, an http(s) address and/or a failure. */
function isPreviewNote(value: unknown): value is PreviewNote {
  if (value === null || typeof value !== "object") return false;
  const n = value as Record<string, unknown>;
  const text = (v: unknown) => v === undefined || (typeof v === "string" && v.length <= MAX_PREVIEW_TEXT);
  return (
    Number.isSafeInteger(n.stores) &&
    (n.stores as number) >= 0 &&
    text(n.url) &&
    text(n.failure) &&
    (n.url === undefined || /^https?:\/\//i.test(n.url as string))
  );
}

/** Whether a value is a {@link RecordPlatform}: a platform's name, a heading of one line, counts. */
function isRecordPlatform(value: unknown): value is RecordPlatform {
  if (value === null || typeof value !== "object") return false;
  const p = value as Record<string, unknown>;
  const c = p.calls as Record<string, unknown> | undefined;
  const count = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
  return (
    typeof p.name === "string" &&
    /^[a-z][a-z0-9-]{0,30}$/.test(p.name) &&
    typeof p.heading === "string" &&
    p.heading.length <= MAX_PREVIEW_TEXT &&
    !/[\r\n]/.test(p.heading) &&
    (c === undefined ||
      (c !== null &&
        typeof c === "object" &&
        count(c.calls) &&
        count(c.succeeded) &&
        (c.succeeded as number) <= (c.calls as number)))
  );
}

/** Records merged: one run's outcome as one job would have had it. */
export interface MergedRecords {
  command: "plan" | "drift";
  commit: string | null;
  /** The worst exit code: 1 (an error) over 3 (refused) over 2 (drift) over 0. */
  exitCode: number;
  /** The merged plan, when every shard made one. */
  plan: Plan | null;
  split: BaseSplit | null;
  /** The configuration problems (the same in every shard: the files are loaded whole), deduplicated. */
  problems: ConfigProblem[] | null;
  /** Other errors, each prefixed with its shard. */
  errors: string[];
  /** Where the runs went (the first shard's record that says). */
  target?: string;
  /** The menu previews of the shards that made one, in shard order. */
  preview: PreviewNote[];
}

const worst = (codes: number[]) => {
  for (const c of [1, 3, 2]) if (codes.includes(c)) return c;
  return codes.find((c) => c !== 0) ?? 0;
};

/** The order of store keys in a merged plan, for addresses (`store[KEY]…`; client addresses last). */
function byPlanOrder(addresses: string[], plan: Plan | null): string[] {
  const rank = new Map((plan?.stores ?? []).map((s, i) => [s.key, i]));
  const storeOf = (a: string) => /^store\[([^\]]*)\]/.exec(a)?.[1];
  return addresses
    .map((a, i) => ({ a, i, r: rank.get(storeOf(a) ?? "") ?? Number.MAX_SAFE_INTEGER }))
    .sort((x, y) => x.r - y.r || x.i - y.i)
    .map((x) => x.a);
}

/**
 * Merges the records of one run's shards. Throws {@link UsageError} when there are none (the input
 * `plans` names none), {@link PlanFileError} when they mix commands, shard counts or commits, or when a
 * shard is missing or repeated, naming the shards.
 */
export function mergeRecords(records: RunRecord[]): MergedRecords {
  if (records.length === 0)
    throw new UsageError("no run record to report: check the plans input and the artifacts");
  const first = records[0]!;
  const count = first.shard?.count ?? 1;
  for (const r of records) {
    if (r.command !== first.command) throw new PlanFileError("the run records mix plan and drift runs");
    if ((r.shard?.count ?? 1) !== count)
      throw new PlanFileError("the run records come from different shard counts");
    if (r.commit !== first.commit) {
      throw new PlanFileError(`the run records are of different commits (${first.commit} and ${r.commit})`);
    }
  }
  const seen = records.map((r) => r.shard?.index ?? 1);
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((k) => !seen.includes(k));
  const repeated = seen.filter((k, i) => seen.indexOf(k) !== i);
  if (missing.length > 0 || repeated.length > 0) {
    throw new PlanFileError(
      `the run records do not hold each of the ${count} shards once` +
        (missing.length ? `; missing: ${missing.map((k) => `${k}/${count}`).join(", ")}` : "") +
        (repeated.length ? `; repeated: ${repeated.map((k) => `${k}/${count}`).join(", ")}` : ""),
    );
  }
  const sorted = [...records].sort((a, b) => (a.shard?.index ?? 1) - (b.shard?.index ?? 1));
  const plans = sorted.map((r) => r.plan);
  const plan = plans.every((p): p is Plan => p !== null) ? mergePlans(plans) : null;
  const splits = sorted.map((r) => r.split);
  let split: BaseSplit | null = null;
  if (plan && splits.every((s): s is BaseSplit => s !== null)) {
    const s0 = splits[0]!;
    split = {
      ref: s0.ref,
      sha: s0.sha,
      changes: byPlanOrder(
        splits.flatMap((s) => s.changes),
        plan,
      ),
      drift: byPlanOrder(
        splits.flatMap((s) => s.drift),
        plan,
      ),
      settled: byPlanOrder(
        splits.flatMap((s) => s.settled),
        plan,
      ),
      ...(splits.find((s) => s.unavailable)
        ? { unavailable: splits.find((s) => s.unavailable)!.unavailable! }
        : {}),
    };
  }
  const problemRecord = sorted.find((r) => r.problems && r.problems.length > 0);
  const errors = sorted
    .filter((r) => r.error)
    .map((r) => (r.shard ? `shard ${r.shard.index}/${r.shard.count}: ${r.error}` : r.error!));
  const target = sorted.map((r) => r.target).find((t): t is string => typeof t === "string");
  return {
    command: first.command,
    commit: first.commit,
    exitCode: worst(sorted.map((r) => r.exitCode)),
    plan,
    split,
    problems: problemRecord?.problems ?? null,
    errors,
    ...(target !== undefined ? { target } : {}),
    preview: sorted.flatMap((r) => (r.preview ? [r.preview] : [])),
  };
}
