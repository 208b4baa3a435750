/**
 * Webhooks end to end against the emulator on port 0, through the library (read → plan → apply):
 * every change uses the narrowest call, stores that share an event (and URL) share one call, the
 * exact calls are asserted, and a second plan is empty. The desired state is the example chain with
 * its own webhooks taken out (see {@link catalog}) and the webhooks of each scenario set in code.
 */

import { exampleSession } from "../helpers/session.js";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LoadedProject } from "../../src/config/index.js";
import type { RecordedRequest, RunningEmulator } from "../../src/emulator/index.js";
import type { KindName } from "../../src/kinds/registry.js";
import type { DesiredState, Ownership } from "../../src/model.js";
import type { WebhookSetting } from "../../src/kinds/store-webhooks.js";
import { buildPlan } from "../../src/plan/plan.js";
import type { Plan } from "../../src/plan/types.js";
import { secretsFileSink } from "../../src/run/secrets.js";
import type { Session } from "../../src/run/session.js";
import { clientReadKinds, fetchCurrent, readRequests } from "../../src/state/current.js";
import { applyPlan } from "../../src/run/apply-plan.js";
import { CLIENT_ID } from "../helpers/project.js";
import { webhooksState } from "../../src/kinds/store-webhooks.js";

const V2 = "/api/v2/restaurants-integrations-public-api";
const URL_A = "https://hooks.example.com/orders";
const URL_B = "https://hooks.example.com/orders-v2";
const CENTRO = "900101";
const CHAPINERO = "900102";
const POBLADO = "900201";

type Own = Partial<Record<KindName, Ownership>>;

let project: LoadedProject;
let emu: RunningEmulator;
let session: Session;
let dir: string;
let secretsFile: string;

let close: () => Promise<void>;

beforeEach(async () => {
  ({ project, emu, session, close } = await exampleSession());
  dir = mkdtempSync(path.join(tmpdir(), "carte-wh-e2e-"));
  secretsFile = path.join(dir, "secrets.json");
});

afterEach(async () => {
  await close();
  rmSync(dir, { recursive: true, force: true });
});

const writes = (reqs: RecordedRequest[]) =>
  reqs
    .filter((r) => r.method !== "GET" && !r.path.includes("/token/login/"))
    .map((r) => ({ method: r.method, path: r.query ? `${r.path}?${r.query}` : r.path, body: r.body }));

/** The example chain without webhooks: stores and client do not manage them. */
function catalog(): DesiredState {
  const d = structuredClone(project.desired);
  for (const s of Object.values(d.stores)) webhooksState.clear(s);
  delete d.client;
  return d;
}

/** The example chain with the given webhooks per store key (stores not named: unmanaged). */
function want(hooks: Record<string, Record<string, WebhookSetting>>, client?: DesiredState["client"]) {
  const d = catalog();
  for (const [key, h] of Object.entries(hooks)) webhooksState.set(d.stores[key]!, h);
  if (client) d.client = client;
  return d;
}

async function plan(desired: DesiredState, ownership: Own = {}): Promise<Plan> {
  const own = { ...project.ownership, ...ownership };
  const current = await fetchCurrent(session.client, readRequests(desired, own), {
    clientKinds: clientReadKinds(desired, own),
  });
  return buildPlan(desired, current, { ownership: own, safety: project.safety });
}

/** Plans and applies; returns the writes the platform received, and checks that a second plan is empty. */
async function apply(desired: DesiredState, ownership: Own = {}) {
  const p = await plan(desired, ownership);
  emu.clearRequests();
  const report = await applyPlan(p, session, {
    secrets: secretsFileSink(secretsFile),
    convergenceTimeoutMs: 10_000,
  });
  expect(report.failed + report.skipped).toBe(0);
  const made = writes(emu.requests);
  const again = await plan(desired, ownership);
  expect(again.changes, "second plan").toEqual([]);
  return { plan: p, made };
}

const hook = (url: string, enabled = true): WebhookSetting => ({ url, enabled });

describe("webhooks e2e", () => {
  it("creates, changes, disables, removes and adds stores with the narrowest calls", async () => {
    // The catalog first, so that what follows only concerns webhooks.
    await apply(catalog());

    // A new event for three stores sharing a URL: ONE POST /webhook; the secret goes to the file only.
    const all = { "bog-centro": hook(URL_A), "bog-chapinero": hook(URL_A), "med-poblado": hook(URL_A) };
    const three = (h: Record<string, WebhookSetting>) =>
      want(Object.fromEntries(Object.entries(h).map(([k, v]) => [k, { NEW_ORDER: v }])));
    let r = await apply(three(all));
    expect(r.plan.summary).toMatchObject({ create: 3, operations: 1 });
    expect(r.made).toEqual([
      {
        method: "POST",
        path: `${V2}/webhook`,
        body: { event: "NEW_ORDER", data: [{ url: URL_A, stores: [CENTRO, CHAPINERO, POBLADO] }] },
      },
    ]);
    const secrets = JSON.parse(readFileSync(secretsFile, "utf8")) as Record<string, string>;
    expect(Object.keys(secrets)).toEqual(["NEW_ORDER"]);
    expect(secrets.NEW_ORDER).toMatch(/^[0-9a-f]{48}$/);
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);

    // The URL of two stores: ONE change-url.
    const moved = { ...all, "bog-centro": hook(URL_B), "bog-chapinero": hook(URL_B) };
    r = await apply(three(moved));
    expect(r.made).toEqual([
      {
        method: "PUT",
        path: `${V2}/webhook/NEW_ORDER/change-url`,
        body: { url: URL_B, stores: [CENTRO, CHAPINERO] },
      },
    ]);

    // Disable one: ONE change-status.
    const disabled = { ...moved, "med-poblado": hook(URL_A, false) };
    r = await apply(three(disabled));
    expect(r.made).toEqual([
      {
        method: "PUT",
        path: `${V2}/webhook/NEW_ORDER/change-status`,
        body: { stores: { disable: [POBLADO] } },
      },
    ]);

    // Remove one (full ownership): ONE remove-stores.
    const removed = want({
      "bog-centro": { NEW_ORDER: hook(URL_B) },
      "bog-chapinero": { NEW_ORDER: hook(URL_B) },
      "med-poblado": {},
    });
    r = await apply(removed, { webhook: "full" });
    expect(r.made).toEqual([
      { method: "DELETE", path: `${V2}/webhook/NEW_ORDER/remove-stores`, body: { stores: [POBLADO] } },
    ]);

    // Add a store to the existing event: add-stores, not a second POST.
    r = await apply(three({ ...moved, "med-poblado": hook(URL_A) }));
    expect(r.made).toEqual([
      {
        method: "PUT",
        path: `${V2}/webhook/NEW_ORDER/add-stores`,
        body: [{ url: URL_A, stores: [POBLADO] }],
      },
    ]);

    // The platform holds exactly what the files say.
    const live = (await session.client.call("GET", `${V2}/webhook`)) as unknown;
    expect(live).toEqual([
      {
        event: "NEW_ORDER",
        stores: [
          { store_id: CENTRO, url: URL_B, state: "ENABLE" },
          { store_id: CHAPINERO, url: URL_B, state: "ENABLE" },
          { store_id: POBLADO, url: URL_A, state: "ENABLE" },
        ],
      },
    ]);
    // Only the POST returned a secret: the file still holds the first one.
    expect(JSON.parse(readFileSync(secretsFile, "utf8"))).toEqual(secrets);
  });

  it("creates a store disabled with a POST then a change-status", async () => {
    await apply(catalog());
    const r = await apply(want({ "bog-centro": { PING: hook(URL_A, false) } }));
    expect(r.made).toEqual([
      {
        method: "POST",
        path: `${V2}/webhook`,
        body: { event: "PING", data: [{ url: URL_A, stores: [CENTRO] }] },
      },
      { method: "PUT", path: `${V2}/webhook/PING/change-status`, body: { stores: { disable: [CENTRO] } } },
    ]);
  });

  it("never removes a webhook set up by hand under the default additive ownership", async () => {
    await apply(catalog());
    // Set up by hand, outside carte: PING for two stores, NEW_ORDER for one.
    await session.client.call("POST", `${V2}/webhook`, {
      event: "PING",
      data: [{ url: URL_B, stores: [CENTRO, CHAPINERO] }],
    });
    await session.client.call("POST", `${V2}/webhook`, {
      event: "NEW_ORDER",
      data: [{ url: URL_B, stores: [POBLADO] }],
    });
    const d = want({
      "bog-centro": { NEW_ORDER: hook(URL_A) },
      "bog-chapinero": {},
      "med-poblado": { NEW_ORDER: hook(URL_B) },
    });
    const p = await plan(d);
    expect(p.changes.map((c) => `${c.address} ${c.action}`)).toEqual([
      "store[bog-centro].webhook[NEW_ORDER] create",
    ]);
    const r = await apply(d);
    expect(r.made).toEqual([
      {
        method: "PUT",
        path: `${V2}/webhook/NEW_ORDER/add-stores`,
        body: [{ url: URL_A, stores: [CENTRO] }],
      },
    ]);
    const live = (await session.client.call("GET", `${V2}/webhook/PING`)) as { stores: unknown[] }[];
    expect(live[0]!.stores).toHaveLength(2);
    // With full ownership, the same files remove PING from both stores: one call.
    const full = await plan(d, { webhook: "full" });
    expect(full.operations.map((o) => [o.method, o.path, o.body])).toEqual([
      ["DELETE", `${V2}/webhook/PING/remove-stores`, { stores: [CENTRO, CHAPINERO] }],
    ]);
  });

  it("manages the client-level STORE_PROVISIONING_STATUS webhook", async () => {
    const base = `${V2}/clients/${CLIENT_ID}/webhooks`;
    const client = (url: string) => ({ webhooks: { STORE_PROVISIONING_STATUS: { url } } });
    await apply(catalog());
    let r = await apply(want({}, client(URL_A)));
    expect(r.made).toEqual([
      { method: "POST", path: base, body: { event: "STORE_PROVISIONING_STATUS", url: URL_A } },
    ]);
    r = await apply(want({}, client(URL_B)));
    expect(r.made).toEqual([
      { method: "POST", path: base, body: { event: "STORE_PROVISIONING_STATUS", url: URL_B } },
    ]);
    // Additive (default): not removed; full: DELETE ?event=.
    expect((await plan(want({}, { webhooks: {} }))).changes).toEqual([]);
    r = await apply(want({}, { webhooks: {} }), { client_webhook: "full" });
    expect(r.made).toEqual([
      { method: "DELETE", path: `${base}?event=STORE_PROVISIONING_STATUS`, body: undefined },
    ]);
    expect(await session.client.call("GET", base)).toEqual([]);
  });
});
