/**
 * The webhook kinds, planned without I/O: reading `GET /webhook`, the narrowest call per change,
 * grouping of stores into one call, stages, ownership; the client-level kind; and the secrets sinks.
 */

import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { clientWebhooks } from "../../src/kinds/client-webhooks.js";
import { webhooks } from "../../src/kinds/store-webhooks.js";
import type { CurrentState, StoreState } from "../../src/model.js";
import type { WebhookSetting } from "../../src/kinds/store-webhooks.js";
import { buildPlan } from "../../src/plan/plan.js";
import type { WebhookConfigList } from "../../src/platform/webhook-calls.js";
import {
  discardingSink,
  githubActionsSink,
  readSecretsFile,
  resolveSecretSink,
  secretCollector,
  secretsFileSink,
  type SecretSink,
} from "../../src/run/secrets.js";
import { normalizeSnapshot } from "../../src/state/current.js";
import { desired, store } from "../helpers/builders.js";
import { webhooksState } from "../../src/kinds/store-webhooks.js";

const V2 = "/api/v2/restaurants-integrations-public-api";
const A = "https://hooks.example.com/a";
const B = "https://hooks.example.com/b";

const S = [store("s1", "1001"), store("s2", "1002"), store("s3", "1003")];

function withHooks(s: StoreState, hooks: Record<string, WebhookSetting>): StoreState {
  const copy = structuredClone(s);
  webhooksState.set(copy, hooks);
  return copy;
}

/** The current state as the reader would build it from one `GET /webhook` answer. */
function live(list: WebhookConfigList, stores: StoreState[] = S): CurrentState {
  return {
    stores: Object.fromEntries(
      stores.map((s) => [s.store.key, normalizeSnapshot(s.store, { webhooks: list }, [webhooks as never])]),
    ),
  };
}

const calls = (plan: ReturnType<typeof buildPlan>) =>
  plan.operations.map((o) => ({ stage: o.stage, call: `${o.method} ${o.path}`, body: o.body }));

describe("webhook kind: reading", () => {
  it("gives each store its entries of the client's list and remembers which events exist", () => {
    const cur = live([
      {
        event: "NEW_ORDER",
        stores: [
          { store_id: "1001", url: A, state: "ENABLE" },
          { store_id: "1002", url: B, state: "DISABLE" },
        ],
      },
      { event: "PING", stores: [{ store_id: "9999", url: A, state: "ENABLE" }] },
    ]);
    expect(webhooksState.get(cur.stores.s1!)).toEqual({ NEW_ORDER: { url: A, enabled: true } });
    expect(webhooksState.get(cur.stores.s2!)).toEqual({ NEW_ORDER: { url: B, enabled: false } });
    expect(webhooksState.get(cur.stores.s3!)).toEqual({});
    expect(cur.stores.s3!.ids.other.webhook).toEqual({ NEW_ORDER: true, PING: true });
  });

  it("counts a store listed twice for an event, keeping its first listing, from one list read by every store", () => {
    const list: WebhookConfigList = [
      {
        event: "NEW_ORDER",
        stores: [
          { store_id: "1001", url: A, state: "ENABLE" },
          { store_id: "1002", url: A, state: "ENABLE" },
        ],
      },
      { event: "NEW_ORDER", stores: [{ store_id: "1001", url: B, state: "DISABLE" }] },
      { event: "PING", stores: [{ store_id: "1003", url: A, state: "ENABLE" }] },
      { event: "PING", stores: [{ store_id: "1003", url: B, state: "ENABLE" }] },
    ];
    const cur = live(list);
    expect(webhooksState.get(cur.stores.s1!)).toEqual({ NEW_ORDER: { url: A, enabled: true, copies: 2 } });
    expect(webhooksState.get(cur.stores.s2!)).toEqual({ NEW_ORDER: { url: A, enabled: true } });
    expect(webhooksState.get(cur.stores.s3!)).toEqual({ PING: { url: A, enabled: true, copies: 2 } });
    // NEW_ORDER keeps a store listed once (1002); PING lists its only store twice.
    for (const s of S) {
      expect(cur.stores[s.store.key]!.ids.other.webhook).toEqual({ NEW_ORDER: true, PING: true });
      expect(cur.stores[s.store.key]!.ids.other.webhook_keeps).toEqual({ NEW_ORDER: true });
    }
    // Each store has tables of its own.
    expect(cur.stores.s1!.ids.other.webhook).not.toBe(cur.stores.s2!.ids.other.webhook);
  });

  it("is not read in a store whose files do not manage webhooks", () => {
    expect(webhooks.select(S[0]!)).toBeUndefined();
    const plan = buildPlan(
      desired(...S),
      live([{ event: "PING", stores: [{ store_id: "1001", url: A, state: "ENABLE" }] }]),
      {
        ownership: { webhook: "full" },
      },
    );
    expect(plan.changes).toEqual([]);
  });
});

describe("webhook kind: narrowest calls", () => {
  it("creates a new event for three stores sharing a URL with ONE POST /webhook", () => {
    const want = S.map((s) => withHooks(s, { NEW_ORDER: { url: A, enabled: true } }));
    const plan = buildPlan(desired(...want), live([]));
    expect(plan.changes.map((c) => `${c.address} ${c.action}`)).toEqual([
      "store[s1].webhook[NEW_ORDER] create",
      "store[s2].webhook[NEW_ORDER] create",
      "store[s3].webhook[NEW_ORDER] create",
    ]);
    expect(calls(plan)).toEqual([
      {
        stage: 30,
        call: `POST ${V2}/webhook`,
        body: { event: "NEW_ORDER", data: [{ url: A, stores: ["1001", "1002", "1003"] }] },
      },
    ]);
    expect(plan.operations[0]).toMatchObject({ idempotent: false, stores: ["s1", "s2", "s3"] });
  });

  it("puts several URLs of a new event in the same POST, and disables a store created disabled", () => {
    const want = [
      withHooks(S[0]!, { PING: { url: A, enabled: true } }),
      withHooks(S[1]!, { PING: { url: B, enabled: false } }),
    ];
    const plan = buildPlan(desired(...want), live([], S.slice(0, 2)));
    expect(calls(plan)).toEqual([
      {
        stage: 30,
        call: `POST ${V2}/webhook`,
        body: {
          event: "PING",
          data: [
            { url: A, stores: ["1001"] },
            { url: B, stores: ["1002"] },
          ],
        },
      },
      { stage: 33, call: `PUT ${V2}/webhook/PING/change-status`, body: { stores: { disable: ["1002"] } } },
    ]);
  });

  it("adds stores to an event that exists with add-stores, not POST", () => {
    const list: WebhookConfigList = [
      { event: "NEW_ORDER", stores: [{ store_id: "1001", url: A, state: "ENABLE" }] },
    ];
    const want = S.map((s) => withHooks(s, { NEW_ORDER: { url: A, enabled: true } }));
    const plan = buildPlan(desired(...want), live(list));
    expect(calls(plan)).toEqual([
      {
        stage: 31,
        call: `PUT ${V2}/webhook/NEW_ORDER/add-stores`,
        body: [{ url: A, stores: ["1002", "1003"] }],
      },
    ]);
    // The event exists for the client even when only a store outside the files has it.
    const other: WebhookConfigList = [
      { event: "NEW_ORDER", stores: [{ store_id: "7777", url: B, state: "ENABLE" }] },
    ];
    expect(calls(buildPlan(desired(...want), live(other)))[0]!.call).toBe(
      `PUT ${V2}/webhook/NEW_ORDER/add-stores`,
    );
  });

  it("changes the URL of stores with one change-url per new URL", () => {
    const list: WebhookConfigList = [
      {
        event: "NEW_ORDER",
        stores: S.map((s) => ({ store_id: s.store.storeId, url: A, state: "ENABLE" as const })),
      },
    ];
    const want = [
      withHooks(S[0]!, { NEW_ORDER: { url: B, enabled: true } }),
      withHooks(S[1]!, { NEW_ORDER: { url: B, enabled: true } }),
      withHooks(S[2]!, { NEW_ORDER: { url: A, enabled: true } }),
    ];
    const plan = buildPlan(desired(...want), live(list));
    expect(plan.changes.map((c) => [c.address, c.diff])).toEqual([
      ["store[s1].webhook[NEW_ORDER]", [{ attribute: "url", before: A, after: B }]],
      ["store[s2].webhook[NEW_ORDER]", [{ attribute: "url", before: A, after: B }]],
    ]);
    expect(calls(plan)).toEqual([
      {
        stage: 32,
        call: `PUT ${V2}/webhook/NEW_ORDER/change-url`,
        body: { url: B, stores: ["1001", "1002"] },
      },
    ]);
  });

  it("enables and disables stores in one change-status per event", () => {
    const list: WebhookConfigList = [
      {
        event: "PING",
        stores: [
          { store_id: "1001", url: A, state: "ENABLE" },
          { store_id: "1002", url: A, state: "DISABLE" },
        ],
      },
    ];
    const want = [
      withHooks(S[0]!, { PING: { url: A, enabled: false } }),
      withHooks(S[1]!, { PING: { url: B, enabled: true } }),
    ];
    const plan = buildPlan(desired(...want), live(list, S.slice(0, 2)));
    expect(calls(plan)).toEqual([
      { stage: 32, call: `PUT ${V2}/webhook/PING/change-url`, body: { url: B, stores: ["1002"] } },
      {
        stage: 33,
        call: `PUT ${V2}/webhook/PING/change-status`,
        body: { stores: { enable: ["1002"], disable: ["1001"] } },
      },
    ]);
  });

  it("removes a store with remove-stores under full ownership, never under the default additive", () => {
    const list: WebhookConfigList = [
      {
        event: "NEW_ORDER",
        stores: S.map((s) => ({ store_id: s.store.storeId, url: A, state: "ENABLE" as const })),
      },
      { event: "PING", stores: [{ store_id: "1001", url: A, state: "ENABLE" }] },
    ];
    const want = [
      withHooks(S[0]!, { NEW_ORDER: { url: A, enabled: true } }),
      withHooks(S[1]!, { NEW_ORDER: { url: A, enabled: true } }),
      withHooks(S[2]!, {}),
    ];
    expect(buildPlan(desired(...want), live(list)).changes).toEqual([]);
    const plan = buildPlan(desired(...want), live(list), { ownership: { webhook: "full" } });
    expect(calls(plan)).toEqual([
      { stage: 34, call: `DELETE ${V2}/webhook/NEW_ORDER/remove-stores`, body: { stores: ["1003"] } },
      { stage: 34, call: `DELETE ${V2}/webhook/PING/remove-stores`, body: { stores: ["1001"] } },
    ]);
  });

  it("adds stores before removing others, so that an event is never dropped on the way", () => {
    const list: WebhookConfigList = [
      { event: "PING", stores: [{ store_id: "1001", url: A, state: "ENABLE" }] },
    ];
    const want = [withHooks(S[0]!, {}), withHooks(S[1]!, { PING: { url: A, enabled: true } })];
    const plan = buildPlan(desired(...want), live(list, S.slice(0, 2)), { ownership: { webhook: "full" } });
    expect(plan.operations.map((o) => o.endpoint)).toEqual(["webhook.add-stores", "webhook.remove-stores"]);
  });
});

describe("client_webhook kind", () => {
  const snapshot = (hooks: { event: "STORE_PROVISIONING_STATUS"; url: string }[]) => {
    const state = {};
    const ids: Record<string, Record<string, unknown>> = {};
    clientWebhooks.read(
      { webhooks: { clientId: "acme", hooks: hooks.map((h) => ({ clientId: "acme", ...h, state: true })) } },
      state,
      ids,
    );
    return { stores: {}, client: { ...state, ids } } as CurrentState;
  };

  it("creates and updates with POST /clients/{clientId}/webhooks {event, url}", () => {
    const want = { stores: {}, client: { webhooks: { STORE_PROVISIONING_STATUS: { url: A } } } };
    expect(calls(buildPlan(want, snapshot([])))).toEqual([
      {
        stage: 35,
        call: `POST ${V2}/clients/acme/webhooks`,
        body: { event: "STORE_PROVISIONING_STATUS", url: A },
      },
    ]);
    const plan = buildPlan(want, snapshot([{ event: "STORE_PROVISIONING_STATUS", url: B }]));
    expect(plan.changes.map((c) => `${c.address} ${c.action}`)).toEqual([
      "client.client_webhook[STORE_PROVISIONING_STATUS] update",
    ]);
    expect(calls(plan)[0]!.call).toBe(`POST ${V2}/clients/acme/webhooks`);
    expect(buildPlan(want, snapshot([{ event: "STORE_PROVISIONING_STATUS", url: A }])).changes).toEqual([]);
  });

  it("deletes with DELETE ?event= only under full ownership", () => {
    const want = { stores: {}, client: { webhooks: {} } };
    const cur = snapshot([{ event: "STORE_PROVISIONING_STATUS", url: A }]);
    expect(buildPlan(want, cur).changes).toEqual([]);
    expect(calls(buildPlan(want, cur, { ownership: { client_webhook: "full" } }))).toEqual([
      {
        stage: 36,
        call: `DELETE ${V2}/clients/acme/webhooks?event=STORE_PROVISIONING_STATUS`,
        body: undefined,
      },
    ]);
  });
});

describe("secrets", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const tmp = () => (dir = mkdtempSync(path.join(tmpdir(), "carte-secrets-")));

  it("creates the secrets file with mode 0600 and merges secrets into it (JSON and YAML)", async () => {
    const d = tmp();
    const json = path.join(d, "secrets.json");
    const sink = secretsFileSink(json);
    await Promise.all([sink.put("NEW_ORDER", "s-1"), sink.put("PING", "s-2")]);
    await sink.put("NEW_ORDER", "s-3");
    expect(statSync(json).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(json, "utf8"))).toEqual({ NEW_ORDER: "s-3", PING: "s-2" });

    const yaml = path.join(d, "secrets.yaml");
    writeFileSync(yaml, "MENU_APPROVED: old\n", { mode: 0o644 });
    await secretsFileSink(yaml).put("PING", "s-4");
    expect(parse(readFileSync(yaml, "utf8"))).toEqual({ MENU_APPROVED: "old", PING: "s-4" });
    expect(statSync(yaml).mode & 0o777).toBe(0o600);
    expect(await readSecretsFile(yaml)).toEqual({ MENU_APPROVED: "old", PING: "s-4" });
  });

  it("refuses a secrets file that is not a map, without quoting it", async () => {
    const d = tmp();
    const file = path.join(d, "secrets.json");
    writeFileSync(file, '{"NEW_ORDER": "very-secret-old-value"');
    const err = await secretsFileSink(file)
      .put("PING", "new-secret-value")
      .catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain("is not a JSON map");
    expect((err as Error).message).not.toContain("very-secret");
    expect((err as Error).message).not.toContain("new-secret-value");
    expect(readFileSync(file, "utf8")).toBe('{"NEW_ORDER": "very-secret-old-value"');
  });

  it("masks the secret first in GitHub Actions, then writes the step output", async () => {
    const d = tmp();
    const output = path.join(d, "github_output");
    writeFileSync(output, "other=1\n");
    const printed: string[] = [];
    const sink = resolveSecretSink({
      env: { GITHUB_ACTIONS: "true", GITHUB_OUTPUT: output },
      out: (t) => printed.push(t),
    })!;
    await sink.put("NEW_ORDER", "abc123");
    expect(printed).toEqual(["::add-mask::abc123\n"]);
    expect(readFileSync(output, "utf8")).toBe("other=1\nwebhook_secret_NEW_ORDER=abc123\n");
    expect(sink.where("NEW_ORDER")).toBe("the step output webhook_secret_NEW_ORDER");

    // A secrets file named by the user wins over the step output, still masked.
    const file = path.join(d, "s.json");
    const both = githubActionsSink({
      out: (t) => printed.push(t),
      outputFile: output,
      file: secretsFileSink(file),
    });
    await both.put("PING", "def456");
    expect(printed[1]).toBe("::add-mask::def456\n");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ PING: "def456" });
    expect(readFileSync(output, "utf8")).not.toContain("def456");
  });

  it("resolves --secrets-file before CARTE_SECRETS_FILE, and nothing when none is set", () => {
    expect(resolveSecretSink({ env: {}, out: () => {} })).toBeUndefined();
    expect(resolveSecretSink({ env: { CARTE_SECRETS_FILE: "env.json" }, out: () => {} })!.where("X")).toBe(
      "env.json",
    );
    expect(
      resolveSecretSink({ file: "flag.yaml", env: { CARTE_SECRETS_FILE: "env.json" }, out: () => {} })!.where(
        "X",
      ),
    ).toBe("flag.yaml");
  });

  it("hands only the answers of secret-bearing calls to the sink", async () => {
    const got: [string, string][] = [];
    const sink: SecretSink = { where: () => "memory", put: async (e, s) => void got.push([e, s]) };
    const collect = secretCollector(sink);
    await collect({ endpoint: "webhook.add-stores" }, { event: "PING", stores: [], secret: "nope" });
    await collect({ endpoint: "webhook.create" }, { event: "PING", stores: [], secret: "yes" });
    expect(got).toEqual([["PING", "yes"]]);

    const warnings: string[] = [];
    await secretCollector(discardingSink((m) => warnings.push(m)))(
      { endpoint: "webhook.create" },
      { event: "PING", stores: [], secret: "dropped-secret" },
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("PING");
    expect(warnings[0]).toContain("carte webhooks rotate-secret PING");
    expect(warnings[0]).not.toContain("dropped-secret");

    const failing: SecretSink = {
      where: () => "x",
      put: () => Promise.reject(new Error("disk full while writing topsecret")),
    };
    const err = await secretCollector(failing)(
      { endpoint: "webhook.create" },
      { event: "PING", secret: "topsecret" },
    ).catch((e: Error) => e);
    expect((err as Error).message).toContain("rotate-secret PING");
    expect((err as Error).message).not.toContain("topsecret");
  });
});
