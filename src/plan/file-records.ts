/**
 * The records of a plan file of format version 2 (docs/plan-format.md, "The plan file"): the plan as
 * lines of compact JSON, so that a plan of any number of stores is written and read a line at a time,
 * never as one text, and each resource is written once however many stores it goes to.
 *
 * - The first line is the head: `{"formatVersion":2,"carte":"plan",…}`, every field of the plan but
 *   its stores, changes, operations and digest, with `counts` of the records that follow.
 * - `["v",VALUE]` adds VALUE to the table of values: the n-th such line is value n. A change's
 *   `before`, `after` and `diff`, and each element of an operation's body, are written as the number
 *   of their value: a catalog item that 1,000 stores get is written once, and read as one object.
 *   Every value comes before its first use. Within a record, each value's number is written counted
 *   from the one before it (the first from -1): the runs of consecutive values stores share are
 *   written `0,0,0`.
 * - `["s",STORE]` is one of the plan's stores, in order.
 * - `["c",STORE,[…]]` is a run of the plan's changes, in order, all of the store STORE (`""` the
 *   client-level ones): a string in the list is the kind of the changes after it, and each change is
 *   `[KEY,ACTION,BEFORE,AFTER,DIFF]` (ACTION `c`, `u` or `d`; BEFORE and AFTER a value's number or
 *   null; DIFF a value's number), with a sixth element, an object, for the change's other fields
 *   (`within`, `group`, `title`, `label`, and `address` when it is not `store[STORE].KIND[KEY]`).
 * - `["o",[…]]` is a run of the operations, in order: each the operation's fields but `body`,
 *   `addresses` and `parts`, which become `B` (the values of a list body's elements) or `b` (the value
 *   of any other body), `A` (each address the number of a change counted from the one before, or the
 *   address itself when it is no change of the plan) and `P` (`[[STORE,VALUE],…]`).
 * - The last line is `{"digest":"sha256:…"}`, the SHA-256 of every byte before it: a byte changed
 *   anywhere makes the file's digest differ.
 *
 * Encoding is exact: reading the records gives back a plan equal to the one written.
 */

import { address as storeAddress } from "../plain-data.js";
import type { Operation, Plan, PlanStore, ResourceChange } from "./types.js";

/** The format version of the plan file written as records. */
export const PLAN_FILE_VERSION = 2;

/** The first characters of a plan file of version 2, as carte writes it. */
export const RECORDS_PREFIX = `{"formatVersion":${PLAN_FILE_VERSION},`;

/** Changes in one `c` record at most, and operations in one `o` record: lines stay short. */
const RUN = 2000;

const ACTIONS = { create: "c", update: "u", delete: "d" } as const;
const ACTION_OF = new Map<unknown, ResourceChange["action"]>([
  ["c", "create"],
  ["u", "update"],
  ["d", "delete"],
]);

/** The fields of a change its row holds by position: its other fields (`address` aside) hold none. */
const TUPLE_FIELDS = new Set(["address", "store", "kind", "key", "action", "before", "after", "diff"]);

/** The address a change of `store`, `kind` and `key` has when nothing else is said. */
export function changeAddress(store: string, kind: string, key: string): string {
  // One flat string each (src/plain-data.ts `address`): a plan read from a file holds millions.
  return store === "" ? ["client.", kind, "[", key, "]"].join("") : storeAddress(store, kind, key);
}

/** The table of values being written: each distinct value once, by its JSON text. */
class ValueTable {
  private readonly byObject = new Map<unknown, number>();
  private readonly byText = new Map<string, number>();
  private size = 0;
  /** The `v` lines of values added since the last {@link ValueTable.take}. */
  private fresh: string[] = [];

  /**
   * The number of `value` in the table, added when new. `shared`: the value is an object the plan
   * shares between stores (a change's resources and diffs, src/plan/plan.ts): it is then also found by
   * identity, its text made once; the elements of calls' bodies are made per store, and only found by
   * their text (an index of millions of objects would cost more than it saves).
   */
  ref(value: unknown, shared = true): number {
    const isObject = shared && typeof value === "object" && value !== null;
    if (isObject) {
      const known = this.byObject.get(value);
      if (known !== undefined) return known;
    }
    const text = JSON.stringify(value ?? null);
    let n = this.byText.get(text);
    if (n === undefined) {
      n = this.size++;
      this.byText.set(text, n);
      this.fresh.push(`["v",${text}]\n`);
    }
    if (isObject) this.byObject.set(value, n);
    return n;
  }

  /** The `v` lines added since the last call. */
  take(): string {
    const lines = this.fresh.join("");
    this.fresh = [];
    return lines;
  }

  get count(): number {
    return this.size;
  }
}

/** Numbers of values as a record writes them, each counted from the one before it (see the module's comment). */
class Refs {
  private previous = -1;
  /** The written form of value `n`. */
  out(n: number): number {
    const delta = n - this.previous - 1;
    this.previous = n;
    return delta;
  }
  /** The value number of a written form, or -1 when it is not a whole number. */
  in(delta: unknown): number {
    if (!Number.isSafeInteger(delta)) return -1;
    return (this.previous = this.previous + 1 + (delta as number));
  }
}

/** A change as written in a `c` record (see the module's comment). */
function encodeChange(c: ResourceChange, values: ValueTable, refs: Refs): unknown[] {
  const { address, store, kind, key, action, before, after, diff, ...rest } = c;
  const extra: Record<string, unknown> = { ...rest };
  if (address !== changeAddress(store, kind, key)) extra.address = address;
  const row: unknown[] = [
    key,
    ACTIONS[action],
    before === null || before === undefined ? null : refs.out(values.ref(before)),
    after === null || after === undefined ? null : refs.out(values.ref(after)),
    refs.out(values.ref(diff)),
  ];
  if (Object.keys(extra).length > 0) row.push(extra);
  return row;
}

/** Changes of a store past which {@link ChangeFinder} indexes them instead of looking through them. */
const SCANNED = 4096;

/**
 * Finds the change of an operation's address without an index of every address (which a plan of
 * millions of changes would hold on top of itself): the change after the one before it, as an upsert
 * lists them, else a look through the changes of the store the address names (an index of them for a
 * store of more than {@link SCANNED}). An address not found is written as it is: never wrong, only
 * longer.
 */
class ChangeFinder {
  /** The runs of consecutive changes of each store, `[start, end)`. */
  private readonly runs = new Map<string, [number, number][]>();
  /** The index of the changes of each store of more than {@link SCANNED}, made when first needed. */
  private readonly indexes = new Map<string, Map<string, number>>();

  constructor(private readonly changes: readonly ResourceChange[]) {}

  /** Notes that the changes from `start` to `end` are of `store`. */
  run(store: string, start: number, end: number): void {
    const list = this.runs.get(store);
    if (list) list.push([start, end]);
    else this.runs.set(store, [[start, end]]);
  }

  /** The index of a change with `address`, trying `next` first; -1 when none is found. */
  find(address: string, next: number): number {
    if (this.changes[next]?.address === address) return next;
    const store = address.startsWith("client.")
      ? ""
      : address.startsWith("store[")
        ? address.slice(6, address.indexOf("].", 6))
        : undefined;
    const runs = store === undefined ? undefined : this.runs.get(store);
    if (!runs) return -1;
    if (runs.reduce((n, [start, end]) => n + end - start, 0) > SCANNED) {
      let index = this.indexes.get(store!);
      if (!index) {
        index = new Map();
        for (const [start, end] of runs)
          for (let i = start; i < end; i++)
            if (!index.has(this.changes[i]!.address)) index.set(this.changes[i]!.address, i);
        this.indexes.set(store!, index);
      }
      return index.get(address) ?? -1;
    }
    for (const [start, end] of runs)
      for (let i = start; i < end; i++) if (this.changes[i]!.address === address) return i;
    return -1;
  }
}

/** An operation as written in an `o` record (see the module's comment). */
function encodeOperation(
  op: Operation,
  values: ValueTable,
  changes: ChangeFinder,
  refs: Refs,
): Record<string, unknown> {
  const { body, addresses, parts, ...rest } = op;
  const out: Record<string, unknown> = { ...rest };
  if (Array.isArray(body)) out.B = body.map((e) => refs.out(values.ref(e, false)));
  else if (body !== undefined) out.b = refs.out(values.ref(body, false));
  let previous = -1;
  out.A = addresses.map((a) => {
    const i = changes.find(a, previous + 1);
    if (i === -1) return a;
    const delta = i - previous - 1;
    previous = i;
    return delta;
  });
  if (parts !== undefined) out.P = parts.map((p) => [p.store, refs.out(values.ref(p.element, false))]);
  return out;
}

/**
 * The lines of a plan file of version 2, in order, in chunks of about a megabyte, the digest's line
 * last. The plan is read, never changed; the table of values holds each distinct value's text once.
 */
export function* planRecords(plan: Plan, hash: (chunk: string) => void): Generator<string> {
  const { stores, changes, operations, digest: _digest, formatVersion: _v, ...head } = plan;
  const values = new ValueTable();
  let chunk = "";
  const flush = function* (force: boolean): Generator<string> {
    if (chunk.length === 0 || (!force && chunk.length < 1 << 20)) return;
    hash(chunk);
    yield chunk;
    chunk = "";
  };
  chunk +=
    JSON.stringify({
      formatVersion: PLAN_FILE_VERSION,
      carte: "plan",
      ...head,
      counts: { stores: stores.length, changes: changes.length, operations: operations.length },
    }) + "\n";
  for (const s of stores) chunk += `["s",${JSON.stringify(s)}]\n`;
  const finder = new ChangeFinder(changes);
  for (let i = 0; i < changes.length;) {
    const store = changes[i]!.store;
    const start = i;
    const run: unknown[] = [];
    const refs = new Refs();
    let kind: string | undefined;
    for (let n = 0; i < changes.length && changes[i]!.store === store && n < RUN; i++, n++) {
      const c = changes[i]!;
      if (c.kind !== kind) run.push((kind = c.kind));
      run.push(encodeChange(c, values, refs));
    }
    finder.run(store, start, i);
    const text = `["c",${JSON.stringify(store)},${JSON.stringify(run)}]\n`;
    chunk += values.take() + text;
    yield* flush(false);
  }
  for (let i = 0; i < operations.length; i += RUN) {
    const refs = new Refs();
    const run = operations.slice(i, i + RUN).map((op) => encodeOperation(op, values, finder, refs));
    chunk += values.take() + `["o",${JSON.stringify(run)}]\n`;
    yield* flush(false);
  }
  yield* flush(true);
}

/** What the reader of records has gathered so far. */
export interface RecordReader {
  /** The plan's stores read so far, as the file gives them (checked by the caller). */
  readonly stores: readonly PlanStore[];
  /** Takes the next line (without its newline), parsed; refuses it when it is not a record. */
  add(record: unknown, line: number): void;
  /**
   * The plan, once every record is in; refuses the file when records are missing. `handedOn`: the
   * numbers of changes and operations a {@link recordStream} read and did not keep (the plan then has none).
   */
  finish(handedOn?: { changes: number; operations: number }): Plan;
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Makes a value read from a file unchangeable: it may be shared by thousands of changes. */
function freeze(value: unknown): unknown {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) freeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * One operation of an `o` record (see the module's comment), its values taken by `value` (the record's
 * running numbers), its addresses those of `changes` (read before it: how many, and the address of each).
 */
function decodeOperation(
  o: unknown,
  line: number,
  changes: { readonly length: number; address(i: number): string },
  value: (written: unknown) => unknown,
  refuse: (problem: string) => never,
): Operation {
  if (!isObj(o) || !Array.isArray(o.A))
    refuse(`line ${line}: an operation must be an object with its addresses A`);
  const { B, b, A, P, ...rest } = o as Record<string, unknown> & { A: unknown[] };
  const op = { ...rest } as Record<string, unknown>;
  if (Array.isArray(B)) op.body = B.map((r) => value(r));
  else if (b !== undefined) op.body = value(b);
  let previous = -1;
  op.addresses = A.map((a) => {
    if (typeof a === "string") return a;
    const i = previous + 1 + (a as number);
    if (!Number.isSafeInteger(a) || i < 0 || i >= changes.length)
      refuse(`line ${line}: an operation's address is not a change of the plan`);
    previous = i;
    return changes.address(i);
  });
  if (P !== undefined) {
    if (!Array.isArray(P) || !P.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === "string"))
      refuse(`line ${line}: an operation's parts must be [[STORE, VALUE], ...]`);
    op.parts = (P as unknown[][]).map((p) => ({ store: p[0], element: value(p[1]) }));
  }
  return op as unknown as Operation;
}

/** The value a record names by `written` (its running number, {@link Refs}), refused when there is none. */
function valueOf(
  values: readonly unknown[],
  refs: Refs,
  written: unknown,
  line: number,
  refuse: (problem: string) => never,
): unknown {
  const n = refs.in(written);
  if (n < 0 || n >= values.length)
    refuse(`line ${line}: a value's number is not one of the values before it`);
  return values[n];
}

/**
 * The changes of a `c` record (see the module's comment), each handed to `onChange` in order, their
 * values taken from `values`, their keys through `key` (which keeps each text once). Refuses a record
 * not of that form, at the first change that is not.
 */
function decodeChanges(
  store: unknown,
  run: unknown,
  line: number,
  values: readonly unknown[],
  key: (text: string) => string,
  refuse: (problem: string) => never,
  onChange: (change: ResourceChange) => void,
): void {
  if (typeof store !== "string" || !Array.isArray(run))
    refuse(`line ${line}: a run of changes must be ["c", STORE, [...]]`);
  let kind: string | undefined;
  const refs = new Refs();
  const value = (written: unknown): unknown => valueOf(values, refs, written, line, refuse);
  for (const row of run as unknown[]) {
    if (typeof row === "string") {
      kind = row;
      continue;
    }
    const action = Array.isArray(row) ? ACTION_OF.get(row[1]) : undefined;
    if (
      !Array.isArray(row) ||
      kind === undefined ||
      typeof row[0] !== "string" ||
      action === undefined ||
      (row.length !== 5 && !(row.length === 6 && isObj(row[5])))
    )
      refuse(`line ${line}: a change must be [KEY, ACTION, BEFORE, AFTER, DIFF] after its kind`);
    const cells = row as unknown[];
    const extra = (cells[5] ?? {}) as Record<string, unknown>;
    if (Object.keys(extra).some((k) => k !== "address" && TUPLE_FIELDS.has(k)))
      refuse(`line ${line}: a change's other fields repeat one of its own`);
    const k = key(cells[0] as string);
    const change: ResourceChange = {
      address: changeAddress(store as string, kind!, k),
      store: store as string,
      kind: kind as ResourceChange["kind"],
      key: k,
      action: action!,
      before: cells[2] === null ? null : value(cells[2]),
      after: cells[3] === null ? null : value(cells[3]),
      diff: value(cells[4]) as ResourceChange["diff"],
    };
    onChange(cells.length === 6 ? ({ ...change, ...extra } as ResourceChange) : change);
  }
}

/**
 * A function that gives back, for each text, the first equal text it was given: the keys and
 * addresses read repeat in every store (`ITEM-0001`), and each is then kept once.
 */
function textInterner(): (text: string) => string {
  const texts = new Map<string, string>();
  return (text) => {
    const known = texts.get(text);
    if (known !== undefined) return known;
    texts.set(text, text);
    return text;
  };
}

/**
 * A reader of the records after the head (the digest's line excluded), which rebuilds the plan. Each
 * record is checked for its form as it comes; the plan's fields are checked afterwards by the caller,
 * as those of a plan of version 1 are. `refuse` gets what is wrong and on which line, never quoting it.
 */
export function recordReader(
  head: Record<string, unknown>,
  refuse: (problem: string) => never,
): RecordReader {
  const counts = head.counts;
  if (
    !isObj(counts) ||
    !["stores", "changes", "operations"].every(
      (k) => Number.isSafeInteger(counts[k]) && (counts[k] as number) >= 0,
    )
  )
    refuse("line 1: counts must hold the numbers of stores, changes and operations");
  const values: unknown[] = [];
  // Keys repeat in every store (`ITEM-0001`): each text is kept once.
  const shared = textInterner();
  const stores: PlanStore[] = [];
  const changes: ResourceChange[] = [];
  const operations: Operation[] = [];
  const value = (refs: Refs, written: unknown, line: number): unknown =>
    valueOf(values, refs, written, line, refuse);
  const more = (what: string, line: number, n: number, max: number): void => {
    if (n > max) refuse(`line ${line}: more ${what} than the head counts`);
  };
  const readChanges = (store: unknown, run: unknown, line: number): void => {
    decodeChanges(store, run, line, values, shared, refuse, (change) => {
      changes.push(change);
      more("changes", line, changes.length, counts.changes as number);
    });
  };
  const addresses = {
    get length() {
      return changes.length;
    },
    address: (i: number) => changes[i]!.address,
  };
  const readOperations = (run: unknown, line: number): void => {
    if (!Array.isArray(run)) refuse(`line ${line}: a run of operations must be ["o", [...]]`);
    const refs = new Refs();
    for (const o of run) {
      const op = decodeOperation(o, line, addresses, (r) => value(refs, r, line), refuse);
      operations.push(op);
      more("operations", line, operations.length, counts.operations as number);
    }
  };
  return {
    stores,
    add(record, line) {
      if (!Array.isArray(record) || typeof record[0] !== "string")
        refuse(`line ${line} is not a record of a plan file`);
      const [type, a, b] = record;
      if (type === "v" && record.length === 2) values.push(freeze(a));
      else if (type === "s" && record.length === 2) {
        stores.push(a as PlanStore);
        more("stores", line, stores.length, counts.stores as number);
      } else if (type === "c" && record.length === 3) readChanges(a, b, line);
      else if (type === "o" && record.length === 2) readOperations(a, line);
      else refuse(`line ${line} is not a record of a plan file`);
    },
    finish(handedOn) {
      if (
        stores.length !== counts.stores ||
        (handedOn?.changes ?? changes.length) !== counts.changes ||
        (handedOn?.operations ?? operations.length) !== counts.operations
      )
        refuse("it ends before all its stores, changes and operations (cut short?)");
      const { formatVersion: _v, carte: _c, counts: _n, ...rest } = head;
      return { formatVersion: 1, ...rest, stores, changes, operations } as unknown as Plan;
    },
  };
}

/** What {@link recordStream} hands on as it reads. */
export interface RecordHandlers {
  /**
   * The head (line 1, not yet checked), and the plan's stores as they are read (the list grows): before
   * any other record.
   */
  start?(head: Record<string, unknown>, stores: readonly PlanStore[]): void;
  /** A `c` record: changes of one store (`""` the client's), in the plan's order. */
  changes(store: string, changes: ResourceChange[], line: number): void;
  /**
   * An operation, in the plan's order. Its addresses are not kept: each that names a change of the
   * plan is `""` (how many it carries is all a view of the calls reads).
   */
  operation(op: Operation, line: number): void;
}

/** A reader of the records of a plan file that keeps its values and stores, never its changes and calls. */
export interface RecordStream {
  /** Takes the next line (without its newline), parsed, as {@link RecordReader.add} does. */
  add(record: unknown, line: number): void;
  /**
   * The plan's fields, its stores, and no change nor call, once every record is in; refuses the file
   * when records are missing, as {@link RecordReader.finish} does.
   */
  finish(): Plan;
  /**
   * A `c` record read again, after {@link RecordStream.finish} (the file read once more, the same
   * bytes): its changes to `onChanges`, their values those kept. Other records are left alone.
   */
  again(record: unknown, line: number, onChanges: ChangesAgain): void | Promise<void>;
}

/** What gets the changes of a `c` record read again ({@link RecordStream.again}); the reading waits for its promise. */
export type ChangesAgain = (store: string, changes: ResourceChange[], line: number) => void | Promise<void>;

/**
 * A reader of the records after the head, as {@link recordReader}, that hands each run of changes and
 * each operation on as it reads them instead of keeping them: memory holds the table of values and the
 * stores, whatever the number of changes.
 */
export function recordStream(
  head: Record<string, unknown>,
  refuse: (problem: string) => never,
  handlers: RecordHandlers,
  inner: RecordReader = recordReader(head, refuse),
): RecordStream {
  const counts = head.counts as Record<string, number>;
  const values: unknown[] = [];
  const shared = textInterner();
  let changes = 0;
  let operations = 0;
  const addresses = {
    get length() {
      return changes;
    },
    address: () => "",
  };
  handlers.start?.(head, inner.stores);
  const decode = (store: unknown, run: unknown, line: number, onChanges: ChangesAgain, count = true) => {
    const list: ResourceChange[] = [];
    decodeChanges(store, run, line, values, shared, refuse, (change) => {
      list.push(change);
      if (count && ++changes > counts.changes!) refuse(`line ${line}: more changes than the head counts`);
    });
    return onChanges(store as string, list, line);
  };
  return {
    add(record, line) {
      if (!Array.isArray(record) || typeof record[0] !== "string")
        refuse(`line ${line} is not a record of a plan file`);
      const [type, a, b] = record;
      if (type === "v" && record.length === 2) values.push(freeze(a));
      else if (type === "c" && record.length === 3) void decode(a, b, line, handlers.changes);
      else if (type === "o" && record.length === 2) {
        if (!Array.isArray(a)) refuse(`line ${line}: a run of operations must be ["o", [...]]`);
        const refs = new Refs();
        for (const o of a) {
          const op = decodeOperation(
            o,
            line,
            addresses,
            (r) => valueOf(values, refs, r, line, refuse),
            refuse,
          );
          if (++operations > counts.operations!) refuse(`line ${line}: more operations than the head counts`);
          handlers.operation(op, line);
        }
      } else inner.add(record, line);
    },
    finish() {
      if (changes !== counts.changes || operations !== counts.operations)
        refuse("it ends before all its stores, changes and operations (cut short?)");
      return inner.finish({ changes: counts.changes!, operations: counts.operations! });
    },
    again(record, line, onChanges) {
      if (Array.isArray(record) && record[0] === "c" && record.length === 3)
        return decode(record[1], record[2], line, onChanges, false);
    },
  };
}
