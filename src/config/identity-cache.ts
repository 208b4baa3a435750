/**
 * The identities of store files kept across runs, by git object: a change-scoped plan
 * (src/gitops/change-scope.ts) needs, of each store file whose bytes are the base commit's, only its store
 * id, integration id (src/config/store-ids.ts) and SHA-256 (the plan's `checksums.files`). git names the
 * object of each such file (the base commit's tree), and an object's name is the hash of its bytes: what was
 * read from a file with those bytes once holds for every file with them. One entry of the parse cache
 * (src/config/parse-cache.ts, under its rules: an entry git knows, a link, one not the user's alone is never
 * read) holds them all, so that a thousand unchanged store files cost one small read instead of a thousand.
 */

import { carteVersion } from "./version.js";
import { parseCacheKey, type ParseCache } from "./parse-cache.js";
import type { PlainIdentity } from "./store-ids.js";

/** What a store file with the bytes of one git object holds, for a change-scoped load. */
export interface KnownIdentity extends PlainIdentity {
  /** The file's size in bytes: a work tree file of another size does not hold the object's bytes. */
  size: number;
  /** SHA-256 of the file's bytes (hex). */
  digest: string;
}

/** Most identities kept: the store files of the biggest chain, with room. */
export const MAX_IDENTITIES = 200_000;

/** The identities of store files by git object ({@link openIdentityCache}). */
export interface IdentityCache {
  /** What a file with the bytes of object `oid` holds, as an earlier run read it. */
  get(oid: string): KnownIdentity | undefined;
  /** Records what a file with the bytes of `oid` holds (read in this run). */
  learn(oid: string, identity: KnownIdentity): void;
  /**
   * Writes the identities of this run (those read from the entry and used, and those learned) when any
   * was learned; those of files no longer read are dropped. A cache that cannot be written is left.
   */
  save(): Promise<void>;
}

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const DIGEST = /^[0-9a-f]{64}$/;

/** One row of the entry, checked field by field; `undefined` for anything else. */
function row(value: unknown): [string, KnownIdentity] | undefined {
  if (!Array.isArray(value) || value.length !== 5) return undefined;
  const [oid, size, digest, id, integrationId] = value as unknown[];
  if (typeof oid !== "string" || !OID.test(oid)) return undefined;
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) return undefined;
  if (typeof digest !== "string" || !DIGEST.test(digest)) return undefined;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)))) return undefined;
  if (typeof integrationId !== "string") return undefined;
  return [oid, { size, digest, id, integration_id: integrationId }];
}

/**
 * The identity cache kept in `cache` (the project's parse cache), read when first asked.
 */
export function openIdentityCache(cache: ParseCache): IdentityCache {
  const key = parseCacheKey([carteVersion(), "store identities by git object"], "");
  let kept: Map<string, KnownIdentity> | undefined;
  const used = new Map<string, KnownIdentity>();
  let learned = 0;
  const load = () => {
    if (kept) return kept;
    kept = new Map();
    const value = cache.get(key);
    if (!Array.isArray(value) || value.length > MAX_IDENTITIES) return kept;
    for (const v of value) {
      const r = row(v);
      if (!r) return (kept = new Map()); // not an entry carte wrote: none believed
      kept.set(r[0], r[1]);
    }
    return kept;
  };
  return {
    get(oid) {
      const known = load().get(oid);
      if (known) used.set(oid, known);
      return known;
    },
    learn(oid, identity) {
      if (!OID.test(oid) || used.size >= MAX_IDENTITIES) return;
      used.set(oid, identity);
      learned++;
    },
    async save() {
      if (learned === 0) return;
      await cache.set(
        key,
        [...used].map(([oid, k]) => [oid, k.size, k.digest, k.id, k.integration_id]),
      );
    },
  };
}
