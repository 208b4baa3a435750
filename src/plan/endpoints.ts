/**
 * The planner's view of the API calls: every endpoint the registered kinds declare
 * (`ResourceKind.endpoints`, src/kinds/types.ts `EndpointSpec`), by name. Nothing registers here: the
 * table is derived from src/kinds/registry.ts. Calls run in the order of their endpoints' stages;
 * docs/architecture.md has the table.
 */

import { endpointTable } from "../kinds/registry.js";
import type { EndpointParams, EndpointSpec } from "../kinds/types.js";

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
  if (!spec) throw new Error(`no endpoint named ${name} is declared by a registered kind`);
  return spec;
}
