/**
 * The secrets file and its marker, unit by unit. The folder is created 0700, the file
 * written atomically 0600, the marker `FILE.pending` names the secrets on their way (never a secret)
 * and goes once they are saved; a failed save keeps it; temporary files of dead writers are removed
 * and those of live ones kept; the GitHub Actions sink refuses values that would inject workflow
 * commands.
 */

import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { removeStaleTemps, writeFileAtomic } from "../../src/atomic.js";
import type { OperationResult } from "../../src/apply/operation-result.js";
import { ConfigError } from "../../src/errors.js";
import "../../src/kinds/store-webhooks.js"; // registers POST /webhook as secret-bearing
import type { Operation, Plan } from "../../src/plan/types.js";
import {
  findLostSecrets,
  githubActionsSink,
  pendingFileOf,
  prepareSecretSink,
  secretsFileSink,
  type SecretSink,
} from "../../src/run/secrets.js";

const tmp = () => mkdtempSync(path.join(tmpdir(), "carte-sink-"));

/** A plan with one webhook create per event (only what prepareSecretSink reads). */
function planCreating(...events: string[]): Plan {
  const operations = events.map((event, i): Operation => ({
    id: `webhook.create#${i}`,
    endpoint: "webhook.create",
    stage: 30,
    stores: ["a"],
    method: "POST",
    path: "/api/v2/restaurants-integrations-public-api/webhook",
    body: { event, data: [] },
    idempotent: false,
    addresses: [`store[a].webhook[${event}]`],
    params: { event },
  }));
  return { operations } as unknown as Plan;
}

const result = (id: string, status: OperationResult["status"]): OperationResult => ({
  id,
  method: "POST",
  path: "/webhook",
  status,
  durationMs: 1,
});

describe("the marker of secrets on their way, read back", () => {
  it("tells secrets lost from secrets saved although the marker stayed, and never holds a secret", async () => {
    const file = path.join(tmp(), "secrets.json");
    writeFileSync(file, JSON.stringify({ KEPT: "s-kept-old", NEW_ORDER: "s-order-old" }));
    const sink = secretsFileSink(file);
    await sink.prepare!(["KEPT", "NEW_ORDER", "PING", "constructor"]);
    const marker = readFileSync(pendingFileOf(file), "utf8");
    expect(marker).not.toContain("s-kept-old");
    expect(marker).not.toContain("s-order-old");
    // Nothing saved since: every secret is lost (an event named like an object's member included).
    expect((await findLostSecrets(file)).lost.map((l) => l.event)).toEqual([
      "KEPT",
      "NEW_ORDER",
      "PING",
      "constructor",
    ]);

    // KEPT and PING saved (as put does, but the marker's update failed); NEW_ORDER's entry untouched.
    writeFileSync(file, JSON.stringify({ KEPT: "s-kept-new", NEW_ORDER: "s-order-old", PING: "s-ping" }));
    const found = await findLostSecrets(file);
    expect(found.saved).toEqual(["KEPT", "PING"]);
    expect(found.lost.map((l) => l.event)).toEqual(["NEW_ORDER", "constructor"]);
    expect(found.lost[0]!.since).toMatch(/^\d{4}-\d\d-\d\dT/);

    // Marked again (a rotation by hand), a lost secret keeps its entry and time.
    const since = found.lost[0]!.since;
    await sink.prepare!(["NEW_ORDER"]);
    expect((await findLostSecrets(file)).lost[0]).toEqual({ event: "NEW_ORDER", since });
    await sink.put("NEW_ORDER", "s-order-new");
    expect((await findLostSecrets(file)).lost.map((l) => l.event)).toEqual(["constructor"]);
  });

  it("counts a marker of an earlier version (event → time) as lost, whatever the file holds", async () => {
    const file = path.join(tmp(), "secrets.json");
    writeFileSync(file, JSON.stringify({ PING: "s-ping" }));
    writeFileSync(pendingFileOf(file), JSON.stringify({ PING: "2026-01-01T00:00:00.000Z" }));
    expect(await findLostSecrets(file)).toEqual({
      lost: [{ event: "PING", since: "2026-01-01T00:00:00.000Z" }],
      saved: [],
    });
  });

  it("names the secrets file when it cannot tell, without quoting it", async () => {
    const file = path.join(tmp(), "secrets.json");
    writeFileSync(file, '{"PING": "s-half');
    writeFileSync(pendingFileOf(file), JSON.stringify({ PING: "2026-01-01T00:00:00.000Z" }));
    const err = await findLostSecrets(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toContain("cannot tell whether the webhook secrets of PING were saved");
    expect((err as Error).message).not.toContain("s-half");
  });
});

describe("secrets file sink", () => {
  it("creates the folder 0700, marks the secrets on their way, saves 0600 and clears the marker", async () => {
    const file = path.join(tmp(), "deep", "er", "secrets.json");
    const sink = secretsFileSink(file);
    await sink.prepare!(["NEW_ORDER", "PING"]);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(path.dirname(file), "..")).mode & 0o777).toBe(0o700);
    const marker = JSON.parse(readFileSync(pendingFileOf(file), "utf8")) as Record<string, string>;
    expect(Object.keys(marker)).toEqual(["NEW_ORDER", "PING"]);
    expect(statSync(pendingFileOf(file)).mode & 0o777).toBe(0o600);

    await sink.put("NEW_ORDER", "s-new-order");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ NEW_ORDER: "s-new-order" });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(readFileSync(pendingFileOf(file), "utf8")) as object)).toEqual(["PING"]);

    await sink.release!(["PING"]);
    expect(existsSync(pendingFileOf(file))).toBe(false);
    expect(readdirSync(path.dirname(file))).toEqual(["secrets.json"]);
  });

  it("refuses before any call when the folder cannot be made or the file is not a map", async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, "file"), "x");
    const plan = planCreating("NEW_ORDER");
    await expect(prepareSecretSink(plan, secretsFileSink(path.join(dir, "file", "s.json")))).rejects.toThrow(
      ConfigError,
    );
    writeFileSync(path.join(dir, "s.yaml"), "- a list\n");
    const err = await prepareSecretSink(plan, secretsFileSink(path.join(dir, "s.yaml"))).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain("is not a YAML map of event names to secrets");
    expect(readFileSync(path.join(dir, "s.yaml"), "utf8")).toBe("- a list\n");
  });

  it("after the calls: a lost answer is reported, a failed call released, a failed save kept", async () => {
    const file = path.join(tmp(), "secrets.json");
    const saving = secretsFileSink(file);
    let failSave = false;
    const sink: SecretSink = {
      ...saving,
      put: (event, secret) => (failSave ? Promise.reject(new Error("disk full")) : saving.put(event, secret)),
    };
    const plan = planCreating("SAVED", "LOST", "FAILED", "UNSAVED");
    const prepared = await prepareSecretSink(plan, sink);
    await prepared.sink.put("SAVED", "s1");
    failSave = true;
    await expect(prepared.sink.put("UNSAVED", "s2")).rejects.toThrow("disk full");
    const lost = await prepared.finish([
      result("webhook.create#0", "ok"),
      result("webhook.create#1", "ok"), // its answer never reached the sink
      result("webhook.create#2", "failed"),
      result("webhook.create#3", "failed"),
    ]);
    expect(lost).toEqual(["LOST"]);
    const marker = JSON.parse(readFileSync(pendingFileOf(file), "utf8")) as Record<string, string>;
    expect(Object.keys(marker)).toEqual(["LOST", "UNSAVED"]);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ SAVED: "s1" });
  });

  it("needs nothing when the plan makes no secret", async () => {
    const file = path.join(tmp(), "nested", "secrets.json");
    const prepared = await prepareSecretSink(planCreating(), secretsFileSink(file));
    expect(await prepared.finish([])).toEqual([]);
    expect(existsSync(path.dirname(file))).toBe(false);
  });
});

describe("atomic writes", () => {
  it("removes temporary files of writers that no longer run, and keeps those of live ones", async () => {
    const dir = tmp();
    const file = path.join(dir, "state.json");
    const dead = ".state.json.carte-tmp-99999999-aaaaaaaaaaaa";
    const live = ".state.json.carte-tmp-1-bbbbbbbbbbbb"; // pid 1 always runs
    const other = ".other.json.carte-tmp-99999999-cccccccccccc";
    for (const n of [dead, live, other]) writeFileSync(path.join(dir, n), "partial");
    expect(await removeStaleTemps(file)).toEqual([dead]);
    await writeFileAtomic(file, "{}\n", { root: dir, purpose: "write" });
    expect(readdirSync(dir).sort()).toEqual([live, other, "state.json"].sort());
    expect(readFileSync(file, "utf8")).toBe("{}\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe("GitHub Actions sink", () => {
  it("refuses a secret or an event that would inject a workflow command", async () => {
    const dir = tmp();
    const outputFile = path.join(dir, "github_output");
    writeFileSync(outputFile, "");
    let printed = "";
    const sink = githubActionsSink({ out: (t) => void (printed += t), outputFile });
    await expect(sink.put("NEW_ORDER", "abc\n::set-output name=x::y")).rejects.toThrow("line break");
    await expect(sink.put("NEW_ORDER\nx=1", "abc")).rejects.toThrow("unusual event name");
    expect(printed).toBe("");
    expect(readFileSync(outputFile, "utf8")).toBe("");
    await sink.put("NEW_ORDER", "0123abcd");
    expect(printed).toBe("::add-mask::0123abcd\n");
    expect(readFileSync(outputFile, "utf8")).toBe("webhook_secret_NEW_ORDER=0123abcd\n");
  });

  it("proves the step output file can be written before any call", async () => {
    const sink = githubActionsSink({ out: () => undefined, outputFile: undefined });
    await expect(prepareSecretSink(planCreating("NEW_ORDER"), sink)).rejects.toThrow(
      "GITHUB_OUTPUT is not set",
    );
  });
});
