/** The machine view of a plan: the versioned plan data itself (docs/plan-format.md). */

import type { Plan } from "../plan/types.js";
import { jsonSafe } from "./escape.js";

/**
 * Renders a plan as pretty-printed JSON, ending with a newline. Control and bidirectional characters
 * inside strings are written as `\uXXXX` escapes ({@link jsonSafe}): the same JSON, inert on a terminal.
 */
export function renderJson(plan: Plan): string {
  return jsonSafe(JSON.stringify(plan, null, 2)) + "\n";
}
