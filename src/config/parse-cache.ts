/**
 * Parsed files kept across runs, by content: `.carte/cache/` in the project folder holds the value of a
 * big file (a catalog) that parsed without a problem and matched its schema, under the SHA-256 of its
 * bytes and of everything else its reading depends on, so that the next run with the same bytes (a pull
 * request's change-scoped plan, run after run) skips the parse. Where a problem must be located in such
 * a file, or a price read as written, the file is parsed then (src/source/yaml.ts `lazyYamlFile`).
 *
 * A pull request controls the files of the checkout, `.carte/` included: an entry it commits must never
 * be believed, or it could make carte plan prices that no file says. git writes every file it checks out
 * with the user's umask (0644 or 0755 mostly) and records no owner; carte writes its entries with mode
 * 0600, in a folder only the user may write. So an entry is read only when git does not know its path
 * (neither the base commit nor the work tree's changes hold it: `gitKnown`, whatever the umask made of
 * a committed file's mode), when it is a regular file (not a link, opened without following one), owned
 * by the user running carte, readable and writable by nobody else, within its size bound, and names
 * its own key; `.carte/` and `.carte/cache/` must be real folders (no links) owned by that user and
 * writable by nobody else. Anything else is passed over and the file parsed as usual; nothing is ever
 * written through a link (src/atomic.ts). Where the system has no file owners to check (Windows), there
 * is no cache.
 */

import { createHash } from "node:crypto";
import { lstatSync, readdirSync, type Stats } from "node:fs";
import path from "node:path";
import { readOwnFileSync, removeFile, writeFileAtomic } from "../atomic.js";

/** Version of the entries' layout; part of every key. */
const FORMAT = "carte parsed file 1";

/** Files smaller than this are parsed: reading an entry would cost about as much. */
export const MIN_CACHED_CHARS = 16 * 1024;

/** Most entries kept: past it, the oldest written go (a chain has a few big files). */
export const MAX_CACHE_ENTRIES = 32;

/** Largest entry read or written, in bytes. */
export const MAX_ENTRY_BYTES = 64 * 1024 * 1024;

/** A cache of parsed files ({@link openParseCache}). */
export interface ParseCache {
  /** The value stored under `key` ({@link parseCacheKey}) by this user, or `undefined`. */
  get(key: string): unknown;
  /**
   * Stores `value` under `key`, then drops the oldest entries past {@link MAX_CACHE_ENTRIES}. A cache
   * that cannot be written (a link on the way, a full disk) is left as it is: the run goes on.
   */
  set(key: string, value: unknown): Promise<void>;
}

/**
 * The key of a file's value: the SHA-256 of the entries' format, what the value depends on besides the
 * bytes (carte's version, the kind of file, the parse bounds, the currency, the schemas' digest:
 * `context`) and the file's own SHA-256 (`digest`).
 */
export function parseCacheKey(context: readonly (string | number)[], digest: string): string {
  return createHash("sha256")
    .update([FORMAT, ...context.map(String), digest].join("\0"))
    .digest("hex");
}

const HEX_KEY = /^[0-9a-f]{64}$/;

/** `.carte/cache/.gitignore`: git ignores the folder, this file included. */
const GITIGNORE = "# carte's cache of parsed files, for this machine only (never committed)\n*\n";

/** The user's id, where the system has file owners. */
function userId(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

/** Owned by `uid`, and writable (`mask` 0o022) or readable and writable (0o077) by nobody else. */
const ownedAlone = (s: Stats, uid: number, mask: number) => s.uid === uid && (s.mode & mask) === 0;

/**
 * The parse cache of the project folder `root` (`root/.carte/cache/`), or `undefined` where the system
 * has no file owners. `gitKnown`: whether git knows a path (relative to `root`, `/` separators) from the
 * base commit or the work tree's changes: such an entry came with the files, and is never read. Nothing
 * is read or created until used.
 */
export function openParseCache(
  root: string,
  gitKnown: (relative: string) => boolean,
): ParseCache | undefined {
  const uid = userId();
  if (uid === undefined) return undefined;
  const carte = path.join(root, ".carte");
  const dir = path.join(carte, "cache");
  /** Whether the folders may hold entries: real folders, the user's, no one else's to write. */
  let trusted: boolean | undefined;
  const folders = (): "trusted" | "absent" | "refused" => {
    for (const f of [carte, dir]) {
      let s: Stats;
      try {
        s = lstatSync(f);
      } catch {
        return "absent";
      }
      if (!s.isDirectory() || !ownedAlone(s, uid, 0o022)) return "refused";
    }
    return "trusted";
  };
  const target = { root, purpose: "keep a parsed file in" };
  return {
    get(key) {
      if (!HEX_KEY.test(key)) return undefined;
      trusted ??= folders() === "trusted";
      if (!trusted || gitKnown(`.carte/cache/${key}.json`)) return undefined;
      const bytes = readOwnFileSync(path.join(dir, `${key}.json`), MAX_ENTRY_BYTES, (s) =>
        ownedAlone(s, uid, 0o077),
      );
      if (bytes === undefined) return undefined; // none, a link, or not the user's alone
      try {
        const entry = JSON.parse(bytes.toString("utf8")) as unknown;
        if (entry === null || typeof entry !== "object") return undefined;
        const e = entry as { format?: unknown; key?: unknown; value?: unknown };
        return e.format === FORMAT && e.key === key && Object.hasOwn(e, "value") ? e.value : undefined;
      } catch {
        return undefined; // not an entry: parsed as usual
      }
    },
    async set(key, value) {
      if (!HEX_KEY.test(key)) return;
      const state = folders();
      if (state === "refused") return;
      const text = JSON.stringify({ format: FORMAT, key, value });
      if (Buffer.byteLength(text) > MAX_ENTRY_BYTES) return;
      try {
        // Mode 0600 in folders of mode 0700, never through a link (src/atomic.ts); not fsynced: an
        // entry lost to a crash is only parsed again. The folder ignores itself for git: its entries
        // are never committed, and never count as a change of the files (`--scope changed`).
        await writeFileAtomic(path.join(dir, ".gitignore"), GITIGNORE, {
          ...target,
          durable: false,
          overwrite: false,
        });
        await writeFileAtomic(path.join(dir, `${key}.json`), text, { ...target, durable: false });
        trusted = folders() === "trusted";
        const entries = readdirSync(dir, { withFileTypes: true })
          .filter((d) => d.isFile() && /^[0-9a-f]{64}\.json$/.test(d.name))
          .map((d) => ({ file: path.join(dir, d.name), at: lstatSync(path.join(dir, d.name)).mtimeMs }));
        if (entries.length <= MAX_CACHE_ENTRIES) return;
        entries.sort((a, b) => a.at - b.at);
        for (const e of entries.slice(0, entries.length - MAX_CACHE_ENTRIES))
          await removeFile(e.file, target);
      } catch {
        // A cache that cannot be written costs a parse next time, nothing else.
      }
    },
  };
}
