/** A saved plan read back for a test to look at or edit (a plan file is records, not one JSON document). */

import { readPlanToShow } from "../../src/plan/file.js";
import type { Plan } from "../../src/plan/types.js";

/**
 * The plan a file holds, as `carte show` reads it, as a copy the test may change (the values read are
 * shared and frozen).
 */
export async function savedPlan(file: string): Promise<Plan> {
  return structuredClone((await readPlanToShow(file)).plan);
}
