/**
 * End to end against the emulator: a store file whose integration id is another store's (two files
 * swapped, an invented one) is a located error before any write, never a switch-off in the wrong store;
 * a verified pairing is kept so that later plans do not read it again.
 */

import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PlatformClient } from "../../src/platform/client.js";
import type { Item } from "../../src/generated/platform.js";
import { renderReport } from "../../src/render/apply-report.js";
import { runCarte } from "../../src/run/run.js";
import { secretsFileSink } from "../../src/run/secrets.js";
import { CLIENT_ID, CLIENT_SECRET, carte, edit, exampleWithClient, writes } from "../helpers/project.js";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const BY_INTEGRATION = "/api/rest-ops-utils/corridor/integration/";

async function itemOf(client: PlatformClient, storeId: string, sku: string): Promise<Item> {
  const menu = await client.getStoreMenu(storeId);
  return menu.items.find((i) => i.sku === sku) as Item;
}

async function setup() {
  const fx = await exampleWithClient();
  cleanup = fx.close;
  const applied = await carte(["apply", "--auto-approve", "-c", fx.config]);
  expect(applied.err).not.toMatch(/failed|skipped|refused|integration_id/);
  expect(applied.code).toBe(0);
  return {
    ...fx,
    centro: path.join(fx.dir, "stores", "bog-centro.yaml"),
    chapinero: path.join(fx.dir, "stores", "bog-chapinero.yaml"),
  };
}

describe("store identity", () => {
  it("refuses, located, a store file whose integration id is another store's, before any write", async () => {
    const { config, emu, client, centro, chapinero } = await setup();
    // A copy-paste slip: the two files' integration ids swapped, and an item switched off in Centro.
    edit(centro, "integration_id: bog-centro", "integration_id: bog-chapinero");
    edit(chapinero, "integration_id: bog-chapinero", "integration_id: bog-centro");
    edit(
      centro,
      "unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE]",
      "unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE, BURGER-DOUBLE]",
    );
    emu.clearRequests();
    const plan = await carte(["plan", "-c", config]);
    expect(plan.code).toBe(1);
    expect(plan.err).toMatch(
      /stores\/bog-centro\.yaml:3:\d+: integration_id: "bog-chapinero" is the integration id of store 900102 \(Bogotá Chapinero\), whose file is \S*stores\/bog-chapinero\.yaml, not of store 900101 \(Bogotá Centro\)/,
    );
    const applied = await carte(["apply", "--auto-approve", "-c", config]);
    expect(applied.code).toBe(1);
    expect(applied.err).toContain("is the integration id of store 900102");
    expect(writes(emu.requests)).toEqual([]);
    // carte status no longer calls the pairing managed.
    const status = await carte(["status", "-c", config]);
    expect(status.code).toBe(1);
    expect(status.out).toMatch(/managed\s+900101\s+bog-chapinero\s.*its integration_id is another store's/);
    expect(status.out).toContain("; 2 with an integration_id that is not the store's.");
    // Neither store's BURGER-DOUBLE was switched off.
    expect((await itemOf(client, "900101", "BURGER-DOUBLE")).suspension_info.is_available).toBe(true);
    expect((await itemOf(client, "900102", "BURGER-DOUBLE")).suspension_info.is_available).toBe(true);
  });

  it("refuses an integration id the platform does not know, naming the file and line, before any write", async () => {
    const { config, emu, centro } = await setup();
    edit(centro, "integration_id: bog-centro", "integration_id: store-900101");
    edit(centro, "unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE]", "unavailable: [EXTRA-AVOCADO]");
    emu.clearRequests();
    const applied = await carte(["apply", "--auto-approve", "-c", config]);
    expect(applied.code).toBe(1);
    expect(applied.err).toMatch(
      /stores\/bog-centro\.yaml:3:\d+: integration_id: the platform knows no store with integration id "store-900101" for this client/,
    );
    expect(applied.err).not.toContain("Error updating items");
    expect(writes(emu.requests)).toEqual([]);
  });

  it("checks a pairing once: a later plan with the same toggle reads nothing more, a no-change plan never", async () => {
    const { dir, config, emu, centro } = await setup();
    const checks = () => emu.requests.filter((r) => r.path.startsWith(BY_INTEGRATION)).length;
    emu.clearRequests();
    const quiet = await carte(["plan", "--detailed-exitcode", "-c", config]);
    expect(quiet.code).toBe(0);
    expect(checks()).toBe(0);
    const noChange = emu.requests.length;

    // A toggle planned for Centro: its pairing is read once, then kept.
    edit(centro, "unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE]", "unavailable: [EXTRA-AVOCADO]");
    rmSync(path.join(dir, ".carte", "pairings.json"));
    emu.clearRequests();
    const first = await carte(["plan", "--detailed-exitcode", "-c", config]);
    expect(first.code).toBe(2);
    expect(checks()).toBe(1);
    emu.clearRequests();
    const again = await carte(["plan", "--detailed-exitcode", "-c", config]);
    expect(again.code).toBe(2);
    expect(checks()).toBe(0);
    expect(emu.requests.length).toBe(noChange);
    // A record written by anyone without the client secret is not believed.
    writeFileSync(
      path.join(dir, ".carte", "pairings.json"),
      JSON.stringify({ format: "carte verified store pairings 1", entries: ["0".repeat(32)] }),
    );
    emu.clearRequests();
    await carte(["plan", "-c", config]);
    expect(checks()).toBe(1);
  });

  it("refuses in the apply the swapped integration ids of two new stores, before their items are switched", async () => {
    const fx = await exampleWithClient();
    cleanup = fx.close;
    const centro = path.join(fx.dir, "stores", "bog-centro.yaml");
    const chapinero = path.join(fx.dir, "stores", "bog-chapinero.yaml");
    // Nothing on the platform yet, so the plan has no category to compare: the apply checks, once the
    // categories it creates show, before the availability call.
    edit(centro, "integration_id: bog-centro", "integration_id: bog-chapinero");
    edit(chapinero, "integration_id: bog-chapinero", "integration_id: bog-centro");
    const applied = await carte(["apply", "--auto-approve", "-c", fx.config]);
    expect(applied.code).toBe(1);
    expect(applied.out).toMatch(
      /refused store bog-chapinero: \S*stores\/bog-centro\.yaml:3:\d+: integration_id: "bog-chapinero" is the integration id of another store/,
    );
    expect(applied.out).toMatch(/refused store bog-centro: \S*stores\/bog-chapinero\.yaml:3:\d+:/);
    // No item of either store was switched off by the other's file: Centro's file switches EXTRA-AVOCADO
    // off, Chapinero's CHICKEN-WINGS-16.
    expect((await itemOf(fx.client, "900102", "EXTRA-AVOCADO")).suspension_info.is_available).toBe(true);
    expect((await itemOf(fx.client, "900101", "CHICKEN-WINGS-16")).suspension_info.is_available).toBe(true);
    // The third store, named right, was switched as its file says.
    expect((await itemOf(fx.client, "900201", "EXTRA-PATTY")).suspension_info.is_available).toBe(false);
  });

  it("keeps one store's refusal inside an availability call for several stores its own", async () => {
    const { dir, config, client, centro, chapinero } = await setup();
    // Centro switches BURGER-DOUBLE off, Chapinero switches CHICKEN-WINGS-16 back on: one call for both.
    edit(
      centro,
      "unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE]",
      "unavailable: [EXTRA-AVOCADO, SHAKE-AREQUIPE, BURGER-DOUBLE]",
    );
    edit(chapinero, "unavailable: [CHICKEN-WINGS-16]", "unavailable: []");
    const result = await runCarte(
      {
        command: "apply",
        config,
        env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
        secrets: () => secretsFileSink(path.join(dir, "secrets.json")),
      },
      {
        // Once planned, staff delete Centro's BURGER-DOUBLE: the platform refuses the call that names it.
        onPlan: async () => {
          const burger = await itemOf(client, "900101", "BURGER-DOUBLE");
          const menu = await client.getStoreMenu("900101");
          const category = menu.categories.find((c) => c.items.some((r) => r.id === burger.id))!;
          await client.request(
            "POST /restaurants/menu/v1/stores/{storeId}/categories",
            { storeId: "900101" },
            [{ ...category, items: category.items.filter((r) => r.id !== burger.id) }],
          );
          await client.request("DELETE /restaurants/menu/v1/stores/{storeId}/items", { storeId: "900101" }, [
            burger.id,
          ]);
        },
      },
    );
    expect(result.error).toBeUndefined();
    expect(result.exitCode).toBe(1);
    const toggle = result.report!.operations.find((o) => o.path.endsWith("/availability/stores/items"))!;
    expect(toggle).toMatchObject({ status: "failed", failedStores: ["bog-centro"] });
    const text = renderReport(result.plan!, result.report!, 0);
    expect(text).toContain("failed for bog-centro (HTTP 400: Error updating items); made for bog-chapinero");
    expect(text).not.toMatch(/failed: PUT \S+: PUT|skipped: \S+ \S+: skipped/);
    // Chapinero's change was made and shown; only Centro's is left, and the next apply makes it.
    expect((await itemOf(client, "900102", "CHICKEN-WINGS-16")).suspension_info.is_available).toBe(true);
    expect(result.report!.pending.filter((a) => a.startsWith("store[bog-chapinero]"))).toEqual([]);
    const again = await carte(["apply", "--auto-approve", "-c", config]);
    expect(again.code).toBe(0);
    expect((await itemOf(client, "900101", "BURGER-DOUBLE")).suspension_info.is_available).toBe(false);
    expect((await carte(["plan", "--detailed-exitcode", "-c", config])).code).toBe(0);
  });
});
