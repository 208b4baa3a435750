/**
 * The apply lock across machines (src/gitops/ref-lock.ts) against a real git remote: one apply holds it
 * at a time, whoever pushes at the same moment; the others wait or refuse naming the holder; a stale
 * lock is taken over; `force-unlock` removes only the lock named; a remote git may not push to is an
 * error in words.
 */

import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RefLockSettings } from "../../src/config/load.js";
import { GitError, LockError, UsageError } from "../../src/errors.js";
import { acquireRefLock, forceUnlock, readRefLock } from "../../src/gitops/ref-lock.js";
import { findRepository } from "../../src/gitops/safe-git.js";
import { git } from "../action/harness.js";
import { testRemote, type TestRemote } from "../helpers/remote.js";

const SETTINGS: RefLockSettings = { ref: "refs/carte/lock", remote: "origin", staleMs: 60 * 60_000 };

let remote: TestRemote | undefined;
afterEach(() => {
  remote?.close();
  remote = undefined;
});

async function checkouts(n: number) {
  remote = testRemote();
  const r = remote;
  return Promise.all(Array.from({ length: n }, () => findRepository(r.checkout())));
}

describe("the apply lock across machines", () => {
  it("is held by one apply; another refuses naming it, and takes it once released", async () => {
    const [a, b] = await checkouts(2);
    const first = await acquireRefLock({ repo: a!, settings: SETTINGS, waitMs: 0 });
    expect(git(remote!.origin, "for-each-ref", "--format=%(refname)", "refs/carte")).toBe("refs/carte/lock");
    const refused = await acquireRefLock({ repo: b!, settings: SETTINGS, waitMs: 0 }).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(LockError);
    expect(String(refused)).toContain(`refs/carte/lock on origin (lock ${first.id}: process ${process.pid}`);
    expect(String(refused)).toContain(`carte force-unlock ${first.id}`);

    // Waiting: the second takes it as soon as the first releases it.
    let told = 0;
    const waiting = acquireRefLock({
      repo: b!,
      settings: SETTINGS,
      waitMs: 20_000,
      pollMs: 50,
      onWait: () => void told++,
    });
    // Release only once the second has found the lock held (git is slow on a loaded machine).
    await expect.poll(() => told, { timeout: 15_000, interval: 20 }).toBe(1);
    expect(await first.release()).toBe(true);
    const second = await waiting;
    expect(told).toBe(1);
    expect((await readRefLock(a!, SETTINGS))?.holder?.id).toBe(second.id);
    expect(await second.release()).toBe(true);
    expect(await readRefLock(a!, SETTINGS)).toBeUndefined();
  });

  it("goes to exactly one of several applies pushing at the same moment", async () => {
    const repos = await checkouts(3);
    const tries = await Promise.allSettled(
      [...repos, ...repos].map((repo) => acquireRefLock({ repo, settings: SETTINGS, waitMs: 0 })),
    );
    const held = tries.filter((t) => t.status === "fulfilled");
    expect(held).toHaveLength(1);
    for (const t of tries) if (t.status === "rejected") expect(t.reason).toBeInstanceOf(LockError);
    const holder = await readRefLock(repos[0]!, SETTINGS);
    expect(holder?.holder?.id).toBe((held[0] as PromiseFulfilledResult<{ id: string }>).value.id);
  });

  it("is taken over once stale, and the apply that lost it releases nothing", async () => {
    const [a, b] = await checkouts(2);
    const first = await acquireRefLock({ repo: a!, settings: SETTINGS, waitMs: 0 });
    await new Promise((r) => setTimeout(r, 20));
    const second = await acquireRefLock({ repo: b!, settings: { ...SETTINGS, staleMs: 10 }, waitMs: 0 });
    expect(await first.release()).toBe(false);
    expect((await readRefLock(a!, SETTINGS))?.holder?.id).toBe(second.id);
    expect(await second.release()).toBe(true);
  });

  it("is removed by force-unlock of its id only", async () => {
    const [a, b] = await checkouts(2);
    await expect(forceUnlock(b!, SETTINGS, "0123456789ab")).rejects.toThrow(/no apply holds the lock/);
    const held = await acquireRefLock({ repo: a!, settings: SETTINGS, waitMs: 0 });
    const wrong = await forceUnlock(b!, SETTINGS, "0123456789ab").catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(UsageError);
    expect(String(wrong)).toContain(`is lock ${held.id}`);
    expect((await forceUnlock(b!, SETTINGS, held.id)).holder?.id).toBe(held.id);
    expect(await readRefLock(a!, SETTINGS)).toBeUndefined();
    expect(await held.release()).toBe(false);
  });

  it("says in words why it cannot be taken from a remote git may not push to", async () => {
    const [a] = await checkouts(1);
    // A remote on a local path: carte's git allows https and ssh only.
    git(a!.top, "remote", "set-url", "origin", remote!.origin);
    const err = await acquireRefLock({ repo: a!, settings: SETTINGS, waitMs: 0 }).catch((e: unknown) => e);
    // git's failure, not a misused command.
    expect(err).toBeInstanceOf(GitError);
    expect(err).not.toBeInstanceOf(UsageError);
    expect(String(err)).toMatch(
      /could not take the apply lock refs\/carte\/lock on origin: git says: .*not allowed/,
    );
    expect(existsSync(path.join(remote!.origin, "refs", "carte"))).toBe(false);
  });

  it("names a missing remote as missing, with how to add it or pick another", async () => {
    const [a] = await checkouts(1);
    git(a!.top, "remote", "rename", "origin", "upstream");
    const err = await acquireRefLock({ repo: a!, settings: SETTINGS, waitMs: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitError);
    const said = String(err);
    expect(said).toContain("the apply lock refs/carte/lock on origin needs the git remote origin");
    expect(said).toContain("(its remotes: upstream)");
    expect(said).toContain("git remote add origin URL");
    expect(said).toContain("lock: remote: NAME");
    expect(said).not.toContain("transport");
    await expect(forceUnlock(a!, SETTINGS, "0123456789ab")).rejects.toThrow(/needs the git remote origin/);
    git(a!.top, "remote", "remove", "upstream");
    await expect(readRefLock(a!, SETTINGS)).rejects.toThrow(/\(it has no remote at all\)/);
    expect(existsSync(path.join(remote!.origin, "refs", "carte"))).toBe(false);
  });
});
