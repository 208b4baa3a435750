/**
 * Saved plan files (`carte plan --out plan.json`, `carte apply plan.json`): the plan data as JSON,
 * with the checksums of the current and desired states it was computed from (docs/plan-format.md).
 */

import { readFile, writeFile } from "node:fs/promises";
import { StalePlanError } from "../errors.js";
import { PLAN_FORMAT_VERSION, type Plan } from "./types.js";

/** Writes a plan file. */
export async function writePlanFile(file: string, plan: Plan): Promise<void> {
  await writeFile(file, JSON.stringify(plan, null, 2) + "\n", "utf8");
}

/**
 * Reads a plan file. Throws {@link StalePlanError} when the file is not a plan of a format this carte
 * understands.
 */
export async function readPlanFile(file: string): Promise<Plan> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new StalePlanError(`${file} is not a readable plan file: ${(err as Error).message}`);
  }
  const plan = data as Partial<Plan>;
  if (
    !plan ||
    typeof plan !== "object" ||
    plan.formatVersion !== PLAN_FORMAT_VERSION ||
    !Array.isArray(plan.operations)
  ) {
    throw new StalePlanError(
      `${file} is not a carte plan of format version ${PLAN_FORMAT_VERSION}; run \`carte plan --out ${file}\` again`,
    );
  }
  return plan as Plan;
}
