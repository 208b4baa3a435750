/**
 * The success rate of a client's calls, and the rule that stops a run before it spoils it.
 *
 * The platform's terms of use: an integrator must keep a success rate of at least 98 % of its calls or
 * lose access (docs/platform-api.md §1). The platform counts every answer that is not 2xx, 429s and
 * 5xx included, so carte counts every HTTP exchange its client makes (each attempt of a retried call
 * is one) and stops making calls:
 * - when the platform is failing: of the last {@link SuccessGuard.window} exchanges, at least
 *   {@link SuccessGuard.maxWindowFailures} were answered 429, 500, 502, 503 or 504, or not answered (the circuit
 *   breaker: retries never turn a failing platform into a flood of errors);
 * - when the run would fall below the rate: once at least {@link SuccessGuard.minCalls} exchanges were
 *   made, the share of those not answered 2xx is more than `1 - minSuccessRate`.
 * The numbers and the rule are documented in docs/reliability.md ("The platform's success rate").
 */
import { ApiError } from "../errors.js";
import type { ApiGroup } from "./routes.js";

/** The bounds of {@link CallTally}'s stop rule. */
export interface SuccessGuard {
  /** Exchanges a run makes before its success rate is judged. */
  minCalls: number;
  /** The lowest share of exchanges answered 2xx, from {@link minCalls} on (the platform asks 0.98). */
  minSuccessRate: number;
  /** How many of the latest exchanges the circuit breaker looks at. */
  window: number;
  /** Platform failures (429, 500, 502-504, no answer) among the latest {@link window} exchanges that open the breaker. */
  maxWindowFailures: number;
}

/**
 * Defaults of {@link SuccessGuard}: the rate is judged from the 100th exchange on, at 98 %; the breaker
 * opens when 10 of the last 20 exchanges failed on the platform's side.
 */
export const DEFAULT_SUCCESS_GUARD: Readonly<SuccessGuard> = {
  minCalls: 100,
  minSuccessRate: 0.98,
  window: 20,
  maxWindowFailures: 10,
};

/** Exchanges and those answered 2xx. */
export interface CallCount {
  readonly calls: number;
  readonly succeeded: number;
}

/** What a client's calls came to: in all, and per API group (docs/platform-api.md §1). */
export interface CallCounts extends CallCount {
  /** Per API group, in the order the groups were first called. */
  readonly byGroup: ReadonlyMap<ApiGroup, CallCount>;
}

/**
 * Statuses the platform is failing with, those the client retries (transport.ts): overload and server
 * or gateway failures. Another status (a 507, a 4xx) is not repeated, so it cannot flood.
 */
const FAILING_STATUSES = new Set([429, 500, 502, 503, 504]);

/** Whether an exchange's status is one the platform is failing with: no answer (0), 429, 500, 502-504. */
function platformFailure(status: number): boolean {
  return status === 0 || FAILING_STATUSES.has(status);
}

/**
 * Counts a client's HTTP exchanges, answered 2xx or not, and tells when no further call may go
 * ({@link refusal}). Off (`guard: false`) it only counts: fault-injection tests and benchmarks, which
 * fail calls on purpose.
 */
export class CallTally {
  private calls = 0;
  private succeeded = 0;
  private readonly groups = new Map<ApiGroup, { calls: number; succeeded: number }>();
  /** The latest outcomes, `true` for a platform failure, at most `window` of them. */
  private readonly recent: boolean[] = [];
  private recentFailures = 0;

  constructor(private readonly guard: Readonly<SuccessGuard> | false = DEFAULT_SUCCESS_GUARD) {}

  /**
   * Records one exchange of `group` (undefined: a path of no route, counted in the total only) answered
   * `status` (0: no answer: reset, refused, timed out).
   */
  record(group: ApiGroup | undefined, status: number): void {
    const ok = status >= 200 && status <= 299;
    this.calls++;
    if (ok) this.succeeded++;
    if (group !== undefined) {
      let g = this.groups.get(group);
      if (g === undefined) {
        g = { calls: 0, succeeded: 0 };
        this.groups.set(group, g);
      }
      g.calls++;
      if (ok) g.succeeded++;
    }
    if (this.guard === false) return;
    const failed = platformFailure(status);
    this.recent.push(failed);
    if (failed) this.recentFailures++;
    if (this.recent.length > this.guard.window && this.recent.shift() === true) this.recentFailures--;
  }

  /**
   * Why no further call may be sent, or `undefined` when calls may go on. The reason names the
   * failures and the rule, for the run's error.
   */
  refusal(): string | undefined {
    if (this.guard === false) return undefined;
    const { window, maxWindowFailures, minCalls, minSuccessRate } = this.guard;
    if (this.recentFailures >= maxWindowFailures) {
      return (
        `the platform is failing: ${this.recentFailures} of the last ${this.recent.length} calls were ` +
        `answered 429, 500, 502, 503 or 504, or not at all (${describeCalls(this.counts())}); carte stops calling it ` +
        `rather than retry on (at ${maxWindowFailures} of ${window}, docs/reliability.md). Run again later`
      );
    }
    const failed = this.calls - this.succeeded;
    if (this.calls >= minCalls && failed > (1 - minSuccessRate) * this.calls) {
      return (
        `the run's calls fell below the ${percent(minSuccessRate)} success rate the platform's terms ` +
        `ask of an integrator: ${failed} of ${this.calls} failed; carte stops calling the platform ` +
        "(docs/reliability.md). Run again later"
      );
    }
    return undefined;
  }

  /** The counts so far. */
  counts(): CallCounts {
    const byGroup = new Map<ApiGroup, CallCount>();
    for (const [g, c] of this.groups) byGroup.set(g, { calls: c.calls, succeeded: c.succeeded });
    return { calls: this.calls, succeeded: this.succeeded, byGroup };
  }
}

/** A share as the reports write it: one decimal, floored so that 97.99 % never shows as 98.0 %. */
function percent(share: number): string {
  return `${(Math.floor(share * 1000 + 1e-9) / 10).toFixed(1)} %`;
}

/**
 * One line of a run's report, e.g. "412 calls to the platform, 99.5 % succeeded"; of one platform of
 * carte.yaml `platforms:` (each its own client, its own rate, as the platform of each country counts
 * them), headed by its name: "co: 412 calls to the platform, 99.5 % succeeded".
 */
export function describeCalls(c: CallCount, platform?: string): string {
  const head = platform === undefined ? "" : `${platform}: `;
  if (c.calls === 0) return `${head}no calls to the platform`;
  const noun = c.calls === 1 ? "call" : "calls";
  return `${head}${c.calls} ${noun} to the platform, ${percent(c.succeeded / c.calls)} succeeded`;
}

/**
 * A call the client refused to send because the platform is failing or the run's success rate fell
 * below the platform's bound ({@link CallTally.refusal}). Status 0: no request went out.
 */
export class PlatformFailingError extends ApiError {
  constructor(method: string, path: string, reason: string) {
    super({ method, path, status: 0, platformMessage: `not sent: ${reason}` });
    this.name = "PlatformFailingError";
  }
}
