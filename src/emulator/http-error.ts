/**
 * The emulator's failed answers: the error its handlers throw and the usual bodies
 * (docs/platform-api.md §4.10). On their own, below http.ts, so that the state (state.ts), which refuses
 * calls too, and the route vocabulary, which names the state, need not import each other.
 */

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

/** The usual error body `{message}` (docs/platform-api.md §4.10). */
export function fail(status: number, message: string): HttpError {
  return new HttpError(status, { message });
}

/** A malformed body: 400 `{message}` naming what and where. */
export function badShape(message: string): HttpError {
  return fail(400, message);
}

/** A menu validation failure: 400 `{type, message}` (docs/platform-api.md §4.10). */
export function menuRule(type: string, message: string): HttpError {
  return new HttpError(400, { type, message });
}
