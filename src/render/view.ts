/**
 * The plan for people: a presentation model built from a {@link Plan}, which the text
 * and Markdown renderers only lay out. Pure; computes nothing against the platform, only reads the
 * plan's changes (`before`, `after`, `diff`).
 *
 * - A change that is the same in several stores is described once, with the stores it is made in
 *   ({@link PlanView.shared}), `in all 40 stores` when they are every store of the plan
 *   ({@link PlanView.run}); what differs stays under each store. An update is split into its detail
 *   lines for this: a price change shared by every store is shown once even when one store also gets a
 *   new title.
 * - Everything is in the files' terms (`modifier_groups`, `options`, `type`, `option prices`), never
 *   the platform's field names (`children`, `modifiersType`, `priceInParent`), which only the JSON plan
 *   holds. SKUs carry their titles (`BURGER-DOUBLE (Hamburguesa Doble)`).
 * - Lists show what moved (`+ BURGER-X at 3`, `- BURGER-Y`, `BURGER-Z moved to 1`), nested values the
 *   paths that changed (microdiff); options come under their modifier group; hours in weekday order with
 *   slots as `11:00-22:00`; a holiday without slots as `closed on 12-25`; a special day the files date
 *   fully with its year (`2026-12-24`); prices in the plan's currency, an option's price in a parent
 *   under that parent.
 * - A store that gets many resources at once (a new store) shows its creates as counts per kind.
 * - A long list of API calls ({@link callLines}) shows consecutive calls of one endpoint on one line.
 *
 * Every string of the model is raw: it holds SKUs, titles, URLs and names from the files or the
 * platform, and each renderer escapes it for its medium (src/render/escape.ts).
 */

import diff from "microdiff";
import { currencyOf, formatPrice, type Currency } from "../money.js";
import { canonicalZone, localText } from "../config/zone.js";
import { nounsOf } from "../kinds/registry.js";
import type { ChangeAction } from "../kinds/types.js";
import { WEEKDAYS, type ImageRef, type Slot } from "../model.js";
import type { Plan, ResourceChange } from "../plan/types.js";

/** Most store keys named beside a shared change; the others are counted (`and 4 more`). */
export const MAX_STORES_NAMED = 5;

/**
 * A store whose plan creates (or deletes) more resources than this shows them as counts per kind
 * (`+ 42 items: A, B, … and 39 more`) rather than one by one; the JSON plan keeps every detail.
 */
export const MASS_CHANGE_THRESHOLD = 20;

/** Kinds with at most this many creates (deletes) in such a store are still shown one by one. */
const MASS_KIND_MIN = 4;

/** Most keys named in a count line. */
const MAX_KEYS_NAMED = 5;

/**
 * One line under a change: `label: before → after` (both set), `label: value` (`after` only), or the
 * bare `label` (`closed`).
 */
export interface Detail {
  label: string;
  before?: string;
  after?: string;
}

/** One change as people read it, in one store or in several. */
export interface ChangeView {
  action: ChangeAction;
  /** What is changed and which: `item BURGER-DOUBLE`, `hours`, `closed on 12-25`, `42 items: …`. */
  head: string;
  /** The title of the resource, shown beside its key; absent when unknown or when stores differ. */
  title?: string;
  /** What happens, on the same line after the title: `switched off`, `11:00-18:00`. */
  summary?: string;
  /** Where a nested resource sits: `PIZZA › SIZE › SIZE-L › CRUST`. */
  within?: string;
  /** For an option: the modifier group it is listed under (the first that offers it). */
  under?: string;
  /** Listed under the change before it: an option right after its modifier group's change. */
  nested?: boolean;
  details: Detail[];
}

/** A change the same in several stores. */
export interface SharedChange {
  /** Store keys, in plan order. */
  stores: string[];
  change: ChangeView;
}

/** The changes of one store (key `""`: the client-level settings), what is not shared. */
export interface StoreView {
  key: string;
  name: string;
  storeId: string;
  changes: ChangeView[];
}

/**
 * The stores a plan runs over, for the words of a shared change: one made in each of them is `in all
 * N stores`.
 */
export interface RunStores {
  /** How many stores the plan covers: its stores in scope (`Plan.stores`), the client aside. */
  count: number;
  /**
   * The plan covers part of the chain's stores only (`--store`, `--target`, a change scope, a rollout
   * stage): `all` then speaks of this plan's stores (`in all 3 stores of this plan`).
   */
  limited: boolean;
}

/** The presentation model of a plan. */
export interface PlanView {
  /** Changes the same in two stores or more, shown once. */
  shared: SharedChange[];
  /** Per store, what is left: the client settings first, then stores in plan order; none empty. */
  stores: StoreView[];
  /** The stores of the run, from the plan (never from the files). */
  run: RunStores;
}

/** A detail as one line: `label: before → after`, `label: value` or `label`. */
export function detailText(d: Detail): string {
  if (d.before !== undefined) return `${d.label}: ${d.before} → ${d.after ?? "(none)"}`;
  return d.after !== undefined ? `${d.label}: ${d.after}` : d.label;
}

/** The head of a change with its title and summary: `item FRIES (Papas): switched off`. */
export function headText(c: ChangeView): string {
  return `${c.head}${c.title ? ` (${c.title})` : ""}${c.summary !== undefined ? `: ${c.summary}` : ""}`;
}

/**
 * `in 3 stores: a, b, c` (at most {@link MAX_STORES_NAMED} keys, then `and K more`); `in all 40 stores`
 * (`in both stores`) when the stores are every store of the run (`run`, {@link PlanView.run}).
 */
export function storesText(stores: readonly string[], run?: RunStores): string {
  if (run !== undefined && run.count >= 2 && stores.length === run.count)
    return `in ${run.count === 2 ? "both" : `all ${run.count}`} stores${run.limited ? " of this plan" : ""}`;
  const named = stores.slice(0, MAX_STORES_NAMED).join(", ");
  const more = stores.length > MAX_STORES_NAMED ? ` and ${stores.length - MAX_STORES_NAMED} more` : "";
  return `in ${stores.length} stores: ${named}${more}`;
}

// ── Values ───────────────────────────────────────────────────────────────────────────────────────────

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const get = (r: unknown, key: string): unknown => (isRecord(r) && Object.hasOwn(r, key) ? r[key] : undefined);

/** A value in plain words: strings quoted (so that spaces show), lists comma-separated. */
function plain(v: unknown): string {
  if (v === undefined || v === null) return "(none)";
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return v.length === 0 ? "(none)" : v.map(plain).join(", ");
  if (isRecord(v)) {
    return `{ ${Object.entries(v)
      .map(([k, x]) => `${k}: ${plain(x)}`)
      .join(", ")} }`;
  }
  return String(v);
}

const isSlot = (v: unknown): v is Slot =>
  isRecord(v) && typeof v.start === "string" && typeof v.end === "string";

/** Slots as the files write them: `11:00-15:00, 18:00-23:59`; none: `closed`. */
export function slotsText(slots: unknown): string {
  if (!Array.isArray(slots)) return "(none)";
  if (slots.length === 0) return "closed";
  return slots.map((s) => (isSlot(s) ? `${s.start}-${s.end}` : plain(s))).join(", ");
}

const DAY_ORDER = [...WEEKDAYS, "hol"];

/** Days of the model (`mon,tue,wed,sat`) with runs of three or more as ranges: `mon-wed,sat`. */
export function daysText(days: readonly string[]): string {
  const idx = days.map((d) => DAY_ORDER.indexOf(d));
  if (idx.some((i) => i < 0)) return days.join(",");
  const out: string[] = [];
  let i = 0;
  while (i < days.length) {
    let j = i;
    // Ranges only among the weekdays: `hol` is never part of one (docs/configuration.md "Days").
    while (j + 1 < days.length && idx[j + 1] === idx[j]! + 1 && idx[j + 1]! < 7) j++;
    if (j - i >= 2) out.push(`${days[i]}-${days[j]}`);
    else for (let k = i; k <= j; k++) out.push(days[k]!);
    i = j + 1;
  }
  return out.join(",");
}

/** Schedules as the files write them: `mon-fri 06:00-11:00; sat,sun,hol 07:00-12:00`; none: `always`. */
function schedulesText(v: unknown): string {
  if (!Array.isArray(v) || v.length === 0) return "always";
  return v
    .map((s) => {
      const days = get(s, "days");
      return `${typeof days === "string" ? daysText(days.split(",")) : plain(days)} ${slotsText(get(s, "periods"))}`;
    })
    .join("; ");
}

function imageText(v: unknown): string {
  const image = v as ImageRef;
  if (typeof image === "string") return image;
  return isRecord(image) ? `${String(image.path)} (host ${String(image.host)})` : plain(v);
}

/**
 * The moves that turn the list `before` into `after`: `- X` for what goes, `+ X at 3` for what comes
 * (1-based position in the new list), `X moved to 2` for what stays but changes place (what is not on
 * the longest common subsequence of both lists).
 */
export function listMoves(before: readonly string[], after: readonly string[]): string[] {
  const n = before.length;
  const m = after.length;
  // Longest common subsequence, by dynamic programming (lists of at most a few hundred entries).
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] =
        before[i] === after[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const kept = new Set<number>(); // positions in `after` on the common subsequence
  for (let i = 0, j = 0; i < n && j < m;) {
    if (before[i] === after[j]) {
      kept.add(j);
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) i++;
    else j++;
  }
  const inAfter = new Set(after);
  const inBefore = new Set(before);
  const out: string[] = [];
  for (const x of before) if (!inAfter.has(x)) out.push(`- ${x}`);
  after.forEach((x, j) => {
    if (!inBefore.has(x)) out.push(`+ ${x} at ${j + 1}`);
    else if (!kept.has(j)) out.push(`${x} moved to ${j + 1}`);
  });
  return out;
}

/** Values a create leaves out: they are the defaults. */
const isBlank = (v: unknown) =>
  v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0);

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x)) : []);

/** Details of a list attribute: the whole list on create, the moves on update. */
function listDetails(label: string, before: unknown, after: unknown, create: boolean): Detail[] {
  const a = strings(after);
  if (create) return [{ label, after: a.join(", ") }];
  return listMoves(strings(before), a).map((move) => ({ label, after: move }));
}

/**
 * Details of a nested value as the paths that changed (microdiff): `label.path: before → after`,
 * `label.path: value` when added, `label.path: (removed)` when removed.
 */
function pathDetails(
  label: string,
  before: unknown,
  after: unknown,
  show: (v: unknown) => string = plain,
): Detail[] {
  if (!isRecord(before) && !Array.isArray(before))
    return [{ label, before: show(before), after: show(after) }];
  if (!isRecord(after) && !Array.isArray(after)) return [{ label, before: show(before), after: show(after) }];
  return diff(before, after).map((d) => {
    const at = `${label}.${d.path.join(".")}`;
    if (d.type === "CREATE") return { label: at, after: show(d.value) };
    if (d.type === "REMOVE") return { label: at, before: show(d.oldValue), after: "(removed)" };
    return { label: at, before: show(d.oldValue), after: show(d.value) };
  });
}

// ── One change ───────────────────────────────────────────────────────────────────────────────────────

/** What the view needs to describe the changes of a plan. */
interface Context {
  money: Currency | undefined;
  /** Titles of the SKUs of a store's changes (items, groups, categories), from their before or after. */
  titles: Map<string, string>;
  /** The store's time zone as the plan names it, when known and valid (`PlanStore.timeZone`). */
  zone: string | undefined;
  /** When the view is read, in ms since the epoch: what `today` means. */
  now: number;
}

/** An instant as ISO 8601 with its offset, as carte writes `until` (`2026-11-26T18:00:00-05:00`). */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T(\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * How people read an item's switch-off: ` until 18:00 GMT-5 (today) (2026-11-26T18:00:00-05:00)` on
 * the store's clock, relative to `now`, when the plan names the store's zone, else the wall time the
 * instant carries (` until 18:00 (…)`, as the plan's data says it); `, switched off outside the files`
 * when carte's marker is not on it. The words change with the day they are read: the JSON plan keeps the
 * instant (`after.until`) and the stable text (src/kinds/availability.ts `availabilityState`).
 */
function offWords(after: unknown, ctx: Context): string {
  const until = get(after, "until");
  const outside = get(after, "byCarte") === true ? "" : ", switched off outside the files";
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

/** One attribute shown by `show`: its new value for a create, old → new otherwise. */
function valueDetail(
  label: string,
  show: (v: unknown) => string,
  before: unknown,
  after: unknown,
  create: boolean,
): Detail {
  return create ? { label, after: show(after) } : { label, before: show(before), after: show(after) };
}

/** An attribute of an item or modifier group, in the files' terms. */
function itemDetails(ch: ResourceChange, ctx: Context): Detail[] {
  const create = ch.action === "create";
  const isGroup = get(ch.after ?? ch.before, "type") === "MODIFIER_GROUP";
  const price = (v: unknown) => (typeof v === "number" ? formatPrice(v, ctx.money) : plain(v));
  const out: Detail[] = [];
  for (const d of ch.diff) {
    const { before, after } = d;
    if (create && isBlank(after)) continue;
    const value = (show: (v: unknown) => string, label: string): Detail =>
      valueDetail(label, show, before, after, create);
    switch (d.attribute) {
      case "sku":
      case "title":
        // The title is beside the SKU; a change of title is a line of its own.
        if (!create && d.attribute === "title") out.push(value(plain, "title"));
        break;
      case "type":
        if (!create) {
          const kind = (v: unknown) => (v === "MODIFIER_GROUP" ? "modifier group" : "item");
          out.push({ label: "kind", before: kind(before), after: kind(after) });
        }
        break;
      case "price":
        out.push(value(price, "price"));
        break;
      case "children":
        out.push(...listDetails(isGroup ? "options" : "modifier_groups", before, after, create));
        break;
      case "images":
        out.push(
          ...listDetails(
            "images",
            Array.isArray(before) ? before.map(imageText) : [],
            Array.isArray(after) ? after.map(imageText) : [],
            create,
          ),
        );
        break;
      case "modifiersType":
        out.push(value((v) => (typeof v === "string" ? v : "(none)"), "type"));
        break;
      case "schedules":
        out.push(value(schedulesText, "schedules"));
        break;
      case "priceInParent": {
        // On the option; the files write it on the parent (`option_prices:`): shown as `price in PARENT`.
        const b = isRecord(before) ? before : {};
        const a = isRecord(after) ? after : {};
        for (const step of diff(b, a)) {
          const parent = String(step.path[0]);
          const label = `price in ${parent}`;
          if (step.type === "CREATE")
            out.push(
              create
                ? { label, after: price(step.value) }
                : { label, before: "its own price", after: price(step.value) },
            );
          else if (step.type === "REMOVE")
            out.push({ label, before: price(step.oldValue), after: `its own price` });
          else out.push({ label, before: price(step.oldValue), after: price(step.value) });
        }
        break;
      }
      default:
        out.push(...attributeDetails(d.attribute, before, after, create));
    }
  }
  return out;
}

/** A generic attribute: the value, or the paths that changed inside a nested one. */
function attributeDetails(attribute: string, before: unknown, after: unknown, create: boolean): Detail[] {
  if (create) return [{ label: attribute, after: plain(after) }];
  if ((isRecord(before) || Array.isArray(before)) && (isRecord(after) || Array.isArray(after)))
    return pathDetails(attribute, before, after);
  return [{ label: attribute, before: plain(before), after: plain(after) }];
}

type Entry = { category: number; sort: string; view: ChangeView };

/** Categories of the store view, in the order of the files' sections. */
const ORDER = {
  client: 0,
  item: 1,
  group: 2,
  category: 3,
  menu: 4,
  availability: 5,
  schedule: 6,
  hours: 7,
  holiday: 8,
  special: 9,
  open: 10,
  webhook: 11,
  other: 12,
} as const;

/** The words of a change's resources, as its kind declares them (`option`: an item under a group). */
function nounOf(ch: ResourceChange): readonly [string, string] {
  const nouns = nounsOf(ch.kind === "item" && ch.group !== undefined ? "option" : ch.kind);
  return nouns ?? [ch.kind, `${ch.kind} changes`];
}

function titleOf(ch: ResourceChange, ctx: Context): string | undefined {
  const t = ch.title ?? get(ch.after, "title") ?? get(ch.before, "title");
  if (typeof t === "string" && t !== "") return t;
  return ctx.titles.get(ch.key);
}

/** What every view of a change starts from: the change's action and no detail yet. */
type ViewBase = { action: ChangeAction; details: Detail[] };

/** The view of one change of a store (hours are gathered later, see {@link hoursView}). */
function changeView(ch: ResourceChange, ctx: Context): Entry {
  const create = ch.action === "create";
  const base: ViewBase = { action: ch.action, details: [] };
  const within = ch.within?.length ? { within: ch.within.join(" › ") } : {};
  const titled = (head: string): ChangeView => {
    const title = titleOf(ch, ctx);
    return { ...base, head, ...(title ? { title } : {}), ...within };
  };
  switch (ch.kind) {
    case "item":
    case "modifier_group": {
      const view = titled(`${nounOf(ch)[0]} ${ch.key}`);
      view.details = itemDetails(ch, ctx);
      if (ch.kind === "modifier_group") return { category: ORDER.group, sort: `${ch.key}\u0000`, view };
      if (ch.group !== undefined) {
        view.under = ch.group;
        return { category: ORDER.group, sort: `${ch.group}\u0000${ch.key}`, view };
      }
      return { category: ORDER.item, sort: ch.key, view };
    }
    case "category": {
      const view = titled(`category ${ch.key}`);
      for (const d of ch.diff) {
        if (d.attribute === "sku" || (d.attribute === "title" && create) || (create && isBlank(d.after)))
          continue;
        if (d.attribute === "items") view.details.push(...listDetails("items", d.before, d.after, create));
        else if (d.attribute === "schedules")
          view.details.push(valueDetail("schedules", schedulesText, d.before, d.after, create));
        else view.details.push(...attributeDetails(d.attribute, d.before, d.after, create));
      }
      return { category: ORDER.category, sort: ch.key, view };
    }
    case "menu":
      return menuView(ch, base);
    case "availability": {
      const on = get(ch.after, "available");
      const view = titled(`item ${ch.key}`);
      view.summary =
        on === false
          ? `switched off${offWords(ch.after, ctx)}`
          : on === true
            ? "switched on"
            : "no longer managed";
      return { category: ORDER.availability, sort: ch.key, view };
    }
    case "holiday": {
      // A holiday with no slot is not a resource (src/kinds/holidays.ts): the store is closed that day.
      const before = get(ch.before, "slots");
      const after = get(ch.after, "slots");
      const view: ChangeView =
        ch.action === "delete"
          ? { ...base, head: `closed on ${ch.key}`, summary: `was open ${slotsText(before)}` }
          : ch.action === "create"
            ? { ...base, head: `open again on ${ch.key}`, summary: slotsText(after) }
            : { ...base, head: `hours on ${ch.key}`, summary: `${slotsText(before)} → ${slotsText(after)}` };
      return { category: ORDER.holiday, sort: ch.key, view };
    }
    case "special_day":
      return specialDayView(ch, base);
    case "store_availability": {
      const b = get(ch.before, "open");
      const a = get(ch.after, "open");
      const says = (v: unknown) =>
        v === true ? "true (takes orders)" : v === false ? "false (takes no orders)" : plain(v);
      const view: ChangeView = {
        ...base,
        head: "open",
        summary: ch.action === "update" ? `${says(b)} → ${says(a)}` : says(a ?? b),
      };
      return { category: ORDER.open, sort: ch.key, view };
    }
    case "webhook":
    case "client_webhook":
      return webhookView(ch, base);
    case "corridor_schedule":
    case "product_schedule": {
      const view = titled(`${nounOf(ch)[0]} ${ch.key}`);
      const show = (r: unknown) => schedulesText(get(r, "schedules"));
      view.details.push(
        ch.action === "update"
          ? { label: "schedules", before: show(ch.before), after: show(ch.after) }
          : { label: "schedules", after: show(ch.after ?? ch.before) },
      );
      return { category: ORDER.schedule, sort: `${ch.kind}\u0000${ch.key}`, view };
    }
    default: {
      // A kind this view does not know yet: its attributes, nested values as paths.
      const view: ChangeView = { ...base, head: `${ch.kind} ${ch.key}` };
      for (const d of ch.diff) view.details.push(...attributeDetails(d.attribute, d.before, d.after, create));
      return { category: ORDER.other, sort: `${ch.kind}\u0000${ch.key}`, view };
    }
  }
}

/**
 * An option's change whose prices in a parent (`price in P`) name another parent than its path (the
 * kind gives one path, the shortest, when the option's group sits under several parents): each such
 * parent's prices as a change of their own, under `P › GROUP`, so that the path names the parent the
 * price is for. What is not a parent's price stays under the path; the path is kept when it names P.
 */
function byParent(entry: Entry, ch: ResourceChange): Entry[] {
  const path = ch.within;
  const view = entry.view;
  if (path === undefined || path.length < 2 || ch.kind !== "item") return [entry];
  const [parent, group] = [path[path.length - 2]!, path[path.length - 1]!];
  const priced = (d: Detail) =>
    d.label.startsWith("price in ") ? d.label.slice("price in ".length) : undefined;
  const elsewhere = new Map<string, Detail[]>();
  const kept: Detail[] = [];
  for (const d of view.details) {
    const p = priced(d);
    if (p === undefined || p === parent) kept.push(d);
    else elsewhere.set(p, [...(elsewhere.get(p) ?? []), d]);
  }
  if (elsewhere.size === 0) return [entry];
  const out: Entry[] =
    kept.length > 0 || view.action !== "update" ? [{ ...entry, view: { ...view, details: kept } }] : [];
  for (const [p, details] of elsewhere) {
    // Never listed under its group's line, whose path may go through another parent.
    const { under: _under, ...rest } = view;
    out.push({
      ...entry,
      sort: `${entry.sort}\u0000${p}`,
      view: { ...rest, within: `${p} › ${group}`, details },
    });
  }
  return out;
}

/** The view of a change of a menu: its categories, and those switched on or off. */
function menuView(ch: ResourceChange, base: ViewBase): Entry {
  const create = ch.action === "create";
  const view: ChangeView = { ...base, head: `menu ${ch.key}` };
  const entries = (r: unknown) =>
    (Array.isArray(get(r, "categories")) ? (get(r, "categories") as unknown[]) : []).map((c) => ({
      sku: String(get(c, "sku")),
      active: get(c, "active") !== false,
    }));
  const b = entries(ch.before);
  const a = entries(ch.after);
  if (create) {
    view.details.push({
      label: "categories",
      after: a.map((c) => (c.active ? c.sku : `${c.sku} (inactive)`)).join(", "),
    });
  } else if (ch.action === "update") {
    view.details.push(
      ...listDetails(
        "categories",
        b.map((c) => c.sku),
        a.map((c) => c.sku),
        false,
      ),
    );
    const was = new Map(b.map((c) => [c.sku, c.active]));
    for (const c of a) {
      const before = was.get(c.sku);
      if (before !== undefined && before !== c.active)
        view.details.push({
          label: `categories: ${c.sku}`,
          before: onOff(before),
          after: onOff(c.active),
        });
    }
  }
  return { category: ORDER.menu, sort: ch.key, view };
}

/** The view of a change of a special day: its name and hours. */
function specialDayView(ch: ResourceChange, base: ViewBase): Entry {
  const name = get(ch.after ?? ch.before, "name");
  const view: ChangeView = {
    ...base,
    // A day the files date fully keeps its year (`2026-12-24`); a day of every year is `12-24`.
    head: `special day ${typeof ch.label === "string" ? ch.label : ch.key}`,
    ...(typeof name === "string" && name !== "" ? { title: name } : {}),
  };
  if (ch.action === "create") view.summary = slotsText(get(ch.after, "slots"));
  else if (ch.action === "update") {
    for (const d of ch.diff) {
      if (d.attribute === "slots")
        view.details.push({ label: "hours", before: slotsText(d.before), after: slotsText(d.after) });
      else if (d.attribute === "name")
        view.details.push({ label: "name", before: plain(d.before), after: plain(d.after) });
      else if (d.attribute !== "month" && d.attribute !== "day")
        view.details.push(...attributeDetails(d.attribute, d.before, d.after, false));
    }
  }
  return { category: ORDER.special, sort: ch.key, view };
}

/** The view of a change of a webhook, the client's or a store's: its URL and whether it is enabled. */
function webhookView(ch: ResourceChange, base: ViewBase): Entry {
  const create = ch.action === "create";
  const view: ChangeView = { ...base, head: `${nounOf(ch)[0]} ${ch.key}` };
  if (create) {
    const url = get(ch.after, "url");
    view.summary = `${typeof url === "string" ? url : plain(url)}${get(ch.after, "enabled") === false ? " (disabled)" : ""}`;
  }
  for (const d of create ? [] : ch.diff) {
    if (d.attribute === "enabled")
      view.details.push(valueDetail("enabled", yesNo, d.before, d.after, create));
    else if (d.attribute === "copies")
      view.details.push({ label: "listed", before: `${String(d.before)} times`, after: "once" });
    else if (d.attribute === "url") view.details.push(valueDetail("url", String, d.before, d.after, create));
    else view.details.push(...attributeDetails(d.attribute, d.before, d.after, create));
  }
  return { category: ch.store === "" ? ORDER.client : ORDER.webhook, sort: ch.key, view };
}

const yesNo = (v: unknown) => (v === true ? "yes" : v === false ? "no" : plain(v));
const onOff = (active: boolean) => (active ? "active" : "inactive");

/**
 * The hours of a store as one change: one line per run of consecutive weekdays with the same change,
 * in weekday order (`mon-thu: closed → 11:00-22:00`).
 */
function hoursView(changes: ResourceChange[]): Entry {
  const byDay = new Map(changes.map((c) => [c.key, c]));
  const details: Detail[] = [];
  let run: { first: string; last: string; before: string; after: string } | undefined;
  const flush = () => {
    if (!run) return;
    const days = run.first === run.last ? run.first : `${run.first}-${run.last}`;
    details.push({ label: days, before: run.before, after: run.after });
    run = undefined;
  };
  for (const day of WEEKDAYS) {
    const ch = byDay.get(day);
    if (!ch) {
      flush();
      continue;
    }
    const before = ch.before === null ? "(not managed)" : slotsText(get(ch.before, "slots"));
    const after = ch.after === null ? "(not managed)" : slotsText(get(ch.after, "slots"));
    if (run && run.before === before && run.after === after) run.last = day;
    else {
      flush();
      run = { first: day, last: day, before, after };
    }
  }
  flush();
  // Days the model does not know (none today) keep their own line.
  for (const ch of changes)
    if (!WEEKDAYS.includes(ch.key as never))
      details.push({
        label: ch.key,
        before: slotsText(get(ch.before, "slots")),
        after: slotsText(get(ch.after, "slots")),
      });
  return { category: ORDER.hours, sort: "", view: { action: "update", head: "hours", details } };
}

/**
 * The changes of one store as entries: hours gathered, options after their group, and, in a store with
 * many creates (or deletes), those of the numerous kinds as one count line each.
 */
function storeEntries(changes: ResourceChange[], ctx: Context): Entry[] {
  const entries: Entry[] = [];
  const hours = changes.filter((c) => c.kind === "store_hours");
  let rest = changes.filter((c) => c.kind !== "store_hours");
  for (const action of ["create", "delete"] as const) {
    const mass = rest.filter((c) => c.action === action);
    if (mass.length <= MASS_CHANGE_THRESHOLD) continue;
    const byNoun = new Map<string, { plural: string; sample: ResourceChange; keys: string[] }>();
    for (const c of mass) {
      const [one, many] = nounOf(c);
      const g = byNoun.get(one) ?? { plural: many, sample: c, keys: [] };
      g.keys.push(c.key);
      byNoun.set(one, g);
    }
    for (const [one, g] of byNoun) {
      if (g.keys.length < MASS_KIND_MIN) continue;
      const shown = g.keys.slice(0, MAX_KEYS_NAMED).join(", ");
      const more = g.keys.length > MAX_KEYS_NAMED ? ` and ${g.keys.length - MAX_KEYS_NAMED} more` : "";
      const first = changeView(g.sample, ctx);
      entries.push({
        category: first.category,
        sort: first.sort,
        view: { action, head: `${g.keys.length} ${g.plural}: ${shown}${more}`, details: [] },
      });
      const done = new Set(g.keys);
      rest = rest.filter((c) => !(c.action === action && nounOf(c)[0] === one && done.has(c.key)));
    }
  }
  for (const c of rest) entries.push(...byParent(changeView(c, ctx), c));
  if (hours.length > 0) entries.push(hoursView(hours));
  entries.sort((a, b) => a.category - b.category || (a.sort < b.sort ? -1 : a.sort > b.sort ? 1 : 0));
  return entries;
}

// ── Across stores ────────────────────────────────────────────────────────────────────────────────────

/** A change split into what can be shared: each detail of an update, a create or delete whole. */
interface Unit {
  store: string;
  /** Position of its change in its store, and of the unit in the change. */
  at: [number, number];
  /** Order of its change among the kinds, then in its kind (see {@link Entry}). */
  order: [number, string];
  /** What identifies the unit across stores (the title aside). */
  id: string;
  view: ChangeView;
}

function unitsOf(store: string, entries: Entry[]): Unit[] {
  const out: Unit[] = [];
  entries.forEach((e, i) => {
    const v = e.view;
    const head = `${v.action}\u0000${v.head}\u0000${v.summary ?? ""}\u0000${v.within ?? ""}\u0000${v.under ?? ""}`;
    const order: [number, string] = [e.category, e.sort];
    if (v.action === "update" && v.details.length > 1) {
      v.details.forEach((d, j) =>
        out.push({
          store,
          at: [i, j],
          order,
          id: `${head}\u0000${detailText(d)}`,
          view: { ...v, details: [d] },
        }),
      );
    } else {
      out.push({
        store,
        at: [i, 0],
        order,
        id: `${head}\u0000${v.details.map(detailText).join("\u0000")}`,
        view: v,
      });
    }
  });
  return out;
}

/** Units back into changes: consecutive units of one change joined. */
function joinUnits(units: Unit[]): ChangeView[] {
  const out: ChangeView[] = [];
  let last: Unit | undefined;
  for (const u of units) {
    if (
      last &&
      last.at[0] === u.at[0] &&
      last.view.head === u.view.head &&
      last.view.action === u.view.action
    ) {
      out[out.length - 1]!.details.push(...u.view.details);
    } else out.push({ ...u.view, details: [...u.view.details] });
    last = u;
  }
  return out;
}

/**
 * The files' name of a model attribute of an item or modifier group, for people (the platform's names
 * stay in `--json`): `children` → `modifier_groups` (of an item) or `options` (of a group),
 * `modifiersType` → `type`, `priceInParent.PARENT` → `price in PARENT`; any other name as it is.
 */
export function attributeLabel(attribute: string, isGroup: boolean): string {
  if (attribute === "children") return isGroup ? "options" : "modifier_groups";
  if (attribute === "modifiersType") return "type";
  if (attribute.startsWith("priceInParent.")) return `price in ${attribute.slice("priceInParent.".length)}`;
  return attribute;
}

/**
 * Builds the presentation model of a plan (see the module's comment), of all its changes or of `changes`
 * (a part of them: this branch's own, the drift). Pure.
 *
 * @param now - when the view is read (ms since the epoch; default: the system's clock): instants are
 *   said relative to that day on each store's clock (`18:00 GMT-5 (today)`).
 */
export function buildView(
  plan: Plan,
  changes: readonly ResourceChange[] = plan.changes,
  now: number = Date.now(),
): PlanView {
  const money = plan.currency === undefined ? undefined : currencyOf(plan.currency);
  const byStore = new Map<string, ResourceChange[]>();
  for (const ch of changes) {
    const list = byStore.get(ch.store);
    if (list) list.push(ch);
    else byStore.set(ch.store, [ch]);
  }
  const sections = [
    { key: "", name: "", storeId: "" },
    ...plan.stores.filter((s) => s.key !== ""),
    // Changes of a store the plan's list leaves out (a hand-edited plan) are still shown.
    ...[...byStore.keys()]
      .filter((k) => k !== "" && !plan.stores.some((s) => s.key === k))
      .map((key) => ({ key, name: "", storeId: "" })),
  ].filter((s) => byStore.has(s.key));

  const unitsByStore = new Map<string, Unit[]>();
  for (const s of sections) {
    const changes = byStore.get(s.key)!;
    const titles = new Map<string, string>();
    for (const c of changes) {
      const t = get(c.after, "title") ?? get(c.before, "title");
      if (
        typeof t === "string" &&
        t !== "" &&
        (c.kind === "item" || c.kind === "modifier_group" || c.kind === "category")
      )
        titles.set(c.key, t);
    }
    const zone = "timeZone" in s && typeof s.timeZone === "string" ? canonicalZone(s.timeZone) : undefined;
    unitsByStore.set(s.key, unitsOf(s.key, storeEntries(changes, { money, titles, zone, now })));
  }

  // Units found in two stores or more (never the client's), in the order they first appear.
  const storesOf = new Map<string, Unit[]>();
  for (const s of sections) {
    if (s.key === "") continue;
    for (const u of unitsByStore.get(s.key)!) {
      const list = storesOf.get(u.id);
      if (list) {
        if (list[list.length - 1]!.store !== u.store) list.push(u);
      } else storesOf.set(u.id, [u]);
    }
  }
  const isShared = (id: string) => (storesOf.get(id)?.length ?? 0) >= 2;

  // Shared units, joined into changes when they belong to one change and go to the same stores.
  const shared: (SharedChange & { order: [number, string] })[] = [];
  const seen = new Set<string>();
  for (const s of sections) {
    if (s.key === "") continue;
    const units = unitsByStore.get(s.key)!.filter((u) => isShared(u.id) && !seen.has(u.id));
    for (const u of units) seen.add(u.id);
    // One change per change of this store and set of stores (a change's details may go to different sets).
    const groups = new Map<string, { stores: string[]; units: Unit[] }>();
    for (const u of units) {
      const all = storesOf.get(u.id)!;
      const stores = all.map((x) => x.store);
      const titles = new Set(all.map((x) => x.view.title));
      const view: ChangeView = { ...u.view };
      if (titles.size !== 1) delete view.title;
      const key = `${u.at[0]}\u0000${stores.join("\u0000")}`;
      const group = groups.get(key) ?? { stores, units: [] };
      group.units.push({ ...u, view });
      groups.set(key, group);
    }
    for (const g of groups.values())
      for (const change of joinUnits(g.units))
        shared.push({ stores: g.stores, change, order: g.units[0]!.order });
  }
  // In the order of the kinds, whichever store a change was first found in.
  shared.sort(
    (a, b) => a.order[0] - b.order[0] || (a.order[1] < b.order[1] ? -1 : a.order[1] > b.order[1] ? 1 : 0),
  );

  const stores: StoreView[] = [];
  for (const s of sections) {
    const left = unitsByStore.get(s.key)!.filter((u) => s.key === "" || !isShared(u.id));
    if (left.length === 0) continue;
    stores.push({ key: s.key, name: s.name, storeId: s.storeId, changes: joinUnits(left) });
  }
  // An option right after its group's change (or after another option of it) is listed under it;
  // elsewhere it says which group it is in.
  for (const list of [shared.map((x) => x.change), ...stores.map((s) => s.changes)]) {
    list.forEach((c, i) => {
      if (c.under === undefined) return;
      const prev = list[i - 1];
      const owner =
        prev !== undefined &&
        ((prev.head === `modifier group ${c.under}` && prev.action !== "delete") ||
          (prev.nested && prev.under === c.under));
      if (owner) {
        // Under its group's line, which says where the group sits: the option's path would repeat it.
        c.nested = true;
        delete c.within;
      } else if (c.within === undefined) c.within = c.under;
    });
  }
  return {
    shared: shared.map(({ stores, change }) => ({ stores, change })),
    stores,
    run: {
      count: plan.stores.filter((s) => s.key !== "").length,
      // `--kind` leaves every store in; store and address patterns, a change scope or a stage do not.
      limited:
        (plan.targeting?.stores.length ?? 0) > 0 ||
        (plan.targeting?.targets.length ?? 0) > 0 ||
        plan.targeting?.scope !== undefined ||
        plan.stage !== undefined,
    },
  };
}

// ── API calls ────────────────────────────────────────────────────────────────────────────────────────

/** A line of the API calls of a plan: one call, or consecutive calls of one endpoint. */
export interface CallLine {
  /** 1-based numbers of the first and last call of the line. */
  first: number;
  last: number;
  method: string;
  /** The path; for several calls, the segments that differ as `*`. */
  path: string;
  /** Store keys the calls touch, in order, each once. */
  stores: string[];
  /** Changes the calls carry out. */
  changes: number;
}

/** Above this many calls, consecutive calls of one endpoint are listed on one line. */
export const MAX_CALLS_LISTED = 20;

/**
 * The API calls of a plan as lines: one per call, or, when there are more than
 * {@link MAX_CALLS_LISTED}, one per run of consecutive calls of one endpoint (`POST
 * /stores/*\/items` for three stores). Raw text: each renderer escapes it.
 */
export function callLines(plan: Plan): CallLine[] {
  const out: (CallLine & { endpoint: string })[] = [];
  const group = plan.operations.length > MAX_CALLS_LISTED;
  plan.operations.forEach((op, i) => {
    const last = out[out.length - 1];
    if (group && last && last.endpoint === op.endpoint && last.method === op.method) {
      const a = last.path.split("/");
      const b = op.path.split("/");
      last.path = a.length === b.length ? a.map((x, k) => (x === b[k] ? x : "*")).join("/") : last.path;
      last.last = i + 1;
      for (const s of op.stores) if (!last.stores.includes(s)) last.stores.push(s);
      last.changes += op.addresses.length;
      return;
    }
    out.push({
      endpoint: op.endpoint,
      first: i + 1,
      last: i + 1,
      method: op.method,
      path: op.path,
      stores: [...op.stores],
      changes: op.addresses.length,
    });
  });
  return out.map(({ endpoint: _endpoint, ...line }) => line);
}
