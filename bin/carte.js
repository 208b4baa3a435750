#!/usr/bin/env node
// The CLI as one bundled module (scripts/build-cli.mjs, written by `npm run build`), or, when only tsc
// has built dist/, its modules as tsc wrote them: the same code, slower to start.
import { existsSync } from "node:fs";
import module from "node:module";
import { fileURLToPath } from "node:url";

const bundle = new URL("../dist/cli/carte.mjs", import.meta.url);
// Node.js 22.1 and later keep the code V8 compiled from the bundle between runs: a start then does not
// compile its three megabytes again. The cache lies beside the bundle (dist/cli/.compile-cache/), written
// only by whoever may write the installation, not in a shared temporary folder; where it cannot be
// written, carte runs without it. NODE_COMPILE_CACHE, when set, has Node.js use that folder instead.
// Older Node.js versions have no such cache and go without.
if (typeof module.enableCompileCache === "function" && existsSync(bundle)) {
  module.enableCompileCache(
    process.env.NODE_COMPILE_CACHE
      ? undefined
      : fileURLToPath(new URL("../dist/cli/.compile-cache/", import.meta.url)),
  );
}
await import(existsSync(bundle) ? bundle.href : "../dist/cli/main.js");
