/**
 * What the emulator's server hands its handlers and records: its dependencies and the record of one
 * request. Types only, on their own so that the control API (control.ts) and the server (server.ts),
 * which routes to it, need not import each other.
 */

import type { ApiGroup } from "../platform/routes.js";
import type { Contract } from "./contract.js";
import type { FaultInjector } from "./faults.js";
import type { EmulatorState } from "./state.js";

/** What the emulator remembers of one request. Tokens and secrets are never kept. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  /** Parsed JSON body; for logins `{client_id}` only; the raw text when it was not JSON. */
  body: unknown;
  /** Size of the body as received, in bytes (0 when empty or too large). */
  bytes: number;
  status: number;
  /** Arrival time, ms since the epoch. */
  at: number;
  /**
   * Set when an injected fault answered instead of the handler (`drop`: no answer, status 0), or when
   * the handler's answer was lost (`lost`, `hold`: processed, `status` is the handler's, the client got
   * no answer), or `incomplete` when the client's connection closed before the request was whole
   * (status 0, `body` undefined: nothing was processed, nobody was answered).
   */
  fault?: string;
  /**
   * When the emulator serves each API group at an address of its own (`EmulatorOptions.splitHosts`):
   * the group whose address received the request, whatever the route it names (a route of another
   * group answers 404 there).
   */
  hostGroup?: ApiGroup;
}

/** What the server and its control API work with: the state, the request log and the options. */
export interface ServerDeps {
  state: EmulatorState;
  requests: RecordedRequest[];
  /** Largest accepted body in bytes; larger ones get 413. Default server.ts `DEFAULT_MAX_BODY_BYTES`. */
  maxBodyBytes?: number | undefined;
  /**
   * When set, requests to the control API must carry it in the `x-emulator-control-token` header
   * (401 `{message}` otherwise); control.ts.
   */
  controlToken?: string | undefined;
  log?: ((line: string) => void) | undefined;
  /** Fault injection; skipped when absent or inactive. */
  faults?: FaultInjector | undefined;
  /**
   * Hold every request and answer of a platform route to the published description (contract.ts):
   * a request that breaks it answers 400, an answer that breaks it 500. Default true.
   */
  strict?: boolean | undefined;
  /** The description a strict server holds its traffic to; default the package's (contract.ts). */
  contract?: Contract | undefined;
  /**
   * The one API group this server's address serves (routes.ts `API_GROUPS`): the routes of the other
   * groups answer 404 `Not found` there, as at an address that is not theirs. Absent: every group.
   */
  group?: ApiGroup | undefined;
}
