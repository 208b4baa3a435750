/**
 * The example chain applied through a chaos proxy (src/emulator/chaos.ts) that resets, cuts (mid-request
 * or mid-answer), stalls and delays connections between carte and the emulator (each request breaks
 * its connection with a seeded chance of 4 %, 50 % for the calls of the availability chain and of the
 * webhooks). After EVERY apply, the checks of test/faults/harness.ts
 * (no duplicate, no create accepted twice, no write outside the plan, a report that matches, never exit
 * 0 with work left); once it converged, exit 0, no lost availability marker, no lost webhook secret and
 * a next plan with "No changes". The 20-trial figures on a 30-store chain are `npm run bench:chaos`.
 */

import { afterEach, describe, expect, it } from "vitest";
import { chaosFixture, checkAfterApply, checkConverged, runApply, type ChaosFixture } from "./harness.js";

const open: ChaosFixture[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

const TOGGLE = /^PUT \S*\/availability\/stores\/items$/;
const ITEM_UPSERT = /^POST \/restaurants\/menu\/v1\/stores\/[^/]+\/items$/;
const WEBHOOK_WRITE = /^(POST|PUT|DELETE) \S*\/webhooks?(\/|$)/;
/**
 * The calls between an item switched off and carte's marker on it (the toggle, then an item upsert),
 * and those that carry or rotate webhook secrets, break their connection more often: one in two.
 */
const FOCUS = [TOGGLE, ITEM_UPSERT, WEBHOOK_WRITE].map((match) => ({ match, rate: 0.5 }));

/** Applies through the proxy until nothing is left (at most three applies), checking after each. */
async function untilConverged(fx: ChaosFixture, seed: number): Promise<number> {
  for (let run = 0; run < 3; run++) {
    const label = `seed ${seed}, apply ${run + 1}`;
    fx.proxy.setFaults({ seed: seed * 10 + run, rate: 0.04, stallMs: 2000, routes: FOCUS });
    const from = fx.emu.requests.length;
    const result = await runApply(fx, { seed: seed * 10 + run });
    fx.proxy.setFaults(undefined);
    fx.proxy.closeConnections();
    const left = await checkAfterApply(fx, result, fx.emu.requests.slice(from), label);
    if (left === 0) {
      // The exit code says whether the platform matches the files, both ways.
      expect(result.exitCode, `${label}: exit code with nothing left`).toBe(0);
      await checkConverged(fx, label);
      return run + 1;
    }
  }
  throw new Error(`seed ${seed}: changes left after three applies`);
}

describe("apply through a chaos proxy", () => {
  it("loses no marker and no secret, duplicates nothing and ends with a plan of no changes, whatever connection breaks", async () => {
    const seeds = [5, 8];
    const fixtures = await Promise.all(seeds.map(() => chaosFixture()));
    open.push(...fixtures);
    await Promise.all(fixtures.map((fx, i) => untilConverged(fx, seeds[i]!)));
    // The proxy really broke connections each way, on the availability chain and the webhooks among them.
    const events = fixtures.flatMap((fx) => fx.proxy.events);
    const broken = events.filter((e) => e.kind !== "delay");
    expect(new Set(broken.map((e) => e.where))).toEqual(new Set(["request", "answer"]));
    const on = (re: RegExp) => broken.filter((e) => re.test(`${e.method} ${e.path}`)).length;
    expect(on(TOGGLE) + on(ITEM_UPSERT), "broken between toggle and marker").toBeGreaterThan(0);
    expect(on(WEBHOOK_WRITE), "broken on a webhook write").toBeGreaterThan(0);
  }, 60_000);
});
