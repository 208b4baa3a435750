// Compiles the JSON Schemas of schemas/config/ into validation functions ahead of time (ajv's standalone
// code), into dist/config/validators.cjs, so that carte starts without compiling them (src/config/validate.ts
// uses the file when it was compiled from the schemas it reads, and compiles them itself otherwise).
// Run by `npm run build`, after tsc.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { validatorsModule } = await import(path.join(root, "dist", "config", "validate.js"));
const out = path.join(root, "dist", "config", "validators.cjs");
writeFileSync(out, validatorsModule());
console.log(`wrote ${path.relative(root, out)}`);
