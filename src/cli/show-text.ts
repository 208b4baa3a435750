/**
 * `carte show FILE` in text, a store at a time: a saved plan of format version 2 (src/plan/file-records.ts)
 * is read three times, never held whole. Memory holds the file's table of values, its stores, the
 * client's changes, the units of the view with the stores each is in (src/render/view.ts
 * `StreamedView`) and one store's changes; the text is written a store at a time, as the output
 * stream takes it.
 *
 * 1. Every record, checked as `carte show` always checked a plan (bounds, fields, digest): each store's
 *    units counted, with the stores they are in.
 * 2. The stores where a change the same in several stores is first found: those changes.
 * 3. Every store: its section, written at once.
 *
 * The text is the one src/render/text.ts `renderText` makes of the whole plan. A file whose changes
 * are not grouped by store in the order of its stores (carte writes them so; an edited file may not)
 * is shown as before, read whole.
 */

import { readPlanRounds, type PlanRounds } from "../plan/file.js";
import type { PlanStore, ResourceChange } from "../plan/types.js";
import { streamedText } from "../render/text.js";
import { CallLines, runStores, StreamedView } from "../render/view.js";
import { writeOut, type CliIo } from "./io.js";

/** A store's place in the order of the sections, or why the file cannot be shown a store at a time. */
class StoreOrder {
  private readonly known = new Map<string, number>();
  private readonly unknown = new Set<string>();
  private last = -1;
  /** The stores of the file, as they were when its first change was read. */
  private storesAtStart = -1;
  /** Whether the changes came store by store in the order of the sections. */
  ok = true;

  /** The sections of the stores named by `stores`: `stores` is read at the first change. */
  begin(stores: readonly PlanStore[]): void {
    this.storesAtStart = stores.length;
    for (const [i, s] of stores.entries()) {
      if (typeof s?.key !== "string" || s.key === "" || this.known.has(s.key)) this.ok = false;
      else this.known.set(s.key, i);
    }
  }

  get started(): boolean {
    return this.storesAtStart !== -1;
  }

  /** A store whose changes start: it must come after the one before, and not have come before. */
  next(key: string): void {
    const at = this.known.get(key);
    if (at === undefined) {
      if (this.unknown.has(key)) this.ok = false;
      this.unknown.add(key);
    } else if (at <= this.last || this.unknown.size > 0) this.ok = false;
    else this.last = at;
  }

  /** Whether the file's stores are those read at the first change. */
  end(stores: readonly PlanStore[]): void {
    if (this.started && stores.length !== this.storesAtStart) this.ok = false;
  }
}

/** The changes of one store gathered from consecutive runs, handed on when the next store starts. */
class Gather {
  private key: string | undefined;
  private list: ResourceChange[] = [];

  constructor(private readonly done: (key: string, changes: ResourceChange[]) => void | Promise<void>) {}

  /** The store being gathered. */
  get current(): string | undefined {
    return this.key;
  }

  /** A run of changes of `key`; the store before, when it is another, handed on. */
  add(key: string, changes: ResourceChange[]): void | Promise<void> {
    if (key === this.key) {
      for (const c of changes) this.list.push(c);
      return;
    }
    const before = this.flush();
    this.key = key;
    this.list = changes;
    return before;
  }

  /** Hands on the store gathered, if any. */
  flush(): void | Promise<void> {
    if (this.key === undefined) return;
    const [key, list] = [this.key, this.list];
    this.key = undefined;
    this.list = [];
    return this.done(key, list);
  }
}

/** Options of {@link showTextInRounds}. */
export interface ShowTextOptions {
  color: boolean;
  showCalls: boolean;
  /** When the plan is read (the run's clock); default the system's. */
  now?: Date | undefined;
  /** Called once the file is read and checked, before a line is written: the digest's warning. */
  checked(digestMatches: boolean): void;
}

/**
 * Writes the text view of a saved plan of format version 2 to `io`, a store at a time (see the module's
 * comment), the target it was made against first, as `carte show FILE` shows it.
 *
 * @returns false, having written nothing, when the file is not of version 2 or not grouped by store in
 *   the order of its stores: the caller shows it read whole.
 * @throws `PlanFileError` and `StalePlanError` (src/errors.ts) as src/plan/file.ts `readPlanToShow`.
 */
export async function showTextInRounds(file: string, options: ShowTextOptions, io: CliIo): Promise<boolean> {
  const now = options.now === undefined ? Date.now() : Number(options.now);
  const order = new StoreOrder();
  const segments = new Set<string>();
  const client: ResourceChange[] = [];
  let view: StreamedView | undefined;
  let calls: CallLines | undefined;
  let stores: readonly PlanStore[] = [];
  const byKey = new Map<string, PlanStore>();
  const section = (key: string) => byKey.get(key) ?? { key, name: "", storeId: "" };
  const counting = new Gather((key, changes) => view!.count(section(key), changes));
  const rounds = await readPlanRounds(file, {
    start(head, read) {
      stores = read;
      view = new StreamedView(typeof head.currency === "string" ? head.currency : undefined, now);
      const total = (head.counts as { operations?: unknown } | undefined)?.operations;
      if (options.showCalls) calls = new CallLines(typeof total === "number" ? total : 0);
    },
    changes(store, changes) {
      if (!order.started) {
        order.begin(stores);
        for (const s of stores) byKey.set(s.key, s);
      }
      for (const c of changes) segments.add(c.kind);
      if (store === "") {
        for (const c of changes) client.push(c);
        return;
      }
      if (!order.ok) return;
      if (changes.length > 0 && store !== counting.current) order.next(store);
      void counting.add(store, changes);
    },
    operation(op) {
      calls?.add(op);
    },
  });
  if (rounds === undefined) return false;
  try {
    void counting.flush();
    order.end(rounds.plan.stores);
    if (!order.ok) return false;
    options.checked(rounds.digestMatches);
    await writeSections(rounds, { view: view!, client, segments, calls, now }, options, io);
    return true;
  } finally {
    await rounds.close();
  }
}

/** Rounds 2 and 3 (see the module's comment): the changes the same in several stores, then each store. */
async function writeSections(
  rounds: PlanRounds,
  read: {
    view: StreamedView;
    client: ResourceChange[];
    segments: Set<string>;
    calls: CallLines | undefined;
    now: number;
  },
  options: ShowTextOptions,
  io: CliIo,
): Promise<void> {
  const { view } = read;
  const plan = rounds.plan;
  const byKey = new Map(plan.stores.map((s) => [s.key, s]));
  const section = (key: string) => byKey.get(key) ?? { key, name: "", storeId: "" };
  const collecting = new Gather((key, changes) => view.collect(section(key), changes));
  await rounds.again(
    (store, changes) => collecting.add(store, changes),
    (store) => view.holdsFirst(store),
  );
  await collecting.flush();
  const text = streamedText(
    plan,
    { changes: rounds.changes, segments: read.segments, calls: () => read.calls?.lines() ?? [] },
    { color: options.color, target: plan.target, showCalls: options.showCalls, now: read.now },
    { list: view.shared(), run: runStores(plan) },
  );
  await writeOut(io, [text.start()]);
  if (rounds.changes === 0) return;
  const clientView = read.client.length > 0 ? view.store(section(""), read.client) : undefined;
  if (clientView) await writeOut(io, [text.client(clientView.changes)]);
  const writing = new Gather(async (key, changes) => {
    const shown = view.store(section(key), changes);
    if (shown) await writeOut(io, [text.store(shown)]);
  });
  await rounds.again((store, changes) => (store === "" ? undefined : writing.add(store, changes)));
  await writing.flush();
  await writeOut(io, [text.end()]);
}
