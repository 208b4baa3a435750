/**
 * Typed client of the platform API on undici: token login and caching, one {@link ApiError} for every
 * failure, keep-alive connections, and a resilient transport (transport.ts): retries with exponential
 * backoff and full jitter where a call is idempotent or provably never happened, `Retry-After`, an
 * adaptive (AIMD) client-side rate limit, and per-request timeouts. One file per API group would follow
 * as the client grows; this file holds the transport and the groups carte uses today (token login, store
 * menu, availability v2).
 *
 * Sources: platform-spec.md §4.1 (token login), §4.3 (availability v2), §4.4 (store menu API),
 * §5 (authentication: `x-authorization` header), §7 (errors); platform-notes.md "Authentication"
 * (renew before expiry and once on 401), "Errors", "Limits" (429 exists; keep a success rate of at
 * least 98 %), "Store menu API" (POST upserts by id, else by SKU).
 */

import { Agent, request, type Dispatcher } from "undici";
import { ApiError, redact } from "../errors.js";
import {
  AdaptiveRateLimiter,
  DEFAULT_RETRY_POLICY,
  classifyTransportError,
  isIdempotentMethod,
  isRetryableStatus,
  isRetryableTransportError,
  parseRetryAfter,
  realSleep,
  retryDelay,
  type RetryInfo,
  type RetryPolicy,
  type Sleep,
} from "./transport.js";
import {
  Paths,
  type ItemStatus,
  type StoreItemsToggle,
  type TokenResponse,
  type WireCategory,
  type WireItem,
  type WireMenu,
  type WireStoreMenu,
} from "./wire.js";

export type { RetryInfo } from "./transport.js";

/** The two token surfaces of spec §4.1: utils tokens serve `/api/rest-ops-utils`, integrations the rest. */
export type Surface = "integrations" | "utils";

/** Options of {@link PlatformClient}. Durations in milliseconds unless the name says seconds. */
export interface ClientOptions {
  /** Base address of the platform, without a trailing slash, e.g. `https://example.test`. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /**
   * Per-attempt timeout in ms: undici's `headersTimeout` (until the response headers arrive) and
   * `bodyTimeout` (the longest silence while the body streams in). An idempotent call that times out is
   * retried; any other fails with an {@link ApiError} of status 0, "timed out after N ms". undici checks
   * these on a coarse clock (`setFastTimeout`, about 1 s resolution), so they fire up to ~1 s late.
   * Default 30 000.
   */
  timeoutMs?: number;
  /** Renew a token this many seconds before it expires. Default 300 (platform notes "Authentication"). */
  renewBeforeSeconds?: number;
  /** Injectable undici dispatcher (tests, proxies). Default: a keep-alive Agent owned by the client. */
  dispatcher?: Dispatcher;
  /**
   * Clock in epoch milliseconds, injectable for tests. Drives token expiry, `Retry-After` dates and the
   * rate limiter's schedule (a frozen clock therefore also freezes the limiter). Default `Date.now`.
   */
  now?: () => number;
  /** Attempts per call, the first included. Default 5. 1 turns retries off. */
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
}

/** Per-call options of {@link PlatformClient.call}. */
export interface CallOptions {
  /**
   * Whether sending the call twice has the same effect as sending it once. Idempotent calls are retried
   * after 5xx, 429, resets and timeouts; the others only after a failure that proves the platform did
   * nothing (connection refused, name not resolved, 429, 503). Default: by method (GET, HEAD, OPTIONS,
   * PUT, DELETE are; POST and PATCH are not). Mark POST upserts keyed by id or SKU as idempotent.
   */
  idempotent?: boolean;
}

interface CachedToken {
  value: string;
  /** Epoch milliseconds after which the token must be renewed. */
  renewAt: number;
}

/** A completed HTTP exchange. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
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
  readonly baseUrl: string;
  /** The client's adaptive rate limiter (its current `rate` is useful in progress output and tests). */
  readonly rateLimiter: AdaptiveRateLimiter;
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
  private readonly tokens = new Map<Surface, Promise<CachedToken>>();
  /** Values never to show in an error: the client secret and every token issued to this client. */
  private readonly secrets = new Set<string>();

  constructor(opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.clientId = opts.clientId;
    this.clientSecret = opts.clientSecret;
    this.secrets.add(opts.clientSecret);
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.renewBeforeMs = (opts.renewBeforeSeconds ?? 300) * 1000;
    this.now = opts.now ?? Date.now;
    this.ownsDispatcher = opts.dispatcher === undefined;
    this.dispatcher =
      opts.dispatcher ??
      new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 16 });
    this.retryPolicy = {
      maxAttempts: Math.max(1, Math.floor(opts.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts)),
      baseDelayMs: opts.baseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
      maxDelayMs: opts.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
      maxRetryAfterMs: opts.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
    };
    this.onRetry = opts.onRetry;
    this.random = opts.random ?? Math.random;
    this.sleep = opts.sleep ?? realSleep;
    this.rateLimiter = new AdaptiveRateLimiter({
      requestsPerSecond: opts.requestsPerSecond ?? 20,
      ...(opts.minRequestsPerSecond === undefined ? {} : { minRequestsPerSecond: opts.minRequestsPerSecond }),
      now: this.now,
      sleep: this.sleep,
    });
  }

  /** Closes the client's own connections. */
  async close(): Promise<void> {
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
    const out = await this.exchange(method, path, body, headers);
    if (!out.ok) throw out.error;
    return out.res;
  }

  /**
   * Calls a protected endpoint with the token of its surface and returns the body of a 2xx answer.
   *
   * Retries (see {@link CallOptions.idempotent}) with exponential backoff and full jitter, or after the
   * server's `Retry-After` on 429 and 503, up to `maxAttempts` attempts in all. On 401 the token is
   * renewed and the call repeated, once per call whatever the number of attempts. Throws
   * {@link ApiError} otherwise: for a status, the last one the platform answered; status 0 when no
   * response arrived.
   */
  async call<T>(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<T> {
    const idempotent = options.idempotent ?? isIdempotentMethod(method);
    const surface: Surface = path.startsWith("/api/rest-ops-utils") ? "utils" : "integrations";
    let renewed = false;
    const res = await this.withRetries(method, path, idempotent, async () => {
      let token = await this.token(surface);
      let out = await this.exchange(method, path, body, { "x-authorization": `Bearer ${token}` });
      if (out.ok && out.res.status === 401 && !renewed) {
        // Platform notes "Authentication": renew once on a 401 (the token may have been revoked or
        // expired early). A second 401 is final.
        renewed = true;
        await this.dropToken(surface, token);
        token = await this.token(surface);
        out = await this.exchange(method, path, body, { "x-authorization": `Bearer ${token}` });
      }
      return out;
    });
    if (res.status < 200 || res.status > 299) throw this.toError(method, path, res);
    return res.body as T;
  }

  /**
   * Runs `attempt` until it yields a final outcome or `maxAttempts` is reached. Returns the last
   * response (of any status); throws the last transport error. Errors thrown by `attempt` itself (a
   * failed token login, which has its own retries) end the call at once.
   */
  private async withRetries(
    method: string,
    path: string,
    idempotent: boolean,
    attempt: () => Promise<Outcome>,
  ): Promise<RawResponse> {
    for (let n = 1; ; n++) {
      const out = await attempt();
      let status = 0;
      let retryAfterMs: number | undefined;
      if (out.ok) {
        status = out.res.status;
        if (!isRetryableStatus(status, idempotent)) return out.res;
        retryAfterMs = parseRetryAfter(out.res.headers["retry-after"], this.now());
      } else if (!out.retryable(idempotent)) {
        throw out.error;
      }
      if (n >= this.retryPolicy.maxAttempts) {
        if (out.ok) return out.res;
        throw out.error;
      }
      const delayMs = retryDelay(n, status, retryAfterMs, this.retryPolicy, this.random);
      this.onRetry?.({
        method,
        path,
        attempt: n,
        status,
        delayMs,
        reason: out.ok ? `HTTP ${status}` : out.reason,
      });
      await this.sleep(delayMs);
    }
  }

  /**
   * One HTTP exchange: waits for a rate-limit slot, sends, reads the whole body, and feeds the
   * limiter (429 lowers the rate, `Retry-After` pauses the client, 2xx lets the rate recover).
   */
  private async exchange(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<Outcome> {
    await this.rateLimiter.acquire();
    let status: number;
    let resHeaders: RawResponse["headers"];
    let text: string;
    try {
      const res = await request(this.baseUrl + path, {
        method: method as Dispatcher.HttpMethod,
        dispatcher: this.dispatcher,
        headers: {
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      status = res.statusCode;
      resHeaders = res.headers;
      text = await res.body.text();
    } catch (cause) {
      return this.transportFailure(method, path, cause);
    }
    let parsed: unknown = undefined;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (status === 429) this.rateLimiter.onThrottled();
    if (status === 429 || status === 503) {
      const wait = parseRetryAfter(resHeaders["retry-after"], this.now());
      if (wait !== undefined) this.rateLimiter.pauseFor(Math.min(wait, this.retryPolicy.maxRetryAfterMs));
    } else if (status >= 200 && status <= 299) {
      this.rateLimiter.onSuccess();
    }
    return { ok: true, res: { status, headers: resHeaders, body: parsed } };
  }

  /** Turns an error of undici or the network into an outcome with a clear, secret-free message. */
  private transportFailure(method: string, path: string, cause: unknown): Outcome {
    const kind = classifyTransportError(cause);
    let reason: string;
    if (kind.timeout) {
      reason =
        `timed out after ${this.timeoutMs} ms waiting for the response ` +
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
      reason: kind.timeout ? `timed out after ${this.timeoutMs} ms` : (kind.code ?? "network error"),
    };
  }

  private toError(method: string, path: string, res: RawResponse): ApiError {
    const { message, type } = platformMessage(res.body);
    return new ApiError({
      method,
      path,
      status: res.status,
      platformMessage: message === undefined ? undefined : redact(message, [...this.secrets]),
      platformType: type,
    });
  }

  /** Returns a valid token of the surface, logging in when none is cached or it is about to expire. */
  async token(surface: Surface): Promise<string> {
    const cached = this.tokens.get(surface);
    if (cached) {
      try {
        const t = await cached;
        if (this.now() < t.renewAt) return t.value;
      } catch {
        // A failed login is not cached: fall through and try again.
      }
      if (this.tokens.get(surface) === cached) this.tokens.delete(surface);
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
  private async dropToken(surface: Surface, value: string): Promise<void> {
    const cached = this.tokens.get(surface);
    if (!cached) return;
    const t = await cached.catch(() => undefined);
    if (this.tokens.get(surface) === cached && (t === undefined || t.value === value)) {
      this.tokens.delete(surface);
    }
  }

  /** Logs in (spec §4.1). Retried as an idempotent call: a login has no effect beyond issuing a token. */
  private async login(surface: Surface): Promise<CachedToken> {
    const path = `${Paths.auth}/token/login/${surface}`;
    const creds = { client_id: this.clientId, client_secret: this.clientSecret };
    const res = await this.withRetries("POST", path, true, () => this.exchange("POST", path, creds, {}));
    if (res.status < 200 || res.status > 299) throw this.toError("POST", path, res);
    const body = res.body as Partial<TokenResponse> | undefined;
    if (!body || typeof body.access_token !== "string" || typeof body.expires_in !== "number") {
      throw new ApiError({
        method: "POST",
        path,
        status: res.status,
        platformMessage: "malformed token response",
      });
    }
    this.secrets.add(body.access_token);
    const lifetimeMs = body.expires_in * 1000;
    // Renew shortly before expiry; for very short-lived tokens, at half their life.
    const margin = Math.min(this.renewBeforeMs, lifetimeMs / 2);
    return { value: body.access_token, renewAt: this.now() + lifetimeMs - margin };
  }

  // ---------------------------------------------------------------- store menu API (spec §4.4)

  private menuPath(storeId: string, rest: string): string {
    return `${Paths.menu}/${encodeURIComponent(storeId)}${rest}`;
  }

  /** `GET /store-menu`: the complete catalog of a store (spec §2.2 StoreMenu). */
  getStoreMenu(storeId: string): Promise<WireStoreMenu> {
    return this.call("GET", this.menuPath(storeId, "/store-menu"));
  }
  /** `GET /menu`: the store's menus in the `/menu` form (`store_id`). */
  getMenus(storeId: string): Promise<WireMenu[]> {
    return this.call("GET", this.menuPath(storeId, "/menu"));
  }
  /** `POST /menu`: upsert menus (no id = create). Asynchronous: answers the accepted message. */
  postMenus(storeId: string, menus: WireMenu[]): Promise<unknown> {
    // Idempotent only when every menu names its id: a menu without one is created anew on each send.
    return this.call("POST", this.menuPath(storeId, "/menu"), menus, {
      idempotent: menus.every((m) => m.id !== undefined),
    });
  }
  /** `DELETE /menu` with a bare array of menu ids. Asynchronous. */
  deleteMenus(storeId: string, ids: number[]): Promise<unknown> {
    return this.call("DELETE", this.menuPath(storeId, "/menu"), ids);
  }
  /** `GET /categories`. */
  getCategories(storeId: string): Promise<WireCategory[]> {
    return this.call("GET", this.menuPath(storeId, "/categories"));
  }
  /** `POST /categories`: upsert by id, else by SKU, hence idempotent. Asynchronous. */
  postCategories(storeId: string, categories: WireCategory[]): Promise<unknown> {
    return this.call("POST", this.menuPath(storeId, "/categories"), categories, { idempotent: true });
  }
  /** `DELETE /categories` with `{ids}` (platform notes: an object, unlike the other deletes). */
  deleteCategories(storeId: string, ids: number[]): Promise<unknown> {
    return this.call("DELETE", this.menuPath(storeId, "/categories"), { ids });
  }
  /** `GET /items`. */
  getItems(storeId: string): Promise<WireItem[]> {
    return this.call("GET", this.menuPath(storeId, "/items"));
  }
  /** `POST /items`: upsert by id, else by SKU, hence idempotent. Asynchronous. */
  postItems(storeId: string, items: WireItem[]): Promise<unknown> {
    return this.call("POST", this.menuPath(storeId, "/items"), items, { idempotent: true });
  }
  /** `DELETE /items` with a bare array of item ids. Asynchronous. */
  deleteItems(storeId: string, ids: number[]): Promise<unknown> {
    return this.call("DELETE", this.menuPath(storeId, "/items"), ids);
  }

  // ---------------------------------------------------------------- availability v2 (spec §4.3)

  /** `POST /availability/items/status`: stock state of items by merchant SKU. A read, hence idempotent. */
  itemStatusBySku(storeId: string, skus: string[]): Promise<ItemStatus[]> {
    return this.call(
      "POST",
      `${Paths.availabilityV2}/availability/items/status`,
      { store_id: storeId, item_ids: skus },
      { idempotent: true },
    );
  }
  /** `PUT /availability/stores/items`: turn items on and off by SKU, at most 100 items per call in total. */
  putStoreItems(toggles: StoreItemsToggle[]): Promise<unknown> {
    return this.call("PUT", `${Paths.availabilityV2}/availability/stores/items`, toggles);
  }
}

/**
 * Extracts the platform's message and type from an error body: `{message}`, `{type, message}` or
 * `[{message}]` (spec §7, platform notes "Errors").
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
