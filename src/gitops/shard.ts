/**
 * Sharding (`carte plan --shard K/N`, the Action's `shard` input): a chain too large for one runner is
 * split into N parts that a GitHub Actions matrix plans and applies in parallel.
 *
 * - Each store goes to one shard by rendezvous (highest random weight) hashing of its key (the
 *   integration id): the shard whose `sha256("carte:" + key + ":" + shard)` is highest. The split
 *   is deterministic, needs no table, and is stable: adding or removing a store moves no other store;
 *   going from N to N+1 shards moves only the stores the new shard wins (about 1/(N+1) of them).
 * - Client-level resources (settings of the integration, `client.*` addresses) belong to shard 1 only,
 *   so that no two jobs write them.
 * - {@link mergePlans} joins the shards' plans into the plan one job would have shown (the same stores,
 *   changes, counts and order), for the `report` command's single comment.
 */

import { createHash } from "node:crypto";
import type { LoadedProject } from "../config/index.js";
import { CommandLineError, PlanFileError } from "../errors.js";
import type { DesiredState } from "../model.js";
import { checksum } from "../plan/checksum.js";
import { PLAN_FORMAT_VERSION, type Plan } from "../plan/types.js";

/** One shard of N: `index` from 1 to `count`. */
export interface Shard {
  index: number;
  count: number;
}

/** The most shards a run may be split into. */
export const MAX_SHARDS = 256;

/**
 * Parses `K/N` (1 ≤ K ≤ N ≤ {@link MAX_SHARDS}). Throws {@link CommandLineError} on anything else, naming
 * `what` (the flag or input the text came from).
 */
export function parseShard(text: string, what = "--shard"): Shard {
  const m = /^\s*(\d{1,3})\s*\/\s*(\d{1,3})\s*$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || index < 1 || count < 1 || index > count || count > MAX_SHARDS) {
    throw new CommandLineError(
      `${what} must be K/N with 1 ≤ K ≤ N ≤ ${MAX_SHARDS} (e.g. 2/4), got ${JSON.stringify(text)}`,
    );
  }
  return { index, count };
}

/** The weight of a store key on a shard: the first 8 bytes of a SHA-256, as an unsigned integer. */
function weight(key: string, shard: number): bigint {
  return createHash("sha256").update(`carte:${key}:${shard}`).digest().readBigUInt64BE(0);
}

/** The shard (1…`count`) a store key belongs to: rendezvous hashing, see the module comment. */
export function shardOf(key: string, count: number): number {
  let best = 1;
  let bestWeight = -1n;
  for (let i = 1; i <= count; i++) {
    const w = weight(key, i);
    if (w > bestWeight) {
      best = i;
      bestWeight = w;
    }
  }
  return best;
}

/**
 * The part of a desired state a shard plans: its stores, and the client-level settings on shard 1; the
 * project's currency on every shard.
 */
export function shardDesired(desired: DesiredState, shard: Shard): DesiredState {
  const stores = Object.fromEntries(
    Object.entries(desired.stores).filter(([key]) => shardOf(key, shard.count) === shard.index),
  );
  return {
    stores,
    ...(shard.index === 1 && desired.client ? { client: desired.client } : {}),
    ...(desired.currency !== undefined ? { currency: desired.currency } : {}),
  };
}

/** A loaded project limited to one shard ({@link shardDesired}). */
export function shardProject(project: LoadedProject, shard: Shard): LoadedProject {
  return { ...project, desired: shardDesired(project.desired, shard) };
}

/**
 * A shard can hold no store (more shards than stores, or an unlucky split): that is not the `no_stores`
 * mistake the guard is for when the whole configuration names stores. Removes that violation from the
 * plan's verdict in that case.
 */
export function allowEmptyShard(plan: Plan, project: LoadedProject): void {
  if (Object.keys(project.desired.stores).length === 0) return;
  const violations = plan.safety.violations.filter((v) => v.guard !== "no_stores");
  if (violations.length === plan.safety.violations.length) return;
  plan.safety = { ...plan.safety, violations, ok: violations.length === 0 };
}

/**
 * Joins the plans of the shards of one run (each planned a disjoint set of stores) into one plan: the
 * stores sorted by key, each store's changes in the order its shard gave them, client-level changes
 * last, as one job orders them; counts summed; the safety verdicts joined. The operations are the
 * shards' own calls (each shard makes its own), in stage order; their number can exceed what one job
 * would make, since one job batches some calls across stores. Checksums are those of the shards' lists;
 * the currency is the project's; the information about stores (`info`) is joined, by store.
 * Throws {@link PlanFileError} when the plans overlap (a store in two of them) or mix plan formats.
 */
export function mergePlans(plans: Plan[]): Plan {
  if (plans.length === 1) return plans[0]!;
  for (const p of plans) {
    if (p.formatVersion !== PLAN_FORMAT_VERSION) {
      throw new PlanFileError(
        `a shard's plan has format version ${String(p.formatVersion)}, not ${PLAN_FORMAT_VERSION}`,
      );
    }
  }
  const seen = new Set<string>();
  for (const s of plans.flatMap((p) => p.stores)) {
    if (seen.has(s.key))
      throw new PlanFileError(`store ${s.key} is in two shards' plans: not one run's shards`);
    seen.add(s.key);
  }
  const stores = plans.flatMap((p) => p.stores).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const all = plans.flatMap((p) => p.changes);
  const byStore = new Map<string, typeof all>();
  for (const c of all) {
    const list = byStore.get(c.store);
    if (list) list.push(c);
    else byStore.set(c.store, [c]);
  }
  const changes = [...stores.map((s) => s.key), ""].flatMap((k) => byStore.get(k) ?? []);
  const operations = plans
    .flatMap((p) => p.operations)
    .map((op, i) => ({ op, i }))
    .sort((a, b) => a.op.stage - b.op.stage || a.i - b.i)
    .map((x) => x.op);
  const sum = (k: "create" | "update" | "delete" | "operations" | "stores") =>
    plans.reduce((n, p) => n + p.summary[k], 0);
  const violations = plans.flatMap((p) => p.safety.violations);
  const override = plans.find((p) => p.safety.override)?.safety.override;
  const found = plans.find((p) => p.targeting)?.targeting;
  // Change-scoped shards (`--scope changed`): one scope, the stores and reads of every shard's.
  const scopes = plans.flatMap((p) => (p.targeting?.scope ? [p.targeting.scope] : []));
  const targeting =
    found && scopes.length > 0
      ? {
          ...found,
          scope: {
            ...scopes[0]!,
            stores: scopes
              .flatMap((s) => s.stores)
              .sort((a, b) => (a.store < b.store ? -1 : a.store > b.store ? 1 : 0)),
            client: [...new Set(scopes.flatMap((s) => s.client))],
            removed: scopes
              .flatMap((s) => s.removed)
              .sort((a, b) => (a.store < b.store ? -1 : a.store > b.store ? 1 : 0)),
            reads: [...new Set(scopes.flatMap((s) => s.reads))],
          },
        }
      : found;
  // One project's shards: one currency.
  const currency = plans.find((p) => p.currency !== undefined)?.currency;
  // Information about stores (items staff switched off, upcoming prices), by store as the changes.
  const info = plans
    .flatMap((p) => p.info ?? [])
    .sort((a, b) => (a.store < b.store ? -1 : a.store > b.store ? 1 : 0));
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    stores,
    changes,
    operations,
    summary: {
      create: sum("create"),
      update: sum("update"),
      delete: sum("delete"),
      operations: sum("operations"),
      stores: sum("stores"),
    },
    checksums: {
      current: checksum(plans.map((p) => p.checksums.current)),
      desired: checksum(plans.map((p) => p.checksums.desired)),
      // Each store's digest, from the one shard that planned it (the client's, `""`, from shard 1), so
      // that an apply of the merged plan still checks each store before its first write.
      ...(plans.every((p) => p.checksums.stores !== undefined)
        ? {
            stores: Object.fromEntries(
              plans
                .flatMap((p) => Object.entries(p.checksums.stores!))
                .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
            ),
          }
        : {}),
    },
    ...(targeting ? { targeting } : {}),
    safety: { ok: violations.length === 0, violations, ...(override ? { override } : {}) },
    ...(currency !== undefined ? { currency } : {}),
    ...(info.length > 0 ? { info } : {}),
  };
}
