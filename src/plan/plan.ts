/**
 * The planner: a pure, synchronous function from the desired and current states to a {@link Plan}.
 * No I/O, no clock, no randomness: the same inputs give the same plan, byte for byte.
 */

import { clientKinds as clientRegistry, kinds as registry } from "../kinds/registry.js";
import type { KindName, SegmentName } from "../kinds/registry.js";
import type {
  AttributeDiff,
  ChangeAction,
  ClientKind,
  ResourceKind,
  Write,
  WriteContext,
} from "../kinds/resource-kind.js";
import { address, jsonEqual } from "../plain-data.js";
import { categoryEqual, itemEqual } from "../kinds/equal.js";
import {
  emptyIds,
  emptyStore,
  own,
  table,
  type CurrentState,
  type DesiredState,
  type Ownership,
  type StoreState,
} from "../model.js";
import { batchWrites, type PlacedWrite } from "./batch.js";
import { InternalError } from "../errors.js";
import {
  checksum,
  currentChecksum,
  desiredChecksum,
  digestMemo,
  storeDigest,
  type DigestMemo,
} from "./checksum.js";
import {
  DEFAULT_SAFETY,
  judgedChanges,
  safetyVerdict,
  storeViolations,
  type SafetyPolicy,
  type SafetyViolation,
} from "./safety.js";
import { isFiltering, isTargeted, matchStore, scopedKinds, selectChanges, type Targeting } from "./target.js";
import {
  PLAN_FORMAT_VERSION,
  type Plan,
  type PlanChecksums,
  type PlanInfo,
  type ResourceChange,
} from "./types.js";
import { menusOf, menusState, categoriesOf, categoriesState, itemsOf, itemsState } from "../kinds/catalog.js";

/** Options of {@link buildPlan}. */
export interface PlanOptions {
  /** Resource kinds to plan; default every registered kind. */
  kinds?: readonly ResourceKind<unknown>[];
  /**
   * Limit the plan to some stores, kinds or addresses (plus what they cannot go without); with a change
   * scope (`targeting.scope`), each store is planned for the kinds the scope lists there only, and the
   * client-level kinds for those of `scope.client`.
   */
  targeting?: Targeting;
  /** Settings of the safety guards; default {@link DEFAULT_SAFETY}. */
  safety?: SafetyPolicy;
  /** Ownership per kind (carte.yaml `ownership:`); a kind not named has its documented default. */
  ownership?: Partial<Record<KindName, Ownership>>;
  /** Client-level kinds to plan; default every registered one. */
  clientKinds?: readonly ClientKind<unknown>[];
}

/** Attribute-level differences between two versions of a resource (top-level attributes). */
export function diffAttributes(before: unknown, after: unknown): AttributeDiff[] {
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  const out: AttributeDiff[] = [];
  for (const k of keys) {
    if (!jsonEqual(b[k], a[k])) out.push({ attribute: k, before: b[k], after: a[k] });
  }
  return out;
}

/**
 * What a plan builds of its created resources, kept while it is made: the attributes of each resource
 * object (`diffs`), and each attribute entry by name and value (`entries`), so that resources equal in
 * all but identity share their entries: those of the stores' own settings, the versions of a shared
 * catalog's resources beyond those loading shares (src/config/resolve.ts `share`), a library user's
 * states loaded without `shareResources`. A plan from empty of 1,000 stores would otherwise hold
 * 600,000 diffs of 9 entries each.
 */
interface CreatedMemo {
  diffs: WeakMap<object, AttributeDiff[]>;
  entries: Map<string, Map<unknown, AttributeDiff>>;
}

/** The attributes of a created resource, built once per resource object of the plan (`created`). */
function createdOnce(after: unknown, created: CreatedMemo | undefined): AttributeDiff[] {
  if (!created || after === null || typeof after !== "object") return createdAttributes(after);
  let diff = created.diffs.get(after);
  if (!diff) {
    diff = createdAttributes(after, created.entries);
    created.diffs.set(after, diff);
  }
  return diff;
}

function createdAttributes(
  after: unknown,
  entries?: Map<string, Map<unknown, AttributeDiff>>,
): AttributeDiff[] {
  return Object.entries((after ?? {}) as Record<string, unknown>).map(([attribute, value]) => {
    if (!entries) return { attribute, after: value };
    // One entry per attribute and value (a value that is an object: per object).
    let byValue = entries.get(attribute);
    if (!byValue) entries.set(attribute, (byValue = new Map()));
    let entry = byValue.get(value);
    if (!entry) byValue.set(value, (entry = { attribute, after: value }));
    return entry;
  });
}

/** One resource compared: the change it needs, or nothing. */
interface Compared<R> {
  action: ChangeAction;
  before: R | undefined;
  after: R | undefined;
  diff: AttributeDiff[];
}

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** Whether a table has an own enumerable key (a store's duplicates: most have none). */
function hasKeys(o: object): boolean {
  for (const key in o) if (hasOwn(o, key)) return true;
  return false;
}

/** What {@link compare} needs of a kind. */
interface ComparedKind<R> {
  equal?(a: R, b: R): boolean;
  initial?(after: R): R;
  diff?(before: R, after: R): AttributeDiff[];
  retreats?(action: ChangeAction, before: R | undefined, after: R | undefined): boolean;
}

/**
 * Compares every key of both sides of one kind (each once) and returns the changes, sorted by key.
 * Keys are sorted only when they change something: a store without changes costs no sort. Each key of
 * the desired side is looked up once on the current side; the current side's keys are gone through
 * only when some of them are not desired (for a store in step with its files, never) and can be deleted.
 */
function compareAll<R>(
  kind: ComparedKind<R>,
  current: Record<string, R>,
  desired: Record<string, R>,
  ownership: Ownership | ((key: string) => Ownership),
  created?: CreatedMemo,
): [string, Compared<R>][] {
  const out: [string, Compared<R>][] = [];
  const ownershipOf = typeof ownership === "function" ? ownership : undefined;
  const fixed = typeof ownership === "function" ? "full" : ownership;
  // A table without a prototype (src/model.ts `table`) has only its own keys: one look-up each.
  const bare = Object.getPrototypeOf(current) === null;
  let found = 0;
  for (const key of Object.keys(desired)) {
    const have = bare ? current[key] : hasOwn(current, key) ? current[key] : undefined;
    if (have !== undefined) found++;
    const cmp = compare(kind, have, desired[key], ownershipOf ? ownershipOf(key) : fixed, created);
    if (cmp) out.push([key, cmp]);
  }
  // A resource only on the current side yields a change unless the kind's resources go with their
  // owners (`initial`: item availability, whose current side holds every item).
  const present = kind.initial ? [] : Object.keys(current);
  if (present.length > found) {
    for (const key of present) {
      if (hasOwn(desired, key)) continue;
      const cmp = compare(kind, current[key], undefined, ownershipOf ? ownershipOf(key) : fixed, created);
      if (cmp) out.push([key, cmp]);
    }
  }
  return out.length > 1 ? out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : out;
}

/**
 * Compares one key of a kind and decides the change, applying `initial` (dependent resources) and
 * ownership (`additive` never takes anything away). Returns undefined when nothing changes.
 */
function compare<R>(
  kind: ComparedKind<R>,
  have: R | undefined,
  want: R | undefined,
  ownership: Ownership,
  created?: CreatedMemo,
): Compared<R> | undefined {
  let before = have;
  let action: ChangeAction;
  if (want === undefined) {
    if (kind.initial || before === undefined) return undefined;
    action = "delete";
  } else if (before === undefined && !kind.initial) {
    action = "create";
  } else {
    before ??= kind.initial!(want);
    if (before === want || (kind.equal ? kind.equal(before, want) : jsonEqual(before, want)))
      return undefined;
    action = "update";
  }
  if (
    ownership === "additive" &&
    (kind.retreats ? kind.retreats(action, before, want) : action === "delete")
  ) {
    return undefined;
  }
  const diff =
    action === "create"
      ? createdOnce(want, created)
      : action === "update"
        ? (kind.diff?.(before!, want!) ?? diffAttributes(before, want))
        : [];
  return { action, before, after: want, diff };
}

/** Options of {@link createPlanner}: those of {@link buildPlan}, and whether to digest the stores. */
export interface PlannerOptions extends PlanOptions {
  /**
   * Digest each store's current and desired state as it is added (src/plan/checksum.ts), so that the
   * plan carries its checksums (`checksums`, docs/plan-format.md) without keeping any store's state.
   * Without it, the finished plan's `checksums` are those given to {@link StorePlanner.finish}.
   */
  checksums?: boolean;
}

/**
 * A plan made store by store: each store is compared, judged by the per-store safety guards and, when
 * asked, digested as soon as its current state is added, and nothing of that state is kept, so that a
 * reader can hand stores over as it reads them (src/run/plan-project.ts). The plan is the same, byte for byte,
 * whatever the order the stores are added in.
 */
export interface StorePlanner {
  /**
   * Plans one store of the desired state from its current state (`undefined`: nothing read, the store
   * is planned as empty). A key the desired state does not name is ignored (out of scope). Each store
   * is added at most once.
   *
   * @throws InternalError when the store was already added.
   */
  addStore(key: string, have: CurrentState["stores"][string] | undefined): void;
  /**
   * The plan, once the stores are added (a store of the desired state never added is planned as empty),
   * with the client-level resources planned from `client`.
   *
   * @param checksums - the plan's checksums when the planner did not compute them: a value, or a function
   *   that computes them the first time the plan's `checksums` are read.
   */
  finish(client: CurrentState["client"], checksums?: PlanChecksums | (() => PlanChecksums)): Plan;
}

/** What the planner keeps of one store once it is planned. */
interface PlannedStore {
  changes: ResourceChange[];
  info: PlanInfo[];
  writes: PlacedWrite[];
  violations: SafetyViolation[];
}

/** A live resource that equals its desired one becomes that object (shared text in the checksums). */
function shareEqual<R>(
  have: Record<string, R>,
  want: Record<string, R>,
  equal: (a: R, b: R) => boolean = jsonEqual,
): Record<string, R> {
  const out = table<R>();
  for (const key of Object.keys(have)) {
    const w = own(want, key);
    out[key] = w !== undefined && equal(have[key]!, w) ? w : have[key]!;
  }
  return out;
}

/**
 * A live store whose catalog resources that equal their desired ones are those objects, in copies of
 * the catalog kinds' states (the read state is not changed).
 */
function sharingDesired(
  read: CurrentState["stores"][string],
  want: StoreState,
): CurrentState["stores"][string] {
  const live = {
    ...read,
    kinds: Object.assign(table<unknown>(), read.kinds),
  };
  const items = itemsState.get(read);
  if (items) itemsState.set(live, { ...items, items: shareEqual(items.items, itemsOf(want), itemEqual) });
  const categories = categoriesState.get(read);
  if (categories) categoriesState.set(live, shareEqual(categories, categoriesOf(want), categoryEqual));
  const menus = menusState.get(read);
  if (menus) menusState.set(live, shareEqual(menus, menusOf(want)));
  return live;
}

/**
 * Starts a plan of `desired`, made store by store ({@link StorePlanner}). Pure: the states it is given
 * are never changed.
 */
export function createPlanner(desired: DesiredState, options: PlannerOptions = {}): StorePlanner {
  const kinds = options.kinds ?? registry;
  const ownershipOf = (k: { name: string; defaultOwnership?: Ownership }): Ownership =>
    options.ownership?.[k.name as KindName] ?? k.defaultOwnership ?? "full";
  const targeting = isTargeted(options.targeting) ? options.targeting : undefined;
  const filtering = targeting && isFiltering(targeting) ? targeting : undefined;
  const scoped = scopedKinds(targeting);
  const policy = options.safety ?? DEFAULT_SAFETY;
  const planned = new Map<string, PlannedStore>();
  const memo = options.checksums ? digestMemo() : undefined;
  // What this plan builds from a desired resource object, built once: stores of a shared catalog hold
  // the same objects, and a plan from empty then holds each created resource's diff and call element once.
  const created: CreatedMemo = { diffs: new WeakMap(), entries: new Map() };
  const elements = new WeakMap<object, unknown>();
  const currentDigests = table<string>();

  const collector = () => collectChanges(filtering);

  const addStore: StorePlanner["addStore"] = (storeKey, read) => {
    const want = desired.stores[storeKey];
    if (!want) return;
    if (planned.has(storeKey)) throw new InternalError(`store ${storeKey} was planned twice`);
    let live = read;
    if (memo) {
      // Digested with the desired objects in place of the equal live ones: their text is written once.
      // (The desired state is kept: its digests are made when the plan's checksums need them.)
      if (read) live = sharingDesired(read, want);
      currentDigests[storeKey] = storeDigest(live ?? null, memo);
    }
    // schedulesVia is a setting of the files, not platform state: both sides are compared alike.
    const have = {
      ...(live ?? { ...emptyStore(want.store), ids: emptyIds() }),
      ...(want.schedulesVia ? { schedulesVia: want.schedulesVia } : {}),
    };
    const ctx = { desired: want, ids: have.ids, elements };
    const { record, selected } = collector();
    const info: PlanInfo[] = [];
    const storeInTarget =
      !targeting || targeting.stores.length === 0 || targeting.stores.some((p) => matchStore(p, storeKey));
    const inScope = scoped?.get(storeKey);
    for (const kind of kinds) {
      if (scoped && !inScope?.has(kind.name)) continue;
      const ownership = ownershipOf(kind);
      if (ownership === "ignore") continue;
      planKind(kind, ownership, { storeKey, want, have, ctx, record, created }, () => {
        if (!kind.info || !storeInTarget) return;
        if (targeting && targeting.kinds.length > 0 && !targeting.kinds.includes(kind.name as SegmentName))
          return;
        for (const message of kind.info(want, have, ownership, desired.currency))
          info.push({ store: storeKey, kind: kind.name, message });
      });
    }
    const { changes, writes } = selected();
    const judged = judgedChanges(changes);
    planned.set(storeKey, {
      changes,
      info,
      writes,
      violations:
        read && judged.length > 0 ? storeViolations(storeKey, judged, read, policy, desired.currency) : [],
    });
  };

  const finish: StorePlanner["finish"] = (client, given) => {
    const haveClient = client ?? { ids: {} };
    const storeKeys = Object.keys(desired.stores).sort();
    for (const key of storeKeys) if (!planned.has(key)) addStore(key, undefined);
    const stores = storeKeys.map((k) => planned.get(k)!);

    // Client-level resources, addressed client.KIND[KEY], with store "".
    const clientPlan = planClient(desired, haveClient, options.clientKinds ?? clientRegistry, {
      targeting,
      ownershipOf,
      collector,
    });

    const changes = [...stores.flatMap((s) => s.changes), ...clientPlan.changes];
    const info = stores.flatMap((s) => s.info);
    const operations = batchWrites([...stores.flatMap((s) => s.writes), ...clientPlan.writes]);
    const count = (a: ChangeAction) => changes.filter((c) => c.action === a).length;
    let checksums: PlanChecksums | (() => PlanChecksums) | undefined = given;
    if (memo) {
      checksums = digestChecksums(
        desired,
        storeKeys,
        currentDigests,
        client,
        desiredDigests(desired, storeKeys, memo),
      );
    }
    const plan: Plan = {
      formatVersion: PLAN_FORMAT_VERSION,
      stores: storeKeys.map((k) => plannedStore(k, desired.stores[k]!)),
      changes,
      operations,
      summary: {
        create: count("create"),
        update: count("update"),
        delete: count("delete"),
        operations: operations.length,
        stores: new Set(changes.map((c) => c.store).filter((k) => k !== "")).size,
      },
      checksums: { current: "", desired: "" },
      ...(targeting ? { targeting } : {}),
      safety: { ok: true, violations: [] },
      ...(desired.currency !== undefined ? { currency: desired.currency } : {}),
      ...(info.length > 0 ? { info } : {}),
    };
    defineChecksums(plan, checksums);
    plan.safety = safetyVerdict(
      plan,
      stores.flatMap((s) => s.violations),
    );
    return plan;
  };

  return { addStore, finish };
}

/**
 * The digests of the desired stores, worked out when the plan's checksums are first read (src/plan/
 * checksum.ts `storeDigest`). Made here, outside {@link createPlanner}: a function made inside it would
 * keep the whole planner alive with the plan (every store's planned writes, one object per change,
 * and its memos), though the plan needs none of it once made.
 */
function desiredDigests(
  desired: DesiredState,
  storeKeys: readonly string[],
  memo: DigestMemo,
): () => Record<string, string> {
  return () => {
    const out = table<string>();
    for (const k of storeKeys) out[k] = storeDigest(desired.stores[k], memo);
    return out;
  };
}

/** The current side of a kind at the desired side's keys only (`ResourceKind.lookup`). */
function lookedUp<R>(
  lookup: (state: StoreState, key: string) => R | undefined,
  have: StoreState,
  desired: Record<string, R>,
): Record<string, R> {
  const out = table<R>();
  for (const key of Object.keys(desired)) {
    const r = lookup(have, key);
    if (r !== undefined) out[key] = r;
  }
  return out;
}

/**
 * Plans one kind in one store: compares its resources on both sides under its ownership (a duplicate of
 * a resource the files manage goes whatever the ownership) and records each change with its writes.
 * `tell` adds what the kind says about the store without changing it, once the kind is managed there.
 */
function planKind(
  kind: ResourceKind<unknown>,
  ownership: Ownership,
  store: {
    storeKey: string;
    want: StoreState;
    have: CurrentState["stores"][string];
    ctx: WriteContext;
    record: ReturnType<typeof collectChanges>["record"];
    created: CreatedMemo;
  },
  tell: () => void,
): void {
  const { storeKey, want, have, ctx, record, created } = store;
  const d = kind.select(want, ownership, have);
  if (d === undefined) return;
  // A kind whose current side goes with its owners is compared on the desired side's keys only.
  const c = kind.initial && kind.lookup ? lookedUp(kind.lookup, have, d) : (kind.select(have) ?? {});
  tell();
  // A duplicate of a resource the files manage goes, whatever the ownership (under `full`, anyway).
  const copies = ownership === "full" ? undefined : kind.duplicates?.(have);
  const ownershipOfKey =
    copies === undefined || !hasKeys(copies)
      ? ownership
      : (key: string): Ownership => {
          const original = own(copies, key);
          return original !== undefined && own(d, original) !== undefined ? "full" : ownership;
        };
  // The kind's diff sees the store's desired state (words of the files, such as a time in its zone).
  const diff = kind.diff;
  const compared = diff ? { ...kind, diff: (b: unknown, a: unknown) => diff(b, a, want) } : kind;
  for (const [key, cmp] of compareAll(compared, c, d, ownershipOfKey, created)) {
    const segment = kind.segment((cmp.after ?? cmp.before)!);
    record(
      {
        address: address(storeKey, segment, key),
        store: storeKey,
        storeId: want.store.storeId,
        kind: segment,
        key,
      },
      cmp,
      kind.writes(cmp.action, key, cmp.before, cmp.after, ctx),
      kind.within?.(cmp.action === "delete" ? have : want, key),
      kind.group?.(cmp.action === "delete" ? have : want, key),
      kind.title?.(cmp.action === "delete" ? have : want, key),
      kind.label?.(cmp.action === "delete" ? have : want, key),
    );
  }
}

/**
 * The changes of one scope (a store, or the client) and the writes that carry each out: `record` adds a
 * change, `selected` gives those inside the targeting (with what they cannot go without) and their
 * writes.
 */
function collectChanges(filtering: Targeting | undefined) {
  const changes: ResourceChange[] = [];
  const writesOf = new Map<ResourceChange, PlacedWrite[]>();
  const record = (
    at: { address: string; store: string; storeId: string; kind: string; key: string },
    cmp: Compared<unknown>,
    writes: Write[],
    within?: string[],
    group?: string,
    title?: string,
    label?: string,
  ) => {
    const change: ResourceChange = {
      address: at.address,
      store: at.store,
      kind: at.kind as SegmentName,
      key: at.key,
      action: cmp.action,
      before: cmp.before ?? null,
      after: cmp.after ?? null,
      diff: cmp.diff,
      ...(within ? { within } : {}),
      ...(group !== undefined ? { group } : {}),
      ...(title ? { title } : {}),
      ...(label ? { label } : {}),
    };
    changes.push(change);
    writesOf.set(
      change,
      writes.map((w) => ({
        store: at.store,
        storeId: at.storeId,
        endpoint: w.endpoint,
        element: w.element,
        params: w.params ?? {},
        address: at.address,
      })),
    );
  };
  /** The changes inside the targeting (with what they cannot go without) and their writes. */
  const selected = () => {
    const kept = filtering ? selectChanges(changes, filtering) : changes;
    return { changes: kept, writes: kept.flatMap((c) => writesOf.get(c) ?? []) };
  };
  return { record, selected };
}

/** The changes and writes of the client-level resources, addressed `client.KIND[KEY]`, with store "". */
function planClient(
  desired: DesiredState,
  haveClient: NonNullable<CurrentState["client"]>,
  clientKinds: readonly ClientKind<unknown>[],
  plan: {
    targeting: Targeting | undefined;
    ownershipOf: (k: { name: string; defaultOwnership?: Ownership }) => Ownership;
    collector: () => ReturnType<typeof collectChanges>;
  },
): { changes: ResourceChange[]; writes: PlacedWrite[] } {
  const { targeting, ownershipOf, collector } = plan;
  const wantClient = desired.client ?? {};
  const { record, selected } = collector();
  for (const kind of clientKinds) {
    if (targeting?.scope && !targeting.scope.client.includes(kind.name as KindName)) continue;
    const ownership = ownershipOf(kind);
    if (ownership === "ignore") continue;
    const d = kind.select(wantClient);
    if (d === undefined) continue;
    const c = kind.select(haveClient) ?? {};
    for (const [key, cmp] of compareAll(kind, c, d, ownership)) {
      record(
        { address: `client.${kind.name}[${key}]`, store: "", storeId: "", kind: kind.name, key },
        cmp,
        kind.writes(cmp.action, key, cmp.before, cmp.after, haveClient.ids),
      );
    }
  }
  return selected();
}

/**
 * The checksums of a plan from the digests its stores' current states were given as they were
 * planned. Those of the desired state (`desired`, `desiredStores`) are made the first time they are
 * read (`desiredDigests`, from the desired state the planner keeps anyway): an apply that follows its
 * plan reads only the stores' digests (src/run/store-guard.ts `storeGuard`), and digesting the whole desired
 * catalog of every store cost as much as a tenth of its planning.
 */
function digestChecksums(
  desired: DesiredState,
  storeKeys: readonly string[],
  currentDigests: Readonly<Record<string, string>>,
  client: CurrentState["client"],
  desiredDigests: () => Record<string, string>,
): PlanChecksums {
  // By store key, whatever the order the stores came in.
  const stores = table<string>();
  for (const k of storeKeys) stores[k] = currentDigests[k]!;
  let made: Pick<PlanChecksums, "desired" | "desiredStores"> | undefined;
  const ofDesired = () => {
    if (made) return made;
    const digests = desiredDigests();
    const wantClient = desired.client === undefined ? undefined : checksum(desired.client);
    made = {
      desired: checksum(
        wantClient === undefined ? { stores: digests } : { stores: digests, client: wantClient },
      ),
      desiredStores: sortedDigests(digests),
    };
    return made;
  };
  const out = { current: currentChecksum(stores, client) } as PlanChecksums;
  // In the order a plan file has always listed them: current, desired, stores, desiredStores.
  lazyField(out, "desired", () => ofDesired().desired);
  out.stores = withClient(stores, client);
  lazyField(out, "desiredStores", () => ofDesired().desiredStores);
  return out;
}

/** An enumerable field of `target` worked out when first read; setting it replaces it with the value. */
function lazyField<T extends object, K extends keyof T>(target: T, key: K, make: () => T[K]): void {
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get: () => {
      const value = make();
      Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
      return value;
    },
    set: (value: T[K]) => {
      Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    },
  });
}

/** Digests by store key in key order (a plan file lists them so). */
function sortedDigests(digests: Readonly<Record<string, string>>): Record<string, string> {
  const out = table<string>();
  for (const k of Object.keys(digests).sort()) out[k] = digests[k]!;
  return out;
}

/**
 * A store as a plan names it: its key, platform id, name, how its schedules are written and its time
 * zone.
 */
function plannedStore(key: string, want: StoreState): Plan["stores"][number] {
  const s = want.store;
  return {
    key,
    storeId: s.storeId,
    name: s.name,
    ...(want.schedulesVia ? { schedulesVia: want.schedulesVia } : {}),
    ...(s.timeZone !== undefined ? { timeZone: s.timeZone } : {}),
  };
}

/**
 * Sets the plan's `checksums` in place (its position among the fields is kept): a value as is; a
 * function as a property computed the first time it is read (saving the plan, printing it as JSON,
 * comparing it with a saved plan), then kept; nothing, as a property that refuses to be read.
 */
function defineChecksums(plan: Plan, checksums: PlanChecksums | (() => PlanChecksums) | undefined): void {
  if (typeof checksums === "object") {
    plan.checksums = checksums;
    return;
  }
  let value: PlanChecksums | undefined;
  Object.defineProperty(plan, "checksums", {
    enumerable: true,
    configurable: true,
    get(): PlanChecksums {
      if (value === undefined) {
        if (!checksums) {
          throw new InternalError(
            "this plan was made without its checksums (RunOptions.checksums false): it cannot be saved or shown as JSON",
          );
        }
        value = checksums();
      }
      return value;
    },
    set(v: PlanChecksums) {
      value = v;
    },
  });
}

/**
 * The stores' digests with, under `""`, the checksum of the client-level current state when one was
 * read: `checksums.stores`, whose checksum is `checksums.current` ({@link currentChecksum}).
 */
function withClient(stores: Record<string, string>, client: unknown): Record<string, string> {
  if (client === undefined) return stores;
  const all = table<string>();
  Object.assign(all, stores);
  all[""] = checksum(client);
  return all;
}

/**
 * The checksums of a plan of `desired` against `current` (docs/plan-format.md): each store's digest in
 * scope (the stores of `desired`), the checksum of those digests with the client's state, and the
 * checksum of the desired state. Pure; the states are only read.
 */
export function planChecksums(desired: DesiredState, current: CurrentState): PlanChecksums {
  const memo = digestMemo();
  const stores = table<string>();
  for (const key of Object.keys(desired.stores).sort())
    stores[key] = storeDigest(own(current.stores, key) ?? null, memo);
  const desiredStores = table<string>();
  for (const key of Object.keys(desired.stores).sort())
    desiredStores[key] = storeDigest(own(desired.stores, key), memo);
  return {
    current: currentChecksum(stores, current.client),
    desired: desiredChecksum(desired, memo),
    stores: withClient(stores, current.client),
    desiredStores,
  };
}

/**
 * Computes the plan that makes the platform match the desired state, for every store of `desired`
 * and for the client-level resources it manages. Stores present only on the current side are out of
 * scope and never touched; kinds a store's files do not manage are left alone there. The plan's
 * `checksums` ({@link planChecksums}) are computed the first time they are read, from the states given
 * (which must not change meanwhile).
 */
export function buildPlan(desired: DesiredState, current: CurrentState, options: PlanOptions = {}): Plan {
  const planner = createPlanner(desired, options);
  for (const key of Object.keys(desired.stores).sort()) planner.addStore(key, own(current.stores, key));
  return planner.finish(current.client, () => planChecksums(desired, current));
}

/** Whether a plan changes nothing. */
export function isEmptyPlan(plan: Plan): boolean {
  return plan.changes.length === 0;
}
