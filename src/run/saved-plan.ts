/**
 * Step "plan" for a saved plan (`carte apply FILE`): the plan made afresh and compared with the saved
 * one change by change, or refused as stale with what changed (the files, the stores, the platform).
 */

import { quote } from "../source/quote.js";
import type { LoadedProject } from "../config/index.js";
import { StalePlanError } from "../errors.js";
import { own } from "../model.js";
import { desiredChecksum, digestMemo } from "../plan/checksum.js";
import { changeDifferences, describeDifferences } from "../plan/compare.js";
import { storeDigest } from "../plan/digest.js";
import { type Targeting } from "../plan/target.js";
import type { Plan } from "../plan/types.js";
import type { Session } from "./session.js";
import { type RunOptions } from "./options.js";
import { scopeDesired, planProject } from "./plan-project.js";

/** Stores or files named in full in a stale plan's message; past this many, the first ones and how many more. */
const STORES_NAMED = 5;

/**
 * Names for a message, after their noun (`store`/`stores`): all of them when few, else the first ones
 * and how many more (`stores "a", "b", "c", "d", "e" and 3 more`), each written by `show`.
 */
function namedList(noun: string, names: readonly string[], show: (name: string) => string): string {
  const shown = names.slice(0, STORES_NAMED).map(show);
  const more = names.length - shown.length;
  return `${noun}${names.length === 1 ? "" : "s"} ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

/** A list of store keys for a message ({@link namedList}). */
function storeList(keys: readonly string[]): string {
  return namedList("store", keys, (k) => JSON.stringify(k));
}

/**
 * Which stores changed on the platform between a saved plan and a fresh one, by their digests (the
 * client-level settings under the key ""), in words: `store "pz-sur" changed`.
 */
function changedStores(saved: Plan, fresh: Plan): string {
  const before = saved.checksums.stores ?? {};
  const after = fresh.checksums.stores ?? {};
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const changed = [...keys].filter((k) => k !== "" && own(before, k) !== own(after, k)).sort();
  const client =
    own(before, "") !== own(after, "") && (Object.hasOwn(before, "") || Object.hasOwn(after, ""));
  const parts = [
    ...(changed.length > 0 ? [`${storeList(changed)} changed`] : []),
    ...(client ? ["the client-level settings changed"] : []),
  ];
  return parts.length > 0 ? parts.join("; ") : "another apply or a person edited it";
}

/**
 * Which stores' files changed between a saved plan and the files now, in words, from the per-store
 * digests of the desired state (`checksums.desiredStores`): stores changed, added to or removed from
 * the files; the client-level settings (carte.yaml `client:`) when no store did.
 */
function changedDesired(saved: Plan, project: LoadedProject, targeting: Targeting | undefined): string {
  const before = saved.checksums.desiredStores;
  const desired = scopeDesired(project.desired, targeting);
  if (!before) return "the plan was saved by an earlier carte, which does not say which stores";
  const memo = digestMemo();
  const keys = Object.keys(desired.stores).sort();
  const changed = keys.filter(
    (k) => Object.hasOwn(before, k) && own(before, k) !== storeDigest(own(desired.stores, k), memo),
  );
  const added = keys.filter((k) => !Object.hasOwn(before, k));
  const removed = Object.keys(before)
    .filter((k) => !Object.hasOwn(desired.stores, k))
    .sort();
  const parts = [
    ...(changed.length > 0 ? [`the files of ${storeList(changed)} changed`] : []),
    ...(added.length > 0 ? [`${storeList(added)} added to the files`] : []),
    ...(removed.length > 0 ? [`${storeList(removed)} no longer in the files`] : []),
    ...changedFiles(saved.checksums.files, project.fileDigests),
  ];
  return parts.length > 0 ? parts.join("; ") : `the client-level settings of ${project.configFile} changed`;
}

/**
 * The files that changed, appeared or went since a saved plan was made, in words (`catalogs/menu.yaml
 * changed`), from the plan's file digests and the files read now; nothing when the plan has no digests.
 * Paths are quoted (they come from the files and from the plan file) and at most {@link STORES_NAMED}
 * are named per part.
 */
function changedFiles(
  before: Readonly<Record<string, string>> | undefined,
  now: Readonly<Record<string, string>>,
): string[] {
  if (!before) return [];
  const paths = (list: string[]) => namedList("file", list, (p) => quote(p, 200));
  const mine = Object.keys(now).sort();
  const changed = mine.filter((p) => Object.hasOwn(before, p) && own(before, p) !== own(now, p));
  const added = mine.filter((p) => !Object.hasOwn(before, p));
  const gone = Object.keys(before)
    .filter((p) => !Object.hasOwn(now, p))
    .sort();
  return [
    ...(changed.length > 0 ? [`${paths(changed)} changed`] : []),
    ...(added.length > 0 ? [`${paths(added)} new`] : []),
    ...(gone.length > 0 ? [`${paths(gone)} no longer read`] : []),
  ];
}

/**
 * Plans afresh for a saved plan (`carte apply FILE`) and returns the fresh plan, the one to carry out,
 * when it makes exactly the saved plan's changes; else refuses. The saved plan's operations are never
 * used: a plan file with a valid digest may still have been written by someone else (docs/security.md,
 * "Saved plans"), so what it holds is only compared, change by change ({@link changeDifferences}:
 * addresses, actions, the states before and after). The fresh plan is planned for the saved plan's
 * targeting (its stores, kinds and change scope) and is judged by the safety guards like any plan
 * (`enforceSafety` (src/run/plan-project.ts), called by the caller); the saved plan's verdict and override count for nothing.
 *
 * @throws {@link StalePlanError} when the files changed since the plan was saved (before any read), when
 *   the platform did, or when the fresh plan's changes are not the saved plan's (the message names the
 *   first addresses that differ and how); what {@link planProject} throws.
 */
export async function checkSavedPlan(
  saved: Plan,
  project: LoadedProject,
  session: Session,
  options: RunOptions = {},
): Promise<Plan> {
  const targeting = saved.targeting ?? options.targeting;
  if (desiredChecksum(scopeDesired(project.desired, targeting)) !== saved.checksums.desired) {
    throw new StalePlanError(
      `the configuration changed since this plan was saved (${changedDesired(saved, project, targeting)}); ` +
        "nothing was applied. Run `carte plan --out FILE` again and review it",
    );
  }
  const { plan } = await planProject(project, session, {
    ...options,
    ...(targeting ? { targeting } : {}),
    checksums: true,
  });
  const differences = changeDifferences(saved.changes, plan.changes);
  const listed = differences.length > 0 ? `; ${describeDifferences(differences)}` : "";
  if (plan.checksums.current !== saved.checksums.current) {
    // The files are those of the plan and the platform already shows them (the plan was applied, by
    // this run's earlier attempt or another): nothing is left to do, which is not a failure. Terraform
    // refuses such a plan as stale; carte lets a retried CI job end well, and says so.
    if (plan.changes.length === 0 && (plan.rotateSecrets ?? []).length === 0) {
      plan.alreadyApplied = true;
      return plan;
    }
    throw new StalePlanError(
      `the platform changed since this plan was saved (${changedStores(saved, plan)})${listed}; nothing was applied. ` +
        "Run `carte plan --out FILE` again and review it",
    );
  }
  if (differences.length > 0) {
    throw new StalePlanError(
      "the saved plan's changes are not those a fresh plan makes from the same files and platform state " +
        `(edited after carte saved it, or saved by another version of carte)${listed}; nothing was applied. ` +
        "Run `carte plan --out FILE` again and review it",
    );
  }
  return plan;
}
