/**
 * Small HTTP vocabulary shared by the emulator's route modules: replies, errors and the route table
 * entry. Kept free of node:http so that route handlers stay plain synchronous functions.
 */

import type { PlatformSchemaName } from "../generated/platform.js";
import { ACCEPTED_MESSAGE } from "../platform/wire.js";
import type { EmulatorState } from "./state.js";

/**
 * Which token a route requires (platform notes, "Authentication"): tokens are per surface; a utils
 * token (`/token/login/utils`) is refused by the integrations endpoints and vice versa. `none`: no token.
 */
export type Surface = "integrations" | "utils" | "none";

/** What a handler answers. `json` is a pre-serialized body (render cache) and wins over `body`. */
export interface Reply {
  status: number;
  body?: unknown;
  json?: string;
  headers?: Record<string, string>;
}

/** A failed call: thrown by handlers, turned into `status` + JSON `body` by the server. */
export class HttpError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    const msg =
      typeof body === "object" && body !== null && "message" in body
        ? String(body.message)
        : `HTTP ${status}`;
    super(msg);
    this.name = "HttpError";
    this.status = status;
    this.body = body;
  }
}

/** What a handler receives. `clientId` is the authenticated client ("" on unauthenticated routes). */
export interface RouteContext {
  state: EmulatorState;
  clientId: string;
  params: Record<string, string>;
  body: unknown;
  query: URLSearchParams;
}

/** One entry of the route table. `path` uses `:name` segments for path parameters. */
export interface Route {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  surface: Surface;
  handle(ctx: RouteContext): Reply;
  /**
   * The definition of schemas/platform/ the body must match. server.ts checks it after the token and
   * before {@link Route.handle}, and answers a mismatch with {@link Route.invalidRequest} (default 400
   * `{message}`). Absent: the route takes no body, or checks it itself.
   */
  requestSchema?: PlatformSchemaName;
  /** How validation messages name the body (validate.ts): `{noun: "items", root: "items"}`. */
  requestNames?: { noun?: string; root?: string };
  /** The group's answer to a body that does not match `requestSchema`; default 400 `{message}`. */
  invalidRequest?: (message: string) => HttpError;
  /** Headers added to every answer of the route, errors included (e.g. the utils deprecation headers). */
  headers?: Readonly<Record<string, string>>;
}

/** A route as listed by `listRoutes()`: what the table serves, without the handler. */
export interface RouteInfo {
  method: Route["method"];
  path: string;
  surface: Surface;
  requestSchema?: PlatformSchemaName;
}

/** The usual error body `{message}` (spec §7, platform notes "Errors"). */
export function fail(status: number, message: string): HttpError {
  return new HttpError(status, { message });
}

/** A malformed body: 400 `{message}` naming what and where. */
export function badShape(message: string): HttpError {
  return fail(400, message);
}

/** A menu validation failure: 400 `{type, message}` (platform notes, "Errors"). */
export function menuRule(type: string, message: string): HttpError {
  return new HttpError(400, { type, message });
}

/**
 * Accepted asynchronous write: 200 `{"message": "Your request has been accepted."}` (platform notes,
 * "Errors"; the availability guide also says 202, the emulator serves 200).
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
