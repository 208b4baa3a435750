/**
 * End to end: the canary rollout of carte.yaml `rollout:` against the emulator. The
 * example chain's canary is bog-centro (store 900101); the rest are bog-chapinero (900102) and
 * med-poblado (900201).
 */

import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest } from "../../src/emulator/index.js";
import { renderPlanComment } from "../../src/render/markdown.js";
import { renderReport, renderReportJson, renderReportMarkdown } from "../../src/render/apply-report.js";
import { CLIENT_LOCK, acquireApplyLock } from "../../src/run/lock.js";
import { PlatformClient } from "../../src/platform/client.js";
import { runCarte } from "../../src/run/run.js";
import { secretsFileSink } from "../../src/run/secrets.js";
import { CLIENT_ID, CLIENT_SECRET, carte, edit, exampleAgainstEmulator, writes } from "../helpers/project.js";

const storeFiles = ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"];
const CANARY = { id: "900101", key: "bog-centro" };
const REST = [
  { id: "900102", key: "bog-chapinero" },
  { id: "900201", key: "med-poblado" },
];

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** The example against a fresh emulator, with a canary stage of bog-centro and then the rest. */
async function rolloutFixture() {
  const fx = await exampleAgainstEmulator(storeFiles);
  cleanup = fx.close;
  writeFileSync(
    fx.config,
    readFileSync(fx.config, "utf8") + '\nrollout:\n  canary: [stores/bog-centro.yaml]\n  rest: "*"\n',
  );
  return fx;
}

/** Whether a recorded request touches a store: its id in the path, or its id or key in the body. */
function touches(r: RecordedRequest, store: { id: string; key: string }): boolean {
  const body = JSON.stringify(r.body ?? null);
  return (
    r.path.includes(`/${store.id}/`) ||
    r.path.endsWith(`/${store.id}`) ||
    r.path.includes(`/${store.key}`) ||
    body.includes(`"${store.id}"`) ||
    body.includes(store.id) ||
    body.includes(`"${store.key}"`)
  );
}

/** A client-level call: the client's own webhooks (carte.yaml `client:`). */
const clientLevel = (r: RecordedRequest) => r.path.includes("/clients/");

describe("canary rollout", () => {
  it("a failed canary leaves the other stores untouched, exits 1 and names the stages that did not run", async () => {
    const fx = await rolloutFixture();
    fx.emu.clearRequests();
    // Every upsert of the canary's items fails (503: nothing was done), however often it is made again.
    fx.emu.setFaults({
      routes: [
        {
          prefix: `/restaurants/menu/v1/stores/${CANARY.id}/items`,
          method: "POST",
          faultRate: 1,
          faultKinds: ["503"],
        },
      ],
    });
    const result = await runCarte({
      command: "apply",
      config: fx.config,
      env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
      secrets: () => secretsFileSink(path.join(fx.dir, "secrets.json")),
      client: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20 },
      settleMs: 200,
      convergenceTimeoutMs: 5000,
    });
    expect(result.error).toBeUndefined();
    expect(result.exitCode).toBe(1);
    const report = result.report!;
    expect(report.stages?.map((s) => [s.name, s.status])).toEqual([
      ["canary", "failed"],
      ["rest", "not_run"],
    ]);
    // What the rest would have changed, from the plan that was shown: both stores, creates among them.
    const rest = report.stages![1]!;
    expect(rest.stores).toBe(2);
    expect(rest.changes.stores).toBe(2);
    expect(rest.changes.create).toBeGreaterThan(0);
    expect(report.failed).toBeGreaterThan(0);

    const written = writes(fx.emu.requests);
    // The canary was tried (its failed upserts are recorded), the others never written to.
    expect(written.some((r) => r.path === `/restaurants/menu/v1/stores/${CANARY.id}/items`)).toBe(true);
    for (const store of REST) expect(written.filter((r) => touches(r, store))).toEqual([]);

    const text = renderReport(result.plan!, report, result.applyMs ?? 0);
    expect(text).toMatch(
      /^Stage canary \(1 store\): failed \(its plan: \d+ to create, \d+ to update, \d+ to delete in 1 store\); \d+ API calls; what went wrong is listed below$/m,
    );
    expect(text).toMatch(
      /^Stage rest \(2 stores\): not run: it would have changed \d+ to create, \d+ to update, \d+ to delete in 2 stores$/m,
    );
    expect(text).toContain("The rollout stopped: 1 stage did not run (rest).");
    expect(text).toContain("Apply incomplete");
    const markdown = renderReportMarkdown(result.plan!, report);
    expect(markdown).toContain("#### Stage canary (1 store)");
    expect(markdown).toContain("#### Stage rest (2 stores)");
    expect(markdown).toContain("**The rollout stopped**: 1 stage did not run (<code>rest</code>).");
    const json = JSON.parse(renderReportJson(result.plan!, report)) as {
      stages: { name: string; status: string }[];
    };
    expect(json.stages.map((s) => s.status)).toEqual(["failed", "not_run"]);

    // Once the cause is gone, the apply goes on: both stages, and the platform matches the files.
    fx.emu.setFaults(undefined);
    const again = await carte(["apply", "--auto-approve", "-c", fx.config]);
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/^Stage canary \(1 store\): applied: /m);
    expect(again.out).toMatch(/^Stage rest \(2 stores\): applied: /m);
    const plan = await carte(["plan", "--detailed-exitcode", "-c", fx.config]);
    expect(plan.code).toBe(0);
  });

  it("the plan comment of a pull request lists the stages in order, with what each would change", async () => {
    const fx = await rolloutFixture();
    const result = await runCarte({
      command: "plan",
      config: fx.config,
      env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
    });
    expect(result.exitCode).toBe(0);
    expect(result.plannedStages?.map((s) => s.name)).toEqual(["canary", "rest"]);
    const comment = renderPlanComment(result.plan!, { stages: result.plannedStages });
    expect(comment).toContain("Rollout in 2 stages, in this order (carte.yaml `rollout:`):");
    expect(comment).toMatch(
      /^1\. Stage canary \(1 store\): \d+ to create, \d+ to update, \d+ to delete in 1 store$/m,
    );
    expect(comment).toMatch(
      /^1\. Stage rest \(2 stores\): \d+ to create, \d+ to update, \d+ to delete in 2 stores$/m,
    );
    expect(comment.indexOf("Stage canary")).toBeLessThan(comment.indexOf("Stage rest"));
  });

  it("a later stage that cannot be read fails with the error; the stages before stay reported", async () => {
    const fx = await rolloutFixture();
    let armed = false;
    const result = await runCarte(
      {
        command: "apply",
        config: fx.config,
        env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
        secrets: () => secretsFileSink(path.join(fx.dir, "secrets.json")),
        client: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20 },
      },
      {
        // Once the canary's calls begin, every read of bog-chapinero's items fails.
        onEvent: (e) => {
          if (e.type !== "operation" || armed) return;
          armed = true;
          fx.emu.setFaults({
            routes: [
              {
                prefix: `/restaurants/menu/v1/stores/${REST[0]!.id}/`,
                method: "GET",
                faultRate: 1,
                faultKinds: ["503"],
              },
            ],
          });
        },
      },
    );
    expect(result.error).toBeUndefined();
    expect(result.exitCode).toBe(1);
    const stages = result.report!.stages!;
    expect(stages.map((s) => [s.name, s.status])).toEqual([
      ["canary", "applied"],
      ["rest", "failed"],
    ]);
    expect(stages[1]!.error).toMatch(/503/);
    expect(result.report!.operations.length).toBe(stages[0]!.calls);
    const text = renderReport(result.plan!, result.report!, 0);
    expect(text).toMatch(/^Stage rest \(2 stores\): failed: .*503/m);
    expect(writes(fx.emu.requests).filter((r) => REST.some((s) => touches(r, s)))).toEqual([]);
  });

  it("applies the canary stage, verified, before any write of the rest; the platform then matches", async () => {
    const fx = await rolloutFixture();
    const valid = await carte(["validate", "-c", fx.config]);
    expect(valid.out).toContain("Rollout stages, in order, with their stores: canary (1), then rest (2).");
    const planned = await carte(["plan", "-c", fx.config]);
    expect(planned.code).toBe(0);
    expect(planned.out).toContain("Rollout in 2 stages, in this order (carte.yaml rollout:):");
    expect(planned.out).toMatch(
      /^ {2}Stage canary \(1 store\): \d+ to create, \d+ to update, \d+ to delete in 1 store$/m,
    );
    expect(planned.out).toMatch(
      /^ {2}Stage rest \(2 stores\): \d+ to create, \d+ to update, \d+ to delete in 2 stores$/m,
    );

    fx.emu.clearRequests();
    const run = await carte(["apply", "--auto-approve", "--json", "-c", fx.config]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.out) as { stages: { name: string; status: string; calls: number }[] };
    expect(report.stages.map((s) => [s.name, s.status])).toEqual([
      ["canary", "applied"],
      ["rest", "applied"],
    ]);

    const all = fx.emu.requests;
    const written = writes(all);
    const canary = written.filter((r) => touches(r, CANARY) || clientLevel(r));
    const rest = written.filter((r) => REST.some((s) => touches(r, s)));
    expect(canary.length).toBeGreaterThan(0);
    expect(rest.length).toBeGreaterThan(0);
    // No call carries the canary together with another store: the stages are apart.
    expect(canary.filter((r) => rest.includes(r))).toEqual([]);
    const lastCanary = all.indexOf(canary[canary.length - 1]!);
    const firstRest = all.indexOf(rest[0]!);
    expect(lastCanary).toBeLessThan(firstRest);
    // The canary stage was verified on the platform before the rest began: a read of its store after
    // the store's last write (the store is verified once its own calls ended, maybe before a
    // client-level call of the stage).
    const lastOfStore = all.indexOf(written.filter((r) => touches(r, CANARY)).at(-1)!);
    const readsBetween = all
      .slice(lastOfStore + 1, firstRest)
      .filter((r) => r.method === "GET" && r.path.includes(`/${CANARY.id}/`));
    expect(readsBetween.length).toBeGreaterThan(0);
    // The rest joined the webhook events the canary created (add-stores): none was created again.
    const created = (list: RecordedRequest[]) =>
      list
        .filter((r) => r.method === "POST" && r.path.endsWith("/webhook"))
        .map((r) => (r.body as { event: string }).event);
    const byCanary = created(canary);
    expect(byCanary).toContain("NEW_ORDER");
    expect(created(rest).filter((e) => byCanary.includes(e))).toEqual([]);
    expect(rest.some((r) => r.path.endsWith("/webhook/NEW_ORDER/add-stores"))).toBe(true);

    const plan = await carte(["plan", "--detailed-exitcode", "-c", fx.config]);
    expect(plan.code).toBe(0);
  });

  it("a plan limited to reviewed changes stays limited in every stage", async () => {
    const fx = await rolloutFixture();
    fx.emu.clearRequests();
    // As the Action's merge does: only what the review showed, here everything but med-poblado.
    const result = await runCarte({
      command: "apply",
      config: fx.config,
      env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
      secrets: () => secretsFileSink(path.join(fx.dir, "secrets.json")),
      only: (plan) => plan.changes.filter((c) => c.store !== "med-poblado").map((c) => c.address),
    });
    expect(result.error).toBeUndefined();
    expect(result.exitCode).toBe(0);
    expect(result.report!.stages!.map((s) => [s.name, s.status, s.changes.stores])).toEqual([
      ["canary", "applied", 1],
      ["rest", "applied", 1],
    ]);
    const written = writes(fx.emu.requests);
    expect(written.filter((r) => touches(r, REST[0]!)).length).toBeGreaterThan(0);
    expect(written.filter((r) => touches(r, REST[1]!))).toEqual([]);
    // What was left out is still to do.
    const left = await carte(["plan", "--json", "-c", fx.config]);
    const plan = JSON.parse(left.out) as { changes: { store: string }[] };
    expect(new Set(plan.changes.map((c) => c.store))).toEqual(new Set(["med-poblado"]));
  });

  it("each store of a later stage is checked against the plan that was shown: one changed since is refused", async () => {
    const fx = await rolloutFixture();
    expect((await carte(["apply", "--auto-approve", "-c", fx.config])).code).toBe(0);
    // A change for every store: the title of an item of the shared catalog.
    edit(
      path.join(fx.dir, "catalogs/burgers.yaml"),
      "title: Hamburguesa Doble",
      "title: Hamburguesa Doble XL",
    );
    const staff = new PlatformClient({
      baseUrl: fx.emu.url,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      requestsPerSecond: Infinity,
    });
    fx.emu.clearRequests();
    try {
      const result = await runCarte(
        {
          command: "apply",
          config: fx.config,
          env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
          secrets: () => secretsFileSink(path.join(fx.dir, "secrets.json")),
        },
        {
          // Once the plan is shown and confirmed, staff close med-poblado (before the canary is applied).
          confirm: async () => {
            await staff.call(
              "PUT",
              "/api/v2/restaurants-integrations-public-api/availability/stores/enable",
              {
                stores: [{ store_id: Number(REST[1]!.id), is_enabled: false }],
              },
            );
            return true;
          },
        },
      );
      expect(result.error).toBeUndefined();
      expect(result.exitCode).toBe(1);
      const report = result.report!;
      expect(report.stages!.map((s) => [s.name, s.status])).toEqual([
        ["canary", "applied"],
        ["rest", "failed"],
      ]);
      expect(report.refused).toEqual([
        {
          store: REST[1]!.key,
          reason: expect.stringContaining("the store changed on the platform since the plan was made"),
        },
      ]);
      // No write reached med-poblado; the canary and bog-chapinero got the new title.
      const written = writes(fx.emu.requests).filter((r) => !r.path.endsWith("/availability/stores/enable"));
      expect(written.filter((r) => touches(r, REST[1]!))).toEqual([]);
      expect(written.filter((r) => touches(r, CANARY)).length).toBeGreaterThan(0);
      expect(written.filter((r) => touches(r, REST[0]!)).length).toBeGreaterThan(0);
    } finally {
      await staff.close();
    }
  });

  it("--stage locks the stores of its stage only: the rest applies while another apply holds the canary", async () => {
    const fx = await rolloutFixture();
    // Another apply on this machine holds the canary store and the client-level settings.
    const held = await acquireApplyLock({
      dir: path.join(fx.dir, ".carte", "locks"),
      names: [CANARY.key, CLIENT_LOCK],
      waitMs: 0,
    });
    try {
      const rest = await carte(["apply", "--auto-approve", "--stage", "rest", "-c", fx.config]);
      expect(rest.code).toBe(0);
      fx.emu.clearRequests();
      const canary = await carte([
        "apply",
        "--auto-approve",
        "--stage",
        "canary",
        "--timeout",
        "1s",
        "-c",
        fx.config,
      ]);
      expect(canary.code).toBe(1);
      expect(canary.err).toContain("Waiting for another carte apply of the same stores to end");
      expect(writes(fx.emu.requests)).toEqual([]);
    } finally {
      await held.release();
    }
  });

  it("--stage rest applies only the rest; plan --stage shows one stage", async () => {
    const fx = await rolloutFixture();
    const restPlan = await carte(["plan", "--stage", "rest", "--json", "-c", fx.config]);
    expect(restPlan.code).toBe(0);
    const parsed = JSON.parse(restPlan.out) as { stage: string; changes: { store: string }[] };
    expect(parsed.stage).toBe("rest");
    expect(new Set(parsed.changes.map((c) => c.store))).toEqual(new Set(REST.map((s) => s.key)));

    fx.emu.clearRequests();
    const run = await carte(["apply", "--auto-approve", "--stage", "rest", "-c", fx.config]);
    expect(run.code).toBe(0);
    expect(run.out).toContain(
      "This plan covers stage rest of rollout: in carte.yaml alone (2 stores in scope).",
    );
    expect(run.out).toMatch(/^Stage rest \(2 stores\): applied: /m);
    expect(run.out).not.toContain("Stage canary");
    const written = writes(fx.emu.requests);
    expect(written.length).toBeGreaterThan(0);
    expect(written.filter((r) => touches(r, CANARY) || clientLevel(r))).toEqual([]);

    // The canary (and the client-level settings, which go with the first stage) are still to do.
    const canary = await carte(["plan", "--stage", "canary", "--json", "-c", fx.config]);
    const left = JSON.parse(canary.out) as { changes: { store: string }[] };
    expect(left.changes.length).toBeGreaterThan(0);
    expect(new Set(left.changes.map((c) => c.store))).toEqual(new Set([CANARY.key, ""]));
    expect((await carte(["plan", "--stage", "rest", "--detailed-exitcode", "-c", fx.config])).code).toBe(0);
  });

  it("a saved plan of a stage is applied as that stage; another --stage or an unknown one is refused", async () => {
    const fx = await rolloutFixture();
    const file = path.join(fx.dir, "canary.json");
    expect((await carte(["plan", "--stage", "canary", "--out", file, "-c", fx.config])).code).toBe(0);
    fx.emu.clearRequests();
    const other = await carte(["apply", "--stage", "rest", file, "-c", fx.config]);
    expect(other.code).toBe(1);
    expect(other.err).toContain('--stage "rest": the saved plan is of stage "canary"');
    const unknown = await carte(["apply", "--auto-approve", "--stage", "nope", "-c", fx.config]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain(
      '--stage "nope": no such stage in rollout: of carte.yaml; its stages are canary, rest',
    );
    expect(writes(fx.emu.requests)).toEqual([]);

    const run = await carte(["apply", file, "-c", fx.config]);
    expect(run.code).toBe(0);
    expect(writes(fx.emu.requests).filter((r) => REST.some((s) => touches(r, s)))).toEqual([]);
    expect((await carte(["plan", "--stage", "canary", "--detailed-exitcode", "-c", fx.config])).code).toBe(0);
  });
});
