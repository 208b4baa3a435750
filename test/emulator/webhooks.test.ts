import { createHmac } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { IncomingHttpHeaders, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { startEmulator } from "../../src/emulator/index.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { FOREIGN_STORE, MENU, SEED, STORE, STORE2, call, item, login, start } from "./helpers.js";

const V2 = "/api/v2/restaurants-integrations-public-api";
const S1 = String(STORE);
const S2 = String(STORE2);

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
}

/** A local receiver of deliveries on 127.0.0.1:0. */
async function receiver(status = 200): Promise<{
  url: string;
  got: Received[];
  next(): Promise<Received>;
  close(): Promise<void>;
}> {
  const got: Received[] = [];
  let waiters: ((r: Received) => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = { path: req.url ?? "", headers: req.headers, raw: Buffer.concat(chunks).toString("utf8") };
      got.push(r);
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "OK", description: "received" }));
      const w = waiters;
      waiters = [];
      for (const f of w) f(r);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    got,
    next: () => new Promise((resolve) => waiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Checks `Platform-Signature: t=<s>,sign=<hex>` (docs/platform-api.md §4.5). */
function verify(r: Received, secret: string): boolean {
  const header = r.headers["platform-signature"];
  const m = typeof header === "string" ? /^t=(\d+),sign=([0-9a-f]{64})$/.exec(header) : null;
  if (!m) return false;
  const expected = createHmac("sha256", secret).update(`${m[1]}.${r.raw}`).digest("hex");
  return expected === m[2] && Math.abs(Number(m[1]) - Date.now() / 1000) < 60;
}

let emu: RunningEmulator;
let token: string;
beforeEach(async () => {
  ({ emu, token } = await start());
});
afterEach(async () => {
  await emu.close();
});

describe("emulator: webhook configuration", () => {
  it("creates, lists and changes a webhook with each narrow call", async () => {
    const a = "http://127.0.0.1:9/a";
    const b = "https://example.test/b";
    const created = await call(emu, "POST", `${V2}/webhook`, {
      token,
      body: { event: "NEW_ORDER", data: [{ url: a, stores: [S1] }] },
    });
    expect(created.status).toBe(200);
    const first = created.body as { event: string; stores: unknown[]; secret: string };
    expect(first.event).toBe("NEW_ORDER");
    expect(first.stores).toEqual([{ url: a, store_id: S1, state: "ENABLE" }]);
    expect(first.secret).toMatch(/^[0-9a-f]{48}$/);

    expect((await call(emu, "GET", `${V2}/webhook`, { token })).body).toEqual([
      { event: "NEW_ORDER", stores: [{ store_id: S1, url: a, state: "ENABLE" }] },
    ]);
    expect((await call(emu, "GET", `${V2}/webhook/PING`, { token })).body).toEqual([]);

    const added = await call(emu, "PUT", `${V2}/webhook/NEW_ORDER/add-stores`, {
      token,
      body: [{ url: b, stores: [S2] }],
    });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({
      event: "NEW_ORDER",
      stores: [
        { store_id: S1, url: a, state: "ENABLE" },
        { store_id: S2, url: b, state: "ENABLE" },
      ],
    });

    const moved = await call(emu, "PUT", `${V2}/webhook/NEW_ORDER/change-url`, {
      token,
      body: { url: b, stores: [S1] },
    });
    expect((moved.body as { stores: { url: string }[] }).stores.map((s) => s.url)).toEqual([b, b]);

    const disabled = await call(emu, "PUT", `${V2}/webhook/NEW_ORDER/change-status`, {
      token,
      body: { stores: { disable: [S2] } },
    });
    expect(disabled.body).toEqual({
      event: "NEW_ORDER",
      stores: [
        { store_id: S1, url: b, state: "ENABLE" },
        { store_id: S2, url: b, state: "DISABLE" },
      ],
    });
    const reenabled = await call(emu, "PUT", `${V2}/webhook/NEW_ORDER/change-status`, {
      token,
      body: { stores: { enable: [S2] } },
    });
    expect((reenabled.body as { stores: { state: string }[] }).stores[1]!.state).toBe("ENABLE");
    for (const bad of [{}, { stores: {} }, { stores: { enable: [S1], disable: [S1] } }]) {
      const r = await call(emu, "PUT", `${V2}/webhook/NEW_ORDER/change-status`, { token, body: bad });
      expect(r.status).toBe(400);
      expect(r.body).toHaveProperty("message");
    }

    const reset = await call(emu, "PUT", `${V2}/webhook/NEW_ORDER/reset-secret`, { token });
    expect(reset.status).toBe(200);
    const secret2 = (reset.body as { secret: string }).secret;
    expect(secret2).not.toBe(first.secret);
    expect(reset.body).toHaveProperty("stores");

    const removed = await call(emu, "DELETE", `${V2}/webhook/NEW_ORDER/remove-stores`, {
      token,
      body: { stores: [S2] },
    });
    expect(removed.body).toEqual({ stores: [S2], message: "Store settings removed successfully." });
    expect((await call(emu, "GET", `${V2}/webhook/NEW_ORDER`, { token })).body).toEqual([
      { event: "NEW_ORDER", stores: [{ store_id: S1, url: b, state: "ENABLE" }] },
    ]);

    // Posting the event again keeps its secret.
    const again = await call(emu, "POST", `${V2}/webhook`, {
      token,
      body: { event: "NEW_ORDER", data: [{ url: a, stores: [S2] }] },
    });
    expect((again.body as { secret: string }).secret).toBe(secret2);

    // Removing the last stores drops the event.
    await call(emu, "DELETE", `${V2}/webhook/NEW_ORDER/remove-stores`, { token, body: { stores: [S1, S2] } });
    expect((await call(emu, "GET", `${V2}/webhook`, { token })).body).toEqual([]);
    expect((await call(emu, "PUT", `${V2}/webhook/NEW_ORDER/reset-secret`, { token })).status).toBe(404);
  });

  it("takes a store from no webhook to ENABLE with add-stores, also after the event's last store was removed (docs/platform-api.md §4.9)", async () => {
    const a = "https://example.test/a";
    const b = "https://example.test/b";
    await call(emu, "POST", `${V2}/webhook`, {
      token,
      body: { event: "NEW_ORDER", data: [{ url: a, stores: [S1] }] },
    });
    const removed = await call(emu, "DELETE", `${V2}/webhook/NEW_ORDER/remove-stores`, {
      token,
      body: { stores: [S1] },
    });
    expect(removed.status).toBe(200);
    expect((await call(emu, "GET", `${V2}/webhook`, { token })).body).toEqual([]);

    const added = await call(emu, "PUT", `${V2}/webhook/NEW_ORDER/add-stores`, {
      token,
      body: [{ url: b, stores: [S2] }],
    });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ event: "NEW_ORDER", stores: [{ store_id: S2, url: b, state: "ENABLE" }] });
    expect((await call(emu, "GET", `${V2}/webhook`, { token })).body).toEqual([added.body]);

    // An event the client never configured: the same transition; its new secret is told by reset-secret.
    const fresh = await call(emu, "PUT", `${V2}/webhook/PING/add-stores`, {
      token,
      body: [{ url: a, stores: [S1] }],
    });
    expect(fresh.body).toEqual({ event: "PING", stores: [{ store_id: S1, url: a, state: "ENABLE" }] });
    const reset = await call(emu, "PUT", `${V2}/webhook/PING/reset-secret`, { token });
    expect(reset.status).toBe(200);
    expect((reset.body as { secret: string }).secret).toMatch(/^[0-9a-f]{48}$/);
  });

  it("uses every store of the client when `stores` is omitted", async () => {
    const r = await call(emu, "POST", `${V2}/webhook`, {
      token,
      body: { event: "PING", data: [{ url: "http://127.0.0.1:9/ping" }] },
    });
    expect((r.body as { stores: { store_id: string }[] }).stores.map((s) => s.store_id)).toEqual([S1, S2]);
  });

  it("answers 406 to an unknown event name", async () => {
    const url = "http://127.0.0.1:9/x";
    const attempts: [string, string, unknown][] = [
      ["POST", `${V2}/webhook`, { event: "NEW_ORDERS", data: [{ url }] }],
      ["POST", `${V2}/webhook`, { event: "STORE_PROVISIONING_STATUS", data: [{ url }] }],
      ["GET", `${V2}/webhook/NOPE`, undefined],
      ["PUT", `${V2}/webhook/NOPE/add-stores`, [{ url, stores: [S1] }]],
      ["PUT", `${V2}/webhook/NOPE/change-url`, { url, stores: [S1] }],
      ["DELETE", `${V2}/webhook/NOPE/remove-stores`, { stores: [S1] }],
      ["PUT", `${V2}/webhook/NOPE/reset-secret`, undefined],
      ["PUT", `${V2}/webhook/NOPE/change-status`, { stores: { enable: [S1] } }],
      ["POST", `${V2}/clients/acme/webhooks`, { event: "NEW_ORDER", url }],
    ];
    for (const [method, path, body] of attempts) {
      const r = await call(emu, method, path, { token, body });
      expect([method, path, r.status]).toEqual([method, path, 406]);
      expect(r.body).toHaveProperty("message");
    }
  });

  it("refuses foreign and unknown stores, bad URLs and bad shapes", async () => {
    const url = "http://127.0.0.1:9/x";
    const foreign = await call(emu, "POST", `${V2}/webhook`, {
      token,
      body: { event: "PING", data: [{ url, stores: [String(FOREIGN_STORE)] }] },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({
      message: `The stores ${FOREIGN_STORE} don't belong to the appClient of client id acme`,
    });
    const unknown = await call(emu, "POST", `${V2}/webhook`, {
      token,
      body: { event: "PING", data: [{ url, stores: ["123"] }] },
    });
    expect(unknown.status).toBe(404);
    for (const bad of ["ftp://x/y", "not a url", ""]) {
      const r = await call(emu, "POST", `${V2}/webhook`, {
        token,
        body: { event: "PING", data: [{ url: bad, stores: [S1] }] },
      });
      expect(r.status).toBe(400);
    }
    const numeric = await call(emu, "POST", `${V2}/webhook`, {
      token,
      body: { event: "PING", data: [{ url, stores: [STORE] }] },
    });
    expect(numeric.status).toBe(400);
    expect((await call(emu, "POST", `${V2}/webhook`, { token, body: { event: "PING" } })).status).toBe(400);
    // Narrow calls on an event never created, and on stores not in the event: 404.
    const notCreated = await call(emu, "PUT", `${V2}/webhook/PING/change-url`, {
      token,
      body: { url, stores: [S1] },
    });
    expect(notCreated.status).toBe(404);
    await call(emu, "POST", `${V2}/webhook`, {
      token,
      body: { event: "PING", data: [{ url, stores: [S1] }] },
    });
    const notIn = await call(emu, "PUT", `${V2}/webhook/PING/change-url`, {
      token,
      body: { url, stores: [S2] },
    });
    expect(notIn.status).toBe(404);
    // Another client's webhooks are invisible.
    const other = await login(emu, "other");
    expect((await call(emu, "GET", `${V2}/webhook`, { token: other })).body).toEqual([]);
    expect((await call(emu, "GET", `${V2}/webhook`)).status).toBe(401);
    const utils = await login(emu, "acme", "utils");
    expect((await call(emu, "GET", `${V2}/webhook`, { token: utils })).status).toBe(401);
  });

  it("manages client-level webhooks and refuses another client's id with 403", async () => {
    const base = `${V2}/clients/acme/webhooks`;
    const body = { event: "STORE_PROVISIONING_STATUS", url: "https://example.test/prov" };
    const created = await call(emu, "POST", base, { token, body });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ clientId: "acme", ...body, state: true });
    const updated = await call(emu, "POST", base, {
      token,
      body: { ...body, url: "https://example.test/prov2", secret: "s" },
    });
    expect(updated.status).toBe(200);
    expect((await call(emu, "GET", base, { token })).body).toEqual([
      {
        clientId: "acme",
        event: "STORE_PROVISIONING_STATUS",
        url: "https://example.test/prov2",
        state: true,
      },
    ]);
    for (const [method, b] of [
      ["POST", body],
      ["GET", undefined],
    ] as const) {
      const r = await call(emu, method, `${V2}/clients/other/webhooks`, { token, body: b });
      expect(r.status).toBe(403);
    }
    expect(
      (await call(emu, "DELETE", `${V2}/clients/other/webhooks?event=STORE_PROVISIONING_STATUS`, { token }))
        .status,
    ).toBe(403);
    expect((await call(emu, "DELETE", base, { token })).status).toBe(400);
    expect((await call(emu, "DELETE", `${base}?event=PING`, { token })).status).toBe(406);
    const del = await call(emu, "DELETE", `${base}?event=STORE_PROVISIONING_STATUS`, { token });
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await call(emu, "GET", base, { token })).body).toEqual([]);
    expect((await call(emu, "DELETE", `${base}?event=STORE_PROVISIONING_STATUS`, { token })).status).toBe(
      404,
    );
  });

  it("keeps webhooks in the state file across a restart", async () => {
    const dir = await mkdtemp(join(tmpdir(), "carte-wh-"));
    try {
      const stateFile = join(dir, "state.json");
      const first = await startEmulator({ seed: SEED, stateFile });
      const t1 = await login(first);
      await call(first, "POST", `${V2}/webhook`, {
        token: t1,
        body: { event: "PING", data: [{ url: "http://127.0.0.1:9/p", stores: [S1] }] },
      });
      await call(first, "POST", `${V2}/clients/acme/webhooks`, {
        token: t1,
        body: { event: "STORE_PROVISIONING_STATUS", url: "http://127.0.0.1:9/c" },
      });
      const before = (await call(first, "GET", `${V2}/webhook`, { token: t1 })).body;
      await first.close();
      const second = await startEmulator({ stateFile });
      try {
        const t2 = await login(second);
        expect((await call(second, "GET", `${V2}/webhook`, { token: t2 })).body).toEqual(before);
        expect((await call(second, "GET", `${V2}/clients/acme/webhooks`, { token: t2 })).body).toHaveLength(
          1,
        );
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("emulator: webhook deliveries", () => {
  it("delivers a signed PING that verifies with the secret, also after reset-secret", async () => {
    const rx = await receiver();
    try {
      const created = await call(emu, "POST", `${V2}/webhook`, {
        token,
        body: { event: "PING", data: [{ url: rx.url, stores: [S1] }] },
      });
      const secret = (created.body as { secret: string }).secret;
      const [d] = await emu.trigger("PING", STORE);
      expect(d).toMatchObject({ event: "PING", store_id: S1, url: rx.url, status: 200, signed: true });
      expect(rx.got).toHaveLength(1);
      const r = rx.got[0]!;
      expect(r.path).toBe("/hooks");
      expect(r.headers["content-type"]).toBe("application/json");
      expect(JSON.parse(r.raw)).toEqual({ store_id: S1 });
      expect(verify(r, secret)).toBe(true);
      expect(verify(r, "wrong")).toBe(false);

      const reset = await call(emu, "PUT", `${V2}/webhook/PING/reset-secret`, { token });
      const secret2 = (reset.body as { secret: string }).secret;
      // Through the control API this time.
      const viaControl = await call(emu, "POST", "/__emulator/webhooks/trigger", {
        body: { event: "PING", store_id: S1 },
      });
      expect(viaControl.status).toBe(200);
      expect((viaControl.body as { deliveries: unknown[] }).deliveries).toHaveLength(1);
      const r2 = rx.got[1]!;
      expect(verify(r2, secret2)).toBe(true);
      expect(verify(r2, secret)).toBe(false);
      expect(emu.deliveries.map((x) => x.status)).toEqual([200, 200]);
    } finally {
      await rx.close();
    }
  });

  it("delivers MENU_APPROVED once a POST /items is applied", async () => {
    const rx = await receiver();
    try {
      const created = await call(emu, "POST", `${V2}/webhook`, {
        token,
        body: { event: "MENU_APPROVED", data: [{ url: rx.url, stores: [S1] }] },
      });
      const secret = (created.body as { secret: string }).secret;
      const arrived = rx.next();
      const t0 = Date.now();
      const r = await call(emu, "POST", `${MENU()}/items`, { token, body: [item("CHEESE")] });
      expect(r.status).toBe(200);
      expect(rx.got).toHaveLength(0); // not before the write is applied (applyDelayMs 40)
      const got = await arrived;
      expect(Date.now() - t0).toBeGreaterThanOrEqual(30);
      expect(JSON.parse(got.raw)).toEqual({ store_id: S1, message: "Menu Approved" });
      expect(verify(got, secret)).toBe(true);
      // An availability write is not a menu write: no delivery for it.
      await call(emu, "PUT", "/api/v2/restaurants-integrations-public-api/availability/stores/items", {
        token,
        body: [{ store_integration_id: "bog-centro", items: { turn_off: ["CHEESE"] } }],
      });
      await emu.idle();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(rx.got).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });

  it("delivers STORE_CONNECTIVITY once an asynchronous store change takes effect", async () => {
    const rx = await receiver();
    try {
      await call(emu, "POST", `${V2}/webhook`, {
        token,
        body: { event: "STORE_CONNECTIVITY", data: [{ url: rx.url, stores: [S1] }] },
      });
      const arrived = rx.next();
      const r = await call(emu, "PUT", `${V2}/availability/stores`, { token, body: { turn_off: [S1] } });
      expect(r.status).toBe(200);
      const got = await arrived;
      expect(JSON.parse(got.raw)).toMatchObject({ external_store_id: "bog-centro", enabled: false });
      expect(typeof (JSON.parse(got.raw) as { message: unknown }).message).toBe("string");
    } finally {
      await rx.close();
    }
  });

  it("skips disabled stores, sends client-level events unsigned without a secret, records failures", async () => {
    const rx = await receiver(500);
    try {
      await call(emu, "POST", `${V2}/webhook`, {
        token,
        body: { event: "PING", data: [{ url: rx.url }] },
      });
      await call(emu, "PUT", `${V2}/webhook/PING/change-status`, {
        token,
        body: { stores: { disable: [S2] } },
      });
      expect(await emu.trigger("PING", STORE2)).toEqual([]);
      const [d] = await emu.trigger("PING", STORE);
      expect(d!.status).toBe(500);

      await call(emu, "POST", `${V2}/clients/acme/webhooks`, {
        token,
        body: { event: "STORE_PROVISIONING_STATUS", url: rx.url },
      });
      const [p] = await emu.trigger("STORE_PROVISIONING_STATUS", STORE);
      expect(p).toMatchObject({ signed: false, client_id: "acme" });
      expect(rx.got.at(-1)!.headers["platform-signature"]).toBeUndefined();

      // A receiver that is gone: the failure is recorded, nothing throws.
      const gone = await receiver();
      await gone.close();
      await call(emu, "PUT", `${V2}/webhook/PING/change-url`, {
        token,
        body: { url: gone.url, stores: [S1] },
      });
      const [f] = await emu.trigger("PING", STORE);
      expect(f!.status).toBeUndefined();
      expect(f!.error).toBeTruthy();
      const log = (await call(emu, "GET", "/__emulator/deliveries")).body as { event: string }[];
      expect(log.map((x) => x.event)).toEqual(["PING", "STORE_PROVISIONING_STATUS", "PING"]);
    } finally {
      await rx.close();
    }
  });
});
