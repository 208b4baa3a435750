/**
 * Hostile input files (docs/security.md, "Hostile files"): configurations a pull request could bring,
 * each run through the CLI in-process against an emulator that records every request. Every case must
 * end with exit 1, a `file:line:col` message where a location exists, no stack trace, no content of a
 * refused file, no request to the platform (no write, for the checks that need the platform's state),
 * within 5 s and 512 MiB. The special-SKU case is the positive end-to-end test of "keys are data".
 */

import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/main.js";
import type { CliIo } from "../../src/cli/io.js";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { CATALOG, storeYaml } from "../config/helpers.js";
import { CLIENT_ID, CLIENT_SECRET, clientSeed, writes } from "../helpers/project.js";

/** Written in every file outside the project: it must never appear in any output. */
const CANARY = "CANARY-7f3a91-outside-the-project";
/**
 * What "stays fast" means for a hostile file: seconds, where a quadratic reading or a hang would take
 * minutes; generous, so that three test files sharing two cores do not trip it.
 */
const TIME_LIMIT_MS = 15_000;
const MEMORY_LIMIT = 512 * 1024 * 1024;

let emu: RunningEmulator;
/** A folder outside every project: secret.yaml, secrets.json and a folder of YAML files. */
let outside: string;
let baselineRss: number;
const made: string[] = [];

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    applyDelayMs: 0,
    seed: clientSeed([
      { id: "1", integration_id: "a", name: "Store a" },
      { id: "2", integration_id: "constructor", name: "Constructor" },
    ]),
  });
  outside = mkdtempSync(path.join(tmpdir(), "carte-outside-"));
  made.push(outside);
  writeFileSync(path.join(outside, "secret.yaml"), `${CANARY}: ${CANARY}\n`);
  writeFileSync(path.join(outside, "secrets.json"), JSON.stringify({ NEW_ORDER: CANARY }));
  mkdirSync(path.join(outside, "yaml"));
  writeFileSync(path.join(outside, "yaml", "x.yaml"), `store: ${CANARY}\n`);
  baselineRss = process.memoryUsage().rss;
});

afterAll(async () => {
  await emu.close();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** The lines of a project file with the platform pointing at the emulator (or none: embedded). */
function projectYaml(extra = "", platform = true): string {
  return (
    "version: 1\n" +
    (platform ? `platform:\n  base_url: ${emu.url}\n` : "") +
    "stores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n" +
    extra
  );
}

type Files = Record<string, string | Buffer | { link: string } | { fifo: true } | { sparse: number }>;

/**
 * Writes a valid project (one catalog, store `a` with id 1) in a fresh folder, changed by `files`:
 * text or bytes, a symbolic link, a FIFO, or a sparse file of some size.
 */
function project(files: Files = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), "carte-hostile-"));
  made.push(dir);
  const all: Files = {
    "carte.yaml": projectYaml(),
    "catalogs/burgers.yaml": CATALOG,
    "stores/a.yaml": storeYaml(1, "a"),
    ...files,
  };
  for (const [name, content] of Object.entries(all)) {
    const file = path.join(dir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    if (typeof content === "string" || Buffer.isBuffer(content)) writeFileSync(file, content);
    else if ("link" in content) symlinkSync(content.link, file);
    else if ("fifo" in content) execFileSync("mkfifo", [file]);
    else {
      writeFileSync(file, "");
      truncateSync(file, content.sparse);
    }
  }
  return dir;
}

interface Run {
  code: number;
  out: string;
  err: string;
  ms: number;
}

/** Runs the CLI in-process in a project, after clearing the emulator's recorded requests. */
async function carte(dir: string, args: string[], config = "carte.yaml"): Promise<Run> {
  emu.clearRequests();
  let out = "";
  let err = "";
  const io: CliIo = {
    out: (s) => void (out += s),
    err: (s) => void (err += s),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    env: { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET },
  };
  const started = performance.now();
  const code = await runCli([...args, "-c", path.join(dir, config)], io);
  return { code, out, err, ms: performance.now() - started };
}

/** Content of real files outside any project that must never be quoted. */
function foreignContent(): string[] {
  const out: string[] = [];
  try {
    out.push(readFileSync("/etc/passwd", "utf8").split("\n")[0]!.slice(0, 12));
  } catch {
    // no /etc/passwd here
  }
  try {
    const env = readFileSync("/proc/self/environ", "utf8")
      .split("\0")
      .filter((e) => e.length > 8);
    out.push(...env.slice(0, 5).map((e) => e.slice(0, 12)));
  } catch {
    // no /proc here
  }
  return out;
}
const FOREIGN = foreignContent();

/** What every refusal must satisfy; `located` must match a `file:line:col: message` line. */
function expectRefused(
  run: Run,
  located: RegExp | undefined,
  options: { reads?: boolean; wholeFile?: boolean } = {},
): void {
  expect(run.code, run.err).toBe(1);
  if (located) {
    expect(run.err).toMatch(located);
    // The match is on one line that starts with file:line:col (or file: for a whole file).
    const line = run.err.split("\n").find((l) => located.test(l));
    expect(line, run.err).toMatch(options.wholeFile ? /^[^:\n]+: / : /^[^:\n]+:\d+:\d+: /);
  }
  expect(run.err).not.toMatch(/^\s+at .+[:(]\d+:\d+\)?$/m); // no stack trace
  expect(run.err).not.toContain("internal error");
  for (const text of [CANARY, CLIENT_SECRET, ...FOREIGN]) {
    expect(run.err).not.toContain(text);
    expect(run.out).not.toContain(text);
  }
  // eslint-disable-next-line no-control-regex -- raw control characters must not be printed
  expect(run.err).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  if (options.reads) expect(writes(emu.requests)).toEqual([]);
  else expect(emu.requests).toEqual([]);
  expect(run.ms).toBeLessThan(TIME_LIMIT_MS);
  expect(process.resourceUsage().maxRSS * 1024 - baselineRss).toBeLessThan(MEMORY_LIMIT);
}

/** A store file `stores/a.yaml` with extra lines. */
const store = (extra: string): Files => ({ "stores/a.yaml": storeYaml(1, "a", extra) });

/**
 * A catalog `burgers` whose item TOP offers G0, whose option offers G1, and so on: `n` modifier groups
 * nested in a chain (the last one offering G0 again when `circle`).
 */
function nestedChain(n: number, circle: boolean): string {
  const lines = [
    "items:",
    "  - { sku: TOP, title: Top, price: 1, modifier_groups: [G0] }",
    "modifier_groups:",
  ];
  for (let i = 0; i < n; i++) {
    const next = i + 1 < n ? `G${i + 1}` : circle ? "G0" : undefined;
    lines.push(
      `  - { sku: G${i}, title: G, min: 0, max: 1, options: [{ sku: O${i}, title: O, price: 1` +
        `${next ? `, modifier_groups: [${next}]` : ""} }] }`,
    );
  }
  return lines.join("\n") + "\n";
}

/** One hostile configuration: its files, the command, and the located message it must produce. */
interface Case {
  name: string;
  files: () => Files;
  /** Default `["plan"]`; the config flag is added. */
  args?: string[];
  located?: RegExp;
  /** The check needs the platform's state: reads are allowed, writes are not. */
  reads?: boolean;
  /** carte.yaml to name with -c (default carte.yaml). */
  config?: string;
  /** The problem concerns a whole file (unreadable, too large): `file: message`, no line. */
  wholeFile?: boolean;
}

const CASES: Case[] = [
  // ---- files stay inside the project ----
  {
    name: "include: .. to a file outside",
    files: () => store("include: ../outside/secret.yaml\n"),
    located: /stores\/a\.yaml:6:10: include: "\.\.\/outside\/secret\.yaml" is outside the project folder/,
  },
  {
    name: "include: /proc/self/environ through ..",
    files: () => store("include: ../../../../../../../proc/self/environ\n"),
    located: /stores\/a\.yaml:6:10: include: .* is outside the project folder/,
  },
  {
    name: "include: /etc/passwd, absolute",
    files: () => store("include: /etc/passwd\n"),
    located: /stores\/a\.yaml:6:10: include: "\/etc\/passwd" is outside the project folder/,
  },
  {
    name: "include: absolute path of a file outside",
    files: () => store(`include: ${path.join(outside, "secret.yaml")}\n`),
    located: /stores\/a\.yaml:6:10: include: .* is outside the project folder/,
  },
  {
    name: "include: a symbolic link to a file outside",
    files: () => ({
      ...store("include: shared/link.yaml\n"),
      "shared/link.yaml": { link: path.join(outside, "secret.yaml") },
    }),
    located:
      /stores\/a\.yaml:6:10: include: "shared\/link\.yaml" leads outside the project folder through a symbolic link/,
  },
  {
    name: "include: through a linked folder that leads outside",
    files: () => ({ ...store("include: shared/secret.yaml\n"), shared: { link: outside } }),
    located: /stores\/a\.yaml:6:10: include: .* leads outside the project folder through a symbolic link/,
  },
  {
    name: "include: .. in the middle of the path",
    files: () => ({
      ...store("include: shared/../../outside/secret.yaml\n"),
      "shared/x.yaml": "open: true\n",
    }),
    located: /stores\/a\.yaml:6:10: include: .* is outside the project folder/,
  },
  {
    name: "include: in carte.yaml defaults",
    files: () => ({ "carte.yaml": projectYaml("defaults:\n  include: ../outside/secret.yaml\n") }),
    located: /carte\.yaml:7:12: include: .* is outside the project folder/,
  },
  {
    name: "include: in a group's defaults",
    files: () => ({
      "carte.yaml": projectYaml("groups: groups/*.yaml\n"),
      "groups/north.yaml": "name: north\ndefaults:\n  include: /etc/passwd\n",
      ...store("group: north\n"),
    }),
    located: /groups\/north\.yaml:3:12: include: "\/etc\/passwd" is outside the project folder/,
  },
  {
    name: "include: the second entry of a list",
    files: () => ({
      ...store("include: [shared/ok.yaml, ../outside/secret.yaml]\n"),
      "shared/ok.yaml": "open: true\n",
    }),
    located: /stores\/a\.yaml:6:27: include: .* is outside the project folder/,
  },
  {
    name: "include: inside an included file",
    files: () => ({
      ...store("include: shared/ok.yaml\n"),
      "shared/ok.yaml": "include: ../../outside/secret.yaml\n",
    }),
    located: /shared\/ok\.yaml:1:10: include: .* is outside the project folder/,
  },
  {
    name: "include: a dangling link is never followed out",
    files: () => ({
      ...store("include: shared/gone.yaml\n"),
      "shared/gone.yaml": { link: path.join(outside, "missing", "x.yaml") },
    }),
    located: /stores\/a\.yaml:6:10: include: .*(does not exist|outside the project folder)/,
  },
  {
    name: "include: a loop of symbolic links",
    files: () => ({
      ...store("include: shared/loop-a.yaml\n"),
      "shared/loop-a.yaml": { link: "loop-b.yaml" },
      "shared/loop-b.yaml": { link: "loop-a.yaml" },
    }),
    located: /stores\/a\.yaml:6:10: include: cannot check where "shared\/loop-a\.yaml" leads \(ELOOP\)/,
  },
  {
    name: "include: a folder is not a file",
    files: () => ({ ...store("include: shared\n"), "shared/x.yaml": "open: true\n" }),
    located: /stores\/a\.yaml:6:10: include: "shared" is a folder, not a file/,
  },
  {
    name: "include: a FIFO does not hang the run",
    files: () => ({ ...store("include: shared/pipe.yaml\n"), "shared/pipe.yaml": { fifo: true } }),
    located: /stores\/a\.yaml:6:10: include: "shared\/pipe\.yaml" is not a regular file/,
  },
  {
    name: "stores: a pattern climbing out with ..",
    files: () => ({
      "carte.yaml": projectYaml().replace("stores: stores/*.yaml", "stores: ../outside/yaml/*.yaml"),
    }),
    located: /carte\.yaml:4:9: stores: .* is outside the project folder/,
  },
  {
    name: "stores: an absolute file",
    files: () => ({ "carte.yaml": projectYaml().replace("stores: stores/*.yaml", "stores: /etc/passwd") }),
    located: /carte\.yaml:4:9: stores: "\/etc\/passwd" is outside the project folder/,
  },
  {
    name: "stores: an entry of a list",
    files: () => ({
      "carte.yaml": projectYaml().replace(
        "stores: stores/*.yaml",
        "stores: [stores/*.yaml, ../outside/secret.yaml]",
      ),
    }),
    located: /carte\.yaml:4:25: stores: .* is outside the project folder/,
  },
  {
    name: "stores: a match that is a link to a file outside",
    files: () => ({ "stores/evil.yaml": { link: path.join(outside, "secret.yaml") } }),
    located: /carte\.yaml:4:9: stores: "stores\/\*\.yaml" matches "stores\/evil\.yaml", which leads outside/,
  },
  {
    name: "stores: ** through a folder link that leads outside",
    files: () => ({
      "carte.yaml": projectYaml().replace("stores: stores/*.yaml", 'stores: "stores/**/*.yaml"'),
      "stores/sub": { link: path.join(outside, "yaml") },
    }),
    located:
      /carte\.yaml:4:9: stores: "stores\/\*\*\/\*\.yaml" matches "stores\/sub\/x\.yaml", which leads outside/,
  },
  {
    name: "stores: .. after a wildcard",
    files: () => ({
      "carte.yaml": projectYaml().replace(
        "stores: stores/*.yaml",
        'stores: "stores/**/../../outside/yaml/*.yaml"',
      ),
    }),
    located: /carte\.yaml:4:9: stores: .* is outside the project folder/,
  },
  {
    name: "catalogs: a pattern outside",
    files: () => ({
      "carte.yaml": projectYaml().replace("catalogs: catalogs/*.yaml", "catalogs: ../outside/yaml/*.yaml"),
    }),
    located: /carte\.yaml:5:11: catalogs: .* is outside the project folder/,
  },
  {
    name: "catalogs: /proc/self/environ",
    files: () => ({
      "carte.yaml": projectYaml().replace("catalogs: catalogs/*.yaml", "catalogs: /proc/self/environ"),
    }),
    located: /carte\.yaml:5:11: catalogs: "\/proc\/self\/environ" is outside the project folder/,
  },
  {
    name: "catalogs: a match that is a link to /etc/passwd",
    files: () => ({ "catalogs/passwd.yaml": { link: "/etc/passwd" } }),
    located: /carte\.yaml:5:11: catalogs: .* leads outside the project folder/,
  },
  {
    name: "groups: a pattern outside",
    files: () => ({ "carte.yaml": projectYaml("groups: ../outside/yaml/*.yaml\n") }),
    located: /carte\.yaml:6:9: groups: .* is outside the project folder/,
  },
  {
    name: "groups: an absolute glob",
    files: () => ({ "carte.yaml": projectYaml('groups: "/etc/*"\n') }),
    located: /carte\.yaml:6:9: groups: "\/etc\/\*" is outside the project folder/,
  },
  {
    name: "groups: a match that is a link outside",
    files: () => ({
      "carte.yaml": projectYaml("groups: groups/*.yaml\n"),
      "groups/evil.yaml": { link: path.join(outside, "secret.yaml") },
    }),
    located: /carte\.yaml:6:9: groups: .* leads outside the project folder/,
  },
  {
    name: "secrets_file: .. out of the project",
    files: () => ({ "carte.yaml": projectYaml("secrets_file: ../outside/secrets.json\n") }),
    located: /carte\.yaml:6:15: secrets_file: .* is outside the project folder/,
  },
  {
    name: "secrets_file: an absolute path",
    files: () => ({ "carte.yaml": projectYaml(`secrets_file: ${path.join(outside, "secrets.json")}\n`) }),
    located: /carte\.yaml:6:15: secrets_file: .* is outside the project folder/,
  },
  {
    name: "secrets_file: in a folder linked outside",
    files: () => ({
      "carte.yaml": projectYaml("secrets_file: .carte/webhook-secrets.json\n"),
      ".carte": { link: outside },
    }),
    located: /carte\.yaml:6:15: secrets_file: .* leads outside the project folder through a symbolic link/,
  },
  {
    name: "carte.yaml itself a link to a file outside",
    files: () => ({ "link.yaml": { link: path.join(outside, "secret.yaml") } }),
    config: "link.yaml",
    located: /link\.yaml: carte\.yaml leads outside its folder through a symbolic link; it was not read/,
    wholeFile: true,
  },
  {
    name: "stores: a file that does not exist",
    files: () => ({
      "carte.yaml": projectYaml().replace("stores: stores/*.yaml", "stores: [stores/*.yaml, stores/b.yaml]"),
    }),
    located: /carte\.yaml:4:25: stores: file "stores\/b\.yaml" does not exist/,
  },

  // ---- well-formed and bounded ----
  {
    name: "Latin-1 store file",
    files: () => ({
      "stores/a.yaml": Buffer.concat([
        Buffer.from("store:\n  id: 1\n  integration_id: a\n  name: Bogot"),
        Buffer.from([0xe1]),
        Buffer.from(" Centro\ncatalog: burgers\n"),
      ]),
    }),
    located: /stores\/a\.yaml:4:14: the file is not valid UTF-8/,
  },
  {
    name: "invalid UTF-8 byte 0xff in a catalog",
    files: () => ({
      "catalogs/burgers.yaml": Buffer.concat([Buffer.from(CATALOG), Buffer.from([0x23, 0xff, 0x0a])]),
    }),
    located: /catalogs\/burgers\.yaml:17:2: the file is not valid UTF-8/,
  },
  {
    name: "overlong UTF-8 encoding",
    files: () => ({
      "stores/a.yaml": Buffer.concat([Buffer.from("# "), Buffer.from([0xc0, 0xaf]), Buffer.from("\n")]),
    }),
    located: /stores\/a\.yaml:1:3: the file is not valid UTF-8/,
  },
  {
    name: "UTF-8-encoded surrogate",
    files: () => ({
      "stores/a.yaml": Buffer.concat([
        Buffer.from("x: "),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from("\n"),
      ]),
    }),
    located: /stores\/a\.yaml:1:4: the file is not valid UTF-8/,
  },
  {
    name: "UTF-16 file",
    files: () => ({ "stores/a.yaml": Buffer.from("\ufeffstore: x\n", "utf16le") }),
    located: /stores\/a\.yaml:1:1: the file is not valid UTF-8/,
  },
  {
    name: "truncated UTF-8 sequence at the end",
    files: () => ({
      "stores/a.yaml": Buffer.concat([Buffer.from(storeYaml(1, "a") + "# "), Buffer.from([0xe2, 0x82])]),
    }),
    located: /stores\/a\.yaml:6:3: the file is not valid UTF-8/,
  },
  {
    name: "a 30 MB store file is refused by its size, unread",
    wholeFile: true,
    files: () => ({ "stores/big.yaml": { sparse: 30 * 1024 * 1024 } }),
    located: /stores\/big\.yaml: the file is 31457280 bytes, more than the limit of 8388608/,
  },
  {
    name: "a 9 MiB carte.yaml is refused by its size",
    wholeFile: true,
    files: () => ({ "carte.yaml": projectYaml() + "#".repeat(9 * 1024 * 1024) + "\n" }),
    located: /carte\.yaml: the file is \d+ bytes, more than the limit of 8388608/,
  },
  {
    name: "limits.max_file_bytes lowered: a 3 KB file is refused",
    wholeFile: true,
    files: () => ({
      "carte.yaml": projectYaml("limits:\n  max_file_bytes: 2048\n"),
      "stores/a.yaml": storeYaml(1, "a", "# " + "x".repeat(3000) + "\n"),
    }),
    located: /stores\/a\.yaml: the file is \d+ bytes, more than the limit of 2048/,
  },
  {
    name: "limits.max_file_bytes beyond its maximum",
    files: () => ({ "carte.yaml": projectYaml("limits:\n  max_file_bytes: 1073741824\n") }),
    located: /carte\.yaml:7:19: max_file_bytes must be at most 67108864/,
  },
  {
    name: "a dense file with more nodes than the limit is refused before parsing",
    files: () => ({ "stores/a.yaml": "x: [" + "0,".repeat(300_000) + "0]\n" }),
    located: /stores\/a\.yaml:1:\d+: the file holds more than 100000 YAML nodes/,
  },
  {
    name: "limits.max_file_nodes lowered",
    files: () => ({
      "carte.yaml": projectYaml("limits:\n  max_file_nodes: 1000\n"),
      "stores/a.yaml": storeYaml(1, "a", "availability:\n  unavailable:\n" + "    - BURGER\n".repeat(1200)),
    }),
    located: /stores\/a\.yaml:\d+:\d+: the file holds more than 1000 YAML nodes/,
  },
  {
    name: "60,000 nested flow lists",
    files: () => ({ "stores/a.yaml": "x: " + "[".repeat(60_000) + "]".repeat(60_000) + "\n" }),
    located: /stores\/a\.yaml:1:\d+: the file nests mappings and lists more than 64 levels deep/,
  },
  {
    name: "70 nested lists",
    files: () => ({ "stores/a.yaml": storeYaml(1, "a", "x: " + "[".repeat(70) + "]".repeat(70) + "\n") }),
    located: /stores\/a\.yaml:6:\d+: the file nests mappings and lists more than 64 levels deep/,
  },
  {
    name: "100 nested block mappings",
    files: () => ({
      "stores/a.yaml": Array.from({ length: 100 }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n") + " 1\n",
    }),
    located: /stores\/a\.yaml:\d+:\d+: the file nests mappings and lists more than 64 levels deep/,
  },
  {
    name: "billion laughs: aliases of aliases",
    files: () => ({
      "stores/a.yaml":
        "a: &a [x, x, x, x, x, x, x, x, x]\n" +
        ["b", "c", "d", "e", "f", "g", "h", "i"]
          .map(
            (k, i) =>
              `${k}: &${k} [${Array(9)
                .fill(`*${String.fromCharCode(97 + i)}`)
                .join(", ")}]`,
          )
          .join("\n") +
        "\n",
    }),
    located: /stores\/a\.yaml:2:\d+: the file expands its aliases \(\*name\) more than 1000 times/,
  },
  {
    name: "1,001 uses of one alias",
    files: () => ({ "stores/a.yaml": "a: &a x\nb: [" + Array(1001).fill("*a").join(", ") + "]\n" }),
    located: /stores\/a\.yaml:2:\d+: the file expands its aliases/,
  },
  {
    name: "an alias to nothing",
    files: () => ({ "stores/a.yaml": storeYaml(1, "a", "open: *nowhere\n") }),
    located: /stores\/a\.yaml:6:7: /,
  },
  {
    name: "20,000 unknown SKUs in prices stay fast",
    files: () => ({
      "stores/a.yaml": storeYaml(
        1,
        "a",
        "overrides:\n  prices:\n" + Array.from({ length: 20_000 }, (_, i) => `    X${i}: 1\n`).join(""),
      ),
    }),
    located: /stores\/a\.yaml:8:5: unknown SKU "X0"/,
  },
  {
    name: "20,000 prices read as written in a COP project stay fast",
    files: () => ({
      "carte.yaml": projectYaml("currency: COP\n"),
      "stores/a.yaml": storeYaml(
        1,
        "a",
        "overrides:\n  prices:\n" + Array.from({ length: 20_000 }, (_, i) => `    X${i}: 24.900\n`).join(""),
      ),
    }),
    located: /stores\/a\.yaml:8:9: price 24\.900 has 3 decimals, but COP prices have none/,
  },
  {
    name: "a price of 100,000 decimals in a COP project: the message quotes 40 characters",
    files: () => ({
      "carte.yaml": projectYaml("currency: COP\n"),
      "catalogs/burgers.yaml": CATALOG.replace("price: 24900", `price: 0.${"0".repeat(100_000)}1`),
    }),
    located:
      /catalogs\/burgers\.yaml:2:42: price 0\.0{38}… has 100001 decimals, but COP prices have none: write whole amounts$/m,
  },
  {
    name: "4,000 modifier groups nested in a chain: located, no stack overflow",
    files: () => ({ "catalogs/burgers.yaml": nestedChain(4000, false) }),
    located: /catalogs\/burgers\.yaml:6:\d+: modifier group "G3" nests 4 levels deep under item TOP/,
  },
  {
    name: "a circle of 4,000 nested modifier groups: one short message",
    files: () => ({ "catalogs/burgers.yaml": nestedChain(4000, true) }),
    located:
      /catalogs\/burgers\.yaml:4003:\d+: modifier groups nest in a circle: G0 → O0 → G1 → O1 → G2 → O2 → … 7989 more … → O3997 → G3998 → O3998 → G3999 → O3999 → G0; an option/,
  },
  {
    name: "a file at the node limit full of mistakes: the first 1000 problems, then a note",
    files: () => ({
      "stores/a.yaml": storeYaml(
        1,
        "a",
        "overrides:\n  prices:\n" + Array.from({ length: 49_000 }, (_, i) => `    X${i}: -1\n`).join(""),
      ),
    }),
    located: /carte\.yaml: only the first 1000 problems are shown: fix them and run carte again/,
    wholeFile: true,
  },
  {
    name: "20,000 repeated keys stay fast",
    files: () => ({ "stores/a.yaml": storeYaml(1, "a", "open: true\n".repeat(20_000)) }),
    located: /stores\/a\.yaml:7:1: YAML syntax error: Map keys must be unique/,
  },
  {
    name: "a NUL byte in a store file",
    files: () => ({ "stores/a.yaml": storeYaml(1, "a", "open: true\u0000\n") }),
    located:
      /stores\/a\.yaml:6:11: the file contains the control character U\+0000, which YAML does not allow/,
  },
  {
    name: "a raw escape character in a store name",
    files: () => ({
      "stores/a.yaml": storeYaml(1, "a").replace("name: Store a", "name: \u001b[2JNo changes"),
    }),
    located: /stores\/a\.yaml:4:9: the file contains the control character U\+001B/,
  },
  {
    name: "a price beyond 2^53",
    files: () => ({
      "catalogs/burgers.yaml": CATALOG.replace("price: 24900", "price: 9007199254740993"),
    }),
    located: /catalogs\/burgers\.yaml:2:42: number "9007199254740993" is too large to be read exactly/,
  },
  {
    name: "a price written in hex beyond 2^53",
    files: () => ({ "catalogs/burgers.yaml": CATALOG.replace("price: 24900", "price: 0x20000000000001") }),
    located: /catalogs\/burgers\.yaml:2:42: number "0x20000000000001" is too large/,
  },
  {
    name: "a price of 1e400 (infinite)",
    files: () => ({ "catalogs/burgers.yaml": CATALOG.replace("price: 24900", "price: 1e400") }),
    located: /catalogs\/burgers\.yaml:2:42: "1e400" is not a finite number/,
  },
  {
    name: "a price of .nan",
    files: () => ({ "catalogs/burgers.yaml": CATALOG.replace("price: 24900", "price: .nan") }),
    located: /catalogs\/burgers\.yaml:2:42: "\.nan" is not a finite number/,
  },
  {
    name: "a price of -.inf",
    files: () => ({ "catalogs/burgers.yaml": CATALOG.replace("price: 8900", "price: -.inf") }),
    located: /catalogs\/burgers\.yaml:3:40: "-\.inf" is not a finite number/,
  },
  {
    name: "a negative price",
    files: () => ({ "catalogs/burgers.yaml": CATALOG.replace("price: 8900", "price: -1") }),
    located: /catalogs\/burgers\.yaml:3:40: price must be at least 0, got -1/,
  },
  {
    name: "a price written as text",
    files: () => ({ "catalogs/burgers.yaml": CATALOG.replace("price: 8900", 'price: "NaN"') }),
    located: /catalogs\/burgers\.yaml:3:40: price must be a number, got "NaN"/,
  },
  {
    name: "an option price beyond 2^53",
    files: () => ({ "catalogs/burgers.yaml": CATALOG.replace("price: 2000", "price: 18014398509481984") }),
    located: /catalogs\/burgers\.yaml:11:46: number "18014398509481984" is too large/,
  },
  {
    name: "a store price override beyond 2^53",
    files: () => store("overrides:\n  prices:\n    BURGER: 9007199254740993\n"),
    located: /stores\/a\.yaml:8:13: number "9007199254740993" is too large/,
  },
  {
    // 999999999999999 + 1000 % is 10999999999999989, which a JSON number carries as …988.
    name: "a price rule that gives a price past what a number carries exactly",
    files: () => ({
      "catalogs/burgers.yaml": CATALOG.replace("price: 24900", "price: 999999999999999"),
      ...store("price_rules:\n  - { percent: 1000 }\n"),
    }),
    located:
      /stores\/a\.yaml:7:5: this price rule gives BURGER a price of 10999999999999989 \(from 999999999999999 at .*catalogs\/burgers\.yaml:2:42\), more than 15 significant digits/,
  },
  {
    name: "option_prices beyond 2^53",
    files: () => ({
      "catalogs/burgers.yaml": CATALOG.replace(
        "modifier_groups: [EXTRAS] }",
        "modifier_groups: [EXTRAS], option_prices: { CHEESE: 1e300 } }",
      ),
    }),
    located: /catalogs\/burgers\.yaml:2:\d+: number "1e300" is too large/,
  },
  {
    name: "a store id beyond 2^53",
    files: () => ({ "stores/a.yaml": storeYaml("12345678901234567890", "a") }),
    located: /stores\/a\.yaml:2:7: store id .* write it in quotes/,
  },
  {
    name: "a negative min of a modifier group",
    files: () => ({ "catalogs/burgers.yaml": CATALOG.replace("min: 0", "min: -1") }),
    located: /catalogs\/burgers\.yaml:7:10: min must be at least 0, got -1/,
  },
  {
    name: "a max of 1e20",
    files: () => ({ "catalogs/burgers.yaml": CATALOG.replace("max: 2", "max: 1e20") }),
    located: /catalogs\/burgers\.yaml:8:10: number "1e20" is too large/,
  },
  {
    name: "requests_per_second of .inf",
    files: () => ({
      "carte.yaml": projectYaml().replace(
        `base_url: ${emu.url}\n`,
        `base_url: ${emu.url}\n  requests_per_second: .inf\n`,
      ),
    }),
    located: /carte\.yaml:4:24: "\.inf" is not a finite number/,
  },
  {
    name: "safety percent of .nan",
    files: () => ({ "carte.yaml": projectYaml("safety:\n  max_delete_percent: .nan\n") }),
    located: /carte\.yaml:7:23: "\.nan" is not a finite number/,
  },

  // ---- addresses ----
  {
    name: "webhook address https:// without a host",
    files: () => store('webhooks:\n  NEW_ORDER: "https://"\n'),
    located: /stores\/a\.yaml:7:14: webhook address "https:\/\/" is not a full address/,
  },
  {
    name: "webhook address with credentials",
    files: () => store("webhooks:\n  NEW_ORDER: https://user:pa55@hooks.example.com/x\n"),
    located: /stores\/a\.yaml:7:14: webhook address must not carry a user name or password/,
  },
  {
    name: "webhook address in plain http to another machine",
    files: () => store("webhooks:\n  NEW_ORDER: http://hooks.example.com/x\n"),
    located:
      /stores\/a\.yaml:7:14: webhook address "http:\/\/hooks\.example\.com\/x" must start with https:\/\//,
  },
  {
    name: "webhook address with a control character",
    files: () => store('webhooks:\n  NEW_ORDER: "https://hooks.example.com/\\u001b[2J"\n'),
    located:
      /stores\/a\.yaml:7:14: webhook address "https:\/\/hooks\.example\.com\/\\u001b\[2J" contains spaces or control characters/,
  },
  {
    name: "webhook address with a line break",
    files: () => store('webhooks:\n  NEW_ORDER: { url: "https://hooks.example.com/a\\nb" }\n'),
    located: /stores\/a\.yaml:7:21: webhook address "https:\/\/hooks\.example\.com\/a\\nb" contains spaces/,
  },
  {
    name: "webhook address javascript:",
    files: () => store('webhooks:\n  NEW_ORDER: "javascript:alert(1)"\n'),
    located: /stores\/a\.yaml:7:14: NEW_ORDER "javascript:alert\(1\)" is not allowed here/,
  },
  {
    name: "client webhook https:// without a host",
    files: () => ({
      "carte.yaml": projectYaml('client:\n  webhooks:\n    STORE_PROVISIONING_STATUS: "https://"\n'),
    }),
    located: /carte\.yaml:8:32: webhook address "https:\/\/" is not a full address/,
  },
  {
    name: "platform base_url in plain http to another machine",
    files: () => ({ "carte.yaml": projectYaml().replace(emu.url, "http://platform.example.com") }),
    located:
      /carte\.yaml:3:13: platform address "http:\/\/platform\.example\.com" must start with https:\/\//,
  },
  {
    name: "platform base_url with credentials",
    files: () => ({
      "carte.yaml": projectYaml().replace(emu.url, `https://carte:${CANARY}@platform.example.com`),
    }),
    located: /carte\.yaml:3:13: platform address must not carry a user name or password/,
  },
  {
    name: "platform base_url https:// without a host",
    files: () => ({ "carte.yaml": projectYaml().replace(emu.url, '"https://"') }),
    located: /carte\.yaml:3:13: platform address "https:\/\/" is not a full address/,
  },
  {
    name: "platform hosts: a group's address in plain http to another machine",
    files: () => ({
      "carte.yaml": projectYaml().replace(
        `base_url: ${emu.url}\n`,
        `base_url: ${emu.url}\n  hosts:\n    utils: http://utils.example.com\n`,
      ),
    }),
    located:
      /carte\.yaml:5:12: address of the utils group "http:\/\/utils\.example\.com" must start with https:\/\//,
  },
  {
    name: "platform hosts: a group's address with credentials",
    files: () => ({
      "carte.yaml": projectYaml().replace(
        `base_url: ${emu.url}\n`,
        `base_url: ${emu.url}\n  hosts:\n    menu: https://carte:${CANARY}@menu.example.com\n`,
      ),
    }),
    located: /carte\.yaml:5:11: address of the menu group must not carry a user name or password/,
  },
  {
    name: "platform hosts: groups without an address and no base_url",
    files: () => ({
      "carte.yaml": projectYaml().replace(
        `base_url: ${emu.url}\n`,
        `hosts:\n    auth: ${emu.url}\n    menu: ${emu.url}\n`,
      ),
    }),
    located:
      /carte\.yaml:4:5: the API groups finance, availability, webhooks and utils have no address: give platform\.base_url/,
  },
  {
    name: "platform hosts: a group the platform does not have",
    files: () => ({
      "carte.yaml": projectYaml().replace(
        `base_url: ${emu.url}\n`,
        `base_url: ${emu.url}\n  hosts:\n    orders: ${emu.url}\n`,
      ),
    }),
    located: /carte\.yaml:5:5: unknown key "orders"/,
  },
  {
    name: "platform hosts: __proto__ as a group",
    files: () => ({
      "carte.yaml": projectYaml().replace(
        `base_url: ${emu.url}\n`,
        `base_url: ${emu.url}\n  hosts:\n    __proto__: ${emu.url}\n`,
      ),
    }),
    located: /carte\.yaml:5:5: unknown key "__proto__"/,
  },
  {
    name: "platform hosts: an address of 5000 characters",
    files: () => ({
      "carte.yaml": projectYaml().replace(
        `base_url: ${emu.url}\n`,
        `base_url: ${emu.url}\n  hosts:\n    webhooks: https://hooks.example.com/${"a".repeat(5000)}\n`,
      ),
    }),
    located: /carte\.yaml:5:15: .*(long|2000)/,
  },

  // ---- keys are data ----
  {
    name: "__proto__ as a day of hours",
    files: () => store('hours:\n  __proto__: ["11:00-15:00"]\n'),
    located: /stores\/a\.yaml:7:3: days "__proto__": "__proto__" is not a day/,
  },
  {
    name: "constructor as a day of hours",
    files: () => store('hours:\n  constructor: ["11:00-15:00"]\n'),
    located: /stores\/a\.yaml:7:3: days "constructor": "constructor" is not a day/,
  },
  {
    name: "toString and valueOf as days of hours",
    files: () => store('hours:\n  toString: ["11:00-15:00"]\n  valueOf: []\n'),
    located: /stores\/a\.yaml:7:3: days "toString": "tostring" is not a day/,
  },
  {
    name: "hasOwnProperty in a range of days",
    files: () => store('hours:\n  mon-hasOwnProperty: ["11:00-15:00"]\n'),
    located: /stores\/a\.yaml:7:3: days "mon-hasOwnProperty": "hasownproperty" is not a day/,
  },
  {
    name: "__proto__ as a holiday date",
    files: () => store("holidays:\n  __proto__: []\n"),
    located: /stores\/a\.yaml:7:3: holiday "__proto__" is not a date/,
  },
  {
    name: "constructor as a holiday date",
    files: () => store('holidays:\n  constructor: ["10:00-12:00"]\n'),
    located: /stores\/a\.yaml:7:3: holiday "constructor" is not a date/,
  },
  {
    name: "__proto__ as a special day's date",
    files: () => store('special_days:\n  - { name: X, date: "__proto__", slots: [] }\n'),
    located: /stores\/a\.yaml:7:22: special day date "__proto__" is not a date: write month and day/,
  },
  {
    name: "__proto__ as a webhook event",
    files: () => store("webhooks:\n  __proto__: https://hooks.example.com/x\n"),
    located: /stores\/a\.yaml:7:3: unknown webhook event "__proto__"/,
  },
  {
    name: "__proto__ as a SKU of store prices",
    files: () => store("overrides:\n  prices:\n    __proto__: 100\n"),
    located: /stores\/a\.yaml:8:5: unknown SKU "__proto__"/,
  },
  {
    name: "constructor as a SKU of store images",
    files: () => store("overrides:\n  images:\n    constructor: [a.jpg]\n"),
    located: /stores\/a\.yaml:8:5: unknown SKU "constructor"/,
  },
  {
    name: "__proto__ as a catalog SKU",
    files: () => ({
      "catalogs/burgers.yaml": CATALOG.replace("sku: FRIES", "sku: __proto__").replace(
        "[BURGER, FRIES]",
        "[BURGER, __proto__]",
      ),
    }),
    located: /catalogs\/burgers\.yaml:3:12: sku "__proto__" is not allowed here/,
  },
  {
    name: "__proto__ in option_prices",
    files: () => ({
      "catalogs/burgers.yaml": CATALOG.replace(
        "modifier_groups: [EXTRAS] }",
        "modifier_groups: [EXTRAS], option_prices: { __proto__: 5 } }",
      ),
    }),
    located: /catalogs\/burgers\.yaml:2:\d+: unknown option "__proto__"/,
  },
  {
    name: "constructor as a group name",
    files: () => store("group: constructor\n"),
    located: /stores\/a\.yaml:6:8: unknown group "constructor"/,
  },
  {
    name: "constructor as a catalog name",
    files: () => ({ "stores/a.yaml": storeYaml(1, "a").replace("catalog: burgers", "catalog: constructor") }),
    located: /stores\/a\.yaml:5:10: unknown catalog "constructor"/,
  },

  // ---- output of values is escaped and short ----
  {
    name: "a terminal escape sequence in an excluded SKU",
    files: () => store('overrides:\n  exclude: ["\\e[2J\\e[1;1HNo changes"]\n'),
    located: /stores\/a\.yaml:7:13: unknown SKU "\\u001b\[2J\\u001b\[1;1HNo changes"/,
  },
  {
    name: "a line break and bidi override in an unknown key",
    files: () => store('"evil\\nError: none\\u202e": 1\n'),
    located: /stores\/a\.yaml:6:1: unknown key "evil\\nError: none\\u202e"/,
  },
  {
    name: "a 10,000-character catalog name is cut",
    files: () => ({
      "stores/a.yaml": storeYaml(1, "a").replace("catalog: burgers", `catalog: ${"A".repeat(10_000)}`),
    }),
    located: /stores\/a\.yaml:5:10: unknown catalog "A{40}"…/,
  },

  // ---- nothing silently ignored ----
  {
    name: "a closure on a date that is no platform holiday",
    files: () => store('holidays:\n  "03-15": []\n'),
    located: /stores\/a\.yaml:7:3: holiday 03-15 is not a holiday of store a on the platform .* special_days/,
    reads: true,
  },
  {
    name: "slots on a date that is no platform holiday",
    files: () => store('holidays:\n  "03-15": ["10:00-12:00"]\n'),
    located: /stores\/a\.yaml:7:3: holiday 03-15 is not a holiday of store a on the platform/,
    reads: true,
  },
  {
    name: "a non-holiday date inherited from an included file",
    files: () => ({
      ...store("include: shared/dates.yaml\n"),
      "shared/dates.yaml": 'holidays:\n  "12-25": []\n  "04-02": []\n',
    }),
    located: /shared\/dates\.yaml:3:3: holiday 04-02 is not a holiday of store a/,
    reads: true,
  },
  {
    name: "validate against the embedded emulator: a closure on a non-holiday",
    files: () => ({ "carte.yaml": projectYaml("", false), ...store('holidays:\n  "03-15": []\n') }),
    args: ["validate"],
    located: /stores\/a\.yaml:7:3: holiday 03-15 is not a holiday of store a on the platform/,
  },
  {
    name: "stores: a pattern that matches nothing",
    files: () => ({ "carte.yaml": projectYaml().replace("stores: stores/*.yaml", "stores: store/*.yaml") }),
    located: /carte\.yaml:4:9: stores: pattern "store\/\*\.yaml" matches no file/,
  },
  {
    name: "catalogs: a pattern that matches nothing",
    files: () => ({
      "carte.yaml": projectYaml().replace("catalogs: catalogs/*.yaml", "catalogs: catalog/*.yml"),
    }),
    located: /carte\.yaml:5:11: catalogs: pattern "catalog\/\*\.yml" matches no file/,
  },
  {
    name: "groups: a pattern that matches nothing",
    files: () => ({ "carte.yaml": projectYaml("groups: group/*.yaml\n") }),
    located: /carte\.yaml:6:9: groups: pattern "group\/\*\.yaml" matches no file/,
  },
  {
    name: "stores: one entry of a list matches nothing",
    files: () => ({
      "carte.yaml": projectYaml().replace("stores: stores/*.yaml", "stores: [stores/*.yaml, more/*.yaml]"),
    }),
    located: /carte\.yaml:4:25: stores: pattern "more\/\*\.yaml" matches no file/,
  },
  {
    name: "validate: a pattern that matches nothing",
    files: () => ({ "carte.yaml": projectYaml().replace("stores: stores/*.yaml", "stores: store/*.yaml") }),
    args: ["validate"],
    located: /carte\.yaml:4:9: stores: pattern "store\/\*\.yaml" matches no file/,
  },
  {
    name: "--target that matches nothing",
    files: () => ({}),
    args: ["plan", "--target", "store[a].item[NOWHERE]"],
    reads: true,
  },
  {
    name: "--store that matches nothing",
    files: () => ({}),
    args: ["plan", "--store", "nowhere"],
  },
];

describe("hostile input files", () => {
  it("has at least 70 distinct cases", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(70);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  for (const c of CASES) {
    it(c.name, async () => {
      const dir = project(c.files());
      const run = await carte(dir, c.args ?? ["plan"], c.config);
      if (process.env.HOSTILE_PRINT)
        appendFileSync(process.env.HOSTILE_PRINT, `## ${c.name} (${Math.round(run.ms)} ms)\n${run.err}\n`);
      expectRefused(run, c.located, { reads: c.reads === true, wholeFile: c.wholeFile === true });
    });
  }

  it("--target and --store that match nothing say so", async () => {
    const dir = project();
    const target = await carte(dir, ["plan", "--target", "store[a].item[NOWHERE]"]);
    expect(target.err).toContain(
      "no resource of the configuration or the platform matches --target store[a].item[NOWHERE]",
    );
    const stores = await carte(dir, ["plan", "--store", "nowhere"]);
    expect(stores.err).toContain("no store of the configuration matches --store nowhere");
    // A target that names an existing resource is fine, even without changes.
    expect((await carte(dir, ["plan", "--target", "store[a].item[BURGER]"])).code).toBe(0);
  });

  it("accepts a file that starts with a byte order mark", async () => {
    const dir = project({ "stores/a.yaml": "\ufeff" + storeYaml(1, "a") });
    const run = await carte(dir, ["validate"]);
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
  });

  it("accepts http to another machine with allow_insecure_http, warning on every run", async () => {
    const dir = project({
      "carte.yaml": projectYaml().replace(
        `base_url: ${emu.url}\n`,
        "base_url: http://platform.example.com\n  allow_insecure_http: true\n",
      ),
    });
    for (let i = 0; i < 2; i++) {
      const run = await carte(dir, ["validate"]);
      expect(run.code).toBe(0);
      // Located at the address, as a configuration problem would be.
      expect(run.err).toMatch(
        /^Warning: \S*carte\.yaml:3:13: platform\.base_url "http:\/\/platform\.example\.com" is plain http/m,
      );
    }
  });

  it("accepts a group's address in http to another machine with allow_insecure_http, warning once for it", async () => {
    const dir = project({
      "carte.yaml": projectYaml().replace(
        `base_url: ${emu.url}\n`,
        `base_url: ${emu.url}\n  allow_insecure_http: true\n  hosts:\n    webhooks: http://services.example.com\n    utils: http://services.example.com\n`,
      ),
    });
    const run = await carte(dir, ["validate"]);
    expect(run.code).toBe(0);
    const warnings = run.err.split("\n").filter((l) => l.startsWith("Warning: "));
    expect(warnings).toEqual([
      expect.stringMatching(
        /^Warning: \S*carte\.yaml:6:15: platform\.hosts\.webhooks and platform\.hosts\.utils "http:\/\/services\.example\.com" are plain http/,
      ),
    ]);
  });

  it("plans, applies, re-plans empty and imports SKUs named constructor, toString, valueOf, hasOwnProperty", async () => {
    const dir = project({
      "carte.yaml": projectYaml().replace("stores: stores/*.yaml", "stores: shop/*.yaml"),
      "catalogs/burgers.yaml": `name: burgers
items:
  - { sku: constructor, title: A, price: 100, modifier_groups: [valueOf] }
  - { sku: toString, title: B, price: 200 }
  - { sku: hasOwnProperty, title: D, price: 300, modifier_groups: [valueOf], option_prices: { isPrototypeOf: 5 } }
modifier_groups:
  - sku: valueOf
    title: G
    min: 0
    max: 2
    options:
      - { sku: isPrototypeOf, title: O, price: 10 }
      - { sku: propertyIsEnumerable, title: P, price: 20 }
categories:
  - { sku: constructor, title: Cat, items: [constructor, toString, hasOwnProperty] }
  - { sku: toString, title: Cat2, items: [toString] }
menus:
  - { type: DEFAULT, categories: [constructor, toString] }
`,
      "shop/constructor.yaml": `store: { id: 2, integration_id: constructor, name: Constructor }
catalog: burgers
overrides:
  prices: { toString: 250 }
  titles: { valueOf: Gee }
  images: { constructor: [img/a.jpg] }
availability:
  unavailable: [hasOwnProperty]
`,
    });
    const plan = await carte(dir, ["plan", "--json"]);
    expect(plan.code, plan.err).toBe(0);
    const planned = JSON.parse(plan.out) as { changes: { address: string; action: string }[] };
    expect(planned.changes.map((c) => `${c.action} ${c.address}`).sort()).toEqual(
      [
        "create store[constructor].item[constructor]",
        "create store[constructor].item[toString]",
        "create store[constructor].item[hasOwnProperty]",
        "create store[constructor].item[isPrototypeOf]",
        "create store[constructor].item[propertyIsEnumerable]",
        "create store[constructor].modifier_group[valueOf]",
        "create store[constructor].category[constructor]",
        "create store[constructor].category[toString]",
        "create store[constructor].menu[DEFAULT]",
        "update store[constructor].availability[hasOwnProperty]",
      ].sort(),
    );
    const apply = await carte(dir, ["apply", "--auto-approve"]);
    expect(apply.code, apply.err).toBe(0);
    const again = await carte(dir, ["plan", "--detailed-exitcode"]);
    expect(again.code, again.out).toBe(0);
    expect(again.out).toContain("No changes");

    const out = path.join(dir, "imported");
    const imported = await carte(dir, ["import", "--store", "2", "--out", out]);
    expect(imported.code, imported.err).toBe(0);
    const catalog = readFileSync(
      path.join(out, "catalogs", readdirSync(path.join(out, "catalogs"))[0]!),
      "utf8",
    );
    expect(catalog).toContain("option_prices: {isPrototypeOf: 5}");
    expect(readFileSync(path.join(out, "stores", "constructor.yaml"), "utf8")).toContain(
      "unavailable: [hasOwnProperty]",
    );
    const replan = await runIn(out);
    expect(replan.code, replan.err + replan.out).toBe(0);
    expect(replan.out).toContain("No changes");
  });
});

/** `carte plan --detailed-exitcode` on an imported folder (its own carte.yaml). */
async function runIn(dir: string): Promise<Run> {
  return carte(dir, ["plan", "--detailed-exitcode"]);
}
