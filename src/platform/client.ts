/**
 * Typed client of the platform API on undici: token login and caching, one {@link ApiError} for every
 * failure, keep-alive connections, and a resilient transport (transport.ts): retries with exponential
 * backoff and full jitter where a call is idempotent or provably never happened, `Retry-After`, an
 * adaptive (AIMD) client-side rate limit, and per-request timeouts.
 *
 * Calls are named by their route (routes.ts): `client.request("GET /restaurants/menu/v1/stores/{storeId}/store-menu",
 * { storeId })` takes the path, the API group and the idempotency from the route table; the call goes to
 * its group's address ({@link PlatformHosts}: one for all, or one per group, docs/platform-api.md §4.13) with
 * its group's token (a login to the auth group's address). The typed calls of each API group (utils-calls.ts,
 * store-availability-calls.ts, webhook-calls.ts) are thin functions over {@link PlatformClient.request}. No
 * answer is used unread: every 2xx answer goes through {@link PlatformClient.decode}, which checks it against
 * its route's response schema (schemas.ts) and turns a malformed one into a {@link MalformedAnswerError}
 * naming the call and the store.
 *
 * Sources: docs/platform-api.md §2.1 (token login), §2.3 (availability v2), §2.4 (store menu API),
 * §4.2 (authentication: `x-authorization` header), §4.10 (errors); docs/platform-api.md §4.2
 * (renew before expiry and once on 401; a token per surface), "Errors", "Limits" (429 exists; keep a
 * success rate of at least 98 %), "Store menu API" (POST upserts by id, else by SKU).
 */

import { setMaxListeners } from "node:events";
import { Agent, request, type Dispatcher } from "undici";
import { ApiError, InternalError, MalformedAnswerError, redact } from "../errors.js";
import {
  AdaptiveRateLimiter,
  ByteBudget,
  DEFAULT_RETRY_POLICY,
  MIB,
  classifyTransportError,
  formatBytes,
  isIdempotentMethod,
  isRetryableStatus,
  isRetryableTransportError,
  parseRetryAfter,
  readCapped,
  bodyText,
  realSleep,
  retryDelay,
  type RetryInfo,
  type RetryPolicy,
  type Sleep,
} from "./transport.js";
import { CallTally, PlatformFailingError, type SuccessGuard } from "./call-tally.js";
import { JsonBytes } from "./json-body.js";
import { answerProblems, answerSchemas, MAX_LISTED_PROBLEMS } from "./schemas.js";
import {
  API_GROUPS,
  DEFAULT_ANSWER_BYTES,
  GROUP_SURFACE,
  LOGIN_ROUTES,
  matchRoute,
  oneHost,
  routeGroup,
  routeMaxResponseBytes,
  routeIdempotent,
  routeMethod,
  routePath,
  routeSpec,
  type ApiGroup,
  type PathMatch,
  type PlatformHosts,
  type RouteName,
  type RouteParams,
  type Surface,
  type TokenSurface,
} from "./routes.js";
import type { TokenResponse, WireStoreMenu } from "./wire.js";

export type { RetryInfo } from "./transport.js";
export { type PlatformHosts } from "./routes.js";

/**
 * Calls in flight at once when the caller does not say (`--parallelism`, reads and writes of plan,
 * apply and import). 16 keeps the default pace of 50 requests a second (`platform.requests_per_second`)
 * busy up to 320 ms a call (16 ÷ 50 s), where 8 stops at 160 ms; more only holds more stores in memory
 * at once. Measured in docs/performance.md. The rate limit stays the ceiling whatever the parallelism.
 */
export const DEFAULT_PARALLELISM = 16;

/** Options of {@link PlatformClient}. Durations in milliseconds unless the name says seconds. */
export interface ClientOptions {
  /**
   * Where the platform is: one base address for every API group (e.g. `https://example.test`), or the
   * base address of each group ({@link PlatformHosts}). Trailing slashes are dropped.
   */
  baseUrl: string | PlatformHosts;
  clientId: string;
  clientSecret: string;
  /**
   * Idle timeout of an attempt in ms: undici's `headersTimeout` (until the response headers arrive) and
   * `bodyTimeout` (the longest silence between two chunks of the body). An idempotent call that times
   * out is retried; any other fails with an {@link ApiError} of status 0, "timed out after N ms". undici
   * checks these on a coarse clock (`setFastTimeout`, about 1 s resolution), so they fire up to ~1 s
   * late. An answer that never falls silent (a byte a second) is ended by the call's deadline
   * ({@link deadline}) instead. Default 30 000.
   */
  timeoutMs?: number;
  /** Renew a token this many seconds before it expires. Default 300 (docs/platform-api.md §4.2). */
  renewBeforeSeconds?: number;
  /** Injectable undici dispatcher (tests, proxies). Default: a keep-alive Agent owned by the client. */
  dispatcher?: Dispatcher;
  /**
   * Keep-alive connections to the platform at most, for the client's own Agent: the calls the caller
   * has in flight at once (`--parallelism`), so that none waits for a connection. Default
   * {@link DEFAULT_PARALLELISM}. Ignored with `dispatcher`.
   */
  connections?: number;
  /**
   * Clock in epoch milliseconds, injectable for tests. Drives token expiry, `Retry-After` dates and the
   * rate limiter's schedule (a frozen clock therefore also freezes the limiter). Default `Date.now`.
   */
  now?: () => number;
  /**
   * Attempts per call, the first included. Default 5. 1 turns retries off. A wait the server asked for
   * (429 or 503 with `Retry-After`) is not an attempt: such waits are bounded by {@link deadline}.
   */
  maxAttempts?: number;
  /** Base of the exponential backoff in ms (attempt n waits up to base · 2^(n-1), full jitter). Default 200. */
  baseDelayMs?: number;
  /** Upper bound of one backoff delay in ms. Default 10 000. */
  maxDelayMs?: number;
  /** Upper bound in ms of a wait asked for by `Retry-After` on 429 or 503. Default 60 000. */
  maxRetryAfterMs?: number;
  /**
   * Client-side rate limit in requests per second, shared by all concurrent calls of this client: the
   * starting and highest rate of an AIMD token bucket that halves on 429 and recovers slowly on success.
   * Default 20. `Infinity` turns the limit off (429s are still retried).
   */
  requestsPerSecond?: number;
  /** The lowest rate, in requests per second, that 429s can push the limiter down to. Default 1. */
  minRequestsPerSecond?: number;
  /**
   * Called before the client waits and repeats a call (progress, logs). Gets no secrets. Must not throw.
   */
  onRetry?: (info: RetryInfo) => void;
  /** Source of jitter, a number in [0, 1). Injectable for tests. Default `Math.random`. */
  random?: () => number;
  /** Sleeps for a number of ms (retry delays, rate limit waits). Injectable for tests. Default a timer. */
  sleep?: Sleep;
  /**
   * The time (epoch ms, on {@link now}'s clock) by which every call ends: no attempt, wait or answer
   * goes past it. The overall time limit of a run (`--timeout`), set by src/run/run.ts. Default: none, and
   * then each call ends {@link DEFAULT_CALL_DEADLINE_MS} after it started. See
   * {@link PlatformClient.setDeadline}.
   */
  deadline?: number;
  /**
   * The most bytes of answers the client holds while they are received, all calls in flight together
   * (each answer is also bounded by its route's cap, routes.ts `maxResponseBytes`). An answer that
   * would pass it is cut off and its call fails. Default {@link DEFAULT_MAX_BUFFERED_BYTES}.
   */
  maxBufferedBytes?: number;
  /**
   * The bounds past which the client stops making calls (call-tally.ts, docs/reliability.md "The
   * platform's success rate"): a failing platform, or a run whose calls fall below the 98 % success
   * rate of the platform's terms (docs/platform-api.md §1). `false` only counts the calls: for tests and
   * benchmarks that inject failures on purpose. Default: `DEFAULT_SUCCESS_GUARD` of call-tally.ts.
   */
  successGuard?: SuccessGuard | false;
}

/**
 * Default of {@link ClientOptions.maxBufferedBytes}: 128 MiB, eight store catalogs at their cap or
 * more than 250 real ones (473 KB each in docs/performance.md); with the largest answer's parse (about
 * 35 times its bytes for the worst JSON), it keeps a run under 1 GB (docs/platform-api.md "Bounds of an
 * answer").
 */
export const DEFAULT_MAX_BUFFERED_BYTES = 128 * MIB;

/**
 * How long one call may go on waiting and retrying when the client has no {@link ClientOptions.deadline}:
 * 15 minutes, the default `--timeout` of a run.
 */
export const DEFAULT_CALL_DEADLINE_MS = 15 * 60_000;

/**
 * A 401 renews the token when the call's last renewal is older than this (docs/platform-api.md §4.2: renew
 * once on 401; a wait longer than a token's life may need another renewal).
 */
export const RENEW_AGAIN_AFTER_MS = 60_000;

/** The shortest wait after a `Retry-After` (a date in the past or `0` would otherwise spin). */
const MIN_ASKED_WAIT_MS = 100;

/** The longest timer Node keeps (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Why a call ended when the client was closed under it. */
const CLOSED = "the client was closed (the run ended)";

/** Per-call options of {@link PlatformClient.request} and {@link PlatformClient.call}. */
export interface CallOptions {
  /**
   * Whether sending the call twice has the same effect as sending it once. Idempotent calls are retried
   * after 5xx, 429, resets and timeouts; the others only after a failure that proves the platform did
   * nothing (connection refused, name not resolved, 429, 503). Default for `request`: the route's
   * `idempotent` (routes.ts, evaluated on the body); for `call`: by method (GET, HEAD, OPTIONS, PUT,
   * DELETE are; POST and PATCH are not).
   */
  idempotent?: boolean;
  /**
   * Query parameters, appended as `?k=v&…` in the given order: names as written (the finance filters
   * carry `:`), values URI-encoded. Undefined values are left out.
   */
  query?: Record<string, string | number | undefined>;
}

/**
 * A 2xx answer as received, not yet read: what {@link PlatformClient.fetchAnswer} gives, so that the
 * caller reads it with {@link PlatformClient.decode} after releasing its own concurrency slot (the
 * reader: a 473 KB store menu is parsed and checked while the next call is on its way).
 */
export interface RawAnswer {
  /**
   * The route the call addressed, when its method and path are a row of the route table (routes.ts):
   * its `response` names the schema the body must match.
   */
  readonly route: RouteName | undefined;
  readonly method: string;
  /** Path of the call, query string included. */
  readonly path: string;
  /** The platform store id of the path (`{storeId}`, `{store_id}`), when the route has one. */
  readonly storeId: string | undefined;
  readonly status: number;
  /** The `content-type` header, when the platform sent one. */
  readonly contentType: string | undefined;
  /** The body as received (UTF-8). */
  readonly text: string;
}

/**
 * Statuses that do not prove whether the platform made the change (RFC 9110 §15.6: a server or gateway
 * failure; 503 and 429 say it was not, RFC 9110 §15.6.4, RFC 6585 §4).
 */
const UNDETERMINED_STATUSES = new Set([500, 502, 504]);

interface CachedToken {
  value: string;
  /** Epoch milliseconds after which the token must be renewed. */
  renewAt: number;
}

/** What the time limit says in errors: the flag that sets it. */
const TIME_LIMIT = "the time limit of the run (--timeout)";

/** A completed HTTP exchange. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /**
   * The body parsed as JSON, or its text when it is not JSON; undefined when empty. Left unparsed
   * (undefined) for a 2xx answer of {@link PlatformClient.request}, which reads {@link text}.
   */
  body: unknown;
  /** The body as received. */
  text: string;
}

/** One attempt: a response of any status, or no response with the reason. */
type Outcome =
  | { ok: true; res: RawResponse }
  | { ok: false; error: ApiError; retryable: (idempotent: boolean) => boolean; reason: string };

/**
 * A client of the platform API. Safe to share across concurrent calls: token logins are
 * de-duplicated per surface, and one rate limiter paces every request of the client.
 */
export class PlatformClient {
  /** The base address each API group's calls go to, without trailing slashes. */
  readonly hosts: PlatformHosts;
  /** The client's adaptive rate limiter (its current `rate` is useful in progress output and tests). */
  readonly rateLimiter: AdaptiveRateLimiter;
  /** Every HTTP exchange of the client, answered 2xx or not: the run's success rate ({@link ClientOptions.successGuard}). */
  readonly calls: CallTally;
  /** The client id this client logs in with (not a secret; names the client in `/clients/{clientId}/…` paths). */
  readonly clientId: string;
  private readonly clientSecret: string;
  private readonly timeoutMs: number;
  private readonly renewBeforeMs: number;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly now: () => number;
  private readonly retryPolicy: RetryPolicy;
  private readonly onRetry: ((info: RetryInfo) => void) | undefined;
  private readonly random: () => number;
  private readonly sleep: Sleep;
  private readonly tokens = new Map<TokenSurface, Promise<CachedToken>>();
  private deadlineAt: number | undefined;
  /** Values never to show in an error: the client secret and every token issued to this client. */
  private readonly secrets = new Set<string>();
  /** The bytes of the answers being received, all calls together ({@link ClientOptions.maxBufferedBytes}). */
  private readonly buffered: ByteBudget;
  /** Aborted by {@link close}: ends the calls still in flight and the waits of the client. */
  private readonly closing = new AbortController();

  constructor(opts: ClientOptions) {
    const hosts = typeof opts.baseUrl === "string" ? oneHost(opts.baseUrl) : opts.baseUrl;
    this.hosts = Object.fromEntries(
      API_GROUPS.map((g) => {
        const url = hosts[g];
        if (typeof url !== "string" || url === "") throw new InternalError(`no address for the ${g} group`);
        return [g, url.replace(/\/+$/, "")];
      }),
    ) as Record<ApiGroup, string>;
    this.clientId = opts.clientId;
    this.clientSecret = opts.clientSecret;
    this.secrets.add(opts.clientSecret);
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.renewBeforeMs = (opts.renewBeforeSeconds ?? 300) * 1000;
    this.now = opts.now ?? Date.now;
    this.ownsDispatcher = opts.dispatcher === undefined;
    this.dispatcher =
      opts.dispatcher ??
      new Agent({
        keepAliveTimeout: 10_000,
        keepAliveMaxTimeout: 60_000,
        connections: Math.max(1, Math.floor(opts.connections ?? DEFAULT_PARALLELISM)),
      });
    this.retryPolicy = {
      maxAttempts: Math.max(1, Math.floor(opts.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts)),
      baseDelayMs: opts.baseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
      maxDelayMs: opts.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
      maxRetryAfterMs: opts.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
    };
    this.onRetry = opts.onRetry;
    this.random = opts.random ?? Math.random;
    this.sleep = opts.sleep ?? realSleep;
    this.deadlineAt = opts.deadline;
    this.buffered = new ByteBudget(opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES);
    this.calls = new CallTally(opts.successGuard);
    // Every call in flight or waiting listens for the close: as many listeners as calls, not a leak.
    setMaxListeners(0, this.closing.signal);
    this.rateLimiter = new AdaptiveRateLimiter({
      requestsPerSecond: opts.requestsPerSecond ?? 20,
      ...(opts.minRequestsPerSecond === undefined ? {} : { minRequestsPerSecond: opts.minRequestsPerSecond }),
      now: this.now,
      sleep: this.sleep,
    });
  }

  /**
   * Sets (or, with `undefined`, clears) the time, in epoch ms on the client's clock, by which every call
   * ends (see {@link ClientOptions.deadline}): a call cut short by it, or whose next wait would pass it,
   * fails with an {@link ApiError} whose message says that the time limit is reached.
   */
  setDeadline(at: number | undefined): void {
    this.deadlineAt = at;
  }

  /** The deadline set by {@link setDeadline} or the options, if any (epoch ms). */
  get deadline(): number | undefined {
    return this.deadlineAt;
  }

  /**
   * Ends the calls of the client still in flight or waiting (they fail with an {@link ApiError} "the
   * client was closed"), so that an answer still streaming in or a pending wait does not keep the process
   * up after a run ended, and closes the client's own connections.
   */
  async close(): Promise<void> {
    this.closing.abort();
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  // ---------------------------------------------------------------- transport

  /**
   * Sends one request, paced by the rate limiter but never retried, and returns the parsed response
   * whatever its status. Throws {@link ApiError} with status 0 when no response arrives (connection
   * refused or reset, timeout).
   */
  async raw(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<RawResponse> {
    const out = await this.exchange(method, path, body, this.callDeadline(), async () => headers);
    if (!out.ok) throw out.error;
    return { ...out.res, body: parseLoosely(out.res.text) };
  }

  /**
   * Calls a route of the platform (routes.ts) and returns the body of a 2xx answer: the path is the
   * route's template filled with `params` ({@link routePath}), the token is the one of the route's
   * surface, and the call is retried when the route says it is idempotent for this body, unless
   * `options.idempotent` says otherwise.
   *
   * Retries (see {@link CallOptions.idempotent}) with exponential backoff and full jitter, or after the
   * server's `Retry-After` on 429 and 503, up to `maxAttempts` failed attempts in all; waits the server
   * asked for do not count, and the client's deadline bounds them. On 401 the token is renewed and the
   * call repeated, unless the call renewed it less than a minute before ({@link RENEW_AGAIN_AFTER_MS}).
   *
   * The answer is read by {@link decode}: checked against the route's response schema before it is
   * returned; a route without one (204) gives undefined.
   * @throws ApiError for a non-2xx answer (the last status the platform answered) or when no answer
   *   arrived (status 0).
   * @throws MalformedAnswerError (an ApiError) for a 2xx answer that is not JSON or not of the route's shape.
   * @throws InternalError when a path parameter of the route is missing.
   */
  async request<T>(
    name: RouteName,
    params: RouteParams,
    body?: unknown,
    options: CallOptions = {},
  ): Promise<T> {
    return this.decode<T>(await this.fetchAnswer(name, params, body, options));
  }

  /**
   * Calls a route like {@link request} and gives its 2xx answer as received, to be read with
   * {@link decode} later (see {@link RawAnswer}).
   * @throws ApiError, InternalError as {@link request}.
   */
  async fetchAnswer(
    name: RouteName,
    params: RouteParams,
    body?: unknown,
    options: CallOptions = {},
  ): Promise<RawAnswer> {
    const path = routePath(name, params) + queryString(options.query);
    const idempotent = options.idempotent ?? routeIdempotent(name, body);
    const storeId = params.storeId ?? params.store_id;
    // The token of the route's group (docs/platform-api.md §4.2).
    const surface = GROUP_SURFACE[routeGroup(name)];
    return this.send(routeMethod(name), path, body, surface, idempotent, name, storeId?.toString());
  }

  /**
   * Reads a 2xx answer (docs/platform-api.md §2 conventions: bodies are JSON): the body parsed and checked
   * against the response schema of its route (schemas/platform/, read open: src/platform/schemas.ts).
   * An answer whose route has no response schema (204) gives undefined, whatever its body.
   * @throws MalformedAnswerError when the content type is not JSON, the body is empty or not JSON, or
   *   the value does not match the schema: the message names the call, its store, and the first
   *   problems (`/items/3/sku: expected a string, got null`), quoting at most a short escaped excerpt
   *   (nothing of an answer that carries a secret, {@link RouteSpec.secret}).
   */
  decode<T>(answer: RawAnswer): T {
    const spec = answer.route === undefined ? undefined : routeSpec(answer.route);
    if (spec?.response === undefined) return undefined as T;
    const quote = spec.secret !== true;
    const fail = (problem: string) =>
      new MalformedAnswerError({
        method: answer.method,
        path: answer.path,
        status: answer.status,
        route: answer.route!,
        storeId: answer.storeId,
        problem: redact(problem, [...this.secrets]),
      });
    const { contentType } = answer;
    // Said only of an answer refused: every answer read passes here, store menus of half a megabyte too.
    const starts = () => (quote ? `; it starts ${excerpt(answer.text)}` : "");
    if (contentType !== undefined && !isJsonType(contentType)) {
      throw fail(`is not JSON: its content type is ${JSON.stringify(contentType.slice(0, 80))}${starts()}`);
    }
    // The text is decoded here, once, and dies with the parse ({@link received}).
    const text = answer.text;
    if (text.trim() === "") throw fail("is not JSON: the body is empty");
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw fail(`is not JSON: ${jsonFault(err, text)}${starts()}`);
    }
    const problems = answerProblems(spec.response, value, { quote });
    if (problems.length > 0) {
      const file = answerSchemas().definitions.get(spec.response)?.file;
      const more = problems.length - MAX_LISTED_PROBLEMS;
      throw fail(
        `does not have the shape of a ${spec.response} (schemas/platform/${file}.schema.json): ` +
          problems.slice(0, MAX_LISTED_PROBLEMS).join("; ") +
          (more > 0 ? `; and ${more} more problem${more === 1 ? "" : "s"}` : ""),
      );
    }
    return value as T;
  }

  /**
   * Calls a concrete path (`/restaurants/…`, query string included) and returns the body of a 2xx
   * answer, like {@link PlatformClient.request}: for callers that hold a path rather than a route name
   * (the executor's planned operations, finance pages). The token surface is the one of the route the
   * path matches in the route table; idempotency defaults to the method's (see
   * {@link CallOptions.idempotent}).
   * @throws ApiError as {@link PlatformClient.request}.
   * @throws InternalError when no route of the table has this path (a bug of the caller).
   */
  async call<T>(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<T> {
    const match = matchRoute(method, path);
    if (match === undefined) {
      throw new InternalError(
        `no route of the platform API (src/platform/routes.ts) matches ${method} ${path}`,
      );
    }
    const idempotent = options.idempotent ?? isIdempotentMethod(method);
    // A path whose route has another method: its surface is the path's, and no schema describes the answer.
    const route = match.method === method.toUpperCase() ? match.name : undefined;
    const answer = await this.send(
      method,
      path + queryString(options.query),
      body,
      GROUP_SURFACE[routeGroup(match.name)],
      idempotent,
      route,
      match.params.storeId ?? match.params.store_id,
    );
    return this.decode<T>(answer);
  }

  /**
   * One protected call with retries; the 2xx answer as received, for {@link decode}. The token is taken
   * for each attempt after the rate limiter's wait (a long wait may outlive a token). On 401 the token is
   * renewed and the call repeated when the call has not renewed it within the last
   * {@link RENEW_AGAIN_AFTER_MS} (docs/platform-api.md §4.2: renew on 401; a second 401 right after
   * a renewal is final). `route` and `storeId` are only carried into the answer.
   */
  private async send(
    method: string,
    path: string,
    body: unknown,
    surface: Surface,
    idempotent: boolean,
    route: RouteName | undefined,
    storeId: string | undefined,
  ): Promise<RawAnswer> {
    let renewedAt = Number.NEGATIVE_INFINITY;
    // Whether an attempt before the last got no usable answer (no response; 500, 502, 504): then a
    // refusal by the last does not prove that nothing was made.
    let lost = false;
    let lostBefore = false;
    const once = async (deadline: number): Promise<Outcome> => {
      if (surface === "none") return this.exchange(method, path, body, deadline, async () => ({}));
      for (;;) {
        let used: string | undefined;
        const out = await this.exchange(method, path, body, deadline, async () => {
          used = await this.token(surface);
          return { "x-authorization": `Bearer ${used}` };
        });
        if (!out.ok || out.res.status !== 401 || used === undefined) return out;
        if (this.now() - renewedAt < RENEW_AGAIN_AFTER_MS) return out;
        renewedAt = this.now();
        await this.dropToken(surface, used);
      }
    };
    const res = await this.withRetries(method, path, idempotent, async (deadline) => {
      lostBefore = lost;
      const out = await once(deadline);
      if (out.ok ? UNDETERMINED_STATUSES.has(out.res.status) : out.error.status === 0) lost = true;
      return out;
    });
    if (res.status < 200 || res.status > 299) throw this.toError(method, path, res, lostBefore);
    return answerOf(method, path, res, route, storeId);
  }

  /**
   * The deadline of a call that starts now (epoch ms on the client's clock): the client's deadline (the
   * run's `--timeout`), and at most {@link DEFAULT_CALL_DEADLINE_MS} from now.
   */
  private callDeadline(): number {
    return Math.min(this.deadlineAt ?? Number.POSITIVE_INFINITY, this.now() + DEFAULT_CALL_DEADLINE_MS);
  }

  /** Which limit a call's deadline is, for its errors. */
  private limitOf(deadline: number): string {
    return deadline === this.deadlineAt ? TIME_LIMIT : "the 15-minute limit of one call";
  }

  /**
   * Runs `attempt` until it yields a final outcome, `maxAttempts` failed attempts are reached, or the
   * call's deadline ({@link callDeadline}) would pass before the next attempt. A wait the server asked
   * for (429 or 503 with `Retry-After`) is not a failed attempt: it is honoured (capped at
   * `maxRetryAfterMs`, at least 100 ms) when it ends before the deadline; one that would end after it
   * fails the call at once, naming the `Retry-After`. Returns the last response (of any status); throws
   * the last transport error, or an {@link ApiError} saying that the time limit is reached. Errors
   * thrown by `attempt` itself (a failed token login, which has its own retries) end the call at once.
   */
  private async withRetries(
    method: string,
    path: string,
    idempotent: boolean,
    attempt: (deadline: number) => Promise<Outcome>,
  ): Promise<RawResponse> {
    const deadline = this.callDeadline();
    for (let n = 1; ;) {
      const out = await attempt(deadline);
      let status = 0;
      let retryAfterMs: number | undefined;
      if (out.ok) {
        status = out.res.status;
        if (!isRetryableStatus(status, idempotent)) return out.res;
        retryAfterMs = parseRetryAfter(out.res.headers["retry-after"], this.now());
      } else if (!out.retryable(idempotent)) {
        throw out.error;
      }
      // Waiting is not failing: a wait the server asked for does not use up an attempt.
      const asked = out.ok && (status === 429 || status === 503) && retryAfterMs !== undefined;
      if (!asked && n >= this.retryPolicy.maxAttempts) {
        if (out.ok) return out.res;
        throw out.error;
      }
      let delayMs = retryDelay(n, status, retryAfterMs, this.retryPolicy, this.random);
      if (asked) delayMs = Math.max(delayMs, MIN_ASKED_WAIT_MS);
      if (this.now() + delayMs >= deadline) {
        throw this.deadlineError(method, path, out, deadline, asked ? retryAfterMs : undefined);
      }
      this.onRetry?.({
        method,
        path,
        attempt: n,
        status,
        delayMs,
        reason: out.ok ? `HTTP ${status}` : out.reason,
      });
      try {
        await this.sleep(delayMs, this.closing.signal);
      } catch (cause) {
        throw new ApiError({ method, path, status, platformMessage: CLOSED, cause });
      }
      if (!asked) n++;
    }
  }

  /**
   * The error of a call whose next wait would pass its deadline: its last outcome, the wait the platform
   * asked for (`retryAfterMs`, when it did), and the time that was left.
   */
  private deadlineError(
    method: string,
    path: string,
    out: Outcome,
    deadline: number,
    retryAfterMs: number | undefined,
  ): ApiError {
    const last = out.ok ? this.toError(method, path, out.res) : out.error;
    const before =
      retryAfterMs === undefined
        ? "before the next attempt"
        : `before the wait the platform asked for ends (Retry-After: ${duration(retryAfterMs)})`;
    return new ApiError({
      method,
      path,
      status: last.status,
      platformMessage:
        `${last.platformMessage ?? `HTTP ${last.status}`}; not tried again: ${this.limitOf(deadline)} ` +
        `is reached in ${duration(Math.max(0, deadline - this.now()))}, ${before}`,
      ...(last.platformType === undefined ? {} : { platformType: last.platformType }),
      cause: last,
    });
  }

  /**
   * One HTTP exchange: waits for a rate-limit slot, THEN takes the headers (the token: a long wait may
   * outlive the one held before it), sends, reads the body within its route's cap, and feeds the limiter
   * (429 lowers the rate, `Retry-After` pauses the client, 2xx lets the rate recover). Bounds:
   * - time: undici's `headersTimeout` and `bodyTimeout` (the idle timeout, the client's `timeoutMs`,
   *   shortened to what is left before `deadline`), and a signal that aborts the exchange at `deadline`
   *   however the answer trickles in, or when the client is closed; a slot of the limiter that would
   *   come after `deadline` fails the call without sending it;
   * - size: the route's `maxResponseBytes` (a larger `content-length` is refused before the body is
   *   read) and the client's budget of bytes being received ({@link ClientOptions.maxBufferedBytes}),
   *   counted as the chunks arrive (transport.ts {@link readCapped}).
   * Errors of `headers` (a failed login) propagate. The body of a 2xx answer is kept as text only, for
   * {@link decode}; that of another status is parsed for the error.
   */
  private async exchange(
    method: string,
    path: string,
    body: unknown,
    deadline: number,
    headers: () => Promise<Record<string, string>>,
  ): Promise<Outcome> {
    const route = matchRoute(method, path);
    const store = route?.params.storeId ?? route?.params.store_id;
    const origin = this.addressOf(route, method, path);
    const refused = await this.awaitSlot(method, path, deadline);
    if (refused) return refused;
    const failing = this.calls.refusal();
    if (failing !== undefined) throw new PlatformFailingError(method, path, failing);
    const group = route === undefined ? undefined : routeGroup(route.name);
    const extra = await headers();
    const started = this.now();
    const left = deadline - started;
    if (left <= 0) return this.stopped(method, path, `not sent: ${this.limitOf(deadline)} is reached`);
    // The idle timeout, unless the deadline comes first: then undici's timers are set past it, so that
    // the deadline's own timer ends the call and the error says which limit was reached.
    const timeoutMs = this.timeoutMs < left ? this.timeoutMs : Math.ceil(left) + 1000;
    const cap = route ? routeMaxResponseBytes(route.name) : DEFAULT_ANSWER_BYTES;
    // The exchange ends at the deadline, or when the client is closed; the controller is the call's own
    // (a signal combined with one that lives as long as the client would be kept by it).
    // A plain timer, not `AbortSignal.timeout` combined with `AbortSignal.any`: Node may collect such
    // a combined signal's sources while the request still waits on it, and then the deadline never fires.
    const ended = new AbortController();
    const onClose = () => ended.abort(this.closing.signal.reason);
    this.closing.signal.addEventListener("abort", onClose, { once: true });
    const timer = setTimeout(
      () => ended.abort(new Error("the call's deadline is reached")),
      Math.min(Math.ceil(left), MAX_TIMER_MS),
    );
    const signal = ended.signal;
    let phase: "headers" | "body" = "headers";
    let status: number;
    let resHeaders: RawResponse["headers"];
    let chunks: readonly Uint8Array[];
    try {
      const res = await request(origin + path, {
        method: method as Dispatcher.HttpMethod,
        dispatcher: this.dispatcher,
        headers: {
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...extra,
        },
        // A body already written as JSON (an apply's calls, ./json-body.ts) is sent as it is.
        body: body === undefined ? undefined : body instanceof JsonBytes ? body.bytes : JSON.stringify(body),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal,
      });
      phase = "body";
      status = res.statusCode;
      resHeaders = res.headers;
      const declared = Number(res.headers["content-length"]);
      const read =
        declared > cap
          ? ({ ok: false, over: "route", received: 0 } as const)
          : await readCapped(res.body, cap, this.buffered);
      if (!read.ok) {
        res.body.destroy();
        const answer = `the answer${store === undefined ? "" : ` for store ${store}`} (HTTP ${status})`;
        const message =
          read.over === "route"
            ? `${answer} is larger than ${formatBytes(cap)}, the most carte reads from ` +
              `${route?.name ?? `${method} ${path}`} (docs/platform-api.md "Bounds of an answer"); ` +
              `reading stopped after ${formatBytes(read.received)}`
            : `the answers being received at once hold more than ${formatBytes(this.buffered.limit)}; ` +
              `reading ${answer} stopped after ${formatBytes(read.received)} ` +
              `(fewer calls at once: --parallelism)`;
        // A 2xx answer cut off leaves open what the call did, as a lost answer does (status 0): the
        // executor then settles a write by its effect (src/apply/execute.ts).
        this.calls.record(group, status);
        return this.stopped(method, path, message, status >= 200 && status <= 299 ? 0 : status);
      }
      chunks = read.chunks;
    } catch (cause) {
      if (signal.aborted) {
        const why = this.closing.signal.aborted ? CLOSED : `${this.limitOf(deadline)} is reached`;
        return this.stopped(
          method,
          path,
          `${why} while waiting for the response ${phase} (after ${duration(this.now() - started)})`,
          0,
          cause,
        );
      }
      this.calls.record(group, 0);
      return this.transportFailure(method, path, cause, timeoutMs);
    } finally {
      clearTimeout(timer);
      this.closing.signal.removeEventListener("abort", onClose);
    }
    const res = received(status, resHeaders, chunks);
    if (status < 200 || status > 299) res.body = parseLoosely(res.text);
    this.calls.record(group, status);
    this.heedAnswer(method, path, status, resHeaders);
    return { ok: true, res };
  }

  /**
   * The base address a call goes to: that of the API group of its route (a login: the auth group's).
   * A path of no route goes to the one address when every group shares it.
   * @throws InternalError for a path of no route when the groups have addresses of their own (a bug of
   *   the caller: carte cannot tell which group it belongs to).
   */
  private addressOf(route: PathMatch<RouteName> | undefined, method: string, path: string): string {
    if (route !== undefined) return this.hosts[routeGroup(route.name)];
    const first = this.hosts[API_GROUPS[0]];
    if (API_GROUPS.every((g) => this.hosts[g] === first)) return first;
    throw new InternalError(
      `no route of the platform API (src/platform/routes.ts) matches ${method} ${path}: its group, and so its address, is unknown`,
    );
  }

  /**
   * Waits for a slot of the rate limiter, up to the deadline. `undefined` when the call may go; else
   * the outcome that ends it unsent: the client is closed, or the deadline comes first.
   */
  private async awaitSlot(method: string, path: string, deadline: number): Promise<Outcome | undefined> {
    if (this.closing.signal.aborted) return this.stopped(method, path, `not sent: ${CLOSED}`);
    if (deadline <= this.now()) {
      return this.stopped(method, path, `not sent: ${this.limitOf(deadline)} is reached`);
    }
    let slot: boolean;
    try {
      slot = await this.rateLimiter.acquire(deadline, this.closing.signal);
    } catch (cause) {
      return this.stopped(method, path, `not sent: ${CLOSED}`, 0, cause);
    }
    if (!slot) {
      const pause = this.rateLimiter.pauseAt();
      return this.stopped(
        method,
        path,
        `not sent: ${this.limitOf(deadline)} is reached in ${duration(Math.max(0, deadline - this.now()))}, ` +
          `before ${pause ? `the client may send again (${pause.reason})` : "the rate limit lets the call go"}`,
      );
    }
    return undefined;
  }

  /**
   * What an answer tells the rate limiter: a 429 slows it down, a 429 or 503 with `Retry-After` pauses
   * every call for that long (at most `maxRetryAfterMs`), a success lets it speed up again.
   */
  private heedAnswer(method: string, path: string, status: number, headers: RawResponse["headers"]): void {
    if (status === 429) this.rateLimiter.onThrottled();
    if (status === 429 || status === 503) {
      const wait = parseRetryAfter(headers["retry-after"], this.now());
      if (wait !== undefined) {
        this.rateLimiter.pauseFor(
          Math.min(wait, this.retryPolicy.maxRetryAfterMs),
          `${method} ${path} was answered ${status} with Retry-After: ${duration(wait)}`,
        );
      }
    } else if (status >= 200 && status <= 299) {
      this.rateLimiter.onSuccess();
    }
  }

  /** An outcome that ends the call at once (not retried): its reason, redacted, as an {@link ApiError}. */
  private stopped(method: string, path: string, message: string, status = 0, cause?: unknown): Outcome {
    const reason = redact(message, [...this.secrets]);
    return {
      ok: false,
      error: new ApiError({ method, path, status, platformMessage: reason, cause }),
      retryable: () => false,
      reason,
    };
  }

  /** Turns an error of undici or the network into an outcome with a clear, secret-free message. */
  private transportFailure(method: string, path: string, cause: unknown, timeoutMs: number): Outcome {
    const kind = classifyTransportError(cause);
    let reason: string;
    if (kind.timeout) {
      reason =
        `timed out after ${timeoutMs} ms waiting for the response ` +
        (kind.code === "UND_ERR_BODY_TIMEOUT" ? "body" : "headers");
    } else {
      const msg = cause instanceof Error ? cause.message : String(cause);
      reason = kind.code && !msg.includes(kind.code) ? `${kind.code}: ${msg}` : msg;
    }
    reason = redact(reason, [...this.secrets]);
    return {
      ok: false,
      error: new ApiError({ method, path, status: 0, platformMessage: reason, cause }),
      retryable: (idempotent) => isRetryableTransportError(kind, idempotent),
      reason: kind.timeout ? `timed out after ${timeoutMs} ms` : (kind.code ?? "network error"),
    };
  }

  private toError(method: string, path: string, res: RawResponse, earlierAnswerLost = false): ApiError {
    const { message, type } = platformMessage(res.body);
    return new ApiError({
      method,
      path,
      status: res.status,
      platformMessage: message === undefined ? undefined : redact(message, [...this.secrets]),
      platformType: type,
      ...(earlierAnswerLost ? { earlierAnswerLost } : {}),
    });
  }

  /** Returns a valid token of the surface, logging in when none is cached or it is about to expire. */
  async token(surface: TokenSurface): Promise<string> {
    for (let cached = this.tokens.get(surface); cached; cached = this.tokens.get(surface)) {
      try {
        const t = await cached;
        if (this.now() < t.renewAt) return t.value;
      } catch {
        // A failed login is not cached: fall through and try again.
      }
      // While this call waited, another may have started the next login: share it rather than log in
      // once more.
      if (this.tokens.get(surface) === cached) {
        this.tokens.delete(surface);
        break;
      }
    }
    const pending = this.login(surface);
    this.tokens.set(surface, pending);
    pending.catch(() => {
      if (this.tokens.get(surface) === pending) this.tokens.delete(surface);
    });
    return (await pending).value;
  }

  /**
   * Forgets the token `value` of the surface after a 401, unless a concurrent call has already replaced
   * it (then that newer token is kept: many calls refused at once trigger one login, not many).
   */
  private async dropToken(surface: TokenSurface, value: string): Promise<void> {
    const cached = this.tokens.get(surface);
    if (!cached) return;
    const t = await cached.catch(() => undefined);
    if (this.tokens.get(surface) === cached && (t === undefined || t.value === value)) {
      this.tokens.delete(surface);
    }
  }

  /**
   * Logs in (docs/platform-api.md §2.1). Retried as an idempotent call: a login has no effect beyond issuing
   * a token.
   */
  private async login(surface: TokenSurface): Promise<CachedToken> {
    const route = LOGIN_ROUTES[surface];
    const path = routePath(route);
    const creds = { client_id: this.clientId, client_secret: this.clientSecret };
    const res = await this.withRetries("POST", path, true, (deadline) =>
      this.exchange("POST", path, creds, deadline, async () => ({})),
    );
    if (res.status < 200 || res.status > 299) throw this.toError("POST", path, res);
    // The route is marked `secret`: a malformed answer is described without quoting it.
    const body = this.decode<TokenResponse>(answerOf("POST", path, res, route, undefined));
    this.secrets.add(body.access_token);
    const lifetimeMs = body.expires_in * 1000;
    // Renew shortly before expiry; for very short-lived tokens, at half their life.
    const margin = Math.min(this.renewBeforeMs, lifetimeMs / 2);
    return { value: body.access_token, renewAt: this.now() + lifetimeMs - margin };
  }

  // ---------------------------------------------------------------- store menu API
  // (docs/platform-api.md §2.4)

  /**
   * `GET /store-menu`: the complete catalog of a store (docs/platform-api.md §4.3 StoreMenu); how carte reads
   * a store.
   */
  getStoreMenu(storeId: string): Promise<WireStoreMenu> {
    return this.request("GET /restaurants/menu/v1/stores/{storeId}/store-menu", { storeId });
  }
}

/** A duration for a message: `250 ms`, `17 s`, `99999999 s`. */
function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)} s`;
}

/**
 * A response as received, its text decoded from its chunks each time it is read (once, by
 * {@link PlatformClient.decode}, for a 2xx answer). Decoded late and not kept: a store menu (hundreds of
 * KB) waits for its store's other reads as bytes outside the JavaScript heap, and its text, made right
 * before it is parsed, dies with the parse. The promises and async frames that carried the answer were
 * made when the read was queued and live in the old generation by then; a text they held would be
 * moved there too, and freed only by a full collection.
 */
function received(
  status: number,
  headers: RawResponse["headers"],
  chunks: readonly Uint8Array[],
): RawResponse {
  return {
    status,
    headers,
    body: undefined,
    get text() {
      return bodyText(chunks);
    },
  };
}

/** A 2xx answer of {@link PlatformClient.send} or a login as a {@link RawAnswer}. */
function answerOf(
  method: string,
  path: string,
  res: RawResponse,
  route: RouteName | undefined,
  storeId: string | undefined,
): RawAnswer {
  const type = res.headers["content-type"];
  return {
    route,
    method,
    path,
    storeId,
    status: res.status,
    contentType: Array.isArray(type) ? type[0] : type,
    // Decoded when read ({@link received}).
    get text() {
      return res.text;
    },
  };
}

/** A body as JSON when it parses, else its text; undefined when empty (error bodies, {@link PlatformClient.raw}). */
function parseLoosely(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Whether a `content-type` is JSON: `application/json` or a `+json` type, parameters aside (RFC 8259 §11, RFC 6839 §3.1). */
function isJsonType(contentType: string): boolean {
  return /^\s*application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i.test(contentType);
}

/** Characters of a body quoted in a message about it at most. */
const EXCERPT_CHARS = 60;

/** The start of a body as a JSON string (escaped, one line), cut at {@link EXCERPT_CHARS}, with its length. */
function excerpt(text: string): string {
  const cut = text.length > EXCERPT_CHARS;
  return `${JSON.stringify(text.slice(0, EXCERPT_CHARS))}${cut ? "…" : ""} (${text.length} characters)`;
}

/**
 * Why a body is not JSON, in carte's words (the parser's own message may quote the body and varies
 * with Node's version): where it stops, from the position the parser reports.
 */
function jsonFault(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : "";
  const at = /at position (\d+)/.exec(message);
  const position = at ? Number(at[1]) : undefined;
  if (/end of JSON input/i.test(message) || (position !== undefined && position >= text.length)) {
    return "it is cut short, ending inside its JSON value";
  }
  return position === undefined
    ? "it is not valid JSON"
    : `it is not valid JSON from character ${position + 1}`;
}

/** `?k=v&…` of {@link CallOptions.query}, or "" when there is none. */
function queryString(query: CallOptions["query"]): string {
  if (!query) return "";
  const parts = Object.entries(query).flatMap(([k, v]) =>
    v === undefined ? [] : [`${k}=${encodeURIComponent(String(v))}`],
  );
  return parts.length === 0 ? "" : `?${parts.join("&")}`;
}

/**
 * Extracts the platform's message and type from an error body: `{message}`, `{type, message}` or
 * `[{message}]` (docs/platform-api.md §4.10).
 */
export function platformMessage(body: unknown): { message?: string; type?: string } {
  if (Array.isArray(body)) {
    const msgs = body
      .map((e) =>
        e && typeof e === "object" && "message" in e ? String((e as { message: unknown }).message) : "",
      )
      .filter(Boolean);
    return msgs.length ? { message: msgs.join("; ") } : {};
  }
  if (body && typeof body === "object") {
    const o = body as { message?: unknown; type?: unknown };
    return {
      ...(o.message === undefined ? {} : { message: String(o.message) }),
      ...(o.type === undefined ? {} : { type: String(o.type) }),
    };
  }
  if (typeof body === "string" && body.length > 0) return { message: body.slice(0, 500) };
  return {};
}
