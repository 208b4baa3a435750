import { spawn, type ChildProcess } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { parseDuration } from "../../src/cli/main.js";
import { LockError } from "../../src/errors.js";
import { acquireApplyLock, lockPaths } from "../../src/run/lock.js";
import { deadPid, plantLock } from "../helpers/locks.js";
import { repoRoot } from "../helpers/project.js";

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
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

  it("refreshes every held lock's time in one batch while it is held, and stops once released", async () => {
    const dir = lockDir();
    const names = ["a", "b", "c"];
    const lock = await acquireApplyLock({ dir, names, waitMs: 0, refreshMs: 40 });
    const times = () => names.map((n) => lstatSync(lockPaths(dir, n).lock).mtimeMs);
    const before = times();
    const until = Date.now() + 2000;
    while (times().some((t, i) => t === before[i]) && Date.now() < until) await sleep(20);
    // Refreshed: given the time of now rounded up to the second, which no mkdir left there.
    for (const t of times()) {
      expect(t % 1000).toBe(0);
      expect(Math.abs(t - Date.now())).toBeLessThan(2000);
    }
    expect(lock.compromised).toBeUndefined();
    await lock.release();
    for (const n of names) expect(existsSync(lockPaths(dir, n).lock)).toBe(false);
  });

  it("loses a lock taken over while held, and its release leaves the new holder's lock alone", async () => {
    const dir = lockDir();
    const lock = await acquireApplyLock({ dir, names: ["a", "b"], waitMs: 0, refreshMs: 30 });
    const a = lockPaths(dir, "a");
    // Another apply's takeover: a folder of its own in the lock's place, and its holder's file.
    rmSync(a.holder);
    rmSync(a.lock, { recursive: true });
    await sleep(5);
    mkdirSync(a.lock);
    const theirs = JSON.stringify({ pid: 1, host: "elsewhere", since: new Date().toISOString(), name: "a" });
    writeFileSync(a.holder, theirs);
    const until = Date.now() + 2000;
    while (lock.compromised === undefined && Date.now() < until) await sleep(10);
    expect(lock.compromised?.message).toContain("was lost");
    await lock.release();
    expect(existsSync(a.lock)).toBe(true);
    expect(readFileSync(a.holder, "utf8")).toBe(theirs);
    // The lock that was not lost is released as usual.
    expect(existsSync(lockPaths(dir, "b").lock)).toBe(false);
    expect(existsSync(lockPaths(dir, "b").holder)).toBe(false);
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

describe("the temporary files of the lock folder", () => {
  it("are removed once per acquisition when their writer was killed, never while it runs", async () => {
    const dir = lockDir();
    const first = await acquireApplyLock({ dir, names: ["a"], waitMs: 0 });
    await first.release();
    // What a killed apply left while writing a holder's file, and what a running one is writing.
    const dead = await deadPid();
    const { holder } = lockPaths(dir, "b");
    const left = path.join(dir, `.${path.basename(holder)}.carte-tmp-${dead}-0a0b0c0d0e0f`);
    const live = path.join(dir, `.${path.basename(holder)}.carte-tmp-${process.ppid}-0a0b0c0d0e0f`);
    writeFileSync(left, "{");
    writeFileSync(live, "{");
    const lock = await acquireApplyLock({ dir, names: ["a", "b", "c"], waitMs: 0 });
    expect(existsSync(left)).toBe(false);
    expect(existsSync(live)).toBe(true);
    // Each holder's file is whole, and no temporary file of this apply is left.
    for (const name of ["a", "b", "c"]) {
      expect(JSON.parse(readFileSync(lockPaths(dir, name).holder, "utf8"))).toMatchObject({
        name,
        pid: process.pid,
      });
    }
    expect(readdirSync(dir).filter((n) => n.includes(`.carte-tmp-${process.pid}-`))).toEqual([]);
    await lock.release();
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

/**
 * Another process taking the lock of `names` in `dir` with carte's built code and holding it until it
 * is killed; `held()` resolves once it holds the lock.
 */
function holderProcess(dir: string, names: string[]) {
  const lockModule = pathToFileURL(path.join(repoRoot, "dist", "run", "lock.js")).href;
  const script = `
    import { acquireApplyLock } from ${JSON.stringify(lockModule)};
    const [dir, names] = JSON.parse(process.argv[1]);
    await acquireApplyLock({ dir, names, waitMs: 0 });
    process.stdout.write("held");
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script, JSON.stringify([dir, names])], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout.on("data", (d: Buffer) => void (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => void (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const held = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", () => out.startsWith("held") && resolve());
    void exited.then(() => reject(new Error(`the holder exited: ${out}`)));
  });
  return { child, exited, held: () => held };
}

describe("an abandoned apply lock", () => {
  it("is taken over at once when its holder on this machine was killed, and never while it runs", async () => {
    const dir = lockDir();
    const holder = holderProcess(dir, ["a", "b"]);
    await holder.held();
    // While the holder runs, its lock is its own.
    const refused = await acquireApplyLock({ dir, names: ["b"], waitMs: 0 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LockError);
    expect(String(refused)).toContain(`process ${holder.child.pid}`);

    holder.child.kill("SIGKILL");
    await holder.exited;
    const started = Date.now();
    const lock = await acquireApplyLock({ dir, names: ["a", "b", "c"], waitMs: 0 });
    expect(Date.now() - started).toBeLessThan(2000);
    const record = JSON.parse(readFileSync(lockPaths(dir, "a").holder, "utf8")) as { pid: number };
    expect(record.pid).toBe(process.pid);
    await lock.release();
    expect(existsSync(lockPaths(dir, "a").lock)).toBe(false);
    expect(existsSync(lockPaths(dir, "a").holder)).toBe(false);
  });

  it("is not taken at once when the holder's file is another lock's, another host's, or a process that runs", async () => {
    const gone = await deadPid();
    for (const holder of [
      { pid: gone, lock: "1" },
      { pid: gone, host: "another-runner" },
      { pid: process.ppid },
    ]) {
      const dir = lockDir();
      plantLock(dir, "a", holder);
      const err = await acquireApplyLock({ dir, names: ["a"], waitMs: 0 }).catch((e: unknown) => e);
      expect(err, JSON.stringify(holder)).toBeInstanceOf(LockError);
    }
  });

  it("is taken over once not refreshed for 30 s, whoever holds it, and a holder without a file too", async () => {
    for (const holder of [{ pid: process.ppid, host: "another-runner" }, undefined]) {
      const dir = lockDir();
      const { lock } = holder ? plantLock(dir, "a", holder) : { lock: lockPaths(dir, "a").lock };
      mkdirSync(lock, { recursive: true });
      const old = new Date(Date.now() - 31_000);
      utimesSync(lock, old, old);
      const taken = await acquireApplyLock({ dir, names: ["a"], waitMs: 0 });
      await taken.release();
    }
  });

  it("is taken over once not refreshed for the stale time since first seen, when its time is in the future", async () => {
    const dir = lockDir();
    // Another host's holder (not judged dead from here), its lock's time set to the year 2999: a
    // clock far ahead, or a folder made to look refreshed for ever.
    const { lock } = plantLock(dir, "a", { pid: process.ppid, host: "another-runner" });
    const ahead = new Date("2999-01-01T00:00:00Z");
    utimesSync(lock, ahead, ahead);
    const refused = await acquireApplyLock({ dir, names: ["a"], waitMs: 0, staleMs: 1_000 }).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(LockError);
    const started = Date.now();
    const taken = await acquireApplyLock({ dir, names: ["a"], waitMs: 10_000, pollMs: 50, staleMs: 1_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(JSON.parse(readFileSync(lockPaths(dir, "a").holder, "utf8"))).toMatchObject({ pid: process.pid });
    await taken.release();
  });

  it("waits while another apply has claimed it, and passes over a claim left by a killed taker", async () => {
    const dir = lockDir();
    const { lock } = plantLock(dir, "a", { pid: await deadPid() });
    const seen = lstatSync(lock, { bigint: true });
    const claim = `${lock.slice(0, -".lock".length)}.takeover-${seen.ino}-${seen.mtimeNs}-0`;
    mkdirSync(claim);
    const err = await acquireApplyLock({ dir, names: ["a"], waitMs: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockError);
    expect(existsSync(lock)).toBe(true);

    const old = new Date(Date.now() - 31_000);
    utimesSync(claim, old, old);
    const taken = await acquireApplyLock({ dir, names: ["a"], waitMs: 0 });
    await taken.release();
    // The left claim went with the lock it was for.
    expect(existsSync(claim)).toBe(false);
  });
});
