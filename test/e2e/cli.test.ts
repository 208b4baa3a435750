/** The real `carte` binary and the interactive parts of the CLI. */

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/main.js";
import type { CliIo } from "../../src/cli/io.js";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  exampleAgainstEmulator,
  listeningUrl,
  repoRoot,
  writes,
} from "../helpers/project.js";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const storeFiles = ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"];

function terminalIo(answer: string) {
  const io: CliIo & { output: string; asked: string[] } = {
    output: "",
    asked: [],
    out: (s) => void (io.output += s),
    err: (s) => void (io.output += s),
    stdoutIsTTY: true,
    stderrIsTTY: true,
    stdinIsTTY: true,
    env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET, NO_COLOR: "1" },
    prompt: async (q) => {
      io.asked.push(q);
      return answer;
    },
  };
  return io;
}

describe("carte apply on a terminal", () => {
  it("asks for confirmation and makes no call unless the answer is yes", async () => {
    const fx = await exampleAgainstEmulator(storeFiles);
    cleanup = fx.close;
    const io = terminalIo("no");
    fx.emu.clearRequests();
    expect(await runCli(["apply", "-c", fx.config], io)).toBe(1);
    expect(io.asked).toHaveLength(1);
    expect(io.output).toContain("Apply cancelled.");
    expect(writes(fx.emu.requests)).toEqual([]);

    const yes = terminalIo("yes");
    expect(await runCli(["apply", "-c", fx.config], yes)).toBe(0);
    expect(yes.output).toContain("Apply complete");
    expect(yes.output).not.toContain("\u001b["); // NO_COLOR
  });

  it("refuses to apply without a terminal unless --auto-approve is given", async () => {
    const fx = await exampleAgainstEmulator(storeFiles);
    cleanup = fx.close;
    const io = terminalIo("yes");
    io.stdinIsTTY = false;
    expect(await runCli(["apply", "-c", fx.config], io)).toBe(1);
    expect(io.output).toContain("--auto-approve");
  });
});

describe("the carte binary", () => {
  it("serves the emulator on the port asked for and stops cleanly on SIGTERM", async () => {
    const child = spawn(
      process.execPath,
      [path.join(repoRoot, "bin", "carte.js"), "emulator", "--port", "0"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const url = await listeningUrl(child, "the binary");
    const res = await fetch(`${url}/restaurants/auth/v1/token/login/integrations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_id: "nobody", client_secret: "nothing" }),
    });
    expect(res.status).toBe(401);
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("prints help with the exit codes", async () => {
    const child = spawn(process.execPath, [path.join(repoRoot, "bin", "carte.js"), "--help"], {
      stdio: "pipe",
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(0);
    expect(out).toContain("3  refused by a safety guard");
    expect(out).toMatch(/carte plan/);
  });

  it("runs an import to its end when the reader of its output stops after one line (carte import | head -1)", async () => {
    const fx = await exampleAgainstEmulator(storeFiles);
    cleanup = fx.close;
    const out = path.join(path.dirname(fx.config), "imported");
    const child = spawn(
      process.execPath,
      [
        path.join(repoRoot, "bin", "carte.js"),
        "import",
        "-c",
        fx.config,
        "--store",
        "bog-centro",
        "--out",
        out,
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          CARTE_CLIENT_ID: CLIENT_ID,
          CARTE_CLIENT_SECRET: CLIENT_SECRET,
          NO_COLOR: "1",
        },
      },
    );
    // The reader goes away after the first chunk, as `head -1` does.
    child.stdout.once("data", () => child.stdout.destroy());
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(err).not.toMatch(/EPIPE|Unhandled|node:events/);
    expect(code).toBe(0);
    expect(existsSync(path.join(out, "stores", "bog-centro.yaml"))).toBe(true);
  });
});
