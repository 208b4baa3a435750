import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/main.js";
import type { CliIo } from "../../src/cli/io.js";
import { CLIENT_ID, CLIENT_SECRET } from "../helpers/project.js";
import { financeProject, type FinanceProject } from "./helpers.js";

let fx: FinanceProject | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** A standard error that claims to be a terminal and records what is drawn on it. */
function fakeTerminal(): { stream: NodeJS.WriteStream; text: () => string } {
  let drawn = "";
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      drawn += chunk.toString();
      cb();
    },
  });
  Object.assign(w, {
    isTTY: true,
    columns: 120,
    cursorTo: () => true,
    clearLine: () => true,
    moveCursor: () => true,
    clearScreenDown: () => true,
  });
  return { stream: w as unknown as NodeJS.WriteStream, text: () => drawn };
}

function io(terminal: boolean, stream?: NodeJS.WriteStream): CliIo & { output: () => string } {
  let out = "";
  return {
    out: (s) => void (out += s),
    err: () => {},
    stdoutIsTTY: false,
    stderrIsTTY: terminal,
    stdinIsTTY: false,
    ...(stream ? { errStream: stream } : {}),
    env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
    output: () => out,
  };
}

describe("carte finance progress", () => {
  it("draws a bar of pages on a terminal, and nothing with --quiet", async () => {
    fx = await financeProject();
    const t = fakeTerminal();
    const args = ["finance", "orders", "-c", fx.config, "--page-size", "10", "--format", "csv"];
    const run = io(true, t.stream);
    expect(await runCli(args, run)).toBe(0);
    expect(t.text()).toMatch(/reading orders \[.*\] \d+\/\d+ pages \| \d+ entries/);
    expect(run.output()).toContain("source_store_id,id,payment_id");

    const quiet = fakeTerminal();
    expect(await runCli([...args, "--quiet"], io(true, quiet.stream))).toBe(0);
    expect(quiet.text()).toBe("");
  });
});
