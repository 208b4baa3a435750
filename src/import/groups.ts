/**
 * Factoring imported store files into group files: what a set of stores shares (a region's prices, the
 * items it does not sell, its hours, its special days) is written once in a group's `defaults:`, and
 * each store file keeps only what differs (docs/import.md, "How stores share a group").
 *
 * It works on the store files the catalog factoring wrote (src/import/factor.ts), never on the
 * platform's answers: a store file is seen as a set of entries, each one key of one setting family and
 * its value (`prices` of `BURGER` is 25900, `option_prices` of `TOP-CALABRESA` inside `PIZZA-G` is
 * 9.00, `hours` of `sun` is `["12:00-20:00"]`, `exclude` of `SHAKE`). The rule, per catalog:
 *
 * 1. A set of stores **shapes groups** when at least two entries are held by exactly these stores
 *    (and by no other): a region's price list, its hours, what it does not sell. One store's quirk,
 *    even one that many stores happen to have (a Sunday of their own), is one entry, held by its own
 *    set of stores, and shapes nothing. Stores that belong to the same such sets form a candidate
 *    group.
 * 2. A group lifts an entry into its `defaults:` when it can take it out of its stores' files and give
 *    every store the same state (src/config/overrides.ts and the settings' merge rules):
 *    - families a higher layer replaces key by key (prices, titles, descriptions, images; option
 *      prices per parent and option; hours per day; holidays and special days per date; `open`):
 *      most of the group's stores (more than half, at least 2) hold the value, and every other store
 *      writes its own value for that key (or excludes the SKU, or the parent of the option), which
 *      wins over the group's;
 *    - families that add up or merge inside a key (`exclude`, `availability.unavailable`, webhooks):
 *      every store of the group holds the same value.
 *    A candidate group that lifts nothing is no group.
 * 3. A store in no group (its quirks changed one of its region's entries) joins the group whose
 *    lifted entries it holds most of, when it holds more than half of them; then every group's
 *    entries are lifted again with its final stores.
 *
 * An import that writes carte.yaml writes the entries every store holds alike (`open: true`, the
 * chain's webhook) once, as carte.yaml `defaults:`, before the groups are sought among the rest. When
 * one group holds every store, its entries go there too, and the store files name no group.
 *
 * Group names come from what the stores' integration ids share (`north-001`, `north-002` → `north`),
 * else `group`; written with letters, digits and dashes only, made unique with `-2`, `-3`…
 * Deterministic: the result depends only on the store files, taken in integration id order.
 */

import type { GroupFile, StoreFile } from "../generated/config.js";
import { byCodePoint, sortRecord } from "../kinds/import-values.js";
import { daysText } from "../kinds/import-schedules.js";
import type { ImportedStore } from "./factor.js";

/** A group of the import and the stores that join it. */
export interface ImportedGroup {
  /** Group name (also its file name, `groups/<name>.yaml`). */
  name: string;
  file: GroupFile;
  /** Keys of its stores, in key order. */
  stores: string[];
}

/** The result of {@link factorGroups}: the groups, and every store's file (naming its group). */
export interface GroupFactoring {
  groups: ImportedGroup[];
  /**
   * carte.yaml `defaults:`, in place of a group, when the one group found holds every store and
   * `chainDefaults` was asked for.
   */
  defaults?: Record<string, unknown>;
  stores: ImportedStore[];
}

/** How a family of entries merges across layers (src/config/overrides.ts, docs/configuration.md). */
type Merge = "replace" | "all";

interface Family {
  /** Where the family is written: `overrides.prices`, `hours`… */
  readonly name: string;
  readonly merge: Merge;
  /** The SKUs an entry's key names (a store that excludes one of them needs no value of its own). */
  readonly skus: (key: string) => readonly string[];
}

const bySku = (key: string) => [key];
const noSku = () => [];
/**
 * The key of an option's price inside a parent: the parent's SKU, then the option's (SKUs hold no
 * control characters, src/kinds/import-values.ts `writableSku`).
 */
const IN_PARENT = "\u0001";
const inParentKey = (parent: string, option: string) => `${parent}${IN_PARENT}${option}`;

const FAMILIES: readonly Family[] = [
  { name: "prices", merge: "replace", skus: bySku },
  // Per parent, then per option, as the layers merge them (docs/configuration.md).
  { name: "option_prices", merge: "replace", skus: (key) => key.split(IN_PARENT) },
  { name: "titles", merge: "replace", skus: bySku },
  { name: "descriptions", merge: "replace", skus: bySku },
  { name: "images", merge: "replace", skus: bySku },
  { name: "exclude", merge: "all", skus: bySku },
  { name: "unavailable", merge: "all", skus: bySku },
  { name: "hours", merge: "replace", skus: noSku },
  { name: "holidays", merge: "replace", skus: noSku },
  { name: "special_days", merge: "replace", skus: noSku },
  { name: "open", merge: "replace", skus: noSku },
  { name: "timezone", merge: "replace", skus: noSku },
  { name: "webhooks", merge: "all", skus: noSku },
];
const FAMILY = new Map(FAMILIES.map((f) => [f.name, f]));
/** The `overrides:` keys by SKU the import writes (src/import/factor.ts). */
const OVERRIDE_KEYS = ["prices", "titles", "descriptions", "images"] as const;
/** Every `overrides:` key this step reads and writes, in the order the import writes them. */
const READ_OVERRIDES = ["prices", "option_prices", "titles", "descriptions", "images", "exclude"] as const;
const WEEK = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/** One entry of a store file: a family, a key in it, and the value's canonical JSON. */
interface Entry {
  family: string;
  key: string;
  value: unknown;
  json: string;
}

/** Entries by slot (`family\0key`). */
type Entries = Map<string, Entry>;

const slotOf = (family: string, key: string) => `${family}\u0000${key}`;

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The weekdays of a day key as the import writes them (`mon-fri,sun`, `daily`), or undefined for another form. */
function weekdays(spec: string): string[] | undefined {
  const out: string[] = [];
  for (const part of spec.split(",")) {
    if (part === "daily") {
      out.push(...WEEK);
      continue;
    }
    const [from, to] = part.split("-");
    const a = WEEK.indexOf(from ?? "");
    const b = to === undefined ? a : WEEK.indexOf(to);
    if (a < 0 || b < a) return undefined;
    for (let i = a; i <= b; i++) out.push(WEEK[i]!);
  }
  return out;
}

/** The entries of a store file (hours under day keys this step cannot read are left out). */
function entriesOf(file: StoreFile): Entries {
  const out: Entries = new Map();
  const add = (family: string, key: string, value: unknown) =>
    out.set(slotOf(family, key), { family, key, value, json: JSON.stringify(value) });
  const o = (file.overrides ?? {}) as Record<string, unknown>;
  for (const family of OVERRIDE_KEYS) {
    const values = o[family];
    if (isRecord(values)) for (const [sku, v] of Object.entries(values)) add(family, sku, v);
  }
  if (isRecord(o.option_prices)) {
    for (const [parent, prices] of Object.entries(o.option_prices)) {
      if (isRecord(prices))
        for (const [option, v] of Object.entries(prices))
          add("option_prices", inParentKey(parent, option), v);
    }
  }
  for (const sku of (o.exclude as string[] | undefined) ?? []) add("exclude", sku, true);
  const f = file as unknown as Record<string, unknown>;
  const availability = f.availability;
  if (isRecord(availability) && Array.isArray(availability.unavailable)) {
    for (const e of availability.unavailable as unknown[]) {
      const sku = typeof e === "string" ? e : isRecord(e) && typeof e.sku === "string" ? e.sku : undefined;
      if (sku !== undefined) add("unavailable", sku, e);
    }
  }
  if (isRecord(f.hours)) {
    for (const [spec, slots] of Object.entries(f.hours)) {
      for (const day of weekdays(spec) ?? []) add("hours", day, slots);
    }
  }
  if (isRecord(f.holidays))
    for (const [date, slots] of Object.entries(f.holidays)) add("holidays", date, slots);
  if (Array.isArray(f.special_days)) {
    for (const d of f.special_days as unknown[]) {
      if (isRecord(d) && typeof d.date === "string") add("special_days", d.date, d);
    }
  }
  if (typeof f.open === "boolean") add("open", "", f.open);
  if (typeof f.timezone === "string") add("timezone", "", f.timezone);
  if (isRecord(f.webhooks)) for (const [event, v] of Object.entries(f.webhooks)) add("webhooks", event, v);
  return out;
}

/** Whether the store file's hours are all in the form {@link entriesOf} reads (else they are not lifted). */
function hoursReadable(file: StoreFile): boolean {
  const hours = (file as unknown as Record<string, unknown>).hours;
  return !isRecord(hours) || Object.keys(hours).every((spec) => weekdays(spec) !== undefined);
}

interface Member {
  store: ImportedStore;
  entries: Entries;
}

/**
 * The entries a set of stores can take out of their files into a group's `defaults:` (rule 2 of this
 * module's comment), by slot.
 */
function lift(members: readonly Member[]): Entries {
  const out: Entries = new Map();
  const slots = [...new Set(members.flatMap((m) => [...m.entries.keys()]))].sort(byCodePoint);
  for (const slot of slots) {
    const first = members.find((m) => m.entries.has(slot))!.entries.get(slot)!;
    const family = FAMILY.get(first.family)!;
    if (family.merge === "all") {
      if (members.every((m) => m.entries.get(slot)?.json === first.json)) out.set(slot, first);
      continue;
    }
    const excludes = (m: Member) =>
      family.skus(first.key).some((sku) => m.entries.has(slotOf("exclude", sku)));
    if (!members.every((m) => m.entries.has(slot) || excludes(m))) continue;
    const votes = new Map<string, { entry: Entry; n: number }>();
    for (const m of members) {
      const e = m.entries.get(slot);
      if (!e) continue;
      const v = votes.get(e.json);
      if (v) v.n++;
      else votes.set(e.json, { entry: e, n: 1 });
    }
    const best = [...votes.values()].sort((a, b) => b.n - a.n || byCodePoint(a.entry.json, b.entry.json))[0]!;
    if (best.n >= 2 && best.n * 2 > members.length) out.set(slot, best.entry);
  }
  return out;
}

/** The groups of stores of each catalog and what each lifts, in the order of their first stores. */
function groupsOf(byCatalog: ReadonlyMap<string, Member[]>): { members: Member[]; lifted: Entries }[] {
  return [...byCatalog.values()]
    .flatMap(partition)
    .map((members) => ({ members, lifted: lift(members) }))
    .filter((g) => g.members.length >= 2 && g.lifted.size > 0)
    .sort((a, b) => byCodePoint(keyOf(a.members[0]!), keyOf(b.members[0]!)));
}

/** The entries every one of the stores holds with the same value, by slot. */
function sharedByAll(members: readonly Member[]): Entries {
  const out: Entries = new Map();
  const [first, ...rest] = members;
  for (const [slot, e] of first?.entries ?? []) {
    if (rest.every((m) => m.entries.get(slot)?.json === e.json)) out.set(slot, e);
  }
  return out;
}

/** How many of the lifted entries a store holds as they are. */
function held(member: Member, lifted: Entries): number {
  let n = 0;
  for (const [slot, e] of lifted) if (member.entries.get(slot)?.json === e.json) n++;
  return n;
}

/** Splits the stores of one catalog into groups (rules 1 and 3); stores in no group are left out. */
function partition(members: readonly Member[]): Member[][] {
  // The stores holding each entry (as indices: members are in key order).
  const holders = new Map<string, number[]>();
  for (const [i, m] of members.entries()) {
    for (const [slot, e] of m.entries) {
      const atom = `${slot}\u0000${e.json}`;
      const list = holders.get(atom);
      if (list) list.push(i);
      else holders.set(atom, [i]);
    }
  }
  // Sets of stores that share at least two entries that no other store has: a region's price list,
  // its hours. One store's quirk, even one many stores happen to have, is one entry of its own set.
  const entriesPerSet = new Map<string, number>();
  for (const list of holders.values()) {
    if (list.length < 2) continue;
    const set = list.join(",");
    entriesPerSet.set(set, (entriesPerSet.get(set) ?? 0) + 1);
  }
  const defining = [...entriesPerSet].filter(([, n]) => n >= 2).map(([set]) => set);
  const signatures = members.map(() => [] as number[]);
  for (const [id, set] of defining.entries()) for (const i of set.split(",")) signatures[Number(i)]!.push(id);
  const bySignature = new Map<string, Member[]>();
  for (const [i, m] of members.entries()) {
    const signature = signatures[i]!.join(",");
    bySignature.set(signature, [...(bySignature.get(signature) ?? []), m]);
  }
  const groups: { members: Member[]; lifted: Entries }[] = [];
  const loose: Member[] = [];
  for (const list of bySignature.values()) {
    const lifted = list.length >= 2 ? lift(list) : new Map();
    if (lifted.size > 0) groups.push({ members: list, lifted });
    else loose.push(...list);
  }
  // Each store in no group joins the group whose entries it holds most of, judged against the groups
  // as they were before any store joined (so that the order of the stores does not matter).
  const joined = groups.map((g) => [...g.members]);
  for (const m of loose) {
    let best = -1;
    let bestHeld = 0;
    for (const [i, g] of groups.entries()) {
      const n = held(m, g.lifted);
      if (n * 2 > g.lifted.size && n > bestHeld) {
        best = i;
        bestHeld = n;
      }
    }
    if (best >= 0) joined[best]!.push(m);
  }
  return joined.map((list) => [...list].sort((a, b) => byCodePoint(keyOf(a), keyOf(b))));
}

const keyOf = (m: Member) => m.store.state.store.key;

/** The group's name from what its stores' integration ids share, letters, digits and dashes only. */
function baseName(keys: readonly string[]): string {
  let prefix = keys[0] ?? "";
  for (const k of keys) while (!k.startsWith(prefix)) prefix = prefix.slice(0, -1);
  // Whole parts only: `north-00` of `north-001`, `north-002` is `north`.
  const whole = keys.every((k) => k.length === prefix.length || /[^a-z0-9]/i.test(k[prefix.length]!));
  if (!whole) prefix = prefix.replace(/[a-z0-9]*$/i, "");
  const name = prefix
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return name === "" ? "group" : name;
}

/** `option_prices` of the given entries: by parent, then by option, both sorted. */
function optionPricesOf(entries: readonly Entry[]): Record<string, Record<string, unknown>> {
  const byParent = new Map<string, [string, unknown][]>();
  for (const e of entries) {
    const [parent, option] = e.key.split(IN_PARENT) as [string, string];
    byParent.set(parent, [...(byParent.get(parent) ?? []), [option, e.value]]);
  }
  return sortRecord(
    Object.fromEntries([...byParent].map(([p, list]) => [p, sortRecord(Object.fromEntries(list))])),
  );
}

/** Sections of a store file or of a group's `defaults:` holding the given entries. */
function sectionsOf(entries: Iterable<Entry>): Record<string, unknown> {
  const by = new Map<string, Entry[]>();
  for (const e of entries) by.set(e.family, [...(by.get(e.family) ?? []), e]);
  const out: Record<string, unknown> = {};
  const zone = by.get("timezone");
  if (zone) out.timezone = zone[0]!.value;
  const overrides: Record<string, unknown> = {};
  for (const family of READ_OVERRIDES) {
    const list = by.get(family);
    if (!list) continue;
    if (family === "exclude") overrides.exclude = list.map((e) => e.key).sort(byCodePoint);
    else if (family === "option_prices") overrides.option_prices = optionPricesOf(list);
    else overrides[family] = sortRecord(Object.fromEntries(list.map((e) => [e.key, e.value])));
  }
  if (Object.keys(overrides).length > 0) out.overrides = overrides;
  const hours = by.get("hours");
  if (hours) {
    const days = new Map<string, { value: unknown; days: string[] }>();
    for (const day of WEEK) {
      const e = hours.find((h) => h.key === day);
      if (!e) continue;
      const d = days.get(e.json);
      if (d) d.days.push(day);
      else days.set(e.json, { value: e.value, days: [day] });
    }
    out.hours = Object.fromEntries([...days.values()].map((d) => [daysText(d.days), d.value]));
  }
  const holidays = by.get("holidays");
  if (holidays) out.holidays = sortRecord(Object.fromEntries(holidays.map((e) => [e.key, e.value])));
  const special = by.get("special_days");
  if (special) out.special_days = [...special].sort((a, b) => byCodePoint(a.key, b.key)).map((e) => e.value);
  const open = by.get("open");
  if (open) out.open = open[0]!.value;
  const hooks = by.get("webhooks");
  if (hooks) out.webhooks = sortRecord(Object.fromEntries(hooks.map((e) => [e.key, e.value])));
  const unavailable = by.get("unavailable");
  if (unavailable)
    out.availability = {
      unavailable: [...unavailable].sort((a, b) => byCodePoint(a.key, b.key)).map((e) => e.value),
    };
  return out;
}

/** The sections {@link entriesOf} reads: a store file keeps every other key as it is. */
const READ_KEYS = new Set([
  "timezone",
  "overrides",
  "hours",
  "holidays",
  "special_days",
  "open",
  "webhooks",
  "availability",
]);

/** A store file in a group: `group:` after `catalog:`, and only the entries the group does not give. */
function fileInGroup(file: StoreFile, group: string | undefined, own: Iterable<Entry>): StoreFile {
  const rest = sectionsOf(own);
  const src = file as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(src)) {
    if (key === "catalog") {
      out.catalog = value;
      if (group !== undefined) out.group = group;
    } else if (!READ_KEYS.has(key)) out[key] = value;
    else if (key === "overrides") {
      // Keys of overrides: this step does not read (schedules, limits…) stay as they were.
      const kept = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).filter(
          ([k]) => !(READ_OVERRIDES as readonly string[]).includes(k),
        ),
      );
      const merged = { ...((rest.overrides as Record<string, unknown>) ?? {}), ...kept };
      if (Object.keys(merged).length > 0) out.overrides = merged;
    } else if (key === "availability") {
      const { unavailable: _u, ...kept } = value as Record<string, unknown>;
      const merged = { ...((rest.availability as Record<string, unknown>) ?? {}), ...kept };
      if (Object.keys(merged).length > 0) out.availability = merged;
    } else if (Object.hasOwn(rest, key)) out[key] = rest[key];
  }
  return out as unknown as StoreFile;
}

/**
 * Factors the store files of an import into groups (the rule is in this module's comment): every
 * group's file, and every store file, those in a group naming it and keeping only what differs.
 * Deterministic: the result depends only on the store files, taken in key order.
 *
 * @param stores - the stores and their files as src/import/factor.ts wrote them.
 * @param options - `taken`: names not to use for a group; `chainDefaults`: write a group of every
 *   store as carte.yaml `defaults:` instead (for an import that writes carte.yaml).
 */
export function factorGroups(
  stores: readonly ImportedStore[],
  options: { taken?: ReadonlySet<string>; chainDefaults?: boolean } = {},
): GroupFactoring {
  const sorted = [...stores].sort((a, b) => byCodePoint(a.state.store.key, b.state.store.key));
  const byCatalog = new Map<string, Member[]>();
  for (const store of sorted) {
    if (!hoursReadable(store.file) || store.file.group !== undefined) continue;
    const list = byCatalog.get(store.file.catalog) ?? [];
    list.push({ store, entries: entriesOf(store.file) });
    byCatalog.set(store.file.catalog, list);
  }
  let found = groupsOf(byCatalog);
  const files = new Map<string, StoreFile>();
  const own = (m: Member, lifted: Entries) =>
    [...m.entries].filter(([slot, e]) => lifted.get(slot)?.json !== e.json).map(([, e]) => e);
  const only = found.length === 1 ? found[0]! : undefined;
  if (options.chainDefaults && only && only.members.length === stores.length) {
    for (const m of only.members)
      files.set(keyOf(m), fileInGroup(m.store.file, undefined, own(m, only.lifted)));
    return {
      groups: [],
      defaults: sectionsOf(only.lifted.values()),
      stores: sorted.map((s) => ({ state: s.state, file: files.get(s.state.store.key)! })),
    };
  }
  // Entries every store holds alike (`open: true`, the chain's webhook) go to carte.yaml `defaults:`
  // once, when the import writes carte.yaml and every store can take them from there; the groups
  // are then sought among the rest.
  const members = [...byCatalog.values()].flat();
  const chain: Entries =
    options.chainDefaults && members.length === stores.length && members.length >= 2
      ? sharedByAll(members)
      : new Map();
  if (chain.size > 0) {
    for (const m of members) for (const slot of chain.keys()) m.entries.delete(slot);
    found = groupsOf(byCatalog);
    // A store in no group keeps its own entries, those of the chain aside.
    for (const m of members) files.set(keyOf(m), fileInGroup(m.store.file, undefined, m.entries.values()));
  }
  const used = new Set(options.taken);
  const groups: ImportedGroup[] = [];
  for (const g of found) {
    const base = baseName(g.members.map(keyOf));
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}-${n}`;
    used.add(name);
    groups.push({
      name,
      file: { name, defaults: sectionsOf(g.lifted.values()) } as GroupFile,
      stores: g.members.map(keyOf),
    });
    for (const m of g.members) files.set(keyOf(m), fileInGroup(m.store.file, name, own(m, g.lifted)));
  }
  return {
    groups,
    ...(chain.size > 0 ? { defaults: sectionsOf(chain.values()) } : {}),
    stores: sorted.map((s) => {
      const file = files.get(s.state.store.key);
      return file ? { state: s.state, file } : s;
    }),
  };
}
