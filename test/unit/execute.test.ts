import { describe, expect, it } from "vitest";
import { executePlan, executePlanFully } from "../../src/apply/execute.js";
import { ApiError } from "../../src/errors.js";
import type { Operation, Plan } from "../../src/plan/types.js";
import type { PlatformClient } from "../../src/platform/client.js";
import "../../src/kinds/registry.js";

function op(id: string, endpoint: string, stage: number, extra: Partial<Operation> = {}): Operation {
  return {
    id,
    endpoint,
    stage,
    stores: ["s1"],
    method: "POST",
    path: `/${id}`,
    body: [],
    idempotent: true,
    addresses: [`store[s1].x[${id}]`],
    ...extra,
  };
}

function plan(operations: Operation[]): Plan {
  return {
    formatVersion: 1,
    stores: [{ key: "s1", storeId: "1", name: "One" }],
    changes: [],
    operations,
    summary: { create: 0, update: 0, delete: 0, operations: operations.length, stores: 1 },
    checksums: { current: "", desired: "" },
    safety: { ok: true, violations: [] },
  };
}

/** A client whose calls answer from a script: path → list of outcomes (an error, or a body). */
function scripted(script: Record<string, unknown[]>): PlatformClient & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    call: async (method: string, path: string) => {
      calls.push(`${method} ${path}`);
      const next = script[path]?.shift();
      if (next instanceof Error) throw next;
      return next ?? { message: "ok" };
    },
  } as unknown as PlatformClient & { calls: string[] };
}

const dropped = () =>
  new ApiError({ method: "POST", path: "/x", status: 0, platformMessage: "socket hang up" });

describe("executePlan", () => {
  it("skips only the later calls of the failed chain in that store", async () => {
    const client = scripted({ "/hours": [new ApiError({ method: "POST", path: "/hours", status: 400 })] });
    const results = await executePlan(
      plan([
        op("hours", "store_hours.create", 14, { addresses: ["store[s1].store_hours[mon]"] }),
        op("hours2", "utils.slot.delete", 15, { addresses: ["store[s1].store_hours[tue]"] }),
        op("hook", "webhook.change-url", 32),
        op("items", "items.upsert", 1),
      ]),
      client,
    );
    expect(Object.fromEntries(results.map((r) => [r.id, r.status]))).toEqual({
      items: "ok",
      hours: "failed",
      hours2: "skipped",
      hook: "ok",
    });
  });

  it("settles a lost answer of a synchronous create by reading: made again when it had not happened", async () => {
    const client = scripted({ "/hours": [dropped()] });
    const rechecked: string[] = [];
    const results = await executePlan(
      plan([op("hours", "store_hours.create", 14, { idempotent: false })]),
      client,
      {
        settle: async (o) => {
          rechecked.push(o.id);
          return "absent";
        },
      },
    );
    expect(rechecked).toEqual(["hours"]);
    expect(client.calls).toEqual(["POST /hours", "POST /hours"]);
    expect(results[0]).toMatchObject({
      status: "ok",
      message: "made again after a read showed it had not happened",
    });
  });

  it("settles by a read also the answer lost the last time a call was made again", async () => {
    // Three answers lost; the platform made only the third call. Every lost answer is read, the last
    // one too: the call is reported made, never failed while the platform has it.
    const client = scripted({ "/hours": [dropped(), dropped(), dropped()] });
    const seen: string[] = ["absent", "absent", "present"];
    const results = await executePlan(
      plan([op("hours", "store_hours.create", 14, { idempotent: false })]),
      client,
      { settle: async () => seen.shift() as "absent" | "present" },
    );
    expect(client.calls).toEqual(["POST /hours", "POST /hours", "POST /hours"]);
    expect(seen).toEqual([]);
    expect(results[0]).toMatchObject({ status: "ok" });

    // Never made: after the second repetition a read still shows nothing, and it is not sent again.
    const never = scripted({ "/hours": [dropped(), dropped(), dropped()] });
    const [result] = await executePlan(
      plan([op("hours", "store_hours.create", 14, { idempotent: false })]),
      never,
      { settle: async () => "absent" },
    );
    expect(never.calls).toHaveLength(3);
    expect(result).toMatchObject({ status: "failed" });
    expect(result!.message).toContain("a read shows it was not made");
  });

  it("does not repeat a create whose effect a read shows", async () => {
    const client = scripted({ "/hours": [dropped()] });
    const results = await executePlan(
      plan([op("hours", "store_hours.create", 14, { idempotent: false })]),
      client,
      {
        settle: async () => "present",
      },
    );
    expect(client.calls).toEqual(["POST /hours"]);
    expect(results[0]!.status).toBe("ok");
  });

  it("gives an asynchronous create (menu API) time to show, and never makes it again blindly", async () => {
    const client = scripted({ "/menu": [dropped()] });
    const waits: number[] = [];
    const results = await executePlan(plan([op("menu", "menus.upsert", 3, { idempotent: false })]), client, {
      settleMs: 1234,
      settle: async (_o, waitMs) => {
        waits.push(waitMs);
        return "absent";
      },
    });
    expect(waits).toEqual([1234]);
    // Not shown after the settle window: it may still be processing, so it is not sent again.
    expect(client.calls).toEqual(["POST /menu"]);
    expect(results[0]).toMatchObject({ status: "failed", unsettled: true });
  });

  it("rotates the secret of a webhook create whose answer was lost once a read shows it made", async () => {
    const client = scripted({ "/hook": [dropped()] });
    const rotated: string[] = [];
    const results = await executePlan(
      plan([
        op("hook", "webhook.create", 30, {
          idempotent: false,
          stores: ["s1"],
          params: { event: "NEW_ORDER" },
          parts: [{ store: "s1", element: { store: "1", url: "https://h.example/x" } }],
        }),
      ]),
      client,
      {
        settle: async () => "present",
        recoverSecret: async (o) => {
          rotated.push(String(o.params?.event));
          return "secrets.json";
        },
      },
    );
    expect(client.calls).toEqual(["POST /hook"]);
    expect(rotated).toEqual(["NEW_ORDER"]);
    expect(results[0]).toMatchObject({
      status: "ok",
      message: expect.stringContaining("secret was rotated"),
    });
  });

  it("reports a lost answer it cannot settle as failed with an unknown outcome, without making it again", async () => {
    const client = scripted({ "/hours": [dropped()] });
    const results = await executePlan(
      plan([op("hours", "store_hours.create", 14, { idempotent: false })]),
      client,
      { settle: async () => "partial" },
    );
    expect(client.calls).toHaveLength(1);
    expect(results[0]).toMatchObject({
      status: "failed",
      message: expect.stringContaining("outcome unknown"),
    });
  });

  it("refuses a store whose state changed before its first write, and only that store", async () => {
    const client = scripted({});
    const asked: string[] = [];
    const p = plan([
      op("a1", "items.upsert", 1, { stores: ["a"] }),
      op("b1", "items.upsert", 1, { stores: ["b"] }),
      op("a2", "menus.upsert", 3, { stores: ["a"] }),
      op("b2", "menus.upsert", 3, { stores: ["b"] }),
    ]);
    const results = await executePlan(p, client, {
      beforeStore: async (s) => {
        asked.push(s);
        if (s === "b") throw new Error("the store changed");
      },
    });
    expect(asked.sort()).toEqual(["a", "b"]);
    expect(Object.fromEntries(results.map((r) => [r.id, r.status]))).toEqual({
      a1: "ok",
      b1: "failed",
      a2: "ok",
      b2: "skipped",
    });
    expect(client.calls).toEqual(["POST /a1", "POST /a2"]);
    expect(results.find((r) => r.id === "b1")?.message).toContain("refused: b: the store changed");
  });

  it("makes a call for several stores without the entries of a store that failed, and says what it sent", async () => {
    const client = scripted({ "/a1": [new ApiError({ method: "POST", path: "/a1", status: 400 })] });
    const toggle = (store: string) => ({
      store,
      element: { integrationId: store, sku: "FRIES", on: false },
    });
    const p = plan([
      op("a1", "items.upsert", 1, { stores: ["a"] }),
      op("avail", "availability.toggle", 7, {
        method: "PUT",
        stores: ["a", "b"],
        parts: [toggle("a"), toggle("b")],
        addresses: ["store[a].availability[FRIES]", "store[b].availability[FRIES]"],
      }),
    ]);
    const { results, sent } = await executePlanFully(p, client);
    expect(Object.fromEntries(results.map((r) => [r.id, r.status]))).toEqual({ a1: "failed", avail: "ok" });
    expect(results.find((r) => r.id === "avail")?.message).toBe(
      "entries of a skipped: an earlier call for them failed",
    );
    // What a read can show of the call is b's entry alone (the apply watches that, not a's).
    expect(sent.get("avail")).toMatchObject({
      stores: ["b"],
      parts: [toggle("b")],
      addresses: ["store[b].availability[FRIES]"],
      body: [{ store_integration_id: "b", items: { turn_off: ["FRIES"] } }],
    });
    expect(sent.has("a1")).toBe(false);
  });

  it("settles by reading a call refused after an attempt whose answer was lost", async () => {
    const refusedAfterLoss = new ApiError({
      method: "PUT",
      path: "/hook",
      status: 503,
      platformMessage: "Service unavailable",
      earlierAnswerLost: true,
    });
    const client = scripted({ "/hook": [refusedAfterLoss] });
    const read: string[] = [];
    const results = await executePlan(plan([op("hook", "webhook.change-status", 33)]), client, {
      settle: async (o) => {
        read.push(o.id);
        return "present";
      },
    });
    expect(read).toEqual(["hook"]);
    expect(results.map((r) => [r.status, r.message])).toEqual([
      ["ok", "the answer was lost, and a read shows the change was made"],
    ]);
  });

  it("gives up after two rounds of reading and making again", async () => {
    const client = scripted({ "/hours": [dropped(), dropped(), dropped()] });
    const results = await executePlan(
      plan([op("hours", "store_hours.create", 14, { idempotent: false })]),
      client,
      {
        settle: async () => "absent",
      },
    );
    expect(client.calls).toHaveLength(3);
    expect(results[0]).toMatchObject({
      status: "failed",
      message: expect.stringContaining("socket hang up"),
    });
  });

  it("never repeats a create the platform refused with a 4xx", async () => {
    const client = scripted({ "/hours": [new ApiError({ method: "POST", path: "/hours", status: 409 })] });
    let asked = false;
    const results = await executePlan(
      plan([op("hours", "store_hours.create", 14, { idempotent: false })]),
      client,
      {
        settle: async () => {
          asked = true;
          return "present";
        },
      },
    );
    expect(asked).toBe(false);
    expect(client.calls).toHaveLength(1);
    expect(results[0]!.status).toBe("failed");
  });

  it("keeps hours, holidays and special days apart: a failed hours call skips no holiday", async () => {
    const client = scripted({ "/hours": [new ApiError({ method: "POST", path: "/hours", status: 400 })] });
    const results = await executePlan(
      plan([
        op("hours", "store_hours.create", 14, { addresses: ["store[s1].store_hours[mon]"] }),
        op("hol", "holiday.slots.create", 15, { addresses: ["store[s1].holiday[12-25]"] }),
      ]),
      client,
    );
    expect(results.map((r) => r.status)).toEqual(["failed", "ok"]);
  });
});

describe("executePlan: order", () => {
  /** A client whose calls wait until released, and which logs when each starts and ends. */
  function gated() {
    const log: string[] = [];
    const waiting = new Map<string, () => void>();
    const started = new Map<string, () => void>();
    const startedP = new Map<string, Promise<void>>();
    const whenStarted = (path: string) => {
      let p = startedP.get(path);
      if (!p) {
        p = new Promise<void>((r) => started.set(path, r));
        startedP.set(path, p);
      }
      return p;
    };
    const client = {
      call: async (_method: string, path: string) => {
        log.push(`start ${path}`);
        void whenStarted(path);
        started.get(path)?.();
        await new Promise<void>((r) => waiting.set(path, r));
        log.push(`end ${path}`);
        return { message: "ok" };
      },
    } as unknown as PlatformClient;
    const release = async (path: string) => {
      await whenStarted(path);
      waiting.get(path)!();
    };
    return { client, log, release, whenStarted };
  }
  const two = (operations: Operation[]): Plan => ({
    ...plan(operations),
    stores: [
      { key: "s1", storeId: "1", name: "One" },
      { key: "s2", storeId: "2", name: "Two" },
    ],
  });
  const of = (store: string, id: string, endpoint: string, stage: number, extra: Partial<Operation> = {}) =>
    op(`${store}-${id}`, endpoint, stage, {
      stores: [store],
      path: `/${store}/${id}`,
      addresses: [`store[${store}].x[${id}]`],
      ...extra,
    });

  /** Items then menu, in each of the two stores. */
  const itemsThenMenu = () =>
    ["s1", "s2"].flatMap((s) => [of(s, "items", "items.upsert", 1), of(s, "menu", "menus.upsert", 3)]);

  it("keeps each store's stages in order, without making one store wait for another's", async () => {
    const { client, log, release, whenStarted } = gated();
    const run = executePlan(two(itemsThenMenu()), client);
    // s2's menu is made while s1's items are still in flight: no stage waits for every store.
    await release("/s2/items");
    await release("/s2/menu");
    expect(log).not.toContain("start /s1/menu");
    await release("/s1/items");
    await whenStarted("/s1/menu");
    await release("/s1/menu");
    await run;
    expect(log.indexOf("end /s2/menu")).toBeLessThan(log.indexOf("end /s1/items"));
    expect(log.indexOf("start /s1/menu")).toBeGreaterThan(log.indexOf("end /s1/items"));
  });

  it("makes a client-level call after every earlier call, and every later call after it", async () => {
    const { client, log, release } = gated();
    const run = executePlan(
      two([
        of("s1", "items", "items.upsert", 1),
        of("s2", "items", "items.upsert", 1),
        op("client", "client_webhook.put", 35, {
          stores: [],
          path: "/client",
          addresses: ["client.webhooks[x]"],
        }),
        of("s2", "open", "store_availability.enable", 50),
      ]),
      client,
    );
    await release("/s2/items");
    await new Promise((r) => setTimeout(r, 20));
    expect(log).not.toContain("start /client");
    await release("/s1/items");
    await release("/client");
    await release("/s2/open");
    await run;
    expect(log.indexOf("start /client")).toBeGreaterThan(log.indexOf("end /s1/items"));
    expect(log.indexOf("start /s2/open")).toBeGreaterThan(log.indexOf("end /client"));
  });

  it("opens a store after every chain of that store, and only that store", async () => {
    const { client, log, release, whenStarted } = gated();
    const run = executePlan(
      two([
        of("s1", "hours", "store_hours.create", 14, { addresses: ["store[s1].store_hours[mon]"] }),
        of("s2", "hours", "store_hours.create", 14, { addresses: ["store[s2].store_hours[mon]"] }),
        of("s1", "hook", "webhook.change-url", 32),
        of("s1", "open", "store_availability.enable", 50),
      ]),
      client,
    );
    await release("/s1/hook");
    await release("/s1/hours");
    await whenStarted("/s1/open");
    expect(log).not.toContain("end /s2/hours");
    await release("/s1/open");
    await release("/s2/hours");
    await run;
    expect(log.indexOf("start /s1/open")).toBeGreaterThan(log.indexOf("end /s1/hours"));
    expect(log.indexOf("start /s1/open")).toBeGreaterThan(log.indexOf("end /s1/hook"));
  });

  it("checks a store before its first write without holding a call slot", async () => {
    const { client, release, whenStarted } = gated();
    // With one slot, s1's check waits for s2's call: a check holding the slot would never end.
    const run = executePlanFully(
      two([of("s1", "items", "items.upsert", 1), of("s2", "items", "items.upsert", 1)]),
      client,
      {
        parallelism: 1,
        beforeStore: async (s) => {
          if (s === "s1") await whenStarted("/s2/items");
        },
      },
    );
    await release("/s2/items");
    await release("/s1/items");
    const { results } = await run;
    expect(results.map((r) => r.status)).toEqual(["ok", "ok"]);
  });

  it("checks each store once, before its first call", async () => {
    const log: string[] = [];
    const client = {
      call: async (_m: string, path: string) => {
        log.push(`call ${path}`);
        await new Promise((r) => setTimeout(r, 2));
        return { message: "ok" };
      },
    } as unknown as PlatformClient;
    const stores = ["s1", "s2", "s3", "s4", "s5", "s6"];
    const operations = stores.flatMap((s) => [
      of(s, "items", "items.upsert", 1),
      of(s, "categories", "categories.upsert", 2),
      of(s, "menus", "menus.upsert", 3),
    ]);
    const checked: string[] = [];
    await executePlan(
      { ...plan(operations), stores: stores.map((k, i) => ({ key: k, storeId: `${i + 1}`, name: k })) },
      client,
      {
        parallelism: 1,
        beforeStore: async (s) => {
          log.push(`check ${s}`);
          checked.push(s);
          await new Promise((r) => setTimeout(r, 5));
          log.push(`checked ${s}`);
        },
      },
    );
    expect([...checked].sort()).toEqual(stores);
    for (const s of stores) {
      expect(log.indexOf(`checked ${s}`)).toBeLessThan(log.indexOf(`call /${s}/items`));
    }
  });

  it("tells when each store's last call ended, and whether all of them succeeded", async () => {
    const client = scripted({
      "/s2/menu": [new ApiError({ method: "POST", path: "/s2/menu", status: 400 })],
    });
    const done: [string, boolean][] = [];
    await executePlan(two(itemsThenMenu()), client, { onStoreDone: (s, clean) => done.push([s, clean]) });
    expect(done.sort()).toEqual([
      ["s1", true],
      ["s2", false],
    ]);
  });
});

describe("one store's refusal inside a call for several stores", () => {
  const toggle = (store: string) => ({ store, element: { integrationId: store, sku: "FRIES", on: false } });
  const twoStores = () =>
    plan([
      op("avail", "availability.toggle", 7, {
        method: "PUT",
        path: "/avail",
        stores: ["a", "b"],
        body: ["a", "b"].map((s) => ({ store_integration_id: s, items: { turn_off: ["FRIES"] } })),
        parts: [toggle("a"), toggle("b")],
        addresses: ["store[a].availability[FRIES]", "store[b].availability[FRIES]"],
      }),
      op("markA", "availability.mark", 8, {
        stores: ["a"],
        path: "/markA",
        addresses: ["store[a].availability[FRIES]"],
      }),
      op("markB", "availability.mark", 8, {
        stores: ["b"],
        path: "/markB",
        addresses: ["store[b].availability[FRIES]"],
      }),
    ]);

  /** A platform that refuses any availability call carrying store a's entry, as it refuses an unknown store. */
  function refusingA(): PlatformClient & { bodies: string[] } {
    const bodies: string[] = [];
    return {
      bodies,
      call: async (method: string, path: string, body?: { json?: unknown } | unknown) => {
        const text =
          body === undefined ? "" : Buffer.from((body as { bytes?: Uint8Array }).bytes ?? []).toString();
        bodies.push(`${method} ${path} ${text}`);
        if (path === "/avail" && text.includes('"a"'))
          throw new ApiError({ method, path, status: 400, platformMessage: "Error updating items" });
        return { message: "ok" };
      },
    } as unknown as PlatformClient & { bodies: string[] };
  }

  it("makes the call again store by store, keeps the others' changes and skips only that store's later calls", async () => {
    const client = refusingA();
    const done: [string, boolean][] = [];
    const { results, sent } = await executePlanFully(twoStores(), client, {
      onStoreDone: (s, clean) => done.push([s, clean]),
    });
    const avail = results.find((r) => r.id === "avail")!;
    expect(avail.status).toBe("failed");
    expect(avail.failedStores).toEqual(["a"]);
    expect(avail.message).toBe(
      "HTTP 400: Error updating items as one call for 2 stores; made again store by store: " +
        "failed for a (HTTP 400: Error updating items); made for b",
    );
    // b's later call is made; a's is skipped, without a doubled prefix.
    expect(Object.fromEntries(results.map((r) => [r.id, r.status]))).toEqual({
      avail: "failed",
      markA: "skipped",
      markB: "ok",
    });
    expect(results.find((r) => r.id === "markA")!.message).toBe("an earlier call for a failed");
    expect(sent.get("avail")).toMatchObject({ stores: ["b"] });
    expect(done.sort()).toEqual([
      ["a", false],
      ["b", true],
    ]);
  });

  it("leaves out of a call by integration id a store whose pairing check refuses it", async () => {
    const client = scripted({});
    const asked: string[] = [];
    const { results, refused, sent } = await executePlanFully(twoStores(), client, {
      beforeByIntegration: async (s) => {
        asked.push(s);
        if (s === "a") throw new Error('stores/a.yaml:3:20: integration_id: "x" is another store\'s');
      },
    });
    expect(asked.sort()).toEqual(["a", "b"]);
    expect(refused).toEqual([
      { store: "a", reason: 'stores/a.yaml:3:20: integration_id: "x" is another store\'s' },
    ]);
    expect(sent.get("avail")).toMatchObject({ stores: ["b"] });
    expect(Object.fromEntries(results.map((r) => [r.id, r.status]))).toEqual({
      avail: "ok",
      markA: "skipped",
      markB: "ok",
    });
    expect(client.calls).toEqual(["PUT /avail", "POST /markB"]);
  });
});
