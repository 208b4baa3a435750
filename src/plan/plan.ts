/**
 * The planner: a pure, synchronous function from the desired and current states to a {@link Plan}.
 * No I/O, no clock, no randomness: the same inputs give the same plan, byte for byte.
 */

import { clientKinds as clientRegistry, kinds as registry } from "../kinds/registry.js";
import type { KindName, SegmentName } from "../kinds/registry.js";
import type { AttributeDiff, ChangeAction, ClientKind, ResourceKind, Write } from "../kinds/types.js";
import { address, jsonEqual } from "../kinds/util.js";
import { emptyIds, emptyStore, own, type CurrentState, type DesiredState, type Ownership } from "../model.js";
import { batchWrites, type PlacedWrite } from "./batch.js";
import { checksum } from "./checksum.js";
import { DEFAULT_SAFETY, evaluateSafety, type SafetyPolicy } from "./safety.js";
import { isTargeted, selectChanges, type Targeting } from "./target.js";
import { PLAN_FORMAT_VERSION, type Plan, type ResourceChange } from "./types.js";

/** Options of {@link buildPlan}. */
export interface PlanOptions {
  /** Resource kinds to plan; default every registered kind. */
  kinds?: readonly ResourceKind<unknown>[];
  /** Limit the plan to some stores, kinds or addresses (plus what they cannot go without). */
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

function createdAttributes(after: unknown): AttributeDiff[] {
  return Object.entries((after ?? {}) as Record<string, unknown>).map(([attribute, value]) => ({
    attribute,
    after: value,
  }));
}

/** The keys of both sides, sorted. */
function keysOf(current: Record<string, unknown>, desired: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(current), ...Object.keys(desired)])].sort();
}

/** One resource compared: the change it needs, or nothing. */
interface Compared<R> {
  action: ChangeAction;
  before: R | undefined;
  after: R | undefined;
  diff: AttributeDiff[];
}

/**
 * Compares one key of a kind and decides the change, applying `initial` (dependent resources) and
 * ownership (`additive` never takes anything away). Returns undefined when nothing changes.
 */
function compare<R>(
  kind: {
    initial?(after: R): R;
    diff?(before: R, after: R): AttributeDiff[];
    retreats?(action: ChangeAction, before: R | undefined, after: R | undefined): boolean;
  },
  have: R | undefined,
  want: R | undefined,
  ownership: Ownership,
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
    if (jsonEqual(before, want)) return undefined;
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
      ? createdAttributes(want)
      : action === "update"
        ? (kind.diff?.(before!, want!) ?? diffAttributes(before, want))
        : [];
  return { action, before, after: want, diff };
}

/**
 * Computes the plan that makes the platform match the desired state, for every store of `desired`
 * and for the client-level resources it manages. Stores present only on the current side are out of
 * scope and never touched; kinds a store's files do not manage are left alone there.
 */
export function buildPlan(desired: DesiredState, current: CurrentState, options: PlanOptions = {}): Plan {
  const kinds = options.kinds ?? registry;
  const ownershipOf = (k: { name: string; defaultOwnership?: Ownership }): Ownership =>
    options.ownership?.[k.name as KindName] ?? k.defaultOwnership ?? "full";
  let changes: ResourceChange[] = [];
  const writesOf = new Map<ResourceChange, PlacedWrite[]>();
  /** Records one change and the writes that carry it out. */
  const record = (
    at: { address: string; store: string; storeId: string; kind: string; key: string },
    cmp: Compared<unknown>,
    writes: Write[],
    within?: string[],
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
  const storeKeys = Object.keys(desired.stores).sort();

  for (const storeKey of storeKeys) {
    const want = desired.stores[storeKey]!;
    // schedulesVia is a setting of the files, not platform state: both sides are compared alike.
    const have = {
      ...(own(current.stores, storeKey) ?? { ...emptyStore(want.store), ids: emptyIds() }),
      ...(want.schedulesVia ? { schedulesVia: want.schedulesVia } : {}),
    };
    const ctx = { desired: want, ids: have.ids };

    for (const kind of kinds) {
      const ownership = ownershipOf(kind);
      if (ownership === "ignore") continue;
      const d = kind.select(want, ownership);
      if (d === undefined) continue;
      const c = kind.select(have) ?? {};
      // A duplicate of a resource the files manage goes, whatever the ownership (issue 11, item 2).
      const copies = kind.duplicates?.(have) ?? {};
      const owned = (key: string): boolean => {
        const original = own(copies, key);
        return original !== undefined && own(d, original) !== undefined;
      };
      for (const key of keysOf(c, d)) {
        const cmp = compare(kind, own(c, key), own(d, key), owned(key) ? "full" : ownership);
        if (!cmp) continue;
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
        );
      }
    }
  }

  // Client-level resources, addressed client.KIND[KEY], with store "".
  const clientKinds = options.clientKinds ?? clientRegistry;
  const wantClient = desired.client ?? {};
  const haveClient = current.client ?? { ids: {} };
  for (const kind of clientKinds) {
    const ownership = ownershipOf(kind);
    if (ownership === "ignore") continue;
    const d = kind.select(wantClient);
    if (d === undefined) continue;
    const c = kind.select(haveClient) ?? {};
    for (const key of keysOf(c, d)) {
      const cmp = compare(kind, own(c, key), own(d, key), ownership);
      if (!cmp) continue;
      record(
        { address: `client.${kind.name}[${key}]`, store: "", storeId: "", kind: kind.name, key },
        cmp,
        kind.writes(cmp.action, key, cmp.before, cmp.after, haveClient.ids),
      );
    }
  }

  if (isTargeted(options.targeting)) changes = selectChanges(changes, options.targeting);
  const operations = batchWrites(changes.flatMap((c) => writesOf.get(c) ?? []));
  const count = (a: ChangeAction) => changes.filter((c) => c.action === a).length;
  const scopeCurrent = {
    ...Object.fromEntries(storeKeys.map((k) => [k, own(current.stores, k) ?? null])),
    ...(current.client ? { "": current.client } : {}),
  };
  const plan: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    stores: storeKeys.map((k) => {
      const want = desired.stores[k]!;
      const s = want.store;
      return {
        key: k,
        storeId: s.storeId,
        name: s.name,
        ...(want.schedulesVia ? { schedulesVia: want.schedulesVia } : {}),
      };
    }),
    changes,
    operations,
    summary: {
      create: count("create"),
      update: count("update"),
      delete: count("delete"),
      operations: operations.length,
      stores: new Set(changes.map((c) => c.store).filter((k) => k !== "")).size,
    },
    checksums: { current: checksum(scopeCurrent), desired: checksum(desired) },
    ...(isTargeted(options.targeting) ? { targeting: options.targeting } : {}),
    safety: { ok: true, violations: [] },
    ...(desired.currency !== undefined ? { currency: desired.currency } : {}),
  };
  plan.safety = evaluateSafety(plan, current, options.safety ?? DEFAULT_SAFETY);
  return plan;
}

/** Whether a plan changes nothing. */
export function isEmptyPlan(plan: Plan): boolean {
  return plan.changes.length === 0;
}
