/**
 * Digests of plans and stores:
 * - {@link planDigest}: the SHA-256 of the plan's canonical JSON, everything but the digest itself
 *   (its operations, changes, stores, checksums, targeting and safety verdict). A saved plan carries it
 *   (`digest`), and `carte apply FILE` refuses a plan whose content no longer matches it, before any
 *   call: a plan edited by hand, cut short or mixed up is caught.
 * - {@link storeDigest} (src/plan/checksum.ts): the SHA-256 of one store's normalized current state as
 *   planning read it (`checksums.stores[key]`). Just before a store's first write, the executor reads the store again and
 *   refuses to write it when the digest differs: another apply (on another machine, where a lock
 *   cannot reach) or a person changed it since the plan was made.
 *
 * The plan's digest guards against accidents, not attackers: whoever can write the file can compute it
 * again. What stands against them is that `carte apply FILE` never carries out a file's operations: it
 * applies a fresh plan, and only when its changes are the saved plan's (src/run/saved-plan.ts
 * `checkSavedPlan`, docs/security.md "Saved plans").
 */

import { checksum, storeDigest } from "./checksum.js";
import type { Plan } from "./types.js";

/** `sha256:<hex>` of the plan's canonical JSON without its `digest` field. */
export function planDigest(plan: Plan): string {
  const { digest: _digest, ...rest } = plan;
  return checksum(rest);
}

/** The plan with its {@link planDigest} in `digest` (what is saved and printed as JSON). */
export function sealPlan(plan: Plan): Plan {
  return { ...plan, digest: planDigest(plan) };
}

/** Whether the plan carries a digest that matches its content. */
export function hasValidDigest(plan: Plan): boolean {
  return typeof plan.digest === "string" && plan.digest === planDigest(plan);
}

/** `sha256:<hex>` of the client-level current state (client webhooks), kept as `checksums.stores[""]`. */
export function clientDigest(state: unknown): string {
  return checksum(state ?? null);
}

/** A store's digest, `checksums.stores[key]`: src/plan/checksum.ts {@link storeDigest}. */
export { storeDigest };
