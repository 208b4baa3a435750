import { describe, expect, it } from "vitest";
import { executePlan } from "../../src/apply/execute.js";
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
        recheck: async (o) => {
          rechecked.push(o.id);
          return false;
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

  it("does not repeat a create whose effect a read shows", async () => {
    const client = scripted({ "/hours": [dropped()] });
    const results = await executePlan(
      plan([op("hours", "store_hours.create", 14, { idempotent: false })]),
      client,
      {
        recheck: async () => true,
      },
    );
    expect(client.calls).toEqual(["POST /hours"]);
    expect(results[0]!.status).toBe("ok");
  });

  it("gives an asynchronous create (menu API) time to show before making it again", async () => {
    const client = scripted({ "/menu": [dropped()] });
    const waits: number[] = [];
    const results = await executePlan(plan([op("menu", "menus.upsert", 3, { idempotent: false })]), client, {
      settleMs: 1234,
      recheck: async (_o, waitMs) => {
        waits.push(waitMs);
        return false;
      },
    });
    expect(waits).toEqual([1234]);
    expect(client.calls).toEqual(["POST /menu", "POST /menu"]);
    expect(results[0]!.status).toBe("ok");
  });

  it("gives up after two rounds of reading and making again", async () => {
    const client = scripted({ "/hours": [dropped(), dropped(), dropped()] });
    const results = await executePlan(
      plan([op("hours", "store_hours.create", 14, { idempotent: false })]),
      client,
      {
        recheck: async () => false,
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
        recheck: async () => (asked = true),
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
