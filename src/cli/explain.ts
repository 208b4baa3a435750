/**
 * `carte explain ADDRESS`: where each value of a store's catalog resource comes from, file and line —
 * the catalog, or an override of carte.yaml `defaults:`, a group, an included file or the store file
 * (precedence store > group > carte.yaml > catalog), with the values it overrides. No API call.
 *
 * `ADDRESS` is `store[KEY].SEGMENT[KEY]` with `item`, `modifier_group`, `category`, `menu` or
 * `availability`; `*` and `?` match any store or key (`store[*].item[PIZZA-*]`).
 *
 * Exit codes: 0 something was explained; 1 the address names nothing, or the files have problems.
 */

import type { Argv, CommandModule } from "yargs";
import { loadProject, type LoadedProject } from "../config/index.js";
import { explainResource, type AttributeOrigin, type Explanation } from "../config/provenance.js";
import { CommandLineError, ExitCode } from "../errors.js";
import { closest, didYouMean } from "../suggest.js";
import type { StoreState } from "../model.js";
import type { Currency } from "../money.js";
import { matchAddress } from "../plan/target.js";
import { escapeTerminal } from "../render/escape.js";
import { formatAttribute } from "../render/lines.js";
import { attributeLabel } from "../render/view.js";
import type { CliIo } from "./io.js";
import { platformHeadingText } from "../render/platform-heading.js";
import { choosePlatforms } from "../run/each-platform.js";
import { describeTarget, runTarget } from "../run/session.js";
import { platformLoad } from "../run/step-load.js";
import { platformChoice, platformFlags, sectionOf, type PlatformChoice } from "./platform-sections.js";
import { clockFromEnv } from "../time/clock.js";
import { menusOf, categoriesOf, itemsOf } from "../kinds/catalog.js";

const SEGMENTS = ["item", "modifier_group", "category", "menu", "availability"] as const;

/** The keys of a segment's resources in a store. */
function keysOf(state: StoreState, segment: string): string[] {
  if (segment === "category") return Object.keys(categoriesOf(state));
  if (segment === "menu") return Object.keys(menusOf(state));
  const wanted = segment === "modifier_group" ? "MODIFIER_GROUP" : "ITEM";
  return Object.values(itemsOf(state))
    .filter((r) => r.type === wanted)
    .map((r) => r.sku);
}

function format(attribute: string, value: unknown, currency: Currency | undefined): string {
  const name = attribute.startsWith("priceInParent.") ? "price" : attribute;
  return formatAttribute(name, value, currency);
}

/** The text of one explanation. */
export function renderExplanation(e: Explanation, currency: Currency | undefined): string {
  // Addresses, values and file names come from the files: each line is escaped for a terminal.
  const lines = [e.address];
  if (!e.attributes)
    return [e.address, `  ${e.reason ?? "not found"}`].map((l) => escapeTerminal(l)).join("\n") + "\n";
  // The files' names of the attributes, not the platform's (src/render/view.ts).
  const isGroup = e.address.includes(".modifier_group[");
  const label = (a: AttributeOrigin) => attributeLabel(a.attribute, isGroup);
  const width = Math.max(...e.attributes.map((a) => label(a).length)) + 1;
  const line = (a: AttributeOrigin) => {
    const value = format(a.attribute, a.value, currency);
    const [first, ...rest] = a.from;
    lines.push(`  ${`${label(a)}:`.padEnd(width + 1)} ${value}`);
    lines.push(
      `      ${
        !first
          ? "not written anywhere"
          : first.value === undefined
            ? `not written: the default, for the entry at ${first.at}`
            : `from ${first.at}`
      }`,
    );
    for (const rule of a.rules ?? []) lines.push(`      ${rule}`);
    for (const r of rest) lines.push(`      overrides ${format(a.attribute, r.value, currency)} at ${r.at}`);
    for (const r of a.removed ?? []) lines.push(`      less ${String(r.value)}, excluded at ${r.at}`);
  };
  e.attributes.forEach(line);
  return lines.map((l) => escapeTerminal(l)).join("\n") + "\n";
}

/** The parts of an address `store[KEY].SEGMENT[KEY]`; a {@link CommandLineError} for another text. */
function parseAddress(address: string): { storePattern: string; segment: string; keyPattern: string } {
  const m = /^store\[([^\]]+)\]\.([a-z_]+)\[([^\]]+)\]$/.exec(address.trim());
  if (!m || !(SEGMENTS as readonly string[]).includes(m[2]!)) {
    const kind = m ? closest(m[2]!, SEGMENTS) : undefined;
    throw new CommandLineError(
      `"${address}" is not an address carte explain knows: write store[KEY].SEGMENT[KEY] with ` +
        `${SEGMENTS.join(", ")}, for example store[bog-centro].item[BURGER-CLASSIC]` +
        (kind ? `; did you mean ${address.trim().replace(`.${m![2]}[`, `.${kind}[`)}?` : ""),
    );
  }
  const [, storePattern, segment, keyPattern] = m as unknown as [string, string, string, string];
  return { storePattern, segment, keyPattern };
}

/** The explanations of the address in one loaded project, and how many of its stores it matched. */
function explainIn(
  project: LoadedProject,
  { storePattern, segment, keyPattern }: ReturnType<typeof parseAddress>,
): { stores: number; out: Explanation[] } {
  const currency: Currency | undefined = project.currency;
  const wildcard = /[*?]/.test(keyPattern);
  const out: Explanation[] = [];
  let stores = 0;
  for (const [key, state] of Object.entries(project.desired.stores)) {
    if (!matchAddress(`store[${storePattern}]`, `store[${key}]`)) continue;
    stores++;
    const sources = project.sources!.get(key)!;
    const keys = wildcard
      ? keysOf(state, segment)
          .filter((k) => matchAddress(`${segment}[${keyPattern}]`, `${segment}[${k}]`))
          .sort()
      : [keyPattern];
    for (const k of keys) {
      const e = explainResource(state, sources, segment, k, currency);
      // A key the store does not have: the closest one it has, if any.
      if (!e.attributes && !wildcard && e.reason)
        e.reason += didYouMean(k, keysOf(state, segment), (x) => `${segment}[${x}]`);
      out.push(e);
    }
  }
  return { stores, out };
}

/**
 * `carte explain`: of a project of several platforms (carte.yaml `platforms:`), the stores of each
 * platform chosen that the address matches, each platform in its own section (in its currency).
 */
export async function runExplain(
  opts: { config: string; address: string } & PlatformChoice,
  io: CliIo,
): Promise<number> {
  const address = parseAddress(opts.address);
  const now = clockFromEnv(io.env);
  const names = await choosePlatforms(opts.config, opts.platforms, opts.rehearsal);
  let stores = 0;
  let explained = 0;
  let found = false;
  const known: string[] = [];
  for (const name of names) {
    const scope = name === undefined ? platformLoad(opts) : platformLoad({ ...opts, platform: name });
    const project = await loadProject(opts.config, { explain: true, ...(now ? { now } : {}), ...scope });
    known.push(...Object.keys(project.desired.stores));
    const { stores: matched, out } = explainIn(project, address);
    stores += matched;
    if (out.length === 0) continue;
    if (name !== undefined) {
      const target = describeTarget(runTarget(project));
      io.out(platformHeadingText({ name, ...sectionOf(project), target }, explained === 0));
    }
    explained += out.length;
    io.out(out.map((e) => renderExplanation(e, project.currency)).join("\n"));
    found ||= out.some((e) => e.attributes);
  }
  if (stores === 0)
    throw new CommandLineError(
      `no store of ${opts.config} matches store[${address.storePattern}]` +
        (/[*?]/.test(address.storePattern)
          ? ""
          : didYouMean(address.storePattern, known, (x) => `store[${x}]`)),
    );
  if (explained === 0) {
    io.err(escapeTerminal(`Nothing matches ${opts.address}.`) + "\n");
    return ExitCode.error;
  }
  return found ? ExitCode.ok : ExitCode.error;
}

/** The yargs definition of `carte explain`; `setCode` receives the exit code. */
export function explainCommand(io: CliIo, setCode: (code: number) => void): CommandModule {
  return {
    command: "explain <address>",
    describe: "Show where each value of a store's item, group, category or menu comes from (file:line)",
    builder: (y: Argv) =>
      platformFlags(y).positional("address", {
        type: "string",
        describe: "e.g. 'store[cali-norte].item[PIZZA-L]' (* and ? allowed)",
      }),
    handler: async (args) => {
      const a = args as unknown as { config: string; address: string };
      setCode(
        await runExplain(
          { config: a.config, address: a.address, ...platformChoice(args as { platform?: unknown }) },
          io,
        ),
      );
    },
  };
}
