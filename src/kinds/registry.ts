/**
 * The registry of resource kinds, in planning order: the one list of them. Adding a kind means writing
 * its module (src/kinds/resource-kind.ts says what a kind declares) and listing it here; every other list of
 * kinds is derived from these two arrays: the `KindName` type, the planner's endpoint table
 * (src/plan/endpoints.ts), the reader's parts (src/state/current.ts), the settings sections the config
 * loader reads (src/config/settings.ts), the import parts (src/import/parts.ts), the CLI's `--kind`
 * choices, the `ownership:` schema (`npm run gen`) and the kind table of docs/configuration.md.
 */

import { InternalError } from "../errors.js";
import { availability } from "./availability.js";
import { categories } from "./categories.js";
import { clientWebhooks } from "./client-webhooks.js";
import { holidays } from "./holidays.js";
import { items } from "./items.js";
import { menus } from "./menus.js";
import { specialDays } from "./special-days.js";
import { storeAvailability } from "./store-availability.js";
import { storeHours } from "./store-hours.js";
import type { CatalogEntry } from "./catalog.js";

export type { CatalogEntry, CatalogOverride } from "./catalog.js";
import type { ClientKind, ConfigSection, EndpointSpec, ResourceKind } from "./resource-kind.js";
import { corridorSchedules, productSchedules } from "./utils-schedules.js";
import { webhooks } from "./store-webhooks.js";

/**
 * Every store-level kind carte manages, in planning order. The utils schedules read after the items and
 * categories kinds, whose normalized resources they complete.
 */
const storeKinds = [
  items,
  categories,
  menus,
  availability,
  webhooks,
  storeHours,
  holidays,
  specialDays,
  corridorSchedules,
  productSchedules,
  storeAvailability,
] as const;

/** Every client-level kind carte manages. */
const clientLevelKinds = [clientWebhooks] as const;

/** Name of a registered kind (store-level or client-level): its key under `ownership:` and in `--kind`. */
export type KindName = (typeof storeKinds)[number]["name"] | (typeof clientLevelKinds)[number]["name"];

/** An address segment: a kind's name, or another segment a kind uses (`modifier_group`). */
export type SegmentName = KindName | NonNullable<(typeof items)["segments"]>[number];

/** Every resource kind carte manages, in planning order. */
export const kinds: readonly ResourceKind<unknown>[] =
  storeKinds as unknown as readonly ResourceKind<unknown>[];

/** Every client-level kind carte manages. */
export const clientKinds: readonly ClientKind<unknown>[] =
  clientLevelKinds as unknown as readonly ClientKind<unknown>[];

/** The names of every kind, store-level first, in registry order. */
export const KIND_NAMES: readonly KindName[] = [...storeKinds, ...clientLevelKinds].map((k) => k.name);

/**
 * Every address segment, for `--kind`: the kinds' names and their other segments (`modifier_group`
 * selects the modifier groups among the items kind's resources).
 */
export const SEGMENT_NAMES: readonly SegmentName[] = [
  ...storeKinds.flatMap(
    (k): SegmentName[] => [k.name, ...((k as ResourceKind<unknown>).segments ?? [])] as SegmentName[],
  ),
  ...clientLevelKinds.map((k) => k.name),
];

/** Whether a string names a registered kind. */
export function isKindName(name: string): name is KindName {
  return (KIND_NAMES as readonly string[]).includes(name);
}

/** A resource kind by name or address segment (`modifier_group` resolves to the items kind). */
export function kindNamed(name: string): ResourceKind<unknown> | undefined {
  return kinds.find((k) => k.name === name || (k.segments ?? []).includes(name));
}

/**
 * The kind, store-level or client-level, whose resources an address segment names (`modifier_group`:
 * the items kind; `client_webhook`: the client's webhooks), for what every kind declares alike: its
 * nouns and its view.
 */
export function kindOfSegment(segment: string): ResourceKind<unknown> | ClientKind<unknown> | undefined {
  return kindNamed(segment) ?? clientKinds.find((k) => k.name === segment);
}

/**
 * The kinds of catalog entries (items, options, modifier groups, categories) that the kinds declare,
 * in registry order, each with what the overrides may say of it (src/kinds/catalog.ts `CatalogEntry`).
 */
export function catalogEntries(): CatalogEntry[] {
  return kinds.flatMap((k) => k.catalogEntries ?? []);
}

/**
 * Every endpoint the kinds write through, by name. Two kinds may list the same spec object (the slot
 * calls of hours, holidays and special days); two different specs with one name are a bug.
 *
 * @throws Error when two kinds declare different endpoints under one name.
 */
export function endpointTable(
  list: readonly { endpoints: readonly EndpointSpec[] }[] = [...kinds, ...clientKinds],
): ReadonlyMap<string, EndpointSpec> {
  const table = new Map<string, EndpointSpec>();
  for (const kind of list) {
    for (const spec of kind.endpoints) {
      const seen = table.get(spec.name);
      if (seen && seen !== spec) throw new InternalError(`two endpoints are named ${spec.name}`);
      table.set(spec.name, spec);
    }
  }
  return table;
}

/** The settings sections of the kinds (`hours:`, `holidays:`, `webhooks:`…), in registry order. */
export function settingsSections(): ConfigSection<unknown>[] {
  return kinds.flatMap((k) => (k.config ? [k.config] : []));
}

/**
 * How people call the resources of an address segment, singular and plural (`special day`, `special
 * days`), as the kinds declare them (`nouns`); `option` names an item offered in a modifier group.
 * `undefined` for a segment no kind declares.
 */
export function nounsOf(segment: string): readonly [string, string] | undefined {
  for (const kind of [...kinds, ...clientKinds])
    if (Object.hasOwn(kind.nouns, segment)) return kind.nouns[segment];
  return undefined;
}
