/**
 * The planner: a pure, synchronous function from the desired and current states to a {@link Plan}.
 * No I/O, no clock, no randomness: the same inputs give the same plan, byte for byte.
 */

import { kinds as registry } from "../kinds/registry.js";
import type { AttributeDiff, ChangeAction, ResourceKind } from "../kinds/types.js";
import { address, jsonEqual } from "../kinds/util.js";
import { emptyStore, type CurrentState, type DesiredState, type StoreIds } from "../model.js";
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

const noIds: StoreIds = { items: {}, categories: {}, menus: {} };

/**
 * Computes the plan that makes the platform match the desired state, for every store of `desired`.
 * Stores present only on the current side are out of scope and never touched.
 */
export function buildPlan(desired: DesiredState, current: CurrentState, options: PlanOptions = {}): Plan {
  const kinds = options.kinds ?? registry;
  let changes: ResourceChange[] = [];
  const writesOf = new Map<ResourceChange, PlacedWrite[]>();
  const storeKeys = Object.keys(desired.stores).sort();

  for (const storeKey of storeKeys) {
    const want = desired.stores[storeKey]!;
    const have = current.stores[storeKey] ?? { ...emptyStore(want.store), ids: noIds };
    const ctx = { desired: want, ids: have.ids };

    for (const kind of kinds) {
      const d = kind.select(want);
      const c = kind.select(have);
      const keys = [...new Set([...Object.keys(c), ...Object.keys(d)])].sort();
      for (const key of keys) {
        const after = d[key];
        let before = c[key];
        let action: ChangeAction;
        if (after === undefined) {
          if (kind.initial) continue;
          action = "delete";
        } else if (before === undefined && !kind.initial) {
          action = "create";
        } else {
          before ??= kind.initial!(after);
          if (jsonEqual(before, after)) continue;
          action = "update";
        }
        const diff =
          action === "create"
            ? createdAttributes(after)
            : action === "update"
              ? (kind.diff?.(before, after) ?? diffAttributes(before, after))
              : [];
        const addr = address(storeKey, kind.segment((after ?? before)!), key);
        const change: ResourceChange = {
          address: addr,
          store: storeKey,
          kind: kind.segment((after ?? before)!),
          key,
          action,
          before: before ?? null,
          after: after ?? null,
          diff,
        };
        changes.push(change);
        writesOf.set(
          change,
          kind.writes(action, key, before, after, ctx).map((w) => ({
            store: storeKey,
            storeId: want.store.storeId,
            endpoint: w.endpoint,
            element: w.element,
            address: addr,
          })),
        );
      }
    }
  }

  if (isTargeted(options.targeting)) changes = selectChanges(changes, options.targeting);
  const operations = batchWrites(changes.flatMap((c) => writesOf.get(c) ?? []));
  const count = (a: ChangeAction) => changes.filter((c) => c.action === a).length;
  const scopeCurrent = Object.fromEntries(storeKeys.map((k) => [k, current.stores[k] ?? null]));
  const plan: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    stores: storeKeys.map((k) => {
      const s = desired.stores[k]!.store;
      return { key: k, storeId: s.storeId, name: s.name };
    }),
    changes,
    operations,
    summary: {
      create: count("create"),
      update: count("update"),
      delete: count("delete"),
      operations: operations.length,
      stores: new Set(changes.map((c) => c.store)).size,
    },
    checksums: { current: checksum(scopeCurrent), desired: checksum(desired) },
    ...(isTargeted(options.targeting) ? { targeting: options.targeting } : {}),
    safety: { ok: true, violations: [] },
  };
  plan.safety = evaluateSafety(plan, current, options.safety ?? DEFAULT_SAFETY);
  return plan;
}

/** Whether a plan changes nothing. */
export function isEmptyPlan(plan: Plan): boolean {
  return plan.changes.length === 0;
}
