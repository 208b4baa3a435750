// `npm run check`: runs every check step in order and stops at the first that fails, naming it, so a
// red check says which step to rerun (`npm run <step>`). Extra arguments are passed to vitest.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** [name, command, args]: each step is an npm script, except the tests (the build already ran). */
const steps = [
  ["build", npm, ["run", "build"]],
  ["gen:check", npm, ["run", "gen:check"]],
  ["typecheck", npm, ["run", "typecheck"]],
  ["lint", npm, ["run", "lint"]],
  ["format:check", npm, ["run", "format:check"]],
  ["deps", npm, ["run", "deps"]],
  ["unused", npm, ["run", "unused"]],
  ["lint:openapi", npm, ["run", "lint:openapi"]],
  ["check:refs", npm, ["run", "check:refs"]],
  ["long-functions", npm, ["run", "long-functions"]],
  ["check:action", npm, ["run", "check:action"]],
  ["tests", "npx", ["vitest", "run", ...process.argv.slice(2)]],
];

for (const [i, [name, command, args]] of steps.entries()) {
  console.log(`\n── check ${i + 1}/${steps.length}: ${name} (${command} ${args.join(" ")})`);
  const started = Date.now();
  const r = spawnSync(command, args, { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status !== 0) {
    const why = r.error ? r.error.message : r.signal ? `signal ${r.signal}` : `exit code ${r.status}`;
    console.error(`\n✗ npm run check: step "${name}" failed (${why}, ${seconds}s).`);
    console.error(`  Rerun it alone: ${command} ${args.join(" ")}`);
    process.exit(r.status || 1);
  }
  console.log(`✓ ${name} (${seconds}s)`);
}
console.log(`\n✓ npm run check: all ${steps.length} steps passed.`);
