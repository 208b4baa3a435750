/**
 * The check of an apply before a store's first write: the store read again (or the plan's own read,
 * when recent) and its digest compared with the plan's, so that nothing is written to a store that
 * changed since the plan was made.
 */

import type { LoadedProject } from "../config/index.js";
import { StalePlanError } from "../errors.js";
import { own, table, type DesiredState } from "../model.js";
import { clientDigest, storeDigest } from "../plan/digest.js";
import type { Plan } from "../plan/types.js";
import type { Session } from "./session.js";
import { fetchCurrent, projectReads, storeBatcher } from "../state/current.js";
import type { Limit } from "../kinds/resource-kind.js";
import { type RunOptions, checkReads } from "./options.js";
import { scopeDesired } from "./plan-project.js";

/**
 * How old the plan's own read of a store may be, in milliseconds, when its first call is ready, for the
 * optimistic check to take it instead of a read of its own ({@link RunOptions.planReads}): 30 s, about
 * twice as long as the plan of 1,000 stores reads (docs/performance.md), so that an apply that follows
 * its plan reads no store again, while a store whose first call waits longer is read again.
 */
export const PLAN_READ_REUSE_MS = 30_000;

/**
 * The optimistic check of an apply: a function that reads one store (`""`: the
 * client-level resources) as planning read it and rejects when its digest differs from the plan's
 * `checksums.stores[store]`, so that the
 * executor writes nothing to a store that another apply (on another machine, which the lock of
 * src/run/step-lock.ts cannot reach) or a person changed since the plan was made. `undefined` when the plan
 * carries no store digests.
 *
 * With {@link RunOptions.planReads} (an apply right after its own plan), a store whose plan read was in
 * at most {@link PLAN_READ_REUSE_MS} before the check is asked is not read again: that read is the
 * check (the plan's digest is its digest), and a change made after it is not caught before the first
 * write (the verification after the store's calls still reads it). The client-level resources are
 * always read again (one read).
 */
export function storeGuard(
  plan: Plan,
  project: LoadedProject,
  session: Session,
  options: RunOptions = {},
): ((store: string) => Promise<void>) | undefined {
  const digests = plan.checksums.stores;
  if (!digests) return undefined;
  const targeting = plan.targeting ?? options.targeting;
  const desired = scopeDesired(project.desired, targeting);
  // What to read, worked out for each store read (none when every store's plan read stands for its
  // check): the project's reads limited to that store, or to the client-level resources.
  const readsOf = (store: string | undefined) => {
    const stores = table<DesiredState["stores"][string]>();
    const want = store === undefined ? undefined : own(desired.stores, store);
    if (store !== undefined && want) stores[store] = want;
    return projectReads({ ...desired, stores }, project.ownership, targeting);
  };
  // Ahead of the verification reads sharing the bound: a store's check holds up its calls. Stores
  // checked at the same moment (their first calls became ready together, src/apply/execute.ts) share
  // one read.
  const lane = options.checks ?? checkReads(options.parallelism);
  const limit: Limit = (fn) => lane(fn);
  const readStore = storeBatcher(session.client, { limit });
  const planReads = options.planReads;
  return async (store) => {
    const expected = own(digests, store);
    if (expected === undefined) return;
    const readAt = store === "" ? undefined : planReads?.get(store);
    if (readAt !== undefined && Date.now() - readAt <= PLAN_READ_REUSE_MS) return;
    if (store === "") {
      // The client-level resources (client webhooks).
      const current = await fetchCurrent(session.client, [], {
        limit,
        clientKinds: readsOf(undefined).clientKinds,
      });
      if (clientDigest(current.client) !== expected) {
        throw new StalePlanError(
          "the client-level settings changed on the platform since the plan was made, so none of their " +
            "calls was made; run `carte plan` again and review it",
        );
      }
      return;
    }
    const request = readsOf(store).requests[0];
    if (!request) return;
    if (storeDigest(await readStore(request)) !== expected) {
      throw new StalePlanError(
        "the store changed on the platform since the plan was made (another apply, or an edit), so none " +
          "of its calls was made; run `carte plan` again and review it",
      );
    }
  };
}
