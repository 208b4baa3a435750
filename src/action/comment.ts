/**
 * The markers of carte's comments and issue: a hidden first line by which the Action finds its own
 * comment again (written by the expected author, src/gitops/github.ts) and updates it in place, so that
 * a busy pull request does not collect a comment per push.
 */

import type { Shard } from "../gitops/shard.js";

/** The pull request's plan comment (one per pull request, also written by the `report` command). */
export const COMMENT_MARKER = "<!-- carte-plan -->";

/** The drift issue's body. */
export const DRIFT_MARKER = "<!-- carte-drift -->";

/** The label of the drift issue. */
export const DRIFT_LABEL = "carte-drift";

/** The merged pull request's apply comment; one per shard when the apply is sharded. */
export function applyMarker(shard: Shard | undefined): string {
  return shard ? `<!-- carte-apply ${shard.index}/${shard.count} -->` : "<!-- carte-apply -->";
}
