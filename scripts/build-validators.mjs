// Compiles JSON Schemas into validation functions ahead of time (ajv's standalone code), so that carte
// starts without compiling them: the schemas of schemas/config/ into dist/config/validators.cjs
// (src/config/validate.ts uses the file when it was compiled from the schemas it reads, and compiles them
// itself otherwise), and, for each definition of schemas/platform/ a route answers with, its open reading
// into dist/platform/answers/NAME.cjs (src/platform/schemas.ts, likewise). Run by `npm run build`, after
// tsc.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { validatorsModule } = await import(path.join(root, "dist", "config", "validate.js"));
const out = path.join(root, "dist", "config", "validators.cjs");
writeFileSync(out, validatorsModule());
console.log(`wrote ${path.relative(root, out)}`);

const { ROUTE_NAMES, routeSpec } = await import(path.join(root, "dist", "platform", "routes.js"));
const { answerValidatorModules } = await import(path.join(root, "dist", "platform", "schemas.js"));
const answers = path.join(root, "dist", "platform", "answers");
mkdirSync(answers, { recursive: true });
const names = [...new Set(ROUTE_NAMES.map((r) => routeSpec(r).response).filter((n) => n !== undefined))];
for (const [name, source] of answerValidatorModules(names))
  writeFileSync(path.join(answers, `${name}.cjs`), source);
console.log(`wrote ${names.length} validators into ${path.relative(root, answers)}/`);
