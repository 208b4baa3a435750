/**
 * A webhook secret the platform made is never lost for good: an apply killed (SIGKILL) just after
 * `POST /webhook` was handled, before the secret reached the secrets file, leaves the event in the
 * marker beside it; the next `carte plan --secrets-file` says an apply rotates it, and the next apply
 * rotates it (`PUT /webhook/{event}/reset-secret`), saves it, reports it rotated and clears the marker.
 * Killed before the create was handled, nothing was made: the next apply creates the webhook and keeps
 * its secret. A marker left although the secret was saved is cleared without a rotation.
 */

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listWebhooks, removeStores } from "../../src/platform/webhook-calls.js";
import { startCarte, type ReadyCarte } from "../helpers/kill.js";
import { carte, edit, exampleWithClient, writes } from "../helpers/project.js";

const V2 = "/api/v2/restaurants-integrations-public-api";
const LAST_HOOK = "    MENU_REJECTED: http://localhost:8080/hooks/menu-rejected\n";

const started: ReadyCarte[] = [];
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  for (const c of started.splice(0)) c.kill();
  await cleanup?.();
  cleanup = undefined;
});

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;

describe("a webhook secret lost by a kill", () => {
  it("is rotated and saved by the next apply, which the plan announces", { timeout: 60_000 }, async () => {
    const fx = await exampleWithClient();
    const client = fx.client;
    cleanup = fx.close;
    const killers = [startCarte(), startCarte()];
    started.push(...killers);
    const file = path.join(fx.dir, "secrets.json");
    const marker = `${file}.pending`;
    const withFile = (args: string[]) => [...args, "-c", fx.config, "--secrets-file", file];
    const first = await carte(withFile(["apply", "--auto-approve"]));
    expect(first.code, first.err).toBe(0);
    const before = readJson(file);
    const configured = async () => (await listWebhooks(client)).map((w) => String(w.event));
    const isCreate = (r: { method: string; path: string }) =>
      r.method === "POST" && r.path === `${V2}/webhook`;

    // Killed before the platform handled the create: nothing was made, the marker names PING.
    edit(fx.config, LAST_HOOK, `${LAST_HOOK}    PING: https://hooks.example.com/ping\n`);
    fx.emu.setFaults({
      routes: [{ prefix: `${V2}/webhook`, method: "POST", faultRate: 1, faultKinds: ["drop"] }],
    });
    let from = fx.emu.requests.length;
    await killers[0]!.runUntilKilled(withFile(["apply", "--auto-approve"]), () =>
      fx.emu.requests.slice(from).some((r) => isCreate(r) && r.fault !== undefined),
    );
    fx.emu.setFaults(undefined);
    expect(Object.keys(readJson(marker))).toEqual(["PING"]);
    expect(await configured()).not.toContain("PING");
    // The plan creates it, and rotates nothing; the apply keeps the create's secret and clears the marker.
    const toCreate = await carte(withFile(["plan", "--json"]));
    expect(toCreate.code, toCreate.err).toBe(0);
    expect(JSON.parse(toCreate.out)).not.toHaveProperty("rotateSecrets");
    const created = await carte(withFile(["apply", "--auto-approve"]));
    expect(created.code, created.err).toBe(0);
    expect(readJson(file).PING).toMatch(/^[0-9a-f]{48}$/);
    expect(existsSync(marker)).toBe(false);

    // Killed once the platform made the webhook anew (someone had removed it), its answer (the secret)
    // held back: the file holds the old secret, the new one is nowhere but on the platform.
    const hooked = (await listWebhooks(client, "PING"))[0]!.stores.map((s) => String(s.store_id));
    await removeStores(client, "PING", { stores: hooked });
    expect(await configured()).not.toContain("PING");
    const old = readJson(file).PING;
    fx.emu.setFaults({
      routes: [{ prefix: `${V2}/webhook`, method: "POST", faultRate: 1, faultKinds: ["hold"] }],
    });
    from = fx.emu.requests.length;
    await killers[1]!.runUntilKilled(withFile(["apply", "--auto-approve"]), () =>
      fx.emu.requests.slice(from).some((r) => isCreate(r) && r.fault !== undefined),
    );
    fx.emu.setFaults(undefined);
    expect(await configured()).toContain("PING");
    expect(readJson(file).PING).toBe(old);
    const left = readFileSync(marker, "utf8");
    expect(Object.keys(JSON.parse(left) as object)).toEqual(["PING"]);
    expect(left).not.toContain(String(old));

    // The plan has no change, says the apply rotates PING, and exits 2 with --detailed-exitcode.
    const plan = await carte(withFile(["plan", "--detailed-exitcode"]));
    expect(plan.code, plan.err).toBe(2);
    expect(plan.out).toContain(
      "No changes to the configuration; 1 webhook secret never saved to rotate and save.",
    );
    expect(plan.out).toMatch(
      /Note: the secret of the PING webhook, made by a call at .+, was never saved in the secrets file: an apply rotates it/,
    );
    const json = JSON.parse((await carte(withFile(["plan", "--json"]))).out) as {
      rotateSecrets: { event: string }[];
    };
    expect(json.rotateSecrets.map((r) => r.event)).toEqual(["PING"]);

    from = fx.emu.requests.length;
    const applied = await carte(withFile(["apply", "--auto-approve"]));
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toContain(
      `Rotated the secret of the PING webhook, which an earlier run never saved; the new one is in ${file}.`,
    );
    expect(applied.out + applied.err).not.toContain(String(readJson(file).PING));
    expect(writes(fx.emu.requests.slice(from)).map((r) => `${r.method} ${r.path}`)).toEqual([
      `PUT ${V2}/webhook/PING/reset-secret`,
    ]);
    const now = readJson(file);
    expect(now.PING).toMatch(/^[0-9a-f]{48}$/);
    expect(now.PING).not.toBe(old);
    expect({ ...now, PING: undefined }).toEqual({ ...before, PING: undefined });
    expect(existsSync(marker)).toBe(false);
    const clean = await carte(withFile(["plan", "--detailed-exitcode"]));
    expect(clean.code, clean.out).toBe(0);
    expect(clean.out).not.toContain("PING");

    // A marker left behind although the secret was saved (its update failed): cleared, nothing rotated.
    writeFileSync(marker, left);
    const quiet = await carte(withFile(["plan", "--detailed-exitcode"]));
    expect(quiet.code, quiet.out).toBe(0);
    from = fx.emu.requests.length;
    const tidy = await carte(withFile(["apply", "--auto-approve"]));
    expect(tidy.code, tidy.err).toBe(0);
    expect(fx.emu.requests.slice(from).filter((r) => r.path.endsWith("/reset-secret"))).toEqual([]);
    expect(readJson(file).PING).toBe(now.PING);
    expect(existsSync(marker)).toBe(false);
  });
});
