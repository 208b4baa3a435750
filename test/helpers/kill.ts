/**
 * carte processes to kill: a Node process that loads carte's built CLI ahead and waits for the
 * arguments of one run, so that a test starts the next process while it checks the last one (starting
 * Node and loading carte takes seconds on a busy machine). The run is the CLI's own (`runCli`, as
 * bin/carte.js runs it) in a process of its own, which a SIGKILL ends with nothing cleaned up.
 */

import { spawn } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { CLIENT_ID, CLIENT_SECRET, repoRoot } from "./project.js";

/** A carte process started ahead, its modules loaded, waiting for the arguments of its one run. */
export interface ReadyCarte {
  /**
   * Runs `args` and kills the process (SIGKILL) once `until` holds; resolves with the exit signal.
   * Rejects when the run ends, or 20 s pass, before `until` holds.
   */
  runUntilKilled(args: string[], until: () => boolean): Promise<NodeJS.Signals | null>;
  /** Kills the process if it still runs (for a test's cleanup). */
  kill(): void;
}

/** Starts a {@link ReadyCarte}, with the e2e credentials in its environment. */
export function startCarte(): ReadyCarte {
  const main = pathToFileURL(path.join(repoRoot, "dist", "cli", "main.js")).href;
  const script = `
    const { runCli } = await import(${JSON.stringify(main)});
    process.stdout.write("ready");
    const args = JSON.parse(await new Promise((resolve) => process.stdin.once("data", (d) => resolve(String(d)))));
    const write = (stream) => (s) => void stream.write(s);
    process.exitCode = await runCli(args, {
      out: write(process.stdout), err: write(process.stderr),
      stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, env: process.env,
    });`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env, CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET, NO_COLOR: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => void (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => void (out += d.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on("exit", (_code, signal) => resolve(signal)),
  );
  // Loaded, or ended before that (said at the run).
  const ready = new Promise<void>((resolve) => {
    child.stdout.on("data", () => out.startsWith("ready") && resolve());
    void exited.then(() => resolve());
  });
  return {
    async runUntilKilled(args, until) {
      await ready;
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`carte exited before its run: ${out}`);
      }
      child.stdin.write(JSON.stringify(args));
      const deadline = Date.now() + 20_000;
      while (!until()) {
        if (Date.now() > deadline || child.exitCode !== null) {
          child.kill("SIGKILL");
          throw new Error(`the run never reached the point to kill it at: ${out}`);
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      child.kill("SIGKILL");
      return exited;
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}
