/**
 * Fault injection of the emulator (docs/platform-api.md §3.9; §4.10, §4.11:
 * 429, 500 and 502 are seen, integrators must keep a 98 % success rate): latency with jitter, 5xx
 * answers, dropped connections, rate limiting with `Retry-After`, slow answers past a client's timeout,
 * lost answers (the request IS processed, then the connection is dropped or the answer withheld), and
 * accepted asynchronous writes held pending longer than usual, globally or per route (path prefix).
 *
 * Reproducible: every faultable request draws exactly five numbers from a PRNG seeded with `faultSeed`
 * (mulberry32), in arrival order, whatever the outcome; so the same settings and the same request
 * sequence give the same decisions. Rate limiting depends on the clock (a token bucket per client) and
 * is therefore not part of that promise. Changing the settings (`setFaults`, `PUT /__emulator/faults`)
 * reseeds the PRNG.
 *
 * Order of a decision: rate limit (429 `{"message": "Too many requests"}` with `Retry-After: <seconds>`)
 * → fault (`faultRate`: 500/502/503 `{message}`, a dropped connection, or a lost answer, chosen evenly
 * among `faultKinds`) → pass. Every outcome waits `latencyMs` + a uniform jitter in [0, `jitterMs`]
 * before it is answered. Refused requests (429, 5xx, `drop`) never reach the handler, so they change
 * nothing. Lost answers reach it: `lost` processes the request, then destroys the connection without an
 * answer; `hold` processes it, then withholds the answer for `holdMs` or until the client gives up
 * (like a server that committed a write and answered after the client's timeout). A slow request
 * (`slowMs`, for a share `slowRate` of the calls) is processed at once and only its answer is held back.
 *
 * Pending writes (`pendingMs`, for a share `pendingRate` of the requests): the asynchronous writes a
 * request makes (store menu and availability APIs, src/emulator/state.ts `accept`) become visible to
 * reads `pendingMs` after acceptance instead of `applyDelayMs`: longer than a client's settle window,
 * like a platform whose processing queue is backed up. Later writes of the same store wait behind them
 * (each store's writes are applied in acceptance order).
 *
 * The control endpoints (`/__emulator/`) are never faulted. Token logins are, unless `includeLogin` is
 * false.
 */

import { mulberry32 } from "./prng.js";
import type { Random } from "./prng.js";
import { UsageError } from "../errors.js";

/**
 * A kind of injected failure: an HTTP status, or `drop` (the connection is destroyed, no answer, nothing
 * done). `429` here is a random refusal with `Retry-After: 1`, apart from the per-client budget of
 * `rateLimit`. Lost answers: `lost` (the request is processed, then the connection is destroyed without
 * an answer) and `hold` (processed, the answer withheld for `holdMs` or until the client disconnects).
 */
export type FaultKind = "500" | "502" | "503" | "429" | "drop" | "lost" | "hold";

/** The faults of a set of requests. Every field is optional; absent means off. */
export interface FaultRule {
  /** Added to every answer, ms. */
  latencyMs?: number;
  /** Uniform extra delay in [0, jitterMs], ms. */
  jitterMs?: number;
  /** Share (0..1) of calls answered with a fault of {@link FaultRule.faultKinds}. */
  faultRate?: number;
  /** Default: all four. */
  faultKinds?: FaultKind[];
  /** Requests per second allowed per client (token, or IP address when no token); beyond: 429. */
  rateLimit?: number;
  /** Delay of a slow answer, ms: choose more than the client's timeout. */
  slowMs?: number;
  /** Share (0..1) of calls that are slow when `slowMs` is set; default 1. */
  slowRate?: number;
  /** How long a `hold` fault withholds the answer, ms, unless the client disconnects first. Default 120 000. */
  holdMs?: number;
  /**
   * Visibility delay, ms, of the asynchronous writes of a share `pendingRate` of the requests, instead of
   * the emulator's `applyDelayMs`: choose more than the client's settle window.
   */
  pendingMs?: number;
  /** Share (0..1) of requests whose asynchronous writes are held `pendingMs`; default 1. */
  pendingRate?: number;
}

/** A rule for the requests whose path starts with `prefix` (and of `method`, when given). */
export interface RouteFaultRule extends FaultRule {
  prefix: string;
  method?: string;
}

/** Emulator option `faults`. */
export interface FaultOptions extends FaultRule {
  /** Seed of the decisions; default 1. */
  faultSeed?: number;
  /** Whether token logins are faulted too; default true. */
  includeLogin?: boolean;
  /**
   * Per-route rules: the first whose prefix (and method) matches replaces, field by field, the
   * top-level rule for that request. Each route rule has its own rate-limit budget.
   */
  routes?: RouteFaultRule[];
}

/** What to do with one request. */
export interface FaultDecision {
  /** `pass`: handle normally; `429`: rate limited; otherwise an injected failure. */
  kind: "pass" | "429" | FaultKind;
  /** Wait before answering (latency + jitter), ms. */
  delayMs: number;
  /** For `pass`: hold the answer back this long after handling, ms. */
  slowMs: number;
  /** For `hold`: withhold the answer this long after handling (or until the client disconnects), ms. */
  holdMs?: number;
  /** For requests that are handled: delay of visibility of their asynchronous writes, ms; 0: usual. */
  pendingMs?: number;
  /** For `429`: the `Retry-After` value, seconds. */
  retryAfter?: number;
}

/** The kinds drawn when `faultKinds` is not set. */
const KINDS: FaultKind[] = ["500", "502", "503", "drop"];
const ALL_KINDS: FaultKind[] = [...KINDS, "429", "lost", "hold"];
const RULE_KEYS = [
  "latencyMs",
  "jitterMs",
  "faultRate",
  "faultKinds",
  "rateLimit",
  "slowMs",
  "slowRate",
  "holdMs",
  "pendingMs",
  "pendingRate",
];

/** Default of {@link FaultRule.holdMs}. */
const DEFAULT_HOLD_MS = 120_000;

/** Problems of fault options (for the control API and the CLI); empty when valid. */
export function faultProblems(value: unknown): string[] {
  const out: string[] = [];
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  const rule = (r: Record<string, unknown>, at: string, extra: string[]): void => {
    for (const k of Object.keys(r)) {
      if (!RULE_KEYS.includes(k) && !extra.includes(k)) out.push(`${at}${k}: unknown option`);
    }
    for (const k of ["latencyMs", "jitterMs", "slowMs", "rateLimit", "holdMs", "pendingMs"]) {
      const v = r[k];
      if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v) || v < 0)) {
        out.push(`${at}${k}: must be a number ≥ 0`);
      }
    }
    for (const k of ["faultRate", "slowRate", "pendingRate"]) {
      const v = r[k];
      if (v !== undefined && (typeof v !== "number" || !(v >= 0 && v <= 1))) {
        out.push(`${at}${k}: must be a number from 0 to 1`);
      }
    }
    const kinds = r.faultKinds;
    if (
      kinds !== undefined &&
      (!Array.isArray(kinds) || kinds.length === 0 || kinds.some((k) => !ALL_KINDS.includes(k as FaultKind)))
    ) {
      out.push(`${at}faultKinds: must be a non-empty array of ${ALL_KINDS.join(", ")}`);
    }
  };
  if (!isObj(value)) return ["faults must be an object"];
  rule(value, "", ["faultSeed", "includeLogin", "routes"]);
  if (
    value.faultSeed !== undefined &&
    (typeof value.faultSeed !== "number" || !Number.isSafeInteger(value.faultSeed))
  ) {
    out.push("faultSeed: must be an integer");
  }
  if (value.includeLogin !== undefined && typeof value.includeLogin !== "boolean") {
    out.push("includeLogin: must be a boolean");
  }
  if (value.routes !== undefined) {
    if (!Array.isArray(value.routes)) out.push("routes: must be an array");
    else {
      value.routes.forEach((r: unknown, i: number) => {
        if (!isObj(r) || typeof r.prefix !== "string" || !r.prefix.startsWith("/")) {
          out.push(`routes[${i}]: must be an object with a prefix starting with /`);
          return;
        }
        if (r.method !== undefined && typeof r.method !== "string")
          out.push(`routes[${i}].method: must be a string`);
        rule(r, `routes[${i}].`, ["prefix", "method"]);
      });
    }
  }
  return out;
}

interface Bucket {
  tokens: number;
  last: number;
}

/** Decides the fate of each request; cheap when no fault is configured. */
export class FaultInjector {
  private opts: FaultOptions = {};
  private rnd: Random = mulberry32(1);
  private buckets = new Map<string, Bucket>();
  /** Whether any fault is configured: when false, `decide` need not be called. */
  active = false;

  constructor(opts?: FaultOptions) {
    if (opts) this.set(opts);
  }

  /** Current settings (a copy). */
  get options(): FaultOptions {
    return structuredClone(this.opts);
  }

  /** Replaces the settings (checked with {@link faultProblems}) and reseeds the PRNG. */
  set(opts: FaultOptions | undefined): void {
    const o = structuredClone(opts ?? {});
    const problems = faultProblems(o);
    if (problems.length > 0) throw new UsageError(`invalid fault options: ${problems.join("; ")}`);
    this.opts = o;
    this.rnd = mulberry32(o.faultSeed ?? 1);
    this.buckets = new Map();
    const on = (r: FaultRule): boolean =>
      Boolean(r.latencyMs || r.jitterMs || r.faultRate || r.rateLimit || r.slowMs || r.pendingMs);
    this.active = on(o) || (o.routes ?? []).some(on);
  }

  /**
   * The decision for one request, in arrival order. `key` identifies the client for rate limiting.
   * `isLogin`: a token login (skipped when `includeLogin` is false).
   */
  decide(method: string, path: string, key: string, isLogin: boolean, now = Date.now()): FaultDecision {
    if (isLogin && this.opts.includeLogin === false) return { kind: "pass", delayMs: 0, slowMs: 0 };
    let rule: FaultRule = this.opts;
    let budget = "*";
    const routes = this.opts.routes;
    if (routes) {
      for (let i = 0; i < routes.length; i++) {
        const r = routes[i]!;
        if (path.startsWith(r.prefix) && (r.method === undefined || r.method.toUpperCase() === method)) {
          rule = { ...this.opts, ...r };
          budget = String(i);
          break;
        }
      }
    }
    // Always five draws, whatever the outcome: the sequence stays aligned with the requests.
    const rFault = this.rnd();
    const rKind = this.rnd();
    const rJitter = this.rnd();
    const rSlow = this.rnd();
    const rPending = this.rnd();
    const delayMs = (rule.latencyMs ?? 0) + Math.floor(rJitter * ((rule.jitterMs ?? 0) + 1));
    if (rule.rateLimit) {
      const retryAfter = this.take(`${budget}|${key}`, rule.rateLimit, now);
      if (retryAfter > 0) return { kind: "429", delayMs, slowMs: 0, retryAfter };
    }
    const pendingMs = rule.pendingMs && rPending < (rule.pendingRate ?? 1) ? rule.pendingMs : 0;
    const pending = pendingMs > 0 ? { pendingMs } : {};
    if (rule.faultRate && rFault < rule.faultRate) {
      const kinds = rule.faultKinds ?? KINDS;
      const kind = kinds[Math.floor(rKind * kinds.length)]!;
      if (kind === "lost") return { kind, delayMs, slowMs: 0, ...pending };
      if (kind === "hold")
        return { kind, delayMs, slowMs: 0, holdMs: rule.holdMs ?? DEFAULT_HOLD_MS, ...pending };
      return { kind, delayMs, slowMs: 0, ...(kind === "429" ? { retryAfter: 1 } : {}) };
    }
    const slow = rule.slowMs && rSlow < (rule.slowRate ?? 1) ? rule.slowMs : 0;
    return { kind: "pass", delayMs, slowMs: slow, ...pending };
  }

  /** Token bucket of `limit` requests per second: 0 when allowed, else the seconds to wait (≥ 1). */
  private take(key: string, limit: number, now: number): number {
    const capacity = Math.max(1, limit); // a burst of one second's budget, at least one request
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size > 10_000) this.buckets.clear();
      b = { tokens: capacity, last: now };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(capacity, b.tokens + ((now - b.last) / 1000) * limit);
    b.last = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / limit));
  }
}

/** The body of a 429 (docs/platform-api.md §4.10: 429 too many requests). */
export const TOO_MANY_REQUESTS = "Too many requests";

/** Message of an injected 5xx. */
export function faultMessage(kind: "500" | "502" | "503"): string {
  return kind === "500" ? "Internal server error" : kind === "502" ? "Bad gateway" : "Service unavailable";
}

/** Resolves after `ms`; the timer does not keep the process alive. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
