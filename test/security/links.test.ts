/**
 * Links planted in the files carte runs on: every file carte writes goes through src/atomic.ts, which
 * refuses a symbolic link in place of the file or of any folder under the root it must stay in, and
 * names the link. Each attack keeps a victim file (or folder) outside the project and asserts that it
 * is unchanged, that the run fails with exit code 1 (or FileWriteError in-process) and that the message
 * names the link and where it leads, never the file system's raw ENOTDIR/ENOENT text.
 */

import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkWritable, describeFsError, ensureFolder, rootFor, writeFileAtomic } from "../../src/atomic.js";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { FileWriteError } from "../../src/errors.js";
import { initProject } from "../../src/init.js";
import { toWireItem } from "../../src/kinds/items.js";
import { acquireApplyLock, lockPaths } from "../../src/run/lock.js";
import { PlatformClient } from "../../src/platform/client.js";
import { findLostSecrets, secretsFileSink } from "../../src/run/secrets.js";
import { item } from "../helpers/builders.js";
import { carte, CLIENT_ID, CLIENT_SECRET, clientSeed } from "../helpers/project.js";

const VICTIM = "the victim's own words\n";
const dirs: string[] = [];
let emu: RunningEmulator;

/** A folder holding `project/` (empty) and, beside it, `victim.txt` and an empty `outside/`. */
function layout(): { base: string; project: string; victim: string; outside: string } {
  const base = mkdtempSync(path.join(tmpdir(), "carte-links-"));
  dirs.push(base);
  const project = path.join(base, "project");
  const outside = path.join(base, "outside");
  mkdirSync(project);
  mkdirSync(outside);
  const victim = path.join(base, "victim.txt");
  writeFileSync(victim, VICTIM);
  return { base, project, victim, outside };
}

/** A minimal project (carte init's) on the embedded emulator, in `project/`. */
async function initialized(): Promise<ReturnType<typeof layout> & { config: string }> {
  const l = layout();
  await initProject(l.project);
  return { ...l, config: path.join(l.project, "carte.yaml") };
}

/** Every name under a folder, recursively (links listed, not followed). */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

/** No message of carte shows the file system's raw error text. */
function expectNoRawError(text: string): void {
  expect(text).not.toMatch(/E[A-Z]+: [a-z]/);
}

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    applyDelayMs: 0,
    seed: clientSeed([{ id: "800001", integration_id: "plain", name: "Plain" }]),
  });
  const client = new PlatformClient({ baseUrl: emu.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  await client.request("POST /restaurants/menu/v1/stores/{storeId}/items", { storeId: "800001" }, [
    toWireItem(item("FRIES", 8900, { title: "Fries" })),
  ]);
  await client.close();
  await emu.idle();
});

afterAll(async () => {
  await emu.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("apply and its lock", () => {
  it("a lock's holder file linked to a file outside: refused, the file untouched", async () => {
    const p = await initialized();
    const locks = path.join(p.project, ".carte", "locks");
    mkdirSync(locks, { recursive: true });
    const { holder } = lockPaths(locks, "first-store");
    symlinkSync("../../../victim.txt", holder);
    const r = await carte(["apply", "-c", p.config, "--auto-approve"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("refusing to write through a symbolic link");
    expect(r.err).toContain(`${path.basename(holder)} is a link to ../../../victim.txt; remove it`);
    expectNoRawError(r.err);
    expect(readFileSync(p.victim, "utf8")).toBe(VICTIM);
    // Refused before the platform was read: no state was made.
    expect(existsSync(path.join(p.project, ".carte", "emulator-state.json"))).toBe(false);
  });

  it("a planted .carte or .carte/locks link: no folder made outside", async () => {
    for (const [linked, to] of [
      [".carte", "../outside"],
      [".carte/locks", "../../outside"],
    ] as const) {
      const p = await initialized();
      mkdirSync(path.dirname(path.join(p.project, linked)), { recursive: true });
      symlinkSync(to, path.join(p.project, linked));
      const r = await carte(["apply", "-c", p.config, "--auto-approve"]);
      expect(r.code, linked).toBe(1);
      expect(r.err).toContain(`could not make the folder of the apply locks`);
      expect(r.err).toContain(`${linked} is a link to ${to}; remove it`);
      expectNoRawError(r.err);
      expect(tree(p.outside), linked).toEqual([]);
    }
  });

  it("a dangling lock link is reported at once, not waited on as another apply", async () => {
    const p = await initialized();
    const locks = path.join(p.project, ".carte", "locks");
    mkdirSync(locks, { recursive: true });
    symlinkSync("../../../nowhere", lockPaths(locks, "first-store").lock);
    const started = Date.now();
    const r = await carte(["apply", "-c", p.config, "--auto-approve", "--timeout", "10m"]);
    expect(r.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(r.err).toContain("the lock of store first-store");
    expect(r.err).toContain("it is a symbolic link to ../../../nowhere, not a lock");
    expect(r.err).not.toContain("another carte apply");
    expect(existsSync(path.join(p.base, "nowhere"))).toBe(false);
  });

  it("in-process: a dangling link, a file or a foreign folder as a lock refuse at once", async () => {
    const l = layout();
    const locks = path.join(l.project, ".carte", "locks");
    mkdirSync(locks, { recursive: true });
    const { lock } = lockPaths(locks, "a");
    const cases: [string, () => void, FileWriteError["reason"], string][] = [
      ["dangling link", () => symlinkSync("nowhere", lock), "link", "symbolic link to nowhere"],
      ["file", () => writeFileSync(lock, "x"), "not-folder", "it is a file, not a lock folder"],
      [
        "folder with files",
        () => {
          mkdirSync(lock);
          writeFileSync(path.join(lock, "committed"), "x");
        },
        "not-folder",
        "a folder holding files",
      ],
    ];
    for (const [name, plant, reason, words] of cases) {
      rmSync(lock, { recursive: true, force: true });
      plant();
      const started = Date.now();
      const err = await acquireApplyLock({ dir: locks, names: ["a"], waitMs: 60_000 }).catch(
        (e: unknown) => e,
      );
      expect(Date.now() - started, name).toBeLessThan(5_000);
      expect(err, name).toBeInstanceOf(FileWriteError);
      expect((err as FileWriteError).reason, name).toBe(reason);
      expect((err as Error).message, name).toContain(words);
    }
  });

  it("a normal apply still takes and releases its lock, leaving no temporary file", async () => {
    const p = await initialized();
    const r = await carte(["apply", "-c", p.config, "--auto-approve"]);
    expect(r.code, r.err).toBe(0);
    const carteDir = path.join(p.project, ".carte");
    expect(tree(carteDir)).toEqual(["emulator-state.json", "locks"]);
    expect(statSync(carteDir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(carteDir, "emulator-state.json")).mode & 0o777).toBe(0o600);
  });

  it("a file named .carte gives a located message, not ENOTDIR", async () => {
    const p = await initialized();
    writeFileSync(path.join(p.project, ".carte"), "not a folder\n");
    const r = await carte(["apply", "-c", p.config, "--auto-approve"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(".carte is a file, not a folder; remove it or move it away");
    expectNoRawError(r.err);
  });
});

describe("the embedded emulator's state, the secrets file, plan --out", () => {
  it("a state file linked outside is refused before the emulator starts", async () => {
    const p = await initialized();
    mkdirSync(path.join(p.project, ".carte"));
    symlinkSync("../../victim.txt", path.join(p.project, ".carte", "emulator-state.json"));
    const r = await carte(["plan", "-c", p.config]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("could not keep the embedded emulator's state in");
    expect(r.err).toContain("emulator-state.json is a link to ../../victim.txt");
    expect(readFileSync(p.victim, "utf8")).toBe(VICTIM);
  });

  it("plan --out through a link: refused, the target untouched; a normal save replaces the file", async () => {
    const p = await initialized();
    const out = path.join(p.project, "plan.json");
    symlinkSync("../victim.txt", out);
    const r = await carte(["plan", "-c", p.config, "--out", out]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("could not save the plan to");
    expect(r.err).toContain("plan.json is a link to ../victim.txt; remove it");
    expect(readFileSync(p.victim, "utf8")).toBe(VICTIM);

    rmSync(out);
    writeFileSync(out, "an older plan\n");
    const ok = await carte(["plan", "-c", p.config, "--out", out]);
    expect(ok.code, ok.err).toBe(0);
    expect(readFileSync(out, "utf8").startsWith('{"formatVersion":2,')).toBe(true);
    expect(readdirSync(p.project).filter((n) => n.includes("carte-tmp"))).toEqual([]);
  });

  it("a secrets file, its marker or its folder linked outside: nothing written there", async () => {
    for (const [name, plant] of [
      ["file", (dir: string) => symlinkSync("../victim.txt", path.join(dir, "secrets.json"))],
      ["marker", (dir: string) => symlinkSync("../victim.txt", path.join(dir, "secrets.json.pending"))],
      ["folder", (dir: string) => symlinkSync("../outside", path.join(dir, "keep"))],
    ] as const) {
      const l = layout();
      plant(l.project);
      const file = path.join(l.project, name === "folder" ? "keep/secrets.json" : "secrets.json");
      const sink = secretsFileSink(file, file, l.project);
      const err = await sink.prepare!(["PING"]).catch((e: unknown) => e);
      expect(err, name).toBeInstanceOf(FileWriteError);
      expect((err as FileWriteError).reason).toBe("link");
      expect((err as Error).message).toContain("refusing to write through a symbolic link");
      // The secret itself goes to the file: refused there too, naming no secret (the marker alone
      // being a link, the file is a real one of the project and is written).
      const put = await sink.put("PING", "s3cret-value").catch((e: unknown) => e);
      if (name === "marker") expect(put).toBeUndefined();
      else {
        expect(put, name).toBeInstanceOf(FileWriteError);
        expect((put as Error).message).not.toContain("s3cret-value");
      }
      expect(readFileSync(l.victim, "utf8")).toBe(VICTIM);
      expect(tree(l.outside)).toEqual([]);
    }
  });
  it("a marker linked to a JSON file outside is never read: its keys are not shown as events", async () => {
    const l = layout();
    writeFileSync(path.join(l.outside, "other.json"), '{"LEAKED_KEY": "2024-01-01"}\n');
    const file = path.join(l.project, "secrets.json");
    symlinkSync("../outside/other.json", `${file}.pending`);
    expect(await findLostSecrets(file)).toEqual({ lost: [], saved: [] });
  });
});

describe("import and init", () => {
  /** A project that points at the seeded emulator, to read the store from. */
  function source(l: ReturnType<typeof layout>): string {
    const dir = path.join(l.base, "source");
    mkdirSync(dir);
    const config = path.join(dir, "carte.yaml");
    writeFileSync(
      config,
      `version: 1\nplatform:\n  base_url: ${emu.url}\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n`,
    );
    return config;
  }

  it("import --merge with stores linked outside writes nothing there", async () => {
    const l = layout();
    writeFileSync(
      path.join(l.project, "carte.yaml"),
      `version: 1\nplatform:\n  base_url: ${emu.url}\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n`,
    );
    symlinkSync("../outside", path.join(l.project, "stores"));
    const r = await carte(["import", "--store", "800001", "-c", source(l), "--out", l.project, "--merge"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("could not write the imported file");
    expect(r.err).toContain("stores is a link to ../outside; remove it");
    expectNoRawError(r.err);
    expect(tree(l.outside)).toEqual([]);
    // Refused before the first file: no catalog was written either.
    expect(existsSync(path.join(l.project, "catalogs"))).toBe(false);
  });

  it("import --out OUT with OUT/catalogs linked outside writes nothing, not even carte.yaml", async () => {
    const l = layout();
    symlinkSync("../outside", path.join(l.project, "catalogs"));
    const r = await carte(["import", "--store", "800001", "-c", source(l), "--out", l.project]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("catalogs is a link to ../outside; remove it");
    expect(tree(l.outside)).toEqual([]);
    expect(tree(l.project)).toEqual(["catalogs"]);
  });

  it("a normal import writes its files with no temporary file left", async () => {
    const l = layout();
    const r = await carte(["import", "--store", "800001", "-c", source(l), "--out", l.project]);
    expect(r.code, r.err).toBe(0);
    expect(tree(l.project)).toEqual([
      ".gitignore",
      "carte.yaml",
      "catalogs",
      path.join("catalogs", "shared.yaml"),
      "stores",
      path.join("stores", "store-800001.yaml"),
    ]);
  });

  it("init DIR with DIR/catalogs linked outside writes nothing", async () => {
    const l = layout();
    symlinkSync("../outside", path.join(l.project, "catalogs"));
    const err = await initProject(l.project).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileWriteError);
    expect((err as Error).message).toContain("catalogs is a link to ../outside; remove it");
    const r = await carte(["init", l.project]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("could not write the new project's file");
    expect(tree(l.outside)).toEqual([]);
    expect(tree(l.project)).toEqual(["catalogs"]);
  });
});

describe("the write helper", () => {
  it("writes atomically: the content, the mode, no temporary file; keeps a file when not overwriting", async () => {
    const l = layout();
    const file = path.join(l.project, "a", "b", "file.json");
    const target = { root: l.project, purpose: "write" };
    expect(await writeFileAtomic(file, "one\n", target)).toBe(true);
    expect(await writeFileAtomic(file, "two\n", target)).toBe(true);
    expect(readFileSync(file, "utf8")).toBe("two\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(await writeFileAtomic(file, "three\n", { ...target, overwrite: false })).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("two\n");
    expect(tree(l.project)).toEqual(["a", path.join("a", "b"), path.join("a", "b", "file.json")]);
  });

  it("refuses a link at the target, a folder or FIFO there, a file for a folder, a path outside", async () => {
    const l = layout();
    const target = { root: l.project, purpose: "write" };
    symlinkSync("../victim.txt", path.join(l.project, "link"));
    mkdirSync(path.join(l.project, "folder"));
    writeFileSync(path.join(l.project, "plain"), "x");
    const cases: [string, FileWriteError["reason"], string][] = [
      ["link", "link", "link is a link to ../victim.txt"],
      ["folder", "not-file", "folder is a folder, not a regular file"],
      ["plain/inner", "not-folder", "plain is a file, not a folder"],
      ["../victim.txt", "outside", "it is outside"],
    ];
    for (const [rel, reason, words] of cases) {
      const err = await writeFileAtomic(path.join(l.project, rel), "pwned", target).catch((e: unknown) => e);
      expect(err, rel).toBeInstanceOf(FileWriteError);
      expect((err as FileWriteError).reason, rel).toBe(reason);
      expect((err as Error).message, rel).toContain(words);
    }
    expect(readFileSync(l.victim, "utf8")).toBe(VICTIM);
    expect(lstatSync(path.join(l.project, "link")).isSymbolicLink()).toBe(true);
    await expect(checkWritable(path.join(l.project, "link"), target)).rejects.toThrow(FileWriteError);
    await expect(ensureFolder(path.join(l.project, "plain", "x"), target)).rejects.toThrow(
      "plain is a file, not a folder",
    );
  });

  it("names the file, what carte was doing and the cause in words on an I/O error", async () => {
    const l = layout();
    const file = path.join(l.project, `${"n".repeat(250)}.json`);
    const err = await writeFileAtomic(file, "{}", { root: l.project, purpose: "save the plan to" }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FileWriteError);
    expect((err as FileWriteError).code).toBe("ENAMETOOLONG");
    expect((err as Error).message).toMatch(
      /^could not save the plan to .*nnn\.json: file name too long \(ENAMETOOLONG\)$/,
    );
    expect(
      describeFsError(Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" })),
    ).toBe("no space left on device (ENOSPC)");
    expect(tree(l.project)).toEqual([]);
  });

  it("keeps a user's file under the project folder or the working directory, else in its own folder", () => {
    const cwd = process.cwd();
    expect(rootFor(path.join(cwd, "p", "x.json"), path.join(cwd, "p"))).toBe(path.join(cwd, "p"));
    expect(rootFor("out/plan.json")).toBe(cwd);
    expect(rootFor("/elsewhere/dir/plan.json")).toBe("/elsewhere/dir");
  });
});
