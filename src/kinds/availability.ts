/**
 * Item availability: whether an ITEM of a store is switched on or off, and who switched it off. Read
 * from the items' `suspension_info` (docs/platform-api.md §4.3: `is_available`, `suspend_until`,
 * `suspend_reason`) in the store menu that planning reads anyway; switched on or off with availability v2
 * `PUT /availability/stores/items` (docs/platform-api.md §2.3), batched across stores by the planner, at most
 * 100 items per call (docs/platform-api.md §4.11). An item carte switches off then gets carte's marker
 * (`suspend_reason: "carte"`, and `suspend_until` when the files give `until:`) through an upsert of the item
 * with its `suspension_info` (docs/platform-api.md, "Who switched an item off"), so that a later run, without
 * local state, turns back on the items it switched off and leaves alone those staff did.
 *
 * Every ITEM has an availability resource; a new item starts available on the platform, so only an item
 * that must be off, or whose state differs, yields a change.
 */

import { CARTE_SUSPEND_REASON, own, table, type Ownership, type StoreState } from "../model.js";
import { availabilityPart } from "./availability-import.js";
import type { StoreItemsToggle, WireItem } from "../platform/wire.js";
import { toWireItem } from "./items.js";
import { storeMenuRead } from "./reads.js";
import {
  partOf,
  type AttributeDiff,
  type EndpointSpec,
  type ResourceKind,
  type Write,
} from "./resource-kind.js";
import { availabilityOf, itemAvailabilityState, itemsOf, type AvailabilityState } from "./catalog.js";
import { localText } from "../time/zone.js";
import { fieldOf, titledView, type ViewContext } from "../show/view-model.js";
import type { KindView } from "./show.js";

/**
 * The normalized availability of one item. Off: `byCarte` when carte switched it off (its marker is on
 * the platform; on the desired side, whenever carte writes the item off), `until` when the platform
 * switches it back on at that time (ISO 8601 with offset).
 */
export interface AvailabilityResource {
  sku: string;
  available: boolean;
  byCarte?: true;
  until?: string;
}

/** An availability toggle for the batcher: one SKU of one store, on or off. */
export interface AvailabilityToggle {
  integrationId: string;
  sku: string;
  on: boolean;
}

/**
 * The desired side (`ownership` given): a SKU listed unavailable is wanted off with carte's marker,
 * whoever switched it off. An item the files list that is off without the marker is marked: carte cannot
 * tell a staff member's switch-off from its own toggle whose marker was lost (a run killed between the
 * toggle and the marker's upsert, which are two calls), so the files' word wins and the marker is
 * written again; only the marker's upsert is planned, since the item is already off. Under `full`
 * ownership every other ITEM is wanted on; under `additive` (the default) only the items listed
 * available, and those carte switched off itself (its marker is on the platform, `current`), are wanted
 * on. An item staff switched off (no marker) that the files do not list stays off ({@link info} lists
 * them).
 *
 * The current side (no `ownership`): every ITEM as read.
 */
function select(
  state: StoreState,
  ownership?: Ownership,
  current?: StoreState,
): Record<string, AvailabilityResource> {
  const desired = ownership !== undefined;
  const { unavailable, available, suspensions } = availabilityOf(state);
  const off = new Set(unavailable);
  // Every ITEM is wanted on (the current side, `full` ownership), or those listed available and those
  // carte switched off itself (worked out once, not for each item).
  const all = !desired || ownership === "full";
  const on = all ? undefined : new Set(available ?? []);
  if (on && current !== undefined)
    for (const sku of availabilityOf(current).unavailable) if (ownMark(current, sku)) on.add(sku);
  const out = table<AvailabilityResource>();
  const items = itemsOf(state);
  for (const sku of Object.keys(items)) {
    if (items[sku]!.type !== "ITEM") continue;
    if (off.has(sku)) {
      const until = own(suspensions, sku)?.until;
      out[sku] = offResource(sku, desired || ownMark(state, sku), until);
    } else if (all || on!.has(sku)) {
      out[sku] = resource(sku, true);
    }
  }
  return out;
}

/**
 * The current side's resource of one SKU, as {@link select} gives it there: an ITEM of the store, off
 * when read off (with carte's marker or not, and its time), else on.
 */
function lookup(state: StoreState, sku: string): AvailabilityResource | undefined {
  if (own(itemsOf(state), sku)?.type !== "ITEM") return undefined;
  const { unavailable, suspensions } = availabilityOf(state);
  if (!offSet(unavailable).has(sku)) return resource(sku, true);
  return offResource(sku, ownMark(state, sku), own(suspensions, sku)?.until);
}

/** The SKUs read off in a store, as a set: made once per list (a store's lookups share it). */
const offSets = new WeakMap<readonly string[], ReadonlySet<string>>();

function offSet(unavailable: readonly string[]): ReadonlySet<string> {
  let set = offSets.get(unavailable);
  if (!set) offSets.set(unavailable, (set = new Set(unavailable)));
  return set;
}

/** Whether the current side shows carte's marker on `sku`. */
function ownMark(state: StoreState, sku: string): boolean {
  return own(availabilityOf(state).suspensions, sku)?.byCarte === true;
}

/**
 * Under `additive` ownership: the items of the store switched off on the platform by someone else than
 * carte (no marker) that the files leave alone, so they stay off. One sentence naming how many and
 * which (the first 20).
 */
function info(desired: StoreState, current: StoreState, ownership: Ownership): string[] {
  if (ownership !== "additive") return [];
  const want = availabilityOf(desired);
  const named = new Set([...want.unavailable, ...(want.available ?? [])]);
  const staff = availabilityOf(current).unavailable.filter(
    (sku) => !named.has(sku) && !ownMark(current, sku) && own(itemsOf(desired), sku)?.type === "ITEM",
  );
  if (staff.length === 0) return [];
  const shown = staff.slice(0, 20).join(", ");
  const more = staff.length > 20 ? ` and ${staff.length - 20} more` : "";
  return [
    `${staff.length} ${staff.length === 1 ? "item" : "items"} switched off outside the files ` +
      `${staff.length === 1 ? "stays" : "stay"} off: ${shown}${more} ` +
      "(list a SKU under availability.available to switch it on)",
  ];
}

/**
 * The availability resources of every SKU seen, frozen and shared by all stores: the planner selects
 * one per ITEM of every store on both sides, and equal objects compare at once. Off with a time is made
 * anew.
 */
const resources = new Map<
  string,
  readonly [AvailabilityResource, AvailabilityResource, AvailabilityResource]
>();

function pair(sku: string): readonly [AvailabilityResource, AvailabilityResource, AvailabilityResource] {
  let p = resources.get(sku);
  if (!p) {
    p = [
      Object.freeze({ sku, available: false }),
      Object.freeze({ sku, available: true }),
      Object.freeze({ sku, available: false, byCarte: true as const }),
    ];
    resources.set(sku, p);
  }
  return p;
}

function resource(sku: string, available: boolean): AvailabilityResource {
  return pair(sku)[available ? 1 : 0];
}

function offResource(sku: string, byCarte: boolean, until: string | undefined): AvailabilityResource {
  if (until === undefined) return pair(sku)[byCarte ? 2 : 0];
  return byCarte ? { sku, available: false, byCarte: true, until } : { sku, available: false, until };
}

/**
 * The state of an item as the plan's data says it: `on`, `off`, `off until 18:00
 * (2026-11-25T18:00:00-05:00)`, and whether it was switched off outside the files. The time is the
 * wall time the instant carries (carte writes it with the store's offset), so the text is the same
 * whatever day the plan is made or read; words relative to the reader's day (`18:00 GMT-5 (today)`)
 * are the text and Markdown views' (`offWords` below), from `until`, the resource's own field.
 */
export function availabilityState(r: AvailabilityResource): string {
  if (r.available) return "on";
  const time = r.until === undefined ? undefined : /T(\d{2}:\d{2})/.exec(r.until)?.[1];
  const until = r.until === undefined ? "" : ` until ${time ?? r.until} (${r.until})`;
  return `off${until}${r.byCarte ? "" : ", switched off outside the files"}`;
}

/** An instant as ISO 8601 with its offset, as carte writes `until` (`2026-11-26T18:00:00-05:00`). */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T(\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * How people read an item's switch-off: ` until 18:00 GMT-5 (today) (2026-11-26T18:00:00-05:00)` on
 * the store's clock, relative to `now`, when the plan names the store's zone, else the wall time the
 * instant carries (` until 18:00 (…)`, as the plan's data says it); `, switched off outside the files`
 * when carte's marker is not on it. The words change with the day they are read: the JSON plan keeps the
 * instant (`after.until`) and the stable text ({@link availabilityState}).
 */
function offWords(after: unknown, ctx: ViewContext): string {
  const until = fieldOf(after, "until");
  const outside = fieldOf(after, "byCarte") === true ? "" : ", switched off outside the files";
  if (typeof until !== "string") return outside;
  const m = ISO_INSTANT.exec(until);
  const ms = m ? Date.parse(until) : NaN;
  const local =
    ctx.zone !== undefined && Number.isFinite(ms)
      ? localText(ms, ctx.zone, ctx.now)
      : m
        ? `${m[1]}:${m[2]}`
        : until;
  return ` until ${local} (${until})${outside}`;
}

/** Where item availability comes in a store's changes: after the menus. */
const AVAILABILITY_ORDER = 5;

/** The view of a change of availability: the item, `switched off until …`, `switched on`. */
const view: KindView = {
  change(ch, ctx) {
    const on = fieldOf(ch.after, "available");
    const view = titledView(ch, ctx, `item ${ch.key}`);
    view.summary =
      on === false
        ? `switched off${offWords(ch.after, ctx)}`
        : on === true
          ? "switched on"
          : "no longer managed";
    return [{ order: AVAILABILITY_ORDER, sort: ch.key, view }];
  },
};

/**
 * `PUT /availability/stores/items` (docs/platform-api.md §2.3): toggles of several stores merge into one
 * entry per store, at most 100 items per call in total (docs/platform-api.md §4.11); after the items exist.
 */
const toggle: EndpointSpec = {
  name: "availability.toggle",
  stage: 7,
  route: "PUT /api/v2/restaurants-integrations-public-api/availability/stores/items",
  scope: "client",
  storesBy: "integration_id",
  body: (elements) => {
    const entries: StoreItemsToggle[] = [];
    for (const t of elements as AvailabilityToggle[]) {
      let entry = entries.find((e) => e.store_integration_id === t.integrationId);
      if (!entry) {
        entry = { store_integration_id: t.integrationId, items: {} };
        entries.push(entry);
      }
      (t.on ? (entry.items.turn_on ??= []) : (entry.items.turn_off ??= [])).push(t.sku);
    }
    return entries;
  },
};

/**
 * carte's marker on an item it switches off: `POST /items` (docs/platform-api.md §2.4) with the whole item as
 * the files describe it and its `suspension_info` `{is_available: false, suspend_reason: "carte",
 * suspend_until}`. The platform keeps `suspend_until` and `suspend_reason` as sent and never changes
 * availability through an upsert; a toggle clears both, so the marker goes after the toggles
 * (docs/platform-api.md, "Who switched an item off").
 */
const mark: EndpointSpec = {
  name: "availability.mark",
  stage: 8,
  route: "POST /restaurants/menu/v1/stores/{storeId}/items",
  scope: "store",
  body: (elements) => elements,
};

/** The item availability kind. */
export const availability: ResourceKind<AvailabilityResource, "availability"> = {
  name: "availability",
  nouns: { availability: ["item availability", "item availabilities"] },
  summary: "whether each item of a store is switched on or off (availability v2)",
  endpoints: [toggle, mark],
  importPart: availabilityPart,
  reads: [storeMenuRead],
  state: itemAvailabilityState,
  defaultOwnership: "additive",
  select,
  // Every store manages its items' availability: `select` always gives a table.
  manages: () => true,
  lookup,
  info,
  segment: () => "availability",
  title: (state, key) => own(itemsOf(state), key)?.title,
  view,
  preview: {},
  // Switching items on and off is a store's daily work, not a change of its menu: no per-store guard.
  guards: { exempt: true },
  // A new item is created available (docs/platform-api.md §4.3).
  initial: (after) => ({ sku: after.sku, available: true }),
  diff(before, after): AttributeDiff[] {
    return [{ attribute: "state", before: availabilityState(before), after: availabilityState(after) }];
  },
  read(snapshot, into) {
    const wire = partOf(snapshot, storeMenuRead)!;
    const off = wire.items.filter(
      (w) => w.item_type !== "MODIFIER_GROUP" && w.suspension_info?.is_available === false,
    );
    const read: AvailabilityState = { unavailable: off.map((w) => w.sku).sort() };
    itemAvailabilityState.set(into, read);
    for (const w of off) {
      const info = w.suspension_info as { suspend_until?: string | null; suspend_reason?: string | null };
      const byCarte = info.suspend_reason === CARTE_SUSPEND_REASON;
      // Kept as the platform sends it (carte sends it as the files write it), bounded.
      const until =
        typeof info.suspend_until === "string" && info.suspend_until !== ""
          ? info.suspend_until.slice(0, 64)
          : undefined;
      if (!byCarte && until === undefined) continue;
      (read.suspensions ??= Object.create(null) as Record<string, never>)[w.sku] = {
        ...(until !== undefined ? { until } : {}),
        ...(byCarte ? { byCarte } : {}),
      };
    }
  },
  writes(action, key, before, after, ctx) {
    // Deleting an item removes its availability with it; nothing to call.
    if (action === "delete" || !after) return [];
    const toggle = (on: boolean): AvailabilityToggle => ({
      integrationId: ctx.desired.store.integrationId,
      sku: key,
      on,
    });
    // On: the toggle ends the suspension and its marker on the platform.
    if (after.available) return [{ endpoint: "availability.toggle", element: toggle(true) }];
    const out: Write[] =
      before?.available === false ? [] : [{ endpoint: "availability.toggle", element: toggle(false) }];
    const item = own(itemsOf(ctx.desired), key);
    if (item) {
      const wire = (ctx.elements?.get(item) as WireItem | undefined) ?? toWireItem(item);
      const element: WireItem = {
        ...wire,
        suspension_info: {
          is_available: false,
          suspend_reason: CARTE_SUSPEND_REASON,
          suspend_until: after.until ?? null,
        },
      };
      out.push({ endpoint: "availability.mark", element });
    }
    return out;
  },
};
