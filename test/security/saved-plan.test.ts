/**
 * Saved plans are input: `carte apply FILE` never carries out the operations a file holds, even one
 * whose digest was computed again after an edit, and plan files are read within bounds (a FIFO, a
 * device, a folder, an oversized, deeply nested or non-JSON file is refused, its content never quoted).
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDocument, type YAMLMap, type YAMLSeq } from "yaml";
import { changeDifferences, describeDifferences } from "../../src/plan/compare.js";
import { sealPlan } from "../../src/plan/digest.js";
import type { Operation, Plan, ResourceChange } from "../../src/plan/types.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { startEmulator } from "../../src/emulator/index.js";
import { CLIENT_ID, CLIENT_SECRET, carte, writes } from "../helpers/project.js";
import { savedPlan } from "../helpers/plan-file.js";

/** A small project of one store on an emulator that also serves a second store, 900102. */
const CARTE_YAML = `version: 1
currency: COP
platform:
  base_url: URL
stores: stores/*.yaml
catalogs: catalogs/*.yaml
`;
const CATALOG = `name: burgers
items:
  - { sku: BURGER-CLASSIC, title: Clásica, price: 24900 }
  - { sku: BURGER-CHEESE, title: Doble Queso, price: 26900 }
  - { sku: FRIES, title: Papas, price: 7900 }
categories:
  - { sku: BURGERS, title: Hamburguesas, items: [BURGER-CLASSIC, BURGER-CHEESE] }
  - { sku: SIDES, title: Acompañamientos, items: [FRIES] }
menus:
  - { type: DEFAULT, categories: [BURGERS, SIDES] }
`;
const STORE = `store: { id: 900101, integration_id: bog-centro, name: Bogotá Centro }
catalog: burgers
`;

let fx: { dir: string; config: string; emu: RunningEmulator };
let catalog: string;

beforeAll(async () => {
  const emu = await startEmulator({
    port: 0,
    applyDelayMs: 5,
    seed: {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          stores: [
            { id: "900101", integration_id: "bog-centro", name: "Bogotá Centro" },
            { id: "900102", integration_id: "bog-chapinero", name: "Bogotá Chapinero" },
          ],
        },
      ],
    },
  });
  const dir = mkdtempSync(path.join(tmpdir(), "carte-saved-plan-"));
  mkdirSync(path.join(dir, "stores"));
  mkdirSync(path.join(dir, "catalogs"));
  writeFileSync(path.join(dir, "carte.yaml"), CARTE_YAML.replace("URL", emu.url));
  writeFileSync(path.join(dir, "stores", "bog-centro.yaml"), STORE);
  catalog = path.join(dir, "catalogs", "burgers.yaml");
  writeFileSync(catalog, CATALOG);
  fx = { dir, config: path.join(dir, "carte.yaml"), emu };
  const applied = await carte(["apply", "--auto-approve", "-c", fx.config]);
  expect(applied.code, applied.err).toBe(0);
});
afterAll(async () => {
  await fx?.emu.close();
  if (fx) rmSync(fx.dir, { recursive: true, force: true });
});

/** Sets a price in the catalog (relative to what the file says), returning its SKU and prices. */
function bumpPrice(by: (price: number) => number): { sku: string; before: number; after: number } {
  const doc = parseDocument(readFileSync(catalog, "utf8"));
  const first = (doc.get("items") as YAMLSeq).items.find(
    (i) => (i as YAMLMap).get("sku") === "BURGER-CHEESE",
  ) as YAMLMap;
  const before = Number(first.get("price"));
  const after = by(before);
  first.set("price", after);
  writeFileSync(catalog, doc.toString());
  return { sku: String(first.get("sku")), before, after };
}

/** Saves a plan of the files as they are now; the emulator's recording is cleared after. */
async function savePlan(name: string, extra: string[] = []): Promise<{ file: string; plan: Plan }> {
  const file = path.join(fx.dir, name);
  const run = await carte(["plan", "--out", file, "-c", fx.config, ...extra]);
  expect(run.code, run.err).toBe(0);
  fx.emu.clearRequests();
  return { file, plan: await savedPlan(file) };
}

/** Writes an edited plan with its digest computed again, as docs/plan-format.md describes it. */
function redigest(file: string, plan: Plan): void {
  const { digest: _old, ...rest } = plan;
  writeFileSync(file, JSON.stringify(sealPlan(rest as Plan), null, 2));
}

/** Whether any recorded request names PWNED or writes the store the files do not manage. */
function forged(): string[] {
  return fx.emu.requests
    .filter(
      (r) =>
        JSON.stringify(r.body ?? "").includes("PWNED") || (r.path.includes("900102") && r.method !== "GET"),
    )
    .map((r) => `${r.method} ${r.path}`);
}

describe("apply FILE carries out the fresh plan only", () => {
  it("refuses a re-digested plan with an extra change and call for PWNED, and writes nothing", async () => {
    const { sku } = bumpPrice((p) => p + 100);
    const { file, plan } = await savePlan("pwned.json");
    const upsert = plan.operations.find((o) => o.endpoint === "items.upsert")!;
    const element = (upsert.body as Record<string, unknown>[])[0]!;
    const pwned = { ...element, sku: "PWNED", title_info: { title: "PWNED" } };
    plan.changes.push({
      address: "store[bog-centro].item[PWNED]",
      store: "bog-centro",
      kind: "item",
      key: "PWNED",
      action: "create",
      before: null,
      // A whole item, as a plan file must hold: a forged change has the shape of an honest one.
      after: { ...(plan.changes[0]!.after as object), sku: "PWNED", title: "PWNED" },
      diff: [{ attribute: "title", before: null, after: "PWNED" }],
    } as ResourceChange);
    plan.operations.push({
      ...upsert,
      id: "bog-chapinero:items.upsert",
      stores: ["bog-centro"],
      path: upsert.path.replace("900101", "900102"),
      body: [pwned],
      addresses: ["store[bog-centro].item[PWNED]"],
    } as Operation);
    plan.summary.create += 1;
    plan.summary.operations += 1;
    redigest(file, plan);

    const run = await carte(["apply", file, "-c", fx.config]);
    expect(run.code).toBe(1);
    expect(run.err).toContain("stale plan: the saved plan's changes are not those a fresh plan makes");
    expect(run.err).toContain('1 change differs: "store[bog-centro].item[PWNED]" only in the saved plan');
    expect(writes(fx.emu.requests)).toEqual([]);
    expect(forged()).toEqual([]);
    // The price change the files make is still pending: nothing of the plan was applied.
    const left = await carte(["plan", "--json", "-c", fx.config]);
    expect((JSON.parse(left.out) as Plan).changes.map((c) => c.address)).toEqual([
      `store[bog-centro].item[${sku}]`,
    ]);

    // --replan plans again instead of refusing, and applies what the files say, nothing of the file.
    fx.emu.clearRequests();
    const replanned = await carte(["apply", file, "--replan", "--auto-approve", "-c", fx.config]);
    expect(replanned.code, replanned.err).toBe(0);
    expect(replanned.err).toContain("The saved plan is stale (the saved plan's changes are not those");
    expect(forged()).toEqual([]);
    expect(writes(fx.emu.requests).map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /restaurants/menu/v1/stores/900101/items",
    ]);
  });

  it("never makes a call only the file holds: an extra operation alone is ignored, the fresh plan applied", async () => {
    const { sku, after } = bumpPrice((p) => p + 100);
    const { file, plan } = await savePlan("extra-call.json");
    const upsert = plan.operations.find((o) => o.endpoint === "items.upsert")!;
    const element = (upsert.body as Record<string, unknown>[])[0]!;
    plan.operations.push({
      ...upsert,
      id: "bog-chapinero:items.upsert",
      path: upsert.path.replace("900101", "900102"),
      body: [{ ...element, sku: "PWNED", title_info: { title: "PWNED" } }],
    } as Operation);
    // The saved call for the real item carries another price too: only the files' price is sent.
    (upsert.body as { price_info?: { price?: number } }[])[0]!.price_info = { price: after * 10 };
    redigest(file, plan);

    const run = await carte(["apply", file, "-c", fx.config]);
    expect(run.code, run.err).toBe(0);
    expect(forged()).toEqual([]);
    const sent = writes(fx.emu.requests);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /restaurants/menu/v1/stores/900101/items",
    ]);
    const bodies = sent[0]!.body as { sku: string; price_info?: { price?: number } }[];
    expect(bodies.map((b) => [b.sku, b.price_info?.price])).toEqual([[sku, after]]);
    expect((await carte(["plan", "--detailed-exitcode", "-c", fx.config])).code).toBe(0);
  });

  it("applies an honest saved plan's changes, exactly", async () => {
    const { sku, after } = bumpPrice((p) => p - 100);
    const { file, plan } = await savePlan("honest.json");
    expect(plan.changes.map((c) => c.address)).toEqual([`store[bog-centro].item[${sku}]`]);
    const run = await carte(["apply", file, "-c", fx.config]);
    expect(run.code, run.err).toBe(0);
    const sent = writes(fx.emu.requests);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(
      plan.operations.map((o) => `${o.method} ${o.path}`),
    );
    expect(
      (sent[0]!.body as { sku: string; price_info?: { price?: number } }[]).map((b) => [
        b.sku,
        b.price_info?.price,
      ]),
    ).toEqual([[sku, after]]);
    expect((await carte(["plan", "--detailed-exitcode", "-c", fx.config])).code).toBe(0);
  });

  it("refuses a price edited 1 past max_price_change_percent in a re-digested plan, and writes nothing", async () => {
    const { sku, before } = bumpPrice((p) => p + 100);
    const { file, plan } = await savePlan("price.json");
    // The default guard is 50 %: one peso more is past it.
    const forgedPrice = before * 1.5 + 1;
    const change = plan.changes.find((c) => c.key === sku)!;
    (change.after as { price: number }).price = forgedPrice;
    for (const d of change.diff) if (d.attribute === "price") d.after = forgedPrice;
    const upsert = plan.operations.find((o) => o.endpoint === "items.upsert")!;
    (upsert.body as { price_info: { price: number } }[])[0]!.price_info.price = forgedPrice;
    redigest(file, plan);

    const run = await carte(["apply", file, "-c", fx.config]);
    expect(run.code).toBe(1);
    expect(run.err).toContain(`1 change differs: "store[bog-centro].item[${sku}]" not the same change`);
    expect(writes(fx.emu.requests)).toEqual([]);
  });

  it("judges the fresh plan by the guards: a saved override does not carry, --force --reason does", async () => {
    const { sku, before } = bumpPrice((p) => p * 3);
    const { file, plan } = await savePlan("forced.json", ["--force", "--reason", "reviewed typo"]);
    expect(plan.safety.override).toEqual({ reason: "reviewed typo" });
    const run = await carte(["apply", file, "-c", fx.config]);
    expect(run.code).toBe(3);
    expect(run.err).toContain("Refused by safety guard max_price_change_percent");
    // The guards' list is printed once, in the plan shown before the refusal.
    expect(run.out).toMatch(new RegExp(`- max_price_change_percent: .*${sku}`));
    expect(run.err).toContain("(listed above)");
    // The refused price is named where it is written, once, with the stores it affects.
    expect(run.err).toMatch(
      new RegExp(
        `The refused prices are written at:\\n  \\S+\\.yaml:\\d+:\\d+: item\\[${sku}\\] price \\(store`,
      ),
    );
    expect(writes(fx.emu.requests)).toEqual([]);

    const forced = await carte(["apply", file, "--force", "--reason", "really", "-c", fx.config]);
    expect(forced.code, forced.err).toBe(0);
    const sent = writes(fx.emu.requests);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /restaurants/menu/v1/stores/900101/items",
    ]);
    expect((sent[0]!.body as { price_info?: { price?: number } }[])[0]!.price_info?.price).toBe(before * 3);
  });
});

describe("plan files are read within bounds", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "carte-planfile-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * `carte show FILE` and, unless `showOnly`, `carte apply FILE`: each refused quickly with exit 1, no
   * output and no call. Their messages.
   */
  async function refused(file: string, showOnly = false): Promise<string[]> {
    fx.emu.clearRequests();
    const errs: string[] = [];
    for (const args of showOnly
      ? [["show", file]]
      : [
          ["show", file],
          ["apply", file, "-c", fx.config],
        ]) {
      const started = Date.now();
      const run = await carte(args);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(run.code).toBe(1);
      expect(run.out).toBe("");
      errs.push(run.err);
    }
    expect(fx.emu.requests).toEqual([]);
    return errs;
  }

  it("refuses a FIFO at once, without opening it", async () => {
    const fifo = path.join(dir, "plan.fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    for (const err of await refused(fifo)) expect(err).toContain("plan.fifo is not a regular file");
  });

  it("refuses a device and a folder", async () => {
    for (const err of await refused("/dev/zero", true))
      expect(err).toContain("/dev/zero is not a regular file");
    mkdirSync(path.join(dir, "folder.json"));
    for (const err of await refused(path.join(dir, "folder.json"), true))
      expect(err).toContain("folder.json is not a regular file");
  });

  it("refuses an oversized file by its size, before reading it", async () => {
    // Sparse: 4 GiB that a read would have to allocate and fill.
    const big = path.join(dir, "big.json");
    writeFileSync(big, "");
    truncateSync(big, 4 * 1024 ** 3);
    for (const err of await refused(big))
      expect(err).toContain("big.json is 4294967296 bytes, more than the 1 GiB a plan file may hold");
  });

  it("refuses JSON nested 5,000 levels deep with a clear message, without overflowing the stack", async () => {
    const deep = path.join(dir, "deep.json");
    writeFileSync(deep, `{"formatVersion": 1, "changes": ${"[".repeat(5000)}${"]".repeat(5000)}}`);
    for (const err of await refused(deep)) {
      expect(err).toContain(
        "deep.json is not a carte plan (nested deeper than 100 levels at line 1, column 132)",
      );
      expect(err).not.toMatch(/stack|RangeError/i);
    }
  });

  it("never echoes a file that is not JSON: a secret-looking first line, and /etc/passwd", async () => {
    const secret = path.join(dir, "secret.txt");
    writeFileSync(secret, "root:CANARY-s3cr3t-0123456789:0:0:root:/root:/bin/bash\nmore\n");
    for (const err of await refused(secret)) {
      expect(err).toContain("secret.txt is not a carte plan (not JSON)");
      expect(err).not.toContain("CANARY");
      expect(err).not.toContain("root:");
    }
    for (const err of await refused("/etc/passwd", true)) {
      expect(err).toContain("/etc/passwd is not a carte plan (not JSON)");
      expect(err).not.toContain("root:");
    }
  });

  it("locates a JSON error by line and column, and says plainly that a file is missing", async () => {
    const broken = path.join(dir, "broken.json");
    writeFileSync(broken, '{\n  "formatVersion": 1,\n  CANARY\n}\n');
    for (const err of await refused(broken, true)) {
      expect(err).toContain("broken.json is not a carte plan (not JSON: line 3, column 3)");
      expect(err).not.toContain("CANARY");
    }
    for (const err of await refused(path.join(dir, "missing.json"), true))
      expect(err).toContain("missing.json: no such file");
  });
});

describe("a plan's changes are checked for the shapes every reader reads", () => {
  /** A saved plan with one update of an item (a price), for the edits below. */
  async function itemPlan(name: string): Promise<{ file: string; plan: Plan; sku: string }> {
    const { sku } = bumpPrice((p) => p + 10);
    const { file, plan } = await savePlan(name);
    expect(plan.changes.map((c) => c.kind)).toEqual(["item"]);
    return { file, plan, sku };
  }

  // Each edit of the saved change, re-digested, and the problem the refusal names (located by index:
  // the file's own words are never quoted).
  const edits: [string, (c: ResourceChange & Record<string, unknown>) => void, string][] = [
    [
      "a title that is a number",
      (c) => ((c.after as Record<string, unknown>).title = 42),
      "changes[0].after.title must be a string",
    ],
    [
      "images that are not a list",
      (c) => ((c.after as Record<string, unknown>).images = "photo.jpg"),
      "changes[0].after.images must be a list",
    ],
    [
      "an image that is neither a path nor {path, host}",
      (c) => ((c.before as Record<string, unknown>).images = [{ path: 1 }]),
      "changes[0].before.images[0] must be a path or {path, host}",
    ],
    [
      "after: null on an update",
      (c) => (c.after = null),
      "changes[0].after must be an item (an update changes a resource)",
    ],
    [
      "children a string",
      (c) => ((c.after as Record<string, unknown>).children = "SIZE"),
      "changes[0].after.children must be a list",
    ],
    [
      "a change of kind menu with item fields",
      (c) => (c.kind = "menu"),
      "changes[0].before.categories must be a list",
    ],
    [
      "a kind no address has",
      (c) => ((c as Record<string, unknown>).kind = "pwned"),
      "changes[0].kind must name an address segment (item, menu, …)",
    ],
    [
      "a price that is a text",
      (c) => ((c.after as Record<string, unknown>).price = "24900"),
      "changes[0].after.price must be a number or null",
    ],
    [
      "a title beside the key that is a number",
      (c) => ((c as Record<string, unknown>).title = 7),
      "changes[0].title must be a string",
    ],
  ];

  for (const [what, change, problem] of edits) {
    it(`refuses ${what} in preview, show and apply, with one located error and no call`, async () => {
      const { file, plan } = await itemPlan(`shape-${what.replace(/\W+/g, "-")}.json`);
      change(plan.changes[0] as ResourceChange & Record<string, unknown>);
      redigest(file, plan);
      const out = path.join(fx.dir, "preview-shape");
      for (const args of [
        ["preview", "--plan", file, "--out", out, "-c", fx.config],
        ["show", file],
        ["show", file, "--format", "markdown"],
        ["apply", file, "-c", fx.config],
      ]) {
        fx.emu.clearRequests();
        const run = await carte(args);
        expect(run.code, `${args[0]}: ${run.err}`).toBe(1);
        expect(run.out).toBe("");
        expect(run.err).toContain(`${path.basename(file)} is not a plan carte can`);
        expect(run.err).toContain(problem);
        expect(run.err.trim().split("\n")).toHaveLength(1);
        expect(run.err).not.toMatch(/is not a function|Cannot (destructure|read)|internal error/i);
        expect(writes(fx.emu.requests)).toEqual([]);
      }
    });
  }

  it("still shows, previews and applies the plan it was edited from", async () => {
    const { file, plan } = await itemPlan("shape-honest.json");
    redigest(file, plan);
    expect((await carte(["show", file])).code).toBe(0);
    const preview = await carte([
      "preview",
      "--plan",
      file,
      "--out",
      path.join(fx.dir, "p"),
      "-c",
      fx.config,
    ]);
    expect(preview.code, preview.err).toBe(0);
    const run = await carte(["apply", file, "-c", fx.config]);
    expect(run.code, run.err).toBe(0);
  });
});

describe("the differences named", () => {
  it("are bounded: five addresses, then how many more and in which stores", () => {
    const change = (store: string, key: string, price: number): ResourceChange => ({
      address: `store[${store}].item[${key}]`,
      store,
      kind: "item",
      key,
      action: "update",
      before: { price: 1 },
      after: { price },
      diff: [{ attribute: "price", before: 1, after: price }],
    });
    const saved = Array.from({ length: 20 }, (_, i) => change(`s${i % 4}`, `K${i}`, 2));
    const fresh = [...saved.slice(0, 18).map((c) => ({ ...c })), change("s9", "NEW", 2)];
    fresh[0] = change("s0", "K0", 3);
    const differences = changeDifferences(saved, fresh);
    expect(differences.map((d) => `${d.address} ${d.how}`)).toEqual([
      "store[s0].item[K0] different",
      "store[s2].item[K18] saved",
      "store[s3].item[K19] saved",
      "store[s9].item[NEW] fresh",
    ]);
    expect(
      changeDifferences(
        saved,
        saved.map((c) => JSON.parse(JSON.stringify(c)) as ResourceChange),
      ),
    ).toEqual([]);
    const many = changeDifferences(saved, []);
    const text = describeDifferences(many);
    expect(text).toMatch(/^20 changes differ: "store\[s0\]\.item\[K0\]" only in the saved plan, /);
    expect(text.match(/only in the saved plan/g)).toHaveLength(5);
    expect(text).toMatch(/, and 15 more in 4 stores \("s1", "s2", "s3", "s0"\)$/);
    expect(text).not.toContain("\n");
  });
});
