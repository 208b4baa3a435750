/**
 * What happened to one operation of an apply: the executor (src/apply/execute.ts) makes it, the apply
 * report and the secrets' store read it. Its own module, with no imports, so that its readers need
 * nothing of the executor.
 */

/** What happened to one operation. */
export interface OperationResult {
  id: string;
  method: string;
  path: string;
  status: "ok" | "failed" | "skipped";
  /** The platform's message, or why it was skipped or how it was settled. Never contains a secret. */
  message?: string;
  /** Wall time of the call in milliseconds. */
  durationMs: number;
  /**
   * Set on a failed asynchronous create whose answer was lost and whose effect no read showed within
   * the settle window: it was not sent again (it may still be processing); the apply keeps watching it.
   */
  unsettled?: true;
  /**
   * Set on a failed call whose answer was lost although the platform made it (`made`: a read shows its
   * effect, e.g. a webhook create whose secret could then not be rotated) or may have made it
   * (`unknown`: no read could tell). What its answer carried (a webhook's secret) never arrived. Absent
   * on a failed call the platform refused: nothing was made.
   */
  lostAnswer?: "made" | "unknown";
  /**
   * Set on a failed call for several stores that the platform refused as a whole and that was then made
   * again store by store: the stores whose own call failed too. The others' calls succeeded, and only
   * the later calls of these stores are skipped.
   */
  failedStores?: string[];
}
