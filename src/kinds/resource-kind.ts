/**
 * The small interface every resource kind implements. A kind knows which parts of a store's live state
 * it reads, how to pick its resources out of a normalized {@link StoreState}, how to read them from
 * the platform's answers, and which element of which API call creates, updates or deletes one of them.
 * It never decides how calls are grouped: the planner batches the kinds' writes (src/plan/batch.ts).
 */

import type { ConfigProblem } from "../errors.js";
import type { CatalogEntry } from "./catalog.js";
import type { AttributeDiff, ChangeAction } from "./change.js";
import type { KindGuards } from "./guards.js";
import type { KindImportPart } from "./import-types.js";
import type { KindPreview, KindView } from "./show.js";
import type {
  ClientState,
  KindState,
  Ownership,
  StoreIdentity,
  StoreIds,
  StoreSettings,
  StoreState,
} from "../model.js";
import type { PlatformClient } from "../platform/client.js";
import type { RouteName, RouteParams } from "../platform/routes.js";
import type { Site } from "../source/problems.js";
import type { YamlFile } from "../source/yaml.js";
import type { StoreClock, TimeContext } from "../time/clock.js";

/**
 * Runs an async task under the reader's concurrency bound. `store` names the store the call is for
 * (the first of a batch): the reader starts the calls of earlier stores first, so that stores finish
 * one after another and each is normalised, planned and dropped while later ones are read. A call for
 * no store in particular (one list for all stores) goes first.
 */
export type Limit = <T>(fn: () => Promise<T>, store?: string) => Promise<T>;

/**
 * How one part of a store's live state is fetched from the platform. A kind lists the reads it needs
 * (`ResourceKind.reads`); several kinds may share one read object (the store menu serves items,
 * categories, menus and item availability), and the reader fetches each read once for the stores that
 * need it, with the fewest calls the platform allows (one per store, batched, or one for all stores).
 *
 * @typeParam T - the part's value as the kinds read it from the snapshot.
 */
export interface StoreRead<T = unknown> {
  /** Unique name of the part: its key in a {@link StoreSnapshot}, e.g. `menu`, `hours`. */
  readonly name: string;
  /**
   * Fetches the part for some stores. Calls `deliver(key, value)` once per store as its part arrives
   * (`undefined`: the platform has nothing for it), outside `limit`, and awaits what it returns: the
   * reader normalises a store once its last part is delivered (src/state/current.ts), and that work
   * must not hold a slot; the promise settles when the store is handed over, and rejects with what
   * normalising it threw (a malformed answer), which the fetch passes on. Runs every call under
   * `limit`, naming the store it is for. Resolves once every store was delivered; throws the
   * {@link ApiError} of a failed call.
   */
  fetch(
    client: PlatformClient,
    stores: readonly StoreIdentity[],
    limit: Limit,
    deliver: (key: string, value: T | Unparsed<T> | undefined) => Promise<void>,
  ): Promise<void>;
}

/**
 * A part delivered as the answer received, parsed by the reader only once the store's last part is
 * in, right before the store is normalised ({@link perStoreRead} with `parse`). A big answer (a store
 * menu: hundreds of KB of JSON, megabytes once parsed) then waits for the store's other parts as one
 * string, not as a tree of objects that every collection of the young generation would copy; parsed,
 * normalised and planned in one go, the tree is dropped young.
 */
export class Unparsed<T> {
  constructor(private readonly parseOnce: () => T) {}

  /**
   * The part. Throws what the read's parse throws (a `MalformedAnswerError` for an answer that is not
   * JSON or not of its schema's shape).
   */
  parse(): T {
    return this.parseOnce();
  }
}

/** How one part of the client's live state (not tied to a store) is fetched. */
export interface ClientRead<T = unknown> {
  /** Unique name of the part: its key in a {@link ClientSnapshot}. */
  readonly name: string;
  fetch(client: PlatformClient): Promise<T>;
}

/**
 * What the reader fetched for one store: the value of each {@link StoreRead} by its name. Which parts
 * exist is decided by the registered kinds' `reads`, not by a list here; read a part with
 * {@link partOf}.
 */
export type StoreSnapshot = Readonly<Record<string, unknown>>;

/** What the reader fetched for the client: the value of each {@link ClientRead} by its name. */
export type ClientSnapshot = Readonly<Record<string, unknown>>;

/** The value of a read in a snapshot, `undefined` when the reader did not fetch it. */
export function partOf<T>(
  snapshot: StoreSnapshot | ClientSnapshot,
  read: StoreRead<T> | ClientRead<T>,
): T | undefined {
  return Object.hasOwn(snapshot, read.name) ? (snapshot[read.name] as T) : undefined;
}

/**
 * A store read that makes one call per store. With `parse`, `fetch` gives the answer as received
 * (`PlatformClient.fetchAnswer`) and `parse` turns it into the part after the call's slot is released
 * (a big answer is parsed and checked while the next call is already on its way), once the store's
 * other parts are in too ({@link Unparsed}).
 */
export function perStoreRead<T>(
  name: string,
  fetch: (client: PlatformClient, store: StoreIdentity) => Promise<T>,
): StoreRead<T>;
export function perStoreRead<T, W>(
  name: string,
  fetch: (client: PlatformClient, store: StoreIdentity) => Promise<W>,
  parse: (answer: W, client: PlatformClient) => T,
): StoreRead<T>;
export function perStoreRead<T, W>(
  name: string,
  fetch: (client: PlatformClient, store: StoreIdentity) => Promise<W>,
  parse?: (answer: W, client: PlatformClient) => T,
): StoreRead<T> {
  return {
    name,
    async fetch(client, stores, limit, deliver) {
      await Promise.all(
        stores.map(async (s) => {
          // The answer comes in a box that the parse empties. The promises and async frames that carry
          // it were made when the read was queued and live in the old generation by the time it comes;
          // a collection of the young generation takes what they hold as live even once they are
          // unreachable, so an answer they held (a store menu: hundreds of KB) would be kept until a
          // full collection. Emptied, it is freed as soon as it is parsed.
          const box: { answer: W | undefined } = await limit(
            async () => ({ answer: await fetch(client, s) }),
            s.key,
          );
          if (!parse) return deliver(s.key, box.answer as unknown as T);
          return deliver(
            s.key,
            new Unparsed(() => {
              const answer = box.answer as W;
              box.answer = undefined;
              return parse(answer, client);
            }),
          );
        }),
      );
    },
  };
}

/** Values a write gives its endpoint besides its element (see `Write.params`). */
export type EndpointParams = Record<string, string | number>;

/** A store's state as a read of the platform gives it: normalized, with the platform ids. */
export type ReadState = StoreState & { ids: StoreIds };

/**
 * What a fresh read shows of one call's effect ({@link EndpointSpec.effect}): `present` (every element's
 * effect shows), `absent` (none does) or `partial` (some do).
 */
export type Effect = "present" | "absent" | "partial";

/** The {@link Effect} of a call from how many of its elements show their effect. */
export function effectOf(shown: number, total: number): Effect {
  return shown === 0 ? "absent" : shown >= total ? "present" : "partial";
}

/**
 * An API call the planner may make, declared by the kind that writes through it. The planner batches
 * the kinds' writes into calls of these endpoints (src/plan/batch.ts) and orders the calls by `stage`;
 * the executor reads `chain`, `synchronous`, `check` and `secret` (src/apply/execute.ts).
 *
 * An endpoint is `store`-scoped (its path names one store; writes of one store with the same params
 * share a call) or `client`-scoped (one call serves several stores; writes with the same params share
 * a call, up to `maxElements`).
 */
export interface EndpointSpec {
  /** Unique name, e.g. `items.upsert`. Two kinds may list the same spec object (shared slot calls). */
  name: string;
  /**
   * Stage of the plan, 1-based; a call runs after every call of an earlier stage for the same store
   * and `chain` (a `*` call: every chain of its stores; a call for no store: every earlier call, and
   * every later call after it), while other stores go on (src/apply/execute.ts). Creates
   * and updates come before the resources that reference them (items → categories → menus), deletes
   * after every upsert and in reverse order; store settings follow; opening or closing a store is last.
   * docs/architecture.md has the table of stages.
   */
  stage: number;
  /**
   * The platform call, as the route table writes it (src/platform/routes.ts): method, path template,
   * token surface, limits, idempotency and schemas come from its row.
   */
  route: RouteName;
  /** `store`: the path names one store; `client`: one call serves several stores. */
  scope: "store" | "client";
  /**
   * How the call names its stores when not by store id: `integration_id` for a call that addresses
   * stores by their integration id (item availability v2, docs/platform-api.md "Store identity"). Each
   * store's pairing of store id and integration id is checked before such a call is planned or made
   * (src/state/pairing.ts). Default: by store id.
   */
  storesBy?: "integration_id";
  /**
   * Whether the call creates what the check of a store's integration id compares (its categories,
   * docs/platform-api.md "Store identity"): once it succeeded, an apply starts that check for the store,
   * so that it is done by the time the store's first call by integration id is ready.
   */
  revealsPairing?: true;
  /**
   * The route's path parameters from the platform store id (empty for client-scoped endpoints) and the
   * writes' params. Default: `{ storeId, ...params }`.
   */
  pathParams?(storeId: string, params: EndpointParams): RouteParams;
  /** Query string parameters of the call, when the route takes some (`?event=`). */
  query?(params: EndpointParams): Record<string, string>;
  /** Body of the call from the elements the kinds wrote (undefined: no body). */
  body(elements: unknown[], params: EndpointParams): unknown;
  /**
   * Most elements in one call; more are split across calls. Default: the route's `maxElements`
   * (docs/platform-api.md §4.11), else no limit.
   */
  maxElements?: number;
  /**
   * Whether repeating the call cannot change the outcome, so that a lost answer may be retried: upserts
   * by SKU, deletes by id and availability toggles are. Default: the route's idempotency for the body
   * (a menu upsert is only when every menu carries its id).
   */
  idempotent?(elements: unknown[]): boolean;
  /**
   * The chain of calls this one depends on: a failed call skips the later calls of its chain in the same
   * store, and nothing else. `catalog` (default): items, categories, menus, availability and the utils
   * schedules of categories and items; `store_schedule`: hours, holidays and special days; `webhooks`;
   * `*`: depends on every chain (opening or closing a store comes after everything else succeeded).
   */
  chain?: "catalog" | "store_schedule" | "webhooks" | "*";
  /**
   * Whether the platform applies the call before answering (utils, webhooks, the sync store call), so
   * that a read right after shows its effect. A call that is not idempotent and fails without a usable
   * answer is settled by reading: the change shows (only the answer was lost), or it does not and the call
   * is made once more (it provably did not happen). Asynchronous endpoints are read with a wait.
   * Default: the route's `synchronous`.
   */
  synchronous?: boolean;
  /**
   * Checks the body of a 2xx answer for failures the platform reports inside it (a synchronous call
   * that answers one result per element). Returns what went wrong when the call must count as failed,
   * else undefined. Default: a 2xx answer is a success.
   */
  check?(response: unknown, parts: readonly { store: string; element: unknown }[]): string | undefined;
  /**
   * For calls whose answer carries a secret (`POST /webhook` answers the event's signing secret, spec
   * docs/platform-api.md §2.7): picks it out of the answer, so that the executor hands it to the secrets sink
   * and nowhere else. Absent: the answer holds no secret. A secret-bearing call whose answer was lost is
   * never sent again blindly: the executor settles it by reading and, when its effect shows, gets the secret
   * anew with `PUT /webhook/{event}/reset-secret` (the secret is rotated, and the report says so).
   */
  secret?(response: unknown): { event: string; secret: string } | undefined;
  /**
   * Whether the effect of ONE call shows in a fresh read of the store it writes: the slot it created,
   * the store it added to a webhook, the slot it deleted. Used to settle a call whose answer was lost
   * (src/apply/settle.ts): several calls of a plan can change one address (the creates of one day's
   * slots; a webhook create followed by a change of status), so the address's final planned state
   * cannot tell whether this call happened. `body` and `params` are the call's (for a client-scoped
   * call, the body of one store's part alone, evaluated against that store); `state` is the store as
   * read now, by the kinds that list this endpoint. Pure.
   *
   * Absent: the executor settles by the planned final state of the call's addresses, and only when no
   * other call of the plan changes them; otherwise the outcome is reported unknown.
   */
  effect?(body: unknown, params: EndpointParams, state: ReadState): Effect;
}

/**
 * Where a settings section is written, for {@link ConfigSection.read}: the parsed file and the pointer
 * segments of the settings object inside it (the top of a store file, `defaults:` of carte.yaml or of a
 * group, the top of an included file).
 */
export interface SectionContext {
  parsed: YamlFile;
  /** Pointer segments of the settings object. */
  base: readonly (string | number)[];
  /** The site of a value inside the settings object. */
  at(...segments: (string | number)[]): Site;
  /**
   * The run's clock and its warnings. Entries that depend on the store's time zone are judged per store
   * in `resolve`, through its `clock`.
   */
  time: TimeContext;
}

/**
 * A kind's section of the store settings (`hours:`, `holidays:`, `webhooks:`…), as written in the
 * layers a store inherits: carte.yaml `defaults:` → its group's `defaults:` → the store file, each
 * preceded by the files it includes. The config loader (src/config/settings.ts) reads every registered
 * section from every layer, merges the layers lowest first and resolves the result into the store's
 * model state. The section's JSON Schema fragment lives in schemas/config/settings.schema.json.
 *
 * @typeParam L - one layer's value as read, with the sites messages need.
 */
export interface ConfigSection<L> {
  /** The key of the section in a settings object, e.g. `hours`. */
  readonly key: string;
  /**
   * Reads and checks one layer's value (`value` is what the file writes under {@link key}, already
   * validated by the schema), reporting every problem the schema cannot see. `undefined`: nothing usable.
   */
  read(value: unknown, ctx: SectionContext, problems: ConfigProblem[]): L | undefined;
  /** Puts a higher layer over the merged lower ones. Default: the higher layer replaces the lower. */
  merge?(lower: L, upper: L): L;
  /**
   * Turns the merged layers into the store's model state (`into`), reporting what only the combination
   * shows (an inherited slot overlapping the store's own). `clock` is the store's (its time zone and
   * the run's clock), for the entries with a date of one year (src/time/clock.ts).
   */
  resolve(merged: L, into: StoreSettings, problems: ConfigProblem[], clock?: StoreClock): void;
}

export type { AttributeDiff, ChangeAction } from "./change.js";

/** One element of one API call, contributed by a kind for one resource change. */
export interface Write {
  /** Name of an endpoint of the kind's `endpoints` (the planner looks it up in the registry). */
  endpoint: string;
  /** The element the call carries for this change: an upsert object, an id, a slot, a store id… */
  element: unknown;
  /**
   * Values the endpoint's path and body need besides the elements (a slot id, an event name, a URL).
   * Writes to the same endpoint with the same params (and the same store, for store-scoped endpoints)
   * share one call, up to the endpoint's limit.
   */
  params?: Record<string, string | number>;
}

/** Everything a kind needs to turn one change into writes. */
export interface WriteContext {
  /** The desired state of the store (for creates and updates). */
  desired: StoreState;
  /** Platform ids of what exists in the store now (for updates by id and for deletes). */
  ids: StoreIds;
  /**
   * Elements already built in this plan, by the resource object they were built from: stores of a
   * shared catalog hold the same desired objects, and one element can serve every store's call (a
   * plan from empty of thousands of stores holds each catalog element once). Lives for one plan only,
   * over states nothing changes meanwhile. Absent: build every element anew.
   */
  elements?: WeakMap<object, unknown>;
}

/** What every kind, store-level or client-level, declares about itself. */
interface KindBase<N extends string> {
  /** The kind's name: its key under `ownership:`, in `--kind` and in addresses. */
  readonly name: N;
  /** Ownership when carte.yaml says nothing; documented per kind. Default `full`. */
  readonly defaultOwnership?: Ownership;
  /** One line for the docs' kind table: what the kind manages. */
  readonly summary: string;
  /**
   * How people call the kind's resources, singular and plural, by address segment: the kind's name
   * and its other segments (`item`, `modifier_group`; the items kind adds `option`, an item offered in a
   * modifier group). The plan's views and notes say `3 special days`, `category schedule BURGERS` with
   * these words (src/render/view.ts, src/render/scope.ts).
   */
  readonly nouns: Readonly<Record<string, readonly [string, string]>>;
  /** The API calls the kind writes through, with their stages and batching limits. */
  readonly endpoints: readonly EndpointSpec[];
  /** How `carte import` writes the kind's live state into files; absent: import leaves it out. */
  readonly importPart?: KindImportPart;
  /**
   * How the plan's text and Markdown views show its changes (src/kinds/show.ts); absent: by their
   * attributes, `SEGMENT KEY`, after every other kind's.
   */
  readonly view?: KindView;
}

/**
 * A resource kind: everything about one kind of store resource, declared on one object, so that adding
 * a kind is one module and one line in src/kinds/registry.ts. `R` is its normalized resource: plain
 * JSON, canonical, comparable with deep equality; `N` its name and `S` its other address segments. One
 * normalisation serves both sides: `read` builds the current side from the platform's answers, the
 * config section (or src/config/resolve.ts for the catalog kinds) builds the desired side, each in the
 * kind's own state ({@link ResourceKind.state}), and `select`
 * gives both to the planner in one canonical form. Everything but the reads' `fetch` must be pure.
 */
export interface ResourceKind<R, N extends string = string, S extends string = N> extends KindBase<N> {
  /** Address segments other than `name` the kind uses (`modifier_group` for the items kind). */
  readonly segments?: readonly S[];
  /** The parts of a store's live state the kind reads. */
  readonly reads: readonly StoreRead[];
  /**
   * Where the kind keeps its state in a store (src/model.ts `kindState`): under its name in
   * `StoreState.kinds`, with the type the kind declares. Its `read` writes it on the current side, its
   * `config` section on the desired side (src/config/resolve.ts for the catalog kinds, from a catalog
   * and its overrides), and its `select`, `duplicates` and import part read it. The kinds of the store
   * menu (items, categories, menus, item availability) declare theirs in src/kinds/catalog.ts, and each
   * fills its own from the one store-menu read. Absent only for a kind whose resources are a view of
   * other kinds' state: the utils schedules of categories and items, which are those kinds' schedules.
   */
  readonly state?: KindState<unknown>;
  /** The kind's section of the store settings, when it has one (hours, holidays, webhooks…). */
  readonly config?: ConfigSection<unknown>;
  /**
   * How `carte preview` draws its resources on a store's page (src/kinds/show.ts); absent: its changes
   * are counted on the page, not drawn.
   */
  readonly preview?: KindPreview;
  /** The safety guards its changes trip (src/kinds/guards.ts); absent: only the guards of every kind. */
  readonly guards?: KindGuards;
  /**
   * The kinds of catalog entries its resources are, with what the overrides may say of each
   * (src/kinds/catalog.ts `CatalogEntry`); absent: the overrides name none of its resources.
   */
  readonly catalogEntries?: readonly CatalogEntry[];
  /**
   * Resources of this kind in a store, by key (SKU, menu type, day…); `undefined` when the files do not
   * manage this kind in the store (then carte neither reads nor changes it there). `ownership` is given
   * on the desired side, for kinds whose desired resources depend on it (item availability), with the
   * store's `current` state when the planner has it: a kind may want a resource only because of what the
   * platform holds (item availability turns back on the items carte itself switched off). Pure.
   */
  select(state: StoreState, ownership?: Ownership, current?: StoreState): Record<string, R> | undefined;
  /**
   * Whether the files manage this kind in a desired store: exactly when {@link select} gives a table
   * (under any ownership), without building it. Planning asks it of every kind in every store to learn
   * which parts to read (src/state/current.ts `readRequests`); absent, `select` answers. Pure.
   */
  manages?(state: StoreState): boolean;
  /**
   * One resource of a current state by key, as {@link select} gives it there (`select(state)[key]`),
   * without building the whole table. Only for a kind whose resources go with their owners
   * ({@link initial}): the planner then never goes through the current side's keys, and looks up those
   * of the desired side only (item availability: every item of the store is on the current side, the
   * files name a few). Pure.
   */
  lookup?(state: StoreState, key: string): R | undefined;
  /**
   * What a plan should tell people about a store without changing anything (items staff switched off
   * that the files leave alone), from the desired and current states and the kind's ownership: one
   * sentence each, raw text (renderers escape it). `currency`: the ISO 4217 code of the project's
   * prices (carte.yaml `currency:`), to write prices as people of the currency read them. Absent: the
   * kind has nothing to say. Pure.
   */
  info?(desired: StoreState, current: StoreState, ownership: Ownership, currency?: string): string[];
  /**
   * Reads this kind's resources from a store's snapshot into a normalized current state: canonical
   * values, ids moved to `ids`. Called only when the snapshot holds the parts in `reads`. Duplicates on
   * the platform (two menus of one type, two items with one SKU, two identical slots, a store listed
   * twice on a webhook) are kept in the state, so that the comparison sees them as drift: an extra
   * copy under a key of its own (`TYPE#id`), or inside the resource it copies; see {@link duplicates}.
   */
  read(snapshot: StoreSnapshot, into: StoreState, ids: StoreIds): void;
  /**
   * The duplicates a read found in a store's current state: the key of each resource that is an extra
   * copy or holds extra copies, mapped to the key of the resource it copies (its own key when it holds
   * its copies, e.g. a day with two identical slots). The plan removes the extras, even under
   * `additive` ownership when the copied resource is one the files manage (src/plan/plan.ts); the
   * verification after an apply fails while one remains (src/apply/verify.ts). Absent: the kind has
   * none. Pure.
   */
  duplicates?(state: StoreState): Record<string, string>;
  /** Address segment of a resource, e.g. `item` or `modifier_group`. */
  segment(resource: R): N | S;
  /**
   * Where a resource sits, for people, when the kind nests its resources: the keys from a top-level
   * resource down to its parent (`["PIZZA", "SIZE", "SIZE-L", "CRUST"]`), or `undefined`. Shown by the
   * renderers beside the change (`ResourceChange.within`). Absent: the kind does not nest.
   */
  within?(state: StoreState, key: string): string[] | undefined;
  /**
   * For people: the key of the resource a resource is listed under in the plan's views, when the kind
   * groups them (an option under the first modifier group, in SKU order, that offers it), or
   * `undefined`. Shown by the renderers (`ResourceChange.group`). Absent: the kind does not group.
   */
  group?(state: StoreState, key: string): string | undefined;
  /**
   * For people: the title of what a resource belongs to when the resource itself has none (the item of
   * an availability), or `undefined`. Shown beside the key (`ResourceChange.title`). Absent: none.
   */
  title?(state: StoreState, key: string): string | undefined;
  /**
   * For people: how the files name a resource when its key says less (a special day of one year,
   * `2026-12-24`, keyed `12-24`), or `undefined`. Shown in place of the key (`ResourceChange.label`);
   * never compared. Absent: the key.
   */
  label?(state: StoreState, key: string): string | undefined;
  /**
   * Whether two resources of the same key are equal (no change): the verdict of deep equality of plain
   * JSON values (src/plain-data.ts `jsonEqual`), worked out quicker for the kind's shape (src/kinds/equal.ts).
   * Absent: `jsonEqual`. Pure.
   */
  equal?(a: R, b: R): boolean;
  /**
   * Compares two resources of the same key. Returns the attributes that differ (empty when equal).
   * The default in the planner compares every top-level attribute with deep equality. `desired` is the
   * store's desired state, for words that only it holds (a time in the store's zone).
   */
  diff?(before: R, after: R, desired?: StoreState): AttributeDiff[];
  /**
   * For resources that exist only alongside another one (an item's availability): the state the
   * platform gives the resource when it creates its owner. When set, a resource missing on the current
   * side is compared with `initial(after)` (and yields no change when equal), and a resource missing on
   * the desired side yields no change (it goes with its owner).
   */
  initial?(after: R): R;
  /**
   * Whether a change only takes something away, so that `additive` ownership skips it. Default: the
   * change is a delete. (Turning an item back on is such a change for item availability.)
   */
  retreats?(action: ChangeAction, before: R | undefined, after: R | undefined): boolean;
  /** Writes that carry out one change. */
  writes(
    action: ChangeAction,
    key: string,
    before: R | undefined,
    after: R | undefined,
    ctx: WriteContext,
  ): Write[];
}

/**
 * A kind of client-level resource (not tied to a store), addressed `client.SEGMENT[KEY]`, e.g.
 * `client.client_webhook[STORE_PROVISIONING_STATUS]`.
 */
export interface ClientKind<R, N extends string = string> extends KindBase<N> {
  readonly reads: readonly ClientRead[];
  /** Resources by key; `undefined` when the files do not manage this kind. */
  select(state: ClientState): Record<string, R> | undefined;
  read(snapshot: ClientSnapshot, into: ClientState, ids: Record<string, Record<string, unknown>>): void;
  diff?(before: R, after: R): AttributeDiff[];
  retreats?(action: ChangeAction, before: R | undefined, after: R | undefined): boolean;
  writes(
    action: ChangeAction,
    key: string,
    before: R | undefined,
    after: R | undefined,
    ids: Record<string, Record<string, unknown>>,
  ): Write[];
}
