/**
 * Digests that make a saved plan safe to apply later (issue 11, items 3 and 5):
 * - {@link planDigest}: the SHA-256 of the plan's canonical JSON, everything but the digest itself
 *   (its operations, changes, stores, checksums, targeting and safety verdict). A saved plan carries it
 *   (`digest`), and `carte apply FILE` refuses a plan whose content no longer matches it, before any
 *   call: a hand-edited plan (a price changed in an operation's body) is never applied.
 * - {@link storeDigest}: the SHA-256 of one store's normalized current state as planning read it
 *   (`checksums.stores[key]`). Just before a store's first write, the executor reads the store again and
 *   refuses to write it when the digest differs: another apply (on another machine, where a lock
 *   cannot reach) or a person changed it since the plan was made.
 *
 * The digest is tamper-evident, not a signature: whoever can write the file can recompute it. It guards
 * against edits of a reviewed plan on its way to `carte apply`; keep plan artifacts where only the
 * workflow writes them.
 */

import { createHash } from "node:crypto";
import { EVENTS_IDS, KEEPS_IDS } from "../kinds/webhooks.js";
import type { ReadState } from "../kinds/types.js";
import { canonicalJson } from "./checksum.js";
import type { Plan } from "./types.js";

function sha256(value: unknown): string {
  return "sha256:" + createHash("sha256").update(canonicalJson(value)).digest("hex");
}

/** `sha256:<hex>` of the plan's canonical JSON without its `digest` field. */
export function planDigest(plan: Plan): string {
  const { digest: _digest, ...rest } = plan;
  return sha256(rest);
}

/** The plan with its {@link planDigest} in `digest` (what is saved and printed as JSON). */
export function sealPlan(plan: Plan): Plan {
  return { ...plan, digest: planDigest(plan) };
}

/** Whether the plan carries a digest that matches its content. */
export function hasValidDigest(plan: Plan): boolean {
  return typeof plan.digest === "string" && plan.digest === planDigest(plan);
}

/**
 * `sha256:<hex>` of one store's normalized current state, ids included; `null` (a store the platform
 * does not show) has a digest too. Facts of the whole client that every store's read carries (which
 * webhook events exist, src/kinds/webhooks.ts) are left out: the apply itself changes them while other
 * stores still wait for their first write.
 */
export function storeDigest(state: ReadState | null | undefined): string {
  if (!state) return sha256(null);
  const { [EVENTS_IDS]: _events, [KEEPS_IDS]: _keeps, ...other } = state.ids.other;
  return sha256({ ...state, ids: { ...state.ids, other } });
}

/** `sha256:<hex>` of the client-level current state (client webhooks), kept as `checksums.stores[""]`. */
export function clientDigest(state: unknown): string {
  return sha256(state ?? null);
}
