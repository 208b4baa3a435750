/**
 * Catalog overrides at every layer: `overrides:` (prices, option prices inside a parent, titles,
 * descriptions, images, exclusions, schedules, offer windows, min/max of modifier groups) and
 * `availability:`, written under carte.yaml `defaults:`, under a group's `defaults:`, in a shared file
 * named by `include:`, or in a store file. A store inherits them in the order of its settings layers (carte.yaml → group →
 * store, each preceded by its includes); for each SKU (and key) the highest layer wins, exclusions add
 * up (docs/configuration.md, "Overrides at every layer").
 *
 * This module reads one layer with its sites (checking prices and schedules where they are written),
 * merges a store's layers keeping every value with its site (what `carte explain` shows), checks the
 * merged overrides against the store's catalog, and gives src/config/resolve.ts the plain values.
 * Tables keyed by SKU are `Map`s: SKUs are the files' own text (`__proto__` is a valid key here).
 */

import { parseFor, parseUntil, type StoreClock, type WrittenAt, type WrittenTime } from "../time/clock.js";
import { suggester } from "../suggest.js";
import type { ConfigProblem } from "../errors.js";
import type { StoreFile } from "../generated/config.js";
import type { ImageRef } from "../model.js";
import type { Currency } from "../money.js";
import { checkPrice } from "./check.js";
import { readPriceRules, type PriceRule } from "./price-rules.js";
import { entryKind, type CatalogIndex } from "./check.js";
import { catalogEntries, type CatalogEntry, type CatalogOverride } from "../kinds/registry.js";
import { bare, isRecord, list, quote, Reporter, report, where } from "../source/problems.js";
import type { Site } from "../source/problems.js";
import { checkSchedules } from "../time/written-slots.js";
import { readBounds, type WindowBounds } from "./windows.js";
import { toPointer } from "../source/yaml.js";
import type { YamlFile } from "../source/yaml.js";
import { isSkuPattern } from "./sku-pattern.js";

/**
 * The most SKU patterns one layer writes as parents of `option_prices`: each is matched against the
 * items and options above its options in every store's catalog, so their number is bounded.
 */
export const MAX_OPTION_PRICE_PATTERNS = 50;

/** Schedules as a file writes them (`{days, slots}`), before they are made canonical. */
export interface WrittenSchedule {
  days: string;
  slots: string[];
}

/** One value written in a layer, and where. */
export interface Entry<T> {
  value: T;
  site: Site;
  /**
   * The SKU pattern that wrote it, for a value a pattern of `option_prices` set for the SKUs it
   * matches (src/config/option-price-patterns.ts); absent for a value written for its own SKU.
   */
  pattern?: string;
}

/** min and max of a modifier group as one layer writes them. */
export interface LimitsEntry {
  min?: Entry<number>;
  max?: Entry<number>;
}

/** What one layer writes under `overrides:` and `availability:`. */
export interface OverridesLayer {
  /** The settings object of the layer (the top of a store file, `defaults:` of carte.yaml…). */
  site: Site;
  /** Pointer segments of that settings object. */
  base: readonly (string | number)[];
  prices: Map<string, Entry<number>>;
  /**
   * Prices `{price, from}` (and `until`) whose `from` is still ahead at the run's clock: upcoming, not
   * applied.
   */
  upcoming: Map<string, Entry<number> & { from: string; until?: string }>;
  /**
   * Prices of `prices` that hold until a time (`{price, until}`, with or without `from`) still ahead
   * at the run's clock, by SKU: `until` as written. At that time the lower layers' price comes back.
   */
  ending: Map<string, { until: string }>;
  /**
   * Prices `{price, from, until}` as written (one of `from` and `until` at least), before a store's
   * clock says whether they hold ({@link timedLayer} moves each to `prices`, `upcoming`, or drops it
   * once `until` has passed).
   */
  dated: Map<string, Entry<number> & { start?: WrittenAt; end?: WrittenAt }>;
  /** Parent SKU → option SKU → price of the option inside that parent. */
  optionPrices: Map<string, Map<string, Entry<number>>>;
  /**
   * SKU pattern (`PIZZA-*-G`, src/config/sku-pattern.ts) → option SKU → price of the option inside
   * the items and options the pattern matches; expanded per store by src/config/option-price-patterns.ts.
   */
  optionPricePatterns: Map<string, Map<string, Entry<number>>>;
  titles: Map<string, Entry<string>>;
  descriptions: Map<string, Entry<string>>;
  images: Map<string, Entry<ImageRef[]>>;
  schedules: Map<string, Entry<WrittenSchedule[]>>;
  /** Offer windows by SKU of an item or category (`overrides: available:`, src/config/windows.ts). */
  windows: Map<string, Entry<WindowBounds>>;
  limits: Map<string, LimitsEntry>;
  /** Excluded SKUs, in the order written. */
  exclude: Entry<string>[];
  /** The layer's `price_rules:` (src/config/price-rules.ts); absent when it writes none. */
  priceRules?: Entry<PriceRule[]>;
  /**
   * Switched-off SKUs, with `until` (ISO 8601 with offset) when the entry gives one that has not passed
   * and `shown`, how the plan shows it in the store's zone. As read from a file, an entry with `until:` or
   * `for:` holds `when` (the time as written) until {@link timedLayer} resolves it for a store.
   */
  unavailable: (Entry<string> & {
    until?: string;
    shown?: string;
    when?: { time: WrittenTime; text: string; site: Site };
  })[];
  /** `undefined` when the layer does not write `availability.available`. */
  available: Entry<string>[] | undefined;
  /**
   * `unavailable:` entries whose `until` has passed at the run's clock: ignored (not in `unavailable`),
   * each warned about once per store that inherits it (src/config/load.ts).
   */
  expired: { sku: string; until: string; site: Site }[];
}

/** An image as the files write it: a path, or `{path, host}` (model {@link ImageRef}). */
export function imageRef(value: unknown): ImageRef | undefined {
  if (typeof value === "string") return value;
  if (isRecord(value) && typeof value.path === "string" && typeof value.host === "string")
    return { path: value.path, host: value.host };
  return undefined;
}

/** The images of a list as the files write them (entries of the wrong shape left to the schema). */
export function imageRefs(value: unknown): ImageRef[] {
  return list(value).flatMap((v) => {
    const ref = imageRef(v);
    return ref === undefined ? [] : [ref];
  });
}

function writtenSchedules(value: unknown): WrittenSchedule[] {
  return list(value).flatMap((s) =>
    isRecord(s) && typeof s.days === "string"
      ? [{ days: s.days, slots: list(s.slots).filter((x): x is string => typeof x === "string") }]
      : [],
  );
}

/**
 * Reads the catalog overrides and availability of one layer, checking what can be checked without
 * knowing the store: prices as written (in the project's currency), schedules, and min ≤ max of one
 * entry. `undefined` when the layer writes neither.
 *
 * @param base - pointer segments of the settings object in the file.
 * @param data - the settings object.
 */
export function readOverrides(
  parsed: YamlFile,
  base: readonly (string | number)[],
  data: unknown,
  problems: ConfigProblem[],
  currency: Currency | undefined,
): OverridesLayer | undefined {
  const settings = isRecord(data) ? data : {};
  const has = (k: string) => Object.hasOwn(settings, k);
  if (!has("overrides") && !has("availability") && !has("price_rules")) return undefined;
  const r = new Reporter(parsed, problems);
  const at = (...segments: (string | number)[]): Site => r.site([...base, ...segments]);
  const o = isRecord(settings.overrides) ? settings.overrides : {};
  const a = isRecord(settings.availability) ? settings.availability : {};
  const layer: OverridesLayer = {
    site: at(),
    base,
    prices: new Map(),
    upcoming: new Map(),
    ending: new Map(),
    dated: new Map(),
    optionPrices: new Map(),
    optionPricePatterns: new Map(),
    titles: new Map(),
    descriptions: new Map(),
    images: new Map(),
    schedules: new Map(),
    windows: new Map(),
    limits: new Map(),
    exclude: [],
    unavailable: [],
    available: undefined,
    expired: [],
  };
  const entries = (key: string): [string, unknown][] =>
    isRecord(o[key]) ? Object.entries(o[key] as Record<string, unknown>) : [];

  for (const [sku, written] of entries("prices")) {
    const site = at("overrides", "prices", sku);
    if (isRecord(written)) {
      // A dated price: applied from `from` on (upcoming before) and until `until` (the lower layers'
      // price after), judged per store by timedLayer.
      checkPrice(r, [...base, "overrides", "prices", sku, "price"], written.price, currency);
      const dated = readBounds(parsed, problems, [...base, "overrides", "prices", sku], written);
      if (typeof written.price === "number" && dated)
        layer.dated.set(sku, { value: written.price, site, ...dated });
      continue;
    }
    checkPrice(r, [...base, "overrides", "prices", sku], written, currency);
    if (typeof written === "number") layer.prices.set(sku, { value: written, site });
  }
  for (const [parent, prices] of entries("option_prices")) {
    if (!isRecord(prices)) continue;
    const inParent = new Map<string, Entry<number>>();
    for (const [sku, price] of Object.entries(prices)) {
      checkPrice(r, [...base, "overrides", "option_prices", parent, sku], price, currency);
      if (typeof price === "number")
        inParent.set(sku, { value: price, site: at("overrides", "option_prices", parent, sku) });
    }
    // A parent written as a pattern (`PIZZA-*-G`) is expanded per store, against its catalog.
    if (!isSkuPattern(parent)) layer.optionPrices.set(parent, inParent);
    else if (layer.optionPricePatterns.size < MAX_OPTION_PRICE_PATTERNS)
      layer.optionPricePatterns.set(parent, inParent);
    else
      r.at(
        [...base, "overrides", "option_prices", parent],
        `more than ${MAX_OPTION_PRICE_PATTERNS} patterns in option_prices of one file: write exact SKUs, or fewer, wider patterns`,
        "key",
      );
  }
  for (const [sku, title] of entries("titles"))
    if (typeof title === "string")
      layer.titles.set(sku, { value: title, site: at("overrides", "titles", sku) });
  for (const [sku, text] of entries("descriptions"))
    if (typeof text === "string")
      layer.descriptions.set(sku, { value: text, site: at("overrides", "descriptions", sku) });
  for (const [sku, images] of entries("images"))
    if (Array.isArray(images))
      layer.images.set(sku, { value: imageRefs(images), site: at("overrides", "images", sku) });
  for (const [sku, schedules] of entries("schedules")) {
    if (!Array.isArray(schedules)) continue;
    checkSchedules(
      parsed,
      [...base, "overrides", "schedules", sku],
      schedules,
      `schedules of ${bare(sku)}`,
      problems,
    );
    layer.schedules.set(sku, { value: writtenSchedules(schedules), site: at("overrides", "schedules", sku) });
  }
  for (const [sku, window] of entries("available")) {
    const bounds = readBounds(parsed, problems, [...base, "overrides", "available", sku], window);
    if (bounds) layer.windows.set(sku, { value: bounds, site: at("overrides", "available", sku) });
  }
  for (const [sku, limits] of entries("limits")) {
    if (!isRecord(limits)) continue;
    const entry: LimitsEntry = {};
    if (typeof limits.min === "number")
      entry.min = { value: limits.min, site: at("overrides", "limits", sku, "min") };
    if (typeof limits.max === "number")
      entry.max = { value: limits.max, site: at("overrides", "limits", sku, "max") };
    if (entry.min && entry.max && entry.min.value > entry.max.value)
      report(
        problems,
        entry.min.site,
        `min (${entry.min.value}) is more than max (${entry.max.value}): lower min or raise max`,
      );
    layer.limits.set(sku, entry);
  }
  list(o.exclude).forEach((sku, k) => {
    if (typeof sku === "string") layer.exclude.push({ value: sku, site: at("overrides", "exclude", k) });
  });

  readAvailability(layer, a, at, problems);
  const rules = readPriceRules(parsed, base, settings, problems, currency);
  if (rules) layer.priceRules = rules;
  return layer;
}

/**
 * Reads a layer's `availability:` into it: items switched off (`unavailable:`, for good, `until` a time
 * or `for` a while, resolved per store by {@link timedLayer}) and switched on (`available:`); an item in
 * both lists is a problem.
 */
function readAvailability(
  layer: OverridesLayer,
  a: Record<string, unknown>,
  at: (...segments: (string | number)[]) => Site,
  problems: ConfigProblem[],
): void {
  list(a.unavailable).forEach((entry, k) => {
    const site = at("availability", "unavailable", k);
    if (typeof entry === "string") return void layer.unavailable.push({ value: entry, site });
    if (!isRecord(entry) || typeof entry.sku !== "string") return;
    const both = typeof entry.until === "string" && typeof entry.for === "string";
    if (both || (typeof entry.until !== "string" && typeof entry.for !== "string"))
      return report(
        problems,
        site,
        `${quote(entry.sku)}: write until: (a time) or for: (a duration, 2h), ${both ? "not both" : "or the SKU alone"}`,
      );
    const key = typeof entry.until === "string" ? "until" : "for";
    const text = String(entry[key]);
    const whenSite = at("availability", "unavailable", k, key);
    const time = key === "until" ? parseUntil(text) : parseFor(text);
    if (!time.ok) return report(problems, whenSite, time.error);
    layer.unavailable.push({ value: entry.sku, site, when: { time: time.value, text, site: whenSite } });
  });
  if (Array.isArray(a.available)) {
    const off = new Set(layer.unavailable.map((e) => e.value));
    layer.available = [];
    a.available.forEach((sku, k) => {
      if (typeof sku !== "string") return;
      const site = at("availability", "available", k);
      if (off.has(sku))
        report(
          problems,
          site,
          `${quote(sku)} is listed as both unavailable and available: keep it in one list`,
        );
      layer.available!.push({ value: sku, site });
    });
  }
}

/**
 * A layer as one store reads it: its dated prices moved to `prices` (started at the run's clock, and in
 * `ending` when they have an end) or `upcoming`, or dropped once their `until` has passed (the lower
 * layers' price holds again), its items switched off until a time given that instant (ISO 8601 with the store's
 * offset) and how the plan shows it, and the entries whose time has passed moved to `expired`. The layer
 * itself when it writes no time. Problems (a local time in a store without a time zone, `until: close`
 * on a day the store is closed) are reported through the clock, once per site.
 */
export function timedLayer(layer: OverridesLayer, clock: StoreClock): OverridesLayer {
  if (layer.dated.size === 0 && !layer.unavailable.some((e) => e.when)) return layer;
  const prices = new Map(layer.prices);
  const upcoming = new Map(layer.upcoming);
  const ending = new Map(layer.ending);
  for (const [sku, d] of layer.dated) {
    const span = clock.span(d.start, d.end);
    if (span === undefined || span.end <= clock.now) continue;
    const entry = { value: d.value, site: d.site };
    if (span.start > clock.now)
      upcoming.set(sku, { ...entry, from: d.start!.text, ...(d.end ? { until: d.end.text } : {}) });
    else {
      prices.set(sku, entry);
      if (d.end) ending.set(sku, { until: d.end.text });
    }
  }
  const unavailable: OverridesLayer["unavailable"] = [];
  const expired = [...layer.expired];
  for (const e of layer.unavailable) {
    if (!e.when) {
      unavailable.push(e);
      continue;
    }
    const ms = clock.instant(e.when.time, e.when.text, e.when.site);
    if (ms === undefined) continue;
    // A time that has passed: the platform switched the item back on then; the entry is ignored.
    if (ms <= clock.now) {
      expired.push({ sku: e.value, until: e.when.text, site: e.site });
      continue;
    }
    // A time with its offset is sent as written; any other as the store's wall time with its offset.
    const until = e.when.time.kind === "instant" ? e.when.text : clock.iso(ms);
    const shown = clock.shown(ms);
    unavailable.push({ value: e.value, site: e.site, until, ...(shown !== undefined ? { shown } : {}) });
  }
  return { ...layer, prices, upcoming, ending, dated: new Map(), unavailable, expired };
}

/** A value of the merged overrides: the winning one, and those of the lower layers it hides. */
export interface Layered<T> {
  value: T;
  site: Site;
  /** Index of the winning layer among the store's layers (higher wins). */
  level: number;
  /** Values of lower layers, highest first. */
  below: Entry<T>[];
  /** The SKU pattern of `option_prices` that wrote the winning value, as in {@link Entry}. */
  pattern?: string;
}

/** A store's overrides merged from its layers, every value with its site. */
export interface MergedOverrides {
  /** The layers that write overrides, lowest first (their index is the `level` of their values). */
  layers: readonly OverridesLayer[];
  prices: Map<string, Layered<number>>;
  /**
   * Prices of the highest layer that writes them with a `from` still ahead, unless a higher layer writes
   * a price of the same SKU: what the plan shows as upcoming.
   */
  upcoming: Map<string, Entry<number> & { from: string; until?: string }>;
  /**
   * Prices of `prices` that hold until a time still ahead, by SKU: `until` as written, and `then`, the
   * price of the lower layers it hides (absent: the catalog's price comes back).
   */
  ending: Map<string, { until: string; then?: number }>;
  optionPrices: Map<string, Map<string, Layered<number>>>;
  titles: Map<string, Layered<string>>;
  descriptions: Map<string, Layered<string>>;
  images: Map<string, Layered<ImageRef[]>>;
  schedules: Map<string, Layered<WrittenSchedule[]>>;
  /** Offer windows by SKU of an item or category, the highest layer's (in place of the catalog's). */
  windows: Map<string, Layered<WindowBounds>>;
  limits: Map<string, { min?: Layered<number>; max?: Layered<number> }>;
  /** Excluded SKUs with every exclusion of them, lowest layer first. */
  exclude: Map<string, (Entry<string> & { level: number })[]>;
  /** SKU → whether it must be available (false: switched off), the highest layer winning. */
  availability: Map<string, Layered<boolean>>;
  /** SKU → the `until` of the winning `unavailable:` entry (and how the plan shows it), when it gives one. */
  until: Map<string, { until: string; shown?: string }>;
  /** Whether some layer writes `availability.available`. */
  availableWritten: boolean;
  /** The price rules of the highest layer that writes `price_rules:`; absent when none does. */
  priceRules?: Layered<PriceRule[]>;
}

function put<T>(into: Map<string, Layered<T>>, key: string, entry: Entry<T>, level: number): void {
  const prev = into.get(key);
  into.set(key, {
    value: entry.value,
    site: entry.site,
    level,
    below: prev ? [{ value: prev.value, site: prev.site }, ...prev.below] : [],
  });
}

/** Merges the overrides of a store's layers, lowest first. */
export function mergeOverrides(layers: readonly OverridesLayer[]): MergedOverrides {
  const out: MergedOverrides = {
    layers,
    prices: new Map(),
    upcoming: new Map(),
    ending: new Map(),
    optionPrices: new Map(),
    titles: new Map(),
    descriptions: new Map(),
    images: new Map(),
    schedules: new Map(),
    windows: new Map(),
    limits: new Map(),
    exclude: new Map(),
    availability: new Map(),
    until: new Map(),
    availableWritten: false,
  };
  layers.forEach((layer, level) => {
    for (const [sku, e] of layer.prices) {
      const then = out.prices.get(sku)?.value;
      put(out.prices, sku, e, level);
      out.upcoming.delete(sku);
      const end = layer.ending.get(sku);
      if (end) out.ending.set(sku, { until: end.until, ...(then !== undefined ? { then } : {}) });
      else out.ending.delete(sku);
    }
    for (const [sku, e] of layer.upcoming) out.upcoming.set(sku, e);
    for (const [parent, prices] of layer.optionPrices) {
      let inParent = out.optionPrices.get(parent);
      if (!inParent) out.optionPrices.set(parent, (inParent = new Map()));
      for (const [sku, e] of prices) put(inParent, sku, e, level);
    }
    for (const [sku, e] of layer.titles) put(out.titles, sku, e, level);
    for (const [sku, e] of layer.descriptions) put(out.descriptions, sku, e, level);
    for (const [sku, e] of layer.images) put(out.images, sku, e, level);
    for (const [sku, e] of layer.schedules) put(out.schedules, sku, e, level);
    for (const [sku, e] of layer.windows) put(out.windows, sku, e, level);
    for (const [sku, e] of layer.limits) {
      const merged = out.limits.get(sku) ?? {};
      const field = (k: "min" | "max") => {
        const got = e[k];
        if (!got) return;
        const prev = merged[k];
        merged[k] = {
          value: got.value,
          site: got.site,
          level,
          below: prev ? [{ value: prev.value, site: prev.site }, ...prev.below] : [],
        };
      };
      field("min");
      field("max");
      out.limits.set(sku, merged);
    }
    for (const e of layer.exclude) {
      const all = out.exclude.get(e.value) ?? [];
      all.push({ ...e, level });
      out.exclude.set(e.value, all);
    }
    for (const e of layer.unavailable) {
      put(out.availability, e.value, { value: false, site: e.site }, level);
      if (e.until !== undefined)
        out.until.set(e.value, { until: e.until, ...(e.shown !== undefined ? { shown: e.shown } : {}) });
      else out.until.delete(e.value);
    }
    for (const e of layer.available ?? []) {
      put(out.availability, e.value, { value: true, site: e.site }, level);
      out.until.delete(e.value);
    }
    if (layer.available) out.availableWritten = true;
    if (layer.priceRules) {
      const prev = out.priceRules;
      out.priceRules = {
        ...layer.priceRules,
        level,
        below: prev ? [{ value: prev.value, site: prev.site }, ...prev.below] : [],
      };
    }
  });
  return out;
}

/** The plain overrides of one store, as src/config/resolve.ts applies them. */
export interface StoreOverrides {
  prices: ReadonlyMap<string, number>;
  /** Prices from a date still ahead, by SKU: shown as upcoming, not applied. Absent when none. */
  upcoming?: ReadonlyMap<string, { price: number; from: string; until?: string }>;
  /**
   * Prices of `prices` that hold until a time still ahead, by SKU (`until` as written), with the lower
   * layers' price that comes back then (`then`; absent: the catalog's). Absent when none.
   */
  ending?: ReadonlyMap<string, { until: string; then?: number }>;
  optionPrices: ReadonlyMap<string, ReadonlyMap<string, number>>;
  titles: ReadonlyMap<string, string>;
  descriptions: ReadonlyMap<string, string>;
  images: ReadonlyMap<string, ImageRef[]>;
  schedules: ReadonlyMap<string, WrittenSchedule[]>;
  limits: ReadonlyMap<string, { min?: number; max?: number }>;
  exclude: ReadonlySet<string>;
  unavailable: readonly string[];
  /**
   * SKU of `unavailable` → until when (ISO 8601 with offset) and how the plan shows it in the store's
   * zone; absent when no entry gives a time.
   */
  until?: ReadonlyMap<string, { until: string; shown?: string }>;
  /** Absent when no layer writes `availability.available`. */
  available?: readonly string[];
  /**
   * The store's price rules, applied to the catalog's prices before the explicit ones above (which
   * win); absent when no layer writes any.
   */
  priceRules?: readonly PriceRule[];
}

function values<T>(map: ReadonlyMap<string, Layered<T>>): Map<string, T> {
  return new Map([...map].map(([k, v]) => [k, v.value]));
}

/** The plain values of merged overrides. */
export function plainOverrides(merged: MergedOverrides): StoreOverrides {
  const availability = [...merged.availability];
  return {
    prices: values(merged.prices),
    ...(merged.upcoming.size > 0
      ? {
          upcoming: new Map(
            [...merged.upcoming].map(([k, e]) => [
              k,
              { price: e.value, from: e.from, ...(e.until !== undefined ? { until: e.until } : {}) },
            ]),
          ),
        }
      : {}),
    ...(merged.ending.size > 0 ? { ending: new Map(merged.ending) } : {}),
    optionPrices: new Map([...merged.optionPrices].map(([p, m]) => [p, values(m)])),
    titles: values(merged.titles),
    descriptions: values(merged.descriptions),
    images: values(merged.images),
    schedules: values(merged.schedules),
    limits: new Map(
      [...merged.limits].map(([k, l]) => [
        k,
        {
          ...(l.min ? { min: l.min.value } : {}),
          ...(l.max ? { max: l.max.value } : {}),
        },
      ]),
    ),
    exclude: new Set(merged.exclude.keys()),
    unavailable: availability.filter(([, v]) => !v.value).map(([k]) => k),
    ...(merged.until.size > 0 ? { until: new Map(merged.until) } : {}),
    ...(merged.availableWritten
      ? { available: availability.filter(([, v]) => v.value).map(([k]) => k) }
      : {}),
    ...(merged.priceRules && merged.priceRules.value.length > 0
      ? { priceRules: merged.priceRules.value }
      : {}),
  };
}

function recordMap<T>(record: Record<string, T | undefined> | undefined): Map<string, T> {
  const out = new Map<string, T>();
  for (const [k, v] of Object.entries(record ?? {})) if (v !== undefined) out.set(k, v);
  return out;
}

/**
 * The overrides a store file writes itself, without layers or sites: what `carte import` resolves its
 * written files with (src/import/factor.ts).
 */
export function overridesOfFile(store: StoreFile): StoreOverrides {
  const o = store.overrides ?? {};
  const available = store.availability?.available;
  return {
    // carte import writes plain prices; a price from a date counts as its price here.
    prices: new Map(
      Object.entries(o.prices ?? {}).flatMap(([k, v]) =>
        v === undefined
          ? []
          : [[k, typeof v === "number" ? v : (v as { price: number }).price] as [string, number]],
      ),
    ),
    optionPrices: new Map(Object.entries(o.option_prices ?? {}).map(([p, m]) => [p, recordMap(m)])),
    titles: recordMap(o.titles),
    descriptions: recordMap(o.descriptions),
    images: new Map(Object.entries(o.images ?? {}).map(([k, v]) => [k, imageRefs(v)])),
    schedules: new Map(Object.entries(o.schedules ?? {}).map(([k, v]) => [k, writtenSchedules(v)])),
    limits: recordMap(o.limits),
    exclude: new Set(o.exclude ?? []),
    unavailable: (store.availability?.unavailable ?? []).map((e) => (typeof e === "string" ? e : e.sku)),
    ...(untilOf(store) ? { until: untilOf(store) } : {}),
    ...(available ? { available } : {}),
  };
}

/** The `until` of the `unavailable:` entries of a store file that give one (carte import writes them with offset). */
function untilOf(store: StoreFile): Map<string, { until: string }> | undefined {
  const out = new Map<string, { until: string }>();
  for (const e of store.availability?.unavailable ?? [])
    if (typeof e !== "string" && typeof e.until === "string") out.set(e.sku, { until: e.until });
  return out.size > 0 ? out : undefined;
}

/** The kinds of catalog entries, as the kinds declare them, by the override that may name them. */
let entriesByOverride: Map<CatalogOverride, CatalogEntry[]> | undefined;

/** The kinds of catalog entries an override may name (`prices`: items and options), in registry order. */
function entriesFor(override: CatalogOverride): CatalogEntry[] {
  if (!entriesByOverride) {
    entriesByOverride = new Map();
    for (const e of catalogEntries())
      for (const o of e.overrides) entriesByOverride.set(o, [...(entriesByOverride.get(o) ?? []), e]);
  }
  return entriesByOverride.get(override) ?? [];
}

/** A kind of catalog entry with its article (`an item`), by its name. */
function a(kind: string): string {
  return catalogEntries().find((e) => e.name === kind)?.a ?? kind;
}

/** The plurals of some kinds of entries: `items and options`. */
function plurals(entries: readonly CatalogEntry[]): string {
  return entries.map((e) => e.plural).join(" and ");
}

/** What the catalogs lack when no entry of these kinds has a SKU: `no item or option with this SKU`. */
function lacking(entries: readonly CatalogEntry[]): string {
  const names = entries.map((e) => e.name);
  return `no ${names.slice(0, -1).join(", ")}${names.length > 1 ? " or " : ""}${names.at(-1)} with this SKU`;
}

/** An unknown SKU written in a layer, with the catalogs of every store that inherits it. */
interface Unknown {
  site: Site;
  sku: string;
  /** What the catalogs lack, e.g. `no item or option with this SKU`. */
  lacks: string;
  catalogs: Set<string>;
  /** The catalogs' indexes, for "did you mean". */
  indexes: Set<CatalogIndex>;
  known: boolean;
  target: "value" | "key";
}

/**
 * What {@link OverridesChecker} judges of one SKU written in a layer: where it is written, the SKU, the
 * layer's level, the kinds that may carry the entry, what the catalogs lack when the SKU is unknown
 * (e.g. `no item or option with this SKU`), the message for a SKU of the wrong kind, what the entry
 * would do to a SKU (`have a price`; undefined when an exclusion does not matter) and which part of the
 * entry a problem points at.
 */
type JudgeArgs = [
  site: Site,
  sku: string,
  level: number,
  allowed: readonly CatalogEntry[],
  lacks: string,
  wrong: (kind: string) => string,
  excludedWhat: string | undefined,
  target: "value" | "key",
];

/**
 * Checks the merged overrides of stores against their catalogs. A SKU a layer names must be of the
 * right kind in the catalog of every store that inherits it; an unknown SKU is a problem when no store
 * that inherits the entry knows it (a chain-wide price of a pizza is fine in the coffee stores, whose
 * catalog has none). A value for a SKU excluded in the same or a lower layer is a problem; one excluded
 * in a higher layer is dropped. Call {@link check} for every store, then {@link finish}.
 */
export class OverridesChecker {
  private readonly unknowns = new Map<string, Unknown>();

  constructor(private readonly problems: ConfigProblem[]) {}

  /**
   * Checks one store: the entries of each layer of its overrides, then its modifier groups.
   */
  check(merged: MergedOverrides, catalog: CatalogIndex): void {
    merged.layers.forEach((layer, level) => this.checkLayer(merged, catalog, layer, level));
    this.checkGroups(merged, catalog);
  }

  /**
   * Whether `sku`, written at `site` of the layer at `level`, may carry what the entry says; reports
   * what is wrong (an unknown SKU only once every store has been checked, see {@link finish}).
   */
  private judge(
    merged: MergedOverrides,
    catalog: CatalogIndex,
    ...[site, sku, level, allowed, lacks, wrong, excludedWhat, target]: JudgeArgs
  ): boolean {
    const excludedAt = (sku: string): (Entry<string> & { level: number }) | undefined =>
      merged.exclude.get(sku)?.[0];
    const key = `${site.parsed.file}\0${site.pointer}`;
    let u = this.unknowns.get(key);
    if (!u)
      this.unknowns.set(
        key,
        (u = { site, sku, lacks, catalogs: new Set(), indexes: new Set(), known: false, target }),
      );
    const kind = entryKind(catalog, sku);
    if (kind === undefined) {
      u.catalogs.add(catalog.name);
      u.indexes.add(catalog);
      return false;
    }
    u.known = true;
    if (!allowed.some((e) => e.name === kind)) {
      report(this.problems, site, wrong(kind), target);
      return false;
    }
    const ex = excludedAt(sku);
    if (excludedWhat !== undefined && ex && ex.level <= level) {
      const here = ex.site.parsed === site.parsed;
      report(
        this.problems,
        site,
        here
          ? `${quote(sku)} is excluded from this store (overrides.exclude), so it cannot ${excludedWhat} here`
          : `${quote(sku)} is excluded at ${where(ex.site)}, so it cannot ${excludedWhat} here`,
        target,
      );
      return false;
    }
    return true;
  }

  /**
   * Checks the entries of one layer of a store's overrides (exclusions, prices, option prices, titles,
   * descriptions, images, schedules, limits, availability) against the store's catalog.
   */
  private checkLayer(
    merged: MergedOverrides,
    catalog: CatalogIndex,
    layer: OverridesLayer,
    level: number,
  ): void {
    const judge = (...args: JudgeArgs): boolean => this.judge(merged, catalog, ...args);
    const perSku = <T>(
      map: Map<string, Entry<T>>,
      what: string,
      plural: string,
      override: CatalogOverride,
    ) => {
      const allowed = entriesFor(override);
      for (const [sku, e] of map)
        judge(
          e.site,
          sku,
          level,
          allowed,
          lacking(allowed),
          (kind) =>
            `${quote(sku)} is ${a(kind)}, which has no ${what}: ${plural} are for ${plurals(allowed)}`,
          `have a ${what}`,
          "key",
        );
    };
    for (const e of layer.exclude)
      judge(
        e.site,
        e.value,
        level,
        entriesFor("exclude"),
        "no such item, option, group or category",
        () => "",
        undefined,
        "value",
      );
    perSku(layer.prices, "price", "prices", "prices");
    this.checkOptionPrices(layer, level, catalog, judge);
    perSku(layer.titles, "title", "titles", "titles");
    perSku(layer.descriptions, "description", "descriptions", "descriptions");
    perSku(layer.images, "image", "images", "images");
    perSku(layer.schedules, "schedule", "schedules", "schedules");
    perSku(layer.windows, "time window", "time windows", "available");
    perSku(
      new Map([...layer.limits].map(([k, v]) => [k, { value: v, site: siteAt(layer, "limits", k) }])),
      "min or max",
      "limits",
      "limits",
    );
    const switched = entriesFor("availability");
    for (const key of ["unavailable", "available"] as const) {
      const verb = key === "unavailable" ? "switched off" : "switched on";
      for (const e of layer[key] ?? [])
        judge(
          e.site,
          e.value,
          level,
          switched,
          lacking(switched),
          (kind) => `${quote(e.value)} is ${a(kind)}: only ${plurals(switched)} can be ${verb}`,
          `be ${verb}`,
          "value",
        );
    }
  }

  /**
   * Checks the parents of a layer's `option_prices` (of a kind that offers options) and that each
   * option priced is offered under its parent, at any depth.
   */
  private checkOptionPrices(
    layer: OverridesLayer,
    level: number,
    catalog: CatalogIndex,
    judge: (...args: JudgeArgs) => boolean,
  ): void {
    const parents = entriesFor("option_prices");
    for (const [parent, prices] of layer.optionPrices) {
      const parentSite: Site = {
        parsed: layer.site.parsed,
        pointer: toPointer([...layer.base, "overrides", "option_prices", parent]),
      };
      const ok = judge(
        parentSite,
        parent,
        level,
        parents,
        lacking(parents),
        (kind) =>
          `${quote(parent)} is ${a(kind)}: option_prices are for ${plurals(parents)} that offer options`,
        "have option prices",
        "key",
      );
      if (!ok) continue;
      // The options under the parent at any depth: a price may name the option's parent or any ancestor.
      const offered = new Set<string>();
      for (let level = [parent]; level.length > 0;) {
        const next = level
          .flatMap((p) => catalog.parents.get(p) ?? [])
          .flatMap((g) => catalog.groups.get(g)?.options ?? [])
          .filter((s) => !offered.has(s));
        for (const s of next) offered.add(s);
        level = [...new Set(next)];
      }
      for (const [sku, e] of prices) {
        if (!offered.has(sku))
          report(
            this.problems,
            e.site,
            `option ${quote(sku)} is not offered under ${bare(parent)} in catalog ${bare(catalog.name)} (by its modifier groups, or those of the options below it)`,
            "key",
          );
      }
    }
  }

  /** Checks that a store's modifier groups keep enough options, and that their limits fit their options. */
  private checkGroups(merged: MergedOverrides, catalog: CatalogIndex): void {
    for (const [sku, group] of catalog.groups) {
      if (merged.exclude.has(sku)) continue;
      const limits = merged.limits.get(sku);
      const min = limits?.min?.value ?? group.min;
      const gone = group.options.filter((o) => merged.exclude.has(o));
      const remaining = group.options.length - gone.length;
      const needed = Math.max(1, min);
      if (remaining < needed && gone.length > 0) {
        // At the exclusion list of the highest layer that excluded one of its options.
        const last = gone
          .map((o) => merged.exclude.get(o)!.at(-1)!)
          .reduce((x, y) => (y.level > x.level ? y : x));
        const layer = merged.layers[last.level]!;
        report(
          this.problems,
          { parsed: layer.site.parsed, pointer: toPointer([...layer.base, "overrides", "exclude"]) },
          `excluding options leaves modifier group ${quote(sku)} with ${remaining} option${remaining === 1 ? "" : "s"}, ` +
            `but it needs at least ${needed}: exclude the group too, or keep more of its options`,
        );
      }
      const max = limits?.max?.value ?? group.max;
      if (limits?.min || limits?.max) {
        const at = (limits.max ?? limits.min)!.site;
        if (min > max)
          report(
            this.problems,
            at,
            `min (${min}) is more than max (${max}) of modifier group ${quote(sku)} here: lower min or raise max`,
          );
        else if (limits.max && max > group.options.length)
          report(
            this.problems,
            limits.max.site,
            `max (${max}) is more than the ${group.options.length} option${group.options.length === 1 ? "" : "s"} of modifier group ${quote(sku)}: lower max`,
          );
      }
    }
  }

  /** Reports the SKUs that no store inheriting them knows. */
  finish(): void {
    const didYouMean = suggester();
    for (const u of this.unknowns.values()) {
      if (u.known) continue;
      const catalogs = [...u.catalogs];
      const who =
        catalogs.length === 1
          ? `catalog ${bare(catalogs[0]!)} has`
          : `catalogs ${catalogs.map((c) => bare(c)).join(", ")} have`;
      // Listed only when a suggestion is still to be made (the suggester's budget).
      const indexes = u.indexes;
      const names = {
        *[Symbol.iterator]() {
          for (const index of indexes) {
            yield* index.skus.keys();
            yield* index.categories;
          }
        },
      };
      report(
        this.problems,
        u.site,
        `unknown SKU ${quote(u.sku)}${didYouMean(u.sku, names, quote)}: ${who} ${u.lacks}`,
        u.target,
      );
    }
  }
}

function siteAt(layer: OverridesLayer, key: string, sku: string): Site {
  return { parsed: layer.site.parsed, pointer: toPointer([...layer.base, "overrides", key, sku]) };
}
