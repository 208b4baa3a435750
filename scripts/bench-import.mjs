// Benchmark of `carte import` on a chain as chains price it (docs/performance.md, "Import").
//
// Usage: npm run bench:import -- [--stores N] [--latency MS] [--parallelism P] [--keep DIR]
//   --stores N        stores of the generated chain, in 3 regions (default 200)
//   --latency MS      latency the emulator adds to every answer while carte imports (default 20)
//   --parallelism P   carte import's --parallelism (default 16, carte's own default)
//   --keep DIR        write both projects under DIR and keep them (default: a temporary folder, removed)
//
// What it does, against one emulator in this process (carte runs in its own, through its CLI):
//   1. writes a project as a person writes it: carte.yaml with chain-wide hours, open and a webhook;
//      one catalog (the double burger's extras priced inside it); three region groups (north, south,
//      coast: their price lists, the coast's cheese inside the double burger, what they do not sell,
//      their Sunday or weekend hours, a special day); N store files naming their group, a quarter with
//      a price of their own, some with an item switched off, another Sunday, one more item not sold, a
//      special day or a price of bacon inside the double burger of their own;
//   2. applies it to the emulator (`carte apply`, latency 0: setup, not measured);
//   3. imports every store into an empty folder (`carte import`, every store on one command line)
//      with the emulator answering after --latency ms, timed end to end (process start included), its
//      CPU time and peak RSS (GNU time), its requests by route against the fewest an import can make;
//   4. plans the imported project (`carte plan`, latency 0), which must say "No changes";
//   5. prints the YAML lines of both projects (content lines: neither blank nor comment; and all
//      lines) and the ratio imported ÷ hand-written, and the files of each kind;
//   6. prints what a person would still change in the imported files: the longest line, slots ending
//      `23:59` (people write `24:00`), whether carte.yaml kept `secrets_file:` and `timezone:`, the
//      special days still dated, and the files with carte init's `$schema` line.
// CARTE_BENCH_PROFILE=DIR in the environment: the import writes a CPU profile into DIR.
// Exits 1 when a step fails or the plan is not empty. Sends traffic only to 127.0.0.1.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { mulberry32 } from "../dist/emulator/prng.js";
import { routeOfPath } from "../dist/platform/routes.js";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const CREDENTIALS = { CARTE_CLIENT_ID: "bench", CARTE_CLIENT_SECRET: "bench-secret" };

const { values } = parseArgs({
  options: {
    stores: { type: "string", default: "200" },
    latency: { type: "string", default: "20" },
    parallelism: { type: "string", default: "16" },
    keep: { type: "string" },
  },
});
const stores = Number(values.stores);
const latency = Number(values.latency);
const parallelism = Number(values.parallelism);
for (const [k, v] of Object.entries({ stores, latency, parallelism })) {
  if (!Number.isInteger(v) || v < 0) throw new Error(`--${k} must be a whole number, not ${v}`);
}

// ---------------------------------------------------------------------------------------- the chain

const ITEMS = [
  ["BURGER-CLASSIC", "Classic burger", 24900],
  ["BURGER-CHEESE", "Cheese burger", 26900],
  ["BURGER-BACON", "Bacon burger", 28900],
  ["BURGER-VEGGIE", "Veggie burger", 25900],
  ["BURGER-DOUBLE", "Double burger", 32900],
  ["CHICKEN-CRISPY", "Crispy chicken", 23900],
  ["CHICKEN-WINGS", "Chicken wings", 21900],
  ["HOTDOG", "Hot dog", 15900],
  ["FRIES", "Fries", 8900],
  ["FRIES-LOADED", "Loaded fries", 13900],
  ["ONION-RINGS", "Onion rings", 9900],
  ["SALAD", "Garden salad", 16900],
  ["SODA", "Soda", 5900],
  ["LEMONADE", "Lemonade", 6900],
  ["SHAKE-VANILLA", "Vanilla shake", 11900],
  ["SHAKE-AREQUIPE", "Arequipe shake", 12900],
  ["ICE-CREAM", "Ice cream", 7900],
  ["BROWNIE", "Brownie", 8900],
];
const BURGERS = ITEMS.filter(([sku]) => sku.startsWith("BURGER")).map(([sku]) => sku);
const OPTIONS = [
  ["EXTRA-CHEESE", "Extra cheese", 3000],
  ["EXTRA-BACON", "Extra bacon", 4500],
  ["EXTRA-AVOCADO", "Extra avocado", 4000],
  ["EXTRA-EGG", "Fried egg", 2500],
];
const CATEGORIES = [
  ["BURGERS", "Burgers", BURGERS],
  ["CHICKEN", "Chicken and more", ["CHICKEN-CRISPY", "CHICKEN-WINGS", "HOTDOG", "SALAD"]],
  ["SIDES", "Sides", ["FRIES", "FRIES-LOADED", "ONION-RINGS"]],
  ["DRINKS", "Drinks", ["SODA", "LEMONADE", "SHAKE-VANILLA", "SHAKE-AREQUIPE"]],
  ["DESSERTS", "Desserts", ["ICE-CREAM", "BROWNIE"]],
];

function catalogYaml() {
  const lines = ["name: chain", "items:"];
  for (const [sku, title, price] of ITEMS) {
    lines.push(`  - sku: ${sku}`, `    title: ${title}`, `    price: ${price}`);
    if (BURGERS.includes(sku)) lines.push("    modifier_groups: [EXTRAS]");
    // Extras cost less inside the double burger (an option's price inside its parent).
    if (sku === "BURGER-DOUBLE") lines.push("    option_prices: { EXTRA-CHEESE: 2000, EXTRA-BACON: 3500 }");
  }
  lines.push(
    "modifier_groups:",
    "  - sku: EXTRAS",
    "    title: Extras",
    "    min: 0",
    "    max: 3",
    "    options:",
  );
  for (const [sku, title, price] of OPTIONS)
    lines.push(`      - { sku: ${sku}, title: ${title}, price: ${price} }`);
  lines.push("categories:");
  for (const [sku, title, items] of CATEGORIES)
    lines.push(`  - sku: ${sku}`, `    title: ${title}`, `    items: [${items.join(", ")}]`);
  lines.push("menus:", "  - type: DEFAULT", `    categories: [${CATEGORIES.map(([sku]) => sku).join(", ")}]`);
  return lines.join("\n") + "\n";
}

/** The three regions: their share of the stores, and their group file. */
const REGIONS = [
  {
    name: "north",
    share: 9, // of 20
    lines: [
      "defaults:",
      "  hours:",
      '    sun: ["12:00-20:00"]',
      "  overrides:",
      "    prices: { BURGER-CLASSIC: 25900, BURGER-CHEESE: 27900, FRIES: 9400 }",
      "    exclude: [SHAKE-AREQUIPE]",
    ],
  },
  {
    name: "south",
    share: 7,
    lines: [
      "defaults:",
      "  overrides:",
      "    prices:",
      "      BURGER-CLASSIC: 22900",
      "      BURGER-BACON: 26900",
      "      CHICKEN-WINGS: 19900",
      "      SODA: 4900",
      "      LEMONADE: 5900",
      "    exclude: [SALAD, HOTDOG]",
    ],
  },
  {
    name: "coast",
    share: 4,
    lines: [
      "defaults:",
      "  hours:",
      '    fri,sat: ["11:00-01:00"]',
      "  special_days:",
      '    - { name: Carnaval, date: "02-14", slots: ["10:00-23:00"] }',
      "  overrides:",
      "    prices:",
      "      BURGER-CLASSIC: 26900",
      "      BURGER-DOUBLE: 34900",
      "      SODA: 6400",
      "      LEMONADE: 7900",
      "      SHAKE-VANILLA: 12900",
      "      EXTRA-AVOCADO: 5000",
      "    option_prices: { BURGER-DOUBLE: { EXTRA-CHEESE: 2500 } }",
      "    exclude: [BROWNIE]",
    ],
  },
];

/** The region of store i: 9 of every 20 stores in the north, 7 in the south, 4 on the coast. */
function regionOf(i) {
  let k = i % 20;
  for (const r of REGIONS) {
    if (k < r.share) return r;
    k -= r.share;
  }
  throw new Error("unreachable");
}

/** The store file of store i, with its quirks. */
function storeYaml(i, key, id) {
  const region = regionOf(i);
  // The emulator's seeded generator: the quirks are the same on every run.
  const random = mulberry32(i + 1);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const excluded = new Set(
    region.lines
      .join(" ")
      .match(/exclude: \[(.*)\]/)[1]
      .split(", "),
  );
  const plain = ["CHICKEN-CRISPY", "FRIES-LOADED", "ONION-RINGS", "ICE-CREAM", "LEMONADE"].filter(
    (s) => !excluded.has(s),
  );
  const lines = [
    "store:",
    `  id: ${id}`,
    `  integration_id: ${key}`,
    `  name: ${region.name[0].toUpperCase()}${region.name.slice(1)} ${i}`,
    "catalog: chain",
    `group: ${region.name}`,
  ];
  if (random() < 0.1) lines.push("hours:", '  sun: ["10:00-16:00"]');
  if (random() < 0.07)
    lines.push("special_days:", '  - { name: Aniversario, date: "10-15", slots: ["12:00-22:00"] }');
  const overrides = [];
  if (random() < 0.25) overrides.push(`  prices: { ${pick(BURGERS)}: ${23000 + (i % 40) * 100} }`);
  if (random() < 0.08) {
    const sku = pick(plain);
    excluded.add(sku);
    overrides.push(`  exclude: [${sku}]`);
  }
  const off = ["FRIES", "SODA", "ICE-CREAM"].filter((sku) => !excluded.has(sku));
  const unavailable = random() < 0.15 ? ["availability:", `  unavailable: [${pick(off)}]`] : [];
  // Drawn after the quirks above, so that those stay what they were before option prices.
  if (random() < 0.05)
    overrides.unshift(`  option_prices: { BURGER-DOUBLE: { EXTRA-BACON: ${3000 + (i % 5) * 100} } }`);
  // A day of one year only (a reopening), drawn last: the quirks above stay what they were.
  const dated = random() < 0.05;
  if (dated && !lines.includes("special_days:"))
    lines.push("special_days:", `  - { name: Reapertura, date: "${DATED_DAY}", slots: ["12:00-18:00"] }`);
  if (overrides.length > 0) lines.push("overrides:", ...overrides);
  lines.push(...unavailable);
  return lines.join("\n") + "\n";
}

/** A date 30 days from now: a special day of that year only is applied (src/kinds/special-days.ts). */
const DATED_DAY = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

/** carte init's first line of a YAML file (src/init.ts): its schema in the installed package. */
function schemaLine(folder, schema) {
  const up = folder === "" ? "" : "../";
  return `# yaml-language-server: $schema=${up}node_modules/@carte-oss/carte/schemas/config/${schema}.schema.json\n`;
}

/** Writes the hand-written project into `dir`; returns the stores (id, integration id, name). */
function writeChain(dir, emulatorUrl) {
  for (const sub of ["stores", "catalogs", "groups"]) mkdirSync(path.join(dir, sub), { recursive: true });
  writeFileSync(
    path.join(dir, "carte.yaml"),
    schemaLine("", "project") +
      [
        "version: 1",
        "currency: COP",
        "platform:",
        `  base_url: ${emulatorUrl}`,
        // The emulator answers as fast as it can: carte's own pacing is not what is measured.
        "  requests_per_second: 10000",
        "stores: stores/*.yaml",
        "catalogs: catalogs/*.yaml",
        "groups: groups/*.yaml",
        "defaults:",
        "  timezone: America/Bogota",
        "  hours:",
        '    mon-thu: ["11:00-22:00"]',
        '    fri,sat: ["11:00-23:00"]',
        '    sun: ["12:00-21:00"]',
        "  open: true",
        "  webhooks:",
        "    NEW_ORDER: http://127.0.0.1:9/hooks/new-order",
        "secrets_file: .carte/secrets.json",
      ].join("\n") +
      "\n",
  );
  writeFileSync(path.join(dir, "catalogs", "chain.yaml"), schemaLine("catalogs", "catalog") + catalogYaml());
  for (const r of REGIONS)
    writeFileSync(
      path.join(dir, "groups", `${r.name}.yaml`),
      schemaLine("groups", "group") + [`name: ${r.name}`, ...r.lines].join("\n") + "\n",
    );
  const out = [];
  for (let i = 0; i < stores; i++) {
    const key = `${regionOf(i).name}-${String(i).padStart(4, "0")}`;
    const id = String(2_000_000 + i);
    const text = storeYaml(i, key, id);
    writeFileSync(path.join(dir, "stores", `${key}.yaml`), schemaLine("stores", "store") + text);
    out.push({ id, integration_id: key, name: text.match(/ {2}name: (.*)/)[1] });
  }
  return out;
}

// ---------------------------------------------------------------------------------------- running

/** Runs carte's CLI in its own process; resolves its output, exit code and wall time. */
function carte(args, profile = false) {
  const started = performance.now();
  const dir = process.env.CARTE_BENCH_PROFILE;
  // Its peak RSS and CPU time, as GNU time reports them (`%M` KiB, `%U` and `%S` seconds) into a file.
  const usage = path.join(tmpdir(), `carte-bench-import-usage-${process.pid}.txt`);
  return new Promise((resolve) => {
    execFile(
      "/usr/bin/time",
      [
        "-f",
        "%M %U %S",
        "-o",
        usage,
        process.execPath,
        ...(profile && dir ? ["--cpu-prof", "--cpu-prof-dir", dir] : []),
        path.join(root, "bin", "carte.js"),
        ...args,
      ],
      { env: { ...process.env, ...CREDENTIALS, NO_COLOR: "1" }, maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const [kib, user, system] = readFileSync(usage, "utf8")
          .trim()
          .split("\n")
          .at(-1)
          .split(" ")
          .map(Number);
        rmSync(usage, { force: true });
        resolve({
          code: err ? (typeof err.code === "number" ? err.code : 1) : 0,
          out: stdout,
          err: stderr,
          ms: performance.now() - started,
          rssMiB: Math.round(kib / 1024),
          cpuMs: (user + system) * 1000,
        });
      },
    );
  });
}

function mustSucceed(step, r) {
  if (r.code === 0) return;
  console.error(`${step} failed (exit ${r.code}):\n${r.out.slice(-4000)}\n${r.err.slice(-4000)}`);
  process.exit(1);
}

/**
 * YAML lines of a project: content lines (neither blank nor comment), all lines, files by folder; and
 * what a person would change: the longest line, slots ending 23:59, dated special days, files with a
 * $schema line, and carte.yaml's secrets_file and timezone.
 */
function measure(dir) {
  let content = 0;
  let all = 0;
  const files = {};
  const looks = { longest: 0, at2359: 0, dated: 0, schema: 0, yaml: 0 };
  const walk = (rel) => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = path.join(rel, e.name);
      if (e.isDirectory() && !e.name.startsWith(".")) walk(p);
      else if (e.isFile() && e.name.endsWith(".yaml")) {
        const text = readFileSync(path.join(dir, p), "utf8");
        const lines = text.split("\n");
        if (lines[lines.length - 1] === "") lines.pop();
        looks.yaml++;
        if (lines[0]?.startsWith("# yaml-language-server: $schema=")) looks.schema++;
        looks.longest = Math.max(looks.longest, ...lines.map((l) => l.length));
        looks.at2359 += (text.match(/-23:59\b/g) ?? []).length;
        looks.dated += (text.match(/date: "?[0-9]{4}-[0-9]{2}-[0-9]{2}/g) ?? []).length;
        all += lines.length;
        content += lines.filter((l) => l.trim() !== "" && !l.trim().startsWith("#")).length;
        const folder = rel === "" ? "carte.yaml" : rel;
        files[folder] = (files[folder] ?? 0) + 1;
      }
    }
  };
  walk("");
  const project = readFileSync(path.join(dir, "carte.yaml"), "utf8");
  looks.secrets = /^secrets_file:/m.test(project);
  looks.timezone = /^ {2}timezone:/m.test(project);
  return { content, all, files, looks };
}

/** One line of what a person would still change in a project (see {@link measure}). */
function looksLine(m) {
  const l = m.looks;
  return (
    `longest line ${l.longest} chars; slots ending 23:59: ${l.at2359}; dated special days: ${l.dated}; ` +
    `$schema lines: ${l.schema} of ${l.yaml} files; carte.yaml secrets_file: ${l.secrets ? "yes" : "no"}, ` +
    `defaults timezone: ${l.timezone ? "yes" : "no"}`
  );
}

async function main() {
  const { startEmulator } = await import(path.join(root, "dist", "emulator", "index.js"));
  const base = values.keep ?? mkdtempSync(path.join(tmpdir(), "carte-bench-import-"));
  const hand = path.join(base, "hand-written");
  const imported = path.join(base, "imported");
  mkdirSync(hand, { recursive: true });
  let emu;
  try {
    emu = await startEmulator({ port: 0, applyDelayMs: 0 });
    const seedStores = writeChain(hand, emu.url);
    emu.provision({
      clients: [
        {
          client_id: CREDENTIALS.CARTE_CLIENT_ID,
          client_secret: CREDENTIALS.CARTE_CLIENT_SECRET,
          stores: seedStores,
        },
      ],
    });
    const config = path.join(hand, "carte.yaml");
    // The emulator keeps every request it answers; a thousand stores' bodies are not what is measured.
    let requests = 0;
    // The requests by route (method and path template), for the import's reads against the minimum.
    let byRoute = new Map();
    const counted = () => {
      requests += emu.requests.length;
      for (const r of emu.requests) {
        const name = routeOfPath(r.method, r.path) ?? `${r.method} ${r.path}`;
        byRoute.set(name, (byRoute.get(name) ?? 0) + 1);
      }
      emu.clearRequests();
    };
    const drop = setInterval(counted, 1000);
    try {
      console.log(
        `carte import: ${stores} stores in 3 regions, emulator latency ${latency} ms while importing, ` +
          `--parallelism ${parallelism}`,
      );
      const applied = await carte(["apply", "--auto-approve", "-q", "-c", config, "--parallelism", "16"]);
      mustSucceed("carte apply of the hand-written project", applied);
      console.log(`  applied the hand-written project in ${(applied.ms / 1000).toFixed(1)} s (setup)`);

      counted();
      requests = 0;
      byRoute = new Map();
      emu.setFaults(latency > 0 ? { latencyMs: latency } : undefined);
      // The emulator runs in this process: its CPU time while it serves the import.
      const emulatorCpu = process.cpuUsage();
      const ids = seedStores.map((s) => s.id).join(",");
      const run = await carte(
        [
          "import",
          "--store",
          ids,
          "-c",
          config,
          "--out",
          imported,
          "--parallelism",
          String(parallelism),
          "-q",
        ],
        true,
      );
      const served = process.cpuUsage(emulatorCpu);
      emu.setFaults(undefined);
      counted();
      mustSucceed("carte import", run);
      const load = loadavg()[0].toFixed(1);
      // The fewest reads an import can make: each store's menu and its 3 schedule reads (hours, holidays,
      // special days), the store status (100 stores a call) and the webhook list (once); apart from the
      // logins of the two API groups it reads.
      const minimum = stores * 4 + Math.ceil(stores / 100) + 1;
      const logins = [...byRoute].filter(([k]) => /login/i.test(k)).reduce((n, [, c]) => n + c, 0);
      console.log(
        `  import: ${(run.ms / 1000).toFixed(1)} s wall time for ${stores} stores at ${latency} ms (CPU ` +
          `${(run.cpuMs / 1000).toFixed(1)} s, peak RSS ${run.rssMiB} MiB), ${requests} requests: ` +
          `${requests - logins} reads (minimum ${minimum}) + ${logins} logins (latency bound ` +
          `${((requests * latency) / parallelism / 1000).toFixed(1)} s) (target for 1,000 stores: under 60 s); ` +
          `load average ${load} on this machine; the emulator's CPU meanwhile ` +
          `${((served.user + served.system) / 1e6).toFixed(1)} s`,
      );
      for (const [route, n] of [...byRoute].sort((a, b) => b[1] - a[1])) {
        console.log(`    ${String(n).padStart(7)}  ${route}`);
      }

      const plan = await carte(["plan", "-c", path.join(imported, "carte.yaml")]);
      mustSucceed("carte plan of the imported project", plan);
      const empty = plan.out.includes("No changes.");
      console.log(`  plan of the imported project: ${empty ? "No changes" : "CHANGES (failure)"}`);

      const a = measure(hand);
      const b = measure(imported);
      const kinds = (m) =>
        Object.entries(m.files)
          .map(([k, n]) => `${k} ${n}`)
          .join(", ");
      console.log(`  hand-written: ${a.content} content lines (${a.all} lines); files: ${kinds(a)}`);
      console.log(`  imported:     ${b.content} content lines (${b.all} lines); files: ${kinds(b)}`);
      console.log(
        `  ratio imported ÷ hand-written: ${(b.content / a.content).toFixed(2)}× content lines ` +
          `(${(b.all / a.all).toFixed(2)}× all lines); target ≤ 1.30×`,
      );
      console.log(`  as written, hand-written: ${looksLine(a)}`);
      console.log(`  as written, imported:     ${looksLine(b)}`);
      if (!empty) {
        console.error(plan.out.slice(0, 4000));
        process.exitCode = 1;
      }
    } finally {
      clearInterval(drop);
    }
  } finally {
    await emu?.close();
    if (!values.keep) rmSync(base, { recursive: true, force: true });
  }
}

await main();
