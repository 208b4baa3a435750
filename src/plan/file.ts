/**
 * Saved plan files (`carte plan --out plan.json`, `carte apply plan.json`): the plan data as JSON,
 * with the checksums of the current and desired states it was computed from and the digest of the
 * whole plan (docs/plan-format.md, src/plan/digest.ts).
 */

import { readFile, writeFile } from "node:fs/promises";
import { StalePlanError } from "../errors.js";
import { hasValidDigest, sealPlan } from "./digest.js";
import { PLAN_FORMAT_VERSION, type Plan } from "./types.js";

/** Writes a plan file, sealed with its digest. */
export async function writePlanFile(file: string, plan: Plan): Promise<void> {
  await writeFile(file, JSON.stringify(sealPlan(plan), null, 2) + "\n", "utf8");
}

/**
 * Reads a plan file. Throws {@link StalePlanError} when the file is not a plan of a format this carte
 * understands, or when its content does not match its digest (an edited plan, or one saved without
 * one): such a plan is refused before any call.
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
  if (!hasValidDigest(plan as Plan)) {
    throw new StalePlanError(
      `${file} was changed after carte saved it (its content does not match its digest), or it was not ` +
        `saved by carte plan --out; nothing was applied. Run \`carte plan --out ${file}\` again and review it`,
    );
  }
  return plan as Plan;
}
