/**
 * Typed client of the platform API on undici: token login and caching, one {@link ApiError} for every
 * failure, keep-alive connections. One file per API group would follow as the client grows; this file
 * holds the transport and the groups carte uses today (token login, store menu, availability v2).
 *
 * Sources: platform-spec.md §4.1 (token login), §4.3 (availability v2), §4.4 (store menu API),
 * §5 (authentication: `x-authorization` header), §7 (errors); platform-notes.md "Authentication"
 * (renew before expiry and once on 401), "Errors", "Store menu API".
 */

import { Agent, request, type Dispatcher } from "undici";
import { ApiError, redact } from "../errors.js";
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

/** The two token surfaces of spec §4.1: utils tokens serve `/api/rest-ops-utils`, integrations the rest. */
export type Surface = "integrations" | "utils";

/** Options of {@link PlatformClient}. */
export interface ClientOptions {
  /** Base address of the platform, without a trailing slash, e.g. `https://example.test`. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Per-request timeout in milliseconds (headers and body). Default 30 000. */
  timeoutMs?: number;
  /** Renew a token this many seconds before it expires. Default 300. */
  renewBeforeSeconds?: number;
  /** Injectable undici dispatcher (tests, proxies). Default: a keep-alive Agent owned by the client. */
  dispatcher?: Dispatcher;
  /** Clock in milliseconds, injectable for tests. Default `Date.now`. */
  now?: () => number;
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

/**
 * A client of the platform API. Safe to share across concurrent calls: token logins are
 * de-duplicated per surface.
 */
export class PlatformClient {
  readonly baseUrl: string;
  private readonly clientId: string;
  private readonly clientSecret: string;
  private readonly timeoutMs: number;
  private readonly renewBeforeMs: number;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly now: () => number;
  private readonly tokens = new Map<Surface, Promise<CachedToken>>();

  constructor(opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.clientId = opts.clientId;
    this.clientSecret = opts.clientSecret;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.renewBeforeMs = (opts.renewBeforeSeconds ?? 300) * 1000;
    this.now = opts.now ?? Date.now;
    this.ownsDispatcher = opts.dispatcher === undefined;
    this.dispatcher =
      opts.dispatcher ??
      new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 16 });
  }

  /** Closes the client's own connections. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  // ---------------------------------------------------------------- transport

  /**
   * Sends one request and returns the parsed response, whatever its status. Throws {@link ApiError}
   * with status 0 when no response arrives (connection refused or reset, timeout).
   */
  async raw(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<RawResponse> {
    let res: Dispatcher.ResponseData;
    try {
      res = await request(this.baseUrl + path, {
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
    } catch (cause) {
      throw new ApiError({
        method,
        path,
        status: 0,
        platformMessage: redact(cause instanceof Error ? cause.message : String(cause), [this.clientSecret]),
        cause,
      });
    }
    const text = await res.body.text();
    let parsed: unknown = text;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    } else {
      parsed = undefined;
    }
    return { status: res.statusCode, headers: res.headers, body: parsed };
  }

  /**
   * Calls a protected endpoint with the token of its surface and returns the body of a 2xx answer.
   * On 401 the token is renewed once and the call repeated. Throws {@link ApiError} otherwise.
   */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const surface: Surface = path.startsWith("/api/rest-ops-utils") ? "utils" : "integrations";
    let token = await this.token(surface);
    let res = await this.raw(method, path, body, { "x-authorization": `Bearer ${token}` });
    if (res.status === 401) {
      this.tokens.delete(surface);
      token = await this.token(surface);
      res = await this.raw(method, path, body, { "x-authorization": `Bearer ${token}` });
    }
    if (res.status < 200 || res.status > 299) throw this.toError(method, path, res);
    return res.body as T;
  }

  private toError(method: string, path: string, res: RawResponse): ApiError {
    const { message, type } = platformMessage(res.body);
    return new ApiError({
      method,
      path,
      status: res.status,
      platformMessage: message === undefined ? undefined : redact(message, [this.clientSecret]),
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

  private async login(surface: Surface): Promise<CachedToken> {
    const path = `${Paths.auth}/token/login/${surface}`;
    const res = await this.raw("POST", path, { client_id: this.clientId, client_secret: this.clientSecret });
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
    return this.call("POST", this.menuPath(storeId, "/menu"), menus);
  }
  /** `DELETE /menu` with a bare array of menu ids. Asynchronous. */
  deleteMenus(storeId: string, ids: number[]): Promise<unknown> {
    return this.call("DELETE", this.menuPath(storeId, "/menu"), ids);
  }
  /** `GET /categories`. */
  getCategories(storeId: string): Promise<WireCategory[]> {
    return this.call("GET", this.menuPath(storeId, "/categories"));
  }
  /** `POST /categories`: upsert by id, else by SKU. Asynchronous. */
  postCategories(storeId: string, categories: WireCategory[]): Promise<unknown> {
    return this.call("POST", this.menuPath(storeId, "/categories"), categories);
  }
  /** `DELETE /categories` with `{ids}` (platform notes: an object, unlike the other deletes). */
  deleteCategories(storeId: string, ids: number[]): Promise<unknown> {
    return this.call("DELETE", this.menuPath(storeId, "/categories"), { ids });
  }
  /** `GET /items`. */
  getItems(storeId: string): Promise<WireItem[]> {
    return this.call("GET", this.menuPath(storeId, "/items"));
  }
  /** `POST /items`: upsert by id, else by SKU. Asynchronous. */
  postItems(storeId: string, items: WireItem[]): Promise<unknown> {
    return this.call("POST", this.menuPath(storeId, "/items"), items);
  }
  /** `DELETE /items` with a bare array of item ids. Asynchronous. */
  deleteItems(storeId: string, ids: number[]): Promise<unknown> {
    return this.call("DELETE", this.menuPath(storeId, "/items"), ids);
  }

  // ---------------------------------------------------------------- availability v2 (spec §4.3)

  /** `POST /availability/items/status`: stock state of items by merchant SKU. */
  itemStatusBySku(storeId: string, skus: string[]): Promise<ItemStatus[]> {
    return this.call("POST", `${Paths.availabilityV2}/availability/items/status`, {
      store_id: storeId,
      item_ids: skus,
    });
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
