/** The machine view of a plan: the versioned plan data itself (docs/plan-format.md). */

import { sealPlan } from "../plan/digest.js";
import type { Plan } from "../plan/types.js";

/**
 * Renders a plan as pretty-printed JSON, ending with a newline, sealed with its digest
 * (src/plan/digest.ts), so that the output is itself a plan file `carte apply FILE` accepts.
 */
export function renderJson(plan: Plan): string {
  return JSON.stringify(sealPlan(plan), null, 2) + "\n";
}
