/**
 * The pairing checks of a run (src/state/pairing.ts says what a pairing is and how the platform shows
 * it): at plan time, for each store the plan addresses by integration id, and in an apply, before the
 * first such call of a store whose pairing the plan could not check yet (a new store whose categories
 * the same apply creates).
 */

import pLimit from "p-limit";
import { ConfigError, StoreIdentityError, formatProblem, type ConfigProblem } from "../errors.js";
import { findEndpoint } from "../plan/endpoints.js";
import type { Plan, PlanStore } from "../plan/types.js";
import type { PlatformClient } from "../platform/client.js";
import { bare, quote } from "../source/quote.js";
import type { PairingRecord } from "./pairing-record.js";
import { categoriesByIntegration, judgePairing, readPairing, type PairingVerdict } from "./pairing.js";

/** Where a store file writes its integration id (`file:line:col`, file relative to the working directory). */
export interface IdentitySite {
  file: string;
  line: number;
  col: number;
  pointer: string;
}

/** What a run knows of its stores to check their pairings and to name a store in a message. */
export interface PairingContext {
  client: PlatformClient;
  /** Verified pairings kept across runs; absent: every pairing is read. */
  record?: PairingRecord | undefined;
  /** Where each store's file writes its integration id, by store key. */
  sites?: ReadonlyMap<string, IdentitySite> | undefined;
  /** Reads at once. */
  parallelism: number;
}

/** The store keys of a plan's calls that address stores by integration id, in the plan's order. */
export function storesByIntegration(plan: Plan): string[] {
  const keys = new Set<string>();
  for (const op of plan.operations)
    if (findEndpoint(op.endpoint)?.storesBy === "integration_id") for (const s of op.stores) keys.add(s);
  return plan.stores.map((s) => s.key).filter((k) => keys.has(k));
}

/** Longest file name shown in a message. */
const FILE_MAX = 300;

/** `store 900101 (Bogotá Centro)`: a store as a message names it. Raw text of the files, escaped. */
function named(store: Pick<PlanStore, "storeId" | "name">): string {
  return `store ${bare(store.storeId)} (${bare(store.name)})`;
}

/**
 * The message of a pairing the platform refutes, or `undefined` for one it shows or cannot tell.
 *
 * @param owner - the store of the run whose categories the integration id shows, when known.
 */
export function pairingMessage(
  store: PlanStore,
  verdict: PairingVerdict,
  owner?: { store: PlanStore; file?: string | undefined },
): string | undefined {
  const iid = quote(store.key);
  const fix =
    "write the platform's integration id of this store (the one given when the store was set up on " +
    "the platform; `carte status` lists the stores the files name)";
  if (verdict.state === "unknown")
    return (
      `integration_id: the platform knows no store with integration id ${iid} for this client, so carte ` +
      `cannot switch items of ${named(store)} on or off: ${fix}`
    );
  if (verdict.state !== "mismatch") return undefined;
  const other = owner
    ? `${named(owner.store)}${owner.file ? `, whose file is ${bare(owner.file, FILE_MAX)}` : ""}`
    : `another store (the platform shows categories ${verdict.categoryIds.slice(0, 5).join(", ")} through it)`;
  return (
    `integration_id: ${iid} is the integration id of ${other}, not of ${named(store)} that this file ` +
    `names: switching an item on or off here would change the other store; ${fix}`
  );
}

/**
 * Checks the pairing of each store the plan addresses by integration id (one read each, none for a
 * pairing the record holds, nor for a store without categories yet: the apply checks that one, once it
 * created them, {@link applyPairingCheck}) against the categories the plan read by store id.
 *
 * @param categoriesOf - the category ids the plan read for a store (the smallest few), by store key.
 * @param ownerOf - the store key of the run whose categories include a category id, when known.
 * @throws {@link ConfigError} with one problem per store whose file's integration id is unknown to the
 *   platform or another store's, located at its `integration_id`, before any write; `ApiError` when a
 *   read fails.
 */
export async function checkPlanPairings(
  plan: Plan,
  context: PairingContext,
  categoriesOf: (key: string) => readonly number[],
  ownerOf: (categoryId: number) => string | undefined,
): Promise<void> {
  const { client, record } = context;
  const byKey = new Map(plan.stores.map((s) => [s.key, s]));
  const keys = storesByIntegration(plan).filter(
    (k) => !record?.has(byKey.get(k)!.storeId, k) && categoriesOf(k).length > 0,
  );
  const limit = pLimit(Math.max(1, context.parallelism));
  const verdicts = await Promise.all(
    keys.map((key) =>
      limit(async () => {
        const verdict = judgePairing(categoriesOf(key), await categoriesByIntegration(client, key));
        return { key, verdict };
      }),
    ),
  );
  const problems: ConfigProblem[] = [];
  for (const { key, verdict } of verdicts) {
    const store = byKey.get(key)!;
    if (verdict.state === "verified") record?.add(store.storeId, key);
    const ownerKey =
      verdict.state === "mismatch"
        ? verdict.categoryIds.map(ownerOf).find((k) => k !== undefined && k !== key)
        : undefined;
    const owner = ownerKey === undefined ? undefined : byKey.get(ownerKey);
    const message = pairingMessage(
      store,
      verdict,
      owner && { store: owner, file: context.sites?.get(ownerKey!)?.file },
    );
    if (message !== undefined) problems.push(problemAt(context.sites?.get(key), message));
  }
  await record?.save();
  if (problems.length > 0) throw new ConfigError(problems);
}

function problemAt(site: IdentitySite | undefined, message: string): ConfigProblem {
  return {
    file: site?.file ?? "",
    line: site?.line ?? 0,
    col: site?.col ?? 0,
    pointer: site?.pointer ?? "/store/integration_id",
    message,
  };
}

/** How often an apply reads a new store's categories while waiting for those it created, in ms. */
const POLL_MS = 100;

/**
 * The check an apply makes before the first call that addresses a store by integration id, for a store
 * whose pairing neither its plan nor the record showed (a new store, whose categories the same apply
 * creates): its categories by store id against those of its integration id. Rejects with the located
 * message when the integration id is unknown or shows another store's categories: the store's calls by
 * integration id are then not made. A pairing shown right is added to the record, which the apply saves
 * once its calls are over.
 *
 * When the apply creates categories in the store (`EndpointSpec.revealsPairing`: asynchronous writes,
 * docs/platform-api.md §2.4) and either address shows none yet, both are read again until both show
 * some, for up to `waitMs`: one address may show them a moment before the other. Past that, or when the
 * apply creates none, the call goes: a store the integration id names that shows no category has no
 * item the call could switch, and the apply's verification reads the store by its id, so a change that
 * landed elsewhere leaves the apply incomplete; the next plan checks the pairing.
 */
export function applyPairingCheck(
  plan: Plan,
  context: PairingContext,
  waitMs: number,
): (key: string) => Promise<void> {
  const byKey = new Map(plan.stores.map((s) => [s.key, s]));
  const creating = new Set(
    plan.operations.filter((o) => findEndpoint(o.endpoint)?.revealsPairing).flatMap((o) => o.stores),
  );
  return async (key) => {
    const store = byKey.get(key);
    if (!store || context.record?.has(store.storeId, key)) return;
    const until = Date.now() + (creating.has(key) ? waitMs : 0);
    for (;;) {
      const { verdict, byStore, byIntegration } = await readPairing(context.client, store.storeId, key);
      if (verdict.state === "verified") return context.record?.add(store.storeId, key);
      const waiting = Date.now() + POLL_MS <= until;
      // While the categories this apply created are being made visible, one address may show them a
      // moment before the other: categories on one side only prove two stores once the wait is over.
      const showing = verdict.state === "mismatch" && (byStore.length === 0 || byIntegration!.length === 0);
      const message = showing && waiting ? undefined : pairingMessage(store, verdict);
      if (message !== undefined) {
        const site = context.sites?.get(key);
        const located = site && site.line > 0 ? formatProblem(problemAt(site, message)) : message;
        throw new StoreIdentityError(key, located);
      }
      if (!waiting) return;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  };
}
