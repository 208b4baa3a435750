// `npm run deps:chain`: the longest import chain of src/, as dependency-cruiser sees it (type-only and
// dynamic imports included, the rules of .dependency-cruiser.mjs applied), printed module by module.
// A long chain is a deep stack of layers a change at its bottom ripples through; `npm run deps` keeps
// the graph free of cycles, so the longest path is well defined.
//   node scripts/import-chain.mjs [--max N] [--json FILE]
//     --max N      fail (exit 1) when the chain has more than N hops
//     --json FILE  read dependency-cruiser's JSON output from FILE instead of running it
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const valueOf = (name) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};
const maxText = valueOf("--max");
const max = maxText === undefined ? undefined : Number(maxText);
if (max !== undefined && (!Number.isInteger(max) || max < 0)) {
  console.error("--max takes a whole number of hops");
  process.exit(2);
}
const jsonFile = valueOf("--json");

/** dependency-cruiser's module list for src/, from --json or from a run of it. */
function cruise() {
  if (jsonFile !== undefined) return JSON.parse(readFileSync(jsonFile, "utf8"));
  const bin = path.join(root, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");
  const out = execFileSync(
    process.execPath,
    [bin, "src", "--config", ".dependency-cruiser.mjs", "--output-type", "json"],
    { cwd: root, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
  );
  return JSON.parse(out);
}

/** The imports of each module of src/, to modules of src/. */
const imports = new Map();
for (const module of cruise().modules) {
  if (!module.source.startsWith("src/")) continue;
  const targets = module.dependencies.map((d) => d.resolved).filter((r) => r.startsWith("src/"));
  imports.set(module.source, [...new Set(targets)]);
}

/** The longest chain starting at each module (memoised; a cycle is reported, not followed). */
const longest = new Map();
const open = new Set();
function chainFrom(module) {
  const known = longest.get(module);
  if (known) return known;
  if (open.has(module)) throw new Error(`import cycle through ${module}: run npm run deps`);
  open.add(module);
  let best = [module];
  for (const target of imports.get(module) ?? []) {
    const chain = chainFrom(target);
    if (chain.length + 1 > best.length) best = [module, ...chain];
  }
  open.delete(module);
  longest.set(module, best);
  return best;
}

let best = [];
for (const module of [...imports.keys()].sort()) {
  const chain = chainFrom(module);
  if (chain.length > best.length) best = chain;
}
const hops = Math.max(best.length - 1, 0);
console.log(`The longest import chain of src/: ${hops} hops`);
console.log(best.map((m, i) => `${String(i).padStart(4)}  ${m}`).join("\n"));
if (max !== undefined && hops > max) {
  console.error(`longer than ${max} hops`);
  process.exit(1);
}
