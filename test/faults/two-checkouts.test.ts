/**
 * Two checkouts of one project (two CI runners: no shared disk, so no shared `.carte/locks`) applied
 * at the same moment with carte.yaml `lock: { git_ref: refs/carte/lock }`: the second waits for the
 * lock the first pushed to their git remote, then plans against what the first made. Nothing is
 * created twice, and the lock is gone afterwards. A lock a killed apply left is named by the next one,
 * and `carte force-unlock ID` removes it.
 */

import { cpSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acceptedTwice } from "../../src/emulator/audit.js";
import { git } from "../action/harness.js";
import { acquireRefLock } from "../../src/gitops/ref-lock.js";
import { findRepository } from "../../src/gitops/safe-git.js";
import { carte, edit, exampleAgainstEmulator, writes } from "../helpers/project.js";
import { testRemote, type TestRemote } from "../helpers/remote.js";

let remote: TestRemote | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  remote?.close();
  remote = undefined;
  await cleanup?.();
  cleanup = undefined;
});

describe("two checkouts applied at the same moment with the lock across machines", () => {
  it("apply one after the other: nothing is created twice", { timeout: 60_000 }, async () => {
    const fx = await exampleAgainstEmulator(
      ["bog-centro", "bog-chapinero", "med-poblado"].map((s) => path.join("stores", `${s}.yaml`)),
    );
    cleanup = fx.close;
    edit(fx.config, /^version: 1$/m, "version: 1\nlock:\n  git_ref: refs/carte/lock");
    remote = testRemote();
    const configs = ["a", "b"].map((name) => {
      const dir = path.join(remote!.root, name);
      cpSync(fx.dir, dir, { recursive: true });
      remote!.checkout(dir);
      return path.join(dir, "carte.yaml");
    });

    const runs = await Promise.all(configs.map((c) => carte(["apply", "--auto-approve", "-c", c])));
    for (const r of runs) expect(r.code, r.err).toBe(0);
    // One waited for the other's lock, named with its id, host and process.
    const waited = runs.filter((r) =>
      /Waiting for another carte apply to release the lock refs\/carte\/lock on origin \(lock [0-9a-f]{12}: process \d+ on /.test(
        r.err,
      ),
    );
    expect(waited).toHaveLength(1);
    expect(runs.filter((r) => r.out.includes("No changes."))).toHaveLength(1);
    expect(acceptedTwice(fx.emu.requests)).toEqual([]);
    expect((await carte(["plan", "--detailed-exitcode", "-c", configs[0]!])).code).toBe(0);
    expect(git(remote.origin, "for-each-ref", "refs/carte")).toBe("");
  });

  it("names a lock a killed apply left, which force-unlock ID removes", { timeout: 60_000 }, async () => {
    const fx = await exampleAgainstEmulator(
      ["bog-centro", "bog-chapinero", "med-poblado"].map((s) => path.join("stores", `${s}.yaml`)),
    );
    cleanup = fx.close;
    edit(fx.config, /^version: 1$/m, "version: 1\nlock:\n  git_ref: refs/carte/lock");
    remote = testRemote();
    const dir = path.join(remote.root, "checkout");
    cpSync(fx.dir, dir, { recursive: true });
    remote.checkout(dir);
    const config = path.join(dir, "carte.yaml");
    // An apply on another runner took the lock and was killed: it never releases it.
    const left = await acquireRefLock({
      repo: await findRepository(remote.checkout()),
      settings: { ref: "refs/carte/lock", remote: "origin", staleMs: 3_600_000 },
      waitMs: 0,
    });

    const refused = await carte(["apply", "--auto-approve", "--timeout", "1s", "-c", config]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      `another carte apply holds the apply lock refs/carte/lock on origin (lock ${left.id}: process`,
    );
    expect(refused.err).toContain(`carte force-unlock ${left.id}`);
    expect(writes(fx.emu.requests)).toEqual([]);
    // A shard applies under a lock of its own, beside the whole project's.
    const shardLock = await acquireRefLock({
      repo: await findRepository(remote.checkout()),
      settings: { ref: "refs/carte/lock-shard-1-of-2", remote: "origin", staleMs: 3_600_000 },
      waitMs: 0,
    });
    const shard = ["apply", "--auto-approve", "--shard", "1/2", "-c", config];
    const waiting = await carte([...shard, "--timeout", "1s"]);
    expect(waiting.code).toBe(1);
    expect(waiting.err).toContain(`carte force-unlock ${shardLock.id} --ref refs/carte/lock-shard-1-of-2`);
    const unlock = ["force-unlock", shardLock.id, "--ref", "refs/carte/lock-shard-1-of-2", "--force"];
    expect((await carte([...unlock, "-c", config])).code).toBe(0);
    const applied = await carte(shard);
    expect(applied.code, applied.err).toBe(0);

    const wrong = await carte(["force-unlock", "0123456789ab", "--force", "-c", config]);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain(`is lock ${left.id}`);
    const unasked = await carte(["force-unlock", left.id, "-c", config]);
    expect(unasked.code).toBe(1);
    expect(unasked.err).toContain("pass --force");
    const removed = await carte(["force-unlock", left.id, "--force", "-c", config]);
    expect(removed.code, removed.err).toBe(0);
    expect(removed.out).toContain(
      `Removed the apply lock refs/carte/lock on origin: lock ${left.id}: process`,
    );

    expect((await carte(["apply", "--auto-approve", "-c", config])).code).toBe(0);
    expect(git(remote.origin, "for-each-ref", "refs/carte")).toBe("");
  });
});
