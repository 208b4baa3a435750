/**
 * Values in the files' words, for the plan's views (src/show/view-model.ts): slots as `11:00-15:00`,
 * days as `mon-fri`, schedules as `mon-fri 06:00-11:00`, lists as the moves that change them, nested
 * values as the paths that changed (microdiff). The kinds' views (src/kinds/show.ts) describe their
 * changes with them. Raw text: each renderer escapes it.
 */

import diff from "microdiff";
import { WEEKDAYS, type ImageRef, type Slot } from "../model.js";
import { fieldOf, type Detail } from "./view-model.js";

/** Whether a value is a plain mapping. */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A value in plain words: strings quoted (so that spaces show), lists comma-separated. */
export function plain(v: unknown): string {
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

/** `yes`, `no`, or the value in plain words. */
export const yesNo = (v: unknown): string => (v === true ? "yes" : v === false ? "no" : plain(v));

/** `active` or `inactive`. */
export const onOff = (active: boolean): string => (active ? "active" : "inactive");

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
export function schedulesText(v: unknown): string {
  if (!Array.isArray(v) || v.length === 0) return "always";
  return v
    .map((s) => {
      const days = fieldOf(s, "days");
      return `${typeof days === "string" ? daysText(days.split(",")) : plain(days)} ${slotsText(fieldOf(s, "periods"))}`;
    })
    .join("; ");
}

/** An image as the files write it: its path, or `path (host HOST)`. */
export function imageText(v: unknown): string {
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
export const isBlank = (v: unknown): boolean =>
  v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0);

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x)) : []);

/** Details of a list attribute: the whole list on create, the moves on update. */
export function listDetails(label: string, before: unknown, after: unknown, create: boolean): Detail[] {
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

/** One attribute shown by `show`: its new value for a create, old → new otherwise. */
export function valueDetail(
  label: string,
  show: (v: unknown) => string,
  before: unknown,
  after: unknown,
  create: boolean,
): Detail {
  return create ? { label, after: show(after) } : { label, before: show(before), after: show(after) };
}

/** A generic attribute: the value, or the paths that changed inside a nested one. */
export function attributeDetails(
  attribute: string,
  before: unknown,
  after: unknown,
  create: boolean,
): Detail[] {
  if (create) return [{ label: attribute, after: plain(after) }];
  if ((isRecord(before) || Array.isArray(before)) && (isRecord(after) || Array.isArray(after)))
    return pathDetails(attribute, before, after);
  return [{ label: attribute, before: plain(before), after: plain(after) }];
}
