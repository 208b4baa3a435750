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

  it("settles by a read also the answer lost the last time a call was made again (issue 11)", async () => {
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
