/**
 * Checksums of states, so that a saved plan can tell whether the world changed since it was made
 * (docs/plan-format.md `checksums`).
 *
 * Every checksum is a SHA-256 of canonical JSON: JSON with the keys of every object sorted, written
 * straight into the hash in chunks, without building a sorted copy of the value or one string of it.
 * A store's digest ({@link storeDigest}) is the checksum of its normalised state (client-wide webhook
 * facts left out), in the shape the plan format has always given it ({@link digestView}); the canonical
 * text of
 * a catalog resource (item, category, menu) object is kept for the run ({@link DigestMemo}), so that a
 * resource shared by many stores is serialised once (the desired side resolves identical resources of
 * a shared catalog to one object, and the streaming planner gives a live resource that equals its
 * desired one that same object). The plan's `current` and `desired` checksums are checksums of the
 * stores' digests, so that each store is digested on its own, as soon as it is read.
 */

import { createHash, type Hash } from "node:crypto";
import { EVENTS_IDS, KEEPS_IDS } from "../kinds/store-webhooks.js";
import {
  availabilityOf,
  categoriesOf,
  categoriesState,
  itemAvailabilityState,
  itemsOf,
  itemsState,
  menusOf,
  menusState,
} from "../kinds/catalog.js";
import { table, type DesiredState, type StoreState } from "../model.js";

/** Characters gathered before they are handed to the hash (or the string being built). */
const CHUNK = 1 << 16;

/** Whether a key is an array index ("0", "1", … up to 2³² − 2), which objects list first, ascending. */
function isIndex(key: string): boolean {
  const n = Number(key);
  return n >>> 0 === n && n !== 4294967295 && String(n) === key;
}

/**
 * The keys of an object in canonical order: the order of an object rebuilt with its keys sorted, as
 * carte's checksums have always been written. JavaScript lists array-index keys first, ascending by
 * value, whatever the insertion order; the other keys then come sorted by UTF-16 code units.
 */
function canonicalKeys(o: object): string[] {
  const keys = Object.keys(o);
  let indexes = 0;
  while (indexes < keys.length && isIndex(keys[indexes]!)) indexes++;
  if (indexes === 0) return keys.sort();
  return [...keys.slice(0, indexes), ...keys.slice(indexes).sort()];
}

/**
 * Canonical JSON already written, kept as its UTF-8 bytes and pushed as is. Bytes, not the string it
 * was built as: that string is a rope of every piece written, which the hash would walk and copy
 * again for every store that holds the resource; the bytes go into the hash as they are.
 */
class Verbatim {
  constructor(readonly bytes: Buffer) {}
}

/** Writes the canonical JSON of values into `sink`, in chunks of about {@link CHUNK} characters. */
class CanonicalWriter {
  private buffer = "";

  /**
   * @param sink - gets the text in order: strings of what was written, and the bytes of each
   *   {@link Verbatim} as they are.
   */
  constructor(private readonly sink: (chunk: string | Buffer) => void) {}

  /** Flushes what is gathered. */
  end(): void {
    if (this.buffer.length > 0) this.sink(this.buffer);
    this.buffer = "";
  }

  private push(text: string): void {
    this.buffer += text;
    if (this.buffer.length >= CHUNK) this.end();
  }

  /**
   * Writes a value as `JSON.stringify` would after sorting the keys of every object. Returns false
   * (and writes nothing) for a value JSON leaves out: `undefined`, a function, a symbol.
   */
  value(input: unknown, key: string): boolean {
    let v = input;
    if (v !== null && typeof v === "object" && typeof (v as { toJSON?: unknown }).toJSON === "function") {
      v = (v as { toJSON(key: string): unknown }).toJSON(key);
    }
    switch (typeof v) {
      case "string":
        this.push(JSON.stringify(v));
        return true;
      case "number":
        this.push(Number.isFinite(v) ? String(v) : "null");
        return true;
      case "boolean":
        this.push(v ? "true" : "false");
        return true;
      case "bigint":
        // As JSON.stringify: a BigInt has no JSON form.
        throw new TypeError("Do not know how to serialize a BigInt");
      case "object":
        break;
      default:
        return false;
    }
    if (v === null) {
      this.push("null");
      return true;
    }
    if (v instanceof Verbatim) {
      this.end();
      this.sink(v.bytes);
      return true;
    }
    if (Array.isArray(v)) {
      this.push("[");
      for (let i = 0; i < v.length; i++) {
        if (i > 0) this.push(",");
        if (!this.value(v[i], String(i))) this.push("null");
      }
      this.push("]");
      return true;
    }
    const o = v as Record<string, unknown>;
    this.push("{");
    let first = true;
    for (const k of canonicalKeys(o)) {
      const item = o[k];
      if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
      this.push(first ? JSON.stringify(k) + ":" : "," + JSON.stringify(k) + ":");
      first = false;
      this.value(item, k);
    }
    this.push("}");
    return true;
  }
}

/**
 * JSON with object keys sorted at every level (array-index keys first, see {@link canonicalKeys}): the
 * same value always gives the same text. Like `JSON.stringify`, it gives `undefined` for a value JSON
 * cannot show (`undefined`, a function).
 */
export function canonicalJson(value: unknown): string {
  let out = "";
  const writer = new CanonicalWriter(
    (chunk) => (out += typeof chunk === "string" ? chunk : chunk.toString("utf8")),
  );
  if (!writer.value(value, "")) return undefined as unknown as string;
  writer.end();
  return out;
}

/** Feeds the canonical JSON of a value into a hash. */
function hashInto(hash: Hash, value: unknown): void {
  const writer = new CanonicalWriter((chunk) =>
    typeof chunk === "string" ? hash.update(chunk, "utf8") : hash.update(chunk),
  );
  if (!writer.value(value, "")) throw new TypeError("a checksum needs a JSON value");
  writer.end();
}

/** `sha256:<hex>` of the canonical JSON of a value (a JSON value: not `undefined`). */
export function checksum(value: unknown): string {
  const hash = createHash("sha256");
  hashInto(hash, value);
  return "sha256:" + hash.digest("hex");
}

/**
 * The canonical JSON of resource objects already written in one run, by identity. Use one memo per run
 * only, over states nothing changes while it lives (the planner never changes a state it was given).
 */
export type DigestMemo = WeakMap<object, Verbatim>;

/** A new, empty {@link DigestMemo}. */
export function digestMemo(): DigestMemo {
  return new WeakMap();
}

/** The catalog fields of a store's {@link digestView} whose resources are memoised one by one. */
const RESOURCE_FIELDS = ["items", "categories", "menus"] as const;

function resourceJson(resource: unknown, memo: DigestMemo): unknown {
  if (resource === null || typeof resource !== "object") return resource;
  let text = memo.get(resource);
  if (text === undefined) {
    text = new Verbatim(Buffer.from(canonicalJson(resource), "utf8"));
    memo.set(resource, text);
  }
  return text;
}

/** The kinds whose states a digest writes at the top of the store's state ({@link digestView}). */
const CATALOG_KINDS: ReadonlySet<string> = new Set([
  itemsState.kind,
  categoriesState.kind,
  menusState.kind,
  itemAvailabilityState.kind,
]);

/**
 * A store's state in the shape the plan format digests it (docs/plan-format.md `checksums`): the
 * states of the catalog kinds at the top, under the fields they were kept in before they moved under
 * `kinds` (`items`, `upcomingPrices`, `categories`, `menus`, `unavailable`, `available`,
 * `suspensions`), present even when empty, and `kinds` holding the other kinds' states (absent when
 * there are none), so that the checksums of a saved plan are those a fresh read of an unchanged store
 * gives, whichever version of carte made the plan.
 */
export function digestView(state: StoreState): Record<string, unknown> {
  const { kinds, ...view } = state as StoreState & Record<string, unknown>;
  if (kinds !== undefined) {
    const others = table<unknown>();
    for (const name of Object.keys(kinds)) if (!CATALOG_KINDS.has(name)) others[name] = kinds[name];
    if (Object.keys(others).length > 0) view.kinds = others;
  }
  view.items = itemsOf(state);
  const upcoming = itemsState.get(state)?.upcomingPrices;
  if (upcoming !== undefined) view.upcomingPrices = upcoming;
  view.categories = categoriesOf(state);
  view.menus = menusOf(state);
  const { unavailable, available, suspensions } = availabilityOf(state);
  view.unavailable = unavailable;
  if (available !== undefined) view.available = available;
  if (suspensions !== undefined) view.suspensions = suspensions;
  return view;
}

/**
 * The digest of one store's normalised state (the current side with its platform ids, or the desired
 * side): `sha256:<hex>` of the canonical JSON of its {@link digestView}, exactly {@link checksum} of
 * that view. `null` (a store that was not read) has a digest too.
 *
 * @param memo - canonical JSON of resources already written in this run (see {@link DigestMemo}).
 */
export function storeDigest(state: StoreState | null | undefined, memo: DigestMemo = digestMemo()): string {
  if (!state) return checksum(null);
  const view = digestView(state);
  const ids = (state as { ids?: { other?: Record<string, unknown> } }).ids;
  const other = ids?.other;
  if (other && (Object.hasOwn(other, EVENTS_IDS) || Object.hasOwn(other, KEEPS_IDS))) {
    // Facts of the whole client that every store's read carries (which webhook events exist,
    // src/kinds/store-webhooks.ts): the apply itself changes them while other stores still wait for their
    // first write (src/run/store-guard.ts storeGuard), so a store's digest leaves them out.
    const { [EVENTS_IDS]: _events, [KEEPS_IDS]: _keeps, ...rest } = other;
    view.ids = { ...ids, other: rest };
  }
  for (const field of RESOURCE_FIELDS) {
    const resources = view[field] as Record<string, unknown> | undefined;
    if (!resources || typeof resources !== "object") continue;
    const texts = table<unknown>();
    for (const key of Object.keys(resources)) texts[key] = resourceJson(resources[key], memo);
    view[field] = texts;
  }
  return checksum(view);
}

/**
 * The checksum of the current state of a plan's scope (`checksums.current`): the checksum of the
 * stores' digests by store key, with the client-level state's checksum under the key `""` when the plan
 * read one.
 */
export function currentChecksum(stores: Readonly<Record<string, string>>, client?: unknown): string {
  return checksum(client === undefined ? stores : { ...stores, "": checksum(client) });
}

/**
 * The checksum of a desired state (`checksums.desired`): the checksum of its stores' digests by store
 * key, and of its client-level settings' checksum when it has some.
 */
export function desiredChecksum(desired: DesiredState, memo: DigestMemo = digestMemo()): string {
  const stores = table<string>();
  for (const key of Object.keys(desired.stores)) stores[key] = storeDigest(desired.stores[key], memo);
  return checksum(desired.client === undefined ? { stores } : { stores, client: checksum(desired.client) });
}
