import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseDuration } from "../../src/cli/main.js";
import { LockError } from "../../src/errors.js";
import { acquireApplyLock } from "../../src/lock.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function lockDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), "carte-lock-"));
  dirs.push(d);
  return path.join(d, ".carte", "locks");
}

describe("the apply lock", () => {
  it("refuses an overlapping set of stores, naming the holder, and lets a disjoint set go", async () => {
    const dir = lockDir();
    const first = await acquireApplyLock({ dir, names: ["b", "a"], waitMs: 0 });
    const err = await acquireApplyLock({ dir, names: ["c", "b"], waitMs: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockError);
    expect((err as LockError).locked).toEqual(["b"]);
    expect(String(err)).toContain(`process ${process.pid}`);
    // "c" was taken before "b" refused: it was released again, so a disjoint set gets it.
    const other = await acquireApplyLock({ dir, names: ["c"], waitMs: 0 });
    await other.release();
    await first.release();
    const again = await acquireApplyLock({ dir, names: ["a", "b", "c"], waitMs: 0 });
    await again.release();
  });

  it("waits for a held lock up to the bound, telling once that it waits", async () => {
    const dir = lockDir();
    const first = await acquireApplyLock({ dir, names: ["a"], waitMs: 0 });
    let told = 0;
    const started = Date.now();
    const waiting = acquireApplyLock({
      dir,
      names: ["a"],
      waitMs: 5000,
      pollMs: 20,
      onWait: () => void told++,
    });
    setTimeout(() => void first.release(), 300);
    const second = await waiting;
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(told).toBe(1);
    await second.release();
    await expect(
      acquireApplyLock({ dir, names: ["a"], waitMs: 0 }).then((l) => l.release()),
    ).resolves.toBeUndefined();
  });
});

describe("--timeout", () => {
  it("reads durations in ms, s, m and h, a bare number as seconds", () => {
    expect(parseDuration("15m")).toBe(900_000);
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseDuration("90")).toBe(90_000);
    expect(parseDuration("1h")).toBe(3_600_000);
    expect(parseDuration("500ms")).toBe(500);
    expect(parseDuration("0")).toBeUndefined();
    expect(parseDuration("soon")).toBeUndefined();
  });
});
