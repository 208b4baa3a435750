/**
 * Issue 5: apply converges under injected faults. For 50 seeds, the emulator fails 10 % of calls
 * (500, 502, 503, dropped connections), rate-limits bursts with 429 and Retry-After, and jitters its
 * latency; carte applies the example chain from scratch, re-runs at most once, and must end with an
 * empty plan, without any call outside its plans and without creating anything twice.
 */

import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject, type LoadedProject } from "../../src/config/index.js";
import { startEmulator } from "../../src/emulator/index.js";
import { canonicalJson } from "../../src/plan/checksum.js";
import type { Plan } from "../../src/plan/types.js";
import { mulberry32 } from "../../src/emulator/prng.js";
import { PlatformClient } from "../../src/platform/client.js";
import type { Session } from "../../src/session.js";
import { applyPlan, planProject } from "../../src/workflow.js";
import { CLIENT_ID, CLIENT_SECRET, isWrite, repoRoot } from "../helpers/project.js";

const SEEDS = 50;

function seedOf(project: LoadedProject) {
  return {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        stores: Object.values(project.desired.stores).map((s) => ({
          id: s.store.storeId,
          integration_id: s.store.integrationId,
          name: s.store.name,
        })),
      },
    ],
  };
}

const signature = (method: string, p: string, body: unknown) => `${method} ${p} ${canonicalJson(body)}`;

describe("apply under injected faults", () => {
  it(`converges with at most one re-run in each of ${SEEDS} seeded runs, calling nothing outside its plans`, async () => {
    const project = await loadProject(path.join(repoRoot, "examples", "chain", "carte.yaml"));
    let reruns = 0;
    let faulted = 0;
    let rateLimited = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const emu = await startEmulator({
        port: 0,
        seed: seedOf(project),
        applyDelayMs: 2,
        faults: {
          faultSeed: seed,
          faultRate: 0.1,
          faultKinds: ["500", "502", "503", "429", "drop"],
          latencyMs: 1,
          jitterMs: 4,
        },
      });
      const client = new PlatformClient({
        baseUrl: emu.url,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        timeoutMs: 5000,
        baseDelayMs: 2,
        maxDelayMs: 20,
        // Injected 429s say Retry-After: 1; capped here so that 50 runs stay fast (the rate-limit
        // test below honours it in full).
        maxRetryAfterMs: 20,
        requestsPerSecond: Infinity,
        random: mulberry32(seed),
      });
      const session: Session = {
        client,
        emulator: undefined,
        stateFile: undefined,
        close: () => client.close(),
      };
      const plans: Plan[] = [];
      try {
        for (let run = 0; run < 2; run++) {
          const { plan } = await planProject(project, session);
          if (plan.changes.length === 0) break;
          plans.push(plan);
          if (run === 1) reruns++;
          const report = await applyPlan(plan, session, {
            convergenceTimeoutMs: 10_000,
            settleMs: 300,
          }).catch(() => undefined);
          if (report && report.failed === 0 && report.skipped === 0 && report.pending.length === 0) break;
        }
        // The platform matches the files: a plan without faults is empty.
        emu.setFaults(undefined);
        const { plan: final } = await planProject(project, session);
        expect(final.changes, `seed ${seed}: changes left after one re-run`).toEqual([]);

        // Every write the platform received was an operation of one of the plans; a cross-store
        // availability call may carry a subset of its planned entries (stores whose earlier call failed
        // are left out), never anything else.
        const ops = plans.flatMap((p) => p.operations);
        const planned = new Set(ops.map((o) => signature(o.method, o.path, o.body)));
        const plannedEntries = new Set(
          ops
            .filter((o) => o.endpoint === "availability.toggle")
            .flatMap((o) => (o.body as unknown[]).map((e) => signature(o.method, o.path, e))),
        );
        for (const w of emu.requests.filter(isWrite)) {
          const ok =
            planned.has(signature(w.method, w.path, w.body)) ||
            (Array.isArray(w.body) &&
              w.path.endsWith("/availability/stores/items") &&
              w.body.every((e) => plannedEntries.has(signature(w.method, w.path, e))));
          expect(ok, `seed ${seed}: unplanned ${w.method} ${w.path}`).toBe(true);
        }
        faulted += emu.requests.filter((r) => r.fault !== undefined).length;
        rateLimited += emu.requests.filter((r) => r.status === 429).length;

        // Nothing was created twice: one menu per type in every store.
        for (const s of Object.values(project.desired.stores)) {
          const menus = await client.request<{ menu_type: string }[]>(
            "GET /restaurants/menu/v1/stores/{storeId}/menu",
            { storeId: s.store.storeId },
          );
          const types = menus.map((m) => m.menu_type).sort();
          expect(types, `seed ${seed}: duplicate menus in ${s.store.key}`).toEqual([...new Set(types)]);
        }
      } finally {
        await session.close();
        await emu.close();
      }
    }
    // The runs really met faults, rate limits and re-runs.
    expect(faulted).toBeGreaterThan(SEEDS);
    expect(rateLimited).toBeGreaterThan(0);
    expect(reruns).toBeLessThanOrEqual(SEEDS);
  }, 240_000);

  it("slows down under a real per-client rate limit, honours Retry-After and still converges", async () => {
    const project = await loadProject(path.join(repoRoot, "examples", "chain", "carte.yaml"));
    const emu = await startEmulator({
      port: 0,
      seed: seedOf(project),
      applyDelayMs: 2,
      faults: { rateLimit: 8 },
    });
    const retries: number[] = [];
    const client = new PlatformClient({
      baseUrl: emu.url,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      requestsPerSecond: 50,
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
      const { plan } = await planProject(project, session, { parallelism: 8 });
      const report = await applyPlan(plan, session, { convergenceTimeoutMs: 30_000 });
      expect(report.failed).toBe(0);
      emu.setFaults(undefined);
      expect((await planProject(project, session)).plan.changes).toEqual([]);
      expect(emu.requests.some((r) => r.status === 429)).toBe(true);
      // Retry-After: 1 was honoured, and the client lowered its own rate.
      expect(Math.max(...retries)).toBeGreaterThanOrEqual(1000);
      expect(client.rateLimiter.rate).toBeLessThan(50);
    } finally {
      await session.close();
      await emu.close();
    }
  }, 60_000);
});
