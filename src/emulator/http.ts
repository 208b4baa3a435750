/**
 * Small HTTP vocabulary shared by the emulator's route modules: replies, errors and the route table
 * entry. Kept free of node:http so that route handlers stay plain synchronous functions.
 */

import type { PlatformSchemaName } from "../generated/platform.js";
import type { HttpMethod, RouteName, Surface } from "../platform/routes.js";
import { ACCEPTED_MESSAGE } from "../platform/wire.js";
import type { EmulatorState } from "./state.js";
import type { HttpError } from "./http-error.js";
import type { JsonParts } from "./json-parts.js";

export { HttpError, badShape, fail, menuRule } from "./http-error.js";

/** What a handler answers. `json` is a pre-serialized body (render cache) and wins over `body`. */
export interface Reply {
  status: number;
  body?: unknown;
  /**
   * The answer already serialised: JSON text, or its UTF-8 bytes (a rendered answer kept in the store's
   * render cache is written once, not at every read: a store menu is hundreds of kilobytes; server.ts
   * encodes a long text into a reused buffer as it sends it).
   */
  json?: string | Buffer | JsonParts;
  headers?: Record<string, string>;
  /**
   * `json` was checked against the route's answer in the published description when it was rendered
   * (`RouteContext.checkAnswer`), so the strict server does not parse it again.
   */
  checked?: true;
}

/** What a handler receives. `clientId` is the authenticated client ("" on unauthenticated routes). */
export interface RouteContext {
  state: EmulatorState;
  clientId: string;
  params: Record<string, string>;
  body: unknown;
  query: URLSearchParams;
  /**
   * Strict emulator only: checks a 200 answer of the route against the published description before
   * it is rendered once and cached; throws the {@link HttpError} 500 naming the route and the field
   * when it breaks it (contract.ts).
   */
  checkAnswer?: ((body: unknown) => void) | undefined;
}

/**
 * A route the emulator serves: the row of the platform's route table (src/platform/routes.ts) it
 * implements, and its handler. Method, path template, token surface and request schema are the row's:
 * server.ts checks the token of the row's `surface`, then the body against the row's `request` schema,
 * before {@link Route.handle}.
 */
export interface Route {
  /** The row of the route table, e.g. `"POST /restaurants/menu/v1/stores/{storeId}/items"`. */
  route: RouteName;
  handle(ctx: RouteContext): Reply;
  /** How validation messages name the body (request-validation.ts): `{noun: "items", root: "items"}`. */
  requestNames?: { noun?: string; root?: string };
  /** The group's answer to a body that does not match the row's `request` schema; default 400 `{message}`. */
  invalidRequest?: (message: string) => HttpError;
  /** Headers added to every answer of the route, errors included (e.g. the utils deprecation headers). */
  headers?: Readonly<Record<string, string>>;
}

/** A route as listed by `listRoutes()`: what the emulator serves, from the route table, without the handler. */
export interface RouteInfo {
  /** The row of the route table. */
  route: RouteName;
  method: HttpMethod;
  /** The path template as the spec writes it, `{name}` parameters. */
  path: string;
  surface: Surface;
  requestSchema?: PlatformSchemaName;
}

/**
 * Accepted asynchronous write: 200 `{"message": "Your request has been accepted."}`
 * (docs/platform-api.md §4.10; the availability guide also says 202, the emulator serves 200).
 */
export function accepted(): Reply {
  return { status: 200, body: { message: ACCEPTED_MESSAGE } };
}

/** A successful read. */
export function ok(body: unknown): Reply {
  return { status: 200, body };
}

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function isPosInt(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v > 0;
}
