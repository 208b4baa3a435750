/**
 * The planner's view of the API calls: every endpoint the registered kinds declare
 * (`ResourceKind.endpoints`, src/kinds/resource-kind.ts `EndpointSpec`), by name. Nothing registers here: the
 * table is derived from src/kinds/registry.ts. Calls run in the order of their endpoints' stages;
 * docs/architecture.md has the table.
 */

import { InternalError } from "../errors.js";
import { endpointTable } from "../kinds/registry.js";
import type { EndpointParams, EndpointSpec } from "../kinds/resource-kind.js";
import { routeIdempotent, routeMethod, routePath, routeSpec, type HttpMethod } from "../platform/routes.js";

export type { EndpointParams, EndpointSpec };

const table = endpointTable();

/**
 * Every endpoint spec by name, as a null-prototype record (a saved plan names endpoints; a name such
 * as `constructor` must find nothing).
 */
export const Endpoints: Readonly<Record<string, EndpointSpec>> = Object.assign(
  Object.create(null) as Record<string, EndpointSpec>,
  Object.fromEntries(table),
);

/** The spec of an endpoint, or `undefined` when no kind declares that name. */
export function findEndpoint(name: string): EndpointSpec | undefined {
  return table.get(name);
}

/** The spec of an endpoint. Throws when no kind declares it (a bug, or a plan file of another version). */
export function endpoint(name: string): EndpointSpec {
  const spec = table.get(name);
  if (!spec) throw new InternalError(`no endpoint named ${name} is declared by a registered kind`);
  return spec;
}

/** Most elements one call of the endpoint carries: its own limit, else its route's, else no limit. */
export function maxElementsOf(spec: EndpointSpec): number {
  return spec.maxElements ?? routeSpec(spec.route).maxElements ?? Infinity;
}

/** Whether the platform applies a call of the endpoint before answering (its own, else its route's). */
export function isSynchronous(spec: EndpointSpec): boolean {
  return spec.synchronous ?? routeSpec(spec.route).synchronous ?? false;
}

/** Whether a call carrying these elements (and this body) may be repeated after a lost answer. */
export function isIdempotent(spec: EndpointSpec, elements: unknown[], body: unknown): boolean {
  return spec.idempotent ? spec.idempotent(elements) : routeIdempotent(spec.route, body);
}

/**
 * The method and path of a call of the endpoint, from its route's row: `storeId` is the platform store
 * id (empty for client-scoped endpoints), `params` the writes' params. The query string, when the
 * endpoint has one, is appended encoded.
 */
export function callOf(
  spec: EndpointSpec,
  storeId: string,
  params: EndpointParams,
): { method: HttpMethod; path: string } {
  const path = routePath(
    spec.route,
    spec.pathParams ? spec.pathParams(storeId, params) : { storeId, ...params },
  );
  const query = spec.query?.(params);
  const qs = query ? new URLSearchParams(Object.entries(query)).toString() : "";
  return { method: routeMethod(spec.route), path: qs ? `${path}?${qs}` : path };
}
