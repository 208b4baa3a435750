#!/usr/bin/env node
// The CLI as one bundled module (scripts/build-cli.mjs, written by `npm run build`), or, when only tsc
// has built dist/, its modules as tsc wrote them: the same code, slower to start.
import { existsSync } from "node:fs";

const bundle = new URL("../dist/cli/carte.mjs", import.meta.url);
await import(existsSync(bundle) ? bundle.href : "../dist/cli/main.js");
