/**
 * `carte show FILE` in text reads a saved plan of format version 2 a store at a time and writes it a
 * store at a time (src/cli/show-text.ts): the text is the one the whole plan renders, the edited
 * file's warning and the refusals are those of before.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/main.js";
import type { CliIo } from "../../src/cli/io.js";
import { readPlanRounds, readPlanToShow, writePlanFile } from "../../src/plan/file.js";
import { buildPlan } from "../../src/plan/plan.js";
import type { Plan } from "../../src/plan/types.js";
import { renderText } from "../../src/render/text.js";
import { planProject } from "../../src/run/plan-project.js";
import { catalogOf, current, desired, item, store } from "../helpers/builders.js";
import { exampleSession } from "../helpers/session.js";

const NOW = "2026-12-06T12:00:00Z";
let dir: string;
let example: Plan;

beforeAll(async () => {
  // The example chain from empty: the same catalog in every store, each its own hours, client webhooks.
  const fx = await exampleSession();
  try {
    example = (await planProject(fx.project, fx.session, { checksums: true })).plan;
  } finally {
    await fx.close();
  }
  example = { ...example, target: "embedded emulator (state in .carte)" };
  dir = mkdtempSync(path.join(tmpdir(), "carte-show-text-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `carte show` run in-process, its standard output kept piece by piece. */
async function show(args: string[]): Promise<{ code: number; pieces: string[]; out: string; err: string }> {
  const pieces: string[] = [];
  let err = "";
  const io: CliIo = {
    out: (s) => void pieces.push(s),
    err: (s) => void (err += s),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    env: { CARTE_NOW: NOW },
  };
  const code = await runCli(["show", ...args], io);
  return { code, pieces, out: pieces.join(""), err };
}

/** The text the whole plan of `file` renders, as `carte show` rendered it before. */
async function wholeText(file: string, showCalls = false): Promise<string> {
  const { plan } = await readPlanToShow(file);
  return renderText(plan, { color: false, target: plan.target, showCalls, now: new Date(NOW) });
}

/**
 * A chain of `n` stores getting new items: most the same in every store, a price of each store's own,
 * one title differing in a store (a shared change whose title is then left out), an item in half of them.
 */
function chainPlan(n: number): Plan {
  const keys = Array.from({ length: n }, (_, i) => `s${String(i).padStart(3, "0")}`);
  const have = keys.map((k, i) =>
    store(k, String(900000 + i), (s) => {
      catalogOf(s).items.OLD = item("OLD", 500, { title: "Old" });
      catalogOf(s).items.KEEP = item("KEEP", 700, { title: "Keep" });
    }),
  );
  const want = keys.map((k, i) =>
    store(k, String(900000 + i), (s) => {
      catalogOf(s).items.KEEP = item("KEEP", i % 3 === 0 ? 800 : 700 + i, {
        title: i === 1 ? "Kept" : "Keep",
      });
      for (let j = 0; j < 3; j++)
        catalogOf(s).items[`NEW-${j}`] = item(`NEW-${j}`, 1000 + j, { title: `New ${j}` });
      if (i % 2 === 0) catalogOf(s).items.HALF = item("HALF", 300, { title: "Half" });
    }),
  );
  return buildPlan(desired(...want), current(...have));
}

describe("carte show FILE in text, a store at a time", () => {
  it("writes a saved plan store by store, the same text the whole plan renders", async () => {
    const file = path.join(dir, "example.plan");
    await writePlanFile(file, example, dir);
    for (const calls of [false, true]) {
      const r = await show(calls ? [file, "--show-calls"] : [file]);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toBe("");
      expect(r.out).toBe(await wholeText(file, calls));
      // The target, the client settings, the changes the same in several stores, then each store.
      expect(r.pieces.length).toBeGreaterThanOrEqual(2 + example.stores.length);
    }
  });

  it("gives the same text for shared changes, prices of each store, differing titles and many stores", async () => {
    const file = path.join(dir, "chain.plan");
    const plan = chainPlan(40);
    await writePlanFile(file, plan, dir);
    const r = await show([file, "--show-calls"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(await wholeText(file, true));
    expect(r.out).toContain("the same in several stores");
    expect(r.pieces.length).toBeGreaterThan(20);
  });

  it("shows a plan without changes, and one whose stores are not in the order of its changes", async () => {
    const none = path.join(dir, "none.plan");
    const s = store("a", "1");
    await writePlanFile(none, buildPlan(desired(s), current(s)), dir);
    const r = await show([none]);
    expect(r.out).toBe("No changes. The platform matches the configuration.\n");

    // Stores listed in another order than their changes (an edited plan): shown as the whole plan is.
    const plan = chainPlan(6);
    const odd = path.join(dir, "odd.plan");
    await writePlanFile(odd, { ...plan, stores: [...plan.stores].reverse() }, dir);
    const o = await show([odd]);
    expect(o.code, o.err).toBe(0);
    expect(o.out).toBe(await wholeText(odd));
  });

  it("warns first that an edited file does not match its digest, and exits 0, as before", async () => {
    const file = path.join(dir, "edited.plan");
    await writePlanFile(file, chainPlan(4), dir);
    writeFileSync(file, readFileSync(file, "utf8").replace('"name":"Store s001"', '"name":"Store s0X1"'));
    const r = await show([file]);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`Warning: ${file} does not match its digest`);
    expect(r.out).toContain("Store s0X1");
    expect(r.out).toBe(await wholeText(file));
  });

  it("refuses a file that is not a plan it can show in the words of before, writing nothing", async () => {
    const file = path.join(dir, "broken.plan");
    await writePlanFile(file, chainPlan(4), dir);
    const text = readFileSync(file, "utf8");
    for (const [from, to] of [
      ['"summary":{', '"summary":{"create":"x","c":'],
      [',"u",', ',"x",'],
      ['["s",{"key":"s002"', '["s",{"key":2'],
    ] as const) {
      writeFileSync(file, text.replace(from, to));
      const expected = await readPlanToShow(file).then(
        () => "read",
        (e: unknown) => String((e as Error).message),
      );
      const r = await show([file]);
      expect(r.code).toBe(1);
      expect(r.out).toBe("");
      expect(r.err).toContain(expected);
    }
  });

  it("refuses to go on with a file changed in place between two of its reads", async () => {
    const file = path.join(dir, "changing.plan");
    await writePlanFile(file, chainPlan(4), dir);
    const rounds = (await readPlanRounds(file, { changes: () => {}, operation: () => {} }))!;
    try {
      writeFileSync(file, readFileSync(file, "utf8").replace('"name":"Store s001"', '"name":"Store s00Y"'));
      await expect(rounds.again(() => {})).rejects.toThrow(
        `${file} changed while it was read; show it again`,
      );
    } finally {
      await rounds.close();
    }
  });
});
