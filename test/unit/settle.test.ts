import { describe, expect, it } from "vitest";
import { readEffect } from "../../src/apply/settle.js";
import type { PlatformClient } from "../../src/platform/client.js";
import type { Operation, Plan } from "../../src/plan/types.js";

/** An operation of an endpoint that declares no effect of its own, writing one address. */
function op(i: number, address: string): Operation {
  return {
    id: `s${i}:custom.write`,
    endpoint: "custom.write",
    stage: 0,
    stores: [`s${i}`],
    method: "PUT",
    path: `/x/${i}`,
    body: {},
    idempotent: true,
    addresses: [address],
  };
}

describe("settling lost answers", () => {
  it("looks through the plan's operations once, not once per settle", async () => {
    // 2,000 calls; the first and the last write the same address, so that a scan for another writer of
    // it goes through the whole list. 200 settles of lost answers follow.
    const operations = Array.from({ length: 2000 }, (_, i) =>
      op(i, i === 1999 ? "s0/custom/a" : `s${i}/custom/a`),
    );
    let reads = 0;
    const counted = new Proxy(operations, {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const plan = { stores: [], changes: [], operations: counted } as unknown as Plan;
    const client = {} as PlatformClient;
    for (let n = 0; n < 200; n++) {
      // Another call writes its address: no read can tell whether this one was made.
      expect(await readEffect(plan, operations[0]!, client)).toBe("unknown");
      // No other call writes this one's, and the plan has no change of it: nothing to read either.
      expect(await readEffect(plan, operations[5]!, client)).toBe("unknown");
    }
    // Once through the list for all 400 settles (each of them used to go through it again).
    expect(reads).toBeLessThanOrEqual(2 * operations.length);
  });
});
