/**
 * The plan for people: a presentation model built from a {@link Plan}, which the text
 * and Markdown renderers only lay out. Pure; computes nothing against the platform, only reads the
 * plan's changes (`before`, `after`, `diff`). Each kind shows its own changes (src/kinds/show.ts
 * `KindView`, with the words of src/show/words.ts); this module gathers them store by store and across
 * stores, and names no kind.
 *
 * - A change that is the same in several stores is described once, with the stores it is made in
 *   ({@link PlanView.shared}), `in all 40 stores` when they are every store of the plan
 *   ({@link PlanView.run}); what differs stays under each store. An update is split into its detail
 *   lines for this: a price change shared by every store is shown once even when one store also gets a
 *   new title.
 * - Everything is in the files' terms (`modifier_groups`, `options`, `type`, `option prices`), never
 *   the platform's field names (`children`, `modifiersType`, `priceInParent`), which only the JSON plan
 *   holds. SKUs carry their titles (`BURGER-DOUBLE (Hamburguesa Doble)`).
 * - Lists show what moved (`+ BURGER-X at 3`, `- BURGER-Y`, `BURGER-Z moved to 1`), nested values the
 *   paths that changed (microdiff); options come under their modifier group; hours in weekday order with
 *   slots as `11:00-22:00`; a holiday without slots as `closed on 12-25`; a special day the files date
 *   fully with its year (`2026-12-24`); prices in the plan's currency, an option's price in a parent
 *   under that parent.
 * - A store that gets many resources at once (a new store) shows its creates as counts per kind.
 * - A long list of API calls ({@link callLines}) shows consecutive calls of one endpoint on one line.
 *
 * Every string of the model is raw: it holds SKUs, titles, URLs and names from the files or the
 * platform, and each renderer escapes it for its medium (src/render/escape.ts).
 */

import { currencyOf } from "../money.js";
import { canonicalZone } from "../time/zone.js";
import { kindOfSegment, nounsOf } from "../kinds/registry.js";
import type { KindView } from "../kinds/show.js";
import type { Operation, Plan, ResourceChange } from "../plan/types.js";
import {
  detailText,
  fieldOf,
  LAST_ORDER,
  type ChangeView,
  type ViewContext,
  type ViewEntry,
} from "../show/view-model.js";
import { attributeDetails } from "../show/words.js";

export { detailText, headText, type ChangeView, type Detail } from "../show/view-model.js";
export { daysText, listMoves } from "../show/words.js";

/** Most store keys named beside a shared change; the others are counted (`and 4 more`). */
export const MAX_STORES_NAMED = 5;

/**
 * A store whose plan creates (or deletes) more resources than this shows them as counts per kind
 * (`+ 42 items: A, B, … and 39 more`) rather than one by one; the JSON plan keeps every detail.
 */
export const MASS_CHANGE_THRESHOLD = 20;

/** Kinds with at most this many creates (deletes) in such a store are still shown one by one. */
const MASS_KIND_MIN = 4;

/** Most keys named in a count line. */
const MAX_KEYS_NAMED = 5;

/**
 * One line under a change: `label: before → after` (both set), `label: value` (`after` only), or the
 * bare `label` (`closed`).
/** A change the same in several stores. */
export interface SharedChange {
  /** Store keys, in plan order. */
  stores: string[];
  change: ChangeView;
}

/** The changes of one store (key `""`: the client-level settings), what is not shared. */
export interface StoreView {
  key: string;
  name: string;
  storeId: string;
  changes: ChangeView[];
}

/**
 * The stores a plan runs over, for the words of a shared change: one made in each of them is `in all
 * N stores`.
 */
export interface RunStores {
  /** How many stores the plan covers: its stores in scope (`Plan.stores`), the client aside. */
  count: number;
  /**
   * The plan covers part of the chain's stores only (`--store`, `--target`, a change scope, a rollout
   * stage): `all` then speaks of this plan's stores (`in all 3 stores of this plan`).
   */
  limited: boolean;
}

/** The presentation model of a plan. */
export interface PlanView {
  /** Changes the same in two stores or more, shown once. */
  shared: SharedChange[];
  /** Per store, what is left: the client settings first, then stores in plan order; none empty. */
  stores: StoreView[];
  /** The stores of the run, from the plan (never from the files). */
  run: RunStores;
}

/**
 * `in 3 stores: a, b, c` (at most {@link MAX_STORES_NAMED} keys, then `and K more`); `in all 40 stores`
 * (`in both stores`) when the stores are every store of the run (`run`, {@link PlanView.run}).
 */
export function storesText(stores: readonly string[], run?: RunStores): string {
  if (run !== undefined && run.count >= 2 && stores.length === run.count)
    return `in ${run.count === 2 ? "both" : `all ${run.count}`} stores${run.limited ? " of this plan" : ""}`;
  const named = stores.slice(0, MAX_STORES_NAMED).join(", ");
  const more = stores.length > MAX_STORES_NAMED ? ` and ${stores.length - MAX_STORES_NAMED} more` : "";
  return `in ${stores.length} stores: ${named}${more}`;
}

// ── One change ───────────────────────────────────────────────────────────────────────────────────────

/** The view a change's kind declares, `undefined` for a segment no kind (or no view) names. */
function viewOf(ch: ResourceChange): KindView | undefined {
  return kindOfSegment(ch.kind)?.view;
}

/** The words of a change's resources, as its kind declares them (`option`: an item under a group). */
function nounOf(ch: ResourceChange): readonly [string, string] {
  const nouns = viewOf(ch)?.noun?.(ch) ?? nounsOf(ch.kind);
  return nouns ?? [ch.kind, `${ch.kind} changes`];
}

/**
 * The entries of one change of a store, as its kind shows it; a change of a kind without a view of its
 * own as its attributes, nested values as paths, after every other kind's.
 */
function changeEntries(ch: ResourceChange, ctx: ViewContext): ViewEntry[] {
  const shown = viewOf(ch)?.change?.(ch, ctx);
  if (shown) return shown;
  const create = ch.action === "create";
  const view: ChangeView = { action: ch.action, details: [], head: `${ch.kind} ${ch.key}` };
  for (const d of ch.diff) view.details.push(...attributeDetails(d.attribute, d.before, d.after, create));
  return [{ order: LAST_ORDER, sort: `${ch.kind}\u0000${ch.key}`, view }];
}

/**
 * The changes of one store as entries: those of a kind that shows them together gathered, and, in a
 * store with many creates (or deletes), those of the numerous kinds as one count line each.
 */
function storeEntries(changes: ResourceChange[], ctx: ViewContext): ViewEntry[] {
  const entries: ViewEntry[] = [];
  const gathered = new Map<KindView, ResourceChange[]>();
  let rest: ResourceChange[] = [];
  for (const c of changes) {
    const view = viewOf(c);
    if (view?.store) gathered.set(view, [...(gathered.get(view) ?? []), c]);
    else rest.push(c);
  }
  for (const action of ["create", "delete"] as const) {
    const mass = rest.filter((c) => c.action === action);
    if (mass.length <= MASS_CHANGE_THRESHOLD) continue;
    const byNoun = new Map<
      string,
      { plural: string; sample: ResourceChange; keys: string[]; changes: ResourceChange[] }
    >();
    for (const c of mass) {
      const [one, many] = nounOf(c);
      const g = byNoun.get(one) ?? { plural: many, sample: c, keys: [], changes: [] };
      g.keys.push(c.key);
      g.changes.push(c);
      byNoun.set(one, g);
    }
    for (const [one, g] of byNoun) {
      if (g.keys.length < MASS_KIND_MIN) continue;
      const shown = g.keys.slice(0, MAX_KEYS_NAMED).join(", ");
      const more = g.keys.length > MAX_KEYS_NAMED ? ` and ${g.keys.length - MAX_KEYS_NAMED} more` : "";
      const first = changeEntries(g.sample, ctx)[0]!;
      entries.push({
        order: first.order,
        sort: first.sort,
        view: {
          action,
          head: `${g.keys.length} ${g.plural}: ${shown}${more}`,
          // What the kind lists under the count (a new item's price).
          details: viewOf(g.sample)?.manyDetails?.(g.changes, ctx) ?? [],
        },
      });
      const done = new Set(g.keys);
      rest = rest.filter((c) => !(c.action === action && nounOf(c)[0] === one && done.has(c.key)));
    }
  }
  for (const c of rest) entries.push(...changeEntries(c, ctx));
  for (const [view, list] of gathered) entries.push(view.store!(list, ctx));
  entries.sort((a, b) => a.order - b.order || (a.sort < b.sort ? -1 : a.sort > b.sort ? 1 : 0));
  return entries;
}

// ── Across stores ────────────────────────────────────────────────────────────────────────────────────

/** A change split into what can be shared: each detail of an update, a create or delete whole. */
interface Unit {
  store: string;
  /** Position of its change in its store, and of the unit in the change. */
  at: [number, number];
  /** Order of its change among the kinds, then in its kind (see {@link ViewEntry}). */
  order: [number, string];
  /** What identifies the unit across stores (the title aside). */
  id: string;
  view: ChangeView;
}

function unitsOf(store: string, entries: ViewEntry[]): Unit[] {
  const out: Unit[] = [];
  entries.forEach((e, i) => {
    const v = e.view;
    const head = `${v.action}\u0000${v.head}\u0000${v.summary ?? ""}\u0000${v.within ?? ""}\u0000${v.under ?? ""}`;
    const order: [number, string] = [e.order, e.sort];
    if (v.action === "update" && v.details.length > 1) {
      v.details.forEach((d, j) =>
        out.push({
          store,
          at: [i, j],
          order,
          id: `${head}\u0000${detailText(d)}`,
          view: { ...v, details: [d] },
        }),
      );
    } else {
      out.push({
        store,
        at: [i, 0],
        order,
        id: `${head}\u0000${v.details.map(detailText).join("\u0000")}`,
        view: v,
      });
    }
  });
  return out;
}

/** Units back into changes: consecutive units of one change joined. */
function joinUnits(units: Unit[]): ChangeView[] {
  const out: ChangeView[] = [];
  let last: Unit | undefined;
  for (const u of units) {
    if (
      last &&
      last.at[0] === u.at[0] &&
      last.view.head === u.view.head &&
      last.view.action === u.view.action
    ) {
      out[out.length - 1]!.details.push(...u.view.details);
    } else out.push({ ...u.view, details: [...u.view.details] });
    last = u;
  }
  return out;
}

/**
 * The files' name of a model attribute of an item or modifier group, for people (the platform's names
 * stay in `--json`): `children` → `modifier_groups` (of an item) or `options` (of a group),
 * `modifiersType` → `type`, `priceInParent.PARENT` → `price in PARENT`; any other name as it is.
 */
export function attributeLabel(attribute: string, isGroup: boolean): string {
  if (attribute === "children") return isGroup ? "options" : "modifier_groups";
  if (attribute === "modifiersType") return "type";
  if (attribute.startsWith("priceInParent.")) return `price in ${attribute.slice("priceInParent.".length)}`;
  return attribute;
}

/**
 * Builds the presentation model of a plan (see the module's comment), of all its changes or of `changes`
 * (a part of them: this branch's own, the drift). Pure.
 *
 * @param now - when the view is read (ms since the epoch; default: the system's clock): instants are
 *   said relative to that day on each store's clock (`18:00 GMT-5 (today)`).
 */
export function buildView(
  plan: Plan,
  changes: readonly ResourceChange[] = plan.changes,
  now: number = Date.now(),
): PlanView {
  const money = plan.currency === undefined ? undefined : currencyOf(plan.currency);
  const byStore = new Map<string, ResourceChange[]>();
  for (const ch of changes) {
    const list = byStore.get(ch.store);
    if (list) list.push(ch);
    else byStore.set(ch.store, [ch]);
  }
  const sections = [
    { key: "", name: "", storeId: "" },
    ...plan.stores.filter((s) => s.key !== ""),
    // Changes of a store the plan's list leaves out (a hand-edited plan) are still shown.
    ...[...byStore.keys()]
      .filter((k) => k !== "" && !plan.stores.some((s) => s.key === k))
      .map((key) => ({ key, name: "", storeId: "" })),
  ].filter((s) => byStore.has(s.key));

  const unitsByStore = new Map<string, Unit[]>();
  for (const s of sections) unitsByStore.set(s.key, sectionUnits(s, byStore.get(s.key)!, money, now));

  // Units found in two stores or more (never the client's), in the order they first appear.
  const storesOf = new Map<string, Unit[]>();
  for (const s of sections) {
    if (s.key === "") continue;
    for (const u of unitsByStore.get(s.key)!) {
      const list = storesOf.get(u.id);
      if (list) {
        if (list[list.length - 1]!.store !== u.store) list.push(u);
      } else storesOf.set(u.id, [u]);
    }
  }
  const isShared = (id: string) => (storesOf.get(id)?.length ?? 0) >= 2;

  // Shared units, joined into changes when they belong to one change and go to the same stores.
  const shared: (SharedChange & { order: [number, string] })[] = [];
  const seen = new Set<string>();
  for (const s of sections) {
    if (s.key === "") continue;
    const units = unitsByStore.get(s.key)!.filter((u) => isShared(u.id) && !seen.has(u.id));
    for (const u of units) seen.add(u.id);
    // One change per change of this store and set of stores (a change's details may go to different sets).
    const groups = new Map<string, { stores: string[]; units: Unit[] }>();
    for (const u of units) {
      const all = storesOf.get(u.id)!;
      const stores = all.map((x) => x.store);
      const titles = new Set(all.map((x) => x.view.title));
      const view: ChangeView = { ...u.view };
      if (titles.size !== 1) delete view.title;
      const key = `${u.at[0]}\u0000${stores.join("\u0000")}`;
      const group = groups.get(key) ?? { stores, units: [] };
      group.units.push({ ...u, view });
      groups.set(key, group);
    }
    for (const g of groups.values())
      for (const change of joinUnits(g.units))
        shared.push({ stores: g.stores, change, order: g.units[0]!.order });
  }
  // In the order of the kinds, whichever store a change was first found in.
  shared.sort(
    (a, b) => a.order[0] - b.order[0] || (a.order[1] < b.order[1] ? -1 : a.order[1] > b.order[1] ? 1 : 0),
  );

  const stores: StoreView[] = [];
  for (const s of sections) {
    const left = unitsByStore.get(s.key)!.filter((u) => s.key === "" || !isShared(u.id));
    if (left.length === 0) continue;
    stores.push({ key: s.key, name: s.name, storeId: s.storeId, changes: joinUnits(left) });
  }
  for (const list of [shared.map((x) => x.change), ...stores.map((s) => s.changes)]) nestOptions(list);
  return {
    shared: shared.map(({ stores, change }) => ({ stores, change })),
    stores,
    run: runStores(plan),
  };
}

/** A section of the view: a store of the plan, or the client settings (key `""`). */
type Section = { key: string; name: string; storeId: string; timeZone?: string | undefined };

/** The units of the changes of one section (its changes all of that store, in plan order). */
function sectionUnits(
  s: Section,
  changes: ResourceChange[],
  money: ReturnType<typeof currencyOf> | undefined,
  now: number,
): Unit[] {
  const titles = new Map<string, string>();
  for (const c of changes) {
    const t = fieldOf(c.after, "title") ?? fieldOf(c.before, "title");
    if (typeof t === "string" && t !== "" && viewOf(c)?.names) titles.set(c.key, t);
  }
  const zone = "timeZone" in s && typeof s.timeZone === "string" ? canonicalZone(s.timeZone) : undefined;
  return unitsOf(s.key, storeEntries(changes, { money, titles, zone, now }));
}

/**
 * An option right after its group's change (or after another option of it) is listed under it;
 * elsewhere it says which group it is in. Changes the views of `list` in place.
 */
function nestOptions(list: ChangeView[]): void {
  list.forEach((c, i) => {
    if (c.under === undefined) return;
    const prev = list[i - 1];
    const owner =
      prev !== undefined &&
      ((prev.lists === c.under && prev.action !== "delete") || (prev.nested && prev.under === c.under));
    if (owner) {
      // Under its group's line, which says where the group sits: the option's path would repeat it.
      c.nested = true;
      delete c.within;
    } else if (c.within === undefined) c.within = c.under;
  });
}

/** What a view read store by store knows of a unit: the stores it is in, and whether their titles agree. */
interface UnitStores {
  /** Positions of the stores, in order, each once. */
  stores: number[];
  /** The title of the unit in the first store, and whether another store's differs. */
  title: string | undefined;
  mixed: boolean;
}

/**
 * The presentation model of {@link buildView} made store by store, for a plan read from a file a store
 * at a time (src/cli/show-text.ts): the same changes in several stores, what is left in each store. Its
 * memory holds, for each distinct unit (a change, or one detail of an update), the positions of the
 * stores it is in; never the changes of more than the store at hand.
 *
 * Read in three rounds, the stores each time in the same order (the client's changes, key `""`, at any
 * place): {@link StreamedView.count} every store; then {@link StreamedView.collect} those
 * {@link StreamedView.holdsFirst} names, after which {@link StreamedView.shared} is the changes the
 * same in several stores; then {@link StreamedView.store} each store, its section. Gives what
 * {@link buildView} gives for a plan of these stores, when each store's changes are read whole and in
 * the plan's order of stores (`Plan.stores`, then stores it does not list, as first found).
 */
export class StreamedView {
  private readonly money: ReturnType<typeof currencyOf> | undefined;
  private readonly ids = new Map<string, UnitStores>();
  private readonly positions = new Map<string, number>();
  private readonly sharedList: (SharedChange & { order: [number, string] })[] = [];
  private readonly seen = new Set<string>();
  /** The stores a shared unit is first found in. */
  private firsts: Set<number> | undefined;
  /** The keys of the stores by position, once round 1 is over. */
  private keys: string[] | undefined;

  /**
   * @param currency - the plan's (`Plan.currency`), to write prices in.
   * @param now - when the view is read, ms since the epoch (see {@link buildView}).
   */
  constructor(
    currency: string | undefined,
    private readonly now: number = Date.now(),
  ) {
    this.money = currency === undefined ? undefined : currencyOf(currency);
  }

  /** Round 1: a store's changes (never the client's), in the order of the stores. */
  count(s: Section, changes: ResourceChange[]): void {
    const at = this.positions.size;
    this.positions.set(s.key, at);
    for (const u of sectionUnits(s, changes, this.money, this.now)) {
      const known = this.ids.get(u.id);
      if (known === undefined) this.ids.set(u.id, { stores: [at], title: u.view.title, mixed: false });
      else if (known.stores[known.stores.length - 1] !== at) {
        known.stores.push(at);
        if (u.view.title !== known.title) known.mixed = true;
      }
    }
  }

  /** Whether store `key` holds a unit first found there that is in other stores too (round 2 reads it). */
  holdsFirst(key: string): boolean {
    if (this.firsts === undefined) {
      this.firsts = new Set();
      for (const u of this.ids.values()) if (u.stores.length >= 2) this.firsts.add(u.stores[0]!);
    }
    const at = this.positions.get(key);
    return at !== undefined && this.firsts.has(at);
  }

  private isShared(id: string): boolean {
    return (this.ids.get(id)?.stores.length ?? 0) >= 2;
  }

  /** Round 2: a store {@link StreamedView.holdsFirst} names, its changes. */
  collect(s: Section, changes: ResourceChange[]): void {
    const units = sectionUnits(s, changes, this.money, this.now).filter(
      (u) => this.isShared(u.id) && !this.seen.has(u.id),
    );
    for (const u of units) this.seen.add(u.id);
    const keys = (this.keys ??= [...this.positions.keys()]);
    const groups = new Map<string, { stores: number[]; units: Unit[] }>();
    for (const u of units) {
      const known = this.ids.get(u.id)!;
      const view: ChangeView = { ...u.view };
      if (known.mixed) delete view.title;
      const key = `${u.at[0]}\u0000${known.stores.join("\u0000")}`;
      const group = groups.get(key) ?? { stores: known.stores, units: [] };
      group.units.push({ ...u, view });
      groups.set(key, group);
    }
    for (const g of groups.values())
      for (const change of joinUnits(g.units))
        this.sharedList.push({ stores: g.stores.map((p) => keys[p]!), change, order: g.units[0]!.order });
  }

  /** After round 2: the changes the same in several stores ({@link PlanView.shared}). */
  shared(): SharedChange[] {
    const list = [...this.sharedList].sort(
      (a, b) => a.order[0] - b.order[0] || (a.order[1] < b.order[1] ? -1 : a.order[1] > b.order[1] ? 1 : 0),
    );
    nestOptions(list.map((x) => x.change));
    return list.map(({ stores, change }) => ({ stores, change }));
  }

  /** Round 3: a store's section (the client's too), what is not shared; `undefined` when nothing is left. */
  store(s: Section, changes: ResourceChange[]): StoreView | undefined {
    const left = sectionUnits(s, changes, this.money, this.now).filter(
      (u) => s.key === "" || !this.isShared(u.id),
    );
    if (left.length === 0) return undefined;
    const view = { key: s.key, name: s.name, storeId: s.storeId, changes: joinUnits(left) };
    nestOptions(view.changes);
    return view;
  }
}

/** The stores a plan runs over ({@link RunStores}). */
export function runStores(plan: Plan): RunStores {
  return {
    count: plan.stores.filter((s) => s.key !== "").length,
    // `--kind` leaves every store in; store and address patterns, a change scope or a stage do not.
    limited:
      (plan.targeting?.stores.length ?? 0) > 0 ||
      (plan.targeting?.targets.length ?? 0) > 0 ||
      plan.targeting?.scope !== undefined ||
      plan.stage !== undefined,
  };
}

/**
 * The plan's information about stores (`Plan.info`, not changes), each message once with the stores it
 * is about, in the order first found: `upcoming item SEASONAL-HOGAO: …` `in all 6 stores` rather than
 * six times. Raw text: renderers escape it.
 *
 * @returns each message with its store keys and, for more than one store, their words
 *   ({@link storesText}); for one store, `where` is `store[KEY]`.
 */
export function infoNotes(plan: Plan): { message: string; stores: string[]; where: string }[] {
  const byMessage = new Map<string, string[]>();
  for (const i of plan.info ?? []) {
    const stores = byMessage.get(i.message);
    if (stores === undefined) byMessage.set(i.message, [i.store]);
    else if (!stores.includes(i.store)) stores.push(i.store);
  }
  const run = runStores(plan);
  return [...byMessage].map(([message, stores]) => ({
    message,
    stores,
    where: stores.length === 1 ? `store[${stores[0]!}]` : storesText(stores, run),
  }));
}

// ── API calls ────────────────────────────────────────────────────────────────────────────────────────

/** A line of the API calls of a plan: one call, or consecutive calls of one endpoint. */
export interface CallLine {
  /** 1-based numbers of the first and last call of the line. */
  first: number;
  last: number;
  method: string;
  /** The path; for several calls, the segments that differ as `*`. */
  path: string;
  /** Store keys the calls touch, in order, each once. */
  stores: string[];
  /** Changes the calls carry out. */
  changes: number;
}

/** Above this many calls, consecutive calls of one endpoint are listed on one line. */
export const MAX_CALLS_LISTED = 20;

/**
 * The API calls of a plan as lines: one per call, or, when there are more than
 * {@link MAX_CALLS_LISTED}, one per run of consecutive calls of one endpoint (`POST
 * /stores/*\/items` for three stores). Raw text: each renderer escapes it.
 */
export function callLines(plan: Plan): CallLine[] {
  const lines = new CallLines(plan.operations.length);
  for (const op of plan.operations) lines.add(op);
  return lines.lines();
}

/** {@link callLines} made a call at a time, for a plan read from a file as it comes. */
export class CallLines {
  private readonly out: (CallLine & { endpoint: string })[] = [];
  private readonly group: boolean;
  private count = 0;

  /** @param total - how many calls the plan holds. */
  constructor(total: number) {
    this.group = total > MAX_CALLS_LISTED;
  }

  /** The next call of the plan (how many addresses it carries is all that is read of them). */
  add(op: Pick<Operation, "endpoint" | "method" | "path" | "stores" | "addresses">): void {
    const i = this.count++;
    const last = this.out[this.out.length - 1];
    if (this.group && last && last.endpoint === op.endpoint && last.method === op.method) {
      const a = last.path.split("/");
      const b = op.path.split("/");
      last.path = a.length === b.length ? a.map((x, k) => (x === b[k] ? x : "*")).join("/") : last.path;
      last.last = i + 1;
      for (const s of op.stores) if (!last.stores.includes(s)) last.stores.push(s);
      last.changes += op.addresses.length;
      return;
    }
    this.out.push({
      endpoint: op.endpoint,
      first: i + 1,
      last: i + 1,
      method: op.method,
      path: op.path,
      stores: [...op.stores],
      changes: op.addresses.length,
    });
  }

  /** The lines of the calls added. */
  lines(): CallLine[] {
    return this.out.map(({ endpoint: _endpoint, ...line }) => line);
  }
}
