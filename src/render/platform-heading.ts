/**
 * The heading of one platform's section of a run across the platforms of carte.yaml `platforms:`
 * (src/run/each-platform.ts): which platform, its country and currency, and where the run went, e.g.
 * `Platform co — Colombia, COP — platform at api.co.example.com`.
 */

import { countryName } from "../countries.js";
import type { ProjectPlatform } from "../config/platforms.js";
import { escapeMarkdown, escapeTerminal } from "./escape.js";

/** What a heading says of a platform; all of it but the name is absent when the platform did not load. */
export interface PlatformSection {
  /** Its name in carte.yaml `platforms:`. */
  name: string;
  /** The scoped load's platform (`LoadedProject.platformOf`), once loaded. */
  platformOf?: ProjectPlatform | undefined;
  /** The scoped load's currency (`LoadedProject.currency`), once loaded. */
  currency?: string | undefined;
  /** Where its run went, in words (src/run/session.ts `describeTarget`), once loaded. */
  target?: string | undefined;
}

/**
 * The heading in words, raw (the name, the target and the currency come from the files: the callers
 * escape it): `Platform co — Colombia, COP — embedded emulator (state in .carte/platforms/co)`; a
 * rehearsal says so: `Platform co, rehearsal on its development host — …`; a platform that did not
 * load is its name alone.
 */
export function platformHeading(section: PlatformSection): string {
  const of = section.platformOf;
  const head = `Platform ${section.name}${of?.rehearsal ? ", rehearsal on its development host" : ""}`;
  const where = [of ? (countryName(of.country) ?? of.country) : undefined, section.currency]
    .filter((p): p is string => p !== undefined)
    .join(", ");
  return [
    head,
    ...(where === "" ? [] : [where]),
    ...(section.target === undefined ? [] : [section.target]),
  ].join(" — ");
}

/** The heading for a terminal: one escaped line, with a blank line before it unless it comes first. */
export function platformHeadingText(section: PlatformSection, first: boolean): string {
  return `${first ? "" : "\n"}${escapeTerminal(platformHeading(section))}\n`;
}

/** The heading in Markdown: a level-2 heading, escaped. */
export function platformHeadingMarkdown(section: PlatformSection): string {
  return `## ${escapeMarkdown(platformHeading(section))}\n\n`;
}
