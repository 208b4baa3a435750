/**
 * Saved plan files (`carte plan --out plan.json`, `carte apply plan.json`): the plan data as JSON,
 * with the checksums of the current and desired states it was computed from and the digest of the
 * whole plan (docs/plan-format.md, src/plan/digest.ts).
 */

import { readFile, stat } from "node:fs/promises";
import { rootFor, SHARED_FILE_MODE, writeFileAtomic } from "../atomic.js";
import { StalePlanError } from "../errors.js";
import { hasValidDigest, sealPlan } from "./digest.js";
import { PLAN_FORMAT_VERSION, type Plan } from "./types.js";

/**
 * Writes a plan file, sealed with its digest, atomically and never through a link (src/atomic.ts): a
 * full disk or a kill leaves the old file or the new one; the file is readable by others as files
 * usually are (as the umask lets them), since it holds no secret.
 *
 * @param root - the folder the file must stay under; default {@link rootFor} of the file (the working
 *   directory when it holds it).
 * @throws `FileWriteError` (src/errors.ts) naming the file: a link in its place or on its way, or the file
 *   system's error (`could not save the plan to plan.json: no space left on device (ENOSPC)`).
 */
export async function writePlanFile(file: string, plan: Plan, root: string = rootFor(file)): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(sealPlan(plan), null, 2) + "\n", {
    root,
    purpose: "save the plan to",
    mode: SHARED_FILE_MODE,
  });
}

/** The most bytes of a plan file `carte show` reads (a plan of a big chain is a few MB). */
export const MAX_SHOWN_PLAN_BYTES = 256 * 1024 * 1024;

/** What a renderer reads of a plan, checked on a file whose digest does not vouch for it. */
function planShapeProblem(plan: Record<string, unknown>): string | undefined {
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  const str = (v: unknown) => typeof v === "string";
  if (!Array.isArray(plan.stores) || !plan.stores.every((s) => isObj(s) && str(s.key) && str(s.name)))
    return "stores must be a list of {key, storeId, name}";
  if (
    !Array.isArray(plan.changes) ||
    !plan.changes.every(
      (c) =>
        isObj(c) &&
        str(c.address) &&
        str(c.store) &&
        str(c.kind) &&
        str(c.key) &&
        (c.action === "create" || c.action === "update" || c.action === "delete") &&
        Array.isArray(c.diff) &&
        c.diff.every((d) => isObj(d) && str(d.attribute)) &&
        (c.within === undefined || (Array.isArray(c.within) && c.within.every(str))),
    )
  )
    return "changes must be a list of {address, store, kind, key, action, diff}";
  if (
    !Array.isArray(plan.operations) ||
    !plan.operations.every((o) => isObj(o) && str(o.method) && str(o.path) && Array.isArray(o.stores))
  )
    return "operations must be a list of {method, path, stores}";
  const summary = plan.summary;
  if (
    !isObj(summary) ||
    !["create", "update", "delete", "operations", "stores"].every((k) => typeof summary[k] === "number")
  )
    return "summary must hold the counts create, update, delete, operations and stores";
  const safety = plan.safety;
  if (!isObj(safety) || typeof safety.ok !== "boolean" || !Array.isArray(safety.violations))
    return "safety must be {ok, violations}";
  if (!safety.violations.every((v) => isObj(v) && str(v.guard) && str(v.message)))
    return "safety.violations must be a list of {guard, message}";
  if (safety.override !== undefined && !(isObj(safety.override) && str(safety.override.reason)))
    return "safety.override must be {reason}";
  const t = plan.targeting;
  if (
    t !== undefined &&
    !(isObj(t) && [t.stores, t.kinds, t.targets].every((l) => Array.isArray(l) && l.every(str)))
  )
    return "targeting must be {stores, kinds, targets}";
  if (plan.currency !== undefined && !str(plan.currency)) return "currency must be a string";
  return undefined;
}

/**
 * Reads a saved plan to show it (`carte show FILE`), without calling the platform. Unlike
 * {@link readPlanFile}, a plan whose content no longer matches its digest (edited, or not saved by
 * carte) is still returned, with `digestMatches: false`, so that it can be shown with a warning; its
 * shape is then checked field by field, since nothing vouches for it.
 *
 * @throws {@link StalePlanError} when the file cannot be read, is larger than
 *   {@link MAX_SHOWN_PLAN_BYTES}, is not JSON, is not a plan of this format version, or (without a
 *   matching digest) lacks what a plan view shows.
 */
export async function readPlanToShow(file: string): Promise<{ plan: Plan; digestMatches: boolean }> {
  let data: unknown;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error("not a regular file");
    if (info.size > MAX_SHOWN_PLAN_BYTES) throw new Error(`larger than ${MAX_SHOWN_PLAN_BYTES} bytes`);
    data = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new StalePlanError(`${file} is not a readable plan file: ${(err as Error).message}`);
  }
  const plan = data as Record<string, unknown> | null;
  if (
    !plan ||
    typeof plan !== "object" ||
    Array.isArray(plan) ||
    plan.formatVersion !== PLAN_FORMAT_VERSION
  ) {
    throw new StalePlanError(
      `${file} is not a carte plan of format version ${PLAN_FORMAT_VERSION} (saved by \`carte plan --out\` or printed by \`carte plan --json\`)`,
    );
  }
  const digestMatches = hasValidDigest(plan as unknown as Plan);
  if (!digestMatches) {
    const problem = planShapeProblem(plan);
    if (problem) throw new StalePlanError(`${file} is not a plan carte can show: ${problem}`);
  }
  return { plan: plan as unknown as Plan, digestMatches };
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
