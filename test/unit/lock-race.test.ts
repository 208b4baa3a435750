/**
 * Several applies that find the same abandoned lock at the same moment: exactly one holds it at a
 * time. The file system calls of the lock are made slow at random (0–4 ms each), so that every
 * interleaving of the takers' reads, claims and removals comes up; a takeover that removed a lock
 * without an exclusive claim on that very lock lets two of them hold it within a few rounds.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { LockError } from "../../src/errors.js";
import { acquireApplyLock } from "../../src/run/lock.js";
import { deadPid, plantLock } from "../helpers/locks.js";

const jitter = { on: false };
vi.mock("node:fs/promises", async (original) => {
  const real = await original<typeof import("node:fs/promises")>();
  const slow =
    <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (jitter.on) await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 5)));
      return f(...args);
    };
  const wrapped = {
    ...real,
    lstat: slow(real.lstat),
    mkdir: slow(real.mkdir),
    rmdir: slow(real.rmdir),
    readdir: slow(real.readdir),
    rename: slow(real.rename),
    rm: slow(real.rm),
    open: slow(real.open),
  };
  return { ...wrapped, default: wrapped };
});

const root = mkdtempSync(path.join(tmpdir(), "carte-lock-race-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("an abandoned apply lock found by several applies at once", () => {
  it("is held by one of them at a time", async () => {
    const gone = await deadPid();
    let inside = 0;
    let most = 0;
    let held = 0;
    jitter.on = true;
    try {
      for (let round = 0; round < 20; round++) {
        const dir = path.join(root, String(round), ".carte", "locks");
        plantLock(dir, "a", { pid: gone });
        await Promise.all(
          Array.from({ length: 6 }, async () => {
            const lock = await acquireApplyLock({ dir, names: ["a"], waitMs: 0 }).catch((err: unknown) => {
              // The others find it held: refused, never holding it too.
              expect(err).toBeInstanceOf(LockError);
              return undefined;
            });
            if (!lock) return;
            held++;
            most = Math.max(most, ++inside);
            await new Promise((r) => setTimeout(r, 15));
            inside--;
            await lock.release();
          }),
        );
      }
    } finally {
      jitter.on = false;
    }
    expect(held).toBeGreaterThanOrEqual(20);
    expect(most).toBe(1);
  });
});
