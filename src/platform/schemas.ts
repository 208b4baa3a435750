/**
 * The platform's wire shapes, `schemas/platform/*.schema.json`, compiled with ajv: read once per
 * process on first use, each definition compiled when it is first asked for and then cached, never per
 * call. The route table (routes.ts) names the definition of each route's request and answer; the same
 * files are read two ways:
 *
 * - **as written** ({@link platformSchemas}): the emulator checks the requests it gets with it
 *   (src/emulator/request-validation.ts) and the conformance suite the answers it sends, so that where a
 *   schema says `additionalProperties: false` a field the spec does not describe is refused;
 * - **open** ({@link answerProblems}): how the client reads the platform's answers. The same
 *   definitions with every `additionalProperties: false` lifted: a field the platform adds and carte
 *   does not read is no reason to refuse its answer (the platform may grow fields without telling), while
 *   the type of every field the schemas name, and so of every field carte reads, is checked as written.
 *   Every problem is collected, so that a message can list the first few.
 *
 * The client checks every answer it reads, store menus of half a megabyte included, so the open reading
 * is checked in two steps ({@link answerProblems}): a validator that only says yes or no (first problem
 * only, no error details, ajv's code optimisation on), compiled from the schemas at build time
 * (`npm run build` writes dist/platform/validators.cjs, scripts/build-validators.mjs) and used when it
 * was compiled from the schemas read now; only an answer it refuses goes through the validator that
 * collects and locates every problem, compiled at run time. Both compile the same schemas, so they
 * accept the same answers, and the problems of a refused answer are always those of the second.
 *
 * The definitions are unique across the files (scripts/gen-types.mjs checks it), so a definition is
 * named by its bare name (`StoreMenu`), as `PlatformSchemaName` spells it.
 */

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Ajv, AnySchemaObject, CodeOptions, ErrorObject, ValidateFunction } from "ajv";

import { ajvParts } from "../json-schema/ajv.js";
import { asciiSource } from "../json-schema/ascii.js";
import { InternalError } from "../errors.js";
import type { PlatformSchemaName } from "../generated/platform.js";

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
 * Formats the platform schemas use beyond ajv-formats: the menu API's `HH:MM` (docs/platform-api.md §4.3) and
 * the utils group's `HH:mm:ss` (docs/platform-api.md §4.6, §4.7).
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
/** The text of each file, as read (what {@link platformSchemaDigest} hashes). */
const texts = new Map<string, string>();

/** Reads schemas/platform/ once (two folders up from both src/platform and dist/platform). */
function schemaFiles(): ReadonlyMap<string, Schema> {
  if (files) return files;
  const out = new Map<string, Schema>();
  for (const file of PLATFORM_SCHEMA_FILES) {
    const url = new URL(`../../schemas/platform/${file}.schema.json`, import.meta.url);
    const text = readFileSync(url, "utf8");
    texts.set(file, text);
    out.set(file, JSON.parse(text) as Schema);
  }
  return (files = out);
}

/**
 * The SHA-256 (hex) of the files of schemas/platform/ (in {@link PLATFORM_SCHEMA_FILES} order) and of
 * carte's own formats ({@link TIME_FORMATS}): the answer validators compiled at build time
 * (dist/platform/validators.cjs) are used only when they were compiled from these very schemas.
 */
export function platformSchemaDigest(): string {
  schemaFiles();
  const hash = createHash("sha256");
  for (const file of PLATFORM_SCHEMA_FILES) hash.update(`${file}\0${texts.get(file)!}\0`);
  for (const [name, re] of Object.entries(TIME_FORMATS)) hash.update(`${name}\0${re.source}\0`);
  return hash.digest("hex");
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

/** The `$id`-based reference of a definition, `…/menu.schema.json#/definitions/StoreMenu`. */
function definitionRef(file: string, name: string): string {
  return `${PLATFORM_SCHEMA_BASE}${file}.schema.json#/definitions/${name}`;
}

/**
 * What a validator reports: every problem with the schema and value of each (`every`: the client's
 * messages), the first problem with its schema and value (`first`: the emulator's checks), or only
 * whether there is a problem (`verdict`: the first step of {@link answerProblems}).
 */
type Reporting = "every" | "first" | "verdict";

/** An ajv instance over every file, each passed through `shape` first. */
function schemaAjv(reporting: Reporting, shape: (schema: Schema) => Schema, code: CodeOptions): Ajv {
  const details = reporting !== "verdict";
  const { Ajv, addFormats } = ajvParts();
  // strictRequired off: `anyOf: [{required: [a]}, {required: [b]}]` names properties defined beside it.
  const ajv = new Ajv({
    allErrors: reporting === "every",
    verbose: details,
    messages: details,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    code,
  });
  addFormats(ajv);
  for (const [name, re] of Object.entries(TIME_FORMATS)) ajv.addFormat(name, re);
  ajv.addVocabulary([...ANNOTATIONS]);
  for (const schema of schemaFiles().values()) ajv.addSchema(shape(schema));
  return ajv;
}

/**
 * An ajv instance over every file, each passed through `shape` first, with a cache of one validator per
 * definition (compiled on first use).
 */
function compileSet(reporting: Reporting, shape: (schema: Schema) => Schema): PlatformSchemaSet {
  const ajv = schemaAjv(reporting, shape, {
    // ajv's pass that trims the generated code costs most of the compile time of these schemas, and a
    // validator compiled without it validates as fast within a few percent (every test process compiles).
    optimize: false,
  });
  const all = schemaFiles();
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
        v = ajv.getSchema(definitionRef(def.file, name));
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
  return (asWritten ??= compileSet("first", (s) => s));
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

/** A file of schemas/platform/ read open (see the module comment). */
const openSchema = (schema: Schema): Schema => opened(schema) as Schema;

let open: PlatformSchemaSet | undefined;

/** The open reading of the schemas (see the module comment), every problem collected. */
export function answerSchemas(): PlatformSchemaSet {
  return (open ??= compileSet("every", openSchema));
}

// ---- verdicts compiled at build time ----------------------------------------------------------------

/** A validator that only says whether a value matches a definition (no errors kept). */
export type AnswerVerdict = (value: unknown) => boolean;

/**
 * Where the compiled verdicts lie, relative to this module: from dist/platform/ and from the CLI's
 * bundle in dist/cli/ alike (scripts/build-cli.mjs keeps the bundle at the depth of the other modules).
 */
const VERDICTS_FILE = "../platform/validators.cjs";

/**
 * The source of a CommonJS module exporting, for each definition named, the validator of its open
 * reading that only gives a verdict (first problem only, no error details, ajv's code optimisation on),
 * and the {@link platformSchemaDigest} it was compiled from. `npm run build` writes it to
 * dist/platform/validators.cjs for the response definitions of the route table
 * (scripts/build-validators.mjs): the client then neither compiles these schemas to read an answer nor
 * keeps more than a verdict while it checks one. In ASCII (src/json-schema/ascii.ts `asciiSource`).
 * @throws InternalError for a name the schemas do not have.
 */
export function answerVerdictsModule(names: readonly string[]): string {
  const definitions = definitionsOf(schemaFiles());
  const refs: Record<string, string> = {};
  for (const name of names) {
    const def = definitions.get(name);
    if (!def) throw new InternalError(`schemas/platform/ has no definition ${name}`);
    refs[name] = definitionRef(def.file, name);
  }
  // The generated code names the formats through `carteFormats`, defined first in the module:
  // ajv-formats' own, then carte's (as regular expression literals).
  const { _, standaloneCode } = ajvParts();
  const ajv = schemaAjv("verdict", openSchema, { source: true, formats: _`carteFormats` });
  const ours = Object.entries(TIME_FORMATS)
    .map(([name, re]) => `${JSON.stringify(name)}: ${re.toString()}`)
    .join(", ");
  const formats =
    `const carteFormats = Object.assign({}, require("ajv-formats/dist/formats").fullFormats, ` +
    `{ ${ours} });`;
  const code = standaloneCode(ajv, refs);
  const strict = '"use strict";';
  if (!code.startsWith(strict))
    throw new InternalError("ajv's standalone code no longer starts in strict mode");
  return asciiSource(
    `${strict}\n// Generated by scripts/build-validators.mjs from schemas/platform/ (npm run build); do not edit.\n` +
      `${formats}\n${code.slice(strict.length)}\n` +
      `exports.schemaDigest = ${JSON.stringify(platformSchemaDigest())};\n`,
  );
}

/**
 * The verdicts of a module written by {@link answerVerdictsModule}, by definition name, when it was
 * compiled from the schemas read now; `undefined` when it was not (schemas changed since the build).
 */
export function verdictsOf(module: Record<string, unknown>): ReadonlyMap<string, AnswerVerdict> | undefined {
  if (module.schemaDigest !== platformSchemaDigest()) return undefined;
  const out = new Map<string, AnswerVerdict>();
  for (const [name, fn] of Object.entries(module)) {
    if (typeof fn === "function") out.set(name, fn as AnswerVerdict);
  }
  return out;
}

/** The verdicts compiled at build time, once loaded: `null` when there are none to use. */
let builtVerdicts: ReadonlyMap<string, AnswerVerdict> | null | undefined;

/**
 * The verdicts compiled at build time (dist/platform/validators.cjs), when that file exists and was
 * compiled from the schemas read now; else an empty map (running from the sources or from the Action's
 * bundle, or schemas changed since the build): every answer then goes to the validator compiled at run
 * time.
 * @throws InternalError when the file exists but cannot be loaded (a broken build).
 */
export function buildTimeVerdicts(): ReadonlyMap<string, AnswerVerdict> {
  if (builtVerdicts === undefined) {
    let module: Record<string, unknown> | undefined;
    try {
      // A name in a variable: a bundler leaves it alone (the Action's bundle compiles at run time).
      const file = VERDICTS_FILE;
      module = createRequire(import.meta.url)(file) as Record<string, unknown>;
    } catch (err) {
      const missing = (err as { code?: unknown }).code === "MODULE_NOT_FOUND";
      if (!missing) {
        throw new InternalError(
          `the answer validators compiled at build time (dist/platform/validators.cjs) do not load: ` +
            `${err instanceof Error ? err.message : String(err)}; rebuild carte (npm run build)`,
        );
      }
    }
    builtVerdicts = (module && verdictsOf(module)) ?? null;
  }
  return builtVerdicts ?? new Map();
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
  /**
   * The first step of the open reading: verdicts by definition name (default
   * {@link buildTimeVerdicts}). A definition without one goes straight to the validator compiled at
   * run time.
   */
  verdicts?: ReadonlyMap<string, AnswerVerdict>;
}

/**
 * Checks a platform answer against a definition of schemas/platform/, read open (see the module
 * comment) unless `asWritten`. Returns the problems, each `JSON-pointer: expected …, got …` (empty
 * when the answer matches), in the order met; the caller lists the first {@link MAX_LISTED_PROBLEMS}.
 * An answer the build-time verdict accepts is not checked again; one it refuses is checked by the
 * validator compiled at run time, which collects and locates its problems.
 * @throws Error for a definition name the schemas do not have (a bug of the route table).
 * @throws InternalError when the verdict and the validator compiled at run time disagree (a build
 *   that does not match the schemas it says it was compiled from).
 */
export function answerProblems(
  name: PlatformSchemaName,
  value: unknown,
  options: AnswerCheck = {},
): string[] {
  if (!options.asWritten) {
    const verdict = (options.verdicts ?? buildTimeVerdicts()).get(name);
    if (verdict?.(value)) return [];
    const validate = answerSchemas().validator(name);
    if (validate(value)) {
      if (verdict === undefined) return [];
      throw new InternalError(
        `the answer validator of ${name} compiled at build time refuses an answer the schemas accept; rebuild carte (npm run build)`,
      );
    }
    return problemsOf(validate.errors ?? [], options.quote !== false);
  }
  const validate = platformSchemas().validator(name);
  if (validate(value)) return [];
  return problemsOf(validate.errors ?? [], options.quote !== false);
}
