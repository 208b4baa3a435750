// Compiles JSON Schemas into validation functions ahead of time (ajv's standalone code), so that carte
// neither compiles them at start nor while it reads the platform. Run by `npm run build`, after tsc.
//
// - schemas/config/ → dist/config/validators.cjs: src/config/validate.ts uses the file when it was
//   compiled from the schemas it reads, and compiles them itself otherwise.
// - schemas/platform/ → dist/platform/validators.cjs: the first step of the client's check of every
//   answer (src/platform/schemas.ts), for the response definition of each route of the route table
//   (src/platform/routes.ts); used on the same condition.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = (...p) => path.join(root, "dist", ...p);

const { validatorsModule } = await import(dist("config", "validate.js"));
const config = dist("config", "validators.cjs");
writeFileSync(config, validatorsModule());
console.log(`wrote ${path.relative(root, config)}`);

const { answerVerdictsModule } = await import(dist("platform", "schemas.js"));
const { ROUTES } = await import(dist("platform", "routes.js"));
const responses = [...new Set(Object.values(ROUTES).flatMap((r) => (r.response ? [r.response] : [])))].sort();
const platform = dist("platform", "validators.cjs");
writeFileSync(platform, answerVerdictsModule(responses));
console.log(`wrote ${path.relative(root, platform)} (${responses.length} answer definitions)`);
