/**
 * JSON Schema validation of the configuration files (schemas/config/*.schema.json) with ajv, and the
 * translation of ajv's errors into located problems written for the person who edits the files.
 */

import { didYouMean } from "../suggest.js";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { ajvParts } from "../json-schema/ajv.js";
import { asciiSource } from "../json-schema/ascii.js";
import type { ConfigProblem } from "../errors.js";
import { quote } from "../source/problems.js";
import { locate, MAX_PROBLEMS, pointerSegments } from "../source/yaml.js";
import type { YamlFile } from "../source/yaml.js";
import { InternalError } from "../errors.js";
import { commaPriceProblem, type Currency } from "../money.js";

/**
 * The kinds of configuration files, each with its schema in schemas/config/: carte.yaml, catalogs,
 * stores, groups, and shared settings files (named by `include:`). settings.schema.json also holds the
 * definitions the others share (slots, hours, webhooks, schedules).
 */
export type FileKind = "project" | "catalog" | "store" | "group" | "settings";

const FILE_KINDS: readonly FileKind[] = ["settings", "project", "catalog", "store", "group"];

let validators: Record<FileKind, ValidateFunction> | undefined;
const roots: Partial<Record<FileKind, Record<string, unknown>>> = {};
/** The text of each schema, as read (what {@link schemaDigest} hashes). */
const texts: Partial<Record<FileKind, string>> = {};

/** Reads a schema of schemas/config/ (two folders up from both src/config and dist/config). */
function readSchema(kind: FileKind): Record<string, unknown> {
  const known = roots[kind];
  if (known) return known;
  const url = new URL(`../../schemas/config/${kind}.schema.json`, import.meta.url);
  const text = readFileSync(url, "utf8");
  const schema = JSON.parse(text) as Record<string, unknown>;
  texts[kind] = text;
  roots[kind] = schema;
  return schema;
}

/**
 * The SHA-256 (hex) of the schemas of schemas/config/, in a fixed order: the validators compiled at
 * build time (dist/config/validators.cjs) are used only when they were compiled from these very
 * schemas.
 */
export function schemaDigest(): string {
  const hash = createHash("sha256");
  for (const kind of FILE_KINDS) {
    readSchema(kind);
    hash.update(`${kind}\0${texts[kind]!}\0`);
  }
  return hash.digest("hex");
}

/**
 * Follows a `$ref` of a schema of the given kind: local (`#/definitions/Sku`) or into another file of
 * schemas/config/ (`settings.schema.json#/definitions/Hours`).
 */
function deref(kind: FileKind, schema: unknown): Record<string, unknown> | undefined {
  if (schema === null || typeof schema !== "object") return undefined;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref !== "string") return schema as Record<string, unknown>;
  const [file = "", fragment = ""] = ref.split("#");
  const other = FILE_KINDS.find((k) => file === `${k}.schema.json`);
  let node: unknown = file === "" ? readSchema(kind) : other ? readSchema(other) : undefined;
  for (const segment of pointerSegments(fragment)) {
    node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[segment] : undefined;
  }
  return node !== null && typeof node === "object" ? (node as Record<string, unknown>) : undefined;
}

/**
 * An ajv holding every schema of schemas/config/, with the options validation needs (every error,
 * strict schemas, verbose errors for the messages) and the formats they use. `source`: keep each
 * compiled function's code, for {@link validatorsModule}.
 */
function schemaAjv(source = false): Ajv {
  const { Ajv, addFormats } = ajvParts();
  const ajv = new Ajv({
    allErrors: true,
    strict: true,
    verbose: true,
    ...(source ? { code: { source } } : {}),
  });
  addFormats(ajv);
  // Every schema first, so that each can refer to the others' definitions by file name (the settings
  // schema holds the shared ones; its catalog overrides refer to the catalog's prices and images).
  for (const kind of FILE_KINDS) ajv.addSchema(readSchema(kind));
  return ajv;
}

/**
 * The source of a CommonJS module exporting one validation function per kind of file, compiled from
 * the schemas of schemas/config/ ahead of time (ajv standalone code), and the {@link schemaDigest} they
 * were compiled from. `npm run build` writes it to dist/config/validators.cjs
 * (scripts/build-validators.mjs): carte then starts without compiling the schemas (a quarter of a
 * second), with the same functions and so the same errors. In ASCII ({@link asciiSource}).
 */
export function validatorsModule(): string {
  const ajv = schemaAjv(true);
  const { standaloneCode } = ajvParts();
  const ids = Object.fromEntries(FILE_KINDS.map((kind) => [kind, String(readSchema(kind).$id)]));
  return asciiSource(
    `${standaloneCode(ajv, ids)}\nexports.schemaDigest = ${JSON.stringify(schemaDigest())};\n`,
  );
}

/**
 * The validators compiled at build time (dist/config/validators.cjs), when they exist and were compiled
 * from the schemas read now; else `undefined` (running from the sources, or schemas changed since).
 */
function precompiled(): Record<FileKind, ValidateFunction> | undefined {
  let module: Partial<Record<FileKind | "schemaDigest", unknown>>;
  try {
    // A name in a variable: a bundler leaves it alone, and the bundle compiles the schemas itself.
    // From dist/config/ and from the CLI's bundle in dist/cli/ alike (scripts/build-cli.mjs).
    const file = "../config/validators.cjs";
    module = createRequire(import.meta.url)(file) as typeof module;
  } catch {
    return undefined;
  }
  if (module.schemaDigest !== schemaDigest()) return undefined;
  const out: Partial<Record<FileKind, ValidateFunction>> = {};
  for (const kind of FILE_KINDS) {
    const fn = module[kind];
    if (typeof fn !== "function") return undefined;
    out[kind] = fn as ValidateFunction;
  }
  return out as Record<FileKind, ValidateFunction>;
}

function getValidators(): Record<FileKind, ValidateFunction> {
  if (!validators) validators = precompiled() ?? compileValidators();
  return validators;
}

/** The validators compiled now, from the schemas of schemas/config/. */
export function compileValidators(): Record<FileKind, ValidateFunction> {
  const ajv = schemaAjv();
  const compiled = (kind: FileKind): ValidateFunction => {
    const fn = ajv.getSchema(String(readSchema(kind).$id));
    if (!fn) throw new InternalError(`schemas/config/${kind}.schema.json did not compile`);
    return fn;
  };
  return {
    settings: compiled("settings"),
    project: compiled("project"),
    catalog: compiled("catalog"),
    store: compiled("store"),
    group: compiled("group"),
  };
}

/**
 * Validates a parsed file against the schema of its kind (with `validators`, the functions given: by
 * default those compiled at build time, else compiled now).
 *
 * @returns one located problem per violation (empty when the file is valid), at most
 *   `MAX_PROBLEMS + 1`. Alternatives (a SKU or an inline option, a number or a text id) are reported
 *   once, as the alternative the value was closest to.
 */
export function validateFile(
  parsed: YamlFile,
  kind: FileKind,
  currency?: Currency,
  validators: Record<FileKind, ValidateFunction> = getValidators(),
): ConfigProblem[] {
  const validate = validators[kind];
  if (validate(parsed.data)) return [];
  const errors = simplify(validate.errors ?? []);
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    // One more than the load keeps, so that it knows some were left out.
    if (problems.length > MAX_PROBLEMS) break;
    // ajv reports a key that fails `propertyNames` twice: by the rule it fails (kept), then generically.
    if (error.keyword === "propertyNames") continue;
    const problem = toProblem(parsed, kind, error, currency);
    const key = `${problem.pointer}\0${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

/**
 * Removes the noise of `anyOf`: ajv reports the failure of every alternative, then the `anyOf` itself.
 * Alternatives that fail only because the value has another type are dropped, and the errors of the
 * others are kept; when every alternative fails on type, one combined type error replaces them all.
 *
 * The errors of the alternatives are the run of errors at or below the `anyOf`'s value that ajv emits
 * right before it (their schema paths are no help: alternatives given by `$ref` report the path of the
 * referenced definition). The schemas put nothing but `anyOf` on such values, so the run is exact.
 */
function simplify(errors: ErrorObject[]): ErrorObject[] {
  // One pass: the alternatives' errors are the tail of what is kept so far when their `anyOf` comes,
  // so each is replaced at the end of the list (a file with thousands of alternatives stays linear).
  const result: ErrorObject[] = [];
  for (const alt of errors) {
    if (alt.keyword !== "anyOf" && alt.keyword !== "oneOf") {
      result.push(alt);
      continue;
    }
    const at = alt.instancePath;
    let start = result.length;
    while (start > 0) {
      const prev = result[start - 1]!;
      if (prev.instancePath !== at && !prev.instancePath.startsWith(at + "/")) break;
      start--;
    }
    const run = result.splice(start);
    const typeErrors = run.filter((e) => e.keyword === "type" && e.instancePath === at);
    const branches = Array.isArray(alt.schema) ? alt.schema.length : typeErrors.length + 1;
    if (typeErrors.length >= branches)
      result.push({
        ...alt,
        keyword: "type",
        params: { type: typeErrors.map((e) => String(e.params.type)).join(",") },
      });
    else for (const e of run) if (!typeErrors.includes(e)) result.push(e);
  }
  return result;
}

const TYPE_NAMES: Record<string, string> = {
  string: "text",
  number: "a number",
  integer: "a whole number",
  boolean: "true or false",
  object: "a mapping (key: value lines)",
  array: "a list",
  null: "empty",
};

/** Describes a value for a message: `"abc"`, `12.5`, `a list`, `nothing`. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return "nothing";
  if (typeof value === "string") return quote(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return typeof value;
}

/**
 * What each `pattern` of the schemas means, in words, keyed by the pattern's text: the one place that
 * turns a pattern problem into words (a regular expression never reaches a user). A pattern added to
 * schemas/config gets its words in this table; a pattern without words is described by its schema's
 * description ({@link patternWords}).
 */
const PATTERN_WORDS = new Map<string, string>([
  [
    "^[A-Za-z0-9][A-Za-z0-9._-]*$",
    "use letters, digits, dots, dashes and underscores, starting with a letter or digit, e.g. BURGER-CLASSIC",
  ],
  [
    "^[A-Za-z0-9*][A-Za-z0-9._*-]*$",
    "use letters, digits, dots, dashes and underscores, and * for any run of them (the only wildcard), e.g. PIZZA-G or PIZZA-*-G",
  ],
  ["^[a-z0-9][a-z0-9-]*$", "use lower case letters, digits and dashes, e.g. bog-centro"],
  ["^[A-Z][A-Z0-9_]*$", "use capital letters, digits and underscores, starting with a letter, e.g. DEFAULT"],
  ["^[1-9][0-9]*$", "use digits only, without a leading 0, e.g. 900123"],
  ["^https?://", "write a full address starting with https://"],
  [
    "^[0-9]{1,2}:[0-9]{2}-[0-9]{1,2}:[0-9]{2}$",
    "write a slot as start-end in 24-hour time, e.g. 11:00-15:00 (22:00-02:00 runs past midnight)",
  ],
  ["^[0-9]{2}-[0-9]{2}$", 'write a date as MM-DD in quotes, e.g. "12-24"'],
  ["^[A-Z]{3}$", "write the currency's 3-letter ISO 4217 code in capitals, e.g. COP or BRL"],
  ["^[A-Z]{2}$", "write the country's 2-letter ISO 3166-1 code in capitals, e.g. CO or BR"],
  ["^[a-z]{2,3}$", "write the language's 2- or 3-letter ISO 639 code in lower case, e.g. pt or es"],
  [
    "^[a-z][a-z0-9-]{0,30}$",
    "use lower case letters, digits and dashes, starting with a letter, at most 31 characters, e.g. co",
  ],
  [
    "^[a-z][a-z0-9_-]*$",
    "use lower case letters, digits, dashes and underscores, starting with a letter, e.g. canary",
  ],
  [
    "^(?!.*/\\.)(?!.*\\.\\.)(?!.*\\.lock(/|$))(?!.*\\.$)refs/(?!heads/|tags/)[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$",
    "write a full ref name under refs/ that git takes and that is not a branch or a tag: letters, digits, dots, dashes and underscores between slashes, no .., no part starting with a dot or ending with .lock, no dot at the end (git check-ref-format), e.g. refs/carte/lock",
  ],
  ["^[A-Za-z0-9._-]+$", "use letters, digits, dots, dashes and underscores, e.g. origin"],
]);

/**
 * The words for a value that does not match `pattern`: its words from the table, else the first
 * sentence of the schema's description, else a plain "it is not written in the expected form". Never
 * the pattern itself.
 */
export function patternWords(pattern: string, description: unknown): string {
  const words = PATTERN_WORDS.get(pattern);
  if (words !== undefined) return words;
  if (typeof description === "string" && description.trim() !== "")
    return `it is not written in the expected form (${firstSentence(description)})`;
  return "it is not written in the expected form";
}

/** The name of the value at a pointer, for messages: `price`, `options[2]`, `the file`. */
function nameAt(pointer: string): string {
  const segments = pointerSegments(pointer);
  const last = segments[segments.length - 1];
  if (last === undefined) return "the file";
  if (/^\d+$/.test(last)) {
    const parent = segments[segments.length - 2];
    return parent === undefined ? `entry ${last}` : `${parent}[${last}]`;
  }
  return last;
}

/** A schema and the file whose schema holds it (where its `$ref`s without a file lead). */
interface SchemaIn {
  kind: FileKind;
  node: Record<string, unknown>;
}

/** A schema after its `$ref` (followed into the file it names), or `undefined`. */
function followRef(kind: FileKind, node: unknown): SchemaIn | undefined {
  if (node === null || typeof node !== "object") return undefined;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref !== "string") return { kind, node: node as Record<string, unknown> };
  const [file = "", fragment = ""] = ref.split("#");
  const target = file === "" ? kind : FILE_KINDS.find((k) => file === `${k}.schema.json`);
  const found = target === undefined ? undefined : deref(target, { $ref: `#${fragment}` });
  return target === undefined || found === undefined ? undefined : { kind: target, node: found };
}

/** The schemas of the keys a schema lists (`properties:`), each with its file. */
function propertiesOf(at: SchemaIn): Map<string, SchemaIn> {
  const out = new Map<string, SchemaIn>();
  const properties = at.node.properties;
  if (properties === null || typeof properties !== "object") return out;
  for (const [key, value] of Object.entries(properties)) {
    const below = followRef(at.kind, value);
    if (below) out.set(key, below);
  }
  return out;
}

/**
 * The schema of the mapping at `pointer` in a file of `kind`, walked from the file's schema through
 * its keys and lists; `undefined` where the schema does not say one form (a choice of forms).
 */
function schemaAt(kind: FileKind, pointer: string): SchemaIn | undefined {
  let at = followRef(kind, readSchema(kind));
  for (const segment of pointerSegments(pointer)) {
    if (!at) return undefined;
    const { node } = at;
    const next = propertiesOf(at).get(segment);
    at = next ?? followRef(at.kind, /^\d+$/.test(segment) ? node.items : node.additionalProperties);
  }
  return at;
}

/**
 * Where an unknown key of the mapping at `pointer` lives when it is a key of a mapping one or two levels
 * below (a store file's `prices:` is `overrides: prices:`; a group's `hours:` is `defaults: hours:`):
 * ` (did you mean overrides: prices:?)`, each place named when there are several at the nearest level;
 * "" when the key is no key below. Only the schema's own key names are shown, never the file's text.
 */
function nestedHint(kind: FileKind, pointer: string, key: string): string {
  const here = schemaAt(kind, pointer);
  let level = here ? [...propertiesOf(here)].map(([k, at]) => ({ path: [k], at })) : [];
  for (let depth = 0; depth < 2 && level.length > 0; depth++) {
    const found = level.filter(({ at }) => propertiesOf(at).has(key));
    if (found.length > 0) {
      const places = found.map(({ path }) => [...path, key].map((k) => `${k}:`).join(" ")).sort();
      return ` (did you mean ${places.join(" or ")}?)`;
    }
    level = level.flatMap(({ path, at }) =>
      [...propertiesOf(at)].map(([k, below]) => ({ path: [...path, k], at: below })),
    );
  }
  return "";
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function toProblem(parsed: YamlFile, kind: FileKind, e: ErrorObject, currency?: Currency): ConfigProblem {
  const problem = (pointer: string, message: string, target: "value" | "key" = "value"): ConfigProblem => {
    const { line, col } = locate(parsed, pointer, target);
    return { file: parsed.file, line, col, pointer, message };
  };
  const at = e.instancePath;
  const name = nameAt(at);
  const got = describeValue(e.data);
  const p = e.params as Record<string, unknown>;
  // A key that fails the `propertyNames` of a mapping: located at the key, in the words of its rule.
  if (e.propertyName !== undefined) {
    const key = e.propertyName;
    const schema = e.parentSchema;
    const why =
      e.keyword === "pattern"
        ? patternWords(String(p.pattern), schema?.description)
        : e.keyword === "maxLength"
          ? `at most ${String(p.limit)} characters are allowed`
          : (e.message ?? "it is not allowed");
    return problem(
      `${at}/${escapeSegment(key)}`,
      `key ${quote(key)} of ${name} is not allowed: ${why}`,
      "key",
    );
  }
  switch (e.keyword) {
    case "additionalProperties": {
      const key = String(p.additionalProperty);
      const allowed = Object.keys((e.parentSchema?.properties as Record<string, unknown> | undefined) ?? {});
      const where = at === "" ? "" : ` in ${name}`;
      // A key of a mapping below, written exactly, before a near name of this level (`exclude:`, not `include:`).
      const hint = nestedHint(kind, at, key) || didYouMean(key, allowed, quote);
      return problem(
        `${at}/${escapeSegment(key)}`,
        `unknown key ${quote(key)}${hint}${where} (allowed: ${allowed.join(", ")})`,
        "key",
      );
    }
    case "required": {
      const key = String(p.missingProperty);
      const schema = deref(kind, (e.parentSchema?.properties as Record<string, unknown> | undefined)?.[key]);
      const description = schema?.description;
      const hint = typeof description === "string" ? `: ${firstSentence(description)}` : "";
      const where = at === "" ? "" : ` to ${name}`;
      // Located at the mapping that lacks the key; the pointer names the missing key.
      const { line, col } = locate(parsed, at);
      return {
        file: parsed.file,
        line,
        col,
        pointer: `${at}/${escapeSegment(key)}`,
        message: `missing required key ${quote(key)}: add ${key}${where}${hint}`,
      };
    }
    case "type": {
      // A price written with a comma (`25,900`, `6,90`) is text to YAML: say so, not "must be a number".
      const comma = String(p.type).includes("number") ? commaPriceProblem(e.data, currency) : undefined;
      if (comma) return problem(at, comma);
      // A percentage written with its sign (`percent: 8%`) is text to YAML: say to leave the sign out.
      const sign = String(p.type).includes("number")
        ? /^\s*([+-]?\d+(?:\.\d+)?)\s*%\s*$/.exec(String(e.data))
        : null;
      if (sign && typeof e.data === "string")
        return problem(at, `${name} must be a number, got ${got}: write ${sign[1]!}, without %`);
      // A catalog price: one amount, or an amount per currency (schemas/config/catalog.schema.json).
      if (name === "price" && String(p.type) === "number,object")
        return problem(
          at,
          `price must be a number, got ${got} (or an amount per currency, such as {COP: 24900, BRL: 29.90})`,
        );
      const types = String(p.type)
        .split(",")
        .map((t) => TYPE_NAMES[t] ?? t);
      return problem(at, `${name} must be ${[...new Set(types)].join(" or ")}, got ${got}`);
    }
    case "const":
      return problem(at, `${name} must be ${JSON.stringify(p.allowedValue)}, got ${got}`);
    case "enum": {
      const allowed = (p.allowedValues as unknown[]).map((v) => String(v));
      const hint = typeof e.data === "string" ? didYouMean(e.data, allowed, quote) : "";
      return problem(at, `${name} must be one of: ${allowed.join(", ")}; got ${got}${hint}`);
    }
    case "minimum":
      return problem(at, `${name} must be at least ${String(p.limit)}, got ${got}`);
    case "maximum":
      return problem(at, `${name} must be at most ${String(p.limit)}, got ${got}`);
    case "exclusiveMinimum":
      return problem(at, `${name} must be more than ${String(p.limit)}, got ${got}`);
    case "minLength":
      return p.limit === 1
        ? problem(at, `${name} must not be empty`)
        : problem(at, `${name} must be at least ${plural(Number(p.limit), "character")} long`);
    case "maxLength":
      return problem(
        at,
        `${name} is ${plural([...String(e.data)].length, "character")} long; at most ${String(p.limit)} are allowed`,
      );
    case "minItems":
      return problem(
        at,
        `${name} must list at least ${Number(p.limit) === 1 ? "1 entry" : `${String(p.limit)} entries`}`,
      );
    case "maxItems":
      return problem(
        at,
        `${name} has ${Array.isArray(e.data) ? e.data.length : "too many"} entries; at most ${String(p.limit)} are allowed`,
      );
    case "pattern": {
      const words = patternWords(String(p.pattern), e.parentSchema?.description);
      return problem(at, `${name} ${got} is not allowed here: ${words}`);
    }
    case "format":
      return p.format === "uri"
        ? problem(at, `${name} must be a full web address such as https://api.example.com, got ${got}`)
        : problem(at, `${name} must be a valid ${String(p.format)}, got ${got}`);
    default:
      return problem(at, `${name} ${e.message ?? "is not valid"}`);
  }
}

function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  const sentence = end === -1 ? text : text.slice(0, end);
  return sentence.charAt(0).toLowerCase() + sentence.slice(1);
}

function escapeSegment(s: string): string {
  return s.replace(/~/g, "~0").replace(/\//g, "~1");
}
