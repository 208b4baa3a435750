/** `carte plan --base REF` (the base's files read with git, no checkout) and `--shard K/N`, in-process. */

import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Plan } from "../../src/plan/types.js";
import type { BaseSplit } from "../../src/gitops/base.js";
import { carte, edit, exampleAgainstEmulator, writes } from "../helpers/project.js";
import { committedChain, git } from "../action/harness.js";

const STORES = ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"];

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** The example chain applied, committed on main; staff then change a price on the platform. */
async function chain() {
  const fx = await committedChain(STORES);
  cleanup = fx.close;
  const file = path.join(fx.dir, "stores/med-poblado.yaml");
  const text = readFileSync(file, "utf8");
  edit(file, "BURGER-CARBON: 36900", "BURGER-CARBON: 37900");
  const staff = ["--target", "store[med-poblado].item[BURGER-CARBON]"];
  expect((await carte(["apply", "--auto-approve", "-q", "-c", fx.config, ...staff])).code).toBe(0);
  writeFileSync(file, text);
  return fx;
}

describe("carte plan --base", () => {
  it("shows this branch's change apart from what already differs on the platform, from one live read", async () => {
    const fx = await chain();
    // The branch, not committed: the work tree is the head, main's commit the base.
    edit(path.join(fx.dir, "stores/bog-centro.yaml"), "BURGER-CLASSIC: 25900", "BURGER-CLASSIC: 26900");
    fx.emu.clearRequests();
    const text = await carte(["plan", "-q", "--no-color", "-c", fx.config, "--base", "main"]);
    expect(text.code, text.err).toBe(0);
    expect(text.out).toContain(`Compared with main (${fx.baseSha.slice(0, 7)}):`);
    expect(text.out).toContain(
      "  This branch changes: 0 to create, 1 to update, 0 to delete in 1 store\n    ~ store[bog-centro].item[BURGER-CLASSIC]\n",
    );
    expect(text.out).toContain(
      "  Already different on the platform: 0 to create, 1 to update, 0 to delete in 1 store\n",
    );
    expect(text.out).toContain("    ~ store[med-poblado].item[BURGER-CARBON]\n");
    // One live read: the same reads as a plan without --base.
    const withBase = fx.emu.requests.length;
    fx.emu.clearRequests();
    await carte(["plan", "-q", "-c", fx.config]);
    expect(withBase).toBe(fx.emu.requests.length);
    expect(writes(fx.emu.requests)).toEqual([]);

    const json = await carte(["plan", "--json", "-q", "-c", fx.config, "--base", fx.baseSha]);
    const plan = JSON.parse(json.out) as Plan & { base: BaseSplit };
    expect(plan.base).toEqual({
      ref: fx.baseSha,
      sha: fx.baseSha,
      changes: ["store[bog-centro].item[BURGER-CLASSIC]"],
      drift: ["store[med-poblado].item[BURGER-CARBON]"],
      settled: [],
    });

    const md = await carte(["plan", "--format", "markdown", "-q", "-c", fx.config, "--base", "main"]);
    expect(md.out).toContain("#### This branch changes: 0 to create, 1 to update, 0 to delete in 1 store");
    expect(md.out).toContain("#### Already different on the platform:");
  });

  it("counts a change the branch makes the same as the platform as settled, and reads the base from git alone", async () => {
    const fx = await chain();
    // The branch adopts the staff's price: nothing of its own to change there.
    edit(path.join(fx.dir, "stores/med-poblado.yaml"), "BURGER-CARBON: 36900", "BURGER-CARBON: 37900");
    git(fx.dir, "commit", "-q", "-am", "adopt the platform's price");
    const json = await carte(["plan", "--json", "-q", "-c", fx.config, "--base", "HEAD~1"]);
    const plan = JSON.parse(json.out) as Plan & { base: BaseSplit };
    expect(plan.changes).toEqual([]);
    expect(plan.base).toMatchObject({
      changes: [],
      drift: [],
      settled: ["store[med-poblado].item[BURGER-CARBON]"],
    });
  });

  it("treats every change as the branch's when the base has no carte project, and refuses an unknown ref", async () => {
    const fx = await chain();
    git(fx.dir, "checkout", "-q", "--orphan", "empty");
    git(fx.dir, "rm", "-rq", "--cached", ".");
    git(fx.dir, "commit", "-q", "--allow-empty", "-m", "empty");
    git(fx.dir, "checkout", "-q", "-f", "main");
    const json = await carte(["plan", "--json", "-q", "-c", fx.config, "--base", "empty"]);
    const plan = JSON.parse(json.out) as Plan & { base: BaseSplit };
    expect(plan.base.unavailable).toMatch(/^the base's files do not load \(1 configuration problem, e\.g\. /);
    expect(plan.base.changes).toEqual(["store[med-poblado].item[BURGER-CARBON]"]);

    const bad = await carte(["plan", "-q", "-c", fx.config, "--base", "no-such-branch"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("--base no-such-branch: no such commit");
  });
});

describe("carte --shard", () => {
  it("splits the stores between shards, keeps client settings on shard 1, and applies one shard alone", async () => {
    const fx = await exampleAgainstEmulator(STORES);
    cleanup = fx.close;
    const plans: Plan[] = [];
    for (const k of [1, 2]) {
      const r = await carte(["plan", "--json", "-q", "-c", fx.config, "--shard", `${k}/2`]);
      expect(r.code, r.err).toBe(0);
      plans.push(JSON.parse(r.out) as Plan);
    }
    expect(plans.map((p) => p.stores.map((s) => s.key))).toEqual([
      ["bog-chapinero"],
      ["bog-centro", "med-poblado"],
    ]);
    expect(plans.map((p) => p.changes.filter((c) => c.store === "").length)).toEqual([1, 0]);

    fx.emu.clearRequests();
    const apply = await carte([
      "apply",
      "--auto-approve",
      "-q",
      "-c",
      fx.config,
      "--shard",
      "2/2",
      "--secrets-file",
      path.join(fx.dir, "s.json"),
    ]);
    expect(apply.code, apply.err).toBe(0);
    // Shard 2's stores (900101, 900201) were written; bog-chapinero (900102) and the client were not.
    const written = JSON.stringify(writes(fx.emu.requests).map((r) => [r.path, r.body]));
    expect(written).toContain("900101");
    expect(written).toContain("900201");
    expect(written).not.toContain("900102");
    expect(written).not.toContain("/clients/");
    const after = await carte(["plan", "--json", "-q", "-c", fx.config]);
    const left = JSON.parse(after.out) as Plan;
    expect(new Set(left.changes.map((c) => c.store))).toEqual(new Set(["bog-chapinero", ""]));

    const bad = await carte(["plan", "-q", "-c", fx.config, "--shard", "3/2"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("--shard must be K/N");
  });
});
