import diagnostics from "node:diagnostics_channel";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { items } from "../../src/kinds/items.js";
import { storeHours } from "../../src/kinds/store-hours.js";
import { perStoreRead, type ResourceKind } from "../../src/kinds/resource-kind.js";
import { PlatformClient } from "../../src/platform/client.js";
import type { StoreIdentity } from "../../src/model.js";
import { fetchCurrent, readCurrent, storeBatcher, type ReadRequest } from "../../src/state/current.js";
import { storeOrderedLimit } from "../../src/platform/limit.js";
import { applyPlan } from "../../src/run/apply-plan.js";
import { planProject } from "../../src/run/plan-project.js";
import { exampleSession } from "../helpers/session.js";
import { CLIENT_ID, CLIENT_SECRET } from "../helpers/project.js";
import { hoursState } from "../../src/kinds/store-schedule.js";

const identity = (i: number): StoreIdentity => ({
  key: `s${String(i).padStart(2, "0")}`,
  storeId: String(700_000 + i),
  integrationId: `s${String(i).padStart(2, "0")}`,
  name: `Store ${i}`,
});

let emu: RunningEmulator | undefined;
let client: PlatformClient | undefined;
afterEach(async () => {
  await client?.close();
  await emu?.close();
  emu = undefined;
  client = undefined;
});

async function stores(n: number) {
  const list = Array.from({ length: n }, (_, i) => identity(i));
  emu = await startEmulator({
    port: 0,
    seed: {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          stores: list.map((s) => ({ id: s.storeId, integration_id: s.integrationId, name: s.name })),
        },
      ],
    },
  });
  client = new PlatformClient({
    baseUrl: emu.url,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    requestsPerSecond: Infinity,
  });
  return list;
}

/** Reads made so far, logins left out. */
const readsSoFar = () => emu!.requests.filter((r) => !r.path.includes("/token/")).length;

describe("the streaming reader", () => {
  it("hands stores over one after another while later stores are still to be read", async () => {
    const list = await stores(12);
    const requests: ReadRequest[] = list.map((store) => ({
      store,
      kinds: [items, storeHours] as ResourceKind<unknown>[],
    }));
    const seen: { key: string; reads: number }[] = [];
    await readCurrent(client!, requests, (key) => seen.push({ key, reads: readsSoFar() }), {
      parallelism: 2,
    });
    expect(seen.map((s) => s.key).sort()).toEqual(list.map((s) => s.key));
    // Two reads per store (menu, hours), 24 in all: stores are handed over while later stores are still
    // read, not after every store's menu. Each waits for the calls started in its slots' place to be
    // written, and the stores go one a few turns of the event loop apart (src/platform/turns.ts
    // `inTurn`), so against this local emulator, which answers at once, they trail the reads: the
    // first after its own reads and up to one more a slot, half of them before the last read.
    expect(seen[0]!.reads).toBeLessThanOrEqual(2 + 2 + 2);
    seen.slice(0, list.length / 2).forEach((s) => expect(s.reads).toBeLessThan(2 * list.length));
  });

  it("hands a store over only once the calls started in its place are written", async () => {
    const list = await stores(14);
    const parallelism = 3;
    // undici reports each request as its headers are written to the connection.
    const sent: string[] = [];
    const onSend = (message: unknown) => {
      const path = (message as { request: { path: string } }).request.path;
      if (path.endsWith("/store-menu")) sent.push(path);
    };
    diagnostics.subscribe("undici:client:sendHeaders", onSend);
    const seen: number[] = [];
    try {
      await readCurrent(
        client!,
        list.map((store) => ({ store, kinds: [items] as ResourceKind<unknown>[] })),
        () => seen.push(sent.length),
        { parallelism },
      );
    } finally {
      diagnostics.unsubscribe("undici:client:sendHeaders", onSend);
    }
    // When the k-th store is handed over (counting from 0), k + 1 answers freed their slots, and the
    // calls started in their place are on their way: without the wait, the store's work would run
    // (and hold them back) before they are written.
    expect(seen).toHaveLength(list.length);
    seen.forEach((sends, k) =>
      expect(sends).toBeGreaterThanOrEqual(Math.min(list.length, parallelism + k + 1)),
    );
  });

  it("starts the next call before it parses a big answer", async () => {
    const events: string[] = [];
    const read = perStoreRead<string, string>(
      "fake",
      async (_client, s) => {
        events.push(`call ${s.key}`);
        await new Promise((r) => setTimeout(r, 5));
        return s.key;
      },
      (answer) => {
        events.push(`parse ${answer}`);
        return answer;
      },
    );
    const kind = { name: "fake", reads: [read] } as unknown as ResourceKind<unknown>;
    const list = [identity(1), identity(2), identity(3)];
    await readCurrent(
      {} as PlatformClient,
      list.map((store) => ({ store, kinds: [kind] })),
      () => {},
      {
        parallelism: 1,
      },
    );
    expect(events).toEqual(["call s01", "call s02", "parse s01", "call s03", "parse s02", "parse s03"]);
  });

  it("parses a big answer once the store's other parts are in, right before handing the store over", async () => {
    const events: string[] = [];
    const slow = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const big = perStoreRead<string, string>(
      "big",
      async (_client, s) => {
        events.push(`big ${s.key}`);
        return s.key;
      },
      (answer) => {
        events.push(`parse ${answer}`);
        if (answer === "s02") throw new Error("not JSON");
        return answer;
      },
    );
    const small = perStoreRead<string>("small", async (_client, s) => {
      await slow(10);
      events.push(`small ${s.key}`);
      return s.key;
    });
    const kind = { name: "fake", reads: [big, small] } as unknown as ResourceKind<unknown>;
    const run = (list: StoreIdentity[]) =>
      readCurrent(
        {} as PlatformClient,
        list.map((store) => ({ store, kinds: [kind] })),
        (key) => events.push(`store ${key}`),
        { parallelism: 2 },
      );
    await run([identity(1)]);
    expect(events).toEqual(["big s01", "small s01", "parse s01", "store s01"]);
    // A part that does not parse fails the read, as it did when it was parsed on arrival.
    await expect(run([identity(2)])).rejects.toThrow("not JSON");
  });

  it("reads a store asked twice once, for the kinds of both requests", async () => {
    const [a] = await stores(1);
    const state = await fetchCurrent(client!, [
      { store: a!, kinds: [items] as ResourceKind<unknown>[] },
      { store: a!, kinds: [storeHours] as ResourceKind<unknown>[] },
    ]);
    expect(Object.keys(state.stores)).toEqual([a!.key]);
    expect(hoursState.get(state.stores[a!.key]!)).toBeDefined();
    expect(emu!.requests.filter((r) => r.path.endsWith("/store-menu"))).toHaveLength(1);
  });
});

describe("the batching reader of an apply's checks", () => {
  const menuPath = (s: StoreIdentity) => `/restaurants/menu/v1/stores/${s.storeId}/store-menu`;
  const ask = (read: ReturnType<typeof storeBatcher>, store: StoreIdentity) =>
    read({ store, kinds: [items] as ResourceKind<unknown>[] });

  it("gives each store of a batch its state as soon as that store is read, not once the batch is", async () => {
    const [fast, slow] = await stores(2);
    // The slow store's menu is answered 400 ms after it was handled.
    emu!.setFaults({ routes: [{ prefix: menuPath(slow!), slowMs: 400 }] });
    const read = storeBatcher(client!, { limit: storeOrderedLimit(4, () => 0) });
    const started = performance.now();
    const at = new Map<string, number>();
    await Promise.all(
      [fast!, slow!].map((s) => ask(read, s).then(() => at.set(s.key, performance.now() - started))),
    );
    // One batch: the two menus were asked together.
    expect(emu!.requests.filter((r) => r.path.endsWith("/store-menu"))).toHaveLength(2);
    // The fast store did not wait for the slow one's answer.
    expect(at.get(fast!.key)!).toBeLessThan(at.get(slow!.key)! - 250);
  });

  it("gives a store whose read failed its own error, and the others of its batch their states", async () => {
    const [known] = await stores(1);
    const unknown = identity(9); // no such store on the platform: its reads are answered 404
    const read = storeBatcher(client!, { limit: storeOrderedLimit(4, () => 0) });
    const [good, bad] = await Promise.allSettled([ask(read, known!), ask(read, unknown)]);
    expect(good.status).toBe("fulfilled");
    expect(bad.status).toBe("rejected");
    expect(String((bad as PromiseRejectedResult).reason)).toContain("404");
  });
});

describe("verification after apply", () => {
  it("selects each kind once per store read, not once per change, and re-reads only what is pending", async () => {
    const ex = await exampleSession();
    try {
      const { plan } = await planProject(ex.project, ex.session);
      const itemChanges = plan.changes.filter((c) => c.kind === "item" || c.kind === "modifier_group");
      expect(itemChanges.length).toBeGreaterThan(50);
      const select = vi.spyOn(items, "select");
      ex.emu.clearRequests();
      const report = await applyPlan(plan, ex.session);
      expect(report.pending).toEqual([]);
      // Three stores, each read at least once after the calls: a few selects, far fewer than changes.
      const menuReads = ex.emu.requests.filter((r) => r.path.endsWith("/store-menu")).length;
      expect(menuReads).toBeGreaterThanOrEqual(3);
      expect(select.mock.calls.length).toBeLessThanOrEqual(menuReads);
      select.mockRestore();
    } finally {
      await ex.close();
    }
  });
});
