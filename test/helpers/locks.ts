/** Apply locks as a killed holder leaves them, for the tests of src/run/lock.ts. */

import { spawn } from "node:child_process";
import { lstatSync, mkdirSync, readlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { lockPaths } from "../../src/run/lock.js";

/** The id of a process that ran and ended. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((r) => child.on("exit", r));
  return child.pid as number;
}

/**
 * The lock folder of `name` in `dir` and its holder's file as a holder of this machine writes them
 * (host, process-id namespace, the lock folder's inode), with `holder`'s fields over them.
 */
export function plantLock(dir: string, name: string, holder: Record<string, unknown>): { lock: string } {
  const { lock, holder: json } = lockPaths(dir, name);
  let pidns: string | undefined;
  try {
    pidns = readlinkSync("/proc/self/ns/pid");
  } catch {
    pidns = undefined;
  }
  mkdirSync(lock, { recursive: true });
  writeFileSync(
    json,
    JSON.stringify({
      host: hostname(),
      since: new Date().toISOString(),
      name,
      pidns,
      lock: String(lstatSync(lock).ino),
      ...holder,
    }),
  );
  return { lock };
}
