/**
 * Saved plan files (`carte plan --out plan.json`, `carte apply plan.json`): the plan data as JSON,
 * with the checksums of the current and desired states it was computed from and the digest of the
 * whole plan (docs/plan-format.md, src/plan/digest.ts).
 *
 * A plan file is input like any other: anyone who can write it may have. It is read within bounds
 * (docs/security.md, "Saved plans"): a regular file only, tested before it is opened and opened without
 * blocking (a FIFO or a device never hangs the run), at most {@link MAX_PLAN_FILE_BYTES} bytes (checked
 * before a byte is read), strict UTF-8, JSON nested at most {@link MAX_PLAN_DEPTH} levels (counted
 * without recursion before parsing, so that nothing overflows the stack), and no message quotes its
 * content.
 */

import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";
import { rootFor, SHARED_FILE_MODE, writeFileAtomic } from "../atomic.js";
import { PlanFileError, StalePlanError } from "../errors.js";
import { SEGMENT_NAMES, isKindName } from "../kinds/registry.js";
import { hasValidDigest } from "./digest.js";
import {
  planRecords,
  recordReader,
  recordStream,
  RECORDS_PREFIX,
  PLAN_FILE_VERSION,
  type ChangesAgain,
  type RecordHandlers,
  type RecordStream,
} from "./file-records.js";
import { resourceProblem } from "./shapes.js";
import { PLAN_FORMAT_VERSION, type Plan } from "./types.js";

/**
 * Writes a plan file of format version 2 (src/plan/file-records.ts): compact records, each resource
 * once, the digest of every byte last; written as it is made, never as one text, atomically and never
 * through a link (src/atomic.ts): a full disk or a kill leaves the old file or the new one; the file is
 * readable by others as files usually are (as the umask lets them), since it holds no secret.
 *
 * @param root - the folder the file must stay under; default {@link rootFor} of the file (the working
 *   directory when it holds it).
 * @throws `FileWriteError` (src/errors.ts) naming the file: a link in its place or on its way, or the file
 *   system's error (`could not save the plan to plan.json: no space left on device (ENOSPC)`).
 */
export async function writePlanFile(file: string, plan: Plan, root: string = rootFor(file)): Promise<void> {
  await writeFileAtomic(file, planFileChunks(plan), {
    root,
    purpose: "save the plan to",
    mode: SHARED_FILE_MODE,
  });
}

/** The text of a plan file of version 2, in chunks: its records, then the line of their digest. */
function* planFileChunks(plan: Plan): Generator<string> {
  const hash = createHash("sha256");
  yield* planRecords(plan, (chunk) => hash.update(chunk, "utf8"));
  yield `{"digest":"sha256:${hash.digest("hex")}"}\n`;
}

/**
 * The most bytes of a plan file of format version 2 `carte show`, `carte preview --plan` and `carte
 * apply FILE` read: 1 GiB. A plan that uploads the benchmark's catalog (616 entries) to 10,000 empty
 * stores takes 326 MB (docs/performance.md, "Saved plans"); a plan of routine changes, far less.
 * The file is read a line at a time: memory holds the plan, each distinct resource once, not the text;
 * `carte show FILE` in text holds the values and one store's changes ({@link readPlanRounds}).
 */
export const MAX_PLAN_FILE_BYTES = 1024 * 1024 * 1024;

/**
 * The most bytes of a plan of format version 1 (one JSON document, read and parsed as one text), and
 * of one line of a plan file of version 2: 64 MiB. Parsing takes about ten times that in memory.
 */
export const MAX_PLAN_JSON_BYTES = 64 * 1024 * 1024;

/** The deepest nesting of a plan file's JSON (a plan of the example chain nests 10 levels). */
export const MAX_PLAN_DEPTH = 100;

/** 1-based line and column (in UTF-16 units) of a position of a text. */
function lineCol(text: string, index: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: index - start + 1 };
}

/**
 * Where a JSON text first nests deeper than `max` arrays and objects, or -1. One pass without
 * recursion; brackets inside strings are skipped. The text need not be valid JSON.
 */
export function tooDeepAt(text: string, max: number): number {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: to its closing quote, a backslash escaping the character after it.
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return -1;
}

/** Why a file could not be opened or tested, in words, never its content. */
function ioProblem(file: string, err: unknown): PlanFileError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return new PlanFileError(`${file}: no such file`);
  if (code === "EACCES" || code === "EPERM") return new PlanFileError(`${file}: permission denied`);
  if (code === "ENOTDIR")
    return new PlanFileError(`${file}: no such file (a part of the path is not a folder)`);
  return new PlanFileError(`${file} cannot be read (${code ?? "error"})`);
}

function notRegular(file: string): PlanFileError {
  return new PlanFileError(
    `${file} is not a regular file (a folder, a FIFO or a device): name a plan saved by carte plan --out`,
  );
}

function tooLarge(file: string, size: number, max: number = MAX_PLAN_FILE_BYTES): PlanFileError {
  const limit =
    max === MAX_PLAN_FILE_BYTES
      ? `the ${MAX_PLAN_FILE_BYTES / 1024 ** 3} GiB a plan file may hold`
      : `the ${max / 1024 ** 2} MiB a plan of format version 1 may hold (carte plan --out writes version 2)`;
  return new PlanFileError(
    `${file} is ${size} bytes, more than ${limit}; ` +
      "it was not read (save smaller plans: per stage with --stage, or per store with --store)",
  );
}

/** What a plan file holds: a plan of version 2, read and checked for its digest, or the parsed JSON of any other. */
type PlanData = { records: true; plan: Plan; digestMatches: boolean } | { records: false; data: unknown };

/**
 * Reads a plan file within the bounds above: a file of version 2 (it starts as carte writes one) a
 * line at a time ({@link readRecords}), any other file as one JSON text of at most
 * {@link MAX_PLAN_JSON_BYTES}. Never quotes the file's content.
 *
 * @throws {@link PlanFileError} when the file does not exist or cannot be read, is not a regular file, is
 *   larger than its bound, is not UTF-8, nests deeper than {@link MAX_PLAN_DEPTH} levels, is not JSON
 *   (with the line and column when known) or, of version 2, is not made of a plan's records.
 */
async function readPlanData(file: string): Promise<PlanData> {
  const { handle, records } = await openPlan(file);
  try {
    if (records) return { records: true, ...(await readRecords(file, handle)) };
    const size = (await handle.stat()).size;
    if (size > MAX_PLAN_JSON_BYTES) throw tooLarge(file, size, MAX_PLAN_JSON_BYTES);
    return { records: false, data: parseJson(file, await readWhole(file, handle)) };
  } catch (err) {
    if (err instanceof PlanFileError) throw err;
    throw ioProblem(file, err);
  } finally {
    await handle.close();
  }
}

/**
 * Opens a plan file within the bounds above (a regular file, at most {@link MAX_PLAN_FILE_BYTES}), and
 * tells whether it starts as carte writes a file of version 2. The caller closes the handle.
 *
 * @throws {@link PlanFileError} as {@link readPlanData}.
 */
async function openPlan(file: string): Promise<{ handle: FileHandle; records: boolean }> {
  // Tested before it is opened: a FIFO or a device is refused without being opened at all.
  let info;
  try {
    info = await stat(file);
  } catch (err) {
    throw ioProblem(file, err);
  }
  if (!info.isFile()) throw notRegular(file);
  if (info.size > MAX_PLAN_FILE_BYTES) throw tooLarge(file, info.size);
  let handle;
  try {
    // Without blocking, and tested again once open: the name may lead elsewhere by now.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw ioProblem(file, err);
  }
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) throw notRegular(file);
    if (opened.size > MAX_PLAN_FILE_BYTES) throw tooLarge(file, opened.size);
    const start = Buffer.alloc(RECORDS_PREFIX.length);
    const { bytesRead } = await handle.read(start, 0, start.length, 0);
    return { handle, records: start.subarray(0, bytesRead).toString("latin1") === RECORDS_PREFIX };
  } catch (err) {
    await handle.close();
    if (err instanceof PlanFileError) throw err;
    throw ioProblem(file, err);
  }
}

/** The bytes of a file of at most {@link MAX_PLAN_JSON_BYTES}, checked as they are read (it may grow). */
async function readWhole(file: string, handle: FileHandle): Promise<Buffer> {
  // At most one byte more than the limit, in case the file grows while it is read.
  const buffer = Buffer.alloc(Math.min((await handle.stat()).size, MAX_PLAN_JSON_BYTES) + 1);
  let length = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0 || (length += bytesRead) === buffer.length) break;
  }
  if (length > MAX_PLAN_JSON_BYTES) throw tooLarge(file, length, MAX_PLAN_JSON_BYTES);
  return buffer.subarray(0, length);
}

/** A text of JSON parsed, or refused in words located by line and column (`line` counts lines before it). */
function parseJson(file: string, bytes: Buffer, firstLine = 1): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new PlanFileError(
      `${file} is not a carte plan (not UTF-8 text${firstLine > 1 ? ` at line ${firstLine}` : ""})`,
    );
  }
  const deep = tooDeepAt(text, MAX_PLAN_DEPTH);
  if (deep !== -1) {
    const { line, col } = lineCol(text, deep);
    throw new PlanFileError(
      `${file} is not a carte plan (nested deeper than ${MAX_PLAN_DEPTH} levels at line ${line + firstLine - 1}, column ${col})`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    // The parser's message quotes the text: only the position is taken from it.
    const message = err instanceof Error ? err.message : "";
    const at = /at position (\d+)/.exec(message);
    const lc = /\(line (\d+) column (\d+)\)/.exec(message);
    const where = lc
      ? `: line ${Number(lc[1]) + firstLine - 1}, column ${lc[2]}`
      : at
        ? (({ line, col }) => `: line ${line + firstLine - 1}, column ${col}`)(lineCol(text, Number(at[1])))
        : /end of JSON input/.test(message)
          ? firstLine > 1
            ? `: line ${firstLine} ends too early`
            : ": it ends too early"
          : "";
    throw new PlanFileError(`${file} is not a carte plan (not JSON${where})`);
  }
}

/** Bytes read from a plan file of version 2 at a time. */
const READ_CHUNK = 1 << 20;

/**
 * Reads a plan file of version 2 a line at a time (src/plan/file-records.ts): each line strict UTF-8,
 * at most {@link MAX_PLAN_JSON_BYTES}, nested at most {@link MAX_PLAN_DEPTH} levels, and a record of a
 * plan; the SHA-256 of every byte before the digest's line computed as they come. The whole text is
 * never held: memory holds the plan, its values shared by the changes and calls that name them.
 */
async function readRecords(
  file: string,
  handle: FileHandle,
  makeReader: (
    head: Record<string, unknown>,
    refuse: (problem: string) => never,
  ) => { add(record: unknown, line: number): void; finish(): Plan } = recordReader,
): Promise<{ plan: Plan; digestMatches: boolean; hash: string }> {
  const hash = createHash("sha256");
  let reader: ReturnType<typeof makeReader> | undefined;
  let digest: string | undefined;
  let lineNo = 0;
  const refuse = (problem: string): never => {
    throw new PlanFileError(`${file} is not a carte plan (${problem})`);
  };
  const onLine = (bytes: Buffer, newline: boolean): void => {
    lineNo++;
    if (digest !== undefined) refuse(`line ${lineNo} comes after the digest, which ends the file`);
    const record = parseJson(file, bytes, lineNo);
    if (reader === undefined) {
      if (!isObject(record) || record.formatVersion !== PLAN_FILE_VERSION)
        refuse("line 1 is not the head of a plan");
      reader = makeReader(record as Record<string, unknown>, refuse);
    } else if (isObject(record) && typeof record.digest === "string" && Object.keys(record).length === 1) {
      digest = record.digest;
      return;
    } else reader.add(record, lineNo);
    hash.update(bytes);
    if (newline) hash.update("\n");
  };
  try {
    await eachLine(file, handle, onLine, refuse, () => lineNo);
    if (reader === undefined) refuse("it is empty");
    const sum = `sha256:${hash.digest("hex")}`;
    return { plan: reader!.finish(), digestMatches: digest === sum, hash: sum };
  } catch (err) {
    if (err instanceof PlanFileError) throw err;
    throw ioProblem(file, err);
  }
}

/**
 * Hands each line of a plan file of version 2 to `onLine` (its bytes without the line feed, and
 * whether one ended it), reading {@link READ_CHUNK} bytes at a time: at most
 * {@link MAX_PLAN_FILE_BYTES} in all and {@link MAX_PLAN_JSON_BYTES} a line.
 */
async function eachLine(
  file: string,
  handle: FileHandle,
  onLine: (bytes: Buffer, newline: boolean) => void | Promise<void>,
  refuse: (problem: string) => never,
  linesRead: () => number,
): Promise<void> {
  const buffer = Buffer.alloc(READ_CHUNK);
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let position = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    if ((position += bytesRead) > MAX_PLAN_FILE_BYTES) throw tooLarge(file, position);
    const read = buffer.subarray(0, bytesRead);
    let start = 0;
    for (let nl = read.indexOf(10); nl !== -1; nl = read.indexOf(10, start)) {
      const piece = read.subarray(start, nl);
      // A line's handler that returns a promise is waited for (it writes what it made, say).
      const waiting = onLine(pendingLength > 0 ? Buffer.concat([...pending, piece]) : piece, true);
      if (waiting) await waiting;
      pending = [];
      pendingLength = 0;
      start = nl + 1;
    }
    if (start < read.length) {
      pending.push(Buffer.from(read.subarray(start)));
      if ((pendingLength += read.length - start) > MAX_PLAN_JSON_BYTES)
        refuse(`line ${linesRead() + 1} is longer than ${MAX_PLAN_JSON_BYTES / 1024 ** 2} MiB`);
    }
  }
  if (pendingLength > 0) await onLine(Buffer.concat(pending), false);
}

/** Whether parsed JSON is an object (not a list). */
function isObject(data: unknown): data is Record<string, unknown> {
  return typeof data === "object" && data !== null && !Array.isArray(data);
}

/** The longest `target` a plan file may carry (a host, or the emulator's state folder). */
const MAX_TARGET_LENGTH = 1000;

/**
 * What is wrong with the fields of a plan that its readers read (the views, the preview, the apply of a
 * saved plan), checked on a file whose digest does not vouch for it, located by path and index, never
 * by the file's words; `undefined` when nothing is.
 */
function planShapeProblem(plan: Record<string, unknown>): string | undefined {
  const first = storesProblem(plan);
  if (first) return first;
  if (!Array.isArray(plan.changes))
    return "changes must be a list of {address, store, kind, key, action, diff}";
  for (let i = 0; i < plan.changes.length; i++) {
    const problem = changeProblem(plan.changes[i], `changes[${i}]`);
    if (problem) return problem;
  }
  if (!Array.isArray(plan.operations) || !plan.operations.every(isOperationShape)) return OPERATIONS_PROBLEM;
  return headProblem(plan);
}

const OPERATIONS_PROBLEM = "operations must be a list of {endpoint, method, path, stores, addresses}";

/** What is wrong with a plan's stores and target, which {@link planShapeProblem} checks first. */
function storesProblem(plan: Record<string, unknown>): string | undefined {
  const str = (v: unknown) => typeof v === "string";
  if (!Array.isArray(plan.stores) || !plan.stores.every((s) => isObject(s) && str(s.key) && str(s.name)))
    return "stores must be a list of {key, storeId, name}";
  if (plan.target !== undefined && (!str(plan.target) || (plan.target as string).length > MAX_TARGET_LENGTH))
    return `target must be a text of at most ${MAX_TARGET_LENGTH} characters`;
  return undefined;
}

/** Whether one operation read from a file has the fields the views read. */
function isOperationShape(o: unknown): boolean {
  const str = (v: unknown) => typeof v === "string";
  return (
    isObject(o) &&
    str(o.endpoint) &&
    str(o.method) &&
    str(o.path) &&
    Array.isArray(o.stores) &&
    o.stores.every(str) &&
    Array.isArray(o.addresses) &&
    o.addresses.every(str)
  );
}

/** What is wrong with the fields of a plan {@link planShapeProblem} checks after its changes and calls. */
function headProblem(plan: Record<string, unknown>): string | undefined {
  const isObj = isObject;
  const str = (v: unknown) => typeof v === "string";
  const summary = plan.summary;
  if (
    !isObj(summary) ||
    !["create", "update", "delete", "operations", "stores"].every((k) => typeof summary[k] === "number")
  )
    return "summary must hold the counts create, update, delete, operations and stores";
  const safety = plan.safety;
  if (!isObj(safety) || typeof safety.ok !== "boolean" || !Array.isArray(safety.violations))
    return "safety must be {ok, violations}";
  if (!safety.violations.every((v) => isObj(v) && str(v.guard) && str(v.message)))
    return "safety.violations must be a list of {guard, message}";
  if (safety.override !== undefined && !(isObj(safety.override) && str(safety.override.reason)))
    return "safety.override must be {reason}";
  const t = plan.targeting;
  if (
    t !== undefined &&
    !(isObj(t) && [t.stores, t.kinds, t.targets].every((l) => Array.isArray(l) && l.every(str)))
  )
    return "targeting must be {stores, kinds, targets}";
  if (
    t !== undefined &&
    !(t.kinds as string[]).every((k) => (SEGMENT_NAMES as readonly string[]).includes(k))
  )
    return "targeting.kinds must name address segments (item, menu, …)";
  if (t !== undefined && t.scope !== undefined) {
    const problem = scopeShapeProblem(t.scope);
    if (problem) return `targeting.scope ${problem}`;
  }
  const sums = plan.checksums;
  if (
    !isObj(sums) ||
    !str(sums.current) ||
    !str(sums.desired) ||
    (sums.stores !== undefined && !(isObj(sums.stores) && Object.values(sums.stores).every(str))) ||
    (sums.files !== undefined && !(isObj(sums.files) && Object.values(sums.files).every(str)))
  )
    return "checksums must be {current, desired, stores, files}";
  if (plan.stage !== undefined && !str(plan.stage)) return "stage must be a string";
  if (plan.platform !== undefined && !(str(plan.platform) && /^[a-z][a-z0-9-]{0,30}$/.test(plan.platform)))
    return "platform must be a platform name of carte.yaml platforms:";
  if (plan.rehearsal !== undefined && typeof plan.rehearsal !== "boolean")
    return "rehearsal must be true or false";
  if (plan.currency !== undefined && !str(plan.currency)) return "currency must be a string";
  if (
    plan.info !== undefined &&
    !(
      Array.isArray(plan.info) &&
      plan.info.every((i) => isObj(i) && str(i.store) && str(i.kind) && str(i.message))
    )
  )
    return "info must be a list of {store, kind, message}";
  if (
    plan.rotateSecrets !== undefined &&
    !(
      Array.isArray(plan.rotateSecrets) &&
      plan.rotateSecrets.every((r) => isObj(r) && str(r.event) && str(r.since))
    )
  )
    return "rotateSecrets must be a list of {event, since}";
  return undefined;
}

/**
 * What is wrong with one change read from a file, located under `at` (`changes[3]`), if anything: its
 * fields, and its `before` and `after` of the shape of its kind (src/plan/shapes.ts), which the views,
 * the preview and the comparison of `carte apply FILE` read.
 */
function changeProblem(c: unknown, at: string): string | undefined {
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  const str = (v: unknown) => typeof v === "string";
  if (!isObj(c)) return `${at} must be a change {address, store, kind, key, action, diff}`;
  for (const field of ["address", "store", "kind", "key"])
    if (!str(c[field])) return `${at}.${field} must be a string`;
  if (!(SEGMENT_NAMES as readonly string[]).includes(c.kind as string))
    return `${at}.kind must name an address segment (item, menu, …)`;
  if (c.action !== "create" && c.action !== "update" && c.action !== "delete")
    return `${at}.action must be create, update or delete`;
  if (!Array.isArray(c.diff) || !c.diff.every((d) => isObj(d) && str(d.attribute)))
    return `${at}.diff must be a list of {attribute, before, after}`;
  if (c.within !== undefined && !(Array.isArray(c.within) && c.within.every(str)))
    return `${at}.within must be a list of strings`;
  for (const field of ["group", "title", "label"])
    if (c[field] !== undefined && !str(c[field])) return `${at}.${field} must be a string`;
  return resourceProblem(c.kind as string, c.action, c.before, c.after, at);
}

/** What is wrong with a change scope read from a file (src/plan/target.ts `ChangeScope`), if anything. */
function scopeShapeProblem(scope: unknown): string | undefined {
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  const str = (v: unknown) => typeof v === "string";
  const kindList = (v: unknown) => Array.isArray(v) && v.every((k) => str(k) && isKindName(k as string));
  if (!isObj(scope) || !str(scope.base) || !str(scope.sha) || typeof scope.of !== "number")
    return "must be {base, sha, of, stores, client, removed, reads}";
  if (
    !Array.isArray(scope.stores) ||
    !scope.stores.every((s) => isObj(s) && str(s.store) && kindList(s.kinds))
  )
    return "stores must be a list of {store, kinds}";
  if (!kindList(scope.client)) return "client must be a list of kinds";
  if (
    !Array.isArray(scope.removed) ||
    !scope.removed.every(
      (r) => isObj(r) && str(r.store) && str(r.storeId) && str(r.name) && kindList(r.kinds),
    )
  )
    return "removed must be a list of {store, storeId, name, kinds}";
  if (!Array.isArray(scope.reads) || !scope.reads.every(str)) return "reads must be a list of names";
  return undefined;
}

/**
 * Reads a saved plan to show it (`carte show FILE`), without calling the platform. Unlike
 * {@link readPlanFile}, a plan whose content no longer matches its digest (edited, or not saved by
 * carte) is still returned, with `digestMatches: false`, so that it can be shown with a warning. Its
 * shape is checked field by field either way: a digest vouches for nothing (anyone can compute one).
 *
 * @throws {@link PlanFileError} when the file cannot be read within bounds or is not JSON
 *   ({@link readPlanJson}); {@link StalePlanError} when it is not a plan of this format version or
 *   lacks what a plan view shows.
 */
export async function readPlanToShow(file: string): Promise<{ plan: Plan; digestMatches: boolean }> {
  const read = await readPlanData(file);
  if (!read.records && !isPlanObject(read.data)) {
    throw new StalePlanError(
      `${file} is not a carte plan of format version ${PLAN_FORMAT_VERSION} or ${PLAN_FILE_VERSION} (saved by \`carte plan --out\` or printed by \`carte plan --json\`)`,
    );
  }
  const plan = (read.records ? read.plan : read.data) as unknown as Record<string, unknown>;
  const problem = planShapeProblem(plan);
  if (problem) throw new StalePlanError(`${file} is not a plan carte can show: ${problem}`);
  const digestMatches = read.records ? read.digestMatches : hasValidDigest(plan as unknown as Plan);
  return { plan: plan as unknown as Plan, digestMatches };
}

/** Whether parsed JSON is a plan of format version 1 (one JSON document). */
function isPlanObject(data: unknown): data is Record<string, unknown> {
  return isObject(data) && data.formatVersion === PLAN_FORMAT_VERSION;
}

/**
 * Reads a plan file for `carte apply FILE`. The plan returned is never carried out as it is: its
 * changes are what a fresh plan must equal (src/run/saved-plan.ts `checkSavedPlan`), its checksums, targeting
 * and stage what the fresh plan is checked against and limited to. Its digest is checked as a guard
 * against accidents (a plan edited by hand), not against someone who can write the file.
 *
 * @throws {@link PlanFileError} when the file cannot be read within bounds or is not JSON
 *   ({@link readPlanJson}); {@link StalePlanError} when it is not a plan of this format version, lacks
 *   a field the apply reads, or does not match its digest (edited, or not saved by carte): refused
 *   before any call.
 */
export async function readPlanFile(file: string): Promise<Plan> {
  const read = await readPlanData(file);
  if (!read.records && !isPlanObject(read.data)) {
    throw new StalePlanError(
      `${file} is not a carte plan of format version ${PLAN_FORMAT_VERSION} or ${PLAN_FILE_VERSION}; run \`carte plan --out ${file}\` again`,
    );
  }
  const plan = (read.records ? read.plan : read.data) as unknown as Record<string, unknown>;
  const problem = planShapeProblem(plan);
  if (problem) throw new StalePlanError(`${file} is not a plan carte can apply: ${problem}`);
  if (read.records ? !read.digestMatches : !hasValidDigest(plan as unknown as Plan)) {
    throw new StalePlanError(
      `${file} was changed after carte saved it (its content does not match its digest), or it was not ` +
        `saved by carte plan --out; nothing was applied. Run \`carte plan --out ${file}\` again and review it`,
    );
  }
  return plan as unknown as Plan;
}

/** A saved plan read a store at a time ({@link readPlanRounds}). */
export interface PlanRounds {
  /** The plan's fields and its stores, with no change nor call (`changes` and `operations` empty). */
  plan: Plan;
  /** How many changes the file holds. */
  changes: number;
  /** Whether the file matches its digest (see {@link readPlanToShow}). */
  digestMatches: boolean;
  /**
   * Reads the file once more, handing each run of changes (those of one store, in order) to
   * `onChanges`; with `only`, the runs of the other stores are not decoded.
   *
   * @throws {@link PlanFileError} when the file changed since it was first read.
   */
  again(onChanges: ChangesAgain, only?: (store: string) => boolean): Promise<void>;
  /** Closes the file. */
  close(): Promise<void>;
}

/** A plan file whose bytes changed between two reads of {@link readPlanRounds}. */
function changedWhileRead(file: string): PlanFileError {
  return new PlanFileError(`${file} changed while it was read; show it again`);
}

/** Whether an error is the file system's (it has an error code), not a fault of the code. */
function isIoError(err: unknown): boolean {
  return typeof (err as NodeJS.ErrnoException | undefined)?.code === "string";
}

/** The store of a `c` line, read without parsing the rest of it; `undefined` when it is not one. */
function storeOfLine(bytes: Buffer): string | undefined {
  const prefix = '["c","';
  if (bytes.length < prefix.length || bytes.toString("latin1", 0, prefix.length) !== prefix) return undefined;
  for (let i = prefix.length; i < bytes.length; i++) {
    if (bytes[i] === 0x5c) i++;
    else if (bytes[i] === 0x22) return JSON.parse(bytes.toString("utf8", prefix.length - 1, i + 1)) as string;
  }
  return undefined;
}

/**
 * Reads a saved plan of format version 2 to show it a store at a time (`carte show FILE`): one read
 * of the whole file, line by line, which checks it as {@link readPlanToShow} does (bounds, records,
 * the fields of every change and call, its digest) and hands each run of changes and each call on as
 * it comes (only those that passed the checks); then {@link PlanRounds.again} reads it again as often
 * as asked. Memory holds the table of values and the stores, never the plan's changes or calls.
 *
 * @returns `undefined` when the file is not of version 2 (a plan of version 1 is one JSON document:
 *   {@link readPlanToShow} reads it).
 * @throws {@link PlanFileError} and {@link StalePlanError} as {@link readPlanToShow}, with the same words.
 */
export async function readPlanRounds(
  file: string,
  handlers: RecordHandlers,
): Promise<PlanRounds | undefined> {
  const { handle, records } = await openPlan(file);
  if (!records) {
    await handle.close();
    return undefined;
  }
  let problem: string | undefined;
  let stream: RecordStream | undefined;
  let changes = 0;
  let inner: ReturnType<typeof recordReader> | undefined;
  // Each change and call checked before it is handed on; after the first problem, nothing more is.
  const checked: RecordHandlers = {
    ...(handlers.start ? { start: handlers.start } : {}),
    changes(store, list, line) {
      if (problem !== undefined) return;
      const stores = inner!.stores;
      if (changes === 0) problem = storesProblem({ stores });
      for (let i = 0; problem === undefined && i < list.length; i++)
        problem = changeProblem(list[i], `changes[${changes + i}]`);
      changes += list.length;
      if (problem === undefined) handlers.changes(store, list, line);
    },
    operation(op, line) {
      if (problem !== undefined) return;
      if (!isOperationShape(op)) problem = OPERATIONS_PROBLEM;
      else handlers.operation(op, line);
    },
  };
  try {
    const read = await readRecords(file, handle, (head, refuse) => {
      inner = recordReader(head, refuse);
      return (stream = recordStream(head, refuse, checked, inner));
    });
    const plan = read.plan as unknown as Record<string, unknown>;
    problem = storesProblem(plan) ?? problem ?? headProblem(plan);
    if (problem) throw new StalePlanError(`${file} is not a plan carte can show: ${problem}`);
    // What the file was when it was checked: a round that fails on a file changed since says so.
    const checkedAs = await handle.stat();
    const changed = async (): Promise<boolean> => {
      const now = await handle.stat();
      return now.size !== checkedAs.size || now.mtimeMs !== checkedAs.mtimeMs;
    };
    const again = async (onChanges: ChangesAgain, only?: (store: string) => boolean) => {
      const hash = createHash("sha256");
      let lineNo = 0;
      let done = false;
      const refuse = (what: string): never => {
        throw new PlanFileError(`${file} is not a carte plan (${what})`);
      };
      const onLine = (bytes: Buffer, newline: boolean): void | Promise<void> => {
        lineNo++;
        if (done) return;
        // The digest's line ends the file (as it was checked): its bytes are not in the digest.
        if (bytes.toString("latin1", 0, 11) === '{"digest":"') {
          done = true;
          return;
        }
        hash.update(bytes);
        if (newline) hash.update("\n");
        if (lineNo === 1) return;
        const store = storeOfLine(bytes);
        if (store !== undefined && only && !only(store)) return;
        // A line carte did not write so is parsed to know what it is (a run of changes, or other records).
        if (store === undefined && /^\["[vso]",/.test(bytes.toString("latin1", 0, 5))) return;
        const record = parseJson(file, bytes, lineNo);
        if (only && !(Array.isArray(record) && typeof record[1] === "string" && only(record[1]))) return;
        return stream!.again(record, lineNo, onChanges);
      };
      await eachLine(file, handle, onLine, refuse, () => lineNo);
      if (`sha256:${hash.digest("hex")}` !== read.hash) throw changedWhileRead(file);
    };
    return {
      plan: read.plan,
      changes: changes,
      digestMatches: read.digestMatches,
      again: async (onChanges, only) => {
        try {
          await again(onChanges, only);
        } catch (err) {
          if (await changed().catch(() => true)) throw changedWhileRead(file);
          if (err instanceof PlanFileError || !isIoError(err)) throw err;
          throw ioProblem(file, err);
        }
      },
      close: () => handle.close(),
    };
  } catch (err) {
    await handle.close();
    throw err;
  }
}
