/**
 * The emulator's control API, for tests and operators, under the reserved prefix `/__emulator/` (no
 * platform path starts with it). Never recorded, never faulted. It is served by the emulator's own
 * server, so it listens only where the emulator listens (127.0.0.1 by default). With a control token
 * (`carte emulator --control-token`, `EmulatorOptions.controlToken`) every control request must carry
 * it in the `x-emulator-control-token` header, else 401 `{"message": "Invalid control token"}`;
 * without one it is open to whoever reaches the port. Platform tokens never open it.
 *
 * | method | path | body | answer |
 * |---|---|---|---|
 * | GET | /__emulator/requests | - | recorded requests, oldest first |
 * | POST | /__emulator/reset | - | empties catalogs, webhooks, recorded requests, deliveries; finance discrepancies back to the seed's |
 * | GET | /__emulator/faults | - | current fault settings |
 * | PUT | /__emulator/faults | {@link FaultOptions} (`{}`: no faults) | the new settings; 400 `{message}` when invalid |
 * | POST | /__emulator/webhooks/trigger | `{event, store_id?, client_id?, payload?}` | `{deliveries}` once they finished |
 * | GET | /__emulator/deliveries | - | deliveries log, oldest first |
 * | GET | /__emulator/finance/discrepancies | - | injected finance discrepancies |
 * | PUT | /__emulator/finance/discrepancies | array of {@link FinanceDiscrepancy} | the new list |
 * | GET | /__emulator/openapi.json | - | the published description of the platform API (docs/openapi.yaml) |
 *
 * Other paths under the prefix: 404; other methods: 405.
 */

import type { FaultOptions } from "./faults.js";
import { faultProblems } from "./faults.js";
import { discrepancyProblems, financeOf } from "./finance-data.js";
import type { FinanceDiscrepancy } from "./finance-data.js";
import { contract } from "./contract.js";
import { eventsOf } from "./events.js";
import { HttpError, fail, isObj, ok } from "./http.js";
import type { Reply } from "./http.js";
import type { ServerDeps } from "./deps.js";

/** Prefix of the control endpoints. */
export const CONTROL_PREFIX = "/__emulator/";

type Handler = (deps: ServerDeps, body: unknown) => Reply | Promise<Reply>;

const handlers: Record<string, Partial<Record<string, Handler>>> = {
  requests: { GET: (d) => ok(d.requests) },
  reset: {
    POST: (d) => {
      d.state.reset();
      d.requests.length = 0;
      eventsOf(d.state)?.clear();
      financeOf(d.state).reset();
      return ok({ message: "reset" });
    },
  },
  faults: {
    GET: (d) => ok(d.faults?.options ?? {}),
    PUT: (d, body) => {
      if (!d.faults) throw fail(404, "Faults are not available");
      const problems = faultProblems(body);
      if (problems.length > 0) throw fail(400, problems.join("; "));
      d.faults.set(body as FaultOptions);
      return ok(d.faults.options);
    },
  },
  "webhooks/trigger": {
    POST: async (d, body) => {
      const events = eventsOf(d.state);
      if (!events) throw fail(404, "Webhook deliveries are not available");
      if (!isObj(body) || typeof body.event !== "string") {
        throw fail(400, "body must be an object {event, store_id?, client_id?, payload?}");
      }
      const storeId = body.store_id;
      if (storeId !== undefined && typeof storeId !== "string" && typeof storeId !== "number") {
        throw fail(400, "store_id must be a string or a number");
      }
      if (body.client_id !== undefined && typeof body.client_id !== "string") {
        throw fail(400, "client_id must be a string");
      }
      const deliveries = await events.trigger(
        body.event,
        { storeId, clientId: body.client_id },
        "payload" in body ? body.payload : undefined,
      );
      return ok({ deliveries });
    },
  },
  deliveries: { GET: (d) => ok(eventsOf(d.state)?.deliveries ?? []) },
  // The description the strict emulator holds its traffic to, for client generators, Prism, Schemathesis.
  "openapi.json": { GET: (d) => ({ status: 200, json: (d.contract ?? contract()).text }) },
  "finance/discrepancies": {
    GET: (d) => ok(financeOf(d.state).discrepancies),
    PUT: (d, body) => {
      const problems = discrepancyProblems(body, "");
      if (problems.length > 0) throw fail(400, problems.map((p) => `${p.pointer}: ${p.message}`).join("; "));
      financeOf(d.state).setDiscrepancies(body as FinanceDiscrepancy[]);
      return ok(financeOf(d.state).discrepancies);
    },
  },
};

/** Answers a request under {@link CONTROL_PREFIX}; never throws. */
export async function handleControl(
  deps: ServerDeps,
  method: string,
  path: string,
  body: unknown,
): Promise<Reply> {
  const what = path.slice(CONTROL_PREFIX.length);
  const byMethod = Object.hasOwn(handlers, what) ? handlers[what] : undefined;
  if (!byMethod) return { status: 404, body: { message: "Not found" } };
  const h = Object.hasOwn(byMethod, method) ? byMethod[method] : undefined;
  if (!h) {
    return {
      status: 405,
      body: { message: "Method not allowed" },
      headers: { allow: Object.keys(byMethod).join(", ") },
    };
  }
  try {
    return await h(deps, body);
  } catch (e) {
    if (e instanceof HttpError) return { status: e.status, body: e.body };
    throw e;
  }
}
