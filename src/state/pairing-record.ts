/**
 * The pairings of store id and integration id the platform showed to be right (src/state/pairing.ts),
 * kept in `.carte/pairings.json` beside carte.yaml, so that a later plan that addresses the same store
 * by its integration id makes no read to check it again.
 *
 * The files of a pull request are hostile, `.carte/` included: a record committed there must not let
 * carte skip a check. So an entry is not the pairing but an HMAC-SHA256 of it (the target, the store id,
 * the integration id) under a key derived from the client secret: whoever lacks the secret cannot write
 * an entry carte believes, and an entry tells nothing of the secret. A record that is a link, not a
 * regular file, larger than {@link MAX_RECORD_BYTES} or not carte's is read as empty; one that cannot
 * be written is left as it was (the next plan checks again).
 */

import { createHmac } from "node:crypto";
import path from "node:path";
import { readOwnFileSync, writeFileAtomic } from "../atomic.js";

/** Largest record read, in bytes. */
export const MAX_RECORD_BYTES = 8 * 1024 * 1024;

/** Most entries kept; past it the oldest go. */
export const MAX_RECORD_ENTRIES = 200_000;

const FORMAT = "carte verified store pairings 1";
const ENTRY = /^[0-9a-f]{32}$/;

/** The verified pairings of one target and client ({@link openPairingRecord}). */
export interface PairingRecord {
  /** Whether the platform showed store `storeId` to have integration id `integrationId`. */
  has(storeId: string, integrationId: string): boolean;
  /** Records a pairing the platform showed (kept by {@link PairingRecord.save}). */
  add(storeId: string, integrationId: string): void;
  /** Writes the record when a pairing was added; a record that cannot be written is left. */
  save(): Promise<void>;
}

/**
 * The key of the record's entries: an HMAC of the target and client under the client secret. Never
 * the secret itself, and nothing it can be recovered from.
 *
 * @param target - where the run goes (`platform at HOST`, or the embedded emulator's state folder).
 */
export function pairingKey(clientSecret: string, clientId: string, target: string): Buffer {
  return createHmac("sha256", clientSecret).update(`carte store pairings\0${clientId}\0${target}`).digest();
}

/** The entries of the record file, or none when it is not one carte wrote. */
function readEntries(file: string): string[] {
  const bytes = readOwnFileSync(file, MAX_RECORD_BYTES);
  if (bytes === undefined) return []; // none yet, a link, or not a regular file
  try {
    const value = JSON.parse(bytes.toString("utf8")) as unknown;
    if (value === null || typeof value !== "object") return [];
    const { format, entries } = value as { format?: unknown; entries?: unknown };
    if (format !== FORMAT || !Array.isArray(entries) || entries.length > MAX_RECORD_ENTRIES) return [];
    return entries.filter((e): e is string => typeof e === "string" && ENTRY.test(e));
  } catch {
    return []; // not JSON: every pairing is checked again
  }
}

/**
 * The record of the project folder `root` (`root/.carte/pairings.json`) for the entries' `key`
 * ({@link pairingKey}); read when first asked.
 */
export function openPairingRecord(root: string, key: Buffer): PairingRecord {
  const file = path.join(root, ".carte", "pairings.json");
  let entries: Set<string> | undefined;
  let added = false;
  const load = () => (entries ??= new Set(readEntries(file)));
  const entry = (storeId: string, integrationId: string) =>
    createHmac("sha256", key).update(`${storeId}\0${integrationId}`).digest("hex").slice(0, 32);
  return {
    has: (storeId, integrationId) => load().has(entry(storeId, integrationId)),
    add(storeId, integrationId) {
      const e = entry(storeId, integrationId);
      const set = load();
      if (set.has(e)) return;
      set.add(e);
      added = true;
    },
    async save() {
      if (!added) return;
      const all = [...load()].slice(-MAX_RECORD_ENTRIES);
      try {
        await writeFileAtomic(file, `${JSON.stringify({ format: FORMAT, entries: all })}\n`, {
          root,
          purpose: "keep the verified store pairings in",
        });
        added = false;
      } catch {
        // Not kept: the next plan checks these pairings again, which is all it costs.
      }
    },
  };
}
