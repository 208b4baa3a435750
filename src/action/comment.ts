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

/**
 * The merged pull request's apply comment; one per shard when the apply is sharded, one per stage
 * of a rollout applied with the `stage` input (a stage name is `[a-z][a-z0-9_-]*`, carte.yaml's schema;
 * anything else is left out of the marker), and one per platform of carte.yaml `platforms:` (and its
 * rehearsal).
 */
export function applyMarker(
  shard: Shard | undefined,
  stage?: string,
  platform?: string,
  rehearsal?: boolean,
): string {
  const named = platform !== undefined && /^[a-z][a-z0-9-]{0,30}$/.test(platform);
  const part =
    (named ? ` platform=${platform}${rehearsal ? "-rehearsal" : ""}` : "") +
    (stage !== undefined && /^[a-z][a-z0-9_-]{0,39}$/.test(stage) ? ` stage=${stage}` : "");
  return shard ? `<!-- carte-apply ${shard.index}/${shard.count}${part} -->` : `<!-- carte-apply${part} -->`;
}
