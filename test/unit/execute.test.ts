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
        op("hours", "store_hours.create", 14),
        op("holiday", "holiday.slots.create", 15),
        op("hook", "webhook.change-url", 32),
        op("items", "items.upsert", 1),
      ]),
      client,
    );
    expect(Object.fromEntries(results.map((r) => [r.id, r.status]))).toEqual({
      items: "ok",
      hours: "failed",
      holiday: "skipped",
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

  it("never settles by reading a call the platform applies later (menu API)", async () => {
    const client = scripted({ "/menu": [dropped()] });
    let asked = false;
    const results = await executePlan(plan([op("menu", "menus.upsert", 3, { idempotent: false })]), client, {
      recheck: async () => (asked = true),
    });
    expect(asked).toBe(false);
    expect(results[0]!.status).toBe("failed");
  });
});
