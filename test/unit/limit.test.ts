import { describe, expect, it } from "vitest";
import { storeOrderedLimit } from "../../src/platform/limit.js";

/** Calls that end when told: `started` in the order they began, `end(i)` settles the i-th. */
function gatedCalls() {
  const started: number[] = [];
  const enders = new Map<number, () => void>();
  const call = (i: number) => () =>
    new Promise<number>((resolve) => {
      started.push(i);
      enders.set(i, () => resolve(i));
    });
  const end = async (i: number) => {
    enders.get(i)!();
    await new Promise((r) => setImmediate(r));
  };
  return { started, call, end };
}

describe("the store-ordered concurrency bound", () => {
  it("starts waiting calls at once when widened, and starts no new one past the old bound once put back", async () => {
    const limit = storeOrderedLimit(2, () => 0);
    const { started, call, end } = gatedCalls();
    const all = [0, 1, 2, 3, 4, 5].map((i) => limit(call(i), "s"));
    expect(started).toEqual([0, 1]);
    const narrow = limit.widen(4);
    expect(started).toEqual([0, 1, 2, 3]);
    // A lower number leaves the bound as it is.
    limit.widen(1);
    await end(0);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    narrow();
    // Four in flight (1 to 4) against a bound of 2: the last call waits until fewer than two are.
    await end(1);
    await end(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    await end(3);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    await end(4);
    await end(5);
    expect(await Promise.all(all)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("refuses a bound that is not a whole number of at least 1", () => {
    expect(() => storeOrderedLimit(0, () => 0)).toThrow(TypeError);
    expect(() => storeOrderedLimit(2, () => 0).widen(1.5)).toThrow("whole number");
  });
});
