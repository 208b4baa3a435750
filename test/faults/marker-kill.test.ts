/**
 * carte's availability marker survives a kill at every step between the toggle that switches an item
 * off and the upsert that marks it as carte's (two calls, spec §4.3 then §4.4). A real `carte apply`
 * process is killed with SIGKILL while one of the two calls fails in a chosen way; whatever the
 * platform was left with, the next plan restores the marker (and nothing else), an apply writes it,
 * and removing the SKU from `unavailable:` then switches the item back on: carte still owns it.
 */

import { spawn } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { RouteFaultRule } from "../../src/emulator/index.js";
import { PlatformClient } from "../../src/platform/client.js";
import type { Item } from "../../src/generated/platform.js";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  carte,
  edit,
  exampleAgainstEmulator,
  repoRoot,
} from "../helpers/project.js";

const STORE_ID = "900101";
const SKU = "SIDE-FRIES";
const TOGGLE = "/api/v2/restaurants-integrations-public-api/availability/stores/items";
const UPSERT = `/restaurants/menu/v1/stores/${STORE_ID}/items`;

let cleanup: (() => Promise<void>) | undefined;
/** Kills the carte processes started ahead and not used. */
const stop = new Set<() => void>();
afterEach(async () => {
  for (const kill of stop) kill();
  stop.clear();
  await cleanup?.();
  cleanup = undefined;
});

/** The item as the platform shows it. */
async function itemOf(client: PlatformClient): Promise<Item> {
  const menu = await client.getStoreMenu(STORE_ID);
  const found = menu.items.find((i) => i.sku === SKU);
  expect(found).toBeDefined();
  return found as Item;
}

/** A carte process started ahead, its modules loaded, waiting for the arguments of its one run. */
interface ReadyCarte {
  /** Runs `args` (the CLI's own path, src/cli/main.ts `runCli`) and kills it (SIGKILL) once `until` holds. */
  runUntilKilled(args: string[], until: () => boolean): Promise<NodeJS.Signals | null>;
}

/**
 * Starts a Node process that loads carte's built CLI and waits on its input for the arguments of one
 * run: starting Node and loading carte takes seconds on a busy machine, so the next step's process
 * starts while this step's in-process commands run. The run itself is the CLI's (`runCli`, as
 * bin/carte.js runs it), in a process of its own that a SIGKILL ends with nothing cleaned up.
 */
function startCarte(): ReadyCarte {
  const main = pathToFileURL(path.join(repoRoot, "dist", "cli", "main.js")).href;
  const script = `
    const { runCli } = await import(${JSON.stringify(main)});
    process.stdout.write("ready");
    const args = JSON.parse(await new Promise((resolve) => process.stdin.once("data", (d) => resolve(String(d)))));
    const write = (stream) => (s) => void stream.write(s);
    process.exitCode = await runCli(args, {
      out: write(process.stdout), err: write(process.stderr),
      stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, env: process.env,
    });`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env, CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET, NO_COLOR: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => void (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => void (out += d.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on("exit", (_code, signal) => resolve(signal)),
  );
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", () => out.startsWith("ready") && resolve());
    void exited.then(() => reject(new Error(`carte exited before its run: ${out}`)));
  });
  stop.add(() => child.kill("SIGKILL"));
  return {
    async runUntilKilled(args, until) {
      await ready;
      child.stdin.write(JSON.stringify(args));
      const deadline = Date.now() + 20_000;
      while (!until()) {
        if (Date.now() > deadline || child.exitCode !== null) {
          child.kill("SIGKILL");
          throw new Error(`the apply never reached the step: ${out}`);
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      child.kill("SIGKILL");
      return exited;
    },
  };
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
      const fx = await exampleAgainstEmulator(
        ["bog-centro", "bog-chapinero", "med-poblado"].map((s) => path.join("stores", `${s}.yaml`)),
      );
      const client = new PlatformClient({
        baseUrl: fx.emu.url,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
      });
      cleanup = async () => {
        await client.close();
        await fx.close();
      };
      const store = path.join(fx.dir, "stores", "bog-centro.yaml");
      let next = startCarte();
      expect((await carte(["apply", "--auto-approve", "-c", fx.config])).code).toBe(0);

      // Each step starts from SIDE-FRIES on and unmarked, and ends there again.
      for (const step of STEPS) {
        // The files switch SIDE-FRIES off; the apply dies between the toggle and the marker.
        edit(
          store,
          "unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE]",
          `unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE, ${SKU}]`,
        );
        fx.emu.setFaults({ routes: [step.rule] });
        const before = fx.emu.requests.length;
        const signal = await next.runUntilKilled(["apply", "--auto-approve", "-c", fx.config], () =>
          fx.emu.requests.slice(before).some((r) => r.path === step.route && r.fault !== undefined),
        );
        expect(signal, step.name).toBe("SIGKILL");
        if (step !== STEPS.at(-1)) next = startCarte();
        fx.emu.setFaults(undefined);
        // The emulator applies availability changes a moment after answering.
        await new Promise((r) => setTimeout(r, 100));
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
