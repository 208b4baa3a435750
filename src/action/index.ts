/**
 * Entry point of the GitHub Action: action.yml runs the bundle of this module (`node
 * dist-action/index.js`), which runs the Action. It also exports `run()`, for GitHub's local runner of
 * actions (`npx @github/local-action run . src/action/index.ts .env`), which imports the entry and calls
 * the `run()` it exports: imported rather than run, this module runs nothing by itself, so the Action
 * runs once.
 */

import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { run } from "./main.js";

export { run };

/** Whether this module is the program Node was started with (`node dist-action/index.js`). */
function isProgram(): boolean {
  const started = process.argv[1];
  if (!started) return false;
  try {
    return realpathSync(started) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isProgram()) void run();
