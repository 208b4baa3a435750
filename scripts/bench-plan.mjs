// Benchmark of plan and apply for a big chain, against the emulator in its own process (docs/performance.md).
//
// Usage: npm run bench:plan -- [--stores N] [--entries M] [--latency MS] [--parallelism P]
//                              [--planner R] [--skip-apply-timing] [--cli] [--repeat N]
//   --stores N        stores of the generated chain (default 100)
//   --entries M       catalog entries per store: items, options, modifier groups and categories in the
//                     proportions 324 : 232 : 40 : 20 of a 616-entry catalog, plus 2 menus (default 616)
//   --latency MS      latency the emulator adds to every answer (default 20)
//   --parallelism P   carte's --parallelism and the minimal reader's (default 8)
//   --planner R       also time the pure planner on R resources (no I/O), e.g. 1000000
//   --skip-apply-timing  make the stores from empty at latency 0 (setup only, not timed against the floor)
//   --cli             also time `carte plan` end to end through the CLI, in its own process
//   --generate-only DIR  only write the chain's files into DIR
//   --rps N           carte's platform.requests_per_second (default 10000, its highest: not the limit here)
//   --plan-only       stop after the no-change plan and the minimal reader
//   --repeat N        time the no-change plan and the minimal reader N times, one after the other, on
//                     the same applied chain (default 1)
//   --apply-only      stop after the apply from empty
//   --flat            the flat catalog of the earlier figures: no schedules, one level of modifiers,
//                     no per-parent option prices, no group price lists (default: the realistic one)
//   --scope-changed   after the apply from empty, only a change-scoped plan: the chain committed to git,
//                     one store's price changed, `carte plan --scope changed --base HEAD`: its reads
//                     (against the minimum: that store's menu) and its time, loading both commits included
//   --save-plan       instead of the steps below: the plan from empty saved as one file (`carte plan --out`),
//                     its size, the time to save and to read it (median of 3) and peak RSS; then
//                     `carte show FILE` and `carte preview --plan FILE` through the CLI, timed
//   --apply-saved     the plan from empty saved, then `carte apply FILE` of that plan, timed (after the
//                     figures of --save-plan when it is given too)
//   --preview         with --scope-changed: instead, the menu preview the GitHub Action uploads for that
//                     one-price pull request (src/preview-site.ts, planned with --base HEAD), of the changed
//                     store and of all stores (all three times): files, bytes, the zip the artifact would be,
//                     time to write, the preview step's own peak RSS (and the RSS the plan left it); then the
//                     same change saved and `carte preview --plan FILE` of all stores through the CLI, three
//                     times: a process that makes the preview and nothing else (time, peak RSS)
// CARTE_BENCH_PROFILE=DIR in the environment: each carte run writes a CPU profile into DIR.
// CARTE_BENCH_KEEP_PLAN=FILE: --save-plan copies the saved plan there, to be looked at afterwards.
// CARTE_BENCH_TRACE=DIR: each carte run and the emulator write where their calls spent their time into
// DIR (scripts/bench-trace.mjs: per route, the time to write a call, to its answer, in the emulator;
// event-loop delays; the emulator's garbage collections).
//
// What it does, each step in its own process, against one emulator in its own process:
//   1. generates the chain: one shared catalog (realistic by default: item and category schedules,
//      modifiers three levels deep, per-parent option prices, images), 4 groups with their own hours,
//      webhooks and price lists, N store files with hours, holidays, special days, webhooks and
//      per-store overrides (prices, titles, items switched off);
//   2. apply from empty (`carte apply --auto-approve`), timed against writes × latency ÷ parallelism;
//   3. the no-change plan (`carte plan`), timed, then a minimal reader that makes exactly the reads carte
//      made (same calls, same parallelism, `JSON.parse` of each answer and nothing else): carte's time
//      as a ratio of the reader's and of the latency bound (reads × latency ÷ parallelism), its reads
//      against the minimum, its peak RSS. Both meet the same emulator: before each, the emulator
//      collects its garbage (a full collection), and it runs without V8's memory reducer. With
//      thousands of stores its heap holds 1.3 GB or more, and a full collection there costs seconds of
//      CPU (2 to 8 s at 1,000 stores); left to itself, the emulator ran one whenever it allocated little
//      for a while (the memory reducer), and which of the two runs paid for it (or for the apply's
//      garbage, right after it) was chance. Its time collecting garbage during each run is printed;
//   4. a 1 % change (6 prices per 616 entries in the shared catalog): `carte plan --out` and
//      `carte apply plan.json`, its writes against the minimum (one items upsert per store) and its
//      bytes against a full store-menu upload (the catalog calls of the apply from empty);
//   5. with --planner: the pure planner (`buildPlan`) on R resources, no change and 1 % changed.
// Stops by itself; sends traffic only to 127.0.0.1.
import { execFileSync, fork, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir, loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import v8 from "node:v8";
import vm from "node:vm";

const self = fileURLToPath(import.meta.url);
const root = path.dirname(path.dirname(self));
const dist = (p) => path.join(root, "dist", p);
const MiB = 1024 * 1024;
const CREDENTIALS = { CARTE_CLIENT_ID: "bench", CARTE_CLIENT_SECRET: "bench-secret" };

// ---------------------------------------------------------------------------------------- the chain

/** Entries of a catalog of `m` entries, in the proportions of the 616-entry catalog. */
function catalogShape(m) {
  const categories = Math.max(1, Math.round((m * 20) / 616));
  const groups = Math.max(1, Math.round((m * 40) / 616));
  const options = Math.max(groups, Math.round((m * 232) / 616));
  const items = Math.max(1, m - categories - groups - options);
  return { items, options, groups, categories };
}

const pad = (n) => String(n).padStart(4, "0");
const itemSku = (i) => `ITEM-${pad(i)}`;

/** The first option and the number of options of each modifier group, in catalog order. */
function groupOptions(shape) {
  const out = [];
  let first = 0;
  for (let g = 0; g < shape.groups; g++) {
    const count = Math.floor(shape.options / shape.groups) + (g < shape.options % shape.groups ? 1 : 0);
    out.push({ first, count });
    first += count;
  }
  return out;
}

/**
 * The shared catalog as YAML; `bump` SKUs get their price raised by 100 (the 1 % change).
 *
 * With `realistic` (the default), it looks like a real menu: every 10th item and the first category
 * sold on a schedule (lunch on weekdays, and every 30th item on holidays too), modifiers three levels
 * deep (every 10th group's options offer the next group, whose options offer the one after it, as
 * size → crust → toppings), per-parent option prices on every 7th item and on the options of the
 * first level. Without it, the flat catalog of the earlier figures (no schedules, one level).
 */
function catalogYaml(shape, bump = new Set(), realistic = true) {
  const options = groupOptions(shape);
  const optionSku = (o) => `OPTION-${pad(o)}`;
  const lines = ["name: bench", "items:"];
  for (let i = 0; i < shape.items; i++) {
    const sku = itemSku(i);
    const groups = [i % shape.groups, (i * 7 + 3) % shape.groups].filter((g, k, a) => a.indexOf(g) === k);
    lines.push(
      `  - sku: ${sku}`,
      `    title: Item ${i} of the bench chain`,
      `    description: A description of item ${i}, long enough to look like a real one on a menu.`,
      `    price: ${10000 + (i % 50) * 500 + (bump.has(sku) ? 100 : 0)}`,
      `    images: [img/item-${i}.jpg]`,
      `    modifier_groups: [${groups.map((g) => `GROUP-${pad(g)}`).join(", ")}]`,
    );
    if (!realistic) continue;
    const first = options[groups[0]];
    if (i % 7 === 0 && first.count > 0) lines.push(`    option_prices: { ${optionSku(first.first)}: 1500 }`);
    if (i % 30 === 0) {
      lines.push(
        "    schedules:",
        '      - { days: mon-fri, slots: ["11:00-15:00"] }',
        '      - { days: "sat,sun,hol", slots: ["12:00-16:00"] }',
      );
    } else if (i % 10 === 0) {
      lines.push("    schedules:", '      - { days: mon-fri, slots: ["11:00-15:00", "18:00-22:00"] }');
    }
  }
  lines.push("modifier_groups:");
  for (let g = 0; g < shape.groups; g++) {
    const { first, count } = options[g];
    // Three levels: group g (g % 10 = 0) → group g + 1 → group g + 2, as size → crust → toppings.
    const nests = realistic && g % 10 < 2 && g + 1 < shape.groups;
    const child = nests ? options[g + 1] : undefined;
    lines.push(
      `  - sku: GROUP-${pad(g)}`,
      `    title: Modifier group ${g}`,
      "    min: 0",
      `    max: ${Math.min(3, count)}`,
      "    type: inclusive",
      "    options:",
    );
    for (let k = 0; k < count; k++) {
      const o = first + k;
      const extra = nests
        ? `, modifier_groups: [GROUP-${pad(g + 1)}]` +
          (g % 10 === 0 && child.count > 0
            ? `, option_prices: { ${optionSku(child.first)}: ${500 * (k + 1)} }`
            : "")
        : "";
      lines.push(`      - { sku: ${optionSku(o)}, title: Option ${o}, price: ${(o % 5) * 1000}${extra} }`);
    }
  }
  lines.push("categories:");
  for (let c = 0; c < shape.categories; c++) {
    const skus = [];
    for (let i = c; i < shape.items; i += shape.categories) skus.push(itemSku(i));
    lines.push(`  - sku: CAT-${pad(c)}`, `    title: Category ${c}`, `    items: [${skus.join(", ")}]`);
    if (realistic && c === 0) {
      lines.push("    schedules:", '      - { days: mon-sun, slots: ["06:00-11:00"] }');
    }
  }
  const all = Array.from({ length: shape.categories }, (_, c) => `CAT-${pad(c)}`);
  const late = all.slice(0, Math.max(1, Math.ceil(all.length / 2)));
  lines.push(
    "menus:",
    "  - type: DEFAULT",
    `    categories: [${all.join(", ")}]`,
    "  - type: LATE_NIGHT",
    "    categories:",
    ...late.map((sku, k) =>
      k === late.length - 1 ? `      - { sku: ${sku}, active: false }` : `      - ${sku}`,
    ),
  );
  return lines.join("\n") + "\n";
}

/** Writes the chain's files into `dir`; returns the seed of the emulator. */
function writeChain(dir, stores, shape, emulatorUrl, rps = 10000, realistic = true) {
  for (const sub of ["stores", "catalogs", "groups", "shared"])
    mkdirSync(path.join(dir, sub), { recursive: true });
  writeFileSync(path.join(dir, "catalogs", "bench.yaml"), catalogYaml(shape, new Set(), realistic));
  writeFileSync(
    path.join(dir, "shared", "holidays.yaml"),
    [
      "holidays:",
      '  "01-01": []',
      '  "12-25": ["12:00-20:00"]',
      "special_days:",
      '  - { name: Nochebuena, date: "12-24", slots: ["11:00-18:00"] }',
      '  - { name: Nochevieja, date: "12-31", slots: ["11:00-18:00"] }',
    ].join("\n") + "\n",
  );
  for (let g = 0; g < 4; g++) {
    writeFileSync(
      path.join(dir, "groups", `region-${g}.yaml`),
      [
        `name: region-${g}`,
        `description: Stores of region ${g}`,
        "defaults:",
        "  hours:",
        `    sun: ["12:00-${20 + (g % 3)}:00"]`,
        "  webhooks:",
        `    MENU_REJECTED: http://127.0.0.1:9/hooks/region-${g}/menu-rejected`,
        // A region's price list: a few items dearer, one option dearer in one item.
        ...(realistic
          ? [
              "  overrides:",
              "    prices:",
              ...[0, 1, 2].map(
                (k) => `      ${itemSku((g * 11 + k * 17 + 1) % shape.items)}: ${30000 + g * 100 + k}`,
              ),
              "    option_prices:",
              `      ${itemSku((g * 11 + 1) % shape.items)}: { OPTION-${pad(groupOptions(shape)[(g * 11 + 1) % shape.groups].first)}: ${2000 + g} }`,
            ]
          : []),
      ].join("\n") + "\n",
    );
  }
  writeFileSync(
    path.join(dir, "carte.yaml"),
    [
      "version: 1",
      "platform:",
      `  base_url: ${emulatorUrl}`,
      // By default the emulator answers as fast as it can: carte's own pacing is not what is measured.
      `  requests_per_second: ${rps}`,
      "stores: stores/*.yaml",
      "catalogs: catalogs/*.yaml",
      "groups: groups/*.yaml",
      "defaults:",
      "  include: shared/holidays.yaml",
      "  hours:",
      '    mon-thu: ["11:00-22:00"]',
      '    fri,sat: ["11:00-23:00"]',
      '    sun: ["12:00-21:00"]',
      "  open: true",
      "  webhooks:",
      "    NEW_ORDER: http://127.0.0.1:9/hooks/new-order",
      "    MENU_REJECTED: http://127.0.0.1:9/hooks/menu-rejected",
      "client:",
      "  webhooks:",
      "    STORE_PROVISIONING_STATUS: http://127.0.0.1:9/hooks/provisioning",
    ].join("\n") + "\n",
  );
  const seedStores = [];
  for (let i = 0; i < stores; i++) {
    const key = `store-${String(i).padStart(5, "0")}`;
    const id = String(1_000_000 + i);
    const a = (i * 13) % shape.items;
    const b = (i * 29 + 5) % shape.items;
    writeFileSync(
      path.join(dir, "stores", `${key}.yaml`),
      [
        "store:",
        `  id: ${id}`,
        `  integration_id: ${key}`,
        `  name: Store ${i}`,
        "catalog: bench",
        `group: region-${i % 4}`,
        ...(i % 3 === 0 ? ["hours:", '  fri,sat: ["11:00-15:00", "18:00-02:00"]'] : []),
        ...(i % 5 === 0 ? ["holidays:", '  "12-25": []'] : []),
        "open: true",
        "overrides:",
        "  prices:",
        `    ${itemSku(a)}: ${20000 + i}`,
        `    ${itemSku(b)}: ${21000 + i}`,
        "  titles:",
        `    ${itemSku(a)}: Item ${a} of store ${i}`,
        "availability:",
        `  unavailable: [${itemSku((a + 1) % shape.items)}, OPTION-${pad(i % shape.options)}]`,
      ].join("\n") + "\n",
    );
    seedStores.push({ id, integration_id: key, name: `Store ${i}` });
  }
  return {
    clients: [
      {
        client_id: CREDENTIALS.CARTE_CLIENT_ID,
        client_secret: CREDENTIALS.CARTE_CLIENT_SECRET,
        stores: seedStores,
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------- children

/** Starts a child of this script in `mode`; resolves its first message. */
function child(mode, message) {
  const profile = process.env.CARTE_BENCH_PROFILE;
  const proc = fork(self, ["--child", mode], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    // CARTE_BENCH_PROFILE=DIR: every carte child and the pure planner write a CPU profile there (node --cpu-prof).
    execArgv: [
      ...(profile && (mode === "carte" || mode === "planner" || process.env.CARTE_BENCH_PROFILE_ALL)
        ? ["--cpu-prof", "--cpu-prof-dir", profile]
        : []),
      // The emulator keeps every store's catalog and rendered menu: thousands of stores need room. It
      // collects its garbage when told (`gc`) and not on its own when idle (see step 3 above).
      ...(mode === "emulator" ? ["--max-old-space-size=16384", "--expose-gc", "--no-memory-reducer"] : []),
      ...(process.env.CARTE_BENCH_TRACE && (mode === "carte" || mode === "emulator")
        ? ["--import", path.join(root, "scripts", "bench-trace.mjs")]
        : []),
    ],
  });
  const next = () =>
    new Promise((resolve, reject) => {
      const onExit = (code) => reject(new Error(`the ${mode} child stopped (exit code ${code})`));
      proc.once("exit", onExit);
      proc.once("message", (m) => {
        proc.off("exit", onExit);
        if (m && m.error) reject(new Error(`${mode}: ${m.error}`));
        else resolve(m);
      });
    });
  const ask = (m) => {
    const answer = next();
    proc.send(m);
    return answer;
  };
  return { proc, ask, first: message === undefined ? undefined : ask(message) };
}

/** Child: the emulator, answering the parent's questions about the requests it received. */
async function emulatorChild() {
  const { startEmulator } = await import(dist("emulator/index.js"));
  const { routeOfPath, routeSpec } = await import(dist("platform/routes.js"));
  let emu;
  const empty = () => ({ logins: 0, reads: [], writes: 0, writeBytes: 0, catalogWriteBytes: 0, byRoute: {} });
  let out = empty();
  // The requests received so far, summed up and dropped: the emulator records every body it gets, and
  // a thousand store menus kept would make its garbage collector, not carte, the thing measured.
  const sum = () => {
    for (const r of emu.requests) {
      const name = routeOfPath(r.method, r.path);
      const spec = name && routeSpec(name);
      const key = name ?? `${r.method} ${r.path}`;
      out.byRoute[key] = (out.byRoute[key] ?? 0) + 1;
      if (!spec) continue;
      if (spec.surface === "none") out.logins++;
      else if (spec.synchronous === undefined) {
        // The reads themselves, for the minimal reader.
        out.reads.push({
          method: r.method,
          path: r.path + (r.query ? `?${r.query}` : ""),
          body: r.body === undefined || r.body === "" ? undefined : JSON.stringify(r.body),
        });
      } else {
        // As received: re-serialising every body here would make this bookkeeping, in the emulator's
        // process, part of what is measured.
        const bytes = r.bytes;
        out.writes++;
        out.writeBytes += bytes;
        if (/\/stores\/\{storeId\}\/(items|categories|menu|store-menu)$/.test(name))
          out.catalogWriteBytes += bytes;
      }
    }
    emu.clearRequests();
  };
  const timer = setInterval(() => emu && sum(), 250);
  let cpuMark = process.cpuUsage();
  // Time the emulator's main thread spent in collections since the last take, in ms.
  let gcMs = 0;
  const { PerformanceObserver } = await import("node:perf_hooks");
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMs += e.duration;
  }).observe({ entryTypes: ["gc"] });
  process.on("message", async (m) => {
    try {
      if (m.type === "start") {
        emu = await startEmulator({ port: 0, seed: m.seed, applyDelayMs: m.applyDelayMs });
        process.send({ url: emu.url });
      } else if (m.type === "latency") {
        emu.setFaults(m.ms > 0 ? { latencyMs: m.ms } : undefined);
        sum();
        out = empty();
        cpuMark = process.cpuUsage();
        gcMs = 0;
        process.send({ ok: true });
      } else if (m.type === "take") {
        // The requests since the last take, by category, and the emulator's CPU time meanwhile.
        sum();
        const used = process.cpuUsage(cpuMark);
        cpuMark = process.cpuUsage();
        process.send({ ...out, cpuMs: (used.user + used.system) / 1000, gcMs });
        out = empty();
        gcMs = 0;
      } else if (m.type === "gc") {
        // A full collection now, between two timed runs (the caller then takes, which resets the counts).
        globalThis.gc();
        process.send({ ok: true });
      } else if (m.type === "close") {
        clearInterval(timer);
        await emu.close();
        process.send({ ok: true });
        process.exit(0);
      }
    } catch (err) {
      process.send({ error: String(err?.stack ?? err) });
    }
  });
}

const peakRssMiB = () => process.resourceUsage().maxRSS / 1024;

/** Sends the result to the parent, then ends the child. */
const reply = (m) => process.send(m, () => process.exit(0));

/** Child: one carte run (plan, plan --out, apply, apply FILE) through the library path the CLI uses. */
async function carteChild() {
  process.once("message", async (m) => {
    try {
      const { loadProject } = await import(dist("config/index.js"));
      const { runCarte } = await import(dist("run/run.js"));
      const { renderText } = await import(dist("render/text.js"));
      const { writePlanFile } = await import(dist("plan/file.js"));
      const { discardingSink } = await import(dist("run/secrets.js"));
      const { openSession } = await import(dist("run/session.js"));
      const { planProject } = await import(dist("run/plan-project.js"));
      const env = { ...process.env, ...CREDENTIALS };
      const started = performance.now();
      let loadMs;
      let planMs;
      let planCpuMs;
      let planOut;
      let result;
      const stages = {};
      let callsStarted = 0; // CARTE_BENCH_STAGES=1: when the executor began (its "start" event)
      if (m.command === "plan" && !m.base) {
        // `carte plan` step by step (src/run/run.ts), to time the loading apart from reading and planning.
        const project = await loadProject(m.config, { shareResources: true }); // as src/run/run.ts
        loadMs = performance.now() - started;
        const session = await openSession(project, { env, connections: m.parallelism });
        const cpu = process.cpuUsage();
        try {
          const { plan } = await planProject(project, session, {
            parallelism: m.parallelism,
            checksums: m.out !== undefined,
          });
          planMs = performance.now() - started - loadMs;
          const used = process.cpuUsage(cpu);
          planCpuMs = (used.user + used.system) / 1000;
          planOut = renderText(plan, { color: false });
          result = { plan, exitCode: 0 };
        } finally {
          await session.close();
        }
      } else {
        const cpu = process.cpuUsage();
        result = await runCarte(
          {
            command: m.command,
            config: m.config,
            env,
            parallelism: m.parallelism,
            ...(m.planFile ? { planFile: m.planFile } : {}),
            ...(m.base ? { base: m.base, ...(m.scope ? { scope: m.scope } : {}), checksums: false } : {}),
            secrets: () => discardingSink(() => {}),
            convergenceTimeoutMs: 600_000,
            // `carte --timeout`: its default (15 minutes) is shorter than a 10,000-store apply.
            runTimeoutMs: 4 * 3_600_000,
          },
          {
            onPlan: () => void (planMs = performance.now() - started),
            onWarning: (w) => console.log(`  ${w.summary}`),
            onNote: (message) => console.log(`  ${message}`),
            // CARTE_BENCH_STAGES=1: when each endpoint's calls ran (first start to last end) and how long.
            onEvent: (e) => {
              if (process.env.CARTE_BENCH_STAGES && e.type === "start") callsStarted = performance.now();
              if (!process.env.CARTE_BENCH_STAGES || e.type !== "operation") return;
              const end = performance.now();
              const key = e.result.id.replace(/^[^:]*:/, "").replace(/#\d+$/, "");
              const st = (stages[key] ??= { calls: 0, first: Infinity, last: 0, ms: 0 });
              st.calls++;
              st.first = Math.min(st.first, end - e.result.durationMs);
              st.last = Math.max(st.last, end);
              st.ms += e.result.durationMs;
              (stages[""] ??= []).push([end - e.result.durationMs, end]);
            },
          },
        );
        const used = process.cpuUsage(cpu);
        planCpuMs = (used.user + used.system) / 1000;
        if (result.error) throw result.error;
        // Calls in flight, on average, in each tenth of the apply (CARTE_BENCH_STAGES=1).
        const spans = stages[""] ?? [];
        delete stages[""];
        if (spans.length > 0) {
          // Not Math.min(...spans): 151,539 arguments at 10,000 stores are past the call stack.
          const t0 = spans.reduce((m, x) => Math.min(m, x[0]), Infinity);
          const t1 = spans.reduce((m, x) => Math.max(m, x[1]), -Infinity);
          const step = (t1 - t0) / 10;
          const busy = Array.from({ length: 10 }, (_, i) => {
            const [a, b] = [t0 + i * step, t0 + (i + 1) * step];
            return (
              spans.reduce((n, [s0, s1]) => n + Math.max(0, Math.min(b, s1) - Math.max(a, s0)), 0) / step
            );
          });
          console.log(
            `  calls in flight by tenth of the calls' ${s(t1 - t0)}: ${busy.map((b) => b.toFixed(1)).join(" ")}`,
          );
          // The apply's time outside its calls: setting them up before the first, the checks after the last.
          if (result.applyMs !== undefined) {
            console.log(
              `  outside the calls: ${s(result.applyMs - (t1 - t0))} of the apply's ${s(result.applyMs)} ` +
                `(the first call started ${s(t0 - callsStarted)} after the executor did)`,
            );
          }
        }
        for (const [k, st] of Object.entries(stages)) {
          console.log(
            `  ${k.padEnd(32)} ${String(st.calls).padStart(6)} calls, ${((st.last - st.first) / 1000).toFixed(2)} s wall, ` +
              `${(st.ms / st.calls).toFixed(1)} ms a call`,
          );
        }
      }
      let saveMs;
      if (m.out) {
        const saveStart = performance.now();
        await writePlanFile(m.out, result.plan);
        saveMs = performance.now() - saveStart;
      }
      const preview = m.preview ? await previewFigures(m.preview, result) : undefined;
      const peakMiB = peakRssMiB();
      if (preview) preview.held = heldAfter(result);
      reply({
        preview,
        loadMs,
        saveMs,
        runMs: performance.now() - started,
        planMs,
        planCpuMs,
        applyMs: result.applyMs,
        exitCode: result.exitCode,
        summary: result.plan?.summary,
        firstLine:
          m.base && result.plan ? renderText(result.plan, { color: false }).split("\n")[0] : undefined,
        textBytes: planOut?.length ?? 0,
        pending: result.report?.pending.length ?? 0,
        verifyMs: result.report?.waitedMs,
        failed: result.report?.failed ?? 0,
        peakRssMiB: peakMiB,
      });
    } catch (err) {
      reply({ error: String(err?.stack ?? err) });
    }
  });
}

/**
 * What the run's result holds once the preview is written (after the figures, which it would change):
 * the live heap after a full collection, then again without each part of the result in turn (what
 * that part alone kept alive), in MiB.
 */
function heldAfter(result) {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  const live = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed / 1024 / 1024;
  };
  const held = { live: live() };
  let before = held.live;
  for (const part of ["base", "project", "plan"]) {
    delete result[part];
    const now = live();
    held[part] = before - now;
    before = now;
  }
  held.rest = before;
  return held;
}

/**
 * The preview the Action would upload for `result` (src/preview-site.ts `writePreview`, the pull request's
 * own changes counted for `changed`): what it writes, and the size of the zip the artifact client makes
 * of it, estimated as each file deflated at level 6 (the client's default) plus the zip's headers.
 */
async function previewFigures({ out, select }, result) {
  const { writePreview } = await import(dist("preview-site.js"));
  const { readFileSync: read } = await import("node:fs");
  const { deflateRawSync } = await import("node:zlib");
  // The preview step's own memory, apart from the plan made before it in the same process (as in the
  // Action's plan job): the RSS at its start, and its peak, sampled between pages (the pages are
  // rendered one at a time, their writes awaited) and from the process's peak when the preview raised it.
  const mib = (b) => b / 1024 / 1024;
  const rssStart = mib(process.memoryUsage.rss());
  const heapStart = mib(process.memoryUsage().heapUsed);
  const peakBefore = peakRssMiB();
  let sampled = rssStart;
  let heapPeak = heapStart;
  let externalPeak = 0;
  const sampler = setInterval(() => {
    const u = process.memoryUsage();
    sampled = Math.max(sampled, mib(u.rss));
    heapPeak = Math.max(heapPeak, mib(u.heapUsed));
    externalPeak = Math.max(externalPeak, mib(u.external));
  }, 5);
  const started = performance.now();
  let written;
  try {
    written = await writePreview({
      plan: result.plan,
      project: result.project,
      out,
      root: out,
      select,
      changes: result.base?.changes,
    });
  } finally {
    clearInterval(sampler);
  }
  const ms = performance.now() - started;
  const peakAfter = peakRssMiB();
  const memory = {
    rssStart,
    heapStart,
    // The process's peak rose during the preview: that is the preview's peak, exactly; else the samples'.
    peak: peakAfter > peakBefore ? peakAfter : sampled,
    heapPeak,
    externalPeak,
  };
  const zipStart = performance.now();
  let zipBytes = 22; // end of central directory
  let largest = 0;
  for (const f of written.files) {
    const data = read(f);
    largest = Math.max(largest, data.length);
    const name = Buffer.byteLength(path.relative(out, f));
    zipBytes += deflateRawSync(data, { level: 6 }).length + 30 + 46 + 2 * name;
  }
  return {
    stores: written.stores,
    changes: written.changes,
    files: written.files.length,
    bytes: written.bytes,
    largest,
    zipBytes,
    ms,
    zipMs: performance.now() - zipStart,
    memory,
  };
}

/**
 * Child: the simplest possible reader. Logs in to both surfaces, then makes the given reads with the
 * same parallelism over keep-alive connections and `JSON.parse`s each answer; nothing else.
 */
async function readerChild() {
  process.once("message", async (m) => {
    try {
      const { Agent, request } = await import("undici");
      const agent = new Agent({ connections: m.parallelism, keepAliveTimeout: 10_000 });
      const call = async (method, p, body, token) => {
        const res = await request(m.url + p, {
          method,
          dispatcher: agent,
          headers: {
            accept: "application/json",
            ...(body === undefined ? {} : { "content-type": "application/json" }),
            ...(token ? { "x-authorization": `Bearer ${token}` } : {}),
          },
          body,
        });
        const text = await res.body.text();
        if (res.statusCode < 200 || res.statusCode > 299)
          throw new Error(`${method} ${p}: HTTP ${res.statusCode}`);
        return { value: text.length > 0 ? JSON.parse(text) : undefined, bytes: text.length };
      };
      const started = performance.now();
      const cpu = process.cpuUsage();
      const creds = JSON.stringify({
        client_id: CREDENTIALS.CARTE_CLIENT_ID,
        client_secret: CREDENTIALS.CARTE_CLIENT_SECRET,
      });
      const [integrations, utils] = await Promise.all(
        ["integrations", "utils"].map(
          async (s) =>
            (await call("POST", `/restaurants/auth/v1/token/login/${s}`, creds)).value.access_token,
        ),
      );
      let next = 0;
      let bytes = 0;
      const worker = async () => {
        while (next < m.reads.length) {
          const r = m.reads[next++];
          const token = r.path.startsWith("/api/rest-ops-utils") ? utils : integrations;
          const answer = await call(r.method, r.path, r.body, token);
          bytes += answer.bytes;
        }
      };
      await Promise.all(Array.from({ length: m.parallelism }, worker));
      const ms = performance.now() - started;
      const used = process.cpuUsage(cpu);
      await agent.close();
      reply({ ms, cpuMs: (used.user + used.system) / 1000, bytes, peakRssMiB: peakRssMiB() });
    } catch (err) {
      reply({ error: String(err?.stack ?? err) });
    }
  });
}

/**
 * Child: the pure planner on `resources` resources: the desired state of the generated chain's first
 * store, given to as many stores as it takes as loading gives a shared catalog (each store its own
 * tables, holding the same resources: `shareResources`), against current states as reading the
 * platform makes them (the items and categories through their wire form, each store its own objects,
 * with ids), then with 1 % of the prices changed.
 */
async function plannerChild() {
  process.once("message", async (m) => {
    try {
      const { loadProject } = await import(dist("config/index.js"));
      const { buildPlan } = await import(dist("plan/plan.js"));
      const { kinds } = await import(dist("kinds/registry.js"));
      const { categoriesOf, categoriesState, itemsOf, itemsState, menusOf, menusState } = await import(
        dist("kinds/catalog.js")
      );
      const { fromWireItem, toWireItem } = await import(dist("kinds/items.js"));
      const { fromWireSchedules, toWireSchedules } = await import(dist("kinds/schedules.js"));
      const project = await loadProject(m.config);
      const first = Object.values(project.desired.stores)[0];
      const perStore = kinds.reduce(
        (n, k) => n + Object.keys(k.select(first, project.ownership[k.name]) ?? {}).length,
        0,
      );
      const count = Math.ceil(m.resources / perStore);
      const desired = { stores: {}, client: project.desired.client };
      const current = { stores: {} };
      const copy = (table) => Object.assign(Object.create(null), table);
      for (let i = 0; i < count; i++) {
        const key = `planner-${String(i).padStart(7, "0")}`;
        const store = { ...first.store, key, integrationId: key, storeId: String(5_000_000 + i) };
        const want = { ...first, store, kinds: copy(first.kinds) };
        itemsState.set(want, { ...itemsState.get(first), items: copy(itemsOf(first)) });
        categoriesState.set(want, copy(categoriesOf(first)));
        menusState.set(want, copy(menusOf(first)));
        desired.stores[key] = want;
        const have = structuredClone({ ...first, store });
        const items = Object.create(null);
        for (const [sku, item] of Object.entries(itemsOf(first)))
          items[sku] = fromWireItem(toWireItem(item), () => undefined);
        itemsState.set(have, { items });
        const categories = Object.create(null);
        for (const [sku, c] of Object.entries(categoriesOf(first))) {
          const { schedules, ...rest } = structuredClone(c);
          const read = fromWireSchedules(toWireSchedules(schedules));
          categories[sku] = read ? { ...rest, schedules: read } : rest;
        }
        categoriesState.set(have, categories);
        let id = 1;
        have.ids = { items: {}, categories: {}, menus: {}, other: {} };
        for (const sku of Object.keys(itemsOf(have))) have.ids.items[sku] = id++;
        for (const sku of Object.keys(categoriesOf(have))) have.ids.categories[sku] = id++;
        for (const t of Object.keys(menusOf(have))) have.ids.menus[t] = id++;
        // Store settings read back from the platform hold slot ids; the plan does not need them to compare.
        current.stores[key] = have;
      }
      current.client = { ...(project.desired.client ?? {}), ids: {} };
      const options = { safety: project.safety, ownership: project.ownership };
      const time = (fn) => {
        const t = performance.now();
        const cpu = process.cpuUsage();
        const out = fn();
        const used = process.cpuUsage(cpu);
        return { ms: performance.now() - t, cpuMs: (used.user + used.system) / 1000, out };
      };
      const same = time(() => buildPlan(desired, current, options));
      const firstItems = itemsOf(first);
      const skus = Object.keys(firstItems).filter(
        (s) => firstItems[s].type === "ITEM" && firstItems[s].price !== null,
      );
      const changed = skus.slice(0, Math.max(1, Math.round(perStore / 100)));
      // The catalog's price changes: every store holds the same changed resource.
      const repriced = new Map(
        changed.map((sku) => [sku, { ...firstItems[sku], price: firstItems[sku].price + 100 }]),
      );
      for (const s of Object.values(desired.stores)) {
        const items = itemsState.get(s).items;
        for (const [sku, item] of repriced) items[sku] = item;
      }
      const diff = time(() => buildPlan(desired, current, options));
      reply({
        stores: count,
        resources: count * perStore,
        noChangeMs: same.ms,
        noChangeCpuMs: same.cpuMs,
        changeMs: diff.ms,
        changeCpuMs: diff.cpuMs,
        changes: diff.out.changes.length,
        peakRssMiB: peakRssMiB(),
      });
    } catch (err) {
      reply({ error: String(err?.stack ?? err) });
    }
  });
}

// ---------------------------------------------------------------------------------------- the run

/**
 * Runs the CLI (`node bin/carte.js ARGS`) in its own process under /usr/bin/time (GNU time): its output,
 * its wall time, its CPU time (user + system of the process and of the children it waited for: git,
 * tar) and its peak RSS. CARTE_BENCH_PROFILE=DIR: the run writes a CPU profile there.
 */
async function cliRun(args, cwd) {
  const timing = `${cwd}.time`; // beside the project, not in it: git would list it as a new file
  const profile = process.env.CARTE_BENCH_PROFILE;
  const node = [process.execPath, ...(profile ? ["--cpu-prof", "--cpu-prof-dir", profile] : [])];
  const started = performance.now();
  const { code, stdout, stderr } = await new Promise((resolve, reject) => {
    const proc = spawn(
      "/usr/bin/time",
      ["-o", timing, "-f", "%e %U %S %M", ...node, path.join(root, "bin", "carte.js"), ...args],
      { cwd, env: { ...process.env, ...CREDENTIALS }, stdio: ["ignore", "pipe", "pipe"] },
    );
    const out = [];
    const err = [];
    proc.stdout.on("data", (d) => out.push(d));
    proc.stderr.on("data", (d) => err.push(d));
    proc.once("error", (e) =>
      reject(new Error(`/usr/bin/time cannot be run (${e.code}): install GNU time to time the CLI`)),
    );
    proc.once("close", (c) =>
      resolve({ code: c, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }),
    );
  });
  const ms = performance.now() - started;
  if (code !== 0 && code !== 2) throw new Error(`carte ${args[0]} exited ${code}: ${stderr.slice(0, 2000)}`);
  const [, user, system, maxKb] = readFileSync(timing, "utf8")
    .trim()
    .split("\n")
    .pop()
    .split(" ")
    .map(Number);
  rmSync(timing);
  return { stdout, ms, cpuMs: (user + system) * 1000, peakRssMiB: maxKb / 1024 };
}

const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
/**
 * Preloaded into a `carte` CLI process: writes its CPU time (user + system, ms) into the file
 * BENCH_CPU_FILE names as it exits (synchronously: an exiting process sends no message).
 */
const CLI_CPU_HOOK =
  'import{writeFileSync}from"node:fs";process.once("exit",()=>{const u=process.resourceUsage();' +
  "writeFileSync(process.env.BENCH_CPU_FILE,String((u.userCPUTime+u.systemCPUTime)/1000))})";
const x = (a, b) => `${(a / b).toFixed(2)}×`;

async function main() {
  const { values } = parseArgs({
    options: {
      stores: { type: "string", default: "100" },
      entries: { type: "string", default: "616" },
      latency: { type: "string", default: "20" },
      parallelism: { type: "string", default: "8" },
      planner: { type: "string", default: "0" },
      "skip-apply-timing": { type: "boolean", default: false },
      cli: { type: "boolean", default: false },
      "generate-only": { type: "string" },
      rps: { type: "string", default: "10000" },
      "plan-only": { type: "boolean", default: false },
      repeat: { type: "string", default: "1" },
      "apply-only": { type: "boolean", default: false },
      "scope-changed": { type: "boolean", default: false },
      flat: { type: "boolean", default: false },
      preview: { type: "boolean", default: false },
      "save-plan": { type: "boolean", default: false },
      "apply-saved": { type: "boolean", default: false },
    },
  });
  const stores = Number(values.stores);
  const entries = Number(values.entries);
  const latency = Number(values.latency);
  const parallelism = Number(values.parallelism);
  const plannerResources = Number(values.planner);
  const repeat = Number(values.repeat);
  for (const [k, v] of Object.entries({ stores, entries, latency, parallelism, plannerResources, repeat })) {
    if (!Number.isFinite(v) || v < 0) throw new Error(`--${k} must be a number`);
  }
  const shape = catalogShape(entries);
  if (values["generate-only"]) {
    writeChain(values["generate-only"], stores, shape, "http://127.0.0.1:1", 10000, !values.flat);
    console.log(`wrote the chain to ${values["generate-only"]} (platform.base_url to be set)`);
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), "carte-bench-"));
  const config = path.join(dir, "carte.yaml");
  console.log(
    `carte bench: ${stores} stores × ${entries} catalog entries (${shape.items} items, ${shape.options} options, ` +
      `${shape.groups} modifier groups, ${shape.categories} categories, 2 menus), latency ${latency} ms, ` +
      `parallelism ${parallelism}; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
  );
  const emulator = child("emulator");
  try {
    // The seed must be known before the emulator starts; its address before the files are written.
    const seed = writeChain(dir, stores, shape, "http://127.0.0.1:1", Number(values.rps), !values.flat);
    const { url } = await emulator.ask({ type: "start", seed, applyDelayMs: 20 });
    writeFileSync(config, readFileSync(config, "utf8").replace("http://127.0.0.1:1", url));

    const run = async (message) => child("carte", { config, parallelism, ...message }).first;

    if (values["save-plan"] || values["apply-saved"]) {
      await savedPlanFigures({
        dir,
        config,
        latency,
        run,
        emulator,
        views: values["save-plan"],
        apply: values["apply-saved"],
      });
      return;
    }

    // 2. Apply from empty.
    const applyLatency = values["skip-apply-timing"] ? 0 : latency;
    await emulator.ask({ type: "latency", ms: applyLatency });
    const empty = await run({ command: "apply" });
    const emptyCalls = await emulator.ask({ type: "take" });
    if (process.env.CARTE_BENCH_ROUTES) console.log(emptyCalls.byRoute);
    if (empty.failed > 0 || empty.pending > 0) throw new Error("the apply from empty did not converge");
    const emptyFloor = (emptyCalls.writes * applyLatency) / parallelism;
    console.log(
      `apply from empty          ${s(empty.applyMs)} (verification ${s(empty.verifyMs)}) for ${emptyCalls.writes} writes (plan ${empty.summary.operations} calls)` +
        (applyLatency > 0
          ? `; writes × latency ÷ parallelism ${s(emptyFloor)}: ${x(empty.applyMs, emptyFloor)}`
          : " (latency 0: setup)") +
        `; ${emptyCalls.reads.length} reads; CPU carte ${s(empty.planCpuMs)} (the whole run), emulator ${s(emptyCalls.cpuMs)}` +
        `; peak RSS ${empty.peakRssMiB.toFixed(0)} MiB`,
    );
    if (values["apply-only"]) return;
    await emulator.ask({ type: "latency", ms: latency });

    if (values["scope-changed"]) {
      // The chain committed, then one price of one store changed in the work tree.
      const git = (...args) =>
        execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.com", ...args], {
          cwd: dir,
        });
      git("init", "-q", "-b", "main");
      git("add", "-A");
      git("commit", "-q", "-m", "the chain");
      const storeFile = path.join(dir, "stores", "store-00000.yaml");
      const text = readFileSync(storeFile, "utf8");
      const changed = text.replace(/^( {4}ITEM-\d{4}: )20000$/m, "$120100");
      if (changed === text) throw new Error("no price to change in store-00000.yaml");
      writeFileSync(storeFile, changed);
      if (values.preview) {
        // `all` three times (the median is what docs/performance.md shows), each a fresh process that
        // plans against HEAD and writes the preview, as the Action's plan job does.
        for (const select of ["changed", "all", "all", "all"]) {
          const out = path.join(dir, `preview-${select}`);
          rmSync(out, { recursive: true, force: true });
          const p = await run({ command: "plan", base: "HEAD", preview: { out, select } });
          await emulator.ask({ type: "take" });
          const z = p.preview;
          console.log(
            `preview ${select.padEnd(7)}          ${z.stores} stores (${z.changes} changes), ${z.files} files: ` +
              `${(z.bytes / 1e6).toFixed(2)} MB of HTML (largest page ${(z.largest / 1e6).toFixed(2)} MB), ` +
              `zip ≈ ${(z.zipBytes / 1e6).toFixed(2)} MB; written in ${s(z.ms)}, zipped in ${s(z.zipMs)}; ` +
              `peak RSS of the preview step ${z.memory.peak.toFixed(0)} MiB (${z.memory.rssStart.toFixed(0)} MiB at ` +
              `its start, after the plan; heap ${z.memory.heapStart.toFixed(0)} → at most ${z.memory.heapPeak.toFixed(0)} MiB, ` +
              `external at most ${z.memory.externalPeak.toFixed(0)} MiB); the process's, plan included, ${p.peakRssMiB.toFixed(0)} MiB`,
          );
          const h = z.held;
          console.log(
            `  held after the preview: live heap ${h.live.toFixed(0)} MiB: the base's split ${h.base.toFixed(0)}, ` +
              `the project ${h.project.toFixed(0)}, the plan ${h.plan.toFixed(0)}, the rest ${h.rest.toFixed(0)} MiB`,
          );
        }
        // The preview of every store made by a process that does nothing else: the same change planned
        // and saved (`carte plan --out`), then `carte preview --plan FILE` through the CLI, three times.
        const planFile = path.join(`${dir}.preview-plan.json`);
        await cliRun(
          ["plan", "--config", config, "--parallelism", String(parallelism), "--out", planFile],
          dir,
        );
        await emulator.ask({ type: "take" });
        const runs = [];
        for (let k = 0; k < 3; k++) {
          const out = path.join(`${dir}.preview-cli`);
          rmSync(out, { recursive: true, force: true });
          const pv = await cliRun(["preview", "--config", config, "--plan", planFile, "--out", out], dir);
          const { readdirSync, statSync } = await import("node:fs");
          const pages = readdirSync(path.join(out, "stores"));
          const bytes =
            statSync(path.join(out, "index.html")).size +
            pages.reduce((n, f) => n + statSync(path.join(out, "stores", f)).size, 0);
          runs.push(pv);
          console.log(
            `carte preview --plan FILE ${pages.length + 1} files, ${(bytes / 1e6).toFixed(2)} MB of HTML; ` +
              `${s(pv.ms)} end to end, CPU ${s(pv.cpuMs)}; peak RSS ${pv.peakRssMiB.toFixed(0)} MiB`,
          );
          rmSync(out, { recursive: true, force: true });
        }
        console.log(
          `carte preview --plan FILE median of 3: ${s(median(runs.map((r) => r.ms)))}, ` +
            `peak RSS ${median(runs.map((r) => r.peakRssMiB)).toFixed(0)} MiB`,
        );
        rmSync(planFile, { force: true });
        return;
      }
      // Three runs: on a shared machine one run's time says little. Each is the CLI in its own process
      // (`node bin/carte.js plan --scope changed --base HEAD`), timed by /usr/bin/time: the CPU figure is
      // the whole process, its start, module loading and the git processes it waits for included.
      for (let k = 0; k < 3; k++) {
        const scoped = await cliRun(
          ["plan", "--config", config, "--parallelism", String(parallelism), "--base", "HEAD"].concat([
            "--scope",
            "changed",
            "--json",
          ]),
          dir,
        );
        const calls = await emulator.ask({ type: "take" });
        const plan = JSON.parse(scoped.stdout);
        const scope = plan.targeting?.scope;
        const changes = plan.summary.create + plan.summary.update + plan.summary.delete;
        if (k === 0 && scope)
          console.log(
            `  scope: ${scope.stores.length} of ${scope.of} stores, reads ${scope.reads.join(", ")}`,
          );
        console.log(
          `scoped plan (1 price)     ${s(scoped.ms)} end to end, CPU ${s(scoped.cpuMs)} (process start, both commits ` +
            `loaded, git included); ${calls.reads.length} reads (minimum 1: the store's menu) + ${calls.logins} logins, ` +
            `${calls.writes} writes; ${changes} change; peak RSS ${scoped.peakRssMiB.toFixed(0)} MiB; load average ${loadavg()[0].toFixed(1)}`,
        );
        if (process.env.CARTE_BENCH_ROUTES) console.log(calls.byRoute);
      }
      return;
    }

    // 3. No-change plan, then the minimal reader making the same reads, each after a full collection
    // of the emulator's garbage (see step 3 in the header).
    const collect = async () => {
      await emulator.ask({ type: "gc" });
      await emulator.ask({ type: "take" });
    };
    // --repeat N: the pair N times on the same emulator (the 5,000-store setup alone takes minutes).
    for (let k = 1; k <= repeat; k++) {
      if (repeat > 1) console.log(`run ${k} of ${repeat}`);
      await collect();
      const plan = await run({ command: "plan" });
      const planCalls = await emulator.ask({ type: "take" });
      if (plan.summary.create + plan.summary.update + plan.summary.delete !== 0)
        throw new Error("the no-change plan has changes");
      const minimumReads = stores * 4 + Math.ceil(stores / 100) + 2; // menu + 3 store schedule reads; status; 2 webhook lists
      await collect();
      const reader = await child("reader", { url, parallelism, reads: planCalls.reads }).first;
      const readerCalls = await emulator.ask({ type: "take" });
      const bound = (planCalls.reads.length * latency) / parallelism;
      console.log(
        `no-change plan            ${s(plan.planMs)} (CPU ${s(plan.planCpuMs)}; load ${s(plan.loadMs)} apart); ${planCalls.reads.length} reads + ` +
          `${planCalls.logins} logins (minimum ${minimumReads} + 2), ${planCalls.writes} writes; peak RSS ${plan.peakRssMiB.toFixed(0)} MiB; ` +
          `emulator CPU ${s(planCalls.cpuMs)} (loading included; collecting garbage ${s(planCalls.gcMs)})`,
      );
      console.log(
        `minimal reader            ${s(reader.ms)} (CPU ${s(reader.cpuMs)}); ${(reader.bytes / MiB).toFixed(0)} MiB of answers; peak RSS ${reader.peakRssMiB.toFixed(0)} MiB; ` +
          `emulator CPU ${s(readerCalls.cpuMs)} (collecting garbage ${s(readerCalls.gcMs)})`,
      );
      console.log(
        `  carte ÷ reader ${x(plan.planMs, reader.ms)}; carte ÷ latency bound (${s(bound)}) ${x(plan.planMs, bound)}; ` +
          `reader ÷ latency bound ${x(reader.ms, bound)}`,
      );
    }
    if (values.cli) {
      // `carte plan` end to end, then `carte plan --json` (with the checksums it carries), each in its
      // own process: wall time and the process's CPU time (user + system, from its resource usage).
      const cli = async (extra) => {
        const started = performance.now();
        const cpuFile = path.join(dir, "cli-cpu.txt");
        await new Promise((resolve, reject) => {
          const proc = fork(
            path.join(root, "bin", "carte.js"),
            ["plan", "--config", config, "--quiet", "--parallelism", String(parallelism), ...extra],
            {
              stdio: ["ignore", "ignore", "inherit", "ipc"],
              env: { ...process.env, ...CREDENTIALS, BENCH_CPU_FILE: cpuFile },
              execArgv: ["--import", "data:text/javascript," + encodeURIComponent(CLI_CPU_HOOK)],
            },
          );
          proc.once("exit", (code) =>
            code === 0 ? resolve() : reject(new Error(`carte plan ${extra.join(" ")} exited ${code}`)),
          );
        });
        const cpuMs = Number(readFileSync(cpuFile, "utf8"));
        await emulator.ask({ type: "take" });
        return { ms: performance.now() - started, cpuMs };
      };
      const text = await cli([]);
      const json = await cli(["--json"]);
      console.log(
        `carte plan (CLI)          ${s(text.ms)} end to end (CPU ${s(text.cpuMs)}), process start and loading included`,
      );
      console.log(
        `carte plan --json (CLI)   ${s(json.ms)} end to end (CPU ${s(json.cpuMs)}): ${x(json.ms, text.ms)} the text plan (CPU ${x(json.cpuMs, text.cpuMs)})`,
      );
    }

    if (values["plan-only"]) return;

    // 4. A 1 % change of the shared catalog: saved plan, then applied from the file.
    const bump = new Set(
      Array.from({ length: Math.max(1, Math.round(entries / 100)) }, (_, k) =>
        itemSku((k * 37) % shape.items),
      ),
    );
    writeFileSync(path.join(dir, "catalogs", "bench.yaml"), catalogYaml(shape, bump, !values.flat));
    const planFile = path.join(dir, "plan.json");
    const saved = await run({ command: "plan", out: planFile });
    await emulator.ask({ type: "take" });
    const applied = await run({ command: "apply", planFile });
    const changeCalls = await emulator.ask({ type: "take" });
    if (applied.failed > 0 || applied.pending > 0) throw new Error("the 1 % change did not converge");
    console.log(
      `1 % change (${bump.size} prices)    plan --out ${s(saved.planMs)}; apply FILE ${s(applied.runMs)} (calls and verification ` +
        `${s(applied.applyMs)}); ${changeCalls.writes} writes (minimum ${stores}); ` +
        `${(changeCalls.writeBytes / MiB).toFixed(2)} MiB = 1/${Math.round(emptyCalls.catalogWriteBytes / changeCalls.writeBytes)} ` +
        `of a full store-menu upload (${(emptyCalls.catalogWriteBytes / MiB).toFixed(1)} MiB)`,
    );

    // 5. The pure planner.
    if (plannerResources > 0) {
      const p = await child("planner", { config, resources: plannerResources }).first;
      console.log(
        `pure planner              ${p.resources} resources (${p.stores} stores): no change ${s(p.noChangeMs)} ` +
          `(CPU ${s(p.noChangeCpuMs)}), 1 % changed ${s(p.changeMs)} (CPU ${s(p.changeCpuMs)}; ${p.changes} changes); peak RSS ${p.peakRssMiB.toFixed(0)} MiB`,
      );
    }
  } finally {
    await emulator.ask({ type: "close" }).catch(() => emulator.proc.kill());
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * --save-plan: the plan from empty of the whole chain saved as one file, read back (median of 3), shown
 * and previewed through the CLI, and with `apply` applied from the file.
 */
async function savedPlanFigures({ dir, config, latency, run, emulator, views, apply }) {
  const { statSync } = await import("node:fs");
  await emulator.ask({ type: "latency", ms: latency });
  const planFile = path.join(dir, "plan.json");
  const saved = await run({ command: "plan", out: planFile });
  await emulator.ask({ type: "take" });
  const bytes = statSync(planFile).size;
  if (process.env.CARTE_BENCH_KEEP_PLAN) copyFileSync(planFile, process.env.CARTE_BENCH_KEEP_PLAN);
  const changes = saved.summary.create + saved.summary.update + saved.summary.delete;
  console.log(
    `plan from empty --out     ${(bytes / MiB).toFixed(1)} MiB (${(bytes / 1e6).toFixed(1)} MB, ` +
      `${Math.round(bytes / Math.max(1, saved.summary.stores))} bytes a store); ${changes} changes, ` +
      `${saved.summary.operations} calls; plan ${s(saved.planMs)}, save ${s(saved.saveMs)}; peak RSS ${saved.peakRssMiB.toFixed(0)} MiB`,
  );
  if (views) await viewFigures({ dir, config, planFile });
  if (!apply) return;
  const applied = await run({ command: "apply", planFile });
  const calls = await emulator.ask({ type: "take" });
  if (applied.failed > 0 || applied.pending > 0)
    throw new Error("the apply of the saved plan did not converge");
  console.log(
    `carte apply FILE          ${s(applied.runMs)} (calls and verification ${s(applied.applyMs)}); ` +
      `${calls.writes} writes; peak RSS ${applied.peakRssMiB.toFixed(0)} MiB`,
  );
}

/** --save-plan: the saved plan read (median of 3), then shown and previewed through the CLI. */
async function viewFigures({ dir, config, planFile }) {
  const reads = [];
  for (let k = 0; k < 3; k++) reads.push(await child("load", { planFile }).first);
  console.log(
    `read the saved plan       apply's read ${s(median(reads.map((r) => r.applyReadMs)))}, show's read ` +
      `${s(median(reads.map((r) => r.showReadMs)))} (median of 3); peak RSS ${median(reads.map((r) => r.peakRssMiB)).toFixed(0)} MiB`,
  );
  // A step that fails (out of memory, say) is reported, and the next still runs.
  const attempt = async (name, step) => {
    try {
      await step();
    } catch (err) {
      console.log(
        `${name.padEnd(25)} failed: ${String(err?.message ?? err)
          .split("\n")
          .slice(0, 3)
          .join(" ")}`,
      );
    }
  };
  await attempt("carte show FILE (CLI)", async () => {
    const shows = [];
    for (let k = 0; k < 3; k++) shows.push(await cliRun(["show", planFile], dir));
    console.log(
      `carte show FILE (CLI)     ${s(median(shows.map((r) => r.ms)))} end to end (median of 3), ` +
        `${(shows[0].stdout.length / 1e3).toFixed(0)} kB of text; peak RSS ${median(shows.map((r) => r.peakRssMiB)).toFixed(0)} MiB`,
    );
  });
  await attempt("carte preview --plan FILE", async () => {
    const pv = await cliRun(
      ["preview", "--config", config, "--plan", planFile, "--out", path.join(dir, "preview")],
      dir,
    );
    rmSync(path.join(dir, "preview"), { recursive: true, force: true });
    console.log(`carte preview --plan FILE ${s(pv.ms)} end to end; peak RSS ${pv.peakRssMiB.toFixed(0)} MiB`);
  });
}

/** Child: reads a saved plan as `carte apply FILE` and as `carte show FILE` do, each timed. */
async function loadChild() {
  process.once("message", async (m) => {
    try {
      const { readPlanFile, readPlanToShow } = await import(dist("plan/file.js"));
      // One plan in memory at a time, as in a run: each read's plan is dropped before the next.
      let started = performance.now();
      const changes = (await readPlanFile(m.planFile)).changes.length;
      const applyReadMs = performance.now() - started;
      started = performance.now();
      const shown = await readPlanToShow(m.planFile);
      const showReadMs = performance.now() - started;
      if (!shown.digestMatches || shown.plan.changes.length !== changes)
        throw new Error("the two reads of the saved plan differ");
      reply({ applyReadMs, showReadMs, peakRssMiB: peakRssMiB() });
    } catch (err) {
      reply({ error: String(err?.stack ?? err) });
    }
  });
}

const childMode = process.argv.indexOf("--child");
if (childMode !== -1) {
  const mode = process.argv[childMode + 1];
  await {
    emulator: emulatorChild,
    carte: carteChild,
    reader: readerChild,
    planner: plannerChild,
    load: loadChild,
  }[mode]();
} else {
  await main();
}
