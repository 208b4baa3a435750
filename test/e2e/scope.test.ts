/**
 * `carte plan --scope changed --base REF` against the emulator: only the stores, and the parts of each
 * store, that the files' difference from the base can touch are read (the emulator's record of the
 * requests), the plan's first line says so, and a saved scoped plan applies those stores and kinds
 * alone.
 */

import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest } from "../../src/emulator/index.js";
import type { Plan } from "../../src/plan/types.js";
import { carte, edit, writes } from "../helpers/project.js";
import { committedChain } from "../action/harness.js";

const STORES = ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"];
const IDS = { "bog-centro": "900101", "bog-chapinero": "900102", "med-poblado": "900201" };

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** The example chain applied and committed on main. */
async function chain() {
  const fx = await committedChain(STORES);
  cleanup = fx.close;
  return fx;
}

/** The reads a run made, as `METHOD path`, logins left out, sorted. */
const reads = (requests: RecordedRequest[]) =>
  requests
    .filter((r) => !r.path.includes("/token/login/"))
    .map((r) => `${r.method} ${r.path}`)
    .sort();

/** `carte plan -q --base main --scope changed` of the chain, with more arguments. */
const scopedPlan = (fx: { config: string }, args: string[] = []) =>
  carte(["plan", "-q", "-c", fx.config, "--base", "main", "--scope", "changed", ...args]);

const menuRead = (store: keyof typeof IDS) => `GET /restaurants/menu/v1/stores/${IDS[store]}/store-menu`;

describe("carte plan --scope changed", () => {
  it("reads only the menu of the store whose price changed, and says so on its first line", async () => {
    const fx = await chain();
    edit(path.join(fx.dir, "stores/bog-centro.yaml"), "BURGER-CLASSIC: 25900", "BURGER-CLASSIC: 26900");
    fx.emu.clearRequests();
    const text = await scopedPlan(fx, ["--no-color"]);
    expect(text.code, text.err).toBe(0);
    // The target first, then the scope.
    expect(text.out.split("\n")[0]).toMatch(/^Target: platform at 127\.0\.0\.1:\d+$/);
    expect(text.out.split("\n")[1]).toBe("Plan scoped to the changes since main: 1 of 3 stores read (menu).");
    expect(text.out).toMatch(/store\[bog-centro\].*\n\s+~ item BURGER-CLASSIC /);
    expect(text.out).toContain(
      "Plan: 0 to create, 1 to update, 0 to delete in 1 store; 1 API call (--show-calls lists it).",
    );
    expect(reads(fx.emu.requests)).toEqual([menuRead("bog-centro")]);

    // The JSON plan carries the scope; Markdown says it under its title.
    const json = await scopedPlan(fx, ["--json"]);
    const plan = JSON.parse(json.out) as Plan;
    expect(plan.targeting?.scope).toEqual({
      base: "main",
      sha: fx.baseSha,
      of: 3,
      stores: [{ store: "bog-centro", kinds: ["item"] }],
      client: [],
      removed: [],
      reads: ["menu"],
    });
    expect(plan.stores.map((s) => s.key)).toEqual(["bog-centro"]);
    const md = await scopedPlan(fx, ["--format", "markdown"]);
    expect(md.out.split("\n").slice(0, 5)).toEqual([
      "### carte plan",
      "",
      expect.stringMatching(/^Target: platform at 127\.0\.0\.1:\d+$/),
      "",
      "> Plan scoped to the changes since main: 1 of 3 stores read (menu).",
    ]);

    // Without --scope the same plan reads everything: every store's menu among many other reads.
    fx.emu.clearRequests();
    expect((await carte(["plan", "-q", "-c", fx.config, "--base", "main"])).code).toBe(0);
    const full = reads(fx.emu.requests);
    for (const key of Object.keys(IDS) as (keyof typeof IDS)[]) expect(full).toContain(menuRead(key));
    expect(full.length).toBeGreaterThan(10);
  });

  it("applies a saved scoped plan to its stores and kinds alone, checked by the same reads", async () => {
    const fx = await chain();
    edit(path.join(fx.dir, "stores/bog-centro.yaml"), "BURGER-CLASSIC: 25900", "BURGER-CLASSIC: 26900");
    // Drift elsewhere (staff changed a price of another store on the platform) is outside the scope.
    const poblado = path.join(fx.dir, "stores/med-poblado.yaml");
    edit(poblado, "BURGER-CARBON: 36900", "BURGER-CARBON: 37900");
    const staff = ["--target", "store[med-poblado].item[BURGER-CARBON]", ...fx.secrets];
    expect((await carte(["apply", "--auto-approve", "-q", "-c", fx.config, ...staff])).code).toBe(0);
    edit(poblado, "BURGER-CARBON: 37900", "BURGER-CARBON: 36900");
    const file = path.join(fx.dir, "plan.json");
    const saved = await scopedPlan(fx, ["--out", file]);
    expect(saved.code, saved.err).toBe(0);
    fx.emu.clearRequests();
    const applied = await carte(["apply", "-q", "--no-color", "-c", fx.config, file, ...fx.secrets]);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out.split("\n")[1]).toBe(
      "Plan scoped to the changes since main: 1 of 3 stores read (menu).",
    );
    // The check of the saved plan and of the store before its write read bog-centro's menu only.
    const made = fx.emu.requests.filter((r) => !r.path.includes("/token/login/"));
    const storeIds = new Set(made.map((r) => /\/stores\/(\d+)\//.exec(r.path)?.[1]).filter(Boolean));
    expect([...storeIds]).toEqual([IDS["bog-centro"]]);
    expect(writes(fx.emu.requests).map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /restaurants/menu/v1/stores/${IDS["bog-centro"]}/items`,
    ]);
    // The full plan still shows the drift the scoped apply left alone, and nothing of bog-centro.
    const after = await carte(["plan", "--json", "-q", "-c", fx.config]);
    expect((JSON.parse(after.out) as Plan).changes.map((c) => c.address)).toEqual([
      "store[med-poblado].item[BURGER-CARBON]",
    ]);
  });

  it("refuses a saved scoped plan when what it read changed on the platform, and only then", async () => {
    const fx = await chain();
    const centro = path.join(fx.dir, "stores/bog-centro.yaml");
    edit(centro, "BURGER-CLASSIC: 25900", "BURGER-CLASSIC: 26900");
    const file = path.join(fx.dir, "plan.json");
    const saved = await scopedPlan(fx, ["--out", file]);
    expect(saved.code, saved.err).toBe(0);
    // Staff change bog-centro's Sunday hours on the platform: a part the scoped plan did not read.
    const text = readFileSync(centro, "utf8");
    edit(centro, /^hours:$/m, 'hours:\n  sun: ["13:00-20:00"]');
    const hours = ["--target", "store[bog-centro].store_hours[sun]", ...fx.secrets];
    expect((await carte(["apply", "--auto-approve", "-q", "-c", fx.config, ...hours])).code).toBe(0);
    writeFileSync(centro, text);
    // Its checksums cover the menu only: still applicable.
    const applied = await carte(["apply", "-q", "-c", fx.config, file, ...fx.secrets]);
    expect(applied.code, applied.err).toBe(0);

    // Saved again; then staff change a price of that menu: the plan is stale, nothing is written.
    edit(centro, "BURGER-CLASSIC: 26900", "BURGER-CLASSIC: 27900");
    expect((await scopedPlan(fx, ["--out", file])).code).toBe(0);
    edit(centro, "COMBO-CLASSIC: 35900", "COMBO-CLASSIC: 36900");
    const combo = ["--target", "store[bog-centro].item[COMBO-CLASSIC]", ...fx.secrets];
    expect((await carte(["apply", "--auto-approve", "-q", "-c", fx.config, ...combo])).code).toBe(0);
    edit(centro, "COMBO-CLASSIC: 36900", "COMBO-CLASSIC: 35900");
    fx.emu.clearRequests();
    const stale = await carte(["apply", "-q", "-c", fx.config, file, ...fx.secrets]);
    expect(stale.code).toBe(1);
    expect(stale.err).toContain("the platform changed since this plan was saved");
    expect(writes(fx.emu.requests)).toEqual([]);
  });

  it("reads the stores a group's defaults reach, for the kinds they change", async () => {
    const fx = await chain();
    edit(path.join(fx.dir, "groups/bogota.yaml"), 'sun: ["12:00-20:00"]', 'sun: ["10:00-20:00"]');
    fx.emu.clearRequests();
    const text = await scopedPlan(fx, ["--no-color"]);
    expect(text.code, text.err).toBe(0);
    expect(text.out.split("\n")[1]).toBe(
      "Plan scoped to the changes since main: 2 of 3 stores read (hours).",
    );
    expect(reads(fx.emu.requests)).toEqual(
      [IDS["bog-centro"], IDS["bog-chapinero"]]
        .map((id) => `GET /api/rest-ops-utils/store/schedule/${id}`)
        .sort(),
    );
  });

  it("reads a store whose file was deleted, shows what the platform keeps there, and changes nothing", async () => {
    const fx = await chain();
    rmSync(path.join(fx.dir, "stores/med-poblado.yaml"));
    fx.emu.clearRequests();
    const text = await scopedPlan(fx, ["--no-color"]);
    expect(text.code, text.err).toBe(0);
    expect(text.out.split("\n")[1]).toMatch(
      /^Plan scoped to the changes since main: 0 of 2 stores read \(menu, .*\), 1 store no longer in the files\.$/,
    );
    expect(text.out).toMatch(
      /store\[med-poblado\] \(Medellín El Poblado, 900201\) is no longer in the files: carte stops managing it and changes nothing there; the platform keeps 78 items, 9 modifier groups, 9 categories, 2 menus, 2 webhooks, 7 days of hours, 1 holiday, 2 special days, 1 open\/closed setting\.\n/,
    );
    expect(text.out).toContain("No changes.");
    expect(writes(fx.emu.requests)).toEqual([]);
    // What the base managed there, read once: its menu, hours, holidays, special days, webhooks, status.
    expect(reads(fx.emu.requests)).toEqual([
      "GET /api/rest-ops-utils/store/schedule/900201",
      "GET /api/rest-ops-utils/store/schedule/900201/holiday",
      "GET /api/rest-ops-utils/store/schedule/900201/special",
      "GET /api/v2/restaurants-integrations-public-api/webhook",
      menuRead("med-poblado"),
      "POST /api/v2/restaurants-integrations-public-api/availability/stores",
    ]);
  });

  it("reads nothing when the files make no difference, and needs --base", async () => {
    const fx = await chain();
    writeFileSync(path.join(fx.dir, "README.txt"), "not a carte file\n");
    fx.emu.clearRequests();
    const text = await scopedPlan(fx, ["--no-color"]);
    expect(text.code, text.err).toBe(0);
    expect(text.out.split("\n")[1]).toBe(
      "Plan scoped to the changes since main: 0 of 3 stores read: the files make no difference to any store.",
    );
    expect(reads(fx.emu.requests)).toEqual([]);
    const bad = await carte(["plan", "-q", "-c", fx.config, "--scope", "changed"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("--scope changed needs --base REF");
  });
});
