/** JSON written in pieces (src/render/json.ts): the same bytes as one JSON.stringify, never one string of it. */

import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Writable } from "node:stream";
import { pipeWriter, runCli } from "../../src/cli/main.js";
import type { CliIo } from "../../src/cli/io.js";
import { readPlanToShow } from "../../src/plan/file.js";
import { JSON_CHUNK, jsonChunks, renderJson, renderJsonChunks } from "../../src/render/json.js";
import { buildPlan } from "../../src/plan/plan.js";
import { current, desired, item, store, catalogOf } from "../helpers/builders.js";
import { CLIENT_ID, CLIENT_SECRET, carte, exampleAgainstEmulator } from "../helpers/project.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** Values JSON.stringify writes in all its ways: left-out members, empty lists, escapes, pairs, toJSON. */
const ODD = {
  a: undefined,
  b: [undefined, () => 1, null, -0, 1e21, "é\u0000\u007f\u202e😀"],
  c: {},
  d: [],
  e: { f: [[], [{}], { g: "x".repeat(50) }] },
  h: { toJSON: () => ({ i: "from toJSON" }) },
  'k"ey': "😀😀😀😀😀😀",
};

/** The pieces of `chunks`, checked to be at most `limit` characters each. */
function joined(chunks: Iterable<string>, limit: number): { text: string; pieces: number } {
  let text = "";
  let pieces = 0;
  for (const c of chunks) {
    expect(c.length).toBeLessThanOrEqual(limit);
    text += c;
    pieces++;
  }
  return { text, pieces };
}

/** A chain of `n` stores, each getting the same new items: a plan of many changes and calls. */
function chainPlan(n: number) {
  const keys = Array.from({ length: n }, (_, i) => `s${String(i).padStart(3, "0")}`);
  const have = keys.map((k, i) => store(k, String(900000 + i)));
  const want = keys.map((k, i) =>
    store(k, String(900000 + i), (s) => {
      for (let j = 0; j < 30; j++)
        catalogOf(s).items[`ITEM-${j}`] = item(`ITEM-${j}`, 1000 + j, { title: `Item ${j} \u202e` });
    }),
  );
  return buildPlan(desired(...want), current(...have));
}

describe("JSON in pieces", () => {
  it("writes what JSON.stringify writes, at every depth and piece size", () => {
    for (const depth of [0, 1, 2, 5])
      for (const chunk of [1, 2, 3, 7, 64, 100_000]) {
        const { text } = joined(jsonChunks(ODD, { depth, safe: false, chunk }), chunk);
        expect(text).toBe(JSON.stringify(ODD, null, 2) + "\n");
      }
  });

  it("never cuts a surrogate pair in two, so that each piece is text of its own", () => {
    for (const chunk of [2, 3, 5])
      for (const c of jsonChunks({ s: "😀".repeat(20) }, { depth: 1, safe: false, chunk }))
        expect(Buffer.from(c, "utf8").toString("utf8")).toBe(c);
  });

  it("writes a plan far longer than its pieces, piece by piece, as renderJson writes it at once", () => {
    const plan = chainPlan(40);
    const whole = renderJson(plan);
    const limit = 1000;
    expect(whole.length).toBeGreaterThan(100 * limit);
    const { text, pieces } = joined(renderJsonChunks(plan, limit), limit);
    expect(pieces).toBeGreaterThan(100);
    expect(text).toBe(whole);
  });
});

/** carte run in-process, its standard output kept piece by piece. */
async function carteInPieces(args: string[]): Promise<{ code: number; pieces: string[]; err: string }> {
  const pieces: string[] = [];
  let err = "";
  const io: CliIo = {
    out: (s) => void pieces.push(s),
    err: (s) => void (err += s),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
  };
  const code = await runCli(args, io);
  return { code, pieces, err };
}

describe("carte plan --json and carte show --json", () => {
  it("print a real plan in pieces of at most 64 Ki characters, the same bytes as before", async () => {
    const fx = await exampleAgainstEmulator([
      "stores/bog-centro.yaml",
      "stores/bog-chapinero.yaml",
      "stores/med-poblado.yaml",
    ]);
    cleanups.push(fx.close);
    const planFile = path.join(fx.dir, "plan.json");
    const saved = await carte(["plan", "-c", fx.config, "--out", planFile]);
    expect(saved.code, saved.err).toBe(0);
    const { plan } = await readPlanToShow(planFile);

    const shown = await carteInPieces(["show", planFile, "--json"]);
    expect(shown.code, shown.err).toBe(0);
    expect(shown.pieces.length).toBeGreaterThan(1);
    for (const p of shown.pieces) expect(p.length).toBeLessThanOrEqual(JSON_CHUNK);
    expect(shown.pieces.join("")).toBe(renderJson(plan));

    const printed = await carteInPieces(["plan", "-c", fx.config, "--json"]);
    expect(printed.code, printed.err).toBe(0);
    expect(printed.pieces.length).toBeGreaterThan(1);
    for (const p of printed.pieces) expect(p.length).toBeLessThanOrEqual(JSON_CHUNK);
    expect((JSON.parse(printed.pieces.join("")) as typeof plan).changes).toEqual(plan.changes);
    writeFileSync(planFile, printed.pieces.join(""));
    // What plan --json printed is itself a plan carte shows and applies: its digest matches.
    expect((await readPlanToShow(planFile)).digestMatches).toBe(true);
  });
});

describe("standard output with backpressure", () => {
  it("takes the next piece only once the output has room, and none once its reader has gone", async () => {
    let written = 0;
    let pulled = 0;
    let most = 0;
    const slow = new Writable({
      highWaterMark: 1000,
      write(_chunk, _encoding, done) {
        written++;
        setTimeout(done, 1);
      },
    });
    const pieces = function* (n: number): Generator<string> {
      for (let i = 0; i < n; i++) {
        pulled++;
        most = Math.max(most, pulled - written);
        yield "x".repeat(600);
      }
    };
    await pipeWriter(slow as unknown as NodeJS.WriteStream).chunks(pieces(50));
    expect(pulled).toBe(50);
    // Never more than a couple of pieces made ahead of what the output wrote.
    expect(most).toBeLessThanOrEqual(3);

    // A reader that went away (EPIPE): the rest is neither made nor written.
    const gone = new Writable({
      write(_chunk, _encoding, done) {
        done(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
      },
    });
    pulled = 0;
    written = 0;
    const writer = pipeWriter(gone as unknown as NodeJS.WriteStream);
    await writer.chunks(
      (function* () {
        for (let i = 0; i < 1000; i++) {
          pulled++;
          yield "x".repeat(100_000);
        }
      })(),
    );
    expect(pulled).toBeLessThan(1000);
  });
});
