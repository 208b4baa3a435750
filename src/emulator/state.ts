/**
 * State of the platform emulator: clients, stores, tokens, each store's catalog, the queue of accepted
 * asynchronous writes, and persistence to a state file.
 *
 * Every store keeps two catalogs:
 * - `projected`: the catalog as it WILL be once every accepted write is applied. Writes are validated
 *   against it and applied to it synchronously when accepted (ids are assigned at acceptance), so a
 *   client may send `POST /items` and immediately a `POST /categories` that references the new items.
 * - `visible`: what reads return. It lags: each accepted write is applied to it `applyDelayMs` later,
 *   in acceptance order (docs/platform-api.md §4.3: writes are processed asynchronously).
 *
 * Records are immutable: writes replace them, never mutate them, so both catalogs may share records.
 */

import { randomBytes } from "node:crypto";
import { lstat, readFile } from "node:fs/promises";

import { rootFor, writeFileAtomic } from "../atomic.js";
import { FileWriteError, StateFileError } from "../errors.js";

import type { ItemType, ModifiersType, WireImage, WireOverride, WireSchedule } from "../platform/wire.js";
import { bare } from "../source/quote.js";
import { DEFAULT_COUNTRY, hasCalendar, ownHolidayProblems } from "./calendars.js";
import { ClientSecret, isSecretHash } from "./credentials.js";
import { fail } from "./http-error.js";
import type { TokenSurface } from "../platform/routes.js";
import type { JsonParts } from "./json-parts.js";

/** A reference from a parent (item, category) to a child item, or from a menu to a category. */
export interface ChildRef {
  id: number;
  index: number;
}

/**
 * A catalog item or modifier group as stored (docs/platform-api.md §4.3 Item). Children are kept by platform
 * id.
 */
export interface ItemRec {
  id: number;
  sku: string;
  item_type: ItemType;
  last_updated: string;
  title_info: { title: string; overrides: WireOverride[] };
  description_info: { description: string; overrides: WireOverride[] };
  images_info: { images: Required<WireImage>[]; overrides: WireOverride[] };
  children: ChildRef[];
  children_overrides: WireOverride[];
  price_info: { price: number; overrides: WireOverride[] };
  quantity_info: {
    min_permitted: number | null;
    max_permitted: number | null;
    modifiers_type: ModifiersType | null;
    overrides: WireOverride[];
  };
  schedules_info: { schedules: WireSchedule[]; overrides: WireOverride[] };
  /** `suspension_info.is_available`. Upserts never change it; availability writes do. */
  available: boolean;
  /**
   * `suspension_info.suspend_until` and `suspend_reason` as last written by an upsert that carried
   * `suspension_info` (kept as sent; absent or null: none). An upsert without `suspension_info` keeps
   * them; switching the item on or off through an availability call clears both (docs/platform-api.md,
   * "Who switched an item off").
   */
  suspend_until?: string | null;
  suspend_reason?: string | null;
}

/**
 * Whether an item is available at `now` (ms since the epoch): switched on, or switched off with a
 * `suspend_until` that has passed (docs/platform-api.md §4.3: `suspend_until: null` with
 * `is_available: false` means suspended until turned on again, so a time ends the suspension).
 */
export function availableAt(r: ItemRec, now: number = Date.now()): boolean {
  if (r.available) return true;
  if (typeof r.suspend_until !== "string") return false;
  const until = Date.parse(r.suspend_until);
  return Number.isFinite(until) && until <= now;
}

/**
 * The earliest moment after `now` (ms since the epoch) at which an item of `cat` switched off comes
 * back on by its `suspend_until` ({@link availableAt}); `Infinity` when none will. An answer rendered
 * from `cat` at `now` is true until then.
 */
export function nextSuspensionEnd(cat: Catalog, now: number): number {
  let next = Infinity;
  for (const r of cat.items.values()) {
    if (r.available || typeof r.suspend_until !== "string") continue;
    const until = Date.parse(r.suspend_until);
    if (Number.isFinite(until) && until > now && until < next) next = until;
  }
  return next;
}

/**
 * An item switched on or off by an availability call (v2 toggles, legacy stock PATCH): either call ends
 * the details of an earlier suspension, `suspend_until` and `suspend_reason` become null (an upsert that
 * sends `suspension_info` sets them again). `undefined` when nothing changes.
 */
export function toggled(r: ItemRec, available: boolean): ItemRec | undefined {
  if (r.available === available && r.suspend_until == null && r.suspend_reason == null) return undefined;
  const { suspend_until: _until, suspend_reason: _reason, ...rest } = r;
  return { ...rest, available };
}

/** Whether `rec` has `field` set to `value`, or has no such field when `value` is null (as {@link keepSuspension} writes it). */
function holds(rec: ItemRec, field: "suspend_until" | "suspend_reason", value: string | null): boolean {
  return Object.hasOwn(rec, field) ? value !== null && rec[field] === value : value === null;
}

/**
 * A stored item with its suspension carried over from `prev` (the stored record of the same id): an
 * upsert never changes availability, and changes `suspend_until` / `suspend_reason` only when it sends
 * `suspension_info` (`sent`).
 */
export function keepSuspension(
  rec: ItemRec,
  prev: ItemRec | undefined,
  sent: { until: string | null; reason: string | null } | undefined,
): ItemRec {
  const until = sent ? sent.until : (prev?.suspend_until ?? null);
  const reason = sent ? sent.reason : (prev?.suspend_reason ?? null);
  const available = prev ? prev.available : rec.available;
  // `rec` itself when it already says all this (a new item, an upsert that changes no suspension):
  // records are immutable, so the projected and the visible catalog share it instead of holding a
  // copy each (an apply from empty wrote every item of every store twice over).
  if (
    available === rec.available &&
    holds(rec, "suspend_until", until) &&
    holds(rec, "suspend_reason", reason)
  )
    return rec;
  const out: ItemRec = { ...rec, available };
  if (until !== null) out.suspend_until = until;
  else delete out.suspend_until;
  if (reason !== null) out.suspend_reason = reason;
  else delete out.suspend_reason;
  return out;
}

/**
 * A category as stored (docs/platform-api.md §4.3 Category). Its `menus` are derived from the menus when
 * read.
 */
export interface CategoryRec {
  id: number;
  sku: string;
  title: string;
  last_updated: string;
  items: ChildRef[];
  schedules: WireSchedule[];
}

/** A menu as stored (docs/platform-api.md §4.3 Menu). Menus have no SKU. */
export interface MenuRec {
  id: number;
  menu_type: string;
  /**
   * The linked super store (docs/platform-api.md §4.3 uint64); 0 for none, as the spec has no null for it.
   */
  super_store_id: number;
  last_updated: string;
  categories: (ChildRef & { is_category_active: boolean })[];
}

/** One store's catalog with SKU indexes. */
export interface Catalog {
  items: Map<number, ItemRec>;
  itemSku: Map<string, number>;
  categories: Map<number, CategoryRec>;
  categorySku: Map<string, number>;
  menus: Map<number, MenuRec>;
}

export function emptyCatalog(): Catalog {
  return {
    items: new Map(),
    itemSku: new Map(),
    categories: new Map(),
    categorySku: new Map(),
    menus: new Map(),
  };
}

/** A shallow copy: new maps, shared (immutable) records. */
export function copyCatalog(c: Catalog): Catalog {
  return {
    items: new Map(c.items),
    itemSku: new Map(c.itemSku),
    categories: new Map(c.categories),
    categorySku: new Map(c.categorySku),
    menus: new Map(c.menus),
  };
}

export function catalogFrom(items: ItemRec[], categories: CategoryRec[], menus: MenuRec[]): Catalog {
  const c = emptyCatalog();
  for (const i of items) {
    c.items.set(i.id, i);
    c.itemSku.set(i.sku, i.id);
  }
  for (const k of categories) {
    c.categories.set(k.id, k);
    c.categorySku.set(k.sku, k.id);
  }
  for (const m of menus) c.menus.set(m.id, m);
  return c;
}

/**
 * A store of a client. `key` is the platform store id as a decimal string (uint64,
 * docs/platform-api.md §2.4).
 */
export interface StoreRec {
  key: string;
  integration_id: string;
  name: string;
  client_id: string;
  visible: Catalog;
  projected: Catalog;
  /**
   * Serialized GET answers of the visible catalog (JSON text in pieces, http.ts `jsonParts`), dropped
   * whenever it changes. server.ts encodes an answer into a reused buffer as it sends it (fresh memory
   * for each rendered answer cost more than the encoding).
   */
  renderCache: Map<string, JsonParts>;
  /**
   * Until when (ms since the epoch) the answers of {@link renderCache} hold: the first end of a
   * suspension of the visible catalog after they were rendered ({@link nextSuspensionEnd}), when that
   * item reads as switched on again although nothing was written. Set when the cache is filled again.
   */
  renderUntil?: number | undefined;
  /**
   * Store availability (docs/platform-api.md §4.4: `POST /availability/stores` answers it);
   * default true. Changed by the store availability calls of stores.ts.
   */
  open: boolean;
  /**
   * Whether the store is open once its pending availability changes are visible; absent when none is
   * pending. The state file keeps this one, like the projected catalogs.
   */
  openProjected?: boolean | undefined;
  /**
   * Key of the parent (super) store of a child store (docs/platform-api.md §4.6); utils corridor reads use
   * it.
   */
  parent?: string | undefined;
  /**
   * The store's country (ISO 3166-1 alpha-2), whose holidays it has (calendars.ts): the seed's, else
   * {@link DEFAULT_COUNTRY}.
   */
  country: string;
  /** The store's own holiday dates `MM-DD`, when the seed gives them: in place of its country's. */
  holidays?: readonly string[] | undefined;
}

export interface ClientRec {
  client_id: string;
  /** The client's secret: checked at login, persisted as a salted hash only (credentials.ts). */
  secret: ClientSecret;
  /** Keys of the client's stores. */
  stores: Set<string>;
}

export interface TokenRec {
  client_id: string;
  surface: TokenSurface;
  expiresAt: number;
}

/** A seed store as given to {@link EmulatorState.provision} (already checked). */
export interface ProvisionStore {
  id: string | number;
  integration_id: string;
  name: string;
  /** Id of the parent (super) store, for a child store (docs/platform-api.md §4.6). */
  parent?: string | number | undefined;
  /** The store's country; default its client's, else {@link DEFAULT_COUNTRY}. */
  country?: string | undefined;
  /** The store's own holiday dates `MM-DD`; default its client's when its country is not its own. */
  holidays?: readonly string[] | undefined;
}

/** A seed client as given to {@link EmulatorState.provision} (already checked). */
export interface ProvisionClient {
  client_id: string;
  client_secret: string;
  /** The country of the client's stores that name none. */
  country?: string | undefined;
  /** The holiday dates of the client's stores that give neither a country nor dates of their own. */
  holidays?: readonly string[] | undefined;
  stores: ProvisionStore[];
}

/**
 * The country and holiday dates a seed gives a store: the most specific level wins (the store, then
 * its client), and at one level its own dates win over its country's calendar.
 */
function calendarOf(
  c: ProvisionClient,
  s: ProvisionStore,
): { country: string; holidays?: readonly string[] } {
  if (s.holidays !== undefined)
    return { country: s.country ?? c.country ?? DEFAULT_COUNTRY, holidays: s.holidays };
  if (s.country !== undefined) return { country: s.country };
  if (c.holidays !== undefined) return { country: c.country ?? DEFAULT_COUNTRY, holidays: c.holidays };
  return { country: c.country ?? DEFAULT_COUNTRY };
}

export interface StateOptions {
  applyDelayMs: number;
  tokenTtlSeconds: number;
  stateFile?: string | undefined;
  /** The folder the state file must stay under (src/atomic.ts); default {@link rootFor} of the file. */
  stateRoot?: string | undefined;
  log?: ((line: string) => void) | undefined;
}

/** A write applied to a catalog; must be deterministic (ids and timestamps fixed at acceptance). */
export type CatalogWrite = (cat: Catalog) => void;

interface PendingWrite {
  dueAt: number;
  store: StoreRec;
  write: CatalogWrite;
  kind: string | undefined;
}

/**
 * A piece of emulator state kept outside the catalogs (webhooks, ...), saved in the state file under
 * `parts[name]` and emptied by {@link EmulatorState.reset}. Registered with {@link EmulatorState.registerPart}.
 */
export interface StatePart {
  /** A JSON-serializable snapshot. */
  save(): unknown;
  /** Restores a snapshot written by `save()` (called at most once, at registration or at load). */
  load(data: unknown): void;
  /** Forgets everything (test control reset). */
  reset(): void;
}

/**
 * Format of the state file. The catalogs are the projected ones: every write the emulator accepted,
 * visible to reads or still pending (it is visible once the file is loaded again). Clients
 * carry `secret_hash` (credentials.ts); files written before it carry `client_secret` in clear, which
 * is still read and replaced by its hash at once.
 */
interface StateFile {
  formatVersion: 1;
  nextId: number;
  clients: { client_id: string; secret_hash?: string; client_secret?: string; stores: string[] }[];
  stores: {
    id: string;
    integration_id: string;
    name: string;
    client_id: string;
    items: ItemRec[];
    categories: CategoryRec[];
    menus: MenuRec[];
    /** Absent in older files: true. */
    open?: boolean;
    parent?: string;
    /** Absent in older files: {@link DEFAULT_COUNTRY}. */
    country?: string;
    holidays?: string[];
  }[];
  /** Snapshots of the registered {@link StatePart}s by name. */
  parts?: Record<string, unknown>;
}

/**
 * The country and own holiday dates of a store of the state file: a file of an older carte has none
 * (Colombia's holidays, as it had); a country the emulator has no calendar of, or dates that are not a
 * list of distinct `MM-DD`, are refused.
 */
function calendarLoaded(
  s: StateFile["stores"][number],
  file: string,
): { country: string; holidays?: readonly string[] } {
  const country: unknown = s.country ?? DEFAULT_COUNTRY;
  if (typeof country !== "string" || !hasCalendar(country)) {
    throw new StateFileError(
      `emulator state file ${file} gives store ${bare(String(s.id))} a country it has no holidays of; remove it to start afresh`,
    );
  }
  if (s.holidays === undefined) return { country };
  if (ownHolidayProblems(s.holidays).length > 0) {
    throw new StateFileError(
      `emulator state file ${file} gives store ${bare(String(s.id))} holidays that are not a list of dates MM-DD; remove it to start afresh`,
    );
  }
  return { country, holidays: s.holidays };
}

/** Canonical key of a store id: a decimal string of digits without leading zeros. */
export function storeKey(id: string | number): string | undefined {
  const s = String(id);
  if (!/^\d+$/.test(s)) return undefined;
  return s.replace(/^0+(?=\d)/, "");
}

export class EmulatorState {
  readonly clients = new Map<string, ClientRec>();
  readonly stores = new Map<string, StoreRec>();
  readonly tokens = new Map<string, TokenRec>();
  readonly opts: StateOptions;
  private nextId = 1;
  private readonly queue: PendingWrite[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** When {@link timer} fires (epoch ms). */
  private timerAt = 0;
  private idleWaiters: (() => void)[] = [];
  private persisting: Promise<void> | undefined;
  /** Changes of the saved state so far, counted by {@link requestPersist}. */
  private seq = 0;
  /** The count of changes the state file holds. */
  private savedSeq = 0;
  /**
   * Why the last save of the state file failed (the file system's cause, naming the file), until a
   * save succeeds.
   */
  saveFailure: FileWriteError | undefined;
  private readonly parts = new Map<string, StatePart>();
  /** Visibility delay of the writes accepted inside {@link withApplyDelay}, ms. */
  private delayOverride: number | undefined;
  /** Part snapshots read from the state file whose part is not registered yet. */
  private loadedParts: Record<string, unknown> = {};

  /**
   * Called once per accepted write when it becomes visible to reads, with the `kind` given to
   * {@link EmulatorState.accept} (events.ts delivers MENU_APPROVED for the menu kinds). Must not throw
   * or block: it runs on the apply timer.
   */
  onApplied?: ((store: StoreRec, kind: string | undefined) => void) | undefined;

  /**
   * Called when an asynchronous store availability change takes effect (events.ts delivers
   * STORE_CONNECTIVITY `{external_store_id, enabled, message}`, docs/platform-api.md §4.4).
   */
  onStoreConnectivity?: ((store: StoreRec, enabled: boolean, message?: string) => void) | undefined;

  /** Called when a client's clear secret becomes known (see {@link EmulatorState.clientUnlocked}). */
  /**
   * Each client's stores by integration id, built when first asked ({@link storeByIntegrationId}: an
   * availability call names up to 100 stores, each looked up) and dropped whenever stores are added.
   */
  private readonly byIntegrationId = new Map<string, Map<string, StoreRec>>();
  private readonly unlockListeners: ((client: ClientRec) => void)[] = [];

  constructor(opts: StateOptions) {
    this.opts = opts;
  }

  /**
   * Registers a listener of {@link EmulatorState.clientUnlocked} (webhook-config.ts opens sealed secrets).
   */
  onClientUnlocked(listener: (client: ClientRec) => void): void {
    this.unlockListeners.push(listener);
  }

  /**
   * The client's clear secret is known in this process (provisioned, or a successful login): what was
   * sealed with it in the state file can be opened now (credentials.ts).
   */
  clientUnlocked(client: ClientRec): void {
    for (const l of this.unlockListeners) l(client);
  }

  /** Platform ids: positive integers, unique across the emulator, from one counter (deterministic). */
  allocateId(): number {
    return this.nextId++;
  }

  // ---- clients, stores, tokens -------------------------------------------------------------------

  /**
   * Adds missing clients and stores; existing store data is untouched. A client's secret and a store's
   * country and holidays follow the seed, as the platform's onboarding sets them.
   */
  provision(clients: readonly ProvisionClient[]): void {
    this.byIntegrationId.clear();
    for (const c of clients) {
      let client = this.clients.get(c.client_id);
      if (!client) {
        client = {
          client_id: c.client_id,
          secret: ClientSecret.fromSecret(c.client_secret),
          stores: new Set(),
        };
        this.clients.set(c.client_id, client);
      }
      if (!client.secret.matches(c.client_secret)) client.secret = ClientSecret.fromSecret(c.client_secret);
      this.clientUnlocked(client);
      for (const s of c.stores) {
        const key = storeKey(s.id);
        if (key === undefined) throw new StateFileError(`store id ${String(s.id)} is not a positive integer`);
        const existing = this.stores.get(key);
        if (existing && existing.client_id !== c.client_id) {
          throw new StateFileError(
            `store ${key} already belongs to client ${existing.client_id}, not ${c.client_id}`,
          );
        }
        const calendar = calendarOf(c, s);
        if (existing) {
          existing.country = calendar.country;
          existing.holidays = calendar.holidays;
        } else {
          const visible = emptyCatalog();
          this.stores.set(key, {
            key,
            integration_id: s.integration_id,
            name: s.name,
            client_id: c.client_id,
            visible,
            projected: copyCatalog(visible),
            renderCache: new Map(),
            open: true,
            ...calendar,
          });
        }
        client.stores.add(key);
      }
    }
    // Parents last: a child may be listed before its parent. A parent must be a store of the same client.
    for (const c of clients) {
      for (const s of c.stores) {
        if (s.parent === undefined || s.parent === null) continue;
        const child = this.stores.get(storeKey(s.id)!)!;
        const parentKey = storeKey(s.parent);
        const parent = parentKey === undefined ? undefined : this.stores.get(parentKey);
        if (!parent || parent.client_id !== c.client_id || parent.key === child.key) {
          throw new StateFileError(
            `parent ${String(s.parent)} of store ${child.key} is not another store of ${c.client_id}`,
          );
        }
        child.parent = parent.key;
      }
    }
    this.requestPersist();
  }

  /** Issues a random token for a client and surface (docs/platform-api.md §4.2). */
  issueToken(client_id: string, surface: TokenRec["surface"]): string {
    const now = Date.now();
    if (this.tokens.size > 10_000) {
      for (const [t, rec] of this.tokens) if (rec.expiresAt <= now) this.tokens.delete(t);
    }
    const token = randomBytes(32).toString("base64url");
    this.tokens.set(token, { client_id, surface, expiresAt: now + this.opts.tokenTtlSeconds * 1000 });
    return token;
  }

  /**
   * The store `id` of the path, checked against the authenticated client (docs/platform-api.md §4.2): unknown
   * → 404 `Store <id> not found`; another client's → 400 `The stores <id> don't belong to the appClient of
   * client id <client_id>`.
   */
  storeForClient(id: string, clientId: string): StoreRec {
    const key = storeKey(id);
    const store = key === undefined ? undefined : this.stores.get(key);
    if (!store) throw fail(404, `Store ${id} not found`);
    if (store.client_id !== clientId) {
      throw fail(400, `The stores ${id} don't belong to the appClient of client id ${clientId}`);
    }
    return store;
  }

  /**
   * The client's store with this integration id (docs/platform-api.md §2.3 `store_integration_id`), if any.
   */
  storeByIntegrationId(integrationId: string, clientId: string): StoreRec | undefined {
    const client = this.clients.get(clientId);
    if (!client) return undefined;
    let index = this.byIntegrationId.get(clientId);
    if (!index) {
      // The first of the client's stores with an id, as a walk through them in their order finds it.
      index = new Map();
      for (const key of client.stores) {
        const s = this.stores.get(key);
        if (s && !index.has(s.integration_id)) index.set(s.integration_id, s);
      }
      this.byIntegrationId.set(clientId, index);
    }
    return index.get(integrationId);
  }

  // ---- asynchronous writes -------------------------------------------------------------------------

  /**
   * Accepts a write: applies it to the projected catalog now and to the visible one after
   * `applyDelayMs` (or the delay of {@link withApplyDelay}), in acceptance order within its store: a
   * write is never visible before an earlier write of the same store.
   */
  accept(store: StoreRec, write: CatalogWrite, kind?: string): void {
    write(store.projected);
    // The state file holds the projected catalogs: every accepted write, visible or not yet.
    this.requestPersist();
    const delay = this.delayOverride ?? this.opts.applyDelayMs;
    if (delay <= 0 && !this.queue.some((w) => w.store === store)) {
      this.applyVisible(store, write, kind);
      return;
    }
    this.queue.push({ dueAt: Date.now() + delay, store, write, kind });
    this.schedule(true);
  }

  /**
   * Runs `fn` (a request's handler) with the writes it accepts held pending `ms` before they become
   * visible, instead of `applyDelayMs` (fault injection: faults.ts `pendingMs`).
   */
  withApplyDelay<T>(ms: number, fn: () => T): T {
    const before = this.delayOverride;
    this.delayOverride = ms;
    try {
      return fn();
    } finally {
      this.delayOverride = before;
    }
  }

  private applyVisible(store: StoreRec, write: CatalogWrite, kind: string | undefined): void {
    write(store.visible);
    store.renderCache.clear();
    this.onApplied?.(store, kind);
  }

  /**
   * Arms the timer for the earliest write that can become visible: the first pending write of each
   * store (a later one waits for it). `again`: re-arm when a new write may be due earlier.
   */
  private schedule(again = false): void {
    if (this.timer !== undefined && !again) return;
    const firsts = new Map<StoreRec, number>();
    for (const w of this.queue) if (!firsts.has(w.store)) firsts.set(w.store, w.dueAt);
    if (firsts.size === 0) return;
    let next = Infinity;
    for (const at of firsts.values()) next = Math.min(next, at);
    if (this.timer !== undefined) {
      if (this.timerAt <= next) return;
      clearTimeout(this.timer);
    }
    this.timerAt = next;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.flush(Date.now() + 1);
      },
      Math.max(0, next - Date.now()),
    );
  }

  /**
   * Applies every pending write due at `until` (all of them with `Infinity`) whose store has no earlier
   * write still pending, in acceptance order.
   */
  private flush(until: number): void {
    const waiting = new Set<StoreRec>();
    const rest: PendingWrite[] = [];
    // Taken out first: a write accepted while these are applied goes behind them.
    for (const w of this.queue.splice(0)) {
      if (w.dueAt <= until && !waiting.has(w.store)) {
        this.applyVisible(w.store, w.write, w.kind);
      } else {
        waiting.add(w.store);
        rest.push(w);
      }
    }
    this.queue.unshift(...rest);
    if (this.queue.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    } else {
      this.schedule();
    }
  }

  /** Resolves once no accepted write is pending and the state file (if any) is written. */
  async idle(): Promise<void> {
    if (this.queue.length > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    await this.persisted();
  }

  /** Applies every pending write now and waits for persistence (used by close()). */
  async drain(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.flush(Infinity);
    await this.persisted();
  }

  /** Test control (`POST /__emulator/reset`): empties every catalog and drops pending writes. */
  reset(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.queue.length = 0;
    for (const s of this.stores.values()) {
      s.visible = emptyCatalog();
      s.projected = emptyCatalog();
      s.renderCache.clear();
      s.open = true;
      s.openProjected = undefined;
    }
    for (const part of this.parts.values()) part.reset();
    this.flush(Infinity);
    this.requestPersist();
  }

  /** Adds a {@link StatePart}; a snapshot already read from the state file is handed to it at once. */
  registerPart(name: string, part: StatePart): void {
    this.parts.set(name, part);
    if (name in this.loadedParts) {
      part.load(this.loadedParts[name]);
      delete this.loadedParts[name];
    }
  }

  // ---- persistence ---------------------------------------------------------------------------------

  /** Loads the state file if it exists. */
  async load(): Promise<void> {
    const file = this.opts.stateFile;
    if (!file) return;
    let text: string;
    try {
      // The file sits in a folder a pull request may fill: a link to another file (say
      // /proc/self/environ) is refused, never read.
      const info = await lstat(file);
      if (!info.isFile()) {
        throw new StateFileError(
          `emulator state file ${file} is not a regular file (a link or a folder); remove it to start afresh`,
        );
      }
      text = await readFile(file, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
      throw e;
    }
    let data: StateFile;
    try {
      data = JSON.parse(text) as StateFile;
    } catch {
      // The parser's message quotes the text: never shown.
      throw new StateFileError(`emulator state file ${file} is not valid JSON; remove it to start afresh`);
    }
    if (data.formatVersion !== 1 || !Array.isArray(data.clients) || !Array.isArray(data.stores)) {
      throw new StateFileError(
        `emulator state file ${file} has an unknown format (expected formatVersion 1)`,
      );
    }
    this.byIntegrationId.clear();
    let maxId = 0;
    let clearSecrets = false;
    for (const c of data.clients) {
      let secret: ClientSecret;
      if (isSecretHash(c.secret_hash)) secret = ClientSecret.fromHash(c.secret_hash);
      else if (typeof c.client_secret === "string") {
        secret = ClientSecret.fromSecret(c.client_secret);
        clearSecrets = true;
      } else throw new StateFileError(`emulator state file ${file} has a client without a secret hash`);
      this.clients.set(c.client_id, { client_id: c.client_id, secret, stores: new Set(c.stores) });
    }
    for (const s of data.stores) {
      const visible = catalogFrom(s.items, s.categories, s.menus);
      for (const r of [...s.items, ...s.categories, ...s.menus]) maxId = Math.max(maxId, r.id);
      this.stores.set(s.id, {
        key: s.id,
        integration_id: s.integration_id,
        name: s.name,
        client_id: s.client_id,
        visible,
        projected: copyCatalog(visible),
        renderCache: new Map(),
        open: s.open ?? true,
        parent: s.parent,
        ...calendarLoaded(s, file),
      });
    }
    this.nextId = Math.max(typeof data.nextId === "number" ? data.nextId : 1, maxId + 1);
    for (const [name, snapshot] of Object.entries(data.parts ?? {})) {
      const part = this.parts.get(name);
      if (part) part.load(snapshot);
      else this.loadedParts[name] = snapshot;
    }
    // A file of an older carte holds client secrets in clear: rewritten with their hashes at once.
    if (clearSecrets) this.requestPersist();
  }

  private serialize(): string {
    const data: StateFile = {
      formatVersion: 1,
      nextId: this.nextId,
      clients: [...this.clients.values()].map((c) => ({
        client_id: c.client_id,
        secret_hash: c.secret.hash(),
        stores: [...c.stores],
      })),
      stores: [...this.stores.values()].map((s) => ({
        id: s.key,
        integration_id: s.integration_id,
        name: s.name,
        client_id: s.client_id,
        items: [...s.projected.items.values()],
        categories: [...s.projected.categories.values()],
        menus: [...s.projected.menus.values()],
        open: s.openProjected ?? s.open,
        ...(s.parent !== undefined ? { parent: s.parent } : {}),
        country: s.country,
        ...(s.holidays !== undefined ? { holidays: [...s.holidays] } : {}),
      })),
    };
    if (this.parts.size > 0 || Object.keys(this.loadedParts).length > 0) {
      data.parts = { ...this.loadedParts };
      for (const [name, part] of this.parts) data.parts[name] = part.save();
    }
    return JSON.stringify(data);
  }

  /**
   * Notes a change of the saved state and schedules a write of the state file; writes coalesce, each
   * is atomic (tmp file + rename). The server waits for it ({@link saved}) before it answers a request
   * that made the change.
   */
  requestPersist(): void {
    if (!this.opts.stateFile) return;
    this.seq++;
    if (!this.persisting) this.persisting = this.persistLoop();
  }

  /** How many changes of the saved state were made so far (see {@link saved}). */
  get changes(): number {
    return this.seq;
  }

  /**
   * Resolves once the state file holds every change up to `upTo` (default: every change so far);
   * without a state file at once. A save that failed is tried again, once, by each call.
   *
   * @throws {@link FileWriteError} of the failed save, naming the state file and the cause in words
   *   (`no space left on device (ENOSPC)`): the file is as it was, without these changes.
   */
  async saved(upTo = this.seq): Promise<void> {
    if (!this.opts.stateFile) return;
    for (let tries = 0; this.savedSeq < upTo; tries++) {
      if (!this.persisting) this.persisting = this.persistLoop();
      await this.persisting;
      if (this.savedSeq < upTo && this.saveFailure && tries >= 1) throw this.saveFailure;
    }
  }

  private async persistLoop(): Promise<void> {
    const file = this.opts.stateFile!;
    try {
      while (this.savedSeq < this.seq) {
        const upTo = this.seq;
        // Private (0600 in a 0700 folder when created), atomic, never through a link, no temporary
        // file left by a kill: src/atomic.ts. Client secrets are in it as salted hashes only.
        await writeFileAtomic(file, this.serialize(), {
          root: this.opts.stateRoot ?? rootFor(file),
          purpose: "save the emulator's state to",
        });
        this.savedSeq = upTo;
        this.saveFailure = undefined;
      }
    } catch (e) {
      // writeFileAtomic throws FileWriteError alone; anything else is carte's bug, said as such.
      this.saveFailure =
        e instanceof FileWriteError
          ? e
          : new FileWriteError({
              file,
              at: file,
              reason: "io",
              message: `could not save the emulator's state to ${file}: ${(e as Error).message}`,
            });
      this.opts.log?.(`emulator: ${this.saveFailure.message}`);
    } finally {
      this.persisting = undefined;
    }
  }

  private async persisted(): Promise<void> {
    while (this.persisting) await this.persisting;
  }
}
