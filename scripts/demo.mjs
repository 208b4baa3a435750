// The demo: applies the bundled example chain to the embedded emulator from scratch, then plans
// again and expects no changes. Run with `npm run demo`.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const config = path.join("examples", "chain", "carte.yaml");
const carte = path.join(root, "bin", "carte.js");

function run(title, args) {
  console.log(`\n$ carte ${args.join(" ")}    # ${title}\n`);
  const r = spawnSync(process.execPath, [carte, ...args], { cwd: root, stdio: "inherit" });
  return r.status ?? 1;
}

// Start from empty stores: the embedded emulator keeps its state next to the config.
rmSync(path.join(root, "examples", "chain", ".carte"), { recursive: true, force: true });

if (run("apply the chain to empty stores", ["apply", "--auto-approve", "-c", config]) !== 0) process.exit(1);
const code = run("plan again: the platform now matches the files", [
  "plan",
  "--detailed-exitcode",
  "-c",
  config,
]);
if (code !== 0) {
  console.error(`\ndemo failed: the second plan was not empty (exit ${code})`);
  process.exit(1);
}
// Success: the last line printed is the second plan's "No changes. The platform matches the configuration."
