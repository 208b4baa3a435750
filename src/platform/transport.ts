/**
 * Resilience of the platform client's transport: which failures may be retried, how long to wait
 * between attempts, and a client-side rate limit that adapts to the platform's 429 answers.
 *
 * Wire facts and their sources:
 * - docs/platform-api.md §4.11: no requests-per-second number is published, but 429 exists, and
 *   integrators must keep a success rate of at least 98 % or lose access. Hence a client-side limit that
 *   slows down on 429 (so that retries do not themselves become failures) rather than one tuned to a
 *   published number.
 * - docs/platform-api.md §4.10: statuses seen include 429, 500 and 502.
 * - `Retry-After` is plain HTTP (RFC 9110 §10.2.3): either delay-seconds or an HTTP-date.
 * - 503 means the server "is currently unable to handle the request" (RFC 9110 §15.6.4), and 429 that
 *   the client sent too many requests (RFC 6585 §4): neither was processed, so even a non-idempotent
 *   call may be repeated after them.
 *
 * Bounds of an answer: {@link readCapped} reads a body as it streams in and stops at a size cap (the
 * route's, routes.ts `maxResponseBytes`) or when the client's {@link ByteBudget} of answers being
 * received at once is spent, so that no answer is ever held past its cap.
 *
 * Nothing here opens a connection: {@link PlatformClient} (client.ts) sends the requests and calls these
 * functions. Clocks, sleeping and randomness are injected so that tests are deterministic.
 */

import { setTimeout as delay } from "node:timers/promises";

/**
 * Sleeps for a number of milliseconds. When `signal` aborts first, the sleep ends at once by rejecting
 * with the signal's reason (a closed client wakes its waiting calls instead of keeping the process up).
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The default {@link Sleep}: a timer, cancelled when `signal` aborts. */
export const realSleep: Sleep = (ms, signal) => delay(ms, undefined, signal ? { signal } : {});

/** Retry settings of a client. All durations in milliseconds. */
export interface RetryPolicy {
  /** Attempts per call, the first included (so 5 = one try and up to four retries). At least 1. */
  maxAttempts: number;
  /** Base of the exponential backoff, in ms: attempt n waits up to `baseDelayMs · 2^(n-1)`. */
  baseDelayMs: number;
  /** Upper bound of one backoff delay, in ms (before jitter). */
  maxDelayMs: number;
  /** Upper bound of a wait asked for by `Retry-After`, in ms. A longer ask waits this long. */
  maxRetryAfterMs: number;
}

/** Defaults of {@link RetryPolicy}: 5 attempts, 200 ms base, 10 s cap, Retry-After honoured up to 60 s. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxAttempts: 5,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
};

/** What {@link ClientOptions.onRetry} is told before the client waits and tries a call again. */
export interface RetryInfo {
  method: string;
  /** Path of the call, relative to the base address (never carries a token). */
  path: string;
  /** The attempt that just failed, 1-based; the next one is `attempt + 1`. */
  attempt: number;
  /** HTTP status of the failed attempt, or 0 when no response arrived (reset, refused, timeout). */
  status: number;
  /** How long the client waits before the next attempt, in ms. */
  delayMs: number;
  /** Short reason for logs, e.g. `HTTP 503`, `ECONNRESET`, `timed out after 30000 ms`. No secrets. */
  reason: string;
}

/** Methods that are idempotent by HTTP semantics (RFC 9110 §9.2.2). */
const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

/** Whether a method is idempotent by HTTP semantics; POST and PATCH are not unless the caller says so. */
export function isIdempotentMethod(method: string): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase());
}

/** Statuses worth another attempt: overload and gateway failures (docs/platform-api.md §4.10). */
const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504]);

/** Statuses that prove the request was not processed (RFC 6585 §4, RFC 9110 §15.6.4). */
const NOT_PROCESSED_STATUSES = new Set([429, 503]);

/**
 * Whether a call that answered `status` may be sent again. 429 and 503 are retried for every call
 * (nothing was processed); 500, 502 and 504 only for idempotent calls, since the platform may have acted.
 */
export function isRetryableStatus(status: number, idempotent: boolean): boolean {
  if (!RETRYABLE_STATUSES.has(status)) return false;
  return idempotent || NOT_PROCESSED_STATUSES.has(status);
}

/**
 * Error codes that prove the request never reached the server: no connection was made (refused,
 * name not resolved, unreachable, connect timeout). Safe to retry even for a non-idempotent call.
 */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "ENETDOWN",
  "EHOSTDOWN",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * Error codes after which the request may or may not have been processed: the connection broke or the
 * answer did not come in time. Retried only for idempotent calls.
 */
const MAYBE_SENT_CODES = new Set([
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/** undici's codes for a per-request timeout (`headersTimeout`, `bodyTimeout`). */
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/** How a call that got no response failed. */
export interface TransportFailureKind {
  /** The error code (`ECONNRESET`, `UND_ERR_HEADERS_TIMEOUT`, …), or undefined when there is none. */
  code: string | undefined;
  /** The request provably never reached the server. */
  notSent: boolean;
  /** The request may have reached the server: retry only when idempotent. */
  maybeSent: boolean;
  /** A per-request timeout expired. */
  timeout: boolean;
}

/** Classifies an error thrown by undici (or Node's net/dns layer) for a request that got no response. */
export function classifyTransportError(err: unknown): TransportFailureKind {
  const code = errorCode(err);
  return {
    code,
    notSent: code !== undefined && NOT_SENT_CODES.has(code),
    maybeSent: code !== undefined && MAYBE_SENT_CODES.has(code),
    timeout: code !== undefined && TIMEOUT_CODES.has(code),
  };
}

/** Whether a call that failed with `kind` may be sent again. */
export function isRetryableTransportError(kind: TransportFailureKind, idempotent: boolean): boolean {
  return kind.notSent || (idempotent && kind.maybeSent);
}

/** The `code` of an error, looking through `cause` chains and aggregate errors (happy eyeballs). */
function errorCode(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== "object" || depth > 4) return undefined;
  const o = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof o.code === "string" && o.code !== "UND_ERR") return o.code;
  if (Array.isArray(o.errors)) {
    for (const e of o.errors) {
      const c = errorCode(e, depth + 1);
      if (c) return c;
    }
  }
  return errorCode(o.cause, depth + 1);
}

/**
 * Parses a `Retry-After` header (RFC 9110 §10.2.3) into a wait in milliseconds: delay-seconds
 * (`120`) or an HTTP-date (`Wed, 21 Oct 2015 07:28:00 GMT`), the latter against `nowMs` (epoch ms).
 * A date in the past gives 0. Returns undefined when the header is missing or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const v = raw.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // Only real dates: Date.parse also accepts bare numbers and other non-HTTP forms.
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/**
 * Backoff before the attempt after `failedAttempt` (1-based), in ms: exponential with full jitter
 * (a uniform draw in `[0, min(maxDelayMs, baseDelayMs · 2^(failedAttempt-1))]`), which spreads the
 * retries of many concurrent calls instead of synchronising them. `random` returns a number in [0, 1).
 */
export function backoffDelay(
  failedAttempt: number,
  policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">,
  random: () => number,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failedAttempt - 1));
  return Math.round(random() * ceiling);
}

/**
 * The wait before retrying after a response: the server's `Retry-After` when it gave one on a 429 or a
 * 503 (capped at `maxRetryAfterMs`), else the jittered backoff.
 */
export function retryDelay(
  failedAttempt: number,
  status: number,
  retryAfterMs: number | undefined,
  policy: RetryPolicy,
  random: () => number,
): number {
  if ((status === 429 || status === 503) && retryAfterMs !== undefined) {
    return Math.min(retryAfterMs, policy.maxRetryAfterMs);
  }
  return backoffDelay(failedAttempt, policy, random);
}

/** Options of {@link AdaptiveRateLimiter}. Rates in requests per second. */
export interface RateLimiterOptions {
  /** Starting and highest rate, in requests per second. */
  requestsPerSecond: number;
  /** Lowest rate the limiter falls to, in requests per second. Default `min(1, requestsPerSecond)`. */
  minRequestsPerSecond?: number;
  /** Requests that may go at once after an idle spell. Default 5 (at least 1). */
  burst?: number;
  /** Multiplicative decrease on a 429: the rate is multiplied by this. Default 0.5. */
  decreaseFactor?: number;
  /**
   * Additive increase: how many requests per second the rate regains per second of successful calls at
   * full pace (each success adds `increasePerSecond / rate`). Default 1.
   */
  increasePerSecond?: number;
  /**
   * After a decrease, further 429s within this many ms do not decrease again: they are answers to
   * requests sent at the old rate. Default 1000.
   */
  decreaseCooldownMs?: number;
  /** Clock in ms. Default `Date.now`. */
  now?: () => number;
  /** Default {@link realSleep}. */
  sleep?: Sleep;
}

/**
 * A token bucket whose rate adapts to the platform, AIMD-style (as TCP congestion control): it halves
 * on a 429 and grows back slowly with successes, never above the configured rate. Implemented as the
 * generic cell rate algorithm (one timestamp of state): each request is scheduled `1000 / rate` ms after
 * the previous one, and up to `burst` requests may run ahead of that schedule.
 *
 * Shared by all concurrent calls of one client; every HTTP request (token logins and repeats included)
 * takes one slot.
 */
export class AdaptiveRateLimiter {
  private readonly maxRate: number;
  private readonly minRate: number;
  private readonly burst: number;
  private readonly decreaseFactor: number;
  private readonly increasePerSecond: number;
  private readonly decreaseCooldownMs: number;
  private readonly now: () => number;
  private readonly sleep: Sleep;
  private currentRate: number;
  /** Theoretical arrival time of the next request (ms on the limiter's clock). */
  private tat = Number.NEGATIVE_INFINITY;
  private lastDecreaseAt = Number.NEGATIVE_INFINITY;
  /** The latest {@link pauseFor}: when it ends and who asked. */
  private pause: { until: number; reason: string } | undefined;

  constructor(opts: RateLimiterOptions) {
    if (!(opts.requestsPerSecond > 0)) throw new RangeError("requestsPerSecond must be a positive number");
    this.maxRate = opts.requestsPerSecond;
    this.minRate = Math.min(opts.minRequestsPerSecond ?? 1, this.maxRate);
    if (!(this.minRate > 0)) throw new RangeError("minRequestsPerSecond must be a positive number");
    this.burst = Math.max(1, Math.floor(opts.burst ?? 5));
    this.decreaseFactor = opts.decreaseFactor ?? 0.5;
    this.increasePerSecond = opts.increasePerSecond ?? 1;
    this.decreaseCooldownMs = opts.decreaseCooldownMs ?? 1000;
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? realSleep;
    this.currentRate = this.maxRate;
  }

  /** The current rate, in requests per second. */
  get rate(): number {
    return this.currentRate;
  }

  private get intervalMs(): number {
    return 1000 / this.currentRate;
  }

  /** How far ahead of the schedule a burst may run, in ms. */
  private get toleranceMs(): number {
    return (this.burst - 1) * this.intervalMs;
  }

  /**
   * Waits for the next slot and resolves `true` when it has come. Slots are handed out in call order.
   * When the slot would come at or after `deadline` (ms on the limiter's clock), resolves `false` at once
   * and takes no slot: a caller never sleeps past its deadline, and a pause the platform asked for
   * ({@link pauseFor}) that outlasts it fails the call now. `signal` ends the wait early (rejecting).
   */
  acquire(deadline = Number.POSITIVE_INFINITY, signal?: AbortSignal): Promise<boolean> {
    const t = this.now();
    const tat = Math.max(this.tat, t);
    const wait = tat - this.toleranceMs - t;
    if (wait > 0 && t + wait >= deadline) return Promise.resolve(false);
    this.tat = tat + this.intervalMs;
    return wait > 0 ? this.sleep(Math.ceil(wait), signal).then(() => true) : Promise.resolve(true);
  }

  /**
   * Why the requests are held, while a {@link pauseFor} lasts: its `reason` and the time it ends (ms on
   * the limiter's clock). Undefined when no pause holds them at `at`.
   */
  pauseAt(at: number = this.now()): { until: number; reason: string } | undefined {
    return this.pause !== undefined && at < this.pause.until ? this.pause : undefined;
  }

  /** A call succeeded: regain rate slowly (additive increase). */
  onSuccess(): void {
    if (this.currentRate >= this.maxRate) return;
    this.currentRate = Math.min(this.maxRate, this.currentRate + this.increasePerSecond / this.currentRate);
  }

  /** The platform answered 429: lower the rate (multiplicative decrease) and drop any burst allowance. */
  onThrottled(): void {
    const t = this.now();
    if (t - this.lastDecreaseAt >= this.decreaseCooldownMs) {
      this.currentRate = Math.max(this.minRate, this.currentRate * this.decreaseFactor);
      this.lastDecreaseAt = t;
    }
    this.tat = Math.max(this.tat, t + this.toleranceMs);
  }

  /**
   * Holds every request for `ms` milliseconds (a `Retry-After` on 429 or 503), then resumes without a
   * burst. `reason` says who asked, for the error of a call the pause would carry past its deadline.
   */
  pauseFor(ms: number, reason = "the platform asked to wait (Retry-After)"): void {
    if (!(ms > 0)) return;
    const until = this.now() + ms;
    this.tat = Math.max(this.tat, until + this.toleranceMs);
    if (this.pause === undefined || until >= this.pause.until) this.pause = { until, reason };
  }
}

// ------------------------------------------------------------------ size of an answer

/** 1 MiB, in bytes. */
export const MIB = 1024 * 1024;

/**
 * How many bytes of answers a client holds while they are received, counting every call in flight:
 * the caps of the routes bound one answer, this bounds them all (`--parallelism` answers at once).
 */
export class ByteBudget {
  private held = 0;

  /** `limit`: the most bytes held at once. */
  constructor(readonly limit: number) {}

  /** Bytes held now. */
  get used(): number {
    return this.held;
  }

  /** Takes `n` bytes when they fit under the limit; `false`, taking nothing, when they do not. */
  take(n: number): boolean {
    if (this.held + n > this.limit) return false;
    this.held += n;
    return true;
  }

  /** Gives back `n` bytes taken before. */
  release(n: number): void {
    this.held = Math.max(0, this.held - n);
  }
}

/**
 * What {@link readCapped} read: the whole body (its chunks as they came, not copied into one buffer;
 * {@link bodyText} decodes them), or why it stopped.
 */
export type CappedBody =
  | {
      ok: true;
      /** The body's chunks, in order. */
      chunks: readonly Uint8Array[];
      /** Bytes of the body. */
      received: number;
    }
  | {
      ok: false;
      /** `route`: the answer passed its route's cap; `client`: the client's {@link ByteBudget} was spent. */
      over: "route" | "client";
      /** Bytes read before the read stopped (the chunk that passed the bound is not among them). */
      received: number;
    };

/**
 * Reads a body chunk by chunk, counting the bytes as they arrive, and stops as soon as the next chunk
 * would take it past `cap` bytes or past what `budget` has left: the chunk is dropped and the stream
 * closed (ending the iteration destroys it, and undici closes the connection), so that at most `cap`
 * bytes of one answer are ever held. The bytes taken from `budget` are given back before it returns.
 */
export async function readCapped(
  chunks: AsyncIterable<Uint8Array>,
  cap: number,
  budget?: ByteBudget,
): Promise<CappedBody> {
  const parts: Uint8Array[] = [];
  let received = 0;
  try {
    for await (const chunk of chunks) {
      if (received + chunk.length > cap) return { ok: false, over: "route", received };
      if (budget && !budget.take(chunk.length)) return { ok: false, over: "client", received };
      received += chunk.length;
      parts.push(chunk);
    }
    return { ok: true, chunks: parts, received };
  } finally {
    budget?.release(received);
  }
}

/**
 * The text of a body read in chunks (UTF-8, a character split between two chunks included): the
 * chunks joined into one buffer, decoded at once. Measured cheaper than decoding chunk by chunk into
 * a rope that the JSON parser then flattens (a 330 KB menu: 1.8 against 2.1 ms, decoded and parsed).
 */
export function bodyText(chunks: readonly Uint8Array[]): string {
  if (chunks.length === 0) return "";
  if (chunks.length === 1)
    return Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, chunks[0]!.byteLength).toString("utf8");
  return Buffer.concat(chunks).toString("utf8");
}

/** A number of bytes for a message: `16 MiB`, `512 KiB`, `300 bytes`. */
export function formatBytes(n: number): string {
  if (n >= MIB && n % MIB === 0) return `${n / MIB} MiB`;
  if (n >= MIB) return `${(n / MIB).toFixed(1)} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} bytes`;
}
