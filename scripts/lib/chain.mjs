// What the benchmarks share: their client's credentials, their options, and a chain of N stores
// (scripts/bench-checkouts.mjs, scripts/bench-chaos.mjs): the
// example chain's three store files repeated with new ids and integration ids, in a new folder, and the
// duplicates of every kind a platform shows in its stores.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { kinds } from "../../dist/kinds/registry.js";
import { clientReadKinds, fetchCurrent, readRequests } from "../../dist/state/current.js";

export const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));

/** The credentials of the benchmarks' emulator client, in the environment carte reads them from. */
export const BENCH_ENV = { CARTE_CLIENT_ID: "bench", CARTE_CLIENT_SECRET: "bench-secret-0123456789" };

/** The value after `--NAME` on the command line, else `dflt`. */
export function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
}

/**
 * The example chain with `n` stores (store-001 … with ids 700001 …), copied into a new temporary
 * folder whose name starts with `prefix`; returns the folder and the stores for an emulator's seed.
 */
export function chain(n, prefix = "carte-bench-chain-") {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  cpSync(path.join(root, "examples", "chain"), dir, { recursive: true });
  rmSync(path.join(dir, ".carte"), { recursive: true, force: true });
  const templates = readdirSync(path.join(dir, "stores"))
    .sort()
    .map((f) => readFileSync(path.join(dir, "stores", f), "utf8"));
  rmSync(path.join(dir, "stores"), { recursive: true });
  mkdirSync(path.join(dir, "stores"));
  const stores = [];
  for (let i = 0; i < n; i++) {
    const key = `store-${String(i + 1).padStart(3, "0")}`;
    const id = String(700001 + i);
    const text = templates[i % templates.length]
      .replace(/^(\s*id:\s*)\d+/m, `$1${id}`)
      .replace(/^(\s*integration_id:\s*).*$/m, `$1${key}`);
    writeFileSync(path.join(dir, "stores", `${key}.yaml`), text);
    stores.push({ id, integration_id: key, name: key });
  }
  return { dir, stores };
}

/** Every duplicate of any kind the platform shows in the project's stores, as `store kind key`. */
export async function duplicatesOnPlatform(client, project) {
  const current = await fetchCurrent(client, readRequests(project.desired, project.ownership), {
    parallelism: 8,
    clientKinds: clientReadKinds(project.desired, project.ownership),
  });
  const out = [];
  for (const [store, state] of Object.entries(current.stores))
    for (const kind of kinds)
      for (const key of Object.keys(kind.duplicates?.(state) ?? {})) out.push(`${store} ${kind.name} ${key}`);
  return out;
}
