/**
 * A host per API group, end to end: the example chain planned, applied and planned again against an
 * emulator that serves each group at its own address, carte.yaml giving each group's address; the
 * calls each address received are counted, and none is of another group. `carte emulator
 * --split-hosts` prints the addresses for carte.yaml, and the embedded emulator splits its groups too.
 */

import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runCli } from "../../src/cli/main.js";
import type { CliIo } from "../../src/cli/io.js";
import { loadProject } from "../../src/config/index.js";
import { API_GROUPS, type ApiGroup } from "../../src/platform/routes.js";
import { openSession } from "../../src/run/session.js";
import { getRegularHours } from "../../src/platform/utils-calls.js";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  callsPerHost,
  carte,
  copyExample,
  edit,
  exampleAgainstSplitHosts,
  misroutedCalls,
  repoRoot,
  seedFor,
} from "../helpers/project.js";

const storeFiles = readdirSync(path.join(repoRoot, "examples", "chain", "stores"))
  .filter((f) => f.endsWith(".yaml"))
  .sort()
  .map((f) => path.join("stores", f));

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe("the example chain with each API group at its own address", () => {
  it("plans, applies and plans no changes; every call reached its group's address and none another's", async () => {
    const fx = await exampleAgainstSplitHosts(storeFiles);
    cleanup = fx.close;
    const plan = await carte(["plan", "-c", fx.config]);
    expect(plan.code).toBe(0);
    // The target names each address with its groups.
    const ports = API_GROUPS.map((g) => new URL(fx.emu.urls[g]).host);
    expect(plan.out.split("\n")[0]).toBe(
      `Target: platform at ${API_GROUPS.map((g, i) => `${ports[i]} (${g})`)
        .slice(0, -1)
        .join(", ")} and ${ports.at(-1)} (${API_GROUPS.at(-1)})`,
    );
    const applied = await carte(["apply", "--auto-approve", "-c", fx.config]);
    expect(applied.code).toBe(0);
    const again = await carte(["plan", "--detailed-exitcode", "-c", fx.config]);
    expect(again.out).toContain("No changes");
    expect(again.code).toBe(0);
    const status = await carte(["status", "-c", fx.config]);
    expect(status.code).toBe(0);
    const finance = await carte([
      "finance",
      "payments",
      "--from",
      "2025-01-01",
      "--to",
      "2025-03-31",
      "-c",
      fx.config,
    ]);
    expect(finance.code, finance.err).toBe(0);

    const counts = callsPerHost(fx.emu.requests);
    for (const group of API_GROUPS) {
      expect([group, counts.get(group)!.wrong]).toEqual([group, 0]);
      // The chain's files manage menus, availability, hours and webhooks; status reads whether stores
      // are open; finance reads payments; every run logs in.
      expect(counts.get(group)!.right, `calls at the ${group} address`).toBeGreaterThan(0);
    }
    expect(misroutedCalls(fx.emu.requests)).toEqual([]);
    expect(fx.emu.requests.filter((r) => r.status === 404)).toEqual([]);
  });

  it("fails a run whose carte.yaml gives a group another group's address, naming the 404", async () => {
    const fx = await exampleAgainstSplitHosts(storeFiles);
    cleanup = fx.close;
    edit(fx.config, `    utils: ${fx.emu.urls.utils}\n`, `    utils: ${fx.emu.urls.menu}\n`);
    const plan = await carte(["plan", "-c", fx.config]);
    expect(plan.code).toBe(1);
    expect(plan.err).toMatch(/GET \/api\/rest-ops-utils\/\S+ .*404/);
    expect(misroutedCalls(fx.emu.requests).length).toBeGreaterThan(0);
  });
});

/** An in-process `carte emulator` and what it printed; `stop` ends it. */
async function emulatorCommand(args: string[]): Promise<{ err: () => string; stop: () => Promise<number> }> {
  let err = "";
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const io: CliIo = {
    out: () => undefined,
    err: (s) => void (err += s),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    env: {},
    untilSignal: () => stopped,
  };
  const done = runCli(["emulator", ...args], io);
  while (!/listening on/.test(err)) {
    if (await Promise.race([done, new Promise((r) => setTimeout(() => r(undefined), 20))])) break;
  }
  return {
    err: () => err,
    stop: async () => {
      stop();
      return done;
    },
  };
}

describe("carte emulator --split-hosts", () => {
  it("serves each group at its own port and prints their addresses for carte.yaml", async () => {
    const dir = copyExample();
    const seedFile = path.join(dir, "seed.yaml");
    writeFileSync(seedFile, JSON.stringify(seedFor(dir, storeFiles)));
    const emulator = await emulatorCommand(["--port", "0", "--split-hosts", "--seed", seedFile]);
    cleanup = async () => void (await emulator.stop());
    const printed = emulator.err();
    // The lines after the first are a platform: section to paste into carte.yaml.
    const section = parse(printed.slice(printed.indexOf("\n") + 1)) as {
      platform: { hosts: Record<ApiGroup, string> };
    };
    const hosts = section.platform.hosts;
    expect(Object.keys(hosts)).toEqual([...API_GROUPS]);
    expect(new Set(Object.values(hosts)).size).toBe(API_GROUPS.length);
    expect(printed.split("\n")[0]).toBe(
      `carte emulator listening on ${hosts.auth}, each API group at its own address:`,
    );
    const login = (at: string) =>
      fetch(`${at}/restaurants/auth/v1/token/login/integrations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET }),
      });
    expect((await login(hosts.auth)).status).toBe(200);
    expect((await login(hosts.utils)).status).toBe(404);

    // The printed section, pasted into carte.yaml, plans the chain.
    const config = path.join(dir, "carte.yaml");
    edit(config, /^version: 1\n/m, `version: 1\n${printed.slice(printed.indexOf("\n") + 1)}`);
    const plan = await carte(["plan", "--detailed-exitcode", "-c", config]);
    expect(plan.code).toBe(2);
    expect(await emulator.stop()).toBe(0);
    cleanup = undefined;
  });
});

describe("the embedded emulator", () => {
  it("serves each API group at its own address, and the run's calls go to their group's", async () => {
    const dir = copyExample();
    const project = await loadProject(path.join(dir, "carte.yaml"));
    const session = await openSession(project, { env: {} });
    cleanup = () => session.close();
    const emu = session.emulator!;
    expect(new Set(Object.values(emu.urls)).size).toBe(API_GROUPS.length);
    const store = Object.values(project.desired.stores)[0]!.store.storeId;
    await session.client.getStoreMenu(store);
    await getRegularHours(session.client, store);
    expect(emu.requests.map((r) => r.hostGroup)).toEqual(["auth", "menu", "auth", "utils"]);
    expect(misroutedCalls(emu.requests)).toEqual([]);
  });
});
