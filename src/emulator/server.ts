/**
 * HTTP layer of the emulator on plain node:http: body reading, routing, token login and token checks,
 * request validation against schemas/platform/ (request-validation.ts), request recording, fault injection
 * (faults.ts) and dispatch of the control endpoints (control.ts). The router serves the platform's route
 * table (src/platform/routes.ts): each route module names the rows it implements, and the path
 * template, the token surface and the request schema of a route are its row's.
 *
 * Order of the checks of a platform request: injected fault (faults.ts) → malformed JSON (400) → route
 * (404 unknown path, or a route of another API group at an address that serves one group, `ServerDeps.group`;
 * 405 other method) → token (401) → body against the row's `request` schema (400, or
 * the group's shape) → the handler (the rules a schema cannot express: ownership, references, limits,
 * cross-field rules, state) → strict only: the answer against the published description (500 naming
 * route, status and field when the emulator's own answer breaks it). A strict server (the default) checks
 * the body against the published description (contract.ts), a lenient one against schemas/platform/ as
 * written (request-validation.ts).
 */

import { createHash, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { StringDecoder } from "node:string_decoder";

import {
  LOGIN_ROUTES,
  RouteMatcher,
  routeGroup,
  routeMethod,
  routePath,
  routeSpec,
  routeTemplate,
  type RouteName,
  type TokenSurface,
} from "../platform/routes.js";
import type { TokenRequest, TokenResponse } from "../platform/wire.js";
import { availabilityRoutes } from "./item-availability.js";
import { CONTROL_PREFIX, handleControl } from "./control.js";
import { TOO_MANY_REQUESTS, faultMessage, sleep } from "./faults.js";
import type { FaultDecision } from "./faults.js";
import { financeRoutes } from "./finance-data.js";
import { HttpError, badShape, fail, isObj } from "./http.js";
import type { Reply, Route, RouteContext, RouteInfo } from "./http.js";
import { JsonParts } from "./json-parts.js";
import { legacyRoutes } from "./legacy.js";
import { menuRoutes } from "./menu.js";
import type { EmulatorState } from "./state.js";
import { storeAvailabilityRoutes } from "./stores.js";
import { utilsRoutes } from "./utils.js";
import { contract } from "./contract.js";
import { checkBody, platformSchemas } from "./request-validation.js";
import { webhookRoutes } from "./webhook-config.js";
import type { RecordedRequest, ServerDeps } from "./deps.js";

export type { RecordedRequest, ServerDeps } from "./deps.js";

/** Default largest accepted request body, in bytes (64 MiB); `EmulatorOptions.maxBodyBytes` changes it. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Deepest nesting of a recorded body; deeper values are replaced by {@link TOO_DEEP}. */
export const MAX_RECORDED_DEPTH = 64;
/** What a recorded body shows in place of values nested deeper than {@link MAX_RECORDED_DEPTH}. */
export const TOO_DEEP = `[nested deeper than ${MAX_RECORDED_DEPTH} levels: not recorded]`;

/**
 * Whether a parsed JSON value nests deeper than `limit` levels (containers within containers; the
 * value itself, when an object or array, is level 1). Iterative: any depth is fine, and the walk stops
 * at the first container past the limit.
 *
 * A body nesting deeper than {@link MAX_RECORDED_DEPTH} is recorded as a copy cut there: JSON.parse
 * accepts any depth, but serializing such a body for `GET /__emulator/requests` overflowed the stack
 * (after one 100,000-deep body the control API answered 500 until it was reset). The check runs when
 * the recorded body is first read ({@link recordRequest}), not for every body received: an apply from
 * empty sends a thousand items upserts of hundreds of kilobytes that nobody reads back.
 */
function nestsDeeper(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  const stack: { value: object; depth: number }[] = [{ value, depth: 1 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    if (top.depth > limit) return true;
    const children = Array.isArray(top.value) ? (top.value as unknown[]) : Object.values(top.value);
    for (const child of children) {
      if (typeof child === "object" && child !== null) stack.push({ value: child, depth: top.depth + 1 });
    }
  }
  return false;
}

function cutCopy(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth >= MAX_RECORDED_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((v) => cutCopy(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // defineProperty: an own `__proto__` key of JSON.parse stays a key.
    Object.defineProperty(out, k, {
      value: cutCopy(v, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Prefix of the test control endpoints (control.ts); never recorded, authenticated nor faulted. */
export { CONTROL_PREFIX };

const LOGIN_INTEGRATIONS = routePath(LOGIN_ROUTES.integrations);
const LOGIN_UTILS = routePath(LOGIN_ROUTES.utils);

/**
 * Token login (docs/platform-api.md §2.1, §4.2): `{client_id, client_secret}` (an
 * `auth#TokenRequest`; missing fields: 400 by the schema) → `{access_token, token_type: "Bearer",
 * expires_in}`. Wrong credentials: 401 `{"message": "Invalid credentials"}` (some sources say 403; the
 * emulator serves 401).
 */
function login(surface: TokenSurface) {
  return (ctx: RouteContext): Reply => {
    const b = ctx.body as TokenRequest;
    const client = ctx.state.clients.get(b.client_id);
    if (!client || !client.secret.matches(b.client_secret)) throw fail(401, "Invalid credentials");
    ctx.state.clientUnlocked(client);
    const body: TokenResponse = {
      access_token: ctx.state.issueToken(client.client_id, surface),
      token_type: "Bearer",
      expires_in: ctx.state.opts.tokenTtlSeconds,
    };
    return { status: 200, body };
  };
}

const authRoutes: Route[] = [
  { route: LOGIN_ROUTES.integrations, handle: login("integrations") },
  { route: LOGIN_ROUTES.utils, handle: login("utils") },
];

/** Every platform route of the emulator (docs/platform-api.md §2), in the order of the spec's groups. */
const allRoutes: Route[] = [
  ...authRoutes,
  ...legacyRoutes,
  ...availabilityRoutes,
  ...storeAvailabilityRoutes,
  ...menuRoutes,
  ...utilsRoutes,
  ...financeRoutes,
  ...webhookRoutes,
];

const table = new RouteMatcher(allRoutes.map((r) => [r.route, r] as const));

/**
 * The platform routes the emulator serves (the control API under {@link CONTROL_PREFIX} excepted): the
 * row of the route table, its method, path template (`{name}` parameters), token surface and request
 * schema. For conformance tests and documentation.
 */
export function listRoutes(): RouteInfo[] {
  return allRoutes.map((r) => {
    const row = routeSpec(r.route);
    return {
      route: r.route,
      method: routeMethod(r.route),
      path: routeTemplate(r.route),
      surface: row.surface,
      ...(row.request ? { requestSchema: row.request } : {}),
    };
  });
}

/**
 * Compiles the validator of every route's request schema (once per process): called when a server is
 * created, so that no request pays for it. The strict server's are those of the published description
 * (contract.ts), with the checks of error answers and accepted writes; its checks of the answers of
 * reads are compiled as the routes are first answered. The lenient server's are those of
 * schemas/platform/ as written.
 */
function compileRequestSchemas(deps: ServerDeps): void {
  const strict = deps.strict !== false;
  const schemas = strict ? undefined : platformSchemas();
  for (const r of allRoutes) {
    const request = routeSpec(r.route).request;
    if (!schemas) (deps.contract ?? contract()).compileShared(r.route);
    else if (request) schemas.validator(request);
  }
}

/**
 * The 500 of a strict emulator whose answer breaks the published description: an emulator bug, named
 * by route, status and field, and logged.
 */
function brokenAnswer(deps: ServerDeps, problem: string): HttpError {
  deps.log?.(`emulator: answer breaks docs/openapi.yaml: ${problem}`);
  return fail(500, `emulator answer breaks docs/openapi.yaml: ${problem}`);
}

/**
 * A strict emulator's check of an answer of `route` against the published description: the answer
 * itself, or the 500 that names what in it breaks the description. Pre-rendered answers were checked
 * when rendered (`Reply.checked`).
 */
function checkedReply(deps: ServerDeps, name: RouteName, reply: Reply): Reply {
  if (reply.checked) return reply;
  const body =
    reply.status === 204
      ? undefined
      : reply.json !== undefined
        ? JSON.parse(
            typeof reply.json === "string"
              ? reply.json
              : reply.json instanceof JsonParts
                ? reply.json.text()
                : reply.json.toString("utf8"),
          )
        : reply.body;
  const problem = (deps.contract ?? contract()).answerProblem(name, reply.status, body);
  if (problem === undefined) return reply;
  const e = brokenAnswer(deps, problem);
  return { status: e.status, body: e.body };
}

/**
 * Checks `x-authorization: Bearer <token>` (docs/platform-api.md §4.2: a custom header, NOT `Authorization`).
 * Missing, unknown, expired or wrong-surface token: 401 `{"message": "Invalid token"}`
 * (docs/platform-api.md §4.2).
 */
function authenticate(state: EmulatorState, req: IncomingMessage, surface: TokenSurface): string {
  const header = req.headers["x-authorization"];
  const m = typeof header === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  const token = m?.[1];
  const rec = token === undefined ? undefined : state.tokens.get(token);
  if (!rec || rec.surface !== surface) throw fail(401, "Invalid token");
  if (rec.expiresAt <= Date.now()) {
    state.tokens.delete(token!);
    throw fail(401, "Invalid token");
  }
  return rec.client_id;
}

/** A body larger than the limit: the request is answered 413 and its connection closed. */
const TOO_LARGE = Symbol("too large");
/** A body cut short: the client's connection closed before the request was whole. */
const INCOMPLETE = Symbol("incomplete");

/** A request body read whole: its text (UTF-8) and its size in bytes. */
interface Body {
  text: string;
  bytes: number;
}

/**
 * Reads a request body up to `limit` bytes. A body announced (`content-length`) or found larger
 * resolves {@link TOO_LARGE} at once, the rest unread: the caller answers 413 and closes the
 * connection. Each chunk is decoded as it arrives (a character cut between two chunks is completed
 * by the next), so that a body of many chunks is never copied whole into fresh memory first.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Body | typeof TOO_LARGE> {
  const announced = Number(req.headers["content-length"]);
  if (Number.isFinite(announced) && announced > limit) return Promise.resolve(TOO_LARGE);
  return new Promise((resolve, reject) => {
    const decoder = new StringDecoder("utf8");
    let text = "";
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off("data", onData);
        req.pause();
        text = "";
        resolve(TOO_LARGE);
        return;
      }
      text += decoder.write(chunk);
    };
    req.on("data", onData);
    req.on("end", () => resolve({ text: text + decoder.end(), bytes: size }));
    req.on("error", reject);
  });
}

/**
 * Answers 413 `{message}` and closes the connection once the answer is out, so that the rest of the
 * body is never read (node would otherwise read and discard it to keep the connection alive).
 */
function sendTooLarge(res: ServerResponse, limit: number): void {
  const json = JSON.stringify({ message: `Request body too large: the limit is ${limit} bytes` });
  res.shouldKeepAlive = false;
  res.writeHead(413, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(json),
    connection: "close",
  });
  res.end(json, () => {
    // Give the client a moment to read the answer before the socket goes.
    setTimeout(() => res.socket?.destroy(), 50).unref();
  });
}

/**
 * Answers in pieces ({@link JsonParts}: the rendered catalog reads) are encoded into a buffer of
 * {@link sendBuffers} rather than into fresh memory (a store menu is hundreds of kilobytes).
 */
const REUSED_BUFFERS = 16;
/** Answers in pieces shorter than this many characters are sent as one text. */
const SHORT_ANSWER = 16 * 1024;

/**
 * Buffers the answers in pieces are encoded into, reused once their answer is out: memory the process
 * has just used again costs a fraction of fresh memory (whose pages the system must map), which made
 * the encoding of each rendered store menu cost more than its rendering.
 */
const sendBuffers: Buffer[] = [];

/**
 * The UTF-8 bytes of an answer in pieces, in a buffer of {@link sendBuffers} (or a new one, kept for
 * later when there is room): `bytes` is the answer, `giveBack` returns the buffer once it is sent.
 */
function encodeParts(json: JsonParts): { bytes: Buffer; giveBack: () => void } {
  const most = json.length * 3; // the most UTF-8 bytes a UTF-16 code unit takes
  let i = sendBuffers.findIndex((b) => b.length >= most);
  if (i < 0 && sendBuffers.length >= REUSED_BUFFERS) i = 0; // none is large enough: one is replaced
  const kept = i >= 0 ? sendBuffers.splice(i, 1)[0] : undefined;
  const buffer = kept && kept.length >= most ? kept : Buffer.allocUnsafeSlow(most);
  let size = 0;
  for (const part of json.parts) size += buffer.write(part, size, "utf8");
  let given = false;
  return {
    bytes: buffer.subarray(0, size),
    giveBack: () => {
      if (given) return;
      given = true;
      if (sendBuffers.length < REUSED_BUFFERS) sendBuffers.push(buffer);
    },
  };
}

function send(res: ServerResponse, reply: Reply): void {
  if (reply.status === 204) {
    res.writeHead(204, reply.headers);
    res.end();
    return;
  }
  const given = reply.json ?? JSON.stringify(reply.body ?? null);
  // A short answer in pieces (an empty store's menu) is sent as text: the buffers are for long ones.
  const json = given instanceof JsonParts && given.length < SHORT_ANSWER ? given.text() : given;
  const headers = (size: number) => ({
    ...reply.headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": size,
  });
  if (json instanceof JsonParts) {
    // Given back once the answer is out (`finish`) or its connection closed (`close`: nothing of it
    // is written any more).
    const { bytes, giveBack } = encodeParts(json);
    res.once("finish", giveBack);
    res.once("close", giveBack);
    res.writeHead(reply.status, headers(bytes.length));
    res.end(bytes);
    return;
  }
  res.writeHead(reply.status, headers(typeof json === "string" ? Buffer.byteLength(json) : json.length));
  res.end(json);
}

/** Header that carries the control token (`carte emulator --control-token`). */
export const CONTROL_TOKEN_HEADER = "x-emulator-control-token";

/** Whether a control request may proceed: no token is set, or it carries the token. Constant time. */
function controlAllowed(deps: ServerDeps, req: IncomingMessage): boolean {
  if (deps.controlToken === undefined) return true;
  const given = req.headers[CONTROL_TOKEN_HEADER];
  if (typeof given !== "string") return false;
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(given), digest(deps.controlToken));
}

/** Rate-limit identity of a caller (faults.ts): its token, else its address. */
function callerKey(req: IncomingMessage): string {
  const h = req.headers["x-authorization"];
  return typeof h === "string" ? h : `ip:${req.socket.remoteAddress ?? ""}`;
}

/** The answer of an injected fault, or undefined when the handler answers (or nobody does). */
function faultReply(d: FaultDecision): Reply | undefined {
  if (d.kind === "pass" || d.kind === "drop" || d.kind === "lost" || d.kind === "hold") return undefined;
  if (d.kind === "429") {
    return {
      status: 429,
      body: { message: TOO_MANY_REQUESTS },
      headers: { "retry-after": String(d.retryAfter ?? 1) },
    };
  }
  return { status: Number(d.kind), body: { message: faultMessage(d.kind) } };
}

/**
 * `reply` once the state file holds the request's change; else 507 Insufficient Storage (RFC 4918
 * §11.5) with the save's error: the state file (as it was) and the cause in words. Not an answer the
 * client retries or reads as lost (src/platform/client.ts): the call failed, and the change, kept in
 * memory only, is gone when the emulator stops unless a later save succeeds.
 */
async function savedOr507(deps: ServerDeps, reply: Reply): Promise<Reply> {
  try {
    await deps.state.saved();
    return reply;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return {
      status: 507,
      body: { message: `this change was not saved: ${why}; free space and run again` },
    };
  }
}

/** Routing, token check and the route handler: the answer of a platform request. */
function route(
  deps: ServerDeps,
  req: IncomingMessage,
  method: string,
  path: string,
  query: string,
  body: unknown,
): Reply {
  // A route of another group at a group's own address: as unknown there as any path.
  if (deps.group !== undefined && !servedHere(deps.group, path)) throw fail(404, "Not found");
  const m = table.match(method, path);
  if (!m) throw fail(404, "Not found");
  if ("allow" in m) {
    return { status: 405, body: { message: "Method not allowed" }, headers: { allow: m.allow.join(", ") } };
  }
  const r = m.value;
  const row = routeSpec(r.route);
  const strict = deps.strict !== false;
  const described = strict ? (deps.contract ?? contract()) : undefined;
  let reply: Reply;
  try {
    const clientId = row.surface === "none" ? "" : authenticate(deps.state, req, row.surface);
    if (row.request) {
      const problem = described
        ? described.requestProblem(r.route, body, r.requestNames)
        : checkBody(row.request, body, r.requestNames);
      if (problem !== undefined) throw r.invalidRequest ? r.invalidRequest(problem) : badShape(problem);
    }
    reply = r.handle({
      state: deps.state,
      clientId,
      params: m.params,
      body,
      query: new URLSearchParams(query),
      checkAnswer: described
        ? (answer) => {
            const problem = described.answerProblem(r.route, 200, answer);
            if (problem !== undefined) throw brokenAnswer(deps, problem);
          }
        : undefined,
    });
  } catch (e) {
    if (!(e instanceof HttpError)) throw e;
    reply = { status: e.status, body: e.body };
  }
  if (strict) reply = checkedReply(deps, r.route, reply);
  return r.headers ? { ...reply, headers: { ...r.headers, ...reply.headers } } : reply;
}

/** Whether a path names a route of `group` (every method of a path is of one group). */
function servedHere(group: NonNullable<ServerDeps["group"]>, path: string): boolean {
  const first = table.matchPath(path)[0];
  return first === undefined || routeGroup(first.name) === group;
}

/** Resolves after `ms`, or as soon as the client closes the connection. */
function untilClosed(req: IncomingMessage, ms: number): Promise<void> {
  if (req.socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      req.socket.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    req.socket.once("close", done);
  });
}

/**
 * The path of a request's URL, without its query and without a trailing slash (`/` stays), and its
 * query (empty when none).
 */
function splitUrl(url: string): { path: string; query: string } {
  const q = url.indexOf("?");
  let path = q >= 0 ? url.slice(0, q) : url;
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  const query = q >= 0 ? url.slice(q + 1) : "";
  return { path, query };
}

/**
 * The body of a request (its text and size), {@link TOO_LARGE} past `limit` bytes, or {@link INCOMPLETE} when the
 * connection closed before it was whole (a client gone, a network cut): nothing to process and nobody
 * to answer. Other read errors are thrown.
 */
async function readWholeBody(
  req: IncomingMessage,
  limit: number,
): Promise<Body | typeof TOO_LARGE | typeof INCOMPLETE> {
  return readBody(req, limit).catch((e: unknown): typeof INCOMPLETE => {
    if (req.readableAborted || (e as { code?: unknown } | null)?.code === "ECONNRESET") return INCOMPLETE;
    throw e;
  });
}

/**
 * A request's body parsed as JSON (undefined when blank), whether it is malformed, and what the request
 * log records of it: of a login only the client id (never the secret), of a malformed body the text.
 */
function parseBody(
  raw: string,
  isLogin: boolean,
): { body: unknown; malformed: boolean; recorded: () => unknown } {
  let body: unknown;
  let malformed = false;
  if (raw.trim() !== "") {
    try {
      body = JSON.parse(raw);
    } catch {
      malformed = true;
    }
  }
  if (isLogin) {
    const login = isObj(body) ? { client_id: body.client_id } : undefined;
    return { body, malformed, recorded: () => login };
  }
  if (malformed || body === undefined) return { body, malformed, recorded: () => (malformed ? raw : body) };
  // The record keeps the text and parses it again when read: the parsed body of an items upsert (a
  // tree of thousands of objects) is dropped young once handled, where a record holding it would have
  // it copied by the collections of the young generation for as long as the request log keeps it.
  return {
    body,
    malformed,
    recorded: () => {
      const copy: unknown = JSON.parse(raw);
      return nestsDeeper(copy, MAX_RECORDED_DEPTH) ? cutCopy(copy, 0) : copy;
    },
  };
}

/**
 * A request's record, its `body` made by `body()` when first read (then kept): the check of its
 * nesting ({@link nestsDeeper}) is paid only for the records something reads.
 */
function recordRequest(fields: Omit<RecordedRequest, "body">, body: () => unknown): RecordedRequest {
  let made = false;
  let value: unknown;
  return Object.defineProperty(fields, "body", {
    enumerable: true,
    configurable: true,
    get: () => {
      if (!made) {
        value = body();
        made = true;
      }
      return value;
    },
    set: (v: unknown) => {
      value = v;
      made = true;
    },
  }) as RecordedRequest;
}

async function handle(deps: ServerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const at = Date.now();
  const method = req.method ?? "GET";
  const { path, query } = splitUrl(req.url ?? "/");
  const isLogin = path === LOGIN_INTEGRATIONS || path === LOGIN_UTILS;
  const isControl = path.startsWith(CONTROL_PREFIX);
  // The group of this address, on every record, when each group has an address of its own.
  const here = deps.group === undefined ? {} : { hostGroup: deps.group };
  // Decided at arrival, so that the seeded sequence of decisions follows the order of the requests.
  const decision =
    !isControl && deps.faults?.active ? deps.faults.decide(method, path, callerKey(req), isLogin) : undefined;

  let reply: Reply;
  let recorded: () => unknown = () => undefined;
  let bytes = 0;
  let fault: string | undefined;
  try {
    const limit = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const raw = await readWholeBody(req, limit);
    if (raw === INCOMPLETE) {
      if (!isControl) {
        deps.requests.push({
          method,
          path,
          query,
          body: undefined,
          bytes: 0,
          status: 0,
          at,
          fault: "incomplete",
          ...here,
        });
      }
      deps.log?.(`${method} ${path} incomplete: the connection closed before the request was whole`);
      return;
    }
    if (raw === TOO_LARGE) {
      if (!isControl)
        deps.requests.push({ method, path, query, body: undefined, bytes: 0, status: 413, at, ...here });
      sendTooLarge(res, limit);
      deps.log?.(`${method} ${path} 413 ${(performance.now() - started).toFixed(1)}ms`);
      return;
    }
    bytes = raw.bytes;
    const parsed = parseBody(raw.text, isLogin);
    const { body, malformed } = parsed;
    recorded = parsed.recorded;
    if (isControl) {
      send(
        res,
        !controlAllowed(deps, req)
          ? { status: 401, body: { message: "Invalid control token" } }
          : malformed
            ? { status: 400, body: { message: "Malformed JSON body" } }
            : await handleControl(deps, method, path, body),
      );
      return;
    }
    if (decision && decision.delayMs > 0) await sleep(decision.delayMs);
    if (decision?.kind === "drop") {
      deps.requests.push(
        recordRequest({ method, path, query, bytes, status: 0, at, fault: "drop", ...here }, recorded),
      );
      req.socket.destroy();
      deps.log?.(`${method} ${path} dropped (injected fault) ${(performance.now() - started).toFixed(1)}ms`);
      return;
    }
    const injected = decision && faultReply(decision);
    if (injected) {
      fault = decision.kind;
      reply = injected;
    } else if (malformed) throw badShape("Malformed JSON body");
    else {
      const pendingMs = decision?.pendingMs ?? 0;
      const changes = deps.state.changes;
      reply =
        pendingMs > 0
          ? deps.state.withApplyDelay(pendingMs, () => route(deps, req, method, path, query, body))
          : route(deps, req, method, path, query, body);
      // A change is acknowledged only once the state file holds it: one the emulator could not save
      // (a full disk) is answered 507, naming the file and the cause, and counts as not made.
      if (deps.state.changes !== changes) reply = await savedOr507(deps, reply);
      // A lost answer: the request was processed; its answer never arrives.
      if (decision?.kind === "lost" || decision?.kind === "hold") fault = decision.kind;
    }
  } catch (e) {
    if (e instanceof HttpError) reply = { status: e.status, body: e.body };
    else {
      deps.log?.(`emulator: internal error on ${method} ${path}: ${(e as Error).stack ?? String(e)}`);
      reply = { status: 500, body: { message: "Internal server error" } };
    }
  }
  deps.requests.push(
    recordRequest(
      { method, path, query, bytes, status: reply.status, at, ...(fault ? { fault } : {}), ...here },
      recorded,
    ),
  );
  if (fault === "lost") {
    req.socket.destroy();
    deps.log?.(`${method} ${path} ${reply.status}, answer lost (injected fault)`);
    return;
  }
  if (fault === "hold") await untilClosed(req, decision?.holdMs ?? 0);
  if (decision && decision.slowMs > 0) await sleep(decision.slowMs);
  if (req.socket.destroyed) return; // the client gave up (slow answer past its timeout)
  send(res, reply);
  deps.log?.(
    `${method} ${path} ${reply.status}${fault ? " (injected fault)" : ""} ${(performance.now() - started).toFixed(1)}ms`,
  );
}

/** A node:http server serving the emulated platform API, keep-alive on. */
export function createEmulatorServer(deps: ServerDeps): Server {
  compileRequestSchemas(deps);
  const server = createServer({ keepAlive: true }, (req, res) => {
    handle(deps, req, res).catch((e: unknown) => {
      deps.log?.(`emulator: ${(e as Error).message}`);
      if (!res.headersSent) send(res, { status: 500, body: { message: "Internal server error" } });
      else res.destroy();
    });
  });
  // Longer than the usual client keep-alive (undici: 4 s) so idle sockets are closed by the client first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}
