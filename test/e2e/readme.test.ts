/**
 * The README works as written: every command of its ```sh blocks runs, in order, from the
 * root of a fresh copy of the repository (its git-tracked files), with the built `bin/carte.js`.
 * Lines that install (`npm ci …`) are skipped; `carte emulator` serves until stopped, so it is started,
 * asked for a token with the seed's credentials and stopped.
 */

import { execFileSync, spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { listeningUrl, repoRoot } from "../helpers/project.js";

/** The commands of the README's ```sh blocks, in order, one per line. */
export function readmeCommands(readme: string): string[] {
  const out: string[] = [];
  for (const block of readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm))
    for (const line of block[1]!.split("\n")) {
      const command = line.trim();
      if (command === "" || command.startsWith("#") || command.startsWith("npm ci")) continue;
      out.push(command);
    }
  return out;
}

let copy: string | undefined;
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

/** A fresh copy of the repository's tracked files, with the built dist/ and node_modules linked in. */
function freshCopy(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "carte-readme-"));
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
  for (const f of files) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    copyFileSync(path.join(repoRoot, f), path.join(dir, f));
  }
  symlinkSync(path.join(repoRoot, "dist"), path.join(dir, "dist"));
  symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

const env = (): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", CI: "true" };
  delete e.CARTE_CLIENT_ID;
  delete e.CARTE_CLIENT_SECRET;
  delete e.CARTE_SECRETS_FILE;
  return e;
};

/** Runs `carte emulator …` until it listens, logs in with the seed's first client, and stops it. */
async function tryEmulator(dir: string, args: string[]): Promise<void> {
  const seedAt = args.indexOf("--seed");
  const seed = readFileSync(path.join(dir, args[seedAt + 1]!), "utf8");
  const id = /client_id: (\S+)/.exec(seed)![1]!;
  const secret = /client_secret: (\S+)/.exec(seed)![1]!;
  // Port 0: a free port, so that the test does not depend on 8787 being free.
  const portAt = args.indexOf("--port");
  if (portAt >= 0) args[portAt + 1] = "0";
  const child = spawn(process.execPath, [path.join(dir, "bin", "carte.js"), ...args], {
    cwd: dir,
    env: env(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await listeningUrl(child);
  const res = await fetch(`${url}/restaurants/auth/v1/token/login/integrations`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_id: id, client_secret: secret }),
  });
  expect(res.status).toBe(200);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  expect(await exited).toBe(0);
}

describe("the README", () => {
  it("lists commands that each run from the repository root, in order", async () => {
    const commands = readmeCommands(readFileSync(path.join(repoRoot, "README.md"), "utf8"));
    expect(commands.length).toBeGreaterThan(10);
    copy = freshCopy();
    const carte = `"${process.execPath}" "${path.join(copy, "bin", "carte.js")}"`;
    for (const command of commands) {
      expect(command, "the README runs carte through npx").toMatch(/^npx carte /);
      const emulator = /^npx carte emulator (.*?)(?:\s+#.*)?$/.exec(command);
      if (emulator) {
        await tryEmulator(copy, ["emulator", ...emulator[1]!.trim().split(/\s+/)]);
        continue;
      }
      const r = spawnSync("sh", ["-c", command.replace(/\bnpx carte /g, `${carte} `)], {
        cwd: copy,
        env: env(),
        encoding: "utf8",
      });
      expect(r.status, `${command}\n${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stderr, command).not.toMatch(/ENOENT|Warning: .*stringified|\(node:\d+\)/);
    }
  }, 120_000);
});
