/**
 * A run of several platforms (countries) as the Action shows it: one section per platform in the
 * comment and the job summary, each under its heading (`Platform co — Colombia, COP — <target>`) with
 * its plan in its own currency, or its failure; and the calls of each platform and their success rate
 * (docs/platform-api.md §1), in the job summary. A platform that failed (its host down) fails its own
 * section only: the others' plans are shown all the same.
 */

import { platformHeading } from "../render/platform-heading.js";
import { describeCalls, type CallCount } from "../platform/call-tally.js";
import type { Plan } from "../plan/types.js";
import { escapeMarkdown } from "../render/escape.js";
import type { ActionPlatform } from "./platform-runs.js";

export { worstExitCode } from "../run/each-platform.js";

/** One platform's part of a run: its heading and its view (a `PlanView` of src/action/plan-view.ts). */
export interface PlatformSection<View> {
  /** The platform's name in carte.yaml (`co`). */
  name: string;
  /** `Platform co — Colombia, COP — <target>`, raw text (renderers escape it). */
  heading: string;
  view: View;
  /** The platform's calls and those answered 2xx, once a session was open. */
  calls?: CallCount | undefined;
}

/**
 * A platform's heading, as the CLI heads its sections (src/render/platform-heading.ts):
 * `Platform co — Colombia, COP — <target>`, a rehearsal saying so, from what carte.yaml says of the
 * platform (read by the Action, so that a platform whose files did not load is headed alike). Raw
 * text: the renderers escape it.
 */
export function sectionHeading(
  platform: Pick<ActionPlatform, "name" | "country" | "currency" | "credentials">,
  rehearsal: boolean,
  target: string | undefined,
): string {
  const credentials = platform.credentials[rehearsal ? 1 : 0] ?? { clientId: "", clientSecret: "" };
  return platformHeading({
    name: platform.name,
    ...(platform.country
      ? { platformOf: { name: platform.name, country: platform.country, rehearsal, credentials } }
      : {}),
    currency: platform.currency,
    target,
  });
}

/**
 * The plans of several platforms as one, for the Action's outputs (`has-changes`, `summary`) and the
 * record of the reviewed plan (which lists each change's digest): the first plan with every plan's
 * stores, changes and operations, counts summed, the safety verdicts joined, and no currency when
 * theirs differ. The comment shows each platform's own plan in its section, in its own currency.
 */
export function jointPlan(plans: readonly Plan[]): Plan {
  const first = plans[0]!;
  if (plans.length === 1) return first;
  const sum = (k: keyof Plan["summary"]) => plans.reduce((n, p) => n + p.summary[k], 0);
  const override = plans.find((p) => p.safety.override)?.safety.override;
  // Prices of several currencies are never shown in one: the joint plan of those has none.
  const { currency: _first, ...rest } = first;
  const oneCurrency = plans.every((p) => p.currency === first.currency);
  return {
    ...(oneCurrency ? first : rest),
    stores: plans.flatMap((p) => p.stores),
    changes: plans.flatMap((p) => p.changes),
    operations: plans.flatMap((p) => p.operations),
    summary: {
      ...first.summary,
      create: sum("create"),
      update: sum("update"),
      delete: sum("delete"),
      operations: sum("operations"),
      stores: sum("stores"),
    },
    safety: {
      ...first.safety,
      violations: plans.flatMap((p) => p.safety.violations),
      ...(override ? { override } : {}),
    },
  };
}

/** The line of a platform's calls: `co: 12 calls to the platform, 100.0 % succeeded.` */
export function platformCallsLine(name: string, calls: CallCount): string {
  return `${name}: ${describeCalls(calls)}.`;
}

/**
 * The job summary's lines of the platforms' calls, one per platform that made a session, as
 * Markdown (escaped); empty when none did.
 */
export function callsMarkdown(sections: readonly PlatformSection<unknown>[]): string {
  const lines = sections.flatMap((s) =>
    s.calls ? [`- ${escapeMarkdown(platformCallsLine(s.name, s.calls))}`] : [],
  );
  return lines.length > 0
    ? `**Calls per platform** (the platform's terms ask 98 %):\n\n${lines.join("\n")}\n`
    : "";
}
