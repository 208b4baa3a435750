/** The machine view of a plan: the versioned plan data itself (docs/plan-format.md). */

import type { Plan } from "../plan/types.js";

/** Renders a plan as pretty-printed JSON, ending with a newline. */
export function renderJson(plan: Plan): string {
  return JSON.stringify(plan, null, 2) + "\n";
}
