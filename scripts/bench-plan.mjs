// Benchmark: plan and apply for a chain of many stores against the emulator on loopback.
// Usage: npm run bench:plan [-- STORES [REQUESTS_PER_SECOND]]
//   default 300 stores sharing the example catalog, paced at 1000 requests/s so that carte itself is
//   measured (a real platform is paced at 50/s by default: platform.requests_per_second).
// Prints wall times, API calls and peak memory; stops by itself.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadProject } from "../dist/config/index.js";
import { startEmulator } from "../dist/emulator/index.js";
import { openSession } from "../dist/session.js";
import { applyPlan, planProject } from "../dist/workflow.js";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const stores = Number(process.argv[2] ?? 300);
const rps = Number(process.argv[3] ?? 1000);
const dir = mkdtempSync(path.join(tmpdir(), "carte-bench-"));
// The example chain's catalogs, groups, shared files and defaults, with many stores instead of three.
for (const sub of ["catalogs", "groups", "shared"]) {
  cpSync(path.join(root, "examples", "chain", sub), path.join(dir, sub), { recursive: true });
}
const template = readFileSync(path.join(root, "examples", "chain", "stores", "bog-centro.yaml"), "utf8");
const seedStores = [];
for (let i = 0; i < stores; i++) {
  const key = `store-${String(i).padStart(4, "0")}`;
  const id = String(1_000_000 + i);
  const text = template
    .replace(/^(\s*id:\s*).*$/m, `$1${id}`)
    .replace(/^(\s*integration_id:\s*).*$/m, `$1${key}`)
    .replace(/^(\s*name:\s*).*$/m, `$1Store ${i}`);
  writeFileSync(path.join(dir, `${key}.yaml`), text);
  seedStores.push({ id, integration_id: key, name: `Store ${i}` });
}
const env = { CARTE_CLIENT_ID: "bench", CARTE_CLIENT_SECRET: "bench-secret" };
const emu = await startEmulator({
  port: 0,
  applyDelayMs: 20,
  seed: {
    clients: [{ client_id: env.CARTE_CLIENT_ID, client_secret: env.CARTE_CLIENT_SECRET, stores: seedStores }],
  },
});
const example = readFileSync(path.join(root, "examples", "chain", "carte.yaml"), "utf8");
writeFileSync(
  path.join(dir, "carte.yaml"),
  example
    .replace(/^version: 1$/m, `version: 1\nplatform:\n  base_url: ${emu.url}\n  requests_per_second: ${rps}`)
    .replace(/^stores: .*$/m, "stores: store-*.yaml")
    .replace(/^emulator:\n( {2}.*\n)*/m, ""),
);

let peak = 0;
const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
const time = async (label, fn) => {
  const t = performance.now();
  const out = await fn();
  console.log(`${label.padEnd(34)} ${((performance.now() - t) / 1000).toFixed(2)} s`);
  return out;
};
try {
  const project = await time(`load ${stores} store files`, () => loadProject(path.join(dir, "carte.yaml")));
  const session = await openSession(project, { env });
  // Reads made with POST (store and item status) are not writes.
  const isRead = (r) =>
    r.method === "GET" ||
    r.path.includes("/token/") ||
    (r.method === "POST" && (r.path.endsWith("/availability/stores") || r.path.endsWith("/status")));
  const calls = () => emu.requests.filter((r) => !isRead(r)).length;
  const first = await time("plan from empty stores", () =>
    planProject(project, session, { parallelism: 16 }),
  );
  console.log(`  ${first.plan.summary.create} creates, ${first.plan.summary.operations} API calls planned`);
  await time("apply from empty stores", () => applyPlan(first.plan, session, { parallelism: 16 }));
  console.log(`  ${calls()} write calls made`);
  emu.clearRequests();
  const again = await time("plan with nothing to do", () =>
    planProject(project, session, { parallelism: 16 }),
  );
  console.log(
    `  ${again.plan.changes.length} changes; ${emu.requests.filter(isRead).length} reads ` +
      `(menu, hours, holidays and special days per store; store status 100 stores a call; webhooks once)`,
  );
  await session.close();
} finally {
  clearInterval(sample);
  console.log(`peak RSS ${(peak / 1024 / 1024).toFixed(0)} MiB`);
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
}
