/**
 * The platform's wire shapes, `schemas/platform/*.schema.json`, compiled with ajv: read once per
 * process on first use, each definition compiled when it is first asked for and then cached, never per
 * call. The route table (routes.ts) names the definition of each route's request and answer; the same
 * files are read two ways:
 *
 * - **as written** ({@link platformSchemas}): the emulator checks the requests it gets with it
 *   (src/emulator/validate.ts) and the conformance suite the answers it sends, so that where a schema
 *   says `additionalProperties: false` a field the spec does not describe is refused;
 * - **open** ({@link answerProblems}): how the client reads the platform's answers. The same
 *   definitions with every `additionalProperties: false` lifted: a field the platform adds and carte
 *   does not read is no reason to refuse its answer (the platform may grow fields without telling), while
 *   the type of every field the schemas name, and so of every field carte reads, is checked as written.
 *   Every problem is collected, so that a message can list the first few.
 *
 * The definitions are unique across the files (scripts/gen-types.mjs checks it), so a definition is
 * named by its bare name (`StoreMenu`), as `PlatformSchemaName` spells it.
 */

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv } from "ajv";
import type { AnySchemaObject, ErrorObject, ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import standaloneModule from "ajv/dist/standalone/index.js";

import { InternalError } from "../errors.js";
import type { PlatformSchemaName } from "../generated/platform.js";

// ajv-formats is CommonJS with a default export; under NodeNext its namespace may arrive wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;
// ajv's standalone code is CommonJS with a default export too.
const standaloneCode = ((standaloneModule as unknown as { default?: unknown }).default ??
  standaloneModule) as unknown as (ajv: Ajv, refsOrFunc?: Record<string, string>) => string;

/** The files of schemas/platform/, without `.schema.json`. */
export const PLATFORM_SCHEMA_FILES = [
  "common",
  "auth",
  "menu",
  "availability",
  "utils",
  "finance",
  "webhooks",
] as const;

/** `$id` prefix of the platform schemas. */
export const PLATFORM_SCHEMA_BASE = "https://carte.dev/schemas/platform/";

/**
 * Formats the platform schemas use beyond ajv-formats: the menu API's `HH:MM` (platform notes "Store
 * menu API") and the utils group's `HH:mm:ss` (spec §2.5, §2.6).
 */
export const TIME_FORMATS = {
  "time-hh-mm": /^([01]\d|2[0-3]):[0-5]\d$/,
  "time-hh-mm-ss": /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/,
} as const;

/**
 * Keywords of the platform schemas that only annotate: `x-carte-assumption`, a choice carte makes where
 * the spec is silent, carried into the published description (docs/openapi.yaml).
 */
export const ANNOTATIONS = ["x-carte-assumption"] as const;

type Schema = AnySchemaObject;

/** The compiled platform schemas of this process, in one of the two readings. */
export interface PlatformSchemaSet {
  /** The ajv instance holding every file of schemas/platform/ (draft-07, formats added). */
  ajv: Ajv;
  /** Definition name → its schema (as written) and file (names are unique across the files). */
  definitions: ReadonlyMap<string, { file: string; schema: Schema }>;
  /** The (cached) validator of a definition. Throws on an unknown name. */
  validator(name: PlatformSchemaName | string): ValidateFunction;
}

/** The files as written, read once: file name (without `.schema.json`) → its schema. */
let files: ReadonlyMap<string, Schema> | undefined;
/** The SHA-256 (hex) of the files' text, in the order of {@link PLATFORM_SCHEMA_FILES}. */
let filesDigest: string | undefined;

/** Reads schemas/platform/ once (two folders up from both src/platform and dist/platform). */
function schemaFiles(): ReadonlyMap<string, Schema> {
  if (files) return files;
  const out = new Map<string, Schema>();
  const hash = createHash("sha256");
  for (const file of PLATFORM_SCHEMA_FILES) {
    const url = new URL(`../../schemas/platform/${file}.schema.json`, import.meta.url);
    const text = readFileSync(url, "utf8");
    hash.update(`${file}\0${text}\0`);
    out.set(file, JSON.parse(text) as Schema);
  }
  filesDigest = hash.digest("hex");
  return (files = out);
}

/**
 * The SHA-256 (hex) of the files of schemas/platform/ as read: a validator compiled at build time
 * ({@link answerValidatorModule}) is used only when it was compiled from these very files.
 */
export function platformSchemaDigest(): string {
  schemaFiles();
  return filesDigest!;
}

/** Every definition of the files as written, by name. */
function definitionsOf(all: ReadonlyMap<string, Schema>): Map<string, { file: string; schema: Schema }> {
  const out = new Map<string, { file: string; schema: Schema }>();
  for (const [file, schema] of all) {
    for (const [name, def] of Object.entries((schema.definitions ?? {}) as Record<string, Schema>)) {
      out.set(name, { file, schema: def });
    }
  }
  return out;
}

/**
 * An ajv instance over every file, each passed through `shape` first, with a cache of one validator per
 * definition (compiled on first use).
 */
function compileSet(
  allErrors: boolean,
  shape: (schema: Schema) => Schema,
  source = false,
): PlatformSchemaSet {
  // strictRequired off: `anyOf: [{required: [a]}, {required: [b]}]` names properties defined beside it.
  const ajv = new Ajv({
    allErrors,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    verbose: true,
    // ajv's pass that trims the generated code costs most of the compile time of these schemas, and a
    // validator compiled without it validates as fast within a few percent (every test process compiles).
    // `source`: each compiled function keeps its code, for standalone modules (compiled once, at build
    // time: there the pass is kept).
    code: source ? { source: true } : { optimize: false },
  });
  addFormats(ajv);
  for (const [name, re] of Object.entries(TIME_FORMATS)) ajv.addFormat(name, re);
  ajv.addVocabulary([...ANNOTATIONS]);
  const all = schemaFiles();
  for (const schema of all.values()) ajv.addSchema(shape(schema));
  const definitions = definitionsOf(all);
  const cache = new Map<string, ValidateFunction>();
  return {
    ajv,
    definitions,
    validator(name) {
      let v = cache.get(name);
      if (!v) {
        const def = definitions.get(name);
        if (!def) throw new InternalError(`schemas/platform/ has no definition ${name}`);
        v = ajv.getSchema(`${PLATFORM_SCHEMA_BASE}${def.file}.schema.json#/definitions/${name}`);
        if (!v) throw new InternalError(`ajv could not compile definition ${name}`);
        cache.set(name, v);
      }
      return v;
    },
  };
}

let asWritten: PlatformSchemaSet | undefined;

/**
 * The platform schemas as written (first problem only, `allErrors: false`): the emulator's request
 * checks and the conformance suite. Compiled once per process.
 */
export function platformSchemas(): PlatformSchemaSet {
  return (asWritten ??= compileSet(false, (s) => s));
}

/**
 * A copy of a schema with every `additionalProperties: false` left out. (No property of the platform
 * schemas is itself named `additionalProperties`, so the key always is the keyword.)
 */
function opened(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(opened);
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node).flatMap(([key, value]) =>
      key === "additionalProperties" && value === false ? [] : [[key, opened(value)]],
    ),
  );
}

let open: PlatformSchemaSet | undefined;

/** The open reading of the schemas (see the module comment), every problem collected. */
export function answerSchemas(): PlatformSchemaSet {
  return (open ??= compileSet(true, (s) => opened(s) as Schema));
}

/**
 * For each of `names`, the source of a CommonJS module exporting `validate`, the validator of that
 * definition in the open reading ({@link answerSchemas}), compiled ahead of time (ajv standalone code),
 * and the {@link platformSchemaDigest} it was compiled from. `npm run build` writes one for each
 * definition a route answers with (dist/platform/answers/NAME.cjs, scripts/build-validators.mjs): a run
 * then checks an answer without compiling the schemas (about a tenth of a second), with the same
 * function and so the same problems.
 *
 * @throws {@link InternalError} for a name that is no definition of schemas/platform/.
 */
export function answerValidatorModules(names: readonly string[]): Map<string, string> {
  const set = compileSet(true, (s) => opened(s) as Schema, true);
  const digest = JSON.stringify(platformSchemaDigest());
  const out = new Map<string, string>();
  for (const name of names) {
    const def = set.definitions.get(name);
    if (!def || !PLAIN_NAME.test(name))
      throw new InternalError(`schemas/platform/ has no definition ${name}`);
    const id = `${PLATFORM_SCHEMA_BASE}${def.file}.schema.json#/definitions/${name}`;
    out.set(name, `${standaloneCode(set.ajv, { validate: id })}\nexports.schemaDigest = ${digest};\n`);
  }
  return out;
}

/** A definition name as a file name may carry it (the names of schemas/platform/ are plain words). */
const PLAIN_NAME = /^[A-Za-z][A-Za-z0-9]*$/;

/** The validators of the open reading, once looked for: compiled at build time, or `undefined`. */
const builtAnswers = new Map<string, ValidateFunction | undefined>();

/**
 * The validator of `name` in the open reading compiled at build time (dist/platform/answers/NAME.cjs),
 * when it exists and was compiled from the schemas read now; else `undefined` (running from the
 * sources, a definition no route answers with, or schemas changed since).
 */
function builtAnswerValidator(name: string): ValidateFunction | undefined {
  if (builtAnswers.has(name)) return builtAnswers.get(name);
  let found: ValidateFunction | undefined;
  if (PLAIN_NAME.test(name)) {
    try {
      // A name in a variable: a bundler leaves it alone. From dist/platform/ and from the CLI's bundle
      // in dist/cli/ alike (scripts/build-cli.mjs).
      const file = `../platform/answers/${name}.cjs`;
      const module = createRequire(import.meta.url)(file) as { validate?: unknown; schemaDigest?: unknown };
      if (module.schemaDigest === platformSchemaDigest() && typeof module.validate === "function")
        found = module.validate as ValidateFunction;
    } catch {
      found = undefined;
    }
  }
  builtAnswers.set(name, found);
  return found;
}

// ---- phrases ---------------------------------------------------------------------------------------

const ARTICLE: Record<string, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "a boolean",
  array: "an array",
  object: "an object",
  null: "null",
};

/** The JSON types of a `type` keyword (`"string"`, `["integer", "null"]`, ajv's `"integer,null"`). */
export function typeList(t: unknown): string[] {
  if (Array.isArray(t)) return t.map(String);
  if (typeof t === "string") return t.split(",");
  return [];
}

/** JSON types as a phrase: `a string`, `an integer or null`. */
export function typePhrase(t: unknown): string {
  const list = typeList(t).map((x) => (Object.hasOwn(ARTICLE, x) ? ARTICLE[x]! : x));
  return list.length <= 1 ? (list[0] ?? "valid") : `${list.slice(0, -1).join(", ")} or ${list.at(-1)}`;
}

/** Follows a `#/definitions/Name` reference (names are unique across the platform schemas). */
export function resolveSchema(schema: unknown): Schema | undefined {
  if (schema === null || typeof schema !== "object") return undefined;
  const s = schema as Schema;
  if (typeof s.$ref === "string") {
    const name = s.$ref.split("/").pop() ?? "";
    return resolveSchema(platformSchemas().definitions.get(name)?.schema);
  }
  return s;
}

/** What a schema expects, as a phrase: `an array`, `a string or null`, `one of A,B`. */
export function expectedOf(schema: unknown): string {
  const s = resolveSchema(schema);
  if (!s) return "valid";
  if (Array.isArray(s.enum)) return `one of ${s.enum.map(String).join(",")}`;
  if (Array.isArray(s.anyOf)) return s.anyOf.map(expectedOf).join(" or ");
  if (typeof s.pattern === "string") return `${typePhrase(s.type)} matching ${s.pattern}`;
  return typePhrase(s.type);
}

// ---- answers ---------------------------------------------------------------------------------------

/** Problems of an answer listed in a message at most; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 3;

/** Characters of a string value quoted in a problem at most. */
const QUOTED_CHARS = 40;

/**
 * A value of an answer as a problem shows it: short scalars as JSON (a string cut at 40 characters),
 * arrays and objects by their kind only, so that no more of the platform's answer is echoed than helps.
 */
function shownValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  switch (typeof value) {
    case "string":
      return value.length > QUOTED_CHARS
        ? `${JSON.stringify(value.slice(0, QUOTED_CHARS))}…`
        : JSON.stringify(value);
    case "number":
    case "boolean":
      return String(value);
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

/** The place of a problem: a JSON pointer into the answer (RFC 6901), `top level` for the answer itself. */
function pointerOf(instancePath: string): string {
  return instancePath === "" ? "top level" : instancePath;
}

/** The JSON pointer of a field of the value at `instancePath` (`~` and `/` escaped, RFC 6901 §3). */
function fieldPointer(instancePath: string, field: string): string {
  return `${instancePath}/${field.replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/** One ajv error as `POINTER: expected …, got …` (without the value when `quote` is false). */
function answerProblem(e: ErrorObject, quote: boolean): string {
  const p = e.params as Record<string, unknown>;
  const got = quote ? `got ${shownValue(e.data)}` : "got something else";
  switch (e.keyword) {
    case "required": {
      const prop = String(p.missingProperty);
      const props = ((e.parentSchema ?? {}) as Schema).properties as Record<string, unknown> | undefined;
      const what = props && Object.hasOwn(props, prop) ? expectedOf(props[prop]) : "a value";
      return `${fieldPointer(e.instancePath, prop)}: missing (expected ${what})`;
    }
    case "type":
      return `${pointerOf(e.instancePath)}: expected ${typePhrase(p.type)}, ${got}`;
    case "enum":
      return `${pointerOf(e.instancePath)}: expected one of ${(p.allowedValues as unknown[]).map(String).join(", ")}, ${got}`;
    case "additionalProperties":
      return `${fieldPointer(e.instancePath, String(p.additionalProperty))}: not a field the schema names`;
    case "anyOf":
      return `${pointerOf(e.instancePath)}: expected ${(e.schema as unknown[]).map(expectedOf).join(" or ")}, ${got}`;
    case "format": {
      const format = String(p.format);
      const what =
        format === "time-hh-mm-ss"
          ? "a time HH:mm:ss"
          : format === "time-hh-mm"
            ? "a time HH:MM"
            : `a ${format}`;
      return `${pointerOf(e.instancePath)}: expected ${what}, ${got}`;
    }
    default:
      return `${pointerOf(e.instancePath)}: ${e.message ?? "is invalid"}, ${got}`;
  }
}

/**
 * ajv's errors as problems, in the order met, the first at each place of the answer only. The errors of
 * the branches of an `anyOf` that failed as a whole (with `allErrors`, they come right before it, at its
 * place in the answer or below) give way to the `anyOf` itself, said as what its branches accept.
 */
function problemsOf(errors: readonly ErrorObject[], quote: boolean): string[] {
  const kept: ErrorObject[] = [];
  for (const e of errors) {
    if (e.keyword === "anyOf") {
      const under = (x: ErrorObject) =>
        x.instancePath === e.instancePath || x.instancePath.startsWith(`${e.instancePath}/`);
      while (kept.length > 0 && under(kept.at(-1)!)) kept.pop();
    }
    kept.push(e);
  }
  // One problem per place: a value of the wrong type fails its `enum` or `format` too.
  const places = new Set<string>();
  const out: string[] = [];
  for (const e of kept) {
    const problem = answerProblem(e, quote);
    const place = problem.slice(0, problem.indexOf(": "));
    if (!places.has(place)) out.push(problem);
    places.add(place);
  }
  return out;
}

/**
 * ajv's errors of a failed validation as problems, each `JSON-pointer: expected …, got …` (values not
 * quoted when `quote` is false), the first at each place only: the phrasing of {@link answerProblems}
 * for a validator compiled elsewhere (the emulator's checks against the published description).
 */
export function describeErrors(errors: readonly ErrorObject[], quote = true): string[] {
  return problemsOf(errors, quote);
}

/** Options of {@link answerProblems}. */
export interface AnswerCheck {
  /** Show the values that are wrong (default true); false for an answer that carries a secret. */
  quote?: boolean;
  /**
   * Check against the schemas as written ({@link platformSchemas}: a field they do not name is a
   * problem, the first problem only) instead of the client's open reading: for a side that must send
   * exactly what the spec describes (an emulator checking its own answers).
   */
  asWritten?: boolean;
}

/**
 * Checks a platform answer against a definition of schemas/platform/, read open (see the module
 * comment) unless `asWritten`. Returns the problems, each `JSON-pointer: expected …, got …` (empty
 * when the answer matches), in the order met; the caller lists the first {@link MAX_LISTED_PROBLEMS}.
 * @throws Error for a definition name the schemas do not have (a bug of the route table).
 */
export function answerProblems(
  name: PlatformSchemaName,
  value: unknown,
  options: AnswerCheck = {},
): string[] {
  const validate = options.asWritten
    ? platformSchemas().validator(name)
    : (builtAnswerValidator(name) ?? answerSchemas().validator(name));
  if (validate(value)) return [];
  return problemsOf(validate.errors ?? [], options.quote !== false);
}
