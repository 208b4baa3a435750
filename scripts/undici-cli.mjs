// The part of undici the CLI uses, `Agent` and `request` (src/platform/client.ts, src/emulator/events.ts),
// for the CLI's bundle only (scripts/build-cli.mjs resolves `undici` to this file there). undici's own
// entry point also builds fetch, WebSocket, EventSource, cookies, caches, mocks and proxies at every
// start: about a tenth of a second of CPU that `carte` never uses. Any path named here that undici
// moves fails the build, not a run.
import Agent from "undici/lib/dispatcher/agent.js";
import Dispatcher from "undici/lib/dispatcher/dispatcher.js";
import api from "undici/lib/api/index.js";

// As undici's entry point does: every dispatcher gets request(), stream(), pipeline()…
Object.assign(Dispatcher.prototype, api);

/**
 * undici's `request(url, options)` for a call that names its dispatcher (carte's calls always do): the
 * URL split into origin and path, as undici's entry point splits it.
 */
export function request(url, opts) {
  if (!opts || !opts.dispatcher) throw new TypeError("request(): carte names the dispatcher of every call");
  const u = new URL(url);
  return api.request.call(opts.dispatcher, {
    ...opts,
    origin: u.origin,
    path: u.search ? `${u.pathname}${u.search}` : u.pathname,
    method: opts.method || (opts.body ? "PUT" : "GET"),
  });
}

export { Agent, Dispatcher };
