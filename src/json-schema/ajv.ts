/**
 * ajv, the JSON Schema compiler, and the two companions carte uses with it (ajv-formats' formats,
 * ajv's standalone code generator), in one place: the configuration schemas (src/config/validate.ts)
 * and the platform's (src/platform/schemas.ts) are compiled through {@link ajvParts}. It sits in
 * src/json-schema, below both, so that the platform's answer checks need nothing of the config loader.
 *
 * Only compiling a schema needs ajv: a run of the CLI checks files and answers with the validators
 * compiled at build time (dist/config/validators.cjs, dist/platform/validators.cjs), which need ajv's
 * small runtime helpers only. The CLI's bundle (scripts/build-cli.mjs) therefore holds this module in
 * another form, which evaluates ajv on the first call of {@link ajvParts} instead of at every start of
 * `carte`; as tsc writes it (the library, the Action's bundle), ajv is imported with this module.
 */

import { _, Ajv } from "ajv";
import standaloneModule from "ajv/dist/standalone/index.js";
import addFormatsModule from "ajv-formats";

/** What carte uses of ajv. */
export interface AjvParts {
  /** ajv's class (draft-07 schemas). */
  Ajv: typeof Ajv;
  /** ajv's tagged template for generated code (`_\`carteFormats\``). */
  _: typeof _;
  /** ajv's standalone code: the CommonJS source of validators for the schemas `refs` names (export → `$ref`). */
  standaloneCode: (ajv: Ajv, refs: Record<string, string>) => string;
  /** ajv-formats: adds the formats of JSON Schema (`date-time`, `uri`, `email`…) to an instance. */
  addFormats: (ajv: Ajv) => Ajv;
}

/** A CommonJS module's export, whether or not its namespace arrives wrapped (`{ default }`) under NodeNext. */
const unwrapped = <T>(m: unknown): T => ((m as { default?: unknown }).default ?? m) as T;

/** ajv and its companions (see the module comment). */
export function ajvParts(): AjvParts {
  return {
    Ajv,
    _,
    standaloneCode: unwrapped(standaloneModule),
    addFormats: unwrapped(addFormatsModule),
  };
}
