/**
 * Addresses written in the files (the platform's `url:`, webhook addresses): the shape every one must
 * have, whatever it is for, and the rule of a webhook's. Here, below the config loader and the kinds,
 * which both check addresses (the platform's, the client's and the stores' webhooks).
 */

import { quote } from "./quote.js";

/** Whether a host name names this machine: `localhost`, an address of 127.0.0.0/8, or `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Why an address of the platform or of a webhook is not acceptable as written, or `undefined` when it
 * is: an absolute address with a host, without spaces or control characters, without a user name or
 * password (credentials never live in the files). Whether http is allowed is the caller's rule.
 *
 * @param what - how the message names the value, e.g. `webhook address`.
 */
export function urlShapeProblem(url: string, what: string): string | undefined {
  // The URL parser silently drops tabs and line breaks, so check the text as written.
  // eslint-disable-next-line no-control-regex -- control characters are what is looked for
  if (/[\s\u0000-\u001f\u007f-\u009f]/.test(url))
    return `${what} ${quote(url)} contains spaces or control characters: write the address alone`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${what} ${quote(url)} is not a full address: write it as https://host/path, e.g. https://hooks.example.com/orders`;
  }
  if (parsed.hostname === "")
    return `${what} ${quote(url)} has no host: write it as https://host/path, e.g. https://hooks.example.com/orders`;
  if (parsed.username !== "" || parsed.password !== "")
    return `${what} must not carry a user name or password (credentials never go in the files)`;
  return undefined;
}

/**
 * Why a webhook address is not acceptable, or `undefined` when it is: an absolute https address with a
 * host and no credentials (see {@link urlShapeProblem}), or http to this machine (`localhost`,
 * `127.0.0.1`, `[::1]`, for testing). Text that does not start with `http://` or `https://` is left to
 * the schema, which says how to write it.
 */
export function webhookUrlProblem(url: string): string | undefined {
  if (!/^https?:\/\//i.test(url)) return undefined;
  const shape = urlShapeProblem(url, "webhook address");
  if (shape) return shape;
  const parsed = new URL(url);
  if (parsed.protocol === "https:") return undefined;
  if (parsed.protocol === "http:" && isLoopbackHost(parsed.hostname)) return undefined;
  return `webhook address ${quote(url)} must start with https:// (http:// is accepted only for localhost and 127.0.0.1)`;
}
