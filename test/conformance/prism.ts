/**
 * An independent check of recorded traffic against the published description, docs/openapi.yaml:
 * Stoplight Prism's own router and request/response validators (`@stoplight/prism-http`), run in
 * process on each exchange after the fact, not as a proxy. A proxy started with `--errors` would answer
 * the conformance suite's deliberately invalid requests itself (422) instead of passing them to the
 * emulator, whose answers to them the suite checks; after the fact, every exchange is judged:
 *
 * - every answer, whatever its status, must match the description's answer for that status (else its
 *   `default`);
 * - every request the emulator accepted (a 2xx answer) must match the description's request: path,
 *   query, security header and body. A request it refused is meant to be invalid and is not judged.
 *
 * Prism reads the YAML itself (its own parser and `$ref` resolution), so neither carte's route table
 * nor its ajv checks take part.
 */

import { fileURLToPath } from "node:url";

import { getHttpOperationsFromSpec } from "@stoplight/prism-http";
import type { IHttpRequest, IHttpResponse } from "@stoplight/prism-http";
import routeModule from "@stoplight/prism-http/dist/router/index.js";
import { validateInput, validateOutput } from "@stoplight/prism-http/dist/validator/index.js";
import type { IHttpOperation } from "@stoplight/types";

/** One request and its answer, as a test saw them. */
export interface Exchange {
  method: string;
  /** Path with its query string, if any. */
  path: string;
  /** Request headers sent (names in lower case). */
  headers: Record<string, string>;
  body: unknown;
  status: number;
  answer: unknown;
}

const DESCRIPTION = fileURLToPath(new URL("../../docs/openapi.yaml", import.meta.url));

type Route = (opts: { resources: IHttpOperation[]; input: IHttpRequest }) => {
  _tag: "Left" | "Right";
  left?: { message?: string };
  right?: IHttpOperation;
};
// A CommonJS default export: under ESM interop it may arrive wrapped once more.
const route = ((routeModule as unknown as { default?: Route }).default ?? routeModule) as unknown as Route;

let operations: Promise<IHttpOperation[]> | undefined;

/** The description's operations as Prism reads them (once per process). */
function describedOperations(): Promise<IHttpOperation[]> {
  return (operations ??= getHttpOperationsFromSpec(DESCRIPTION));
}

/** The problems Prism finds in one exchange, each `METHOD path status: where: what`. */
function problemsOf(resources: IHttpOperation[], x: Exchange): string[] {
  const q = x.path.indexOf("?");
  const query: Record<string, string> = {};
  if (q >= 0) for (const [k, v] of new URLSearchParams(x.path.slice(q + 1))) query[k] = v;
  const request: IHttpRequest = {
    method: x.method.toLowerCase() as IHttpRequest["method"],
    url: { path: q >= 0 ? x.path.slice(0, q) : x.path, query },
    headers: x.headers,
    ...(x.body !== undefined ? { body: x.body } : {}),
  };
  const at = `${x.method} ${x.path} ${x.status}`;
  const routed = route({ resources, input: request });
  if (routed._tag === "Left" || !routed.right) {
    return x.status >= 200 && x.status < 300 ? [`${at}: no operation (${routed.left?.message ?? ""})`] : [];
  }
  const out: string[] = [];
  const described = (
    result: { _tag: string; left?: { path?: unknown[]; message: string }[] },
    side: string,
  ) => {
    if (result._tag === "Left") {
      for (const d of result.left ?? []) out.push(`${at}: ${side} ${(d.path ?? []).join(".")}: ${d.message}`);
    }
  };
  if (x.status >= 200 && x.status < 300) {
    described(validateInput({ resource: routed.right, element: request }) as never, "request");
  }
  const response: IHttpResponse = {
    statusCode: x.status,
    headers: x.answer === undefined ? {} : { "content-type": "application/json" },
    ...(x.answer !== undefined ? { body: x.answer } : {}),
  };
  described(validateOutput({ resource: routed.right, element: response }) as never, "answer");
  return out;
}

/** Every problem Prism finds in the exchanges, in their order. */
export async function prismProblems(exchanges: readonly Exchange[]): Promise<string[]> {
  const resources = await describedOperations();
  return exchanges.flatMap((x) => problemsOf(resources, x));
}
