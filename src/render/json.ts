/** The machine view of a plan: the versioned plan data itself (docs/plan-format.md). */

import { sealPlan } from "../plan/digest.js";
import type { Plan } from "../plan/types.js";
import { jsonSafe } from "./escape.js";

/**
 * Renders a plan as pretty-printed JSON, ending with a newline, sealed with its digest
 * (src/plan/digest.ts), so that the output is itself a plan file `carte apply FILE` accepts. Control and
 * bidirectional characters inside strings are written as `\uXXXX` escapes ({@link jsonSafe}): the same
 * JSON, inert on a terminal.
 */
export function renderJson(plan: Plan): string {
  return jsonSafe(JSON.stringify(sealPlan(plan), null, 2)) + "\n";
}
