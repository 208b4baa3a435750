/**
 * Comparing a saved plan's changes with a fresh plan's. `carte apply FILE` never carries out the
 * operations a plan file holds: it plans afresh and applies the fresh plan only when its changes are the
 * saved plan's, change for change (docs/plan-format.md, docs/security.md "Saved plans"). The file's
 * digest cannot vouch for that: whoever can write the file can compute it again.
 */

import { quote } from "../source/quote.js";
import { checksum } from "./checksum.js";
import type { ResourceChange } from "./types.js";

/** How one address differs between a saved plan and a fresh one. */
export interface ChangeDifference {
  /** The change's address as written (from the file, for `saved` and `different`: escape it to show it). */
  address: string;
  /** Its store key, `""` for a client-level change. */
  store: string;
  /**
   * `saved`: only the saved plan has it; `fresh`: only the fresh plan has it; `different`: both have it,
   * with another action, kind, key, state before or after, diff or place; `repeated`: the saved plan
   * lists the address more than once.
   */
  how: "saved" | "fresh" | "different" | "repeated";
}

/**
 * What of a change is compared: everything that says what the change does (address, store, kind, key,
 * action, the normalised resources before and after, the attributes that change) and where it sits
 * (`within`). The fields added for people within version 1 (`group`, `title`, `label`) are left out: a plan
 * saved before they existed still compares.
 */
function changeDigest(c: ResourceChange): string {
  return checksum({
    address: c.address,
    store: c.store,
    kind: c.kind,
    key: c.key,
    action: c.action,
    before: c.before ?? null,
    after: c.after ?? null,
    diff: c.diff,
    within: c.within ?? null,
  });
}

/**
 * The addresses whose change differs between a saved plan and a fresh plan of the same files and
 * platform state, in the saved plan's order then the fresh plan's; empty when the two plans make
 * exactly the same changes. Linear in the size of the changes; only a digest of each change is kept.
 *
 * @param saved - the changes read from a plan file (their shape checked: src/plan/file.ts).
 * @param fresh - the changes of the plan made now.
 */
export function changeDifferences(
  saved: readonly ResourceChange[],
  fresh: readonly ResourceChange[],
): ChangeDifference[] {
  const now = new Map<string, { store: string; digest: string }>();
  for (const c of fresh) now.set(c.address, { store: c.store, digest: changeDigest(c) });
  const differences: ChangeDifference[] = [];
  const seen = new Set<string>();
  for (const c of saved) {
    if (seen.has(c.address)) {
      differences.push({ address: c.address, store: c.store, how: "repeated" });
      continue;
    }
    seen.add(c.address);
    const match = now.get(c.address);
    if (!match) differences.push({ address: c.address, store: c.store, how: "saved" });
    else if (match.digest !== changeDigest(c))
      differences.push({ address: c.address, store: c.store, how: "different" });
  }
  for (const [address, { store }] of now) {
    if (!seen.has(address)) differences.push({ address, store, how: "fresh" });
  }
  return differences;
}

/** The most differences {@link describeDifferences} names one by one. */
export const SHOWN_DIFFERENCES = 5;

const HOW: Record<ChangeDifference["how"], string> = {
  saved: "only in the saved plan",
  fresh: "only in a fresh plan",
  different: "not the same change",
  repeated: "listed twice in the saved plan",
};

/**
 * One line naming what differs: the first {@link SHOWN_DIFFERENCES} addresses (quoted, cut at 120
 * characters, escaped) with how each differs, then how many more and in which stores (at most five
 * named). For a {@link StalePlanError} message.
 */
export function describeDifferences(differences: readonly ChangeDifference[]): string {
  const n = differences.length;
  const shown = differences.slice(0, SHOWN_DIFFERENCES).map((d) => `${quote(d.address, 120)} ${HOW[d.how]}`);
  let text = `${n} change${n === 1 ? "" : "s"} differ${n === 1 ? "s" : ""}: ${shown.join(", ")}`;
  if (n > SHOWN_DIFFERENCES) {
    const stores = [...new Set(differences.slice(SHOWN_DIFFERENCES).map((d) => d.store))];
    const named = stores.slice(0, 5).map((s) => (s === "" ? "client-level" : quote(s, 60)));
    text +=
      `, and ${n - SHOWN_DIFFERENCES} more in ${stores.length} store${stores.length === 1 ? "" : "s"} ` +
      `(${named.join(", ")}${stores.length > named.length ? ", …" : ""})`;
  }
  return text;
}
