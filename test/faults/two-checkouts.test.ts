/**
 * Two checkouts of one project (two CI runners: no shared disk, so no shared `.carte/locks`) applied
 * at the same moment with carte.yaml `lock: { git_ref: refs/carte/lock }`: the second waits for the
 * lock the first pushed to their git remote, then plans against what the first made. Nothing is
 * created twice, and the lock is gone afterwards.
 */

import { cpSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acceptedTwice } from "../../src/emulator/audit.js";
import { git } from "../action/harness.js";
import { carte, edit, exampleAgainstEmulator } from "../helpers/project.js";
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
});
