/**
 * The human view of a plan: where the run goes, the changes the same in several stores once, then per
 * store what is left (`+` create, `~` update, `-` delete, with what changes in the files' terms; see
 * src/render/view.ts), the API calls in order only with `showCalls`, and a summary line that counts
 * them. A pure function of the plan; colour is injected (off when not a terminal or when
 * `NO_COLOR` is set, decided by the CLI).
 */

import { Chalk } from "chalk";
import type { Plan } from "../plan/types.js";
import { escapeTerminal } from "./escape.js";
import { plural } from "./lines.js";
import {
  buildView,
  callLines,
  headText,
  infoNotes,
  storesText,
  type CallLine,
  type ChangeView,
  type RunStores,
  type SharedChange,
  type StoreView,
} from "./view.js";
import { scopeLine, scopeNotes } from "./scope.js";
import { isFiltering } from "../plan/target.js";
import { kindOfSegment, nounsOf } from "../kinds/registry.js";

/**
 * The one-line summary, e.g. `Plan: 3 to create, 1 to update, 0 to delete in 2 stores; 4 API calls.`,
 * which counts the API calls of a view that does not list them; `showCallsBy` (`--show-calls`) then
 * says how to have them listed: `…; 4 API calls (--show-calls lists them).`
 */
export function summaryLine(plan: Plan, showCallsBy?: string): string {
  const segments = new Set<string>();
  for (const c of plan.changes) segments.add(c.kind);
  return summaryText(plan, plan.changes.length, countedApartOf(segments), showCallsBy);
}

/** {@link summaryLine} of a plan of `changes` changes, `apart` the words of {@link countedApartOf}. */
function summaryText(plan: Plan, changes: number, apart: string, showCallsBy?: string): string {
  const s = plan.summary;
  const rotations = plan.rotateSecrets?.length ?? 0;
  if (changes === 0 && rotations > 0) {
    return (
      `No changes to the configuration; ${plural(rotations, "webhook secret")} never saved ` +
      `to rotate and save.`
    );
  }
  if (changes === 0) return "No changes. The platform matches the configuration.";
  return (
    `Plan: ${s.create} to create, ${s.update} to update, ${s.delete} to delete ` +
    `in ${plural(s.stores, "store")}${apart}; ${plural(s.operations, "API call")}` +
    `${showCallsBy === undefined ? "" : ` (${showCallsBy} lists ${s.operations === 1 ? "it" : "them"})`}.`
  );
}

/**
 * What the counts of the summary count where a line of the plan shows several of them: the changes of
 * a kind shown together per store (store hours: one `~ hours` line for 7 changed weekdays) are counted
 * one by one, and the summary says so (` (each day of hours counted apart)`), so that a reader who
 * counts the lines is not misled. `""` when no such kind changes. `segments`: the address segments of
 * the plan's changes, in the order first found.
 */
function countedApartOf(segments: ReadonlySet<string>): string {
  const apart = [...segments].filter((seg) => kindOfSegment(seg)?.view?.store);
  const words = apart.map((seg) => `each ${nounsOf(seg)?.[0] ?? seg}`);
  return words.length === 0 ? "" : ` (${words.join(", ")} counted apart)`;
}

/**
 * Warnings that go with a plan: targeting, tripped guards and their override, and the plan's
 * information about stores (`Plan.info`, not changes). Raw text (patterns,
 * addresses and the override reason are untrusted): each renderer escapes them for its medium.
 *
 * @param overriddenBy how the safety guards were gone past, in the words of the adapter that ran the
 *   plan: `--force` (the CLI, the default), `the force-reason input` (the GitHub Action).
 */
export function notes(plan: Plan, overriddenBy = "--force"): string[] {
  const out: string[] = [];
  if (plan.targeting && isFiltering(plan.targeting)) {
    const t = plan.targeting;
    const parts = [
      ...t.stores.map((x) => `--store ${x}`),
      ...t.kinds.map((x) => `--kind ${x}`),
      ...t.targets.map((x) => `--target ${x}`),
    ];
    out.push(`Note: this plan is limited by ${parts.join(" ")}; other changes may be pending.`);
  }
  if (!plan.safety.ok) {
    out.push(
      plan.safety.override
        ? `Safety guards overridden with ${overriddenBy}, reason: ${plan.safety.override.reason}`
        : "Safety guards refuse this plan:",
    );
    for (const v of plan.safety.violations) out.push(`  - ${v.guard}: ${v.message}`);
  }
  // Information that is not a change (items staff switched off that the files leave alone).
  for (const i of infoNotes(plan))
    out.push(i.stores.length === 1 ? `Note: ${i.where}: ${i.message}` : `Note: ${i.message}  ${i.where}`);
  for (const r of plan.rotateSecrets ?? []) {
    out.push(
      `Note: the secret of the ${r.event} webhook, made by a call at ${r.since}, was never saved in the ` +
        "secrets file: an apply rotates it (PUT reset-secret) and saves the new one.",
    );
  }
  out.push(...scopeNotes(plan));
  return out;
}

/** Options of {@link renderText}. */
export interface TextOptions {
  /** Use ANSI colours. */
  color: boolean;
  /**
   * Where the run goes, named on the first line (src/run/session.ts `describeTarget`): `embedded emulator
   * (state in examples/chain/.carte)` or the platform's host. Absent: no such line.
   */
  target?: string | undefined;
  /** How the safety guards are gone past, in the adapter's words ({@link notes}); default `--force`. */
  overriddenBy?: string | undefined;
  /**
   * List the API calls in order (`--show-calls`). Default: only counted, by the summary line, since
   * people read the changes; the JSON plan always holds every call.
   */
  showCalls?: boolean | undefined;
  /**
   * How to have the calls listed, in the adapter's words, said by the summary line when they are not
   * listed: default `--show-calls` (the CLI's); `null` when the adapter has no way (the GitHub Action's
   * log): the count alone.
   */
  showCallsBy?: string | null | undefined;
  /**
   * When the plan is read (ms since the epoch or a date; default: the system's clock; the CLI passes
   * the run's, `CARTE_NOW`): instants are said relative to that day on each store's clock
   * (`18:00 GMT-5 (today)`).
   */
  now?: number | Date | undefined;
}

/** The first line naming where a run goes: `Target: embedded emulator (state in …)`. Raw text. */
export function targetLine(target: string): string {
  return `Target: ${target}`;
}

/**
 * One part of the text plan: lines already escaped for a terminal. A part with a `group` is a section
 * whose first line is its heading (the client settings, the changes the same in several stores, one
 * store, the API calls when listed), and `group` is that heading without colour: where the plan is shown with
 * collapsible sections (the GitHub Actions log), the heading names the section and the other lines go
 * inside it.
 */
export interface TextPart {
  lines: string[];
  group?: string;
}

/** What lays out a text plan's sections: its colours, and a part for each section of changes. */
interface SectionWriter {
  c: InstanceType<typeof Chalk>;
  /** The client settings' section. */
  client(changes: readonly ChangeView[]): TextPart;
  /** The section of the changes the same in several stores. */
  shared(shared: readonly SharedChange[], run: RunStores): TextPart;
  /** One store's section. */
  store(store: StoreView): TextPart;
}

function sectionWriter(options: TextOptions): SectionWriter {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const sign = { create: c.green("+"), update: c.yellow("~"), delete: c.red("-") } as const;
  const section = (heading: string, more = ""): TextPart => ({
    lines: [c.bold(heading) + (more ? c.dim(more) : "")],
    group: heading + more,
  });
  const change = (into: TextPart, ch: ChangeView, suffix: string) => {
    const lines = into.lines;
    const pad = ch.nested ? "    " : "  ";
    const where = [ch.within ? `in ${ch.within}` : "", suffix].filter((x) => x !== "").join("  ");
    lines.push(
      `${pad}${sign[ch.action]} ${escapeTerminal(headText(ch))}${where ? c.dim(`  ${escapeTerminal(where)}`) : ""}`,
    );
    for (const d of ch.details) {
      const label = escapeTerminal(d.label);
      if (d.before !== undefined)
        lines.push(
          `${pad}    ${label}: ${c.red(escapeTerminal(d.before))} → ${c.green(escapeTerminal(d.after ?? ""))}`,
        );
      else lines.push(`${pad}    ${d.after !== undefined ? `${label}: ${escapeTerminal(d.after)}` : label}`);
    }
  };
  return {
    c,
    client(changes) {
      const part = section("client", "  settings of the integration, for all its stores");
      for (const ch of changes) change(part, ch, "");
      return part;
    },
    shared(shared, run) {
      const part = section("the same in several stores");
      for (const s of shared) change(part, s.change, storesText(s.stores, run));
      return part;
    },
    store(store) {
      const part = section(
        escapeTerminal(`store[${store.key}]`),
        store.name || store.storeId ? escapeTerminal(`  ${store.name} (${store.storeId})`) : "",
      );
      for (const ch of store.changes) change(part, ch, "");
      return part;
    },
  };
}

/** The first lines of the text plan: the target, a scoped plan's line; escaped. */
function firstLines(plan: Plan, options: TextOptions, c: InstanceType<typeof Chalk>): string[] {
  const scoped = scopeLine(plan);
  return [
    ...(options.target === undefined ? [] : [c.dim(escapeTerminal(targetLine(options.target)))]),
    ...(scoped === undefined ? [] : [c.bold(escapeTerminal(scoped))]),
  ];
}

/** The last parts of the text plan: the API calls in order (with `showCalls`), the summary line and the notes. */
function closingParts(
  plan: Plan,
  options: TextOptions,
  c: InstanceType<typeof Chalk>,
  summary: (by: string | undefined) => string,
  calls: () => CallLine[],
): TextPart[] {
  const noted = notes(plan, options.overriddenBy).map((n) => c.yellow(escapeTerminal(n)));
  // The calls listed as a section of their own, or only counted by the summary line, which then says
  // how to have them listed.
  const parts = options.showCalls ? [callsPart(calls(), c)] : [];
  const by = options.showCalls
    ? undefined
    : options.showCallsBy === undefined
      ? "--show-calls"
      : options.showCallsBy;
  parts.push({ lines: [c.bold(summary(by ?? undefined)), ...noted] });
  return parts;
}

/**
 * The text plan in parts (see {@link renderText}): what is said first, each section of changes, the API
 * calls in order (with `showCalls` only), then the summary line, which counts them, and the notes. {@link renderText} joins them with an empty line between.
 */
export function renderTextParts(plan: Plan, options: TextOptions): TextPart[] {
  const w = sectionWriter(options);
  const c = w.c;
  const first = firstLines(plan, options, c);
  if (plan.changes.length === 0) {
    const noted = notes(plan, options.overriddenBy).map((n) => c.yellow(escapeTerminal(n)));
    return [{ lines: [...first, c.green(summaryLine(plan)), ...noted] }];
  }
  const parts: TextPart[] = [{ lines: [...first, "carte will perform the following actions:"] }];
  const view = buildView(plan, plan.changes, options.now === undefined ? undefined : Number(options.now));
  const [client, stores] =
    view.stores[0]?.key === "" ? [view.stores[0], view.stores.slice(1)] : [undefined, view.stores];
  if (client) parts.push(w.client(client.changes));
  if (view.shared.length > 0) parts.push(w.shared(view.shared, view.run));
  for (const store of stores) parts.push(w.store(store));
  parts.push(
    ...closingParts(
      plan,
      options,
      c,
      (by) => summaryLine(plan, by),
      () => callLines(plan),
    ),
  );
  return parts;
}

/** What the text plan of a plan read a store at a time needs to know of all its changes and calls. */
export interface StreamedFacts {
  /** How many changes the plan holds. */
  changes: number;
  /** The address segments of its changes (the kinds counted apart, {@link summaryLine}). */
  segments: ReadonlySet<string>;
  /** Its API calls as lines ({@link callLines}), for `showCalls`. */
  calls: () => CallLine[];
}

/** The text plan of a plan read a store at a time, made section by section ({@link streamedText}). */
export interface StreamedText {
  /** What is said first (for a plan without changes, the whole text). */
  start(): string;
  /** The client settings' section, before any store's. */
  client(changes: readonly ChangeView[]): string;
  /** One store's section, in the order of the stores. */
  store(store: StoreView): string;
  /** The changes the same in several stores (when not said yet), the calls, the summary and the notes. */
  end(): string;
}

/**
 * The text of {@link renderText} of a plan read a store at a time (src/cli/show-text.ts), made as its
 * sections are: `plan` holds the plan's fields and stores but no change; `facts` what was counted of
 * its changes and calls; `shared` the changes the same in several stores and the stores of the run
 * (src/render/view.ts `StreamedView`, `runStores`). The pieces in order, `start` to `end`, make the
 * text {@link renderText} gives for the whole plan.
 */
export function streamedText(
  plan: Plan,
  facts: StreamedFacts,
  options: TextOptions,
  shared: { list: readonly SharedChange[]; run: RunStores },
): StreamedText {
  const w = sectionWriter(options);
  const c = w.c;
  const summary = (by?: string) => summaryText(plan, facts.changes, countedApartOf(facts.segments), by);
  let sharedShown = shared.list.length === 0;
  const sharedPart = (): string => {
    if (sharedShown) return "";
    sharedShown = true;
    return "\n\n" + w.shared(shared.list, shared.run).lines.join("\n");
  };
  return {
    start() {
      const first = firstLines(plan, options, c);
      if (facts.changes > 0) return [...first, "carte will perform the following actions:"].join("\n");
      const noted = notes(plan, options.overriddenBy).map((n) => c.yellow(escapeTerminal(n)));
      return joinTextParts([{ lines: [...first, c.green(summary()), ...noted] }]);
    },
    client: (changes) => "\n\n" + w.client(changes).lines.join("\n"),
    store: (store) => sharedPart() + "\n\n" + w.store(store).lines.join("\n"),
    end() {
      if (facts.changes === 0) return "";
      const closing = closingParts(plan, options, c, summary, facts.calls);
      return sharedPart() + closing.map((p) => "\n\n" + p.lines.join("\n")).join("") + "\n";
    },
  };
}

/** The API calls in order, as a section (`--show-calls`): consecutive calls of one endpoint on one line. */
function callsPart(calls: CallLine[], c: InstanceType<typeof Chalk>): TextPart {
  // Paths hold store ids and event names: escaped like every other value.
  const paths = calls.map((l) => escapeTerminal(l.path));
  const numbers = calls.map((l) => (l.first === l.last ? `${l.first}.` : `${l.first}-${l.last}.`));
  const pathWidth = Math.max(...paths.map((p) => p.length));
  const numberWidth = Math.max(3, ...numbers.map((n) => n.length));
  const api: TextPart = { lines: ["API calls, in order:"], group: "API calls, in order:" };
  calls.forEach((l, i) => {
    api.lines.push(
      `  ${numbers[i]!.padStart(numberWidth)} ${escapeTerminal(l.method).padEnd(6)} ${paths[i]!.padEnd(pathWidth)}  ${c.dim(
        escapeTerminal(`${l.stores.join(", ") || "client"}: ${plural(l.changes, "change")}`),
      )}`,
    );
  });
  return api;
}

/**
 * Renders a plan as text (the structure of src/render/view.ts): the target first, then, for a
 * change-scoped plan, what was read (src/render/scope.ts).
 */
export function renderText(plan: Plan, options: TextOptions): string {
  return joinTextParts(renderTextParts(plan, options));
}

/** The text of {@link renderTextParts}' parts: an empty line between two, a line feed at the end. */
export function joinTextParts(parts: readonly TextPart[]): string {
  return parts.map((p) => p.lines.join("\n")).join("\n\n") + "\n";
}
