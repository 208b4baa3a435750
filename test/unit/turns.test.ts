import { describe, expect, it } from "vitest";
import { afterStartedCalls, inTurn } from "../../src/platform/turns.js";

/** Counts the event loop's check phases (one `setImmediate` a turn) until `stop` is called. */
function turnCounter() {
  let turns = 0;
  let on = true;
  const tick = () => {
    turns++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    now: () => turns,
    stop: () => void (on = false),
  };
}

describe("turns of the event loop", () => {
  it("afterStartedCalls resolves two check phases later", async () => {
    const counter = turnCounter();
    await afterStartedCalls();
    counter.stop();
    expect(counter.now()).toBeGreaterThanOrEqual(2);
  });

  it("runs the tasks given together one at a time, in order, with turns of the loop between them", async () => {
    const counter = turnCounter();
    const ran: { task: number; turn: number }[] = [];
    const results = await Promise.all(
      [1, 2, 3, 4].map((task) =>
        inTurn(() => {
          ran.push({ task, turn: counter.now() });
          return task * 10;
        }),
      ),
    );
    counter.stop();
    expect(results).toEqual([10, 20, 30, 40]);
    expect(ran.map((r) => r.task)).toEqual([1, 2, 3, 4]);
    // The first waits for the calls started so far; each next one for a turn to read the answers that
    // came meanwhile and for the calls they started to be written: three check phases at least.
    expect(ran[0]!.turn).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < ran.length; i++) expect(ran[i]!.turn - ran[i - 1]!.turn).toBeGreaterThanOrEqual(3);
  });

  it("rejects a task's own promise with its error and goes on with the next tasks", async () => {
    const first = inTurn(() => {
      throw new Error("not JSON");
    });
    const second = inTurn(() => "next");
    await expect(first).rejects.toThrow("not JSON");
    await expect(second).resolves.toBe("next");
  });
});
