/**
 * carte's availability marker survives a kill at every step between the toggle that switches an item
 * off and the upsert that marks it as carte's (two calls, docs/platform-api.md §2.3 then §2.4). A real `carte
 * apply` process is killed with SIGKILL while one of the two calls fails in a chosen way; whatever the
 * platform was left with, the next plan restores the marker (and nothing else), an apply writes it, and
 * removing the SKU from `unavailable:` then switches the item back on: carte still owns it.
 */

import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RouteFaultRule } from "../../src/emulator/index.js";
import type { PlatformClient } from "../../src/platform/client.js";
import type { Item } from "../../src/generated/platform.js";
import { startCarte, type ReadyCarte } from "../helpers/kill.js";
import { carte, edit, exampleWithClient } from "../helpers/project.js";

const STORE_ID = "900101";
const SKU = "SIDE-FRIES";
const TOGGLE = "/api/v2/restaurants-integrations-public-api/availability/stores/items";
const UPSERT = `/restaurants/menu/v1/stores/${STORE_ID}/items`;

let cleanup: (() => Promise<void>) | undefined;
/** The carte processes started ahead, killed after the test if it did not use them. */
const started: ReadyCarte[] = [];
afterEach(async () => {
  for (const c of started.splice(0)) c.kill();
  await cleanup?.();
  cleanup = undefined;
});

/** A carte process started ahead of its run, killed after the test. */
function ahead(): ReadyCarte {
  const c = startCarte();
  started.push(c);
  return c;
}

/** The item as the platform shows it. */
async function itemOf(client: PlatformClient): Promise<Item> {
  const menu = await client.getStoreMenu(STORE_ID);
  const found = menu.items.find((i) => i.sku === SKU);
  expect(found).toBeDefined();
  return found as Item;
}

/** Where the apply is killed: the call that fails, and how. */
const STEPS: { name: string; rule: RouteFaultRule; route: string; offAfterKill: boolean }[] = [
  // The toggle never reached the platform: the item is still on.
  {
    name: "before the toggle is handled",
    rule: { prefix: TOGGLE, method: "PUT", faultRate: 1, faultKinds: ["drop"] },
    route: TOGGLE,
    offAfterKill: false,
  },
  // The toggle was handled, its answer lost: off, no marker.
  {
    name: "after the toggle, its answer lost",
    rule: { prefix: TOGGLE, method: "PUT", faultRate: 1, faultKinds: ["lost"] },
    route: TOGGLE,
    offAfterKill: true,
  },
  // The toggle answered, the marker's upsert never handled: off, no marker.
  {
    name: "before the marker is handled",
    rule: { prefix: UPSERT, method: "POST", faultRate: 1, faultKinds: ["drop"] },
    route: UPSERT,
    offAfterKill: true,
  },
  // The marker handled, its answer lost: off and marked.
  {
    name: "after the marker, its answer lost",
    rule: { prefix: UPSERT, method: "POST", faultRate: 1, faultKinds: ["lost"] },
    route: UPSERT,
    offAfterKill: true,
  },
];

describe("the availability marker after a kill", () => {
  it(
    "is restored by the next plan whichever step between toggle and marker the apply is killed at",
    { timeout: 120_000 },
    async () => {
      // The store whose item is switched off, alone: every apply reads and writes one store.
      const fx = await exampleWithClient(["bog-centro"]);
      const client = fx.client;
      cleanup = fx.close;
      const store = path.join(fx.dir, "stores", "bog-centro.yaml");
      // One process per step, each started two steps ahead (loading carte takes seconds on a busy
      // machine; more at once would slow the applies they overlap).
      const killers = STEPS.slice(0, 2).map(() => ahead());
      expect((await carte(["apply", "--auto-approve", "-c", fx.config])).code).toBe(0);

      // Each step starts from SIDE-FRIES on and unmarked, and ends there again.
      for (const [i, step] of STEPS.entries()) {
        // The files switch SIDE-FRIES off; the apply dies between the toggle and the marker.
        edit(
          store,
          "unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE]",
          `unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE, ${SKU}]`,
        );
        fx.emu.setFaults({ routes: [step.rule] });
        const before = fx.emu.requests.length;
        if (i + 2 < STEPS.length) killers.push(ahead());
        const signal = await killers[i]!.runUntilKilled(["apply", "--auto-approve", "-c", fx.config], () =>
          fx.emu.requests.slice(before).some((r) => r.path === step.route && r.fault !== undefined),
        );
        expect(signal, step.name).toBe("SIGKILL");
        fx.emu.setFaults(undefined);
        // The emulator applies availability changes a moment after answering.
        await fx.emu.idle();
        const left = await itemOf(client);
        expect(left.suspension_info.is_available, step.name).toBe(!step.offAfterKill);

        // The next plan: exactly what is missing for SIDE-FRIES, nothing else.
        const plan = await carte(["plan", "--json", "-c", fx.config]);
        expect(plan.code, step.name).toBe(0);
        const changes = (JSON.parse(plan.out) as { changes: { address: string }[] }).changes.map(
          (c) => c.address,
        );
        const marked = left.suspension_info.suspend_reason === "carte";
        expect(changes, step.name).toEqual(marked ? [] : [`store[bog-centro].availability[${SKU}]`]);

        const applied = await carte(["apply", "--auto-approve", "-c", fx.config]);
        expect(applied.err, step.name).not.toMatch(/failed|skipped/);
        expect(applied.code, step.name).toBe(0);
        expect((await itemOf(client)).suspension_info, step.name).toMatchObject({
          is_available: false,
          suspend_reason: "carte",
        });
        expect((await carte(["plan", "--detailed-exitcode", "-c", fx.config])).code, step.name).toBe(0);

        // carte still owns it: leaving `unavailable:` switches it back on.
        edit(store, `, ${SKU}]`, "]");
        expect((await carte(["apply", "--auto-approve", "-c", fx.config])).code, step.name).toBe(0);
        expect((await itemOf(client)).suspension_info.is_available, step.name).toBe(true);
      }
    },
  );
});
