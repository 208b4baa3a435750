/** Checksums of saved plans: per store, computed for the plans that need them, and telling which store moved. */

import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PlatformClient } from "../../src/platform/client.js";
import { storeDigest } from "../../src/plan/checksum.js";
import type { Plan } from "../../src/plan/types.js";
import { CLIENT_ID, CLIENT_SECRET, carte, exampleAgainstEmulator } from "../helpers/project.js";
import { fetchCurrent } from "../../src/state/current.js";
import { kinds } from "../../src/kinds/registry.js";
import { savedPlan } from "../helpers/plan-file.js";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const STORES = ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"];

describe("plan checksums", () => {
  it("are in the JSON view and the saved plan, one digest per store, and match a fresh read", async () => {
    const fx = await exampleAgainstEmulator(STORES);
    cleanup = fx.close;
    expect((await carte(["apply", "--auto-approve", "-c", fx.config])).code).toBe(0);

    const shown = await carte(["plan", "--json", "-c", fx.config]);
    expect(shown.code).toBe(0);
    const plan = JSON.parse(shown.out) as Plan;
    // One digest per store, and under "" the client-level state (the example manages client webhooks).
    expect(Object.keys(plan.checksums.stores!)).toEqual(["bog-centro", "bog-chapinero", "med-poblado", ""]);
    expect(plan.checksums.current).toMatch(/^sha256:[0-9a-f]{64}$/);

    // Each digest is the store's normalised state as a read of the platform gives it.
    const client = new PlatformClient({
      baseUrl: fx.emu.url,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      requestsPerSecond: Infinity,
    });
    try {
      const live = await fetchCurrent(
        client,
        plan.stores.map((s) => ({
          store: { key: s.key, storeId: s.storeId, integrationId: s.key, name: s.name },
          kinds: kinds.filter((k) => k.name !== "corridor_schedule" && k.name !== "product_schedule"),
        })),
      );
      expect(storeDigest(live.stores["med-poblado"])).toBe(plan.checksums.stores!["med-poblado"]);
    } finally {
      await client.close();
    }

    const file = path.join(fx.dir, "plan.json");
    expect((await carte(["plan", "--out", file, "-c", fx.config])).code).toBe(0);
    const saved = await savedPlan(file);
    expect(saved.checksums).toEqual(plan.checksums);
    // The text view does without them, and says the same.
    const text = await carte(["plan", "-c", fx.config]);
    expect(text.code).toBe(0);
    expect(text.out).toContain("No changes");
  });
});
