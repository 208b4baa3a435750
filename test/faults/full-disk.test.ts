/**
 * A full disk (ENOSPC) never leaves a cut file, a 0-byte file, a carte.yaml naming a file that is not
 * there, nor a write acknowledged but lost; every failure names the file and what carte was doing.
 * Each case writes into a small tmpfs mounted for the test (root only: the test is skipped, saying
 * so, where mounting is not allowed), filled up with a filler file, then freed to show recovery.
 */

import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { carte, edit, exampleAgainstEmulator, repoRoot } from "../helpers/project.js";
import { savedPlan } from "../helpers/plan-file.js";

const mountPoint = mkdtempSync(path.join(tmpdir(), "carte-full-disk-"));
/** Why the tmpfs could not be mounted; undefined when it is. */
let cannotMount: string | undefined;
try {
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint], { stdio: "pipe" });
} catch (err) {
  cannotMount = String((err as { stderr?: Buffer }).stderr ?? err).trim() || "mount failed";
  console.warn(
    `full-disk tests skipped: cannot mount a tmpfs at ${mountPoint} (${cannotMount}); they need root`,
  );
}

afterAll(() => {
  if (!cannotMount) execFileSync("umount", [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const FILLER = path.join(mountPoint, "filler");
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  rmSync(FILLER, { force: true });
  await cleanup?.();
  cleanup = undefined;
});

/** Fills the tmpfs but `pages` free pages (of its block size). */
function fill(pages: number): void {
  rmSync(FILLER, { force: true });
  const { bavail, bsize } = statfsSync(mountPoint);
  writeFileSync(FILLER, Buffer.alloc(Math.max(0, (bavail - pages) * bsize)));
}

/** Frees the space the filler took. */
const free = () => rmSync(FILLER, { force: true });

/** Every file under `dir`, relative, with its size. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

const ENOSPC = "no space left on device (ENOSPC)";

/** The pages of the tmpfs the files under `dir` would take, one file after the other. */
function pagesOf(dir: string): number {
  const { bsize } = statfsSync(mountPoint);
  return tree(dir).reduce((n, f) => n + Math.ceil(statSync(path.join(dir, f)).size / bsize), 0);
}

describe.skipIf(cannotMount !== undefined)("a full disk", () => {
  it("leaves a saved plan as it was when plan --out cannot replace it", async () => {
    const fx = await exampleAgainstEmulator([
      "stores/bog-centro.yaml",
      "stores/bog-chapinero.yaml",
      "stores/med-poblado.yaml",
    ]);
    cleanup = fx.close;
    const dir = path.join(mountPoint, "plans");
    mkdirSync(dir);
    const out = path.join(dir, "plan.json");
    expect((await carte(["plan", "-c", fx.config, "--out", out])).code).toBe(0);
    const old = readFileSync(out);
    edit(path.join(fx.dir, "stores", "bog-centro.yaml"), "unavailable: [", "unavailable: [SIDE-FRIES, ");

    fill(0);
    const full = await carte(["plan", "-c", fx.config, "--out", out]);
    expect(full.code).toBe(1);
    expect(full.err).toContain(`could not save the plan to ${out}: ${ENOSPC}; ${out} is as it was`);
    expect(readFileSync(out).equals(old)).toBe(true);
    expect(readdirSync(dir)).toEqual(["plan.json"]);

    free();
    expect((await carte(["plan", "-c", fx.config, "--out", out])).code).toBe(0);
    expect(await savedPlan(out)).toHaveProperty("changes");
    expect(readFileSync(out).equals(old)).toBe(false);
  });

  it("makes the embedded emulator refuse a write it cannot save, and the next plan shows exactly what is missing", async () => {
    const dir = path.join(mountPoint, "embedded");
    cpSync(path.join(repoRoot, "examples", "chain"), dir, { recursive: true });
    rmSync(path.join(dir, ".carte"), { recursive: true, force: true });
    const config = path.join(dir, "carte.yaml");
    const state = path.join(dir, ".carte", "emulator-state.json");
    const planned = await carte(["plan", "--json", "-c", config]);
    expect(planned.code, planned.err).toBe(0);
    const plan = JSON.parse(planned.out) as { operations: { id: string; addresses: string[] }[] };

    // Room for the locks and the first writes, not for the whole chain (the state grows to ~150 KB).
    // One write at a time: in parallel, the first save may already hold several stores' writes and
    // none would fit.
    fill(20);
    const applied = await carte(["apply", "--auto-approve", "--json", "--parallelism", "1", "-c", config]);
    expect(applied.code).toBe(1);
    const report = JSON.parse(applied.out) as {
      operations: { id: string; status: string; message?: string }[];
    };
    const refused = report.operations.filter((o) => o.message?.includes("HTTP 507"));
    expect(refused.length).toBeGreaterThan(0);
    for (const o of refused) {
      expect(o.message).toContain(`could not save the emulator's state to ${state}: ${ENOSPC}`);
    }
    const saved = report.operations.filter((o) => o.status === "ok");
    expect(saved.length).toBeGreaterThan(0);

    // Space freed: the state file holds exactly the writes that were acknowledged.
    free();
    const next = await carte(["plan", "--json", "-c", config]);
    expect(next.code, next.err).toBe(0);
    const left = (JSON.parse(next.out) as { changes: { address: string }[] }).changes.map((c) => c.address);
    const okIds = new Set(saved.map((o) => o.id));
    const missing = new Set(plan.operations.filter((o) => !okIds.has(o.id)).flatMap((o) => o.addresses));
    expect(new Set(left)).toEqual(missing);
    expect((await carte(["apply", "--auto-approve", "-c", config])).code).toBe(0);
    expect((await carte(["plan", "--detailed-exitcode", "-c", config])).code).toBe(0);
  });

  it("leaves no imported file, and no carte.yaml, when import --out runs out of space", async () => {
    const fx = await exampleAgainstEmulator([
      "stores/bog-centro.yaml",
      "stores/bog-chapinero.yaml",
      "stores/med-poblado.yaml",
    ]);
    cleanup = fx.close;
    expect((await carte(["apply", "--auto-approve", "-c", fx.config])).code).toBe(0);
    const out = path.join(mountPoint, "imported");
    const args = ["import", "--store", "900101,900102,900201", "-c", fx.config, "--out", out];

    // Room for every file but the last one written, carte.yaml (pages measured by an import elsewhere).
    const elsewhere = mkdtempSync(path.join(tmpdir(), "carte-import-size-"));
    expect((await carte([...args.slice(0, -1), elsewhere])).code).toBe(0);
    fill(pagesOf(elsewhere) - 1);
    rmSync(elsewhere, { recursive: true, force: true });
    const full = await carte(args);
    expect(full.code).toBe(1);
    expect(full.err).toContain(`could not write the imported file ${out}/carte.yaml: ${ENOSPC}`);
    expect(full.err).toMatch(/written before it (was|were) removed again/);
    expect(tree(out)).toEqual([]);

    free();
    const run = await carte(args);
    expect(run.code, run.err).toBe(0);
    expect(tree(out)).toContain("carte.yaml");
    expect((await carte(["validate", "-c", path.join(out, "carte.yaml")])).code).toBe(0);
  });

  it("leaves nothing behind when import --out runs out of space copying the embedded emulator's state, and a re-run succeeds", async () => {
    // A project on the embedded emulator (outside the full disk), applied: its state is what is copied.
    const source = mkdtempSync(path.join(tmpdir(), "carte-import-source-"));
    cpSync(path.join(repoRoot, "examples", "chain"), source, { recursive: true });
    rmSync(path.join(source, ".carte"), { recursive: true, force: true });
    cleanup = () => Promise.resolve(rmSync(source, { recursive: true, force: true }));
    const config = path.join(source, "carte.yaml");
    const applied = await carte(["apply", "--auto-approve", "-q", "-c", config]);
    expect(applied.code, applied.err).toBe(0);
    const out = path.join(mountPoint, "imported-embedded");
    const args = ["import", "--store", "900101,900102,900201", "-c", config, "--out", out];

    // Room for every imported file and half of the state, which is written after them (pages measured
    // by an import elsewhere).
    const elsewhere = mkdtempSync(path.join(tmpdir(), "carte-import-size-"));
    const measured = await carte([...args.slice(0, -1), elsewhere]);
    expect(measured.code, measured.err).toBe(0);
    const { bsize } = statfsSync(mountPoint);
    const statePages = Math.ceil(
      statSync(path.join(elsewhere, ".carte", "emulator-state.json")).size / bsize,
    );
    expect(statePages).toBeGreaterThan(2);
    fill(pagesOf(elsewhere) - Math.ceil(statePages / 2));
    rmSync(elsewhere, { recursive: true, force: true });

    const full = await carte(args);
    expect(full.code).toBe(1);
    expect(full.err).toContain(
      `could not copy the embedded emulator's state to ${out}/.carte/emulator-state.json: ${ENOSPC}`,
    );
    expect(full.err).toMatch(/written before it (was|were) removed again/);
    // Nothing behind: no file, and no folder made for them (.carte, catalogs, stores).
    expect(readdirSync(out)).toEqual([]);

    free();
    const run = await carte(args);
    expect(run.code, run.err).toBe(0);
    expect(tree(out)).toContain("carte.yaml");
    expect(tree(out)).toContain(path.join(".carte", "emulator-state.json"));
    const plan = await carte(["plan", "--detailed-exitcode", "-c", path.join(out, "carte.yaml")]);
    expect(plan.code, plan.out + plan.err).toBe(0);
  });

  it("leaves no index linking to a page it did not write when preview --out runs out of space, and a re-run succeeds", async () => {
    const fx = await exampleAgainstEmulator([
      "stores/bog-centro.yaml",
      "stores/bog-chapinero.yaml",
      "stores/med-poblado.yaml",
    ]);
    cleanup = fx.close;
    const out = path.join(mountPoint, "preview");
    const args = ["preview", "-q", "-c", fx.config, "--out", out];

    // Room for the index, the list of pages and the first store's page, not for the second store's
    // (pages measured by a preview elsewhere).
    const elsewhere = mkdtempSync(path.join(tmpdir(), "carte-preview-size-"));
    const measured = await carte([...args.slice(0, -1), elsewhere]);
    expect(measured.code, measured.err).toBe(0);
    const { bsize } = statfsSync(mountPoint);
    const pages = (f: string) => Math.ceil(statSync(path.join(elsewhere, f)).size / bsize);
    expect(pages("stores/bog-chapinero.html")).toBeGreaterThan(pages("index.html") + 1);
    fill(pages("index.html") + pages(".carte-preview.json") + pages("stores/bog-centro.html"));
    rmSync(elsewhere, { recursive: true, force: true });

    const full = await carte(args);
    expect(full.code).toBe(1);
    expect(full.err).toContain(`could not write the preview to ${out}/stores/bog-chapinero.html: ${ENOSPC}`);
    expect(full.err).toContain(
      "; no index.html is left (it would link to pages that are not there), and the page written before it was removed again",
    );
    expect(full.err).toContain("run carte preview again once there is room");
    // No index, no page: nothing that links to a page that is not there.
    expect(tree(out).filter((f) => f.endsWith(".html"))).toEqual([]);

    free();
    const run = await carte(args);
    expect(run.code, run.err).toBe(0);
    const index = readFileSync(path.join(out, "index.html"), "utf8");
    const links = [...index.matchAll(/href="(stores\/[^"]+)"/g)].map((m) => m[1]!);
    expect(links).toHaveLength(3);
    for (const link of links) expect(existsSync(path.join(out, link)), link).toBe(true);
  });

  it("leaves no file of a new project when init runs out of space", async () => {
    const dir = path.join(mountPoint, "new");
    // Room for every file but the last one written, carte.yaml.
    const elsewhere = mkdtempSync(path.join(tmpdir(), "carte-init-size-"));
    expect((await carte(["init", elsewhere])).code).toBe(0);
    fill(pagesOf(elsewhere) - 1);
    rmSync(elsewhere, { recursive: true, force: true });
    const full = await carte(["init", dir]);
    expect(full.code).toBe(1);
    expect(full.err).toContain(ENOSPC);
    expect(full.err).toContain(`could not write the new project's file ${dir}/carte.yaml: ${ENOSPC}`);
    expect(full.err).toMatch(/the 3 files written before it were removed again/);
    expect(existsSync(dir) ? tree(dir) : []).toEqual([]);

    free();
    expect((await carte(["init", dir])).code).toBe(0);
    expect((await carte(["validate", "-c", path.join(dir, "carte.yaml")])).code).toBe(0);
  });

  it("keeps the secrets file whole, and the next apply recovers the secret it could not save", async () => {
    const fx = await exampleAgainstEmulator([
      "stores/bog-centro.yaml",
      "stores/bog-chapinero.yaml",
      "stores/med-poblado.yaml",
    ]);
    cleanup = fx.close;
    const file = path.join(mountPoint, "secrets", "secrets.json");
    const withFile = (args: string[]) => [...args, "-c", fx.config, "--secrets-file", file];
    expect((await carte(withFile(["apply", "--auto-approve"]))).code).toBe(0);
    const before = readFileSync(file, "utf8");
    edit(
      fx.config,
      "    MENU_REJECTED: http://localhost:8080/hooks/menu-rejected\n",
      "    MENU_REJECTED: http://localhost:8080/hooks/menu-rejected\n    PING: https://hooks.example.com/ping\n",
    );

    // Room for the marker of the secrets on their way, not for the secrets file's new version.
    fill(1);
    const full = await carte(withFile(["apply", "--auto-approve"]));
    expect(full.code).toBe(1);
    expect(full.out + full.err).toContain(
      `could not save the secret of the PING webhook to ${file}: ${ENOSPC}`,
    );
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(Object.keys(JSON.parse(readFileSync(`${file}.pending`, "utf8")) as object)).toEqual(["PING"]);

    free();
    const applied = await carte(withFile(["apply", "--auto-approve"]));
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toContain("Rotated the secret of the PING webhook");
    expect(JSON.parse(readFileSync(file, "utf8"))).toHaveProperty("PING");
    expect(readdirSync(path.dirname(file))).toEqual(["secrets.json"]);
  });
});
