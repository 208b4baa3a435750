/** Entry point of the GitHub Action (action.yml runs `node dist/action/index.js`). */

import { runAction } from "./main.js";

runAction().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`carte action: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
