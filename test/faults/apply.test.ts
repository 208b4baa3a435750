/**
 * Exactly once on a network that loses answers. The example chain is applied through the shared path
 * (src/run/run.ts) against an emulator that fails calls (500, 503, 429 with a real `Retry-After: 1`,
 * dropped connections) and loses answers (the write is processed, then the connection drops or the
 * answer is withheld past the client's timeout), and holds writes pending past the settle window. After
 * EVERY apply (test/faults/harness.ts): no duplicate of any kind on the platform, no create accepted
 * twice, no write outside the plan, a non-zero exit code whenever something is left, and a report that
 * names exactly the failed and skipped operations. The 60-run figures are `npm run bench:faults`.
 */

import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acceptedTwice, isWriteRequest } from "../../src/emulator/audit.js";
import type { RecordedRequest } from "../../src/emulator/index.js";
import type { FaultKind } from "../../src/emulator/faults.js";
import { ConvergenceError, StalePlanError } from "../../src/errors.js";
import { writePlanFile } from "../../src/plan/file.js";
import { PlatformClient, type RetryInfo } from "../../src/platform/client.js";
import { runCarte } from "../../src/run/run.js";
import type { Session } from "../../src/run/session.js";
import { applyPlan } from "../../src/run/apply-plan.js";
import { PLAN_READ_REUSE_MS, storeGuard } from "../../src/run/store-guard.js";
import { planProject } from "../../src/run/plan-project.js";
import { CLIENT_ID, CLIENT_SECRET } from "../helpers/project.js";
import {
  applyUntilDone,
  checkAfterApply,
  duplicatesOnPlatform,
  fixture,
  inspector,
  runApply,
  type Fixture,
} from "./harness.js";

const open: Fixture[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});
async function fx(): Promise<Fixture> {
  const f = await fixture();
  open.push(f);
  return f;
}

const MENU_WRITES = "/restaurants/menu/v1/stores/";
const WEBHOOK = "/api/v2/restaurants-integrations-public-api/webhook";

describe("apply under injected faults", () => {
  it("never makes a create again while the platform may still process it (writes held pending past the settle window)", async () => {
    const f = await fx();
    const applied = await applyUntilDone(
      f,
      (run) => ({
        faultSeed: 8 + run,
        // Every menu create loses its answer whatever order the calls go out in, every other store
        // menu write one time in two; every write there is held 1.5 s (settle: 0.3 s).
        routes: [
          ...["900101", "900102", "900201"].map((id) => ({
            prefix: `${MENU_WRITES}${id}/menu`,
            method: "POST",
            faultRate: 1,
            faultKinds: ["lost", "hold"] as FaultKind[],
            holdMs: 5000,
            pendingMs: 1500,
          })),
          {
            prefix: MENU_WRITES,
            method: "POST",
            faultRate: 0.5,
            faultKinds: ["lost", "hold"],
            holdMs: 5000,
            pendingMs: 1500,
          },
        ],
      }),
      { seed: 7, runs: 3 },
    );
    expect(applied.at(-1)!.left).toBe(0);
    // The menu creates lost their answers, and none was accepted twice (checked after every apply).
    const menuCreates = f.emu.requests.filter((r) => r.method === "POST" && r.path.endsWith("/menu"));
    expect(menuCreates.some((r) => r.fault === "lost" || r.fault === "hold")).toBe(true);
  }, 60_000);

  it("settles each lost slot create by its own slot, not by the day's final state", async () => {
    const f = await fx();
    // Every regular-hours create is processed and its answer lost: two slots of one day are created
    // together, so the day's final state cannot prove either one missing.
    const applied = await applyUntilDone(
      f,
      () => ({
        routes: [
          {
            prefix: "/api/rest-ops-utils/store/schedule/",
            method: "POST",
            faultRate: 1,
            faultKinds: ["lost"],
          },
        ],
      }),
      { seed: 3, runs: 1 },
    );
    const [first] = applied;
    expect(first!.left).toBe(0);
    expect(first!.result.exitCode).toBe(0);
    const settled = first!.result.report!.operations.filter((o) =>
      o.message?.includes("a read shows the change was made"),
    );
    expect(settled.length).toBeGreaterThan(3);
  }, 60_000);

  it("never sends a secret-bearing create again: a lost POST /webhook is settled by reading and its secret rotated", async () => {
    const f = await fx();
    const applied = await applyUntilDone(
      f,
      () => ({ routes: [{ prefix: WEBHOOK, method: "POST", faultRate: 1, faultKinds: ["lost"] }] }),
      { seed: 5, runs: 1 },
    );
    const report = applied[0]!.result.report!;
    const creates = report.operations.filter((o) => o.id.startsWith("webhook.create"));
    expect(creates.length).toBeGreaterThan(0);
    for (const c of creates) {
      expect(c.status).toBe("ok");
      expect(c.message).toContain("secret was rotated");
    }
    // POST /webhook was accepted once per event, and each rotated secret is kept.
    const posts = f.emu.requests.filter((r) => r.method === "POST" && r.path === WEBHOOK);
    expect(posts.length).toBe(creates.length);
    expect(acceptedTwice(f.emu.requests)).toEqual([]);
    const resets = f.emu.requests.filter((r) => r.path.endsWith("/reset-secret") && r.status === 200);
    expect(resets.length).toBe(creates.length);
    const kept = JSON.parse(readFileSync(f.secretsFile, "utf8")) as Record<string, string>;
    const events = applied[0]!.result
      .plan!.operations.filter((o) => o.endpoint === "webhook.create")
      .map((o) => String(o.params?.event))
      .sort();
    expect(events).toContain("NEW_ORDER");
    expect(Object.keys(kept).sort()).toEqual(events);
    expect(applied[0]!.result.exitCode).toBe(0);
  }, 60_000);

  it("waits out a storm of 429 with Retry-After during planning and applying: waiting is not failing", async () => {
    const f = await fx();
    const retries: RetryInfo[] = [];
    f.emu.setFaults({ faultSeed: 9, faultRate: 0.5, faultKinds: ["429"], includeLogin: false });
    const result = await runCarte(
      {
        command: "apply",
        config: f.config,
        env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
        secrets: () => ({ where: () => "test", put: async () => undefined }),
        targeting: { stores: ["bog-centro"], kinds: ["special_day", "holiday"], targets: [] },
        // Two attempts only: the asked waits must not count.
        client: { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 100, successGuard: false },
      },
      { onRetry: (r) => void retries.push(r) },
    );
    f.emu.setFaults(undefined);
    expect(result.error).toBeUndefined();
    expect(result.exitCode).toBe(0);
    const asked = retries.filter((r) => r.status === 429);
    expect(asked.length).toBeGreaterThan(2);
    expect(Math.min(...asked.map((r) => r.delayMs))).toBeGreaterThanOrEqual(1000);
  }, 90_000);
});

describe("rate limit", () => {
  it("slows down under a real per-client rate limit, honours Retry-After and still converges", async () => {
    const f = await fx();
    f.emu.setFaults({ rateLimit: 8 });
    const retries: number[] = [];
    const client = new PlatformClient({
      baseUrl: f.emu.url,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      requestsPerSecond: 50,
      // The 429s are injected on purpose: the stop rule of the success rate is off (docs/reliability.md).
      successGuard: false,
      onRetry: (r) => {
        if (r.status === 429) retries.push(r.delayMs);
      },
    });
    const session: Session = {
      client,
      emulator: undefined,
      stateFile: undefined,
      close: () => client.close(),
    };
    try {
      const { plan } = await planProject(f.project, session, { parallelism: 8 });
      const report = await applyPlan(plan, session, { convergenceTimeoutMs: 30_000 });
      expect(report.failed).toBe(0);
      f.emu.setFaults(undefined);
      expect((await planProject(f.project, session)).plan.changes).toEqual([]);
      expect(f.emu.requests.some((r) => r.status === 429)).toBe(true);
      // Retry-After: 1 was honoured, and the client lowered its own rate.
      expect(Math.max(...retries)).toBeGreaterThanOrEqual(1000);
      expect(client.rateLimiter.rate).toBeLessThan(50);
    } finally {
      await session.close();
    }
  }, 60_000);
});

describe("overlapping applies", () => {
  it("two applies started together on the same stores: one waits for the other's lock, no duplicate", async () => {
    const f = await fx();
    let waited = 0;
    const [a, b] = await Promise.all([
      runApply(f, { seed: 1, onLockWait: () => void waited++ }),
      runApply(f, { seed: 2, onLockWait: () => void waited++ }),
    ]);
    expect(waited).toBe(1);
    expect([a.exitCode, b.exitCode]).toEqual([0, 0]);
    // The second planned after the first had ended: nothing was left to do.
    expect([a, b].filter((r) => r.report === undefined).length).toBe(1);
    // Either may take the lock first: every write is the plan of the one that applied.
    const applied = [a, b].find((r) => r.report !== undefined)!;
    expect(await checkAfterApply(f, applied, f.emu.requests, "both applies")).toBe(0);
  }, 60_000);

  it("refuses a store whose state changed since the plan was made, just before its first write (no shared lock)", async () => {
    const f = await fx();
    const session = inspector(f);
    try {
      // Two runners planned at the same time; the first applied, then the second starts.
      const { plan: stale } = await planProject(f.project, session);
      expect((await runApply(f, { seed: 1 })).exitCode).toBe(0);
      const from = f.emu.requests.length;
      const report = await applyPlan(stale, session, {
        beforeStore: storeGuard(stale, f.project, session)!,
        convergenceTimeoutMs: 2000,
      });
      expect(report.refused?.map((r) => r.store).sort()).toEqual([
        "",
        "bog-centro",
        "bog-chapinero",
        "med-poblado",
      ]);
      expect(
        f.emu.requests
          .slice(from)
          .filter(isWriteRequest)
          .map((r) => `${r.method} ${r.path}`),
      ).toEqual([]);
      expect(report.operations.every((o) => o.status !== "ok")).toBe(true);
      expect(await duplicatesOnPlatform(f, session)).toEqual([]);
    } finally {
      await session.close();
    }
  }, 60_000);
});

/** Staff close a store on the platform (its status is part of the store's digest). */
async function closeStore(f: Fixture, key: string): Promise<void> {
  const staff = inspector(f);
  try {
    await staff.client.call("PUT", "/api/v2/restaurants-integrations-public-api/availability/stores/enable", {
      stores: [{ store_id: Number(f.project.desired.stores[key]!.store.storeId), is_enabled: false }],
    });
  } finally {
    await staff.close();
  }
}

/** The writes among `requests` that name the store (its platform id in the path or the body). */
function writesTo(f: Fixture, requests: readonly RecordedRequest[], key: string): string[] {
  const id = f.project.desired.stores[key]!.store.storeId;
  return requests
    .filter(isWriteRequest)
    .filter((r) => r.path.includes(`/${id}`) || JSON.stringify(r.body ?? null).includes(id))
    .map((r) => `${r.method} ${r.path}`);
}

describe("the check before a store's first write (a change made after the plan)", () => {
  it("carte apply: a store changed while the plan was waiting for confirmation is refused, no call made to it", async () => {
    const f = await fx();
    const from = f.emu.requests.length;
    const result = await runCarte(
      {
        command: "apply",
        config: f.config,
        env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
        secrets: () => ({ where: () => "test", put: async () => undefined }),
        convergenceTimeoutMs: 3000,
      },
      {
        // Once the plan is shown and confirmed, staff close med-poblado.
        confirm: async () => {
          await closeStore(f, "med-poblado");
          return true;
        },
      },
    );
    expect(result.exitCode).toBe(1);
    expect(result.report!.refused).toEqual([
      {
        store: "med-poblado",
        reason: expect.stringContaining("the store changed on the platform since the plan was made"),
      },
    ]);
    const requests = f.emu.requests.slice(from);
    // The staff's own call is the one write naming the store.
    expect(writesTo(f, requests, "med-poblado")).toEqual([
      "PUT /api/v2/restaurants-integrations-public-api/availability/stores/enable",
    ]);
    expect(writesTo(f, requests, "bog-centro").length).toBeGreaterThan(0);
  }, 60_000);

  it("carte apply FILE: a store changed after the saved plan was checked is refused, no call made to it", async () => {
    const f = await fx();
    const file = path.join(f.dir, "plan.json");
    const session = inspector(f);
    try {
      await writePlanFile(file, (await planProject(f.project, session)).plan);
    } finally {
      await session.close();
    }
    const from = f.emu.requests.length;
    const result = await runCarte(
      {
        command: "apply",
        config: f.config,
        planFile: file,
        env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
        secrets: () => ({ where: () => "test", put: async () => undefined }),
        convergenceTimeoutMs: 3000,
      },
      {
        // The saved plan was checked against a fresh read (it holds); then staff close med-poblado.
        onPlan: async (_plan, info) => {
          expect(info.saved).toBe(true);
          await closeStore(f, "med-poblado");
        },
      },
    );
    expect(result.exitCode).toBe(1);
    expect(result.report!.refused?.map((r) => r.store)).toEqual(["med-poblado"]);
    expect(writesTo(f, f.emu.requests.slice(from), "med-poblado")).toEqual([
      "PUT /api/v2/restaurants-integrations-public-api/availability/stores/enable",
    ]);
  }, 60_000);

  it(`an apply right after its plan takes a store's plan read as its check for ${PLAN_READ_REUSE_MS / 1000} s, then reads the store again`, async () => {
    const f = await fx();
    const session = inspector(f);
    try {
      const { plan, readAt } = await planProject(f.project, session);
      expect([...readAt.keys()].sort()).toEqual(["bog-centro", "bog-chapinero", "med-poblado"]);
      await closeStore(f, "med-poblado");
      const id = f.project.desired.stores["med-poblado"]!.store.storeId;
      const reads = () => f.emu.requests.filter((r) => r.method === "GET" && r.path.includes(`/${id}`));
      // Read for the plan moments ago: the plan's read is the check, and the change after it is not seen.
      const before = reads().length;
      await storeGuard(plan, f.project, session, { planReads: readAt })!("med-poblado");
      expect(reads().length).toBe(before);
      // A plan read older than the bound when the store's first call is ready: read again, refused.
      const old = new Map([...readAt].map(([k, t]) => [k, t - PLAN_READ_REUSE_MS - 1000]));
      await expect(storeGuard(plan, f.project, session, { planReads: old })!("med-poblado")).rejects.toThrow(
        StalePlanError,
      );
      expect(reads().length).toBeGreaterThan(before);
      // Without the plan's reads (a saved plan, a confirmed plan, a rollout stage): read again, refused.
      await expect(storeGuard(plan, f.project, session)!("med-poblado")).rejects.toThrow(
        "the store changed on the platform since the plan was made",
      );
      await expect(storeGuard(plan, f.project, session)!("bog-centro")).resolves.toBeUndefined();
    } finally {
      await session.close();
    }
  }, 60_000);
});

describe("duplicates", () => {
  it("finds duplicates on the platform, plans their removal and heals them", async () => {
    const f = await fx();
    expect((await runApply(f, { seed: 1 })).exitCode).toBe(0);
    const session = inspector(f);
    try {
      const store = f.project.desired.stores["bog-centro"]!.store.storeId;
      // A menu of a type the store already has, and a second identical Monday slot.
      await session.client.request("POST /restaurants/menu/v1/stores/{storeId}/menu", { storeId: store }, [
        { menu_type: "DEFAULT", categories: [] },
      ]);
      await session.client.request(
        "POST /api/rest-ops-utils/store/schedule/{storeId}",
        { storeId: store },
        {
          day: "mon",
          starts_time: "11:00:00",
          ends_time: "22:00:00",
        },
      );
      await f.emu.idle();
      expect((await duplicatesOnPlatform(f, session)).sort()).toEqual([
        expect.stringMatching(/^bog-centro menu DEFAULT#\d+$/),
        "bog-centro store_hours mon",
      ]);
      const { plan } = await planProject(f.project, session);
      expect(plan.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
        expect.stringMatching(/^delete store\[bog-centro\]\.menu\[DEFAULT#\d+\]$/),
        "update store[bog-centro].store_hours[mon]",
      ]);
      const result = await runApply(f, { seed: 2 });
      expect(result.exitCode).toBe(0);
      expect(await duplicatesOnPlatform(f, session)).toEqual([]);
    } finally {
      await session.close();
    }
  }, 60_000);

  it("fails the verification (exit 1) while a duplicate remains", async () => {
    const f = await fx();
    const session = inspector(f);
    try {
      const { plan } = await planProject(f.project, session);
      // Someone else creates one of the Monday slots the plan is about to create.
      const store = f.project.desired.stores["bog-centro"]!.store.storeId;
      await session.client.request(
        "POST /api/rest-ops-utils/store/schedule/{storeId}",
        { storeId: store },
        {
          day: "mon",
          starts_time: "11:00:00",
          ends_time: "22:00:00",
        },
      );
      const err = await applyPlan(plan, session, { convergenceTimeoutMs: 1500 }).catch((e: unknown) => e);
      expect((err as { duplicates?: string[] }).duplicates).toEqual(["store[bog-centro].store_hours[mon]"]);
      expect(String(err)).toContain("duplicate");
    } finally {
      await session.close();
    }
  }, 60_000);

  it("names the duplicates another apply made after a store was verified, when the apply does not converge", async () => {
    const f = await fx();
    const session = inspector(f);
    try {
      const { plan } = await planProject(f.project, session);
      // med-poblado's menu writes stay pending past the wait: that store never shows its changes.
      const slow = f.project.desired.stores["med-poblado"]!.store.storeId;
      f.emu.setFaults({ routes: [{ prefix: `${MENU_WRITES}${slow}/`, method: "POST", pendingMs: 60_000 }] });
      // Once every call ended (bog-centro is verified by then), another apply's copy of a Monday slot
      // arrives in bog-centro.
      const store = f.project.desired.stores["bog-centro"]!.store.storeId;
      let copied: Promise<unknown> | undefined;
      const err = await applyPlan(plan, session, {
        convergenceTimeoutMs: 2500,
        onEvent: (e) => {
          if (e.type !== "operation" || e.done !== e.total) return;
          copied = new Promise((r) => setTimeout(r, 500)).then(() =>
            session.client.request(
              "POST /api/rest-ops-utils/store/schedule/{storeId}",
              { storeId: store },
              { day: "mon", starts_time: "11:00:00", ends_time: "22:00:00" },
            ),
          );
        },
      }).catch((e: unknown) => e);
      await copied;
      expect(err).toBeInstanceOf(ConvergenceError);
      expect((err as ConvergenceError).pending.every((a) => a.startsWith("store[med-poblado]"))).toBe(true);
      expect((err as ConvergenceError).duplicates).toEqual(["store[bog-centro].store_hours[mon]"]);
      expect(String(err)).toContain("still shows 1 duplicate(s): store[bog-centro].store_hours[mon]");
    } finally {
      f.emu.setFaults(undefined);
      await session.close();
    }
  }, 60_000);
});

describe("saved plans", () => {
  it("refuses an edited plan file before any call", async () => {
    const f = await fx();
    const session = inspector(f);
    const file = path.join(f.dir, "plan.json");
    try {
      const { plan } = await planProject(f.project, session);
      await writePlanFile(file, plan);
    } finally {
      await session.close();
    }
    // The price of an item becomes 1 in the operation's body.
    const text = readFileSync(file, "utf8");
    const edited = text.replace(/"price":(\d+)/, '"price":1');
    expect(edited).not.toBe(text);
    writeFileSync(file, edited);
    const before = f.emu.requests.length;
    const result = await runCarte({
      command: "apply",
      config: f.config,
      planFile: file,
      env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
      secrets: () => ({ where: () => "test", put: async () => undefined }),
    });
    expect(result.exitCode).toBe(1);
    expect(result.error).toBeInstanceOf(StalePlanError);
    expect(String(result.error)).toContain("does not match its digest");
    expect(f.emu.requests.length).toBe(before);
  }, 30_000);
});
