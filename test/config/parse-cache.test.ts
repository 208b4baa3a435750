/**
 * The cache of parsed files across runs (src/config/parse-cache.ts): a big file parsed and valid is
 * kept in `.carte/cache/` and read back instead of parsed; an entry that came with the files (git
 * knows it, others may read it, a link) is never believed, and nothing is written through a link.
 */

import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  appendFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadProject } from "../../src/config/index.js";
import { MAX_CACHE_ENTRIES, openParseCache } from "../../src/config/parse-cache.js";
import { lazyYamlFile, locate, numberSources, parseYaml, scalarSource } from "../../src/source/yaml.js";
import { DEFAULT_PARSE_LIMITS } from "../../src/source/yaml.js";
import { copyExample } from "../helpers/project.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The example chain, its catalog made big enough to be kept (a comment at its end). */
function chain(): string {
  const dir = copyExample();
  dirs.push(dir);
  appendFileSync(path.join(dir, "catalogs", "burgers.yaml"), `# ${"x".repeat(100)}\n`.repeat(40));
  return dir;
}

const cacheDir = (dir: string) => path.join(dir, ".carte", "cache");
const entries = (dir: string) => readdirSync(cacheDir(dir)).filter((f) => f.endsWith(".json"));
const load = (dir: string, gitKnown: (rel: string) => boolean = () => false) =>
  loadProject(path.join(dir, "carte.yaml"), { cache: openParseCache(dir, gitKnown)! });
const PLANTED = "A title no file writes";

/** Rewrites the one entry as a forger would: the first item's title changed, the entry's mode kept. */
function plant(file: string): void {
  const entry = JSON.parse(readFileSync(file, "utf8")) as { value: { data: { items: { title: string }[] } } };
  entry.value.data.items[0]!.title = PLANTED;
  writeFileSync(file, JSON.stringify(entry));
}

describe.runIf(typeof process.getuid === "function")("the parse cache", () => {
  it("keeps a big file parsed and valid in an entry only the user may read, and reads it back instead of parsing", async () => {
    const dir = chain();
    const first = await load(dir);
    const [entry] = entries(dir);
    expect(entries(dir)).toHaveLength(1); // the catalog: the other files are small
    expect(statSync(path.join(cacheDir(dir), entry!)).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(cacheDir(dir), ".gitignore"), "utf8")).toMatch(/^\*$/m);
    // A second run reads the entry: the same project, and what the entry says is what is planned.
    const again = await load(dir);
    expect(again.desired).toEqual(first.desired);
    plant(path.join(cacheDir(dir), entry!));
    expect(JSON.stringify((await load(dir)).desired)).toContain(PLANTED);
  });

  it("never reads an entry git knows (committed, in the base or in the changes)", async () => {
    const dir = chain();
    await load(dir);
    const [entry] = entries(dir);
    plant(path.join(cacheDir(dir), entry!));
    const loaded = await load(dir, (rel) => rel === `.carte/cache/${entry!}`);
    expect(JSON.stringify(loaded.desired)).not.toContain(PLANTED);
  });

  it("never reads an entry others may read, as a file checked out from a commit is", async () => {
    const dir = chain();
    await load(dir);
    const [entry] = entries(dir);
    plant(path.join(cacheDir(dir), entry!));
    chmodSync(path.join(cacheDir(dir), entry!), 0o644);
    expect(JSON.stringify((await load(dir)).desired)).not.toContain(PLANTED);
  });

  it("never reads an entry that is a link, nor a cache folder that is a link, and writes nothing through one", async () => {
    const dir = chain();
    await load(dir);
    const [entry] = entries(dir);
    plant(path.join(cacheDir(dir), entry!));
    const elsewhere = mkdtempSync(path.join(tmpdir(), "carte-elsewhere-"));
    dirs.push(elsewhere);
    // The entry a link to a file of the user's, mode 0600.
    renameSync(path.join(cacheDir(dir), entry!), path.join(elsewhere, entry!));
    symlinkSync(path.join(elsewhere, entry!), path.join(cacheDir(dir), entry!));
    expect(JSON.stringify((await load(dir)).desired)).not.toContain(PLANTED);
    // The folder a link to a folder of the user's holding the entry.
    rmSync(cacheDir(dir), { recursive: true });
    symlinkSync(elsewhere, cacheDir(dir));
    expect(JSON.stringify((await load(dir)).desired)).not.toContain(PLANTED);
    expect(readdirSync(elsewhere)).toEqual([entry]);
  });

  it(`keeps at most ${MAX_CACHE_ENTRIES} entries, the latest written`, async () => {
    const dir = chain();
    const cache = openParseCache(dir, () => false)!;
    const key = (i: number) => i.toString(16).padStart(64, "0");
    for (let i = 0; i < MAX_CACHE_ENTRIES + 3; i++) await cache.set(key(i), { n: i });
    expect(entries(dir)).toHaveLength(MAX_CACHE_ENTRIES);
    expect(cache.get(key(MAX_CACHE_ENTRIES + 2))).toEqual({ n: MAX_CACHE_ENTRIES + 2 });
  });
});

describe("a file kept parsed", () => {
  it("gives its numbers as written and locates positions as the parsed file does", () => {
    const text = "items:\n  - sku: A\n    price: 24.900\n  - sku: B\n    price: 5\n";
    const parsed = parseYaml("c.yaml", text).parsed;
    const sources = numberSources(parsed)!;
    expect(sources).toEqual({ "/items/0/price": "24.900" });
    const kept = lazyYamlFile("c.yaml", text, DEFAULT_PARSE_LIMITS, parsed.data, sources);
    expect(scalarSource(kept, "/items/0/price")).toBe("24.900");
    expect(scalarSource(kept, "/items/1/price")).toBe("5");
    expect(locate(kept, "/items/1/price")).toEqual(locate(parsed, "/items/1/price"));
    expect(numberSources(parseYaml("a.yaml", "a: &x 1\nb: *x\n").parsed)).toBeUndefined();
  });
});
